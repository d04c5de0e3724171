"""Kernels every matrix-described op gets from its :class:`Geometry`: images, videos, masks and PIL
images sampled through the geometry's inverse, with exact shortcuts (identity, quarter turns).

:func:`register_warp_kernels` registers all of them, and the box kernel, for a new op from its
description alone; :func:`warp` applies any :class:`Geometry` (e.g. a composed one) to any input type.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import PIL.Image
import torch
from torch.nn.functional import avg_pool2d

from ...datapoints import BoundingBoxFormat, Image, Mask, Video
from .. import _cv2
from .._checks import check_spatial
from .._interpolation import InterpolationMode
from .._registry import get_kernel, register_geometry_kernel, register_kernels
from ._description import Describe, Geometry, register_geometry, transform_bounding_box
from ._grid import (
    FillArg, filled, has_no_pixels, image_fill, matrix_grid, on_bytes, parse_mode, pil_fill, sample, samples_as_bytes,
    work_dtype,
)
from ._matrix import scale_matrix

__all__ = ["warp", "warp_bounding_box", "warp_image_pil", "warp_image_tensor", "warp_mask"]

Interpolation = InterpolationMode | str | int

_NEAREST = InterpolationMode.NEAREST
# (a, b, d, e) of a matrix's linear part -> counter-clockwise quarter turns (torch.rot90's k)
_QUARTER_TURNS = {
    (1.0, 0.0, 0.0, 1.0): 0,
    (0.0, 1.0, -1.0, 0.0): 1,
    (-1.0, 0.0, 0.0, -1.0): 2,
    (0.0, -1.0, 1.0, 0.0): 3,
}


# counter-clockwise quarter turns -> Pillow's transposes
_PIL_TURNS = {1: PIL.Image.Transpose.ROTATE_90, 2: PIL.Image.Transpose.ROTATE_180, 3: PIL.Image.Transpose.ROTATE_270}


def _exact_turns(geometry: Geometry, in_size: tuple[int, int]) -> int | None:
    """The quarter turns ``geometry`` is exactly (its matrix maps the input rectangle onto the canvas
    by a rotation of pixel centres onto pixel centres), or None."""
    (a, b, c), (d, e, f), last = geometry.matrix
    turns = _QUARTER_TURNS.get((a, b, d, e))
    if turns is None or last != (0.0, 0.0, 1.0):
        return None
    height, width = in_size
    xs = [a * x + b * y + c for x, y in ((0, 0), (width, height))]
    ys = [d * x + e * y + f for x, y in ((0, 0), (width, height))]
    out_height, out_width = geometry.canvas_size
    if sorted(xs) != [0.0, float(out_width)] or sorted(ys) != [0.0, float(out_height)]:
        return None
    return turns


def _shrink(geometry: Geometry) -> tuple[float, float]:
    """Input pixels per output pixel along the input's x and y at the canvas centre (the row norms of
    the inverse map's Jacobian there); ``(1, 1)`` where the centre maps to infinity."""
    (a, b, c), (d, e, f), (g, h, i) = geometry.inverse_matrix
    y, x = geometry.canvas_size[0] / 2, geometry.canvas_size[1] / 2
    w = g * x + h * y + i
    if abs(w) < 1e-12:
        return 1.0, 1.0
    u, v = (a * x + b * y + c) / w, (d * x + e * y + f) / w
    return math.hypot(a - g * u, b - h * u) / abs(w), math.hypot(d - g * v, e - h * v) / abs(w)


def block_factors(geometry: Geometry) -> tuple[int, int]:
    """``(ky, kx)``: the whole part of the shrink of ``geometry`` along the input's y and x (1 where it
    does not shrink by 2 or more): the blocks an antialiased warp averages first."""
    shrink_x, shrink_y = _shrink(geometry)
    return max(1, int(shrink_y)), max(1, int(shrink_x))


def _block_mean(image: torch.Tensor, factors: tuple[int, int]) -> torch.Tensor:
    """The rounded mean of each whole ``ky x kx`` block of ``image`` ``[..., C, H, W]`` (partial blocks
    at the bottom and right are dropped)."""
    if _cv2.can_shrink(image):
        return _cv2.shrink(image, factors)
    height, width = image.shape[-2:]
    flat = image.reshape(-1, 1, height, width).to(work_dtype(image.dtype))
    out = avg_pool2d(flat, factors).reshape(*image.shape[:-2], height // factors[0], width // factors[1])
    return out.to(image.dtype) if image.is_floating_point() else out.round_().to(image.dtype)  # means stay in range


def _after_blocks(geometry: Geometry, factors: tuple[int, int], in_size: tuple[int, int]) -> Geometry:
    """``geometry`` applied to the block means of an input of ``in_size``."""
    return Geometry(scale_matrix(factors[1], factors[0]), in_size).then(geometry)


def warp_image_tensor(
    image: torch.Tensor,
    geometry: Geometry,
    interpolation: Interpolation = InterpolationMode.NEAREST,
    fill: FillArg = None,
    antialias: bool = False,
) -> torch.Tensor:
    """Sample a tensor ``[..., C, H, W]`` (or a mask ``[..., H, W]``) through ``geometry`` (nearest or
    bilinear); pixels the inverse map sends outside the input get ``fill``. The identity returns the input
    itself, exact quarter turns are ``rot90``s. With ``antialias`` (bilinear images only), an input that
    the geometry shrinks by 2 or more is first averaged over blocks of the whole part of that shrink."""
    mode, fill_values = parse_mode(interpolation), image_fill(fill, image)
    if samples_as_bytes(image, mode, fill_values):
        return on_bytes(image, lambda as_bytes: warp_image_tensor(as_bytes, geometry, mode, fill_values))
    factors = block_factors(geometry) if antialias and mode != _NEAREST else (1, 1)
    blocks = (image.shape[-2] // factors[0], image.shape[-1] // factors[1])
    if factors != (1, 1) and image.ndim >= 3 and image.numel() > 0 and min(blocks) > 0:
        geometry = _after_blocks(geometry, factors, (image.shape[-2], image.shape[-1]))
        image = _block_mean(image, factors)
    in_size = (image.shape[-2], image.shape[-1])
    turns = _exact_turns(geometry, in_size)
    if turns == 0:
        return image
    if turns is not None:
        return torch.rot90(image, k=turns, dims=(-2, -1))
    out_size = geometry.canvas_size
    if has_no_pixels(image, out_size):
        return filled(image, out_size, fill_values)
    inverse = [list(row) for row in geometry.inverse_matrix]
    if _cv2.can_warp(image, mode, fill_values):
        return _cv2.warp(image, inverse, out_size, fill_values)
    if mode == _NEAREST and _cv2.can_remap_nearest(image, fill_values):
        return _cv2.warp_nearest(image, inverse, out_size, fill_values)
    grid = matrix_grid(inverse, out_size, in_size, work_dtype(image.dtype), image.device)
    return sample(image, grid, mode, fill_values)


def warp_image_pil(
    image: PIL.Image.Image,
    geometry: Geometry,
    interpolation: Interpolation = InterpolationMode.NEAREST,
    fill: FillArg = None,
    antialias: bool = False,
) -> PIL.Image.Image:
    """Sample a PIL image through ``geometry`` (nearest, bilinear or bicubic); ``antialias`` as for
    :func:`warp_image_tensor` (PIL's ``reduce``). Exact quarter turns are Pillow's transposes."""
    mode, color = parse_mode(interpolation, pil=True), pil_fill(image, fill)
    (ky, kx) = block_factors(geometry) if antialias and mode != _NEAREST else (1, 1)
    if (ky, kx) != (1, 1) and min(image.height // ky, image.width // kx) > 0:
        geometry = _after_blocks(geometry, (ky, kx), (image.height, image.width))
        image = image.reduce((kx, ky), box=(0, 0, image.width // kx * kx, image.height // ky * ky))
    (a, b, c), (d, e, f), (g, h, i) = geometry.inverse_matrix
    size = (geometry.canvas_size[1], geometry.canvas_size[0])
    turns = _exact_turns(geometry, (image.height, image.width))
    if turns is not None:  # exact, as Pillow's rotate (its resampling takes RGBA and LA through premultiplied alpha)
        return image.copy() if turns == 0 else image.transpose(_PIL_TURNS[turns])
    if geometry.is_projective:
        data = [v / i for v in (a, b, c, d, e, f, g, h)]
        return image.transform(size, PIL.Image.Transform.PERSPECTIVE, data, resample=mode.pil, fillcolor=color)
    return image.transform(size, PIL.Image.Transform.AFFINE, (a, b, c, d, e, f), resample=mode.pil, fillcolor=color)


def warp(
    inpt: Any,
    geometry: Geometry,
    interpolation: Interpolation = InterpolationMode.NEAREST,
    fill: FillArg = None,
    antialias: bool = False,
) -> Any:
    """Move ``inpt`` through ``geometry`` in one resampling: images and videos sample through its
    inverse, masks with nearest neighbours, boxes map their corners and are clamped as its ``clamp``
    says. It is how ``Compose(..., fuse_geometry=True)`` applies the composed geometry of a run.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox`` (see ``visiontx.functional``)
            of the input size ``geometry`` was described for.
        geometry: a :class:`Geometry`, e.g. ``F.geometry_of(...)``, or several composed with ``then``.
        interpolation: nearest (default) or bilinear; PIL images also bicubic.
        fill: value of output pixels whose source is outside the input (default None: zeros).
        antialias: where ``geometry`` shrinks the image by 2 or more (at the canvas centre), average it
            first over blocks of the whole part of that shrink (default False; not for nearest, masks or boxes).

    Example:
        >>> g = F.geometry_of("rotate", (480, 640), angle=30).then(F.geometry_of("resize", (480, 640), size=240))
        >>> F.warp(image, g, interpolation="bilinear", antialias=True)
    """
    if not isinstance(geometry, Geometry):
        raise TypeError(f"geometry must be a Geometry (e.g. from F.geometry_of), got {type(geometry)}")
    kernel = get_kernel(warp, type(inpt))
    return kernel(inpt, geometry=geometry, interpolation=interpolation, fill=fill, antialias=antialias)


register_kernels(warp, (torch.Tensor, Image, Video))(warp_image_tensor)
register_kernels(warp, PIL.Image.Image)(warp_image_pil)


@register_kernels(warp, Mask)
def warp_mask(
    mask: torch.Tensor,
    geometry: Geometry,
    interpolation: Interpolation = InterpolationMode.NEAREST,
    fill: FillArg = None,
    antialias: bool = False,
) -> torch.Tensor:
    """Sample a mask ``[..., H, W]`` through ``geometry`` with nearest neighbours (``interpolation`` and
    ``antialias`` are ignored)."""
    return warp_image_tensor(mask, geometry, _NEAREST, fill)


def warp_bounding_box(
    bounding_box: torch.Tensor, format: BoundingBoxFormat | str, geometry: Geometry, clamping_mode: str | None = "soft"
) -> tuple[torch.Tensor, tuple[int, int]]:
    """Boxes ``[..., K]`` through ``geometry`` (corners mapped once, clamped as it says, in
    ``clamping_mode``) and the new canvas; rotated boxes stay rotated."""
    return transform_bounding_box(bounding_box, format, geometry, clamping_mode), geometry.canvas_size


@register_geometry_kernel(warp)
def _warp_bounding_box_kernel(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    geometry: Geometry,
    clamping_mode: str | None = "soft",
    **sampling: Any,
) -> tuple[torch.Tensor, tuple[int, int]]:
    return warp_bounding_box(bounding_box, format, geometry, clamping_mode)


def register_warp_kernels(functional: Callable, describe: Describe) -> None:
    """Register every kernel of the geometric op ``functional`` from its description alone: images and
    videos (``interpolation`` and ``fill`` as the dispatcher passes them), masks (nearest), PIL images and
    bounding boxes. The dispatcher calls kernels with keywords: ``interpolation``, ``fill`` and the
    op's own arguments, which go to ``describe(spatial_size, **params)``."""
    name = functional.__name__

    @register_kernels(functional, (torch.Tensor, Image, Video))
    def image_kernel(
        image: torch.Tensor, interpolation: Interpolation = _NEAREST, fill: FillArg = None, **params: Any
    ) -> Any:
        check_spatial(image, name)
        return warp_image_tensor(image, describe(tuple(image.shape[-2:]), **params), interpolation, fill)

    @register_kernels(functional, Mask)
    def mask_kernel(
        mask: torch.Tensor, interpolation: Interpolation = _NEAREST, fill: FillArg = None, **params: Any
    ) -> Any:
        check_spatial(mask, name)
        return warp_mask(mask, describe(tuple(mask.shape[-2:]), **params), fill=fill)

    @register_kernels(functional, PIL.Image.Image)
    def pil_kernel(
        image: PIL.Image.Image, interpolation: Interpolation = _NEAREST, fill: FillArg = None, **params: Any
    ) -> Any:
        return warp_image_pil(image, describe((image.height, image.width), **params), interpolation, fill)

    for kernel, kind in ((image_kernel, "image_tensor"), (mask_kernel, "mask"), (pil_kernel, "image_pil")):
        kernel.__name__ = kernel.__qualname__ = f"{name}_{kind}_by_geometry"
    register_geometry(functional, describe, sampling=("interpolation", "fill"))
