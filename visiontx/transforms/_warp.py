"""Random warps: rotation, affine, perspective and elastic (torchvision v2's names and arguments).

Each transform draws its parameters once per call (torch's RNG, in torchvision's order) and applies
them to every image, video, mask and box of the sample. ``fill`` is a number, a per-channel
sequence, or a dict ``{datapoint type: fill, "others": fill}``.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import torch

from .. import functional as F
from ..functional._geometry._warp import _random_displacement
from ..functional._interpolation import InterpolationMode
from . import _random
from ._transform import RandomApplyTransform, Transform
from ._utils import FillSpec, get_fill, query_size, setup_fill_arg

__all__ = ["ElasticTransform", "RandomAffine", "RandomPerspective", "RandomRotation"]


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _numbers(value: Any, name: str, sizes: Sequence[int]) -> list[float]:
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) in sizes:
        if all(_is_number(v) for v in value):
            return [float(v) for v in value]
    raise ValueError(f"{name} must be a sequence of {' or '.join(map(str, sizes))} numbers, got {value!r}")


def _check_ranges(values: list[float], name: str) -> list[float]:
    for low, high in zip(values[0::2], values[1::2]):
        if low > high:
            raise ValueError(f"{name} ranges must be (min, max) with min <= max, got {values}")
    return values


def _setup_range(value: Any, name: str, sizes: Sequence[int] = (2,)) -> list[float]:
    """A number ``d >= 0`` gives ``[-d, d]``; a sequence gives (min, max) pairs."""
    if _is_number(value):
        if value < 0:
            raise ValueError(f"{name} must be non-negative when a single number, got {value}")
        return [-float(value), float(value)]
    return _check_ranges(_numbers(value, name, sizes), name)


def _setup_center(center: Any) -> list[float] | None:
    return None if center is None else _numbers(center, "center", (2,))


class _WarpArgs:
    """Mixin: the ``interpolation`` / ``fill`` handling shared by the warping transforms."""

    def _setup_warp(self, interpolation: Any, fill: FillSpec) -> None:
        self.interpolation = InterpolationMode.parse(interpolation)
        self.fill = fill
        self._fill = setup_fill_arg(fill)

    def _fill_for(self, inpt: Any) -> Any:
        return get_fill(self._fill, type(inpt))


class RandomRotation(_WarpArgs, Transform):
    """Rotate the sample by an angle drawn from ``degrees`` (``d`` means ``[-d, d]``; counter-clockwise).

    ``expand=True`` grows the output to hold the whole image; ``center`` defaults to the image center.
    """

    def __init__(
        self,
        degrees: float | Sequence[float],
        interpolation: InterpolationMode | str | int = InterpolationMode.NEAREST,
        expand: bool = False,
        center: Sequence[float] | None = None,
        fill: FillSpec = 0,
    ) -> None:
        super().__init__()
        self.degrees = _setup_range(degrees, "degrees")
        self.expand = bool(expand)
        self.center = _setup_center(center)
        self._setup_warp(interpolation, fill)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(angle=_random.uniform(*self.degrees))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(
            F.rotate,
            inpt,
            angle=params["angle"],
            interpolation=self.interpolation,
            expand=self.expand,
            center=self.center,
            fill=self._fill_for(inpt),
        )


class RandomAffine(_WarpArgs, Transform):
    """Random affine warp keeping the center fixed: rotation from ``degrees``, translation up to
    ``translate = (fx, fy)`` of the width / height, scale from ``scale = (min, max)``, shear from
    ``shear`` (a number ``s``: x-shear in ``[-s, s]``; 2 values: x range; 4 values: x and y ranges).
    """

    def __init__(
        self,
        degrees: float | Sequence[float],
        translate: Sequence[float] | None = None,
        scale: Sequence[float] | None = None,
        shear: float | Sequence[float] | None = None,
        interpolation: InterpolationMode | str | int = InterpolationMode.NEAREST,
        fill: FillSpec = 0,
        center: Sequence[float] | None = None,
    ) -> None:
        super().__init__()
        self.degrees = _setup_range(degrees, "degrees")
        self.translate = None if translate is None else _numbers(translate, "translate", (2,))
        if self.translate is not None and not all(0.0 <= t <= 1.0 for t in self.translate):
            raise ValueError(f"translate values must be in [0, 1], got {translate!r}")
        self.scale = None if scale is None else _check_ranges(_numbers(scale, "scale", (2,)), "scale")
        if self.scale is not None and self.scale[0] <= 0:
            raise ValueError(f"scale values must be positive, got {scale!r}")
        self.shear = None if shear is None else _setup_range(shear, "shear", (2, 4))
        self.center = _setup_center(center)
        self._setup_warp(interpolation, fill)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        angle = _random.uniform(*self.degrees)
        translate = [0, 0]
        if self.translate is not None:
            max_dx, max_dy = self.translate[0] * width, self.translate[1] * height
            translate = [int(round(_random.uniform(-max_dx, max_dx))), int(round(_random.uniform(-max_dy, max_dy)))]
        scale = 1.0 if self.scale is None else _random.uniform(*self.scale)
        shear = [0.0, 0.0]
        if self.shear is not None:
            shear[0] = _random.uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                shear[1] = _random.uniform(self.shear[2], self.shear[3])
        return dict(angle=angle, translate=translate, scale=scale, shear=shear)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(
            F.affine, inpt, **params, interpolation=self.interpolation, fill=self._fill_for(inpt), center=self.center
        )


class RandomPerspective(_WarpArgs, RandomApplyTransform):
    """With probability ``p``, move each image corner inwards by up to ``distortion_scale`` of half
    the width / height and warp the sample accordingly."""

    def __init__(
        self,
        distortion_scale: float = 0.5,
        p: float = 0.5,
        interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
        fill: FillSpec = 0,
    ) -> None:
        super().__init__(p=p)
        if not _is_number(distortion_scale) or not 0.0 <= distortion_scale <= 1.0:
            raise ValueError(f"distortion_scale must be a number in [0, 1], got {distortion_scale!r}")
        self.distortion_scale = float(distortion_scale)
        self._setup_warp(interpolation, fill)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        bound_h = int(self.distortion_scale * (height // 2)) + 1
        bound_w = int(self.distortion_scale * (width // 2)) + 1

        draw = _random.randint
        endpoints = [
            [draw(0, bound_w), draw(0, bound_h)],
            [draw(width - bound_w, width), draw(0, bound_h)],
            [draw(width - bound_w, width), draw(height - bound_h, height)],
            [draw(0, bound_w), draw(height - bound_h, height)],
        ]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return dict(startpoints=startpoints, endpoints=endpoints)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        fill = self._fill_for(inpt)
        return self.call_kernel(F.perspective, inpt, **params, interpolation=self.interpolation, fill=fill)


class ElasticTransform(_WarpArgs, Transform):
    """Elastic warp: a random displacement field (uniform noise smoothed by a Gaussian of ``sigma``
    pixels and scaled by ``alpha`` pixels), drawn once per call and applied to every input."""

    def __init__(
        self,
        alpha: float | Sequence[float] = 50.0,
        sigma: float | Sequence[float] = 5.0,
        interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
        fill: FillSpec = 0,
    ) -> None:
        super().__init__()
        self.alpha = self._pair(alpha, "alpha")
        self.sigma = self._pair(sigma, "sigma")
        self._setup_warp(interpolation, fill)

    @staticmethod
    def _pair(value: Any, name: str) -> list[float]:
        values = [float(value)] * 2 if _is_number(value) else _numbers(value, name, (1, 2))
        values = values * 2 if len(values) == 1 else values
        if any(v < 0 for v in values):
            raise ValueError(f"{name} must be non-negative, got {value!r}")
        return values

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(displacement=_random_displacement(query_size(flat_inputs), self.alpha, self.sigma))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        fill = self._fill_for(inpt)
        return self.call_kernel(F.elastic, inpt, params["displacement"], interpolation=self.interpolation, fill=fill)
