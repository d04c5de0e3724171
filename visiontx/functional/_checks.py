"""Argument checks shared by ops of several domains."""

from __future__ import annotations

from typing import Any


def check_spatial(image: Any, op: str) -> None:
    """``ValueError`` unless the tensor ``image`` has the ``[..., H, W]`` dims of an image, video or mask."""
    if image.ndim < 2:
        raise ValueError(f"{op}: image must be [..., H, W], got shape {tuple(image.shape)}")
