"""Gaussian blur, JPEG round trips and erasing through OpenCV and numpy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from ._base import can_use, cv2, is_wrapped, native
from ._layout import contiguous, planes

__all__ = ["can_erase", "can_gaussian_blur", "can_jpeg", "erase", "gaussian_blur", "jpeg", "scale_normalize"]


def can_gaussian_blur(image: torch.Tensor) -> bool:
    """Whether :func:`gaussian_blur` can blur ``image``."""
    return can_use(image)


def gaussian_blur(image: torch.Tensor, kernel_x: Sequence[float], kernel_y: Sequence[float]) -> torch.Tensor:
    """Separable convolution of each ``H x W`` plane of ``[..., H, W]`` with 1-D kernels, reflect border
    (no edge repeat). The compiled kernel computes the torch path's float32 steps value for value: float32 planes
    take it where the CPU has AVX2 and FMA, uint8 ones where it also has AVX-512 (16 lanes: 1.1x-1.4x OpenCV; with 8
    it only matches it); others OpenCV's ``sepFilter2D`` (within a level of uint8 rounding)."""
    src, out, dst = planes(image)
    module = native()
    if (
        module is not None and (image.dtype == torch.float32 or module.AVX512)
        and max(len(kernel_x), len(kernel_y)) <= module.BLUR_MAX_TAPS  # longer kernels: OpenCV
        and module.blur(src, dst, kernel_x, kernel_y)
    ):
        return out
    kx, ky = np.asarray(kernel_x, dtype=np.float32), np.asarray(kernel_y, dtype=np.float32)
    for i in range(src.shape[0]):
        cv2.sepFilter2D(src[i], -1, kx, ky, dst=dst[i], borderType=cv2.BORDER_REFLECT_101)
    return out


def can_jpeg(image: torch.Tensor) -> bool:
    """Whether :func:`jpeg` can round-trip ``image`` (uint8, 1 or 3 channels)."""
    return can_use(image, dtypes=(torch.uint8,)) and image.ndim >= 3 and image.shape[-3] in (1, 3)


def jpeg(image: torch.Tensor, quality: int) -> torch.Tensor:
    """JPEG round trip of uint8 ``[..., C, H, W]`` (C is 1 or 3) with OpenCV's libjpeg (the same
    bytes as Pillow's encoder and decoder at default settings)."""
    flat = contiguous(image.reshape(-1, *image.shape[-3:])).numpy()
    out = np.empty(flat.shape, dtype=np.uint8)
    params = [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
    for item, target in zip(flat, out):
        color = item.shape[0] == 3  # OpenCV codes BGR pixels
        _, encoded = cv2.imencode(".jpg", cv2.merge(list(item[::-1])) if color else item[0], params)
        decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR if color else cv2.IMREAD_GRAYSCALE)
        if color:
            cv2.split(decoded, list(target[::-1]))
        else:
            target[0] = decoded
    return torch.from_numpy(out).reshape(image.shape)


def can_erase(image: torch.Tensor, i: int, j: int, h: int, w: int, value: torch.Tensor, inplace: bool) -> bool:
    """Whether :func:`erase` can fill rows ``i:i+h`` and columns ``j:j+w`` (non-negative, as the kernel
    checks) of ``image`` with ``value`` (of the image's dtype and device): a copy of a contiguous image, a
    value without autograd (and with memory of its own: not inside ``vmap``) that broadcasts to the region."""
    if inplace or not image.is_contiguous() or value.requires_grad or not can_use(image) or is_wrapped(value):
        return False
    if value.numel() == 1:  # every dim is 1: broadcasts to any region (the usual scalar fill)
        return True
    height, width = image.shape[-2:]
    region = (*image.shape[:-2], len(range(height)[i : i + h]), len(range(width)[j : j + w]))
    return _broadcasts(value.shape, region)


def _broadcasts(shape: Sequence[int], target: Sequence[int]) -> bool:
    """Whether a value of ``shape`` can be assigned to a region of shape ``target`` (numpy's and torch's
    rule: dims beyond the region's lead and are 1, the others are 1 or the region's)."""
    extra = max(len(shape) - len(target), 0)
    inner = shape[extra:]
    return all(d == 1 for d in shape[:extra]) and all(d in (1, t) for d, t in zip(reversed(inner), reversed(target)))


def erase(image: torch.Tensor, i: int, j: int, h: int, w: int, value: torch.Tensor) -> torch.Tensor:
    """A copy of contiguous ``[..., C, H, W]`` with rows ``i:i+h`` and columns ``j:j+w`` set to
    ``value`` (a CPU tensor of the image's dtype, broadcast to ``[..., C, h, w]``): numpy's copy and
    slice assignment, faster than torch's clone and indexing."""
    dst = image.numpy().copy()
    dst[..., i : i + h, j : j + w] = value.numpy()
    return torch.from_numpy(dst)


def scale_normalize(
    image: torch.Tensor, scale: float, mean: Sequence[float], std: Sequence[float]
) -> torch.Tensor | None:
    """float32 ``(x * scale - mean[c]) / std[c]`` of uint8 ``[..., C, H, W]`` (C at most 256, ``mean`` and ``std``
    one number a channel), one float32 rounding a step as torch's ``to_dtype(float32, scale=True)`` then
    ``normalize``, in the compiled module; None without it."""
    module = native()
    if module is None:
        return None
    src, out, dst = planes(image, dtype=np.float32)
    shape = (-1, len(mean), *src.shape[-2:])
    module.normalize(src.reshape(shape), dst.reshape(shape), scale, mean, std)
    return out
