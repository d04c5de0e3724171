"""affine and rotate: generic cases, torchvision references, loop references, invariants, errors."""

from __future__ import annotations

import math

import numpy as np
import PIL.Image
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import visiontx.functional as F
from visiontx.datapoints import BoundingBox, Image, Mask, Video

from .common import AXIS_ALIGNED
from .common import Case, assert_equal, make_bounding_box, make_image, make_image_pil, make_image_tensor, make_mask

AFFINE_ARGS = dict(angle=30, translate=[2, -3], scale=1.2, shear=[10, 5])
AFFINE_ARGS_CENTERED = dict(angle=-45, translate=[0.5, 1], scale=0.8, shear=7, center=[3, 4])
IMAGE_TYPES = (torch.Tensor, Image, Video, PIL.Image.Image)

FUNCTIONAL_CASES = {
    F.affine: [
        dict(AFFINE_ARGS),
        Case(dict(AFFINE_ARGS_CENTERED, interpolation="bilinear", fill=5)),
        Case(dict(AFFINE_ARGS, fill=[1, 2, 3]), types=IMAGE_TYPES, channels=(3,)),
        dict(angle=0, translate=[0, 0], scale=1, shear=0),
    ],
    F.rotate: [
        dict(angle=30),
        dict(angle=90, expand=True),
        Case(dict(angle=-20, interpolation="bilinear", expand=True, center=[4, 5], fill=7)),
        dict(angle=0),
        dict(angle=180, center=[2, 3]),
    ],
}
COVERED = {"affine_bounding_box", "affine_mask", "rotate_bounding_box", "rotate_mask"}


def assert_mostly_equal(actual, expected, *, atol: float, max_fraction: float = 0.0) -> None:
    """All but ``max_fraction`` of the values within ``atol`` (nearest sampling at exact pixel
    boundaries breaks ties by float noise, which differs between implementations)."""
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    assert actual.shape == expected.shape
    bad = ((actual.double() - expected.double()).abs() > atol).double().mean().item()
    assert bad <= max_fraction, f"{bad:.2%} of the values differ by more than {atol}"


def _as_tensor(x) -> torch.Tensor:
    return torch.from_numpy(np.array(x)) if isinstance(x, PIL.Image.Image) else x.as_subclass(torch.Tensor)


def _tolerances(dtype: torch.dtype, interpolation: str) -> dict:
    atol = 1 if dtype == torch.uint8 else 1e-4
    return dict(atol=atol, max_fraction=0.05 if interpolation == "nearest" else 0.0)


def _plain(x):
    return x.as_subclass(torch.Tensor)


# ------------------------------------------------------------------------------ torchvision refs
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
@pytest.mark.parametrize("fill", [None, 7, "per-channel"])
@pytest.mark.parametrize("args", [AFFINE_ARGS, AFFINE_ARGS_CENTERED])
def test_affine_image_matches_torchvision(dtype, channels, interpolation, fill, args) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image_tensor(dtype=dtype, channels=channels, batch_dims=(2,))
    fill = list(range(1, channels + 1)) if fill == "per-channel" else fill
    fill = [f / 10 for f in fill] if isinstance(fill, list) and dtype.is_floating_point else fill
    actual = F.affine(image, **args, interpolation=interpolation, fill=fill)
    expected = tv_f.affine(image, **args, interpolation=tv_f.InterpolationMode(interpolation), fill=fill)
    assert actual.dtype == dtype
    assert_mostly_equal(actual, expected, **_tolerances(dtype, interpolation))


@pytest.mark.parametrize("angle", [30, -45, 123.4, 90, 180, 270, 450])
@pytest.mark.parametrize("expand", [False, True])
@pytest.mark.parametrize("center", [None, [3, 5.5]])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_rotate_image_matches_torchvision(angle, expand, center, interpolation) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image_tensor()
    kwargs = dict(angle=angle, expand=expand, center=center, fill=[1, 2, 3])
    actual = F.rotate(image, interpolation=interpolation, **kwargs)
    expected = tv_f.rotate(image, interpolation=tv_f.InterpolationMode(interpolation), **kwargs)
    # quarter turns about a half-pixel center put every source point on a pixel boundary
    max_fraction = 0.35 if interpolation == "nearest" and center is not None and angle % 90 == 0 else None
    tolerances = _tolerances(torch.uint8, interpolation)
    tolerances["max_fraction"] = max_fraction or tolerances["max_fraction"]
    assert_mostly_equal(actual, expected, **tolerances)


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("channels", [1, 3])
def test_affine_and_rotate_pil_match_torchvision(interpolation, channels) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image_pil(channels=channels)
    mode = tv_f.InterpolationMode(interpolation)
    fill = [4] * channels
    for args in (AFFINE_ARGS, AFFINE_ARGS_CENTERED):
        actual = F.affine(image, **args, interpolation=interpolation, fill=fill)
        assert_mostly_equal(actual, tv_f.affine(image, **args, interpolation=mode, fill=fill), atol=1)
    for angle, expand in [(30, True), (-70, False), (90, True)]:
        actual = F.rotate(image, angle, interpolation=interpolation, expand=expand, fill=fill)
        expected = tv_f.rotate(image, angle, interpolation=mode, expand=expand, fill=fill)
        assert_mostly_equal(actual, expected, atol=1)


def _tv_boxes(boxes: BoundingBox):
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    fmt = getattr(tv_tensors.BoundingBoxFormat, boxes.format.name)
    return tv_tensors.BoundingBoxes(_plain(boxes), format=fmt, canvas_size=boxes.spatial_size)


QUARTER_TURN = dict(angle=90, translate=[0, 0], scale=1, shear=0)


@pytest.mark.parametrize("format", AXIS_ALIGNED)
@pytest.mark.parametrize("args", [AFFINE_ARGS, AFFINE_ARGS_CENTERED, QUARTER_TURN])
def test_affine_bounding_box_matches_torchvision(format, args) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    boxes = make_bounding_box(format=format, num_boxes=6)
    actual = F.affine(boxes, **args)
    assert actual.spatial_size == boxes.spatial_size and actual.format == boxes.format
    torch.testing.assert_close(_plain(actual), _plain(tv_f.affine(_tv_boxes(boxes), **args)), atol=1e-4, rtol=0)


@pytest.mark.parametrize("format", AXIS_ALIGNED)
@pytest.mark.parametrize("angle", [30, -45, 90, 180, 123.4])
@pytest.mark.parametrize("center", [None, [3, 5.5]])
def test_rotate_bounding_box_matches_torchvision(format, angle, center) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    boxes = make_bounding_box(format=format, num_boxes=6)
    actual = F.rotate(boxes, angle, center=center)
    expected = tv_f.rotate(_tv_boxes(boxes), angle, center=center)
    torch.testing.assert_close(_plain(actual), _plain(expected), atol=1e-4, rtol=0)


@pytest.mark.parametrize("angle", [30, 90, -45, 123.4])
def test_rotate_expand_bounding_box_is_close_to_torchvision(angle) -> None:
    """With expand, torchvision shifts boxes so the rotated frame starts at 0 while its images
    center the frame; visiontx follows the image (differences below one pixel)."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    boxes = make_bounding_box(num_boxes=6)
    actual = F.rotate(boxes, angle, expand=True)
    assert actual.spatial_size == tuple(F.rotate(make_image(), angle, expand=True).shape[-2:])
    expected = tv_f.rotate(_tv_boxes(boxes), angle, expand=True)
    torch.testing.assert_close(_plain(actual), _plain(expected), atol=1.0, rtol=0)


# ------------------------------------------------------------------------------ loop references
def _forward_point(x, y, angle, translate, scale, shear, center):
    """Reference forward map: shear x, shear y, rotate + scale about center, translate."""
    cx, cy = center
    px, py = x - cx, y - cy
    px = px - math.tan(math.radians(shear[0])) * py
    py = py - math.tan(math.radians(shear[1])) * px
    a = math.radians(angle)
    rx = scale * (math.cos(a) * px - math.sin(a) * py)
    ry = scale * (math.sin(a) * px + math.cos(a) * py)
    return rx + cx + translate[0], ry + cy + translate[1]


def _reference_boxes(xyxy, size, expand_shift=(0.0, 0.0), **params):
    out = []
    for x1, y1, x2, y2 in xyxy.tolist():
        points = [_forward_point(x, y, **params) for x, y in [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]]
        xs = [p[0] + expand_shift[0] for p in points]
        ys = [p[1] + expand_shift[1] for p in points]
        limits = [size[1], size[0]] * 2
        out.append([min(max(v, 0), lim) for v, lim in zip([min(xs), min(ys), max(xs), max(ys)], limits)])
    return torch.tensor(out, dtype=torch.float64)


@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_affine_bounding_box_matches_loop_reference(format) -> None:
    boxes = make_bounding_box(format=format, num_boxes=5, dtype=torch.float64)
    xyxy = F.convert_format_bounding_box(boxes, new_format="XYXY")
    size = boxes.spatial_size
    params = dict(angle=25.0, translate=[3.0, -1.5], scale=0.9, shear=[12.0, -4.0], center=[5.0, 7.0])
    actual = F.convert_format_bounding_box(F.affine(boxes, **params), new_format="XYXY")
    torch.testing.assert_close(_plain(actual), _reference_boxes(xyxy, size, **params))


def test_rotate_expand_bounding_box_matches_loop_reference() -> None:
    boxes = make_bounding_box(num_boxes=5, dtype=torch.float64)
    height, width = boxes.spatial_size
    actual = F.rotate(boxes, 40, expand=True)
    new_h, new_w = actual.spatial_size
    shift = ((new_w - width) / 2, (new_h - height) / 2)
    params = dict(angle=-40.0, translate=[0.0, 0.0], scale=1.0, shear=[0.0, 0.0], center=[width / 2, height / 2])
    torch.testing.assert_close(_plain(actual), _reference_boxes(boxes, (new_h, new_w), shift, **params))


def test_integer_boxes_are_rounded() -> None:
    boxes = BoundingBox([[2, 3, 10, 12]], format="XYXY", spatial_size=(17, 23), dtype=torch.int64)
    out = F.affine(boxes, angle=10, translate=[0, 0], scale=1.0, shear=0)
    assert out.dtype == torch.int64
    reference = F.affine(boxes.to(torch.float64), angle=10, translate=[0, 0], scale=1.0, shear=0)
    assert_equal(out, _plain(reference).round().long())


# ---------------------------------------------------------------------------------- invariants
@pytest.mark.parametrize("make", [make_image, make_mask, make_bounding_box, make_image_tensor])
def test_rotate_by_zero_is_identity(make) -> None:
    inpt = make()
    assert_equal(F.rotate(inpt, 0.0), inpt)
    assert_equal(F.rotate(inpt, 360, expand=True), inpt)


def test_identity_kernels_return_the_input_itself() -> None:
    image = make_image_tensor()
    assert F.rotate_image_tensor(image, 0) is image
    assert F.affine_image_tensor(image, 0, [0, 0], 1.0, [0, 0]) is image
    masks = torch.zeros(3, 8, 8, dtype=torch.bool)  # bool masks sample as their bytes: still the input itself
    assert F.rotate_image_tensor(masks, 0) is masks
    assert F.affine_image_tensor(masks, 0, [0, 0], 1.0, [0, 0]) is masks


@pytest.mark.parametrize("make", [make_image, make_mask, make_bounding_box, make_image_pil])
def test_affine_identity_returns_input(make) -> None:
    inpt = make()
    assert_equal(F.affine(inpt, angle=0, translate=[0, 0], scale=1, shear=[0, 0]), inpt)


def _ccw_quarter(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.transpose(-2, -1).flip(-2)


@pytest.mark.parametrize("center", [None, "explicit"])
def test_rotate_90_expand_is_transpose_and_flip(center) -> None:
    """Exact for images, masks, PIL and boxes, through the rot90 shortcut and the general path."""
    image, mask, boxes = make_image(dtype=torch.float32), make_mask(), make_bounding_box(num_boxes=5)
    height, width = boxes.spatial_size
    kwargs = dict(expand=True, center=None if center is None else [width / 2, height / 2])
    assert_equal(F.rotate(image, 90, **kwargs), _ccw_quarter(image))
    assert_equal(F.rotate(mask, 90, **kwargs), _ccw_quarter(mask))
    pil = F.to_image_pil(make_image())
    assert_equal(F.rotate(pil, 90, **kwargs), F.to_image_pil(_ccw_quarter(make_image())))
    out = F.rotate(boxes, 90, **kwargs)
    x1, y1, x2, y2 = boxes.unbind(-1)
    assert out.spatial_size == (width, height)
    assert_equal(out, torch.stack([y1, width - x2, y2, width - x1], dim=-1))


def test_rotate_expand_boxes_follow_the_image() -> None:
    mask = torch.zeros(17, 23, dtype=torch.uint8)
    mask[4:11, 6:19] = 1
    boxes = BoundingBox([[6, 4, 19, 11]], format="XYXY", spatial_size=(17, 23), dtype=torch.float32)
    for angle in (25, -60, 135):
        rotated = F.rotate(Mask(mask), angle, expand=True, interpolation="bilinear")
        out = F.rotate(boxes, angle, expand=True)
        assert out.spatial_size == tuple(rotated.shape)
        ys, xs = torch.nonzero(rotated, as_tuple=True)
        mask_box = torch.tensor([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], dtype=torch.float32)
        torch.testing.assert_close(_plain(out)[0], mask_box, atol=1.0, rtol=0)


@pytest.mark.parametrize("angle", [0, 90, -90, 180, 270, 30, 45])
@pytest.mark.parametrize("size", [(4, 5), (375, 500), (7, 7)])
def test_rotate_expand_size_agrees_across_types_and_with_torchvision(angle, size) -> None:
    """Image tensors, masks, PIL images and boxes get the same canvas (quarter turns included, where
    the corner formula added a pixel when H and W differ in parity), equal to torchvision's."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    height, width = size
    image = torch.randint(0, 256, (3, height, width), dtype=torch.uint8)
    boxes = BoundingBox([[0, 0, width, height], [1, 1, 3, 2]], format="XYXY", spatial_size=size, dtype=torch.float32)
    out_image = F.rotate(image, angle, expand=True)
    out_mask = F.rotate(Mask(image[0]), angle, expand=True)
    out_pil = F.rotate(F.to_image_pil(image), angle, expand=True)
    out_boxes = F.rotate(boxes, angle, expand=True)
    expected = tuple(tv_f.rotate(image, angle, expand=True).shape[-2:])
    assert tuple(out_image.shape[-2:]) == expected
    assert tuple(out_mask.shape) == expected
    assert (out_pil.height, out_pil.width) == expected
    assert out_boxes.spatial_size == expected
    if angle % 90 == 0:  # exact: the whole image is the whole canvas, the pixels are PIL's own turn
        assert _plain(out_boxes)[0].tolist() == [0, 0, expected[1], expected[0]]
        assert_equal(out_pil, F.to_image_pil(image).rotate(angle, expand=True))


def test_rotate_quarter_turn_expand_boxes_follow_the_pixels() -> None:
    """The fuzz reproducer: a 4 x 5 canvas turned by 90 degrees is 5 x 4, and the box lands on the
    pixels it covered (as torchvision)."""
    boxes = BoundingBox([[1.0, 1.0, 3.0, 2.0]], format="XYXY", spatial_size=(4, 5))
    mask = torch.zeros(4, 5, dtype=torch.uint8)
    mask[1:2, 1:3] = 1
    for angle in (90, -90, 270, 180):
        out, rotated = F.rotate(boxes, angle, expand=True), F.rotate(Mask(mask), angle, expand=True)
        assert out.spatial_size == tuple(rotated.shape)
        ys, xs = torch.nonzero(rotated, as_tuple=True)
        assert _plain(out)[0].tolist() == [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
    assert _plain(F.rotate(boxes, 90, expand=True)).tolist() == [[1, 2, 2, 4]]
    assert F.rotate(PIL.Image.new("L", (500, 375)), 90, expand=True).size == (375, 500)


def test_rotate_expand_size_matches_torchvision_for_random_angles_and_centers() -> None:
    """Off-center rotations and angles a hair from quarter turns put corner extents on integers up
    to float noise, which must not add a pixel (torchvision rounds through float32 there)."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    rng = np.random.default_rng(0)
    cases = [(89.9999999, (4, 5), [1.0, 2.0]), (-90, (4, 5), [2.5, 2.0]), (45, (1, 2), [1.0, 2.0])]
    for _ in range(40):
        size = tuple(int(v) for v in rng.integers(1, 64, 2))
        angle = float(rng.choice([rng.uniform(-360, 360), 90 * rng.integers(-4, 5) + rng.choice([0, 1e-7, -1e-7])]))
        center = None if rng.random() < 0.5 else [float(v) for v in rng.integers(0, 128, 2) / 2]
        cases.append((angle, size, center))
    for angle, size, center in cases:
        empty = torch.zeros(0, 1, *size)  # torchvision sizes the canvas without sampling anything
        expected = tuple(tv_f.rotate(empty, angle, expand=True, center=center).shape[-2:])
        assert tuple(F.rotate(empty, angle, expand=True, center=center).shape[-2:]) == expected, (angle, size, center)
        _, out_size = F.rotate_bounding_box(torch.zeros(1, 4), "XYXY", size, angle, expand=True, center=center)
        assert out_size == expected, (angle, size, center)


@pytest.mark.parametrize("size", [(0, 5), (5, 0), (0, 0)])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_warps_of_images_without_pixels(size, dtype) -> None:
    """Zero height or width: the output keeps the shape and dtype (an expanded rotation's canvas,
    all fill, has torchvision's and PIL's size)."""
    image = torch.zeros(3, *size, dtype=dtype)
    for interpolation in ("nearest", "bilinear"):
        for out in (
            F.rotate(image, 30, interpolation=interpolation),
            F.affine(image, **AFFINE_ARGS, interpolation=interpolation),
            F.rotate(image, 90, interpolation=interpolation, center=[1, 2]),
        ):
            assert out.shape == image.shape and out.dtype == dtype
    for angle, center in [(30, None), (45, [1, 2]), (90, None), (90, [1, 2]), (180, None)]:
        out = F.rotate(image, angle, expand=True, center=center, fill=7)
        pil = F.rotate(F.to_image_pil(image.to(torch.uint8)), angle, expand=True, center=center, fill=7)
        mask = F.rotate(Mask(image[0]), angle, expand=True, center=center, fill=7)
        _, box_size = F.rotate_bounding_box(torch.zeros(1, 4), "XYXY", size, angle, expand=True, center=center)
        assert tuple(out.shape[-2:]) == tuple(mask.shape) == (pil.height, pil.width) == box_size
        assert out.dtype == dtype and out.shape[0] == 3 and (out == 7).all() and (mask == 7).all()
        if center is None and angle % 90 == 0:
            assert out.shape[-2:].numel() == 0
    pil = PIL.Image.new("RGB", size[::-1])
    assert F.rotate(F.to_image_pil(image.to(torch.uint8)), 30, expand=True).size == pil.rotate(30, expand=True).size


def test_rotate_expand_empty_image_matches_torchvision_size() -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    for size in [(0, 5), (5, 0), (0, 0)]:
        for angle in (30, 90, 180):
            expected = tv_f.rotate(PIL.Image.new("L", size[::-1]), angle, expand=True).size
            assert F.rotate(torch.zeros(1, *size), angle, expand=True).shape[-2:] == expected[::-1]


def test_masks_use_nearest_and_keep_values() -> None:
    mask = make_mask(num_objects=None)
    rotated = F.rotate(mask, 33, interpolation="bilinear")
    for out in (rotated, F.affine(mask, 20, [1, 2], 1.1, 3, interpolation="bilinear")):
        assert set(out.unique().tolist()) <= set(mask.unique().tolist()) | {0}


def test_masks_2d_and_bool() -> None:
    mask = make_mask(num_objects=None).as_subclass(torch.Tensor) > 4
    out = F.rotate_mask(mask, 30, fill=1)
    assert out.dtype == torch.bool and out.shape == mask.shape
    assert F.affine_mask(mask, 10, [1, 1], 1.0, 0).dtype == torch.bool


def test_fill_is_applied_per_channel() -> None:
    image = torch.zeros(3, 10, 12, dtype=torch.uint8)
    out = F.rotate(image, 45, fill=[10, 20, 300])
    assert out[:, 0, 0].tolist() == [10, 20, 255]  # clamped to the uint8 range
    out = F.rotate(image.float(), 45, fill=0.5, interpolation="bilinear")
    assert out[:, 0, 0].tolist() == [0.5, 0.5, 0.5]


def test_empty_inputs() -> None:
    boxes = BoundingBox(torch.zeros(0, 4), format="XYWH", spatial_size=(17, 23))
    assert F.rotate(boxes, 30, expand=True).shape == (0, 4)
    assert F.affine(boxes, **AFFINE_ARGS).shape == (0, 4)
    image = torch.zeros(0, 3, 17, 23)
    assert F.rotate(image, 30, expand=True).shape[:2] == (0, 3)


def test_interpolation_accepts_enum_strings_and_pil_constants() -> None:
    image = make_image_tensor()
    expected = F.rotate(image, 30, interpolation=F.InterpolationMode.BILINEAR)
    assert_equal(F.rotate(image, 30, interpolation="bilinear"), expected)
    assert_equal(F.rotate(image, 30, interpolation=PIL.Image.Resampling.BILINEAR), expected)


# -------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(scale=0), ValueError, "scale"),
        (dict(scale=-1.0), ValueError, "scale"),
        (dict(translate=[1]), ValueError, "translate"),
        (dict(angle="30"), TypeError, "angle"),
        (dict(shear=[1, 2, 3]), ValueError, "shear"),
        (dict(center=[1]), ValueError, "center"),
        (dict(fill="red"), TypeError, "fill"),
        (dict(fill=[1, 2]), ValueError, "fill"),
        (dict(interpolation="bicubic"), ValueError, "interpolation"),
        (dict(interpolation="cubic-ish"), ValueError, "interpolation"),
    ],
)
def test_affine_errors(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        F.affine(make_image(), **{**AFFINE_ARGS, **kwargs})


def test_rotate_errors() -> None:
    with pytest.raises(TypeError, match="angle"):
        F.rotate(make_image(), None)
    with pytest.raises(ValueError, match="fill"):
        F.rotate(make_image(), 0, fill=[1, 2])  # validated even on the identity shortcut
    with pytest.raises(ValueError, match="fill"):
        F.rotate(make_image_pil(), 10, fill=[1, 2])


# ------------------------------------------------------------------------------------ property
@settings(max_examples=25, deadline=None)
@given(
    angle=st.floats(-360, 360),
    translate=st.tuples(st.floats(-5, 5), st.floats(-5, 5)),
    scale=st.floats(0.5, 2.0),
    shear=st.tuples(st.floats(-30, 30), st.floats(-30, 30)),
    format=st.sampled_from(AXIS_ALIGNED),
)
def test_affine_boxes_match_loop_reference_property(angle, translate, scale, shear, format) -> None:
    boxes = make_bounding_box(format=format, num_boxes=3, dtype=torch.float64)
    xyxy = F.convert_format_bounding_box(boxes, new_format="XYXY")
    params = dict(angle=angle, translate=list(translate), scale=scale, shear=list(shear))
    actual = F.convert_format_bounding_box(F.affine(boxes, **params), new_format="XYXY")
    center = [boxes.spatial_size[1] / 2, boxes.spatial_size[0] / 2]
    expected = _reference_boxes(xyxy, boxes.spatial_size, center=center, **params)
    torch.testing.assert_close(_plain(actual), expected, atol=1e-6, rtol=0)


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_non_finite_parameters_are_a_value_error_naming_them(bad: float) -> None:
    image = make_image_tensor((6, 7))
    good = dict(angle=10.0, translate=[1.0, 2.0], scale=1.0, shear=[3.0, 4.0])
    for name, value in [("angle", bad), ("translate", [bad, 0.0]), ("scale", bad), ("shear", [0.0, bad]),
                        ("shear", bad), ("center", [bad, 1.0])]:
        with pytest.raises(ValueError, match=f"{name} must be finite"):
            F.affine(image, **{**good, name: value})
    with pytest.raises(ValueError, match="angle must be finite"):
        F.rotate(image, bad)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("format", ["XYXY", "CXCYWH"])
def test_half_precision_boxes_and_points_are_mapped_in_float32_and_rounded_once(dtype, format) -> None:
    """Half-precision boxes and key points take the float32 maths (one rounding to their dtype at the end), as
    half-precision images do: the same as mapping their float32 values, cast back."""
    from visiontx.datapoints import KeyPoints

    boxes = make_bounding_box((37, 53), format=format, num_boxes=6)
    points = KeyPoints(torch.tensor([[3.3, 7.7], [40.1, 20.6], [0.5, 36.2]]), canvas_size=(37, 53))
    ops = [
        lambda x: F.affine(x, angle=17.0, translate=[3, -2], scale=1.3, shear=[4.0, -2.0]),
        lambda x: F.resize(x, [41, 29]),
        lambda x: F.perspective(x, [[0, 0], [52, 0], [52, 36], [0, 36]], [[2, 1], [50, 3], [49, 35], [1, 33]]),
    ]
    for op in ops:
        for inpt in (boxes, points):
            half = op(type(inpt).wrap_like(inpt, inpt.as_subclass(torch.Tensor).to(dtype)))
            expected = op(type(inpt).wrap_like(inpt, inpt.as_subclass(torch.Tensor).to(dtype).float()))
            assert half.dtype == dtype
            assert_equal(half.as_subclass(torch.Tensor), expected.as_subclass(torch.Tensor).to(dtype))
