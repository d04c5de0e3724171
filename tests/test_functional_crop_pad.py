"""Crop, center_crop, resized_crop, pad, five_crop and ten_crop: generic cases, torchvision
references, invariants and errors."""

from __future__ import annotations

import contextlib
import itertools

import numpy as np
import PIL.Image
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import visiontx.functional as F
from visiontx.datapoints import BoundingBox, Image, Mask, Video
from visiontx.functional import _cv2
from visiontx.functional._geometry._crop import padded_crop, window_resize_mask

from .common import AXIS_ALIGNED
from .common import (
    Case,
    assert_equal,
    make_bounding_box,
    make_image,
    make_image_pil,
    make_image_tensor,
    make_mask,
    make_video,
)

IMAGE_TYPES = (torch.Tensor, Image, PIL.Image.Image, Video)
NO_BOXES = (*IMAGE_TYPES, Mask)

FUNCTIONAL_CASES = {
    F.crop: [
        dict(top=2, left=3, height=10, width=12),
        dict(top=-3, left=15, height=9, width=12),  # reaches outside: zero padding
        dict(top=20, left=-30, height=4, width=5),  # entirely outside
    ],
    F.center_crop: [dict(output_size=[9, 11]), dict(output_size=30), dict(output_size=[20, 8])],
    F.resized_crop: [
        dict(top=2, left=3, height=10, width=12, size=[7, 19]),
        dict(top=-2, left=3, height=10, width=30, size=8, interpolation="nearest"),
    ],
    F.pad: [
        dict(padding=3),
        dict(padding=[1, 2], fill=7),
        dict(padding=[1, 2, 3, 4], fill=0.5),
        Case(dict(padding=[0, 2, 5, 1], fill=None)),
        Case(dict(padding=[2, 3, 30, 1], padding_mode="edge"), types=NO_BOXES),
        Case(dict(padding=[2, 3, 4, 1], padding_mode="reflect"), types=NO_BOXES),
        Case(dict(padding=[2, 3, 4, 1], padding_mode="symmetric"), types=NO_BOXES),
        Case(dict(padding=[2, 3], fill=[10, 20, 30]), types=IMAGE_TYPES, channels=(3,)),
    ],
    F.five_crop: [dict(size=[9, 12]), dict(size=5)],
    F.ten_crop: [dict(size=[9, 12]), dict(size=5, vertical_flip=True)],
}
COVERED = {"crop_bounding_box", "resized_crop_mask", "resized_crop_bounding_box", "pad_mask", "pad_bounding_box"}


def _tv():
    return pytest.importorskip("torchvision.transforms.v2.functional")


def _tv_boxes(boxes: BoundingBox):
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    return tv_tensors.BoundingBoxes(
        boxes.as_subclass(torch.Tensor), format=boxes.format.value, canvas_size=boxes.spatial_size
    )


CROPS = [(2, 3, 10, 12), (-3, 15, 9, 12), (0, 0, 17, 23), (-2, -4, 25, 30), (20, -30, 4, 5), (5, 5, 0, 3)]


def _image_variants():
    return [(dtype, channels) for dtype in (torch.uint8, torch.float32) for channels in (1, 3)]


# ------------------------------------------------------------------------------ torchvision refs
@pytest.mark.parametrize("params", CROPS)
@pytest.mark.parametrize(("dtype", "channels"), _image_variants())
def test_crop_image_matches_torchvision(params, dtype, channels) -> None:
    tv_f = _tv()
    image = make_image_tensor(batch_dims=(2,), dtype=dtype, channels=channels)
    assert_equal(F.crop(image, *params), tv_f.crop(image, *params))
    if params[2] and params[3]:
        pil = make_image_pil(channels=channels)
        assert_equal(F.crop(pil, *params), tv_f.crop(pil, *params))


@pytest.mark.parametrize("params", [p for p in CROPS if p[2] and p[3]])
@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_crop_bounding_box_matches_torchvision(params, format) -> None:
    tv_f = _tv()
    boxes = make_bounding_box(format=format, num_boxes=6)
    out = F.crop(boxes, *params)
    expected = tv_f.crop(_tv_boxes(boxes), *params)
    assert out.spatial_size == tuple(expected.canvas_size) == params[2:]
    assert_equal(out, expected.as_subclass(torch.Tensor), atol=1e-5, rtol=0)


@pytest.mark.parametrize("params", CROPS)
def test_crop_mask_matches_torchvision(params) -> None:
    tv_f = _tv()
    for mask in (make_mask(), make_mask(num_objects=None)):
        assert_equal(F.crop(mask, *params), tv_f.crop_mask(mask.as_subclass(torch.Tensor), *params))


@pytest.mark.parametrize("output_size", [[9, 11], 10, [17, 23], [30, 8], [20, 26], [21, 27], [19, 30]])
@pytest.mark.parametrize(("dtype", "channels"), _image_variants())
def test_center_crop_image_matches_torchvision(output_size, dtype, channels) -> None:
    tv_f = _tv()
    image = make_image_tensor(batch_dims=(2,), dtype=dtype, channels=channels)
    assert_equal(F.center_crop(image, output_size), tv_f.center_crop(image, output_size))
    pil = make_image_pil(channels=channels)
    assert_equal(F.center_crop(pil, output_size), tv_f.center_crop(pil, output_size))
    mask = make_mask()
    assert_equal(F.center_crop(mask, output_size), tv_f.center_crop_mask(mask.as_subclass(torch.Tensor), output_size))


@pytest.mark.parametrize("output_size", [[9, 11], 10, [30, 8], [19, 25]])
@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_center_crop_bounding_box_matches_torchvision(output_size, format) -> None:
    # Larger crops with an odd difference of 3 mod 4 are left out: there torchvision's boxes move by
    # one pixel more than its images (banker's rounding of a negative offset); ours follow the image.
    tv_f = _tv()
    boxes = make_bounding_box(format=format, num_boxes=6)
    out = F.center_crop(boxes, output_size)
    expected = tv_f.center_crop(_tv_boxes(boxes), output_size)
    assert out.spatial_size == tuple(expected.canvas_size)
    assert_equal(out, expected.as_subclass(torch.Tensor), atol=1e-5, rtol=0)


def test_center_crop_boxes_follow_the_image_when_padding() -> None:
    image = torch.zeros(1, 17, 23)
    image[0, 4:9, 6:15] = 1
    boxes = BoundingBox([[6, 4, 15, 9]], format="XYXY", spatial_size=(17, 23), dtype=torch.float32)
    for size in ([20, 26], [21, 27], [24, 30], [17, 23], [9, 11]):
        out_image, out_boxes = F.center_crop(image, size), F.center_crop(boxes, size)
        ys, xs = torch.nonzero(out_image[0], as_tuple=True)
        expected = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
        assert out_boxes.tolist() == [[float(v) for v in expected]]


@pytest.mark.parametrize("params", [(2, 3, 10, 12), (-2, 3, 10, 30), (0, 0, 17, 23)])
@pytest.mark.parametrize("size", [[7, 19], 8, [17, 23]])
@pytest.mark.parametrize(("dtype", "channels"), _image_variants())
def test_resized_crop_matches_torchvision(params, size, dtype, channels) -> None:
    tv_f = _tv()
    image = make_image_tensor(batch_dims=(2,), dtype=dtype, channels=channels)
    atol = 1 if dtype == torch.uint8 else 1e-5
    assert_equal(F.resized_crop(image, *params, size), tv_f.resized_crop(image, *params, size), atol=atol)
    pil = make_image_pil(channels=channels)
    assert_equal(F.resized_crop(pil, *params, size), tv_f.resized_crop(pil, *params, size))
    mask = make_mask()
    expected_mask = tv_f.resized_crop_mask(mask.as_subclass(torch.Tensor), *params, size)
    assert_equal(F.resized_crop(mask, *params, size), expected_mask)
    for format in AXIS_ALIGNED:
        boxes = make_bounding_box(format=format, num_boxes=5)
        out = F.resized_crop(boxes, *params, size)
        expected = tv_f.resized_crop(_tv_boxes(boxes), *params, size)
        assert out.spatial_size == tuple(expected.canvas_size)
        assert_equal(out, expected.as_subclass(torch.Tensor), atol=1e-4, rtol=1e-6)


PADDINGS = [2, [1, 3], [1, 2, 3, 4], [0, 5, 0, 0], [4, 1, 3, 0]]


@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("padding_mode", ["constant", "edge", "reflect", "symmetric"])
@pytest.mark.parametrize(("dtype", "channels"), _image_variants())
def test_pad_image_matches_torchvision(padding, padding_mode, dtype, channels) -> None:
    tv_f = _tv()
    image = make_image_tensor(batch_dims=(2,), dtype=dtype, channels=channels)
    fill = 0.25 if dtype.is_floating_point else 9
    actual = F.pad(image, padding, fill=fill, padding_mode=padding_mode)
    assert_equal(actual, tv_f.pad(image, padding, fill=fill, padding_mode=padding_mode))
    pil = make_image_pil(channels=channels)
    expected_pil = tv_f.pad(pil, padding, fill=9, padding_mode=padding_mode)
    assert_equal(F.pad(pil, padding, fill=9, padding_mode=padding_mode), expected_pil)
    mask = make_mask()
    expected_mask = tv_f.pad_mask(mask.as_subclass(torch.Tensor), padding, fill=1, padding_mode=padding_mode)
    assert_equal(F.pad(mask, padding, fill=1, padding_mode=padding_mode), expected_mask)


@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_pad_per_channel_fill_matches_torchvision(padding, dtype) -> None:
    tv_f = _tv()
    image = make_image_tensor(batch_dims=(2,), dtype=dtype)
    fill = [0.1, 0.5, 0.9] if dtype.is_floating_point else [10, 128, 250]
    assert_equal(F.pad(image, padding, fill=fill), tv_f.pad(image, padding, fill=fill))
    pil = make_image_pil()
    assert_equal(F.pad(pil, padding, fill=[10, 128, 250]), tv_f.pad(pil, padding, fill=[10, 128, 250]))


@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_pad_bounding_box_matches_torchvision(padding, format) -> None:
    tv_f = _tv()
    boxes = make_bounding_box(format=format, num_boxes=6)
    out = F.pad(boxes, padding)
    expected = tv_f.pad(_tv_boxes(boxes), padding)
    assert out.spatial_size == tuple(expected.canvas_size)
    assert_equal(out, expected.as_subclass(torch.Tensor), atol=1e-5, rtol=0)


@pytest.mark.parametrize("size", [[9, 12], 5, [17, 23]])
@pytest.mark.parametrize("vertical_flip", [False, True])
@pytest.mark.parametrize(("dtype", "channels"), _image_variants())
def test_five_ten_crop_match_torchvision(size, vertical_flip, dtype, channels) -> None:
    tv_f = _tv()
    image = make_image_tensor(batch_dims=(2,), dtype=dtype, channels=channels)
    five = F.five_crop(image, size)
    assert isinstance(five, tuple) and len(five) == 5
    assert_equal(five, tv_f.five_crop(image, size))
    ten = F.ten_crop(image, size, vertical_flip=vertical_flip)
    assert isinstance(ten, tuple) and len(ten) == 10
    assert_equal(ten, tv_f.ten_crop(image, size, vertical_flip=vertical_flip))
    pil = make_image_pil(channels=channels)
    assert_equal(F.ten_crop(pil, size, vertical_flip), tv_f.ten_crop(pil, size, vertical_flip))


def test_five_crop_video_keeps_type() -> None:
    video = make_video()
    crops = F.five_crop(video, [4, 5])
    assert all(type(c) is Video and c.shape == (3, 3, 4, 5) for c in crops)


@settings(max_examples=25, deadline=None)
@given(
    top=st.integers(-20, 25),
    left=st.integers(-25, 30),
    height=st.integers(1, 30),
    width=st.integers(1, 30),
)
def test_crop_matches_torchvision_everywhere(top, left, height, width) -> None:
    tv_f = _tv()
    # torchvision 0.29 mis-slices crops ending left of / above the image (a negative end index wraps)
    assume(top + height >= 0 and left + width >= 0)
    image = make_image_tensor(channels=1)
    assert_equal(F.crop(image, top, left, height, width), tv_f.crop(image, top, left, height, width))
    boxes = make_bounding_box(num_boxes=3)
    expected = tv_f.crop(_tv_boxes(boxes), top, left, height, width).as_subclass(torch.Tensor)
    assert_equal(F.crop(boxes, top, left, height, width), expected, atol=1e-5, rtol=0)


# ------------------------------------------------------------------------------- loop references
# the last two regions lie entirely left of / above the image (torchvision's slice wraps around there)
@pytest.mark.parametrize("top, left, height, width", [(-2, 3, 5, 6), (3, -3, 1, 2), (-9, 1, 4, 3)])
def test_crop_loop_reference(top: int, left: int, height: int, width: int) -> None:
    image = make_image_tensor((6, 7), channels=1)
    out = F.crop(image, top, left, height, width)
    assert out.shape == (1, height, width)
    for y in range(height):
        for x in range(width):
            sy, sx = top + y, left + x
            expected = image[0, sy, sx] if 0 <= sy < 6 and 0 <= sx < 7 else 0
            assert out[0, y, x] == expected


@pytest.mark.parametrize("mode", ["edge", "reflect", "symmetric"])
def test_pad_matches_numpy(mode) -> None:
    image = make_image_tensor((5, 4), channels=2)
    out = F.pad(image, [3, 1, 9, 2], padding_mode=mode)  # wider than the image: wraps the reflection
    expected = np.pad(image.numpy(), ((0, 0), (1, 2), (3, 9)), mode=mode)
    assert_equal(out, torch.from_numpy(expected))


def test_pad_bounding_box_loop_reference() -> None:
    boxes = BoundingBox([[1, 2, 5, 6], [0, 0, 3, 3]], format="XYWH", spatial_size=(10, 12), dtype=torch.float32)
    out = F.pad(boxes, [2, 3, 4, 5])
    assert out.spatial_size == (18, 18)
    assert out.tolist() == [[3, 5, 5, 6], [2, 3, 3, 3]]


# ------------------------------------------------------------------------------------ invariants
@pytest.mark.parametrize("make", [make_image, make_mask, make_video])
@pytest.mark.parametrize("params", [(2, 3, 10, 12), (-3, 15, 9, 12), (-2, -4, 25, 30)])
def test_crop_then_pad_back_restores_visible_region(make, params) -> None:
    inpt = make()
    top, left, height, width = params
    img_h, img_w = inpt.shape[-2:]
    cropped = F.crop(inpt, top, left, height, width)
    padding = [left, top, img_w - left - width, img_h - top - height]
    if min(padding) >= 0:
        restored = F.pad(cropped, padding)
    else:  # the crop reached outside: crop the crop back, which pads and trims
        restored = F.crop(cropped, -top, -left, img_h, img_w)
    visible = torch.zeros(img_h, img_w, dtype=torch.bool)
    visible[max(top, 0) : top + height, max(left, 0) : left + width] = True
    assert restored.shape == inpt.shape
    assert_equal(restored[..., visible], inpt[..., visible])
    assert (restored[..., ~visible] == 0).all()


def test_crop_fully_outside_is_zeros() -> None:
    image = make_image_tensor()
    for params in [(0, -2, 1, 1), (-5, 0, 3, 4), (17, 23, 2, 2)]:
        out = F.crop(image, *params)
        assert out.shape == (3, *params[2:]) and not out.any()


def test_crop_inside_is_a_view() -> None:
    image = make_image_tensor()
    assert F.crop(image, 1, 2, 5, 6).data_ptr() == image[..., 1:, 2:].data_ptr()


@pytest.mark.parametrize("params", [(1, 2, 5, 6), (0, 0, 0, 3), (3, 4, 2, 0), (0, 0, 17, 23)])
def test_crop_inside_is_the_slicing_view(params: tuple[int, int, int, int]) -> None:
    base = torch.arange(2 * 3 * 40 * 30, dtype=torch.float32).reshape(2, 3, 40, 30)
    image = base[:, :, 5:22:1, 1:24].transpose(0, 1)  # non-contiguous, with an offset
    top, left, height, width = params
    out, expected = F.crop(image, *params), image[..., top : top + height, left : left + width]
    assert out.shape == expected.shape and out.stride() == expected.stride()
    assert out.storage_offset() == expected.storage_offset() and torch.equal(out, expected)


def test_pad_zero_returns_input() -> None:
    image = make_image_tensor()
    assert F.pad(image, 0) is image


def test_crop_boxes_are_clamped() -> None:
    boxes = BoundingBox([[0, 0, 20, 15], [18, 12, 22, 16]], format="XYXY", spatial_size=(17, 23), dtype=torch.float32)
    out = F.crop(boxes, 5, 4, 8, 10)
    assert out.spatial_size == (8, 10)
    assert out.tolist() == [[0, 0, 10, 8], [10, 7, 10, 8]]


def test_crop_empty_boxes() -> None:
    boxes = BoundingBox(torch.zeros(0, 4), format="CXCYWH", spatial_size=(17, 23))
    out = F.resized_crop(boxes, 1, 2, 5, 6, [10, 12])
    assert out.shape == (0, 4) and out.spatial_size == (10, 12)


def test_integer_boxes_keep_dtype() -> None:
    boxes = BoundingBox([[2, 3, 9, 12]], format="XYXY", spatial_size=(17, 23), dtype=torch.int64)
    assert F.crop(boxes, 1, 1, 10, 10).tolist() == [[1, 2, 8, 10]]
    assert F.pad(boxes, 2).dtype == torch.int64


# ------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: F.pad(make_image_tensor(), -1), ValueError, "padding"),
        (lambda: F.pad(make_image_tensor(), [1, 2, 3]), TypeError, "padding"),
        (lambda: F.pad(make_image_tensor(), [1.5, 2]), TypeError, "padding"),
        (lambda: F.pad(make_image_tensor(), 1, padding_mode="wrap"), ValueError, "padding_mode"),
        (lambda: F.pad(make_image_tensor(), 1, fill=[1, 2]), ValueError, r"fill must hold 1 value or one per channel"),
        (lambda: F.pad(make_image_tensor(channels=1), 1, fill=[1, 2]), ValueError, r"fill must hold 1 value, got \["),
        (lambda: F.pad(make_image_tensor(), 1, fill="red"), TypeError, "fill"),
        (lambda: F.pad(make_image_pil(), 1, fill=[1, 2]), ValueError, "fill"),
        (lambda: F.pad(make_mask(), 1, fill=[1, 2]), ValueError, "fill"),
        (lambda: F.pad(make_bounding_box(), 1, padding_mode="reflect"), ValueError, "padding_mode"),
        (lambda: F.crop(make_image_tensor(), 0, 0, -1, 4), ValueError, "height"),
        (lambda: F.crop(make_bounding_box(), 0, 0, 0, 4), ValueError, "height"),
        (lambda: F.center_crop(make_bounding_box(), [5, 0]), ValueError, "height"),
        (lambda: F.center_crop(make_image_tensor(), [1, 2, 3]), TypeError, "output_size"),
        (lambda: F.center_crop(make_image_tensor(), -2), ValueError, "output_size"),
        (lambda: F.five_crop(make_image_tensor(), [18, 5]), ValueError, "size"),
        (lambda: F.ten_crop(make_image_pil(), 30), ValueError, "size"),
    ],
)
def test_errors(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("op", [F.five_crop, F.ten_crop])
@pytest.mark.parametrize("make", [make_mask, make_bounding_box])
def test_five_ten_crop_refuse_masks_and_boxes(op, make) -> None:
    with pytest.raises(TypeError, match="supports"):
        op(make(), 5)


@pytest.mark.parametrize("shape", [(30, 41), (5, 30, 41), (2, 3, 30, 41)])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.bool])
def test_window_resize_mask_equals_crop_flip_resize(shape: tuple[int, ...], dtype: torch.dtype) -> None:
    """Sampled straight from the mask: what zero-padded cropping, flipping and a nearest resize give, for
    windows inside, across and outside the mask, shrinking and growing, with the wing and without."""
    generator = torch.Generator().manual_seed(0)
    mask = torch.randint(0, 7, shape, generator=generator, dtype=torch.uint8)
    mask = mask > 3 if dtype == torch.bool else mask
    windows = [(0, 0, 30, 41), (5, 7, 10, 12), (-12, -20, 70, 90), (25, 30, 20, 30), (40, 50, 8, 9), (-30, -9, 10, 60)]
    for (top, left, height, width), size, vflip, hflip in itertools.product(
        windows, [(13, 17), (61, 95), (30, 41)], (False, True), (False, True)
    ):
        expected = F.crop_image_tensor(mask, top, left, height, width)
        expected = F.vertical_flip_image_tensor(expected) if vflip else expected
        expected = F.horizontal_flip_image_tensor(expected) if hflip else expected
        expected = F.resize_mask(expected, list(size))
        for wing in (True, False):
            with contextlib.nullcontext() if wing else _cv2.disabled():
                out = window_resize_mask(mask, top, left, height, width, size, vflip, hflip)
            assert out.dtype == dtype and torch.equal(out, expected), (top, left, height, width, size, vflip, hflip)
    assert mask.shape == shape  # the input is left as it was


def test_window_resize_mask_zeroes_what_is_not_kept() -> None:
    mask = torch.randint(1, 7, (3, 30, 41), generator=torch.Generator().manual_seed(1), dtype=torch.uint8)
    for kept in [(4, 6, 20, 30), (0, 0, 30, 41), (-5, -5, 50, 60), (10, 10, 10, 30), (12, 50, 20, 60)]:
        top, left, bottom, right = (max(kept[0], 0), max(kept[1], 0), max(kept[2], 0), max(kept[3], 0))
        only_kept = torch.zeros_like(mask)
        only_kept[..., top:bottom, left:right] = mask[..., top:bottom, left:right]
        for window, size, flips in itertools.product([(-3, 2, 28, 35), (5, -8, 40, 60)], [(9, 11), (50, 70)],
                                                     itertools.product((False, True), repeat=2)):
            expected = F.crop_image_tensor(only_kept, *window)
            expected = F.vertical_flip_image_tensor(expected) if flips[0] else expected
            expected = F.horizontal_flip_image_tensor(expected) if flips[1] else expected
            out = window_resize_mask(mask, *window, size, *flips, kept=kept)
            assert torch.equal(out, F.resize_mask(expected, list(size))), (kept, window, size, flips)


@pytest.mark.parametrize(
    ("dtype", "fill"),
    [(torch.uint8, 300), (torch.uint8, -1), (torch.uint8, [300, 0, -1]), (torch.uint8, 255.5), (torch.int16, 40000)],
)
def test_pad_refuses_integer_fills_outside_the_dtype_range(dtype, fill) -> None:
    """A clear ValueError, where torch's cast either raised its own error (one value) or wrapped (a list)."""
    image = make_image_tensor((4, 5)).to(dtype)
    with pytest.raises(ValueError, match="fill must be within"):
        F.pad(image, [1], fill=fill)
    with pytest.raises(ValueError, match="fill must be within"):
        F.pad(Mask(image[0]), [1], fill=fill if not isinstance(fill, list) else -1)
    wide = F.pad(image.to(torch.int32), [1], fill=fill)  # int32 holds every one of these fills
    assert wide[:, 0, 0].tolist() == [int(v) for v in (fill if isinstance(fill, list) else [fill] * 3)]


# ------------------------------------------------------------------ padded_crop (RandomCrop's constant padding)
_PADDING = (4, 3, 5, 2)  # left, top, right, bottom


def _windows(height: int, width: int):
    """Windows of the padded canvas: inside the image, across each edge, the whole canvas, one pixel."""
    padded_h, padded_w = height + _PADDING[1] + _PADDING[3], width + _PADDING[0] + _PADDING[2]
    return [(3, 4, height, width), (0, 0, height, width), (0, 0, padded_h, padded_w), (2, 7, 5, 9),
            (padded_h - 4, padded_w - 6, 4, 6), (0, padded_w - 1, 1, 1), (5, 6, 1, 1)]


@pytest.mark.parametrize(
    ("make", "dtype", "fill"),
    [
        (make_image, torch.uint8, 0), (make_image, torch.uint8, [10, 200, 255]), (make_image, torch.float32, 0.25),
        (make_image, torch.float32, None), (make_image_tensor, torch.int16, -7), (make_image_tensor, torch.bool, 1),
        (make_video, torch.uint8, [1, 2, 3]), (make_mask, torch.uint8, 9), (make_mask, torch.int64, 3),
    ],
)
def test_padded_crop_equals_pad_then_crop(make, dtype, fill) -> None:
    inpt = make((11, 13)) if make is not make_mask else make((11, 13), dtype=dtype)
    if make is not make_mask:
        inpt = type(inpt)(inpt.to(dtype)) if isinstance(inpt, (Image, Video)) else inpt.to(dtype)
    padded = F.pad(inpt, list(_PADDING), fill=fill)
    for top, left, height, width in _windows(11, 13):
        out = padded_crop(inpt, top - _PADDING[1], left - _PADDING[0], height, width, fill)
        expected = F.crop(padded, top, left, height, width)
        assert type(out) is type(inpt) and out.dtype == inpt.dtype
        assert_equal(out, expected)


@pytest.mark.parametrize("fill", [9, [5, 6, 7]])
def test_padded_crop_of_large_windows_equals_pad_then_crop(fill, monkeypatch) -> None:
    """Windows over 128 KB: one fill value takes the wing's pad there, as a per-channel fill does at any size."""
    calls = []
    wing = _cv2.pad
    monkeypatch.setattr(_cv2, "pad", lambda *args: calls.append(args[1]) or wing(*args))
    image = make_image_tensor((300, 260))
    padded = F.pad(image, [20], fill=fill)
    for top, left in [(0, 0), (30, 11), (60, 30)]:  # windows of the padded canvas
        calls.clear()
        expected = F.crop(padded, top, left, 280, 270)
        assert_equal(padded_crop(image, top - 20, left - 20, 280, 270, fill), expected)
        assert len(calls) == 1


def test_padded_crop_never_returns_a_view_of_its_input() -> None:
    """As the crop of a padded copy: writing to the output leaves the input alone, also for windows inside it."""
    image = make_image()
    before = image.clone()
    for window in [(1, 2, 5, 6), (0, 0, *image.shape[-2:]), (-1, 0, 4, 4)]:
        out = padded_crop(image, *window, 0)
        out.fill_(77)
        assert_equal(image, before)


@pytest.mark.parametrize(
    ("make", "fill", "match"),
    [(make_mask, [1, 2], "fill"), (make_image, [1, 2], "fill"), (make_image, 256, "fill must be within")],
)
def test_padded_crop_checks_the_fill_as_pad_does_even_for_windows_inside(make, fill, match) -> None:
    inpt = make()
    with pytest.raises(ValueError, match=match) as from_pad:
        F.pad(inpt, [1], fill=fill)
    for window in [(1, 1, 3, 3), (-1, -1, 3, 3)]:
        with pytest.raises(ValueError, match=match) as from_crop:
            padded_crop(inpt, *window, fill)
        assert str(from_crop.value) == str(from_pad.value)


def test_padded_crop_checks_a_masks_fill_count_before_its_range() -> None:
    with pytest.raises(ValueError, match="fill must hold 1 value, got \\[300, 1\\]"):
        padded_crop(make_mask(), -1, -1, 3, 3, [300, 1])
