"""COCO key points (the bundled annotation, visiontx's and torchvision's CocoDetection) and draw_keypoints."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
import torch

import visiontx.transforms as T
from visiontx.datapoints import KeyPoints
from visiontx.datasets import CocoDetection, wrap_dataset_for_transforms_v2
from visiontx.utils import draw_keypoints

SAMPLE = pathlib.Path(__file__).parent.parent / "visiontx" / "assets" / "coco_sample"
ROOT, KEYPOINTS_ANN = SAMPLE / "images", SAMPLE / "person_keypoints.json"
COVERED = {"draw_keypoints"}


def _json() -> dict[str, Any]:
    return json.loads(KEYPOINTS_ANN.read_text())


# ----------------------------------------------------------------------------------------- COCO
def test_the_bundled_annotation_is_a_coco_person_key_point_file() -> None:
    data = _json()
    (category,) = data["categories"]
    (annotation,) = data["annotations"]
    assert category["name"] == "person" and len(category["keypoints"]) == 17 and category["keypoints"][0] == "nose"
    assert all(1 <= i <= 17 and 1 <= j <= 17 for i, j in category["skeleton"])
    flags = annotation["keypoints"][2::3]
    assert len(annotation["keypoints"]) == 51 and set(flags) == {0, 1, 2}
    assert annotation["num_keypoints"] == sum(v > 0 for v in flags)


def _check_target(target: dict[str, Any], spatial_size: tuple[int, int]) -> None:
    annotation = _json()["annotations"][0]
    triples = torch.tensor(annotation["keypoints"], dtype=torch.float32).reshape(1, 17, 3)
    points = target["keypoints"]
    assert type(points) is KeyPoints and points.shape == (1, 17, 2) and points.spatial_size == spatial_size
    assert torch.equal(points.as_subclass(torch.Tensor), triples[..., :2])
    assert points.visibility.tolist() == [[v > 0 for v in annotation["keypoints"][2::3]]]
    assert target["num_keypoints"] == [annotation["num_keypoints"]]
    assert target["labels"].tolist() == [1] and target["boxes"].shape == (1, 4)


def test_visiontx_coco_gives_key_points_with_coco_s_visibility() -> None:
    dataset = wrap_dataset_for_transforms_v2(
        CocoDetection(ROOT, KEYPOINTS_ANN), target_keys={"boxes", "labels", "keypoints", "num_keypoints"}
    )
    image, target = dataset[0]
    _check_target(target, (image.height, image.width))


def test_torchvision_coco_wrapped_by_visiontx_gives_the_same() -> None:
    datasets = pytest.importorskip("torchvision.datasets")
    pytest.importorskip("pycocotools")
    keys = {"boxes", "labels", "keypoints", "num_keypoints"}
    dataset = wrap_dataset_for_transforms_v2(datasets.CocoDetection(str(ROOT), str(KEYPOINTS_ANN)), target_keys=keys)
    image, target = dataset[0]
    _check_target(target, (image.height, image.width))


def test_coco_key_points_go_through_a_pipeline_with_their_visibility() -> None:
    transforms = T.Compose([T.ToImageTensor(), T.RandomHorizontalFlip(1.0), T.CenterCrop(300)])
    dataset = wrap_dataset_for_transforms_v2(
        CocoDetection(ROOT, KEYPOINTS_ANN, transforms=transforms), target_keys={"keypoints"}
    )
    _, target = dataset[0]
    points = target["keypoints"]
    flags = _json()["annotations"][0]["keypoints"][2::3]
    xs, ys = points[0].as_subclass(torch.Tensor).unbind(-1)
    inside = ((xs >= 0) & (xs < 300) & (ys >= 0) & (ys < 300)).tolist()
    assert points.spatial_size == (300, 300)
    assert points.visibility[0].tolist() == [v > 0 and i for v, i in zip(flags, inside)]
    assert points.visibility.sum() < sum(v > 0 for v in flags)  # the crop took some off the canvas


def _write(tmp_path: pathlib.Path, annotations: list[dict[str, Any]], categories: list[dict[str, Any]]) -> pathlib.Path:
    path = tmp_path / "keypoints.json"
    image = {"id": 1, "file_name": "000000000001.jpg", "height": 512, "width": 512}
    path.write_text(json.dumps({"images": [image], "annotations": annotations, "categories": categories}))
    return path


def test_annotations_without_key_points_give_invisible_rows(tmp_path: pathlib.Path) -> None:
    categories = [{"id": 1, "name": "person", "keypoints": ["a", "b"]}, {"id": 2, "name": "dog"}]
    annotations = [
        {"id": 1, "image_id": 1, "category_id": 2, "bbox": [0, 0, 5, 5]},
        {"id": 2, "image_id": 1, "category_id": 1, "bbox": [0, 0, 5, 5], "keypoints": [3, 4, 2, 7, 8, 1]},
    ]
    dataset = wrap_dataset_for_transforms_v2(
        CocoDetection(ROOT, _write(tmp_path, annotations, categories)), {"keypoints"}
    )
    points = dataset[0][1]["keypoints"]
    assert points.tolist() == [[[0.0, 0.0], [0.0, 0.0]], [[3.0, 4.0], [7.0, 8.0]]]
    assert points.visibility.tolist() == [[False, False], [True, True]]
    only_dogs = wrap_dataset_for_transforms_v2(
        CocoDetection(ROOT, _write(tmp_path, annotations[:1], categories)), {"keypoints"}
    )
    assert only_dogs[0][1]["keypoints"].shape == (1, 2, 2)  # K from the categories


@pytest.mark.parametrize(
    ("keypoints", "match"),
    [([1, 2], "flat list of finite numbers"), ([1, 2, 3], "flags v must be 0, 1 or 2"), ([1, "a", 2], "finite")],
)
def test_malformed_key_points_are_refused(tmp_path: pathlib.Path, keypoints: list, match: str) -> None:
    annotations = [{"id": 7, "image_id": 1, "category_id": 1, "bbox": [0, 0, 5, 5], "keypoints": keypoints}]
    with pytest.raises(ValueError, match=f"annotation id=7: .*{match}"):
        CocoDetection(ROOT, _write(tmp_path, annotations, [{"id": 1, "name": "person"}]))


def test_key_point_counts_must_agree_within_an_image(tmp_path: pathlib.Path) -> None:
    annotations = [
        {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 5, 5], "keypoints": [1, 1, 2]},
        {"id": 2, "image_id": 1, "category_id": 1, "bbox": [0, 0, 5, 5], "keypoints": [1, 1, 2, 3, 3, 2]},
    ]
    dataset = wrap_dataset_for_transforms_v2(CocoDetection(ROOT, _write(tmp_path, annotations, [])), {"keypoints"})
    with pytest.raises(ValueError, match="different numbers of key points"):
        dataset[0]


# ------------------------------------------------------------------------------------- drawing
POINTS = torch.tensor([[[10.0, 10.0], [30.0, 40.0], [50.0, 20.0]], [[5.0, 45.0], [25.3, 5.7], [55.0, 35.0]]])
VISIBILITY = torch.tensor([[True, True, False], [True, True, True]])
EDGES = [(0, 1), (1, 2)]


def _image(dtype: torch.dtype = torch.uint8) -> torch.Tensor:
    image = torch.randint(0, 256, (3, 50, 60), generator=torch.Generator().manual_seed(0), dtype=torch.uint8)
    return image if dtype == torch.uint8 else image.to(dtype) / 255


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(connectivity=EDGES),
        dict(connectivity=EDGES, visibility=VISIBILITY, radius=4, width=1),
        dict(connectivity=EDGES, visibility=VISIBILITY[..., None]),
        dict(colors="red", radius=3),
        dict(colors=(240, 10, 157), visibility=VISIBILITY),
    ],
)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_draw_keypoints_matches_torchvision(kwargs: dict[str, Any], dtype: torch.dtype) -> None:
    utils = pytest.importorskip("torchvision.utils")
    image = _image(dtype)
    before = image.clone()
    ours = draw_keypoints(image, POINTS, **kwargs)
    assert torch.equal(image, before) and ours.dtype == dtype and ours.shape == image.shape
    assert torch.equal(ours, utils.draw_keypoints(image, POINTS, **kwargs))


def test_draw_keypoints_uses_the_key_points_visibility_and_skips_hidden_edges() -> None:
    utils = pytest.importorskip("torchvision.utils")
    points = KeyPoints(POINTS, canvas_size=(50, 60), visibility=VISIBILITY)
    ours = draw_keypoints(_image(), points, connectivity=EDGES)
    assert torch.equal(ours, utils.draw_keypoints(_image(), POINTS, connectivity=EDGES, visibility=VISIBILITY))
    everything = draw_keypoints(_image(), points, connectivity=EDGES, visibility=torch.ones(2, 3, dtype=torch.bool))
    assert not torch.equal(everything, ours)
    blank = torch.zeros(3, 50, 60, dtype=torch.uint8)
    hidden = draw_keypoints(blank, KeyPoints(POINTS, canvas_size=(50, 60), visibility=torch.zeros(2, 3).bool()), EDGES)
    assert torch.equal(hidden, blank)


def test_draw_keypoints_colors_its_lines_and_takes_one_channel() -> None:
    blank = torch.zeros(1, 50, 60, dtype=torch.uint8)
    out = draw_keypoints(blank, POINTS[:1, :2], connectivity=[(0, 1)], colors="red", radius=0, width=1)
    assert out.shape == (3, 50, 60) and out[0, 25, 20] == 255 and out[1:, 25, 20].eq(0).all()  # on the line


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(keypoints=POINTS[0]), ValueError, r"keypoints must have shape \[N, K, 2\]"),
        (dict(keypoints=POINTS.tolist()), TypeError, "keypoints must be a tensor"),
        (dict(visibility=VISIBILITY[:1]), ValueError, "visibility must have shape"),
        (dict(visibility=[[True] * 3] * 2), TypeError, "visibility must be a tensor"),
        (dict(connectivity=[(0, 3)]), ValueError, "connectivity must hold pairs of point indices"),
        (dict(connectivity=[(0,)]), ValueError, "connectivity must hold pairs of point indices"),
        (dict(radius=-1), ValueError, "radius must be non-negative"),
        (dict(width=-2), ValueError, "width must be non-negative"),
        (dict(radius="2"), TypeError, "radius must be a number"),
        (dict(colors="nocolor"), ValueError, "colors: unknown color"),
        (dict(image=torch.zeros(3, 5, 5, dtype=torch.int32)), ValueError, "image must be uint8 or float"),
    ],
)
def test_draw_keypoints_bad_input(kwargs: dict[str, Any], error: type, match: str) -> None:
    arguments = {"image": _image(), "keypoints": POINTS, **kwargs}
    with pytest.raises(error, match=match):
        draw_keypoints(**arguments)


def test_draw_keypoints_takes_connectivity_as_a_tensor() -> None:
    edges = torch.tensor(EDGES)
    assert torch.equal(draw_keypoints(_image(), POINTS, connectivity=edges), draw_keypoints(_image(), POINTS, EDGES))
