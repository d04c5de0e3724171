"""Key points: ``(x, y)`` pixel positions with the size of the image they live in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ._bounding_box import OnCanvas, _one_size, parse_spatial_size


class KeyPoints(OnCanvas):
    """Points ``[..., 2]`` as ``(x, y)`` (any leading shape: points, polygons, skeletons) with
    ``spatial_size`` ``(H, W)``.

    Coordinates are pixel indices, torchvision 0.29's convention: the point ``(x, y)`` marks the pixel
    in column ``x`` and row ``y`` (its centre), so a horizontal flip maps ``x`` to ``W - 1 - x``. A
    1-D input of 2 numbers becomes ``[1, 2]``. ``canvas_size`` (torchvision's name) is accepted for
    ``spatial_size``, as keyword and attribute: give one of the two.

    Example:
        >>> KeyPoints([[10, 20], [30, 40]], canvas_size=(64, 64)).spatial_size
        (64, 64)
    """

    spatial_size: tuple[int, int]

    def __new__(
        cls,
        data: Any,
        *,
        spatial_size: Sequence[int] | None = None,
        canvas_size: Sequence[int] | None = None,
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
        return cls._wrap(tensor, spatial_size=spatial_size)

    @classmethod
    def wrap_like(cls, other: KeyPoints, tensor: torch.Tensor, **metadata: Any) -> KeyPoints:
        """Wrap ``tensor`` with ``other``'s spatial size, unless given by keyword (``spatial_size`` or
        ``canvas_size``)."""
        size = _one_size(metadata.pop("spatial_size", None), metadata.pop("canvas_size", None), required=False)
        if metadata:
            raise TypeError(f"wrap_like() got unknown metadata {sorted(metadata)} for KeyPoints")
        return cls._wrap(tensor, spatial_size=other.spatial_size if size is None else parse_spatial_size(size))

    def _metadata(self) -> dict[str, Any]:
        return {"spatial_size": self.spatial_size}
