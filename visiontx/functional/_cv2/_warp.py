"""Warps (affine, perspective) and remaps (bilinear, nearest) of ``[..., C, H, W]`` images through OpenCV.

OpenCV samples three planes at a time as one RGBA image (see :func:`_map_rgba`). Its bilinear border
(``v + (1 - w) fill``, ``w`` the in-image share of a pixel's footprint) is turned into the torch path's
(``v w + (1 - w) fill``) on the few pixels whose footprint straddles the border.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from .._interpolation import InterpolationMode
from ._base import MAX_SIZE, can_use, cv2
from ._layout import channel_count, plane_fill, planes, scratch

__all__ = ["can_remap_nearest", "can_warp", "remap", "remap_nearest", "warp", "warp_planes"]

_INTERPOLATION = {"nearest": 0, "bilinear": 1}  # cv2.INTER_NEAREST, cv2.INTER_LINEAR


def _can_sample(image: torch.Tensor, fill: Sequence[float] | None) -> bool:
    """Whether OpenCV can sample ``image``: a fill the torch path would accept, sizes within OpenCV's limit."""
    channels = channel_count(image)
    fill_ok = fill is None or len(fill) == 1 or (image.ndim >= 3 and len(fill) == channels)
    return fill_ok and can_use(image) and max(image.shape[-2:]) < MAX_SIZE


def can_warp(image: torch.Tensor, mode: InterpolationMode, fill: Sequence[float] | None) -> bool:
    """Whether a warp of ``image`` (:func:`warp` by a matrix, :func:`remap` by a grid) can take OpenCV:
    bilinear only (OpenCV's warps round nearest-neighbour ties differently; nearest sampling goes through
    :func:`remap_nearest`; its bicubic maps source points to 1/32 pixel, where ``grid_sample`` does not)."""
    return mode == InterpolationMode.BILINEAR and _can_sample(image, fill)


def can_remap_nearest(image: torch.Tensor, fill: Sequence[float] | None) -> bool:
    """Whether nearest sampling of ``image`` at whole source pixels can take :func:`remap_nearest`."""
    return _can_sample(image, fill)


def _map_planes(image: torch.Tensor, size: Sequence[int], fill: Sequence[float] | None, channels: int,
                op: Callable[..., np.ndarray], with_weight: bool = False) -> tuple[torch.Tensor, np.ndarray | None]:
    """Run the OpenCV sampler ``op(src, border_value, dst=None)`` on every plane of ``image`` into a
    new tensor of spatial ``size`` (outside pixels: ``fill``, per channel). With ``with_weight``, also
    return each pixel's in-image footprint share (times 255 for uint8)."""
    src, out, dst = planes(image, size)
    borders = [plane_fill(fill, channels, i) for i in range(src.shape[0])]
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
    OpenCV's warps and remap take about as long on 4 interleaved channels as on one plane, and 2 or 3
    channels longer. The alpha plane (the dtype's maximum, border 0) samples to the in-image footprint
    share, which is returned. (cvtColor makes the RGBA image: a warp reading ``cv2.merge``'s output
    directly is slower.)"""
    spare = 3 - len(src)
    height, width = src[0].shape
    dtype = src[0].dtype
    rgb, rgba, result = scratch([((height, width, 3), dtype), ((height, width, 4), dtype), ((*dst[0].shape, 4), dtype)])
    cv2.merge(src + src[:1] * spare, rgb)
    cv2.cvtColor(rgb, cv2.COLOR_RGB2RGBA, rgba)
    op(rgba, (*borders, *borders[:1] * spare, 0.0), result)
    outputs = dst + [np.empty_like(dst[0]) for _ in range(spare + 1)]
    cv2.split(result, outputs)
    return outputs[-1]


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


def warp_planes(
    image: torch.Tensor,
    matrix: Sequence[Sequence[float]],
    size: Sequence[int],
    interpolation: str,
    fill: Sequence[float] | None,
    num_channels: int = 1,
) -> torch.Tensor:
    """Warp ``[..., H, W]`` planes with ``matrix`` mapping output pixel (x, y) to input pixel coordinates
    (pixel centres at integers): 2 x 3 affine (``cv2.warpAffine``) or 3 x 3 projective
    (``cv2.warpPerspective``), to output ``size`` ``(H, W)``. Outside pixels take ``fill`` (per channel;
    ``num_channels`` tells how planes group into images)."""
    m = np.asarray(matrix, dtype=np.float64)
    op = _warp_op(cv2.warpAffine if m.shape == (2, 3) else cv2.warpPerspective, m, size, interpolation)
    return _map_planes(image, size, fill, num_channels, op)[0]


def _to_pixel_centres(matrix: Sequence[Sequence[float]]) -> np.ndarray:
    """A 3 x 3 map between continuous coordinates (pixel ``(i, j)`` covers ``[j, j + 1]``) re-expressed
    between pixel-centre coordinates (pixel ``(i, j)`` at ``(j, i)``), as OpenCV uses."""
    m = np.asarray(matrix, dtype=np.float64)
    m = np.vstack([m, [0.0, 0.0, 1.0]]) if m.shape == (2, 3) else m
    shift = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    unshift = np.array([[1.0, 0.0, -0.5], [0.0, 1.0, -0.5], [0.0, 0.0, 1.0]])
    return unshift @ m @ shift


def warp(
    image: torch.Tensor, inverse: Sequence[Sequence[float]], size: Sequence[int], fill: Sequence[float] | None
) -> torch.Tensor:
    """Bilinear warp of ``[..., C, H, W]`` to ``size`` ``(H, W)``; ``inverse`` (2 x 3 affine or 3 x 3
    projective) maps output to input points in continuous coordinates. Without ``fill`` outside points
    are 0; with it, border pixels blend towards it as the torch path does (see ``_blend_border``)."""
    m = _to_pixel_centres(inverse)
    channels = channel_count(image)
    affine = bool(np.all(m[2] == [0.0, 0.0, 1.0]))
    out = warp_planes(image, m[:2] if affine else m, size, "bilinear", fill, channels)
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


def _blend_border(out: torch.Tensor, rows: np.ndarray, cols: np.ndarray, w: np.ndarray, fill: Sequence[float],
                  channels: int) -> None:
    """Turn OpenCV's border (``v + (1 - w) fill``, ``v`` the in-image part, ``w`` the in-image share of
    the footprint) into the torch path's (``v w + (1 - w) fill``): ``w out + (1 - w)^2 fill``, on the
    given border pixels, in place."""
    w = w.astype(np.float32)
    straddling = (w > 0) & (w < 1)  # elsewhere OpenCV's value is already the torch path's
    index, w = (rows * out.shape[-1] + cols)[straddling], w[straddling]
    fill_share = (1.0 - w) ** 2
    for i, plane in enumerate(out.numpy().reshape(-1, out.shape[-2] * out.shape[-1])):
        blended = plane.take(index) * w + fill_share * np.float32(plane_fill(fill, channels, i))
        plane[index] = np.clip(np.rint(blended), 0, 255) if out.dtype == torch.uint8 else blended


def remap(image: torch.Tensor, grid: torch.Tensor, fill: Sequence[float] | None) -> torch.Tensor:
    """Bilinear sampling of ``[..., C, H, W]`` at ``grid`` ``(H_out, W_out, 2)`` (``grid_sample``
    convention: ``(x, y)`` normalised to ``[-1, 1]``, ``align_corners=False``); outside points as
    :func:`warp`."""
    height, width = image.shape[-2:]
    grid = grid.to(torch.float32)
    maps = tuple(grid[..., i].add(1.0).mul_(extent / 2).sub_(0.5).numpy() for i, extent in enumerate((width, height)))
    channels = channel_count(image)

    def op(src: np.ndarray, border: Any, dst: np.ndarray | None = None) -> np.ndarray:
        return cv2.remap(src, *maps, cv2.INTER_LINEAR, dst=dst, borderMode=cv2.BORDER_CONSTANT, borderValue=border)

    out, weight = _map_planes(image, maps[0].shape, fill, channels, op, with_weight=fill is not None)
    if fill is not None:
        rows, cols = _band(weight)
        w = _footprint(maps[0][rows, cols].astype(np.float64), maps[1][rows, cols].astype(np.float64), (height, width))
        _blend_border(out, rows, cols, w, fill, channels)
    return out


def remap_nearest(
    image: torch.Tensor, x: torch.Tensor, y: torch.Tensor, fill: Sequence[float] | None
) -> torch.Tensor:
    """Nearest sampling of ``[..., C, H, W]`` at whole-number source columns ``x`` and rows ``y``
    (float32 ``H_out x W_out``, rounded by the caller, so OpenCV has no ties to break); points
    outside the image get ``fill`` per channel (zeros when None), rounded and saturated like a cast."""
    maps = (x.to(torch.float32).contiguous().numpy(), y.to(torch.float32).contiguous().numpy())

    def op(src: np.ndarray, border: Any, dst: np.ndarray | None = None) -> np.ndarray:
        return cv2.remap(src, *maps, cv2.INTER_NEAREST, dst=dst, borderMode=cv2.BORDER_CONSTANT, borderValue=border)

    return _map_planes(image, maps[0].shape, fill, channel_count(image), op)[0]
