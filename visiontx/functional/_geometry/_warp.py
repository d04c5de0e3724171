"""Perspective and elastic warps for every input type, with torchvision v2's signatures.

Perspective ``coefficients`` ``[a, b, c, d, e, f, g, h]`` map an output point ``(x, y)`` to the input
point ``((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1))`` (PIL's convention,
continuous pixel coordinates). Elastic ``displacement`` ``1 x H x W x 2`` is added to the identity
sampling grid, in ``grid_sample``'s normalised ``[-1, 1]`` units (torchvision's convention).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import PIL.Image
import torch

from ..._names import accepts_canvas_size, video_kernel
from ...datapoints import BoundingBoxFormat, Image, Video
from .. import _cv2
from .._checks import check_spatial
from .._interpolation import InterpolationMode
from .._meta import _clamp_xyxy_, _from_xyxy, _to_xyxy, clamp_bounding_box_tensor, convert_format_bounding_box_tensor
from .._registry import get_kernel, register_geometry_kernel, register_kernels, register_mask_kernel
from ._description import Geometry, register_geometry, transform_bounding_box
from ._grid import (
    FillArg, filled, has_no_pixels, image_fill, matrix_grid, on_bytes, parse_mode, pil_fill, sample, samples_as_bytes,
    work_dtype,
)
from ._matrix import invert, transform_boxes

__all__ = [
    "elastic",
    "elastic_bounding_box",
    "elastic_image_pil",
    "elastic_image_tensor",
    "elastic_mask",
    "elastic_video",
    "perspective",
    "perspective_bounding_box",
    "perspective_image_pil",
    "perspective_image_tensor",
    "perspective_mask",
    "perspective_video",
]

Points = Sequence[Sequence[float]]
_IDENTITY = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]


# ----------------------------------------------------------------------------------- perspective
def _check_points(points: Any, name: str) -> list[list[float]]:
    try:
        values = [[float(v) for v in point] for point in points]
    except (TypeError, ValueError):
        values = []
    if len(values) != 4 or any(len(point) != 2 for point in values):
        raise ValueError(f"{name} must be 4 points of 2 coordinates, got {points!r}")
    return values


# np.linalg.matrix_rank's default tolerance for an 8 x 8 float64 matrix, relative to its largest singular value
_RANK_TOLERANCE = 8 * np.finfo(np.float64).eps


def _full_rank(a: np.ndarray) -> bool:
    """``np.linalg.matrix_rank(a) == 8`` for the 8 x 8 ``a``: the same singular values and comparisons
    (a NaN among them fails), less that function's generic steps (half its time at this size)."""
    singular = np.linalg.svd(a, compute_uv=False).tolist()
    tolerance = max(singular) * _RANK_TOLERANCE
    return all(value > tolerance for value in singular)


def _no_three_collinear(points: list[list[float]]) -> bool:
    """Whether no three of the 4 ``points`` lie on one line (nor two coincide): the identity's own test."""
    for i, j, k in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)):
        (xi, yi), (xj, yj), (xk, yk) = points[i], points[j], points[k]
        if (xj - xi) * (yk - yi) == (yj - yi) * (xk - xi):
            return False
    return True


def _solve_coefficients(startpoints: Points, endpoints: Points) -> list[float]:
    """Coefficients mapping each end point (output) onto its start point (input)."""
    start, end = _check_points(startpoints, "startpoints"), _check_points(endpoints, "endpoints")
    if start == end and _no_three_collinear(start):
        return list(_IDENTITY)
    rows, rhs = [], []  # rows: the 8 x 8 system, row after row
    for (sx, sy), (ex, ey) in zip(start, end):
        rows += [ex, ey, 1.0, 0.0, 0.0, 0.0, -sx * ex, -sx * ey, 0.0, 0.0, 0.0, ex, ey, 1.0, -sy * ex, -sy * ey]
        rhs += [sx, sy]
    # 8 equations, 8 unknowns: numpy's LU solve on the host (cheaper than torch's lstsq for so small a system)
    a, b = np.array(rows, dtype=np.float64).reshape(8, 8), np.array(rhs, dtype=np.float64)
    solution = np.linalg.solve(a, b) if _full_rank(a) else None
    if solution is None or not np.isfinite(solution).all():
        raise ValueError("startpoints and endpoints must each be 4 points in general position")
    with np.errstate(over="ignore"):  # rounded to float32, as torchvision's coefficients (huge ones: inf, as torch)
        return solution.astype(np.float32).tolist()


def _perspective_coefficients(
    startpoints: Points | None, endpoints: Points | None, coefficients: Sequence[float] | None = None
) -> list[float]:
    """The 8 coefficients of a perspective warp, from ``coefficients`` or from the 4 ``startpoints``
    (input corners) that move to ``endpoints`` (output corners)."""
    if coefficients is not None:
        if startpoints is not None or endpoints is not None:
            raise ValueError("give either startpoints and endpoints or coefficients, not both")
        values = [float(c) for c in coefficients] if isinstance(coefficients, Sequence) else []
        if len(values) != 8:
            raise ValueError(f"coefficients must be 8 numbers, got {coefficients!r}")
        return values
    if startpoints is None or endpoints is None:
        raise ValueError("startpoints and endpoints (or coefficients) must be given")
    return _solve_coefficients(startpoints, endpoints)


def _coefficient_matrix(coefficients: list[float]) -> list[list[float]]:
    a, b, c, d, e, f, g, h = coefficients
    return [[a, b, c], [d, e, f], [g, h, 1.0]]


def perspective(
    inpt: Any,
    startpoints: Points | None,
    endpoints: Points | None,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    fill: FillArg = None,
    coefficients: Sequence[float] | None = None,
) -> Any:
    """Perspective warp moving 4 points of the input onto 4 points of the output; the size is unchanged.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).
            Boxes become the enclosing box of their mapped corners, clamped to the image.
        startpoints: 4 ``[x, y]`` points of the input (top-left, top-right, bottom-right, bottom-left),
            in general position; None when ``coefficients`` are given.
        endpoints: the 4 ``[x, y]`` points of the output they move to; None when ``coefficients`` are given.
        interpolation: the filter (default bilinear); see ``visiontx.functional``.
        fill: value of uncovered pixels (default None: zeros); see ``visiontx.functional``.
        coefficients: instead of the points, the 8 coefficients ``a..h`` of the map from an output point
            ``(x, y)`` to the input point ``((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1))``.

    Example:
        >>> F.perspective(image, [[0, 0], [99, 0], [99, 99], [0, 99]], [[5, 3], [90, 0], [99, 99], [0, 95]])
    """
    kernel = get_kernel(perspective, type(inpt))
    return kernel(
        inpt,
        startpoints=startpoints,
        endpoints=endpoints,
        interpolation=interpolation,
        fill=fill,
        coefficients=coefficients,
    )


@register_kernels(perspective, (torch.Tensor, Image, Video))
def perspective_image_tensor(
    image: torch.Tensor,
    startpoints: Points | None,
    endpoints: Points | None,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    fill: FillArg = None,
    coefficients: Sequence[float] | None = None,
) -> torch.Tensor:
    """Perspective warp of a tensor ``[..., C, H, W]`` (nearest or bilinear)."""
    check_spatial(image, "perspective")
    values = _perspective_coefficients(startpoints, endpoints, coefficients)
    mode, fill_values = parse_mode(interpolation), image_fill(fill, image)
    if samples_as_bytes(image, mode, fill_values):
        return on_bytes(image, lambda byte_view: perspective_image_tensor(byte_view, None, None, mode, fill_values,
                                                                           values))
    if values == _IDENTITY:
        return image
    if has_no_pixels(image, image.shape[-2:]):
        return filled(image, image.shape[-2:], fill_values)
    matrix, size = _coefficient_matrix(values), image.shape[-2:]
    if _cv2.can_warp(image, mode, fill_values):
        return _cv2.warp(image, matrix, size, fill_values)
    # torchvision's perspective grid, also where the coefficients make an affine map
    if mode == InterpolationMode.NEAREST and _cv2.can_remap_nearest(image, fill_values):
        return _cv2.warp_nearest(image, matrix, size, fill_values, projective=True)
    grid = matrix_grid(matrix, size, size, work_dtype(image.dtype), image.device, projective=True)
    return sample(image, grid, mode, fill_values)


perspective_video = video_kernel(perspective_image_tensor)


@register_kernels(perspective, PIL.Image.Image)
def perspective_image_pil(
    image: PIL.Image.Image,
    startpoints: Points | None,
    endpoints: Points | None,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    fill: FillArg = None,
    coefficients: Sequence[float] | None = None,
) -> PIL.Image.Image:
    """Perspective warp of a PIL image (nearest, bilinear or bicubic)."""
    values = _perspective_coefficients(startpoints, endpoints, coefficients)
    mode, color = parse_mode(interpolation, pil=True), pil_fill(image, fill)
    return image.transform(image.size, PIL.Image.Transform.PERSPECTIVE, values, resample=mode.pil, fillcolor=color)


def perspective_mask(
    mask: torch.Tensor,
    startpoints: Points | None,
    endpoints: Points | None,
    fill: FillArg = None,
    coefficients: Sequence[float] | None = None,
) -> torch.Tensor:
    """Perspective warp of a mask ``[..., H, W]`` with nearest neighbours."""
    return perspective_image_tensor(mask, startpoints, endpoints, InterpolationMode.NEAREST, fill, coefficients)


register_mask_kernel(perspective, perspective_mask)


def perspective_geometry(
    spatial_size: Sequence[int],
    startpoints: Points | None,
    endpoints: Points | None,
    coefficients: Sequence[float] | None = None,
) -> Geometry:
    """The projective map (the inverse of the coefficients, which map output -> input) on the same
    canvas; boxes clamp their mapped corners to it."""
    values = _perspective_coefficients(startpoints, endpoints, coefficients)
    forward = invert(_coefficient_matrix(values))
    return Geometry(forward, (spatial_size[0], spatial_size[1]), clamp="corners")


register_geometry(perspective, perspective_geometry, sampling=("interpolation", "fill"))


@accepts_canvas_size
def perspective_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    startpoints: Points | None,
    endpoints: Points | None,
    coefficients: Sequence[float] | None = None,
    clamping_mode: str | None = "soft",
) -> torch.Tensor:
    """Boxes ``[..., K]`` through a perspective warp: the enclosing box of the mapped corners (rotated
    boxes: torchvision's rectangle of them), clamped to ``spatial_size`` ``(H, W)``."""
    geometry = perspective_geometry(spatial_size, startpoints, endpoints, coefficients)
    return transform_bounding_box(bounding_box, format, geometry, clamping_mode)


# --------------------------------------------------------------------------------------- elastic
def _check_displacement(displacement: Any, size: Sequence[int]) -> torch.Tensor:
    if not isinstance(displacement, torch.Tensor):
        raise TypeError(f"displacement must be a tensor, got {type(displacement).__name__}")
    expected = (1, size[0], size[1], 2)
    if tuple(displacement.shape) != expected:
        raise ValueError(f"displacement must have shape {expected}, got {tuple(displacement.shape)}")
    return displacement


def _identity_axes(size: Sequence[int], dtype: torch.dtype, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """The normalised x of each column and y of each row of the pixel centers."""
    height, width = size
    xs = torch.arange(width, dtype=dtype, device=device).mul_(2.0 / width).add_(1.0 / width - 1.0)
    ys = torch.arange(height, dtype=dtype, device=device).mul_(2.0 / height).add_(1.0 / height - 1.0)
    return xs, ys


def _identity_grid(size: Sequence[int], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """``(H, W, 2)`` normalised coordinates of the pixel centers."""
    height, width = size
    grid = torch.empty((height, width, 2), dtype=dtype, device=device)
    xs, ys = _identity_axes(size, dtype, device)
    grid[..., 0] = xs
    grid[..., 1] = ys[:, None]
    return grid


def elastic(
    inpt: Any,
    displacement: torch.Tensor,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    fill: FillArg = None,
) -> Any:
    """Elastic warp: each output pixel samples the input at its own position plus a displacement.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).
            Box corners move by minus the displacement at them (an approximate inverse, as
            torchvision); the enclosing box is clamped to the image.
        displacement: tensor ``[1, H, W, 2]`` of ``(dx, dy)`` per output pixel ``(i, j)``, in units where
            the image spans ``[-1, 1]`` (2 / W and 2 / H per pixel).
        interpolation: the filter (default bilinear; bicubic too, as torchvision's ``grid_sample``);
            see ``visiontx.functional``.
        fill: value of pixels sampled outside the input (default None: zeros); see ``visiontx.functional``.

    Example:
        >>> F.elastic(image, displacement=0.05 * torch.randn(1, H, W, 2))
    """
    kernel = get_kernel(elastic, type(inpt))
    return kernel(inpt, displacement=displacement, interpolation=interpolation, fill=fill)


@register_kernels(elastic, (torch.Tensor, Image, Video))
def elastic_image_tensor(
    image: torch.Tensor,
    displacement: torch.Tensor,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    fill: FillArg = None,
) -> torch.Tensor:
    """Elastic warp of a tensor ``[..., C, H, W]`` (nearest, bilinear or bicubic: ``grid_sample``'s,
    as torchvision, whose overshoot integer images saturate)."""
    check_spatial(image, "elastic")
    return sample_displaced(image, _check_displacement(displacement, image.shape[-2:]), interpolation, fill)


def sample_displaced(
    images: torch.Tensor,
    displacement: torch.Tensor,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    fill: FillArg = None,
) -> torch.Tensor:
    """``images`` ``[..., H, W]`` sampled at the identity grid moved by ``displacement`` (normalised units):
    ``[1, H, W, 2]`` for every image (OpenCV's remap where it can), or ``[B, H, W, 2]``, one per image of
    ``images`` ``[B, ..., H, W]`` (one batched sampling)."""
    size = images.shape[-2:]
    mode, fill_values = parse_mode(interpolation, bicubic=True), image_fill(fill, images)
    if samples_as_bytes(images, mode, fill_values):
        return on_bytes(images, lambda as_bytes: sample_displaced(as_bytes, displacement, mode, fill_values))
    if has_no_pixels(images, size):
        return filled(images, size, fill_values)
    dtype = work_dtype(images.dtype)
    displacement = displacement.to(dtype=dtype, device=images.device)
    if displacement.shape[0] == 1 and dtype == torch.float32 and _cv2.can_warp(images, mode, fill_values):
        return _cv2.remap(images, _displaced_points(size, displacement[0]), fill_values)
    grid = _identity_grid(size, dtype, images.device)
    if displacement.shape[0] != 1:
        return sample(images, grid[None] + displacement, mode, fill_values)
    return sample(images, grid.add_(displacement[0]), mode, fill_values)


def _displaced_points(size: Sequence[int], displacement: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The source columns and rows of the identity grid moved by float32 ``displacement`` ``(H, W, 2)``, axis by
    axis: the values of ``_identity_grid(size) + displacement`` turned into pixels (``_cv2.pixel_points``), without
    building the interleaved grid (each axis one contiguous plane: a planar displacement's component is read
    straight)."""
    height, width = size
    identity = _identity_axes(size, torch.float32, displacement.device)
    return tuple(  # type: ignore[return-value]
        _cv2.pixel_points(torch.add(displacement[..., i], axis).numpy(), extent)
        for i, (axis, extent) in enumerate(zip((identity[0][None, :], identity[1][:, None]), (width, height)))
    )


elastic_video = video_kernel(elastic_image_tensor)


@register_kernels(elastic, PIL.Image.Image)
def elastic_image_pil(
    image: PIL.Image.Image,
    displacement: torch.Tensor,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    fill: FillArg = None,
) -> PIL.Image.Image:
    """Elastic warp of a PIL image (through the tensor kernel; nearest, bilinear or bicubic)."""
    array = np.asarray(image)
    tensor = torch.from_numpy(array.copy())
    tensor = tensor.permute(2, 0, 1) if tensor.ndim == 3 else tensor[None]
    output = elastic_image_tensor(tensor, displacement, interpolation, fill)
    output = output.permute(1, 2, 0) if array.ndim == 3 else output[0]
    return PIL.Image.fromarray(output.numpy())


def elastic_mask(mask: torch.Tensor, displacement: torch.Tensor, fill: FillArg = None) -> torch.Tensor:
    """Elastic warp of a mask ``[..., H, W]`` with nearest neighbours."""
    return elastic_image_tensor(mask, displacement, InterpolationMode.NEAREST, fill)


register_mask_kernel(elastic, elastic_mask)


def follow_inverse_displacement(
    xs: torch.Tensor, ys: torch.Tensor, displacement: torch.Tensor, dtype: torch.dtype
) -> torch.Tensor:
    """Where the pixels ``(xs, ys)`` (in-range indices) go under an elastic warp, as torchvision moves
    points: by minus the ``1 x H x W x 2`` displacement there. Returns ``[..., 2]`` pixel coordinates."""
    height, width = displacement.shape[1:3]
    inverse = _identity_grid((height, width), dtype, xs.device)
    inverse = inverse.sub_(displacement[0].to(dtype=dtype, device=xs.device))
    half_size = torch.tensor([width / 2, height / 2], dtype=dtype, device=xs.device)
    return inverse[ys, xs].add_(1.0).mul_(half_size).sub_(0.5)


@accepts_canvas_size
def elastic_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    displacement: torch.Tensor,
    clamping_mode: str | None = "soft",
) -> torch.Tensor:
    """Boxes ``[..., K]`` through an elastic warp, as torchvision: each corner (rounded up to a
    pixel) moves by minus the displacement there; the enclosing box is clamped to the image. A rotated
    box moves its centre so and keeps its size and angle. ``clamping_mode`` None leaves them unclamped."""
    displacement = _check_displacement(displacement, spatial_size)
    format = BoundingBoxFormat.parse(format)
    if format.is_rotated:
        return _elastic_rotated(bounding_box, format, spatial_size, displacement, clamping_mode)
    height, width = spatial_size
    clamp_to = spatial_size if clamping_mode is not None else None
    if height == 0 or width == 0:  # no displacement to follow: only clamp to the (empty) image
        return transform_boxes(bounding_box, format, _coefficient_matrix(_IDENTITY), clamp_to=clamp_to)
    dtype = bounding_box.dtype if bounding_box.is_floating_point() else torch.float32
    xyxy = _to_xyxy(bounding_box.to(dtype), format)
    x1, y1, x2, y2 = xyxy.ceil().long().unbind(-1)
    xs = torch.stack([x1, x2, x2, x1], dim=-1).clamp_(0, width - 1)
    ys = torch.stack([y1, y1, y2, y2], dim=-1).clamp_(0, height - 1)
    points = follow_inverse_displacement(xs, ys, displacement, dtype)
    out = torch.cat([points.amin(-2), points.amax(-2)], dim=-1)
    if clamp_to is not None:
        _clamp_xyxy_(out, height, width)
    out = _from_xyxy(out, format) if format != BoundingBoxFormat.XYXY else out
    return out if bounding_box.is_floating_point() else out.round_().to(bounding_box.dtype)


def _elastic_rotated(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat,
    spatial_size: Sequence[int],
    displacement: torch.Tensor,
    clamping_mode: str | None,
) -> torch.Tensor:
    """Rotated boxes through an elastic warp: the centre follows the displacement, size and angle stay."""
    height, width = spatial_size
    centred = convert_format_bounding_box_tensor(bounding_box, format, BoundingBoxFormat.CXCYWHR)
    if height > 0 and width > 0:
        index = centred[..., :2].ceil().long()
        xs, ys = index[..., 0].clamp(0, width - 1), index[..., 1].clamp(0, height - 1)
        centred[..., :2] = follow_inverse_displacement(xs, ys, displacement, centred.dtype)
    clamped = clamp_bounding_box_tensor(centred, BoundingBoxFormat.CXCYWHR, spatial_size, clamping_mode)
    return convert_format_bounding_box_tensor(clamped, BoundingBoxFormat.CXCYWHR, format)


@register_geometry_kernel(elastic)
def _elastic_bounding_box_kernel(
    bounding_box: torch.Tensor,
    displacement: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    clamping_mode: str | None = "soft",
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    fill: FillArg = None,
) -> tuple[torch.Tensor, tuple[int, int]]:
    """elastic has no matrix: its boxes follow the displacement itself, on the same canvas."""
    moved = elastic_bounding_box(bounding_box, format, spatial_size, displacement, clamping_mode)
    return moved, (spatial_size[0], spatial_size[1])
