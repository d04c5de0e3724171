"""Pipelines as data: ``to_dict`` / ``from_dict``, ``save`` / ``load`` in JSON or YAML.

A transform is stored as ``{"$transform": name, **arguments}``: its class's public name (a class defined
outside visiontx: ``module.QualName``) and the constructor arguments the base class recorded (defaults
applied). Values are JSON's own, or tagged dicts: ``{"$tuple": [...]}``, ``{"$enum": "Class.MEMBER"}``,
``{"$dtype": "float32"}``, ``{"$type": "Image"}`` (a datapoint class, ``Tensor`` or ``PIL.Image.Image``),
``{"$dict": [[key, value], ...]}`` (keys that are not strings), ``{"$tensor": [...], "dtype": ..., "shape":
[...]}``. Functions, generators and other objects cannot be stored: ``TypeError`` naming the argument.
The document is ``{"format": "visiontx.transforms", "version": 1, "transform": ...}``.
"""

from __future__ import annotations

import enum
import inspect
import json
import pathlib
from typing import Any

import numpy as np
import PIL.Image
import torch

from .. import _torchvision_interop as _interop
from .. import datapoints
from ..datapoints import BoundingBoxFormat
from ..functional import InterpolationMode
from ._arguments import call_arguments

__all__ = ["from_dict", "load", "save"]

FORMAT = "visiontx.transforms"
VERSION = 1

# public name -> transform class or enum, filled by visiontx.transforms (register_public)
_PUBLIC: dict[str, Any] = {"InterpolationMode": InterpolationMode, "BoundingBoxFormat": BoundingBoxFormat}
_ROOTS: list[type] = []
# argument name -> what to do instead of passing a function
_HINTS = {
    "labels_getter": 'pass "default", None, or a name registered with T.register_labels_getter(name, getter)',
    "lambd": "a Lambda holds code; write a Transform subclass instead (it is stored by its class name)",
}


def register_public(namespace: dict[str, Any], names: list[str], root: type) -> None:
    """Make the public transform classes (aliases included) and enums of ``namespace`` loadable by name."""
    _ROOTS[:] = [root]
    for name in names:
        value = namespace[name]
        if isinstance(value, type) and (issubclass(value, root) or issubclass(value, enum.Enum)):
            _PUBLIC[name] = value


def _class_name(cls: type) -> str:
    if _PUBLIC.get(cls.__name__) is cls:
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


def _all_subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_all_subclasses(sub)]
    return found


def _transform_class(name: str) -> type:
    if name in _PUBLIC and not issubclass(_PUBLIC[name], enum.Enum):
        return _PUBLIC[name]
    for cls in _all_subclasses(_ROOTS[0]) if _ROOTS else []:
        if f"{cls.__module__}.{cls.__qualname__}" == name:
            return cls
    raise ValueError(
        f"unknown transform {name!r}: not a public visiontx transform, nor a Transform subclass defined in this "
        "process (import the module defining it before loading)"
    )


# ----------------------------------------------------------------------------------------------- encoding
def _encode(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)) and not isinstance(value, enum.Enum):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, torch.nn.Module) and hasattr(value, "_arguments"):
        return _encode_transform(value, where)
    if isinstance(value, enum.Enum):
        return {"$enum": f"{type(value).__name__}.{value.name}"}
    if isinstance(value, torch.dtype):
        return {"$dtype": str(value).removeprefix("torch.")}
    if isinstance(value, type):
        return {"$type": _type_name(value, where)}
    if isinstance(value, (list, tuple)):
        items = [_encode(item, f"{where}[{i}]") for i, item in enumerate(value)]
        return items if isinstance(value, list) else {"$tuple": items}
    if isinstance(value, dict):
        if all(isinstance(key, str) and not key.startswith("$") for key in value):
            return {key: _encode(item, f"{where}[{key!r}]") for key, item in value.items()}
        return {"$dict": [[_encode(k, where), _encode(v, f"{where}[{k!r}]")] for k, v in value.items()]}
    if isinstance(value, torch.Tensor) and type(value) is torch.Tensor:
        return {"$tensor": value.detach().cpu().flatten().tolist(), "dtype": str(value.dtype).removeprefix("torch."),
                "shape": list(value.shape)}
    raise TypeError(_cannot_store(value, where))


def _cannot_store(value: Any, where: str) -> str:
    if isinstance(value, torch.Generator):
        return f"{where} is a torch.Generator, which cannot be saved: give the Compose a seed instead (seed=...)"
    kind = "a function" if inspect.isroutine(value) else f"a {type(value).__module__}.{type(value).__qualname__} object"
    hint = _HINTS.get(where.rsplit(".", 1)[-1].split("[")[0], "")
    return f"{where}={value!r} is {kind}, which cannot be saved" + (f": {hint}" if hint else "")


def _type_name(cls: type, where: str) -> str:
    native = _interop.native_type(cls) or cls
    if native is torch.Tensor:
        return "Tensor"
    if native is PIL.Image.Image:
        return "PIL.Image.Image"
    if getattr(datapoints, native.__name__, None) is native:
        return native.__name__
    raise TypeError(f"{where}: the class {cls.__qualname__} cannot be saved (datapoint classes, Tensor and PIL images can)")


def _encode_transform(transform: Any, where: str) -> dict[str, Any]:
    name = type(transform).__name__
    where = f"{where}({name})" if where else name
    if transform._given_generator is not None:
        raise TypeError(_cannot_store(transform._given_generator, f"{where}.generator"))
    arguments = transform._constructor_arguments()
    return {"$transform": _class_name(type(transform)),
            **{key: _encode(value, f"{where}.{key}") for key, value in arguments.items()}}


def to_dict(transform: Any) -> dict[str, Any]:
    """``transform`` as a JSON-serialisable dict (see the module's docstring for the layout)."""
    return {"format": FORMAT, "version": VERSION, "transform": _encode_transform(transform, "")}


# ----------------------------------------------------------------------------------------------- decoding
def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "$transform" in value:
        cls = _transform_class(value["$transform"])
        arguments = {key: _decode(item) for key, item in value.items() if key != "$transform"}
        positional, keywords = call_arguments(cls, arguments)
        return cls(*positional, **keywords)
    if "$tuple" in value:
        return tuple(_decode(item) for item in value["$tuple"])
    if "$enum" in value:
        cls_name, _, member = value["$enum"].partition(".")
        cls = _PUBLIC.get(cls_name)
        if cls is None or not issubclass(cls, enum.Enum):
            raise ValueError(f"unknown enum {value['$enum']!r}")
        return cls[member]
    if "$dtype" in value:
        dtype = getattr(torch, value["$dtype"], None)
        if not isinstance(dtype, torch.dtype):
            raise ValueError(f"unknown dtype {value['$dtype']!r}")
        return dtype
    if "$type" in value:
        return _decode_type(value["$type"])
    if "$dict" in value:
        return {_decode(key): _decode(item) for key, item in value["$dict"]}
    if "$tensor" in value:
        dtype = _decode({"$dtype": value["dtype"]})
        return torch.tensor(value["$tensor"], dtype=dtype).reshape(value["shape"])
    return {key: _decode(item) for key, item in value.items()}


def _decode_type(name: str) -> type:
    if name == "Tensor":
        return torch.Tensor
    if name == "PIL.Image.Image":
        return PIL.Image.Image
    cls = getattr(datapoints, name, None)
    if not (isinstance(cls, type) and issubclass(cls, datapoints.Datapoint)):
        raise ValueError(f"unknown type {name!r}")
    return cls


def from_dict(document: dict[str, Any]) -> Any:
    """The transform :meth:`Transform.to_dict` described (``ValueError`` on another format or a newer version).

    A bare transform entry (``{"$transform": "Resize", "size": 256}``, e.g. from a larger config file) is
    read with the current version's rules."""
    if isinstance(document, dict) and "$transform" in document:
        return _decode(document)
    if not isinstance(document, dict) or document.get("format") != FORMAT or "transform" not in document:
        raise ValueError(f"not a visiontx pipeline: expected a dict with format={FORMAT!r} and a 'transform'")
    if not isinstance(document.get("version"), int) or document["version"] > VERSION:
        raise ValueError(f"pipeline version {document.get('version')!r} is not supported (this visiontx reads <= {VERSION})")
    return _decode(document["transform"])


# ----------------------------------------------------------------------------------------------- files
def _is_yaml(path: pathlib.Path) -> bool:
    return path.suffix.lower() in (".yaml", ".yml")


def _yaml() -> Any:
    try:
        import yaml
    except ImportError:
        raise ImportError("saving or loading a .yaml / .yml pipeline needs PyYAML: pip install pyyaml") from None
    return yaml


def save(transform: Any, path: str | pathlib.Path) -> None:
    """Write ``transform.to_dict()`` to ``path``: YAML for ``.yaml`` / ``.yml`` (needs PyYAML), else JSON."""
    path = pathlib.Path(path)
    document = to_dict(transform)
    if _is_yaml(path):
        text = _yaml().safe_dump(document, sort_keys=False)
    else:
        text = json.dumps(document, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")


def load(path: str | pathlib.Path) -> Any:
    """The transform :func:`save` wrote to ``path``."""
    path = pathlib.Path(path)
    text = path.read_text(encoding="utf-8")
    return from_dict(_yaml().safe_load(text) if _is_yaml(path) else json.loads(text))

