"""The COCO wrapper: a list of annotation dicts becomes a dict of datapoints (boxes, masks, key points, labels)."""

from __future__ import annotations

import warnings
from typing import Any

import torch

from .. import functional as F
from ..datapoints import BoundingBox, BoundingBoxFormat, KeyPoints, Mask
from ._coco import CocoDetection
from ._registry import Wrapper, register_wrapper
from ._targets import parse_target_keys

NATIVE_KEYS = {"id", "segmentation", "area", "iscrowd", "image_id", "bbox", "category_id", "num_keypoints"}
ADDED_KEYS = {"boxes", "masks", "labels", "keypoints"}
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


def _keypoints(annotations: list[dict[str, Any]], spatial_size: tuple[int, int], count: int) -> KeyPoints:
    """COCO's ``[x1, y1, v1, ...]`` as ``KeyPoints`` ``[N, K, 2]`` (pixel indices, as COCO's) with
    visibility ``v > 0`` (labelled, occluded or not: what torchvision's keypoint R-CNN trains on); an
    annotation without key points (another category) gives ``K`` invisible points at ``(0, 0)``."""
    counts = {len(ann["keypoints"]) // 3 for ann in annotations if ann.get("keypoints") is not None}
    if len(counts) > 1:
        ids = [ann.get("id") for ann in annotations]
        raise ValueError(f"annotations {ids} of one image have different numbers of key points {sorted(counts)}")
    count = counts.pop() if counts else count
    triples = [ann.get("keypoints") or [0] * (3 * count) for ann in annotations]
    data = torch.tensor(triples, dtype=torch.float32).reshape(len(annotations), count, 3)
    return KeyPoints(data[..., :2], spatial_size=spatial_size, visibility=data[..., 2] > 0)


def coco_target(
    annotations: list[dict[str, Any]],
    image_id: Any,
    spatial_size: tuple[int, int],
    target_keys: set[str],
    num_keypoints: int = 0,
) -> dict[str, Any]:
    """Build the wrapped target dict holding ``target_keys`` (``num_keypoints``: ``K`` of an image
    whose annotations have no key points)."""
    target: dict[str, Any] = {}
    if "image_id" in target_keys:
        target["image_id"] = image_id
    if "boxes" in target_keys:
        target["boxes"] = _boxes([ann["bbox"] for ann in annotations], spatial_size)
    if "masks" in target_keys:
        target["masks"] = _masks(annotations, spatial_size)
    if "keypoints" in target_keys:
        target["keypoints"] = _keypoints(annotations, spatial_size, num_keypoints)
    if "labels" in target_keys:
        target["labels"] = torch.tensor([ann["category_id"] for ann in annotations], dtype=torch.int64)
    for key in sorted(target_keys - ADDED_KEYS - {"image_id"}):
        target[key] = [ann.get(key) for ann in annotations]  # None where an annotation lacks the key
    return target


@register_wrapper(CocoDetection, target_keys=True)
def coco_wrapper_factory(dataset: Any, target_keys: Any) -> Wrapper:
    """Factory for visiontx's and torchvision's ``CocoDetection`` (both index images by ``dataset.ids``)."""
    keys = parse_target_keys(target_keys, available=NATIVE_KEYS | ADDED_KEYS, default=DEFAULT_KEYS)
    num_keypoints = _category_keypoint_count(dataset)

    def wrapper(index: int, sample: Any) -> tuple[Any, dict[str, Any]]:
        image, annotations = sample
        spatial_size = tuple(F.get_spatial_size(image))
        return image, coco_target(annotations, dataset.ids[index], spatial_size, keys, num_keypoints)

    return wrapper


def _category_keypoint_count(dataset: Any) -> int:
    """``K``, the length of the categories' ``keypoints`` name lists (COCO's person: 17); 0 without any."""
    categories = getattr(dataset, "coco", None) and dataset.coco.dataset.get("categories") or []
    counts = {len(c["keypoints"]) for c in categories if isinstance(c, dict) and c.get("keypoints")}
    return max(counts, default=0)
