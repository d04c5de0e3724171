"""The point of the library: one random draw moves image, masks and boxes together.

An image with filled rectangles, the matching instance masks and the boxes go through each random
geometric transform together; afterwards every surviving box must equal its mask's extent, and the
image's bright region must match the masks' union, within interpolation tolerance.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Image, Mask

from .common import unwrap

# (transform factory, tolerance in output pixels)
TRANSFORMS: dict[str, tuple[Any, float]] = {
    "hflip": (lambda: T.RandomHorizontalFlip(p=1.0), 0),
    "vflip": (lambda: T.RandomVerticalFlip(p=1.0), 0),
    "resize": (lambda: T.Resize((29, 47)), 1.5),
    "center_crop": (lambda: T.CenterCrop((25, 30)), 0),
    "random_crop": (lambda: T.RandomCrop((20, 24), pad_if_needed=True), 0),
    "random_resized_crop": (lambda: T.RandomResizedCrop((32, 40), antialias=True), 2),
    "pad": (lambda: T.Pad([3, 5, 2, 1]), 0),
    "zoom_out": (lambda: T.RandomZoomOut(side_range=(1.0, 2.5), p=1.0), 0),
    "iou_crop": (lambda: T.RandomIoUCrop(), 0),
    "scale_jitter": (lambda: T.ScaleJitter(target_size=(40, 50), scale_range=(0.5, 1.5)), 2),
    "shortest_size": (lambda: T.RandomShortestSize(min_size=[20, 30, 40], max_size=70), 2),
    "random_resize": (lambda: T.RandomResize(min_size=20, max_size=50), 2),
    "rotation": (lambda: T.RandomRotation(45), 3),
    "rotation_expand": (lambda: T.RandomRotation((-90, 90), expand=True), 3),
    "affine": (lambda: T.RandomAffine(30, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=(-10, 10, -10, 10)), 3),
    "perspective": (lambda: T.RandomPerspective(distortion_scale=0.3, p=1.0), 3),
    "elastic": (lambda: T.ElasticTransform(alpha=8.0, sigma=6.0), 4),
}
# A box clamped to the image after a rotation encloses the rotated corners, not the visible part of
# the object, so for these transforms boxes that touch the border are not compared.
ROTATING = {"rotation", "rotation_expand", "affine", "perspective", "elastic"}


@st.composite
def samples(draw: Any) -> tuple[Image, Mask, BoundingBox]:
    height, width = draw(st.integers(24, 56)), draw(st.integers(24, 56))
    n = draw(st.integers(1, 4))
    image = torch.zeros(3, height, width, dtype=torch.uint8)
    masks = torch.zeros(n, height, width, dtype=torch.uint8)
    boxes = []
    for i in range(n):
        x1, y1 = draw(st.integers(0, width - 6)), draw(st.integers(0, height - 6))
        x2, y2 = draw(st.integers(x1 + 5, width)), draw(st.integers(y1 + 5, height))
        masks[i, y1:y2, x1:x2] = 1
        image[:, y1:y2, x1:x2] = 255
        boxes.append([x1, y1, x2, y2])
    return (
        Image(image),
        Mask(masks),
        BoundingBox(boxes, format="XYXY", spatial_size=(height, width), dtype=torch.float32),
    )


def _extent(region: torch.Tensor) -> list[float] | None:
    ys, xs = torch.nonzero(region, as_tuple=True)
    if len(xs) < 6:
        return None
    return [xs.min().item(), ys.min().item(), xs.max().item() + 1.0, ys.max().item() + 1.0]


def _check_consistent(
    image: Image, masks: Mask, boxes: BoundingBox, tolerance: float, skip_border: bool = False
) -> int:
    assert masks.shape[-2:] == image.shape[-2:] and tuple(boxes.spatial_size) == tuple(image.shape[-2:])
    assert masks.shape[0] == boxes.shape[0]
    checked = 0
    for mask, box in zip(unwrap(masks), unwrap(boxes).tolist()):
        extent = _extent(mask)
        x1, y1, x2, y2 = box
        if extent is None or x2 - x1 < 3 or y2 - y1 < 3:
            continue  # the object left the picture, or a crop zeroed its box for sanitizing
        height, width = image.shape[-2:]
        if skip_border and (x1 <= 0 or y1 <= 0 or x2 >= width or y2 >= height):
            continue
        assert max(abs(a - b) for a, b in zip(extent, box)) <= tolerance, f"box {box} vs mask extent {extent}"
        checked += 1
    # the image's bright pixels against the masks' union, when no object's mask was lost (a nearest-resized
    # mask can drop a thin object whose antialiased pixels stay bright)
    lost = any(_extent(mask) is None for mask in unwrap(masks))
    union = _extent(unwrap(masks).amax(0))
    bright = _extent(unwrap(image)[0] > 127)
    if not lost and union is not None and bright is not None:
        assert max(abs(a - b) for a, b in zip(union, bright)) <= tolerance + 1
    return checked


@pytest.mark.parametrize("name", list(TRANSFORMS))
@settings(max_examples=int(os.environ.get("VISIONTX_EXAMPLES", 15)), deadline=None)
@given(sample=samples(), seed=st.integers(0, 2**16))
def test_boxes_follow_masks(name: str, sample: tuple[Image, Mask, BoundingBox], seed: int) -> None:
    factory, tolerance = TRANSFORMS[name]
    torch.manual_seed(seed)
    image, masks, boxes = factory()(*sample)
    assert type(image) is Image and type(masks) is Mask and type(boxes) is BoundingBox
    _check_consistent(image, masks, boxes, tolerance, skip_border=name in ROTATING)


def test_the_check_catches_boxes_that_did_not_move() -> None:
    image, masks, boxes = Image(torch.zeros(3, 20, 30, dtype=torch.uint8)), None, None
    masks = torch.zeros(1, 20, 30, dtype=torch.uint8)
    masks[0, 2:10, 3:12] = 1
    image[:, 2:10, 3:12] = 255
    boxes = BoundingBox([[3, 2, 12, 10]], format="XYXY", spatial_size=(20, 30))
    flipped_image, flipped_masks = T.RandomHorizontalFlip(p=1.0)(image, Mask(masks))
    with pytest.raises(AssertionError):
        _check_consistent(flipped_image, flipped_masks, boxes, tolerance=2)
