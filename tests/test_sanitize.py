"""SanitizeBoundingBox: degenerate boxes go, with their labels and instance masks, all staying aligned."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Mask

from .common import AXIS_ALIGNED
from .common import Case, assert_equal, make_bounding_box, make_image

TRANSFORM_CASES = {
    T.SanitizeBoundingBox: [
        Case(dict(labels_getter=None), types=(BoundingBox,)),
        Case(dict(min_size=2.0, min_area=5.0, labels_getter=None), types=(BoundingBox,)),
    ]
}

SIZE = (20, 30)  # H, W


def _is_valid_reference(box: list[float], min_size: float, min_area: float) -> bool:
    """Loop reference on one float32 XYXY box (sizes and area in float32, as the boxes' own dtype)."""
    x1, y1, x2, y2 = box
    if not all(math.isfinite(c) for c in box) or min(box) < 0:
        return False
    if x1 > SIZE[1] or x2 > SIZE[1] or y1 > SIZE[0] or y2 > SIZE[0]:
        return False
    w, h = np.float32(x2) - np.float32(x1), np.float32(y2) - np.float32(y1)
    return bool(w >= min_size and h >= min_size and w * h >= min_area)


def _instance_masks(n: int) -> Mask:
    """Mask k is filled with k + 1 so a mask can be traced back to its box."""
    return Mask(torch.arange(1, n + 1, dtype=torch.int64).view(n, 1, 1).expand(n, *SIZE).clone())


coordinate = st.one_of(
    st.floats(-5, 35, allow_nan=False, width=32), st.sampled_from([float("nan"), float("inf"), -float("inf")])
)


@settings(max_examples=30, deadline=None)
@given(
    boxes=st.lists(st.tuples(coordinate, coordinate, coordinate, coordinate), min_size=0, max_size=12),
    min_size=st.sampled_from([1.0, 2.5]),
    min_area=st.sampled_from([1.0, 10.0]),
    format=st.sampled_from(AXIS_ALIGNED),
)
def test_sanitize_never_misaligns_boxes_labels_and_masks(boxes, min_size, min_area, format) -> None:
    xyxy = torch.tensor(boxes, dtype=torch.float32).reshape(-1, 4)
    n = xyxy.shape[0]
    in_format = F.convert_format_bounding_box(xyxy, old_format="XYXY", new_format=format)
    sample = {
        "image": make_image(SIZE),
        "boxes": BoundingBox(in_format, format=format, spatial_size=SIZE),
        "masks": _instance_masks(n),
        "labels": torch.arange(n),
    }
    out = T.SanitizeBoundingBox(min_size=min_size, min_area=min_area)(sample)
    kept = out["labels"]
    assert out["image"] is sample["image"]
    assert type(out["boxes"]) is BoundingBox and out["boxes"].format == BoundingBoxFormat.parse(format)
    assert type(out["masks"]) is Mask
    assert_equal(out["boxes"], sample["boxes"][kept], equal_nan=True)
    assert_equal(out["masks"], sample["masks"][kept])
    # the boxes as the transform sees them: the float32 format round trip can move a coordinate
    seen = F.convert_format_bounding_box(in_format, old_format=format, new_format="XYXY")
    for k, box in enumerate(seen.tolist()):
        assert _is_valid_reference(box, min_size, min_area) == (k in kept.tolist())
    assert len(out["boxes"]) == len(kept)


def _detection_sample():
    boxes = BoundingBox(
        [[0, 0, 10, 10], [5, 5, 5.5, 9], [2, 3, 28, 19], [1, 1, 40, 5], [3, 3, 2, 8]], format="XYXY", spatial_size=SIZE
    )
    return make_image(SIZE), {
        "boxes": boxes,
        "labels": torch.tensor([10, 11, 12, 13, 14]),
        "iscrowd": torch.tensor([0, 1, 0, 1, 0]),
        "masks": _instance_masks(5),
    }


def test_sanitize_default_heuristic_tuple_sample() -> None:
    image, target = _detection_sample()
    out_image, out = T.SanitizeBoundingBox()(image, target)
    assert out_image is image
    assert out["labels"].tolist() == [10, 12]
    assert out["iscrowd"] is target["iscrowd"]  # not a label: untouched
    assert out["masks"][:, 0, 0].tolist() == [1, 3]
    assert out["boxes"].tolist() == [[0, 0, 10, 10], [2, 3, 28, 19]]


def test_sanitize_callable_returning_several_tensors() -> None:
    image, target = _detection_sample()
    out = T.SanitizeBoundingBox(labels_getter=lambda s: (s[1]["labels"], s[1]["iscrowd"]))(image, target)[1]
    assert out["labels"].tolist() == [10, 12] and out["iscrowd"].tolist() == [0, 0]


def test_sanitize_labels_getter_none_filters_boxes_and_masks_only() -> None:
    image, target = _detection_sample()
    out = T.SanitizeBoundingBox(labels_getter=None)(image, target)[1]
    assert out["labels"] is target["labels"]
    assert len(out["boxes"]) == 2 and out["masks"].shape[0] == 2


def test_sanitize_dict_sample_case_insensitive_key_and_semantic_mask() -> None:
    boxes = BoundingBox([[0, 0, 4, 4], [1, 1, 1, 1]], format="XYXY", spatial_size=(2, 6))
    semantic = Mask(torch.ones(2, 6))  # leading dim equals the number of boxes, but it is H x W
    sample = {"boxes": boxes, "LABELS": torch.tensor([1, 2]), "semantic": semantic}
    out = T.SanitizeBoundingBox()(sample)
    assert out["LABELS"].tolist() == [] and out["semantic"] is semantic  # [0,0,4,4] leaves the 2 x 6 image
    out = T.SanitizeBoundingBox()({"boxes": boxes, "class_label": torch.tensor([1, 2])})
    assert out["class_label"].shape == (0,)


def test_sanitize_min_size_and_min_area() -> None:
    boxes = BoundingBox([[0, 0, 2, 2], [0, 0, 3, 1.5], [0, 0, 10, 10]], format="XYXY", spatial_size=SIZE)
    keep = lambda **kw: T.SanitizeBoundingBox(labels_getter=None, **kw)(boxes).tolist()  # noqa: E731
    assert len(keep()) == 3
    assert keep(min_size=2.0) == [[0, 0, 2, 2], [0, 0, 10, 10]]
    assert keep(min_area=5.0) == [[0, 0, 10, 10]]


def test_sanitize_returns_the_sample_when_no_box_goes() -> None:
    boxes = BoundingBox([[0, 0, 10, 10], [2, 3, 28, 19]], format="XYXY", spatial_size=SIZE)
    target = {"boxes": boxes, "labels": torch.tensor([1, 2]), "masks": _instance_masks(2)}
    image = make_image(SIZE)
    out_image, out = T.SanitizeBoundingBox()(image, target)
    assert out_image is image and out is target  # no copies
    boxes[1, 2:] = boxes[1, :2]  # now a zero-size box goes
    out = T.SanitizeBoundingBox()(image, target)[1]
    assert out["labels"].tolist() == [1] and out["masks"].shape[0] == 1 and out["boxes"].tolist() == [[0, 0, 10, 10]]


def test_sanitize_empty_boxes() -> None:
    boxes = BoundingBox(torch.zeros(0, 4), format="XYWH", spatial_size=SIZE)
    masks = Mask(torch.zeros(0, *SIZE))
    out = T.SanitizeBoundingBox()({"boxes": boxes, "labels": torch.zeros(0, dtype=torch.long), "masks": masks})
    assert out["boxes"].shape == (0, 4) and out["labels"].shape == (0,) and out["masks"].shape == (0, *SIZE)


def test_sanitize_matches_torchvision() -> None:
    tv = pytest.importorskip("torchvision.transforms.v2")
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    torch.manual_seed(0)
    xyxy = torch.rand(50, 4) * 40 - 5
    boxes = BoundingBox(xyxy, format="XYXY", spatial_size=SIZE)
    ours = T.SanitizeBoundingBox()({"boxes": boxes, "labels": torch.arange(50)})
    theirs = tv.SanitizeBoundingBoxes()(
        {"boxes": tv_tensors.BoundingBoxes(xyxy, format="XYXY", canvas_size=SIZE), "labels": torch.arange(50)}
    )
    assert ours["labels"].tolist() == theirs["labels"].tolist() and len(ours["labels"]) > 0


def test_sanitize_errors() -> None:
    image, target = _detection_sample()
    with pytest.raises(ValueError, match="BoundingBox"):
        T.SanitizeBoundingBox(labels_getter=None)(image)
    with pytest.raises(ValueError, match="labels"):
        T.SanitizeBoundingBox()(image, {"boxes": target["boxes"]})
    with pytest.raises(ValueError, match="labels_getter"):
        T.SanitizeBoundingBox()(image, target["boxes"], target["labels"])
    with pytest.raises(ValueError, match="match"):
        T.SanitizeBoundingBox()({"boxes": target["boxes"], "labels": torch.arange(3)})
    with pytest.raises(TypeError, match="labels_getter"):
        T.SanitizeBoundingBox(labels_getter=lambda s: [1, 2])(image, target)
    batched = BoundingBox(torch.zeros(2, 3, 4), format="XYXY", spatial_size=(10, 10))
    with pytest.raises(ValueError, match="N x 4"):
        T.SanitizeBoundingBox(labels_getter=None)(batched)
    for kwargs in (dict(min_size=0), dict(min_area=-1), dict(labels_getter="labels")):
        with pytest.raises(ValueError):
            T.SanitizeBoundingBox(**kwargs)


def test_sanitize_repr_and_generic_boxes() -> None:
    assert "min_size=1.0" in repr(T.SanitizeBoundingBox())
    boxes = make_bounding_box(SIZE)
    assert_equal(T.SanitizeBoundingBox(labels_getter=None)(boxes), boxes)


def test_sanitize_datapoint_labels_keep_their_type() -> None:
    image, target = _detection_sample()
    getter = lambda s: s[1]["masks"]  # noqa: E731 - masks given explicitly as "labels"
    out = T.SanitizeBoundingBox(labels_getter=getter)(image, target)[1]
    assert type(out["masks"]) is Mask and out["masks"][:, 0, 0].tolist() == [1, 3]
