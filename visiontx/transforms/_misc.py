"""Miscellaneous transforms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._transform import Transform

__all__ = ["Identity", "Lambda"]


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
