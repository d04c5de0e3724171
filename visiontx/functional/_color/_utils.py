"""Helpers shared by the color kernels: argument checks, lookup tables, rounding back to the dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import PIL.Image
import torch

from ..._args import check_number
from .. import _cv2
from .._dtype import clamp_to_range_


def check_factor(name: str, value: float) -> float:
    """A non-negative number, as ``float``; ``TypeError`` / ``ValueError`` naming ``name`` otherwise."""
    return check_number(value, name, non_negative=True)


def check_channels(image: torch.Tensor, op: str, allowed: tuple[int, ...] = (1, 3)) -> int:
    """The channel count of ``image [..., C, H, W]``; ``ValueError`` if it is not in ``allowed``."""
    if image.ndim < 3:
        raise ValueError(f"{op}: image must be [..., C, H, W], got shape {tuple(image.shape)}")
    channels = image.shape[-3]
    if channels not in allowed:
        raise ValueError(f"{op}: image must have {' or '.join(map(str, allowed))} channels, got {channels}")
    return channels


def to_dtype_rounded(output: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Clamp a float result to ``dtype``'s value range and cast, rounding for integer dtypes.

    ``output`` must be a fresh tensor (it is modified in place).
    """
    return clamp_to_range_(output, dtype).to(dtype)


def apply_lut(image: torch.Tensor, lut: torch.Tensor) -> torch.Tensor:
    """Map every value of a uint8 ``image`` through ``lut`` (256 uint8 entries on the same device)."""
    if _cv2.can_lut(image, lut):
        return _cv2.lut(image, lut)
    index = image.reshape(-1).to(torch.int32)
    return lut.index_select(0, index).view(image.shape)


def make_lut(fn: Callable[[Any], Any], device: torch.device | None) -> torch.Tensor:
    """A uint8 lookup table from ``fn`` applied to the float64 values 0..255 (rounded half to even, clamped).

    ``fn`` uses arithmetic operators only: it gets a numpy array for CPU tables (a few numpy ops on 256
    values cost a fraction of torch's) and a tensor for other devices.
    """
    if device is None or device.type == "cpu":
        values = np.rint(fn(_VALUES))
        np.minimum(np.maximum(values, 0.0, out=values), 255.0, out=values)
        return torch.from_numpy(values.astype(np.uint8))
    return fn(torch.arange(256, dtype=torch.float64, device=device)).round_().clamp_(0, 255).to(torch.uint8)


_VALUES = np.arange(256, dtype=np.float64)
_VALUES.flags.writeable = False  # shared: lookup-table functions return new arrays


def pil_point(image: PIL.Image.Image, lut: torch.Tensor) -> PIL.Image.Image:
    """Apply a 256-entry uint8 lookup table to every band of an 8-bit PIL image."""
    table = lut.tolist() * len(image.getbands())
    return image.point(table)


def pil_bands(image: PIL.Image.Image) -> int:
    """Number of bands of a PIL image."""
    return len(image.getbands())

