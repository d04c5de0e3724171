"""Resizing transforms: fixed size and the random-scale family used by detection recipes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

from ... import functional as F
from ..._args import SizeArg, check_positive_int, check_range, parse_size
from ...functional import InterpolationMode
from .. import _random
from .._transform import Transform
from .._utils import query_resizable_size

__all__ = ["RandomResize", "RandomShortestSize", "Resize", "ScaleJitter"]


Interpolation = Union[InterpolationMode, str, int]


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
    """Resize every image, video, mask and box of the sample to ``size``.

    Args:
        size: an int (or ``[s]``) sets the shorter edge and keeps the aspect ratio; ``(h, w)`` is the
            exact output size; None scales the longer edge to ``max_size``.
        interpolation: the filter (default bilinear); see ``visiontx.transforms``.
        max_size: upper bound of the longer edge when ``size`` is an int, ``[s]`` or None (the output is
            shrunk to fit); it must be larger than an int ``size``. None (default): no bound.
        antialias: see ``visiontx.transforms`` (default True).

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
            check_positive_int(max_size, "max_size")
        self.size = parse_size(size, max_size)
        self.max_size = max_size

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(
            F.resize, inpt, size=self.size, interpolation=self.interpolation, max_size=self.max_size,
            antialias=self.antialias,
        )


class ScaleJitter(_ResizeBase):
    """Resize the sample by a random scale, keeping its aspect ratio (large-scale jitter, "Simple Copy-Paste").

    The scale is ``min(target_size[1] / H, target_size[0] / W)`` (as torchvision) times a factor drawn
    uniformly from ``scale_range``.

    Args:
        target_size: a pair of positive ints the scale refers to (read as above).
        scale_range: ``(min, max)`` range of the random factor, ``0 < min <= max`` (default ``(0.1, 2.0)``).
        interpolation: the filter (default bilinear); see ``visiontx.transforms``.
        antialias: see ``visiontx.transforms`` (default True).

    Example:
        >>> T.ScaleJitter(target_size=(1024, 1024))(image, boxes)
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
        self.target_size = tuple(check_positive_int(s, "target_size") for s in target_size)
        self.scale_range = check_range(scale_range, "scale_range", 0.0, strict=True)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_resizable_size(flat_inputs, self)
        low, high = self.scale_range
        scale = low + _random.rand_tensor(1) * (high - low)
        r = min(self.target_size[1] / height, self.target_size[0] / width) * scale
        return dict(size=(max(int(height * r), 1), max(int(width * r), 1)))


class RandomShortestSize(_ResizeBase):
    """Resize the sample so its shorter edge gets a size picked at random, keeping the aspect ratio.

    Args:
        min_size: a positive int, or a sequence of them to pick one from uniformly per call.
        max_size: upper bound of the longer edge (the scale is reduced to respect it); None (default):
            no bound.
        interpolation: the filter (default bilinear); see ``visiontx.transforms``.
        antialias: see ``visiontx.transforms`` (default True).

    Example:
        >>> T.RandomShortestSize(min_size=[480, 512, 544], max_size=1333)(image, boxes)
    """

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
        self.min_size = [check_positive_int(s, "min_size") for s in sizes]
        self.max_size = None if max_size is None else check_positive_int(max_size, "max_size")

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_resizable_size(flat_inputs, self)
        min_size = self.min_size[_random.randint(len(self.min_size))]
        r = min_size / min(height, width)
        if self.max_size is not None:
            r = min(r, self.max_size / max(height, width))
        return dict(size=(max(int(height * r), 1), max(int(width * r), 1)))


class RandomResize(_ResizeBase):
    """Resize the sample so its shorter edge gets a size drawn uniformly, keeping the aspect ratio.

    Args:
        min_size: smallest size of the shorter edge (a positive int, included).
        max_size: bound of the drawn size (a positive int above ``min_size``, excluded).
        interpolation: the filter (default bilinear); see ``visiontx.transforms``.
        antialias: see ``visiontx.transforms`` (default True).

    Example:
        >>> T.RandomResize(256, 480)(image)
    """

    def __init__(
        self,
        min_size: int,
        max_size: int,
        interpolation: Interpolation = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        super().__init__(interpolation, antialias)
        self.min_size = check_positive_int(min_size, "min_size")
        self.max_size = check_positive_int(max_size, "max_size")
        if max_size <= min_size:
            raise ValueError(f"max_size must be larger than min_size, got min_size={min_size}, max_size={max_size}")

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(size=[_random.randint(self.min_size, self.max_size)])
