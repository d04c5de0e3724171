"""Transforms whose only per-sample randomness is ``p``, or none: the single transform runs on the
whole batch (its kernels take leading batch dims) and each sample keeps or drops the result by its coin."""

from __future__ import annotations

from typing import Any

import torch

from .._color import (
    RGB,
    Grayscale,
    RandomAdjustSharpness,
    RandomAutocontrast,
    RandomEqualize,
    RandomGrayscale,
    RandomInvert,
    RandomPosterize,
    RandomSolarize,
)
from .._dtype import ConvertDtype, ToDtype
from .._geometry import CenterCrop, Pad, Resize
from .._meta import ClampBoundingBox, ConvertBoundingBoxFormat
from .._misc import GaussianNoise, LinearTransformation, Normalize
from .._transform import flatten_sample
from ._batch import Batch
from ._core import Context, Leaf, register


@register(
    RGB, Grayscale, RandomAdjustSharpness, RandomAutocontrast, RandomEqualize, RandomGrayscale, RandomInvert,
    RandomPosterize, RandomSolarize, ConvertDtype, ToDtype, CenterCrop, Pad, Resize, ClampBoundingBox,
    ConvertBoundingBoxFormat, GaussianNoise, LinearTransformation, Normalize,
)
class WholeBatch(Leaf):
    """The transform's own ``transform`` on each batched leaf (its parameters do not depend on the
    sample: they are drawn once, from sample 0's leaves); masks go through it too, as in a single call."""

    moves_masks = True
    takes_datapoints = True
    per_image = False  # the kernels take the whole batch (and the wing where their gates say)

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        if not batch.size:
            return {"params": {}}
        flat, _ = flatten_sample(batch.sample(0))
        needs = self.transform._needs_transform_list(flat)
        return {"params": self.transform.make_params([x for x, need in zip(flat, needs) if need])}

    def apply(self, leaf: torch.Tensor, values: dict[str, Any]) -> torch.Tensor:
        return self.transform.transform(leaf, values["params"])

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        return values["params"]

