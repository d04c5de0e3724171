"""The one box path shared by every affine-family op (flip, crop, pad, resize, affine, rotate).

An op describes itself as a 3 x 3 matrix mapping input pixel coordinates to output coordinates;
boxes are converted to XYXY, their four corners mapped, and the enclosing box taken. Axis-aligned
matrices (scale and translate only: flips, crops, pads, resizes) skip the corner step, the mapped box
is already exact, and XYWH / CXCYWH boxes skip the format round trip too (two element-wise ops; for
float32 / float64 boxes). A matrix whose last row is not ``[0, 0, 1]`` is projective (perspective):
mapped corners are divided by it.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ...datapoints import BoundingBoxFormat
from .._dtype import coordinate_dtype
from .._meta import _clamp_xyxy_, _from_xyxy, _to_xyxy


def translation_matrix(dx: float, dy: float) -> list[list[float]]:
    return [[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]


def scale_matrix(sx: float, sy: float) -> list[list[float]]:
    return [[sx, 0.0, 0.0], [0.0, sy, 0.0], [0.0, 0.0, 1.0]]


def compose(*matrices: list[list[float]]) -> list[list[float]]:
    """The 3 x 3 product ``matrices[0] @ matrices[1] @ ...`` (apply the last one first)."""
    p, q, r, s, t, u, v, w, x = 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0  # the product so far, row by row
    for (a, b, c), (d, e, f), (g, h, i) in matrices:
        # each entry summed as sum() would, from 0 and left to right (same floats, signed zeros too)
        p, q, r = 0 + p * a + q * d + r * g, 0 + p * b + q * e + r * h, 0 + p * c + q * f + r * i
        s, t, u = 0 + s * a + t * d + u * g, 0 + s * b + t * e + u * h, 0 + s * c + t * f + u * i
        v, w, x = 0 + v * a + w * d + x * g, 0 + v * b + w * e + x * h, 0 + v * c + w * f + x * i
    return [[p, q, r], [s, t, u], [v, w, x]]


def invert(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a 3 x 3 matrix; ``ValueError`` when it is singular."""
    (a, b, c), (d, e, f), (g, h, i) = matrix
    cofactors = [
        [e * i - f * h, c * h - b * i, b * f - c * e],
        [f * g - d * i, a * i - c * g, c * d - a * f],
        [d * h - e * g, b * g - a * h, a * e - b * d],
    ]
    det = a * cofactors[0][0] + b * cofactors[1][0] + c * cofactors[2][0]
    if det == 0:
        raise ValueError(f"the transform matrix {matrix} is singular and cannot be inverted")
    return [[v / det for v in row] for row in cofactors]


def _map_corners(xyxy: torch.Tensor, m: list[list[float]]) -> torch.Tensor:
    (a, b, c), (d, e, f), (g, h, i) = m
    x1, y1, x2, y2 = xyxy.unbind(-1)
    xs = torch.stack([x1, x2, x2, x1], dim=-1)
    ys = torch.stack([y1, y1, y2, y2], dim=-1)
    mx = xs * a + ys * b + c
    my = xs * d + ys * e + f
    if (g, h, i) != (0.0, 0.0, 1.0):  # projective
        w = xs * g + ys * h + i
        mx, my = mx / w, my / w
    return torch.stack([mx.amin(-1), my.amin(-1), mx.amax(-1), my.amax(-1)], dim=-1)


# XYXY column order after an axis-aligned map, by (x scale < 0, y scale < 0): a mirrored axis swaps its pair.
_SWAPS = {
    (True, False): torch.tensor([2, 1, 0, 3]),
    (False, True): torch.tensor([0, 3, 2, 1]),
    (True, True): torch.tensor([2, 3, 0, 1]),
}


def _map_axis_aligned(
    boxes: torch.Tensor, format: BoundingBoxFormat, a: float, c: float, e: float, f: float
) -> torch.Tensor:
    """Boxes (float32 / float64) in their own ``format`` through ``x -> a x + c``, ``y -> e y + f``, in
    two element-wise ops: XYXY corners map to corners (a mirrored axis swaps its pair); XYWH / CXCYWH
    points map and sizes scale by ``|a|`` and ``|e|`` (along a mirrored axis, XYWH's top-left comes
    from the far corner)."""
    xyxy = format == BoundingBoxFormat.XYXY
    scale = [a, e, a, e] if xyxy else [a, e, abs(a), abs(e)]
    offset = [c, f, c, f] if xyxy else [c, f, 0.0, 0.0]
    out = boxes.mul(torch.tensor(scale, dtype=boxes.dtype, device=boxes.device))
    out.add_(torch.tensor(offset, dtype=boxes.dtype, device=boxes.device))
    if xyxy:
        swap = _SWAPS.get((a < 0, e < 0))
        return out if swap is None else out.index_select(-1, swap.to(out.device))
    if format == BoundingBoxFormat.XYWH:
        for axis, factor, shift in ((0, a, c), (1, e, f)):
            if factor < 0:  # the far corner, x + w, maps to the new top-left
                out[..., axis] = (boxes[..., axis] + boxes[..., axis + 2]) * factor + shift
    return out


def _rows(matrix: torch.Tensor | list[list[float]]) -> list[list[float]]:
    """A 2 x 3 or 3 x 3 matrix as three rows of floats (a plain list: cheaper than a tensor round trip)."""
    if isinstance(matrix, torch.Tensor):
        rows = matrix.to(torch.float64).tolist()
    else:
        rows = [[float(v) for v in row] for row in matrix]
    return rows if len(rows) == 3 else [*rows, [0.0, 0.0, 1.0]]


def transform_boxes(
    boxes: torch.Tensor,
    format: BoundingBoxFormat | str,
    matrix: torch.Tensor | list[list[float]],
    *,
    clamp_to: Sequence[int] | None = None,
) -> torch.Tensor:
    """Map boxes ``[..., 4]`` in ``format`` through ``matrix`` (3 x 3 or 2 x 3, input -> output
    coordinates) and return the enclosing axis-aligned boxes in the same format and dtype.

    ``clamp_to`` ``(H, W)``: clamp the result to an image of that size (before rounding).
    Boxes are computed in :func:`coordinate_dtype`'s precision (float64 stays float64, half precision and
    integers up to 16 bits in float32, int32 and int64 in float64), integer ones rounded back.
    """
    format = BoundingBoxFormat.parse(format)
    dtype = boxes.dtype
    m = _rows(matrix)
    work = boxes.to(coordinate_dtype(dtype))  # not modified below: no copy needed for XYXY boxes
    (a, b, c), (d, e, f), last = m
    axis_aligned = b == 0 and d == 0 and last == [0.0, 0.0, 1.0]
    if axis_aligned and clamp_to is None:  # no format round trip
        return _rounded_to(_map_axis_aligned(work, format, a, c, e, f), dtype)
    xyxy = work if format == BoundingBoxFormat.XYXY else _to_xyxy(work, format)
    out = _map_axis_aligned(xyxy, BoundingBoxFormat.XYXY, a, c, e, f) if axis_aligned else _map_corners(xyxy, m)
    if clamp_to is not None:
        _clamp_xyxy_(out, clamp_to[0], clamp_to[1])
    return _rounded_to(_from_xyxy(out, format) if format != BoundingBoxFormat.XYXY else out, dtype)


def _rounded_to(coordinates: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Computed coordinates back in ``dtype``: floats cast (rounded once), integers rounded to the nearest."""
    return coordinates.to(dtype) if dtype.is_floating_point else coordinates.round_().to(dtype)


def transform_points(
    points: torch.Tensor, matrix: torch.Tensor | list[list[float]], *, offset: float = 0.0
) -> torch.Tensor:
    """Map points ``[..., 2]`` ``(x, y)`` through ``matrix`` (3 x 3 or 2 x 3; projective when its last
    row is not ``[0, 0, 1]``), as ``matrix(p + offset) - offset``. Float points keep their precision
    (half precision computes in float32); integer points are computed in float32 (float64 for int32 and
    int64) and rounded back."""
    dtype = points.dtype
    (a, b, c), (d, e, f), (g, h, i) = _rows(matrix)
    x, y = (points.to(coordinate_dtype(dtype)) + offset).unbind(-1)
    mx = x * a + y * b + c
    my = x * d + y * e + f
    if (g, h, i) != (0.0, 0.0, 1.0):  # projective
        w = x * g + y * h + i
        mx, my = mx / w, my / w
    return _rounded_to(torch.stack([mx, my], dim=-1).sub_(offset), dtype)
