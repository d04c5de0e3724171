"""Crops for every input type: crop, center_crop, resized_crop, five_crop and ten_crop.

Crops reaching outside the image are zero-padded there; boxes shift and are clamped to the crop, as
torchvision does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import PIL.Image
import torch

from ..._args import CropSize, FillArg, parse_crop_size, parse_fill, per_channel_error
from ..._names import accepts_canvas_size, mask_kernel, video_kernel
from ...datapoints import BoundingBoxFormat, Datapoint, Image, Mask, Video
from ...datapoints._datapoint import adopt, unwrap
from .._checks import check_spatial
from .._interpolation import InterpolationMode, nearest_source
from .._registry import get_kernel, register_geometry_kernel, register_kernels, register_mask_kernel
from ._description import Geometry, register_geometry, transform_bounding_box
from ._matrix import translation_matrix
from ._pad import constant_fill, pad_constant
from ._resize import (
    SizeArg,
    resize_bounding_box,
    resize_geometry,
    resize_image_pil,
    resize_image_tensor,
    resize_mask,
    take_rows_columns,
)

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

Interpolation = Union[InterpolationMode, str, int]


_ZERO = (0.0,)


def _check_crop_size(height: int, width: int) -> None:
    if height < 0 or width < 0:
        raise ValueError(f"height and width must be non-negative, got height={height}, width={width}")


# ------------------------------------------------------------------------------------------ crop
def crop(inpt: Any, top: int, left: int, height: int, width: int) -> Any:
    """Crop the ``height x width`` region at ``(top, left)``; parts outside the image are zeros.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).
            Boxes are shifted into the crop and clamped to it.
        top: row of the region's top edge (may be negative or beyond the image).
        left: column of the region's left edge (may be negative or beyond the image).
        height: non-negative height of the output (positive for boxes).
        width: non-negative width of the output (positive for boxes).

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
    return _crop_spatial(image, top, left, height, width)


def _crop_spatial(
    image: torch.Tensor, top: int, left: int, height: int, width: int, fill: Sequence[float] = _ZERO
) -> torch.Tensor:
    """:func:`crop_image_tensor` of a tensor known to be ``[..., H, W]``, parts outside it ``fill`` (checked by
    ``constant_fill``)."""
    shape = image.shape
    img_height, img_width = shape[-2], shape[-1]
    if 0 <= top <= top + height <= img_height and 0 <= left <= left + width <= img_width:
        return _window(image, top, left, height, width)
    _check_crop_size(height, width)
    return _pad_window(image, top, left, height, width, fill)


def _pad_window(
    image: torch.Tensor, top: int, left: int, height: int, width: int, fill: Sequence[float]
) -> torch.Tensor:
    """The window of a non-negative size reaching outside ``image``: its part inside, padded with ``fill``."""
    y0, y1 = _valid_span(top, height, image.shape[-2])
    x0, x1 = _valid_span(left, width, image.shape[-1])
    if y0 < y1 and x0 < x1:
        inside = _window(image, top + y0, left + x0, y1 - y0, x1 - x0)
    else:  # nothing of the image in the window
        inside = image[..., top + y0 : top + y1, left + x0 : left + x1]
    if (y0, y1, x0, x1) == (0, height, 0, width):  # an empty window
        return inside
    return pad_constant(inside, (x0, y0, width - x1, height - y1), fill)


def _window(image: torch.Tensor, top: int, left: int, height: int, width: int) -> torch.Tensor:
    """The view ``image[..., top : top + height, left : left + width]`` of a window inside the image, built
    directly (cheaper than slicing)."""
    shape, stride = image.shape, image.stride()
    offset = image.storage_offset() + top * stride[-2] + left * stride[-1]
    size = (shape[0], height, width) if len(shape) == 3 else (*shape[:-2], height, width)
    return image.as_strided(size, stride, offset)


def padded_crop(inpt: Any, top: int, left: int, height: int, width: int, fill: FillArg) -> Any:
    """The ``height x width`` window at ``(top, left)`` of an image tensor, ``Image``, ``Video`` or ``Mask`` lying
    on a canvas of ``fill``: ``crop(pad(inpt, p, fill), top + p_top, left + p_left, height, width)`` for any
    constant padding ``p`` whose padded input holds the window, without building the padded input. Always a new
    tensor (as the crop of a padded copy), never a view of ``inpt``; fills are checked as ``pad`` checks them (a
    mask's is one number)."""
    image = unwrap(inpt) if isinstance(inpt, Datapoint) else inpt
    check_spatial(image, "crop")
    _check_crop_size(height, width)
    if isinstance(inpt, Mask):
        parse_fill(fill, channels=1)  # pad_mask's check first, with its message
    values = constant_fill(image, fill)
    channels = image.shape[-3] if image.ndim >= 3 else 1
    if len(values) not in (1, channels):
        raise per_channel_error("fill", channels, values)
    if 0 <= top <= top + height <= image.shape[-2] and 0 <= left <= left + width <= image.shape[-1]:
        output = _window(image, top, left, height, width).clone()  # nothing to fill: a copy, not a view
    else:
        output = _pad_window(image, top, left, height, width, values)
    return adopt(output, type(inpt)) if isinstance(inpt, Datapoint) else output


crop_video = video_kernel(crop_image_tensor)
crop_mask = mask_kernel(crop_image_tensor)


@register_kernels(crop, PIL.Image.Image)
def crop_image_pil(image: PIL.Image.Image, top: int, left: int, height: int, width: int) -> PIL.Image.Image:
    """Crop a PIL image (outside parts are zeros)."""
    _check_crop_size(height, width)
    return image.crop((left, top, left + width, top + height))


def crop_geometry(spatial_size: Sequence[int], top: int, left: int, height: int, width: int) -> Geometry:
    """A shift by ``(-left, -top)`` onto a ``height x width`` canvas; boxes are clamped to it (and need
    a non-empty crop)."""
    error = None
    if height <= 0 or width <= 0:
        error = (
            "height and width must be positive for boxes and key points (their canvas is at least 1 x 1), "
            f"got height={height}, width={width}"
        )
    return Geometry(translation_matrix(-left, -top), (height, width), clamp="boxes", points_error=error)


register_geometry(crop, crop_geometry)


def crop_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    top: int,
    left: int,
    height: int,
    width: int,
    clamping_mode: str | None = "soft",
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Shift boxes ``[..., 4]`` into the crop and clamp them to it; returns ``(boxes, (height, width))``.
    Boxes need a non-empty crop (their spatial size must be positive)."""
    geometry = crop_geometry((), top, left, height, width)
    return transform_bounding_box(bounding_box, format, geometry, clamping_mode), geometry.canvas_size


# ----------------------------------------------------------------------------------- center_crop
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
    """Crop the centre of the input, zero-padding where the crop is larger than the image.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).
        output_size: an int (square), ``[s]`` or ``(h, w)`` of non-negative ints.

    Example:
        >>> F.center_crop(image, 224)
    """
    return get_kernel(center_crop, type(inpt))(inpt, output_size=output_size)


@register_kernels(center_crop, (torch.Tensor, Image, Video, Mask))
def center_crop_image_tensor(image: torch.Tensor, output_size: CropSize) -> torch.Tensor:
    """Centre crop of a tensor ``[..., H, W]``."""
    check_spatial(image, "center_crop")
    shape = image.shape
    return _crop_spatial(image, *center_crop_params((shape[-2], shape[-1]), output_size))


center_crop_video = video_kernel(center_crop_image_tensor)
center_crop_mask = mask_kernel(center_crop_image_tensor)


@register_kernels(center_crop, PIL.Image.Image)
def center_crop_image_pil(image: PIL.Image.Image, output_size: CropSize) -> PIL.Image.Image:
    """Centre crop of a PIL image."""
    return crop_image_pil(image, *center_crop_params((image.height, image.width), output_size))


def center_crop_geometry(spatial_size: Sequence[int], output_size: CropSize) -> Geometry:
    """The crop of the centre ``output_size``."""
    return crop_geometry(spatial_size, *center_crop_params(spatial_size, output_size))


register_geometry(center_crop, center_crop_geometry)


@accepts_canvas_size
def center_crop_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    output_size: CropSize,
    clamping_mode: str | None = "soft",
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Boxes ``[..., K]`` after a centre crop of an image of ``spatial_size``."""
    geometry = center_crop_geometry(spatial_size, output_size)
    return transform_bounding_box(bounding_box, format, geometry, clamping_mode), geometry.canvas_size


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
    """Crop then resize: :func:`crop` of the region, then :func:`resize` of it to ``size``.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).
        top: row of the region's top edge.
        left: column of the region's left edge.
        height: height of the region.
        width: width of the region.
        size: output size, as for :func:`resize` (an int for the shorter edge, or ``(h, w)``).
        interpolation: the filter of the resize (default bilinear); see ``visiontx.functional``.
        antialias: as for :func:`resize` (default True).

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


resized_crop_video = video_kernel(resized_crop_image_tensor)


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


register_mask_kernel(resized_crop, resized_crop_mask, sampling=("interpolation", "antialias"))


def window_resize_mask(
    mask: torch.Tensor, top: int, left: int, height: int, width: int, size: Sequence[int],
    vflip: bool = False, hflip: bool = False, kept: Sequence[int] | None = None,
) -> torch.Tensor:
    """``resize_mask`` to ``size`` ``(h, w)`` of the ``height x width`` window at ``(top, left)`` of ``mask``
    (zeros where it reaches outside the mask, or outside ``kept``: ``(top, left, bottom, right)``), flipped as
    asked, taken straight from the mask: torch's ``nearest`` source of each output row and column, followed
    back through the flips and the window. It reads only the pixels it keeps (whole-pixel runs of ``Compose``
    that end in a resize: ``transforms/_fusion.py``)."""
    work = mask.view(torch.uint8) if mask.dtype == torch.bool else mask
    kept = (0, 0, *work.shape[-2:]) if kept is None else kept
    rows, row_span = _window_sources(top, height, size[0], vflip, kept[0], kept[2], work.shape[-2])
    columns, column_span = _window_sources(left, width, size[1], hflip, kept[1], kept[3], work.shape[-1])
    out = take_rows_columns(work, rows, columns)
    for dim, (first, stop), length in ((-2, row_span, size[0]), (-1, column_span, size[1])):
        out.narrow(dim, 0, first).zero_()
        out.narrow(dim, stop, length - stop).zero_()
    return out.view(torch.bool) if mask.dtype == torch.bool else out


def _window_sources(
    start: int, length: int, out_length: int, flip: bool, low: int, high: int, extent: int
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Along one axis of :func:`window_resize_mask`: the (CPU) source index of each output position, clamped
    into ``[0, extent)``, and the stretch ``[first, stop)`` of outputs whose source lies in ``[low, high)``
    and the mask (the sources run one way, so those are one stretch)."""
    index = nearest_source(length, out_length)
    index = start + (length - 1 - index if flip else index)
    low, high = max(low, 0), min(high, extent)
    inside = ((index >= low) & (index < high)).nonzero().view(-1).tolist()
    span = (inside[0], inside[-1] + 1) if inside else (out_length, out_length)
    return index.clamp_(0, max(extent - 1, 0)), span


def resized_crop_geometry(
    spatial_size: Sequence[int], top: int, left: int, height: int, width: int, size: SizeArg
) -> Geometry:
    """The crop, then the resize of the crop to ``size``."""
    cropped = crop_geometry(spatial_size, top, left, height, width)
    return cropped.then(resize_geometry(cropped.canvas_size, size))


# Boxes take the two steps (clamped to the crop, then scaled), as torchvision rounds them.
register_geometry(resized_crop, resized_crop_geometry, sampling=("interpolation", "antialias"), boxes=False)


def resized_crop_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    top: int,
    left: int,
    height: int,
    width: int,
    size: SizeArg,
    clamping_mode: str | None = "soft",
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Boxes ``[..., K]`` after a crop (clamped to it) and a resize to ``size`` (rotated boxes clamped
    again after it, as torchvision)."""
    boxes, spatial_size = crop_bounding_box(bounding_box, format, top, left, height, width, clamping_mode)
    return resize_bounding_box(boxes, spatial_size, size, format=format, clamping_mode=clamping_mode)


@register_geometry_kernel(resized_crop)
def _resized_crop_bounding_box_kernel(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    top: int,
    left: int,
    height: int,
    width: int,
    size: SizeArg,
    interpolation: Interpolation = InterpolationMode.BILINEAR,
    antialias: bool | None = True,
    clamping_mode: str | None = "soft",
) -> tuple[torch.Tensor, tuple[int, int]]:
    return resized_crop_bounding_box(bounding_box, format, top, left, height, width, size, clamping_mode)


# ------------------------------------------------------------------------------ five / ten crop
def five_crop(inpt: Any, size: CropSize) -> tuple[Any, ...]:
    """The four corner crops and the centre crop ``(tl, tr, bl, br, center)`` of ``size``.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image; boxes and masks are refused.
        size: an int (square), ``[s]`` or ``(h, w)``, at most the input's size.

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


five_crop_video = video_kernel(five_crop_image_tensor)


@register_kernels(five_crop, PIL.Image.Image)
def five_crop_image_pil(image: PIL.Image.Image, size: CropSize) -> tuple[PIL.Image.Image, ...]:
    """Five crops of a PIL image."""
    return tuple(crop_image_pil(image, *p) for p in _five_crop_params((image.height, image.width), size))


def ten_crop(inpt: Any, size: CropSize, vertical_flip: bool = False) -> tuple[Any, ...]:
    """The five crops of :func:`five_crop`, then those of the flipped input: a tuple of ten.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image; boxes and masks are refused.
        size: an int (square), ``[s]`` or ``(h, w)``, at most the input's size.
        vertical_flip: flip top-bottom instead of left-right (default False).

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


ten_crop_video = video_kernel(ten_crop_image_tensor)


@register_kernels(ten_crop, PIL.Image.Image)
def ten_crop_image_pil(
    image: PIL.Image.Image, size: CropSize, vertical_flip: bool = False
) -> tuple[PIL.Image.Image, ...]:
    """Ten crops of a PIL image."""
    transpose = PIL.Image.Transpose.FLIP_TOP_BOTTOM if vertical_flip else PIL.Image.Transpose.FLIP_LEFT_RIGHT
    flipped = image.transpose(transpose)
    return five_crop_image_pil(image, size) + five_crop_image_pil(flipped, size)
