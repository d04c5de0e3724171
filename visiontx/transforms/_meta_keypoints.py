"""Transforms of key points' metadata: clamping them to their image, removing or flagging those off it."""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..datapoints import KeyPoints
from ._labels import LabelsGetter, matching_labels, parse_labels_getter
from ._transform import Transform, flatten_sample
from ._utils import get_keypoints

__all__ = ["ClampKeyPoints", "SanitizeKeyPoints"]


class ClampKeyPoints(Transform):
    """Clamp every ``KeyPoints`` of the sample to its image, ``[0, W - 1] x [0, H - 1]``
    (:func:`~visiontx.functional.clamp_keypoints`; with tracked visibility the points that were off the
    canvas become invisible).

    Takes no arguments.
    """

    _transformed_types = (KeyPoints,)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.clamp_keypoints(inpt)


class SanitizeKeyPoints(Transform):
    """Remove the key points (or groups of them) off their image, with their labels, so all stay aligned;
    or flag them invisible (``remove=False``).

    The sample's (first) ``KeyPoints`` is sanitized by :func:`~visiontx.functional.sanitize_keypoints`:
    ``[N, 2]`` points one by one, ``[N, ..., 2]`` groups (skeletons) as a whole, visibility counted when
    tracked. The tensors found by ``labels_getter`` (first dim ``N``) are filtered with them.

    Args:
        labels_getter: where the labels are: None (the default, as torchvision's: no labels),
            ``"default"`` (the "labels" key of a dict sample, or of the dict second item of a tuple), or a
            callable taking the sample and returning one tensor or a tuple of tensors.
        remove: True (the default) removes; False keeps every point and instance (labels untouched) and
            flags the invalid points invisible in the key points' ``visibility``.

    Example:
        >>> SanitizeKeyPoints(labels_getter="default")(image, {"keypoints": points, "labels": labels})
    """

    def __init__(self, labels_getter: str | LabelsGetter | None = None, *, remove: bool = True) -> None:
        super().__init__()
        if not isinstance(remove, bool):
            raise TypeError(f"remove must be a bool, got {type(remove).__name__}")
        self.labels_getter = labels_getter
        self._labels_getter = parse_labels_getter(labels_getter)
        self.remove = remove

    def forward(self, *inputs: Any) -> Any:
        sample = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, rebuild = flatten_sample(sample)
        points = get_keypoints(flat_inputs)
        what = f"key points (or groups) of shape {tuple(points.shape)}"
        labels = matching_labels(self._labels_getter, sample, points.shape[0], what)
        kept, valid = F.sanitize_keypoints(points, remove=self.remove)
        params = dict(points=points, kept=kept, labels=labels if self.remove else (), valid=valid)
        return rebuild([self.transform(inpt, params) for inpt in flat_inputs])

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if inpt is params["points"]:
            return params["kept"]
        if any(inpt is label for label in params["labels"]):
            return inpt[params["valid"].to(inpt.device)]
        return inpt
