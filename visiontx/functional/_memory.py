"""Fresh outputs of the CPU kernels, large ones in numpy's memory.

A fresh buffer gets its memory from the kernel page by page, on first write. Where transparent huge pages
are in ``madvise`` mode (the default of most Linux distributions) numpy asks for huge pages for every array
of 4 MB or more, and torch's CPU allocator does not (unless the process sets ``THP_MEM_ALLOC_ENABLE=1``):
a large output in torch's memory then costs a page fault every 4 KB, several times the work of filling it.
Converting a 3 x 1536 x 2048 uint8 image to float32 (38 MB) takes ~14 ms into torch's memory, ~3 ms into
numpy's (benchmarks/NOTES.md, round 12). Kernels that make large outputs with torch ops take them from here.
"""

from __future__ import annotations

import math

import numpy as np
import torch

__all__ = ["LARGE_BYTES", "contiguous", "converted", "copy_of", "empty", "fresh_like", "is_large"]

LARGE_BYTES = 4 << 20  # numpy's own threshold for huge pages

_NUMPY_DTYPES = {
    torch.bool: np.bool_,
    torch.uint8: np.uint8,
    torch.int8: np.int8,
    torch.int16: np.int16,
    torch.uint16: np.uint16,
    torch.int32: np.int32,
    torch.int64: np.int64,
    torch.float16: np.float16,
    torch.float32: np.float32,
    torch.float64: np.float64,
}
_is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor


def is_large(tensor: torch.Tensor, dtype: torch.dtype | None = None) -> bool:
    """Whether a fresh copy of ``tensor`` (as ``dtype``) should live in numpy's memory: a plain CPU tensor
    without autograd, of a dtype numpy has, whose copy takes :data:`LARGE_BYTES` or more."""
    return _numpy_can_hold(tensor.numel(), dtype or tensor.dtype, tensor)


def _numpy_can_hold(count: int, dtype: torch.dtype, like: torch.Tensor) -> bool:
    """Whether ``count`` values of ``dtype``, made from ``like``, go to numpy's memory (see :func:`is_large`)."""
    return (
        dtype in _NUMPY_DTYPES
        and count * dtype.itemsize >= LARGE_BYTES
        and type(like) is torch.Tensor
        and like.is_cpu
        and not like.requires_grad
        and not _is_wrapped(like)
    )


def empty(shape: tuple[int, ...], dtype: torch.dtype, like: torch.Tensor) -> torch.Tensor:
    """``like.new_empty(shape, dtype=dtype)``, in numpy's memory where it is large (see :func:`is_large`)."""
    if not _numpy_can_hold(math.prod(shape), dtype, like):
        return like.new_empty(shape, dtype=dtype)
    return torch.from_numpy(np.empty(shape, dtype=_NUMPY_DTYPES[dtype]))


def fresh_like(tensor: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
    """``torch.empty_like(tensor, dtype=dtype)`` (the same strides: ``preserve_format``), in numpy's memory
    where :func:`is_large` says so."""
    dtype = dtype or tensor.dtype
    if not is_large(tensor, dtype):
        return torch.empty_like(tensor, dtype=dtype)
    layout = torch.empty_like(tensor, dtype=dtype, device="meta")  # the strides empty_like gives, no memory
    flat = torch.from_numpy(np.empty(tensor.numel(), dtype=_NUMPY_DTYPES[dtype]))
    return flat.as_strided(layout.shape, layout.stride())


def copy_of(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor.clone()``: the same values and strides, large copies in numpy's memory."""
    if not is_large(tensor):
        return tensor.clone()
    return fresh_like(tensor).copy_(tensor)


def converted(tensor: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``tensor.to(dtype)`` as a fresh tensor (also where ``dtype`` is already ``tensor``'s), large ones in
    numpy's memory."""
    if not is_large(tensor, dtype):
        return tensor.to(dtype, copy=True)
    return fresh_like(tensor, dtype).copy_(tensor)


def contiguous(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor.contiguous()``: ``tensor`` itself where it is, else a contiguous copy (large ones in numpy's
    memory)."""
    if tensor.is_contiguous() or not is_large(tensor):
        return tensor.contiguous()
    out = torch.from_numpy(np.empty(tuple(tensor.shape), dtype=_NUMPY_DTYPES[tensor.dtype]))
    return out.copy_(tensor)
