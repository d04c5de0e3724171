"""Finding the labels of a sample: the ``labels_getter`` argument of MixUp, CutMix and SanitizeBoundingBox."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._transform import _is_pure_tensor

LabelsGetter = Callable[[Any], Any]


def find_labels_default(sample: Any) -> Any:
    """The "default" heuristic, as in torchvision.

    The sample (or its second item when it is a tuple or list) is either the labels tensor itself or a
    dict holding them under a key named "labels" (case-insensitive), else the first key containing "label".
    """
    inner = sample[1] if isinstance(sample, (tuple, list)) and len(sample) > 1 else sample
    if _is_pure_tensor(inner):
        return inner
    if not isinstance(inner, Mapping):
        raise ValueError(
            "labels_getter='default' needs a dict sample, or a tuple whose second item is a dict or the labels "
            f"tensor, got {type(inner).__name__}; pass a callable labels_getter (or None)"
        )
    keys = [key for key in inner if isinstance(key, str)]
    exact = [k for k in keys if k.lower() == "labels"]
    key = next(iter(exact or [k for k in keys if "label" in k.lower()]), None)
    if key is None:
        raise ValueError("labels_getter='default' found no 'labels' key in the sample; pass a callable or None")
    return inner[key]


def _no_labels(sample: Any) -> None:
    return None


def parse_labels_getter(labels_getter: str | LabelsGetter | None) -> LabelsGetter:
    """``"default"`` -> the heuristic, a callable -> itself, None -> a getter returning None."""
    if isinstance(labels_getter, str) and labels_getter == "default":
        return find_labels_default
    if labels_getter is None:
        return _no_labels
    if callable(labels_getter):
        return labels_getter
    raise ValueError(f"labels_getter must be 'default', a callable or None, got {labels_getter!r}")
