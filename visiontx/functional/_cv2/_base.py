"""What every path of the wing shares: OpenCV when it is installed, the switch that turns the wing off, and
the checks on the image that every gate starts from."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import torch

try:
    import cv2
except ImportError:  # OpenCV is optional: without it every kernel takes its torch path
    cv2 = None

__all__ = ["MAX_SIZE", "available", "can_use", "cv2", "disabled"]

MAX_SIZE = 32768  # OpenCV's warps, remaps and resizes take images and maps under this many pixels a side
_DTYPES = (torch.uint8, torch.float32)
_disabled_depth = 0


def available() -> bool:
    """Whether OpenCV is installed and the wing not switched off."""
    return cv2 is not None and _disabled_depth == 0


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Within this block every kernel takes its pure-torch path (blocks nest)."""
    global _disabled_depth
    _disabled_depth += 1
    try:
        yield
    finally:
        _disabled_depth -= 1


def can_use(image: torch.Tensor, *, dtypes: Sequence[torch.dtype] = _DTYPES) -> bool:
    """Whether the wing is available for ``image`` (``[..., H, W]``): a plain CPU tensor of one of ``dtypes``,
    no autograd, not empty. Every gate starts from this."""
    return (
        available()
        and type(image) is torch.Tensor
        and image.is_cpu
        and image.dtype in dtypes
        and not image.requires_grad
        and image.ndim >= 2
        and image.numel() > 0
    )
