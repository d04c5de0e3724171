"""Several colour adjustments in a row (ColorJitter's and RandomPhotometricDistort's kernel).

Not a public op: the result is exactly that of calling ``adjust_brightness``, ``adjust_contrast``,
``adjust_saturation`` and ``adjust_hue`` one after the other. For uint8 RGB images the OpenCV wing
runs the adjustments, as the steps their op modules build, on interleaved pixels between one merge and
one split (``_cv2.adjust_colors``), instead of a layout change and a fresh image per adjustment.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import PIL.Image
import torch

from ..._names import video_kernel
from ...datapoints import Image, Video
from .. import _cv2
from .._registry import get_kernel, register_kernels
from . import _adjust, _hue

Steps = Sequence[tuple[str, float]]


class _Adjustment(NamedTuple):
    """An op of ``adjust_colors``: its dispatcher, and its step on interleaved pixels (built from a factor,
    checked as the op checks it)."""

    functional: Callable[..., Any]
    step: Callable[[float], _cv2.Step]


_ADJUSTMENTS = {
    "brightness": _Adjustment(_adjust.adjust_brightness, _adjust.brightness_step),
    "contrast": _Adjustment(_adjust.adjust_contrast, _adjust.contrast_step),
    "saturation": _Adjustment(_adjust.adjust_saturation, _adjust.saturation_step),
    "hue": _Adjustment(_hue.adjust_hue, _hue.hue_step),
}


def adjust_colors(inpt: Any, steps: Steps) -> Any:
    """Apply ``steps``, ``(name, factor)`` pairs with names ``"brightness"``, ``"contrast"``,
    ``"saturation"`` and ``"hue"``, in order, each as its ``adjust_<name>`` op would.

    Supports image tensors, PIL images and videos.
    """
    return get_kernel(adjust_colors, type(inpt))(inpt, steps=steps)


def _parse_steps(steps: Steps) -> list[tuple[_Adjustment, float]]:
    """The ``(adjustment, factor)`` of each ``(name, factor)`` step; ``ValueError`` for a malformed one."""
    steps = list(steps)
    for step in steps:
        if not (isinstance(step, (tuple, list)) and len(step) == 2 and step[0] in _ADJUSTMENTS):
            raise ValueError(f"steps must be (name, factor) pairs with names in {sorted(_ADJUSTMENTS)}, got {step!r}")
    return [(_ADJUSTMENTS[name], factor) for name, factor in steps]


@register_kernels(adjust_colors, (torch.Tensor, Image, Video))
def adjust_colors_image_tensor(image: torch.Tensor, steps: Steps) -> torch.Tensor:
    """The adjustments of ``steps`` on ``[..., C, H, W]``, in order."""
    adjustments = _parse_steps(steps)
    if _cv2.can_adjust_colors(image, len(adjustments)):
        return _cv2.adjust_colors(image, [adjustment.step(factor) for adjustment, factor in adjustments])
    for adjustment, factor in adjustments:
        image = get_kernel(adjustment.functional, torch.Tensor)(image, factor)
    return image


adjust_colors_video = video_kernel(adjust_colors_image_tensor)


@register_kernels(adjust_colors, PIL.Image.Image)
def adjust_colors_image_pil(image: PIL.Image.Image, steps: Steps) -> PIL.Image.Image:
    """The adjustments of ``steps`` on a PIL image, in order."""
    for adjustment, factor in _parse_steps(steps):
        image = get_kernel(adjustment.functional, PIL.Image.Image)(image, factor)
    return image
