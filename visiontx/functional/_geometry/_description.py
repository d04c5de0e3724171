"""Geometry as data: what a geometric op does to the pixel grid, as one small value.

A :class:`Geometry` holds the 3 x 3 matrix mapping input pixel coordinates to output ones (continuous
coordinates: pixel ``(i, j)`` covers ``[j, j + 1] x [i, i + 1]``), the output canvas ``(H, W)`` and how
point-like outputs are clamped to it. Each geometric op describes itself once, as a function
``describe(spatial_size, **params) -> Geometry`` registered with :func:`register_geometry`; point-like
types (key points, bounding boxes) then follow every op through the one path here, and
:func:`geometry_of` gives the description to anyone composing, batching, replaying or inverting ops.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

from ..._names import accepts_canvas_size
from ...datapoints import BoundingBoxFormat, KeyPoints
from ...datapoints._bounding_box import check_rotated_dtype, parse_clamping_mode
from .._meta import clamp_bounding_box_tensor
from .._registry import register_geometry_kernel
from .._rotated import (
    corners_to_rotated,
    directions,
    enclosing_rectangle,
    reverse_orientation,
    rotated_to_corners,
    torchvision_rectangle,
)
from .._rotated_clamp import clamp_rotated_corners
from ._matrix import compose, invert, transform_boxes, transform_points

__all__ = ["Geometry", "geometry_of"]

Matrix = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
Clamp = Literal["corners", "boxes", None]
Describe = Callable[..., "Geometry"]

_IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_LAST_ROW = (0.0, 0.0, 1.0)
_DESCRIPTIONS: dict[Callable, tuple[Describe, tuple[str, ...]]] = {}


def _as_matrix(matrix: Sequence[Sequence[float]]) -> Matrix:
    try:
        (a, b, c), (d, e, f), *last = matrix
        ((g, h, i),) = last or (_LAST_ROW,)
    except ValueError:  # (rows of floats, so each row is read once: a few of these per fused call)
        raise ValueError(f"matrix must be 2 x 3 or 3 x 3, got {matrix!r}") from None
    return ((float(a), float(b), float(c)), (float(d), float(e), float(f)), (float(g), float(h), float(i)))


@dataclass(frozen=True)
class Geometry:
    """The geometry of one op on an image of a given size.

    Args:
        matrix: 3 x 3 (or 2 x 3) map from input to output pixel coordinates, continuous (pixel
            ``(i, j)`` covers ``[j, j + 1] x [i, i + 1]``); a last row other than ``[0, 0, 1]`` is projective.
        canvas_size: the output ``(H, W)``.
        clamp: how boxes are clamped to the canvas, following torchvision's two conventions:
            ``"corners"`` clamps the enclosing box of the mapped corners (affine, rotate, perspective),
            ``"boxes"`` clamps the mapped boxes as ``clamp_bounding_box`` does (crops, pads), ``None``
            leaves them (flips, resizes).
        points_error: when set, points cannot follow this geometry (e.g. a reflecting pad) and
            mapping them raises ``ValueError`` with this message.

    Example:
        >>> g = F.geometry_of("rotate", (100, 200), angle=90, expand=True)
        >>> g.canvas_size
        (200, 100)
    """

    matrix: Matrix
    canvas_size: tuple[int, int]
    clamp: Clamp = None
    points_error: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "matrix", _as_matrix(self.matrix))
        height, width = self.canvas_size
        object.__setattr__(self, "canvas_size", (int(height), int(width)))

    @property
    def inverse_matrix(self) -> Matrix:
        """The map from output to input pixel coordinates (what samplers read)."""
        return _as_matrix(invert([list(row) for row in self.matrix]))

    @property
    def is_projective(self) -> bool:
        return self.matrix[2] != (0.0, 0.0, 1.0)

    @classmethod
    def _checked(
        cls, matrix: Matrix, canvas_size: tuple[int, int], clamp: Clamp = None, points_error: str | None = None
    ) -> Geometry:
        """A geometry of a matrix already of 3 rows of 3 floats and a size already of 2 ints: the fields
        are set as ``__init__`` sets them, less its conversions (a fused run composes a few per call)."""
        geometry = object.__new__(cls)
        vars(geometry).update(matrix=matrix, canvas_size=canvas_size, clamp=clamp, points_error=points_error)
        return geometry

    def then(self, other: Geometry) -> Geometry:
        """This geometry followed by ``other`` (whose input is this one's canvas)."""
        return Geometry._checked(
            _product(other.matrix, self.matrix),
            other.canvas_size,
            other.clamp or self.clamp,
            self.points_error or other.points_error,
        )


def _product(first: Matrix, second: Matrix) -> Matrix:
    """``compose(first, second)``, the same floats, without its pass through the identity: each entry
    summed as compose sums it. That pass only changes entries where ``first`` has an infinity or NaN,
    and then so does a product entry: any non-finite sum goes back to compose."""
    (a, b, c), (d, e, f), (g, h, i) = first
    (p, q, r), (s, t, u), (v, w, x) = second
    rows = (
        (0 + a * p + b * s + c * v, 0 + a * q + b * t + c * w, 0 + a * r + b * u + c * x),
        (0 + d * p + e * s + f * v, 0 + d * q + e * t + f * w, 0 + d * r + e * u + f * x),
        (0 + g * p + h * s + i * v, 0 + g * q + h * t + i * w, 0 + g * r + h * u + i * x),
    )
    if math.isfinite(sum(map(sum, rows))):
        return rows
    return tuple(map(tuple, compose(first, second)))  # type: ignore[return-value]


def register_geometry(
    functional: Callable, describe: Describe, *, sampling: Sequence[str] = (), boxes: bool = True
) -> None:
    """Describe the geometric op ``functional`` by ``describe(spatial_size, **params)`` and register the
    generic kernels that move key points and bounding boxes with it (boxes unless ``boxes`` is False:
    the op registers its own). ``sampling`` names the op's arguments that only concern pixels
    (interpolation, fill, antialias): they are dropped before ``describe``."""
    dropped = tuple(sampling)
    _DESCRIPTIONS[functional] = (describe, dropped)

    def geometry(spatial_size: Sequence[int], params: dict[str, Any]) -> Geometry:
        return describe(tuple(spatial_size), **{k: v for k, v in params.items() if k not in dropped})

    def follow_points(
        points: torch.Tensor, spatial_size: Sequence[int], **params: Any
    ) -> tuple[torch.Tensor, tuple[int, int]]:
        moved = geometry(spatial_size, params)
        return transform_keypoints(points, moved), moved.canvas_size

    follow_points.__name__ = follow_points.__qualname__ = f"{functional.__name__}_keypoints_by_geometry"
    register_geometry_kernel(functional, KeyPoints)(follow_points)
    if not boxes:
        return

    def follow(
        bounding_box: torch.Tensor,
        format: BoundingBoxFormat | str,
        spatial_size: Sequence[int],
        clamping_mode: str | None = "soft",
        **params: Any,
    ) -> tuple[torch.Tensor, tuple[int, int]]:
        moved = geometry(spatial_size, params)
        return transform_bounding_box(bounding_box, format, moved, clamping_mode), moved.canvas_size

    follow.__name__ = follow.__qualname__ = f"{functional.__name__}_bounding_box_by_geometry"
    register_geometry_kernel(functional)(follow)


def transform_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    geometry: Geometry,
    clamping_mode: str | None = "soft",
) -> torch.Tensor:
    """Boxes ``[..., K]`` in ``format`` through ``geometry``; same format and dtype.

    Axis-aligned boxes become the enclosing box of their mapped corners, clamped to the canvas as the
    geometry says; rotated boxes stay rotated (see :func:`transform_rotated_boxes`). ``clamping_mode``
    None never clamps; ``"soft"`` and ``"hard"`` are the box's modes (the same for axis-aligned boxes)."""
    format = BoundingBoxFormat.parse(format)
    clamping_mode = parse_clamping_mode(clamping_mode)
    if geometry.points_error is not None:
        raise ValueError(geometry.points_error)
    if geometry.clamp is None and geometry.matrix == _IDENTITY:
        return bounding_box
    if format.is_rotated:
        return transform_rotated_boxes(bounding_box, format, geometry, clamping_mode)
    clamp = geometry.clamp if clamping_mode is not None else None
    if clamp == "corners":
        return transform_boxes(bounding_box, format, geometry.matrix, clamp_to=geometry.canvas_size)
    boxes = transform_boxes(bounding_box, format, geometry.matrix)
    if clamp == "boxes":
        return clamp_bounding_box_tensor(boxes, format, geometry.canvas_size)
    return boxes


def transform_rotated_boxes(
    bounding_box: torch.Tensor, format: BoundingBoxFormat, geometry: Geometry, clamping_mode: str | None
) -> torch.Tensor:
    """Rotated boxes ``[..., 5 | 8]`` through ``geometry``: their four corners are mapped; a mirroring
    map re-lists them (as torchvision's flips); a map that does not keep right angles (shear, unequal
    scales) gives the smallest rotated box around the mapped parallelogram (it covers the pixels), a
    perspective the rectangle torchvision 0.29 makes of the mapped corners. Then the box is clamped in
    ``clamping_mode`` unless the geometry is a flip (torchvision clamps rotated boxes after every op but
    flips, resizes included). An unclamped box of zero width keeps the direction of its first edge under
    maps keeping right angles (its corners give none): as torchvision's crops, pads and flips; torchvision's
    resizes and warps give it angle 0."""
    check_rotated_dtype(bounding_box, format)
    (a, b, _), (d, e, _), _ = geometry.matrix
    corners = rotated_to_corners(bounding_box, format).unflatten(-1, (4, 2))
    mapped = transform_points(corners, geometry.matrix).flatten(-2)
    flat_angle = None
    if geometry.is_projective:
        mapped = torchvision_rectangle(mapped)
    else:
        mirrored = a * e - b * d < 0
        if mirrored:
            mapped = reverse_orientation(mapped)
        if not _keeps_right_angles(a, b, d, e):
            mapped = enclosing_rectangle(mapped)
        elif format != BoundingBoxFormat.XYXYXYXY:
            flat_angle = _mapped_angle(bounding_box[..., 4], (a, b, d, e), mirrored)
    if clamping_mode is not None and (geometry.clamp is not None or not _is_flip(geometry.matrix)):
        mapped = clamp_rotated_corners(mapped, geometry.canvas_size, clamping_mode)
        flat_angle = None  # clamped to zero width, a box takes the angle torchvision's clamp gives it
    return corners_to_rotated(mapped, format, flat_angle)


def _mapped_angle(angle: torch.Tensor, linear: tuple[float, float, float, float], mirrored: bool) -> torch.Tensor:
    """The angles (degrees) of boxes' first edges, direction ``u = (cos, -sin)``, under the linear part
    ``(a, b, d, e)`` of a map keeping right angles, their corners re-listed under a mirror (``p2`` first):
    what a box of zero width, whose corners give no direction, keeps (as torchvision's crops and flips)."""
    a, b, d, e = linear
    cos, sin = directions(angle.to(torch.float64))
    ux, uy = a * cos - b * sin, d * cos - e * sin
    if mirrored:
        ux, uy = -ux, -uy
    return torch.atan2(-uy, ux) * (180.0 / math.pi)


def _keeps_right_angles(a: float, b: float, d: float, e: float) -> bool:
    """Whether ``[[a, b], [d, e]]`` is a rotation (or mirror) times a uniform scale."""
    tolerance = 1e-9 * max(abs(a), abs(b), abs(d), abs(e))
    rotation = abs(a - e) <= tolerance and abs(b + d) <= tolerance
    mirror = abs(a + e) <= tolerance and abs(b - d) <= tolerance
    return rotation or mirror


def _is_flip(matrix: Matrix) -> bool:
    (a, b, _), (d, e, _), last = matrix
    return b == 0 and d == 0 and abs(a) == 1 and abs(e) == 1 and last == (0.0, 0.0, 1.0)


def transform_keypoints(points: torch.Tensor, geometry: Geometry) -> torch.Tensor:
    """Key points ``[..., 2]`` (pixel indices: a point marks the centre of pixel ``(x, y)``) through
    ``geometry``: the centre ``(x + 0.5, y + 0.5)`` is mapped and 0.5 taken off again, so points follow
    the pixels they mark; not clamped (points may leave the canvas); same dtype (ints rounded)."""
    if geometry.points_error is not None:
        raise ValueError(geometry.points_error)
    if geometry.matrix == _IDENTITY:
        return points
    return transform_points(points, geometry.matrix, offset=0.5)


def _resolve(op: Callable | str) -> Callable:
    for functional in _DESCRIPTIONS:
        if functional is op or functional.__name__ == op:
            return functional
    names = sorted(f.__name__ for f in _DESCRIPTIONS)
    raise ValueError(f"op must be one of the geometric ops described by a matrix {names}, got {op!r}")


def describe_step(op: Callable, spatial_size: tuple[int, int], params: dict[str, Any]) -> Geometry:
    """:func:`geometry_of` for ``op`` itself (a registered functional) on a size of two ints, without
    resolving or checking them (the fused probe's path: its canvas is a geometry's)."""
    describe, sampling = _DESCRIPTIONS[op]
    return describe(spatial_size, **{k: v for k, v in params.items() if k not in sampling})


@accepts_canvas_size
def geometry_of(op: Callable | str, spatial_size: Sequence[int], **params: Any) -> Geometry:
    """The :class:`Geometry` (matrix and output size) of a geometric op on an image of a given size.

    Args:
        op: a geometric functional (``F.rotate``, ...) or its name; ``elastic`` has no matrix
            (``ValueError``).
        spatial_size: ``(H, W)`` of the input image.
        **params: the op's own arguments, as for the functional without ``inpt``; those that only
            concern pixels (``interpolation``, ``fill``, ``antialias``) may be given and are ignored.

    Example:
        >>> F.geometry_of("rotate", (480, 640), angle=30, expand=True).canvas_size
    """
    describe, sampling = _DESCRIPTIONS[_resolve(op)]
    try:
        size = tuple(operator.index(s) for s in spatial_size)
    except TypeError:
        size = ()
    if len(size) != 2 or min(size) < 0 or any(isinstance(s, bool) for s in spatial_size):
        raise ValueError(f"spatial_size must be a pair of non-negative ints (H, W), got {spatial_size!r}")
    return describe(size, **{k: v for k, v in params.items() if k not in sampling})
