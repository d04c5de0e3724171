"""Helpers for transform authors: querying a sample and setting up ``fill``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import PIL.Image

from .._args import FillArg, FillSpec, get_fill, setup_fill_arg
from ..datapoints import BoundingBox, Image, KeyPoints, Video
from ..functional import get_dimensions
from ._transform import _is_pure_tensor, check_spatial_sizes_agree

__all__ = [
    "FillMixin",
    "check_type",
    "get_bounding_boxes",
    "get_keypoints",
    "has_all",
    "has_any",
    "is_pure_tensor",
    "query_chw",
    "query_resizable_size",
    "query_size",
]

is_pure_tensor = _is_pure_tensor


def _matches(inpt: Any, type_or_check: type | Callable[[Any], bool]) -> bool:
    if isinstance(type_or_check, type):
        return isinstance(inpt, type_or_check)
    return bool(type_or_check(inpt))


def check_type(obj: Any, types_or_checks: tuple[type | Callable[[Any], bool], ...]) -> bool:
    """Whether ``obj`` is of one of the given types or passes one of the given predicates."""
    return any(_matches(obj, tc) for tc in types_or_checks)


def has_any(flat_inputs: list[Any], *types_or_checks: type | Callable[[Any], bool]) -> bool:
    """Whether any leaf matches any of the given types or predicates."""
    return any(_matches(inpt, tc) for inpt in flat_inputs for tc in types_or_checks)


def has_all(flat_inputs: list[Any], *types_or_checks: type | Callable[[Any], bool]) -> bool:
    """Whether every given type or predicate matches at least one leaf."""
    return all(any(_matches(inpt, tc) for inpt in flat_inputs) for tc in types_or_checks)


def _lone_image_shape(flat_inputs: list[Any]) -> tuple[int, ...] | None:
    """The shape of a sample that is one ``Image`` (the common call: its own dims, no agreement to check)."""
    return flat_inputs[0].shape if len(flat_inputs) == 1 and type(flat_inputs[0]) is Image else None


def query_size(flat_inputs: list[Any]) -> tuple[int, int]:
    """The common ``(H, W)`` of the sample's images, videos, masks and boxes.

    Raises ``TypeError`` if there is none and ``ValueError`` if they disagree.
    """
    shape = _lone_image_shape(flat_inputs)
    if shape is not None and len(shape) >= 2:
        return shape[-2], shape[-1]
    size = check_spatial_sizes_agree(flat_inputs)
    if size is None:
        raise TypeError("the sample must contain an image, video, mask or bounding box to know its size")
    return size  # type: ignore[return-value]


def query_resizable_size(flat_inputs: list[Any], transform: Any) -> tuple[int, int]:
    """:func:`query_size`; ``ValueError`` when that size has no pixels for ``transform`` to resize."""
    height, width = query_size(flat_inputs)
    if height == 0 or width == 0:
        name = type(transform).__name__
        raise ValueError(f"{name}() cannot resize an image of size {(height, width)}: it has no pixels")
    return height, width


def _is_image_like(inpt: Any) -> bool:
    return isinstance(inpt, (Image, Video, PIL.Image.Image)) or _is_pure_tensor(inpt)


def query_chw(flat_inputs: list[Any]) -> tuple[int, int, int]:
    """The common ``(C, H, W)`` of the sample's images and videos (plain tensors count as images)."""
    shape = _lone_image_shape(flat_inputs)
    if shape is not None and len(shape) >= 3:
        return shape[-3], shape[-2], shape[-1]
    dims = {tuple(get_dimensions(inpt)) for inpt in flat_inputs if _is_image_like(inpt)}
    if not dims:
        raise TypeError("the sample must contain an image or a video")
    if len(dims) > 1:
        raise ValueError(f"the images and videos of a sample must agree on C x H x W, got {sorted(dims)}")
    return dims.pop()  # type: ignore[return-value]


def get_bounding_boxes(flat_inputs: list[Any]) -> BoundingBox:
    """The sample's (single) ``BoundingBox``; ``ValueError`` if there is none."""
    for inpt in flat_inputs:
        if isinstance(inpt, BoundingBox):
            return inpt
    raise ValueError("the sample must contain a BoundingBox")


def get_keypoints(flat_inputs: list[Any]) -> KeyPoints:
    """The sample's (first) ``KeyPoints``; ``ValueError`` if there is none."""
    for inpt in flat_inputs:
        if isinstance(inpt, KeyPoints):
            return inpt
    raise ValueError("the sample must contain KeyPoints")


class FillMixin:
    """A transform's ``fill``: a number, a per-channel sequence, None, or a dict by type with "others"."""

    def _setup_fill(self, fill: FillSpec) -> None:
        self.fill = fill
        self._fill = setup_fill_arg(fill)

    def _fill_for(self, inpt: Any) -> FillArg:
        return get_fill(self._fill, type(inpt))
