"""Padding transforms: fixed borders and SSD's random zoom out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import functional as F
from ..._args import FillSpec, PaddingArg, check_padding_mode, check_range, parse_padding
from .. import _random
from .._transform import RandomApplyTransform, Transform
from .._utils import FillMixin, query_size

__all__ = ["Pad", "RandomZoomOut"]


class _PadMixin(FillMixin):
    """Padding with the transform's ``fill``."""

    def _pad(self, inpt: Any, padding: PaddingArg, padding_mode: str = "constant") -> Any:
        return self.call_kernel(F.pad, inpt, padding=padding, fill=self._fill_for(inpt), padding_mode=padding_mode)


class Pad(_PadMixin, Transform):
    """Pad the borders of every image, video, mask and box of the sample.

    Args:
        padding: non-negative pixels to add: an int (all sides), ``[left/right, top/bottom]`` or
            ``[left, top, right, bottom]``.
        fill: value of the new pixels with ``padding_mode="constant"`` (default 0); see
            ``visiontx.transforms`` for the per-channel and dict forms.
        padding_mode: ``"constant"`` (default), ``"edge"`` (repeat the border pixel), ``"reflect"``
            (mirror without repeating it) or ``"symmetric"`` (mirror repeating it). Boxes need ``"constant"``.

    Example:
        >>> T.Pad([2, 4], fill={Image: 127, "others": 0})(image, mask)
    """

    def __init__(self, padding: PaddingArg, fill: FillSpec = 0, padding_mode: str = "constant") -> None:
        super().__init__()
        parse_padding(padding)
        self.padding = padding if isinstance(padding, int) else list(padding)
        self._setup_fill(fill)
        self.padding_mode = check_padding_mode(padding_mode)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._pad(inpt, self.padding, self.padding_mode)


class RandomZoomOut(_PadMixin, RandomApplyTransform):
    """With probability ``p``, place the sample at a random spot of a larger canvas (SSD's "zoom out").

    The canvas is ``r`` times the input's height and width, ``r`` drawn uniformly from ``side_range``;
    boxes move with the image.

    Args:
        fill: value of the canvas around the input (default 0); see ``visiontx.transforms`` for the
            per-channel and dict forms.
        side_range: ``(min, max)`` range of the zoom factor ``r``, with ``1 <= min <= max`` (default ``(1, 4)``).
        p: probability of zooming out (default 0.5).

    Example:
        >>> T.RandomZoomOut(fill={Image: (123, 117, 104), "others": 0})(image, boxes)
    """

    def __init__(self, fill: FillSpec = 0, side_range: Sequence[float] = (1.0, 4.0), p: float = 0.5) -> None:
        super().__init__(p=p)
        self._setup_fill(fill)
        self.side_range = check_range(side_range, "side_range", 1.0)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        low, high = self.side_range
        r = low + _random.rand_tensor(1) * (high - low)
        canvas_width, canvas_height = int(width * r), int(height * r)
        r = _random.rand_tensor(2)
        left = int((canvas_width - width) * r[0])
        top = int((canvas_height - height) * r[1])
        return dict(padding=[left, top, canvas_width - left - width, canvas_height - top - height])

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._pad(inpt, params["padding"])
