"""Bounding boxes (axis-aligned or rotated) with their format, the size of the image they live in and
how transforms clamp them."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ._datapoint import Datapoint


class BoundingBoxFormat(enum.Enum):
    """Coordinate format of a box.

    Axis-aligned: corners ``XYXY``, corner + size ``XYWH``, centre + size ``CXCYWH``. Rotated (float
    only, torchvision 0.23+'s): ``XYWHR`` (first corner, width, height, angle), ``CXCYWHR`` (centre,
    width, height, angle) and ``XYXYXYXY`` (the four corners, in order). The angle is in degrees,
    counter-clockwise as seen on the image: the first corner's edge of length ``w`` runs along
    ``(cos r, -sin r)`` and the one of length ``h`` along ``(sin r, cos r)``.
    """

    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"
    XYWHR = "XYWHR"
    CXCYWHR = "CXCYWHR"
    XYXYXYXY = "XYXYXYXY"

    @property
    def is_rotated(self) -> bool:
        """Whether boxes in this format may be rotated (``XYWHR``, ``CXCYWHR``, ``XYXYXYXY``)."""
        return self in _ROTATED

    @property
    def num_coordinates(self) -> int:
        """The size of the last dim of boxes in this format: 4, 5 or 8."""
        return {"XYWHR": 5, "CXCYWHR": 5, "XYXYXYXY": 8}.get(self.value, 4)

    @classmethod
    def parse(cls, value: BoundingBoxFormat | str, name: str = "format") -> BoundingBoxFormat:
        """Return the format for an enum member or a (case-insensitive) string."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str) and value.upper() in cls.__members__:
            return cls[value.upper()]
        raise ValueError(f"{name} must be one of {list(cls.__members__)}, got {value!r}")


_ROTATED = frozenset({BoundingBoxFormat.XYWHR, BoundingBoxFormat.CXCYWHR, BoundingBoxFormat.XYXYXYXY})
CLAMPING_MODES = ("soft", "hard", None)


def is_rotated_bounding_format(format: BoundingBoxFormat | str) -> bool:
    """Whether ``format`` (a ``BoundingBoxFormat`` or its name) is a rotated one (torchvision 0.29's name)."""
    return BoundingBoxFormat.parse(format).is_rotated


def parse_clamping_mode(value: Any, name: str = "clamping_mode") -> str | None:
    """Check a box clamping mode: ``"soft"``, ``"hard"`` or None."""
    if value is not None and not (isinstance(value, str) and value in CLAMPING_MODES):
        raise ValueError(f"{name} must be one of {list(CLAMPING_MODES)}, got {value!r}")
    return value


def check_rotated_dtype(tensor: torch.Tensor, format: BoundingBoxFormat) -> None:
    """Rotated boxes are float only (as torchvision): ``ValueError`` otherwise."""
    if format.is_rotated and not tensor.is_floating_point():
        raise ValueError(f"rotated bounding boxes ({format.value}) must be float tensors, got {tensor.dtype}")


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
    """Boxes ``[N, K]`` (any leading dims) with ``format``, ``spatial_size`` ``(H, W)`` and
    ``clamping_mode``; ``K`` is 4 for axis-aligned formats, 5 for ``XYWHR`` / ``CXCYWHR`` and 8 for
    ``XYXYXYXY`` (rotated boxes must be float).

    A 1-D input of ``K`` numbers becomes ``[1, K]``. ``canvas_size`` (torchvision 0.16-0.29's name) is
    accepted for ``spatial_size``, as keyword and attribute: give one of the two. ``clamping_mode``
    (torchvision 0.29's, default ``"soft"``) says how transforms clamp the boxes to the canvas: ``"soft"``
    and ``"hard"`` clamp (the same for axis-aligned boxes; for rotated ones ``"soft"`` keeps the box that
    encloses the part inside the canvas, ``"hard"`` a box inside it), None never clamps.

    Example:
        >>> BoundingBox([[2, 0, 206, 253]], format="xyxy", spatial_size=(256, 256)).format
        <BoundingBoxFormat.XYXY: 'XYXY'>
    """

    format: BoundingBoxFormat
    spatial_size: tuple[int, int]
    clamping_mode: str | None = "soft"  # also for boxes wrapped without it (older pickles)

    def __new__(
        cls,
        data: Any,
        *,
        format: BoundingBoxFormat | str,
        spatial_size: Sequence[int] | None = None,
        canvas_size: Sequence[int] | None = None,
        clamping_mode: str | None = "soft",
        dtype: torch.dtype | None = None,
        device: torch.device | str | int | None = None,
        requires_grad: bool | None = None,
    ) -> BoundingBox:
        format = BoundingBoxFormat.parse(format)
        spatial_size = parse_spatial_size(_one_size(spatial_size, canvas_size, required=True))
        clamping_mode = parse_clamping_mode(clamping_mode)
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        k = format.num_coordinates
        if tensor.ndim == 1 and tensor.numel() == k:
            tensor = tensor.unsqueeze(0)
        elif tensor.ndim == 1 and tensor.numel() == 0:
            tensor = tensor.reshape(0, k)
        if tensor.ndim < 2 or tensor.shape[-1] != k:
            raise ValueError(
                f"data must have shape [N, {k}] for a BoundingBox in format {format.value}, got {tuple(tensor.shape)}"
            )
        check_rotated_dtype(tensor, format)
        return cls._wrap(tensor, format=format, spatial_size=spatial_size, clamping_mode=clamping_mode)

    @classmethod
    def wrap_like(cls, other: BoundingBox, tensor: torch.Tensor, **metadata: Any) -> BoundingBox:
        """Wrap ``tensor`` with ``other``'s format, spatial size and clamping mode, unless given by
        keyword (``format``, ``spatial_size`` or ``canvas_size``, ``clamping_mode``)."""
        format = metadata.pop("format", other.format)
        size = _one_size(metadata.pop("spatial_size", None), metadata.pop("canvas_size", None), required=False)
        mode = metadata.pop("clamping_mode", other.clamping_mode)
        if metadata:
            raise TypeError(f"wrap_like() got unknown metadata {sorted(metadata)} for a BoundingBox")
        return cls._wrap(
            tensor,
            format=BoundingBoxFormat.parse(format),
            spatial_size=other.spatial_size if size is None else parse_spatial_size(size),
            clamping_mode=parse_clamping_mode(mode),
        )

    def _metadata(self) -> dict[str, Any]:
        return {"format": self.format, "spatial_size": self.spatial_size, "clamping_mode": self.clamping_mode}


def _one_size(spatial_size: Any, canvas_size: Any, *, required: bool, owner: str = "BoundingBox") -> Any:
    """The size given as ``spatial_size`` or as ``canvas_size`` (one name, not both)."""
    if spatial_size is not None and canvas_size is not None:
        raise TypeError("spatial_size and canvas_size are one argument: give one of them")
    if required and spatial_size is None and canvas_size is None:
        raise TypeError(f"{owner}() missing its spatial_size (or canvas_size) argument")
    return canvas_size if spatial_size is None else spatial_size
