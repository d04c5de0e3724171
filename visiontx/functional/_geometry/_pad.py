"""Pad for every input type: constant (number or per-channel fill), edge, reflect and symmetric.

``padding`` is an int (all sides), ``[left/right, top/bottom]`` or ``[left, top, right, bottom]``, as
torchvision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import PIL.Image
import torch

from ..._args import FillArg, PaddingArg, check_padding_mode, parse_fill, parse_padding, per_channel_error
from ..._names import accepts_canvas_size, video_kernel
from ...datapoints import BoundingBoxFormat, Image, Mask, Video
from .. import _cv2
from .._checks import check_spatial
from .._dtype import integer_range
from .._registry import get_kernel, register_kernels
from ._description import Geometry, register_geometry, transform_bounding_box
from ._matrix import translation_matrix

__all__ = [
    "pad",
    "pad_bounding_box",
    "pad_image_pil",
    "pad_image_tensor",
    "pad_mask",
    "pad_video",
]


def pad(inpt: Any, padding: PaddingArg, fill: FillArg = 0, padding_mode: str = "constant") -> Any:
    """Pad the borders of the input.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).
            Boxes shift by the left and top padding and get the grown ``spatial_size``.
        padding: non-negative pixels to add: an int (all sides), ``[left/right, top/bottom]`` or
            ``[left, top, right, bottom]``.
        fill: value of the new pixels with ``padding_mode="constant"`` (default 0; see ``visiontx.functional``).
        padding_mode: ``"constant"`` (default), ``"edge"`` (repeat the border pixel), ``"reflect"``
            (mirror without repeating it) or ``"symmetric"`` (mirror repeating it). Boxes need ``"constant"``.

    Example:
        >>> F.pad(image, [2, 4], fill=[255, 0, 0])  # 2 left/right, 4 top/bottom, red
    """
    return get_kernel(pad, type(inpt))(inpt, padding=padding, fill=fill, padding_mode=padding_mode)


def _reflect_index(length: int, before: int, after: int, mode: str, device: torch.device) -> torch.Tensor:
    """Source indices along one axis for ``edge`` / ``reflect`` / ``symmetric`` padding."""
    if length == 0:
        raise ValueError(f"padding_mode {mode!r} needs a non-empty image")
    index = torch.arange(-before, length + after, device=device)
    if mode == "edge":
        return index.clamp_(0, length - 1)
    period = 2 * length if mode == "symmetric" else 2 * (length - 1)
    if period == 0:
        return index.zero_()
    index = index.remainder_(period)
    mirror = period - index - (1 if mode == "symmetric" else 0)
    return torch.where(index < length, index, mirror)


def _pad_axis(image: torch.Tensor, before: int, after: int, mode: str, dim: int) -> torch.Tensor:
    """Pad one axis by gathering only the border strips and concatenating (a copy, no full gather)."""
    if before == 0 and after == 0:
        return image
    length = image.shape[dim]
    index = _reflect_index(length, before, after, mode, image.device)
    strips = [image.index_select(dim, index[:before]), image, image.index_select(dim, index[before + length :])]
    return torch.cat(strips, dim)


def _pad_constant(image: torch.Tensor, padding: tuple[int, int, int, int], fill: Sequence[float]) -> torch.Tensor:
    left, top, right, bottom = padding
    if len(fill) == 1:
        return torch.constant_pad_nd(image, [left, right, top, bottom], float(fill[0]))
    channels = image.shape[-3] if image.ndim >= 3 else 1
    if len(fill) != channels:
        raise per_channel_error("fill", channels, fill)
    height, width = image.shape[-2:]
    out = image.new_empty((*image.shape[:-2], top + height + bottom, left + width + right))
    out[...] = torch.tensor(fill, dtype=torch.float64).to(image.dtype).to(image.device).reshape(-1, 1, 1)
    out[..., top : top + height, left : left + width] = image
    return out


def constant_fill(image: torch.Tensor, fill: FillArg) -> list[float]:
    """``fill`` of a constant pad of ``image`` as floats (None: ``[0.0]``); ``ValueError`` naming ``fill`` when a
    value lies outside an integer dtype's range (torch's cast would wrap it)."""
    values = parse_fill(fill) or [0.0]
    if not image.is_floating_point() and image.dtype != torch.bool:
        low, high = integer_range(image.dtype)
        for value in values:
            if not low <= value <= high:
                raise ValueError(f"fill must be within {image.dtype}'s range [{low}, {high}], got {values}")
    return values


def pad_constant(image: torch.Tensor, padding: tuple[int, int, int, int], fill: Sequence[float]) -> torch.Tensor:
    """``[..., H, W]`` padded by ``padding`` (``(left, top, right, bottom)``, non-negative) with the values of
    :func:`constant_fill` (one, or one per channel): a new tensor."""
    if _cv2.can_pad(image, padding, "constant", fill):
        return _cv2.pad(image, padding, "constant", fill)
    return _pad_constant(image, padding, fill)


@register_kernels(pad, (torch.Tensor, Image, Video))
def pad_image_tensor(
    image: torch.Tensor, padding: PaddingArg, fill: FillArg = 0, padding_mode: str = "constant"
) -> torch.Tensor:
    """Pad a tensor ``[..., C, H, W]`` (``[..., H, W]`` with a scalar fill); any dtype stays as is."""
    check_spatial(image, "pad")
    padding = parse_padding(padding)
    check_padding_mode(padding_mode)
    if padding_mode == "constant":
        fill_values = constant_fill(image, fill)
        return pad_constant(image, padding, fill_values) if any(padding) else image
    fill_values = parse_fill(fill) or [0.0]  # checked, though these modes take no fill
    if _cv2.can_pad(image, padding, padding_mode, fill_values):
        return _cv2.pad(image, padding, padding_mode, fill_values)
    left, top, right, bottom = padding
    return _pad_axis(_pad_axis(image, top, bottom, padding_mode, -2), left, right, padding_mode, -1)


pad_video = video_kernel(pad_image_tensor)


@register_kernels(pad, Mask)
def pad_mask(
    mask: torch.Tensor, padding: PaddingArg, fill: FillArg = 0, padding_mode: str = "constant"
) -> torch.Tensor:
    """Pad a mask ``[..., H, W]``; ``fill`` must be a single number."""
    parse_fill(fill, channels=1)
    return pad_image_tensor(mask, padding, fill=fill, padding_mode=padding_mode)


def _pil_color(image: PIL.Image.Image, fill: FillArg) -> Any:
    bands = len(image.getbands())
    values = parse_fill(fill, bands) or [0.0]
    cast = float if image.mode == "F" else int  # Pillow's 32-bit "I" images take int colours
    values = [cast(v) for v in values] * (bands // len(values))
    return values[0] if bands == 1 else tuple(values)


@register_kernels(pad, PIL.Image.Image)
def pad_image_pil(
    image: PIL.Image.Image, padding: PaddingArg, fill: FillArg = 0, padding_mode: str = "constant"
) -> PIL.Image.Image:
    """Pad a PIL image."""
    left, top, right, bottom = parse_padding(padding)
    check_padding_mode(padding_mode)
    size = (left + image.width + right, top + image.height + bottom)
    if padding_mode == "constant":
        out = PIL.Image.new(image.mode, size, _pil_color(image, fill))
        if image.palette is not None:
            out.putpalette(image.getpalette())
        out.paste(image, (left, top))
        return out
    array = np.asarray(image)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (array.ndim - 2)
    out = PIL.Image.fromarray(np.pad(array, widths, mode=padding_mode))
    if image.mode in ("P", "PA"):  # the padded indices, with the image's palette
        out.putpalette(image.getpalette())
    return out


def pad_geometry(spatial_size: Sequence[int], padding: PaddingArg, padding_mode: str = "constant") -> Geometry:
    """A shift by the left / top padding onto the grown canvas; boxes are clamped to it and follow
    ``constant`` padding only."""
    error = None
    if check_padding_mode(padding_mode) != "constant":
        error = f"padding_mode for bounding boxes must be 'constant', got {padding_mode!r}"
    left, top, right, bottom = parse_padding(padding)
    new_size = (spatial_size[0] + top + bottom, spatial_size[1] + left + right)
    return Geometry(translation_matrix(left, top), new_size, clamp="boxes", points_error=error)


register_geometry(pad, pad_geometry, sampling=("fill",))


@accepts_canvas_size
def pad_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    padding: PaddingArg,
    padding_mode: str = "constant",
    clamping_mode: str | None = "soft",
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Shift boxes ``[..., 4]`` by the left / top padding (clamped to the padded image, as
    torchvision). Only ``constant`` padding keeps boxes meaningful; other modes raise ``ValueError``."""
    geometry = pad_geometry(spatial_size, padding, padding_mode)
    return transform_bounding_box(bounding_box, format, geometry, clamping_mode), geometry.canvas_size
