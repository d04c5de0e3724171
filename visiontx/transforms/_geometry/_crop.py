"""Cropping transforms: fixed, random, random-resized, five / ten crops and SSD's IoU crop."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import PIL.Image
import torch

from ... import functional as F
from ..._args import (
    CropSize,
    FillSpec,
    PaddingArg,
    check_padding_mode,
    check_range,
    is_number,
    parse_crop_size,
    parse_padding,
)
from ...datapoints import BoundingBox, BoundingBoxFormat, Datapoint, Image, KeyPoints, Mask, Video
from ...functional import InterpolationMode
from ...functional._geometry._crop import padded_crop
from ...io import _decode_region, encoded_size
from .. import _random
from .._transform import Transform
from .._utils import get_bounding_boxes, has_all, has_any, is_pure_tensor, query_resizable_size, query_size
from ._pad import _PadMixin
from ._resize import Interpolation

__all__ = [
    "CenterCrop", "DecodeRandomResizedCrop", "FiveCrop", "RandomCrop", "RandomIoUCrop", "RandomResizedCrop", "TenCrop",
]


class CenterCrop(Transform):
    """Crop the centre of every image, video, mask and box of the sample, zero-padding a smaller input.

    Args:
        size: output size: an int (square), ``[s]`` or ``(h, w)``, positive.

    Example:
        >>> T.CenterCrop(224)(image)
    """

    def __init__(self, size: CropSize) -> None:
        super().__init__()
        self.size = parse_crop_size(size, "size", positive=True)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.center_crop, inpt, output_size=self.size)


class RandomCrop(_PadMixin, Transform):
    """Crop a random region of the sample (images, videos, masks and boxes), optionally padded first.

    Args:
        size: output size: an int (square), ``[s]`` or ``(h, w)``, positive.
        padding: borders added before cropping: an int, ``[left/right, top/bottom]`` or
            ``[left, top, right, bottom]``; None (default) adds none.
        pad_if_needed: pad a side shorter than ``size`` up to it (by the missing amount on both sides,
            as torchvision) instead of raising ``ValueError`` (default False).
        fill: value of padded pixels (default 0); see ``visiontx.transforms`` for the per-channel and
            dict forms.
        padding_mode: ``"constant"`` (default), ``"edge"``, ``"reflect"`` or ``"symmetric"``, as in :class:`Pad`.

    Example:
        >>> T.RandomCrop(32, padding=4)(image)
    """

    def __init__(
        self,
        size: CropSize,
        padding: PaddingArg | None = None,
        pad_if_needed: bool = False,
        fill: FillSpec = 0,
        padding_mode: str = "constant",
    ) -> None:
        super().__init__()
        self.size = parse_crop_size(size, "size", positive=True)
        self.padding = None if padding is None else parse_padding(padding)
        self.pad_if_needed = bool(pad_if_needed)
        self._setup_fill(fill)
        self.padding_mode = check_padding_mode(padding_mode)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        (left, top, right, bottom), (height, width) = self.padded(*query_size(flat_inputs))
        crop_height, crop_width = self.size
        # torchvision's draws, top then left (a range of one value draws nothing).
        top_range, left_range = height - crop_height + 1, width - crop_width + 1
        if top_range > 1 and left_range > 1:
            crop_top, crop_left = _random.randints((top_range, left_range))
        else:
            crop_top = _random.randint(top_range) if top_range > 1 else 0
            crop_left = _random.randint(left_range) if left_range > 1 else 0
        return dict(padding=[left, top, right, bottom], top=crop_top, left=crop_left)

    def padded(self, height: int, width: int) -> tuple[list[int], tuple[int, int]]:
        """The padding ``[left, top, right, bottom]`` of an input of ``(height, width)`` and its padded
        size; ``ValueError`` when the crop does not fit in it."""
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
        return [left, top, right, bottom], (height, width)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        padding, (height, width), top, left = params["padding"], self.size, params["top"], params["left"]
        if any(padding):
            if self.padding_mode == "constant" and type(inpt) in _PADDED_CROP_TYPES and self._calls_as_defined():
                # the window of the padded input, taken from the input: only what lies outside it is filled
                return padded_crop(inpt, top - padding[1], left - padding[0], height, width, self._fill_for(inpt))
            inpt = self._pad(inpt, padding, self.padding_mode)
        return self.call_kernel(F.crop, inpt, top=top, left=left, height=height, width=width)

    def _calls_as_defined(self) -> bool:
        """Whether ``call_kernel`` and ``_pad`` are the base classes', so a padded crop may skip their calls unseen."""
        cls, own = type(self), self.__dict__
        return (
            cls.call_kernel is Transform.call_kernel and cls._pad is _PadMixin._pad
            and not {"call_kernel", "_call_kernel", "_pad"} & own.keys()
        )


# Exactly these (no subclass, whose kernels could be a user's): their constant pad then crop is padded_crop
_PADDED_CROP_TYPES = frozenset({torch.Tensor, Image, Video, Mask})


class RandomResizedCrop(Transform):
    """Crop a region of random area and aspect ratio, then resize it to ``size`` (Inception's crop).

    Up to 10 regions are drawn; when none fits in the image, the largest centre crop with its aspect
    ratio clamped to ``ratio`` is taken.

    Args:
        size: output size: an int (square), ``[s]`` or ``(h, w)``, positive.
        scale: ``(min, max)`` range of the region's area as a fraction of the input's, ``0 <= min <= max``
            (default ``(0.08, 1.0)``; a draw giving an empty region is redrawn, as any that does not fit).
        ratio: ``(min, max)`` range of the region's width / height, drawn log-uniformly (default
            ``(3/4, 4/3)``).
        interpolation: the filter (default bilinear); see ``visiontx.transforms``.
        antialias: see ``visiontx.transforms`` (default True).

    Example:
        >>> T.RandomResizedCrop(224)(image)
    """

    def __init__(
        self,
        size: CropSize,
        scale: Sequence[float] = (0.08, 1.0),
        ratio: Sequence[float] = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: Interpolation = InterpolationMode.BILINEAR,
        antialias: bool | None = True,
    ) -> None:
        super().__init__()
        self.size = parse_crop_size(size, "size", positive=True)
        self.scale = check_range(scale, "scale", 0.0)
        self.ratio = check_range(ratio, "ratio", 0.0, strict=True)
        self.interpolation = InterpolationMode.parse(interpolation)
        self.antialias = antialias
        self._log_ratio = torch.log(torch.tensor(self.ratio)).tolist()  # float32 logs, as torchvision

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return self._region(*query_resizable_size(flat_inputs, self))

    def _region(self, height: int, width: int) -> dict[str, Any]:
        """The region ``(top, left, height, width)`` drawn for an input of ``height x width``."""
        area = height * width
        for _ in range(10):
            target_area = area * _random.uniform(*self.scale)
            aspect_ratio = _random.exp_uniform(self._log_ratio[0], self._log_ratio[1])  # float32, as torchvision's
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                top, left = _random.randints((height - h + 1, width - w + 1))
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


class DecodeRandomResizedCrop(RandomResizedCrop):
    """Decode encoded image bytes and take a :class:`RandomResizedCrop` of them in one step: the region is
    drawn from the size in the file's header, and a JPEG whose region is at least 2, 4 or 8 times ``size``
    on both sides is decoded at 1/2, 1/4 or 1/8 scale (libjpeg's scaled inverse DCT, as DALI's and FFCV's
    decoders do), which skips most of the decoding work and the resize's.

    The regions are ``RandomResizedCrop``'s (the same draws for the same image size and seed). The pixels
    differ from decoding in full and then cropping: the scaled decode averages in the DCT domain, and the
    region's edges are rounded to the reduced grid (within ``reduction / 2`` pixels of the full image).
    Other formats (PNG, ...) and smaller regions decode in full: then the output is ``RandomResizedCrop``'s of
    ``io.decode_image(data, mode="RGB")``. Takes one encoded image per sample (``bytes``, ``bytearray``,
    ``memoryview`` or a 1-D uint8 tensor, as ``visiontx.io.read_file`` gives; any other 1-D uint8 tensor in
    the sample counts as a second one) beside labels and other values, and returns an RGB ``Image`` on the
    CPU (EXIF orientation not applied); boxes, masks and decoded images are refused (decode them first and
    use ``RandomResizedCrop``).

    Args:
        size, scale, ratio, interpolation, antialias: as :class:`RandomResizedCrop`.

    Example:
        >>> T.Compose([T.DecodeRandomResizedCrop(224), T.RandomHorizontalFlip()])(io.read_file("photo.jpg"))
    """

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        refused = next((inpt for inpt in flat_inputs if _is_decoded(inpt)), None)
        if refused is not None:
            shape = f" of shape {tuple(refused.shape)}" if isinstance(refused, torch.Tensor) else ""
            raise TypeError(
                f"{type(self).__name__}() takes encoded image bytes (bytes or a 1-D uint8 tensor), not "
                f"{type(refused).__name__}{shape}: decode it first and use RandomResizedCrop"
            )
        count = sum(map(_is_encoded, flat_inputs))
        if count != 1:
            raise ValueError(f"{type(self).__name__}() takes one encoded image per sample, got {count}")

    def _needs_transform_list(self, flat_inputs: list[Any]) -> list[bool]:
        return [_is_encoded(inpt) for inpt in flat_inputs]

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return self._region(*encoded_size(flat_inputs[0]))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        region = _decode_region(inpt, params["top"], params["left"], params["height"], params["width"], self.size)
        return F.resize(Image(region), self.size, interpolation=self.interpolation, antialias=self.antialias)


def _is_encoded(inpt: Any) -> bool:
    """Whether ``inpt`` holds encoded image bytes: ``bytes``, ``bytearray``, ``memoryview`` or a plain 1-D
    uint8 tensor."""
    if isinstance(inpt, (bytes, bytearray, memoryview)):
        return True
    return type(inpt) is torch.Tensor and inpt.ndim == 1 and inpt.dtype == torch.uint8


def _is_decoded(inpt: Any) -> bool:
    """Whether ``inpt`` is an image, video, mask, box or key points (datapoints, PIL images, plain tensors of 2 or
    more dims): what :class:`DecodeRandomResizedCrop` refuses. Other tensors (labels) pass through."""
    if isinstance(inpt, (Datapoint, PIL.Image.Image)):
        return True
    return type(inpt) is torch.Tensor and inpt.ndim >= 2


class FiveCrop(Transform):
    """Crop the four corners and the centre: each image or video becomes a tuple of five crops.

    Boxes and masks are refused (``TypeError``).

    Args:
        size: crop size: an int (square), ``[s]`` or ``(h, w)``, positive and at most the input's size.

    Example:
        >>> tl, tr, bl, br, center = T.FiveCrop(64)(image)
    """

    def __init__(self, size: CropSize) -> None:
        super().__init__()
        self.size = parse_crop_size(size, "size", positive=True)

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        if has_any(flat_inputs, BoundingBox, KeyPoints, Mask):
            raise TypeError(f"{type(self).__name__}() does not support BoundingBox, KeyPoints or Mask inputs")

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.five_crop, inpt, size=self.size)


class TenCrop(FiveCrop):
    """The five crops of :class:`FiveCrop`, then those of the flipped input: a tuple of ten per input.

    Boxes and masks are refused (``TypeError``).

    Args:
        size: crop size: an int (square), ``[s]`` or ``(h, w)``, positive and at most the input's size.
        vertical_flip: flip top-bottom instead of left-right (default False).
    """

    def __init__(self, size: CropSize, vertical_flip: bool = False) -> None:
        super().__init__(size)
        self.vertical_flip = bool(vertical_flip)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.ten_crop, inpt, size=self.size, vertical_flip=self.vertical_flip)


def _box_iou(boxes: np.ndarray, regions: np.ndarray) -> np.ndarray:
    """``T x N`` IoUs of XYXY ``boxes [N, 4]`` with XYXY ``regions [T, 4]`` (float32 numpy)."""
    lt = np.maximum(boxes[:, :2], regions[:, None, :2])
    rb = np.minimum(boxes[:, 2:], regions[:, None, 2:])
    inter = (rb - lt).clip(min=0).prod(-1)
    area = (boxes[:, 2:] - boxes[:, :2]).prod(-1)
    region_area = (regions[:, 2:] - regions[:, :2]).prod(-1)[:, None]
    return inter / (area + region_area - inter)


class RandomIoUCrop(Transform):
    """SSD's random crop: a crop of the sample overlapping its boxes by at least a random minimum IoU.

    Each round draws a minimum IoU from ``sampler_options`` (1.0 or more: no crop), then up to
    ``trials`` crops, until one holds a box centre and overlaps some box by at least that IoU. Boxes
    whose centre falls outside the crop are set to zero, to be removed by ``SanitizeBoundingBox``. The
    sample must hold boxes and an image; a sample with zero boxes comes back unchanged, and so does one
    where ``max_rounds`` minimum IoUs in a row found no crop (which only happens when
    ``sampler_options`` hold no 1.0 and the boxes allow no crop, e.g. NaN boxes: torchvision loops
    forever there).

    Args:
        min_scale: smallest side of a crop as a fraction of the image's side (default 0.3).
        max_scale: largest such fraction, ``0 < min_scale <= max_scale`` (default 1.0).
        min_aspect_ratio: smallest width / height of a crop (default 0.5).
        max_aspect_ratio: largest width / height, ``0 < min <= max`` (default 2.0).
        sampler_options: the minimum IoUs to draw from, uniformly; None (default) means
            ``[0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]``.
        trials: crops tried per minimum IoU, a positive int (default 40).

    Example:
        >>> T.Compose([T.RandomIoUCrop(), T.SanitizeBoundingBox()])(image, {"boxes": boxes, "labels": labels})
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
        self.min_scale, self.max_scale = check_range((min_scale, max_scale), "(min_scale, max_scale)", 0.0, strict=True)
        self.min_aspect_ratio, self.max_aspect_ratio = check_range(
            (min_aspect_ratio, max_aspect_ratio), "(min_aspect_ratio, max_aspect_ratio)", 0.0, strict=True
        )
        options = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0] if sampler_options is None else list(sampler_options)
        if not options or not all(map(is_number, options)):
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
        # without boxes no crop passes, but the draws go on until the option 1.0 comes up, as torchvision's
        xyxy, centres = (t.cpu().numpy() for t in _xyxy_and_centres(get_bounding_boxes(flat_inputs)))
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
        holds a box centre and overlaps one of those boxes by ``min_iou``; None if none does (no boxes: none)."""
        if not sizes or xyxy.shape[0] == 0:
            return None
        at = np.array(offsets)
        crop_w, crop_h = np.array(sizes).T
        left = ((width - crop_w).astype(np.float32) * draws[at]).astype(np.int64)
        top = ((height - crop_h).astype(np.float32) * draws[at + 1]).astype(np.int64)
        right, bottom = left + crop_w, top + crop_h
        inside = _holds_centres(centres, left[:, None], top[:, None], right[:, None], bottom[:, None])
        regions = np.stack([left, top, right, bottom], axis=1).astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):  # 0 / 0 only for malformed (x2 < x1) boxes
            ious = np.where(inside, _box_iou(xyxy, regions), -np.inf)
        passed = inside.any(axis=1) & (ious.max(axis=1) >= min_iou)
        if not passed.any():
            return None
        i = int(passed.argmax())
        size = dict(top=int(top[i]), left=int(left[i]), height=int(crop_h[i]), width=int(crop_w[i]))
        return i, size

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if not params:
            return inpt
        crop_params = {k: params[k] for k in ("top", "left", "height", "width")}
        output = self.call_kernel(F.crop, inpt, **crop_params)
        if isinstance(output, BoundingBox):
            # empty the boxes whose centre the crop leaves out, by make_params' test on the boxes given (so a
            # replay on other boxes tests theirs)
            top, left = params["top"], params["left"]
            centres = _xyxy_and_centres(inpt)[1].double()  # on the boxes' device, float64 as make_params compares
            inside = _holds_centres(centres, left, top, left + params["width"], top + params["height"])
            keep = inside.reshape(output.shape[:-1]).unsqueeze(-1)
            return BoundingBox.wrap_like(output, output.as_subclass(torch.Tensor).masked_fill(~keep, 0))
        return output


def _xyxy_and_centres(boxes: BoundingBox) -> tuple[torch.Tensor, torch.Tensor]:
    """The boxes as float32 XYXY ``[N, 4]`` and their float32 centres ``[N, 2]``, on their device: what the IoU crop
    tests (make_params on the host)."""
    xyxy = F.convert_format_bounding_box(boxes, new_format=BoundingBoxFormat.XYXY).as_subclass(torch.Tensor)
    xyxy = xyxy.reshape(-1, 4).to(torch.float32)
    return xyxy, 0.5 * (xyxy[:, :2] + xyxy[:, 2:])


def _holds_centres(centres: Any, left: Any, top: Any, right: Any, bottom: Any) -> Any:
    """Whether the open rectangles hold each centre (numpy or torch): ``[K, N]`` for ``[K, 1]`` int64 sides, ``[N]``
    for numbers; compared in float64 (float32 centres against int64 sides in numpy, float64 centres in torch)."""
    cx, cy = centres[:, 0], centres[:, 1]
    return (left < cx) & (cx < right) & (top < cy) & (cy < bottom)
