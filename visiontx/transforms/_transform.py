"""The ``Transform`` base class: flatten a sample, draw parameters once, transform each leaf."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import PIL.Image
import torch
from torch import nn
from torch._C import _get_tracing_state as _tracing_state
from torch.nn.modules import module as _hooks
from torch.utils._pytree import tree_flatten, tree_unflatten

from .. import _torchvision_interop as _interop
from .._args import check_probability
from ..datapoints import Datapoint, Image, Video
from ..functional._registry import _find_kernel, get_kernel
from . import _random, _serialize, _tape
from ._arguments import format_call, recording_init
from ._tape import spatial_size_of
from ._tape import state as _TAPE


# (public hook, torchvision's private name of it)
HOOK_NAMES = (
    ("check_inputs", "_check_inputs"),
    ("make_params", "_get_params"),
    ("transform", "_transform"),
    ("call_kernel", "_call_kernel"),
)


# sample class -> whether a call takes the lone-leaf path (visiontx's and plain tensors, PIL images)
_LEAF_PATH: dict[type, bool] = {}


def _takes_leaf_path(cls: type) -> bool:
    leaf = _LEAF_PATH[cls] = issubclass(cls, (torch.Tensor, PIL.Image.Image)) and _interop.is_native_type(cls)
    return leaf


def _is_pure_tensor(obj: Any) -> bool:
    return isinstance(obj, torch.Tensor) and not isinstance(obj, Datapoint)


def flatten_sample(sample: Any, convert: bool = True) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """The leaves of ``sample`` (torchvision's tensors as visiontx datapoints, unless ``convert`` is False)
    and the function rebuilding the caller's structure, with torchvision's classes, from output leaves."""
    originals, spec = tree_flatten(sample)
    flat = _interop.native_leaves(originals) if convert else originals

    def rebuild(outputs: list[Any]) -> Any:
        if flat is not originals:
            outputs = _interop.restore_leaves(outputs, originals, flat)
        return tree_unflatten(outputs, spec)

    return flat, rebuild


class Transform(nn.Module):
    """Base class of every transform.

    A call flattens the sample (any nesting of tuples, lists and dicts), picks the leaves to
    transform, calls :meth:`make_params` once and :meth:`transform` on each picked leaf, and
    rebuilds the caller's structure. Leaves that are not tensors or PIL images come back as the same
    objects. A plain tensor is the image only when the sample holds no ``Image``, ``Video`` or PIL
    image, and then only the first one. torchvision's ``Image``, ``Video``, ``Mask``,
    ``BoundingBoxes`` and ``KeyPoints`` are transformed as visiontx's and come back as torchvision's; any other tensor
    subclass (but torch's own, such as ``nn.Parameter``) is a ``TypeError``.

    Every transform takes a keyword-only ``generator=`` (a CPU ``torch.Generator``, default None): with one,
    the transform draws only from it and never from torch's global RNG; without, it draws from the
    current generator (a seeded ``Compose``'s, ``datasets.Augmented``'s) or else the global RNG, as
    torchvision. The base class adds it to every constructor (``__init_subclass__``), and records the
    constructor's arguments (defaults applied) once: ``repr`` shows them and :meth:`to_dict` stores them.

    Subclasses override:
        check_inputs(flat_inputs): validate the whole flattened sample (optional).
        make_params(flat_inputs) -> dict: draw random parameters, from torch's RNG (optional).
        transform(inpt, params): transform one leaf, usually one call of ``self.call_kernel``.

    torchvision's names of these hooks work too, as overrides and calls: ``_check_inputs``,
    ``_get_params`` and ``_transform`` (0.15), ``_call_kernel`` (0.16+).
    """

    # Types of leaves this transform looks at; plain tensors also follow the plain-tensor rule.
    _transformed_types: tuple[type, ...] = (torch.Tensor, PIL.Image.Image)
    # Whether torchvision's tensors become visiontx datapoints around the call (Lambda keeps them).
    _converts_torchvision: bool = True

    generator: torch.Generator | None = None
    _given_generator: torch.Generator | None = None  # the generator= argument

    def __init__(self) -> None:
        super().__init__()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "_records_arguments", False):
            cls.__init__ = recording_init(init)  # type: ignore[method-assign]
        forward = cls.__dict__.get("forward")
        if forward is not None and not getattr(forward, "_draws_nothing", False):
            cls.forward = _drawing_from_own_generator(forward)  # type: ignore[method-assign]
        for public, private in HOOK_NAMES:  # a hook overridden under one name answers to both
            if private in cls.__dict__ and public not in cls.__dict__:
                setattr(cls, public, cls.__dict__[private])
            elif public in cls.__dict__ and private not in cls.__dict__:
                setattr(cls, private, cls.__dict__[public])

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        # nn.Module's call (hooks, tracing, compiled modules) cost more than a whole no-op call: it is
        # taken only when one of those is in use.
        if kwargs or needs_module_call(self):
            return super().__call__(*inputs, **kwargs)
        if (
            type(self).forward is _BASE_FORWARD and len(inputs) == 1 and _LEAF_PATH.get(type(inputs[0]))
            and self.generator is None and "forward" not in self.__dict__
        ):
            return self._forward_leaf(inputs[0])  # what the base class's forward would do, one frame less
        return self.forward(*inputs)

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        """Validate the flattened sample; raise ``TypeError`` / ``ValueError`` on bad input."""

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        """Draw the random parameters for one call; ``flat_inputs`` are the leaves to transform."""
        return {}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        """Transform one leaf with the parameters of this call."""
        raise TypeError(f"{type(self).__name__} must override transform(inpt, params)")

    def call_kernel(self, functional: Callable, inpt: Any, *args: Any, **kwargs: Any) -> Any:
        """Call ``functional``'s kernel for ``inpt``; datapoints it has no kernel for pass through."""
        kernel = _find_kernel(functional, type(inpt))
        if kernel is None:
            if isinstance(inpt, Datapoint) or _interop.native_type(type(inpt)) is not None:
                return inpt
            kernel = get_kernel(functional, type(inpt))  # raises a TypeError naming what is supported
        return kernel(inpt, *args, **kwargs)

    _check_inputs, _get_params, _transform, _call_kernel = check_inputs, make_params, transform, call_kernel

    def _skip(self) -> bool:
        """Whether this call leaves the sample untouched (the coin flip of ``p``-transforms)."""
        return False

    def record(self, *inputs: Any) -> tuple[Any, dict[str, Any]]:
        """``self(*inputs)`` and a JSON-serialisable record of every parameter it drew (see the README's
        "Record, replay and inverse"), for :meth:`replay` and :meth:`inverse`.

        Example:
            >>> out, record = pipeline.record(image, boxes)
        """
        return _tape.entry_points["record"](self, inputs)

    def replay(self, *inputs: Any, record: dict[str, Any]) -> Any:
        """``inputs`` through this transform with the parameters of ``record`` (from :meth:`record`), drawing
        nothing; ``ValueError`` when the record is not one of this pipeline.

        Example:
            >>> pipeline.replay(other_image, other_boxes, record=record)
        """
        return _tape.entry_points["replay"](self, inputs, record)

    def inverse(self, outputs: Any, record: dict[str, Any], *, interpolation: Any = "bilinear", fill: Any = None) -> Any:
        """``outputs`` of the call that gave ``record`` mapped back to the input's frame: boxes, key points,
        masks and images (the geometry only; what left the canvas comes back as ``fill``). ``ValueError``
        names a step with no inverse.

        Example:
            >>> boxes_on_input = pipeline.inverse(predicted_boxes, record)
        """
        return _tape.entry_points["inverse"](self, outputs, record, interpolation=interpolation, fill=fill)

    def forward(self, *inputs: Any) -> Any:
        generator = self.generator
        if generator is not None and generator is not _random.current_generator():
            return _random.call_with(generator, self.forward, *inputs)
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaf = _LEAF_PATH.get(type(sample))
        if leaf or (leaf is None and _takes_leaf_path(type(sample))):
            return self._forward_leaf(sample)
        flat_inputs, rebuild = flatten_sample(sample, convert=self._converts_torchvision)
        self.check_inputs(flat_inputs)
        tape = _TAPE.tape  # None unless recording or replaying (transforms/_tape.py)
        if self._skip() if tape is None else tape.skip(self):
            return sample
        needs = self._needs_transform_list(flat_inputs)
        selected = [inpt for inpt, need in zip(flat_inputs, needs) if need]
        if len(selected) > 1:
            check_spatial_sizes_agree(selected)
        params = self.make_params(selected) if tape is None else tape.params(self, selected)
        return rebuild([self.transform(inpt, params) if need else inpt for inpt, need in zip(flat_inputs, needs)])

    def _forward_leaf(self, inpt: Any) -> Any:
        """:meth:`forward` for a lone image (its own flat sample): no pytree round trip, no size check;
        the base class's no-op hooks are not called (hooks set on the instance are)."""
        cls, own = type(self), self.__dict__
        if cls.check_inputs is not _NO_CHECK or "check_inputs" in own:
            self.check_inputs([inpt])
        tape = _TAPE.tape
        if tape is not None:
            if tape.skip(self):
                return inpt
        elif (cls._skip is not _NO_SKIP or "_skip" in own) and self._skip():
            return inpt
        if cls._needs_transform_list is _NEEDS_BY_TYPE and "_needs_transform_list" not in own:
            selected = [inpt] if isinstance(inpt, self._transformed_types) else []
        else:
            selected = [inpt] if self._needs_transform_list([inpt])[0] else []
        if tape is not None:
            params = tape.params(self, selected)
        else:
            params = {} if cls.make_params is _NO_PARAMS and "make_params" not in own else self.make_params(selected)
        return self.transform(inpt, params) if selected else inpt

    def _needs_transform_list(self, flat_inputs: list[Any]) -> list[bool]:
        if len(flat_inputs) == 1:  # a lone plain tensor is the image
            return [isinstance(flat_inputs[0], self._transformed_types)]
        has_image = any(isinstance(inpt, (Image, Video, PIL.Image.Image)) for inpt in flat_inputs)
        needs, take_pure_tensor = [], not has_image
        for inpt in flat_inputs:
            need = isinstance(inpt, self._transformed_types)
            if need and _is_pure_tensor(inpt):
                need, take_pure_tensor = take_pure_tensor, False
            needs.append(need)
        return needs

    def _constructor_arguments(self) -> dict[str, Any]:
        """The arguments that rebuild this transform (what ``repr`` shows and :meth:`to_dict` stores)."""
        return dict(self.__dict__.get("_arguments", {}))

    def __repr__(self) -> str:
        return format_call(type(self).__name__, self._constructor_arguments(), self._given_generator)

    def to_dict(self) -> dict[str, Any]:
        """This transform (and those it holds) as a JSON-serialisable dict; ``T.from_dict`` rebuilds it.

        Raises ``TypeError`` naming the first argument that cannot be stored (a function, a generator).
        """
        return _serialize.to_dict(self)


Transform.__init__ = recording_init(Transform.__init__)  # type: ignore[method-assign]
# The base class's hooks, which _forward_leaf skips calling when a subclass keeps them
_NO_CHECK, _NO_PARAMS, _NO_SKIP = Transform.check_inputs, Transform.make_params, Transform._skip
_NEEDS_BY_TYPE, _BASE_FORWARD = Transform._needs_transform_list, Transform.forward


def needs_module_call(module: nn.Module) -> bool:
    """Whether a call of ``module`` needs ``nn.Module.__call__``'s machinery: hooks (its own or global), a
    compiled module or TorchScript tracing."""
    return bool(
        module._forward_hooks or module._forward_pre_hooks or module._backward_hooks
        or module._backward_pre_hooks or _hooks._global_forward_hooks or _hooks._global_forward_pre_hooks
        or _hooks._global_backward_hooks or _hooks._global_backward_pre_hooks
        or module._compiled_call_impl is not None or _tracing_state()
    )


def draws_nothing(forward: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a subclass's ``forward`` that makes no random draw: it is not wrapped to switch generators
    (a wrapper would cost a call frame on every call)."""
    forward._draws_nothing = True  # type: ignore[attr-defined]
    return forward


def _drawing_from_own_generator(forward: Callable[..., Any]) -> Callable[..., Any]:
    """A subclass's own ``forward``, run with the transform's generator (if any) as the current one."""

    @functools.wraps(forward)
    def wrapper(self: Transform, *inputs: Any) -> Any:
        generator = self.generator
        if generator is None or generator is _random.current_generator():
            return forward(self, *inputs)
        return _random.call_with(generator, forward, self, *inputs)

    return wrapper


class RandomApplyTransform(Transform):
    """Base of transforms applied with probability ``p`` (one coin flip per call, for the whole sample).

    Args:
        p: probability of applying the transform, in ``[0, 1]`` (default 0.5).
    """

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = check_probability(p)

    def _skip(self) -> bool:
        return _random.rand() >= self.p


def check_spatial_sizes_agree(flat_inputs: list[Any]) -> tuple[int, int] | None:
    """The common ``(H, W)`` of the images, videos, masks, boxes and key points in a sample (None if none).

    Raises ``ValueError`` when they disagree.
    """
    if len(flat_inputs) == 1:  # nothing to agree with
        return spatial_size_of(flat_inputs[0])
    sizes = {size for size in map(spatial_size_of, flat_inputs) if size is not None}
    if len(sizes) > 1:
        raise ValueError(
            f"all images, videos, masks, boxes and key points of a sample must have the same H x W, got {sorted(sizes)}"
        )
    return next(iter(sizes), None)
