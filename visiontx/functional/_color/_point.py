"""Point-wise ops: invert, posterize, solarize."""

from __future__ import annotations

import functools
from typing import Any

import PIL.Image
import PIL.ImageOps
import numpy as np
import torch

from ..._args import is_number
from ..._names import video_kernel
from ...datapoints import Image, Video
from .._dtype import WIDE_UNSIGNED, max_value, value_bits
from .._registry import get_kernel, register_kernels
from ._utils import apply_lut, make_lut

__all__ = [
    "invert",
    "invert_image_pil",
    "invert_image_tensor",
    "invert_video",
    "posterize",
    "posterize_image_pil",
    "posterize_image_tensor",
    "posterize_video",
    "solarize",
    "solarize_image_pil",
    "solarize_image_tensor",
    "solarize_video",
]


def invert(inpt: Any) -> Any:
    """Negate intensities: ``max - x`` (255 - x for uint8, 1 - x for floats).

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image.

    Example:
        >>> F.invert(image)
    """
    return get_kernel(invert, type(inpt))(inpt)


@register_kernels(invert, (torch.Tensor, Image, Video))
def invert_image_tensor(image: torch.Tensor) -> torch.Tensor:
    """Invert ``[..., C, H, W]`` (a bitwise not for uint8)."""
    if image.dtype == torch.uint8:
        return image.bitwise_not()
    if image.dtype == torch.bool:
        return image.logical_not()
    if image.dtype in WIDE_UNSIGNED:  # torch cannot subtract them; max - x is x with every bit flipped
        return image.bitwise_xor(max_value(image.dtype))
    return torch.rsub(image, max_value(image.dtype))


invert_video = video_kernel(invert_image_tensor)


@register_kernels(invert, PIL.Image.Image)
def invert_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    """Invert a PIL image (``PIL.ImageOps.invert``)."""
    return PIL.ImageOps.invert(image)


def _check_bits(bits: int) -> int:
    if not isinstance(bits, int) or isinstance(bits, bool):
        raise TypeError(f"bits must be an int, got {bits!r}")
    if not 0 <= bits <= 8:
        raise ValueError(f"bits must be in [0, 8], got {bits}")
    return bits


def _bit_mask(bits: int) -> int:
    return (0xFF << (8 - bits)) & 0xFF


def posterize(inpt: Any, bits: int) -> Any:
    """Keep the ``bits`` most significant bits of each 8-bit value (floats: ``2 ** bits`` levels).

    Args:
        inpt: an integer or float image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or 8-bit PIL image.
        bits: number of bits kept, an int in ``[0, 8]``.

    Example:
        >>> F.posterize(image, bits=4)
    """
    return get_kernel(posterize, type(inpt))(inpt, bits=bits)


@register_kernels(posterize, (torch.Tensor, Image, Video))
def posterize_image_tensor(image: torch.Tensor, bits: int) -> torch.Tensor:
    """Posterize ``[..., C, H, W]``: a bit mask for integers (the ``bits`` highest bits of their value range, as
    torchvision), ``floor(x * 2**bits) / 2**bits`` for floats."""
    bits = _check_bits(bits)
    if image.dtype == torch.uint8:
        return image.bitwise_and(_bit_mask(bits))
    if image.dtype == torch.bool:
        raise TypeError("posterize: image must be an integer or floating point dtype, got torch.bool")
    if not image.is_floating_point():
        kept = value_bits(image.dtype)
        if bits >= kept:
            return image.clone()
        return image.bitwise_and(((1 << bits) - 1) << (kept - bits))
    levels = 1 << bits
    return image.mul(levels).floor_().clamp_(0, levels - 1).mul_(1.0 / levels)


posterize_video = video_kernel(posterize_image_tensor)


@register_kernels(posterize, PIL.Image.Image)
def posterize_image_pil(image: PIL.Image.Image, bits: int) -> PIL.Image.Image:
    """Posterize an 8-bit PIL image (like ``PIL.ImageOps.posterize``, which refuses ``bits=0``)."""
    mask = _bit_mask(_check_bits(bits))
    return image.point([i & mask for i in range(256)] * len(image.getbands()))


def _check_threshold(threshold: float, dtype: torch.dtype) -> float:
    if not is_number(threshold):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    bound = max_value(dtype)
    if not 0 <= threshold <= bound:
        raise ValueError(f"threshold must be in [0, {bound}] for {dtype} images, got {threshold}")
    return threshold


def solarize(inpt: Any, threshold: float) -> Any:
    """Invert the values at or above ``threshold``.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image.
        threshold: a number in the dtype's value range: ``[0, 255]`` for uint8 and PIL images,
            ``[0, 1]`` for floats.

    Example:
        >>> F.solarize(image, threshold=128)
    """
    return get_kernel(solarize, type(inpt))(inpt, threshold=threshold)


@register_kernels(solarize, (torch.Tensor, Image, Video))
def solarize_image_tensor(image: torch.Tensor, threshold: float) -> torch.Tensor:
    """Solarize ``[..., C, H, W]``."""
    threshold = _check_threshold(threshold, image.dtype)
    if image.dtype == torch.uint8:
        return apply_lut(image, _solarize_lut(_as_default_float(threshold)).to(image.device))
    return torch.where(image >= threshold, invert_image_tensor(image), image)


def _as_default_float(value: float) -> float:
    """``value`` rounded to torch's default float dtype: what ``uint8_tensor >= value`` compares with (so
    ``255 * m`` of a float32 magnitude ``m`` just above a whole number stays above it, as in torchvision)."""
    if torch.get_default_dtype() == torch.float32:
        return float(np.float32(value))
    return float(torch.tensor(float(value), dtype=torch.get_default_dtype()))


@functools.lru_cache(maxsize=64)
def _solarize_lut(threshold: float) -> torch.Tensor:
    """The uint8 lookup table of a solarize (on the CPU; cached, so never to be modified)."""
    return make_lut(lambda v: v + (v >= threshold) * (255 - 2 * v), None)  # 255 - v from the threshold on


solarize_video = video_kernel(solarize_image_tensor)


@register_kernels(solarize, PIL.Image.Image)
def solarize_image_pil(image: PIL.Image.Image, threshold: float) -> PIL.Image.Image:
    """Solarize an 8-bit PIL image (``PIL.ImageOps.solarize``; threshold in 0..255)."""
    return PIL.ImageOps.solarize(image, _check_threshold(threshold, torch.uint8))
