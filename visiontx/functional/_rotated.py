"""Rotated boxes: the three rotated formats, their corners, and rectangles from mapped corners.

A rotated box is the rectangle with first corner ``p1 = (x1, y1)``, an edge of length ``w`` along
``u = (cos r, -sin r)`` and one of length ``h`` along ``v = (sin r, cos r)`` (``r`` in degrees,
counter-clockwise as seen on the image, torchvision's convention): ``XYXYXYXY`` lists
``p1, p1 + w u, p1 + w u + h v, p1 + h v``. Everything here works on plain float tensors with any
leading dims.
"""

from __future__ import annotations

import math

import torch

from ..datapoints import BoundingBoxFormat

_XYWHR, _CXCYWHR, _CORNERS = BoundingBoxFormat.XYWHR, BoundingBoxFormat.CXCYWHR, BoundingBoxFormat.XYXYXYXY


def directions(angle_degrees: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(cos r, sin r)`` of angles in degrees: a box's first edge runs along ``(cos r, -sin r)``."""
    radians = angle_degrees * (math.pi / 180.0)
    return radians.cos(), radians.sin()


def xywhr_to_corners(boxes: torch.Tensor) -> torch.Tensor:
    """``XYWHR`` ``[..., 5]`` -> ``XYXYXYXY`` ``[..., 8]``."""
    x1, y1, w, h, angle = boxes.unbind(-1)
    cos, sin = directions(angle)
    x2, y2 = x1 + w * cos, y1 - w * sin
    x4, y4 = x1 + h * sin, y1 + h * cos
    x3, y3 = x1 + (w * cos + h * sin), y1 - (w * sin - h * cos)
    return torch.stack([x1, y1, x2, y2, x3, y3, x4, y4], dim=-1)


def corners_to_xywhr(corners: torch.Tensor, flat_angle: torch.Tensor | None = None) -> torch.Tensor:
    """``XYXYXYXY`` ``[..., 8]`` -> ``XYWHR`` ``[..., 5]``: the first corner, ``w = |p2 - p1|``,
    ``h = |p3 - p2|`` and the angle of the first edge, in ``(-180, 180]``. A box of zero width has no first
    edge to turn: its angle is ``flat_angle`` where given, else 0 (torchvision's conversion)."""
    x1, y1, x2, y2, x3, y3 = corners[..., :6].unbind(-1)
    angle = torch.atan2(y1 - y2, x2 - x1) * (180.0 / math.pi)
    width = torch.hypot(x2 - x1, y2 - y1)
    height = torch.hypot(x3 - x2, y3 - y2)
    if flat_angle is not None:
        angle = torch.where(width == 0, flat_angle.to(angle.dtype), angle)
    return torch.stack([x1, y1, width, height, angle], dim=-1)


def _shift_centre(boxes: torch.Tensor, sign: float) -> torch.Tensor:
    """``XYWHR`` <-> ``CXCYWHR``: move the reference point by ``sign`` times half the diagonal."""
    x, y, w, h, angle = boxes.unbind(-1)
    cos, sin = directions(angle)
    half_w, half_h = w.abs() / 2, h.abs() / 2
    x = x + sign * (half_w * cos + half_h * sin)
    y = y + sign * (half_h * cos - half_w * sin)
    return torch.stack([x, y, w, h, angle], dim=-1)


def rotated_to_corners(boxes: torch.Tensor, format: BoundingBoxFormat) -> torch.Tensor:
    """Rotated boxes in ``format`` as their four corners ``[..., 8]`` (a new tensor)."""
    if format == _CORNERS:
        return boxes.clone()
    xywhr = _shift_centre(boxes, -1.0) if format == _CXCYWHR else boxes
    return xywhr_to_corners(xywhr)


def corners_to_rotated(
    corners: torch.Tensor, format: BoundingBoxFormat, flat_angle: torch.Tensor | None = None
) -> torch.Tensor:
    """Four corners ``[..., 8]`` as rotated boxes in ``format`` (a new tensor; ``flat_angle``: the angle of
    those of zero width, see :func:`corners_to_xywhr`)."""
    if format == _CORNERS:
        return corners.clone()
    xywhr = corners_to_xywhr(corners, flat_angle)
    return _shift_centre(xywhr, 1.0) if format == _CXCYWHR else xywhr


def convert_rotated(boxes: torch.Tensor, old_format: BoundingBoxFormat, new_format: BoundingBoxFormat) -> torch.Tensor:
    """Between the rotated formats, as torchvision 0.29 converts."""
    if {old_format, new_format} == {_XYWHR, _CXCYWHR}:
        return _shift_centre(boxes, 1.0 if new_format == _CXCYWHR else -1.0)
    return corners_to_rotated(rotated_to_corners(boxes, old_format), new_format)


def corners_to_xyxy(corners: torch.Tensor) -> torch.Tensor:
    """The enclosing axis-aligned ``XYXY`` box of four corners ``[..., 8]``."""
    xs, ys = corners[..., 0::2], corners[..., 1::2]
    return torch.stack([xs.amin(-1), ys.amin(-1), xs.amax(-1), ys.amax(-1)], dim=-1)


def xyxy_to_corners(xyxy: torch.Tensor) -> torch.Tensor:
    """Axis-aligned ``XYXY`` boxes as the corners of a rotated box of angle 0."""
    x1, y1, x2, y2 = xyxy.unbind(-1)
    return torch.stack([x1, y1, x2, y1, x2, y2, x1, y2], dim=-1)


def reverse_orientation(corners: torch.Tensor) -> torch.Tensor:
    """Corners after a mirroring map, re-listed so that they describe a box again (``p2, p1, p4, p3``)."""
    return corners[..., [2, 3, 0, 1, 6, 7, 4, 5]]


def enclosing_rectangle(corners: torch.Tensor) -> torch.Tensor:
    """The smallest rotated box around a parallelogram ``[..., 8]`` (the image of a box under an affine
    map), as corners: aligned with its longer edge, first corner where the input's was."""
    points = corners.unflatten(-1, (4, 2))
    edge_w, edge_h = points[..., 1, :] - points[..., 0, :], points[..., 3, :] - points[..., 0, :]
    along_w = edge_w.norm(dim=-1) >= edge_h.norm(dim=-1)
    # the direction u of the w edge: edge_w itself, or edge_h turned by -90 degrees (v = (sin, cos) -> u)
    u = torch.where(along_w[..., None], edge_w, torch.stack([edge_h[..., 1], -edge_h[..., 0]], dim=-1))
    angle = torch.atan2(-u[..., 1], u[..., 0])
    cos, sin = angle.cos(), angle.sin()
    along_u = points[..., 0] * cos[..., None] - points[..., 1] * sin[..., None]
    along_v = points[..., 0] * sin[..., None] + points[..., 1] * cos[..., None]
    u_min, v_min = along_u.amin(-1), along_v.amin(-1)
    x1, y1 = u_min * cos + v_min * sin, v_min * cos - u_min * sin
    width, height = along_u.amax(-1) - u_min, along_v.amax(-1) - v_min
    return xywhr_to_corners(torch.stack([x1, y1, width, height, angle * (180.0 / math.pi)], dim=-1))


def torchvision_rectangle(corners: torch.Tensor) -> torch.Tensor:
    """The rectangle torchvision 0.29 makes of four mapped corners ``[..., 8]`` (under a perspective):
    centred on the middle of the ``p1 p3`` diagonal, sized and turned from the two edges at ``p1``."""
    x1, y1, x2, y2, x3, y3, x4, y4 = corners.unbind(-1)
    cx, cy = (x1 + x3) / 2, (y1 + y3) / 2
    len_w, len_h = torch.hypot(x2 - x1, y2 - y1), torch.hypot(x4 - x1, y4 - y1)
    angle_w, angle_h = torch.atan2(y1 - y2, x2 - x1), torch.atan2(y1 - y4, x4 - x1)
    between = angle_w - angle_h
    sign = torch.where(between > math.pi / 2, -1.0, 1.0)
    cos_b, sin_b = between.cos(), between.sin()
    width = torch.where(len_w < len_h, len_w * sin_b, len_w + len_h * cos_b * sign)
    height = torch.where(len_w > len_h, len_h * sin_b, len_h + len_w * cos_b * sign)
    angle = torch.where(len_h > len_w, angle_h + math.pi / 2, angle_w)
    cos, sin = angle.cos(), angle.sin()
    x1, y1 = cx - width / 2 * cos - height / 2 * sin, cy - height / 2 * cos + width / 2 * sin
    return xywhr_to_corners(torch.stack([x1, y1, width, height, angle * (180.0 / math.pi)], dim=-1))
