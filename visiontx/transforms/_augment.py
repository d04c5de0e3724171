"""Augmentations that erase or compress pixels, and batch mixing (MixUp, CutMix)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import PIL.Image
import torch
from torch.nn.functional import one_hot
from torch.utils._pytree import tree_flatten, tree_unflatten

from .. import functional as F
from ..datapoints import BoundingBox, Image, Mask, Video
from ..functional._checks import per_channel_error
from ..functional._misc._erase import erase_fill
from . import _random
from ._labels import LabelsGetter, parse_labels_getter
from ._transform import RandomApplyTransform, Transform
from ._utils import has_any, is_pure_tensor, query_chw, query_size

__all__ = ["CutMix", "JPEG", "MixUp", "RandomErasing"]


def _pair_range(values: Sequence[float], name: str) -> tuple[float, float]:
    if not isinstance(values, Sequence) or len(values) != 2:
        raise TypeError(f"{name} must be a (min, max) pair, got {values!r}")
    low, high = float(values[0]), float(values[1])
    if low > high:
        raise ValueError(f"{name} must be given as (min, max), got {values!r}")
    return low, high


def _erase_value(value: float | Sequence[float] | str) -> list[float] | None:
    if isinstance(value, str):
        if value != "random":
            raise ValueError(f"value as a string must be 'random', got {value!r}")
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)]
    if isinstance(value, Sequence) and value and all(isinstance(v, (int, float)) for v in value):
        return [float(v) for v in value]
    raise TypeError(f"value must be a number, a sequence of numbers per channel, or 'random', got {value!r}")


def _image_dtype(flat_inputs: list[Any]) -> torch.dtype:
    for inpt in flat_inputs:
        if isinstance(inpt, (Image, Video)) or is_pure_tensor(inpt):
            return inpt.dtype
    return torch.uint8  # PIL images


class RandomErasing(RandomApplyTransform):
    """With probability ``p``, erase a random rectangle of the images and videos of a sample.

    Its area is a ``scale`` fraction of the image, its aspect ratio drawn log-uniformly from ``ratio``.
    ``value`` is a number, one number per channel, or "random" (standard normal noise for float
    images, uniform over the dtype's range for integer and PIL images). Masks and boxes pass through
    unchanged, as in torchvision. When no rectangle fits in 10 tries nothing is erased.

    Example:
        >>> RandomErasing(p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value="random")
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
        self.scale = _pair_range(scale, "scale")
        if not (0 <= self.scale[0] and self.scale[1] <= 1):
            raise ValueError(f"scale must lie in [0, 1], got {scale!r}")
        self.ratio = _pair_range(ratio, "ratio")
        if self.ratio[0] <= 0:
            raise ValueError(f"ratio must be positive, got {ratio!r}")
        self.value = value
        self._value = _erase_value(value)
        self.inplace = inplace
        self._log_ratio = torch.log(torch.tensor(self.ratio)).tolist()  # float32 logs, as torchvision
        self._fills: dict[torch.dtype, torch.Tensor] = {}  # the fixed value converted to each image dtype

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        channels, height, width = query_chw(flat_inputs)
        if self._value is not None and len(self._value) not in (1, channels):
            raise per_channel_error("value", channels, self.value)
        for _ in range(10):
            area = height * width * _random.uniform(self.scale[0], self.scale[1])
            aspect = math.exp(_random.uniform(self._log_ratio[0], self._log_ratio[1]))
            h, w = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if h < height and w < width:
                v = self._draw_value(channels, h, w, _image_dtype(flat_inputs))
                i = _random.randint(height - h + 1)
                j = _random.randint(width - w + 1)
                return dict(i=i, j=j, h=h, w=w, v=v)
        return dict(i=0, j=0, h=height, w=width, v=None)

    def _draw_value(self, channels: int, h: int, w: int, dtype: torch.dtype) -> torch.Tensor:
        if self._value is not None:
            if dtype not in self._fills:
                self._fills[dtype] = erase_fill(torch.tensor(self._value)[:, None, None], dtype)
            return self._fills[dtype]
        if dtype.is_floating_point:
            return torch.empty([channels, h, w], dtype=torch.float32).normal_()
        return torch.randint(0, torch.iinfo(dtype).max + 1, (channels, h, w), dtype=dtype)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if params["v"] is None:
            return inpt
        return self.call_kernel(F.erase, inpt, **params, inplace=self.inplace)


class JPEG(Transform):
    """JPEG compression artefacts with a ``quality`` (1..100) fixed or drawn per call from ``(min, max)``.

    uint8 image tensors, videos and PIL images.
    """

    def __init__(self, quality: int | Sequence[int]) -> None:
        super().__init__()
        bounds = [quality, quality] if isinstance(quality, int) else quality
        if not isinstance(bounds, Sequence) or len(bounds) != 2:
            raise TypeError(f"quality must be an int or a (min, max) pair of ints, got {quality!r}")
        if not all(isinstance(q, int) and not isinstance(q, bool) for q in bounds):
            raise TypeError(f"quality must be an int or a (min, max) pair of ints, got {quality!r}")
        if not 1 <= bounds[0] <= bounds[1] <= 100:
            raise ValueError(f"quality must be in 1..100 and given as (min, max), got {quality!r}")
        self.quality = list(bounds)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(quality=_random.randint(self.quality[0], self.quality[1] + 1))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.jpeg, inpt, quality=params["quality"])


class _BaseMixing(Transform):
    """Shared by MixUp and CutMix: find and check the labels, pair each item with the previous one."""

    def __init__(
        self, *, alpha: float = 1.0, num_classes: int | None = None, labels_getter: str | LabelsGetter = "default"
    ) -> None:
        super().__init__()
        if not isinstance(alpha, (int, float)) or not alpha > 0:
            raise ValueError(f"alpha must be a positive number, got {alpha!r}")
        if num_classes is not None and (not isinstance(num_classes, int) or num_classes <= 0):
            raise ValueError(f"num_classes must be a positive int or None, got {num_classes!r}")
        self.alpha = float(alpha)
        self.num_classes = num_classes
        self.labels_getter = labels_getter
        self._labels_getter = parse_labels_getter(labels_getter)

    def forward(self, *inputs: Any) -> Any:
        sample = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, spec = tree_flatten(sample)
        if has_any(flat_inputs, PIL.Image.Image, BoundingBox, Mask):
            raise TypeError(f"{type(self).__name__}() does not support PIL images, bounding boxes or masks")
        labels = self._check_labels(self._labels_getter(sample))
        if not any(inpt is labels for inpt in flat_inputs):
            raise ValueError("labels_getter must return a tensor of the sample itself")
        needs = self._needs_transform_list([None if inpt is labels else inpt for inpt in flat_inputs])
        selected = [inpt for inpt, need in zip(flat_inputs, needs) if need]
        params = dict(labels=labels, batch_size=labels.shape[0], **self.make_params(selected))
        outputs = [
            self.transform(inpt, params) if need or inpt is labels else inpt for inpt, need in zip(flat_inputs, needs)
        ]
        return tree_unflatten(outputs, spec)

    def _check_labels(self, labels: Any) -> torch.Tensor:
        if not isinstance(labels, torch.Tensor):
            raise TypeError(f"labels must be a tensor, got {type(labels).__name__}")
        if labels.ndim == 1:
            if labels.is_floating_point() or self.num_classes is None:
                raise ValueError("class-index labels (batch_size,) need integer values and num_classes")
        elif labels.ndim == 2:
            if not labels.is_floating_point():
                raise TypeError(f"probability labels (batch_size, num_classes) must be float, got {labels.dtype}")
            if self.num_classes is not None and labels.shape[1] != self.num_classes:
                raise ValueError(f"labels have {labels.shape[1]} classes but num_classes is {self.num_classes}")
        else:
            shape = tuple(labels.shape)
            raise ValueError(f"labels must have shape (batch_size,) or (batch_size, num_classes), got {shape}")
        return labels

    def _check_batch(self, inpt: torch.Tensor, batch_size: int) -> None:
        ndim = 5 if isinstance(inpt, Video) else 4
        if inpt.ndim != ndim:
            raise ValueError(f"{type(self).__name__}() needs a batch with {ndim} dims, got shape {tuple(inpt.shape)}")
        if inpt.shape[0] != batch_size:
            raise ValueError(f"batch size {inpt.shape[0]} of the images does not match {batch_size} labels")

    def _mix_labels(self, labels: torch.Tensor, lam: float) -> torch.Tensor:
        if labels.ndim == 1:
            labels = one_hot(labels.long(), num_classes=self.num_classes).to(torch.float32)
        return labels.roll(1, 0).mul(1.0 - lam).add_(labels, alpha=lam)

    def _beta(self) -> float:
        alpha = torch.tensor([self.alpha])
        return float(torch.distributions.Beta(alpha, alpha).sample(()))

    def _mix_pixels(self, inpt: torch.Tensor, params: dict[str, Any]) -> torch.Tensor:
        raise TypeError(f"{type(self).__name__} must override _mix_pixels")

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if inpt is params["labels"]:
            return self._mix_labels(inpt, params["lam"])
        if not (isinstance(inpt, (Image, Video)) or is_pure_tensor(inpt)):
            return inpt
        self._check_batch(inpt, params["batch_size"])
        output = self._mix_pixels(inpt.as_subclass(torch.Tensor), params)
        return type(inpt).wrap_like(inpt, output) if isinstance(inpt, (Image, Video)) else output


class MixUp(_BaseMixing):
    """MixUp a batch: ``lam * x[i] + (1 - lam) * x[i - 1]``, labels likewise, ``lam ~ Beta(alpha, alpha)``.

    Use after the DataLoader on ``(images [N, C, H, W] or videos [N, T, C, H, W], labels)``. Labels are
    class indices ``(N,)`` (then ``num_classes`` is needed) or probabilities ``(N, num_classes)``; the
    output labels are probabilities. uint8 images stay uint8 (rounded).

    Example:
        >>> images, labels = MixUp(alpha=1.0, num_classes=10)(images, labels)
    """

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(lam=self._beta())

    def _mix_pixels(self, inpt: torch.Tensor, params: dict[str, Any]) -> torch.Tensor:
        lam = params["lam"]
        if inpt.is_floating_point():
            return inpt.roll(1, 0).mul(1.0 - lam).add_(inpt, alpha=lam)
        mixed = inpt.roll(1, 0).to(torch.float32).mul_(1.0 - lam).add_(inpt.to(torch.float32), alpha=lam)
        return mixed.round_().to(inpt.dtype)


class CutMix(_BaseMixing):
    """CutMix a batch: paste a random rectangle of ``x[i - 1]`` into ``x[i]``.

    The rectangle's nominal area is ``(1 - lam)`` of the image with ``lam ~ Beta(alpha, alpha)``; after
    clipping to the image, the labels are weighted by the area actually pasted. Inputs as for ``MixUp``.

    Example:
        >>> images, labels = CutMix(alpha=1.0, num_classes=10)(images, labels)
    """

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        lam = self._beta()
        height, width = query_size(flat_inputs)
        center_x, center_y = _random.randint(width), _random.randint(height)
        half = 0.5 * math.sqrt(1.0 - lam)
        half_w, half_h = int(half * width), int(half * height)
        x1, y1 = max(center_x - half_w, 0), max(center_y - half_h, 0)
        x2, y2 = min(center_x + half_w, width), min(center_y + half_h, height)
        pasted = (x2 - x1) * (y2 - y1) / (width * height)
        return dict(box=(x1, y1, x2, y2), lam=1.0 - pasted)

    def _mix_pixels(self, inpt: torch.Tensor, params: dict[str, Any]) -> torch.Tensor:
        x1, y1, x2, y2 = params["box"]
        output = inpt.clone()
        output[..., y1:y2, x1:x2] = inpt.roll(1, 0)[..., y1:y2, x1:x2]
        return output
