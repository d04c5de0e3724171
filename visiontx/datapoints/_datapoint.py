"""The ``Datapoint`` base class and the rules for what torch ops return."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Callable, TypeVar

import torch
from torch._C import DisableTorchFunctionSubclass
from torch.autograd import forward_ad as _forward_ad

D = TypeVar("D", bound="Datapoint")

_RETURN_TYPES = ("tensor", "datapoint")
_RETURN_TYPE_ALIASES = {"tvtensor": "datapoint"}  # torchvision 0.16-0.29's name
_return_type = "tensor"

# Ops whose result keeps the datapoint type and metadata whatever the return type is.
_KEEP_TYPE = {
    torch.Tensor.clone,
    torch.Tensor.to,
    torch.Tensor.detach,
    torch.Tensor.requires_grad_,
}


class _ReturnTypeSwitch(contextlib.AbstractContextManager):
    """Returned by :func:`set_return_type`; restores the previous type when used with ``with``."""

    def __init__(self, previous: str) -> None:
        self._previous = previous

    def __exit__(self, *exc_info: Any) -> None:
        set_return_type(self._previous)


def set_return_type(return_type: str) -> _ReturnTypeSwitch:
    """Choose what torch ops on datapoints return: ``"tensor"`` (default) or ``"datapoint"`` (also
    ``"TVTensor"``, torchvision's name; case-insensitive).

    Works as a global switch, ``set_return_type("datapoint")``, and as a context manager,
    ``with set_return_type("datapoint"): ...``, which restores the previous setting on exit.
    """
    global _return_type
    name = return_type.lower() if isinstance(return_type, str) else None
    name = _RETURN_TYPE_ALIASES.get(name, name)
    if name not in _RETURN_TYPES:
        raise ValueError(f"return_type must be one of {_RETURN_TYPES} or 'TVTensor', got {return_type!r}")
    previous, _return_type = _return_type, name
    return _ReturnTypeSwitch(previous)


def _first_datapoint(args: Sequence[Any], kwargs: Mapping[str, Any] | None) -> Datapoint | None:
    """The first datapoint among an op's arguments, also inside lists and tuples (``torch.cat``) and
    keyword arguments."""
    for value in (*args, *(kwargs or {}).values()):
        if isinstance(value, Datapoint):
            return value
        if isinstance(value, (list, tuple)):
            found = _first_datapoint(value, None)
            if found is not None:
                return found
    return None


def _tree_map_tensors(fn: Callable[[torch.Tensor], Any], output: Any) -> Any:
    if isinstance(output, torch.Tensor):
        return fn(output)
    if isinstance(output, (tuple, list)):
        return type(output)(_tree_map_tensors(fn, o) for o in output)
    return output


def unwrap(datapoint: torch.Tensor) -> torch.Tensor:
    """A plain tensor sharing ``datapoint``'s data and autograd history, as ``as_subclass(torch.Tensor)``.

    When nothing tracks its gradients (no ``requires_grad``, no forward-mode AD level open), the
    cheaper ``detach()`` alias is enough (the registry's adapters unwrap every datapoint they pass on).
    """
    with DisableTorchFunctionSubclass():
        if datapoint.requires_grad or _forward_ad._current_level >= 0:
            return datapoint.as_subclass(torch.Tensor)
        return datapoint.detach()


def _references_seen_in_callee(tensor: torch.Tensor) -> int:
    return sys.getrefcount(tensor)


def _references_of_unshared() -> int:
    """What :func:`adopt` sees for a tensor held by nothing but its caller's local variable."""
    tensor = torch.empty(0)
    return _references_seen_in_callee(tensor)


_UNSHARED = _references_of_unshared()


def adopt(tensor: torch.Tensor, cls: type[D]) -> D:
    """``tensor.as_subclass(cls)`` (``cls`` without metadata) for a kernel's output.

    A plain tensor that nothing but the caller's one local variable refers to (a kernel's fresh
    output) becomes ``cls`` in place, ``tensor.__class__ = cls`` (as torch's ``UninitializedParameter``
    does), which saves creating a second tensor object; any other tensor is wrapped by ``as_subclass``.
    The caller must pass a local variable it does not use afterwards.
    """
    if type(tensor) is torch.Tensor and sys.getrefcount(tensor) == _UNSHARED:
        tensor.__class__ = cls
        return tensor  # type: ignore[return-value]
    with DisableTorchFunctionSubclass():
        return tensor.as_subclass(cls)


class Datapoint(torch.Tensor):
    """Base class of visiontx's tensor subclasses (``Image``, ``Video``, ``Mask``, ``BoundingBox``).

    A datapoint is a ``torch.Tensor`` that carries the metadata a transform needs. Torch ops on it
    return plain tensors (see :func:`set_return_type`), except ``clone``, ``to``, ``detach`` and
    ``requires_grad_`` of a datapoint, which keep its type and metadata (``tensor.to(image)`` is plain).
    """

    @staticmethod
    def _to_tensor(
        data: Any,
        dtype: torch.dtype | None = None,
        device: torch.device | str | int | None = None,
        requires_grad: bool | None = None,
    ) -> torch.Tensor:
        if requires_grad is None:
            requires_grad = data.requires_grad if isinstance(data, torch.Tensor) else False
        tensor = torch.as_tensor(data, dtype=dtype, device=device)
        if isinstance(tensor, Datapoint):
            tensor = tensor.as_subclass(torch.Tensor)
        return tensor.requires_grad_(requires_grad)

    @classmethod
    def _wrap(cls: type[D], tensor: torch.Tensor, **metadata: Any) -> D:
        datapoint = tensor.as_subclass(cls)
        for name, value in metadata.items():
            setattr(datapoint, name, value)
        return datapoint

    @classmethod
    def wrap_like(cls: type[D], other: D, tensor: torch.Tensor, **metadata: Any) -> D:
        """Wrap ``tensor`` as ``cls`` with the metadata of ``other``, overridden by ``metadata``."""
        return cls._wrap(tensor, **{**other._metadata(), **metadata})

    @classmethod
    def wrap(cls: type[D], tensor: torch.Tensor, like: D, **metadata: Any) -> D:
        """:meth:`wrap_like` with torchvision 0.16-0.29's name and argument order."""
        return cls.wrap_like(like, tensor, **metadata)

    def _metadata(self) -> dict[str, Any]:
        return {}

    @classmethod
    def __torch_function__(
        cls,
        func: Callable,
        types: tuple[type, ...],
        args: Sequence[Any] = (),
        kwargs: Mapping[str, Any] | None = None,
    ) -> Any:
        with DisableTorchFunctionSubclass():
            output = func(*args, **kwargs) if kwargs else func(*args)
            # ``clone``, ``to``, ... keep the type of the tensor they convert (``self``), not of an argument:
            # ``tensor.to(image)`` is a plain tensor
            if _return_type == "tensor" and not (func in _KEEP_TYPE and args and isinstance(args[0], Datapoint)):
                # in-place ops and no-op methods (``.float()`` of a float image) return the datapoint itself
                return output.as_subclass(torch.Tensor) if isinstance(output, Datapoint) else output
        like = _first_datapoint(args, kwargs)
        if like is None:
            return output
        wrapper = type(like)
        # In-place ops return the datapoint itself; everything else is wrapped with `like`'s metadata.
        return _tree_map_tensors(
            lambda t: t if isinstance(t, Datapoint) else wrapper.wrap_like(like, t), output
        )

    def contiguous(self, *, memory_format: torch.memory_format = torch.contiguous_format) -> torch.Tensor:
        """``torch.Tensor.contiguous``, without the cost of ``__torch_function__`` in the common case: the
        "tensor" return type, no torch function mode, a class that keeps :class:`Datapoint`'s
        ``__torch_function__``. The result is the same: a plain tensor (an alias when already contiguous)."""
        if (
            _return_type == "tensor"
            and getattr(type(self).__torch_function__, "__func__", None) is _DATAPOINT_TORCH_FUNCTION
            and not _torch_function_mode_enabled()
        ):
            with DisableTorchFunctionSubclass():
                output = _TENSOR_CONTIGUOUS(self, memory_format=memory_format)
                # as_subclass, not detach: in-place ops on the alias must reach this tensor's autograd
                return output.as_subclass(torch.Tensor) if output is self else output
        return super().contiguous(memory_format=memory_format)

    # Cheap attribute access: bypass __torch_function__ for the attributes transforms read most.
    @property
    def shape(self) -> torch.Size:  # type: ignore[override]
        with DisableTorchFunctionSubclass():
            return super().shape

    @property
    def ndim(self) -> int:  # type: ignore[override]
        with DisableTorchFunctionSubclass():
            return super().ndim

    @property
    def dtype(self) -> torch.dtype:  # type: ignore[override]
        with DisableTorchFunctionSubclass():
            return super().dtype

    @property
    def device(self) -> torch.device:  # type: ignore[override]
        with DisableTorchFunctionSubclass():
            return super().device

    def __deepcopy__(self: D, memo: dict[int, Any]) -> D:
        # torch's generic deepcopy goes through __torch_function__ and would drop the type.
        tensor = self.as_subclass(torch.Tensor).clone().detach()
        copy = type(self)._wrap(tensor.requires_grad_(self.requires_grad), **self._metadata())
        memo[id(self)] = copy
        return copy

    def __reduce_ex__(self, protocol: int) -> tuple:
        tensor = self.as_subclass(torch.Tensor)
        return (_rebuild_datapoint, (type(self), tensor, self._metadata()))

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        with DisableTorchFunctionSubclass():
            body = torch.Tensor.__repr__(self.as_subclass(torch.Tensor))
        extra = "".join(f", {k}={v!r}" for k, v in self._metadata().items())
        name = type(self).__name__
        body = body[len("tensor(") : -1].replace("\n" + " " * len("tensor("), "\n" + " " * len(f"{name}("))
        return f"{name}({body}{extra})"


_DATAPOINT_TORCH_FUNCTION = Datapoint.__torch_function__.__func__
_TENSOR_CONTIGUOUS = torch.Tensor.contiguous
_torch_function_mode_enabled = torch._C._is_torch_function_mode_enabled


def _rebuild_datapoint(cls: type[D], tensor: torch.Tensor, metadata: dict[str, Any]) -> D:
    return cls._wrap(tensor, **metadata)


def wrap(tensor: torch.Tensor, *, like: D, **metadata: Any) -> D:
    """Wrap ``tensor`` into the type of ``like`` with its metadata (overridable by keyword)."""
    if not isinstance(like, Datapoint):
        raise TypeError(f"like must be a Datapoint, got {type(like).__name__}")
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"tensor must be a torch.Tensor, got {type(tensor).__name__}")
    return type(like).wrap_like(like, tensor, **metadata)

