"""Erase (fill) a rectangle of images and videos."""

from __future__ import annotations

from typing import Any

import PIL.Image
import torch

from ..._args import fill_tensor
from ..._names import video_kernel
from ...datapoints import Image, Video
from .. import _cv2
from .._checks import check_spatial
from .._registry import get_kernel, register_kernels
from .._type_conversion import pil_to_tensor, to_image_pil

__all__ = ["erase", "erase_image_pil", "erase_image_tensor", "erase_video"]


def erase(inpt: Any, i: int, j: int, h: int, w: int, v: torch.Tensor | float, inplace: bool = False) -> Any:
    """Fill rows ``i:i+h`` and columns ``j:j+w`` with ``v``.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image.
        i: top row of the rectangle, a non-negative int.
        j: left column of the rectangle, a non-negative int.
        h: height of the rectangle, a non-negative int.
        w: width of the rectangle, a non-negative int.
        v: a number or a tensor broadcastable to ``[C, h, w]``; integer images round and clamp float values.
        inplace: write into the input tensor instead of a copy (default False; PIL images are always copied).

    Example:
        >>> erase(image, i=2, j=3, h=4, w=5, v=torch.tensor(0.0))
    """
    return get_kernel(erase, type(inpt))(inpt, i=i, j=j, h=h, w=w, v=v, inplace=inplace)


def _check_region(i: int, j: int, h: int, w: int) -> None:
    for name, value in (("i", i), ("j", j), ("h", h), ("w", w)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be a non-negative int, got {value!r}")


@register_kernels(erase, (torch.Tensor, Image, Video))
def erase_image_tensor(
    image: torch.Tensor, i: int, j: int, h: int, w: int, v: torch.Tensor | float, inplace: bool = False
) -> torch.Tensor:
    """Fill a rectangle of a tensor ``[..., C, H, W]`` (integer images round and clamp float values)."""
    check_spatial(image, "erase")
    _check_region(i, j, h, w)
    value = fill_tensor(v, image.dtype, image.device)
    if _cv2.can_erase(image, i, j, h, w, value, inplace):
        return _cv2.erase(image, i, j, h, w, value)
    output = image if inplace else image.clone()
    region = output[..., i : i + h, j : j + w]
    try:
        region[...] = value
    except RuntimeError as error:
        shapes = f"v of shape {tuple(value.shape)} does not fit the erased region {tuple(region.shape)}"
        raise ValueError(f"{shapes}: {error}") from None
    return output


erase_video = video_kernel(erase_image_tensor)


@register_kernels(erase, PIL.Image.Image)
def erase_image_pil(
    image: PIL.Image.Image, i: int, j: int, h: int, w: int, v: torch.Tensor | float, inplace: bool = False
) -> PIL.Image.Image:
    """Fill a rectangle of a PIL image (``inplace`` has no effect: PIL images are always copied)."""
    output = erase_image_tensor(pil_to_tensor(image), i=i, j=j, h=h, w=w, v=v)
    return to_image_pil(output, mode=image.mode)
