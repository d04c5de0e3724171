"""Batch mixing: MixUp and CutMix (batch ops, used after the DataLoader; no functional counterpart)."""

from __future__ import annotations

import math
from typing import Any

import PIL.Image
import torch
from torch.nn.functional import one_hot

from .._args import is_number
from ..datapoints import BoundingBox, Image, KeyPoints, Mask, Video
from . import _random
from ._labels import LabelsGetter, parse_labels_getter
from ._tape import state as _TAPE
from ._transform import Transform, flatten_sample
from ._utils import has_any, is_pure_tensor, query_size

__all__ = ["CutMix", "MixUp"]


class _BaseMixing(Transform):
    """Shared by MixUp and CutMix: find and check the labels, pair each item with the previous one."""

    def __init__(
        self, *, alpha: float = 1.0, num_classes: int | None = None, labels_getter: str | LabelsGetter = "default"
    ) -> None:
        super().__init__()
        if not is_number(alpha) or not alpha > 0:
            raise ValueError(f"alpha must be a positive number, got {alpha!r}")
        if num_classes is not None and (not isinstance(num_classes, int) or num_classes <= 0):
            raise ValueError(f"num_classes must be a positive int or None, got {num_classes!r}")
        self.alpha = float(alpha)
        self.num_classes = num_classes
        self.labels_getter = labels_getter
        self._labels_getter = parse_labels_getter(labels_getter)

    def forward(self, *inputs: Any) -> Any:
        sample = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, rebuild = flatten_sample(sample)
        if has_any(flat_inputs, PIL.Image.Image, BoundingBox, KeyPoints, Mask):
            raise TypeError(f"{type(self).__name__}() does not support PIL images, bounding boxes, key points or masks")
        labels = self._check_labels(self._labels_getter(sample))
        if not any(inpt is labels for inpt in flat_inputs):
            raise ValueError("labels_getter must return a tensor of the sample itself")
        needs = self._needs_transform_list([None if inpt is labels else inpt for inpt in flat_inputs])
        selected = [inpt for inpt, need in zip(flat_inputs, needs) if need]
        tape = _TAPE.tape  # None unless recording or replaying (transforms/_tape.py)
        drawn = self.make_params(selected) if tape is None else tape.params(self, selected)
        params = dict(labels=labels, batch_size=labels.shape[0], **drawn)
        return rebuild(
            [self.transform(inpt, params) if need or inpt is labels else inpt for inpt, need in zip(flat_inputs, needs)]
        )

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
        return _random.beta(self.alpha)

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

    Args:
        alpha: positive parameter of the Beta distribution of ``lam`` (keyword only, default 1).
        num_classes: number of classes, needed for class-index labels; None (default) for probability
            labels (keyword only).
        labels_getter: how to find the labels tensor in the sample: ``"default"`` (the second item of a
            tuple, or the "labels" key of a dict), or a callable taking the sample (keyword only).

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

    Args:
        alpha: positive parameter of the Beta distribution of ``lam`` (keyword only, default 1).
        num_classes, labels_getter: as for :class:`MixUp`.

    Example:
        >>> images, labels = CutMix(alpha=1.0, num_classes=10)(images, labels)
    """

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        lam = self._beta()
        height, width = query_size(flat_inputs)
        center_x, center_y = _random.randints((width, height))
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
