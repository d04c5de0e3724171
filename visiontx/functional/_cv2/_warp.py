"""Warps (affine, perspective) and remaps (bilinear, nearest) of ``[..., C, H, W]`` images through OpenCV.

OpenCV samples three planes at a time as one RGBA image (see :func:`_map_rgba`). Its bilinear border
(``v + (1 - w) fill``, ``w`` the in-image share of a pixel's footprint) is turned into the torch path's
(``v w + (1 - w) fill``) on the few pixels whose footprint straddles the border.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from .._grid_terms import grid_terms
from .._interpolation import InterpolationMode
from ._base import MAX_SIZE, can_use, cv2, native
from ._layout import channel_count, plane_fill, planes, scratch
from ._masks import sample_packed

__all__ = ["can_remap_nearest", "can_warp", "remap", "remap_nearest", "warp", "warp_nearest", "warp_planes"]

_INTERPOLATION = {"nearest": 0, "bilinear": 1}  # cv2.INTER_NEAREST, cv2.INTER_LINEAR


def _can_sample(image: torch.Tensor, fill: Sequence[float] | None) -> bool:
    """Whether OpenCV can sample ``image``: a fill the torch path would accept, sizes within OpenCV's limit."""
    channels = channel_count(image)
    fill_ok = fill is None or len(fill) == 1 or (image.ndim >= 3 and len(fill) == channels)
    return fill_ok and can_use(image) and max(image.shape[-2:]) < MAX_SIZE


def can_warp(image: torch.Tensor, mode: InterpolationMode, fill: Sequence[float] | None) -> bool:
    """Whether a warp of ``image`` (:func:`warp` by a matrix, :func:`remap` by source points) can take OpenCV:
    bilinear only (OpenCV's warps round nearest-neighbour ties differently; nearest sampling goes through
    :func:`remap_nearest`; its bicubic maps source points to 1/32 pixel, where ``grid_sample`` does not),
    and for uint8 a fill within 0..255 (OpenCV saturates its border sums before the blend could undo them)."""
    if not _PRECISE_BILINEAR or (
        image.dtype == torch.uint8 and fill is not None and not all(0.0 <= v <= 255.0 for v in fill)
    ):
        return False
    return mode == InterpolationMode.BILINEAR and _can_sample(image, fill)


# OpenCV 4's bilinear warps and remaps snap source points to 1/32 pixel (up to ~8 levels from torch's
# sampling near the border blend); OpenCV 5's are within 1 level (``tests/test_fast_paths.py``).
_PRECISE_BILINEAR = cv2 is not None and int(cv2.__version__.split(".")[0]) >= 5


def can_remap_nearest(image: torch.Tensor, fill: Sequence[float] | None) -> bool:
    """Whether nearest sampling of ``image`` at whole source pixels can take :func:`remap_nearest`."""
    return _can_sample(image, fill)


def _map_planes(image: torch.Tensor, size: Sequence[int], fill: Sequence[float] | None, channels: int,
                op: Callable[..., np.ndarray],
                with_weight: bool = False) -> tuple[torch.Tensor, np.ndarray | None, np.ndarray]:
    """Run the OpenCV sampler ``op(src, border_value, dst=None)`` on every plane of ``image`` into a
    new tensor of spatial ``size`` (outside pixels: ``fill``, per channel). With ``with_weight``, also
    return each pixel's in-image footprint share (times 255 for uint8); last, the input's planes."""
    src, out, dst = planes(image, size)
    borders = [plane_fill(fill, channels, i) for i in range(src.shape[0])]
    if src.dtype == np.uint8:  # saturated as the torch path casts it (OpenCV wraps values beyond int range)
        borders = [min(max(border, 0.0), 255.0) for border in borders]
    weight = None
    for start in range(0, src.shape[0], 3):
        group = list(src[start:start + 3])
        if len(group) == 1 and not with_weight:
            op(group[0], borders[start], dst[start])
            continue
        weight = _map_rgba(group, list(dst[start:start + 3]), borders[start:start + 3], op)
    return out, weight, src


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
    are 0; with it, border pixels blend towards it as the torch path does (see ``_blend_border``): the
    pixels whose footprint straddles the border are those of the sampled alpha plane strictly between
    its bounds (see :func:`_band`) and, for uint8 images, those whose exact share is strictly between 0 and 1
    (OpenCV's alpha quantises it: its source points are 1/32 pixel apart), found from the map row by row."""
    m = _to_pixel_centres(inverse)
    channels = channel_count(image)
    affine = bool(np.all(m[2] == [0.0, 0.0, 1.0]))
    op = _warp_op(cv2.warpAffine if affine else cv2.warpPerspective, m[:2] if affine else m, size, "bilinear")
    out, weight, src = _map_planes(image, size, fill, channels, op, with_weight=fill is not None)
    if fill is not None and _blends_natively(out, channels):
        _native_blend(out, weight, fill, channels, src, matrix=m, projective=not affine)
    elif fill is not None:
        in_band = np.zeros(weight.size, bool)
        in_band[_band(weight)] = True
        candidates = in_band | _matrix_spans(m, size, image.shape[-2:]) if out.dtype == torch.uint8 else in_band
        index = np.flatnonzero(candidates)
        y, x = np.divmod(index, size[1])
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # degenerate maps: nan weights, skipped
            u, v = (m[i, 0] * x + m[i, 1] * y + m[i, 2] for i in range(2))
            if not affine:
                d = m[2, 0] * x + m[2, 1] * y + m[2, 2]
                u, v = u / d, v / d
        _blend_border(out, index, u, v, fill, channels, src, in_band[index])
    return out


def _level_crossing(a: float, b: float, g: float, h: float, bm: float, hm: float, level: float) -> tuple[float, float]:
    """``_native_warp.c``'s ``level_crossing``: where ``(a x + b) / (g x + h)`` equals ``level``, and how far
    rounding may have moved it (``bm``, ``hm``: the sizes of the parts ``b`` and ``h`` were summed from)."""
    slope = a - level * g
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # numpy's division: inf or nan by 0, as C's
        x = float(np.float64(level * h - b) / slope)
        terms = abs(level) * hm + bm + abs(x) * (abs(a) + abs(level * g))
        return x, float(np.float64(1e-9 * terms) / abs(slope)) + 1e-6


def _monotone_span(a: float, b: float, g: float, h: float, bm: float, hm: float, t0: float, t1: float, p: float,
                   q: float, n: int) -> tuple[int, int]:
    """``_native_warp.c``'s ``monotone_span``: the x in ``[0, n)`` where ``(a x + b) / (g x + h)``, monotone from
    ``t0`` (x = -1) to ``t1`` (x = n), lies in ``(p, q)``, give or take rounding (a row a rounding away: whole)."""
    rising = t1 > t0
    low, high = (t0, t1) if rising else (t1, t0)
    if not (high > p and low < q):
        gap = p - high if high <= p else low - q  # how far t stays from (p, q); NaN: not near
        return (0, n) if gap <= 1e-9 * (abs(p) + abs(q) + abs(low) + abs(high) + 1.0) else (0, 0)
    xa, slack_a = ((-1.0 if rising else float(n)), 0.0) if low > p else _level_crossing(a, b, g, h, bm, hm, p)
    xb, slack_b = ((float(n) if rising else -1.0), 0.0) if high < q else _level_crossing(a, b, g, h, bm, hm, q)
    if not all(map(math.isfinite, (xa, xb, slack_a, slack_b))):
        return 0, n
    s, t = (xa - slack_a, xb + slack_b) if xa < xb else (xb - slack_b, xa + slack_a)
    s, t = (min(max(value, -2.0), n + 2.0) for value in (s, t))
    lo = min(max(math.ceil(s), 0), n)
    return lo, min(max(math.floor(t) + 1, lo), n)


def _matrix_spans(m: np.ndarray, size: Sequence[int], in_size: Sequence[int]) -> np.ndarray:
    """A flat mask of the output pixels whose source point may have a share strictly between 0 and 1 under ``m``
    (3 x 3, pixel centres, output -> input, its last row dividing; ``[0, 0, 1]`` for an affine map):
    ``_native_warp.c``'s ``blend_matrix_row``, row by row: where u or v lies within a pixel of the input's edges, from their values
    at the row's ends where the divisor keeps its sign along the row; elsewhere the whole row."""
    (out_h, out_w), (in_h, in_w) = size, in_size
    mask = np.zeros((out_h, out_w), bool)
    (a, b1, b2), (c, e1, e2), (g, h1, h2) = np.asarray(m, dtype=np.float64).tolist()  # Python floats: no warnings
    n = float(out_w)
    for y in range(out_h):
        b, e, h = b1 * y + b2, e1 * y + e2, h1 * y + h2
        bm, em, hm = abs(b1 * y) + abs(b2), abs(e1 * y) + abs(e2), abs(h1 * y) + abs(h2)
        d0, d1 = h - g, g * n + h
        tame = all(abs(slope) * n + parts < 1e12 for slope, parts in ((a, bm), (c, em), (g, hm)))  # parts: uncancelled
        if not (tame and d0 * d1 > 0.0):
            mask[y] = True
            continue
        u0, u1, v0, v1 = (b - a) / d0, (a * n + b) / d1, (e - c) / d0, (c * n + e) / d1
        for slope, term, magnitude, t0, t1, extent in ((a, b, bm, u0, u1, in_w), (c, e, em, v0, v1, in_h)):
            for p, q in ((-1.0, 0.0), (extent - 1.0, float(extent))):
                lo, hi = _monotone_span(slope, term, g, h, magnitude, hm, t0, t1, p, q, out_w)
                mask[y, lo:hi] = True
    return mask.reshape(-1)


def _band(weight: np.ndarray) -> np.ndarray:
    """Flat indices of the pixels whose footprint ``weight`` is strictly inside its range: uint8 0..255
    (for uint8 images), or float32 0..1 (for float images, which need every such pixel)."""
    if weight.dtype == np.uint8:
        inside = (weight - np.uint8(1)) < np.uint8(254)  # 1..254, by uint8 wrap-around: one pass
    else:
        inside = (weight > 0.0) & (weight < 1.0)
    return np.flatnonzero(inside)


def _footprint(u: np.ndarray, v: np.ndarray, in_size: Sequence[int]) -> np.ndarray:
    """The in-image share of the bilinear footprint at pixel-centre source points ``(u, v)``."""
    height, width = in_size
    wx = np.minimum(u + 1.0, width - u)
    wy = np.minimum(v + 1.0, height - v)
    for share in (wx, wy):  # clipped to [0, 1] in place (ufuncs: cheaper than np.clip on short arrays)
        np.minimum(np.maximum(share, 0.0, out=share), 1.0, out=share)
    return wx * wy


def _blend_border(out: torch.Tensor, index: np.ndarray, u: np.ndarray, v: np.ndarray, fill: Sequence[float],
                  channels: int, src: np.ndarray, in_band: np.ndarray) -> None:
    """Turn OpenCV's border (``s + (1 - w) fill``, ``s`` the in-image part of the bilinear sum, ``w`` the in-image
    share of the footprint) into the torch path's (``s w + (1 - w) fill``) on the pixels of flat ``index``, whose
    source points are ``(u, v)`` (pixel centres), in place: float planes as ``w out + (1 - w)^2 fill`` where ``w``
    is strictly between 0 and 1; uint8 ones (OpenCV's value is rounded: a second rounding would be up to a level
    off) from ``src``'s pixels, there and where ``in_band`` (OpenCV's alpha strictly between its bounds)."""
    w = _footprint(u, v, src.shape[-2:])
    straddling = (w > 0) & (w < 1)  # elsewhere OpenCV's value is already the torch path's
    planes = out.numpy().reshape(-1, out.shape[-2] * out.shape[-1])
    if out.dtype == torch.uint8:
        fills = [plane_fill(fill, channels, i) for i in range(len(planes))]
        keep = (straddling | in_band) & ~np.isnan(w)
        _blend_from_source(planes, index[keep], u[keep], v[keep], w[keep], fills, src)
        return
    index, w = index[straddling], w[straddling].astype(np.float32)
    fill_share = (1.0 - w) ** 2
    for i, plane in enumerate(planes):
        plane[index] = plane.take(index) * w + fill_share * np.float32(plane_fill(fill, channels, i))


def _blend_from_source(planes: np.ndarray, index: np.ndarray, u: np.ndarray, v: np.ndarray, w: np.ndarray,
                       fills: list[float], src: np.ndarray) -> None:
    """``rint(s w + (1 - w) fill)``, saturated, into the uint8 ``planes`` at flat ``index``: ``s`` the bilinear
    sum of ``src``'s pixels in the image at ``(u, v)``, in double (``_native_warp.c``'s steps; no taps where
    ``w`` is 0)."""
    height, width = src.shape[-2:]
    some = w > 0.0  # (elsewhere no tap is in the image: the points may be anywhere, even infinite)
    u, v = np.where(some, u, 0.0), np.where(some, v, 0.0)
    left, top = np.floor(u), np.floor(v)
    ax, ay, rest = u - left, v - top, 1.0 - w
    x0, y0 = left.astype(np.int64), top.astype(np.int64)
    taps = []  # (row, column, weight) of the four taps; weight 0 where the tap is off the image
    for dy, wy in ((0, 1.0 - ay), (1, ay)):
        for dx, wx in ((0, 1.0 - ax), (1, ax)):
            y, x = y0 + dy, x0 + dx
            inside = some & (y >= 0) & (y < height) & (x >= 0) & (x < width)
            taps.append((np.clip(y, 0, height - 1) * width + np.clip(x, 0, width - 1), wy * wx, inside))
    for plane, source, fill in zip(planes, src.reshape(len(planes), -1), fills):
        total = np.zeros(len(index))
        for flat, weight, inside in taps:
            total += np.where(inside, weight * source.take(flat), 0.0)
        fill_part = np.where(rest > 0.0, rest * float(np.float32(fill)), 0.0)  # (none at all inside)
        blended = np.rint(total * w + fill_part)
        plane[index] = np.clip(blended, 0.0, 255.0)


def _blends_natively(out: torch.Tensor, channels: int) -> bool:
    """Whether the compiled module blends the border of ``out`` (uint8, whose planes group into images of
    ``channels``: at most 256 planes a call)."""
    return out.dtype == torch.uint8 and native() is not None and out.numel() // (out.shape[-2] * out.shape[-1]) <= 256


def _native_blend(out: torch.Tensor, weight: np.ndarray, fill: Sequence[float], channels: int, src: np.ndarray,
                  matrix: np.ndarray | None = None, projective: bool = False,
                  maps: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """:func:`_blend_border` in one compiled pass: the band of ``weight`` (the sampled alpha plane) and, for a
    ``matrix`` (pixel centres, output -> input), the pixels of :func:`_matrix_spans`; the source points from
    ``matrix`` or ``maps``, the pixels from ``src``: the same values."""
    height, width = out.shape[-2:]
    planes = out.numpy().reshape(-1, height, width)
    fills = [plane_fill(fill, channels, i) for i in range(planes.shape[0])]
    map_x, map_y = (np.ascontiguousarray(a, dtype=np.float32) for a in maps) if maps is not None else (None, None)
    flat = None if matrix is None else np.asarray(matrix, dtype=np.float64).reshape(-1).tolist()
    source = np.ascontiguousarray(src.reshape(-1, *src.shape[-2:]))
    native().blend_border(planes, weight, fills, source, flat, projective, map_x, map_y)


def pixel_points(normalised: np.ndarray, extent: int) -> np.ndarray:
    """float32 ``grid_sample`` coordinates along an axis of ``extent`` pixels turned into pixel coordinates in place,
    ``(g + 1) extent / 2 - 0.5`` step by step, as ``grid_sample`` unnormalises them; returns ``normalised``."""
    normalised += np.float32(1.0)
    normalised *= np.float32(extent / 2)
    normalised -= np.float32(0.5)
    return normalised


def remap(image: torch.Tensor, maps: tuple[np.ndarray, np.ndarray], fill: Sequence[float] | None) -> torch.Tensor:
    """Bilinear sampling of ``[..., C, H, W]`` at the float32 source columns and rows ``maps`` ``(H_out, W_out)``
    each (``grid_sample``'s points in pixels: :func:`pixel_points`); outside points as :func:`warp`."""
    height, width = image.shape[-2:]
    channels = channel_count(image)

    def op(src: np.ndarray, border: Any, dst: np.ndarray | None = None) -> np.ndarray:
        return cv2.remap(src, *maps, cv2.INTER_LINEAR, dst=dst, borderMode=cv2.BORDER_CONSTANT, borderValue=border)

    out, weight, src = _map_planes(image, maps[0].shape, fill, channels, op, with_weight=fill is not None)
    if fill is not None and _blends_natively(out, channels):
        _native_blend(out, weight, fill, channels, src, maps=maps)
    elif fill is not None:
        index = _band(weight)
        u, v = (np.take(grid_map, index).astype(np.float64) for grid_map in maps)
        _blend_border(out, index, u, v, fill, channels, src, np.ones(len(index), bool))
    return out


def remap_nearest(
    image: torch.Tensor, x: torch.Tensor, y: torch.Tensor, fill: Sequence[float] | None
) -> torch.Tensor:
    """Nearest sampling of ``[..., C, H, W]`` at whole-number source columns ``x`` and rows ``y``
    (float32 ``H_out x W_out``, rounded by the caller, so OpenCV has no ties to break); points
    outside the image get ``fill`` per channel (zeros when None), rounded and saturated like a cast."""
    return _remap_whole(image, x.to(torch.float32).contiguous().numpy(), y.to(torch.float32).contiguous().numpy(), fill)


def warp_nearest(
    image: torch.Tensor, inverse: Sequence[Sequence[float]], size: Sequence[int], fill: Sequence[float] | None,
    projective: bool | None = None,
) -> torch.Tensor:
    """Nearest warp of ``[..., C, H, W]`` to ``size`` ``(H, W)``; ``inverse`` (2 x 3 or 3 x 3) maps output to
    input points in continuous coordinates. The source pixels are the torch path's (``matrix_grid`` then
    ``_sample_nearest``, torchvision's grid): the same float32 operations in the same order, rounded half to
    even, points that are not finite sent off the image. ``projective``: as ``grid_terms``."""
    return _remap_whole(image, *_rounded_source_points(inverse, size, image.shape[-2:], projective), fill)


def _rounded_source_points(
    inverse: Sequence[Sequence[float]], out_size: Sequence[int], in_size: Sequence[int], projective: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The source columns and rows of a nearest warp, rounded half to even, points that are not finite at -1 (in
    a per-thread scratch buffer, valid until the next call: fresh megabyte maps page-fault on every call); in one
    compiled pass where the module has AVX2 loops (``nearest_points``: the same float32 steps), else in numpy."""
    u, v = scratch([((out_size[0], out_size[1]), np.float32)] * 2, slot="maps")
    terms, origin, projective = grid_terms(inverse, out_size, in_size, np.float32, projective)
    module = native()
    if module is not None and module.nearest_points(u, v, [float(k) for k in terms], projective, in_size[1] / 2,
                                                     in_size[0] / 2, *origin):  # AVX2 only: numpy's are as fast
        return u, v
    _source_points(u, v, terms, projective, origin, in_size)
    for coords in (u, v):
        np.rint(coords, out=coords)
        if not np.isfinite(coords).all():  # a projective horizon (0 / 0) or an overflow
            np.nan_to_num(coords, copy=False, nan=-1.0, posinf=-1.0, neginf=-1.0)
    return u, v


def _source_points(
    u: np.ndarray, v: np.ndarray, k: Sequence[np.float32], projective: bool, origin: Sequence[float],
    in_size: Sequence[int],
) -> None:
    """The unrounded float32 source columns ``u`` and rows ``v`` of every output pixel (written in place), as the
    torch path computes them: the normalised grid of ``matrix_grid`` (``k`` and ``origin``: ``grid_terms``), then
    :func:`pixel_points` for an input of ``in_size``."""
    f32 = np.float32
    xs = np.arange(u.shape[1], dtype=f32) + f32(origin[0])
    ys = np.arange(u.shape[0], dtype=f32) + f32(origin[1])
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # not finite: handled by the caller
        for coords, (kx, ky, k1) in ((u, k[0:3]), (v, k[3:6])):
            np.add((xs * kx)[None, :], (ys * ky)[:, None], out=coords)
            coords += k1
        if projective:
            denominator = (xs * k[6])[None, :] + (ys * k[7])[:, None]
            denominator += k[8]
            u /= denominator
            v /= denominator
            u -= f32(1.0)
            v -= f32(1.0)
        pixel_points(u, in_size[1])
        pixel_points(v, in_size[0])


def _remap_whole(image: torch.Tensor, x: np.ndarray, y: np.ndarray, fill: Sequence[float] | None) -> torch.Tensor:
    """Nearest sampling at whole-number float32 source points ``x``, ``y`` (points off the image: ``fill``).
    Four or more planes of 0 / 1 (instance masks) are sampled eight to a byte (``_masks.sample_packed``)."""

    def op(src: np.ndarray, border: Any, dst: np.ndarray | None = None) -> np.ndarray:
        return cv2.remap(src, x, y, cv2.INTER_NEAREST, dst=dst, borderMode=cv2.BORDER_CONSTANT, borderValue=border)

    packed = sample_packed(image, x.shape, fill,
                           lambda bits, fills: _map_planes(bits, x.shape, fills, len(fills), op)[0])
    return packed if packed is not None else _map_planes(image, x.shape, fill, channel_count(image), op)[0]
