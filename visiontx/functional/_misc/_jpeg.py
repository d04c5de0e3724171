"""JPEG compression artefacts: encode and decode with Pillow."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import PIL.Image
import torch

from ..._names import video_kernel
from ...datapoints import Image, Video
from .. import _cv2
from .._registry import get_kernel, register_kernels

__all__ = ["jpeg", "jpeg_image_pil", "jpeg_image_tensor", "jpeg_video"]


def jpeg(image: Any, quality: int) -> Any:
    """Round-trip through JPEG compression (encode, then decode), adding its artefacts.

    Args:
        image: a uint8 image tensor ``[..., C, H, W]`` with 1 or 3 channels, ``Image``, ``Video``, or an L
            or RGB PIL image.
        quality: JPEG quality, an int in ``1..100``.

    Example:
        >>> jpeg(image, quality=50)
    """
    return get_kernel(jpeg, type(image))(image, quality=quality)


def _check_quality(quality: int) -> None:
    if not isinstance(quality, int) or isinstance(quality, bool):
        raise TypeError(f"quality must be an int, got {quality!r}")
    if not 1 <= quality <= 100:
        raise ValueError(f"quality must be in 1..100, got {quality}")


def _round_trip(image: PIL.Image.Image, quality: int) -> PIL.Image.Image:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    buffer.seek(0)
    with PIL.Image.open(buffer) as decoded:  # a 1-bit image comes back as the L image JPEG stores, as torchvision
        return decoded.convert("L" if image.mode == "1" else image.mode)


@register_kernels(jpeg, (torch.Tensor, Image, Video))
def jpeg_image_tensor(image: torch.Tensor, quality: int) -> torch.Tensor:
    """JPEG round trip of a uint8 tensor ``[..., C, H, W]`` with 1 or 3 channels, item by item (via the CPU)."""
    _check_quality(quality)
    if image.dtype != torch.uint8:
        raise TypeError(f"jpeg needs a uint8 image, got dtype {image.dtype}")
    if image.ndim < 3 or image.shape[-3] not in (1, 3):
        raise ValueError(f"jpeg needs an image [..., 1 or 3, H, W], got shape {tuple(image.shape)}")
    if image.numel() == 0:
        return image.clone()
    if _cv2.can_jpeg(image):
        return _cv2.jpeg(image, quality)
    items = image.reshape(-1, *image.shape[-3:]).permute(0, 2, 3, 1).cpu().numpy()
    if image.shape[-3] == 1:
        items = items[..., 0]
    outputs = [np.asarray(_round_trip(PIL.Image.fromarray(item), quality)) for item in items]
    output = torch.from_numpy(np.stack(outputs)).reshape(-1, *image.shape[-2:], image.shape[-3])
    return output.permute(0, 3, 1, 2).reshape(image.shape).to(image.device)


jpeg_video = video_kernel(jpeg_image_tensor)


@register_kernels(jpeg, PIL.Image.Image)
def jpeg_image_pil(image: PIL.Image.Image, quality: int) -> PIL.Image.Image:
    """JPEG round trip of a PIL image (L or RGB)."""
    _check_quality(quality)
    return _round_trip(image, quality)
