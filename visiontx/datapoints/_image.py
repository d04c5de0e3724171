"""Image, Video and Mask datapoints."""

from __future__ import annotations

from typing import Any

import numpy as np
import PIL.Image
import torch

from ._datapoint import Datapoint


def _pil_to_tensor(image: PIL.Image.Image) -> torch.Tensor:
    """PIL image -> ``C x H x W`` tensor (``H x W x C`` bytes from Pillow, permuted as a view)."""
    array = np.asarray(image)
    if array.ndim == 2:
        array = array[:, :, None]
    return torch.from_numpy(array.copy()).permute(2, 0, 1)


def _check_channels_first(tensor: torch.Tensor) -> None:
    """Refuse data that looks channels-last: a last dim of 1, 3 or 4 and more than 4 "channels" (dim -3)."""
    if tensor.ndim >= 3 and tensor.shape[-1] in (1, 3, 4) and tensor.shape[-3] > 4:
        raise ValueError(
            f"data of shape {tuple(tensor.shape)} looks like H x W x C (channels last), but an Image is "
            "[..., C, H, W]: permute it to C x H x W first, e.g. tensor.permute(2, 0, 1) or "
            "F.to_image_tensor(numpy_array)"
        )


class Image(Datapoint):
    """An image tensor ``[..., C, H, W]``; a 2-D input ``H x W`` gains a channel dimension.

    Accepts tensors, nested lists, numpy arrays (already ``C x H x W``) and PIL images. Data that looks
    channels-last (``H x W x C``) is refused with a ``ValueError``: a last dim of 1, 3 or 4 with more
    than 4 in the channel dim (dim -3). So are the rare images it cannot tell from those: more than 4
    channels and a width of 1, 3 or 4 (e.g. ``5 x 10 x 3``); a ``3 x 5 x 4`` image is fine.

    Example:
        >>> Image(torch.zeros(3, 4, 5, dtype=torch.uint8)).shape
        torch.Size([3, 4, 5])
    """

    def __new__(
        cls,
        data: Any,
        *,
        dtype: torch.dtype | None = None,
        device: torch.device | str | int | None = None,
        requires_grad: bool | None = None,
    ) -> Image:
        if isinstance(data, PIL.Image.Image):
            data = _pil_to_tensor(data)
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 2:
            raise ValueError(f"data must have at least 2 dims (H x W) for an Image, got shape {tuple(tensor.shape)}")
        if tensor.ndim == 2:
            tensor = tensor.unsqueeze(0)
        _check_channels_first(tensor)
        return cls._wrap(tensor)


class Video(Datapoint):
    """A video tensor ``[..., T, C, H, W]``."""

    def __new__(
        cls,
        data: Any,
        *,
        dtype: torch.dtype | None = None,
        device: torch.device | str | int | None = None,
        requires_grad: bool | None = None,
    ) -> Video:
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 4:
            raise ValueError(f"data must have at least 4 dims (T x C x H x W) for a Video, got shape {tuple(tensor.shape)}")
        return cls._wrap(tensor)


class Mask(Datapoint):
    """A segmentation mask ``[..., H, W]``: semantic ``H x W`` or instance ``N x H x W``.

    A PIL image becomes ``H x W`` (single-channel) tensor of its values.
    """

    def __new__(
        cls,
        data: Any,
        *,
        dtype: torch.dtype | None = None,
        device: torch.device | str | int | None = None,
        requires_grad: bool | None = None,
    ) -> Mask:
        if isinstance(data, PIL.Image.Image):
            data = torch.from_numpy(np.array(data))
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 2:
            raise ValueError(f"data must have at least 2 dims (H x W) for a Mask, got shape {tuple(tensor.shape)}")
        return cls._wrap(tensor)
