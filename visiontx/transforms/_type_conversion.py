"""Transforms between PIL images, plain tensors and ``Image``."""

from __future__ import annotations

from typing import Any

import numpy as np
import PIL.Image
import torch

from .. import functional as F
from ..datapoints import Datapoint, Image
from ._transform import Transform

__all__ = ["PILToTensor", "ToImagePIL", "ToImageTensor", "ToPILImage", "ToPureTensor"]


class PILToTensor(Transform):
    """PIL images -> plain ``C x H x W`` uint8 tensors."""

    _transformed_types = (PIL.Image.Image,)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.pil_to_tensor(inpt)


class ToImageTensor(Transform):
    """PIL images, numpy ``H x W x C`` arrays and plain-tensor images -> ``Image``."""

    _transformed_types = (torch.Tensor, PIL.Image.Image, np.ndarray)

    def _needs_transform_list(self, flat_inputs: list[Any]) -> list[bool]:
        needs = super()._needs_transform_list(flat_inputs)
        return [need and not isinstance(inpt, Datapoint) for inpt, need in zip(flat_inputs, needs)]

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.to_image_tensor(inpt)


class ToImagePIL(Transform):
    """``Image`` and plain-tensor images (and numpy arrays) -> PIL images, in ``mode`` if given."""

    _transformed_types = (Image, torch.Tensor, np.ndarray)

    def __init__(self, mode: str | None = None) -> None:
        super().__init__()
        self.mode = mode

    def _needs_transform_list(self, flat_inputs: list[Any]) -> list[bool]:
        needs = super()._needs_transform_list(flat_inputs)
        return [need and (isinstance(inpt, (Image, np.ndarray)) or not isinstance(inpt, Datapoint))
                for inpt, need in zip(flat_inputs, needs)]

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return F.to_image_pil(inpt, mode=self.mode)


ToPILImage = ToImagePIL


class ToPureTensor(Transform):
    """Datapoints -> plain ``torch.Tensor`` (metadata dropped); everything else untouched."""

    _transformed_types = (Datapoint,)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return inpt.as_subclass(torch.Tensor)
