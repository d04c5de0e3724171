"""Resizing transforms: fixed size and the random-scale family used by detection recipes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from .. import functional as F
from ..functional._geometry._resize import SizeArg, _check_positive_int, _parse_size
from ..functional._interpolation import InterpolationMode
from . import _random
from ._transform import Transform
from ._utils import query_resizable_size

__all__ = ["RandomResize", "RandomShortestSize", "Resize", "ScaleJitter"]

Interpolation = InterpolationMode | str | int


def _check_range(value: Any, name: str) -> tuple[float, float]:
    """A ``(min, max)`` pair of numbers with ``0 < min <= max``."""
    if not (isinstance(value, Sequence) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value)):
        raise TypeError(f"{name} must be a sequence of two numbers, got {value!r}")
    low, high = float(value[0]), float(value[1])
    if not 0 < low <= high:
        raise ValueError(f"{name} must satisfy 0 < min <= max, got {value!r}")
    return low, high


class _ResizeBase(Transform):
    """Shared ``interpolation`` / ``antialias`` handling; ``make_params`` gives the output ``size``."""

    def __init__(self, interpolation: Interpolation, antialias: bool | None) -> None:
        super().__init__()
        self.interpolation = InterpolationMode.parse(interpolation)
        self.antialias = antialias

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(
            F.resize, inpt, size=params["size"], interpolation=self.interpolation, antialias=self.antialias
        )


class Resize(_ResizeBase):
    """Resize the sample to ``size``: an int resizes the shorter edge (the longer one capped by
    ``max_size``), ``(h, w)`` is exact; ``size=None`` scales the longer edge to ``max_size``.

    Example:
        >>> T.Resize(256)(image)
    """

    def __init__(
        self,
        size: SizeArg,
        interpolation: Interpolation = InterpolationMode.BILINEAR,
        max_size: int | None = None,
        antialias: bool | None = True,
    ) -> None:
        super().__init__(interpolation, antialias)
        if max_size is not None:
            _check_positive_int(max_size, "max_size")
        parsed = _parse_size(size, max_size)
        self.size = parsed
        self.max_size = max_size

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        kwargs = dict(interpolation=self.interpolation, max_size=self.max_size, antialias=self.antialias)
        return self.call_kernel(F.resize, inpt, size=self.size, **kwargs)


class ScaleJitter(_ResizeBase):
    """Resize by a random factor of ``scale_range`` times the scale fitting the image into
    ``target_size`` (as torchvision: ``min(target_size[1] / H, target_size[0] / W)``), keeping the
    aspect ratio (large-scale jitter of "Simple Copy-Paste").
    """

    def __init__(
        self,
        target_size: Sequence[int],
        scale_range: Sequence[float] = (0.1, 2.0),
        interpolation: Interpolation = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        super().__init__(interpolation, antialias)
        if not (isinstance(target_size, Sequence) and len(target_size) == 2):
            raise TypeError(f"target_size must be a sequence of two ints, got {target_size!r}")
        self.target_size = tuple(_check_positive_int(s, "target_size") for s in target_size)
        self.scale_range = _check_range(scale_range, "scale_range")

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_resizable_size(flat_inputs, self)
        low, high = self.scale_range
        scale = low + torch.rand(1) * (high - low)
        r = min(self.target_size[1] / height, self.target_size[0] / width) * scale
        return dict(size=(max(int(height * r), 1), max(int(width * r), 1)))


class RandomShortestSize(_ResizeBase):
    """Resize the shorter edge to a size drawn from ``min_size`` (the longer edge capped by ``max_size``)."""

    def __init__(
        self,
        min_size: int | Sequence[int],
        max_size: int | None = None,
        interpolation: Interpolation = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        super().__init__(interpolation, antialias)
        if not isinstance(min_size, (int, Sequence)) or isinstance(min_size, str):
            raise TypeError(f"min_size must be an int or a sequence of ints, got {min_size!r}")
        sizes = [min_size] if isinstance(min_size, int) else list(min_size)
        if not sizes:
            raise ValueError("min_size must not be empty")
        self.min_size = [_check_positive_int(s, "min_size") for s in sizes]
        self.max_size = None if max_size is None else _check_positive_int(max_size, "max_size")

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_resizable_size(flat_inputs, self)
        min_size = self.min_size[_random.randint(len(self.min_size))]
        r = min_size / min(height, width)
        if self.max_size is not None:
            r = min(r, self.max_size / max(height, width))
        return dict(size=(max(int(height * r), 1), max(int(width * r), 1)))


class RandomResize(_ResizeBase):
    """Resize the shorter edge to a size drawn uniformly from ``[min_size, max_size)``."""

    def __init__(
        self,
        min_size: int,
        max_size: int,
        interpolation: Interpolation = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        super().__init__(interpolation, antialias)
        self.min_size = _check_positive_int(min_size, "min_size")
        self.max_size = _check_positive_int(max_size, "max_size")
        if max_size <= min_size:
            raise ValueError(f"max_size must be larger than min_size, got min_size={min_size}, max_size={max_size}")

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(size=[_random.randint(self.min_size, self.max_size)])
