"""Normalize and LinearTransformation of image values."""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import PIL.Image
import torch
from torch._C import DisableTorchFunctionSubclass

from ... import functional as F
from ...datapoints import Image, Video
from ...functional._misc._normalize import (
    ScaledNormalize,
    can_scaled_normalize,
    mode_active,
    scaled_normalize,
    scaled_normalize_tables,
)
from .._dtype import ToDtype, stage_state
from .._tape import state as _TAPE
from .._transform import HOOK_NAMES, Transform, flatten_sample, needs_module_call
from .._utils import has_any, is_pure_tensor

__all__ = ["LinearTransformation", "Normalize"]


class Normalize(Transform):
    """Normalize float images and videos per channel: ``(x - mean) / std``.

    uint8 tensors and PIL images are refused; masks and boxes pass through.

    Args:
        mean: per-channel means (one value per channel, or one for all).
        std: per-channel standard deviations, non-zero (one value per channel, or one for all).
        inplace: normalize tensors in place instead of a copy (default False).

    Example:
        >>> T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])(image)
    """

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        super().__init__()
        self.mean, self.std = list(mean), list(std)
        if any(s == 0 for s in self.std):
            raise ValueError(f"std must not contain zeros, got {self.std}")
        self.inplace = inplace

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        if has_any(flat_inputs, PIL.Image.Image):
            raise TypeError(f"{type(self).__name__}() does not support PIL images")

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        inplace = self.inplace
        if stage_state.normalize is self:  # run by a ToDtype + Normalize stage (see NormalizeOwnImages)
            if id(inpt) in stage_state.made:
                return inpt
            inplace = inplace or id(inpt) in stage_state.owned
        return self.call_kernel(F.normalize, inpt, mean=self.mean, std=self.std, inplace=inplace)


class NormalizeOwnImages:
    """A ``Compose`` stage: ``ToDtype`` then ``Normalize``, with the same values and less work.

    - uint8 images that ``ToDtype(float32, scale=True)`` converts and ``Normalize`` then takes are converted
      and normalised in one pass: each channel through a float32 table of its 256 values, made by the two
      kernels themselves (bit for bit their result; the stage takes 125 instead of 149 µs at 224 x 224).
    - ``Normalize`` writes in place into the other images ``ToDtype`` has just made whose memory nothing
      else can see. From 512 x 512 up, two live float images per call made the allocator
      give its memory back to the system and fault it in again on every call (a 512 x 512 classification
      pipeline: 5.6 against 4.0 ms).

    The two transforms learn this through ``stage_state`` (per thread, naming them, so a transform a user
    kernel runs meanwhile sees none of it), saved and restored around the call (stages may nest).
    """

    def __init__(self, to_dtype: ToDtype, normalize: Normalize) -> None:
        self.to_dtype, self.normalize = to_dtype, normalize

    def __call__(self, *inputs: Any) -> Any:
        hooked = self._hooked()
        given = [] if hooked else _leaves(inputs)
        needs = [] if hooked else self.normalize._needs_transform_list(given)
        tables = {} if hooked else self._tables(given, needs)
        if len(given) == 1 and given[0] is inputs[0] and id(given[0]) in tables and _TAPE.tape is None:
            # a lone image the tables take: their result without calling the two transforms, for per-call
            # costs that decide small images (32 x 32: 12 against 18 µs); record / replay keep the calls
            return scaled_normalize(given[0], tables[id(given[0])])
        taken = sum(need and type(leaf) in _BUILT_IN for leaf, need in zip(given, needs))
        saved = stage_state.saved()
        try:
            stage_state.restore((self.to_dtype, None, tables, set(), frozenset()))
            outputs = self.to_dtype(*inputs)
            made = stage_state.made
            following = outputs if len(inputs) > 1 else (outputs,)
            left = len(made) < taken  # images and videos the tables did not normalise
            owned = self._owned_images(given, following) - made if left else frozenset()
            stage_state.restore((None, self.normalize, {}, made, owned))
            return self.normalize(*following)
        finally:
            stage_state.restore(saved)

    def _hooked(self) -> bool:
        """Whether a hook, an instance override, a method patched onto either class or a global hook could
        see (and keep) what either step makes or is given, or a torch function or dispatch mode would see
        different ops: then the two run as they are."""
        return mode_active() or _patched() or any(
            needs_module_call(step) or any(map(step.__dict__.__contains__, _HOOKS))
            for step in (self.to_dtype, self.normalize)
        )

    def _tables(self, given: list[Any], needs: list[bool]) -> dict[int, ScaledNormalize]:
        """The leaves of the input (by id) that ``ToDtype`` may convert and normalise in one pass, with their
        tables: the uint8 images and videos (plain tensors, ``Image``, ``Video``) that ``Normalize`` will
        take and ``ToDtype`` converts to float32 with scaling, for a mean and std of Python numbers."""
        tables = {}
        for leaf, need in zip(given, needs):
            if need and self.to_dtype.scale and self.to_dtype._dtype_for(leaf) is torch.float32:
                if can_scaled_normalize(leaf):
                    table = scaled_normalize_tables(self.normalize.mean, self.normalize.std, leaf.shape[-3])
                    if table is not None:
                        tables[id(leaf)] = table
        return tables

    def _owned_images(self, given: list[Any], following: tuple[Any, ...]) -> frozenset[int]:
        """The ids of the leaves of ``following`` that ``Normalize`` may write into: plain tensors, ``Image``s
        and ``Video``s (exactly: the built-in kernels, which always return new memory) whose storage none of
        the ``given`` leaves and no other leaf shares."""
        leaves = _leaves(following)
        needs = self.normalize._needs_transform_list(leaves)
        chosen = [leaf for leaf, need in zip(leaves, needs) if need and type(leaf) in _BUILT_IN]
        if not chosen:
            return frozenset()
        try:
            with DisableTorchFunctionSubclass():
                inputs = {leaf.untyped_storage().data_ptr() for leaf in given if isinstance(leaf, torch.Tensor)}
                made = [leaf.untyped_storage().data_ptr() for leaf in chosen]
        except (NotImplementedError, RuntimeError):  # functorch's wrappers, sparse tensors: no storage to read
            return frozenset()
        counts = collections.Counter(made)
        return frozenset(id(leaf) for leaf, ptr in zip(chosen, made) if ptr and counts[ptr] == 1 and ptr not in inputs)


def _leaves(inputs: tuple[Any, ...]) -> list[Any]:
    """The leaves of a call's inputs as the transforms flatten them (a lone tensor without flattening)."""
    sample = inputs if len(inputs) > 1 else inputs[0]
    return [sample] if isinstance(sample, torch.Tensor) else flatten_sample(sample, convert=False)[0]


# the types whose to_dtype and normalize kernels are visiontx's own (users may not register kernels for them)
_BUILT_IN = (torch.Tensor, Image, Video)
# the methods the transforms' calls go through (a private alias of a hook is never called), which an
# instance override or a patch onto the class could replace to keep what they see or to do the work the
# stage changes (ToDtype's output already normalised or written into later, Normalize leaving it alone)
_HOOKS = ("forward", "_forward_leaf", "_needs_transform_list", "_skip", "_dtype_for", *(name for name, _ in HOOK_NAMES))
# each class's own methods, as the classes define them
_STAGE_METHODS = [
    (cls, name, getattr(cls, name)) for cls in (ToDtype, Normalize) for name in _HOOKS if hasattr(cls, name)
]


def _patched() -> bool:
    return any(getattr(cls, name) is not method for cls, name, method in _STAGE_METHODS)


def own_image_stages(stages: list[Callable]) -> list[Callable]:
    """``stages`` with each ``ToDtype`` directly followed by a ``Normalize`` (exact classes, no hooks on the
    ``ToDtype``, a ``Normalize`` not already in place) joined into one :class:`NormalizeOwnImages` stage."""
    joined: list[Callable] = []
    for stage in stages:
        previous = joined[-1] if joined else None
        if (
            type(stage) is Normalize and not stage.inplace and type(previous) is ToDtype
            and not needs_module_call(previous)
        ):
            joined[-1] = NormalizeOwnImages(previous, stage)
        else:
            joined.append(stage)
    return joined


class LinearTransformation(Transform):
    """Apply a linear map to whole images, e.g. ZCA whitening: ``(x.flatten() - mean_vector) @ matrix``.

    Each image ``C x H x W`` (each frame of a video) is flattened to ``D = C * H * W`` values. Image
    tensors and videos; PIL images are refused, masks and boxes pass through.

    Args:
        transformation_matrix: tensor ``[D, D]``.
        mean_vector: tensor ``[D]`` subtracted first, on the matrix's device and of its dtype.
    """

    def __init__(self, transformation_matrix: torch.Tensor, mean_vector: torch.Tensor) -> None:
        super().__init__()
        if not isinstance(transformation_matrix, torch.Tensor) or not isinstance(mean_vector, torch.Tensor):
            raise TypeError("transformation_matrix and mean_vector must be tensors")
        if transformation_matrix.ndim != 2 or transformation_matrix.shape[0] != transformation_matrix.shape[1]:
            raise ValueError(f"transformation_matrix must be square, got shape {tuple(transformation_matrix.shape)}")
        if mean_vector.shape != transformation_matrix.shape[:1]:
            raise ValueError(
                f"mean_vector must have shape [{transformation_matrix.shape[0]}], got {tuple(mean_vector.shape)}"
            )
        if transformation_matrix.device != mean_vector.device or transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError("transformation_matrix and mean_vector must share device and dtype")
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        if has_any(flat_inputs, PIL.Image.Image):
            raise TypeError(f"{type(self).__name__}() does not support PIL images")

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if not (isinstance(inpt, (Image, Video)) or is_pure_tensor(inpt)):
            return inpt
        shape = inpt.shape
        size = shape[-3] * shape[-2] * shape[-1]
        if size != self.transformation_matrix.shape[0]:
            dims = self.transformation_matrix.shape[0]
            raise ValueError(f"inputs of C x H x W = {size} values do not fit a {dims} x {dims} matrix")
        flat = inpt.as_subclass(torch.Tensor).reshape(-1, size) - self.mean_vector
        output = (flat @ self.transformation_matrix.to(flat.dtype)).reshape(shape)
        return type(inpt).wrap_like(inpt, output) if isinstance(inpt, (Image, Video)) else output
