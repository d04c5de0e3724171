"""Finding the labels of a sample: the ``labels_getter`` argument of MixUp, CutMix and SanitizeBoundingBox."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch

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


# name -> getter: the strings labels_getter accepts (what a saved pipeline stores instead of a function)
_NAMED_GETTERS: dict[str, LabelsGetter] = {"default": find_labels_default}


def register_labels_getter(name: str, getter: LabelsGetter) -> None:
    """Make ``labels_getter=name`` mean ``getter`` in MixUp, CutMix and SanitizeBoundingBox.

    A pipeline holding a function cannot be saved; one holding its registered name can (register the name
    again before loading it in another process). ``"default"`` is taken.

    Example:
        >>> T.register_labels_getter("targets", lambda sample: sample[1]["targets"])
        >>> T.SanitizeBoundingBox(labels_getter="targets")
    """
    if not isinstance(name, str) or not name or name == "default":
        raise ValueError(f"name must be a non-empty string other than 'default', got {name!r}")
    if not callable(getter):
        raise TypeError(f"getter must be callable, got {type(getter).__name__}")
    _NAMED_GETTERS[name] = getter


def parse_labels_getter(labels_getter: str | LabelsGetter | None) -> LabelsGetter:
    """A registered name (``"default"``: the heuristic) -> its getter, a callable -> itself, None -> a getter
    returning None."""
    if isinstance(labels_getter, str) and labels_getter in _NAMED_GETTERS:
        return _NAMED_GETTERS[labels_getter]
    if labels_getter is None:
        return _no_labels
    if callable(labels_getter):
        return labels_getter
    names = ", ".join(map(repr, _NAMED_GETTERS))
    raise ValueError(f"labels_getter must be a registered name ({names}), a callable or None, got {labels_getter!r}")


def matching_labels(getter: LabelsGetter, sample: Any, count: int, what: str) -> tuple[torch.Tensor, ...]:
    """The tensors ``getter`` finds in ``sample`` (None: none), each with ``count`` rows, one per ``what``.

    ``TypeError`` when the getter returns something else, ``ValueError`` when a tensor has another length.
    """
    labels = getter(sample)
    if labels is None:
        return ()
    entries = tuple(labels) if isinstance(labels, (tuple, list)) else (labels,)
    for entry in entries:
        if not isinstance(entry, torch.Tensor):
            kind = type(entry).__name__
            raise TypeError(f"labels_getter must return a tensor, a tuple of tensors or None, got {kind}")
        if entry.ndim == 0 or entry.shape[0] != count:
            raise ValueError(f"labels of shape {tuple(entry.shape)} do not match the {count} {what}")
    return entries
