"""The COCO wrapper: a list of annotation dicts becomes a dict of datapoints (boxes, masks, labels)."""

from __future__ import annotations

import warnings
from typing import Any

import torch

from .. import functional as F
from ..datapoints import BoundingBox, BoundingBoxFormat, Mask
from ._coco import CocoDetection
from ._registry import Wrapper, register_wrapper
from ._targets import parse_target_keys

NATIVE_KEYS = {"id", "segmentation", "area", "iscrowd", "image_id", "bbox", "category_id"}
ADDED_KEYS = {"boxes", "masks", "labels"}
DEFAULT_KEYS = {"image_id", "boxes", "labels"}


def segmentation_to_mask(ann: dict[str, Any], spatial_size: tuple[int, int]) -> torch.Tensor:
    """Decode one annotation's polygons or RLE (uncompressed or compressed) into an ``H x W`` uint8 mask."""
    from pycocotools import mask as coco_mask

    height, width = spatial_size
    segmentation = ann.get("segmentation")
    if segmentation is None:
        raise ValueError(f"annotation id={ann.get('id')!r} has no 'segmentation'; masks cannot be built")
    if isinstance(segmentation, list):
        if not segmentation:
            return torch.zeros(spatial_size, dtype=torch.uint8)
        rle = coco_mask.merge(coco_mask.frPyObjects(segmentation, height, width))
    else:
        if list(segmentation["size"]) != [height, width]:
            raise ValueError(
                f"annotation id={ann.get('id')!r}: RLE size {segmentation['size']} differs from "
                f"the image's {[height, width]}"
            )
        compressed = not isinstance(segmentation["counts"], list)
        rle = segmentation if compressed else coco_mask.frPyObjects(segmentation, height, width)
    with warnings.catch_warnings():  # pycocotools' Masks.__array__ predates numpy 2's copy keyword
        warnings.filterwarnings("ignore", message="__array__ implementation", category=DeprecationWarning)
        return torch.from_numpy(coco_mask.decode(rle))


def _boxes(bboxes: list, spatial_size: tuple[int, int]) -> BoundingBox:
    data = torch.tensor(bboxes) if bboxes else torch.zeros(0, 4)
    boxes = BoundingBox(data, format=BoundingBoxFormat.XYWH, spatial_size=spatial_size)
    return F.convert_format_bounding_box(boxes, new_format=BoundingBoxFormat.XYXY)


def _masks(annotations: list[dict[str, Any]], spatial_size: tuple[int, int]) -> Mask:
    if not annotations:
        return Mask(torch.zeros((0, *spatial_size), dtype=torch.uint8))
    return Mask(torch.stack([segmentation_to_mask(ann, spatial_size) for ann in annotations]))


def coco_target(
    annotations: list[dict[str, Any]], image_id: Any, spatial_size: tuple[int, int], target_keys: set[str]
) -> dict[str, Any]:
    """Build the wrapped target dict holding ``target_keys``."""
    target: dict[str, Any] = {}
    if "image_id" in target_keys:
        target["image_id"] = image_id
    if "boxes" in target_keys:
        target["boxes"] = _boxes([ann["bbox"] for ann in annotations], spatial_size)
    if "masks" in target_keys:
        target["masks"] = _masks(annotations, spatial_size)
    if "labels" in target_keys:
        target["labels"] = torch.tensor([ann["category_id"] for ann in annotations], dtype=torch.int64)
    for key in sorted(target_keys - ADDED_KEYS - {"image_id"}):
        target[key] = [ann.get(key) for ann in annotations]  # None where an annotation lacks the key
    return target


@register_wrapper(CocoDetection, target_keys=True)
def coco_wrapper_factory(dataset: Any, target_keys: Any) -> Wrapper:
    """Factory for visiontx's and torchvision's ``CocoDetection`` (both index images by ``dataset.ids``)."""
    keys = parse_target_keys(target_keys, available=NATIVE_KEYS | ADDED_KEYS, default=DEFAULT_KEYS)

    def wrapper(index: int, sample: Any) -> tuple[Any, dict[str, Any]]:
        image, annotations = sample
        spatial_size = tuple(F.get_spatial_size(image))
        return image, coco_target(annotations, dataset.ids[index], spatial_size, keys)

    return wrapper
