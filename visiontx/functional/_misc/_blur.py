"""Gaussian blur (separable) and additive Gaussian noise."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import PIL.Image
import torch
from torch.nn.functional import pad

from ..._args import is_number, parse_kernel_size, parse_sigma
from ..._names import video_kernel
from ...datapoints import Image, Video
from .. import _cv2
from .._checks import check_spatial
from .._dtype import clamp_to_range_, work_dtype
from .._registry import get_kernel, register_kernels
from .._type_conversion import pil_to_tensor, to_image_pil

__all__ = [
    "gaussian_blur",
    "gaussian_blur_image_pil",
    "gaussian_blur_image_tensor",
    "gaussian_blur_video",
    "gaussian_noise",
    "gaussian_noise_image_tensor",
    "gaussian_noise_video",
]


def gaussian_blur(inpt: Any, kernel_size: int | Sequence[int], sigma: float | Sequence[float] | None = None) -> Any:
    """Blur with a separable Gaussian kernel, reflecting the image at its borders.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image; half the kernel must
            fit in the image.
        kernel_size: odd positive size of the kernel: an int or ``(kx, ky)``.
        sigma: positive standard deviation: a number, ``[s]`` or ``(sx, sy)``; None (default) gives
            ``0.15 * k + 0.35`` per axis.

    Example:
        >>> gaussian_blur(image, kernel_size=5, sigma=1.5)
    """
    return get_kernel(gaussian_blur, type(inpt))(inpt, kernel_size=kernel_size, sigma=sigma)


def _weights(size: int, sigma: float) -> list[float]:
    """The normalized 1-D Gaussian, as Python floats (no device tensor, no sync)."""
    half = (size - 1) / 2
    values = [math.exp(-0.5 * ((i - half) / sigma) ** 2) for i in range(size)]
    total = sum(values)
    return [v / total for v in values]


def _blur_axis(planes: torch.Tensor, weights: Sequence[float] | Sequence[torch.Tensor], dim: int) -> torch.Tensor:
    """Convolve float planes ``N x M x H x W`` along ``dim`` (-2 or -1): a weighted sum of shifted views.
    ``weights`` are floats (one kernel for all planes) or ``N x 1 x 1 x 1`` tensors (a kernel per ``N``:
    the batched blur's per-image kernels, ``_batched.gaussian_blur_batch``)."""
    size = len(weights)
    if size == 1:
        return planes
    half, length = size // 2, planes.shape[dim]
    padded = pad(planes, [0, 0, half, half] if dim == -2 else [half, half, 0, 0], mode="reflect")
    output = padded.narrow(dim, 0, length) * weights[0]
    for i in range(1, size):
        weight = weights[i]
        if isinstance(weight, torch.Tensor):
            output.addcmul_(padded.narrow(dim, i, length), weight)
        else:
            output.add_(padded.narrow(dim, i, length), alpha=weight)
    return output


def _blur_planes_torch(
    planes: torch.Tensor, wx: Sequence[float] | Sequence[torch.Tensor], wy: Sequence[float] | Sequence[torch.Tensor]
) -> torch.Tensor:
    return _blur_axis(_blur_axis(planes, wy, dim=-2), wx, dim=-1)


def _no_blur_needed(image: torch.Tensor, kx: int, ky: int, kernel_size: Any) -> bool:
    """Whether the blur of ``image`` by ``kx`` x ``ky`` leaves it as it is (empty, or 1 x 1); ``ValueError``
    (showing the ``kernel_size`` argument) when half the kernel does not fit in the image."""
    height, width = image.shape[-2:]
    if image.numel() == 0 or (kx == 1 and ky == 1):
        return True
    if ky // 2 >= height or kx // 2 >= width:
        raise ValueError(f"kernel_size {kernel_size!r} needs an image larger than half of it, got {height}x{width}")
    return False


@register_kernels(gaussian_blur, (torch.Tensor, Image, Video))
def gaussian_blur_image_tensor(
    image: torch.Tensor, kernel_size: int | Sequence[int], sigma: float | Sequence[float] | None = None
) -> torch.Tensor:
    """Gaussian blur of ``[..., C, H, W]`` as two 1-D passes; uint8 stays uint8 (rounded).

    CPU uint8 / float32 tensors use OpenCV when it is installed; both paths compute the same sums.
    """
    check_spatial(image, "gaussian_blur")
    kx, ky = parse_kernel_size(kernel_size)
    sx, sy = parse_sigma(sigma, (kx, ky))
    if _no_blur_needed(image, kx, ky, kernel_size):
        return image.clone()
    height, width = image.shape[-2:]
    wx, wy = _weights(kx, sx), _weights(ky, sy)
    if _cv2.can_gaussian_blur(image):
        return _cv2.gaussian_blur(image, wx, wy)
    planes = image.reshape(-1, 1, height, width)
    output = _blur_planes_torch(planes.to(work_dtype(image.dtype)), wx, wy)
    if image.is_floating_point():
        return output.to(image.dtype).reshape(image.shape)
    return clamp_to_range_(output, image.dtype).to(image.dtype).reshape(image.shape)


gaussian_blur_video = video_kernel(gaussian_blur_image_tensor)


@register_kernels(gaussian_blur, PIL.Image.Image)
def gaussian_blur_image_pil(
    image: PIL.Image.Image, kernel_size: int | Sequence[int], sigma: float | Sequence[float] | None = None
) -> PIL.Image.Image:
    """Gaussian blur of a PIL image (through the tensor kernel, so both agree exactly)."""
    output = gaussian_blur_image_tensor(pil_to_tensor(image), kernel_size=kernel_size, sigma=sigma)
    return to_image_pil(output, mode=image.mode)


def gaussian_noise(
    inpt: Any, mean: float = 0.0, sigma: float = 0.1, clip: bool = True, *, generator: torch.Generator | None = None
) -> Any:
    """Add Gaussian noise ``N(mean, sigma)`` on the float scale (uint8 images: times 255), fresh per pixel.

    Args:
        inpt: a float or uint8 image tensor ``[..., C, H, W]``, ``Image`` or ``Video``; PIL images are
            refused.
        mean: mean of the noise on the float ``[0, 1]`` scale (default 0).
        sigma: non-negative standard deviation on the same scale (default 0.1).
        clip: clamp the result to the dtype's value range (default True).
        generator: the ``torch.Generator`` (on the image's device) to draw the noise from (keyword only;
            default None: the device's global RNG).

    Example:
        >>> F.gaussian_noise(image, sigma=0.05)
    """
    return get_kernel(gaussian_noise, type(inpt))(inpt, mean=mean, sigma=sigma, clip=clip, generator=generator)


@register_kernels(gaussian_noise, (torch.Tensor, Image, Video))
def gaussian_noise_image_tensor(
    image: torch.Tensor,
    mean: float = 0.0,
    sigma: float = 0.1,
    clip: bool = True,
    *,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Add Gaussian noise to a float ``[0, 1]`` or uint8 ``[0, 255]`` tensor ``[..., C, H, W]``."""
    if not is_number(sigma) or sigma < 0:
        raise ValueError(f"sigma must be a non-negative number, got {sigma!r}")
    if image.is_floating_point():  # image + (mean + noise * sigma), the same float ops in one fresh tensor
        output = torch.empty_like(image).normal_(generator=generator).mul_(sigma).add_(mean).add_(image)
        return output.clamp_(0, 1) if clip else output
    if image.dtype != torch.uint8:
        raise TypeError(f"gaussian_noise needs a float or uint8 image, got dtype {image.dtype}")
    noise = torch.empty_like(image, dtype=torch.float32).normal_(generator=generator)
    noise = (mean * 255 + noise * (sigma * 255)).to(torch.int16)
    output = image + noise
    return (output.clamp_(0, 255) if clip else output).to(torch.uint8)


gaussian_noise_video = video_kernel(gaussian_noise_image_tensor)


@register_kernels(gaussian_noise, PIL.Image.Image)
def _gaussian_noise_image_pil(image: PIL.Image.Image, **kwargs: Any) -> PIL.Image.Image:
    raise TypeError("gaussian_noise does not support PIL images; convert with to_image_tensor first")
