"""JPEG compression artefacts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import functional as F
from .. import _random
from .._transform import Transform

__all__ = ["JPEG"]


class JPEG(Transform):
    """Add JPEG compression artefacts: encode and decode uint8 image tensors, videos and PIL images.

    Args:
        quality: JPEG quality in ``1..100``: an int, or a ``(min, max)`` pair of ints to draw it from
            uniformly per call (both included).

    Example:
        >>> T.JPEG(quality=(50, 100))(image)
    """

    def __init__(self, quality: int | Sequence[int]) -> None:
        super().__init__()
        bounds = [quality, quality] if isinstance(quality, int) else quality
        if not isinstance(bounds, Sequence) or len(bounds) != 2:
            raise TypeError(f"quality must be an int or a (min, max) pair of ints, got {quality!r}")
        if not all(isinstance(q, int) and not isinstance(q, bool) for q in bounds):
            raise TypeError(f"quality must be an int or a (min, max) pair of ints, got {quality!r}")
        if not 1 <= bounds[0] <= bounds[1] <= 100:
            raise ValueError(f"quality must be in 1..100 and given as (min, max), got {quality!r}")
        self.quality = list(bounds)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(quality=_random.randint(self.quality[0], self.quality[1] + 1))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.jpeg, inpt, quality=params["quality"])
