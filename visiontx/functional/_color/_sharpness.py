"""Sharpness: blend with a 3x3 smoothed image (borders are kept)."""

from __future__ import annotations

from typing import Any

import PIL.Image
import PIL.ImageEnhance
import torch

from ...datapoints import Image, Video
from .._registry import get_kernel, register_kernels
from ._utils import check_factor, to_dtype_rounded

__all__ = [
    "adjust_sharpness",
    "adjust_sharpness_image_pil",
    "adjust_sharpness_image_tensor",
    "adjust_sharpness_video",
]


def adjust_sharpness(inpt: Any, sharpness_factor: float) -> Any:
    """Sharpen (factor > 1) or smooth (factor < 1; 0 gives the smoothed image, 1 the original).

    The smoothing kernel is PIL's ``SMOOTH`` (ones with a 5 in the middle, over 13); the one-pixel
    border is left as it is. Supports image tensors, PIL images and videos.
    """
    return get_kernel(adjust_sharpness, type(inpt))(inpt, sharpness_factor=sharpness_factor)


def _smooth_interior(image: torch.Tensor) -> torch.Tensor:
    """``(3x3 box sum + 4 * centre) / 13`` over the interior, via separable sums (rounded for ints)."""
    dtype = image.dtype if image.is_floating_point() else torch.int32
    x = image.to(dtype)
    rows = x[..., :-2, :] + x[..., 1:-1, :] + x[..., 2:, :]
    box = rows[..., :-2] + rows[..., 1:-1] + rows[..., 2:]
    total = box.add_(x[..., 1:-1, 1:-1], alpha=4)
    if image.is_floating_point():
        return total.div_(13)
    return total.mul_(2).add_(13).div_(26, rounding_mode="floor")  # round half up; exact ties cannot occur


@register_kernels(adjust_sharpness, (torch.Tensor, Image, Video))
def adjust_sharpness_image_tensor(image: torch.Tensor, sharpness_factor: float) -> torch.Tensor:
    """Sharpness of ``[..., C, H, W]`` (any number of channels); images under 3x3 are returned as copies."""
    factor = check_factor("sharpness_factor", sharpness_factor)
    if image.ndim < 3:
        raise ValueError(f"adjust_sharpness: image must be [..., C, H, W], got shape {tuple(image.shape)}")
    if image.numel() == 0 or image.shape[-1] <= 2 or image.shape[-2] <= 2:
        return image.clone()
    dtype = image.dtype if image.is_floating_point() else torch.float32
    smooth = _smooth_interior(image).to(dtype)
    centre = image[..., 1:-1, 1:-1].to(dtype)
    interior = to_dtype_rounded(smooth.add_(centre.sub(smooth), alpha=factor), image.dtype)
    output = image.clone()
    output[..., 1:-1, 1:-1] = interior
    return output


adjust_sharpness_video = adjust_sharpness_image_tensor


@register_kernels(adjust_sharpness, PIL.Image.Image)
def adjust_sharpness_image_pil(image: PIL.Image.Image, sharpness_factor: float) -> PIL.Image.Image:
    """Sharpness of a PIL image (``PIL.ImageEnhance.Sharpness``)."""
    factor = check_factor("sharpness_factor", sharpness_factor)
    return PIL.ImageEnhance.Sharpness(image).enhance(factor)
