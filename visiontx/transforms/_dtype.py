"""Dtype transforms: ToDtype and ConvertDtype."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from .. import functional as F
from ..functional._misc._normalize import scaled_normalize
from .._torchvision_interop import native_key
from ..datapoints import Image, Video
from ._transform import Transform, _is_pure_tensor

__all__ = ["ConvertDtype", "ConvertImageDtype", "ToDtype"]


def _check_dtype(dtype: Any, name: str = "dtype") -> torch.dtype | None:
    if dtype is not None and not isinstance(dtype, torch.dtype):
        raise TypeError(f"{name} must be a torch.dtype or None, got {dtype!r}")
    return dtype


class ToDtype(Transform):
    """Convert dtypes, optionally scaling image values (``scale=True``: uint8 0..255 <-> float 0..1).

    Masks and boxes are cast but never rescaled.

    Args:
        dtype: one ``torch.dtype``, applied to images and videos (plain-tensor images included), or a
            dict ``{datapoint type: dtype or None, "others": dtype or None}`` (a type's entry also serves
            its subclasses, a plain-tensor image follows ``Image``; torchvision's classes stand for
            visiontx's); None leaves a type untouched. A leaf the dict has no entry for, without
            ``"others"``, is a ``ValueError``, as in torchvision.
        scale: also map the value range of the old dtype onto the new one's, for images and videos
            (default False).

    Example:
        >>> ToDtype({Image: torch.float32, Mask: torch.int64, "others": None}, scale=True)
    """

    def __init__(self, dtype: torch.dtype | Mapping[type | str, torch.dtype | None], scale: bool = False) -> None:
        super().__init__()
        if isinstance(dtype, Mapping):
            dtype = {native_key(key): _check_dtype(value, f"dtype[{key!r}]") for key, value in dtype.items()}
        elif not isinstance(dtype, torch.dtype):
            raise TypeError(f"dtype must be a torch.dtype or a dict of them, got {dtype!r}")
        self.dtype = dtype
        self.scale = bool(scale)

    def _dtype_for(self, inpt: Any) -> torch.dtype | None:
        if isinstance(self.dtype, torch.dtype):
            return self.dtype if isinstance(inpt, (Image, Video)) or _is_pure_tensor(inpt) else None
        if _is_pure_tensor(inpt) and torch.Tensor in self.dtype:
            return self.dtype[torch.Tensor]
        for cls in type(inpt).__mro__:
            if cls in self.dtype and cls is not torch.Tensor:
                return self.dtype[cls]
        if _is_pure_tensor(inpt) and Image in self.dtype:  # the plain-tensor image follows Image
            return self.dtype[Image]
        if "others" not in self.dtype:  # as torchvision's: a type the dict forgot is an error, not a silent pass
            raise ValueError(
                f"ToDtype's dtype dict has no entry for {type(inpt).__name__} and no 'others' key: add one "
                f"(None leaves it as it is), e.g. {{Image: torch.float32, 'others': None}}"
            )
        return self.dtype["others"]

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        dtype = self._dtype_for(inpt)
        if dtype is None:
            return inpt
        tables = stage_state.tables.get(id(inpt)) if stage_state.to_dtype is self else None
        if tables is not None:  # (listed only where this dtype is float32 with scaling)
            output = scaled_normalize(inpt, tables)
            stage_state.made.add(id(output))
            return output
        return self.call_kernel(F.to_dtype, inpt, dtype, scale=self.scale)


class _StageState(threading.local):
    """What ``Compose``'s ToDtype + Normalize stage (``NormalizeOwnImages``, transforms/_misc/_normalize.py)
    tells the two transforms it runs, per thread. While its ``ToDtype`` (``to_dtype``) runs: the leaves (by
    id) to convert and normalise in one pass, with their tables; the ids of the outputs so made collect
    in ``made``. While its ``Normalize`` (``normalize``) runs: ``made``, which it passes on as they are, and
    ``owned``, the images it may write into. A transform the stage does not name sees none of it."""

    def __init__(self) -> None:
        self.to_dtype: ToDtype | None = None
        self.normalize: Any = None
        self.tables: dict[int, np.ndarray] = {}
        self.made: set[int] = set()
        self.owned: frozenset[int] = frozenset()

    def saved(self) -> tuple[Any, ...]:
        return self.to_dtype, self.normalize, self.tables, self.made, self.owned

    def restore(self, saved: tuple[Any, ...]) -> None:
        self.to_dtype, self.normalize, self.tables, self.made, self.owned = saved


stage_state = _StageState()


class ConvertDtype(Transform):
    """Convert images and videos to ``dtype`` with value scaling (``ToDtype(dtype, scale=True)``).

    PIL images pass through, as in torchvision.

    Args:
        dtype: the ``torch.dtype`` of the output (default ``torch.float32``).
    """

    _transformed_types = (torch.Tensor,)

    def __init__(self, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        self.dtype = _check_dtype(dtype)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.convert_dtype, inpt, self.dtype)


ConvertImageDtype = ConvertDtype
