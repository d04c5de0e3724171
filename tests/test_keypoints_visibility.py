"""Key points' visibility: the datapoint, every op keeping it, points leaving the canvas hidden, clamping
and sanitizing (against torchvision 0.29 where it has them)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx import _torchvision_interop as interop
from visiontx.datapoints import BoundingBox, KeyPoints

from .common import Case, make_image

SIZE = (30, 40)  # H, W
COVERED = {"clamp_keypoints", "get_size_keypoints", "sanitize_keypoints"}
TRANSFORM_CASES = {
    T.ClampKeyPoints: [Case(types=(KeyPoints,))],
    T.SanitizeKeyPoints: [Case(types=(KeyPoints,)), Case(dict(remove=False), types=(KeyPoints,))],
}


def _points(visibility: Any = (True, True, False, True)) -> KeyPoints:
    data = [[1.0, 2.0], [38.0, 20.0], [5.0, 5.0], [20.0, 29.0]]
    return KeyPoints(data, canvas_size=SIZE, visibility=None if visibility is None else list(visibility))


def _plain(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.as_subclass(torch.Tensor)


# ------------------------------------------------------------------------------------ the datapoint
def test_visibility_is_optional_metadata_of_the_leading_shape() -> None:
    assert KeyPoints([[1, 2]], canvas_size=SIZE).visibility is None
    points = KeyPoints(torch.zeros(2, 17, 2), canvas_size=SIZE, visibility=torch.ones(2, 17, dtype=torch.bool))
    assert points.visibility.shape == (2, 17) and points.visibility.dtype == torch.bool
    assert type(points.visibility) is torch.Tensor
    assert _points().visibility.tolist() == [True, True, False, True]


@pytest.mark.parametrize(
    ("visibility", "error", "match"),
    [
        ([True, False], ValueError, r"visibility must have the key points' leading shape \(4,\), got \(2,\)"),
        (torch.ones(4, 1, dtype=torch.bool), ValueError, "visibility must have the key points' leading shape"),
        ([1, 0, 1, 1], ValueError, "visibility must be a bool tensor, got dtype torch.int64"),
        (torch.ones(4), ValueError, "visibility must be a bool tensor, got dtype torch.float32"),
        ("yes", TypeError, "visibility must be a bool tensor or None"),
    ],
)
def test_bad_visibility_is_refused_by_name(visibility: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        KeyPoints(torch.zeros(4, 2), canvas_size=SIZE, visibility=visibility)


def test_wrap_like_inherits_overrides_and_checks_visibility() -> None:
    points = _points()
    assert KeyPoints.wrap_like(points, torch.ones(4, 2)).visibility.tolist() == [True, True, False, True]
    assert KeyPoints.wrap_like(points, torch.ones(4, 2), visibility=None).visibility is None
    other = torch.tensor([False] * 4)
    assert KeyPoints.wrap_like(points, torch.ones(4, 2), visibility=other).visibility.tolist() == [False] * 4
    with pytest.raises(ValueError, match="visibility must have the key points' leading shape"):
        KeyPoints.wrap_like(points, torch.ones(3, 2))  # inherited, no longer fits: pass visibility


def test_pickle_deepcopy_repr_clone_and_to_keep_visibility() -> None:
    points = _points()
    for copied in (pickle.loads(pickle.dumps(points)), copy.deepcopy(points), points.clone(), points.to(torch.float64)):
        assert type(copied) is KeyPoints and copied.visibility.tolist() == [True, True, False, True]
    deep = copy.deepcopy(points)
    deep.visibility[0] = False
    assert points.visibility[0]  # a deep copy owns its visibility
    assert "visibility=tensor([ True,  True, False,  True])" in repr(points)


def test_torchvision_interop_drops_visibility_one_way_and_has_none_back() -> None:
    tvt = pytest.importorskip("torchvision.tv_tensors")
    theirs = tvt.KeyPoints([[1.0, 2.0]], canvas_size=SIZE)
    assert interop.to_native(theirs).visibility is None
    back = interop.to_torchvision(_points(), like=theirs)
    assert type(back) is tvt.KeyPoints and not hasattr(back, "visibility")
    assert torch.equal(_plain(back), _plain(_points())) and tuple(back.canvas_size) == SIZE
    flipped = T.RandomHorizontalFlip(1.0)(theirs)
    assert type(flipped) is tvt.KeyPoints


# ------------------------------------------------------------------ every op keeps it, off-canvas hidden
def _expected(points: torch.Tensor, visibility: list[bool], size: tuple[int, int]) -> list[bool]:
    """The reference: visible and inside ``0 <= x < W``, ``0 <= y < H``, point by point."""
    height, width = size
    return [v and 0 <= x < width and 0 <= y < height for (x, y), v in zip(points.tolist(), visibility)]


OPS = {
    "horizontal_flip": lambda p: F.horizontal_flip(p),
    "vertical_flip": lambda p: F.vertical_flip(p),
    "crop": lambda p: F.crop(p, 3, 2, 15, 20),
    "center_crop": lambda p: F.center_crop(p, [20, 24]),
    "center_crop_pad": lambda p: F.center_crop(p, [40, 50]),
    "resized_crop": lambda p: F.resized_crop(p, 0, 0, 20, 20, [40, 40]),
    "pad": lambda p: F.pad(p, [2, 3]),
    "resize": lambda p: F.resize(p, [15, 20]),
    "affine": lambda p: F.affine(p, 0.0, [10, -3], 1.0, [0.0, 0.0]),
    "rotate": lambda p: F.rotate(p, 45.0),
    "rotate_expand": lambda p: F.rotate(p, 45.0, expand=True),
    "perspective": lambda p: F.perspective(
        p, [[0, 0], [39, 0], [39, 29], [0, 29]], [[5, 5], [30, 2], [39, 29], [0, 20]]
    ),
    "elastic": lambda p: F.elastic(p, torch.full((1, *SIZE, 2), 0.3)),
    "warp": lambda p: F.warp(p, F.geometry_of("affine", SIZE, angle=10, translate=[-8, 4], scale=1.3, shear=[0, 0])),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_op_keeps_visibility_and_hides_points_it_moves_off_the_canvas(name: str) -> None:
    points = _points()
    out = OPS[name](points)
    assert out.visibility.shape == (4,) and out.visibility.device == out.device
    assert out.visibility.tolist() == _expected(_plain(out), points.visibility.tolist(), out.spatial_size)
    untracked = OPS[name](_points(None))
    assert untracked.visibility is None and torch.equal(_plain(untracked), _plain(out))  # same points


def test_crop_hides_exactly_the_points_it_leaves_out() -> None:
    out = F.crop(_points(), 3, 2, 15, 20)  # x in [2, 22), y in [3, 18)
    assert out.tolist() == [[-1.0, -1.0], [36.0, 17.0], [3.0, 2.0], [18.0, 26.0]]
    assert out.visibility.tolist() == [False, False, False, False]
    out = F.crop(_points(), 0, 0, 30, 39)  # only x = 38 of the second point stays inside
    assert out.visibility.tolist() == [True, True, False, True]


def test_a_hidden_point_stays_hidden_when_it_comes_back() -> None:
    points = _points([True] * 4)
    away = F.affine(points, 0.0, [40, 0], 1.0, [0.0, 0.0])
    back = F.affine(away, 0.0, [-40, 0], 1.0, [0.0, 0.0])
    torch.testing.assert_close(_plain(back), _plain(points))
    assert away.visibility.tolist() == [False, False, False, False] == back.visibility.tolist()


def test_visibility_on_the_device_of_the_points_after_to() -> None:
    points = _points().to(torch.float64)
    assert points.visibility.device == points.device
    if torch.cuda.is_available():
        moved = _points().to("cuda")
        assert moved.visibility.device.type == "cuda" and F.rotate(moved, 30.0).visibility.device.type == "cuda"


PIPELINES = {
    "fused": lambda: T.Compose(
        [T.RandomRotation(40), T.RandomResizedCrop((20, 24), scale=(0.3, 0.6))], fuse_geometry=True
    ),
    "unfused": lambda: T.Compose([T.RandomRotation(40), T.RandomResizedCrop((20, 24), scale=(0.3, 0.6))]),
    "random_apply": lambda: T.RandomApply([T.RandomAffine(0, translate=(0.5, 0.5))], p=1.0),
    "random_choice": lambda: T.RandomChoice([T.RandomCrop((12, 12)), T.RandomZoomOut(p=1.0)]),
    "random_order": lambda: T.RandomOrder([T.RandomHorizontalFlip(1.0), T.RandomCrop((15, 15))]),
    "iou_crop": lambda: T.RandomIoUCrop(),
    "scale_jitter": lambda: T.ScaleJitter((20, 20)),
    "elastic": lambda: T.ElasticTransform(alpha=200.0),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_transforms_and_containers_keep_visibility(name: str) -> None:
    points = KeyPoints(
        torch.rand(6, 17, 2) * torch.tensor([40.0, 30.0]),
        canvas_size=SIZE,
        visibility=torch.rand(6, 17, generator=torch.Generator().manual_seed(0)) < 0.8,
    )
    for seed in range(4):
        torch.manual_seed(seed)
        boxes = BoundingBox([[2, 2, 30, 25]], format="XYXY", canvas_size=SIZE)
        sample = {"image": make_image(SIZE), "points": points, "boxes": boxes, "text": "text"}
        out = PIPELINES[name]()(sample)["points"]
        assert type(out) is KeyPoints and out.visibility.shape == (6, 17)
        expected = _expected(_plain(out).reshape(-1, 2), points.visibility.reshape(-1).tolist(), out.spatial_size)
        assert out.visibility.reshape(-1).tolist() == expected


def test_fused_runs_hide_the_same_points_as_unfused_ones() -> None:
    points = KeyPoints(
        torch.rand(40, 2) * torch.tensor([40.0, 30.0]), canvas_size=SIZE, visibility=torch.ones(40).bool()
    )
    steps = [T.RandomRotation(40), T.RandomPerspective(0.4, p=1.0), T.CenterCrop(20)]
    outputs = []
    for fuse in (False, True):
        torch.manual_seed(3)
        outputs.append(T.Compose(steps, fuse_geometry=fuse)(make_image(SIZE), points)[1])
    close = (_plain(outputs[0]) - _plain(outputs[1])).abs().max() < 1e-4
    assert close and 0 < outputs[0].visibility.sum() < 40
    assert torch.equal(outputs[0].visibility, outputs[1].visibility)


def test_pixel_only_transforms_pass_the_visibility_through() -> None:
    points = _points()
    _, out = T.ColorJitter(0.5)(make_image(SIZE), points)
    assert out is points


# ------------------------------------------------------------------------------------------ clamp
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_clamp_keypoints_matches_torchvision(dtype: torch.dtype) -> None:
    tvt = pytest.importorskip("torchvision.tv_tensors")
    from torchvision.transforms.v2 import functional as tvF

    data = torch.tensor([[-3.5, 2.0], [45.0, 31.0], [39.5, 29.4], [10.0, -1.0], [5.0, 5.0]]).to(dtype)
    expected = tvF.clamp_keypoints(data, canvas_size=SIZE)
    ours = F.clamp_keypoints(data, canvas_size=SIZE)
    assert type(ours) is torch.Tensor and ours.dtype == dtype and torch.equal(ours, expected)
    points = F.clamp_keypoints(KeyPoints(data, canvas_size=SIZE))
    assert type(points) is KeyPoints and torch.equal(_plain(points), expected) and points.visibility is None
    theirs = F.clamp_keypoints(tvt.KeyPoints(data, canvas_size=SIZE))
    assert type(theirs) is tvt.KeyPoints and torch.equal(_plain(theirs), expected)
    transformed = T.ClampKeyPoints()(KeyPoints(data, canvas_size=SIZE))
    assert torch.equal(_plain(transformed), expected)


def test_clamp_hides_the_points_that_were_off_the_canvas() -> None:
    data = [[-3.5, 2.0], [45.0, 20.0], [39.5, 29.4], [5.0, 5.0]]  # the third is on the canvas, clamped to 39
    points = KeyPoints(data, canvas_size=SIZE, visibility=[True, True, True, False])
    out = T.ClampKeyPoints()(points)
    assert out.tolist() == [[0.0, 2.0], [39.0, 20.0], [39.0, 29.0], [5.0, 5.0]]
    assert out.visibility.tolist() == [False, False, True, False]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: F.clamp_keypoints(torch.zeros(3, 2)), ValueError, "canvas_size must be given"),
        (lambda: F.clamp_keypoints(_points(), canvas_size=SIZE), ValueError, "canvas_size must be None"),
        (lambda: F.clamp_keypoints([[1, 2]], canvas_size=SIZE), TypeError, "supports KeyPoints and torch.Tensor"),
        (lambda: F.clamp_keypoints(torch.zeros(3, 3), canvas_size=SIZE), ValueError, r"shape \[\.\.\., 2\]"),
        (lambda: F.sanitize_keypoints(torch.zeros(3, 2)), ValueError, "canvas_size must be given"),
        (lambda: F.sanitize_keypoints(torch.zeros(3, 2), SIZE, remove=False), ValueError, "remove=False"),
        (lambda: F.sanitize_keypoints(_points(), remove="no"), TypeError, "remove must be a bool"),
        (lambda: T.SanitizeKeyPoints(remove=1), TypeError, "remove must be a bool"),
        (lambda: T.SanitizeKeyPoints()(make_image(SIZE)), ValueError, "must contain KeyPoints"),
        (lambda: T.SanitizeKeyPoints(lambda s: s[1])(_points(), torch.arange(3)), ValueError, "do not match the 4"),
        (lambda: T.SanitizeKeyPoints(labels_getter=3), ValueError, "labels_getter must be"),
    ],
)
def test_bad_input_errors(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


# --------------------------------------------------------------------------------------- sanitize
SANITIZE_INPUTS = {
    "points": torch.tensor([[1.0, 2.0], [40.0, 5.0], [39.9, 29.9], [-0.1, 3.0], [0.0, 0.0], [3.0, 30.0]]),
    "groups": torch.tensor([[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [40.0, 4.0]], [[0.0, 0.0], [39.0, 29.0]]]),
    "empty": torch.zeros(0, 2),
}


@pytest.mark.parametrize("name", sorted(SANITIZE_INPUTS))
def test_sanitize_without_visibility_matches_torchvision(name: str) -> None:
    tvt = pytest.importorskip("torchvision.tv_tensors")
    from torchvision.transforms.v2 import functional as tvF

    data = SANITIZE_INPUTS[name]
    expected, expected_valid = tvF.sanitize_keypoints(data, canvas_size=SIZE)
    ours, valid = F.sanitize_keypoints(data, canvas_size=SIZE)
    assert torch.equal(ours, expected) and torch.equal(valid, expected_valid)
    ours, valid = F.sanitize_keypoints(KeyPoints(data, canvas_size=SIZE))
    assert type(ours) is KeyPoints and ours.visibility is None and torch.equal(_plain(ours), expected)
    theirs, _ = F.sanitize_keypoints(tvt.KeyPoints(data, canvas_size=SIZE))
    assert type(theirs) is tvt.KeyPoints and torch.equal(_plain(theirs), expected)
    labels = torch.arange(data.shape[0])
    sample = T.SanitizeKeyPoints(labels_getter="default")(
        {"keypoints": KeyPoints(data, canvas_size=SIZE), "labels": labels}
    )
    tv_sample = pytest.importorskip("torchvision.transforms.v2").SanitizeKeyPoints(labels_getter="default")(
        {"keypoints": tvt.KeyPoints(data, canvas_size=SIZE), "labels": labels}
    )
    assert torch.equal(_plain(sample["keypoints"]), _plain(tv_sample["keypoints"]))
    assert torch.equal(sample["labels"], tv_sample["labels"])


def test_sanitize_points_with_visibility_removes_hidden_ones_with_their_labels() -> None:
    points = KeyPoints(SANITIZE_INPUTS["points"], canvas_size=SIZE, visibility=[True, True, False, True, True, True])
    labels, scores = torch.tensor([10, 11, 12, 13, 14, 15]), torch.arange(6) * 0.5
    image = make_image(SIZE)
    out_image, target = T.SanitizeKeyPoints(labels_getter=lambda s: (s[1]["labels"], s[1]["scores"]))(
        image, {"points": points, "labels": labels, "scores": scores}
    )
    assert out_image is image
    assert target["points"].tolist() == [[1.0, 2.0], [0.0, 0.0]] and target["points"].visibility.tolist() == [
        True,
        True,
    ]
    assert target["labels"].tolist() == [10, 14] and target["scores"].tolist() == [0.0, 2.0]


def test_sanitize_groups_with_visibility_keeps_partly_visible_skeletons_and_hides_their_lost_joints() -> None:
    data = torch.tensor(
        [
            [[1.0, 2.0], [45.0, 4.0], [3.0, 3.0]],  # one joint off the canvas: kept, that joint hidden
            [[1.0, 2.0], [2.0, 2.0], [3.0, 3.0]],  # all hidden: removed
            [[-1.0, 0.0], [50.0, 0.0], [0.0, 31.0]],  # all off the canvas: removed
            [[5.0, 5.0], [6.0, 6.0], [7.0, 7.0]],  # one hidden: kept as it is
        ]
    )
    visibility = torch.tensor([[True, True, True], [False, False, False], [True, True, True], [True, False, True]])
    points = KeyPoints(data, canvas_size=SIZE, visibility=visibility)
    kept, valid = F.sanitize_keypoints(points)
    assert valid.tolist() == [True, False, False, True]
    assert torch.equal(_plain(kept), data[[0, 3]])
    assert kept.visibility.tolist() == [[True, False, True], [True, False, True]]
    sample = T.SanitizeKeyPoints(labels_getter="default")({"keypoints": points, "labels": torch.tensor([1, 2, 3, 4])})
    assert sample["labels"].tolist() == [1, 4] and torch.equal(sample["keypoints"].visibility, kept.visibility)


def test_sanitize_remove_false_flags_instead_of_removing() -> None:
    data = SANITIZE_INPUTS["points"]
    labels = torch.arange(6)
    sample = T.SanitizeKeyPoints(labels_getter="default", remove=False)(
        {"keypoints": KeyPoints(data, canvas_size=SIZE), "labels": labels}
    )
    assert sample["labels"] is labels and torch.equal(_plain(sample["keypoints"]), data)
    assert sample["keypoints"].visibility.tolist() == [True, False, True, False, True, False]
    hidden = KeyPoints(data, canvas_size=SIZE, visibility=[False, True, True, True, True, True])
    flagged, valid = F.sanitize_keypoints(hidden, remove=False)
    assert flagged.visibility.tolist() == valid.tolist() == [False, False, True, False, True, False]


def test_get_size_of_key_points() -> None:
    assert F.get_size(_points()) == [30, 40] == F.get_size_keypoints(_points())
