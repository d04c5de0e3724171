"""Optional accelerated CPU paths (OpenCV), used by kernels where a benchmark shows they win.

The pure-torch kernels stay the reference and the GPU path: a kernel calls ``can_use(image)`` and,
when it says yes, hands the work to a helper here. Helpers work plane by plane on the contiguous
``H x W`` planes of a ``[..., C, H, W]`` tensor and write straight into the output tensor, except
where OpenCV wants interleaved channels: warps and remap sample three planes at a time as one RGBA
image (see ``_map_rgba``), grayscale and JPEG merge the RGB planes first, colour adjustments
run on interleaved pixels between one merge and one split (``on_pixels``), and smooth uint8
resizes hand torch's own kernel the interleaved pixels it works in. Layout changes between planes
and interleaved pixels go through OpenCV's merge / split (``planar``, ``interleaved``,
``contiguous``): torch's uint8 transpositions are an order of magnitude slower, which also matters
for images made from PIL images and numpy arrays (interleaved in memory). ``disabled()`` switches
the fast paths off (tests compare the two).
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import torch

from ._interpolation import nearest_source

try:
    import cv2
except ImportError:  # OpenCV is optional: without it every kernel takes its torch path
    cv2 = None
try:  # optional too (albumentations brings it): SIMD byte translation, the fastest lookup table
    import stringzilla
except ImportError:
    stringzilla = None

__all__ = [
    "available",
    "blend_pixels",
    "can_resize_interleaved",
    "can_resize_nearest",
    "can_sample",
    "can_use",
    "can_warp",
    "contiguous",
    "disabled",
    "erase",
    "floor_uint8",
    "gaussian_blur",
    "gray",
    "gray_pixels",
    "histograms",
    "interleaved",
    "jpeg",
    "lut",
    "lut_pixels",
    "lut_planes",
    "mean",
    "on_pixels",
    "pad",
    "planar",
    "remap",
    "remap_nearest",
    "resize_interleaved",
    "resize_nearest",
    "sharpen",
    "shift_hue",
    "warp",
    "warp_affine",
    "warp_perspective",
]

_DTYPES = (torch.uint8, torch.float32)
_disabled_depth = 0


def available() -> bool:
    """Whether the accelerated backend is installed and not switched off."""
    return cv2 is not None and _disabled_depth == 0


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Within this block every kernel takes its pure-torch path."""
    global _disabled_depth
    _disabled_depth += 1
    try:
        yield
    finally:
        _disabled_depth -= 1


def can_use(image: torch.Tensor, *, dtypes: Sequence[torch.dtype] = _DTYPES) -> bool:
    """Whether ``image`` (``[..., H, W]``) can take the accelerated path: a CPU tensor of one of
    ``dtypes``, no autograd, not empty."""
    return (
        cv2 is not None
        and _disabled_depth == 0
        and type(image) is torch.Tensor
        and image.is_cpu
        and image.dtype in dtypes
        and not image.requires_grad
        and image.ndim >= 2
        and image.numel() > 0
    )


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
    """Contiguous uint8 ``[..., C, H, W]`` tensor of ``[..., H, W, C]`` pixels (C <= 4),
    split by OpenCV: torch's and numpy's uint8 transpositions measured 15x and 8x slower (375 x 500)."""
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
    ``out``; C <= 4), merged by OpenCV (see :func:`planar`). Without ``out`` an interleaved uint8 input
    may come back as a view of its own memory; with ``out`` the pixels are always written there."""
    if _is_interleaved(image):
        pixels = image.movedim(-3, -1).numpy()
        return np.ascontiguousarray(pixels) if out is None else _copied(pixels, out)
    if cv2 is None or image.shape[0] == 1 or image.numel() == 0:
        pixels = image.numpy().transpose(1, 2, 0)
        return np.ascontiguousarray(pixels) if out is None else _copied(pixels, out)
    planes = image.numpy() if image.stride(-1) == 1 else image.contiguous().numpy()  # OpenCV takes row strides (crops)
    return cv2.merge(list(planes), dst=out).reshape(*image.shape[1:], image.shape[0])


def _copied(pixels: np.ndarray, out: np.ndarray) -> np.ndarray:
    np.copyto(out, pixels)
    return out


def contiguous(image: torch.Tensor) -> torch.Tensor:
    """``image.contiguous()``, with interleaved uint8 images (see :func:`_is_interleaved`) made planar
    by OpenCV."""
    return planar(image.movedim(-3, -1).numpy()) if _is_interleaved(image) else image.contiguous()


def _planes(image: torch.Tensor, out_size: Sequence[int] | None = None) -> tuple[np.ndarray, torch.Tensor, np.ndarray]:
    """(input planes ``N x H x W`` as numpy, output tensor, output planes as numpy)."""
    height, width = image.shape[-2:]
    out_h, out_w = out_size if out_size is not None else (height, width)
    # crops keep their row stride (OpenCV takes it; no copy), numpy's reshape: a cheaper view
    planes = image if image.stride(-1) == 1 and not _is_interleaved(image) else contiguous(image)
    src = planes.numpy().reshape(-1, height, width)
    dst = np.empty((*image.shape[:-2], out_h, out_w), dtype=src.dtype)  # with from_numpy: cheaper than torch.empty
    return src, torch.from_numpy(dst), dst.reshape(-1, out_h, out_w)


def _plane_fill(fill: Sequence[float] | None, num_channels: int, index: int) -> float:
    if not fill:
        return 0.0
    return float(fill[index % num_channels] if len(fill) > 1 else fill[0])


def lut(image: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """Map every value of a uint8 ``image`` through ``table`` (256 uint8 entries, one for all planes)."""
    out = torch.empty(image.shape, dtype=torch.uint8)
    src = contiguous(image).view(-1, image.shape[-1]).numpy()
    _translate(src, table.contiguous().numpy(), out.view(-1, image.shape[-1]).numpy())
    return out


def lut_planes(image: torch.Tensor, tables: torch.Tensor) -> torch.Tensor:
    """Map plane ``i`` of a uint8 ``[..., H, W]`` image through ``tables[i]`` (``N x 256`` uint8)."""
    src, out, dst = _planes(image)
    tables = tables.reshape(-1, 256).contiguous().numpy()
    for i in range(src.shape[0]):
        _translate(src[i], tables[i], dst[i])
    return out


def _translate(src: np.ndarray, table: np.ndarray, dst: np.ndarray) -> None:
    """``dst = table[src]`` for 2-D uint8 arrays (``dst`` contiguous)."""
    if stringzilla is not None:
        # (a copy for row-strided crops, as reshape would make; also for single columns, which it would not)
        flat = np.ascontiguousarray(src).reshape(-1)
        stringzilla.translate(memoryview(flat), memoryview(table), out=memoryview(dst.reshape(-1)))
    else:
        cv2.LUT(src, table, dst=dst)


_INTERPOLATION = {"nearest": 0, "bilinear": 1}  # cv2.INTER_NEAREST, cv2.INTER_LINEAR


def _map_planes(image: torch.Tensor, size: Sequence[int], fill: Sequence[float] | None, num_channels: int,
                op: Callable[..., np.ndarray], with_weight: bool = False) -> tuple[torch.Tensor, np.ndarray | None]:
    """Run the OpenCV sampler ``op(src, border_value, dst=None)`` on every plane of ``image`` into a
    new tensor of spatial ``size`` (outside pixels: ``fill``, per channel). With ``with_weight``, also
    return each pixel's in-image footprint share (times 255 for uint8)."""
    src, out, dst = _planes(image, size)
    borders = [_plane_fill(fill, num_channels, i) for i in range(src.shape[0])]
    weight = None
    for start in range(0, src.shape[0], 3):
        group = list(src[start:start + 3])
        if len(group) == 1 and not with_weight:
            op(group[0], borders[start], dst[start])
            continue
        weight = _map_rgba(group, list(dst[start:start + 3]), borders[start:start + 3], op)
    return out, weight


def _map_rgba(
    src: list[np.ndarray], dst: list[np.ndarray], borders: list[float], op: Callable[..., np.ndarray]
) -> np.ndarray:
    """Sample up to 3 planes in one call as an RGBA image (topped up with copies of the first plane):
    OpenCV's warps and remap take about as long on 4 interleaved channels as on one plane, 2 or 3
    channels take 2-3x longer. The alpha plane (the dtype's maximum, border 0) samples to the
    in-image footprint share, which is returned. (cvtColor makes the RGBA image: a warp reading
    ``cv2.merge``'s output directly was measured 2x slower.)"""
    spare = 3 - len(src)
    height, width = src[0].shape
    dtype = src[0].dtype
    rgb, rgba, result = _scratch(
        [((height, width, 3), dtype), ((height, width, 4), dtype), ((*dst[0].shape, 4), dtype)]
    )
    cv2.merge(src + src[:1] * spare, rgb)
    cv2.cvtColor(rgb, cv2.COLOR_RGB2RGBA, rgba)
    op(rgba, (*borders, *borders[:1] * spare, 0.0), result)
    planes = dst + [np.empty_like(dst[0]) for _ in range(spare + 1)]
    cv2.split(result, planes)
    return planes[-1]


_SCRATCH_BYTES = 64 << 20
_local = threading.local()


def _scratch(specs: Sequence[tuple[tuple[int, ...], Any]], slot: str = "work") -> list[np.ndarray]:
    """Uninitialised arrays of the given ``(shape, dtype)``, carved from one per-thread buffer per
    ``slot`` kept across calls while they fit in 64 MiB: fresh megabyte-sized temporaries were measured
    to page-fault on every call once the allocator hands them back to the OS (1 ms more on a 512 x 512
    warp), and reused ones stay in cache. The arrays of one call are valid until the next call for the
    same slot on the same thread: nested users take different slots."""
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


def _warp_op(
    warp: Callable[..., np.ndarray], matrix: Sequence[Sequence[float]], size: Sequence[int], interpolation: str
) -> Callable[..., np.ndarray]:
    """``op(src, border, dst=None)`` running OpenCV's ``warp`` (warpAffine / warpPerspective) with the
    output -> input ``matrix`` (2 x 3 or 3 x 3) to output ``size``."""
    m = np.asarray(matrix, dtype=np.float64)
    flags = _INTERPOLATION[interpolation] | cv2.WARP_INVERSE_MAP
    return lambda src, border, dst=None: warp(
        src, m, (size[1], size[0]), dst=dst, flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=border
    )


def warp_affine(
    image: torch.Tensor,
    matrix: Sequence[Sequence[float]],
    size: Sequence[int],
    interpolation: str,
    fill: Sequence[float] | None,
    num_channels: int = 1,
) -> torch.Tensor:
    """Warp ``[..., H, W]`` planes with the 2 x 3 ``matrix`` mapping output pixel (x, y) to input
    pixel coordinates (pixel centres at integers), to output ``size`` ``(H, W)``. Outside pixels take
    ``fill`` (per channel; ``num_channels`` tells how planes group into images)."""
    op = _warp_op(cv2.warpAffine, np.reshape(matrix, (2, 3)), size, interpolation)
    return _map_planes(image, size, fill, num_channels, op)[0]


def warp_perspective(
    image: torch.Tensor,
    matrix: Sequence[Sequence[float]],
    size: Sequence[int],
    interpolation: str,
    fill: Sequence[float] | None,
    num_channels: int = 1,
) -> torch.Tensor:
    """Like :func:`warp_affine` with a 3 x 3 projective ``matrix`` (output pixel -> input pixel)."""
    op = _warp_op(cv2.warpPerspective, np.reshape(matrix, (3, 3)), size, interpolation)
    return _map_planes(image, size, fill, num_channels, op)[0]


def gaussian_blur(image: torch.Tensor, kernel_x: torch.Tensor, kernel_y: torch.Tensor) -> torch.Tensor:
    """Separable convolution of each plane with 1-D kernels, reflect border (no edge repeat)."""
    src, out, dst = _planes(image)
    kx = kernel_x.to(torch.float32).numpy()
    ky = kernel_y.to(torch.float32).numpy()
    for i in range(src.shape[0]):
        cv2.sepFilter2D(src[i], -1, kx, ky, dst=dst[i], borderType=cv2.BORDER_REFLECT_101)
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
    height, width = image.shape[-2:]
    return (
        can_use(image)
        and max(*size, height, width) < 32768
        and _nearest_agrees(height, size[0])
        and _nearest_agrees(width, size[1])
    )


def resize_nearest(image: torch.Tensor, size: Sequence[int]) -> torch.Tensor:
    """Nearest-neighbour resize of each ``H x W`` plane to ``size`` ``(H, W)``."""
    src, out, dst = _planes(image, size)
    for i in range(src.shape[0]):
        cv2.resize(src[i], (size[1], size[0]), dst=dst[i], interpolation=cv2.INTER_NEAREST)
    return out


_SMOOTH_MODES = ("bilinear", "bicubic")


def can_resize_interleaved(image: torch.Tensor, size: Sequence[int], mode: str) -> bool:
    """Whether a bilinear / bicubic resize of ``image`` to ``size`` should run torch's uint8 kernel
    on interleaved pixels (3 or 4 channels, the layout that kernel works in): for images of 64K input
    and output pixels or more; below that torch's own conversion costs less (measured: 128 x 128 and
    batches of 224 x 224 halved)."""
    return (
        mode in _SMOOTH_MODES
        and can_use(image, dtypes=(torch.uint8,))
        and image.ndim >= 3
        and image.shape[-3] in (3, 4)
        and image.shape[-2] * image.shape[-1] + size[0] * size[1] >= 1 << 16
    )


def resize_interleaved(image: torch.Tensor, size: Sequence[int], mode: str, antialias: bool) -> torch.Tensor:
    """Resize uint8 ``[..., C, H, W]`` (C is 3 or 4) with torch's own ``interpolate`` (the same
    values), handing it ``H x W x C`` pixels: its uint8 kernel converts planar input to that layout
    itself, measured 1.5x-2.8x slower in all than OpenCV's merge, the resize and OpenCV's split."""
    channels, height, width = image.shape[-3:]
    items = image.reshape(-1, channels, height, width)
    out = np.empty((*image.shape[:-2], *size), dtype=np.uint8)
    for item, target in zip(items, out.reshape(-1, channels, *size)):
        pixels = torch.from_numpy(interleaved(item)).unsqueeze(0).permute(0, 3, 1, 2)  # channels-last N x C x H x W
        resized = torch.nn.functional.interpolate(
            pixels, size=size, mode=mode, align_corners=False, antialias=antialias
        )
        cv2.split(resized[0].permute(1, 2, 0).contiguous().numpy(), list(target))  # already contiguous: a no-op
    return torch.from_numpy(out)


def _num_channels(image: torch.Tensor) -> int:
    return image.shape[-3] if image.ndim >= 3 else 1


def can_sample(image: torch.Tensor, fill: Sequence[float] | None) -> bool:
    """Whether OpenCV can sample ``image`` (warps, remap): a fill the torch path would accept, and
    sizes within OpenCV's warp limit."""
    channels = _num_channels(image)
    fill_ok = fill is None or len(fill) == 1 or (image.ndim >= 3 and len(fill) == channels)
    return fill_ok and can_use(image) and max(image.shape[-2:]) < 32768


def can_warp(image: torch.Tensor, bilinear: bool, fill: Sequence[float] | None) -> bool:
    """Whether a warp of ``image`` can take the accelerated path: bilinear only (OpenCV's warps
    round nearest-neighbour ties differently; nearest sampling goes through :func:`remap_nearest`)."""
    return bilinear and can_sample(image, fill)


def _to_pixel_centres(matrix: Sequence[Sequence[float]]) -> np.ndarray:
    """A 3 x 3 map between continuous coordinates (pixel ``(i, j)`` covers ``[j, j + 1]``) re-expressed
    between pixel-centre coordinates (pixel ``(i, j)`` at ``(j, i)``), as OpenCV uses."""
    m = np.asarray(matrix, dtype=np.float64)
    m = np.vstack([m, [0.0, 0.0, 1.0]]) if m.shape == (2, 3) else m
    shift = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    unshift = np.array([[1.0, 0.0, -0.5], [0.0, 1.0, -0.5], [0.0, 0.0, 1.0]])
    return unshift @ m @ shift


def warp(image: torch.Tensor, inverse: Sequence[Sequence[float]], size: Sequence[int], fill: Sequence[float] | None) -> torch.Tensor:
    """Bilinear warp of ``[..., C, H, W]`` to ``size`` ``(H, W)``; ``inverse`` (2 x 3 affine or 3 x 3
    projective) maps output to input points in continuous coordinates. Without ``fill`` outside points
    are 0; with it, border pixels blend towards it as the torch path does (see ``_blend_border``)."""
    m = _to_pixel_centres(inverse)
    channels = _num_channels(image)
    affine = bool(np.all(m[2] == [0.0, 0.0, 1.0]))
    run = warp_affine if affine else warp_perspective
    out = run(image, m[:2] if affine else m, size, "bilinear", fill, channels)
    if fill is not None:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # degenerate maps: nan weights, skipped
            rows, cols = _border_band(m, image.shape[-2:], size)
            x, y = cols.astype(np.float64), rows.astype(np.float64)
            u, v, d = (m[i, 0] * x + m[i, 1] * y + m[i, 2] for i in range(3))
            _blend_border(out, rows, cols, _footprint(u / d, v / d, image.shape[-2:]), fill, channels)
    return out


def _border_band(m: np.ndarray, in_size: Sequence[int], out_size: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Output pixels whose bilinear footprint may straddle the input's border under the 3 x 3 output
    -> input map ``m`` (pixel centres): source point inside ``(-1, W) x (-1, H)`` but not inside
    ``[0, W - 1] x [0, H - 1]``, each bound widened by 0.01 pixel; rows where the projective divisor
    is not positive throughout are taken whole (extra pixels are harmless: their exact footprint
    weight is used). Worked out row by row: each is one or two runs."""
    height, width = in_size
    out_h, out_w = out_size
    y = np.arange(out_h, dtype=np.float64)
    outer = _spans(m, y, (-1.01, width + 0.01), (-1.01, height + 0.01), out_w)
    inner = _spans(m, y, (0.01, width - 1.01), (0.01, height - 1.01), out_w)
    divisor = m[2, 1] * y + m[2, 2]
    whole = (divisor <= 0) | (divisor + m[2, 0] * (out_w - 1) <= 0)
    outer_start, outer_stop = np.where(whole, 0, outer[0]), np.where(whole, out_w, outer[1])
    empty = whole | (inner[0] >= inner[1])
    inner_start, inner_stop = np.where(empty, outer_stop, inner[0]), np.where(empty, outer_stop, inner[1])
    left = _runs(outer_start, inner_start)  # [outer start, inner start) and [inner stop, outer stop)
    right = _runs(inner_stop, outer_stop)
    return np.concatenate([left[0], right[0]]), np.concatenate([left[1], right[1]])


def _spans(m: np.ndarray, y: np.ndarray, u_range: tuple[float, float], v_range: tuple[float, float],
           width: int) -> tuple[np.ndarray, np.ndarray]:
    """Per output row ``y``: the integer ``x`` in ``[start, stop)`` (within ``[0, width)``) whose
    source point (``m @ (x, y, 1)`` over its positive last coordinate) lies in ``u_range x v_range``
    (bounds inclusive)."""
    start, stop = np.zeros_like(y), np.full_like(y, width)
    for row, (low, high) in zip(m[:2], (u_range, v_range)):
        for a, b, c in (row - low * m[2], high * m[2] - row):  # a x + b y + c >= 0
            offset = b * y + c
            if a > 0:
                start = np.maximum(start, np.ceil(-offset / a))
            elif a < 0:
                stop = np.minimum(stop, np.floor(-offset / a) + 1)
            else:
                stop = np.where(offset >= 0, stop, 0.0)
    return np.clip(start, 0, width).astype(np.int64), np.clip(stop, 0, width).astype(np.int64)


def _runs(starts: np.ndarray, stops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the pixels ``starts[r] <= x < stops[r]`` of each row ``r``."""
    lengths = np.maximum(stops - starts, 0)
    rows = np.repeat(np.arange(starts.size), lengths)
    cols = np.arange(rows.size) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    return rows, cols


# The float32 values strictly between 0 and 1, as inclusive bounds.
_OPEN_UNIT_INTERVAL = (
    float(np.finfo(np.float32).smallest_subnormal),
    float(np.nextafter(np.float32(1), np.float32(0))),
)


def _band(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the pixels whose footprint ``weight`` is strictly inside its range: uint8
    0..255 (for uint8 images), or float32 0..1 (for float images, which need every such pixel)."""
    low, high = (1, 254) if weight.dtype == np.uint8 else _OPEN_UNIT_INTERVAL
    points = cv2.findNonZero(cv2.inRange(weight, low, high))
    if points is None:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    points = points.reshape(-1, 2)  # (x, y) pairs
    return points[:, 1].astype(np.int64), points[:, 0].astype(np.int64)


def _footprint(u: np.ndarray, v: np.ndarray, in_size: Sequence[int]) -> np.ndarray:
    """The in-image share of the bilinear footprint at pixel-centre source points ``(u, v)``."""
    height, width = in_size
    wx = np.clip(np.minimum(u + 1.0, width - u), 0.0, 1.0)
    wy = np.clip(np.minimum(v + 1.0, height - v), 0.0, 1.0)
    return wx * wy


def _blend_border(out: torch.Tensor, rows: np.ndarray, cols: np.ndarray, w: np.ndarray, fill: Sequence[float], channels: int) -> None:
    """Turn OpenCV's border (``v + (1 - w) fill``, ``v`` the in-image part, ``w`` the in-image share of
    the footprint) into the torch path's (``v w + (1 - w) fill``): ``w out + (1 - w)^2 fill``, on the
    given border pixels, in place."""
    w = w.astype(np.float32)
    straddling = (w > 0) & (w < 1)  # elsewhere OpenCV's value is already the torch path's
    index, w = (rows * out.shape[-1] + cols)[straddling], w[straddling]
    fill_share = (1.0 - w) ** 2
    for i, plane in enumerate(out.numpy().reshape(-1, out.shape[-2] * out.shape[-1])):
        blended = plane.take(index) * w + fill_share * np.float32(_plane_fill(fill, channels, i))
        plane[index] = np.clip(np.rint(blended), 0, 255) if out.dtype == torch.uint8 else blended


def remap(image: torch.Tensor, grid: torch.Tensor, fill: Sequence[float] | None) -> torch.Tensor:
    """Bilinear sampling of ``[..., C, H, W]`` at ``grid`` ``(H_out, W_out, 2)`` (``grid_sample``
    convention: ``(x, y)`` normalised to ``[-1, 1]``, ``align_corners=False``); outside points as
    :func:`warp`."""
    height, width = image.shape[-2:]
    grid = grid.to(torch.float32)
    maps = (grid[..., 0].add(1.0).mul_(width / 2).sub_(0.5).numpy(), grid[..., 1].add(1.0).mul_(height / 2).sub_(0.5).numpy())
    channels = _num_channels(image)

    def op(src: np.ndarray, border: Any, dst: np.ndarray | None = None) -> np.ndarray:
        return cv2.remap(src, maps[0], maps[1], cv2.INTER_LINEAR, dst=dst, borderMode=cv2.BORDER_CONSTANT, borderValue=border)

    out, weight = _map_planes(image, maps[0].shape, fill, channels, op, with_weight=fill is not None)
    if fill is not None:
        rows, cols = _band(weight)
        w = _footprint(maps[0][rows, cols].astype(np.float64), maps[1][rows, cols].astype(np.float64), (height, width))
        _blend_border(out, rows, cols, w, fill, channels)
    return out


def remap_nearest(image: torch.Tensor, x: torch.Tensor, y: torch.Tensor, fill: Sequence[float] | None) -> torch.Tensor:
    """Nearest sampling of ``[..., C, H, W]`` at whole-number source columns ``x`` and rows ``y``
    (float32 ``H_out x W_out``, rounded by the caller, so OpenCV has no ties to break); points
    outside the image get ``fill`` per channel (zeros when None), rounded and saturated like a cast."""
    maps = (x.to(torch.float32).contiguous().numpy(), y.to(torch.float32).contiguous().numpy())

    def op(src: np.ndarray, border: Any, dst: np.ndarray | None = None) -> np.ndarray:
        return cv2.remap(src, *maps, cv2.INTER_NEAREST, dst=dst, borderMode=cv2.BORDER_CONSTANT, borderValue=border)

    return _map_planes(image, maps[0].shape, fill, _num_channels(image), op)[0]


def on_pixels(image: torch.Tensor, step: Callable[[np.ndarray], None]) -> torch.Tensor:
    """Run ``step`` on the interleaved ``H x W x 3`` pixels of each RGB image of a uint8 or float32
    ``[..., 3, H, W]`` tensor (``step`` changes them in place) and return the results as planes: one
    merge before and one split after, however many operations ``step`` runs. The pixels are per-thread
    scratch, valid during ``step`` only."""
    height, width = image.shape[-2:]
    out = np.empty(image.shape, dtype=np.uint8 if image.dtype == torch.uint8 else np.float32)
    for item, target in zip(image.reshape(-1, 3, height, width), out.reshape(-1, 3, height, width)):
        pixels = interleaved(item, out=_scratch([((height, width, 3), out.dtype)], slot="pixels")[0])
        step(pixels)
        cv2.split(pixels, list(target))
    return torch.from_numpy(out)


def lut_pixels(pixels: np.ndarray, table: torch.Tensor) -> None:
    """Map interleaved uint8 ``pixels`` through ``table`` (256 uint8 entries) in place."""
    rows = pixels.reshape(pixels.shape[0], -1)
    _translate(rows, table.reshape(256).contiguous().numpy(), rows)


def gray_pixels(pixels: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The ``H x W`` uint8 luma of interleaved ``H x W x 3`` uint8 RGB pixels (into ``out`` if given):
    OpenCV's fixed-point conversion, rounded, with weights 0.299 / 0.587 / 0.114."""
    return cv2.cvtColor(pixels, cv2.COLOR_RGB2GRAY, dst=out)


def mean(plane: np.ndarray) -> float:
    """The mean of a 2-D uint8 array (OpenCV's integer sums: 8x faster than numpy's)."""
    return cv2.mean(plane)[0]


def blend_pixels(pixels: np.ndarray, gray: np.ndarray, factor: float) -> None:
    """``factor * pixels + (1 - factor) * gray`` in place, rounded and saturated, for interleaved
    ``H x W x 3`` uint8 pixels and their ``H x W`` uint8 gray plane."""
    cv2.addWeighted(pixels, factor, cv2.cvtColor(gray, cv2.COLOR_GRAY2RGB), 1.0 - factor, 0.0, dst=pixels)


_HUE_BAND_PIXELS = 1 << 18


def shift_hue(pixels: np.ndarray, hue_factor: float) -> None:
    """Rotate the hue of interleaved ``H x W x 3`` RGB pixels (uint8, or float32 in [0, 1]) by
    ``hue_factor`` turns in place, through OpenCV's float HSV: scale-free, so uint8 values need no
    rescaling, and its HSV -> RGB conversion wraps the hue. Works in bands of up to 512 x 512 pixels
    with per-thread scratch buffers (measured fastest from 224 x 224 to 2048 x 2048: smaller bands
    cost more calls, whole large images fall out of cache)."""
    height, width = pixels.shape[:2]
    rows = min(height, max(1, _HUE_BAND_PIXELS // width))
    rgb, hsv = _scratch([((rows, width, 3), np.float32)] * 2)
    shift = np.float32((360.0 * hue_factor) % 360.0)  # a positive shift: wrapped above 360
    for top in range(0, height, rows):
        band = pixels[top : top + rows]
        work, converted = rgb[: len(band)], hsv[: len(band)]
        if band.dtype == np.uint8:
            torch.from_numpy(work).copy_(torch.from_numpy(band))  # faster than numpy's cast
        else:
            work[...] = band
        cv2.cvtColor(work, cv2.COLOR_RGB2HSV, dst=converted)
        converted[..., 0] += shift
        cv2.cvtColor(converted, cv2.COLOR_HSV2RGB, dst=work)
        if band.dtype == np.uint8:
            cv2.convertScaleAbs(work, dst=band)  # round to nearest (values are never below -0.5)
        else:
            np.clip(work, 0.0, 1.0, out=band)


def gray(image: torch.Tensor, num_output_channels: int) -> torch.Tensor:
    """Luma of uint8 RGB ``[..., 3, H, W]`` as ``num_output_channels`` equal uint8 planes, through
    OpenCV's fixed-point RGB -> gray (weights 0.299 / 0.587 / 0.114, rounded): within one level of
    the torch kernel's (0.2989 weights), off by one on about 1 % of pixels."""
    height, width = image.shape[-2:]
    out = torch.from_numpy(np.empty((*image.shape[:-3], num_output_channels, height, width), dtype=np.uint8))
    dst = out.numpy().reshape(-1, num_output_channels, height, width)
    for item, target in zip(image.reshape(-1, 3, height, width), dst):
        gray_pixels(interleaved(item), out=target[0])
        target[1:] = target[0]
    return out


def floor_uint8(values: torch.Tensor) -> torch.Tensor:
    """``floor`` of float32 ``values`` in [0, 256) as uint8 (numpy's truncating cast: several times
    faster than torch's)."""
    return torch.from_numpy(values.contiguous().numpy().astype(np.uint8))


def histograms(rows: torch.Tensor) -> torch.Tensor:
    """``N x 256`` int64 counts of the values of each row of a uint8 ``N x P`` tensor."""
    src = rows.contiguous().numpy()
    counts = [cv2.calcHist([row[None]], [0], None, [256], [0, 256]).reshape(256) for row in src]
    return torch.from_numpy(np.stack(counts)).to(torch.int64) if counts else torch.zeros(0, 256, dtype=torch.int64)


_BAND_PIXELS = 1 << 15  # pixels per call when sharpening small planes together
_SMOOTH = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], dtype=np.float32) / 13


def sharpen(image: torch.Tensor, factor: float) -> torch.Tensor:
    """PIL's sharpness on ``[..., H, W]`` planes (at least 3 x 3): blend each pixel with its
    ``[[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13`` smoothing by ``factor``; the 1-pixel border is kept."""
    src, out, dst = _planes(image)
    width = src.shape[-1]
    # small planes are filtered together as one tall image (fewer calls; rows mixing two planes are
    # border rows, restored below), large ones alone (small temporaries)
    per_call = max(1, _BAND_PIXELS // (src.shape[-2] * width))
    for i in range(0, src.shape[0], per_call):
        tall, tall_out = src[i : i + per_call].reshape(-1, width), dst[i : i + per_call].reshape(-1, width)
        if image.dtype == torch.uint8:  # (3x3 sum + 4 * centre) / 13 rounds exactly (no ties in k / 13)
            box = cv2.boxFilter(tall, cv2.CV_16U, (3, 3), normalize=False, borderType=cv2.BORDER_REPLICATE)
            smooth = cv2.addWeighted(box, 1 / 13, tall.astype(np.uint16), 4 / 13, 0.0).astype(np.uint8)
            cv2.addWeighted(tall, factor, smooth, 1.0 - factor, 0.0, dst=tall_out)
        else:
            smooth = cv2.filter2D(tall, -1, _SMOOTH, borderType=cv2.BORDER_REPLICATE)
            np.clip(smooth + (tall - smooth) * np.float32(factor), 0.0, 1.0, out=tall_out)
    dst[:, 0], dst[:, -1], dst[:, :, 0], dst[:, :, -1] = src[:, 0], src[:, -1], src[:, :, 0], src[:, :, -1]
    return out


def jpeg(image: torch.Tensor, quality: int) -> torch.Tensor:
    """JPEG round trip of uint8 ``[..., C, H, W]`` (C is 1 or 3) with OpenCV's libjpeg (the same
    bytes as Pillow's encoder and decoder at default settings)."""
    flat = image.reshape(-1, *image.shape[-3:])
    out = torch.empty(flat.shape, dtype=torch.uint8)
    params = [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
    for item, target in zip(flat, out):
        planes = list(contiguous(item).numpy())
        color = len(planes) == 3
        ok, encoded = cv2.imencode(".jpg", cv2.merge(planes[::-1]) if color else planes[0], params)
        decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR if color else cv2.IMREAD_GRAYSCALE)
        if color:
            cv2.split(decoded, list(target.numpy())[::-1])
        else:
            target[0].copy_(torch.from_numpy(decoded))
    return out.reshape(image.shape)


_BORDERS = {"constant": 0, "edge": 1, "reflect": 4, "symmetric": 2}  # cv2.BORDER_CONSTANT, _REPLICATE, _REFLECT_101, _REFLECT


def can_pad(image: torch.Tensor, padding_mode: str, fill: Sequence[float]) -> bool:
    """Whether a pad can take the accelerated path: non-negative padding is the caller's business;
    constant fills must be one per channel (or one) and, for uint8, whole numbers in 0..255."""
    if not can_use(image) or padding_mode not in _BORDERS:
        return False
    if padding_mode != "constant":
        return True
    if len(fill) != 1 and (image.ndim < 3 or len(fill) != image.shape[-3]):
        return False
    return image.dtype != torch.uint8 or all(float(v).is_integer() and 0 <= v <= 255 for v in fill)


def pad(image: torch.Tensor, padding: Sequence[int], padding_mode: str, fill: Sequence[float]) -> torch.Tensor:
    """Pad ``[..., H, W]`` planes by ``padding`` ``(left, top, right, bottom)``: constant (per-channel
    ``fill``), edge, reflect (no edge repeat) or symmetric (edge repeated)."""
    left, top, right, bottom = padding
    size = (image.shape[-2] + top + bottom, image.shape[-1] + left + right)
    border = _BORDERS[padding_mode]

    src, out, dst = _planes(image, size)
    channels = _num_channels(image)
    for i in range(src.shape[0]):
        cv2.copyMakeBorder(src[i], top, bottom, left, right, border, dst=dst[i], value=_plane_fill(fill, channels, i))
    return out


def erase(image: torch.Tensor, i: int, j: int, h: int, w: int, value: torch.Tensor) -> torch.Tensor:
    """A copy of contiguous ``[..., C, H, W]`` with rows ``i:i+h`` and columns ``j:j+w`` set to
    ``value`` (a CPU tensor of the image's dtype, broadcast to ``[..., C, h, w]``): numpy's copy and
    slice assignment, measured 1.5x faster than torch's clone and indexing at 512 x 512."""
    dst = image.numpy().copy()
    dst[..., i : i + h, j : j + w] = value.numpy()
    return torch.from_numpy(dst)
