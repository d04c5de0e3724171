"""Meta queries, box format / clamping, dtype and type conversions."""

from __future__ import annotations

import io

import numpy as np
import PIL.Image
import PIL.features
import pytest
import torch

import visiontx.functional as F
from visiontx.functional import _cv2
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Image, Mask, Video

from .common import AXIS_ALIGNED
from .common import (
    assert_equal,
    check_functional,
    check_kernel,
    interleaved_copy,
    make_bounding_box,
    make_image,
    make_image_pil,
    make_image_tensor,
    make_mask,
    make_video,
    unwrap,
)

COVERED = {
    "clamp_bounding_box",
    "convert_dtype",
    "convert_dtype_image_tensor",
    "convert_dtype_video",
    "convert_format_bounding_box",
    "get_dimensions",
    "get_dimensions_image_pil",
    "get_dimensions_image_tensor",
    "get_num_channels",
    "get_num_channels_image_pil",
    "get_num_channels_image_tensor",
    "get_num_frames",
    "get_num_frames_video",
    "get_spatial_size",
    "get_spatial_size_bounding_box",
    "get_spatial_size_image_pil",
    "get_spatial_size_image_tensor",
    "get_spatial_size_mask",
    "pil_to_tensor",
    "to_dtype",
    "to_dtype_bounding_box",
    "to_dtype_image_tensor",
    "to_dtype_mask",
    "to_dtype_video",
    "to_image_pil",
    "to_image_tensor",
    "to_pil_image",
}


# ------------------------------------------------------------------------------------------ meta
@pytest.mark.parametrize("channels", [1, 3])
def test_dimensions_of_every_image_type(channels: int) -> None:
    for inpt in (
        make_image_tensor((5, 7), channels=channels),
        make_image((5, 7), channels=channels),
        make_image_pil((5, 7), channels=channels),
        make_video((5, 7), channels=channels, num_frames=4),
        make_image_tensor((5, 7), channels=channels, batch_dims=(2, 3)),
    ):
        assert F.get_dimensions(inpt) == [channels, 5, 7]
        assert F.get_num_channels(inpt) == channels
        assert F.get_spatial_size(inpt) == [5, 7]
    assert F.get_dimensions(torch.zeros(5, 7)) == [1, 5, 7]


def test_spatial_size_of_masks_and_boxes_and_num_frames() -> None:
    assert F.get_spatial_size(make_mask((6, 9))) == [6, 9]
    assert F.get_spatial_size(make_bounding_box((6, 9))) == [6, 9]
    assert F.get_num_frames(make_video(num_frames=5)) == 5
    assert F.get_num_frames(torch.zeros(2, 5, 3, 4, 4)) == 5


@pytest.mark.parametrize(
    ("functional", "inpt"),
    [
        (F.get_dimensions, make_mask()),
        (F.get_dimensions, make_bounding_box()),
        (F.get_num_frames, make_image()),
        (F.get_num_channels, "image"),
        (F.get_spatial_size, 3),
    ],
)
def test_meta_queries_refuse_unsupported_types(functional, inpt) -> None:
    with pytest.raises(TypeError, match="supports"):
        functional(inpt)


def test_meta_queries_refuse_too_few_dims() -> None:
    with pytest.raises(TypeError, match="dims"):
        F.get_dimensions(torch.zeros(3))
    with pytest.raises(TypeError, match="dims"):
        F.get_num_frames(torch.zeros(3, 4, 4))


# ------------------------------------------------------------------------------- box format / clamp
def _loop_to_xyxy(box: list[float], fmt: BoundingBoxFormat) -> list[float]:
    a, b, c, d = box
    if fmt == BoundingBoxFormat.XYWH:
        return [a, b, a + c, b + d]
    if fmt == BoundingBoxFormat.CXCYWH:
        return [a - c / 2, b - d / 2, a + c / 2, b + d / 2]
    return [a, b, c, d]


@pytest.mark.parametrize("old", AXIS_ALIGNED)
@pytest.mark.parametrize("new", AXIS_ALIGNED)
def test_convert_format_round_trips_and_matches_loop_reference(old, new) -> None:
    boxes = make_bounding_box(format=old, dtype=torch.float64)
    converted = F.convert_format_bounding_box(boxes, new_format=new)
    assert type(converted) is BoundingBox and converted.format == new
    assert converted.spatial_size == boxes.spatial_size
    expected = [_loop_to_xyxy(b, old) for b in boxes.tolist()]
    back = [_loop_to_xyxy(b, new) for b in converted.tolist()]
    assert_equal(torch.tensor(back), torch.tensor(expected), atol=1e-9, rtol=0)
    assert_equal(F.convert_format_bounding_box(converted, new_format=old), boxes, atol=1e-9, rtol=0)
    plain = F.convert_format_bounding_box(unwrap(boxes), old_format=old, new_format=new)
    assert type(plain) is torch.Tensor and torch.equal(plain, unwrap(converted))


def test_convert_format_argument_errors() -> None:
    boxes = make_bounding_box()
    with pytest.raises(ValueError, match="new_format"):
        F.convert_format_bounding_box(boxes)
    with pytest.raises(ValueError, match="old_format"):
        F.convert_format_bounding_box(boxes, old_format="XYXY", new_format="XYWH")
    with pytest.raises(ValueError, match="old_format"):
        F.convert_format_bounding_box(unwrap(boxes), new_format="XYWH")
    with pytest.raises(ValueError, match="new_format"):
        F.convert_format_bounding_box(boxes, new_format="XYZW")
    with pytest.raises(TypeError, match="supports"):
        F.convert_format_bounding_box(make_image(), new_format="XYWH")


def test_convert_format_does_not_mutate_and_handles_empty() -> None:
    boxes = make_bounding_box(format="CXCYWH")
    before = boxes.clone()
    F.convert_format_bounding_box(boxes, new_format="XYXY")
    assert_equal(boxes, before)
    empty = BoundingBox(torch.zeros(0, 4), format="XYWH", spatial_size=(3, 3))
    assert F.convert_format_bounding_box(empty, new_format="CXCYWH").shape == (0, 4)


@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_clamp_matches_loop_reference(format) -> None:
    xyxy = torch.tensor([[-3.0, -2.0, 30.0, 5.0], [2.0, 3.0, 4.0, 40.0], [-9.0, -9.0, -1.0, -1.0]])
    height, width = 10, 20
    boxes = BoundingBox(F.convert_format_bounding_box(xyxy, old_format="XYXY", new_format=format),
                        format=format, spatial_size=(height, width))
    clamped = F.clamp_bounding_box(boxes)
    expected = [[min(max(v, 0), width if i % 2 == 0 else height) for i, v in enumerate(b)] for b in xyxy.tolist()]
    assert_equal(F.convert_format_bounding_box(clamped, new_format="XYXY"), torch.tensor(expected), atol=1e-6, rtol=0)
    plain = F.clamp_bounding_box(unwrap(boxes), format=format, spatial_size=(height, width))
    assert torch.equal(plain, unwrap(clamped))
    check_kernel(F._meta.clamp_bounding_box_tensor, unwrap(boxes), format=format, spatial_size=(height, width))


def test_clamp_argument_errors() -> None:
    boxes = make_bounding_box()
    with pytest.raises(ValueError, match="None"):
        F.clamp_bounding_box(boxes, format="XYXY")
    with pytest.raises(ValueError, match="given"):
        F.clamp_bounding_box(unwrap(boxes), format="XYXY")
    with pytest.raises(TypeError, match="supports"):
        F.clamp_bounding_box(make_mask())


@pytest.mark.parametrize(("dtype", "batch_dims"), [(torch.float32, ()), (torch.int64, ()), (torch.float32, (2, 3))])
def test_box_ops_match_torchvision(dtype: torch.dtype, batch_dims: tuple[int, ...]) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    from torchvision import tv_tensors

    for old in AXIS_ALIGNED:
        boxes = make_bounding_box(format=old, dtype=dtype, batch_dims=batch_dims)
        scale = 3 if dtype == torch.int64 else 1.37  # odd sizes, fractions
        boxes = BoundingBox.wrap_like(boxes, unwrap(boxes) * scale)
        flat = unwrap(boxes).reshape(-1, 4)  # torchvision's boxes are [N, 4]
        theirs = tv_tensors.BoundingBoxes(flat, format=old.value, canvas_size=boxes.spatial_size)
        for new in AXIS_ALIGNED:
            ours = F.convert_format_bounding_box(boxes, new_format=new)
            expected = tv_f.convert_bounding_box_format(theirs, new_format=new.value)
            assert ours.shape == boxes.shape
            assert_equal(unwrap(ours).reshape(-1, 4), expected, atol=0 if dtype == torch.int64 else 1e-5, rtol=0)
        if batch_dims:
            continue
        shifted = theirs + 5
        ours = F.clamp_bounding_box(BoundingBox.wrap_like(boxes, unwrap(boxes) + 5))
        reference = tv_f.clamp_bounding_boxes(tv_tensors.wrap(shifted, like=theirs))
        assert_equal(ours, reference, atol=1e-5, rtol=0)


INTEGER_BOX_SIZE = (20, 24)


def _integer_boxes(format: BoundingBoxFormat, dtype: torch.dtype) -> BoundingBox:
    """Integer boxes in ``format`` with odd and even sizes, inside, on and across the image borders."""
    corners = [(-2, -1), (0, 0), (5, 5), (10, 7), (18, 22), (21, 25)]
    sizes = [(1, 1), (2, 4), (3, 3), (4, 5), (7, 2)]
    boxes = torch.tensor([[x, y, w, h] for x, y in corners for w, h in sizes])  # XYWH and CXCYWH as they are
    if format == BoundingBoxFormat.XYXY:
        boxes[:, 2:] += boxes[:, :2]
    return BoundingBox(boxes.to(dtype), format=format, spatial_size=INTEGER_BOX_SIZE)


def test_integer_cxcywh_boxes_keep_their_centre() -> None:
    boxes = BoundingBox([[5, 5, 3, 3]], format="CXCYWH", spatial_size=(20, 20))
    assert unwrap(F.clamp_bounding_box(boxes)).tolist() == [[5, 5, 3, 3]]
    assert unwrap(F.pad(boxes, [1])).tolist() == [[6, 6, 3, 3]]
    assert unwrap(F.crop(boxes, 1, 1, 19, 19)).tolist() == [[4, 4, 3, 3]]


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("old", AXIS_ALIGNED)
@pytest.mark.parametrize("new", AXIS_ALIGNED)
def test_integer_convert_format_matches_torchvision(old, new, dtype: torch.dtype) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    boxes = unwrap(_integer_boxes(old, dtype))
    ours = F.convert_format_bounding_box(boxes, old_format=old, new_format=new)
    assert ours.dtype == dtype
    assert_equal(ours, tv_f.convert_bounding_box_format(boxes, old_format=old.value, new_format=new.value))


INTEGER_BOX_OPS = [  # (ours, torchvision's, args): ops that are exact on integer boxes, clamping included
    ("clamp_bounding_box", "clamp_bounding_boxes", ()),
    ("pad", "pad", ([1],)),
    ("pad", "pad", ([2, 3, 1, 0],)),
    ("crop", "crop", (1, 1, 19, 19)),
    ("crop", "crop", (-2, 3, 25, 30)),
    ("center_crop", "center_crop", ([11, 13],)),
    ("center_crop", "center_crop", ([22, 28],)),  # padding: odd excesses differ (torchvision boxes off its image)
    ("resized_crop", "resized_crop", (2, 3, 11, 13, [22, 26])),
    ("resize", "resize", ([40, 48],)),
    ("horizontal_flip", "horizontal_flip", ()),
    ("vertical_flip", "vertical_flip", ()),
]


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("format", AXIS_ALIGNED)
@pytest.mark.parametrize(("ours", "theirs", "args"), INTEGER_BOX_OPS, ids=lambda v: str(v))
def test_integer_box_ops_match_torchvision(ours: str, theirs: str, args: tuple, format, dtype: torch.dtype) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    from torchvision import tv_tensors

    boxes = _integer_boxes(format, dtype)
    tv_boxes = tv_tensors.BoundingBoxes(unwrap(boxes), format=format.value, canvas_size=boxes.spatial_size)
    actual, expected = getattr(F, ours)(boxes, *args), getattr(tv_f, theirs)(tv_boxes, *args)
    assert actual.dtype == dtype and tuple(actual.spatial_size) == tuple(expected.canvas_size)
    assert_equal(unwrap(actual), expected.as_subclass(torch.Tensor), atol=0, rtol=0)


# ------------------------------------------------------------------------------------------ dtype
DTYPE_PAIRS = [
    (torch.uint8, torch.float32),
    (torch.uint8, torch.float64),
    (torch.float32, torch.uint8),
    (torch.float64, torch.uint8),
    (torch.float32, torch.float64),
    (torch.uint8, torch.int16),
    (torch.int32, torch.uint8),
    (torch.uint8, torch.uint8),
]


@pytest.mark.parametrize(("src", "dst"), DTYPE_PAIRS)
@pytest.mark.parametrize("scale", [True, False])
def test_to_dtype_image_matches_torchvision(src, dst, scale) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image_tensor(dtype=torch.uint8).to(src) if not src.is_floating_point else make_image_tensor(dtype=src)
    if src == torch.int32:
        image = image << 23
    ours = check_kernel(F.to_dtype_image_tensor, image, dst, scale=scale, check_dtype=False)
    assert ours.dtype == dst
    assert_equal(ours, tv_f.to_dtype(image, dst, scale=scale))


def _dtype_range_image(dtype: torch.dtype) -> torch.Tensor:
    """A ``1 x 2 x 4`` image of ``dtype`` holding its edge values (negative ones for signed dtypes)."""
    if dtype.is_floating_point:
        return torch.tensor([0.0, 1e-5, 0.25, 0.5, 0.7, 0.9999, 0.99999, 1.0], dtype=dtype).reshape(1, 2, 4)
    info = torch.iinfo(dtype)
    values = torch.tensor([info.min, -1, 0, 1, 255, 256, info.max // 2 + 1, info.max])
    return values.clamp(info.min, info.max).to(dtype).reshape(1, 2, 4)


@pytest.mark.parametrize(
    "other",
    [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.float32, torch.float64],
)
@pytest.mark.parametrize("scale", [True, False])
def test_to_dtype_of_uint16_matches_torchvision(other: torch.dtype, scale: bool) -> None:
    """torch has no bit shifts for uint16 (``"rshift_cpu" not implemented``): scaled conversions to and
    from it still give torchvision's values."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    for src, dst in ((torch.uint16, other), (other, torch.uint16)):
        image = _dtype_range_image(src)
        ours = F.to_dtype(Image(image), dst, scale=scale)
        assert type(ours) is Image and ours.dtype == dst
        expected = tv_f.to_dtype(image, dst, scale=scale)
        if scale and src.is_floating_point:  # torchvision wraps 1.0 to 0 there (see the test below)
            if src in (torch.float16, torch.bfloat16):
                continue
            keep = image < 1
            ours, expected = unwrap(ours)[keep], expected[keep]
        assert_equal(unwrap(ours).double(), expected.double())


@pytest.mark.parametrize("src", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("dst", [torch.uint8, torch.int8, torch.int16, torch.uint16, torch.int32, torch.uint32])
def test_scaled_float_to_integer_keeps_white_and_saturates(src: torch.dtype, dst: torch.dtype) -> None:
    """1.0 is the top value (torchvision's half-precision product, and float32's for uint16, round up to
    ``max + 1``, which its cast wraps to 0 or the minimum), values a cast would wrap saturate (negative ones
    stay negative where the dtype holds them, as torchvision's), and half precision converts as float32
    (float64 past 2^24) does; in [0, 1) float32 and float64 give torchvision's values."""
    if src == torch.float32 and dst == torch.int32:  # float32 cannot hold int32's scaled values
        with pytest.raises(ValueError, match="without overflow"):
            F.to_dtype(torch.zeros(1, 1, 1), dst, scale=True)
        return
    low, top = torch.iinfo(dst).min, torch.iinfo(dst).max
    values = torch.tensor([-0.5, 0.0, 1e-3, 0.25, 0.5, 0.7, 0.999, 1.0, 1.5], dtype=src).reshape(1, 1, 9)
    out = F.to_dtype(values, dst, scale=True)
    assert out.dtype == dst
    assert out.flatten()[1].tolist() == 0 and out.flatten()[[-2, -1]].tolist() == [top, top]
    assert out.flatten()[0].tolist() == (0 if low == 0 else int(-0.5 * (top + 1.0 - 1e-3)))
    assert bool((out.flatten().long().diff() >= 0).all())  # monotonic
    if src in (torch.float16, torch.bfloat16):  # (float32 cannot hold int32's values: float64 then)
        wide = torch.float64 if top > 2**24 else torch.float32
        assert_equal(out, F.to_dtype(values.to(wide), dst, scale=True))
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    if src in (torch.float32, torch.float64) and dst != torch.uint32:  # (torchvision's uint32 is not scaled)
        inside = values[..., 1:-2]
        assert_equal(F.to_dtype(inside, dst, scale=True), tv_f.to_dtype(inside, dst, scale=True))


def test_to_dtype_dispatch_and_scaling_rules() -> None:
    image, video, mask, boxes = make_image(), make_video(), make_mask(), make_bounding_box(dtype=torch.int64)
    out = F.to_dtype(image, torch.float32, scale=True)
    assert type(out) is Image and out.dtype == torch.float32 and out.max() <= 1.0
    assert_equal(out, unwrap(image).float() / 255, atol=1e-7, rtol=0)
    assert type(F.to_dtype(video, torch.float64, scale=True)) is Video
    scaled_mask = F.to_dtype(mask, torch.float32, scale=True)
    assert type(scaled_mask) is Mask and torch.equal(unwrap(scaled_mask), unwrap(mask).float())
    float_boxes = F.to_dtype(boxes, torch.float32, scale=True)
    assert type(float_boxes) is BoundingBox and float_boxes.spatial_size == boxes.spatial_size
    assert torch.equal(unwrap(float_boxes), unwrap(boxes).float())
    for inpt in (image, video, mask, boxes):
        check_functional(F.to_dtype, inpt, torch.float64)
    with pytest.raises(TypeError, match="dtype"):
        F.to_dtype(image, "float32")
    with pytest.raises(ValueError, match="overflow"):
        F.to_dtype(make_image(dtype=torch.float32), torch.int64, scale=True)


def test_to_dtype_kernels_for_masks_and_boxes_never_share_memory() -> None:
    mask = unwrap(make_mask())
    assert check_kernel(F.to_dtype_mask, mask, torch.uint8).data_ptr() != mask.data_ptr()
    boxes = unwrap(make_bounding_box())
    check_kernel(F.to_dtype_bounding_box, boxes, torch.float32)
    check_kernel(F.to_dtype_video, unwrap(make_video()), torch.uint8, scale=True)


def test_uint8_float_round_trip_is_exact() -> None:
    image = make_image_tensor()
    back = F.to_dtype_image_tensor(F.to_dtype_image_tensor(image, torch.float32, scale=True), torch.uint8, scale=True)
    assert torch.equal(back, image)


def test_convert_dtype_is_scaled_to_dtype() -> None:
    image = make_image()
    out = F.convert_dtype(image)
    assert type(out) is Image and torch.equal(unwrap(out), F.to_dtype_image_tensor(unwrap(image), torch.float32, scale=True))
    check_kernel(F.convert_dtype_image_tensor, unwrap(image), torch.float64, check_dtype=False)
    assert F.convert_dtype_video(unwrap(make_video()), torch.float32).dtype == torch.float32
    check_functional(F.convert_dtype, make_video(), torch.float32)
    with pytest.raises(TypeError, match="supports"):
        F.convert_dtype(make_mask())


# ---------------------------------------------------------------------------------- type conversion
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_pil_tensor_round_trip(channels: int) -> None:
    tensor = make_image_tensor(channels=channels)
    pil = F.to_image_pil(tensor)
    assert isinstance(pil, PIL.Image.Image) and pil.mode == {1: "L", 3: "RGB", 4: "RGBA"}[channels]
    assert pil.size == (tensor.shape[-1], tensor.shape[-2])
    back = F.pil_to_tensor(pil)
    assert type(back) is torch.Tensor and torch.equal(back, tensor)
    image = F.to_image_tensor(pil)
    assert type(image) is Image and torch.equal(unwrap(image), tensor)


@pytest.mark.parametrize("opencv", [True, False])
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_pil_conversions_with_and_without_opencv(channels: int, opencv: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Planar <-> interleaved layout changes (OpenCV's merge / split, numpy without it) keep every value,
    for planar, cropped and interleaved tensors."""
    from visiontx.functional._cv2 import _layout

    if not opencv:
        monkeypatch.setattr(_layout, "cv2", None)
    tensor = make_image_tensor((7, 9), channels=channels)
    interleaved = interleaved_copy(tensor)
    for inpt in (tensor, tensor[:, 1:, 2:], interleaved):
        pil = F.to_image_pil(inpt)
        expected = inpt.permute(1, 2, 0).numpy()
        assert np.array_equal(np.asarray(pil), expected[..., 0] if channels == 1 else expected)
        back = F.pil_to_tensor(pil)
        planar = _layout.contiguous(back)
        assert torch.equal(back, inpt) and torch.equal(planar, inpt) and planar.is_contiguous()
    assert F.pil_to_tensor(F.to_image_pil(tensor[:, :0])).shape == (channels, 0, 9)


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "LA", "CMYK", "I;16", "F", "P", "1"])
def test_pil_to_tensor_keeps_every_value_and_gives_planes_for_common_modes(mode: str) -> None:
    """L, RGB and RGBA images come back as contiguous planes (Pillow's raw bytes split by the wing), the
    other modes as a view of Pillow's ``H x W x C`` array; the values and dtype are Pillow's either way."""
    array = np.random.default_rng(0).integers(0, 256, (13, 17, 4), dtype=np.uint8)
    pil = PIL.Image.fromarray(array, "RGBA").convert(mode)
    expected = torch.from_numpy(np.asarray(pil).copy())
    expected = (expected[..., None] if expected.ndim == 2 else expected).permute(2, 0, 1)
    out = F.pil_to_tensor(pil)
    assert out.dtype == expected.dtype and torch.equal(out, expected)
    assert out.is_contiguous() == (mode in ("L", "RGB", "RGBA", "I;16", "F", "P", "1"))
    image = F.to_image_tensor(pil)
    assert type(image) is Image and torch.equal(unwrap(image), expected)
    assert unwrap(image).is_contiguous() == out.is_contiguous()
    out[:, 0, 0] = 0  # writable, and no one else's memory
    assert torch.equal(F.pil_to_tensor(pil), expected)
    with _cv2.disabled():
        assert torch.equal(F.pil_to_tensor(pil), expected)


def test_pil_to_tensor_reads_the_size_after_decoding() -> None:
    """A JPEG 2000 opened with ``reduce`` learns its size when decoded: the planes take that size."""
    if not PIL.features.check("jpg_2000"):
        pytest.skip("Pillow without OpenJPEG")
    buffer = io.BytesIO()
    PIL.Image.fromarray(np.random.default_rng(0).integers(0, 256, (40, 60, 3), dtype=np.uint8)).save(buffer, "JPEG2000")
    for convert in (F.pil_to_tensor, F.to_image_tensor):
        pil = PIL.Image.open(io.BytesIO(buffer.getvalue()))
        pil.reduce = 1
        out = convert(pil)
        assert out.shape == (3, 20, 30) and torch.equal(unwrap(out), torch.from_numpy(np.asarray(pil).copy()).permute(2, 0, 1))


def test_pil_conversions_match_torchvision() -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    pil = make_image_pil()
    assert_equal(F.pil_to_tensor(pil), tv_f.pil_to_tensor(pil))
    assert_equal(F.to_image_tensor(pil), tv_f.to_image(pil))
    tensor = make_image_tensor()
    assert_equal(F.to_pil_image(tensor), tv_f.to_pil_image(tensor))


def test_to_image_tensor_from_numpy_and_tensor() -> None:
    array = np.random.default_rng(0).integers(0, 256, (5, 6, 3), dtype=np.uint8)
    image = F.to_image_tensor(array)
    assert type(image) is Image and image.shape == (3, 5, 6)
    assert torch.equal(unwrap(image), torch.from_numpy(array).permute(2, 0, 1))
    assert F.to_image_tensor(array[:, :, 0]).shape == (1, 5, 6)
    for channels in (1, 2, 3, 4):  # contiguous planes, as torchvision's, with the wing and without
        pixels = np.random.default_rng(channels).integers(0, 256, (7, 9, channels), dtype=np.uint8)
        for out in (F.to_image_tensor(pixels), F.to_image_tensor(pixels[1:, ::2])):
            assert unwrap(out).is_contiguous()
        assert torch.equal(unwrap(F.to_image_tensor(pixels[1:, ::2])), torch.from_numpy(pixels[1:, ::2].copy()).permute(2, 0, 1))
        with _cv2.disabled():
            assert torch.equal(unwrap(F.to_image_tensor(pixels)), torch.from_numpy(pixels).permute(2, 0, 1))
    tensor = make_image_tensor()
    assert type(F.to_image_tensor(tensor)) is Image
    with pytest.raises(ValueError, match="numpy"):
        F.to_image_tensor(np.zeros(4))
    with pytest.raises(TypeError, match="inpt"):
        F.to_image_tensor([1, 2, 3])


@pytest.mark.parametrize("channels", [1, 3])
def test_to_image_pil_of_floats_truncates_as_torchvision(channels: int) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    tensor = make_image_tensor((6, 7), channels=channels, dtype=torch.float32)
    tensor[:, 0, :3] = torch.tensor([0.999, 0.5, 1.0])
    assert_equal(F.to_image_pil(tensor), tv_f.to_pil_image(tensor))
    array = tensor.permute(1, 2, 0).numpy()
    assert_equal(F.to_image_pil(array), tv_f.to_pil_image(array))


@pytest.mark.parametrize(("dtype", "mode"), [(torch.int16, "I;16"), (torch.uint16, "I;16"), (torch.int32, "I")])
def test_to_image_pil_keeps_wide_integer_values(dtype: torch.dtype, mode: str) -> None:
    """One channel of int16 / uint16 / int32 keeps its values (torchvision's modes; it refuses uint16); more
    channels, negative 16-bit values and other integer dtypes are errors, not values wrapped modulo 256."""
    values = [[0, 255, 256, 1000], [2000, 30000, 32767, 7]]
    out = F.to_image_pil(torch.tensor([values], dtype=dtype))
    assert out.mode == mode and np.asarray(out).tolist() == values
    if dtype != torch.uint16:
        tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
        theirs = tv_f.to_pil_image(torch.tensor([values], dtype=dtype))
        assert theirs.mode == mode and np.asarray(theirs).tolist() == values
    with pytest.raises(TypeError, match="one channel"):
        F.to_image_pil(torch.zeros(3, 2, 2, dtype=dtype))
    with pytest.raises(ValueError, match="non-negative"):
        F.to_image_pil(torch.tensor([[[-1, 0]]], dtype=torch.int16))
    with pytest.raises(TypeError, match="int64"):
        F.to_image_pil(torch.tensor([[[1, 0]]], dtype=torch.int64))
    assert np.asarray(F.to_image_pil(torch.tensor([[[True, False]]]))).tolist() == [[1, 0]]


def test_to_image_pil_float_truncates_and_clamps() -> None:
    tensor = torch.tensor([[[0.0, 0.5, 0.999, 1.0, 1.5, -0.2]]])
    assert np.asarray(F.to_image_pil(tensor)).tolist() == [[0, 127, 254, 255, 255, 0]]
    assert F.to_image_pil(make_image_pil(), mode="L").mode == "L"
    assert F.to_image_pil(np.zeros((3, 4), dtype=np.uint8)).size == (4, 3)
    with pytest.raises(ValueError, match="channels"):
        F.to_image_pil(torch.zeros(5, 2, 2, dtype=torch.uint8))
    with pytest.raises(ValueError, match="single image"):
        F.to_image_pil(torch.zeros(2, 3, 2, 2, dtype=torch.uint8))
    with pytest.raises(TypeError, match="inpt"):
        F.to_image_pil("x")
    with pytest.raises(TypeError, match="image"):
        F.pil_to_tensor(torch.zeros(3, 2, 2))
