"""torchvision 0.16-0.29's names in ``transforms.v2``: the same classes under their new names, the helpers
``transforms.v2`` exports, ``functional``, and the deprecated ``ToTensor``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import PIL.Image
import torch

from .. import functional
from ._meta import ClampBoundingBox as ClampBoundingBoxes
from ._meta import SanitizeBoundingBox as SanitizeBoundingBoxes
from ._transform import Transform
from ._type_conversion import ToImageTensor as ToImage
from ._utils import check_type, get_bounding_boxes, get_keypoints, has_all, has_any, query_chw, query_size

__all__ = [
    "ClampBoundingBoxes",
    "SanitizeBoundingBoxes",
    "ToImage",
    "ToTensor",
    "check_type",
    "functional",
    "get_bounding_boxes",
    "get_keypoints",
    "has_all",
    "has_any",
    "query_chw",
    "query_size",
]


class ToTensor(Transform):
    """[Deprecated] PIL images and numpy arrays -> plain ``C x H x W`` tensors, uint8 values scaled to float
    in ``[0, 1]`` (other dtypes kept); tensors pass through. torchvision's ``ToTensor``: building it gives
    a ``UserWarning``, as there. Use ``Compose([ToImage(), ToDtype(torch.float32, scale=True)])``.

    Takes no arguments.
    """

    _transformed_types = (PIL.Image.Image, np.ndarray)

    def __init__(self) -> None:
        warnings.warn(
            "ToTensor() is deprecated: use Compose([ToImage(), ToDtype(torch.float32, scale=True)])",
            UserWarning,
            stacklevel=2,
        )
        super().__init__()

    def transform(self, inpt: Any, params: dict[str, Any]) -> torch.Tensor:
        return functional.to_tensor.__wrapped__(inpt)  # the same without its deprecation warning
