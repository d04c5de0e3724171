"""Datasets and the wrapper that turns their samples into datapoints."""

from ._coco import CocoDetection
from ._wrap import wrap_dataset_for_transforms_v2

__all__ = ["CocoDetection", "wrap_dataset_for_transforms_v2"]
