"""dtype conversion, with the value-range scaling images need (uint8 0..255 <-> float 0..1)."""

from __future__ import annotations

import functools
from typing import Any

import torch

from .._names import video_kernel
from ..datapoints import BoundingBox, Image, Mask, Video
from ._registry import get_kernel, register_kernels

__all__ = [
    "convert_dtype",
    "convert_dtype_image_tensor",
    "convert_dtype_video",
    "to_dtype",
    "to_dtype_bounding_box",
    "to_dtype_image_tensor",
    "to_dtype_mask",
    "to_dtype_video",
]


# unsigned dtypes beyond uint8, for which torch lacks most arithmetic (subtraction, masked_fill, promotion)
WIDE_UNSIGNED = tuple(dtype for name in ("uint16", "uint32", "uint64") if (dtype := getattr(torch, name, None)))


# integer dtypes that no float dtype scales onto exactly (their top is not a float64 number)
_UNSCALABLE = tuple(dtype for name in ("int64", "uint64") if (dtype := getattr(torch, name, None)))


@functools.cache
def integer_range(dtype: torch.dtype) -> tuple[int, int]:
    """``(min, max)`` of an integer dtype (``torch.iinfo``'s, cached: a fifth of its cost)."""
    info = torch.iinfo(dtype)
    return info.min, info.max


def work_dtype(dtype: torch.dtype) -> torch.dtype:
    """The float dtype kernels compute in for an image dtype: float32 and float64 their own, float32 for the
    others (half precision rounds once, at the end, as torchvision's warps and colour ops in float32)."""
    return dtype if dtype in (torch.float32, torch.float64) else torch.float32


def coordinate_dtype(dtype: torch.dtype) -> torch.dtype:
    """The float dtype coordinates (boxes, key points) of ``dtype`` are mapped in: floats as :func:`work_dtype`;
    integers in float64 where float32 would round them (int32, int64: past 2^24), else float32."""
    if dtype.is_floating_point:
        return work_dtype(dtype)
    return torch.float64 if integer_range(dtype)[1] > 1 << 24 else torch.float32


def value_bits(dtype: torch.dtype) -> int:
    """The bits of an integer dtype's non-negative values (7 for int8, 16 for uint16)."""
    return integer_range(dtype)[1].bit_length()


def max_value(dtype: torch.dtype) -> int | float:
    """The largest value of an image of ``dtype``: 1.0 for floats, the type's max for integers."""
    if dtype.is_floating_point:
        return 1.0
    if dtype == torch.bool:
        return 1
    return torch.iinfo(dtype).max


def clamp_to_range_(values: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Float ``values`` clamped in place to ``dtype``'s value range, still float: ``[0, 1]`` for float
    dtypes, rounded and ``[0, max]`` for integer ones (what an op returning ``dtype`` holds)."""
    if dtype.is_floating_point:
        return values.clamp_(0.0, 1.0)
    return values.round_().clamp_(0, max_value(dtype))


def to_dtype(inpt: Any, dtype: torch.dtype = torch.float32, scale: bool = False) -> Any:
    """Cast to ``dtype``; with ``scale=True`` images and videos also rescale their value range.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video``, ``Mask`` or ``BoundingBox``;
            masks and boxes are cast but never rescaled.
        dtype: the ``torch.dtype`` of the output (default ``torch.float32``).
        scale: map the old dtype's value range onto the new one's: uint8 0..255 <-> float 0..1, integer
            to integer by bit shifts (default False). float32 to int32, and floats to int64 / uint64, raise
            ``ValueError`` (their scaled values do not fit); values a cast would wrap saturate instead.

    Example:
        >>> F.to_dtype(image, torch.float32, scale=True)
    """
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype, got {dtype!r}")
    return get_kernel(to_dtype, type(inpt))(inpt, dtype, scale=scale)


@register_kernels(to_dtype, (torch.Tensor, Image, Video))
def to_dtype_image_tensor(image: torch.Tensor, dtype: torch.dtype = torch.float32, scale: bool = False) -> torch.Tensor:
    """Cast an image tensor; with ``scale=True`` map the value range of its dtype onto ``dtype``'s."""
    if image.dtype == dtype:
        return image.clone()
    if not scale:
        return image.to(dtype)
    float_in, float_out = image.is_floating_point(), dtype.is_floating_point
    if float_in and float_out:
        return image.to(dtype)
    if float_in:  # float -> int: spread [0, 1] evenly over the integer range
        if (dtype == torch.int32 and image.dtype == torch.float32) or dtype in _UNSCALABLE:
            raise ValueError(f"dtype {dtype} cannot hold the scaled values of {image.dtype} without overflow")
        top, eps = max_value(dtype), 1e-3
        # Multiplied in float32 (half precision rounds 1.0 * 255.999 to 256), or float64 past 2^24 (uint32: the
        # product and the top must be exact); clamped where the cast would wrap (float32 rounds 65535.999 up)
        wide = torch.float64 if top > 1 << 24 else torch.float32
        work = image if image.dtype in (wide, torch.float64) else image.to(wide)
        scaled = work.mul(top + 1.0 - eps)
        return scaled.to(dtype) if dtype == torch.bool else scaled.clamp_(*integer_range(dtype)).to(dtype)
    if float_out:  # int -> float
        return image.to(dtype).mul_(1.0 / max_value(image.dtype))
    # int -> int: shift bits when the ranges are powers of two apart; torch has no bit shifts for uint16,
    # whose values (and those shifted into it) int32 holds
    in_bits, out_bits = value_bits(image.dtype), value_bits(dtype)
    if out_bits >= in_bits:
        work = image.to(torch.int32 if dtype == torch.uint16 else dtype)
        return work.bitwise_left_shift_(out_bits - in_bits).to(dtype)
    work = image.to(torch.int32) if image.dtype == torch.uint16 else image
    return work.bitwise_right_shift(in_bits - out_bits).to(dtype)


to_dtype_video = video_kernel(to_dtype_image_tensor)


@register_kernels(to_dtype, Mask)
def to_dtype_mask(mask: torch.Tensor, dtype: torch.dtype = torch.float32, scale: bool = False) -> torch.Tensor:
    """Cast a mask (labels are never rescaled, so ``scale`` is ignored)."""
    return mask.to(dtype, copy=True)


@register_kernels(to_dtype, BoundingBox)
def to_dtype_bounding_box(
    bounding_box: torch.Tensor, dtype: torch.dtype = torch.float32, scale: bool = False
) -> torch.Tensor:
    """Cast boxes (coordinates are never rescaled, so ``scale`` is ignored)."""
    return bounding_box.to(dtype, copy=True)


def convert_dtype(inpt: Any, dtype: torch.dtype = torch.float32) -> Any:
    """Cast an image or video to ``dtype`` with value-range scaling (``to_dtype(..., scale=True)``).

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image`` or ``Video``.
        dtype: the ``torch.dtype`` of the output (default ``torch.float32``).
    """
    return get_kernel(convert_dtype, type(inpt))(inpt, dtype)


@register_kernels(convert_dtype, (torch.Tensor, Image, Video))
def convert_dtype_image_tensor(image: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Cast an image tensor to ``dtype`` with value-range scaling."""
    return to_dtype_image_tensor(image, dtype, scale=True)


convert_dtype_video = video_kernel(convert_dtype_image_tensor)
