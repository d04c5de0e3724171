"""Datasets, the wrapper that turns their samples into datapoints, and sample-keyed augmentation."""

from ._augmented import Augmented, sample_seed
from ._coco import CocoDetection
from ._wrap import wrap_dataset_for_transforms_v2

__all__ = ["Augmented", "CocoDetection", "sample_seed", "wrap_dataset_for_transforms_v2"]
