"""Miscellaneous transforms."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import PIL.Image
import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from .. import functional as F
from ..datapoints import BoundingBox, BoundingBoxFormat, Datapoint, Image, Mask, Video
from ..functional._misc._blur import _parse_kernel_size
from . import _random
from ._labels import LabelsGetter, parse_labels_getter
from ._transform import Transform
from ._utils import get_bounding_boxes, has_any, is_pure_tensor

__all__ = [
    "GaussianBlur",
    "GaussianNoise",
    "Identity",
    "Lambda",
    "LinearTransformation",
    "Normalize",
    "SanitizeBoundingBox",
    "UniformTemporalSubsample",
]


class Identity(Transform):
    """Return the sample unchanged (the same objects)."""

    def forward(self, *inputs: Any) -> Any:
        return inputs if len(inputs) > 1 else inputs[0]


class Lambda(Transform):
    """Apply ``lambd`` to every leaf of the given ``types`` (all leaves if no type is given).

    Example:
        >>> Lambda(lambda x: x.float(), torch.Tensor)
    """

    def __init__(self, lambd: Callable[[Any], Any], *types: type) -> None:
        super().__init__()
        if not callable(lambd):
            raise TypeError(f"lambd must be callable, got {type(lambd).__name__}")
        self.lambd = lambd
        self.types = types or (object,)

    def _needs_transform_list(self, flat_inputs: list[Any]) -> list[bool]:
        return [isinstance(inpt, self.types) for inpt in flat_inputs]

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.lambd(inpt)


class LinearTransformation(Transform):
    """Flatten each image ``C x H x W`` to ``D`` values, subtract ``mean_vector`` ``[D]`` and multiply by
    ``transformation_matrix`` ``[D, D]`` (e.g. ZCA whitening). Image tensors and videos; PIL is refused.
    """

    def __init__(self, transformation_matrix: torch.Tensor, mean_vector: torch.Tensor) -> None:
        super().__init__()
        if not isinstance(transformation_matrix, torch.Tensor) or not isinstance(mean_vector, torch.Tensor):
            raise TypeError("transformation_matrix and mean_vector must be tensors")
        if transformation_matrix.ndim != 2 or transformation_matrix.shape[0] != transformation_matrix.shape[1]:
            raise ValueError(f"transformation_matrix must be square, got shape {tuple(transformation_matrix.shape)}")
        if mean_vector.shape != transformation_matrix.shape[:1]:
            raise ValueError(
                f"mean_vector must have shape [{transformation_matrix.shape[0]}], got {tuple(mean_vector.shape)}"
            )
        if transformation_matrix.device != mean_vector.device or transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError("transformation_matrix and mean_vector must share device and dtype")
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        if has_any(flat_inputs, PIL.Image.Image):
            raise TypeError(f"{type(self).__name__}() does not support PIL images")

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if not (isinstance(inpt, (Image, Video)) or is_pure_tensor(inpt)):
            return inpt
        shape = inpt.shape
        size = shape[-3] * shape[-2] * shape[-1]
        if size != self.transformation_matrix.shape[0]:
            dims = self.transformation_matrix.shape[0]
            raise ValueError(f"inputs of C x H x W = {size} values do not fit a {dims} x {dims} matrix")
        flat = inpt.as_subclass(torch.Tensor).reshape(-1, size) - self.mean_vector
        output = (flat @ self.transformation_matrix.to(flat.dtype)).reshape(shape)
        return type(inpt).wrap_like(inpt, output) if isinstance(inpt, (Image, Video)) else output


class Normalize(Transform):
    """``(x - mean) / std`` per channel of float images and videos (uint8 and PIL are refused).

    Example:
        >>> Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    """

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        super().__init__()
        self.mean, self.std = list(mean), list(std)
        if any(s == 0 for s in self.std):
            raise ValueError(f"std must not contain zeros, got {self.std}")
        self.inplace = inplace

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        if has_any(flat_inputs, PIL.Image.Image):
            raise TypeError(f"{type(self).__name__}() does not support PIL images")

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.normalize, inpt, mean=self.mean, std=self.std, inplace=self.inplace)


def _sigma_range(sigma: float | Sequence[float]) -> tuple[float, float]:
    values = [sigma, sigma] if isinstance(sigma, (int, float)) else list(sigma)
    if len(values) != 2 or not all(isinstance(s, (int, float)) for s in values):
        raise TypeError(f"sigma must be a number or a (min, max) pair, got {sigma!r}")
    if not 0 < values[0] <= values[1]:
        raise ValueError(f"sigma must be positive and given as (min, max), got {sigma!r}")
    return float(values[0]), float(values[1])


class GaussianBlur(Transform):
    """Gaussian blur with odd ``kernel_size`` and a ``sigma`` drawn uniformly from ``(min, max)`` per call.

    Example:
        >>> GaussianBlur(kernel_size=5, sigma=(0.1, 2.0))
    """

    def __init__(self, kernel_size: int | Sequence[int], sigma: float | Sequence[float] = (0.1, 2.0)) -> None:
        super().__init__()
        self.kernel_size = list(_parse_kernel_size(kernel_size))
        self.sigma = _sigma_range(sigma)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        sigma = _random.uniform(self.sigma[0], self.sigma[1])
        return dict(sigma=[sigma, sigma])

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.gaussian_blur, inpt, self.kernel_size, **params)


class GaussianNoise(Transform):
    """Add Gaussian noise ``N(mean, sigma)`` (float scale; uint8 images scale it by 255), clipped if ``clip``.

    Float and uint8 image tensors and videos; PIL images are refused.
    """

    def __init__(self, mean: float = 0.0, sigma: float = 0.1, clip: bool = True) -> None:
        super().__init__()
        if not isinstance(mean, (int, float)) or isinstance(mean, bool):
            raise TypeError(f"mean must be a number, got {mean!r}")
        if not isinstance(sigma, (int, float)) or sigma < 0:
            raise ValueError(f"sigma must be a non-negative number, got {sigma!r}")
        self.mean, self.sigma, self.clip = float(mean), float(sigma), bool(clip)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.gaussian_noise, inpt, mean=self.mean, sigma=self.sigma, clip=self.clip)


class UniformTemporalSubsample(Transform):
    """Keep ``num_samples`` evenly spaced frames of videos ``[..., T, C, H, W]`` (plain tensors too)."""

    def __init__(self, num_samples: int) -> None:
        super().__init__()
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples must be a positive int, got {num_samples!r}")
        self.num_samples = num_samples

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if isinstance(inpt, PIL.Image.Image):
            return inpt
        return self.call_kernel(F.uniform_temporal_subsample, inpt, self.num_samples)


class SanitizeBoundingBox(Transform):
    """Remove degenerate boxes, with their labels and instance masks, so all stay aligned.

    A box is removed when its width or height is below ``min_size``, its area below ``min_area``, a
    coordinate is not finite, or it leaves the image. The ``BoundingBox`` of the sample is filtered, so
    are the tensors found by ``labels_getter`` ("default": the "labels" key of a dict sample, or of the
    dict second item of a tuple; a callable returning one tensor or a tuple of tensors; or None) and every
    ``Mask`` whose leading dim equals the number of boxes (instance masks ``N x H x W``). When no box is
    removed, the sample comes back as it is, without copies.

    Example:
        >>> SanitizeBoundingBox()(image, {"boxes": boxes, "labels": labels, "masks": masks})
    """

    def __init__(
        self, min_size: float = 1.0, min_area: float = 1.0, labels_getter: str | LabelsGetter | None = "default"
    ) -> None:
        super().__init__()
        if not isinstance(min_size, (int, float)) or not min_size > 0:
            raise ValueError(f"min_size must be a positive number, got {min_size!r}")
        if not isinstance(min_area, (int, float)) or not min_area >= 0:
            raise ValueError(f"min_area must be a non-negative number, got {min_area!r}")
        self.min_size, self.min_area = float(min_size), float(min_area)
        self.labels_getter = labels_getter
        self._labels_getter = parse_labels_getter(labels_getter)

    def forward(self, *inputs: Any) -> Any:
        sample = inputs if len(inputs) > 1 else inputs[0]
        labels = _as_label_tensors(self._labels_getter(sample))
        flat_inputs, spec = tree_flatten(sample)
        boxes = get_bounding_boxes(flat_inputs)
        if boxes.ndim > 2:
            raise ValueError(f"{type(self).__name__}() needs boxes of shape N x 4, got {tuple(boxes.shape)}")
        for label in labels:
            if label.ndim == 0 or label.shape[0] != boxes.shape[0]:
                raise ValueError(f"labels of shape {tuple(label.shape)} do not match the {boxes.shape[0]} boxes")
        keep = self._valid(boxes).nonzero().squeeze(1)
        if keep.shape[0] == boxes.shape[0]:  # nothing to remove: no copies
            return sample
        params = dict(keep=keep, boxes=boxes, labels=labels, count=boxes.shape[0])
        return tree_unflatten([self.transform(inpt, params) for inpt in flat_inputs], spec)

    def _valid(self, boxes: BoundingBox) -> torch.Tensor:
        if boxes.format == BoundingBoxFormat.XYXY:
            xyxy = boxes.as_subclass(torch.Tensor)  # read only: no conversion copy
        else:
            xyxy = F.convert_format_bounding_box(boxes, new_format="XYXY").as_subclass(torch.Tensor)
        top_left, bottom_right = xyxy[..., :2], xyxy[..., 2:]
        sizes = bottom_right - top_left
        # With x1 >= 0, x2 <= width and x2 - x1 >= min_size > 0, every coordinate is inside the image;
        # NaN and infinite coordinates fail one of these tests.
        valid = (top_left >= 0).all(dim=-1) & (bottom_right <= xyxy.new_tensor(boxes.spatial_size[::-1])).all(dim=-1)
        return valid & (sizes >= self.min_size).all(dim=-1) & (sizes.prod(dim=-1) >= self.min_area)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        is_label = any(inpt is label for label in params["labels"])
        is_instance_mask = isinstance(inpt, Mask) and inpt.ndim >= 3 and inpt.shape[0] == params["count"]
        if not (is_label or is_instance_mask or inpt is params["boxes"]):
            return inpt
        # index_select: a plain copy of the kept rows (boolean indexing is ~20x slower on masks)
        kept = inpt.as_subclass(torch.Tensor).index_select(0, params["keep"].to(inpt.device))
        return type(inpt).wrap_like(inpt, kept) if isinstance(inpt, Datapoint) else kept


def _as_label_tensors(labels: Any) -> tuple[torch.Tensor, ...]:
    if labels is None:
        return ()
    entries = tuple(labels) if isinstance(labels, (tuple, list)) else (labels,)
    for entry in entries:
        if not isinstance(entry, torch.Tensor):
            kind = type(entry).__name__
            raise TypeError(f"labels_getter must return a tensor, a tuple of tensors or None, got {kind}")
    return entries
