"""Transform.inverse on rotated boxes: exact back through maps that keep rectangles rectangular (rotations,
flips, uniform scales, translations, crops, pads), and a box covering the original through shear and unequal
scales (they turn a rectangle into a parallelogram, whose tight rotated box is what the forward call
returned). Under perspective a rotated box follows torchvision's fit to the mapped corners, which need not
enclose them, so the inverse comes back around the original (same centre and angle, sides within 3%)."""

from __future__ import annotations

import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Image

H, W = 60, 80
CXCYWHR = torch.tensor([[40.0, 30.0, 16.0, 10.0, 15.0], [30.0, 28.0, 6.0, 9.0, -40.0]], dtype=torch.float64)

SIMILARITIES = [
    T.RandomRotation(30),
    T.RandomRotation(45, expand=True),
    T.RandomHorizontalFlip(p=1.0),
    T.RandomVerticalFlip(p=1.0),
    T.RandomAffine(20, translate=(0.1, 0.1), scale=(0.8, 1.2)),
    T.CenterCrop(50),
    T.Pad([1, 2, 3, 4]),
    T.RandomZoomOut(p=1.0),
    T.Resize((90, 120)),  # 1.5 along both axes
]
DISTORTIONS = [T.RandomAffine(0, shear=15), T.Resize((30, 60))]


def _sample(fmt: str) -> tuple[Image, BoundingBox]:
    image = Image(torch.zeros(3, H, W, dtype=torch.uint8))
    boxes = BoundingBox(CXCYWHR, format="CXCYWHR", spatial_size=(H, W), clamping_mode=None)
    return image, F.convert_bounding_box_format(boxes, new_format=fmt)


def _corners(boxes: BoundingBox) -> torch.Tensor:
    return F.convert_bounding_box_format(boxes, new_format="XYXYXYXY").as_subclass(torch.Tensor).reshape(-1, 4, 2)


def _inside(points: torch.Tensor, quads: torch.Tensor, tolerance: float = 1e-6) -> bool:
    """Whether every point of ``points[i]`` lies in the convex quadrilateral ``quads[i]``."""
    edges = quads.roll(-1, dims=1) - quads
    cross = edges[:, None, :, 0] * (points[:, :, None, 1] - quads[:, None, :, 1]) - edges[:, None, :, 1] * (
        points[:, :, None, 0] - quads[:, None, :, 0]
    )
    return bool(((cross >= -tolerance).all(-1) | (cross <= tolerance).all(-1)).all())


@pytest.mark.parametrize("fuse", [False, True])
@pytest.mark.parametrize("fmt", ["XYWHR", "CXCYWHR", "XYXYXYXY"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rotated_boxes_come_back_exactly_through_similarities(fmt: str, seed: int, fuse: bool) -> None:
    torch.manual_seed(seed)
    chain = [SIMILARITIES[i] for i in torch.randperm(len(SIMILARITIES))[:4].tolist()]
    pipeline = T.Compose(chain, fuse_geometry=fuse)
    image, boxes = _sample(fmt)
    outputs, record = pipeline.record(image, boxes)
    assert not torch.allclose(_corners(outputs[1]), _corners(boxes))  # the chain moved them
    _, back = pipeline.inverse(outputs, record)
    assert back.format == boxes.format and back.canvas_size == (H, W)
    torch.testing.assert_close(_corners(back), _corners(boxes), atol=1e-3, rtol=0)


@pytest.mark.parametrize("transform", DISTORTIONS, ids=lambda t: type(t).__name__)
@pytest.mark.parametrize("seed", [0, 1])
def test_rotated_boxes_come_back_covering_the_original_through_distortions(transform: T.Transform, seed: int) -> None:
    torch.manual_seed(seed)
    image, boxes = _sample("CXCYWHR")
    outputs, record = transform.record(image, boxes)
    _, back = transform.inverse(outputs, record)
    assert _inside(_corners(boxes), _corners(back))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rotated_boxes_come_back_around_the_original_through_perspective(seed: int) -> None:
    torch.manual_seed(seed)
    image, boxes = _sample("CXCYWHR")
    transform = T.RandomPerspective(0.3, p=1.0)
    outputs, record = transform.record(image, boxes)
    _, back = transform.inverse(outputs, record)
    back, original = back.as_subclass(torch.Tensor), boxes.as_subclass(torch.Tensor)
    torch.testing.assert_close(back[:, :2], original[:, :2], atol=0.1, rtol=0)
    torch.testing.assert_close(back[:, 4], original[:, 4], atol=0.1, rtol=0)
    assert (back[:, 2:4] >= 0.97 * original[:, 2:4]).all() and (back[:, 2:4] <= 1.3 * original[:, 2:4]).all()
