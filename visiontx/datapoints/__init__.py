"""Tensor subclasses that carry the metadata transforms need."""

from ._bounding_box import BoundingBox, BoundingBoxFormat, is_rotated_bounding_format
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
    "is_rotated_bounding_format",
    "set_return_type",
    "wrap",
]
