"""Transforms between PIL images, plain tensors and ``Image``."""

from __future__ import annotations

from typing import Any

import numpy as np
import PIL.Image
import torch

from .. import functional as F
from ..datapoints import Datapoint, Image, Video
from ._transform import Transform, _is_pure_tensor

__all__ = ["PILToTensor", "ToImagePIL", "ToImageTensor", "ToPILImage", "ToPureTensor"]


class PILToTensor(Transform):
    """PIL images -> plain ``C x H x W`` tensors (uint8 for 8-bit modes); other leaves pass through.

    Takes no arguments.
    """

    _transformed_types = (PIL.Image.Image,)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.pil_to_tensor(inpt)


def _convert_list(flat_inputs: list[Any], datapoint_types: tuple[type, ...]) -> list[bool]:
    """Leaves to convert: PIL images and ``datapoint_types`` always; plain tensors and numpy image
    arrays (``H x W`` or ``H x W x C``) by the plain-tensor rule (only the first, and only when the
    sample holds no ``Image``, ``Video`` or PIL image)."""
    take_plain = not any(isinstance(inpt, (Image, Video, PIL.Image.Image)) for inpt in flat_inputs)
    needs = []
    for inpt in flat_inputs:
        need = isinstance(inpt, (PIL.Image.Image, *datapoint_types))
        if _is_pure_tensor(inpt) or (isinstance(inpt, np.ndarray) and inpt.ndim in (2, 3)):
            need, take_plain = take_plain, False
        needs.append(need)
    return needs


class ToImageTensor(Transform):
    """PIL images, numpy ``H x W x C`` arrays and plain-tensor images -> ``Image``.

    Numpy arrays follow the plain-tensor rule: converted only when the sample has no other image.

    Takes no arguments.
    """

    def _needs_transform_list(self, flat_inputs: list[Any]) -> list[bool]:
        return _convert_list(flat_inputs, ())

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.to_image_tensor(inpt)


class ToImagePIL(Transform):
    """``Image`` and plain-tensor images (and numpy arrays) -> PIL images.

    Args:
        mode: the PIL mode of the output (``"L"``, ``"RGB"``, ...); None (default) picks it from the
            number of channels (L, LA, RGB, RGBA).
    """

    def __init__(self, mode: str | None = None) -> None:
        super().__init__()
        self.mode = mode

    def _needs_transform_list(self, flat_inputs: list[Any]) -> list[bool]:
        return _convert_list(flat_inputs, (Image,))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.to_image_pil(inpt, mode=self.mode)


ToPILImage = ToImagePIL


class ToPureTensor(Transform):
    """Datapoints -> plain ``torch.Tensor`` (metadata dropped); everything else untouched.

    Takes no arguments.
    """

    _transformed_types = (Datapoint,)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return inpt.as_subclass(torch.Tensor)
