"""Pad for every input type: constant (number or per-channel fill), edge, reflect and symmetric.

``padding`` is an int (all sides), ``[left/right, top/bottom]`` or ``[left, top, right, bottom]``, as
torchvision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import numpy as np
import PIL.Image
import torch
from torch.nn.functional import pad as torch_pad

from ...datapoints import BoundingBox, BoundingBoxFormat, Image, Mask, Video
from .. import _fast
from .._checks import check_spatial, per_channel_error
from .._meta import clamp_bounding_box_tensor
from .._registry import get_kernel, register_kernels
from ._matrix import transform_boxes, translation_matrix

__all__ = [
    "pad",
    "pad_bounding_box",
    "pad_image_pil",
    "pad_image_tensor",
    "pad_mask",
    "pad_video",
]

PaddingArg = Union[int, Sequence[int]]
FillArg = Union[int, float, Sequence[Union[int, float]], None]
PADDING_MODES = ("constant", "edge", "reflect", "symmetric")


def parse_padding(padding: PaddingArg) -> tuple[int, int, int, int]:
    """``padding`` as ``(left, top, right, bottom)``; ``ValueError`` / ``TypeError`` when malformed."""
    if type(padding) is int and padding >= 0:
        return padding, padding, padding, padding
    if isinstance(padding, int) and not isinstance(padding, bool):
        values = [padding] * 4
    elif isinstance(padding, Sequence) and not isinstance(padding, str) and len(padding) in (1, 2, 4):
        values = list(padding) * (4 // len(padding))
    else:
        raise TypeError(f"padding must be an int or a sequence of 1, 2 or 4 ints, got {padding!r}")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise TypeError(f"padding must hold ints, got {padding!r}")
    if any(v < 0 for v in values):
        raise ValueError(f"padding must be non-negative, got {padding!r}")
    left, top, right, bottom = values
    return left, top, right, bottom


def check_padding_mode(padding_mode: str) -> str:
    if padding_mode not in PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {PADDING_MODES}, got {padding_mode!r}")
    return padding_mode


def pad(inpt: Any, padding: PaddingArg, fill: FillArg = 0, padding_mode: str = "constant") -> Any:
    """Pad the borders. Supports image tensors, PIL images, videos, masks and boxes (``constant`` only;
    their ``spatial_size`` grows).

    Example:
        >>> F.pad(image, [2, 4], fill=[255, 0, 0])  # 2 left/right, 4 top/bottom, red
    """
    return get_kernel(pad, type(inpt))(inpt, padding=padding, fill=fill, padding_mode=padding_mode)


def _fill_values(fill: FillArg) -> list[float]:
    if fill is None:
        return [0.0]
    if isinstance(fill, (int, float)) and not isinstance(fill, bool):
        return [fill]
    if isinstance(fill, Sequence) and not isinstance(fill, str) and len(fill) > 0:
        return list(fill)
    raise TypeError(f"fill must be a number or a non-empty sequence of numbers, got {fill!r}")


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


def _pad_constant(image: torch.Tensor, padding: tuple[int, int, int, int], fill: list[float]) -> torch.Tensor:
    left, top, right, bottom = padding
    if len(fill) == 1:
        return torch_pad(image, [left, right, top, bottom], value=float(fill[0]))
    channels = image.shape[-3] if image.ndim >= 3 else 1
    if len(fill) != channels:
        raise per_channel_error("fill", channels, fill)
    height, width = image.shape[-2:]
    out = image.new_empty((*image.shape[:-2], top + height + bottom, left + width + right))
    out[...] = torch.tensor(fill, dtype=torch.float64).to(image.dtype).to(image.device).reshape(-1, 1, 1)
    out[..., top : top + height, left : left + width] = image
    return out


@register_kernels(pad, (torch.Tensor, Image, Video))
def pad_image_tensor(
    image: torch.Tensor, padding: PaddingArg, fill: FillArg = 0, padding_mode: str = "constant"
) -> torch.Tensor:
    """Pad a tensor ``[..., C, H, W]`` (``[..., H, W]`` with a scalar fill); any dtype stays as is."""
    check_spatial(image, "pad")
    padding = parse_padding(padding)
    check_padding_mode(padding_mode)
    fill_values = _fill_values(fill)
    if any(padding) and _fast.can_pad(image, padding_mode, fill_values):
        return _fast.pad(image, padding, padding_mode, fill_values)
    if padding_mode == "constant":
        return image if not any(padding) else _pad_constant(image, padding, fill_values)
    left, top, right, bottom = padding
    return _pad_axis(_pad_axis(image, top, bottom, padding_mode, -2), left, right, padding_mode, -1)


pad_video = pad_image_tensor


@register_kernels(pad, Mask)
def pad_mask(
    mask: torch.Tensor, padding: PaddingArg, fill: FillArg = 0, padding_mode: str = "constant"
) -> torch.Tensor:
    """Pad a mask ``[..., H, W]``; ``fill`` must be a single number."""
    if len(_fill_values(fill)) != 1:
        raise ValueError(f"fill for masks must be a single number, got {fill!r}")
    return pad_image_tensor(mask, padding, fill=fill, padding_mode=padding_mode)


def _pil_color(image: PIL.Image.Image, fill: FillArg) -> Any:
    values = _fill_values(fill)
    bands = len(image.getbands())
    if len(values) not in (1, bands):
        raise per_channel_error("fill", bands, fill)
    cast = float if image.mode in ("F", "I") else int
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
    return PIL.Image.fromarray(np.pad(array, widths, mode=padding_mode))


def pad_bounding_box(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    padding: PaddingArg,
    padding_mode: str = "constant",
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Shift boxes ``[..., 4]`` by the left / top padding (clamped to the padded image, as
    torchvision). Only ``constant`` padding keeps boxes meaningful; other modes raise ``ValueError``."""
    if check_padding_mode(padding_mode) != "constant":
        raise ValueError(f"padding_mode for bounding boxes must be 'constant', got {padding_mode!r}")
    left, top, right, bottom = parse_padding(padding)
    new_size = (spatial_size[0] + top + bottom, spatial_size[1] + left + right)
    boxes = transform_boxes(bounding_box, format, translation_matrix(left, top))
    return clamp_bounding_box_tensor(boxes, format, new_size), new_size


@register_kernels(pad, BoundingBox)
def _pad_bounding_box_dispatch(
    bounding_box: torch.Tensor,
    padding: PaddingArg,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    fill: FillArg = 0,
    padding_mode: str = "constant",
) -> tuple[torch.Tensor, tuple[int, int]]:
    return pad_bounding_box(bounding_box, format, spatial_size, padding, padding_mode=padding_mode)
