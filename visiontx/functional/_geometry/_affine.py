"""Affine warps and rotations for every input type, with torchvision v2's signatures and conventions.

Every op builds one 3 x 3 matrix mapping input pixel coordinates to output ones (continuous
coordinates: pixel ``(i, j)`` covers ``[j, j + 1] x [i, i + 1]``). Boxes go through it with
:func:`transform_boxes`; images sample the input through its inverse. Positive angles turn
``affine`` clockwise and ``rotate`` counter-clockwise, as torchvision.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any

import PIL.Image
import torch

from ..._args import check_number, is_number
from ..._names import accepts_canvas_size, video_kernel
from ...datapoints import BoundingBoxFormat
from .._checks import check_spatial
from .._interpolation import InterpolationMode
from .._registry import get_kernel
from ._description import Geometry, transform_bounding_box
from ._generic import Interpolation, register_warp_kernels, warp_image_pil, warp_image_tensor
from ._grid import FillArg
from ._matrix import compose, invert, translation_matrix

__all__ = [
    "affine",
    "affine_bounding_box",
    "affine_image_pil",
    "affine_image_tensor",
    "affine_mask",
    "affine_video",
    "rotate",
    "rotate_bounding_box",
    "rotate_image_pil",
    "rotate_image_tensor",
    "rotate_mask",
    "rotate_video",
]

Matrix = list[list[float]]
_EXACT_COS_SIN = {0.0: (1.0, 0.0), 90.0: (0.0, 1.0), 180.0: (-1.0, 0.0), 270.0: (0.0, -1.0)}
_QUARTER_TURNS = {0.0: 0, 90.0: 1, 180.0: 2, 270.0: 3}


# ------------------------------------------------------------------------------------- matrices
def _pair(value: Any, name: str) -> list[float]:
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        raise ValueError(f"{name} must be a sequence of 2 numbers, got {value!r}")
    return [check_number(v, name, finite=True) for v in value]


def _parse_shear(shear: Any) -> list[float]:
    if is_number(shear):
        return [check_number(shear, "shear", finite=True), 0.0]
    if isinstance(shear, Sequence) and not isinstance(shear, str) and len(shear) == 1:
        return [check_number(shear[0], "shear", finite=True)] * 2
    if isinstance(shear, Sequence) and not isinstance(shear, str) and len(shear) == 2:
        return _pair(shear, "shear")
    raise ValueError(f"shear must be a number or a sequence of 1 or 2 numbers, got {shear!r}")


def _parse_affine(angle: Any, translate: Any, scale: Any, shear: Any) -> tuple[float, list[float], float, list[float]]:
    scale = check_number(scale, "scale", finite=True)
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    return check_number(angle, "angle", finite=True), _pair(translate, "translate"), scale, _parse_shear(shear)


def _cos_sin(degrees: float) -> tuple[float, float]:
    """cos and sin, exact for multiples of 90 degrees (so quarter turns map pixels exactly)."""
    exact = _EXACT_COS_SIN.get(degrees % 360.0)
    if exact is not None:
        return exact
    radians = math.radians(degrees)
    return math.cos(radians), math.sin(radians)


def _affine_matrix(
    angle: float, translate: Sequence[float], scale: float, shear: Sequence[float], center: Sequence[float]
) -> Matrix:
    """Input -> output matrix: about ``center``, rotate by ``angle`` (clockwise on screen), scale and
    shear (``shear[0]`` along x, ``shear[1]`` along y, degrees), then translate."""
    cos, sin = _cos_sin(angle)
    tan_x, tan_y = math.tan(math.radians(shear[0])), math.tan(math.radians(shear[1]))
    rotate = [[cos * scale, -sin * scale, 0.0], [sin * scale, cos * scale, 0.0], [0.0, 0.0, 1.0]]
    shear_y = [[1.0, 0.0, 0.0], [-tan_y, 1.0, 0.0], [0.0, 0.0, 1.0]]
    shear_x = [[1.0, -tan_x, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    cx, cy = center
    return compose(
        translation_matrix(cx + translate[0], cy + translate[1]), rotate, shear_y, shear_x, translation_matrix(-cx, -cy)
    )


def _center(center: Sequence[float] | None, spatial_size: Sequence[int]) -> list[float]:
    if center is None:
        return [spatial_size[1] * 0.5, spatial_size[0] * 0.5]
    return _pair(center, "center")


def _affine_geometry(
    spatial_size: Sequence[int], angle: Any, translate: Any, scale: Any, shear: Any, center: Any
) -> Matrix:
    angle, translate, scale, shear = _parse_affine(angle, translate, scale, shear)
    return _affine_matrix(angle, translate, scale, shear, _center(center, spatial_size))


def _f32(value: float) -> float:
    """``value`` rounded to float32."""
    return struct.unpack("f", struct.pack("f", value))[0]


_TOLERANCE = _f32(1e-4)  # float32, as torchvision's extents


def _truncated(value: float) -> float:
    """``value`` truncated towards zero to a multiple of 1e-4 (in float32 steps, as torchvision)."""
    return _f32(math.trunc(_f32(value * 1e4)) * _TOLERANCE)


def _whole_pixels(values: list[float], half: float) -> int:
    """Pixels spanned by ``values`` (relative to the image center, ``half`` the image's half size):
    both ends truncated to 1e-4, so noise never adds a pixel, then rounded outwards."""
    high, low = _f32(max(values) + half), _f32(min(values) + half)
    return math.ceil(_truncated(high)) - math.floor(_truncated(low))


def _expanded_size(matrix: Matrix, center: Sequence[float], spatial_size: Sequence[int]) -> tuple[int, int]:
    """``(H, W)`` holding the whole rotated image: its corners through the inverse map, as PIL and
    torchvision. Computed as torchvision's tensors are (about the image center, in float32, steps
    rounded as its float32 kernels round them), so the sizes agree with it where a corner is a whole
    number up to noise: a corner at 0.99999999 in float64 truncates and floors to 0, in float32 it
    is 1.0."""
    height, width = spatial_size
    half_w, half_h = _f32(width * 0.5), _f32(height * 0.5)
    (a, b, _), (d, e, _), _ = invert(matrix)
    cx, cy = center[0] - width * 0.5, center[1] - height * 0.5  # the rotation center, from the image center
    rows = [(_f32(a), _f32(b), _f32(cx - a * cx - b * cy)), (_f32(d), _f32(e), _f32(cy - d * cx - e * cy))]
    corners = [(-half_w, -half_h), (-half_w, half_h), (half_w, half_h), (half_w, -half_h)]
    xs, ys = ([_f32(_f32(_f32(p * x) + _f32(q * y)) + r) for x, y in corners] for p, q, r in rows)
    return _whole_pixels(ys, half_h), _whole_pixels(xs, half_w)


def _quarter_turns(angle: float, spatial_size: Sequence[int], expand: bool, center: Any) -> int | None:
    """The number of exact quarter turns this rotation is (None if it is not one)."""
    turns = _QUARTER_TURNS.get(angle % 360.0)
    if turns is None or (center is not None and turns != 0):
        return None
    if turns % 2 == 1 and not expand and spatial_size[0] != spatial_size[1]:
        return None
    return turns


def _rotate_geometry(
    spatial_size: Sequence[int], angle: Any, expand: bool, center: Any
) -> tuple[Matrix, tuple[int, int]]:
    """Input -> output matrix and output ``(H, W)`` of a counter-clockwise rotation. With ``expand``,
    the output grows to hold the whole image and the input's center lands on the output's center: an
    exact quarter turn about the image center keeps the size, swapped for odd turns (as torchvision's
    and PIL's transpose shortcuts; the corner formula would add a pixel when ``H`` and ``W`` differ in
    parity), other rotations take the corner formula (an explicit center too, as in torchvision)."""
    angle, center_xy = check_number(angle, "angle", finite=True), _center(center, spatial_size)
    matrix = _affine_matrix(-angle, [0.0, 0.0], 1.0, [0.0, 0.0], center_xy)
    if not expand:
        return matrix, (spatial_size[0], spatial_size[1])
    turns = _quarter_turns(angle, spatial_size, expand, center)
    if turns is None:
        out_size = _expanded_size(matrix, center_xy, spatial_size)
    else:
        out_size = (spatial_size[1], spatial_size[0]) if turns % 2 else (spatial_size[0], spatial_size[1])
    shift = translation_matrix((out_size[1] - spatial_size[1]) / 2, (out_size[0] - spatial_size[0]) / 2)
    return compose(shift, matrix), out_size


# ---------------------------------------------------------------------------------------- affine
def affine(
    inpt: Any,
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: float | Sequence[float],
    interpolation: InterpolationMode | str | int = InterpolationMode.NEAREST,
    fill: FillArg = None,
    center: Sequence[float] | None = None,
) -> Any:
    """Affine warp: rotate, scale and shear about ``center``, then translate; the size is unchanged.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).
            Boxes become the enclosing box of their mapped corners, clamped to the image.
        angle: rotation in degrees, clockwise.
        translate: ``(dx, dy)`` shift in pixels, applied last.
        scale: positive scale factor.
        shear: shear in degrees: a number shears along x, ``[s]`` along both axes by ``s``, ``(sx, sy)``
            along x and y.
        interpolation: the filter (default nearest); see ``visiontx.functional``.
        fill: value of uncovered pixels (default None: zeros); see ``visiontx.functional``.
        center: ``(x, y)`` point the warp is about; None (default): the image centre.

    Example:
        >>> F.affine(image, angle=30, translate=[5, 0], scale=1.2, shear=[10, 0])
    """
    kernel = get_kernel(affine, type(inpt))
    return kernel(
        inpt,
        angle=angle,
        translate=translate,
        scale=scale,
        shear=shear,
        interpolation=interpolation,
        fill=fill,
        center=center,
    )


def affine_geometry(
    spatial_size: Sequence[int],
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: float | Sequence[float],
    center: Sequence[float] | None = None,
) -> Geometry:
    """The affine warp on the same canvas; boxes clamp their mapped corners to it (as torchvision)."""
    matrix = _affine_geometry(spatial_size, angle, translate, scale, shear, center)
    return Geometry(matrix, (spatial_size[0], spatial_size[1]), clamp="corners")


register_warp_kernels(affine, affine_geometry)


def affine_image_tensor(
    image: torch.Tensor,
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: float | Sequence[float],
    interpolation: Interpolation = InterpolationMode.NEAREST,
    fill: FillArg = None,
    center: Sequence[float] | None = None,
) -> torch.Tensor:
    """Affine warp of a tensor ``[..., C, H, W]`` (nearest or bilinear); identity parameters return
    the input itself."""
    check_spatial(image, "affine")
    geometry = affine_geometry(image.shape[-2:], angle, translate, scale, shear, center)
    return warp_image_tensor(image, geometry, interpolation, fill)


affine_video = video_kernel(affine_image_tensor)


def affine_image_pil(
    image: PIL.Image.Image,
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: float | Sequence[float],
    interpolation: Interpolation = InterpolationMode.NEAREST,
    fill: FillArg = None,
    center: Sequence[float] | None = None,
) -> PIL.Image.Image:
    """Affine warp of a PIL image (nearest, bilinear or bicubic)."""
    geometry = affine_geometry((image.height, image.width), angle, translate, scale, shear, center)
    return warp_image_pil(image, geometry, interpolation, fill)


def affine_mask(
    mask: torch.Tensor,
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: float | Sequence[float],
    fill: FillArg = None,
    center: Sequence[float] | None = None,
) -> torch.Tensor:
    """Affine warp of a mask ``[..., H, W]`` with nearest neighbours."""
    return affine_image_tensor(mask, angle, translate, scale, shear, InterpolationMode.NEAREST, fill, center)


@accepts_canvas_size
def affine_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: float | Sequence[float],
    center: Sequence[float] | None = None,
    clamping_mode: str | None = "soft",
) -> torch.Tensor:
    """Boxes ``[..., 4]`` through an affine warp: the enclosing box of the mapped corners, clamped
    to ``spatial_size`` ``(H, W)`` (as torchvision)."""
    geometry = affine_geometry(spatial_size, angle, translate, scale, shear, center)
    return transform_bounding_box(bounding_box, format, geometry, clamping_mode)


# ---------------------------------------------------------------------------------------- rotate
def rotate(
    inpt: Any,
    angle: float,
    interpolation: InterpolationMode | str | int = InterpolationMode.NEAREST,
    expand: bool = False,
    center: Sequence[float] | None = None,
    fill: FillArg = None,
) -> Any:
    """Rotate counter-clockwise about ``center``; uncovered pixels get ``fill``.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).
            Boxes become the enclosing box of their rotated corners, clamped to the output.
        angle: rotation in degrees, counter-clockwise.
        interpolation: the filter (default nearest); see ``visiontx.functional``.
        expand: grow the output to hold the whole rotated image, the input's centre at its centre
            (boxes then get the new ``spatial_size``); default False keeps the size.
        center: ``(x, y)`` point the rotation turns about; None (default): the image centre.
        fill: value of uncovered pixels (default None: zeros); see ``visiontx.functional``.

    Example:
        >>> F.rotate(image, 30, interpolation="bilinear", expand=True)
    """
    kernel = get_kernel(rotate, type(inpt))
    return kernel(inpt, angle=angle, interpolation=interpolation, expand=expand, center=center, fill=fill)


def rotate_geometry(
    spatial_size: Sequence[int], angle: float, expand: bool = False, center: Sequence[float] | None = None
) -> Geometry:
    """The rotation and its canvas (grown to hold the whole image with ``expand``); boxes clamp their
    mapped corners to it."""
    matrix, out_size = _rotate_geometry(spatial_size, angle, expand, center)
    return Geometry(matrix, out_size, clamp="corners")


register_warp_kernels(rotate, rotate_geometry)


def rotate_image_tensor(
    image: torch.Tensor,
    angle: float,
    interpolation: Interpolation = InterpolationMode.NEAREST,
    expand: bool = False,
    center: Sequence[float] | None = None,
    fill: FillArg = None,
) -> torch.Tensor:
    """Rotate a tensor ``[..., C, H, W]`` (nearest or bilinear). Angle 0 returns the input itself;
    exact quarter turns are ``rot90``s."""
    check_spatial(image, "rotate")
    return warp_image_tensor(image, rotate_geometry(image.shape[-2:], angle, expand, center), interpolation, fill)


rotate_video = video_kernel(rotate_image_tensor)


def rotate_image_pil(
    image: PIL.Image.Image,
    angle: float,
    interpolation: Interpolation = InterpolationMode.NEAREST,
    expand: bool = False,
    center: Sequence[float] | None = None,
    fill: FillArg = None,
) -> PIL.Image.Image:
    """Rotate a PIL image (nearest, bilinear or bicubic)."""
    geometry = rotate_geometry((image.height, image.width), angle, expand, center)
    return warp_image_pil(image, geometry, interpolation, fill)


def rotate_mask(
    mask: torch.Tensor,
    angle: float,
    expand: bool = False,
    center: Sequence[float] | None = None,
    fill: FillArg = None,
) -> torch.Tensor:
    """Rotate a mask ``[..., H, W]`` with nearest neighbours."""
    return rotate_image_tensor(mask, angle, InterpolationMode.NEAREST, expand=expand, center=center, fill=fill)


@accepts_canvas_size
def rotate_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    angle: float,
    expand: bool = False,
    center: Sequence[float] | None = None,
    clamping_mode: str | None = "soft",
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Boxes ``[..., 4]`` through a rotation: the enclosing box of the rotated corners, clamped to
    the output image. Returns ``(boxes, new_spatial_size)``."""
    geometry = rotate_geometry(spatial_size, angle, expand, center)
    return transform_bounding_box(bounding_box, format, geometry, clamping_mode), geometry.canvas_size
