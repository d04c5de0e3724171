"""Resize and pad of ``[..., C, H, W]`` images through OpenCV (or torch's own kernel on interleaved pixels)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import torch

from .._interpolation import InterpolationMode, nearest_source
from ._base import MAX_SIZE, can_use, cv2, native
from ._layout import channel_count, interleaved, plane_fill, planes, scratch
from ._masks import sample_packed

__all__ = [
    "can_gather",
    "can_pad",
    "can_resize",
    "can_resize_interleaved",
    "can_resize_linear",
    "can_resize_native",
    "can_resize_nearest",
    "can_shrink",
    "gather",
    "pad",
    "resize",
    "resize_interleaved",
    "resize_linear",
    "resize_native",
    "resize_gather",
    "resize_nearest",
    "shrink",
]


def can_resize(image: torch.Tensor, size: Sequence[int], mode: InterpolationMode, antialias: bool) -> str | None:
    """Whether a resize of ``image`` to ``size`` can take :func:`resize`: the name of the runner it takes (see
    :func:`_resize_path`; hand it to :func:`resize`), or None."""
    return _resize_path(image, size, mode, antialias) if can_use(image) else None


def resize(
    image: torch.Tensor, size: Sequence[int], mode: InterpolationMode, antialias: bool, path: str
) -> torch.Tensor:
    """The resize :func:`can_resize` allows, by the runner ``path`` it named: torch's values exactly, or within 1
    level (uint8) or 1e-4 (float32) for bilinear through OpenCV."""
    if path == "native":
        return resize_native(image, size, mode.value, antialias)
    if path == "linear":
        return resize_linear(image, size)
    if path == "nearest":
        return resize_nearest(image, size)
    if path == "gather":
        return resize_gather(image, size)
    return resize_interleaved(image, size, mode.value, antialias)


def _resize_path(image: torch.Tensor, size: Sequence[int], mode: InterpolationMode, antialias: bool) -> str | None:
    """The runner of a resize of an image the wing can use: nearest through OpenCV where its indices are torch's
    (:func:`can_resize_nearest`), else by torch's indices (:func:`resize_gather`); the compiled kernel for uint8
    bilinear and antialiased bicubic (torch's values, :func:`can_resize_native`); OpenCV's ``INTER_LINEAR`` for
    float32 bilinear without a low-pass filter (:func:`can_resize_linear`); torch's uint8 kernel on interleaved
    pixels for the rest (:func:`can_resize_interleaved`); None: torch's own path."""
    if mode == InterpolationMode.NEAREST:
        return "nearest" if _nearest_suffices(image, size) else "gather"
    value = mode.value
    if _native_suffices(image, value, antialias):
        return "native"
    if mode == InterpolationMode.BILINEAR and _linear_suffices(image, size, antialias):
        return "linear"
    return "interleaved" if _interleaved_suffices(image, size, value) else None


def can_resize_linear(image: torch.Tensor, size: Sequence[int], antialias: bool) -> bool:
    """Whether a bilinear resize of ``image`` to ``size`` can take OpenCV's ``INTER_LINEAR``
    (:func:`resize_linear`): uint8 or float32 without the low-pass filter, which only differs from
    plain bilinear where a side shrinks (``antialias`` with no side shrinking qualifies too)."""
    return can_use(image) and _linear_suffices(image, size, antialias)


def _linear_suffices(image: torch.Tensor, size: Sequence[int], antialias: bool) -> bool:
    """:func:`can_resize_linear` but for :func:`can_use`: no low-pass filter needed, sizes OpenCV takes."""
    height, width = image.shape[-2:]
    shrinks = size[0] < height or size[1] < width
    return not (antialias and shrinks) and max(*size, height, width) < MAX_SIZE


def resize_linear(image: torch.Tensor, size: Sequence[int]) -> torch.Tensor:
    """Bilinear resize (half-pixel centres, edges clamped) of each ``H x W`` plane by OpenCV's
    ``INTER_LINEAR``: its fixed-point uint8 weights put some pixels 1 level from torch's (about one in
    four), 5-10x faster than torch's uint8 kernel."""
    src, out, dst = planes(image, size)
    for i in range(src.shape[0]):
        cv2.resize(src[i], (size[1], size[0]), dst=dst[i], interpolation=cv2.INTER_LINEAR)
    return out


@functools.lru_cache(maxsize=256)
def _nearest_agrees(in_len: int, out_len: int) -> bool:
    """Whether OpenCV's nearest-neighbour source indices (``floor(x * (1 / (out / in)))`` in double)
    equal torch's ``nearest`` ones (float32 maths) for this length: they differ for some sizes."""
    torch_index = nearest_source(in_len, out_len).numpy()
    cv2_index = np.minimum(np.floor(np.arange(out_len) * (1.0 / (out_len / in_len))), in_len - 1)
    return bool(np.array_equal(torch_index, cv2_index))


def can_resize_nearest(image: torch.Tensor, size: Sequence[int]) -> bool:
    """Whether ``image`` can be resized to ``size`` by OpenCV with exactly torch's ``nearest`` indices."""
    return can_use(image) and _nearest_suffices(image, size)


def _nearest_suffices(image: torch.Tensor, size: Sequence[int]) -> bool:
    """:func:`can_resize_nearest` but for :func:`can_use`."""
    height, width = image.shape[-2:]
    return max(*size, height, width) < MAX_SIZE and _nearest_agrees(height, size[0]) and _nearest_agrees(width, size[1])


def resize_nearest(image: torch.Tensor, size: Sequence[int]) -> torch.Tensor:
    """Nearest-neighbour resize of each ``H x W`` plane to ``size`` ``(H, W)``; where it does not shrink, four or
    more planes of 0 / 1 (instance masks) eight to a byte (``_masks.sample_packed``: packing reads every input
    pixel, a shrinking resize only those it keeps)."""
    if size[0] * size[1] >= image.shape[-2] * image.shape[-1]:
        packed = sample_packed(image, size, None, lambda bits, fills: resize_nearest(bits, size))
        if packed is not None:
            return packed
    src, out, dst = planes(image, size)
    for i in range(src.shape[0]):
        cv2.resize(src[i], (size[1], size[0]), dst=dst[i], interpolation=cv2.INTER_NEAREST)
    return out


def resize_gather(image: torch.Tensor, size: Sequence[int]) -> torch.Tensor:
    """Nearest resize by torch's own source indices (:func:`gather`). For the sizes where OpenCV's indices differ
    from torch's: 8 x 200 x 202 masks to 374 x 448 take 0.54 ms where torch's kernel takes 1.01."""
    return gather(image, nearest_source(image.shape[-2], size[0]), nearest_source(image.shape[-1], size[1]))


def can_gather(image: torch.Tensor) -> bool:
    """Whether :func:`gather` can take ``image`` (a plain uint8 or float32 CPU tensor)."""
    return can_use(image)


def gather(image: torch.Tensor, rows: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
    """``image[..., rows, :][..., columns]`` (int64 indices within the image): the rows by ``index_select`` (row
    copies), the columns by numpy's ``take``; torch's gather along the last dimension costs ~4x as much for
    uint8 (8 x 511 x 511 masks: 3.6 against 0.8 ms)."""
    picked = image.index_select(-2, rows)
    return torch.from_numpy(np.take(picked.numpy(), columns.numpy(), axis=-1))


def can_shrink(image: torch.Tensor) -> bool:
    """Whether a block average of ``image`` (:func:`shrink`) can take OpenCV's ``INTER_AREA``."""
    return can_use(image) and max(image.shape[-2:]) < MAX_SIZE


def shrink(image: torch.Tensor, factors: Sequence[int]) -> torch.Tensor:
    """The mean of each whole ``ky x kx`` block of every plane (``INTER_AREA`` by whole factors), rounded;
    the rows and columns past the last whole block are dropped."""
    ky, kx = factors
    size = (image.shape[-2] // ky, image.shape[-1] // kx)
    src, out, dst = planes(image[..., : size[0] * ky, : size[1] * kx], size)
    for i in range(src.shape[0]):
        cv2.resize(src[i], (size[1], size[0]), dst=dst[i], interpolation=cv2.INTER_AREA)
    return out


_SMOOTH_MODES = ("bilinear", "bicubic")
_INTERLEAVED_MIN_PIXELS = 1 << 16  # input plus output pixels; below, torch's own layout change costs less


def can_resize_native(image: torch.Tensor, mode: str, antialias: bool) -> bool:
    """Whether a resize of ``image`` can take the compiled kernel (:func:`resize_native`): uint8 bilinear, or
    bicubic with antialias (torch samples bicubic without it otherwise), any channels and sizes,
    ``visiontx._native`` built with its vectorised loops."""
    return can_use(image) and _native_suffices(image, mode, antialias)


def _native_suffices(image: torch.Tensor, mode: str, antialias: bool) -> bool:
    """:func:`can_resize_native` but for :func:`can_use`."""
    smooth = mode == "bilinear" or antialias and mode == "bicubic"
    return smooth and image.dtype == torch.uint8 and native() is not None


def resize_native(image: torch.Tensor, size: Sequence[int], mode: str, antialias: bool) -> torch.Tensor:
    """Bilinear (or antialiased bicubic) resize of each uint8 ``H x W`` plane with torch's values exactly (the
    same int16 weights, passes and rounding; ``visiontx/_native.c``): antialiased halvings 6-8x torch's
    planar kernel, other scales 3-4x; 1.6-3x OpenCV's ``INTER_LINEAR`` of the planes without antialias."""
    src, out, dst = planes(image, size)
    native().resize(src, dst, mode == "bicubic", antialias)
    return out


def can_resize_interleaved(image: torch.Tensor, size: Sequence[int], mode: str) -> bool:
    """Whether a bilinear / bicubic resize of ``image`` to ``size`` should run torch's uint8 kernel
    on interleaved pixels (3 or 4 channels, the layout that kernel works in): for images of 64K input
    and output pixels or more."""
    return can_use(image) and _interleaved_suffices(image, size, mode)


def _interleaved_suffices(image: torch.Tensor, size: Sequence[int], mode: str) -> bool:
    """:func:`can_resize_interleaved` but for :func:`can_use`."""
    return (
        mode in _SMOOTH_MODES
        and image.dtype == torch.uint8
        and image.ndim >= 3
        and image.shape[-3] in (3, 4)
        and image.shape[-2] * image.shape[-1] + size[0] * size[1] >= _INTERLEAVED_MIN_PIXELS
    )


def resize_interleaved(image: torch.Tensor, size: Sequence[int], mode: str, antialias: bool) -> torch.Tensor:
    """Resize uint8 ``[..., C, H, W]`` (C is 3 or 4) with torch's own ``interpolate`` (the same
    values), handing it ``H x W x C`` pixels: its uint8 kernel converts planar input to that layout
    itself, slower than OpenCV's merge before and split after."""
    channels, height, width = image.shape[-3:]
    items = image.reshape(-1, channels, height, width)
    out = np.empty((*image.shape[:-2], *size), dtype=np.uint8)
    for item, target in zip(items, out.reshape(-1, channels, *size)):
        merged = scratch([((height, width, channels), np.uint8)], slot="resize")[0]  # reused: no page faults
        pixels = torch.from_numpy(interleaved(item, out=merged)).unsqueeze(0).permute(0, 3, 1, 2)  # N x C x H x W
        resized = torch.nn.functional.interpolate(
            pixels, size=size, mode=mode, align_corners=False, antialias=antialias
        )
        cv2.split(resized[0].permute(1, 2, 0).contiguous().numpy(), list(target))  # already contiguous: a no-op
    return torch.from_numpy(out)


# OpenCV's BORDER_CONSTANT, BORDER_REPLICATE, BORDER_REFLECT_101 (no edge repeat), BORDER_REFLECT (edge repeated)
_BORDERS = {"constant": 0, "edge": 1, "reflect": 4, "symmetric": 2}
# Constant pads of one fill value with smaller outputs take torch's constant_pad_nd: cheaper than the wing's glue
# there (Pad(4) of 3 x 32 x 32 uint8: 9.1 against 10.6 µs a call); from ~300 KB on, torch's fresh output (past
# malloc's mmap threshold) was as slow or slower (benchmarks/NOTES.md, round 18)
_TORCH_PAD_BYTES = 1 << 17


def can_pad(image: torch.Tensor, padding: Sequence[int], padding_mode: str, fill: Sequence[float]) -> bool:
    """Whether a pad by ``padding`` (non-negative, as the kernel checks) can take :func:`pad`: some
    padding; constant fills one per channel (or one) and, for uint8, whole numbers in 0..255; not constant pads
    of one fill value to outputs under ``_TORCH_PAD_BYTES`` (torch's kernel is cheaper there)."""
    if padding_mode == "constant" and len(fill) == 1 and _padded_bytes(image, padding) < _TORCH_PAD_BYTES:
        return False
    if not any(padding) or not can_use(image) or padding_mode not in _BORDERS:
        return False
    if padding_mode != "constant":
        return True
    if len(fill) != 1 and (image.ndim < 3 or len(fill) != image.shape[-3]):
        return False
    if image.dtype != torch.uint8:
        return True
    for value in fill:
        if not (0 <= value <= 255 and float(value).is_integer()):
            return False
    return True


def _padded_bytes(image: torch.Tensor, padding: Sequence[int]) -> int:
    left, top, right, bottom = padding
    height, width = image.shape[-2:]
    planes = image.numel() // (height * width) if height * width else 0
    return planes * (height + top + bottom) * (width + left + right) * image.element_size()


def pad(image: torch.Tensor, padding: Sequence[int], padding_mode: str, fill: Sequence[float]) -> torch.Tensor:
    """Pad ``[..., H, W]`` planes by ``padding`` ``(left, top, right, bottom)``: constant (per-channel
    ``fill``), edge, reflect (no edge repeat) or symmetric (edge repeated)."""
    left, top, right, bottom = padding
    size = (image.shape[-2] + top + bottom, image.shape[-1] + left + right)
    border = _BORDERS[padding_mode]
    src, out, dst = planes(image, size)
    constant = padding_mode == "constant"  # the other modes take no fill (as torch's path: any fill is ignored)
    if constant and src.dtype == np.uint8 and native() is not None:  # whole fills 0..255 (can_pad)
        per_channel = bytes([int(value) for value in fill])  # one for all, or one per channel (can_pad)
        native().pad(src, dst, tuple(padding), per_channel * (src.shape[0] // len(per_channel)))  # bytes written once
        return out
    channels = channel_count(image)
    fills = [plane_fill(fill, channels, i) if constant else 0.0 for i in range(src.shape[0])]
    for i in range(src.shape[0]):
        cv2.copyMakeBorder(src[i], top, bottom, left, right, border, dst=dst[i], value=fills[i])
    return out
