"""RandomErasing, JPEG, MixUp and CutMix."""

from __future__ import annotations

import pickle
import warnings

import PIL.Image
import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import Image, Video

from .common import Case, assert_equal, make_bounding_box, make_image, make_image_pil, make_image_tensor, make_mask

IMAGES = (torch.Tensor, Image, PIL.Image.Image, Video)

TRANSFORM_CASES = {
    T.RandomErasing: [
        Case(dict(p=1.0), types=IMAGES),
        Case(dict(p=1.0, value="random", scale=(0.1, 0.2)), types=IMAGES),
        Case(dict(p=1.0, value=(10, 20, 30), ratio=(0.5, 2.0)), types=IMAGES),
        Case(dict(p=0.0), types=IMAGES),
    ],
    T.JPEG: [Case(dict(quality=50)), Case(dict(quality=(5, 90)))],
}
COVERED = {"MixUp", "CutMix"}


def _tv():
    return pytest.importorskip("torchvision.transforms.v2")


# ------------------------------------------------------------------------------------ RandomErasing
# integer images round a fractional fixed value where torchvision truncates it: whole values for them
_ERASING_CASES = [
    (value, dtype) for dtype in (torch.float32, torch.uint8, "PIL") for value in (0, (10, 128, 250), "random")
]


@pytest.mark.parametrize(("value", "dtype"), [*_ERASING_CASES, ((0.1, 0.5, 0.9), torch.float32)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_erasing_matches_torchvision_same_seed(value, dtype, seed) -> None:
    """The same draws (noise before position), so the same rectangle, and the same values: integer images
    take the noise cast as torchvision's assignment casts it."""
    tv = _tv()
    tv_image = make_image_pil((40, 50)) if dtype == "PIL" else make_image_tensor((40, 50), dtype=dtype)
    for image in (tv_image,) if dtype == "PIL" else (tv_image, Image(tv_image)):
        torch.manual_seed(seed)
        expected = tv.RandomErasing(p=1.0, value=value)(tv_image)
        rng_state = torch.get_rng_state()
        torch.manual_seed(seed)
        assert_equal(T.RandomErasing(p=1.0, value=value)(image), expected)
        assert torch.equal(torch.get_rng_state(), rng_state)


def _erased_region(before: torch.Tensor, after: torch.Tensor) -> torch.Tensor:
    return (before != after).any(dim=-3)


def test_random_erasing_same_rectangle_for_image_and_video_and_passes_masks_boxes() -> None:
    image = make_image((30, 40), dtype=torch.float32)
    video = Video(image.as_subclass(torch.Tensor).expand(2, 3, 30, 40).clone())
    mask, boxes = make_mask((30, 40)), make_bounding_box((30, 40))
    torch.manual_seed(0)
    with pytest.warns(UserWarning, match="passing through inputs of type") as record:
        out_image, out_video, out_mask, out_boxes = T.RandomErasing(p=1.0, value=2.0)(image, video, mask, boxes)
    assert [str(w.message).split("type ")[1].split()[0] for w in record] == ["Mask", "BoundingBox"]
    assert out_mask is mask and out_boxes is boxes
    assert type(out_image) is Image and type(out_video) is Video
    region = out_image == 2.0
    assert region.any() and (out_video == 2.0).eq(region).all()


def test_random_erasing_warns_on_masks_and_boxes_as_torchvision() -> None:
    tv = _tv()
    image, mask, boxes = make_image((30, 40)), make_mask((30, 40)), make_bounding_box((30, 40))
    tv_mask = pytest.importorskip("torchvision.tv_tensors").Mask(mask.as_subclass(torch.Tensor))
    torch.manual_seed(0)
    with pytest.warns(UserWarning, match="is currently passing through inputs of type") as expected:
        tv.RandomErasing(p=1.0)(image.as_subclass(torch.Tensor), tv_mask)
    torch.manual_seed(0)
    with pytest.warns(expected[0].category, match="is currently passing through inputs of type Mask"):
        T.RandomErasing(p=1.0)(image, mask)
    with warnings.catch_warnings():  # nothing erased: no warning, as torchvision
        warnings.simplefilter("error")
        T.RandomErasing(p=0.0)(image, mask, boxes)
        T.RandomErasing(p=1.0, scale=(1.0, 1.0), ratio=(2.0, 2.0))(image, mask, boxes)


def test_random_erasing_area_and_ratio_within_bounds() -> None:
    image = torch.zeros(1, 100, 100)
    for seed in range(20):
        torch.manual_seed(seed)
        region = T.RandomErasing(p=1.0, scale=(0.1, 0.2), ratio=(0.5, 2.0), value=1.0)(image)[0] == 1
        rows, cols = region.any(1).sum().item(), region.any(0).sum().item()
        assert rows * cols == region.sum().item()  # a rectangle
        assert 0.09 <= rows * cols / 1e4 <= 0.21 and 0.4 <= rows / cols <= 2.5


@pytest.mark.parametrize("make", [make_image, make_image_pil])
def test_random_erasing_random_value_uint8(make) -> None:
    image = make((40, 50))
    torch.manual_seed(0)
    out = T.RandomErasing(p=1.0, value="random")(image)
    changed = _erased_region(F.pil_to_tensor(F.to_image_pil(image)), F.pil_to_tensor(F.to_image_pil(out)))
    assert type(out) is type(image) and changed.sum() > 10


def test_random_erasing_inplace() -> None:
    image = make_image_tensor((30, 30), dtype=torch.float32)
    torch.manual_seed(0)
    out = T.RandomErasing(p=1.0, value=5.0, inplace=True)(image)
    assert out.data_ptr() == image.data_ptr() and (image == 5.0).any()


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        (dict(value="noise"), ValueError),
        (dict(value=None), TypeError),
        (dict(scale=(0.5, 1.5)), ValueError),
        (dict(scale=(0.5, 0.1)), ValueError),
        (dict(scale=0.5), TypeError),
        (dict(ratio=(0.0, 1.0)), ValueError),
        (dict(p=1.5), ValueError),
    ],
)
def test_random_erasing_errors(kwargs, error) -> None:
    with pytest.raises(error):
        T.RandomErasing(**kwargs)


def test_random_erasing_value_channels_mismatch() -> None:
    with pytest.raises(ValueError, match="value"):
        T.RandomErasing(p=1.0, value=[1.0, 2.0])(make_image())


# ---------------------------------------------------------------------------------------------- JPEG
def test_jpeg_transform_quality_range_and_pil() -> None:
    image = make_image((24, 24))
    for seed in range(3):
        torch.manual_seed(seed)
        quality = int(torch.randint(20, 31, ()))
        torch.manual_seed(seed)
        assert_equal(T.JPEG((20, 30))(image), F.jpeg(image, quality))
    pil = make_image_pil((24, 24))
    assert isinstance(T.JPEG(40)(pil), PIL.Image.Image)


@pytest.mark.parametrize(
    ("quality", "error"),
    [(0, ValueError), ((10, 5), ValueError), ((1, 101), ValueError), (50.0, TypeError), (True, TypeError)],
)
def test_jpeg_transform_errors(quality, error) -> None:
    with pytest.raises(error, match="quality"):
        T.JPEG(quality)


# ------------------------------------------------------------------------------------ MixUp / CutMix
MIXERS = [T.MixUp, T.CutMix]


def _batch(n: int = 4, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Each image is constant, equal to its index, so the source of every pixel is known."""
    return torch.arange(n, dtype=dtype).view(n, 1, 1, 1).expand(n, 3, 12, 16).clone()


@pytest.mark.parametrize("cls", MIXERS)
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_mixing_matches_torchvision_same_seed(cls, seed) -> None:
    tv = _tv()
    images, labels = make_image_tensor((12, 16), dtype=torch.float32, batch_dims=(4,)), torch.tensor([0, 3, 1, 2])
    torch.manual_seed(seed)
    expected_images, expected_labels = getattr(tv, cls.__name__)(alpha=0.7, num_classes=5)(images, labels)
    torch.manual_seed(seed)
    out_images, out_labels = cls(alpha=0.7, num_classes=5)(images, labels)
    assert_equal(out_images, expected_images, atol=1e-6)
    assert_equal(out_labels, expected_labels, atol=1e-6)


@pytest.mark.parametrize("cls", MIXERS)
@pytest.mark.parametrize("seed", range(5))
def test_mixing_labels_are_probabilities(cls, seed) -> None:
    torch.manual_seed(seed)
    _, labels = cls(num_classes=6)(_batch(), torch.tensor([5, 0, 2, 2]))
    assert labels.shape == (4, 6) and labels.dtype == torch.float32
    assert (labels >= 0).all()
    assert_equal(labels.sum(1), torch.ones(4), atol=1e-6)


@pytest.mark.parametrize("seed", range(10))
def test_cutmix_lambda_is_the_pasted_area(seed) -> None:
    torch.manual_seed(seed)
    images = _batch()
    out, labels = T.CutMix(alpha=1.0, num_classes=4)(images, torch.arange(4))
    for i in range(4):
        from_previous = (out[i, 0] == (i - 1) % 4).float().mean()
        lam = labels[i, i]  # weight of the image's own class
        assert_equal(1 - lam, from_previous, atol=1e-6)
        assert_equal(labels[i, (i - 1) % 4], from_previous, atol=1e-6)


@pytest.mark.parametrize("seed", range(5))
def test_mixup_pixels_follow_the_label_weights(seed) -> None:
    torch.manual_seed(seed)
    out, labels = T.MixUp(alpha=0.5, num_classes=4)(_batch(), torch.arange(4))
    lam = labels[1, 1]
    assert_equal(out[1], torch.full_like(out[1], float(lam * 1 + (1 - lam) * 0)), atol=1e-6)


@pytest.mark.parametrize("cls", MIXERS)
def test_mixing_accepts_probability_labels(cls) -> None:
    probabilities = torch.softmax(torch.randn(4, 3, dtype=torch.float64), dim=1)
    _, labels = cls()(_batch(), probabilities)
    assert labels.dtype == torch.float64
    assert_equal(labels.sum(1), torch.ones(4, dtype=torch.float64), atol=1e-9)
    with pytest.raises(ValueError, match="num_classes"):
        cls(num_classes=4)(_batch(), probabilities)


@pytest.mark.parametrize("cls", MIXERS)
def test_mixing_uint8_and_videos_and_datapoints(cls) -> None:
    torch.manual_seed(0)
    out, labels = cls(num_classes=4)(_batch(dtype=torch.uint8), torch.arange(4))
    assert out.dtype == torch.uint8
    videos = Video(torch.rand(4, 2, 3, 8, 8))
    out_videos, _ = cls(num_classes=4)(videos, torch.arange(4))
    assert type(out_videos) is Video and out_videos.shape == videos.shape
    out_images, _ = cls(num_classes=4)(Image(_batch()), torch.arange(4))
    assert type(out_images) is Image


@pytest.mark.parametrize("cls", MIXERS)
def test_mixing_label_getters(cls) -> None:
    sample = {"Labels": torch.arange(4), "image": _batch(), "id": "x"}
    out = cls(num_classes=4)(sample)
    assert out["Labels"].shape == (4, 4) and out["id"] == "x"
    labels_first = {"labels": torch.arange(4), "images": _batch()}  # the labels never count as the image
    assert cls(num_classes=4)(labels_first)["images"].shape == (4, 3, 12, 16)
    custom = cls(num_classes=4, labels_getter=lambda s: s[0]["y"])
    out = custom(({"y": torch.arange(4)}, _batch()))
    assert out[0]["y"].shape == (4, 4)


@pytest.mark.parametrize("cls", MIXERS)
def test_mixing_refuses_boxes_masks_pil_and_unbatched(cls) -> None:
    labels = torch.arange(4)
    for extra in (make_bounding_box((12, 16)), make_mask((12, 16)), make_image_pil((12, 16))):
        with pytest.raises(TypeError, match="PIL images, bounding boxes, key points or masks"):
            cls(num_classes=4)(_batch(), labels, extra)
    with pytest.raises(ValueError, match="batch"):
        cls(num_classes=4)(_batch()[0], labels)
    with pytest.raises(ValueError, match="batch size"):
        cls(num_classes=4)(_batch(3), labels)


@pytest.mark.parametrize("cls", MIXERS)
def test_mixing_label_and_argument_errors(cls) -> None:
    with pytest.raises(ValueError, match="num_classes"):
        cls()(_batch(), torch.arange(4))
    with pytest.raises(ValueError, match="shape"):
        cls(num_classes=4)(_batch(), torch.zeros(4, 4, 1))
    with pytest.raises(TypeError, match="float"):
        cls()(_batch(), torch.zeros(4, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="alpha"):
        cls(alpha=0.0)
    with pytest.raises(ValueError, match="num_classes"):
        cls(num_classes=0)
    with pytest.raises(ValueError, match="labels_getter"):
        cls(labels_getter="labels")
    with pytest.raises(ValueError, match="labels_getter"):
        cls(num_classes=4, labels_getter=lambda s: torch.arange(4))(_batch(), torch.arange(4))


@pytest.mark.parametrize("cls", MIXERS)
def test_mixing_pickle_and_repr(cls) -> None:
    transform = cls(alpha=0.4, num_classes=3)
    restored = pickle.loads(pickle.dumps(transform))
    assert repr(restored) == repr(transform) and "alpha=0.4" in repr(transform)
    images = _batch()
    torch.manual_seed(0)
    expected = transform(images, torch.tensor([0, 1, 2, 0]))
    torch.manual_seed(0)
    assert_equal(restored(images, torch.tensor([0, 1, 2, 0])), expected)
