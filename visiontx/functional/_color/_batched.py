"""Colour adjustments of whole batches with one factor per image (``PerSample``'s colour ops).

Images are ``[B, ..., C, H, W]``; factors are ``[B]`` tensors on the same device. The maths is the
torch kernels' (``_adjust``, ``_hue``): float32 work for integer images, each step clamped (and, for
integer images, rounded) as the single-image op returns it, so image ``b`` gets what the op gives it alone.
"""

from __future__ import annotations

import math

import torch

from .._dtype import clamp_to_range_
from ._adjust import _degenerate_gray, _float_copy as to_work
from ._hue import _hcv_to_rgb, _rgb_to_hcv

# the kinds of a blend step; IDENTITY leaves an image as it is
IDENTITY, BRIGHTNESS, CONTRAST, SATURATION = -1, 0, 1, 2


def per_image(values: torch.Tensor, image: torch.Tensor) -> torch.Tensor:
    """``[B]`` values viewed to broadcast over ``image`` ``[B, ...]``."""
    return values.view(-1, *[1] * (image.ndim - 1))


def blend_step(work: torch.Tensor, kinds: torch.Tensor, factors: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """One brightness, contrast or saturation step per image (``kinds`` ``[B]``: ``BRIGHTNESS``,
    ``CONTRAST``, ``SATURATION`` or ``IDENTITY``), with ``factors`` ``[B]``, on the float ``work``
    ``[B, ..., C, H, W]`` of a ``dtype`` batch: ``factor * x + (1 - factor) * other`` with other 0 (brightness),
    the mean gray level (contrast) or the gray image (saturation; one channel: left as it is)."""
    if work.shape[-3] == 1:
        kinds = torch.where(kinds == SATURATION, IDENTITY, kinds)
    factors = torch.where(kinds == IDENTITY, 1.0, factors).to(work.dtype)
    gray = _degenerate_gray(work, dtype) if work.shape[-3] == 3 else work  # (integer work is whole already)
    mean = gray.mean(dim=(-3, -2, -1), keepdim=True)
    kind = per_image(kinds, work)
    other = torch.where(kind == SATURATION, gray, torch.where(kind == CONTRAST, mean, 0.0))
    factor = per_image(factors, work)
    out = work.mul_(factor).add_(other * (1.0 - factor))
    if not dtype.is_floating_point:
        return clamp_to_range_(out, dtype)
    # float images whose step is the identity keep values outside [0, 1], as the single kernels leave them
    identity = per_image(kinds == IDENTITY, work)
    return out.clamp_(torch.where(identity, -math.inf, 0.0), torch.where(identity, math.inf, 1.0))


def hue_step(work: torch.Tensor, factors: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Rotate the hue of each image of the float ``work`` by its factor (``[B]``, in turns; 0 keeps it)."""
    if work.shape[-3] != 3:
        return work
    hue, chroma, value = _rgb_to_hcv(work)
    hue = hue.add_(per_image(factors.to(work.dtype), hue)).remainder_(1.0)
    return clamp_to_range_(_hcv_to_rgb(hue, chroma, value), dtype)
