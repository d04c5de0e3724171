"""Memory layouts: planar tensors <-> interleaved pixels, the ``H x W`` planes OpenCV works on, scratch buffers.

Layout changes go through OpenCV's merge / split (numpy without OpenCV): torch's and numpy's uint8
transpositions are much slower, which also matters for images made from PIL images and numpy arrays
(interleaved in memory).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from ._base import available, cv2

__all__ = [
    "can_pil_planes",
    "channel_count",
    "contiguous",
    "interleaved",
    "pil_planes",
    "plane_fill",
    "planar",
    "planes",
    "scratch",
]


def _is_interleaved(image: torch.Tensor) -> bool:
    """Whether a non-contiguous CPU uint8 ``[..., C, H, W]`` tensor (C is 2 to 4) keeps its channels
    innermost, as rows of ``W x C`` pixels (tensors made from PIL images and numpy arrays, and crops
    of them)."""
    if image.ndim < 3 or image.dtype != torch.uint8 or not image.is_cpu or image.is_contiguous():
        return False
    channels, _, width = image.shape[-3:]
    strides = image.stride()[-3:]
    return 1 < channels <= 4 and strides[0] == 1 and strides[2] == channels and strides[1] >= width * channels


def planar(pixels: np.ndarray) -> torch.Tensor:
    """Contiguous uint8 ``[..., C, H, W]`` tensor of ``[..., H, W, C]`` pixels (C <= 4), split by OpenCV."""
    height, width, channels = pixels.shape[-3:]
    out = np.empty((*pixels.shape[:-3], channels, height, width), dtype=np.uint8)
    if cv2 is None or channels == 1 or pixels.size == 0:
        np.copyto(out, np.moveaxis(pixels, -1, -3))
        return torch.from_numpy(out)
    for item, target in zip(pixels.reshape(-1, height, width, channels), out.reshape(-1, channels, height, width)):
        cv2.split(item, list(target))
    return torch.from_numpy(out)


def interleaved(image: torch.Tensor, out: np.ndarray | None = None) -> np.ndarray:
    """Contiguous ``H x W x C`` numpy pixels of a CPU ``C x H x W`` tensor (uint8, or float32 with
    ``out``; C <= 4), merged by OpenCV. Without ``out`` an interleaved uint8 input may come back as a
    view of its own memory; with ``out`` the pixels are always written there."""
    if cv2 is not None and image.is_contiguous():  # the common case first: planes read through numpy
        planes = image.numpy()
        channels = planes.shape[0]
        if channels > 1 and planes.size:
            return cv2.merge(list(planes), dst=out).reshape(*planes.shape[1:], channels)
    if _is_interleaved(image):
        pixels = image.movedim(-3, -1).numpy()
        return np.ascontiguousarray(pixels) if out is None else _copied(pixels, out)
    if cv2 is None or image.shape[0] == 1 or image.numel() == 0:
        pixels = image.numpy().transpose(1, 2, 0)
        return np.ascontiguousarray(pixels) if out is None else _copied(pixels, out)
    planes = image.numpy() if image.stride(-1) == 1 else image.contiguous().numpy()  # OpenCV takes row strides (crops)
    return cv2.merge(list(planes), dst=out).reshape(*image.shape[1:], image.shape[0])


# PIL mode -> (Pillow's raw mode to read, channels kept): RGB is read as Pillow's own 4-byte pixels
_PIL_RAW = {"L": ("L", 1), "RGB": ("RGBX", 3), "RGBA": ("RGBA", 4)}


def can_pil_planes(image: Any) -> bool:
    """Whether :func:`pil_planes` can convert the PIL ``image``: mode L, RGB or RGBA, not empty."""
    return available() and image.mode in _PIL_RAW and image.width > 0 and image.height > 0


def pil_planes(image: Any) -> torch.Tensor:
    """Contiguous uint8 ``C x H x W`` tensor of an L, RGB or RGBA PIL image: Pillow's raw bytes made
    planar (:func:`planar`). RGB is read as ``RGBX``, a straight copy of Pillow's 4-byte pixels (packing
    them to 3 bytes costs about three times as much), and the padding byte is split off into scratch."""
    raw, channels = _PIL_RAW[image.mode]
    width, height = image.size
    pixels = np.frombuffer(image.tobytes("raw", raw), dtype=np.uint8).reshape(height, width, len(raw))
    if cv2 is None or len(raw) == channels:
        return planar(pixels[:, :, :channels])
    out = np.empty((channels, height, width), dtype=np.uint8)
    cv2.split(pixels, [*out, scratch([((height, width), np.uint8)], slot="pil")[0]])
    return torch.from_numpy(out)


def _copied(pixels: np.ndarray, out: np.ndarray) -> np.ndarray:
    np.copyto(out, pixels)
    return out


def contiguous(image: torch.Tensor) -> torch.Tensor:
    """``image.contiguous()``, with interleaved uint8 images (see :func:`_is_interleaved`) made planar
    by OpenCV."""
    return planar(image.movedim(-3, -1).numpy()) if _is_interleaved(image) else image.contiguous()


def planes(
    image: torch.Tensor, out_size: Sequence[int] | None = None, dtype: Any = None
) -> tuple[np.ndarray, torch.Tensor, np.ndarray]:
    """(input planes ``N x H x W`` as numpy, output tensor, output planes as numpy); the output has the
    input's dtype unless ``dtype`` (numpy's) is given."""
    if image.is_contiguous():  # the common case first: numpy's shape is cheaper to read than torch's
        array = image.numpy()
    else:  # crops keep their row stride (OpenCV takes it; no copy); interleaved pixels have another last stride
        array = (image if image.stride(-1) == 1 else contiguous(image)).numpy()
    *lead, height, width = array.shape
    out_h, out_w = out_size if out_size is not None else (height, width)
    dst = np.empty((*lead, out_h, out_w), dtype=dtype or array.dtype)  # with from_numpy: cheaper than torch.empty
    if len(lead) == 1:  # C x H x W: planes already
        return array, torch.from_numpy(dst), dst
    return array.reshape(-1, height, width), torch.from_numpy(dst), dst.reshape(-1, out_h, out_w)


def channel_count(image: torch.Tensor) -> int:
    """The channels of ``[..., C, H, W]``; 1 for ``H x W``."""
    return image.shape[-3] if image.ndim >= 3 else 1


def plane_fill(fill: Sequence[float] | None, channels: int, index: int) -> float:
    """The fill of plane ``index`` of images of ``channels`` channels: one value for all or one per channel."""
    if not fill:
        return 0.0
    return float(fill[index % channels] if len(fill) > 1 else fill[0])


_SCRATCH_BYTES = 64 << 20
_local = threading.local()


def scratch(specs: Sequence[tuple[tuple[int, ...], Any]], slot: str = "work") -> list[np.ndarray]:
    """Uninitialised arrays of the given ``(shape, dtype)``, carved from one per-thread buffer per
    ``slot`` kept across calls while they fit in 64 MiB: fresh megabyte-sized temporaries page-fault
    on every call once the allocator hands them back to the OS, and reused ones stay in cache. The
    arrays of one call are valid until the next call for the same slot on the same thread: nested
    users take different slots."""
    offsets, total = [], 0
    for shape, dtype in specs:
        offsets.append(total)
        total += -(-math.prod(shape) * np.dtype(dtype).itemsize // 64) * 64  # 64-byte aligned offsets
    buffers = _local.__dict__.setdefault("buffers", {})
    buffer = buffers.get(slot)
    if total > _SCRATCH_BYTES:
        buffer = np.empty(total, dtype=np.uint8)
    elif buffer is None or buffer.size < total:
        buffer = buffers[slot] = np.empty(total, dtype=np.uint8)
    return [np.ndarray(shape, dtype, buffer, start) for start, (shape, dtype) in zip(offsets, specs)]
