"""Flips: generic cases plus references and invariants."""

from __future__ import annotations

import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, BoundingBoxFormat

from .common import AXIS_ALIGNED
from .common import assert_equal, make_bounding_box, make_image, make_image_pil, make_mask

FUNCTIONAL_CASES = {F.horizontal_flip: [{}], F.vertical_flip: [{}]}
TRANSFORM_CASES = {
    T.RandomHorizontalFlip: [dict(p=1.0), dict(p=0.0)],
    T.RandomVerticalFlip: [dict(p=1.0)],
}


@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_horizontal_flip_bounding_box_matches_loop_reference(format: BoundingBoxFormat) -> None:
    boxes = make_bounding_box(format=format)
    xyxy = F.convert_format_bounding_box(boxes, new_format="XYXY")
    width = boxes.spatial_size[1]
    expected = torch.tensor([[width - x2, y1, width - x1, y2] for x1, y1, x2, y2 in xyxy.tolist()])
    flipped = F.convert_format_bounding_box(F.horizontal_flip(boxes), new_format="XYXY")
    assert_equal(flipped, expected, check_dtype=False)


@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_vertical_flip_bounding_box_matches_loop_reference(format: BoundingBoxFormat) -> None:
    boxes = make_bounding_box(format=format)
    xyxy = F.convert_format_bounding_box(boxes, new_format="XYXY")
    height = boxes.spatial_size[0]
    expected = torch.tensor([[x1, height - y2, x2, height - y1] for x1, y1, x2, y2 in xyxy.tolist()])
    flipped = F.convert_format_bounding_box(F.vertical_flip(boxes), new_format="XYXY")
    assert_equal(flipped, expected, check_dtype=False)


@pytest.mark.parametrize("flip", [F.horizontal_flip, F.vertical_flip])
@pytest.mark.parametrize("make", [make_image, make_image_pil, make_mask, make_bounding_box])
def test_flip_twice_is_identity(flip, make) -> None:
    inpt = make()
    assert_equal(flip(flip(inpt)), inpt)


@pytest.mark.parametrize("flip", [F.horizontal_flip, F.vertical_flip])
def test_flip_pil_matches_tensor(flip) -> None:
    image = make_image()
    assert_equal(F.pil_to_tensor(flip(F.to_image_pil(image))), flip(image))


def test_flip_keeps_box_metadata() -> None:
    boxes = BoundingBox([[1, 2, 3, 4]], format="CXCYWH", spatial_size=(10, 20), dtype=torch.float32)
    out = F.horizontal_flip(boxes)
    assert out.format == BoundingBoxFormat.CXCYWH and out.spatial_size == (10, 20)
    assert out.tolist() == [[19, 2, 3, 4]]


def test_flips_match_torchvision() -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image()
    assert_equal(F.horizontal_flip(image), tv_f.horizontal_flip(image.as_subclass(torch.Tensor)))
    assert_equal(F.vertical_flip(image), tv_f.vertical_flip(image.as_subclass(torch.Tensor)))


@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_float32_box_flips_and_resizes_equal_torchvision_exactly(format: BoundingBoxFormat) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    tv_boxes = pytest.importorskip("torchvision.tv_tensors").BoundingBoxes
    values = torch.rand(50, 4, generator=torch.Generator().manual_seed(0)) * 100
    values[:, 2:] += values[:, :2]
    ours = BoundingBox(values, format=format, spatial_size=(300, 400))
    theirs = tv_boxes(values, format=format.value, canvas_size=(300, 400))
    for op in ("horizontal_flip", "vertical_flip"):
        assert_equal(getattr(F, op)(ours), getattr(tv_f, op)(theirs).as_subclass(torch.Tensor), atol=0, rtol=0)
    assert_equal(F.resize(ours, [150, 213]), tv_f.resize(theirs, [150, 213]).as_subclass(torch.Tensor), atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_wide_integer_coordinates_move_exactly(dtype: torch.dtype) -> None:
    """Integer boxes and key points past 2^24 are mapped in float64, not rounded by float32 (torchvision's
    integer arithmetic gives the same)."""
    from visiontx.datapoints import KeyPoints

    big = 2**30 + 1
    boxes = BoundingBox(torch.tensor([[0, 1, big, 3]], dtype=dtype), format="XYXY", canvas_size=(5, 7))
    points = KeyPoints(torch.tensor([[big, 3], [2**24 + 1, 2]], dtype=dtype), canvas_size=(5, 7))
    assert F.horizontal_flip(boxes).tolist() == [[7 - big, 1, 7, 3]]
    assert F.horizontal_flip(points).tolist() == [[6 - big, 3], [6 - 2**24 - 1, 2]]
    assert F.pad(points, [3, 2]).tolist() == [[big + 3, 5], [2**24 + 4, 4]]
    assert F.horizontal_flip(boxes).dtype == dtype and F.pad(points, [3, 2]).dtype == dtype
