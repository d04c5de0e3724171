"""One implementation under several names: torchvision 0.16-0.29 renamed arguments of the 0.15 API.

- :func:`accepts_renamed` lets a function take one of its keyword arguments under a second name
  (``spatial_size`` as ``canvas_size``);
- :func:`renamed` gives a function a second public name whose signature uses other parameter names
  (``resize_bounding_boxes(bounding_boxes, canvas_size, ...)`` over ``resize_bounding_box(bounding_box,
  spatial_size, ...)``). Positional calls are the same for both.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

Fn = TypeVar("Fn", bound=Callable[..., Any])


def accepts_renamed(old: str, new: str) -> Callable[[Fn], Fn]:
    """Decorator: the function also takes its keyword argument ``old`` as ``new``.

    Giving both raises ``TypeError``.

    Args:
        old: the parameter's name in the signature (``"spatial_size"``).
        new: the other name it is accepted under (``"canvas_size"``).
    """

    def decorator(function: Fn) -> Fn:
        if old not in inspect.signature(function).parameters:
            raise ValueError(f"{function.__name__}() has no parameter {old!r}")

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if new in kwargs:
                if old in kwargs:
                    raise TypeError(f"{function.__name__}() got both {old} and {new}: they are one argument")
                kwargs[old] = kwargs.pop(new)
            return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorator


def renamed(function: Callable[..., Any], name: str, /, **renames: str) -> Callable[..., Any]:
    """``function`` under the public name ``name``, with parameters renamed (``old="new"``).

    The alias's signature shows the new names; keyword arguments given under them reach ``function``
    under the old ones.

    Args:
        function: the implementation.
        name: the alias's ``__name__``.
        **renames: parameter names of ``function`` mapped to the names the alias shows.
    """
    signature = inspect.signature(function)
    unknown = sorted(set(renames) - set(signature.parameters))
    if unknown:
        raise ValueError(f"{function.__name__}() has no parameters {unknown}")
    to_old = {new: old for old, new in renames.items()}

    @functools.wraps(function)
    def alias(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **{to_old.get(key, key): value for key, value in kwargs.items()})

    parameters = [p.replace(name=renames.get(p.name, p.name)) for p in signature.parameters.values()]
    alias.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    alias.__name__ = alias.__qualname__ = name
    shown = ", ".join(f"``{new}``" for new in renames.values())
    alias.__doc__ = f"Alias of ``{function.__name__}`` (torchvision 0.16-0.29's name), taking {shown}."
    return alias


accepts_canvas_size = accepts_renamed("spatial_size", "canvas_size")
"""Decorator: the function also takes ``spatial_size`` as ``canvas_size`` (torchvision 0.16-0.29's name)."""


def video_kernel(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """The video kernel ``op_video`` of an image kernel ``op_image_tensor`` that handles videos as they are:
    the same function, its first argument named ``video`` (as torchvision's)."""
    return _kernel_for(kernel, "video")


def mask_kernel(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """The mask kernel ``op_mask`` of an image kernel that handles masks as they are (first argument ``mask``)."""
    return _kernel_for(kernel, "mask")


def _kernel_for(kernel: Callable[..., Any], kind: str) -> Callable[..., Any]:
    alias = renamed(kernel, kernel.__name__.replace("_image_tensor", f"_{kind}"), image=kind)
    alias.__doc__ = f"``{kernel.__name__}`` for {kind}s: the same function, its first argument named ``{kind}``."
    return alias

