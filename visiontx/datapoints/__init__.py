"""Tensor subclasses that carry the metadata transforms need."""

from ._bounding_box import BoundingBox, BoundingBoxFormat
from ._datapoint import Datapoint, set_return_type, wrap
from ._image import Image, Mask, Video
from ._keypoints import KeyPoints

__all__ = [
    "BoundingBox",
    "BoundingBoxFormat",
    "Datapoint",
    "Image",
    "KeyPoints",
    "Mask",
    "Video",
    "set_return_type",
    "wrap",
]
