"""Gaussian blur and erasing of whole batches with per-image parameters (``PerSample``'s misc ops).

Images are ``[B, ..., C, H, W]``; parameters are ``[B]`` tensors on the same device; the maths is the
single-image torch kernels' (``_blur``: reflecting borders, float32 work for integer images, rounded back).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .._dtype import clamp_to_range_
from ._blur import _blur_planes_torch, _no_blur_needed


def gaussian_weights(size: int, sigma: torch.Tensor) -> torch.Tensor:
    """``[B, size]``: each image's normalised 1-D Gaussian (``sigma`` ``[B]``, float64), as ``_blur._weights``."""
    offsets = torch.arange(size, dtype=torch.float64, device=sigma.device) - (size - 1) / 2
    values = torch.exp(-0.5 * (offsets[None, :] / sigma[:, None]) ** 2)
    return values / values.sum(dim=1, keepdim=True)


def gaussian_blur_batch(image: torch.Tensor, kernel_size: Sequence[int], sigma: torch.Tensor) -> torch.Tensor:
    """Blur each image of ``image`` ``[B, ..., C, H, W]`` with its own ``sigma`` (``[B, 2]``: x, y) and
    the common ``kernel_size`` ``(kx, ky)`` (odd; half of it must fit in the image)."""
    kx, ky = kernel_size
    if _no_blur_needed(image, kx, ky, list(kernel_size)):
        return image.clone()
    height, width = image.shape[-2:]
    dtype = image.dtype if image.is_floating_point() else torch.float32
    planes = image.reshape(image.shape[0], -1, height, width).to(dtype)
    # per-image kernels as ``[B, 1, 1, 1]`` weights, one per tap (``_blur_axis``'s tensor weights)
    wy = gaussian_weights(ky, sigma[:, 1]).to(dtype).view(-1, ky, 1, 1, 1).unbind(1)
    wx = gaussian_weights(kx, sigma[:, 0]).to(dtype).view(-1, kx, 1, 1, 1).unbind(1)
    output = _blur_planes_torch(planes, wx, wy).reshape(image.shape)
    if image.is_floating_point():
        return output
    return clamp_to_range_(output, image.dtype).to(image.dtype)


def erase_batch(
    image: torch.Tensor, top: torch.Tensor, left: torch.Tensor, height: torch.Tensor, width: torch.Tensor,
    value: torch.Tensor,
) -> torch.Tensor:
    """Each image of ``image`` ``[B, ..., C, H, W]`` with its rectangle (``[B]`` each) set to ``value``
    (broadcasting over ``[B, ..., C, H, W]``, already in the image's dtype)."""
    rows = torch.arange(image.shape[-2], device=image.device).view(1, -1, 1)
    cols = torch.arange(image.shape[-1], device=image.device).view(1, 1, -1)
    inside = (rows >= top.view(-1, 1, 1)) & (rows < (top + height).view(-1, 1, 1))
    inside = inside & (cols >= left.view(-1, 1, 1)) & (cols < (left + width).view(-1, 1, 1))
    inside = inside.view(image.shape[0], *[1] * (image.ndim - 3), *inside.shape[1:])
    return torch.where(inside, value, image)
