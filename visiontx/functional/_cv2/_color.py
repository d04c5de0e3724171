"""Colour ops through OpenCV: lookup tables, histograms, grayscale, sharpness, and colour adjustments run on
interleaved pixels.

Brightness, contrast, saturation and hue of RGB images run as steps (:class:`Step`, :func:`adjust_colors`): on
the image's planes where every step has a planar form, else on its interleaved pixels between one merge and
one split, however many steps there are. The
torch side builds the steps and hands over the maths they share with its kernels (its luma, its contrast
lookup tables), so those exist once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ._base import MAT_SIDE, can_use, cv2, native
from ._layout import contiguous, interleaved, planar, planes, scratch

try:  # optional (albumentations brings it): SIMD byte translation, the fastest lookup table
    import stringzilla
except ImportError:
    stringzilla = None

__all__ = [
    "ContrastTables",
    "Luma",
    "PixelStep",
    "PlaneStep",
    "Step",
    "adjust_colors",
    "adjust_contrast",
    "adjust_hue",
    "adjust_saturation",
    "can_adjust_colors",
    "can_adjust_contrast",
    "can_adjust_hue",
    "can_adjust_saturation",
    "can_equalize",
    "can_grayscale",
    "can_lut",
    "can_lut_planes",
    "can_sharpen",
    "contrast_step",
    "equalize",
    "grayscale",
    "hue_step",
    "lut",
    "lut_planes",
    "lut_step",
    "saturation_step",
    "sharpen",
]

_UINT8 = (torch.uint8,)

PixelStep = Callable[[np.ndarray], None]
"""One adjustment of interleaved ``H x W x 3`` RGB pixels, in place (a :class:`Step`'s ``pixels``)."""
PlaneStep = Callable[[np.ndarray, np.ndarray], None]
"""One adjustment of the ``3 x H x W`` uint8 planes of one RGB image: ``(src, dst)``, ``dst`` C-contiguous, ``src``
strided or ``dst`` itself."""


@dataclass(frozen=True)
class Step:
    """One colour adjustment: ``pixels`` on interleaved pixels in place; ``planes``, where it has one, does the same
    to uint8 planes (with the same values), which spares :func:`adjust_colors` its merge and split."""

    pixels: PixelStep
    planes: PlaneStep | None = None


Luma = Callable[[torch.Tensor], torch.Tensor]
"""The torch path's unrounded luma: uint8 RGB ``[..., 3, H, W]`` -> float32 ``[..., 1, H, W]``."""
ContrastTables = Callable[[torch.Tensor, float], torch.Tensor]
"""The torch path's uint8 contrast lookup tables ``[..., 1, 256]`` for float32 gray means ``[..., 1, 1, 1]``
and a contrast factor."""


def _is_rgb(image: torch.Tensor) -> bool:
    return image.ndim >= 3 and image.shape[-3] == 3


# ---------------------------------------------------------------------------------------------- lookup tables
def can_lut(image: torch.Tensor, table: torch.Tensor) -> bool:
    """Whether :func:`lut` can map uint8 ``image`` through ``table`` (its rows as one matrix: under 2^31 values)."""
    return can_use(image, dtypes=_UINT8) and table.device.type == "cpu" and image.numel() < MAT_SIDE


def lut(image: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """Map every value of a uint8 ``image`` through ``table`` (256 uint8 entries, one for all planes)."""
    src = contiguous(image).numpy()
    out = np.empty(src.shape, dtype=np.uint8)
    width = src.shape[-1]
    _translate(src.reshape(-1, width), table.contiguous().numpy(), out.reshape(-1, width))
    return torch.from_numpy(out)


def can_lut_planes(image: torch.Tensor, tables: torch.Tensor | np.ndarray) -> bool:
    """Whether :func:`lut_planes` can map the planes of uint8 ``image`` through ``tables``."""
    return can_use(image, dtypes=_UINT8) and (not isinstance(tables, torch.Tensor) or tables.device.type == "cpu")


def lut_planes(image: torch.Tensor, tables: torch.Tensor | np.ndarray) -> torch.Tensor:
    """Map plane ``i`` of a uint8 ``[..., H, W]`` image through ``tables[i % T]`` (``T x 256``, uint8 or
    float32: the output's dtype)."""
    if isinstance(tables, torch.Tensor):
        tables = tables.reshape(-1, 256).contiguous().numpy()
    src, out, dst = planes(image, dtype=tables.dtype)
    for i in range(src.shape[0]):
        _translate(src[i], tables[i % len(tables)], dst[i])
    return out


def _translate(src: np.ndarray, table: np.ndarray, dst: np.ndarray) -> None:
    """``dst = table[src]`` for a 2-D uint8 ``src`` (``dst`` contiguous, of the table's dtype)."""
    if stringzilla is not None and table.dtype == np.uint8:
        # (a copy for row-strided crops, as reshape would make; also for single columns, which it would not)
        flat = np.ascontiguousarray(src).reshape(-1)
        stringzilla.translate(memoryview(flat), memoryview(table), out=memoryview(dst.reshape(-1)))
    else:
        cv2.LUT(src, table, dst=dst)


def histograms(rows: np.ndarray) -> np.ndarray:
    """``N x 256`` int64 counts of the values of each row of a uint8 ``N x P`` array (OpenCV's calcHist)."""
    counts = [cv2.calcHist([row[None]], [0], None, [256], [0, 256]).reshape(256) for row in rows]
    return np.stack(counts).astype(np.int64) if counts else np.zeros((0, 256), dtype=np.int64)


def can_equalize(image: torch.Tensor) -> bool:
    """Whether :func:`equalize` can equalize the planes of ``image``."""
    return can_use(image, dtypes=_UINT8)


def equalize(image: torch.Tensor, tables: Callable[[np.ndarray, int], np.ndarray]) -> torch.Tensor:
    """Equalize each ``H x W`` plane of uint8 ``image`` through ``tables(histograms, pixels per plane)``
    (``N x 256`` uint8 numpy lookup tables for ``N x 256`` int64 counts)."""
    src, out, dst = planes(image)
    plane_tables = tables(histograms(src.reshape(src.shape[0], -1)), src.shape[1] * src.shape[2])
    for i in range(src.shape[0]):
        _translate(src[i], plane_tables[i], dst[i])
    return out


# ------------------------------------------------------------------------------------------------- grayscale
def can_grayscale(image: torch.Tensor) -> bool:
    """Whether :func:`grayscale` can convert ``image`` (uint8 RGB)."""
    return can_use(image, dtypes=_UINT8) and _is_rgb(image)


def grayscale(image: torch.Tensor, num_output_channels: int, weights: tuple[int, int, int]) -> torch.Tensor:
    """Luma of uint8 RGB ``[..., 3, H, W]`` as ``num_output_channels`` equal uint8 planes. Through the compiled
    kernel where it is built: ``(wr * R + wg * G + wb * B + 2^15) >> 16`` with the torch kernel's 16-bit
    ``weights``, its values exactly, in one pass over the planes. Otherwise through OpenCV's fixed-point
    RGB -> gray on merged pixels (weights 0.299 / 0.587 / 0.114, rounded): within one level of the torch
    kernel's (0.2989 weights), off by one on about 1 % of pixels."""
    height, width = image.shape[-2:]
    out = np.empty((*image.shape[:-3], num_output_channels, height, width), dtype=np.uint8)
    dst = out.reshape(-1, num_output_channels, height, width)
    module = native()
    if module is not None:
        pixels = (image if image.stride(-1) == 1 else contiguous(image)).numpy()  # rows of pixels, as it reads them
        module.luma(pixels.reshape(-1, 3, height, width), dst, weights)
        return torch.from_numpy(out)
    for pixels, target in zip(_rgb_pixels(image), dst):
        _gray_pixels(pixels, out=target[0])
        target[1:] = target[0]
    return torch.from_numpy(out)


def _rgb_pixels(image: torch.Tensor) -> Iterator[np.ndarray]:
    """The interleaved ``H x W x 3`` pixels of each image of RGB ``[..., 3, H, W]`` in turn, merged into a
    per-thread scratch buffer (valid until the next one). Contiguous planes are read through numpy
    (torch views cost more per image)."""
    dtype = np.uint8 if image.dtype == torch.uint8 else np.float32
    if image.is_contiguous():
        planes_np = image.numpy()
        height, width = planes_np.shape[-2:]
        for item in planes_np.reshape(-1, 3, height, width):
            yield cv2.merge(list(item), dst=scratch([((height, width, 3), dtype)], slot="pixels")[0])
        return
    height, width = image.shape[-2:]
    for item in image.reshape(-1, 3, height, width):
        yield interleaved(item, out=scratch([((height, width, 3), dtype)], slot="pixels")[0])


def _gray_pixels(pixels: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The ``H x W`` uint8 luma of interleaved ``H x W x 3`` uint8 RGB pixels (into ``out`` if given):
    OpenCV's fixed-point conversion, rounded, with weights 0.299 / 0.587 / 0.114."""
    return cv2.cvtColor(pixels, cv2.COLOR_RGB2GRAY, dst=out)


# ------------------------------------------------------------------------------ adjustments on interleaved pixels
def can_adjust_colors(image: torch.Tensor, num_steps: int) -> bool:
    """Whether :func:`adjust_colors` should run ``num_steps`` adjustments of ``image``: uint8 RGB, and
    more than one step (a single one takes its op's own hand-over)."""
    return num_steps > 1 and _is_rgb(image) and can_use(image, dtypes=_UINT8)


def adjust_colors(image: torch.Tensor, steps: Sequence[Step]) -> torch.Tensor:
    """Run ``steps`` in order on each RGB image of a uint8 or float32 ``[..., 3, H, W]`` tensor: on its planes
    where every step has a planar form (uint8; see :class:`Step`), else on its interleaved ``H x W x 3`` pixels,
    one merge before and one split after, however many steps run (the pixels are per-thread scratch, valid
    during the steps only)."""
    plane_steps = [step.planes for step in steps]
    if image.dtype == torch.uint8 and plane_steps and all(plane_steps):
        return _adjust_planes(image, plane_steps)
    height, width = image.shape[-2:]
    out = np.empty(image.shape, dtype=np.uint8 if image.dtype == torch.uint8 else np.float32)
    for pixels, target in zip(_rgb_pixels(image), out.reshape(-1, 3, height, width)):
        for step in steps:
            step.pixels(pixels)
        cv2.split(pixels, list(target))
    return torch.from_numpy(out)


def _adjust_planes(image: torch.Tensor, steps: Sequence[PlaneStep]) -> torch.Tensor:
    """:func:`adjust_colors` of uint8 RGB through the planar forms of its steps: the first reads the image, the
    others work in place on the output."""
    src, out, dst = planes(image)
    height, width = src.shape[-2:]
    for source, target in zip(src.reshape(-1, 3, height, width), dst.reshape(-1, 3, height, width)):
        for step in steps:
            step(source, target)
            source = target
    return out


def lut_step(table: torch.Tensor) -> Step:
    """A step mapping uint8 pixels through ``table`` (256 uint8 entries; brightness)."""
    values = table.reshape(256).contiguous().numpy()
    return Step(functools.partial(_lut_pixels, table=values), functools.partial(_lut_planes, table=values))


def _lut_pixels(pixels: np.ndarray, table: np.ndarray) -> None:
    rows = pixels.reshape(pixels.shape[0], -1)
    _translate(rows, table, rows)


def _lut_planes(src: np.ndarray, dst: np.ndarray, table: np.ndarray) -> None:
    if src.flags.c_contiguous:  # the three planes as one run of rows: one call
        _translate(src.reshape(-1, src.shape[-1]), table, dst.reshape(-1, dst.shape[-1]))
        return
    for k in range(3):
        _translate(src[k], table, dst[k])


def _unfloored_luma_fits(factor: float) -> bool:
    """Whether the uint8 contrast and saturation steps blend with the unfloored luma.

    torchvision floors the luma of uint8 images; the wing's one pass over interleaved pixels keeps it
    unfloored (contrast: the mean of the unrounded luma; saturation: the luma inside one pixel transform),
    which is closer to the float result. Blending by ``factor`` scales that difference by ``|1 - factor|``:
    up to 0.5 (ColorJitter's usual range) the output stays within one level of torchvision's; other
    factors use the floored luma.
    """
    return abs(1.0 - factor) <= 0.5


def floor_uint8(values: torch.Tensor) -> torch.Tensor:
    """``floor`` of float32 ``values`` in [0, 256) as uint8 (numpy's truncating cast, faster than torch's)."""
    return torch.from_numpy(values.contiguous().numpy().astype(np.uint8))


def _floored_luma(pixels: np.ndarray, luma: Luma) -> np.ndarray:
    """The ``H x W`` uint8 luma of interleaved ``H x W x 3`` uint8 RGB pixels, floored as the torch path's."""
    return floor_uint8(luma(planar(pixels))).numpy()[0]


def contrast_step(factor: float, luma: Luma, tables: ContrastTables) -> Step:
    """A step blending uint8 pixels with their mean gray level by ``factor`` (see :func:`_unfloored_luma_fits`;
    other factors take the floored luma, averaged as the torch path does, and have no planar form)."""
    pixels = functools.partial(_contrast_pixels, factor=factor, luma=luma, tables=tables)
    if not _unfloored_luma_fits(factor):
        return Step(pixels)
    return Step(pixels, functools.partial(_contrast_planes, factor=factor, tables=tables))


_LUMA_WEIGHTS = np.array([0.2989, 0.587, 0.114])  # the torch path's (torchvision's) luma weights


def _gray_mean(channel_means: Sequence[float]) -> float:
    """The mean of the unrounded luma: the luma weights applied to the three channel means (one
    pass of integer sums instead of a gray image and its mean)."""
    return float(np.dot(_LUMA_WEIGHTS, channel_means[:3]))


def _contrast_pixels(pixels: np.ndarray, factor: float, luma: Luma, tables: ContrastTables) -> None:
    if _unfloored_luma_fits(factor):
        mean = _gray_mean(cv2.mean(pixels))  # OpenCV's integer sums
    else:
        mean = torch.from_numpy(_floored_luma(pixels, luma)).to(torch.float32).mean().item()
    rows = pixels.reshape(pixels.shape[0], -1)
    _translate(rows, contrast_table(mean, factor, tables), rows)


def _contrast_planes(src: np.ndarray, dst: np.ndarray, factor: float, tables: ContrastTables) -> None:
    """:func:`_contrast_pixels` for a factor that fits the unfloored luma, on planes: the same channel means (exact
    integer sums), table and lookups."""
    table = contrast_table(_gray_mean([cv2.mean(src[k])[0] for k in range(3)]), factor, tables)
    _lut_planes(src, dst, table)


_VALUES = np.arange(256, dtype=np.float32)
# (gray mean, factor) pairs whose tables differ between one and two roundings of the blend
_ROUNDING_PROBES = ((110.0924301147461, 0.524), (235.2278594970703, 1.193), (78.90472412109375, 0.685))


def contrast_table(mean: float, factor: float, tables: ContrastTables) -> np.ndarray:
    """The uint8 contrast table of one image (gray ``mean``) in numpy: the torch path's float32 maths
    (``tables``, the reference), ``values * factor`` then ``+ (1 - factor) * mean``, rounded as torch's
    CPU kernel rounds that blend here (see :func:`_torch_rounding`), then half to even and clamped.
    A few torch ops on 256 values cost ~50 µs a call; these ~5."""
    fused = _torch_rounding(tables)
    if fused is None:
        return tables(torch.tensor(mean, dtype=torch.float32).view(1, 1, 1), factor).reshape(256).numpy()
    return _numpy_table(mean, factor, fused)


def _numpy_table(mean: float, factor: float, fused: bool) -> np.ndarray:
    scaled, weight = _VALUES * np.float32(factor), np.float32(1.0 - factor)
    if fused:  # one rounding: the float64 sum of a float32 and the exact product of two float32
        blend = (scaled.astype(np.float64) + float(weight) * float(np.float32(mean))).astype(np.float32)
    else:
        blend = scaled + weight * np.float32(mean)
    return np.clip(np.rint(blend), 0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=4)
def _torch_rounding(tables: ContrastTables) -> bool | None:
    """Whether torch's ``mul_(factor).add_(mean, alpha=1 - factor)`` rounds once (a fused multiply-add, as
    its AVX2 and NEON kernels do) or twice on this machine, found once from ``tables`` on probe values;
    None when neither numpy version reproduces it (then the torch tables are used)."""
    expected = [
        tables(torch.tensor(mean, dtype=torch.float32).view(1, 1, 1), factor).reshape(256).numpy()
        for mean, factor in _ROUNDING_PROBES
    ]
    for fused in (True, False):
        tried = [_numpy_table(mean, factor, fused) for mean, factor in _ROUNDING_PROBES]
        if all(np.array_equal(mine, theirs) for mine, theirs in zip(tried, expected)):
            return fused
    return None


def saturation_step(factor: float, luma: Luma) -> Step:
    """A step blending uint8 pixels with their gray by ``factor`` (see :func:`_unfloored_luma_fits`; other
    factors take the floored luma and have no planar form, nor has it without the compiled kernel)."""
    pixels = functools.partial(_saturation_pixels, factor=factor, luma=luma)
    module = native()
    if module is None or not _unfloored_luma_fits(factor):
        return Step(pixels)
    return Step(pixels, functools.partial(_image_planes_through, kernel=module.color_matrix,
                                          argument=_saturation_matrix(factor).ravel().tolist()))


def _saturation_pixels(pixels: np.ndarray, factor: float, luma: Luma) -> None:
    """``factor * pixels + (1 - factor) * gray`` in place, rounded and saturated: for factors that fit the
    unfloored luma, each pixel through :func:`_saturation_matrix` (the compiled kernel's float32 sums where it
    is built, else ``cv2.transform``: half the time of a gray image and a blend); other factors blend with
    the floored luma."""
    if _unfloored_luma_fits(factor):
        matrix = _saturation_matrix(factor)
        module = native()
        if module is not None:
            module.color_matrix_pixels(pixels, pixels, matrix.ravel().tolist())
        else:
            cv2.transform(pixels, matrix, dst=pixels)
        return
    gray = _floored_luma(pixels, luma)
    cv2.addWeighted(pixels, factor, cv2.cvtColor(gray, cv2.COLOR_GRAY2RGB), 1.0 - factor, 0.0, dst=pixels)


def _saturation_matrix(factor: float) -> np.ndarray:
    """The float32 ``3 x 3`` map of an RGB pixel to its saturation by ``factor``: each channel ``factor``
    times itself plus ``1 - factor`` times the luma (the torch path's weights, unrounded)."""
    w0, w1, w2 = ((1.0 - factor) * w for w in _LUMA_WEIGHTS.tolist())
    return np.array([[factor + w0, w1, w2], [w0, factor + w1, w2], [w0, w1, factor + w2]], dtype=np.float32)


def hue_step(factor: float) -> Step:
    """A step rotating the hue of uint8 or float32 pixels by ``factor`` turns (see :func:`shift_hue`); its planar
    form is the compiled kernel's, where it is built."""
    pixels = functools.partial(shift_hue, hue_factor=factor)
    module = native()
    if module is None:
        return Step(pixels)
    return Step(pixels, functools.partial(_image_planes_through, kernel=module.hue, argument=factor))


_HUE_BAND_PIXELS = 1 << 18


def shift_hue(pixels: np.ndarray, hue_factor: float) -> None:
    """Rotate the hue of interleaved ``H x W x 3`` RGB pixels (uint8, or float32 in [0, 1]) by
    ``hue_factor`` turns in place. uint8 through the compiled kernel where it is built (the torch path's
    values); otherwise through OpenCV's float HSV: scale-free, so uint8 values need no rescaling, and its
    HSV -> RGB conversion wraps the hue (uint8 within 1 level). Works in bands of up to 512 x 512 pixels
    with per-thread scratch buffers (smaller bands cost more calls, whole large images fall out of cache)."""
    module = native() if pixels.dtype == np.uint8 else None
    if module is not None:
        module.hue_pixels(pixels, pixels, hue_factor)
        return
    height, width = pixels.shape[:2]
    rows = min(height, max(1, _HUE_BAND_PIXELS // width))
    rgb, hsv = scratch([((rows, width, 3), np.float32)] * 2)
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


def can_adjust_contrast(image: torch.Tensor) -> bool:
    """Whether :func:`adjust_contrast` can run on ``image`` (uint8, 1 or 3 channels)."""
    return can_use(image, dtypes=_UINT8) and image.ndim >= 3 and image.shape[-3] in (1, 3)


def adjust_contrast(image: torch.Tensor, factor: float, luma: Luma, tables: ContrastTables) -> torch.Tensor:
    """Contrast of uint8 ``[..., C, H, W]``, one lookup table per image. RGB as :func:`contrast_step` (a factor
    that fits the unfloored luma on the planes, its mean from the three plane means; other factors on
    interleaved pixels, the floored luma); one channel with the torch path's maths."""
    if _is_rgb(image):
        return adjust_colors(image, [contrast_step(factor, luma, tables)])
    means = image.to(torch.float32).mean(dim=(-3, -2, -1), keepdim=True)
    return lut_planes(image, tables(means, factor).expand(*image.shape[:-2], 256))


def can_adjust_saturation(image: torch.Tensor) -> bool:
    """Whether :func:`adjust_saturation` can run on ``image`` (uint8 RGB)."""
    return can_use(image, dtypes=_UINT8) and _is_rgb(image)


def adjust_saturation(image: torch.Tensor, factor: float, luma: Luma) -> torch.Tensor:
    """Saturation of uint8 RGB ``[..., 3, H, W]`` (see :func:`saturation_step`; on the planes where it has a
    planar form)."""
    return adjust_colors(image, [saturation_step(factor, luma)])


def _image_planes_through(src: np.ndarray, dst: np.ndarray, kernel: Callable[..., None], argument: object) -> None:
    """``kernel(src, dst, argument)`` of the compiled module on the ``3 x H x W`` planes of one image."""
    kernel(src[None], dst[None], argument)


def can_adjust_hue(image: torch.Tensor) -> bool:
    """Whether :func:`adjust_hue` can run on ``image`` (uint8 or float32 RGB)."""
    return can_use(image) and _is_rgb(image)


def adjust_hue(image: torch.Tensor, factor: float) -> torch.Tensor:
    """Hue of uint8 or float32 RGB ``[..., 3, H, W]`` (see :func:`shift_hue`; uint8 planes go to the compiled
    kernel as they are, where it is built: 224 x 224 ~100 µs, the interleaved OpenCV path 300)."""
    return adjust_colors(image, [hue_step(factor)])


# ------------------------------------------------------------------------------------------------- sharpness
_BAND_PIXELS = 1 << 15  # pixels per call when sharpening small planes together
_SMOOTH = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], dtype=np.float32) / 13


def can_sharpen(image: torch.Tensor) -> bool:
    """Whether :func:`sharpen` can run on ``image`` (planes of at least 3 x 3)."""
    return can_use(image) and image.shape[-2] > 2 and image.shape[-1] > 2


def sharpen(image: torch.Tensor, factor: float) -> torch.Tensor:
    """PIL's sharpness on ``[..., H, W]`` planes (at least 3 x 3): blend each pixel with its
    ``[[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13`` smoothing by ``factor``; the 1-pixel border is kept."""
    src, out, dst = planes(image)
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
