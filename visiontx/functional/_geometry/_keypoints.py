"""Key points' public kernels under torchvision 0.29's names, thin functions over the geometry path.

Every described op moves key points through one generic kernel (``register_geometry``); these
functions give that path torchvision's kernel signatures. ``elastic`` has no matrix: its key points
follow the displacement field as torchvision's do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ...datapoints import KeyPoints
from .._registry import register_geometry_kernel
from ._affine import affine, rotate
from ._crop import center_crop, crop, resized_crop
from ._description import Geometry, geometry_of, transform_keypoints
from ._flip import horizontal_flip, vertical_flip
from ._generic import warp
from ._pad import pad
from ._resize import resize
from ._warp import _check_displacement, elastic, follow_inverse_displacement, perspective

__all__ = [
    "affine_keypoints",
    "center_crop_keypoints",
    "crop_keypoints",
    "elastic_keypoints",
    "horizontal_flip_keypoints",
    "pad_keypoints",
    "perspective_keypoints",
    "resize_keypoints",
    "resized_crop_keypoints",
    "rotate_keypoints",
    "vertical_flip_keypoints",
]

Size = tuple[int, int]


def _follow(op: Any, keypoints: torch.Tensor, canvas_size: Sequence[int], **params: Any) -> tuple[torch.Tensor, Size]:
    geometry = geometry_of(op, canvas_size, **params)
    return transform_keypoints(keypoints, geometry), geometry.canvas_size


def horizontal_flip_keypoints(keypoints: torch.Tensor, canvas_size: Sequence[int]) -> torch.Tensor:
    """Key points ``[..., 2]`` mirrored left-right: ``x`` becomes ``W - 1 - x``.

    Args:
        keypoints: ``(x, y)`` pixel indices.
        canvas_size: ``(H, W)`` of their image.
    """
    return _follow(horizontal_flip, keypoints, canvas_size)[0]


def vertical_flip_keypoints(keypoints: torch.Tensor, canvas_size: Sequence[int]) -> torch.Tensor:
    """Key points ``[..., 2]`` mirrored top-bottom: ``y`` becomes ``H - 1 - y``.

    Args:
        keypoints: ``(x, y)`` pixel indices.
        canvas_size: ``(H, W)`` of their image.
    """
    return _follow(vertical_flip, keypoints, canvas_size)[0]


def resize_keypoints(
    keypoints: torch.Tensor, size: Sequence[int] | int | None, canvas_size: Sequence[int], max_size: int | None = None
) -> tuple[torch.Tensor, Size]:
    """Key points following ``F.resize``'s pixels (centres scaled) and the new canvas.

    Args:
        keypoints: ``(x, y)`` pixel indices.
        size, max_size: as for ``F.resize``.
        canvas_size: ``(H, W)`` of their image.
    """
    return _follow(resize, keypoints, canvas_size, size=size, max_size=max_size)


def crop_keypoints(keypoints: torch.Tensor, top: int, left: int, height: int, width: int) -> tuple[torch.Tensor, Size]:
    """Key points in the crop's frame (shifted by ``(-left, -top)``, not clamped) and the crop's size.

    Args:
        keypoints: ``(x, y)`` pixel indices.
        top, left, height, width: the crop, as for ``F.crop``.
    """
    canvas = (max(top + height, 1), max(left + width, 1))  # a crop's geometry does not depend on the input size
    return _follow(crop, keypoints, canvas, top=top, left=left, height=height, width=width)


def center_crop_keypoints(
    inpt: torch.Tensor, canvas_size: Sequence[int], output_size: Sequence[int] | int
) -> tuple[torch.Tensor, Size]:
    """Key points after ``F.center_crop`` (padding included) and the new canvas.

    Args:
        inpt: ``(x, y)`` pixel indices.
        canvas_size: ``(H, W)`` of their image.
        output_size: as for ``F.center_crop``.
    """
    return _follow(center_crop, inpt, canvas_size, output_size=output_size)


def resized_crop_keypoints(
    keypoints: torch.Tensor, top: int, left: int, height: int, width: int, size: Sequence[int] | int
) -> tuple[torch.Tensor, Size]:
    """Key points after ``F.resized_crop`` (the crop, then the resize of its pixels) and the new canvas.

    Args:
        keypoints: ``(x, y)`` pixel indices.
        top, left, height, width, size: as for ``F.resized_crop``.
    """
    canvas = (max(top + height, 1), max(left + width, 1))
    return _follow(resized_crop, keypoints, canvas, top=top, left=left, height=height, width=width, size=size)


def pad_keypoints(
    keypoints: torch.Tensor, canvas_size: Sequence[int], padding: Sequence[int] | int, padding_mode: str = "constant"
) -> tuple[torch.Tensor, Size]:
    """Key points shifted by the padding and the padded canvas; reflecting modes raise ``ValueError``.

    Args:
        keypoints: ``(x, y)`` pixel indices.
        canvas_size: ``(H, W)`` of their image.
        padding, padding_mode: as for ``F.pad``.
    """
    return _follow(pad, keypoints, canvas_size, padding=padding, padding_mode=padding_mode)


def affine_keypoints(
    keypoints: torch.Tensor,
    canvas_size: Sequence[int],
    angle: float,
    translate: Sequence[float],
    scale: float,
    shear: float | Sequence[float],
    center: Sequence[float] | None = None,
) -> tuple[torch.Tensor, Size]:
    """Key points following ``F.affine``'s pixels (not clamped) and the canvas.

    Args:
        keypoints: ``(x, y)`` pixel indices.
        canvas_size: ``(H, W)`` of their image.
        angle, translate, scale, shear, center: as for ``F.affine``.
    """
    params = dict(angle=angle, translate=translate, scale=scale, shear=shear, center=center)
    return _follow(affine, keypoints, canvas_size, **params)


def rotate_keypoints(
    keypoints: torch.Tensor,
    canvas_size: Sequence[int],
    angle: float,
    expand: bool = False,
    center: Sequence[float] | None = None,
) -> tuple[torch.Tensor, Size]:
    """Key points following ``F.rotate``'s pixels (not clamped) and the canvas (grown with ``expand``).

    Args:
        keypoints: ``(x, y)`` pixel indices.
        canvas_size: ``(H, W)`` of their image.
        angle, expand, center: as for ``F.rotate``.
    """
    return _follow(rotate, keypoints, canvas_size, angle=angle, expand=expand, center=center)


def perspective_keypoints(
    keypoints: torch.Tensor,
    canvas_size: Sequence[int],
    startpoints: Sequence[Sequence[int]] | None,
    endpoints: Sequence[Sequence[int]] | None,
    coefficients: Sequence[float] | None = None,
) -> torch.Tensor:
    """Key points following ``F.perspective``'s pixels (projective map, not clamped).

    Args:
        keypoints: ``(x, y)`` pixel indices.
        canvas_size: ``(H, W)`` of their image.
        startpoints, endpoints, coefficients: as for ``F.perspective``.
    """
    params = dict(startpoints=startpoints, endpoints=endpoints, coefficients=coefficients)
    return _follow(perspective, keypoints, canvas_size, **params)[0]


def elastic_keypoints(keypoints: torch.Tensor, canvas_size: Sequence[int], displacement: torch.Tensor) -> torch.Tensor:
    """Key points through ``F.elastic``, as torchvision: each point, truncated to a pixel index and
    clamped to the image, moves to where the inverse displacement field there points.

    Args:
        keypoints: ``(x, y)`` pixel indices.
        canvas_size: ``(H, W)`` of their image.
        displacement: ``[1, H, W, 2]``, as for ``F.elastic``.
    """
    displacement = _check_displacement(displacement, canvas_size)
    height, width = (int(s) for s in canvas_size)
    if height == 0 or width == 0 or keypoints.numel() == 0:
        return keypoints
    dtype = keypoints.dtype if keypoints.is_floating_point() else torch.float32
    index = keypoints.to(torch.long)
    xs, ys = index[..., 0].clamp(0, width - 1), index[..., 1].clamp(0, height - 1)
    points = follow_inverse_displacement(xs, ys, displacement, dtype)
    return points if keypoints.is_floating_point() else points.round_().to(keypoints.dtype)


@register_geometry_kernel(elastic, KeyPoints)
def _elastic_keypoints_kernel(
    keypoints: torch.Tensor, displacement: torch.Tensor, spatial_size: Sequence[int], **sampling: Any
) -> tuple[torch.Tensor, Size]:
    return elastic_keypoints(keypoints, spatial_size, displacement), (int(spatial_size[0]), int(spatial_size[1]))


@register_geometry_kernel(warp, KeyPoints)
def _warp_keypoints_kernel(
    keypoints: torch.Tensor, geometry: Geometry, spatial_size: Sequence[int], **sampling: Any
) -> tuple[torch.Tensor, Size]:
    return transform_keypoints(keypoints, geometry), geometry.canvas_size
