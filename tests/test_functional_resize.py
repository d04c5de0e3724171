"""Resize: generic cases, torchvision references, the same-size shortcut and errors."""

from __future__ import annotations

import PIL.Image
import pytest
import torch

import visiontx.functional as F
from visiontx.datapoints import BoundingBox, Mask

from .common import AXIS_ALIGNED
from .common import Case, assert_equal, make_bounding_box, make_image_pil, make_image_tensor, make_mask, make_video

FUNCTIONAL_CASES = {
    F.resize: [
        dict(size=[9, 31]),
        dict(size=11),
        Case(dict(size=[30], max_size=50, interpolation="bicubic")),
        dict(size=[25, 12], interpolation=PIL.Image.Resampling.NEAREST),
        dict(size=[8, 8], interpolation="nearest-exact", antialias=False),
        dict(size=None, max_size=12),
        dict(size=list((17, 23))),  # same size: the input itself
    ],
}
COVERED = {"resize_mask", "resize_bounding_box"}

SIZES = [[9, 31], [40, 12], 11, [30]]
MODES = ["nearest", "nearest-exact", "bilinear", "bicubic"]


def _tv():
    return pytest.importorskip("torchvision.transforms.v2.functional")


def _tv_mode(tv_f, mode: str):
    return tv_f.InterpolationMode(mode)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("antialias", [True, False])
def test_resize_image_matches_torchvision(size, mode, dtype, channels, antialias) -> None:
    tv_f = _tv()
    image = make_image_tensor(batch_dims=(2,), dtype=dtype, channels=channels)
    actual = F.resize_image_tensor(image, size, interpolation=mode, antialias=antialias)
    expected = tv_f.resize_image(image, size, interpolation=_tv_mode(tv_f, mode), antialias=antialias)
    assert actual.dtype == dtype
    assert_equal(actual, expected, atol=1 if dtype == torch.uint8 else 1e-5)


def test_resize_lanczos_matches_torchvision() -> None:
    tv_f = _tv()
    image = make_image_tensor((30, 41))
    actual = F.resize(image, [13, 17], interpolation="lanczos")
    expected = tv_f.resize(image, [13, 17], interpolation=tv_f.InterpolationMode.LANCZOS)
    assert_equal(actual, expected, atol=1)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "box", "hamming", "lanczos"])
@pytest.mark.parametrize("channels", [1, 3])
def test_resize_pil_matches_torchvision(size, mode, channels) -> None:
    tv_f = _tv()
    image = make_image_pil(channels=channels)
    actual = F.resize(image, size, interpolation=mode)
    expected = tv_f.resize(image, size, interpolation=_tv_mode(tv_f, mode))
    assert isinstance(actual, PIL.Image.Image)
    assert_equal(actual, expected)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("num_objects", [2, None])
def test_resize_mask_matches_torchvision(size, num_objects) -> None:
    tv_f = _tv()
    mask = make_mask(num_objects=num_objects)
    actual = F.resize(mask, size, interpolation="bilinear")  # masks always use nearest
    expected = tv_f.resize_mask(mask.as_subclass(torch.Tensor), size)
    assert isinstance(actual, Mask)
    assert_equal(actual, expected)


@pytest.mark.parametrize("size", [[9, 31], 11, [30]])
@pytest.mark.parametrize("max_size", [None, 40])
@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_resize_bounding_box_matches_torchvision(size, max_size, format) -> None:
    tv_f = _tv()
    if max_size is not None and isinstance(size, list) and len(size) == 2:
        return
    boxes = make_bounding_box(format=format, batch_dims=(2,))
    actual, new_size = F.resize_bounding_box(
        boxes.as_subclass(torch.Tensor), boxes.spatial_size, size, max_size=max_size, format=format
    )
    raw = boxes.as_subclass(torch.Tensor)
    expected, tv_size = tv_f.resize_bounding_boxes(
        raw, canvas_size=boxes.spatial_size, size=size, max_size=max_size, format=format.value
    )
    assert new_size == tuple(tv_size)
    assert_equal(actual, expected, atol=1e-4, rtol=1e-6)
    out = F.resize(boxes, size, max_size=max_size)
    assert isinstance(out, BoundingBox) and out.spatial_size == new_size and out.format == format


def test_resize_bool_mask() -> None:
    mask = Mask(make_mask(num_objects=3).bool())
    out = F.resize(mask, [30, 11])
    assert out.dtype == torch.bool
    assert_equal(out, F.resize(mask.to(torch.uint8), [30, 11]).bool())


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8])
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_resize_nearest_integer_dtypes_match_torchvision(dtype, mode) -> None:
    tv_f = _tv()
    labels = torch.randint(-100, 100, (2, 9, 13), generator=torch.Generator().manual_seed(0)).to(dtype)
    for size in ([16, 16], [4, 5], [9, 30]):
        expected = tv_f.resize(labels, size, interpolation=_tv_mode(tv_f, mode))
        assert_equal(F.resize(labels, size, interpolation=mode), expected)
        assert_equal(F.resize(Mask(labels), size, interpolation=mode), expected)
    big = torch.tensor([[[1, 2**40, 3]]])  # beyond float32's exact integers: no float round trip
    assert F.resize(big, [1, 6], interpolation="nearest").tolist() == [[[1, 1, 2**40, 2**40, 3, 3]]]


def test_resize_bounding_box_loop_reference() -> None:
    boxes = torch.tensor([[1.0, 2.0, 5.0, 9.0], [0.0, 0.0, 20.0, 10.0]])
    out, size = F.resize_bounding_box(boxes, (10, 20), [30, 10])
    assert size == (30, 10)
    expected = [[x1 * 0.5, y1 * 3, x2 * 0.5, y2 * 3] for x1, y1, x2, y2 in boxes.tolist()]
    assert_equal(out, torch.tensor(expected))


@pytest.mark.parametrize(
    ("spatial_size", "size", "max_size", "expected"),
    [
        ((17, 23), 10, None, (10, 13)),
        ((23, 17), 10, None, (13, 10)),
        ((20, 20), 7, None, (7, 7)),
        ((17, 23), 10, 12, (9, 12)),
        ((17, 23), None, 46, (34, 46)),
        ((17, 23), [5, 6], None, (5, 6)),
        ((17, 23), (30,), None, (30, 40)),
    ],
)
def test_resize_output_size(spatial_size, size, max_size, expected) -> None:
    image = torch.zeros(1, *spatial_size, dtype=torch.uint8)
    assert F.resize(image, size, max_size=max_size).shape[-2:] == expected
    boxes = BoundingBox([[1, 1, 3, 3]], format="XYXY", spatial_size=spatial_size)
    assert F.resize(boxes, size, max_size=max_size).spatial_size == expected


@pytest.mark.parametrize(
    "make",
    [make_image_tensor, make_video, make_mask, make_image_pil, make_bounding_box],
)
def test_resize_to_same_size_returns_input(make) -> None:
    inpt = make()
    out = F.resize(inpt, [17, 23])
    assert_equal(out, inpt)
    raw = getattr(inpt, "as_subclass", None)
    if raw is None:
        assert out is inpt
    else:
        assert out.data_ptr() == inpt.data_ptr()  # no copy, only a re-wrap
    plain = make_image_tensor()
    assert F.resize_image_tensor(plain, 17) is plain


def test_resize_uint8_float_paths_agree() -> None:
    image = make_image_tensor((40, 50))
    as_float = F.resize(image.float() / 255, [21, 17]) * 255
    assert_equal(F.resize(image, [21, 17]).float(), as_float, atol=1.0, rtol=0)


def test_resize_batch_dims_and_empty() -> None:
    video = make_video(batch_dims=(2,), num_frames=3)
    out = F.resize(video, [8, 9])
    assert out.shape == (2, 3, 3, 8, 9)
    assert_equal(out[1, 2], F.resize(video[1, 2].as_subclass(torch.Tensor), [8, 9]))
    empty = torch.zeros(0, 3, 17, 23, dtype=torch.uint8)
    assert F.resize(empty, [8, 9]).shape == (0, 3, 8, 9)
    plain_2d = torch.rand(17, 23)
    assert F.resize(plain_2d, [8, 9]).shape == (8, 9)


def test_resize_does_not_mutate_and_keeps_non_contiguous() -> None:
    image = make_image_tensor((20, 30)).permute(0, 2, 1)
    before = image.clone()
    out = F.resize(image, [10, 10])
    assert_equal(image, before)
    assert_equal(out, F.resize(image.contiguous(), [10, 10]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [True, False])
def test_resize_half_precision_matches_torchvision(dtype, mode, antialias) -> None:
    tv_f = _tv()
    image = torch.rand(2, 3, 17, 23, generator=torch.Generator().manual_seed(0)).to(dtype)
    expected = tv_f.resize(image, [10, 13], interpolation=_tv_mode(tv_f, mode), antialias=antialias)
    actual = F.resize(image, [10, 13], interpolation=mode, antialias=antialias)
    assert actual.dtype == dtype
    assert_equal(actual, expected)


def test_resize_uint8_contiguous_with_odd_strides_on_size_one_dims() -> None:
    # contiguous by torch's rules, strides (3, 1, 3): torch's own uint8 kernel reads past the data here
    column = torch.tensor([[[10, 20, 30]]], dtype=torch.uint8).transpose(-1, -2)
    assert column.is_contiguous() and column.stride() == (3, 1, 3)
    expected = F.resize(column.clone(memory_format=torch.contiguous_format), [6, 2])
    assert expected[0, :, 0].tolist() == [10, 13, 18, 23, 28, 30]
    assert_equal(F.resize(column, [6, 2]), expected)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        (dict(size=0), ValueError),
        (dict(size=[4, -1]), ValueError),
        (dict(size=[1, 2, 3]), TypeError),
        (dict(size="big"), TypeError),
        (dict(size=[4.5]), TypeError),
        (dict(size=[4, 5], max_size=10), ValueError),
        (dict(size=10, max_size=10), ValueError),
        (dict(size=None), ValueError),
        (dict(size=5, interpolation="cubic"), ValueError),
        (dict(size=5, interpolation="box"), ValueError),
        (dict(size=5, interpolation="lanczos", antialias=False), ValueError),
    ],
)
def test_resize_errors(kwargs, error) -> None:
    with pytest.raises(error, match="size|interpolation|antialias"):
        F.resize(make_image_tensor(), **kwargs)


@pytest.mark.parametrize("size", [4, [4, 4]])
def test_resize_of_an_image_without_pixels_is_an_error(size) -> None:
    for image in (make_image_tensor((0, 5)), make_image_tensor((5, 0)), Mask(torch.zeros(2, 0, 5))):
        with pytest.raises(ValueError, match="no pixels"):
            F.resize(image, size)


def test_resize_to_a_side_of_zero_pixels_is_an_error() -> None:
    with pytest.raises(ValueError, match="side of 0 pixels"):
        F.resize(make_image_tensor((129, 1)), 68, max_size=87)


def test_resize_unsupported_type() -> None:
    with pytest.raises(TypeError, match="supports"):
        F.resize("image", [3, 3])
