"""The one box path shared by every affine-family op (flip, crop, pad, resize, affine, rotate).

An op describes itself as a 3 x 3 matrix mapping input pixel coordinates to output coordinates;
boxes are converted to XYXY, their four corners mapped, and the enclosing box taken. Axis-aligned
matrices (scale and translate only) skip the corner step: the mapped box is already exact.
"""

from __future__ import annotations

import torch

from ...datapoints import BoundingBoxFormat
from .._meta import _from_xyxy, _to_xyxy


def translation_matrix(dx: float, dy: float) -> list[list[float]]:
    return [[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]


def scale_matrix(sx: float, sy: float) -> list[list[float]]:
    return [[sx, 0.0, 0.0], [0.0, sy, 0.0], [0.0, 0.0, 1.0]]


def transform_boxes(
    boxes: torch.Tensor, format: BoundingBoxFormat | str, matrix: torch.Tensor | list[list[float]]
) -> torch.Tensor:
    """Map boxes ``[..., 4]`` in ``format`` through ``matrix`` (3 x 3 or 2 x 3, input -> output
    coordinates) and return the enclosing axis-aligned boxes in the same format and dtype.

    Float boxes are computed in their own precision (float64 stays float64); integer boxes are
    computed in float32 and rounded back.
    """
    format = BoundingBoxFormat.parse(format)
    dtype = boxes.dtype
    work_dtype = dtype if dtype.is_floating_point else torch.float32
    m = torch.as_tensor(matrix, dtype=torch.float64)[:2].tolist()
    xyxy = _to_xyxy(boxes.to(work_dtype), format)
    (a, b, c), (d, e, f) = m
    if b == 0 and d == 0:  # axis-aligned: map the two corners and reorder
        x = xyxy[..., 0::2] * a + c
        y = xyxy[..., 1::2] * e + f
        out = torch.stack([x.amin(-1), y.amin(-1), x.amax(-1), y.amax(-1)], dim=-1)
    else:
        x1, y1, x2, y2 = xyxy.unbind(-1)
        xs = torch.stack([x1, x2, x2, x1], dim=-1)
        ys = torch.stack([y1, y1, y2, y2], dim=-1)
        mx = xs * a + ys * b + c
        my = xs * d + ys * e + f
        out = torch.stack([mx.amin(-1), my.amin(-1), mx.amax(-1), my.amax(-1)], dim=-1)
    out = _from_xyxy(out, format) if format != BoundingBoxFormat.XYXY else out
    return out if dtype.is_floating_point else out.round_().to(dtype)
