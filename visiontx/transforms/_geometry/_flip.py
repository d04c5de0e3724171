"""Flips: mirror the whole sample left-right or top-bottom."""

from __future__ import annotations

from typing import Any

from ... import functional as F
from .._transform import RandomApplyTransform

__all__ = ["RandomHorizontalFlip", "RandomVerticalFlip"]


class RandomHorizontalFlip(RandomApplyTransform):
    """Mirror the whole sample left-right with probability ``p``: images, videos, masks and boxes.

    Args:
        p: probability of the flip (default 0.5).

    Example:
        >>> T.RandomHorizontalFlip(p=0.5)(image, boxes)
    """

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.horizontal_flip, inpt)


class RandomVerticalFlip(RandomApplyTransform):
    """Mirror the whole sample top-bottom with probability ``p``: images, videos, masks and boxes.

    Args:
        p: probability of the flip (default 0.5).
    """

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.vertical_flip, inpt)
