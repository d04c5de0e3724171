"""RandomErasing: erase a random rectangle of the images and videos."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import PIL.Image
import torch

from ... import functional as F
from ..._args import check_range, fill_tensor, parse_fill, per_channel_error
from ...datapoints import BoundingBox, KeyPoints, Mask
from .. import _random
from .._transform import RandomApplyTransform
from .._utils import query_chw

__all__ = ["RandomErasing"]


def _erase_value(value: float | Sequence[float] | str) -> list[float] | None:
    """The fixed value per channel; None for "random"."""
    if isinstance(value, str):
        if value != "random":
            raise ValueError(f"value as a string must be 'random', got {value!r}")
        return None
    if value is None:
        raise TypeError("value must be a number, a sequence of numbers per channel, or 'random', got None")
    return parse_fill(value, name="value")


class RandomErasing(RandomApplyTransform):
    """With probability ``p``, erase a random rectangle of the images and videos of a sample.

    Masks and boxes pass through unchanged, with a ``UserWarning``, as in torchvision. When no
    rectangle fits in 10 tries nothing is erased. The draws are torchvision's, so a seed gives its output.

    Args:
        p: probability of erasing (default 0.5).
        scale: ``(min, max)`` range of the rectangle's area as a fraction of the image's, within
            ``[0, 1]`` (default ``(0.02, 0.33)``).
        ratio: ``(min, max)`` range of its aspect ratio, positive, drawn log-uniformly (default
            ``(0.3, 3.3)``).
        value: the fill: a number, one number per channel (integer images round and clamp it), or
            ``"random"``: standard normal noise, which integer and PIL images take cast to their dtype
            as torchvision does (truncated, negative values wrapping: mostly 0, 1 and 255). Default 0.
        inplace: erase tensors in place instead of a copy (default False).

    Example:
        >>> T.RandomErasing(p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value="random")(image)
    """

    def __init__(
        self,
        p: float = 0.5,
        scale: Sequence[float] = (0.02, 0.33),
        ratio: Sequence[float] = (0.3, 3.3),
        value: float | Sequence[float] | str = 0.0,
        inplace: bool = False,
    ) -> None:
        super().__init__(p=p)
        self.scale = check_range(scale, "scale", 0.0, 1.0)
        self.ratio = check_range(ratio, "ratio", 0.0, strict=True)
        self.value = value
        self._value = _erase_value(value)
        self._fixed = None if self._value is None else torch.tensor(self._value)[:, None, None]  # as torchvision's
        self.inplace = inplace
        self._log_ratio = torch.log(torch.tensor(self.ratio)).tolist()  # float32 logs, as torchvision

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        channels, height, width = query_chw(flat_inputs)
        if self._value is not None and len(self._value) not in (1, channels):
            raise per_channel_error("value", channels, self.value)
        for _ in range(10):
            area = height * width * _random.uniform(self.scale[0], self.scale[1])
            aspect = math.exp(_random.uniform(self._log_ratio[0], self._log_ratio[1]))
            h, w = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if h < height and w < width:
                # torchvision's noise: float32 whatever the images' dtypes, drawn before the position
                v = self._fixed if self._fixed is not None else _random.normal_tensor(channels, h, w)
                i, j = _random.randints((height - h + 1, width - w + 1))
                return dict(i=i, j=j, h=h, w=w, v=v)
        return dict(i=0, j=0, h=height, w=width, v=None)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if params["v"] is None:
            return inpt
        if isinstance(inpt, (BoundingBox, KeyPoints, Mask)):
            warnings.warn(
                f"{type(self).__name__}() is currently passing through inputs of type {type(inpt).__name__} "
                "unchanged (it erases images and videos only); this may change",
                UserWarning,
                stacklevel=2,
            )
            return inpt
        v = params["v"]
        if self._fixed is None:  # the noise, cast as torchvision's assignment casts it (F.erase rounds fixed values)
            v = v.to(torch.uint8 if isinstance(inpt, PIL.Image.Image) else inpt.dtype)
        elif isinstance(inpt, torch.Tensor):  # the fixed value (also a replayed one), as F.erase would convert it
            v = self._fixed_value(inpt.dtype, inpt.device)
        return self.call_kernel(
            F.erase, inpt, i=params["i"], j=params["j"], h=params["h"], w=params["w"], v=v, inplace=self.inplace
        )

    def _fixed_value(self, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
        """The fixed value converted for images of ``dtype`` on ``device``, once per pair (made on first use:
        transforms pickled before the cache existed have none)."""
        cache = self.__dict__.setdefault("_fixed_as", {})
        key = (dtype, device)
        if key not in cache:
            cache[key] = fill_tensor(self._fixed, dtype, device)
        return cache[key]
