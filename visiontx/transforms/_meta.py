"""Transforms of box metadata: format conversion, clamping, and removing degenerate boxes."""

from __future__ import annotations

from typing import Any

import torch

from .. import functional as F
from .._args import is_number
from ..datapoints import BoundingBox, BoundingBoxFormat, Datapoint, Mask
from ..datapoints._bounding_box import parse_clamping_mode
from ._labels import LabelsGetter, matching_labels, parse_labels_getter
from ._transform import Transform, draws_nothing, flatten_sample
from ._utils import get_bounding_boxes

__all__ = ["ClampBoundingBox", "ConvertBoundingBoxFormat", "SanitizeBoundingBox", "SetClampingMode"]


class ConvertBoundingBoxFormat(Transform):
    """Convert every ``BoundingBox`` of the sample to another format.

    Args:
        format: the new :class:`~visiontx.datapoints.BoundingBoxFormat` or its name (``"XYXY"``,
            ``"XYWH"``, ``"CXCYWH"``, or a rotated one; see ``F.convert_format_bounding_box``).

    Example:
        >>> T.ConvertBoundingBoxFormat("XYXY")(image, boxes)
    """

    _transformed_types = (BoundingBox,)

    def __init__(self, format: BoundingBoxFormat | str) -> None:
        super().__init__()
        self.format = BoundingBoxFormat.parse(format)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.convert_format_bounding_box(inpt, new_format=self.format)


class ClampBoundingBox(Transform):
    """Clamp every ``BoundingBox`` of the sample to its image (its ``spatial_size``).

    Args:
        clamping_mode: ``"auto"`` (default) uses each box's own ``clamping_mode``; ``"soft"``, ``"hard"``
            or None (no clamping) override it (see ``F.clamp_bounding_box``).
    """

    _transformed_types = (BoundingBox,)

    def __init__(self, clamping_mode: str | None = "auto") -> None:
        super().__init__()
        if clamping_mode != "auto":
            parse_clamping_mode(clamping_mode)
        self.clamping_mode = clamping_mode

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.clamp_bounding_box(inpt, clamping_mode=self.clamping_mode)


class SetClampingMode(Transform):
    """Set the ``clamping_mode`` of every ``BoundingBox`` of the sample for the transforms that follow
    (torchvision 0.29's): ``"soft"``, ``"hard"`` or None (never clamp). The boxes are not changed.

    Example:
        >>> T.Compose([T.SetClampingMode("hard"), T.RandomRotation(30)])(image, boxes)
    """

    _transformed_types = (BoundingBox,)

    def __init__(self, clamping_mode: str | None) -> None:
        super().__init__()
        self.clamping_mode = parse_clamping_mode(clamping_mode)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return BoundingBox.wrap_like(inpt, inpt.as_subclass(torch.Tensor).clone(), clamping_mode=self.clamping_mode)


class SanitizeBoundingBox(Transform):
    """Remove degenerate boxes, with their labels and instance masks, so all stay aligned.

    A box is removed when its width or height is below ``min_size``, its area below ``min_area``, a
    coordinate is not finite, or it leaves the image. The ``BoundingBox`` of the sample (``N x 4``) is
    filtered, so are the tensors found by ``labels_getter`` and every ``Mask`` whose leading dim equals
    the number of boxes (instance masks ``N x H x W``). When no box is removed, the sample comes back as
    it is, without copies.

    Args:
        min_size: smallest width and height kept, positive (default 1).
        min_area: smallest area kept, non-negative (default 1).
        labels_getter: where the labels are: ``"default"`` (the "labels" key of a dict sample, or of the
            dict second item of a tuple; else the first key containing "label"), a callable taking the
            sample and returning one tensor or a tuple of tensors, or None (no labels).

    Example:
        >>> SanitizeBoundingBox()(image, {"boxes": boxes, "labels": labels, "masks": masks})
    """

    def __init__(
        self, min_size: float = 1.0, min_area: float = 1.0, labels_getter: str | LabelsGetter | None = "default"
    ) -> None:
        super().__init__()
        if not is_number(min_size) or not min_size > 0:
            raise ValueError(f"min_size must be a positive number, got {min_size!r}")
        if not is_number(min_area) or not min_area >= 0:
            raise ValueError(f"min_area must be a non-negative number, got {min_area!r}")
        self.min_size, self.min_area = float(min_size), float(min_area)
        self.labels_getter = labels_getter
        self._labels_getter = parse_labels_getter(labels_getter)

    @draws_nothing
    def forward(self, *inputs: Any) -> Any:
        sample = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, rebuild = flatten_sample(sample)
        boxes = get_bounding_boxes(flat_inputs)
        if boxes.ndim > 2:
            raise ValueError(f"{type(self).__name__}() needs boxes of shape N x 4, got {tuple(boxes.shape)}")
        labels = matching_labels(self._labels_getter, sample, boxes.shape[0], "boxes")
        kept, valid = F.sanitize_bounding_boxes(boxes, min_size=self.min_size, min_area=self.min_area)
        if kept.shape[0] == boxes.shape[0]:  # nothing to remove: the sample as it is
            return sample
        params = dict(keep=valid.nonzero().squeeze(1), boxes=boxes, kept=kept, labels=labels, count=boxes.shape[0])
        return rebuild([self.transform(inpt, params) for inpt in flat_inputs])

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if inpt is params["boxes"]:
            return params["kept"]
        is_label = any(inpt is label for label in params["labels"])
        is_instance_mask = isinstance(inpt, Mask) and inpt.ndim >= 3 and inpt.shape[0] == params["count"]
        if not (is_label or is_instance_mask):
            return inpt
        # index_select: a plain copy of the kept rows (boolean indexing is much slower on masks)
        kept = inpt.as_subclass(torch.Tensor).index_select(0, params["keep"].to(inpt.device))
        return type(inpt).wrap_like(inpt, kept) if isinstance(inpt, Datapoint) else kept

