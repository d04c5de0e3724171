"""Normalize and LinearTransformation of image values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import PIL.Image
import torch

from ... import functional as F
from ...datapoints import Image, Video
from .._transform import Transform
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
        return self.call_kernel(F.normalize, inpt, mean=self.mean, std=self.std, inplace=self.inplace)


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
