"""The registry of per-dataset wrapper factories: wrapper modules register into it, ``_wrap`` reads from it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Wrapper = Callable[[int, Any], Any]
WrapperFactory = Callable[[Any, Any], Wrapper]

_FACTORIES: dict[type, tuple[WrapperFactory, bool]] = {}


def register_wrapper(*dataset_classes: type, target_keys: bool = False) -> Callable[[WrapperFactory], WrapperFactory]:
    """Register ``factory(dataset, target_keys) -> wrapper(index, sample)`` for ``dataset_classes`` (and subclasses).

    ``target_keys=True`` says the wrapper accepts the ``target_keys`` argument.
    """

    def decorator(factory: WrapperFactory) -> WrapperFactory:
        for dataset_cls in dataset_classes:
            _FACTORIES[dataset_cls] = (factory, target_keys)
        return factory

    return decorator


def registered_factory(dataset_cls: type) -> tuple[type, WrapperFactory, bool] | None:
    """``(registered class, factory, takes target_keys)`` for the first class of ``dataset_cls``'s MRO, or None."""
    for cls in dataset_cls.__mro__:
        if cls in _FACTORIES:
            return (cls, *_FACTORIES[cls])
    return None
