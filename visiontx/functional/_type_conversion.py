"""Conversions between PIL images, numpy arrays, plain tensors and ``Image``."""

from __future__ import annotations

from typing import Any

import numpy as np
import PIL.Image
import torch

from ..datapoints import Image
from ..datapoints._datapoint import adopt
from ..datapoints._image import _pil_to_tensor
from .. import _names
from . import _cv2

__all__ = ["pil_to_tensor", "to_image_pil", "to_image_tensor", "to_pil_image"]

_MODES_BY_CHANNELS = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def pil_to_tensor(pic: PIL.Image.Image) -> torch.Tensor:
    """PIL image -> plain ``C x H x W`` tensor with the image's own dtype (uint8 for 8-bit modes);
    contiguous planes for L, RGB and RGBA images (torchvision's is a permuted view).

    Args:
        pic: a PIL image.
    """
    if not isinstance(pic, PIL.Image.Image):
        raise TypeError(f"pic must be a PIL image, got {type(pic).__name__}")
    return _pil_pixels(pic)


def _pil_pixels(pic: PIL.Image.Image) -> torch.Tensor:
    """Contiguous planes of L, RGB and RGBA images through the OpenCV wing (a later ``contiguous()`` or
    batching of a permuted view costs several times that), otherwise a view as the ``Image`` constructor's."""
    pic.load()  # decoding may set the size and mode (JPEG 2000's reduce, for one): read them after it
    return _cv2.pil_planes(pic) if _cv2.can_pil_planes(pic) else _pil_to_tensor(pic)


def to_image_tensor(inpt: PIL.Image.Image | np.ndarray | torch.Tensor) -> Image:
    """PIL image, numpy ``H x W x C`` (or ``H x W``) array or tensor ``[..., C, H, W]`` -> ``Image``.

    Args:
        inpt: a PIL image, a numpy array or a tensor.

    Example:
        >>> F.to_image_tensor(PIL.Image.open("photo.jpg"))
    """
    if isinstance(inpt, PIL.Image.Image):
        pixels = _pil_pixels(inpt)
        return adopt(pixels, Image)  # a fresh C x H x W tensor: no constructor checks
    if isinstance(inpt, np.ndarray):
        array = inpt[:, :, None] if inpt.ndim == 2 else inpt
        if array.ndim != 3:
            raise ValueError(f"inpt as a numpy array must be H x W or H x W x C, got shape {inpt.shape}")
        tensor = torch.from_numpy(np.ascontiguousarray(array)).permute(2, 0, 1)
        # contiguous planes, as torchvision's (OpenCV splits interleaved uint8 pixels several times faster)
        return Image(_cv2.contiguous(tensor) if _cv2.available() else tensor.contiguous())
    if isinstance(inpt, torch.Tensor):
        return Image(inpt.as_subclass(torch.Tensor))
    raise TypeError(f"inpt must be a PIL image, numpy array or tensor, got {type(inpt).__name__}")


def _check_channels(channels: int) -> int:
    if channels not in _MODES_BY_CHANNELS:
        raise ValueError(f"inpt must have 1 to 4 channels to become a PIL image, got {channels}")
    return channels


def to_image_pil(inpt: Any, mode: str | None = None) -> PIL.Image.Image:
    """Tensor / ``Image`` ``C x H x W`` (uint8, or float in [0, 1]) or numpy ``H x W x C`` -> PIL image; one
    channel of int16 / uint16 (non-negative) gives mode ``I;16``, of int32 mode ``I``, with the values kept.

    Float values are scaled by 255, clamped to 0..255 and truncated (as torchvision: 0.999 gives 254), but for
    ``mode="F"``, which keeps one channel's float values.

    Args:
        inpt: a tensor or ``Image`` ``C x H x W`` (or ``H x W``) with 1 to 4 channels, a numpy array
            ``H x W x C`` (or ``H x W``; float arrays scale as float tensors), or a PIL image (converted
            to ``mode`` when given).
        mode: the PIL mode of the output (``"L"``, ``"RGB"``, ...); None (default) follows the number of
            channels (L, LA, RGB, RGBA).

    Example:
        >>> F.to_image_pil(image).save("out.png")
    """
    if isinstance(inpt, PIL.Image.Image):
        return inpt if mode is None else inpt.convert(mode)
    if isinstance(inpt, torch.Tensor):
        tensor = inpt.as_subclass(torch.Tensor).detach()
        if tensor.ndim == 2:
            tensor = tensor.unsqueeze(0)
        if tensor.ndim != 3:
            raise ValueError(f"inpt must be a single image C x H x W, got shape {tuple(inpt.shape)}")
        _check_channels(tensor.shape[0])
        if mode == "F" and tensor.is_floating_point() and tensor.shape[0] == 1:  # the values kept, as torchvision
            return PIL.Image.fromarray(tensor[0].to(device="cpu", dtype=torch.float32).numpy().copy())
        if tensor.is_floating_point():
            tensor = tensor.mul(255).clamp_(0, 255)  # the cast truncates
        elif tensor.dtype not in (torch.uint8, torch.bool):
            image = _wide_integer_pil(tensor)
            return image if mode is None else image.convert(mode)
        array = _cv2.interleaved(tensor.to(torch.uint8).cpu())
    elif isinstance(inpt, np.ndarray):
        array = inpt[:, :, None] if inpt.ndim == 2 else inpt
        if array.ndim != 3:
            raise ValueError(f"inpt as a numpy array must be H x W or H x W x C, got shape {inpt.shape}")
        if mode == "F" and np.issubdtype(array.dtype, np.floating) and array.shape[-1] == 1:
            return PIL.Image.fromarray(np.ascontiguousarray(array[..., 0], dtype=np.float32))
        if np.issubdtype(array.dtype, np.floating):
            array = np.clip(array * 255, 0, 255).astype(np.uint8)
    else:
        raise TypeError(f"inpt must be a tensor, numpy array or PIL image, got {type(inpt).__name__}")
    channels = _check_channels(array.shape[-1])
    image = PIL.Image.fromarray(np.ascontiguousarray(array[..., 0] if channels == 1 else array))
    return image if mode is None else image.convert(mode)


def _wide_integer_pil(tensor: torch.Tensor) -> PIL.Image.Image:
    """A one-channel ``int16`` / ``uint16`` (non-negative) image as a PIL ``I;16`` image, an ``int32`` one as
    ``I``: the values kept (torchvision's modes for int16 and int32)."""
    if tensor.dtype not in _WIDE_INTEGER_MODES:
        raise TypeError(
            f"inpt must be uint8, bool, float, or one channel of int16, uint16 or int32 to become a PIL image, got "
            f"{tensor.dtype}; use to_dtype(..., scale=True) for uint8"
        )
    if tensor.shape[0] != 1:
        raise TypeError(
            f"inpt of dtype {tensor.dtype} becomes a PIL image only with one channel (modes I;16 and I), got "
            f"{tensor.shape[0]}; use to_dtype(..., scale=True) for uint8"
        )
    plane = tensor[0].cpu()
    if tensor.dtype == torch.int16 and bool((plane < 0).any()):
        raise ValueError("inpt of dtype int16 must be non-negative to become a PIL image (mode I;16)")
    array = plane.numpy().astype(_WIDE_INTEGER_MODES[tensor.dtype])
    return PIL.Image.fromarray(np.ascontiguousarray(array))


# integer dtypes (beside uint8) that become one-channel PIL images, and the numpy dtype Pillow reads for each mode
_WIDE_INTEGER_MODES = {
    dtype: numpy_dtype
    for name, numpy_dtype in (("int16", np.uint16), ("uint16", np.uint16), ("int32", np.int32))
    if (dtype := getattr(torch, name, None)) is not None
}


to_pil_image = _names.renamed(to_image_pil, "to_pil_image", inpt="pic")
