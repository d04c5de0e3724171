"""Hue rotation through HSV."""

from __future__ import annotations

from typing import Any

import PIL.Image
import torch

from ...datapoints import Image, Video
from .._dtype import max_value
from .._registry import get_kernel, register_kernels
from ._utils import check_channels, is_number, to_dtype_rounded

__all__ = ["adjust_hue", "adjust_hue_image_pil", "adjust_hue_image_tensor", "adjust_hue_video"]


def _check_hue_factor(hue_factor: float) -> float:
    if not is_number(hue_factor):
        raise TypeError(f"hue_factor must be a number, got {hue_factor!r}")
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor must be in [-0.5, 0.5], got {hue_factor}")
    return float(hue_factor)


def adjust_hue(inpt: Any, hue_factor: float) -> Any:
    """Rotate the hue by ``hue_factor`` turns (in [-0.5, 0.5]; 0 keeps the image).

    Supports image tensors, PIL images and videos; 1-channel images are returned unchanged.
    """
    return get_kernel(adjust_hue, type(inpt))(inpt, hue_factor=hue_factor)


def _rgb_to_hsv(rgb: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Hue in [0, 1) (in turns), saturation and value of an RGB tensor in [0, 1].

    Written with element-wise arithmetic and masks: much faster on CPU than ``aminmax`` over the
    channel dim and ``torch.where``.
    """
    r, g, b = rgb.unbind(-3)
    maxc = torch.maximum(torch.maximum(r, g), b)
    delta = maxc - torch.minimum(torch.minimum(r, g), b)
    saturation = delta / (maxc + (maxc == 0))  # gray pixels (max == 0 or delta == 0) get 0
    is_r = maxc == r
    is_g = (maxc == g) & ~is_r
    is_b = ~(is_r | is_g)
    hue = (g - b).mul_(is_r) + (b - r + 2 * delta).mul_(is_g) + (r - g + 4 * delta).mul_(is_b)
    return hue.div_((delta + (delta == 0)) * 6).remainder_(1.0), saturation, maxc


def _hsv_to_rgb(hue: torch.Tensor, saturation: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """RGB in [0, 1] from hue (turns), saturation and value: ``v - v s clamp(min(k, 4 - k), 0, 1)``."""
    chroma = value * saturation
    sextant = hue * 6
    channels = []
    for n in (5.0, 3.0, 1.0):
        k = (sextant + n).remainder_(6.0)
        weight = torch.minimum(k, 4.0 - k).clamp_(0.0, 1.0)
        channels.append(value - chroma * weight)
    return torch.stack(channels, dim=-3)


@register_kernels(adjust_hue, (torch.Tensor, Image, Video))
def adjust_hue_image_tensor(image: torch.Tensor, hue_factor: float) -> torch.Tensor:
    """Hue of ``[..., C, H, W]`` (C is 1 or 3; 1 channel is a no-op), computed in float."""
    factor = _check_hue_factor(hue_factor)
    if check_channels(image, "adjust_hue") == 1 or image.numel() == 0:
        return image.clone()
    dtype = image.dtype if image.is_floating_point() else torch.float32
    scale = float(max_value(image.dtype))
    hue, saturation, value = _rgb_to_hsv(image.to(dtype).div(scale))
    rgb = _hsv_to_rgb(hue.add_(factor).remainder_(1.0), saturation, value)
    return to_dtype_rounded(rgb.mul_(scale), image.dtype)


adjust_hue_video = adjust_hue_image_tensor


@register_kernels(adjust_hue, PIL.Image.Image)
def adjust_hue_image_pil(image: PIL.Image.Image, hue_factor: float) -> PIL.Image.Image:
    """Hue of a PIL image, shifting the H band of PIL's 8-bit HSV; L / 1-band images are returned as copies."""
    factor = _check_hue_factor(hue_factor)
    if image.mode in ("L", "1", "I", "F"):
        return image.copy()
    hue, saturation, value = image.convert("HSV").split()
    shift = round(factor * 255)
    hue = hue.point([(i + shift) % 256 for i in range(256)])
    return PIL.Image.merge("HSV", (hue, saturation, value)).convert(image.mode)
