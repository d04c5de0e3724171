"""Temporal subsampling of videos."""

from __future__ import annotations

from typing import Any

import torch

from ...datapoints import Video
from .._registry import get_kernel, register_kernels

__all__ = ["uniform_temporal_subsample", "uniform_temporal_subsample_video"]


def uniform_temporal_subsample(inpt: Any, num_samples: int) -> Any:
    """Keep ``num_samples`` evenly spaced frames (first and last included) of a video ``[..., T, C, H, W]``.

    Args:
        inpt: a ``Video`` or a plain tensor ``[..., T, C, H, W]`` with at least one frame.
        num_samples: number of frames kept, a positive int; more samples than frames repeats frames.

    Example:
        >>> F.uniform_temporal_subsample(video, 8)
    """
    return get_kernel(uniform_temporal_subsample, type(inpt))(inpt, num_samples=num_samples)


@register_kernels(uniform_temporal_subsample, (torch.Tensor, Video))
def uniform_temporal_subsample_video(video: torch.Tensor, num_samples: int) -> torch.Tensor:
    """Select ``num_samples`` evenly spaced frames along dim ``-4`` of ``[..., T, C, H, W]``."""
    if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
        raise ValueError(f"num_samples must be a positive int, got {num_samples!r}")
    if video.ndim < 4:
        raise ValueError(f"uniform_temporal_subsample needs a video [..., T, C, H, W], got shape {tuple(video.shape)}")
    if video.shape[-4] == 0:
        raise ValueError("uniform_temporal_subsample needs a video with at least one frame")
    indices = torch.linspace(0, video.shape[-4] - 1, num_samples, device=video.device).long()
    return video.index_select(-4, indices)
