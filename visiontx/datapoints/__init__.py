"""Tensor subclasses that carry the metadata transforms need."""

from ._bounding_box import BoundingBox, BoundingBoxFormat
from ._datapoint import Datapoint, set_return_type, wrap
from ._image import Image, Mask, Video

__all__ = [
    "BoundingBox",
    "BoundingBoxFormat",
    "Datapoint",
    "Image",
    "Mask",
    "Video",
    "set_return_type",
    "wrap",
]
