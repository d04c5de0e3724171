"""Cropping and padding transforms."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import PIL.Image
import torch

from .. import functional as F
from ..datapoints import BoundingBox, BoundingBoxFormat, Image, Mask
from ..functional._geometry._crop import CropSize, parse_crop_size
from ..functional._geometry._pad import PaddingArg, check_padding_mode, parse_padding
from ..functional._interpolation import InterpolationMode
from . import _random
from ._resize import Interpolation, _check_range
from ._transform import RandomApplyTransform, Transform
from ._utils import (
    FillSpec,
    get_bounding_boxes,
    get_fill,
    has_all,
    has_any,
    is_pure_tensor,
    query_resizable_size,
    query_size,
    setup_fill_arg,
)

__all__ = [
    "CenterCrop",
    "FiveCrop",
    "Pad",
    "RandomCrop",
    "RandomIoUCrop",
    "RandomResizedCrop",
    "RandomZoomOut",
    "TenCrop",
]


def _crop_size(size: CropSize) -> tuple[int, int]:
    height, width = parse_crop_size(size, "size")
    if height == 0 or width == 0:
        raise ValueError(f"size must be positive, got {size!r}")
    return height, width


class CenterCrop(Transform):
    """Crop the centre ``size`` (int or ``(h, w)``), zero-padding when the image is smaller."""

    def __init__(self, size: CropSize) -> None:
        super().__init__()
        self.size = _crop_size(size)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.center_crop, inpt, output_size=self.size)


class _FillMixin:
    """``fill`` as a number, a per-channel sequence, or a dict by type with "others"."""

    def _setup_fill(self, fill: FillSpec) -> None:
        self.fill = fill
        self._fill = setup_fill_arg(fill)

    def _pad(self, inpt: Any, padding: PaddingArg, padding_mode: str = "constant") -> Any:
        fill = get_fill(self._fill, type(inpt))
        return self.call_kernel(F.pad, inpt, padding=padding, fill=fill, padding_mode=padding_mode)


class Pad(_FillMixin, Transform):
    """Pad the borders by ``padding`` (int, ``[lr, tb]`` or ``[left, top, right, bottom]``) with
    ``padding_mode`` constant / edge / reflect / symmetric."""

    def __init__(self, padding: PaddingArg, fill: FillSpec = 0, padding_mode: str = "constant") -> None:
        super().__init__()
        parse_padding(padding)
        self.padding = padding if isinstance(padding, int) else list(padding)
        self._setup_fill(fill)
        self.padding_mode = check_padding_mode(padding_mode)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._pad(inpt, self.padding, self.padding_mode)


class RandomCrop(_FillMixin, Transform):
    """Crop a random ``size`` region, after optional ``padding`` and, with ``pad_if_needed``, padding
    the image up to ``size`` (on both sides, as torchvision)."""

    def __init__(
        self,
        size: CropSize,
        padding: PaddingArg | None = None,
        pad_if_needed: bool = False,
        fill: FillSpec = 0,
        padding_mode: str = "constant",
    ) -> None:
        super().__init__()
        self.size = _crop_size(size)
        self.padding = None if padding is None else parse_padding(padding)
        self.pad_if_needed = bool(pad_if_needed)
        self._setup_fill(fill)
        self.padding_mode = check_padding_mode(padding_mode)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        left, top, right, bottom = self.padding or (0, 0, 0, 0)
        height, width = height + top + bottom, width + left + right
        crop_height, crop_width = self.size
        if self.pad_if_needed and height < crop_height:
            diff = crop_height - height
            top, bottom, height = top + diff, bottom + diff, height + 2 * diff
        if self.pad_if_needed and width < crop_width:
            diff = crop_width - width
            left, right, width = left + diff, right + diff, width + 2 * diff
        if height < crop_height or width < crop_width:
            raise ValueError(f"crop size {self.size} is larger than the (padded) image size {(height, width)}")
        # torchvision's draws, top then left (a range of one value draws nothing).
        top_range, left_range = height - crop_height + 1, width - crop_width + 1
        crop_top = _random.randint(top_range) if top_range > 1 else 0
        crop_left = _random.randint(left_range) if left_range > 1 else 0
        return dict(padding=[left, top, right, bottom], top=crop_top, left=crop_left)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if any(params["padding"]):
            inpt = self._pad(inpt, params["padding"], self.padding_mode)
        height, width = self.size
        return self.call_kernel(F.crop, inpt, top=params["top"], left=params["left"], height=height, width=width)


class RandomResizedCrop(Transform):
    """Crop a random region of random area (``scale`` of the image) and aspect ratio (``ratio``),
    then resize it to ``size``. After 10 failed draws, a centre crop with the ratio clamped to
    ``ratio``."""

    def __init__(
        self,
        size: CropSize,
        scale: Sequence[float] = (0.08, 1.0),
        ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: Interpolation = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        self.size = _crop_size(size)
        self.scale = _check_range(scale, "scale")
        self.ratio = _check_range(ratio, "ratio")
        self.interpolation = InterpolationMode.parse(interpolation)
        self.antialias = antialias
        self._log_ratio = torch.log(torch.tensor(self.ratio))

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_resizable_size(flat_inputs, self)
        area = height * width
        for _ in range(10):
            target_area = area * _random.uniform(*self.scale)
            aspect_ratio = torch.exp(torch.empty(1).uniform_(self._log_ratio[0], self._log_ratio[1])).item()
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                top = _random.randint(height - h + 1)
                left = _random.randint(width - w + 1)
                return dict(top=top, left=left, height=h, width=w)
        return self._fallback(height, width)

    def _fallback(self, height: int, width: int) -> dict[str, Any]:
        in_ratio = width / height
        w, h = width, height
        if in_ratio < self.ratio[0]:
            h = int(round(w / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            w = int(round(h * self.ratio[1]))
        return dict(top=(height - h) // 2, left=(width - w) // 2, height=h, width=w)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(
            F.resized_crop, inpt, **params, size=self.size, interpolation=self.interpolation, antialias=self.antialias
        )


class FiveCrop(Transform):
    """The four corner crops and the centre crop of ``size``; images and videos only (boxes and masks
    raise ``TypeError``). Returns a tuple of five per input."""

    def __init__(self, size: CropSize) -> None:
        super().__init__()
        self.size = _crop_size(size)

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        if has_any(flat_inputs, BoundingBox, Mask):
            raise TypeError(f"{type(self).__name__}() does not support BoundingBox or Mask inputs")

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.five_crop, inpt, size=self.size)


class TenCrop(FiveCrop):
    """The five crops of the image and of its flipped version (horizontal unless ``vertical_flip``)."""

    def __init__(self, size: CropSize, vertical_flip: bool = False) -> None:
        super().__init__(size)
        self.vertical_flip = bool(vertical_flip)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.ten_crop, inpt, size=self.size, vertical_flip=self.vertical_flip)


class RandomZoomOut(_FillMixin, RandomApplyTransform):
    """With probability ``p``, place the image at a random spot of a canvas ``side_range`` times
    larger, filled with ``fill`` ("zoom out" of SSD)."""

    def __init__(self, fill: FillSpec = 0, side_range: Sequence[float] = (1.0, 4.0), p: float = 0.5) -> None:
        super().__init__(p=p)
        self._setup_fill(fill)
        self.side_range = _check_range(side_range, "side_range")
        if self.side_range[0] < 1.0:
            raise ValueError(f"side_range must satisfy 1 <= min <= max, got {side_range!r}")

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        low, high = self.side_range
        r = low + torch.rand(1) * (high - low)
        canvas_width, canvas_height = int(width * r), int(height * r)
        r = torch.rand(2)
        left = int((canvas_width - width) * r[0])
        top = int((canvas_height - height) * r[1])
        return dict(padding=[left, top, canvas_width - left - width, canvas_height - top - height])

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._pad(inpt, params["padding"])


def _box_iou(boxes: np.ndarray, regions: np.ndarray) -> np.ndarray:
    """``T x N`` IoUs of XYXY ``boxes [N, 4]`` with XYXY ``regions [T, 4]`` (float32 numpy)."""
    lt = np.maximum(boxes[:, :2], regions[:, None, :2])
    rb = np.minimum(boxes[:, 2:], regions[:, None, 2:])
    inter = (rb - lt).clip(min=0).prod(-1)
    area = (boxes[:, 2:] - boxes[:, :2]).prod(-1)
    region_area = (regions[:, 2:] - regions[:, :2]).prod(-1)[:, None]
    return inter / (area + region_area - inter)


class RandomIoUCrop(Transform):
    """SSD's random crop: draw a minimum IoU from ``sampler_options`` (1.0 or more = no crop), then up
    to ``trials`` crops of scale ``[min_scale, max_scale]`` and aspect ratio within the bounds, until one
    holds a box centre and overlaps some box by at least that IoU. Boxes whose centre falls outside the
    crop are set to zero, to be removed by ``SanitizeBoundingBox``. The sample must hold boxes and an
    image; a sample with zero boxes comes back unchanged, and so does one where ``max_rounds`` minimum
    IoUs in a row found no crop (which only happens when ``sampler_options`` hold no 1.0 and the boxes
    allow no crop, e.g. NaN boxes: torchvision loops forever there).
    """

    max_rounds = 1000

    def __init__(
        self,
        min_scale: float = 0.3,
        max_scale: float = 1.0,
        min_aspect_ratio: float = 0.5,
        max_aspect_ratio: float = 2.0,
        sampler_options: Sequence[float] | None = None,
        trials: int = 40,
    ) -> None:
        super().__init__()
        self.min_scale, self.max_scale = _check_range((min_scale, max_scale), "(min_scale, max_scale)")
        self.min_aspect_ratio, self.max_aspect_ratio = _check_range(
            (min_aspect_ratio, max_aspect_ratio), "(min_aspect_ratio, max_aspect_ratio)"
        )
        options = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0] if sampler_options is None else list(sampler_options)
        if not options or not all(isinstance(o, (int, float)) for o in options):
            raise ValueError(f"sampler_options must be a non-empty sequence of numbers, got {sampler_options!r}")
        self.sampler_options = options
        if not isinstance(trials, int) or trials <= 0:
            raise ValueError(f"trials must be a positive int, got {trials!r}")
        self.trials = trials

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        if not (has_all(flat_inputs, BoundingBox) and has_any(flat_inputs, PIL.Image.Image, Image, is_pure_tensor)):
            raise TypeError(f"{type(self).__name__}() needs an image and a BoundingBox in the sample (masks optional)")

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        boxes = get_bounding_boxes(flat_inputs)
        xyxy = F.convert_format_bounding_box(boxes, new_format=BoundingBoxFormat.XYXY).as_subclass(torch.Tensor)
        xyxy = xyxy.reshape(-1, 4).to(device="cpu", dtype=torch.float32).numpy()
        if xyxy.shape[0] == 0:  # no box can satisfy the IoU criterion: leave the sample as it is
            return {}
        centres = 0.5 * (xyxy[:, :2] + xyxy[:, 2:])
        for _ in range(self.max_rounds):
            min_iou = self.sampler_options[_random.randint(len(self.sampler_options))]
            if min_iou >= 1.0:
                return {}
            params = self._search(height, width, xyxy, centres, min_iou)
            if params:
                return params
        return {}

    def _search(self, height: int, width: int, xyxy: np.ndarray, centres: np.ndarray, min_iou: float) -> dict[str, Any]:
        """Up to ``trials`` crops; each trial draws two scales, then (if the aspect ratio holds) two
        offsets, as ``torch.rand(2)`` calls, and the first crop that passes is taken. All trials are
        tried at once on one look-ahead bulk of draws, and only the draws up to the chosen trial are
        consumed. The maths is float32, as torch's."""
        draws = _random.peek(4 * self.trials).numpy()
        scales = np.float32(self.min_scale) + np.float32(self.max_scale - self.min_scale) * draws
        widths = (np.float32(width) * scales).astype(np.int64).tolist()
        heights = (np.float32(height) * scales).astype(np.int64).tolist()
        offsets, sizes = [], []  # where the two offset draws of each trial whose aspect ratio holds are
        used = 0
        for _ in range(self.trials):
            new_w, new_h = widths[used], heights[used + 1]
            used += 2
            if new_h == 0 or not self.min_aspect_ratio <= new_w / new_h <= self.max_aspect_ratio:
                continue
            offsets.append(used)
            sizes.append((new_w, new_h))
            used += 2
        found = self._first_valid_crop(height, width, draws, offsets, sizes, xyxy, centres, min_iou)
        _random.skip(used if found is None else offsets[found[0]] + 2)  # up to the chosen trial's offsets
        return {} if found is None else found[1]

    @staticmethod
    def _first_valid_crop(
        height: int, width: int, draws: np.ndarray, offsets: list[int], sizes: list[tuple[int, int]],
        xyxy: np.ndarray, centres: np.ndarray, min_iou: float,
    ) -> tuple[int, dict[str, Any]] | None:
        """(index, parameters) of the first candidate crop (never empty: its aspect ratio held) that
        holds a box centre and overlaps one of those boxes by ``min_iou``; None if none does."""
        if not sizes:
            return None
        at = np.array(offsets)
        crop_w, crop_h = np.array(sizes).T
        left = ((width - crop_w).astype(np.float32) * draws[at]).astype(np.int64)
        top = ((height - crop_h).astype(np.float32) * draws[at + 1]).astype(np.int64)
        right, bottom = left + crop_w, top + crop_h
        cx, cy = centres[:, 0], centres[:, 1]
        inside = (left[:, None] < cx) & (cx < right[:, None]) & (top[:, None] < cy) & (cy < bottom[:, None])
        regions = np.stack([left, top, right, bottom], axis=1).astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):  # 0 / 0 only for malformed (x2 < x1) boxes
            ious = np.where(inside, _box_iou(xyxy, regions), -np.inf)
        passed = inside.any(axis=1) & (ious.max(axis=1) >= min_iou)
        if not passed.any():
            return None
        i = int(passed.argmax())
        size = dict(top=int(top[i]), left=int(left[i]), height=int(crop_h[i]), width=int(crop_w[i]))
        return i, dict(size, inside=torch.from_numpy(inside[i]))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if not params:
            return inpt
        crop_params = {k: params[k] for k in ("top", "left", "height", "width")}
        output = self.call_kernel(F.crop, inpt, **crop_params)
        if isinstance(output, BoundingBox):
            keep = params["inside"].to(output.device).reshape(output.shape[:-1]).unsqueeze(-1)
            return BoundingBox.wrap_like(output, output.as_subclass(torch.Tensor).masked_fill(~keep, 0))
        return output
