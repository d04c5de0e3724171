"""Histogram-based ops: autocontrast and equalize (per channel, batched, no Python loops over images)."""

from __future__ import annotations

from typing import Any

import numpy as np
import PIL.Image
import PIL.ImageOps
import torch

from ..._names import video_kernel
from ...datapoints import Image, Video
from .. import _cv2
from .._dtype import max_value, to_dtype_image_tensor, work_dtype
from .._registry import get_kernel, register_kernels
from ._utils import to_dtype_rounded

__all__ = [
    "autocontrast",
    "autocontrast_image_pil",
    "autocontrast_image_tensor",
    "autocontrast_video",
    "equalize",
    "equalize_image_pil",
    "equalize_image_tensor",
    "equalize_video",
]


def _check_image(image: torch.Tensor, op: str) -> None:
    if image.ndim < 3:
        raise ValueError(f"{op}: image must be [..., C, H, W], got shape {tuple(image.shape)}")


def _planes(image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The ``H x W`` planes of a uint8 image as rows ``[N, H * W]``, and the flat index
    ``value + 256 * row`` that reads each plane's entry of ``[N, 256]`` tables flattened."""
    rows = image.reshape(-1, image.shape[-2] * image.shape[-1])
    offsets = torch.arange(0, rows.shape[0] * 256, 256, device=image.device, dtype=torch.int32).unsqueeze_(1)
    return rows, rows.to(torch.int32).add_(offsets).reshape(-1)


def _apply_plane_luts(image: torch.Tensor, index: torch.Tensor, luts: torch.Tensor) -> torch.Tensor:
    if _cv2.can_lut_planes(image, luts):
        return _cv2.lut_planes(image, luts)
    return luts.reshape(-1).index_select(0, index).view(image.shape)


def autocontrast(inpt: Any) -> Any:
    """Stretch each channel so its darkest value becomes 0 and its brightest the dtype's maximum.

    Constant channels are kept as they are.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image.

    Example:
        >>> F.autocontrast(image)
    """
    return get_kernel(autocontrast, type(inpt))(inpt)


@register_kernels(autocontrast, (torch.Tensor, Image, Video))
def autocontrast_image_tensor(image: torch.Tensor) -> torch.Tensor:
    """Autocontrast of ``[..., C, H, W]``, per channel; constant channels are kept."""
    _check_image(image, "autocontrast")
    if image.numel() == 0:
        return image.clone()
    if image.dtype == torch.uint8:
        return _autocontrast_uint8(image)
    bound = float(max_value(image.dtype))
    work = image.to(work_dtype(image.dtype))  # (torch has no uint16 minimum)
    low = work.amin(dim=(-2, -1), keepdim=True)
    high = work.amax(dim=(-2, -1), keepdim=True)
    constant = high == low
    low = low.masked_fill_(constant, 0.0)
    scale = torch.where(constant, torch.ones_like(high), bound / (high - low).masked_fill_(constant, 1.0))
    return to_dtype_rounded(work.sub(low).mul_(scale), image.dtype)


autocontrast_video = video_kernel(autocontrast_image_tensor)


def _autocontrast_uint8(image: torch.Tensor) -> torch.Tensor:
    """One lookup table per plane: ``round((v - low) * 255 / (high - low))``, identity if constant."""
    rows, index = _planes(image)
    low, high = (t.to(torch.float32) for t in (rows.amin(dim=1, keepdim=True), rows.amax(dim=1, keepdim=True)))
    constant = high == low
    scale = 255.0 / (high - low).masked_fill_(constant, 1.0)
    values = torch.arange(256, device=image.device, dtype=torch.float32)
    luts = (values - low.masked_fill_(constant, 0.0)).mul_(scale.masked_fill_(constant, 1.0))
    return _apply_plane_luts(image, index, luts.round_().clamp_(0, 255).to(torch.uint8))


@register_kernels(autocontrast, PIL.Image.Image)
def autocontrast_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    """Autocontrast of a PIL image (``PIL.ImageOps.autocontrast``)."""
    return PIL.ImageOps.autocontrast(image)


def equalize(inpt: Any) -> Any:
    """Equalize the histogram of each channel (PIL's algorithm); floats are binned to 256 levels.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image.

    Example:
        >>> F.equalize(image)
    """
    return get_kernel(equalize, type(inpt))(inpt)


def _equalize_luts(hist: torch.Tensor, num_pixels: int) -> torch.Tensor:
    """PIL's equalization lookup tables ``[N, 256]`` (uint8) from histograms ``hist [N, 256]``.

    ``step`` = (pixels not of the brightest present value) // 255 and ``lut[i] = (step // 2 +
    count of values below i) // step``; an image with ``step == 0`` is kept as it is.
    """
    num_rows = hist.shape[0]
    brightest = 255 - (hist.flip(1) > 0).int().argmax(1, keepdim=True)
    step = (num_pixels - hist.gather(1, brightest)).div_(255, rounding_mode="floor")
    below = torch.cat([hist.new_zeros(num_rows, 1), hist.cumsum(1)[:, :-1]], dim=1)
    lut = below.add_(step // 2).div_(step.clamp(min=1), rounding_mode="floor").clamp_(0, 255)
    identity = torch.arange(256, device=hist.device).expand(num_rows, 256)
    return torch.where(step == 0, identity, lut).to(torch.uint8)


def _equalize_tables(hist: np.ndarray, num_pixels: int) -> np.ndarray:
    """:func:`_equalize_luts` on numpy counts, for the OpenCV path (numpy's ops on ``N x 256`` values cost a
    fraction of torch's)."""
    rows = np.arange(hist.shape[0])
    brightest = 255 - (hist[:, ::-1] > 0).argmax(1)
    step = (num_pixels - hist[rows, brightest]) // 255
    below = np.zeros_like(hist)
    np.cumsum(hist[:, :-1], axis=1, out=below[:, 1:])
    lut = (below + (step // 2)[:, None]) // np.maximum(step, 1)[:, None]
    np.minimum(lut, 255, out=lut)
    lut[step == 0] = np.arange(256)
    return lut.astype(np.uint8)


def _equalize_uint8(image: torch.Tensor) -> torch.Tensor:
    """Equalize every ``H x W`` plane of a uint8 image with one histogram pass and one table lookup."""
    if _cv2.can_equalize(image):
        return _cv2.equalize(image, _equalize_tables)
    rows, index = _planes(image)
    num_rows, num_pixels = rows.shape
    hist = torch.bincount(index, minlength=num_rows * 256).view(num_rows, 256)  # all planes at once
    return _apply_plane_luts(image, index, _equalize_luts(hist, num_pixels))


@register_kernels(equalize, (torch.Tensor, Image, Video))
def equalize_image_tensor(image: torch.Tensor) -> torch.Tensor:
    """Equalize ``[..., C, H, W]`` per channel; non-uint8 images go through uint8 and back."""
    _check_image(image, "equalize")
    if image.numel() == 0:
        return image.clone()
    if image.dtype == torch.uint8:
        return _equalize_uint8(image)
    equalized = _equalize_uint8(to_dtype_image_tensor(image, torch.uint8, scale=True))
    return to_dtype_image_tensor(equalized, image.dtype, scale=True)


equalize_video = video_kernel(equalize_image_tensor)


@register_kernels(equalize, PIL.Image.Image)
def equalize_image_pil(image: PIL.Image.Image) -> PIL.Image.Image:
    """Equalize a PIL image (``PIL.ImageOps.equalize``)."""
    return PIL.ImageOps.equalize(image)
