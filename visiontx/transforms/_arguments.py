"""A transform's constructor arguments, recorded once by the base class: what ``repr`` shows and ``to_dict``
stores, and the keyword-only ``generator=`` every transform accepts.

``Transform.__init_subclass__`` wraps each ``__init__`` with :func:`recording_init`. The outermost call (not
the ``super().__init__`` calls it makes) takes ``generator`` out of the keywords, sets ``self.generator`` (and ``self._given_generator``),
runs the constructor and records its bound arguments, defaults applied, in ``self._arguments``. No
transform class has per-class code for any of this.
"""

from __future__ import annotations

import enum
import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from . import _random

_GENERATOR = inspect.Parameter("generator", inspect.Parameter.KEYWORD_ONLY, default=None,
                               annotation="torch.Generator | None")


def _with_generator(signature: inspect.Signature) -> inspect.Signature:
    """``signature`` with the keyword-only ``generator`` parameter (before ``**kwargs``)."""
    parameters = list(signature.parameters.values())
    at = len(parameters) - (bool(parameters) and parameters[-1].kind is inspect.Parameter.VAR_KEYWORD)
    return signature.replace(parameters=[*parameters[:at], _GENERATOR, *parameters[at:]])


def recording_init(init: Callable[..., None]) -> Callable[..., None]:
    """``init`` taking ``generator=`` and recording its arguments when it is the outermost constructor call."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if "_arguments" in self.__dict__:  # a super().__init__ call of the outermost constructor
            init(self, *args, **kwargs)
            return
        generator = _random.check_generator(kwargs.pop("generator", None))
        object.__setattr__(self, "generator", generator)
        object.__setattr__(self, "_given_generator", generator)
        object.__setattr__(self, "_arguments", {})
        init(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        self._arguments = {name: value for name, value in list(bound.arguments.items())[1:]}

    __init__.__signature__ = _with_generator(signature)  # type: ignore[attr-defined]
    __init__._records_arguments = True  # type: ignore[attr-defined]
    return __init__


def call_arguments(cls: type, arguments: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The positional and keyword arguments that call ``cls`` with the recorded ``arguments``."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    star = next((p for p in parameters if p.kind is p.VAR_POSITIONAL and arguments.get(p.name)), None)
    positional, keywords = [], {}
    for parameter in parameters:
        if parameter.name not in arguments or parameter.name == "generator":
            continue
        value = arguments[parameter.name]
        if parameter.kind is parameter.VAR_POSITIONAL:
            positional.extend(value)
        elif parameter.kind is parameter.VAR_KEYWORD:
            keywords.update(value)
        elif parameter.kind is parameter.POSITIONAL_ONLY or (star is not None and parameter.kind is parameter.POSITIONAL_OR_KEYWORD):
            positional.append(value)
        else:
            keywords[parameter.name] = value
    return positional, keywords


def format_value(value: Any, indent: str = "") -> str:
    """A stable repr of an argument: enums as ``Class.MEMBER`` (torchvision's and visiontx's alike), classes
    and functions by name, numpy scalars as Python numbers; sequences holding transforms one per line."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, type) or inspect.isroutine(value):
        return getattr(value, "__qualname__", repr(value))
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, torch.Generator):
        return "<torch.Generator>"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{format_value(k)}: {format_value(v, indent)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = [format_value(item, indent + "  ") for item in value]
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        if _holds_transform(value):
            return open_ + "".join(f"\n{indent}  {item}," for item in inner) + f"\n{indent}{close}"
        return open_ + ", ".join(inner) + ("," if len(value) == 1 and close == ")" else "") + close
    if isinstance(value, torch.nn.Module) and hasattr(value, "_arguments"):
        return format_call(type(value).__name__, value._constructor_arguments(), value._given_generator, indent)
    return repr(value)


def _holds_transform(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(map(_holds_transform, value))
    return isinstance(value, torch.nn.Module)


def format_call(name: str, arguments: dict[str, Any], generator: torch.Generator | None, indent: str = "") -> str:
    """``Name(arg=value, ...)``; one argument per line when one of them holds transforms."""
    items = list(arguments.items()) + ([("generator", generator)] if generator is not None else [])
    multiline = any(_holds_transform(value) for _, value in items)
    inner = indent + "  " if multiline else indent
    parts = [f"{key}={format_value(value, inner)}" for key, value in items]
    if multiline:
        return f"{name}(" + "".join(f"\n{inner}{part}," for part in parts) + f"\n{indent})"
    return f"{name}({', '.join(parts)})"
