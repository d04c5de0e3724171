"""Grayscale conversions and channel permutation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import PIL.Image
import torch

from ..._names import video_kernel
from ...datapoints import Image, Video
from .. import _cv2
from .._registry import get_kernel, register_kernels
from ._utils import check_channels, pil_bands, to_dtype_rounded

__all__ = [
    "grayscale_to_rgb",
    "grayscale_to_rgb_image_pil",
    "grayscale_to_rgb_image_tensor",
    "grayscale_to_rgb_video",
    "permute_channels",
    "permute_channels_image_pil",
    "permute_channels_image_tensor",
    "permute_channels_video",
    "rgb_to_grayscale",
    "rgb_to_grayscale_image_pil",
    "rgb_to_grayscale_image_tensor",
    "rgb_to_grayscale_video",
]

_LUMA = (0.2989, 0.587, 0.114)  # the ITU-R 601-2 weights torchvision uses
_LUMA_FIXED = tuple(round(w * 65536) for w in _LUMA)  # in 16-bit fixed point, for uint8 images


def luma(image: torch.Tensor) -> torch.Tensor:
    """Unrounded luma ``[..., 1, H, W]`` of an RGB image, float32 for integer images (own dtype for float).

    Integer images are converted once up front: multiplying uint8 planes by float scalars directly
    takes torch's much slower mixed-dtype loop.
    """
    dtype = image.dtype if image.is_floating_point() else torch.float32
    r, g, b = image.to(dtype).unbind(-3)
    return r.mul(_LUMA[0]).add_(g, alpha=_LUMA[1]).add_(b, alpha=_LUMA[2]).unsqueeze(-3)


def _luma_uint8(image: torch.Tensor) -> torch.Tensor:
    """Rounded luma ``[..., 1, H, W]`` of a uint8 RGB image in 16-bit fixed point (int32 math)."""
    r, g, b = image.to(torch.int32).unbind(-3)
    gray = r.mul(_LUMA_FIXED[0]).add_(g, alpha=_LUMA_FIXED[1]).add_(b, alpha=_LUMA_FIXED[2]).add_(32768)
    return gray.bitwise_right_shift_(16).to(torch.uint8).unsqueeze(-3)


def _check_output_channels(num_output_channels: int) -> None:
    if num_output_channels not in (1, 3) or isinstance(num_output_channels, bool):
        raise ValueError(f"num_output_channels must be 1 or 3, got {num_output_channels!r}")


def _repeat_channels(image: torch.Tensor, times: int) -> torch.Tensor:
    if times == 1:
        return image
    return image.repeat(*([1] * (image.ndim - 3)), times, 1, 1)


def rgb_to_grayscale(inpt: Any, num_output_channels: int = 1) -> Any:
    """Convert RGB to grayscale with 1 or 3 (equal) output channels. A 1-channel input is kept as is.

    Args:
        inpt: an image tensor ``[..., C, H, W]`` with 1 or 3 channels, ``Image``, ``Video`` or PIL image.
        num_output_channels: 1 (default) or 3 (the gray channel repeated).

    Example:
        >>> F.rgb_to_grayscale(image, num_output_channels=3)
    """
    return get_kernel(rgb_to_grayscale, type(inpt))(inpt, num_output_channels=num_output_channels)


@register_kernels(rgb_to_grayscale, (torch.Tensor, Image, Video))
def rgb_to_grayscale_image_tensor(image: torch.Tensor, num_output_channels: int = 1) -> torch.Tensor:
    """Grayscale of ``[..., C, H, W]`` (C is 1 or 3); uint8 results are rounded."""
    _check_output_channels(num_output_channels)
    if check_channels(image, "rgb_to_grayscale") == 1:
        return image.clone() if num_output_channels == 1 else _repeat_channels(image, num_output_channels)
    if _cv2.can_grayscale(image):
        return _cv2.grayscale(image, num_output_channels, _LUMA_FIXED)
    if image.dtype == torch.uint8:
        gray = _luma_uint8(image)
    elif image.is_floating_point():  # a weighted sum, unclamped as torchvision's (values outside [0, 1] stay)
        gray = luma(image)
    else:
        gray = to_dtype_rounded(luma(image), image.dtype)
    return _repeat_channels(gray, num_output_channels)


rgb_to_grayscale_video = video_kernel(rgb_to_grayscale_image_tensor)


@register_kernels(rgb_to_grayscale, PIL.Image.Image)
def rgb_to_grayscale_image_pil(image: PIL.Image.Image, num_output_channels: int = 1) -> PIL.Image.Image:
    """Grayscale of a PIL image (PIL's own ``convert("L")``), as mode L or RGB."""
    _check_output_channels(num_output_channels)
    gray = image.convert("L")
    return gray.convert("RGB") if num_output_channels == 3 else gray


def grayscale_to_rgb(inpt: Any) -> Any:
    """Repeat the channel of a 1-channel image three times.

    3-channel inputs are returned as they are (not copied, like torchvision).

    Args:
        inpt: an image tensor ``[..., C, H, W]`` with 1 or 3 channels, ``Image``, ``Video`` or PIL image
            (converted to mode RGB).

    Example:
        >>> F.grayscale_to_rgb(gray)
    """
    return get_kernel(grayscale_to_rgb, type(inpt))(inpt)


@register_kernels(grayscale_to_rgb, (torch.Tensor, Image, Video))
def grayscale_to_rgb_image_tensor(image: torch.Tensor) -> torch.Tensor:
    """``[..., 1, H, W]`` -> ``[..., 3, H, W]``; a 3-channel image is returned itself (no copy)."""
    channels = check_channels(image, "grayscale_to_rgb")
    return image if channels == 3 else _repeat_channels(image, 3)


grayscale_to_rgb_video = video_kernel(grayscale_to_rgb_image_tensor)


@register_kernels(grayscale_to_rgb, PIL.Image.Image)
def grayscale_to_rgb_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    """A PIL image converted to mode RGB."""
    return image.convert("RGB")


def _check_permutation(permutation: Sequence[int], channels: int) -> list[int]:
    if isinstance(permutation, torch.Tensor):
        permutation = permutation.tolist()
    if not isinstance(permutation, Sequence) or sorted(permutation) != list(range(channels)):
        raise ValueError(f"permutation must be a permutation of range({channels}), got {permutation!r}")
    return list(permutation)


def permute_channels(inpt: Any, permutation: Sequence[int]) -> Any:
    """Reorder channels: output channel ``i`` is input channel ``permutation[i]``.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image.
        permutation: a permutation of ``range(C)`` (a sequence or a tensor of ints).

    Example:
        >>> bgr = F.permute_channels(rgb, permutation=[2, 1, 0])
    """
    return get_kernel(permute_channels, type(inpt))(inpt, permutation=permutation)


@register_kernels(permute_channels, (torch.Tensor, Image, Video))
def permute_channels_image_tensor(image: torch.Tensor, permutation: Sequence[int]) -> torch.Tensor:
    """Reorder the channels of ``[..., C, H, W]``."""
    if image.ndim < 3:
        raise ValueError(f"permute_channels: image must be [..., C, H, W], got shape {tuple(image.shape)}")
    index = torch.tensor(_check_permutation(permutation, image.shape[-3]), device=image.device)
    return image.index_select(-3, index)


permute_channels_video = video_kernel(permute_channels_image_tensor)


@register_kernels(permute_channels, PIL.Image.Image)
def permute_channels_image_pil(image: PIL.Image.Image, permutation: Sequence[int]) -> PIL.Image.Image:
    """Reorder the bands of a PIL image (the mode is kept)."""
    order = _check_permutation(permutation, pil_bands(image))
    bands = image.split()
    return PIL.Image.merge(image.mode, [bands[i] for i in order])
