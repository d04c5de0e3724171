"""Hue rotation through HSV."""

from __future__ import annotations

import math
from typing import Any

import PIL.Image
import torch

from ..._args import is_number
from ..._names import video_kernel
from ...datapoints import Image, Video
from .. import _cv2
from .._dtype import work_dtype
from .._registry import get_kernel, register_kernels
from ._utils import check_channels, to_dtype_rounded

__all__ = ["adjust_hue", "adjust_hue_image_pil", "adjust_hue_image_tensor", "adjust_hue_video"]


def check_hue_factor(hue_factor: float) -> float:
    if not is_number(hue_factor):
        raise TypeError(f"hue_factor must be a number, got {hue_factor!r}")
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor must be in [-0.5, 0.5], got {hue_factor}")
    return float(hue_factor)


def adjust_hue(inpt: Any, hue_factor: float) -> Any:
    """Rotate the hue of RGB images in HSV space.

    Args:
        inpt: an image tensor ``[..., C, H, W]`` with 1 or 3 channels (1 channel comes back unchanged),
            ``Image``, ``Video`` or PIL image.
        hue_factor: the rotation in turns, in ``[-0.5, 0.5]`` (0 keeps the image, +-0.5 gives the
            complementary hues).

    Example:
        >>> F.adjust_hue(image, hue_factor=0.1)
    """
    return get_kernel(adjust_hue, type(inpt))(inpt, hue_factor=hue_factor)


def _rgb_to_hcv(rgb: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Hue in [0, 1) (in turns), chroma (max - min) and value (max) of RGB in any value scale.

    HSV's saturation is chroma / value; keeping chroma avoids two divisions and the rescaling.
    Written with element-wise arithmetic and float masks: much faster on CPU than ``aminmax`` over
    the channel dim, ``torch.where`` or bool-mask products.
    """
    r, g, b = rgb.unbind(-3)
    value = torch.maximum(torch.maximum(r, g), b)
    chroma = value - torch.minimum(torch.minimum(r, g), b)
    is_r = value == r
    is_g = (value == g) & ~is_r
    is_b = ~(is_r | is_g)
    hue = (g - b).mul_(is_r.to(rgb.dtype))
    hue.add_((b - r).add_(chroma, alpha=2).mul_(is_g.to(rgb.dtype)))
    hue.add_((r - g).add_(chroma, alpha=4).mul_(is_b.to(rgb.dtype)))
    return hue.div_(chroma.masked_fill(chroma == 0, 1.0).mul_(6)).remainder_(1.0), chroma, value


def _hcv_to_rgb(hue: torch.Tensor, chroma: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """RGB from hue (turns), chroma and value.

    A channel is ``value - chroma * weight``: weight 0 within one sextant of the channel's own hue
    (R 0, G 2, B 4 sextants), rising to 1 over the next sextant, 1 beyond. With ``d`` the distance
    in sextants from the hue opposite the channel (``|d|`` up to 6, unwrapped),
    ``weight = clamp(max(2 - |d|, |d| - 4), 0, 1)``.
    """
    sextant = hue * 6
    channels = []
    for opposite in (3.0, 5.0, 1.0):  # opposite the hue of R, G, B
        distance = (sextant - opposite).abs_()
        weight = torch.maximum(2.0 - distance, distance - 4.0).clamp_(0.0, 1.0)
        channels.append(value - chroma * weight)
    return torch.stack(channels, dim=-3)


@register_kernels(adjust_hue, (torch.Tensor, Image, Video))
def adjust_hue_image_tensor(image: torch.Tensor, hue_factor: float) -> torch.Tensor:
    """Hue of ``[..., C, H, W]`` (C is 1 or 3; 1 channel is a no-op), computed in float."""
    factor = check_hue_factor(hue_factor)
    if check_channels(image, "adjust_hue") == 1 or image.numel() == 0:
        return image.clone()
    if _cv2.can_adjust_hue(image):
        return _cv2.adjust_hue(image, factor)
    hue, chroma, value = _rgb_to_hcv(image.to(work_dtype(image.dtype)))  # in the image's own value scale
    return to_dtype_rounded(_hcv_to_rgb(hue.add_(factor).remainder_(1.0), chroma, value), image.dtype)


adjust_hue_video = video_kernel(adjust_hue_image_tensor)


def hue_step(hue_factor: float) -> _cv2.Step:
    """The hue rotation of interleaved RGB pixels, as a step of ``_cv2.adjust_colors``."""
    return _cv2.hue_step(check_hue_factor(hue_factor))


@register_kernels(adjust_hue, PIL.Image.Image)
def adjust_hue_image_pil(image: PIL.Image.Image, hue_factor: float) -> PIL.Image.Image:
    """Hue of a PIL image, shifting the H band of PIL's 8-bit HSV; L / 1-band images are returned as copies."""
    factor = check_hue_factor(hue_factor)
    if image.mode in ("L", "1", "I", "F"):
        return image.copy()
    hue, saturation, value = image.convert("HSV").split()
    shift = math.trunc(factor * 255)  # towards zero, as torchvision's PIL kernel
    hue = hue.point([(i + shift) % 256 for i in range(256)])
    return PIL.Image.merge("HSV", (hue, saturation, value)).convert(image.mode)
