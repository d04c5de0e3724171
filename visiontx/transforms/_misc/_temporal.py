"""Temporal subsampling of videos."""

from __future__ import annotations

from typing import Any

import PIL.Image

from ... import functional as F
from .._transform import Transform

__all__ = ["UniformTemporalSubsample"]


class UniformTemporalSubsample(Transform):
    """Keep evenly spaced frames of videos ``[..., T, C, H, W]`` (plain tensors too).

    Args:
        num_samples: number of frames kept, a positive int (first and last frames included).

    Example:
        >>> T.UniformTemporalSubsample(8)(video)
    """

    def __init__(self, num_samples: int) -> None:
        super().__init__()
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples must be a positive int, got {num_samples!r}")
        self.num_samples = num_samples

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if isinstance(inpt, PIL.Image.Image):
            return inpt
        return self.call_kernel(F.uniform_temporal_subsample, inpt, self.num_samples)
