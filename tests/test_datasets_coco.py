"""visiontx.datasets.CocoDetection: reading, ordering, transforms, and clear errors for malformed files."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import PIL.Image
import pytest

from visiontx.datasets import CocoDetection

SAMPLE = pathlib.Path(__file__).parent.parent / "visiontx" / "assets" / "coco_sample"
SAMPLE_ROOT, SAMPLE_ANN = SAMPLE / "images", SAMPLE / "instances.json"

COVERED = {"CocoDetection"}


def make_annotation(ann_id: int, image_id: int, **overrides: Any) -> dict[str, Any]:
    ann = {
        "id": ann_id,
        "image_id": image_id,
        "category_id": 1 + ann_id % 3,
        "bbox": [2.0, 3.0, 10.0, 6.0],
        "segmentation": [[2.0, 3.0, 12.0, 3.0, 12.0, 9.0, 2.0, 9.0]],
        "area": 60.0,
        "iscrowd": 0,
    }
    ann.update(overrides)
    return ann


def write_coco(
    tmp_path: pathlib.Path,
    images: list[tuple[int, tuple[int, int]]],
    annotations: list[dict[str, Any]],
    *,
    mode: str = "RGB",
) -> tuple[pathlib.Path, pathlib.Path]:
    """Write images (id, (H, W)) as PNG files and a COCO file; returns (root, annotation file)."""
    root = tmp_path / "images"
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for image_id, (height, width) in images:
        name = f"{image_id:06d}.png"
        channels = (height, width, 3) if mode == "RGB" else (height, width)
        pixels = np.random.default_rng(image_id).integers(0, 256, channels, dtype=np.uint8)
        PIL.Image.fromarray(pixels, mode).save(root / name)
        entries.append({"id": image_id, "file_name": name, "height": height, "width": width})
    categories = [{"id": i, "name": f"c{i}", "supercategory": "x"} for i in (1, 2, 3)]
    ann_file = tmp_path / "instances.json"
    ann_file.write_text(json.dumps({"images": entries, "annotations": annotations, "categories": categories}))
    return root, ann_file


# ------------------------------------------------------------------------------------------ reading
def test_bundled_sample() -> None:
    dataset = CocoDetection(SAMPLE_ROOT, SAMPLE_ANN)
    assert len(dataset) == 1
    image, annotations = dataset[0]
    assert isinstance(image, PIL.Image.Image) and image.mode == "RGB"
    assert image.size == (512, 512)
    assert [ann["id"] for ann in annotations] == [1]
    assert {"bbox", "category_id", "segmentation", "image_id"} <= set(annotations[0])


def test_order_follows_the_file(tmp_path: pathlib.Path) -> None:
    images = [(7, (8, 9)), (3, (10, 11)), (5, (12, 13))]
    anns = [make_annotation(10, 5), make_annotation(2, 7), make_annotation(4, 5), make_annotation(1, 7)]
    dataset = CocoDetection(*write_coco(tmp_path, images, anns))
    assert dataset.ids == [7, 3, 5]
    assert [image.size for image, _ in dataset] == [(9, 8), (11, 10), (13, 12)]
    assert [[ann["id"] for ann in target] for _, target in dataset] == [[2, 1], [], [10, 4]]
    assert dataset[-1][1] == dataset[2][1]
    with pytest.raises(IndexError):
        dataset[3]


def test_grayscale_image_becomes_rgb(tmp_path: pathlib.Path) -> None:
    dataset = CocoDetection(*write_coco(tmp_path, [(1, (5, 6))], [], mode="L"))
    image, target = dataset[0]
    assert image.mode == "RGB" and target == []


def test_string_paths_and_repr(tmp_path: pathlib.Path) -> None:
    root, ann_file = write_coco(tmp_path, [(1, (5, 6))], [])
    dataset = CocoDetection(str(root), str(ann_file))
    assert len(dataset) == 1
    assert "CocoDetection" in repr(dataset) and "size=1" in repr(dataset)


def test_annotations_are_copies(tmp_path: pathlib.Path) -> None:
    dataset = CocoDetection(*write_coco(tmp_path, [(1, (20, 20))], [make_annotation(1, 1)]))
    dataset[0][1][0]["bbox"] = "changed"
    assert dataset[0][1][0]["bbox"] == [2.0, 3.0, 10.0, 6.0]


def test_optional_annotations_key(tmp_path: pathlib.Path) -> None:
    root, ann_file = write_coco(tmp_path, [(1, (5, 6))], [])
    ann_file.write_text(json.dumps({"images": [{"id": 1, "file_name": "000001.png"}]}))
    assert CocoDetection(root, ann_file)[0][1] == []


# --------------------------------------------------------------------------------------- transforms
def test_transform_and_target_transform(tmp_path: pathlib.Path) -> None:
    paths = write_coco(tmp_path, [(1, (20, 20))], [make_annotation(1, 1), make_annotation(2, 1)])
    dataset = CocoDetection(*paths, transform=lambda image: image.size, target_transform=len)
    assert dataset[0] == ((20, 20), 2)
    only_target = CocoDetection(*paths, target_transform=len)
    assert isinstance(only_target[0][0], PIL.Image.Image) and only_target[0][1] == 2


def test_joint_transforms(tmp_path: pathlib.Path) -> None:
    paths = write_coco(tmp_path, [(1, (20, 20))], [make_annotation(1, 1)])
    dataset = CocoDetection(*paths, transforms=lambda image, target: (target[0]["id"], image.mode))
    assert dataset[0] == (1, "RGB")


def test_transforms_with_separate_transforms_is_an_error(tmp_path: pathlib.Path) -> None:
    paths = write_coco(tmp_path, [(1, (20, 20))], [])
    with pytest.raises(ValueError, match="transforms"):
        CocoDetection(*paths, transform=len, transforms=lambda i, t: (i, t))


# ------------------------------------------------------------------------------------------- errors
BAD_ANNOTATIONS = [
    pytest.param({"bbox": None}, "bbox must be 4", id="bbox-none"),
    pytest.param({"bbox": [1, 2, 3]}, "bbox must be 4", id="bbox-3-numbers"),
    pytest.param({"bbox": [1, 2, "3", 4]}, "bbox must be 4", id="bbox-string"),
    pytest.param({"bbox": [1, 2, float("nan"), 4]}, "bbox must be 4", id="bbox-nan"),
    pytest.param({"bbox": [1, 2, -3, 4]}, "negative size", id="negative-width"),
    pytest.param({"bbox": [1, 2, 3, -0.5]}, "negative size", id="negative-height"),
    pytest.param({"segmentation": [[1, 2, 3, 4]]}, "at least 3 points", id="polygon-2-points"),
    pytest.param({"segmentation": [[1, 2, 3, 4, 5, 6, 7]]}, "at least 3 points", id="polygon-odd"),
    pytest.param({"segmentation": [[1, 2, 3, 4, 5, 6], [1, 2]]}, "at least 3 points", id="second-polygon"),
    pytest.param({"segmentation": [["a", 2, 3, 4, 5, 6]]}, "flat list of numbers", id="polygon-string"),
    pytest.param({"segmentation": "rle"}, "list of polygons or an RLE", id="segmentation-string"),
    pytest.param({"segmentation": {"counts": [1, 2]}}, "'size'", id="rle-no-size"),
    pytest.param({"segmentation": {"size": [4, 4]}}, "'counts'", id="rle-no-counts"),
    pytest.param({"segmentation": {"size": [4, 4], "counts": 3}}, "'counts' must be", id="rle-bad-counts"),
    pytest.param({"segmentation": {"size": [4, 4], "counts": [3, 4]}}, "summing to", id="rle-short-counts"),
    pytest.param({"segmentation": {"size": [1, 2], "counts": [3, -1]}}, "non-negative", id="rle-negative-counts"),
    pytest.param({"image_id": 99}, "image_id=99 is not in 'images'", id="unknown-image"),
]


@pytest.mark.parametrize(("overrides", "message"), BAD_ANNOTATIONS)
def test_malformed_annotation(tmp_path: pathlib.Path, overrides: dict, message: str) -> None:
    anns = [make_annotation(1, 1), {**make_annotation(42, 1), **overrides}]
    paths = write_coco(tmp_path, [(1, (20, 20))], anns)
    with pytest.raises(ValueError, match=message) as info:
        CocoDetection(*paths)
    assert str(paths[1]) in str(info.value) and "annotation id=42" in str(info.value)


@pytest.mark.parametrize("key", ["id", "image_id", "category_id", "bbox"])
def test_annotation_missing_key(tmp_path: pathlib.Path, key: str) -> None:
    ann = make_annotation(42, 1)
    del ann[key]
    paths = write_coco(tmp_path, [(1, (20, 20))], [make_annotation(1, 1), ann])
    name = "annotation #1 (no 'id')" if key == "id" else "annotation id=42"
    with pytest.raises(ValueError, match="missing key") as info:
        CocoDetection(*paths)
    assert str(paths[1]) in str(info.value) and name in str(info.value) and repr(key) in str(info.value)


def _write_raw(tmp_path: pathlib.Path, data: Any) -> pathlib.Path:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param("{not json", "not a valid JSON", id="not-json"),
        pytest.param([1, 2], "'images' list", id="not-an-object"),
        pytest.param({"annotations": []}, "'images' list", id="no-images"),
        pytest.param({"images": [], "annotations": {}}, "'annotations' must be a list", id="annotations-dict"),
        pytest.param({"images": [{"id": 1}]}, r"image id=1: missing key\(s\) \['file_name'\]", id="image-no-file"),
        pytest.param({"images": [3]}, "image #0", id="image-not-dict"),
        pytest.param({"images": [{"id": 1, "file_name": "a"}] * 2}, "duplicate image id=1", id="duplicate-image"),
        pytest.param(
            {"images": [{"id": 1, "file_name": "a"}], "annotations": [make_annotation(4, 1), make_annotation(4, 1)]},
            "duplicate annotation id=4",
            id="duplicate-annotation",
        ),
    ],
)
def test_malformed_file(tmp_path: pathlib.Path, data: Any, message: str) -> None:
    path = _write_raw(tmp_path, data)
    with pytest.raises(ValueError, match=message) as info:
        CocoDetection(tmp_path, path)
    assert str(path) in str(info.value)


def test_missing_annotation_file(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.json"):
        CocoDetection(tmp_path, tmp_path / "nope.json")


def test_missing_image_file(tmp_path: pathlib.Path) -> None:
    root, ann_file = write_coco(tmp_path, [(1, (5, 6)), (2, (5, 6))], [])
    (root / "000002.png").unlink()
    dataset = CocoDetection(root, ann_file)
    assert dataset[0][0].size == (6, 5)
    with pytest.raises(FileNotFoundError, match=r"000002\.png \(image id=2 in .*instances\.json\) not found"):
        dataset[1]


@pytest.mark.parametrize("content", [b"", b"not an image at all", "truncated"])
def test_corrupt_image_file(tmp_path: pathlib.Path, content: bytes | str) -> None:
    root, ann_file = write_coco(tmp_path, [(1, (40, 40))], [])
    path = root / "000001.png"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if content == "truncated" else content)
    with pytest.raises(ValueError, match=r"000001\.png \(image id=1 in .*\) is corrupt"):
        CocoDetection(root, ann_file)[0]
