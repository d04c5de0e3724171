"""Random affine warps: rotation and the full affine (torchvision v2's names and arguments).

Each transform draws its parameters once per call (torch's RNG, in torchvision's order) and applies
them to every image, video, mask and box of the sample. ``fill`` is a number, a per-channel
sequence, or a dict ``{datapoint type: fill, "others": fill}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import functional as F
from ..._args import FillSpec, check_range, number_sequence, symmetric_range
from ...functional import InterpolationMode
from .. import _random
from .._transform import Transform
from .._utils import FillMixin, query_size

__all__ = ["RandomAffine", "RandomRotation"]


def _degrees(value: Any, name: str, pairs: Sequence[int] = (1,)) -> list[float]:
    """A number ``d >= 0`` gives ``[-d, d]``; a sequence gives (min, max) pairs (``ValueError`` as torchvision)."""
    return list(symmetric_range(value, name, pairs=pairs, error=ValueError))


def _center(center: Any) -> list[float] | None:
    return None if center is None else number_sequence(center, "center", error=ValueError)


class _WarpMixin(FillMixin):
    """The ``interpolation`` and ``fill`` of the warping transforms."""

    def _setup_warp(self, interpolation: Any, fill: FillSpec) -> None:
        self.interpolation = InterpolationMode.parse(interpolation)
        self._setup_fill(fill)


class RandomRotation(_WarpMixin, Transform):
    """Rotate the sample (images, videos, masks and boxes) by a random angle, counter-clockwise.

    Args:
        degrees: range of the angle in degrees, drawn uniformly: a number ``d >= 0`` for ``[-d, d]`` or
            a ``(min, max)`` pair.
        interpolation: the filter (default nearest); see ``visiontx.transforms``.
        expand: grow the output to hold the whole rotated image (default False: same size, corners cut).
        center: ``(x, y)`` point the rotation turns about; None (default): the image centre.
        fill: value of uncovered pixels (default 0); see ``visiontx.transforms`` for the per-channel
            and dict forms.

    Example:
        >>> T.RandomRotation(30, interpolation="bilinear", expand=True)(image, boxes)
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
        self.degrees = _degrees(degrees, "degrees")
        self.expand = bool(expand)
        self.center = _center(center)
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


class RandomAffine(_WarpMixin, Transform):
    """Random affine warp of the sample (rotation, translation, scale and shear) about its centre.

    The output keeps the input's size. Each parameter is drawn uniformly per call.

    Args:
        degrees: range of the (clockwise, as ``F.affine``) rotation in degrees: a number ``d >= 0`` for
            ``[-d, d]`` or a ``(min, max)`` pair; 0 for none.
        translate: ``(fx, fy)`` in ``[0, 1]``: the shift is drawn from ``[-fx * W, fx * W]`` horizontally
            and ``[-fy * H, fy * H]`` vertically (rounded to pixels); None (default): no shift.
        scale: ``(min, max)`` range of the scale factor, positive; None (default): 1.
        shear: shear range in degrees: a number ``s >= 0`` for an x-shear in ``[-s, s]``, a
            ``(min, max)`` x range, or ``(xmin, xmax, ymin, ymax)`` for both axes; None (default): none.
        interpolation: the filter (default nearest); see ``visiontx.transforms``.
        fill: value of uncovered pixels (default 0); see ``visiontx.transforms`` for the per-channel
            and dict forms.
        center: ``(x, y)`` point the warp is about; None (default): the image centre.

    Example:
        >>> T.RandomAffine(degrees=15, translate=(0.1, 0.1), scale=(0.9, 1.1))(image, boxes)
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
        self.degrees = _degrees(degrees, "degrees")
        self.translate = None if translate is None else number_sequence(translate, "translate", error=ValueError)
        if self.translate is not None and not all(0.0 <= t <= 1.0 for t in self.translate):
            raise ValueError(f"translate values must be in [0, 1], got {translate!r}")
        self.scale = None if scale is None else list(check_range(scale, "scale", 0.0, strict=True, error=ValueError))
        self.shear = None if shear is None else _degrees(shear, "shear", (1, 2))
        self.center = _center(center)
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
