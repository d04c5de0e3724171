"""Key points' metadata ops: clamping to the canvas and removing (or flagging) points off it.

torchvision 0.29's ``clamp_keypoints`` and ``sanitize_keypoints``, plus what key points' ``visibility``
asks for: clamped points that were off the canvas become invisible, and sanitizing can flag points
instead of removing them.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .._torchvision_interop import accepts_torchvision
from ..datapoints import Datapoint, KeyPoints
from ..datapoints._bounding_box import parse_spatial_size
from ..datapoints._keypoints import on_canvas
from ._meta import get_spatial_size
from ._registry import register_kernels

__all__ = ["clamp_keypoints", "get_size_keypoints", "sanitize_keypoints"]


@register_kernels(get_spatial_size, KeyPoints, wrap=False)
def get_size_keypoints(keypoints: KeyPoints) -> list[int]:
    """The ``spatial_size`` of ``KeyPoints`` (torchvision 0.29's name)."""
    return list(keypoints.spatial_size)


def _split(inpt: torch.Tensor, canvas_size: Sequence[int] | None, op: str) -> tuple[torch.Tensor, tuple[int, int]]:
    """The plain points and their canvas, from ``KeyPoints`` (no ``canvas_size``) or a plain tensor (with one)."""
    if isinstance(inpt, KeyPoints):
        if canvas_size is not None:
            raise ValueError(f"{op}(): canvas_size must be None for KeyPoints, which carry their own")
        return inpt.as_subclass(torch.Tensor), inpt.spatial_size
    if isinstance(inpt, torch.Tensor) and not isinstance(inpt, Datapoint):
        if canvas_size is None:
            raise ValueError(f"{op}(): canvas_size must be given for a plain tensor")
        if inpt.ndim < 2 or inpt.shape[-1] != 2:
            raise ValueError(f"{op}(): key points must have shape [..., 2], got {tuple(inpt.shape)}")
        return inpt, parse_spatial_size(canvas_size, "canvas_size")
    raise TypeError(f"{op}() supports KeyPoints and torch.Tensor, got {type(inpt).__name__}")


def clamp_keypoints_tensor(keypoints: torch.Tensor, canvas_size: Sequence[int]) -> torch.Tensor:
    """Points ``[..., 2]`` clamped to ``[0, W - 1] x [0, H - 1]`` (torchvision's bounds); same dtype."""
    height, width = canvas_size
    clamped = keypoints.clone()  # (integer points clamp as they are: no float round trip)
    clamped[..., 0].clamp_(min=0, max=width - 1)
    clamped[..., 1].clamp_(min=0, max=height - 1)
    return clamped


@accepts_torchvision
def clamp_keypoints(inpt: torch.Tensor, canvas_size: Sequence[int] | None = None) -> torch.Tensor:
    """Clamp key points ``[..., 2]`` to their image, ``[0, W - 1] x [0, H - 1]`` (torchvision 0.29's
    ``clamp_keypoints``); returns new points of the same dtype.

    With tracked ``visibility``, the points that were off the canvas before clamping (:func:`on_canvas`)
    become invisible: a clamped point is no longer where it was; points on the canvas keep theirs.

    Args:
        inpt: ``KeyPoints`` (using their own canvas) or a plain tensor.
        canvas_size: ``(H, W)`` of a plain tensor's image; None for ``KeyPoints``.

    Example:
        >>> F.clamp_keypoints(points)
    """
    points, size = _split(inpt, canvas_size, "clamp_keypoints")
    clamped = clamp_keypoints_tensor(points, size)
    if not isinstance(inpt, KeyPoints):
        return clamped
    if inpt.visibility is None:
        return KeyPoints.wrap_like(inpt, clamped)
    return KeyPoints.wrap_like(inpt, clamped, visibility=inpt.visibility & on_canvas(points, size))


def valid_keypoints(
    keypoints: torch.Tensor, canvas_size: Sequence[int], visibility: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(valid points, valid instances)``: the points on the canvas (and visible, when ``visibility`` is
    given), and which instances to keep: each point of ``[N, 2]``; the groups of ``[N, ..., 2]`` whose
    points are all on the canvas (torchvision's rule) or, with ``visibility``, that have a valid point."""
    points = on_canvas(keypoints, canvas_size)
    if visibility is not None:
        points &= visibility
    if keypoints.ndim <= 2:
        return points, points
    groups = points.flatten(start_dim=1)
    return points, groups.any(dim=1) if visibility is not None else groups.all(dim=1)


@accepts_torchvision
def sanitize_keypoints(
    key_points: torch.Tensor, canvas_size: Sequence[int] | None = None, *, remove: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """Remove the key points (or groups of them) off their image: returns ``(kept points, valid)``,
    ``valid`` a bool tensor ``[N]`` to filter what goes with them (labels). torchvision 0.29's
    ``sanitize_keypoints``; ``T.SanitizeKeyPoints`` does this for a sample.

    ``[N, 2]`` points are kept one by one; ``[N, ..., 2]`` groups (polygons, skeletons) as a whole.
    Without ``visibility`` (torchvision's rule) a point is valid when on the canvas
    (``0 <= x < W``, ``0 <= y < H``) and a group when all its points are. With ``visibility`` a point
    is valid when also visible, a group is kept when one of its points is valid, and the invalid
    points of kept groups are flagged invisible: a skeleton partly off the image stays, as its
    off-canvas joints cannot be removed from its ``[K, 2]`` layout.

    Args:
        key_points: ``KeyPoints`` (using their own canvas) or a plain tensor.
        canvas_size: ``(H, W)`` of a plain tensor's image; None for ``KeyPoints``.
        remove: True removes the invalid points / groups; False keeps them all and flags the invalid
            points invisible (``KeyPoints`` only; their ``visibility`` is created when untracked).
            ``valid`` says which would have been removed.

    Example:
        >>> points, valid = F.sanitize_keypoints(points)
        >>> labels = labels[valid]
    """
    if not isinstance(remove, bool):
        raise TypeError(f"remove must be a bool, got {type(remove).__name__}")
    points, size = _split(key_points, canvas_size, "sanitize_keypoints")
    visibility = key_points.visibility if isinstance(key_points, KeyPoints) else None
    valid_points, valid = valid_keypoints(points, size, visibility)
    if not isinstance(key_points, KeyPoints):
        if not remove:
            raise ValueError("sanitize_keypoints(): remove=False flags points in KeyPoints' visibility; got a tensor")
        return points[valid], valid
    if not remove:
        return KeyPoints.wrap_like(key_points, points, visibility=valid_points), valid
    kept_visibility = None if visibility is None else valid_points[valid]
    return KeyPoints.wrap_like(key_points, points[valid], visibility=kept_visibility), valid
