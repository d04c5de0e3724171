"""Helpers the dataset wrappers share to build their targets."""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def parse_target_keys(target_keys: Any, *, available: set[str], default: set[str] | str) -> set[str]:
    """Resolve ``target_keys`` (None -> ``default``, "all" -> ``available``); unknown keys are a ValueError."""
    if target_keys is None:
        target_keys = default
    if target_keys == "all":
        return set(available)
    unknown = set(target_keys) - available
    if unknown:
        raise ValueError(f"target_keys {sorted(unknown)} are not available; valid keys: {sorted(available)}")
    return set(target_keys)


def list_of_dicts_to_dict_of_lists(items: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """``[{"a": 1}, {"a": 2, "b": 3}]`` -> ``{"a": [1, 2], "b": [3]}``."""
    lists: dict[str, list[Any]] = defaultdict(list)
    for item in items:
        for key, value in item.items():
            lists[key].append(value)
    return dict(lists)
