"""The kernel registry: one dispatcher per op, one kernel per (op, input type).

Dispatchers call :func:`get_kernel` with the input's type. Kernels are plain functions of plain
tensors (or PIL images) and explicit metadata; the registry wraps them so a datapoint is unwrapped
before the kernel and re-wrapped (with updated metadata) after it.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

import PIL.Image
import torch

from .. import _torchvision_interop as _interop
from .._names import accepts_renamed
from ..datapoints import BoundingBox, Datapoint, Image, KeyPoints, Mask, Video
from ..datapoints._datapoint import adopt, unwrap
from ..datapoints._keypoints import on_canvas

_REGISTRY: dict[Callable, dict[type, Callable]] = {}
# (functional, input type) -> the kernel _find_kernel found (or None); emptied on every registration.
_LOOKUP_CACHE: dict[tuple[Callable, type], Callable | None] = {}
_BUILTIN_TYPES = (torch.Tensor, PIL.Image.Image, Datapoint, Image, Video, Mask, BoundingBox, KeyPoints)


def _wrap_datapoint_kernel(kernel: Callable, datapoint_cls: type[Datapoint]) -> Callable:
    """Adapter for image / video / mask kernels: unwrap, call, re-wrap like the input.

    When ``datapoint_cls`` carries no metadata, a tensor result for an input of exactly that class is
    re-wrapped by ``adopt`` (what ``wrap_like`` does then, without its dict merges and, for the kernel's
    fresh output, without a second tensor object).
    """
    no_metadata = datapoint_cls._metadata is Datapoint._metadata

    @functools.wraps(kernel)
    def adapter(inpt: Datapoint, *args: Any, **kwargs: Any) -> Any:
        output = kernel(unwrap(inpt), *args, **kwargs)
        if no_metadata and type(inpt) is datapoint_cls and isinstance(output, torch.Tensor):
            return adopt(output, datapoint_cls)
        return _rewrap(inpt, output)

    return adapter


def _rewrap(inpt: Datapoint, output: Any) -> Any:
    if isinstance(output, torch.Tensor):
        return type(inpt).wrap_like(inpt, output)
    if isinstance(output, (list, tuple)):  # five_crop and friends
        return type(output)(_rewrap(inpt, o) for o in output)
    return output


def _wrap_geometry_kernel(kernel: Callable, datapoint_cls: type[Datapoint]) -> Callable:
    """Adapter for the geometric kernels of point-like types (boxes, key points): they take the datapoint's
    metadata (``spatial_size``, and a box's ``format``) as keywords and return ``(tensor, new spatial_size)``.

    Key points' ``visibility`` stays here: when tracked, the points the kernel put off the new canvas
    become invisible (once for every op, elastic and fused warps included)."""

    @functools.wraps(kernel)
    def adapter(inpt: Datapoint, *args: Any, **kwargs: Any) -> Datapoint:
        metadata = datapoint_cls._metadata(inpt)
        visibility = metadata.pop("visibility", None)  # key points' own: kernels never see it
        output, spatial_size = kernel(unwrap(inpt), *args, **metadata, **kwargs)
        if visibility is None:
            return datapoint_cls.wrap_like(inpt, output, spatial_size=spatial_size)
        visibility = visibility & on_canvas(output, spatial_size)  # points moved off the canvas: invisible
        return datapoint_cls.wrap_like(inpt, output, spatial_size=spatial_size, visibility=visibility)

    return adapter


def _adapt(kernel: Callable, input_type: type, wrap: bool) -> Callable:
    if not wrap or not issubclass(input_type, Datapoint):
        return kernel
    return _wrap_datapoint_kernel(kernel, input_type)


def _register(functional: Callable, input_type: type, kernel: Callable) -> None:
    registry = _REGISTRY.setdefault(functional, {})
    if input_type in registry:
        raise ValueError(f"a kernel for {input_type.__name__} is already registered for {functional.__name__}")
    registry[input_type] = kernel
    _LOOKUP_CACHE.clear()


def register_kernels(
    functional: Callable, input_types: type | Sequence[type], *, wrap: bool = True
) -> Callable[[Callable], Callable]:
    """Internal decorator: register one kernel for one or several input types.

    With ``wrap=True`` (the default), datapoint inputs are unwrapped before the kernel and re-wrapped
    after it; ``wrap=False`` registers the function as it is (it then receives the datapoint).
    """
    types = (input_types,) if isinstance(input_types, type) else tuple(input_types)

    def decorator(kernel: Callable) -> Callable:
        for input_type in types:
            _register(functional, input_type, _adapt(kernel, input_type, wrap))
        return kernel

    return decorator


def register_mask_kernel(
    functional: Callable, kernel: Callable, *, sampling: Sequence[str] = ("interpolation",)
) -> None:
    """Internal: register the public mask kernel of a resampling op for ``Mask``. The dispatcher's
    arguments named in ``sampling`` (interpolation, antialias: masks always take nearest) are dropped."""
    dropped = tuple(sampling)

    @functools.wraps(kernel)
    def nearest(mask: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return kernel(mask, *args, **{k: v for k, v in kwargs.items() if k not in dropped})

    _register(functional, Mask, _adapt(nearest, Mask, wrap=True))


def register_geometry_kernel(
    functional: Callable, datapoint_cls: type[Datapoint] = BoundingBox
) -> Callable[[Callable], Callable]:
    """Internal decorator: register the kernel of a geometric op for a point-like type (``BoundingBox``,
    ``KeyPoints``). It is called as ``kernel(tensor, *args, **metadata, **kwargs)`` with the datapoint's
    metadata (``spatial_size``; boxes also ``format``) and returns ``(tensor, new spatial_size)``."""

    def decorator(kernel: Callable) -> Callable:
        _register(functional, datapoint_cls, _wrap_geometry_kernel(kernel, datapoint_cls))
        return kernel

    return decorator



def _functional_named(name: str) -> Callable:
    """The registered op ``visiontx.functional`` exports as ``name`` (an alias, such as ``"hflip"``, is the op
    itself), found without importing the package."""
    package = sys.modules.get(__package__)
    op = getattr(package, name, None) if name in getattr(package, "__all__", ()) else None
    if op not in _REGISTRY:
        raise ValueError(f"functional must name a visiontx.functional op with kernels, got {name!r}")
    return op


def _resolve_functional(functional: Callable | str) -> Callable:
    if isinstance(functional, str):
        functional = _functional_named(functional)
    if functional not in _REGISTRY:
        raise ValueError(f"functional must be a visiontx.functional op with kernels, got {functional!r}")
    return functional


@accepts_renamed("datapoint_cls", "tv_tensor_cls")
def register_kernel(functional: Callable | str, datapoint_cls: type[Datapoint]) -> Callable[[Callable], Callable]:
    """Decorator registering a kernel of ``functional`` for a user-defined datapoint class.

    The kernel receives the datapoint itself (no unwrapping) plus the functional's arguments, and
    returns the result. Built-in types and double registration are refused.

    Args:
        functional: a ``visiontx.functional`` op (the dispatcher) or its name (torchvision's aliases too: ``"hflip"``).
        datapoint_cls: a user-defined subclass of ``visiontx.datapoints.Datapoint``.

    Example:
        >>> @register_kernel(F.horizontal_flip, MyDatapoint)
        ... def flip_my_datapoint(inpt): ...
    """
    functional = _resolve_functional(functional)
    if not (isinstance(datapoint_cls, type) and issubclass(datapoint_cls, Datapoint)):
        raise TypeError(f"datapoint_cls must be a subclass of visiontx.datapoints.Datapoint, got {datapoint_cls!r}")
    if datapoint_cls in _BUILTIN_TYPES:
        raise ValueError(f"datapoint_cls must be a user-defined class, {datapoint_cls.__name__} is built in")
    return register_kernels(functional, datapoint_cls, wrap=False)


def _find_kernel(functional: Callable, input_type: type) -> Callable | None:
    key = (functional, input_type)
    try:
        return _LOOKUP_CACHE[key]
    except KeyError:
        kernel = _LOOKUP_CACHE[key] = _walk_mro(functional, input_type)
        return kernel


def _walk_mro(functional: Callable, input_type: type) -> Callable | None:
    if _interop.is_torchvision_type(input_type):  # never the plain-tensor kernel
        return _interop.kernel_for(functional, input_type, _find_kernel)
    registry = _REGISTRY.get(functional, {})
    for cls in input_type.__mro__:
        if cls in registry:
            return registry[cls]
        if cls is Datapoint:  # a datapoint never falls back to the plain-tensor kernel
            return None
    return None


def get_kernel(functional: Callable, input_type: type) -> Callable:
    """The kernel registered for ``input_type`` (walking its MRO up to ``Datapoint``); torchvision's
    ``Image``, ``Video``, ``Mask`` and ``BoundingBoxes`` take the kernel of visiontx's datapoint.

    Raises ``TypeError`` naming the supported types and ``input_type`` (as torchvision words it:
    ``"... but got <class 'object'> instead."``) when there is none.
    """
    kernel = _find_kernel(functional, input_type)
    if kernel is None:
        public = (t for t in _REGISTRY.get(functional, {}) if not t.__name__.startswith("_"))
        supported = ", ".join(sorted(_type_name(t) for t in public))
        reason = _interop.unsupported_reason(input_type)
        raise TypeError(
            f"Functional F.{functional.__name__} supports inputs of type {supported}, but got {input_type} instead"
            + (f": {reason}." if reason else ".")
        )
    return kernel


def _type_name(cls: type) -> str:
    return "PIL.Image.Image" if cls is PIL.Image.Image else cls.__name__


def has_kernel(functional: Callable, input_type: type) -> bool:
    """Whether ``functional`` has a kernel for ``input_type``."""
    return _find_kernel(functional, input_type) is not None


def registered_types(functional: Callable) -> tuple[type, ...]:
    """The input types ``functional`` has kernels for."""
    return tuple(_REGISTRY.get(functional, {}))
