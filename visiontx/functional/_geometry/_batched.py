"""Warps of whole batches, each image through its own 3 x 3 matrix (``PerSample``'s affine family).

Matrices are ``[B, 3, 3]`` float64 tensors on the images' device, built and inverted there (no value
goes back to the host); one batched grid and one sampling call move all ``B`` images, with the torch
sampler of ``_grid`` (the OpenCV wing warps one image per call, so batches skip it).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..._args import FillArg
from .._interpolation import InterpolationMode
from ._grid import batched_matrix_grid, filled, has_no_pixels, image_fill, parse_mode, sample, work_dtype
from ._warp import _solve_coefficients


def eye(size: int, device: torch.device) -> torch.Tensor:
    """``[size, 3, 3]`` identities (float64)."""
    return torch.eye(3, dtype=torch.float64, device=device).expand(size, 3, 3).clone()


def translations(dx: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """``[B, 3, 3]`` shifts by ``(dx, dy)`` (``[B]`` each)."""
    matrices = eye(dx.shape[0], dx.device)
    matrices[:, 0, 2], matrices[:, 1, 2] = dx, dy
    return matrices


def invert(matrices: torch.Tensor) -> torch.Tensor:
    """The inverses of ``[B, 3, 3]`` matrices by cofactors, as ``_matrix.invert`` (no error check on the
    device: a singular matrix gives non-finite entries, whose points get the fill)."""
    (a, b, c), (d, e, f), (g, h, i) = (row.unbind(-1) for row in matrices.unbind(-2))
    cofactors = torch.stack(
        [
            torch.stack([e * i - f * h, c * h - b * i, b * f - c * e], dim=-1),
            torch.stack([f * g - d * i, a * i - c * g, c * d - a * f], dim=-1),
            torch.stack([d * h - e * g, b * g - a * h, a * e - b * d], dim=-1),
        ],
        dim=-2,
    )
    det = a * cofactors[:, 0, 0] + b * cofactors[:, 1, 0] + c * cofactors[:, 2, 0]
    return cofactors / det.view(-1, 1, 1)


def affine_matrices(
    angle: torch.Tensor, translate: torch.Tensor, scale: torch.Tensor, shear: torch.Tensor, center: Sequence[float]
) -> torch.Tensor:
    """``[B, 3, 3]`` input -> output matrices of ``F.affine`` (clockwise ``angle`` in degrees ``[B]``,
    ``translate`` ``[B, 2]``, ``scale`` ``[B]``, ``shear`` ``[B, 2]`` in degrees) about ``center``: the
    products ``_affine_matrix`` forms, entry by entry."""
    radians = torch.deg2rad(angle)
    cos, sin = torch.cos(radians) * scale, torch.sin(radians) * scale
    tan_x, tan_y = torch.tan(torch.deg2rad(shear[:, 0])), torch.tan(torch.deg2rad(shear[:, 1]))
    # rotate @ shear_y @ shear_x, with rotate = [[cos, -sin], [sin, cos]] (scaled),
    # shear_y = [[1, 0], [-tan_y, 1]], shear_x = [[1, -tan_x], [0, 1]]
    a, b = cos + sin * tan_y, -sin
    d, e = sin - cos * tan_y, cos
    linear = torch.stack([torch.stack([a, -a * tan_x + b], -1), torch.stack([d, -d * tan_x + e], -1)], -2)
    cx, cy = float(center[0]), float(center[1])
    matrices = eye(angle.shape[0], angle.device)
    matrices[:, :2, :2] = linear
    matrices[:, 0, 2] = cx + translate[:, 0] - (linear[:, 0, 0] * cx + linear[:, 0, 1] * cy)
    matrices[:, 1, 2] = cy + translate[:, 1] - (linear[:, 1, 0] * cx + linear[:, 1, 1] * cy)
    return matrices


def perspective_inverses(startpoints: torch.Tensor, endpoints: torch.Tensor) -> torch.Tensor:
    """``[B, 3, 3]`` output -> input matrices mapping each sample's 4 ``endpoints`` onto its
    ``startpoints`` (``[B, 4, 2]``): ``F.perspective``'s coefficients, rounded to float32 as torchvision's. On the
    CPU they are ``F.perspective``'s own solve, so each sample's warp is the single transform's to the bit (its
    nearest ties too); on other devices one batched solve there (within a float32 rounding of it)."""
    if startpoints.device.type == "cpu":
        rows = [_solve_coefficients(s, e) + [1.0] for s, e in zip(startpoints.tolist(), endpoints.tolist())]
        return torch.tensor(rows, dtype=torch.float64).view(-1, 3, 3)
    sx, sy = startpoints[..., 0], startpoints[..., 1]
    ex, ey = endpoints[..., 0], endpoints[..., 1]
    zeros, ones = torch.zeros_like(ex), torch.ones_like(ex)
    rows_x = torch.stack([ex, ey, ones, zeros, zeros, zeros, -sx * ex, -sx * ey], dim=-1)
    rows_y = torch.stack([zeros, zeros, zeros, ex, ey, ones, -sy * ex, -sy * ey], dim=-1)
    system = torch.stack([rows_x, rows_y], dim=2).reshape(-1, 8, 8)
    rhs = torch.stack([sx, sy], dim=2).reshape(-1, 8, 1)
    coefficients = torch.linalg.solve_ex(system, rhs)[0][..., 0].to(torch.float32).to(torch.float64)
    return torch.cat([coefficients, torch.ones_like(coefficients[:, :1])], dim=1).view(-1, 3, 3)


def warp_batch(
    images: torch.Tensor,
    inverse: torch.Tensor,
    out_size: Sequence[int],
    interpolation: InterpolationMode | str | int = InterpolationMode.NEAREST,
    fill: FillArg = None,
    projective: bool = False,
    source_box: torch.Tensor | None = None,
) -> torch.Tensor:
    """Sample each image of ``images`` ``[B, ..., H, W]`` through its ``inverse[b]`` (output -> input
    pixel coordinates, ``[B, 3, 3]`` float64) onto ``out_size``; points outside get ``fill``.

    Args:
        projective: use the matrices' last rows (perspective); otherwise they are taken as affine.
        source_box: ``[B, 4]`` ``(x0, y0, x1, y1)`` in input pixel coordinates that source points are
            clamped to (edge pixels repeat, as a resize of a crop does), or None.
    """
    mode, fill_values = parse_mode(interpolation), image_fill(fill, images)
    if has_no_pixels(images, out_size):
        return filled(images, out_size, fill_values)
    in_size = (images.shape[-2], images.shape[-1])
    grid = batched_matrix_grid(inverse, out_size, in_size, work_dtype(images.dtype), projective)
    if source_box is not None:
        bounds = source_box.clone()
        bounds[:, 0::2] *= 2.0 / in_size[1]
        bounds[:, 1::2] *= 2.0 / in_size[0]
        bounds = (bounds - 1.0).to(grid.dtype).view(-1, 1, 1, 4)
        grid = torch.maximum(torch.minimum(grid, bounds[..., 2:]), bounds[..., :2])
    return sample(images, grid, mode, fill_values)


def shrinks_by_two(matrices: torch.Tensor, canvas: Sequence[int]) -> torch.Tensor:
    """``[B]``: whether each input -> output map shrinks its input by 2 or more along an axis at the
    canvas centre (where ``_generic.block_factors`` gives an antialiased warp blocks to average first)."""
    (a, b, c), (d, e, f), (g, h, i) = (row.unbind(-1) for row in invert(matrices).unbind(-2))
    y, x = canvas[0] / 2, canvas[1] / 2
    w = g * x + h * y + i
    u, v = (a * x + b * y + c) / w, (d * x + e * y + f) / w
    shrink_x = torch.hypot(a - g * u, b - h * u) / w.abs()
    shrink_y = torch.hypot(d - g * v, e - h * v) / w.abs()
    return (w.abs() >= 1e-12) & ((shrink_x >= 2) | (shrink_y >= 2))
