"""Sharpness: blend with a 3x3 smoothed image (borders are kept)."""

from __future__ import annotations

from typing import Any

import PIL.Image
import PIL.ImageEnhance
import torch

from ..._names import video_kernel
from ...datapoints import Image, Video
from .. import _cv2
from .._dtype import work_dtype
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
    border is left as it is.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image.
        sharpness_factor: a non-negative blend factor between the smoothed image and the original.

    Example:
        >>> F.adjust_sharpness(image, sharpness_factor=2.0)
    """
    return get_kernel(adjust_sharpness, type(inpt))(inpt, sharpness_factor=sharpness_factor)


def _smooth_interior(work: torch.Tensor, rounded: bool) -> torch.Tensor:
    """``(3x3 box sum + 4 * centre) / 13`` over the interior of float ``work``, via separable sums.

    ``rounded`` rounds the result (for integer images; exact ties cannot occur with a divisor of 13).
    """
    rows = (work[..., :-2, :] + work[..., 1:-1, :]).add_(work[..., 2:, :])
    total = (rows[..., :-2] + rows[..., 1:-1]).add_(rows[..., 2:]).add_(work[..., 1:-1, 1:-1], alpha=4)
    smooth = total.div_(13)
    return smooth.round_() if rounded else smooth


@register_kernels(adjust_sharpness, (torch.Tensor, Image, Video))
def adjust_sharpness_image_tensor(image: torch.Tensor, sharpness_factor: float) -> torch.Tensor:
    """Sharpness of ``[..., C, H, W]`` (any number of channels); images under 3x3 are returned as copies."""
    factor = check_factor("sharpness_factor", sharpness_factor)
    if image.ndim < 3:
        raise ValueError(f"adjust_sharpness: image must be [..., C, H, W], got shape {tuple(image.shape)}")
    if image.numel() == 0 or image.shape[-1] <= 2 or image.shape[-2] <= 2:
        return image.clone()
    if _cv2.can_sharpen(image):
        return _cv2.sharpen(image, factor)
    work = image.to(work_dtype(image.dtype))
    smooth = _smooth_interior(work, rounded=not image.is_floating_point())
    interior = to_dtype_rounded(smooth.add_(work[..., 1:-1, 1:-1] - smooth, alpha=factor), image.dtype)
    output = image.clone()
    output[..., 1:-1, 1:-1] = interior
    return output


adjust_sharpness_video = video_kernel(adjust_sharpness_image_tensor)


@register_kernels(adjust_sharpness, PIL.Image.Image)
def adjust_sharpness_image_pil(image: PIL.Image.Image, sharpness_factor: float) -> PIL.Image.Image:
    """Sharpness of a PIL image (``PIL.ImageEnhance.Sharpness``)."""
    factor = check_factor("sharpness_factor", sharpness_factor)
    return PIL.ImageEnhance.Sharpness(image).enhance(factor)
