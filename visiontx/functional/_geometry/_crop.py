"""Crops for every input type: crop, center_crop, resized_crop, five_crop and ten_crop.

Crops reaching outside the image are zero-padded there; boxes shift and are clamped to the crop, as
torchvision does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import PIL.Image
import torch

from ...datapoints import BoundingBox, BoundingBoxFormat, Image, Mask, Video
from .._checks import check_spatial
from .._interpolation import InterpolationMode
from .._meta import clamp_bounding_box_tensor
from .._registry import get_kernel, register_kernels
from ._matrix import transform_boxes, translation_matrix
from ._pad import pad_image_tensor
from ._resize import SizeArg, resize_bounding_box, resize_image_pil, resize_image_tensor, resize_mask

__all__ = [
    "center_crop",
    "center_crop_bounding_box",
    "center_crop_image_pil",
    "center_crop_image_tensor",
    "center_crop_mask",
    "center_crop_video",
    "crop",
    "crop_bounding_box",
    "crop_image_pil",
    "crop_image_tensor",
    "crop_mask",
    "crop_video",
    "five_crop",
    "five_crop_image_pil",
    "five_crop_image_tensor",
    "five_crop_video",
    "resized_crop",
    "resized_crop_bounding_box",
    "resized_crop_image_pil",
    "resized_crop_image_tensor",
    "resized_crop_mask",
    "resized_crop_video",
    "ten_crop",
    "ten_crop_image_pil",
    "ten_crop_image_tensor",
    "ten_crop_video",
]

CropSize = Union[int, Sequence[int]]
Interpolation = Union[InterpolationMode, str, int]


def _check_crop_size(height: int, width: int) -> None:
    if height < 0 or width < 0:
        raise ValueError(f"height and width must be non-negative, got height={height}, width={width}")


# ------------------------------------------------------------------------------------------ crop
def crop(inpt: Any, top: int, left: int, height: int, width: int) -> Any:
    """Crop the ``height x width`` region at ``(top, left)``; parts outside the image are zeros.
    Supports image tensors, PIL images, videos, masks and boxes.

    Example:
        >>> F.crop(image, top=10, left=20, height=100, width=200)
    """
    return get_kernel(crop, type(inpt))(inpt, top=top, left=left, height=height, width=width)


def _valid_span(start: int, length: int, size: int) -> tuple[int, int]:
    """Output positions ``[begin, end)`` of a span ``start .. start + length`` that fall inside ``[0, size)``."""
    begin = min(max(-start, 0), length)
    end = min(max(size - start, begin), length)
    return begin, end


@register_kernels(crop, (torch.Tensor, Image, Video, Mask))
def crop_image_tensor(image: torch.Tensor, top: int, left: int, height: int, width: int) -> torch.Tensor:
    """Crop a tensor ``[..., H, W]`` (a view when the region is inside the image)."""
    check_spatial(image, "crop")
    *batch, img_height, img_width = image.shape
    if 0 <= top <= top + height <= img_height and 0 <= left <= left + width <= img_width:
        # The view that slicing gives, built directly (half the cost of ``image[..., a:b, c:d]``).
        stride = image.stride()
        offset = image.storage_offset() + top * stride[-2] + left * stride[-1]
        return image.as_strided((*batch, height, width), stride, offset)
    _check_crop_size(height, width)
    y0, y1 = _valid_span(top, height, img_height)
    x0, x1 = _valid_span(left, width, img_width)
    inside = image[..., top + y0 : top + y1, left + x0 : left + x1]
    if (y0, y1, x0, x1) == (0, height, 0, width):
        return inside
    return pad_image_tensor(inside, [x0, y0, width - x1, height - y1])


crop_video = crop_image_tensor
crop_mask = crop_image_tensor


@register_kernels(crop, PIL.Image.Image)
def crop_image_pil(image: PIL.Image.Image, top: int, left: int, height: int, width: int) -> PIL.Image.Image:
    """Crop a PIL image (outside parts are zeros)."""
    _check_crop_size(height, width)
    return image.crop((left, top, left + width, top + height))


@register_kernels(crop, BoundingBox)
def crop_bounding_box(
    bounding_box: torch.Tensor, format: BoundingBoxFormat | str, top: int, left: int, height: int, width: int
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Shift boxes ``[..., 4]`` into the crop and clamp them to it; returns ``(boxes, (height, width))``.
    Boxes need a non-empty crop (their spatial size must be positive)."""
    if height <= 0 or width <= 0:
        raise ValueError(f"height and width must be positive for boxes, got height={height}, width={width}")
    boxes = transform_boxes(bounding_box, format, translation_matrix(-left, -top))
    return clamp_bounding_box_tensor(boxes, format, (height, width)), (height, width)


# ----------------------------------------------------------------------------------- center_crop
def parse_crop_size(size: CropSize, name: str = "output_size") -> tuple[int, int]:
    """An int, ``[s]`` or ``(h, w)`` as ``(h, w)`` of non-negative ints."""
    if type(size) is tuple and len(size) == 2 and type(size[0]) is type(size[1]) is int and min(size) >= 0:
        return size  # already parsed (transforms store it so)
    if isinstance(size, int) and not isinstance(size, bool):
        size = [size]
    if not (isinstance(size, Sequence) and not isinstance(size, str) and len(size) in (1, 2)):
        raise TypeError(f"{name} must be an int or a sequence of 1 or 2 ints, got {size!r}")
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in size):
        raise TypeError(f"{name} must hold ints, got {size!r}")
    height, width = (size[0], size[0]) if len(size) == 1 else size
    if height < 0 or width < 0:
        raise ValueError(f"{name} must be non-negative, got {size!r}")
    return height, width


def _center_offset(image_size: int, crop_size: int) -> int:
    # As torchvision's images: a larger crop pads (crop - size) // 2 before, a smaller one starts at
    # round((size - crop) / 2).
    if crop_size > image_size:
        return -((crop_size - image_size) // 2)
    return int(round((image_size - crop_size) / 2.0))


def center_crop_params(spatial_size: Sequence[int], output_size: CropSize) -> tuple[int, int, int, int]:
    """``(top, left, height, width)`` of the centre crop of ``output_size`` in an image of ``spatial_size``."""
    height, width = parse_crop_size(output_size)
    return _center_offset(spatial_size[0], height), _center_offset(spatial_size[1], width), height, width


def center_crop(inpt: Any, output_size: CropSize) -> Any:
    """Crop the centre ``output_size`` (int or ``(h, w)``), zero-padding when it is larger than the
    image. Supports image tensors, PIL images, videos, masks and boxes.

    Example:
        >>> F.center_crop(image, 224)
    """
    return get_kernel(center_crop, type(inpt))(inpt, output_size=output_size)


@register_kernels(center_crop, (torch.Tensor, Image, Video, Mask))
def center_crop_image_tensor(image: torch.Tensor, output_size: CropSize) -> torch.Tensor:
    """Centre crop of a tensor ``[..., H, W]``."""
    check_spatial(image, "center_crop")
    return crop_image_tensor(image, *center_crop_params(image.shape[-2:], output_size))


center_crop_video = center_crop_image_tensor
center_crop_mask = center_crop_image_tensor


@register_kernels(center_crop, PIL.Image.Image)
def center_crop_image_pil(image: PIL.Image.Image, output_size: CropSize) -> PIL.Image.Image:
    """Centre crop of a PIL image."""
    return crop_image_pil(image, *center_crop_params((image.height, image.width), output_size))


@register_kernels(center_crop, BoundingBox)
def center_crop_bounding_box(
    bounding_box: torch.Tensor, format: BoundingBoxFormat | str, spatial_size: Sequence[int], output_size: CropSize
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Boxes ``[..., 4]`` after a centre crop of an image of ``spatial_size``."""
    return crop_bounding_box(bounding_box, format, *center_crop_params(spatial_size, output_size))


# ---------------------------------------------------------------------------------- resized_crop
def resized_crop(
    inpt: Any,
    top: int,
    left: int,
    height: int,
    width: int,
    size: SizeArg,
    interpolation: Interpolation = InterpolationMode.BILINEAR,
    antialias: bool | None = True,
) -> Any:
    """Crop then resize to ``size``. Supports image tensors, PIL images, videos, masks (nearest) and boxes.

    Example:
        >>> F.resized_crop(image, 10, 20, 100, 200, size=[64, 64])
    """
    kernel = get_kernel(resized_crop, type(inpt))
    crop_args = dict(top=top, left=left, height=height, width=width)
    return kernel(inpt, **crop_args, size=size, interpolation=interpolation, antialias=antialias)


@register_kernels(resized_crop, (torch.Tensor, Image, Video))
def resized_crop_image_tensor(
    image: torch.Tensor,
    top: int,
    left: int,
    height: int,
    width: int,
    size: SizeArg,
    interpolation: Interpolation = InterpolationMode.BILINEAR,
    antialias: bool | None = True,
) -> torch.Tensor:
    """Crop then resize a tensor ``[..., C, H, W]``."""
    cropped = crop_image_tensor(image, top, left, height, width)
    return resize_image_tensor(cropped, size, interpolation=interpolation, antialias=antialias)


resized_crop_video = resized_crop_image_tensor


@register_kernels(resized_crop, PIL.Image.Image)
def resized_crop_image_pil(
    image: PIL.Image.Image,
    top: int,
    left: int,
    height: int,
    width: int,
    size: SizeArg,
    interpolation: Interpolation = InterpolationMode.BILINEAR,
    antialias: bool | None = True,
) -> PIL.Image.Image:
    """Crop then resize a PIL image."""
    return resize_image_pil(crop_image_pil(image, top, left, height, width), size, interpolation=interpolation)


def resized_crop_mask(mask: torch.Tensor, top: int, left: int, height: int, width: int, size: SizeArg) -> torch.Tensor:
    """Crop then resize (nearest) a mask ``[..., H, W]``."""
    return resize_mask(crop_image_tensor(mask, top, left, height, width), size)


@register_kernels(resized_crop, Mask)
def _resized_crop_mask_dispatch(
    mask: torch.Tensor,
    top: int,
    left: int,
    height: int,
    width: int,
    size: SizeArg,
    interpolation: Interpolation = InterpolationMode.NEAREST,
    antialias: bool | None = True,
) -> torch.Tensor:
    return resized_crop_mask(mask, top, left, height, width, size)


def resized_crop_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    top: int,
    left: int,
    height: int,
    width: int,
    size: SizeArg,
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Boxes ``[..., 4]`` after a crop (clamped to it) and a resize to ``size``."""
    boxes, spatial_size = crop_bounding_box(bounding_box, format, top, left, height, width)
    return resize_bounding_box(boxes, spatial_size, size, format=format)


@register_kernels(resized_crop, BoundingBox)
def _resized_crop_bounding_box_dispatch(
    bounding_box: torch.Tensor,
    top: int,
    left: int,
    height: int,
    width: int,
    size: SizeArg,
    format: BoundingBoxFormat | str,
    interpolation: Interpolation = InterpolationMode.BILINEAR,
    antialias: bool | None = True,
) -> tuple[torch.Tensor, tuple[int, int]]:
    return resized_crop_bounding_box(bounding_box, format, top, left, height, width, size)


# ------------------------------------------------------------------------------ five / ten crop
def five_crop(inpt: Any, size: CropSize) -> tuple[Any, ...]:
    """The four corner crops and the centre crop ``(tl, tr, bl, br, center)`` of ``size``.
    Supports image tensors, PIL images and videos.

    Example:
        >>> tl, tr, bl, br, center = F.five_crop(image, 64)
    """
    return get_kernel(five_crop, type(inpt))(inpt, size=size)


def _five_crop_params(spatial_size: Sequence[int], size: CropSize) -> list[tuple[int, int, int, int]]:
    height, width = parse_crop_size(size, "size")
    img_height, img_width = spatial_size
    if height > img_height or width > img_width:
        raise ValueError(f"size {(height, width)} must not be larger than the image {(img_height, img_width)}")
    bottom, right = img_height - height, img_width - width
    corners = [(0, 0), (0, right), (bottom, 0), (bottom, right)]
    return [(t, l, height, width) for t, l in corners] + [center_crop_params(spatial_size, (height, width))]


@register_kernels(five_crop, (torch.Tensor, Image, Video))
def five_crop_image_tensor(image: torch.Tensor, size: CropSize) -> tuple[torch.Tensor, ...]:
    """Five crops (views) of a tensor ``[..., C, H, W]``."""
    check_spatial(image, "five_crop")
    return tuple(crop_image_tensor(image, *p) for p in _five_crop_params(image.shape[-2:], size))


five_crop_video = five_crop_image_tensor


@register_kernels(five_crop, PIL.Image.Image)
def five_crop_image_pil(image: PIL.Image.Image, size: CropSize) -> tuple[PIL.Image.Image, ...]:
    """Five crops of a PIL image."""
    return tuple(crop_image_pil(image, *p) for p in _five_crop_params((image.height, image.width), size))


def ten_crop(inpt: Any, size: CropSize, vertical_flip: bool = False) -> tuple[Any, ...]:
    """The five crops of the image, then the five crops of its flipped version (horizontal unless
    ``vertical_flip``). Supports image tensors, PIL images and videos.

    Example:
        >>> crops = F.ten_crop(image, 64)
    """
    return get_kernel(ten_crop, type(inpt))(inpt, size=size, vertical_flip=vertical_flip)


@register_kernels(ten_crop, (torch.Tensor, Image, Video))
def ten_crop_image_tensor(image: torch.Tensor, size: CropSize, vertical_flip: bool = False) -> tuple[torch.Tensor, ...]:
    """Ten crops of a tensor ``[..., C, H, W]``."""
    check_spatial(image, "ten_crop")
    flipped = image.flip(-2 if vertical_flip else -1)
    return five_crop_image_tensor(image, size) + five_crop_image_tensor(flipped, size)


ten_crop_video = ten_crop_image_tensor


@register_kernels(ten_crop, PIL.Image.Image)
def ten_crop_image_pil(
    image: PIL.Image.Image, size: CropSize, vertical_flip: bool = False
) -> tuple[PIL.Image.Image, ...]:
    """Ten crops of a PIL image."""
    transpose = PIL.Image.Transpose.FLIP_TOP_BOTTOM if vertical_flip else PIL.Image.Transpose.FLIP_LEFT_RIGHT
    flipped = image.transpose(transpose)
    return five_crop_image_pil(image, size) + five_crop_image_pil(flipped, size)
