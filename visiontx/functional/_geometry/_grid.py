"""The pixel engine of the warping ops: sample an image at a grid of source points, with a fill.

Grids follow ``torch.nn.functional.grid_sample`` (``align_corners=False``): ``grid[i, j]`` holds the
source point of output pixel ``(i, j)`` as ``(x, y)`` normalised to ``[-1, 1]`` over the input. A
batched grid ``[B, H_out, W_out, 2]`` gives each image of a batch ``[B, ..., H, W]`` its own points
(``PerSample``'s warps, from :func:`batched_matrix_grid`).
Nearest sampling gathers pixels directly in the input dtype (uint8 stays uint8, masks of any dtype);
bilinear and bicubic sampling work in float and round back (saturating: bicubic overshoots).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import PIL.Image
import torch
from torch.nn.functional import grid_sample

from ..._args import FillArg, parse_fill
from .. import _cv2
from .._dtype import WIDE_UNSIGNED, work_dtype
from .._grid_terms import grid_terms
from .._interpolation import InterpolationMode

_OUTSIDE = -5.0  # a normalised coordinate whose whole bilinear or bicubic footprint is off any image
_TENSOR_MODES = (InterpolationMode.NEAREST, InterpolationMode.BILINEAR)
_BICUBIC_MODES = (*_TENSOR_MODES, InterpolationMode.BICUBIC)
_PIL_MODES = (InterpolationMode.NEAREST, InterpolationMode.BILINEAR, InterpolationMode.BICUBIC)


def image_fill(fill: FillArg, image: torch.Tensor) -> list[float] | None:
    """``fill`` as per-channel values (one value broadcasts), or None: :func:`visiontx._args.parse_fill` for
    ``image`` ``[..., C, H, W]`` (``[..., H, W]``: one channel)."""
    return parse_fill(fill, image.shape[-3] if image.ndim >= 3 else 1)


def samples_as_bytes(image: torch.Tensor, mode: InterpolationMode, fill: Sequence[float] | None) -> bool:
    """Whether nearest sampling of a bool ``image`` can run on its bytes (0 / 1, viewed as uint8: the fast paths),
    with the same values: fills of 0 or 1 (None: 0)."""
    return (
        image.dtype == torch.bool and mode == InterpolationMode.NEAREST
        and (fill is None or all(value in (0.0, 1.0) for value in fill))
    )


def on_bytes(image: torch.Tensor, sample_bytes: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """``sample_bytes`` of bool ``image`` viewed as uint8 (see :func:`samples_as_bytes`), viewed back as bool; the
    input itself where ``sample_bytes`` returns its argument (an identity)."""
    as_bytes = image.view(torch.uint8)
    out = sample_bytes(as_bytes)
    return image if out is as_bytes else out.view(torch.bool)


def parse_mode(
    interpolation: InterpolationMode | str | int, pil: bool = False, bicubic: bool = False
) -> InterpolationMode:
    """The interpolation mode; tensors support nearest and bilinear (and bicubic where ``bicubic``:
    ``grid_sample``'s, as torchvision's elastic), PIL images also bicubic."""
    mode = InterpolationMode.parse(interpolation)
    supported = _PIL_MODES if pil else _BICUBIC_MODES if bicubic else _TENSOR_MODES
    if mode not in supported:
        raise ValueError(f"interpolation must be one of {[m.value for m in supported]} here, got {mode.value!r}")
    return mode


def _fill_tensor(fill: list[float], image: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The fill as a tensor broadcasting over ``[..., C, H, W]`` (a scalar when one value)."""
    values = torch.empty(len(fill), dtype=torch.float64, device=image.device)
    for k, value in enumerate(fill):  # scalar fills: no host-to-device copy, which would synchronise a GPU
        values[k] = value
    if not dtype.is_floating_point and dtype != torch.bool:
        info = torch.iinfo(dtype)
        values = values.round().clamp(info.min, info.max)
    values = values.to(dtype)
    return values.view(-1, 1, 1) if len(fill) > 1 else values.view(())


def _cast_back(image: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    if dtype.is_floating_point:
        return image.to(dtype)
    if dtype == torch.bool:
        return image >= 0.5
    info = torch.iinfo(dtype)
    return image.round_().clamp_(info.min, info.max).to(dtype)


def _finite_(coords: torch.Tensor, outside: float) -> torch.Tensor:
    """``coords`` with every non-finite value (NaN where a perspective horizon gives 0 / 0, or an
    infinity) replaced in place by ``outside``, a coordinate off the image: such points get the fill,
    as ``grid_sample`` does for nearest (bilinear would give NaN)."""
    return coords.nan_to_num_(nan=outside, posinf=outside, neginf=outside)


def _per_image(values: torch.Tensor, image: torch.Tensor) -> torch.Tensor:
    """A batched grid's ``[B, H_out, W_out]`` values viewed to broadcast over ``image`` ``[B, ..., H, W]``."""
    return values.view(values.shape[0], *[1] * (image.ndim - 3), *values.shape[1:])


def _sample_nearest(image: torch.Tensor, grid: torch.Tensor, fill: list[float] | None) -> torch.Tensor:
    height, width = image.shape[-2:]
    batched = grid.ndim == 4
    out_height, out_width = grid.shape[-3:-1]
    x = _finite_(grid[..., 0].add(1).mul_(width / 2).sub_(0.5).round_(), -1.0)
    y = _finite_(grid[..., 1].add(1).mul_(height / 2).sub_(0.5).round_(), -1.0)
    if not batched and _cv2.can_remap_nearest(image, fill):
        return _cv2.remap_nearest(image, x, y, fill)
    valid = (x >= 0) & (x <= width - 1) & (y >= 0) & (y <= height - 1)
    index = (y.clamp_(0, height - 1) * width + x.clamp_(0, width - 1)).long()
    if batched:  # one row of source indices per image, shared by its channels (and frames)
        flat = image.reshape(image.shape[0], -1, height * width)
        index = index.view(index.shape[0], 1, -1).expand(-1, flat.shape[1], -1)
        out = flat.gather(2, index).reshape(*image.shape[:-2], out_height, out_width)
        valid = _per_image(valid, image)
    else:
        flat = image.reshape(-1, height * width)
        out = flat.gather(1, index.flatten().expand(flat.shape[0], -1))
        out = out.reshape(*image.shape[:-2], out_height, out_width)
    if fill is None and image.dtype not in WIDE_UNSIGNED:  # (torch has no masked_fill for those)
        return out.masked_fill_(~valid, 0)
    fill_t = out.new_zeros(()) if fill is None else _fill_tensor(fill, image, image.dtype)
    return torch.where(valid, out, fill_t)


def _sample_interpolated(
    image: torch.Tensor, grid: torch.Tensor, mode: InterpolationMode, fill: list[float] | None
) -> torch.Tensor:
    """Bilinear or bicubic sampling through ``grid_sample``."""
    height, width = image.shape[-2:]
    dtype = work_dtype(image.dtype)
    batched = grid.ndim == 4
    grid = _finite_(grid.to(dtype, copy=True), _OUTSIDE)
    grid = grid if batched else grid[None]
    images = grid.shape[0]  # batch and channels share one grid, or each image of the batch has its own
    flat = image.reshape(images, -1, height, width).to(dtype)
    out = grid_sample(flat, grid, mode=mode.value, padding_mode="zeros", align_corners=False)
    out = out.reshape(*image.shape[:-2], *grid.shape[1:3])
    if fill is not None:  # blend towards fill where the footprint leaves the image, as torchvision
        ones = torch.ones((images, 1, height, width), dtype=dtype, device=image.device)
        weight = grid_sample(ones, grid, mode=mode.value, padding_mode="zeros", align_corners=False)[:, 0]
        weight = _per_image(weight, image) if batched else weight[0]
        fill_t = _fill_tensor(fill, image, dtype)
        out = out.sub_(fill_t).mul_(weight).add_(fill_t)
    return _cast_back(out, image.dtype)


def has_no_pixels(image: torch.Tensor, out_size: Sequence[int]) -> bool:
    """Whether a warp of ``image`` ``[..., H, W]`` to ``out_size`` has nothing to sample or to write
    (an empty batch, a zero height or width): see :func:`filled`."""
    return image.numel() == 0 or out_size[0] * out_size[1] == 0


def filled(image: torch.Tensor, out_size: Sequence[int], fill: list[float] | None) -> torch.Tensor:
    """``[..., *out_size]`` of ``fill`` (zeros when None) in ``image``'s dtype: the warp of an image
    with no pixels, all of whose output points are outside it (as PIL's ``rotate`` with ``expand``)."""
    out = torch.zeros((*image.shape[:-2], *out_size), dtype=image.dtype, device=image.device)
    if fill is not None and out.numel() > 0:
        out.copy_(_fill_tensor(fill, image, image.dtype))
    return out


def sample(
    image: torch.Tensor, grid: torch.Tensor, mode: InterpolationMode, fill: list[float] | None
) -> torch.Tensor:
    """Sample ``image`` ``[..., H, W]`` at ``grid`` ``(H_out, W_out, 2)`` (or each image of ``[B, ..., H, W]``
    at its own ``grid[b]`` of ``(B, H_out, W_out, 2)``); points outside, or not finite, get ``fill``
    (zeros when None). Returns ``[..., H_out, W_out]`` in the image's dtype.
    Callers build the grid from the image size, so they deal with :func:`has_no_pixels` first."""
    if mode == InterpolationMode.NEAREST:
        return _sample_nearest(image, grid, fill)
    return _sample_interpolated(image, grid, mode, fill)


def matrix_grid(
    inverse: list[list[float]],
    out_size: Sequence[int],
    in_size: Sequence[int],
    dtype: torch.dtype,
    device: torch.device,
    projective: bool | None = None,
) -> torch.Tensor:
    """The normalised grid of an affine or projective map; ``inverse`` maps output pixel coordinates to
    input ones (continuous coordinates: pixel ``(i, j)`` covers ``[j, j + 1] x [i, i + 1]``). torchvision's
    grid, step for step (:func:`~visiontx.functional._grid_terms.grid_terms`, which ``projective`` is passed to),
    so nearest sampling breaks ties between two pixels as it does."""
    k, (x0, y0), projective = grid_terms(inverse, out_size, in_size, _REAL.get(dtype, np.float32), projective)
    xs = torch.arange(out_size[1], dtype=dtype, device=device).add_(x0)
    ys = torch.arange(out_size[0], dtype=dtype, device=device).add_(y0)
    grid = torch.empty((*out_size, 2), dtype=dtype, device=device)
    # separable: each coordinate is a row term plus a column term, then the constant, written in place
    for axis, (kx, ky, k1) in enumerate((k[0:3], k[3:6])):
        torch.add((xs * float(kx))[None, :], (ys * float(ky))[:, None], out=grid[..., axis]).add_(float(k1))
    if projective:
        denominator = torch.add((xs * float(k[6]))[None, :], (ys * float(k[7]))[:, None]).add_(float(k[8]))
        grid.div_(denominator.unsqueeze(-1)).sub_(1.0)
    return grid


_REAL = {torch.float32: np.float32, torch.float64: np.float64}


def batched_matrix_grid(
    inverse: torch.Tensor, out_size: Sequence[int], in_size: Sequence[int], dtype: torch.dtype, projective: bool = False
) -> torch.Tensor:
    """:func:`matrix_grid` of ``B`` maps at once: ``inverse`` ``[B, 3, 3]`` (float64, on the images'
    device) maps each image's output pixel coordinates to its input ones; its last rows are used only
    when ``projective``. Returns ``[B, H_out, W_out, 2]``, computed as :func:`matrix_grid` computes one
    (the terms of ``grid_terms`` in float64, then in ``dtype``), so each image gets the same points."""
    (height, width), (out_height, out_width) = in_size, out_size
    half = torch.tensor([0.5 * width, 0.5 * height], dtype=dtype, device=inverse.device).view(1, 2, 1)
    if projective:
        rows, last = inverse[:, :2].to(dtype) / half, inverse[:, 2].to(dtype)
        x0 = y0 = 0.5
    else:
        rows = inverse[:, :2].clone()
        for axis, side in enumerate((width, height)):  # coordinates centred on each image, as grid_terms
            a, b, c = rows[:, axis].unbind(-1)
            rows[:, axis, 2] = a * (out_width / 2) + b * (out_height / 2) + c - side / 2
        rows = rows.to(dtype) / half
        x0, y0 = (1.0 - out_width) * 0.5, (1.0 - out_height) * 0.5
    xs = torch.arange(out_width, dtype=dtype, device=inverse.device).add_(x0).view(1, 1, -1)
    ys = torch.arange(out_height, dtype=dtype, device=inverse.device).add_(y0).view(1, -1, 1)
    grid = torch.empty((inverse.shape[0], *out_size, 2), dtype=dtype, device=inverse.device)
    for axis in (0, 1):
        kx, ky, k1 = (rows[:, axis, k].view(-1, 1, 1) for k in range(3))
        torch.add(xs * kx, ys * ky, out=grid[..., axis]).add_(k1)
    if not projective:
        return grid
    g, h, i = (last[:, k].view(-1, 1, 1) for k in range(3))
    return grid.div_(torch.add(xs * g, ys * h).add_(i).unsqueeze(-1)).sub_(1.0)


def pil_fill(image: PIL.Image.Image, fill: FillArg) -> int | float | tuple | None:
    """``fill`` as a PIL colour for ``image``'s mode: whole numbers truncated (``int``), as torchvision's."""
    bands = len(image.getbands())
    values = parse_fill(fill, bands)
    if values is None:
        return None
    if len(values) == 1:
        values = values * bands
    cast = float if image.mode == "F" else int
    color = tuple(cast(v) for v in values)
    return color[0] if bands == 1 else color
