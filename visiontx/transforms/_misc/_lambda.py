"""Identity and Lambda: pass the sample through, or apply a function to chosen leaves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._transform import Transform, draws_nothing

__all__ = ["Identity", "Lambda"]


class Identity(Transform):
    """Return the sample unchanged (the same objects).

    Takes no arguments.
    """

    @draws_nothing
    def forward(self, *inputs: Any) -> Any:
        return inputs if len(inputs) > 1 else inputs[0]


class Lambda(Transform):
    """Apply a function to every leaf of the sample of the given types.

    Plain tensors follow the plain-tensor rule of every transform (as torchvision's): only the first one, and
    only when the sample holds no image or video, is the image and goes to the function.

    Args:
        lambd: callable taking one leaf and returning its replacement.
        *types: the leaf types to apply it to (``isinstance``); none given: every leaf.

    Example:
        >>> T.Lambda(lambda x: x.float(), torch.Tensor)(sample)
    """

    _converts_torchvision = False  # the function gets torchvision's tensors as they are
    _transformed_types = (object,)  # every leaf, and the types checked in transform()

    def __init__(self, lambd: Callable[[Any], Any], *types: type) -> None:
        super().__init__()
        if not callable(lambd):
            raise TypeError(f"lambd must be callable, got {type(lambd).__name__}")
        self.lambd = lambd
        self.types = types or (object,)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.lambd(inpt) if isinstance(inpt, self.types) else inpt
