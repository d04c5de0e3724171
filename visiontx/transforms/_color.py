"""Color transforms: jitter, grayscale, channel permutation and the random point / histogram ops.

Masks and bounding boxes are not color data: they pass through untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import functional as F
from .._args import check_probability, check_range, is_number, symmetric_range
from ..functional._color._jitter import adjust_colors
from . import _random
from ._transform import RandomApplyTransform, Transform
from ._utils import query_chw

__all__ = [
    "RGB",
    "ColorJitter",
    "Grayscale",
    "RandomAdjustSharpness",
    "RandomAutocontrast",
    "RandomChannelPermutation",
    "RandomEqualize",
    "RandomGrayscale",
    "RandomInvert",
    "RandomPhotometricDistort",
    "RandomPosterize",
    "RandomSolarize",
]

Range = tuple[float, float]


def _jitter_range(value: Any, name: str, center: float, bound: Range) -> Range | None:
    """ColorJitter's argument: None, a spread around ``center`` or a ``(min, max)`` pair; None if neutral."""
    if value is None:
        return None
    low, high = symmetric_range(value, name, center, *bound)
    return None if low == high == center else (low, high)


def _uniform(interval: Range | None) -> float | None:
    return None if interval is None else _random.uniform(interval[0], interval[1])


def _num_channels(flat_inputs: list[Any]) -> int | None:
    """The channel count of the sample's images / videos, or None when it holds none."""
    try:
        return query_chw(flat_inputs)[0]
    except TypeError:
        return None


class ColorJitter(Transform):
    """Randomly change brightness, contrast, saturation and hue, in a random order per call.

    Each factor is drawn uniformly per call; a factor left at None (the default) is not changed.
    Masks and boxes pass through.

    Args:
        brightness: a number ``v >= 0`` (factor drawn from ``[max(0, 1 - v), 1 + v]``) or a
            ``(min, max)`` pair of non-negative factors; see :func:`~visiontx.functional.adjust_brightness`.
        contrast: as ``brightness``, for :func:`~visiontx.functional.adjust_contrast`.
        saturation: as ``brightness``, for :func:`~visiontx.functional.adjust_saturation`.
        hue: a number ``0 <= v <= 0.5`` (factor drawn from ``[-v, v]``) or a ``(min, max)`` pair within
            ``[-0.5, 0.5]``; see :func:`~visiontx.functional.adjust_hue`.

    Example:
        >>> T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)(image)
    """

    def __init__(
        self,
        brightness: float | Sequence[float] | None = None,
        contrast: float | Sequence[float] | None = None,
        saturation: float | Sequence[float] | None = None,
        hue: float | Sequence[float] | None = None,
    ) -> None:
        super().__init__()
        unbounded = (0.0, float("inf"))
        self.brightness = _jitter_range(brightness, "brightness", 1.0, unbounded)
        self.contrast = _jitter_range(contrast, "contrast", 1.0, unbounded)
        self.saturation = _jitter_range(saturation, "saturation", 1.0, unbounded)
        self.hue = _jitter_range(hue, "hue", 0.0, (-0.5, 0.5))

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        order = _random.randperm(4)
        factors = [_uniform(r) for r in (self.brightness, self.contrast, self.saturation, self.hue)]
        return dict(order=order, factors=factors)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        names, factors = ("brightness", "contrast", "saturation", "hue"), params["factors"]
        steps = [(names[i], factors[i]) for i in params["order"] if factors[i] is not None]
        return self.call_kernel(adjust_colors, inpt, steps=steps) if steps else inpt


class Grayscale(Transform):
    """Convert images and videos to grayscale; masks and boxes pass through.

    Args:
        num_output_channels: 1 (default) or 3 (the gray channel repeated).
    """

    def __init__(self, num_output_channels: int = 1) -> None:
        super().__init__()
        if num_output_channels not in (1, 3) or isinstance(num_output_channels, bool):
            raise ValueError(f"num_output_channels must be 1 or 3, got {num_output_channels!r}")
        self.num_output_channels = num_output_channels

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.rgb_to_grayscale, inpt, num_output_channels=self.num_output_channels)


class RandomGrayscale(RandomApplyTransform):
    """With probability ``p``, convert images and videos to grayscale keeping their number of channels.

    Args:
        p: probability of the conversion (default 0.1).
    """

    def __init__(self, p: float = 0.1) -> None:
        super().__init__(p=p)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(num_output_channels=_num_channels(flat_inputs))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.rgb_to_grayscale, inpt, num_output_channels=params["num_output_channels"])


class RGB(Transform):
    """Make images and videos 3-channel: 1-channel inputs are repeated, RGB inputs are kept.

    Takes no arguments.
    """

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.grayscale_to_rgb, inpt)


class RandomChannelPermutation(Transform):
    """Shuffle the channels of images and videos (one random permutation per call).

    Takes no arguments.
    """

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        channels = _num_channels(flat_inputs)
        return dict(permutation=None if channels is None else _random.randperm(channels))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.permute_channels, inpt, permutation=params["permutation"])


class RandomPhotometricDistort(Transform):
    """The photometric distortion of SSD: random brightness, contrast, saturation, hue and channel order.

    Each of the five distortions is applied with probability ``p``, its factor drawn uniformly from its
    range; contrast goes first or after hue at random. Masks and boxes pass through.

    Args:
        brightness: ``(min, max)`` range of non-negative brightness factors (default ``(0.875, 1.125)``).
        contrast: ``(min, max)`` range of non-negative contrast factors (default ``(0.5, 1.5)``).
        saturation: ``(min, max)`` range of non-negative saturation factors (default ``(0.5, 1.5)``).
        hue: ``(min, max)`` range of hue factors within ``[-0.5, 0.5]`` (default ``(-0.05, 0.05)``).
        p: probability of each distortion, drawn independently (default 0.5).

    Example:
        >>> T.RandomPhotometricDistort(p=1.0)(image)
    """

    def __init__(
        self,
        brightness: Sequence[float] = (0.875, 1.125),
        contrast: Sequence[float] = (0.5, 1.5),
        saturation: Sequence[float] = (0.5, 1.5),
        hue: Sequence[float] = (-0.05, 0.05),
        p: float = 0.5,
    ) -> None:
        super().__init__()
        unbounded = (0.0, float("inf"))
        self.brightness = check_range(brightness, "brightness", *unbounded)
        self.contrast = check_range(contrast, "contrast", *unbounded)
        self.saturation = check_range(saturation, "saturation", *unbounded)
        self.hue = check_range(hue, "hue", -0.5, 0.5)
        self.p = check_probability(p)

    def _maybe(self, interval: Range) -> float | None:
        return _uniform(interval) if _random.rand() < self.p else None

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        channels = _num_channels(flat_inputs)
        params: dict[str, Any] = {
            name: self._maybe(interval)
            for name, interval in [
                ("brightness_factor", self.brightness),
                ("contrast_factor", self.contrast),
                ("saturation_factor", self.saturation),
                ("hue_factor", self.hue),
            ]
        }
        params["contrast_before"] = _random.rand() < 0.5
        permute = _random.rand() < self.p and channels is not None
        params["permutation"] = _random.randperm(channels) if permute else None
        return params

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        contrast = params["contrast_factor"]
        steps = [
            ("brightness", params["brightness_factor"]),
            ("contrast", contrast if params["contrast_before"] else None),
            ("saturation", params["saturation_factor"]),
            ("hue", params["hue_factor"]),
            ("contrast", None if params["contrast_before"] else contrast),
        ]
        steps = [(name, factor) for name, factor in steps if factor is not None]
        if steps:
            inpt = self.call_kernel(adjust_colors, inpt, steps=steps)
        if params["permutation"] is not None:
            inpt = self.call_kernel(F.permute_channels, inpt, permutation=params["permutation"])
        return inpt


class RandomEqualize(RandomApplyTransform):
    """Equalize the histogram of images and videos with probability ``p`` (see ``F.equalize``).

    Args:
        p: probability of equalizing (default 0.5).
    """

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.equalize, inpt)


class RandomInvert(RandomApplyTransform):
    """Invert the colors of images and videos with probability ``p`` (see ``F.invert``).

    Args:
        p: probability of inverting (default 0.5).
    """

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.invert, inpt)


class RandomPosterize(RandomApplyTransform):
    """With probability ``p``, keep only the most significant bits of each value (see ``F.posterize``).

    Args:
        bits: number of bits kept per channel, an int in ``[0, 8]``.
        p: probability of posterizing (default 0.5).
    """

    def __init__(self, bits: int, p: float = 0.5) -> None:
        super().__init__(p=p)
        if not isinstance(bits, int) or isinstance(bits, bool) or not 0 <= bits <= 8:
            raise ValueError(f"bits must be an int in [0, 8], got {bits!r}")
        self.bits = bits

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.posterize, inpt, bits=self.bits)


class RandomSolarize(RandomApplyTransform):
    """With probability ``p``, invert the values at or above ``threshold`` (see ``F.solarize``).

    Args:
        threshold: non-negative threshold in the images' value range (0..255 for uint8, 0..1 for floats).
        p: probability of solarizing (default 0.5).
    """

    def __init__(self, threshold: float, p: float = 0.5) -> None:
        super().__init__(p=p)
        if not is_number(threshold) or threshold < 0:
            raise ValueError(f"threshold must be a non-negative number, got {threshold!r}")
        self.threshold = threshold

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.solarize, inpt, threshold=self.threshold)


class RandomAutocontrast(RandomApplyTransform):
    """Stretch each channel to the full value range with probability ``p`` (see ``F.autocontrast``).

    Args:
        p: probability of the stretch (default 0.5).
    """

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.autocontrast, inpt)


class RandomAdjustSharpness(RandomApplyTransform):
    """Adjust the sharpness of images and videos with probability ``p`` (see ``F.adjust_sharpness``).

    Args:
        sharpness_factor: a non-negative factor: 0 smooths, 1 keeps the image, above 1 sharpens.
        p: probability of the adjustment (default 0.5).
    """

    def __init__(self, sharpness_factor: float, p: float = 0.5) -> None:
        super().__init__(p=p)
        if not is_number(sharpness_factor) or sharpness_factor < 0:
            raise ValueError(f"sharpness_factor must be a non-negative number, got {sharpness_factor!r}")
        self.sharpness_factor = float(sharpness_factor)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.adjust_sharpness, inpt, sharpness_factor=self.sharpness_factor)
