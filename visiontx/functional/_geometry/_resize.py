"""Resize for every input type.

Output size rules (as torchvision): an int ``size`` (or ``[s]``) is the shorter edge, the longer edge
keeps the aspect ratio (truncated) and is capped by ``max_size``; ``(h, w)`` is the exact output;
``size=None`` with ``max_size`` scales the longer edge to ``max_size``. A resize to the input's own
size returns the input itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import PIL.Image
import torch
from torch.nn.functional import interpolate

from ..._args import SizeArg, check_positive_int, parse_size
from ..._names import accepts_canvas_size, video_kernel
from ...datapoints import BoundingBoxFormat, Image, Video
from .. import _cv2
from .._checks import check_spatial
from .._interpolation import InterpolationMode, UnsupportedInterpolationError, nearest_source
from .._registry import get_kernel, register_kernels, register_mask_kernel
from ._description import Geometry, register_geometry, transform_bounding_box
from ._matrix import scale_matrix

__all__ = [
    "resize",
    "resize_bounding_box",
    "resize_image_pil",
    "resize_image_tensor",
    "resize_mask",
    "resize_video",
]

_NEAREST = (InterpolationMode.NEAREST, InterpolationMode.NEAREST_EXACT)
_SMOOTH = (InterpolationMode.BILINEAR, InterpolationMode.BICUBIC, InterpolationMode.LANCZOS)


def compute_resized_size(spatial_size: Sequence[int], size: SizeArg, max_size: int | None = None) -> tuple[int, int]:
    """The ``(H, W)`` a resize of an image of ``spatial_size`` to ``size`` produces."""
    parsed = parse_size(size, max_size)
    if max_size is not None:
        check_positive_int(max_size, "max_size")
    height, width = spatial_size
    if height == 0 or width == 0:
        raise ValueError(f"cannot resize an image of size {(height, width)}: it has no pixels to sample")
    if parsed is not None and len(parsed) == 2:
        return parsed[0], parsed[1]
    short, long = min(height, width), max(height, width)
    if parsed is None:
        new_short, new_long = int(max_size * short / long), max_size  # type: ignore[operator]
    else:
        new_short, new_long = parsed[0], int(parsed[0] * long / short)
        if max_size is not None:
            if max_size <= new_short:
                raise ValueError(f"max_size ({max_size}) must be larger than the shorter edge size ({new_short})")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
    if new_short == 0:
        raise ValueError(
            f"resizing {(height, width)} to size={size!r}, max_size={max_size!r} would leave a side of 0 pixels"
        )
    return (new_long, new_short) if width <= height else (new_short, new_long)


def resize(
    inpt: Any,
    size: SizeArg,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    max_size: int | None = None,
    antialias: bool | None = True,
) -> Any:
    """Resize to ``size``; a resize to the input's own size returns the input itself.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``).
            Boxes are scaled (not clamped) and get the new ``spatial_size``.
        size: an int (or ``[s]``) sets the shorter edge and keeps the aspect ratio; ``(h, w)`` is the
            exact output size; None scales the longer edge to ``max_size``.
        interpolation: the filter (default bilinear); see ``visiontx.functional``.
        max_size: upper bound of the longer edge when ``size`` is an int, ``[s]`` or None; it must be
            larger than an int ``size``. None (default): no bound.
        antialias: low-pass filter tensors downscaled with bilinear, bicubic or lanczos (default True;
            None counts as False; lanczos needs True). PIL images are always antialiased.

    Example:
        >>> F.resize(image, [224, 224])
    """
    kernel = get_kernel(resize, type(inpt))
    return kernel(inpt, size=size, interpolation=interpolation, max_size=max_size, antialias=antialias)


_TENSOR_MODES = frozenset((*_NEAREST, *_SMOOTH))


def _check_tensor_mode(interpolation: InterpolationMode, antialias: bool) -> None:
    if interpolation not in _TENSOR_MODES:
        message = f"interpolation {interpolation.value!r} is not supported for tensors, use PIL images"
        raise UnsupportedInterpolationError(message)
    if interpolation == InterpolationMode.LANCZOS and not antialias:
        raise ValueError("interpolation 'lanczos' requires antialias=True")


def _interpolate(image: torch.Tensor, size: tuple[int, int], mode: InterpolationMode, antialias: bool) -> torch.Tensor:
    """``interpolate`` on ``[N, C, H, W]``; uint8 stays uint8 natively where torch supports it."""
    smooth = mode in _SMOOTH
    if mode in _NEAREST and not (image.is_floating_point() or image.dtype == torch.uint8):
        return _nearest_by_index(image, size, mode)
    native_uint8 = image.dtype == torch.uint8 and image.device.type == "cpu"
    # torch has no smooth half-precision kernels on the CPU
    half_on_cpu = image.dtype in (torch.float16, torch.bfloat16) and image.device.type == "cpu"
    native = (image.is_floating_point() and not (smooth and half_on_cpu)) or mode in _NEAREST or native_uint8
    work = image if native else image.float()
    if native_uint8 and smooth and tuple(size) == (1, 1):  # torch's uint8 kernel asserts on planar input there
        work = work.contiguous(memory_format=torch.channels_last)
    elif native_uint8 and smooth and work.is_contiguous() and work.stride() != _row_major_strides(work.shape):
        # Contiguous, but with odd strides on size-1 dims: torch's uint8 kernel reads past the data then.
        work = work.clone(memory_format=torch.contiguous_format)
    out = interpolate(
        work, size=size, mode=mode.value, align_corners=False if smooth else None, antialias=antialias and smooth
    )
    if native:
        return out
    if image.is_floating_point():
        return out.to(image.dtype)
    return out.round_().clamp_(0, 255).to(image.dtype) if image.dtype == torch.uint8 else out.round_().to(image.dtype)


def _row_major_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """The strides of a fresh contiguous tensor of ``shape`` (size-1 and empty dims included)."""
    strides, step = [], 1
    for length in reversed(shape):
        strides.append(step)
        step *= max(length, 1)
    return tuple(reversed(strides))


def _nearest_by_index(image: torch.Tensor, size: tuple[int, int], mode: InterpolationMode) -> torch.Tensor:
    """Nearest resize by gathering rows and columns: exact for every dtype (torch's ``interpolate`` has no
    integer kernels besides uint8)."""
    rows = nearest_source(image.shape[-2], size[0], mode.value, image.device)
    cols = nearest_source(image.shape[-1], size[1], mode.value, image.device)
    return take_rows_columns(image, rows, cols)


def take_rows_columns(image: torch.Tensor, rows: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
    """``image[..., rows, :][..., columns]`` (int64 indices within the image, on its device or the CPU): the
    OpenCV wing's gather where it takes the image, else two ``index_select``s."""
    if _cv2.can_gather(image):
        return _cv2.gather(image, rows, columns)
    return image.index_select(-2, rows.to(image.device)).index_select(-1, columns.to(image.device))


@register_kernels(resize, (torch.Tensor, Image, Video))
def resize_image_tensor(
    image: torch.Tensor,
    size: SizeArg,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    max_size: int | None = None,
    antialias: bool | None = True,
) -> torch.Tensor:
    """Resize a tensor ``[..., C, H, W]``; uint8 stays uint8, the same size returns the input."""
    check_spatial(image, "resize")
    interpolation = InterpolationMode.parse(interpolation)
    antialias = bool(antialias)
    _check_tensor_mode(interpolation, antialias)
    shape = image.shape
    height, width = shape[-2:]
    new_size = compute_resized_size((height, width), size, max_size)
    if new_size == (height, width):
        return image
    out_shape = (*shape[:-2], *new_size)
    if image.numel() == 0:
        return image.new_empty(out_shape)
    path = _cv2.can_resize(image, new_size, interpolation, antialias)  # any leading dims: no reshapes
    if path:
        return _cv2.resize(image, new_size, interpolation, antialias, path)
    channels = shape[-3] if image.ndim >= 3 else 1
    flat = image.reshape(-1, channels, *shape[-2:])
    return _interpolate(flat, new_size, interpolation, antialias).reshape(out_shape)


resize_video = video_kernel(resize_image_tensor)


@register_kernels(resize, PIL.Image.Image)
def resize_image_pil(
    image: PIL.Image.Image,
    size: SizeArg,
    interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
    max_size: int | None = None,
    antialias: bool | None = True,
) -> PIL.Image.Image:
    """Resize a PIL image (PIL always antialiases; ``antialias`` is accepted for symmetry)."""
    interpolation = InterpolationMode.parse(interpolation)
    new_size = compute_resized_size((image.height, image.width), size, max_size)
    if new_size == (image.height, image.width):
        return image
    return image.resize((new_size[1], new_size[0]), resample=interpolation.pil)


def resize_mask(
    mask: torch.Tensor,
    size: SizeArg,
    interpolation: InterpolationMode | str | int = InterpolationMode.NEAREST,
    max_size: int | None = None,
) -> torch.Tensor:
    """Resize a mask ``[..., H, W]`` with nearest neighbours (``nearest-exact`` is honoured, any other
    interpolation falls back to ``nearest``, as torchvision)."""
    mode = InterpolationMode.parse(interpolation)
    mode = mode if mode == InterpolationMode.NEAREST_EXACT else InterpolationMode.NEAREST
    work = mask.view(torch.uint8) if mask.dtype == torch.bool else mask  # torch has no bool interpolation
    out = resize_image_tensor(work.unsqueeze(-3), size, mode, max_size=max_size).squeeze(-3)
    return out.view(torch.bool) if mask.dtype == torch.bool else out


register_mask_kernel(resize, resize_mask, sampling=("antialias",))


def resize_geometry(spatial_size: Sequence[int], size: SizeArg, max_size: int | None = None) -> Geometry:
    """The scaling onto the resized canvas (boxes are not clamped, as torchvision)."""
    old_height, old_width = spatial_size
    new_height, new_width = compute_resized_size(spatial_size, size, max_size)
    matrix = scale_matrix(new_width / old_width, new_height / old_height)
    return Geometry(matrix, (new_height, new_width))


register_geometry(resize, resize_geometry, sampling=("interpolation", "antialias"))


@accepts_canvas_size
def resize_bounding_box(
    bounding_box: torch.Tensor,
    spatial_size: Sequence[int],
    size: SizeArg,
    max_size: int | None = None,
    format: BoundingBoxFormat | str = BoundingBoxFormat.XYXY,
    clamping_mode: str | None = "soft",
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Scale boxes ``[..., 4]`` in ``format`` from an image of ``spatial_size`` to the resized image.

    Returns ``(boxes, new_spatial_size)``; boxes are not clamped (as torchvision).
    """
    geometry = resize_geometry(spatial_size, size, max_size)
    return transform_bounding_box(bounding_box, format, geometry, clamping_mode), geometry.canvas_size
