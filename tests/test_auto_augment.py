"""Auto-augment transforms: generic cases, the same draws as torchvision, refusals and validation."""

from __future__ import annotations

import PIL.Image
import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import Image, Video

from .common import Case, assert_equal, make_bounding_box, make_image, make_image_pil, make_mask, make_video

IMAGE_TYPES = (torch.Tensor, Image, PIL.Image.Image, Video)

TRANSFORM_CASES = {
    T.AutoAugment: [
        Case({}, types=IMAGE_TYPES),
        Case(dict(policy=T.AutoAugmentPolicy.CIFAR10, fill=7), types=IMAGE_TYPES),
        Case(dict(policy=T.AutoAugmentPolicy.SVHN, interpolation="bilinear"), types=IMAGE_TYPES),
    ],
    T.RandAugment: [Case({}, types=IMAGE_TYPES), Case(dict(num_ops=4, magnitude=30), types=IMAGE_TYPES)],
    T.TrivialAugmentWide: [Case({}, types=IMAGE_TYPES), Case(dict(num_magnitude_bins=5), types=IMAGE_TYPES)],
    T.AugMix: [Case({}, types=IMAGE_TYPES), Case(dict(chain_depth=2, all_ops=False, severity=10), types=IMAGE_TYPES)],
}
COVERED = {"AutoAugmentPolicy"}

REFERENCE_CASES = [
    (T.AutoAugment, dict(policy=T.AutoAugmentPolicy.IMAGENET)),
    (T.AutoAugment, dict(policy=T.AutoAugmentPolicy.CIFAR10)),
    (T.AutoAugment, dict(policy=T.AutoAugmentPolicy.SVHN)),
    (T.RandAugment, dict(num_ops=3, magnitude=12)),
    (T.TrivialAugmentWide, {}),
    (T.AugMix, {}),
    (T.AugMix, dict(chain_depth=2, all_ops=False, mixture_width=2)),
]


def _tv_kwargs(tv_t, kwargs: dict) -> dict:
    kwargs = dict(kwargs)
    if "policy" in kwargs:
        kwargs["policy"] = tv_t.AutoAugmentPolicy(kwargs["policy"].value)
    return kwargs


def _photo(size=(40, 52)) -> torch.Tensor:
    image = PIL.Image.open("tests/assets/chelsea.jpg").convert("RGB").resize(size[::-1])
    return F.pil_to_tensor(image)


def _recorded_tv_ops(tv_t, cls_name: str, kwargs: dict, image: torch.Tensor, seed: int) -> list:
    """The (op, magnitude) pairs torchvision applies for ``seed``, recorded from its op dispatcher."""
    base = tv_t._auto_augment._AutoAugmentBase
    original, calls = base._apply_image_or_video_transform, []

    def record(self, image, transform_id, magnitude, interpolation, fill):
        calls.append((transform_id, magnitude))
        return original(self, image, transform_id, magnitude, interpolation, fill)

    base._apply_image_or_video_transform = record
    try:
        torch.manual_seed(seed)
        getattr(tv_t, cls_name)(**_tv_kwargs(tv_t, kwargs))(image)
    finally:
        base._apply_image_or_video_transform = original
    return [(name, m) for name, m in calls if name != "Identity"]


def _our_ops(transform, image: torch.Tensor, seed: int) -> list:
    torch.manual_seed(seed)
    params = transform.make_params([image])
    ops = [op for chain in params["chains"] for op in chain] if "chains" in params else params["ops"]
    return [(name, m) for name, m in ops if name != "Identity"]


@pytest.mark.parametrize(("cls", "kwargs"), REFERENCE_CASES, ids=lambda v: getattr(v, "__name__", None))
def test_draws_the_same_ops_as_torchvision(cls, kwargs) -> None:
    tv_t = pytest.importorskip("torchvision.transforms.v2")
    image = _photo()
    for seed in range(25):
        ours = _our_ops(cls(**kwargs), image, seed)
        theirs = _recorded_tv_ops(tv_t, cls.__name__, kwargs, image, seed)
        assert [n for n, _ in ours] == [n for n, _ in theirs], f"seed {seed}"
        assert [m for _, m in ours] == pytest.approx([m for _, m in theirs], abs=1e-6), f"seed {seed}"


GEOMETRIC_OPS = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate"}


@pytest.mark.parametrize(("cls", "kwargs"), REFERENCE_CASES, ids=lambda v: getattr(v, "__name__", None))
def test_outputs_match_torchvision(cls, kwargs) -> None:
    """Seeds whose draw holds no geometric op (warps are the geometry tests' business; nearest-warp
    ties differ on a few pixels, which sharpness then spreads)."""
    tv_t = pytest.importorskip("torchvision.transforms.v2")
    image = _photo().float() / 255  # float: every color op matches torchvision to ~1e-6, no rounding steps
    compared = 0
    for seed in range(60):
        if any(name in GEOMETRIC_OPS for name, _ in _our_ops(cls(**kwargs), image, seed)):
            continue
        torch.manual_seed(seed)
        ours = cls(**kwargs)(image)
        torch.manual_seed(seed)
        theirs = getattr(tv_t, cls.__name__)(**_tv_kwargs(tv_t, kwargs))(image)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        # a pixel may land on the other side of a solarize / posterize step
        assert ((ours - theirs).abs() > 1e-4).float().mean() < 0.01, f"seed {seed}"
        compared += 1
    assert compared >= 1


def test_one_draw_for_image_and_videos_of_any_batch() -> None:
    video = make_video(batch_dims=(2,))
    for transform in [T.AutoAugment(), T.RandAugment(), T.TrivialAugmentWide(), T.AugMix()]:
        out = transform(video)
        assert isinstance(out, Video) and out.shape == video.shape and out.dtype == video.dtype


def test_augmix_pil_and_float() -> None:
    pil = make_image_pil()
    out = T.AugMix()(pil)
    assert isinstance(out, PIL.Image.Image) and out.size == pil.size
    image = make_image(dtype=torch.float32)
    out = T.AugMix(severity=5)(image)
    assert isinstance(out, Image) and out.dtype == torch.float32 and 0 <= out.min() and out.max() <= 1


def test_augmix_weights_form_a_convex_combination() -> None:
    torch.manual_seed(0)
    params = T.AugMix(mixture_width=4).make_params([make_image(batch_dims=(3,))])
    total = params["original_weight"] + params["chain_weights"].sum(1)
    assert params["chain_weights"].shape == (3, 4)
    assert_equal(total, torch.ones(3), atol=1e-5, rtol=0)


@pytest.mark.parametrize("make", [make_image, make_image_pil, make_video])
def test_augmix_mixes_chains_with_their_weights(make) -> None:
    inpt = make()
    augmix = T.AugMix()

    def params(original: float, op: str) -> dict:  # one weight row: these inputs carry no batch dim
        return dict(original_weight=torch.tensor([original]), chain_weights=torch.tensor([[1 - original]]),
                    chains=[[(op, 0.0)]])

    assert_equal(augmix.transform(inpt, params(0.3, "Identity")), inpt)
    mixed = augmix.transform(inpt, params(0.5, "Invert"))
    assert type(mixed) is type(inpt)
    values = F.pil_to_tensor(mixed) if isinstance(mixed, PIL.Image.Image) else mixed
    assert values.eq(128).all()  # (x + 255 - x) / 2, rounded


def test_labels_and_other_leaves_pass_through() -> None:
    image, labels = make_image(), torch.tensor([3, 1])
    out_image, out_labels, name = T.RandAugment()(image, labels, "cat")
    assert out_labels is labels and name == "cat" and isinstance(out_image, Image)


@pytest.mark.parametrize("cls", [T.AutoAugment, T.RandAugment, T.TrivialAugmentWide, T.AugMix])
@pytest.mark.parametrize("other", [make_bounding_box(), make_mask()], ids=["boxes", "mask"])
def test_boxes_and_masks_are_refused(cls, other) -> None:
    with pytest.raises(TypeError, match=type(other).__name__):
        cls()(make_image(), other)


@pytest.mark.parametrize("cls", [T.AutoAugment, T.RandAugment, T.TrivialAugmentWide, T.AugMix])
def test_exactly_one_image(cls) -> None:
    with pytest.raises(TypeError, match="exactly one image"):
        cls()(make_image(), make_image())
    with pytest.raises(TypeError, match="exactly one image"):
        cls()({"label": 3})


@pytest.mark.parametrize(
    ("cls", "kwargs", "error"),
    [
        (T.AutoAugment, dict(policy="imagenet"), TypeError),
        (T.AutoAugment, dict(interpolation="cubic-ish"), ValueError),
        (T.RandAugment, dict(num_ops=-1), ValueError),
        (T.RandAugment, dict(magnitude=31), ValueError),
        (T.RandAugment, dict(num_magnitude_bins=1, magnitude=0), ValueError),
        (T.TrivialAugmentWide, dict(num_magnitude_bins=1), ValueError),
        (T.AugMix, dict(severity=0), ValueError),
        (T.AugMix, dict(severity=11), ValueError),
        (T.AugMix, dict(mixture_width=0), ValueError),
        (T.AugMix, dict(alpha=0), ValueError),
        (T.AugMix, dict(all_ops=1), TypeError),
        (T.AutoAugment, dict(fill="white"), TypeError),
    ],
)
def test_constructor_validation(cls, kwargs, error) -> None:
    with pytest.raises(error):
        cls(**kwargs)
