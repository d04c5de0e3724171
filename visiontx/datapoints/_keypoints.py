"""Key points: ``(x, y)`` pixel positions with the size of the image they live in, and optionally
which of them are visible."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ._bounding_box import OnCanvas, _one_size, parse_spatial_size


class KeyPoints(OnCanvas):
    """Points ``[..., 2]`` as ``(x, y)`` (any leading shape: points, polygons, skeletons) with
    ``spatial_size`` ``(H, W)`` and an optional per-point ``visibility``.

    Coordinates are pixel indices, torchvision 0.29's convention: the point ``(x, y)`` marks the pixel
    in column ``x`` and row ``y`` (its centre), so a horizontal flip maps ``x`` to ``W - 1 - x``. A
    1-D input of 2 numbers becomes ``[1, 2]``. ``canvas_size`` (torchvision's name) is accepted for
    ``spatial_size``, as keyword and attribute: give one of the two.

    ``visibility`` is None (not tracked, the default: torchvision's behaviour) or a bool tensor of the
    points' leading shape ``data.shape[:-1]``, moved to the points' device. Every op keeps it; a
    geometric op marks the points it moves off the canvas (see :func:`on_canvas`) invisible.

    Example:
        >>> KeyPoints([[10, 20], [30, 40]], canvas_size=(64, 64), visibility=[True, False]).visibility
        tensor([ True, False])
    """

    spatial_size: tuple[int, int]
    visibility: torch.Tensor | None = None

    def __new__(
        cls,
        data: Any,
        *,
        spatial_size: Sequence[int] | None = None,
        canvas_size: Sequence[int] | None = None,
        visibility: Any = None,
        dtype: torch.dtype | None = None,
        device: torch.device | str | int | None = None,
        requires_grad: bool | None = None,
    ) -> KeyPoints:
        size = _one_size(spatial_size, canvas_size, required=True, owner="KeyPoints")
        spatial_size = parse_spatial_size(size)
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim == 1 and tensor.numel() == 0:
            tensor = tensor.reshape(0, 2)
        elif tensor.ndim == 1:
            tensor = tensor.unsqueeze(0)
        if tensor.ndim < 2 or tensor.shape[-1] != 2:
            raise ValueError(f"data must have shape [..., 2] (x, y) for KeyPoints, got {tuple(tensor.shape)}")
        if tensor.dtype == torch.bool or tensor.is_complex():
            raise ValueError(f"KeyPoints must be a real float or int tensor, got {tensor.dtype}")
        return cls._wrap(tensor, spatial_size=spatial_size, visibility=check_visibility(visibility, tensor))

    @classmethod
    def wrap_like(cls, other: KeyPoints, tensor: torch.Tensor, **metadata: Any) -> KeyPoints:
        """Wrap ``tensor`` with ``other``'s spatial size and visibility, unless given by keyword
        (``spatial_size`` or ``canvas_size``; ``visibility``, None to stop tracking it). An inherited
        visibility must fit ``tensor``'s leading shape (``ValueError`` otherwise: pass ``visibility``)."""
        size = _one_size(metadata.pop("spatial_size", None), metadata.pop("canvas_size", None), required=False)
        visibility = metadata.pop("visibility", other.visibility)
        if metadata:
            raise TypeError(f"wrap_like() got unknown metadata {sorted(metadata)} for KeyPoints")
        return cls._wrap(
            tensor,
            spatial_size=other.spatial_size if size is None else parse_spatial_size(size),
            visibility=check_visibility(visibility, tensor),
        )

    def _metadata(self) -> dict[str, Any]:
        return {"spatial_size": self.spatial_size, "visibility": self.visibility}

    def __deepcopy__(self, memo: dict[int, Any]) -> KeyPoints:
        copy = super().__deepcopy__(memo)
        if self.visibility is not None:
            copy.visibility = self.visibility.clone()
        return copy


def check_visibility(visibility: Any, points: torch.Tensor) -> torch.Tensor | None:
    """``visibility`` as a bool tensor of ``points``' leading shape on their device (None stays None);
    ``TypeError`` / ``ValueError`` naming ``visibility`` otherwise."""
    if visibility is None:
        return None
    if not isinstance(visibility, torch.Tensor):
        try:
            visibility = torch.as_tensor(visibility)
        except (TypeError, ValueError, RuntimeError) as error:
            raise TypeError(f"visibility must be a bool tensor or None, got {type(visibility).__name__}") from error
    if visibility.dtype != torch.bool:
        raise ValueError(f"visibility must be a bool tensor, got dtype {visibility.dtype}")
    shape = tuple(points.shape[:-1])
    if tuple(visibility.shape) != shape:
        raise ValueError(f"visibility must have the key points' leading shape {shape}, got {tuple(visibility.shape)}")
    visibility = visibility.as_subclass(torch.Tensor)
    return visibility if visibility.device == points.device else visibility.to(points.device)


def on_canvas(points: torch.Tensor, spatial_size: Sequence[int]) -> torch.Tensor:
    """Which points ``[..., 2]`` lie on a canvas ``(H, W)``: ``0 <= x < W`` and ``0 <= y < H`` (the region
    torchvision's ``SanitizeKeyPoints`` keeps); a bool tensor of the leading shape."""
    x, y = points[..., 0], points[..., 1]
    return (x >= 0) & (x < spatial_size[1]) & (y >= 0) & (y < spatial_size[0])
