"""Validation of a COCO annotation file, so that a malformed one fails early with a clear message."""

from __future__ import annotations

import math
from typing import Any

from .._args import is_number

IMAGE_KEYS = ("id", "file_name")
ANNOTATION_KEYS = ("id", "image_id", "category_id", "bbox")


def _is_finite_number(value: Any) -> bool:
    return is_number(value) and math.isfinite(value)


def _where(ann_file: str, kind: str, index: int, item: Any) -> str:
    if isinstance(item, dict) and "id" in item:
        return f"{ann_file}: {kind} id={item['id']!r}"
    return f"{ann_file}: {kind} #{index} (no 'id')"


def _check_keys(item: Any, keys: tuple[str, ...], where: str) -> None:
    if not isinstance(item, dict):
        raise ValueError(f"{where}: expected a dict, got {type(item).__name__}")
    missing = [key for key in keys if key not in item]
    if missing:
        raise ValueError(f"{where}: missing key(s) {missing}")


def _check_bbox(bbox: Any, where: str) -> None:
    if not isinstance(bbox, (list, tuple)) or len(bbox) != 4 or not all(_is_finite_number(v) for v in bbox):
        raise ValueError(f"{where}: bbox must be 4 finite numbers [x, y, width, height], got {bbox!r}")
    if bbox[2] < 0 or bbox[3] < 0:
        raise ValueError(f"{where}: bbox has a negative size (width, height) = ({bbox[2]}, {bbox[3]})")


def _check_polygons(polygons: list, where: str) -> None:
    for polygon in polygons:
        if not isinstance(polygon, (list, tuple)) or not all(_is_finite_number(v) for v in polygon):
            raise ValueError(f"{where}: a polygon must be a flat list of numbers [x1, y1, x2, y2, ...]")
        if len(polygon) < 6 or len(polygon) % 2:
            raise ValueError(
                f"{where}: a polygon needs at least 3 points (an even count of >= 6 numbers), got {len(polygon)}"
            )


def _check_rle(rle: dict, where: str) -> None:
    size = rle.get("size")
    if "counts" not in rle or not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"{where}: an RLE segmentation needs 'counts' and 'size' = [height, width]")
    counts = rle["counts"]
    if not isinstance(counts, (list, str, bytes)):
        raise ValueError(f"{where}: RLE 'counts' must be a list (uncompressed) or a string (compressed)")
    if isinstance(counts, list) and (
        not all(isinstance(c, int) and c >= 0 for c in counts) or sum(counts) != size[0] * size[1]
    ):
        raise ValueError(f"{where}: uncompressed RLE 'counts' must be non-negative ints summing to height * width")


def _check_segmentation(segmentation: Any, where: str) -> None:
    if isinstance(segmentation, list):
        _check_polygons(segmentation, where)
    elif isinstance(segmentation, dict):
        _check_rle(segmentation, where)
    else:
        raise ValueError(f"{where}: segmentation must be a list of polygons or an RLE dict")


def _check_keypoints(keypoints: Any, where: str) -> None:
    triples = isinstance(keypoints, (list, tuple)) and len(keypoints) % 3 == 0
    if not triples or not all(_is_finite_number(v) for v in keypoints):
        raise ValueError(f"{where}: keypoints must be a flat list of finite numbers [x1, y1, v1, x2, y2, v2, ...]")
    flags = set(keypoints[2::3]) - {0, 1, 2}
    if flags:
        raise ValueError(f"{where}: keypoint visibility flags v must be 0, 1 or 2, got {sorted(flags)}")


def _check_unique_ids(items: list, kind: str, ann_file: str) -> set:
    ids: set = set()
    for item in items:
        if item["id"] in ids:
            raise ValueError(f"{ann_file}: duplicate {kind} id={item['id']!r}")
        ids.add(item["id"])
    return ids


def _check_annotation(ann: Any, index: int, image_ids: set, ann_file: str) -> None:
    where = _where(ann_file, "annotation", index, ann)
    _check_keys(ann, ANNOTATION_KEYS, where)
    if ann["image_id"] not in image_ids:
        raise ValueError(f"{where}: image_id={ann['image_id']!r} is not in 'images'")
    _check_bbox(ann["bbox"], where)
    if "segmentation" in ann:
        _check_segmentation(ann["segmentation"], where)
    if "keypoints" in ann:
        _check_keypoints(ann["keypoints"], where)


def check_coco(data: Any, ann_file: str) -> None:
    """Raise ``ValueError`` naming ``ann_file`` and the offending image / annotation id if ``data`` is malformed."""
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise ValueError(f"{ann_file}: expected a JSON object with an 'images' list")
    annotations = data.get("annotations", [])
    if not isinstance(annotations, list):
        raise ValueError(f"{ann_file}: 'annotations' must be a list")
    for index, image in enumerate(data["images"]):
        _check_keys(image, IMAGE_KEYS, _where(ann_file, "image", index, image))
    image_ids = _check_unique_ids(data["images"], "image", ann_file)
    for index, ann in enumerate(annotations):
        _check_annotation(ann, index, image_ids, ann_file)
    _check_unique_ids(annotations, "annotation", ann_file)
