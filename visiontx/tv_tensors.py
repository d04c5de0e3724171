"""``visiontx.datapoints`` under torchvision 0.16-0.29's names: the same classes, not copies.

``TVTensor`` is :class:`~visiontx.datapoints.Datapoint` and ``BoundingBoxes`` is
:class:`~visiontx.datapoints.BoundingBox`, which takes ``canvas_size`` for ``spatial_size`` (keyword and
attribute). ``KeyPoints`` is :class:`~visiontx.datapoints.KeyPoints` (``canvas_size`` too).
``set_return_type`` also takes ``"TVTensor"``. ``is_rotated_bounding_format`` tells the rotated box
formats (``XYWHR``, ``CXCYWHR``, ``XYXYXYXY``) from the axis-aligned ones.

Example:
    >>> from visiontx import tv_tensors
    >>> boxes = tv_tensors.BoundingBoxes([[0, 0, 5, 5]], format="XYXY", canvas_size=(10, 10))
    >>> boxes.canvas_size, isinstance(boxes, tv_tensors.TVTensor)
    ((10, 10), True)
"""

from __future__ import annotations

from .datapoints import BoundingBox as BoundingBoxes
from .datapoints import BoundingBoxFormat, Image, KeyPoints, Mask, Video, set_return_type, wrap
from .datapoints import Datapoint as TVTensor
from .datapoints import is_rotated_bounding_format

__all__ = [
    "BoundingBoxFormat",
    "BoundingBoxes",
    "Image",
    "KeyPoints",
    "Mask",
    "TVTensor",
    "Video",
    "is_rotated_bounding_format",
    "set_return_type",
    "wrap",
]
