"""Brightness, contrast, saturation and gamma."""

from __future__ import annotations

from typing import Any

import PIL.Image
import PIL.ImageEnhance
import torch

from ..._names import video_kernel
from ...datapoints import Image, Video
from .. import _cv2
from .._dtype import max_value
from .._registry import get_kernel, register_kernels
from ._grayscale import luma
from ._utils import apply_lut, check_channels, check_factor, make_lut, pil_point, to_dtype_rounded

__all__ = [
    "adjust_brightness",
    "adjust_brightness_image_pil",
    "adjust_brightness_image_tensor",
    "adjust_brightness_video",
    "adjust_contrast",
    "adjust_contrast_image_pil",
    "adjust_contrast_image_tensor",
    "adjust_contrast_video",
    "adjust_gamma",
    "adjust_gamma_image_pil",
    "adjust_gamma_image_tensor",
    "adjust_gamma_video",
    "adjust_saturation",
    "adjust_saturation_image_pil",
    "adjust_saturation_image_tensor",
    "adjust_saturation_video",
]


def _float_copy(image: torch.Tensor) -> torch.Tensor:
    """A fresh floating-point copy to compute in (float32 for integer images)."""
    return image.to(image.dtype if image.is_floating_point() else torch.float32, copy=True)


def _blend_into(work: torch.Tensor, other: torch.Tensor, factor: float, dtype: torch.dtype) -> torch.Tensor:
    """``factor * work + (1 - factor) * other`` (``work`` is overwritten), clamped and rounded to ``dtype``."""
    return to_dtype_rounded(work.mul_(factor).add_(other, alpha=1.0 - factor), dtype)


def _degenerate_gray(image: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The gray image contrast / saturation blend with (floored for integer images, like torchvision)."""
    gray = luma(image)
    return gray if dtype.is_floating_point else gray.floor_()


def adjust_brightness(inpt: Any, brightness_factor: float) -> Any:
    """Scale intensities by ``brightness_factor`` (0 gives black, 1 the original).

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image.
        brightness_factor: a non-negative multiplier; results are clipped to the value range.

    Example:
        >>> F.adjust_brightness(image, brightness_factor=1.2)
    """
    return get_kernel(adjust_brightness, type(inpt))(inpt, brightness_factor=brightness_factor)


@register_kernels(adjust_brightness, (torch.Tensor, Image, Video))
def adjust_brightness_image_tensor(image: torch.Tensor, brightness_factor: float) -> torch.Tensor:
    """Brightness of ``[..., C, H, W]``: a lookup table for uint8, a clamped product for floats."""
    factor = check_factor("brightness_factor", brightness_factor)
    if image.dtype == torch.uint8:
        return apply_lut(image, _brightness_lut(factor, image.device))
    return to_dtype_rounded(image.mul(factor), image.dtype)


def _brightness_lut(factor: float, device: torch.device | None = None) -> torch.Tensor:
    return make_lut(lambda v: v * factor, device)


def brightness_step(brightness_factor: float) -> _cv2.Step:
    """The brightness of interleaved uint8 pixels (the kernel's lookup table), as a step of ``_cv2.adjust_colors``."""
    return _cv2.lut_step(_brightness_lut(check_factor("brightness_factor", brightness_factor)))


adjust_brightness_video = video_kernel(adjust_brightness_image_tensor)


@register_kernels(adjust_brightness, PIL.Image.Image)
def adjust_brightness_image_pil(image: PIL.Image.Image, brightness_factor: float) -> PIL.Image.Image:
    """Brightness of a PIL image (``PIL.ImageEnhance.Brightness``)."""
    factor = check_factor("brightness_factor", brightness_factor)
    return PIL.ImageEnhance.Brightness(image).enhance(factor)


def adjust_contrast(inpt: Any, contrast_factor: float) -> Any:
    """Blend with the mean gray level (0 gives a solid gray image, 1 the original).

    Args:
        inpt: an image tensor ``[..., C, H, W]`` with 1 or 3 channels, ``Image``, ``Video`` or PIL image.
        contrast_factor: a non-negative blend factor; above 1 increases the contrast.

    Example:
        >>> F.adjust_contrast(image, contrast_factor=0.8)
    """
    return get_kernel(adjust_contrast, type(inpt))(inpt, contrast_factor=contrast_factor)


@register_kernels(adjust_contrast, (torch.Tensor, Image, Video))
def adjust_contrast_image_tensor(image: torch.Tensor, contrast_factor: float) -> torch.Tensor:
    """Contrast of ``[..., C, H, W]`` (C is 1 or 3), one mean per image."""
    factor = check_factor("contrast_factor", contrast_factor)
    channels = check_channels(image, "adjust_contrast")
    if image.numel() == 0:
        return image.clone()
    if _cv2.can_adjust_contrast(image):
        return _cv2.adjust_contrast(image, factor, luma, _contrast_tables)
    work = _float_copy(image)
    gray = _degenerate_gray(work, image.dtype) if channels == 3 else work
    return _blend_into(work, gray.mean(dim=(-3, -2, -1), keepdim=True), factor, image.dtype)


adjust_contrast_video = video_kernel(adjust_contrast_image_tensor)


def _contrast_tables(means: torch.Tensor, factor: float) -> torch.Tensor:
    """uint8 contrast lookup tables ``[..., 1, 256]`` for the gray ``means`` (``[..., 1, 1, 1]``)
    of uint8 images: the float maths of the torch path applied to the values 0..255."""
    values = torch.arange(256, dtype=torch.float32).expand(*means.shape[:-1], 256).clone()
    return _blend_into(values, means, factor, torch.uint8).squeeze(-2)


def contrast_step(contrast_factor: float) -> _cv2.Step:
    """The contrast of interleaved uint8 RGB pixels (this module's luma and tables), as a step of
    ``_cv2.adjust_colors``."""
    return _cv2.contrast_step(check_factor("contrast_factor", contrast_factor), luma, _contrast_tables)


@register_kernels(adjust_contrast, PIL.Image.Image)
def adjust_contrast_image_pil(image: PIL.Image.Image, contrast_factor: float) -> PIL.Image.Image:
    """Contrast of a PIL image (``PIL.ImageEnhance.Contrast``)."""
    factor = check_factor("contrast_factor", contrast_factor)
    return PIL.ImageEnhance.Contrast(image).enhance(factor)


def adjust_saturation(inpt: Any, saturation_factor: float) -> Any:
    """Blend with the grayscale image (0 gives gray, 1 the original, 2 doubles saturation).

    Args:
        inpt: an image tensor ``[..., C, H, W]`` with 1 or 3 channels (1 channel comes back unchanged),
            ``Image``, ``Video`` or PIL image.
        saturation_factor: a non-negative blend factor.

    Example:
        >>> F.adjust_saturation(image, saturation_factor=1.5)
    """
    return get_kernel(adjust_saturation, type(inpt))(inpt, saturation_factor=saturation_factor)


@register_kernels(adjust_saturation, (torch.Tensor, Image, Video))
def adjust_saturation_image_tensor(image: torch.Tensor, saturation_factor: float) -> torch.Tensor:
    """Saturation of ``[..., C, H, W]`` (C is 1 or 3; 1 channel is a no-op)."""
    factor = check_factor("saturation_factor", saturation_factor)
    if check_channels(image, "adjust_saturation") == 1:
        return image.clone()
    if _cv2.can_adjust_saturation(image):
        return _cv2.adjust_saturation(image, factor, luma)
    work = _float_copy(image)
    return _blend_into(work, _degenerate_gray(work, image.dtype), factor, image.dtype)


adjust_saturation_video = video_kernel(adjust_saturation_image_tensor)


def saturation_step(saturation_factor: float) -> _cv2.Step:
    """The saturation of interleaved uint8 RGB pixels (this module's luma), as a step of ``_cv2.adjust_colors``."""
    return _cv2.saturation_step(check_factor("saturation_factor", saturation_factor), luma)


@register_kernels(adjust_saturation, PIL.Image.Image)
def adjust_saturation_image_pil(image: PIL.Image.Image, saturation_factor: float) -> PIL.Image.Image:
    """Saturation of a PIL image (``PIL.ImageEnhance.Color``)."""
    factor = check_factor("saturation_factor", saturation_factor)
    return PIL.ImageEnhance.Color(image).enhance(factor)


def adjust_gamma(inpt: Any, gamma: float, gain: float = 1.0) -> Any:
    """Gamma correction ``gain * x ** gamma`` on values scaled to [0, 1].

    Args:
        inpt: a uint8 or float image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or 8-bit PIL image.
        gamma: a non-negative exponent: below 1 brightens the shadows, above 1 darkens them.
        gain: a non-negative multiplier applied after the power (default 1); with a gain, results are clipped
            to the value range (as torchvision: float values outside ``[0, 1]`` pass a gain of 1 unclipped).

    Example:
        >>> F.adjust_gamma(image, gamma=0.8)
    """
    return get_kernel(adjust_gamma, type(inpt))(inpt, gamma=gamma, gain=gain)


def _gamma_lut(gamma: float, gain: float, device: torch.device | None = None) -> torch.Tensor:
    return make_lut(lambda v: (v / 255) ** gamma * (255 * gain), device)


# integer dtypes whose every value is a whole float32 number (gamma works on them in float32)
_SMALL_INTEGERS = tuple(getattr(torch, name) for name in ("int16", "uint16") if hasattr(torch, name))


@register_kernels(adjust_gamma, (torch.Tensor, Image, Video))
def adjust_gamma_image_tensor(image: torch.Tensor, gamma: float, gain: float = 1.0) -> torch.Tensor:
    """Gamma of ``[..., C, H, W]``: a lookup table for uint8, ``pow`` for floats, and for int16 / uint16 on
    ``[0, 1]`` in float32, as torchvision (rounded where it truncates: within a level)."""
    gamma, gain = check_factor("gamma", gamma), check_factor("gain", gain)
    if image.dtype == torch.uint8:
        return apply_lut(image, _gamma_lut(gamma, gain, image.device))
    if image.dtype in _SMALL_INTEGERS:  # (their values are whole float32 numbers)
        top = float(max_value(image.dtype))
        return to_dtype_rounded(image.to(torch.float32).div_(top).pow_(gamma).mul_(gain * top), image.dtype)
    if not image.is_floating_point():
        raise TypeError(f"adjust_gamma: image must be uint8, int16, uint16 or floating point, got {image.dtype}")
    output = image.pow(gamma)
    if gain == 1.0:  # torchvision clips only after a gain: inputs in [0, 1] stay there
        return output
    return to_dtype_rounded(output.mul_(gain), image.dtype)


adjust_gamma_video = video_kernel(adjust_gamma_image_tensor)


@register_kernels(adjust_gamma, PIL.Image.Image)
def adjust_gamma_image_pil(image: PIL.Image.Image, gamma: float, gain: float = 1.0) -> PIL.Image.Image:
    """Gamma of an 8-bit PIL image, with the same lookup table as the uint8 tensor kernel."""
    gamma, gain = check_factor("gamma", gamma), check_factor("gain", gain)
    return pil_point(image, _gamma_lut(gamma, gain))
