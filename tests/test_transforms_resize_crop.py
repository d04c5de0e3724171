"""Resize / crop / pad transforms: generic cases, same-seed torchvision comparisons, fallbacks,
validation and fill per type."""

from __future__ import annotations

import PIL.Image
import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Image, Mask, Video

from .common import Case, assert_equal, make_bounding_box, make_image, make_mask

IMAGE_TYPES = (torch.Tensor, Image, PIL.Image.Image, Video)
NO_BOXES = (torch.Tensor, Image, PIL.Image.Image, Video, Mask)
PER_TYPE_FILL = {Image: [1, 2, 3], Video: [4, 5, 6], Mask: 7, "others": 0}

TRANSFORM_CASES = {
    T.Resize: [dict(size=10), dict(size=[9, 31]), dict(size=None, max_size=12, interpolation="nearest")],
    T.CenterCrop: [dict(size=10), dict(size=[30, 8])],
    T.RandomCrop: [
        dict(size=10),
        dict(size=[20, 30], pad_if_needed=True, fill=PER_TYPE_FILL),
        Case(dict(size=12, padding=[2, 3], padding_mode="reflect"), types=NO_BOXES),
    ],
    T.RandomResizedCrop: [dict(size=10), dict(size=[8, 12], scale=(0.5, 0.9), ratio=(1, 2), interpolation="nearest")],
    T.FiveCrop: [Case(dict(size=5), types=IMAGE_TYPES)],
    T.TenCrop: [Case(dict(size=[5, 7], vertical_flip=True), types=IMAGE_TYPES)],
    T.Pad: [
        dict(padding=2),
        dict(padding=[1, 2, 3, 4], fill=PER_TYPE_FILL),
        Case(dict(padding=[3, 1], padding_mode="symmetric"), types=NO_BOXES),
    ],
    T.RandomZoomOut: [dict(p=1.0), dict(fill=PER_TYPE_FILL, side_range=(1.5, 2.0), p=1.0), dict(p=0.0)],
    T.ScaleJitter: [dict(target_size=(30, 40))],
    T.RandomShortestSize: [dict(min_size=[10, 12], max_size=20)],
    T.RandomResize: [dict(min_size=8, max_size=20)],
}
COVERED = {"RandomIoUCrop"}


def _sample(size=(40, 60)):
    image = make_image(size)
    boxes = make_bounding_box(size, num_boxes=5)
    masks = make_mask(size, num_objects=5)
    return image, boxes, masks


def _to_tv(sample):
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    image, boxes, masks = sample
    return (
        tv_tensors.Image(image.as_subclass(torch.Tensor)),
        tv_tensors.BoundingBoxes(boxes.as_subclass(torch.Tensor), format="XYXY", canvas_size=boxes.spatial_size),
        tv_tensors.Mask(masks.as_subclass(torch.Tensor)),
    )


def _compare_with_torchvision(ours, theirs, seeds=range(6), size=(40, 60)) -> None:
    for seed in seeds:
        sample = _sample(size)
        torch.manual_seed(seed)
        out = ours(*sample)
        torch.manual_seed(seed)
        expected = theirs(*_to_tv(sample))
        assert out[1].spatial_size == tuple(expected[1].canvas_size)
        assert_equal(out[0], expected[0].as_subclass(torch.Tensor), atol=1)
        assert_equal(out[1], expected[1].as_subclass(torch.Tensor), atol=1e-4, rtol=1e-6)
        assert_equal(out[2], expected[2].as_subclass(torch.Tensor))


def _tv_transforms():
    return pytest.importorskip("torchvision.transforms.v2")


@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("Resize", dict(size=25)),
        ("Resize", dict(size=[30, 17], interpolation="bicubic")),
        ("Resize", dict(size=20, max_size=25)),
        ("CenterCrop", dict(size=[21, 33])),
        ("CenterCrop", dict(size=[42, 61])),
        ("RandomCrop", dict(size=[20, 30])),
        ("RandomCrop", dict(size=[20, 40])),  # as many top as left offsets
        ("RandomCrop", dict(size=[40, 30])),  # a single top offset
        ("RandomCrop", dict(size=[30, 50], padding=[3, 5])),
        ("RandomCrop", dict(size=[44, 61], padding=[3, 5, 2, 4], fill=7)),  # windows across every edge
        ("RandomCrop", dict(size=[50, 50], pad_if_needed=True, fill=3)),
        ("RandomResizedCrop", dict(size=[20, 24])),
        ("RandomResizedCrop", dict(size=16, scale=(0.2, 0.5), ratio=(0.5, 2.0), interpolation="nearest")),
        ("RandomResizedCrop", dict(size=4, scale=(0.0, 1.0))),
        ("RandomResizedCrop", dict(size=4, scale=(0.0, 0.001))),  # many empty regions, redrawn
        ("Pad", dict(padding=[1, 2, 3, 4], fill=5)),
        ("RandomZoomOut", dict(fill=9, side_range=(1.0, 2.5), p=0.7)),
        ("ScaleJitter", dict(target_size=(50, 30), scale_range=(0.5, 1.5))),
        ("RandomShortestSize", dict(min_size=[15, 20, 25], max_size=40)),
        ("RandomResize", dict(min_size=10, max_size=50)),
        ("RandomIoUCrop", dict()),
        ("RandomIoUCrop", dict(min_scale=0.5, sampler_options=[0.1, 0.3, 0.5], trials=10)),
    ],
)
def test_transform_matches_torchvision_same_seed(name, kwargs) -> None:
    tv_t = _tv_transforms()
    tv_kwargs = dict(kwargs)
    if "interpolation" in tv_kwargs:
        tv_kwargs["interpolation"] = tv_t.InterpolationMode(tv_kwargs["interpolation"])
    _compare_with_torchvision(getattr(T, name)(**kwargs), getattr(tv_t, name)(**tv_kwargs))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(sampler_options=[0.7, 0.9]),
        dict(min_scale=0.1, min_aspect_ratio=0.9, max_aspect_ratio=1.1, trials=7),
        dict(),
    ],
)
def test_iou_crop_bulk_draws_leave_the_generator_as_torchvision(kwargs) -> None:
    """The trials look at their draws in one bulk but consume only those used: the crop and the
    generator state afterwards equal torchvision's draw-by-draw trials, over many seeds (high IoU
    thresholds and narrow aspect ratios make many failing trials, several rounds and run-outs)."""
    tv_t = _tv_transforms()
    ours, theirs = T.RandomIoUCrop(**kwargs), tv_t.RandomIoUCrop(**kwargs)
    size = (60, 80)
    image = make_image(size)
    boxes = [[5.0, 5.0, 15.0, 12.0], [40.0, 30.0, 75.0, 58.0], [30.0, 20.0, 30.0, 20.0]]  # the last one empty
    boxes = BoundingBox(torch.tensor(boxes), format="XYXY", spatial_size=size)
    for seed in range(60):
        torch.manual_seed(seed)
        out = ours(image, boxes)
        state = torch.get_rng_state()
        torch.manual_seed(seed)
        expected = theirs(*_to_tv((image, boxes, make_mask(size)))[:2])
        assert torch.equal(state, torch.get_rng_state()), seed
        assert_equal(out[0], expected[0].as_subclass(torch.Tensor))
        assert_equal(out[1], expected[1].as_subclass(torch.Tensor))


@pytest.mark.parametrize(
    "size, crop", [((40, 60), (20, 40)), ((40, 60), (20, 30)), ((30, 30), (30, 12)), ((9, 9), (9, 9))]
)
def test_random_crop_draws_like_two_scalar_randints(size, crop) -> None:
    """Offsets and the RNG state afterwards as torchvision's ``int(torch.randint(0, n, ()))``, top first."""
    transform = T.RandomCrop(list(crop))
    for seed in range(20):
        torch.manual_seed(seed)
        params = transform.make_params([make_image(size)])
        after = torch.get_rng_state()
        torch.manual_seed(seed)
        ranges = (size[0] - crop[0] + 1, size[1] - crop[1] + 1)
        expected = [int(torch.randint(0, n, ())) if n > 1 else 0 for n in ranges]
        assert [params["top"], params["left"]] == expected
        assert torch.equal(after, torch.get_rng_state())


@pytest.mark.parametrize("cls", [T.FiveCrop, T.TenCrop])
def test_five_ten_crop_transforms_match_torchvision(cls) -> None:
    tv_t = _tv_transforms()
    image = make_image((20, 30))
    out = cls(size=[9, 12])(image)
    expected = getattr(tv_t, cls.__name__)(size=[9, 12])(image.as_subclass(torch.Tensor))
    assert all(type(o) is Image for o in out)
    assert_equal(out, expected)


@pytest.mark.parametrize("cls", [T.FiveCrop, T.TenCrop])
@pytest.mark.parametrize("make", [make_mask, make_bounding_box])
def test_five_ten_crop_refuse_masks_and_boxes(cls, make) -> None:
    with pytest.raises(TypeError, match="BoundingBox, KeyPoints or Mask"):
        cls(5)(make_image(), make())


def test_random_resized_crop_fallback_is_a_center_crop() -> None:
    tv_t = _tv_transforms()
    image = make_image((41, 41))
    cases = [
        ((2.0, 3.0), dict(top=10, left=0, height=20, width=41)),
        ((0.25, 0.5), dict(top=0, left=10, height=41, width=20)),
    ]
    for ratio, expected in cases:
        transform = T.RandomResizedCrop(8, scale=(1.0, 1.0), ratio=ratio)
        params = transform.make_params([image])
        assert params == expected
        tv_transform = tv_t.RandomResizedCrop(8, scale=(1.0, 1.0), ratio=ratio)
        assert params == tv_transform.make_params([image.as_subclass(torch.Tensor)])
    # ratio inside the bounds but area too large: the whole image
    whole = T.RandomResizedCrop(8, scale=(2.0, 3.0), ratio=(0.5, 2.0)).make_params([image])
    assert whole == dict(top=0, left=0, height=41, width=41)


def test_random_resized_crop_params_are_valid() -> None:
    transform = T.RandomResizedCrop(8, scale=(0.1, 0.6), ratio=(0.5, 2.0))
    image = make_image((30, 50))
    torch.manual_seed(0)
    for _ in range(50):
        p = transform.make_params([image])
        assert 0 <= p["top"] and p["top"] + p["height"] <= 30 and 0 <= p["left"] and p["left"] + p["width"] <= 50
        assert 0.1 * 1500 * 0.7 <= p["height"] * p["width"] <= 0.6 * 1500 * 1.3


def test_random_iou_crop_requires_boxes_and_image() -> None:
    with pytest.raises(TypeError, match="BoundingBox"):
        T.RandomIoUCrop()(make_image())
    with pytest.raises(TypeError, match="BoundingBox"):
        T.RandomIoUCrop()(make_bounding_box(), make_mask())


def test_random_iou_crop_zeroes_boxes_whose_centre_is_outside() -> None:
    image = make_image((40, 60))
    boxes = BoundingBox([[1, 1, 5, 5], [20, 15, 40, 30], [50, 30, 59, 39]], format="XYXY", spatial_size=(40, 60))
    transform = T.RandomIoUCrop(sampler_options=[0.0])
    for seed in range(10):
        torch.manual_seed(seed)
        params = transform.make_params([image, boxes])
        out = transform.transform(boxes, params).as_subclass(torch.Tensor)
        top, left, height, width = (params[k] for k in ("top", "left", "height", "width"))
        cropped = F.crop(boxes, top, left, height, width).as_subclass(torch.Tensor)
        kept = 0
        for box, out_box, crop_box in zip(boxes.tolist(), out.tolist(), cropped.tolist()):
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            inside = left < cx < left + width and top < cy < top + height
            assert out_box == (crop_box if inside else [0, 0, 0, 0])
            kept += inside
        assert kept  # the crop holds a box centre, as make_params requires


def test_random_iou_crop_leaves_input_when_option_is_one() -> None:
    image, boxes, masks = _sample()
    out = T.RandomIoUCrop(sampler_options=[1.0])(image, boxes, masks)
    assert out[0] is image and out[1] is boxes and out[2] is masks


def test_random_iou_crop_with_zero_boxes_leaves_sample() -> None:
    image = make_image((40, 60))
    boxes = BoundingBox(torch.zeros(0, 4), format="XYXY", spatial_size=(40, 60))
    out_image, out_boxes = T.RandomIoUCrop(sampler_options=[0.5])(image, boxes)
    assert out_image is image and out_boxes is boxes


def test_random_iou_crop_without_boxes_draws_as_torchvision() -> None:
    """No crop passes without boxes, but the options and trials are drawn until 1.0 comes up, as torchvision's:
    the transforms after it draw the same."""
    tv_t = _tv_transforms()
    size = (40, 60)
    image, boxes = make_image(size), BoundingBox(torch.zeros(0, 4), format="XYXY", spatial_size=size)
    for seed in range(20):
        torch.manual_seed(seed)
        out_image, out_boxes = T.RandomIoUCrop()(image, boxes)
        state = torch.get_rng_state()
        torch.manual_seed(seed)
        tv_t.RandomIoUCrop()(*_to_tv((image, boxes, make_mask(size)))[:2])
        assert torch.equal(state, torch.get_rng_state()), seed
        assert out_image is image and out_boxes is boxes


def test_random_iou_crop_gives_up_after_max_rounds_where_no_crop_can_pass() -> None:
    image = make_image((40, 60))
    boxes = BoundingBox(torch.full((2, 4), float("nan")), format="XYXY", spatial_size=(40, 60))
    transform = T.RandomIoUCrop(sampler_options=[0.3, 0.5])  # no 1.0: torchvision loops forever here
    transform.max_rounds = 5
    torch.manual_seed(0)
    out_image, out_boxes = transform(image, boxes)
    assert out_image is image and out_boxes is boxes


def test_fill_per_type_and_per_channel() -> None:
    image, boxes, masks = _sample((6, 8))
    video = Video(torch.zeros(2, 3, 6, 8, dtype=torch.uint8))
    out_image, out_video, out_mask, out_boxes = T.Pad(2, fill=PER_TYPE_FILL)(image, video, masks, boxes)
    assert out_image[:, 0, 0].tolist() == [1, 2, 3]
    assert out_video[1, :, -1, -1].tolist() == [4, 5, 6]
    assert (out_mask[:, 0, :] == 7).all()
    assert out_boxes.spatial_size == (10, 12)
    assert_equal(out_image[:, 2:-2, 2:-2], image)
    plain = T.Pad(1, fill=PER_TYPE_FILL)(torch.ones(1, 3, 3))
    assert plain[0, 0, 0] == 0
    zoomed = T.RandomZoomOut(fill=[10, 20, 30], side_range=(3.0, 3.0), p=1.0)(F.to_image_pil(image))
    assert zoomed.size == (24, 18)


def test_random_crop_pads_then_crops_consistently() -> None:
    image = Image(torch.arange(1, 7 * 9 + 1, dtype=torch.float32).reshape(1, 7, 9))
    boxes = BoundingBox([[0, 0, 9, 7]], format="XYXY", spatial_size=(7, 9))
    for seed in range(5):
        torch.manual_seed(seed)
        out_image, out_boxes = T.RandomCrop([10, 12], pad_if_needed=True)(image, boxes)
        ys, xs = torch.nonzero(out_image[0], as_tuple=True)
        assert out_boxes.tolist() == [[xs.min().item(), ys.min().item(), xs.max().item() + 1, ys.max().item() + 1]]


def test_random_crop_with_constant_padding_crops_the_input_directly(monkeypatch) -> None:
    """Images, videos and masks take ``padded_crop`` (no padded copy of the input); a subclass whose
    ``call_kernel`` or ``_pad`` is its own still sees the pad and the crop, and all give the same sample."""
    from visiontx.transforms._geometry import _crop

    calls = []
    monkeypatch.setattr(_crop, "padded_crop", lambda *args: calls.append(type(args[0])) or F.crop(
        F.pad(args[0], [10], fill=args[5]), args[1] + 10, args[2] + 10, args[3], args[4]))
    seen = []

    class Watched(T.RandomCrop):
        def call_kernel(self, functional, inpt, *args, **kwargs):
            seen.append(functional.__name__)
            return super().call_kernel(functional, inpt, *args, **kwargs)

    sample = _sample()
    torch.manual_seed(3)
    out = T.RandomCrop([30, 50], padding=[3, 5], fill=PER_TYPE_FILL)(sample)
    assert calls == [Image, Mask] and not seen
    class OwnPad(T.RandomCrop):
        def _pad(self, inpt, padding, padding_mode="constant"):
            seen.append("own pad")
            return super()._pad(inpt, padding, padding_mode)

    torch.manual_seed(3)
    watched = Watched([30, 50], padding=[3, 5], fill=PER_TYPE_FILL)(sample)
    assert calls == [Image, Mask] and seen == ["pad", "crop"] * 3
    torch.manual_seed(3)
    own_pad = OwnPad([30, 50], padding=[3, 5], fill=PER_TYPE_FILL)(sample)
    assert calls == [Image, Mask] and seen[6:] == ["own pad"] * 3
    for a, b, c in zip(out, watched, own_pad):
        assert_equal(a, b)
        assert_equal(a, c)


def test_output_sizes() -> None:
    image = make_image((40, 60))
    assert T.Resize(20)(image).shape[-2:] == (20, 30)
    assert T.RandomResize(10, 11)(image).shape[-2:] == (10, 15)
    torch.manual_seed(0)
    out = T.ScaleJitter((100, 100), scale_range=(1.0, 1.0))(image)
    assert out.shape[-2:] == (66, 100)
    assert T.RandomShortestSize(30, max_size=40)(image).shape[-2:] == (26, 40)


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: T.Resize(0), ValueError, "size"),
        (lambda: T.Resize([1, 2, 3]), TypeError, "size"),
        (lambda: T.Resize(None), ValueError, "size"),
        (lambda: T.Resize([10, 12], max_size=20), ValueError, "max_size"),
        (lambda: T.Resize(10, interpolation="sharp"), ValueError, "interpolation"),
        (lambda: T.CenterCrop(0), ValueError, "size"),
        (lambda: T.RandomCrop([4, -4]), ValueError, "size"),
        (lambda: T.RandomCrop(4, padding=-1), ValueError, "padding"),
        (lambda: T.RandomCrop(4, padding_mode="wrap"), ValueError, "padding_mode"),
        (lambda: T.RandomCrop(4, fill="red"), TypeError, "fill"),
        (lambda: T.RandomResizedCrop(8, scale=(0.9, 0.1)), ValueError, "scale"),
        (lambda: T.RandomResizedCrop(8, scale=(-0.1, 0.5)), ValueError, "scale"),
        (lambda: T.RandomResizedCrop(8, ratio=(2.0, 1.0)), ValueError, "ratio"),
        (lambda: T.RandomResizedCrop(8, scale=0.5), TypeError, "scale"),
        (lambda: T.FiveCrop([0, 3]), ValueError, "size"),
        (lambda: T.Pad(-2), ValueError, "padding"),
        (lambda: T.Pad([1, 2, 3]), TypeError, "padding"),
        (lambda: T.Pad(1, fill={"images": 1}), TypeError, "fill"),
        (lambda: T.RandomZoomOut(side_range=(0.5, 2.0)), ValueError, "side_range"),
        (lambda: T.RandomZoomOut(side_range=(3.0, 2.0)), ValueError, "side_range"),
        (lambda: T.RandomZoomOut(p=2.0), ValueError, "p"),
        (lambda: T.RandomIoUCrop(min_scale=0.8, max_scale=0.2), ValueError, "scale"),
        (lambda: T.RandomIoUCrop(trials=0), ValueError, "trials"),
        (lambda: T.RandomIoUCrop(sampler_options=[]), ValueError, "sampler_options"),
        (lambda: T.ScaleJitter((0, 10)), ValueError, "target_size"),
        (lambda: T.ScaleJitter((10, 10), scale_range=(2.0, 1.0)), ValueError, "scale_range"),
        (lambda: T.RandomShortestSize([]), ValueError, "min_size"),
        (lambda: T.RandomShortestSize(0), ValueError, "min_size"),
        (lambda: T.RandomShortestSize(5.5), TypeError, "min_size"),
        (lambda: T.RandomResize(10, 10), ValueError, "max_size"),
        (lambda: T.RandomResize(0, 10), ValueError, "min_size"),
    ],
)
def test_constructor_validation(make, error, match) -> None:
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(
    "make", [lambda: T.RandomResizedCrop(5), lambda: T.ScaleJitter((10, 10)), lambda: T.RandomShortestSize(5)]
)
def test_resizing_transforms_refuse_images_without_pixels(make) -> None:
    transform = make()
    with pytest.raises(ValueError, match=rf"{type(transform).__name__}\(\) cannot resize an image of size \(0, 8\)"):
        transform(make_image((0, 8)))


def test_random_crop_too_large_without_padding() -> None:
    with pytest.raises(ValueError, match="larger"):
        T.RandomCrop(50)(make_image((40, 60)))


def test_random_iou_crop_draws_like_torchvision_over_many_seeds() -> None:
    """Same crops as torchvision for the same seed, and the same RNG state left for the next transform."""
    tv_t = _tv_transforms()
    ours, theirs = T.RandomIoUCrop(), tv_t.RandomIoUCrop()
    for seed in range(60):
        _compare_with_torchvision(ours, theirs, seeds=[seed], size=(375, 500))
        sample = _sample((375, 500))
        torch.manual_seed(seed)
        ours(*sample)
        next_ours = torch.rand(1).item()
        torch.manual_seed(seed)
        theirs(*_to_tv(sample))
        assert next_ours == torch.rand(1).item()


def test_resize_keeps_its_own_copy_of_size() -> None:
    """A size list changed after the transform was built does not change the transform (the parsed size is
    a copy, also when it is given already parsed)."""
    size = [24]
    resize = T.Resize(size)
    size[0] = 3
    out = resize(make_image((32, 48)))
    assert out.shape[-2:] == (24, 36)
