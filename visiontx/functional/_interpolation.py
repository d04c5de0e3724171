"""Interpolation modes, shared by resize and the warping ops."""

from __future__ import annotations

import enum

import PIL.Image
import torch

from .._torchvision_interop import from_torchvision_enum

__all__ = ["InterpolationMode", "nearest_source"]


class InterpolationMode(enum.Enum):
    """How pixels are sampled. Strings ("bilinear", ...), PIL's resampling constants and torchvision's
    ``InterpolationMode`` members are accepted wherever a mode is, through :meth:`parse`.

    An enum of ``NEAREST``, ``NEAREST_EXACT``, ``BILINEAR``, ``BICUBIC``, ``BOX``, ``HAMMING`` and
    ``LANCZOS``; ``InterpolationMode("bilinear")`` looks a member up by its value. Which ops take which
    modes is listed in ``visiontx.functional``.
    """

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"

    @classmethod
    def parse(cls, value: InterpolationMode | str | int, name: str = "interpolation") -> InterpolationMode:
        """Return the mode for an enum member (ours or torchvision's), a case-insensitive string or a PIL
        resampling constant."""
        if isinstance(value, cls):
            return value
        value = from_torchvision_enum(value, cls)
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            key = value.lower().replace("_", "-")
            for mode in cls:
                if mode.value == key:
                    return mode
        elif isinstance(value, int) and not isinstance(value, bool):
            for mode, pil in _PIL_RESAMPLING.items():
                if pil == value and mode != cls.NEAREST_EXACT:
                    return mode
        raise ValueError(f"{name} must be an InterpolationMode or one of {[m.value for m in cls]}, got {value!r}")

    @property
    def pil(self) -> int:
        """The matching PIL resampling constant."""
        return _PIL_RESAMPLING[self]


class UnsupportedInterpolationError(NotImplementedError, ValueError):
    """An interpolation mode a kernel does not have (``box`` and ``hamming`` on tensors): both torchvision's
    ``NotImplementedError`` and a ``ValueError``, so code catching either keeps working."""


_PIL_RESAMPLING = {
    InterpolationMode.NEAREST: PIL.Image.Resampling.NEAREST,
    InterpolationMode.NEAREST_EXACT: PIL.Image.Resampling.NEAREST,
    InterpolationMode.BILINEAR: PIL.Image.Resampling.BILINEAR,
    InterpolationMode.BICUBIC: PIL.Image.Resampling.BICUBIC,
    InterpolationMode.BOX: PIL.Image.Resampling.BOX,
    InterpolationMode.HAMMING: PIL.Image.Resampling.HAMMING,
    InterpolationMode.LANCZOS: PIL.Image.Resampling.LANCZOS,
}


def nearest_source(
    in_len: int, out_len: int, mode: str = "nearest", device: torch.device | str = "cpu"
) -> torch.Tensor:
    """The int64 source index of each of ``out_len`` positions of a ``nearest`` / ``nearest-exact``
    resize of a line of ``in_len`` pixels, as torch's ``interpolate`` picks it (float32 maths, as for float32 and
    uint8 images: the positions it copies are float32). Above 2^24 float32 positions are not whole numbers: each
    position goes as two exact parts, ``i // 4096`` and ``i % 4096``, picked together."""
    if in_len <= _EXACT_FLOAT32:
        positions = torch.arange(in_len, dtype=torch.float32, device=device).view(1, 1, in_len)
        return torch.nn.functional.interpolate(positions, size=out_len, mode=mode).view(-1).long()
    positions = torch.arange(in_len, device=device)
    parts = torch.stack([positions // _SPLIT, positions % _SPLIT]).float().view(1, 2, in_len)
    high, low = torch.nn.functional.interpolate(parts, size=out_len, mode=mode)[0].long()
    return high * _SPLIT + low


_EXACT_FLOAT32 = (1 << 24) + 1  # the whole numbers 0 .. 2^24 are float32 exactly
_SPLIT = 4096
