"""Horizontal and vertical flips for every input type."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import PIL.Image
import torch

from ..._names import accepts_canvas_size, mask_kernel, video_kernel
from ...datapoints import BoundingBoxFormat, Image, Mask, Video
from .._checks import check_spatial
from .._registry import get_kernel, register_kernels
from ._description import Geometry, register_geometry, transform_bounding_box

__all__ = [
    "horizontal_flip",
    "horizontal_flip_bounding_box",
    "horizontal_flip_image_pil",
    "horizontal_flip_image_tensor",
    "horizontal_flip_mask",
    "horizontal_flip_video",
    "vertical_flip",
    "vertical_flip_bounding_box",
    "vertical_flip_image_pil",
    "vertical_flip_image_tensor",
    "vertical_flip_mask",
    "vertical_flip_video",
]


def horizontal_flip(inpt: Any) -> Any:
    """Mirror left-right.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).

    Example:
        >>> F.horizontal_flip(boxes)
    """
    return get_kernel(horizontal_flip, type(inpt))(inpt)


@register_kernels(horizontal_flip, (torch.Tensor, Image, Video, Mask))
def horizontal_flip_image_tensor(image: torch.Tensor) -> torch.Tensor:
    """Mirror a tensor ``[..., H, W]`` left-right (images, videos and masks alike)."""
    check_spatial(image, "horizontal_flip")
    return image.flip(-1)


horizontal_flip_video = video_kernel(horizontal_flip_image_tensor)
horizontal_flip_mask = mask_kernel(horizontal_flip_image_tensor)


@register_kernels(horizontal_flip, PIL.Image.Image)
def horizontal_flip_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    """Mirror a PIL image left-right."""
    return image.transpose(PIL.Image.Transpose.FLIP_LEFT_RIGHT)


def horizontal_flip_geometry(spatial_size: Sequence[int]) -> Geometry:
    """``x -> W - x`` on the same canvas."""
    return Geometry([[-1, 0, spatial_size[1]], [0, 1, 0]], spatial_size)


register_geometry(horizontal_flip, horizontal_flip_geometry)


@accepts_canvas_size
def horizontal_flip_bounding_box(
    bounding_box: torch.Tensor, format: BoundingBoxFormat | str, spatial_size: Sequence[int]
) -> torch.Tensor:
    """Mirror boxes ``[..., 4]`` left-right inside an image of ``spatial_size`` ``(H, W)``."""
    return transform_bounding_box(bounding_box, format, horizontal_flip_geometry(spatial_size))


def vertical_flip(inpt: Any) -> Any:
    """Mirror top-bottom.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).

    Example:
        >>> F.vertical_flip(image)
    """
    return get_kernel(vertical_flip, type(inpt))(inpt)


@register_kernels(vertical_flip, (torch.Tensor, Image, Video, Mask))
def vertical_flip_image_tensor(image: torch.Tensor) -> torch.Tensor:
    """Mirror a tensor ``[..., H, W]`` top-bottom (images, videos and masks alike)."""
    check_spatial(image, "vertical_flip")
    return image.flip(-2)


vertical_flip_video = video_kernel(vertical_flip_image_tensor)
vertical_flip_mask = mask_kernel(vertical_flip_image_tensor)


@register_kernels(vertical_flip, PIL.Image.Image)
def vertical_flip_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    """Mirror a PIL image top-bottom."""
    return image.transpose(PIL.Image.Transpose.FLIP_TOP_BOTTOM)


def vertical_flip_geometry(spatial_size: Sequence[int]) -> Geometry:
    """``y -> H - y`` on the same canvas."""
    return Geometry([[1, 0, 0], [0, -1, spatial_size[0]]], spatial_size)


register_geometry(vertical_flip, vertical_flip_geometry)


@accepts_canvas_size
def vertical_flip_bounding_box(
    bounding_box: torch.Tensor, format: BoundingBoxFormat | str, spatial_size: Sequence[int]
) -> torch.Tensor:
    """Mirror boxes ``[..., 4]`` top-bottom inside an image of ``spatial_size`` ``(H, W)``."""
    return transform_bounding_box(bounding_box, format, vertical_flip_geometry(spatial_size))
