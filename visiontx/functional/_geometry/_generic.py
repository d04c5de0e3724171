"""Kernels every matrix-described op gets from its :class:`Geometry`: images, videos, masks and PIL
images sampled through the geometry's inverse, with exact shortcuts (identity, quarter turns).

:func:`register_warp_kernels` registers all of them, and the box kernel, for a new op from its
description alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import PIL.Image
import torch

from ...datapoints import Image, Mask, Video
from .. import _cv2
from .._checks import check_spatial
from .._interpolation import InterpolationMode
from .._registry import register_kernels
from ._description import Describe, Geometry, register_geometry
from ._grid import FillArg, filled, has_no_pixels, image_fill, matrix_grid, parse_mode, pil_fill, sample, work_dtype

Interpolation = InterpolationMode | str | int

_NEAREST = InterpolationMode.NEAREST
# (a, b, d, e) of a matrix's linear part -> counter-clockwise quarter turns (torch.rot90's k)
_QUARTER_TURNS = {
    (1.0, 0.0, 0.0, 1.0): 0,
    (0.0, 1.0, -1.0, 0.0): 1,
    (-1.0, 0.0, 0.0, -1.0): 2,
    (0.0, -1.0, 1.0, 0.0): 3,
}


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


def warp_image_tensor(
    image: torch.Tensor,
    geometry: Geometry,
    interpolation: Interpolation = InterpolationMode.NEAREST,
    fill: FillArg = None,
) -> torch.Tensor:
    """Sample a tensor ``[..., C, H, W]`` (or a mask ``[..., H, W]``) through ``geometry`` (nearest or
    bilinear); pixels the inverse map sends outside the input get ``fill``. The identity returns the input
    itself, exact quarter turns are ``rot90``s."""
    mode, fill_values = parse_mode(interpolation), image_fill(fill, image)
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
    grid = matrix_grid(inverse, out_size, in_size, work_dtype(image.dtype), image.device)
    return sample(image, grid, mode, fill_values)


def warp_image_pil(
    image: PIL.Image.Image,
    geometry: Geometry,
    interpolation: Interpolation = InterpolationMode.NEAREST,
    fill: FillArg = None,
) -> PIL.Image.Image:
    """Sample a PIL image through ``geometry`` (nearest, bilinear or bicubic)."""
    mode, color = parse_mode(interpolation, pil=True), pil_fill(image, fill)
    (a, b, c), (d, e, f), (g, h, i) = geometry.inverse_matrix
    size = (geometry.canvas_size[1], geometry.canvas_size[0])
    if geometry.is_projective:
        data = [v / i for v in (a, b, c, d, e, f, g, h)]
        return image.transform(size, PIL.Image.Transform.PERSPECTIVE, data, resample=mode.pil, fillcolor=color)
    return image.transform(size, PIL.Image.Transform.AFFINE, (a, b, c, d, e, f), resample=mode.pil, fillcolor=color)


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
        return warp_image_tensor(mask, describe(tuple(mask.shape[-2:]), **params), InterpolationMode.NEAREST, fill)

    @register_kernels(functional, PIL.Image.Image)
    def pil_kernel(
        image: PIL.Image.Image, interpolation: Interpolation = _NEAREST, fill: FillArg = None, **params: Any
    ) -> Any:
        return warp_image_pil(image, describe((image.height, image.width), **params), interpolation, fill)

    for kernel, kind in ((image_kernel, "image_tensor"), (mask_kernel, "mask"), (pil_kernel, "image_pil")):
        kernel.__name__ = kernel.__qualname__ = f"{name}_{kind}_by_geometry"
    register_geometry(functional, describe, sampling=("interpolation", "fill"))
