"""torchvision's own tensor types and enums in visiontx, without importing torchvision.

torchvision's ``Image``, ``Video``, ``Mask``, ``BoundingBoxes`` and ``KeyPoints`` (``torchvision.tv_tensors``)
go through visiontx's transforms and functionals as visiontx's datapoints: converted without copies on the way in
(``as_subclass`` plus metadata) and back to the same torchvision class, with updated metadata, on the way
out (``tv_tensors.wrap``; boxes carry their format, rotated ones too, and ``clamping_mode``). torchvision
is never imported here: its module is looked up in ``sys.modules``, since none of its tensors can exist
before it is imported.

Any other tensor subclass in a transform's sample that is neither a visiontx datapoint, a plain tensor
nor one of torch's own classes (``nn.Parameter``, ...) is refused with a ``TypeError``, rather than
passed through while the image moves.
"""

from __future__ import annotations

import enum
import functools
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

import torch

from .datapoints import BoundingBox, BoundingBoxFormat, Datapoint, Image, KeyPoints, Mask, Video
from .datapoints._bounding_box import parse_spatial_size

E = TypeVar("E", bound=enum.Enum)

# torchvision class name -> the visiontx datapoint class standing for it
_NATIVE_OF = {"BoundingBoxes": BoundingBox, "Image": Image, "KeyPoints": KeyPoints, "Video": Video, "Mask": Mask}
_TORCHVISION_NAME = {native: name for name, native in _NATIVE_OF.items()}
# Leaf types known to need no conversion (filled as they are met): one C-level test per sample.
_NATIVE_TYPES: set[type] = {torch.Tensor, Image, Video, Mask, BoundingBox, KeyPoints, int, float, str, type(None)}


def _tv_tensors() -> ModuleType | None:
    return sys.modules.get("torchvision.tv_tensors")


def _is_torch_own(cls: type) -> bool:
    """Tensor subclasses defined by torch itself (``nn.Parameter``, fake tensors, ...): plain tensors here."""
    module = cls.__module__ or ""
    return module == "torch" or module.startswith("torch.")


def is_native_type(cls: type) -> bool:
    """Whether leaves of class ``cls`` need no conversion: all but torchvision's tensors and unknown tensor
    subclasses."""
    if cls in _NATIVE_TYPES:
        return True
    native = not issubclass(cls, torch.Tensor) or issubclass(cls, Datapoint) or _is_torch_own(cls)
    if native:
        _NATIVE_TYPES.add(cls)
    return native


def is_native(inpt: Any) -> bool:
    """Whether a leaf needs no conversion (:func:`is_native_type` of its class)."""
    return is_native_type(type(inpt))


def is_torchvision_type(cls: type) -> bool:
    """Whether ``cls`` is a torchvision ``TVTensor`` class."""
    tv = _tv_tensors()
    return tv is not None and issubclass(cls, tv.TVTensor)


def native_type(cls: Any) -> type[Datapoint] | None:
    """The visiontx datapoint class standing for torchvision class ``cls`` (or a subclass of it), else None."""
    tv = _tv_tensors()
    if tv is None or not (isinstance(cls, type) and issubclass(cls, tv.TVTensor)):
        return None
    for name, native in _NATIVE_OF.items():
        if issubclass(cls, getattr(tv, name)):
            return native
    return None


def native_key(key: Any) -> Any:
    """A ``{type: value}`` argument's key (``fill``, ``dtype``) with torchvision's classes as visiontx's."""
    return native_type(key) or key


def unsupported_reason(cls: type) -> str:
    """Why visiontx cannot take a tensor of class ``cls`` (empty for the types it can take)."""
    if not issubclass(cls, torch.Tensor) or issubclass(cls, Datapoint) or _is_torch_own(cls):
        return ""
    if not is_torchvision_type(cls):
        return (
            "it is neither a visiontx datapoint, a torchvision tv_tensor nor a plain torch.Tensor "
            "(unwrap it with .as_subclass(torch.Tensor))"
        )
    if native_type(cls) is not None:
        return ""
    return "of torchvision's tv_tensors, visiontx takes Image, Video, Mask, BoundingBoxes and KeyPoints"


def to_native(inpt: torch.Tensor) -> Datapoint:
    """A torchvision ``Image`` / ``Video`` / ``Mask`` / ``BoundingBoxes`` / ``KeyPoints`` as visiontx's
    datapoint (no copy).

    Raises ``TypeError`` for other tensor subclasses.
    """
    native = native_type(type(inpt))
    if native is None:
        raise TypeError(f"visiontx cannot transform {type(inpt)}: {unsupported_reason(type(inpt))}")
    tensor = inpt.as_subclass(torch.Tensor)
    if native is KeyPoints:
        return KeyPoints._wrap(tensor, spatial_size=parse_spatial_size(inpt.canvas_size, "canvas_size"))
    if native is not BoundingBox:
        return tensor.as_subclass(native)
    name = inpt.format.name if isinstance(inpt.format, enum.Enum) else str(inpt.format).upper()
    if name not in BoundingBoxFormat.__members__:
        formats = ", ".join(BoundingBoxFormat.__members__)
        raise ValueError(f"torchvision's box format {name} is not supported by visiontx yet (it takes {formats})")
    spatial_size = parse_spatial_size(inpt.canvas_size, "canvas_size")
    mode = getattr(inpt, "clamping_mode", "soft")  # torchvision before 0.23 has none
    return BoundingBox._wrap(tensor, format=BoundingBoxFormat[name], spatial_size=spatial_size, clamping_mode=mode)


def to_torchvision(output: Any, like: torch.Tensor) -> Any:
    """A kernel's or transform's output for torchvision input ``like``: visiontx datapoints (also inside
    lists and tuples) become torchvision's classes again, ``like``'s own when they are of its kind."""
    if isinstance(output, (list, tuple)):
        return type(output)(to_torchvision(o, like) for o in output)
    name = _TORCHVISION_NAME.get(type(output))
    if name is None:
        return output
    tv = _tv_tensors()
    tensor = output.as_subclass(torch.Tensor)
    metadata: dict[str, Any] = {}
    if name == "BoundingBoxes":
        metadata = dict(format=tv.BoundingBoxFormat[output.format.name], canvas_size=output.spatial_size)
        if hasattr(tv, "is_rotated_bounding_format"):  # torchvision 0.23+ knows clamping modes
            metadata["clamping_mode"] = output.clamping_mode
    elif name == "KeyPoints":
        metadata = dict(canvas_size=output.spatial_size)
    if native_type(type(like)) is type(output):
        return tv.wrap(tensor, like=like, **metadata)
    return getattr(tv, name)(tensor, **metadata)


def native_leaves(flat_inputs: list[Any]) -> list[Any]:
    """The leaves of a sample with torchvision's tensors as visiontx datapoints: ``flat_inputs`` itself
    when there are none. Raises ``TypeError`` naming an unknown tensor subclass."""
    if _NATIVE_TYPES.issuperset(map(type, flat_inputs)) or all(map(is_native, flat_inputs)):
        return flat_inputs
    return [inpt if is_native(inpt) else to_native(inpt) for inpt in flat_inputs]


def restore_leaves(flat_outputs: list[Any], flat_inputs: list[Any], native: list[Any]) -> list[Any]:
    """The outputs of :func:`native_leaves`' leaves, torchvision's again where the inputs were: a leaf
    passed through untouched comes back as the caller's own object."""
    if native is flat_inputs:
        return flat_outputs
    return [
        out if inpt is converted else inpt if out is converted else to_torchvision(out, inpt)
        for out, inpt, converted in zip(flat_outputs, flat_inputs, native)
    ]


def kernel_for(functional: Callable, input_type: type, find: Callable) -> Callable | None:
    """The kernel of ``functional`` for torchvision class ``input_type``: the visiontx kernel of the
    matching datapoint (``find(functional, native type)``), between conversions; None if there is none."""
    native = native_type(input_type)
    kernel = find(functional, native) if native is not None else None
    if kernel is None:
        return None

    def torchvision_kernel(inpt: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        return to_torchvision(kernel(to_native(inpt), *args, **kwargs), inpt)

    return torchvision_kernel


def from_torchvision_enum(value: Any, enum_cls: type[E]) -> E | Any:
    """torchvision's member of the enum named like ``enum_cls`` (``InterpolationMode``, ``AutoAugmentPolicy``)
    as ``enum_cls``'s member of the same value; any other ``value`` as it is."""
    cls = type(value)
    if isinstance(value, enum.Enum) and cls.__name__ == enum_cls.__name__ and cls.__module__.startswith("torchvision."):
        return enum_cls(value.value)
    return value


def accepts_torchvision(function: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for functionals that take their input outside the kernel registry (box format conversion,
    clamping, sanitising): torchvision's tensors as ``inpt`` go in as visiontx's datapoints and come back as
    torchvision's class."""

    @functools.wraps(function)
    def wrapper(inpt: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_torchvision_type(type(inpt)):
            return function(inpt, *args, **kwargs)
        return to_torchvision(function(to_native(inpt), *args, **kwargs), inpt)

    return wrapper

