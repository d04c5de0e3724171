"""Axis-aligned bounding boxes with their format and the size of the image they live in."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ._datapoint import Datapoint


class BoundingBoxFormat(enum.Enum):
    """Coordinate format of a box: corners ``XYXY``, corner + size ``XYWH``, centre + size ``CXCYWH``."""

    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"

    @classmethod
    def parse(cls, value: BoundingBoxFormat | str, name: str = "format") -> BoundingBoxFormat:
        """Return the format for an enum member or a (case-insensitive) string."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str) and value.upper() in cls.__members__:
            return cls[value.upper()]
        raise ValueError(f"{name} must be one of {list(cls.__members__)}, got {value!r}")


def parse_spatial_size(value: Any, name: str = "spatial_size") -> tuple[int, int]:
    """Check and normalise an ``(H, W)`` pair of positive ints (tensors and sizes accepted)."""
    if isinstance(value, (torch.Tensor, np.ndarray)):
        value = value.tolist()
    pair = isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2
    if pair and not any(isinstance(v, bool) for v in value):
        try:
            height, width = (int(v) for v in value)
        except (TypeError, ValueError):
            height = width = None
        if height is not None and height == value[0] and width == value[1] and height > 0 and width > 0:
            return height, width
    raise ValueError(f"{name} must be a pair of positive ints (H, W), got {value!r}")


class OnCanvas(Datapoint):
    """Base of the datapoints that live on an image: ``spatial_size`` ``(H, W)``, also readable and
    settable as ``canvas_size`` (torchvision 0.16-0.29's name)."""

    spatial_size: tuple[int, int]

    @property
    def canvas_size(self) -> tuple[int, int]:
        """``spatial_size`` under torchvision 0.16-0.29's name."""
        return self.spatial_size

    @canvas_size.setter
    def canvas_size(self, value: Sequence[int]) -> None:
        self.spatial_size = parse_spatial_size(value, "canvas_size")


class BoundingBox(OnCanvas):
    """Boxes ``[N, 4]`` (any leading dims) with ``format`` and ``spatial_size`` ``(H, W)``.

    A 1-D input of 4 numbers becomes ``[1, 4]``. ``canvas_size`` (torchvision 0.16-0.29's name) is
    accepted for ``spatial_size``, as keyword and attribute: give one of the two.

    Example:
        >>> BoundingBox([[2, 0, 206, 253]], format="xyxy", spatial_size=(256, 256)).format
        <BoundingBoxFormat.XYXY: 'XYXY'>
    """

    format: BoundingBoxFormat
    spatial_size: tuple[int, int]

    def __new__(
        cls,
        data: Any,
        *,
        format: BoundingBoxFormat | str,
        spatial_size: Sequence[int] | None = None,
        canvas_size: Sequence[int] | None = None,
        dtype: torch.dtype | None = None,
        device: torch.device | str | int | None = None,
        requires_grad: bool | None = None,
    ) -> BoundingBox:
        format = BoundingBoxFormat.parse(format)
        spatial_size = parse_spatial_size(_one_size(spatial_size, canvas_size, required=True))
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim == 1 and tensor.numel() == 4:
            tensor = tensor.unsqueeze(0)
        elif tensor.ndim == 1 and tensor.numel() == 0:
            tensor = tensor.reshape(0, 4)
        if tensor.ndim < 2 or tensor.shape[-1] != 4:
            raise ValueError(f"data must have shape [N, 4] for a BoundingBox, got {tuple(tensor.shape)}")
        return cls._wrap(tensor, format=format, spatial_size=spatial_size)

    @classmethod
    def wrap_like(cls, other: BoundingBox, tensor: torch.Tensor, **metadata: Any) -> BoundingBox:
        """Wrap ``tensor`` with ``other``'s format and spatial size, unless given by keyword
        (``format``, ``spatial_size`` or ``canvas_size``)."""
        format = metadata.pop("format", other.format)
        size = _one_size(metadata.pop("spatial_size", None), metadata.pop("canvas_size", None), required=False)
        if metadata:
            raise TypeError(f"wrap_like() got unknown metadata {sorted(metadata)} for a BoundingBox")
        return cls._wrap(
            tensor,
            format=BoundingBoxFormat.parse(format),
            spatial_size=other.spatial_size if size is None else parse_spatial_size(size),
        )

    def _metadata(self) -> dict[str, Any]:
        return {"format": self.format, "spatial_size": self.spatial_size}


def _one_size(spatial_size: Any, canvas_size: Any, *, required: bool, owner: str = "BoundingBox") -> Any:
    """The size given as ``spatial_size`` or as ``canvas_size`` (one name, not both)."""
    if spatial_size is not None and canvas_size is not None:
        raise TypeError("spatial_size and canvas_size are one argument: give one of them")
    if required and spatial_size is None and canvas_size is None:
        raise TypeError(f"{owner}() missing its spatial_size (or canvas_size) argument")
    return canvas_size if spatial_size is None else spatial_size
