"""Transform.inverse: outputs of a recorded call mapped back to the input frame.

Key points come back exactly (float64, within 1e-3 px) through every geometric transform and chains;
axis-aligned boxes exactly through axis-aligned maps, and otherwise as a box containing the original;
masks and images exactly where the map moves whole pixels, with ``fill`` where the output did not reach.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Image, KeyPoints, Mask
from visiontx.transforms._auto_augment import _OPS

H, W = 40, 50
# boxes and points well inside, so that no transform below clips them
BOXES = torch.tensor([[20.0, 15.0, 30.0, 25.0], [22.5, 17.25, 27.75, 23.5]], dtype=torch.float64)
POINTS = torch.tensor([[21.0, 16.0], [28.0, 24.0], [25.3, 17.7], [24.0, 20.0]], dtype=torch.float64)

AXIS_ALIGNED = [
    T.RandomHorizontalFlip(p=1.0),
    T.RandomVerticalFlip(p=1.0),
    T.Resize(27),
    T.Resize((33, 61)),
    T.RandomResize(20, 60),
    T.RandomShortestSize([20, 30, 70]),
    T.ScaleJitter((30, 30)),
    T.CenterCrop(30),
    T.CenterCrop((60, 70)),
    T.RandomCrop((34, 44), padding=3),
    T.RandomCrop(60, pad_if_needed=True),
    T.RandomResizedCrop(24, scale=(0.8, 1.0)),
    T.Pad(3),
    T.Pad([1, 2, 3, 4]),
    T.RandomZoomOut(p=1.0),
    T.RandomRotation((90, 90), expand=True),
]
WARPS = [
    T.RandomRotation(30),
    T.RandomRotation(30, expand=True),
    T.RandomAffine(20, translate=(0.05, 0.05), scale=(0.9, 1.1), shear=10),
    T.RandomPerspective(distortion_scale=0.3, p=1.0),
]


def _ids(transforms: list[Any]) -> list[str]:
    return [f"{type(t).__name__}-{i}" for i, t in enumerate(transforms)]


def _sample() -> tuple[Image, BoundingBox, Mask, KeyPoints]:
    generator = torch.Generator().manual_seed(0)
    image = Image(torch.randint(0, 256, (3, H, W), dtype=torch.uint8, generator=generator))
    mask = Mask(torch.randint(0, 5, (H, W), dtype=torch.uint8, generator=generator))
    return image, BoundingBox(BOXES, format="XYXY", spatial_size=(H, W)), mask, KeyPoints(POINTS, spatial_size=(H, W))


def _forward(transform: Any, seed: int) -> tuple[tuple[Any, ...], dict[str, Any], tuple[Any, ...]]:
    sample = _sample()
    torch.manual_seed(seed)
    output, record = transform.record(*sample)
    return sample, record, output


def _assert_contains(outer: torch.Tensor, inner: torch.Tensor, tol: float = 1e-6) -> None:
    assert (outer[:, :2] <= inner[:, :2] + tol).all() and (outer[:, 2:] >= inner[:, 2:] - tol).all(), (outer, inner)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("transform", AXIS_ALIGNED + WARPS, ids=_ids(AXIS_ALIGNED + WARPS))
def test_key_points_come_back_exactly(transform: Any, seed: int) -> None:
    _, record, output = _forward(transform, seed)
    back = transform.inverse(output[3], record)
    assert isinstance(back, KeyPoints) and tuple(back.spatial_size) == (H, W)
    torch.testing.assert_close(back.as_subclass(torch.Tensor), POINTS, rtol=0, atol=1e-3)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("transform", AXIS_ALIGNED, ids=_ids(AXIS_ALIGNED))
def test_boxes_come_back_exactly_through_axis_aligned_maps(transform: Any, seed: int) -> None:
    _, record, output = _forward(transform, seed)
    back = transform.inverse(output[1], record)
    assert isinstance(back, BoundingBox) and tuple(back.spatial_size) == (H, W) and back.format.name == "XYXY"
    torch.testing.assert_close(back.as_subclass(torch.Tensor), BOXES, rtol=0, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("transform", WARPS, ids=_ids(WARPS))
def test_boxes_come_back_containing_the_original_through_warps(transform: Any, seed: int) -> None:
    _, record, output = _forward(transform, seed)
    back = transform.inverse(output[1], record).as_subclass(torch.Tensor)
    _assert_contains(back, BOXES)
    assert not torch.allclose(back, BOXES)  # a real warp


def test_boxes_in_other_formats_come_back_in_their_format() -> None:
    transform = T.Compose([T.RandomHorizontalFlip(p=1.0), T.Pad(4), T.Resize(30)])
    boxes = F.convert_format_bounding_box(BoundingBox(BOXES, format="XYXY", spatial_size=(H, W)), new_format="CXCYWH")
    output, record = transform.record(_sample()[0], boxes)
    back = transform.inverse(output[1], record)
    assert back.format.name == "CXCYWH"
    torch.testing.assert_close(back.as_subclass(torch.Tensor), boxes.as_subclass(torch.Tensor), rtol=0, atol=1e-6)


def _chain(fuse: bool) -> T.Compose:
    return T.Compose(
        [
            T.ColorJitter(0.3, 0.3, 0.3),
            T.RandomHorizontalFlip(),
            T.RandomChoice([T.RandomRotation(20), T.RandomAffine(10, shear=5), T.Pad(2)]),
            T.RandomApply([T.RandomPerspective(0.2, p=1.0)], p=0.5),
            T.RandomOrder([T.Resize(36), T.RandomVerticalFlip()]),
            T.GaussianBlur(3),
            T.RandomResizedCrop((30, 30), scale=(0.9, 1.0)),
            T.ToDtype(torch.float32, scale=True),
        ],
        fuse_geometry=fuse,
    )


@pytest.mark.parametrize("fuse", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_chains_bring_key_points_back_and_boxes_around_the_original(fuse: bool, seed: int) -> None:
    transform = _chain(fuse)
    _, record, output = _forward(transform, seed)
    points, boxes = transform.inverse((output[3], output[1]), record)
    torch.testing.assert_close(points.as_subclass(torch.Tensor), POINTS, rtol=0, atol=1e-3)
    _assert_contains(boxes.as_subclass(torch.Tensor), BOXES, tol=1e-4)


@pytest.mark.parametrize("seed", range(4))
def test_an_axis_aligned_chain_brings_boxes_back_exactly(seed: int) -> None:
    transform = T.Compose([T.RandomHorizontalFlip(), T.Pad(3), T.RandomShortestSize([30, 50]),
                           T.CenterCrop(28), T.RandomVerticalFlip(), T.Resize(40)])
    _, record, output = _forward(transform, seed)
    back = transform.inverse(output[1], record).as_subclass(torch.Tensor)
    torch.testing.assert_close(back, BOXES, rtol=0, atol=1e-5)


AUTO_AUGMENTS = [T.AutoAugment(), T.RandAugment(num_ops=4), T.TrivialAugmentWide()]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("transform", AUTO_AUGMENTS, ids=_ids(AUTO_AUGMENTS))
def test_auto_augment_warps_are_inverted_and_its_colour_ops_ignored(transform: Any, seed: int) -> None:
    image, _, _, points = _sample()
    torch.manual_seed(seed)
    _, record = transform.record(image)
    moved = points
    for name, magnitude in record["params"]["ops"]:  # the same ops, by hand, on the key points
        if name in ("ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate"):
            moved = _OPS[name](moved, magnitude, "nearest", None)
    back = transform.inverse(moved, record)
    torch.testing.assert_close(back.as_subclass(torch.Tensor), POINTS, rtol=0, atol=1e-3)


EXACT = [T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=1.0), T.Pad([1, 2, 3, 4]), T.RandomZoomOut(p=1.0),
         T.RandomCrop((30, 35)), T.CenterCrop((30, 70)), T.RandomRotation((90, 90), expand=True)]


@pytest.mark.parametrize("transform", EXACT, ids=_ids(EXACT))
def test_masks_and_images_come_back_where_the_output_reached_and_fill_elsewhere(transform: Any) -> None:
    (image, _, mask, _), record, output = _forward(transform, 0)
    back_image, back_mask = transform.inverse((output[0], output[2]), record, fill=7)
    assert isinstance(back_image, Image) and isinstance(back_mask, Mask)
    assert back_image.shape == image.shape and back_mask.shape == mask.shape
    reached = transform.inverse(Mask(torch.ones(output[2].shape, dtype=torch.uint8)), record).bool()
    assert torch.equal(back_mask[reached], mask[reached]) and (back_mask[~reached] == 7).all()
    assert torch.equal(back_image[:, reached], image[:, reached]) and (back_image[:, ~reached] == 7).all()
    if isinstance(transform, (T.RandomCrop, T.CenterCrop)):
        assert not reached.all()
    else:
        assert reached.all()


def test_images_come_back_close_through_a_rotation() -> None:
    x = torch.linspace(0, 1, W)[None, None, :] * torch.linspace(0, 1, H)[None, :, None]
    image = Image(x.expand(3, H, W).clone())  # smooth, so that two bilinear passes stay close
    transform = T.RandomRotation(15, expand=True)
    output, record = transform.record(image)
    back = transform.inverse(output, record)
    assert back.shape == image.shape
    inner = (slice(None), slice(8, -8), slice(8, -8))
    torch.testing.assert_close(back[inner], image[inner], rtol=0, atol=0.02)


def test_colour_ops_stay_in_the_inverted_image() -> None:
    image = _sample()[0]
    transform = T.Compose([T.RandomInvert(p=1.0), T.RandomHorizontalFlip(p=1.0)])
    output, record = transform.record(image)
    assert torch.equal(transform.inverse(output, record), F.invert(image))


def test_a_record_without_geometry_gives_the_outputs_back() -> None:
    transform = T.Compose([T.RandomHorizontalFlip(p=0.0), T.ColorJitter(0.5), T.Normalize([0.5], [0.5])])
    image = Image(_sample()[0].float() / 255)
    _, record = transform.record(image)
    points = KeyPoints(POINTS, spatial_size=(H, W))
    assert transform.inverse(points, record) is points


@pytest.mark.parametrize(
    ("transform", "sample", "match"),
    [
        (T.ElasticTransform(), "image", r"cannot invert record \(ElasticTransform\): its displacement field"),
        (T.Compose([T.Pad(1), T.FiveCrop(10)]), "image", r"record\['steps'\]\[1\] \(FiveCrop\): it returns several"),
        (T.TenCrop(10), "image", r"\(TenCrop\)"),
        (T.AugMix(), "image", r"\(AugMix\): it blends"),
        (T.Lambda(lambda x: x), "image", r"\(Lambda\): its function is unknown"),
        (T.Compose([lambda x: x]), "image", r"\(<lambda>\): it is not a visiontx Transform"),
        (T.MixUp(num_classes=4), "batch", r"\(MixUp\): it mixes several samples"),
        (T.CutMix(num_classes=4), "batch", r"\(CutMix\): it mixes several samples"),
        (T.PerSample(T.RandomAffine(10)), "batch", r"\(PerSample\): each sample has a geometry of its own"),
    ],
)
def test_transforms_without_an_inverse_are_named(transform: Any, sample: str, match: str) -> None:
    image = _sample()[0]
    inputs = (Image(image[None].expand(4, -1, -1, -1).clone()), torch.arange(4)) if sample == "batch" else (image,)
    _, record = transform.record(*inputs)
    with pytest.raises(ValueError, match=match):
        transform.inverse(KeyPoints(POINTS, spatial_size=(H, W)), record)


def test_a_reflecting_pad_refuses_points_but_inverts_images() -> None:
    transform = T.Pad(3, padding_mode="reflect")
    image = _sample()[0]
    output, record = transform.record(image)
    assert torch.equal(transform.inverse(output, record), image)
    with pytest.raises(ValueError, match="reflect"):
        transform.inverse(KeyPoints(POINTS, spatial_size=output.shape[-2:]), record)


def test_outputs_of_another_size_are_refused() -> None:
    transform = T.Resize(20)
    _, record = transform.record(_sample()[0])
    with pytest.raises(ValueError, match=r"recorded output size \(20, 25\)"):
        transform.inverse(KeyPoints(POINTS, spatial_size=(H, W)), record)


def test_a_record_of_another_pipeline_is_refused() -> None:
    _, record = T.Pad(2).record(_sample()[0])
    with pytest.raises(ValueError, match="holds 'Pad' where the pipeline has Resize"):
        T.Resize(20).inverse(_sample()[0], record)


def test_inverse_of_a_rotation_matches_the_rotation_by_minus_the_angle() -> None:
    transform = T.RandomRotation(40)
    torch.manual_seed(3)
    output, record = transform.record(KeyPoints(POINTS, spatial_size=(H, W)))
    angle = record["params"]["angle"]
    by_hand = F.rotate(output, -angle).as_subclass(torch.Tensor)
    back = transform.inverse(output, record).as_subclass(torch.Tensor)
    torch.testing.assert_close(back, by_hand, rtol=0, atol=1e-6)
    assert not math.isclose(angle, 0.0)


@pytest.mark.parametrize("sanitize", [T.SanitizeKeyPoints(), T.SanitizeBoundingBox(labels_getter=None)],
                         ids=["SanitizeKeyPoints", "SanitizeBoundingBox"])
def test_sanitizing_steps_are_the_identity_for_the_inverse(sanitize: Any) -> None:
    transform = T.Compose([T.RandomHorizontalFlip(p=1.0), sanitize])
    points = KeyPoints(POINTS, spatial_size=(H, W))
    boxes = BoundingBox(BOXES, format="XYXY", spatial_size=(H, W))
    (out_points, out_boxes), record = transform.record(points, boxes)
    back_points, back_boxes = transform.inverse((out_points, out_boxes), record)
    torch.testing.assert_close(back_points.as_subclass(torch.Tensor), POINTS, rtol=0, atol=1e-9)
    torch.testing.assert_close(back_boxes.as_subclass(torch.Tensor), BOXES, rtol=0, atol=1e-9)


def test_boxes_and_key_points_through_a_reflecting_pad_name_the_step() -> None:
    pipeline = T.Compose([T.RandomHorizontalFlip(p=1.0), T.Pad(2, padding_mode="edge")])
    image = Image(torch.zeros(3, 10, 12, dtype=torch.uint8))
    out, record = pipeline.record(image)
    with pytest.raises(ValueError, match=r"cannot invert record\['steps'\]\[1\] \(Pad\) for boxes and key points"):
        pipeline.inverse(KeyPoints([[3.0, 4.0]], spatial_size=(14, 16)), record)
    assert pipeline.inverse(out, record).shape == image.shape  # images still go back
