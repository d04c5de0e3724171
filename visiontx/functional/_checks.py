"""Argument checks shared by ops of several domains."""

from __future__ import annotations

from typing import Any


def per_channel_error(name: str, channels: int, got: object) -> ValueError:
    """The error for ``name`` holding neither 1 value nor one per channel."""
    expected = "1 value" if channels == 1 else f"1 value or one per channel ({channels})"
    return ValueError(f"{name} must hold {expected}, got {got!r}")


def check_spatial(image: Any, op: str) -> None:
    """``ValueError`` unless the tensor ``image`` has the ``[..., H, W]`` dims of an image, video or mask."""
    if image.ndim < 2:
        raise ValueError(f"{op}: image must be [..., H, W], got shape {tuple(image.shape)}")
