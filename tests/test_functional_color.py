"""Color ops: generic cases, torchvision and PIL references, properties, errors."""

from __future__ import annotations

import PIL.Image
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import visiontx.functional as F
from visiontx.datapoints import Image, Video

from .common import Case, assert_equal, make_bounding_box, make_image, make_image_pil, make_image_tensor
from .common import make_mask, make_video

UINT8 = (torch.uint8,)
FLOAT = (torch.float32,)

FUNCTIONAL_CASES = {
    F.adjust_brightness: [dict(brightness_factor=0.0), dict(brightness_factor=1.7)],
    F.adjust_contrast: [dict(contrast_factor=0.3), dict(contrast_factor=1.8)],
    F.adjust_saturation: [dict(saturation_factor=0.0), dict(saturation_factor=1.6)],
    F.adjust_hue: [dict(hue_factor=-0.3), dict(hue_factor=0.5)],
    F.adjust_gamma: [dict(gamma=0.5), dict(gamma=2.0, gain=1.3)],
    F.adjust_sharpness: [dict(sharpness_factor=0.0), dict(sharpness_factor=2.5)],
    F.rgb_to_grayscale: [dict(num_output_channels=1), dict(num_output_channels=3)],
    F.grayscale_to_rgb: [{}],
    F.invert: [{}],
    F.posterize: [dict(bits=0), dict(bits=3), dict(bits=8)],
    F.solarize: [Case(dict(threshold=128), dtypes=UINT8), Case(dict(threshold=0.4), dtypes=FLOAT)],
    F.autocontrast: [{}],
    F.equalize: [{}],
    F.permute_channels: [Case(dict(permutation=[0]), channels=(1,)), Case(dict(permutation=[2, 0, 1]), channels=(3,))],
}

# op -> kwargs compared with torchvision (see test_matches_torchvision)
REFERENCE_KWARGS = [
    (F.adjust_brightness, dict(brightness_factor=0.6)),
    (F.adjust_brightness, dict(brightness_factor=1.4)),
    (F.adjust_contrast, dict(contrast_factor=0.4)),
    (F.adjust_contrast, dict(contrast_factor=1.7)),
    (F.adjust_saturation, dict(saturation_factor=0.3)),
    (F.adjust_saturation, dict(saturation_factor=1.9)),
    (F.adjust_hue, dict(hue_factor=-0.45)),
    (F.adjust_hue, dict(hue_factor=0.2)),
    (F.adjust_gamma, dict(gamma=0.4)),
    (F.adjust_gamma, dict(gamma=1.8, gain=1.2)),
    (F.adjust_sharpness, dict(sharpness_factor=0.3)),
    (F.adjust_sharpness, dict(sharpness_factor=2.2)),
    (F.rgb_to_grayscale, dict(num_output_channels=1)),
    (F.rgb_to_grayscale, dict(num_output_channels=3)),
    (F.grayscale_to_rgb, {}),
    (F.invert, {}),
    (F.posterize, dict(bits=2)),
    (F.posterize, dict(bits=7)),
    (F.solarize, dict(threshold="mid")),
    (F.autocontrast, {}),
    (F.equalize, {}),
    (F.permute_channels, dict(permutation="reverse")),
]


def _resolve(kwargs: dict, image: torch.Tensor) -> dict:
    """Fill in dtype / channel dependent arguments."""
    kwargs = dict(kwargs)
    if kwargs.get("threshold") == "mid":
        kwargs["threshold"] = 0.45 if image.is_floating_point() else 115
    if kwargs.get("permutation") == "reverse":
        kwargs["permutation"] = list(range(image.shape[-3]))[::-1]
    return kwargs


def _reference_input(layout: str, dtype: torch.dtype, channels: int) -> torch.Tensor:
    if layout == "image":
        return make_image_tensor((19, 26), dtype=dtype, channels=channels, seed=3)
    if layout == "batch":
        return make_image_tensor((19, 26), dtype=dtype, channels=channels, batch_dims=(2,), seed=4)
    return make_image_tensor((11, 14), dtype=dtype, channels=channels, batch_dims=(2, 3), seed=5)  # videos


@pytest.mark.parametrize(("op", "kwargs"), REFERENCE_KWARGS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("layout", ["image", "batch", "video"])
def test_matches_torchvision(op, kwargs, dtype, channels, layout) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = _reference_input(layout, dtype, channels)
    kwargs = _resolve(kwargs, image)
    expected = getattr(tv_f, op.__name__)(image, **kwargs)
    atol = 1 if dtype == torch.uint8 else 1e-5
    assert_equal(op(image, **kwargs), expected, atol=atol)


def test_matches_torchvision_on_a_photo() -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    photo = F.pil_to_tensor(PIL.Image.open("tests/assets/chelsea.jpg"))
    for op, kwargs in REFERENCE_KWARGS:
        kwargs = _resolve(kwargs, photo)
        assert_equal(op(photo, **kwargs), getattr(tv_f, op.__name__)(photo, **kwargs), atol=1)


# ------------------------------------------------------------------------------- PIL references
# op, kwargs, atol of the PIL kernel against the uint8 tensor kernel
PIL_CASES = [
    (F.adjust_brightness, dict(brightness_factor=1.3), 1),
    (F.adjust_contrast, dict(contrast_factor=0.6), 2),
    (F.adjust_saturation, dict(saturation_factor=1.5), 2),
    (F.adjust_gamma, dict(gamma=0.7, gain=1.1), 0),
    (F.adjust_sharpness, dict(sharpness_factor=1.8), 2),
    (F.rgb_to_grayscale, dict(num_output_channels=3), 1),
    (F.grayscale_to_rgb, {}, 0),
    (F.invert, {}, 0),
    (F.posterize, dict(bits=3), 0),
    (F.solarize, dict(threshold=100), 0),
    (F.autocontrast, {}, 1),
    (F.equalize, {}, 0),
    (F.permute_channels, dict(permutation=[1, 2, 0]), 0),
]


@pytest.mark.parametrize(("op", "kwargs", "atol"), PIL_CASES, ids=lambda v: getattr(v, "__name__", None))
def test_pil_kernel_matches_tensor_kernel(op, kwargs, atol) -> None:
    image = F.pil_to_tensor(PIL.Image.open("tests/assets/coffee.jpg").convert("RGB").resize((64, 48)))
    output = op(F.to_image_pil(image), **kwargs)
    assert isinstance(output, PIL.Image.Image)
    assert_equal(F.pil_to_tensor(output), op(image, **kwargs), atol=atol)


@pytest.mark.parametrize("hue_factor", [0.1, -0.07, 0.5, -0.5, 0.3, 0.0])
def test_pil_hue_equals_torchvision(hue_factor) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    pil = PIL.Image.open("tests/assets/coffee.jpg").convert("RGB").resize((64, 48))
    assert_equal(F.pil_to_tensor(F.adjust_hue(pil, hue_factor)), F.pil_to_tensor(tv_f.adjust_hue(pil, hue_factor)))


def test_pil_hue_is_close_to_tensor_hue() -> None:
    image = F.pil_to_tensor(PIL.Image.open("tests/assets/coffee.jpg").convert("RGB").resize((64, 48)))
    from_pil = F.pil_to_tensor(F.adjust_hue(F.to_image_pil(image), hue_factor=0.25)).float()
    from_tensor = F.adjust_hue(image, hue_factor=0.25).float()
    assert (from_pil - from_tensor).abs().mean() < 3  # PIL's HSV quantizes hue to 8 bits


@pytest.mark.parametrize("op", [F.adjust_hue, F.adjust_saturation])
def test_pil_one_band_is_unchanged(op) -> None:
    image = F.to_image_pil(make_image_tensor(channels=1))
    kwargs = dict(hue_factor=0.3) if op is F.adjust_hue else dict(saturation_factor=0.2)
    assert_equal(op(image, **kwargs), image)


# ----------------------------------------------------------------------------------- properties
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize(
    ("op", "kwargs"),
    [
        (F.adjust_brightness, dict(brightness_factor=1.0)),
        (F.adjust_contrast, dict(contrast_factor=1.0)),
        (F.adjust_saturation, dict(saturation_factor=1.0)),
        (F.adjust_hue, dict(hue_factor=0.0)),
        (F.adjust_sharpness, dict(sharpness_factor=1.0)),
        (F.adjust_gamma, dict(gamma=1.0)),
    ],
)
def test_neutral_arguments_are_identities(op, kwargs, dtype) -> None:
    image = make_image(dtype=dtype, batch_dims=(2,))
    assert_equal(op(image, **kwargs), image, atol=0 if dtype == torch.uint8 else 1e-6)


def test_posterize_eight_bits_is_identity_for_uint8() -> None:
    image = make_image(batch_dims=(2,))
    assert_equal(F.posterize(image, bits=8), image)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), channels=st.sampled_from([1, 3]), floating=st.booleans())
def test_invert_twice_is_identity(seed, channels, floating) -> None:
    image = make_image(dtype=torch.float32 if floating else torch.uint8, channels=channels, seed=seed)
    assert_equal(F.invert(F.invert(image)), image, atol=1e-6 if floating else 0)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16), low=st.integers(0, 100), span=st.integers(20, 155))
def test_equalize_flattens_the_histogram(seed, low, span) -> None:
    generator = torch.Generator().manual_seed(seed)
    # a strongly skewed image: most values crowd the low end of [low, low + span]
    values = torch.rand((1, 64, 64), generator=generator).pow(3).mul(span).add(low).round().to(torch.uint8)
    equalized = F.equalize(values)
    counts = torch.bincount(equalized.flatten().long(), minlength=256).view(8, 32).sum(1).float()
    before = torch.bincount(values.flatten().long(), minlength=256).view(8, 32).sum(1).float()
    assert counts.std() < before.std()
    largest_value_share = torch.bincount(values.flatten().long()).max()  # one value cannot be split
    assert counts.max() <= largest_value_share + values.numel() / 4
    assert equalized.max() == 255


def test_autocontrast_stretches_each_channel() -> None:
    image = make_image_tensor(dtype=torch.uint8).div(4, rounding_mode="floor").add(30).to(torch.uint8)
    output = F.autocontrast(image)
    assert output.amin(dim=(-2, -1)).eq(0).all() and output.amax(dim=(-2, -1)).eq(255).all()
    constant = torch.full((3, 4, 5), 0.3)
    assert_equal(F.autocontrast(constant), constant)


def test_rgb_to_grayscale_of_gray_returns_it_and_grayscale_round_trip() -> None:
    gray = make_image(channels=1)
    assert_equal(F.rgb_to_grayscale(gray), gray)
    rgb = F.grayscale_to_rgb(gray)
    assert rgb.shape[-3] == 3 and isinstance(rgb, Image)
    assert_equal(F.rgb_to_grayscale(rgb), gray)


def test_grayscale_to_rgb_returns_a_3_channel_input_itself() -> None:
    rgb = make_image_tensor(batch_dims=(2,))
    assert F.grayscale_to_rgb_image_tensor(rgb) is rgb  # no copy, like torchvision
    image = make_image()
    out = F.grayscale_to_rgb(image)
    assert isinstance(out, Image) and out.data_ptr() == image.data_ptr()


def test_solarize_uint8_for_several_thresholds() -> None:
    image = make_image_tensor(batch_dims=(2,))
    for threshold in (0, 1, 127.5, 128, 255, 128.0, 1):  # repeated ones reuse a cached table
        assert_equal(F.solarize(image, threshold=threshold), torch.where(image >= threshold, 255 - image, image))


def test_solarize_uint8_compares_in_the_default_float_dtype_as_torch() -> None:
    """``uint8 >= threshold`` compares in torch's default float dtype: ``255 * m`` of a float32 magnitude just
    above a whole number (the auto-augment policies' thresholds: 221.000002, ...) is that number in float32."""
    image = torch.arange(256, dtype=torch.uint8).view(1, 16, 16)
    thresholds = [255 * m for m in torch.linspace(0.0, 1.0, 31).tolist()] + [220.5, 221.0000001, 17.000001]
    for dtype in (torch.float32, torch.float64):
        previous = torch.get_default_dtype()
        torch.set_default_dtype(dtype)
        try:
            for threshold in thresholds:
                expected = torch.where(image >= threshold, 255 - image, image)
                assert_equal(F.solarize(image, threshold=threshold), expected)
        finally:
            torch.set_default_dtype(previous)


def test_saturation_zero_is_grayscale() -> None:
    image = make_image_tensor(dtype=torch.float32)
    expected = F.rgb_to_grayscale(image, num_output_channels=3)
    assert_equal(F.adjust_saturation(image, saturation_factor=0.0), expected, atol=1e-6)


def test_permute_channels_reorders() -> None:
    image = make_image_tensor(batch_dims=(2,))
    assert_equal(F.permute_channels(image, permutation=[2, 0, 1]), image[:, [2, 0, 1]])


def test_sharpness_keeps_the_border_and_small_images() -> None:
    image = make_image_tensor(dtype=torch.uint8)
    output = F.adjust_sharpness(image, sharpness_factor=3.0)
    assert_equal(output[..., 0, :], image[..., 0, :])
    assert_equal(output[..., :, -1], image[..., :, -1])
    tiny = make_image_tensor((2, 5))
    assert_equal(F.adjust_sharpness(tiny, sharpness_factor=3.0), tiny)


def test_video_and_image_datapoints_keep_their_type() -> None:
    video = make_video(dtype=torch.float32)
    for op, kwargs in [(F.adjust_hue, dict(hue_factor=0.1)), (F.equalize, {}), (F.rgb_to_grayscale, {})]:
        assert isinstance(op(video, **kwargs), Video)


@pytest.mark.parametrize("op", [F.adjust_contrast, F.autocontrast, F.equalize, F.adjust_hue, F.adjust_sharpness])
def test_zero_size_images(op) -> None:
    kwargs = {F.adjust_contrast: dict(contrast_factor=0.5), F.adjust_hue: dict(hue_factor=0.1),
              F.adjust_sharpness: dict(sharpness_factor=2.0)}.get(op, {})
    for shape in [(3, 0, 5), (3, 4, 0), (0, 3, 4, 5)]:
        image = torch.zeros(shape, dtype=torch.uint8)
        assert op(image, **kwargs).shape == shape


# ---------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("op", "kwargs", "error", "match"),
    [
        (F.adjust_brightness, dict(brightness_factor=-0.1), ValueError, "brightness_factor"),
        (F.adjust_contrast, dict(contrast_factor=-1), ValueError, "contrast_factor"),
        (F.adjust_saturation, dict(saturation_factor=-1), ValueError, "saturation_factor"),
        (F.adjust_sharpness, dict(sharpness_factor=-1), ValueError, "sharpness_factor"),
        (F.adjust_gamma, dict(gamma=-1), ValueError, "gamma"),
        (F.adjust_hue, dict(hue_factor=0.6), ValueError, "hue_factor"),
        (F.adjust_hue, dict(hue_factor=-0.51), ValueError, "hue_factor"),
        (F.adjust_brightness, dict(brightness_factor="1"), TypeError, "brightness_factor"),
        (F.posterize, dict(bits=9), ValueError, "bits"),
        (F.posterize, dict(bits=2.0), TypeError, "bits"),
        (F.solarize, dict(threshold=256), ValueError, "threshold"),
        (F.solarize, dict(threshold=-1), ValueError, "threshold"),
        (F.rgb_to_grayscale, dict(num_output_channels=2), ValueError, "num_output_channels"),
        (F.permute_channels, dict(permutation=[0, 0, 1]), ValueError, "permutation"),
        (F.permute_channels, dict(permutation=[0, 1]), ValueError, "permutation"),
    ],
)
@pytest.mark.parametrize("as_pil", [False, True])
def test_bad_arguments(op, kwargs, error, match, as_pil) -> None:
    image = make_image_tensor()
    with pytest.raises(error, match=match):
        op(F.to_image_pil(image) if as_pil else image, **kwargs)


def test_float_threshold_range() -> None:
    with pytest.raises(ValueError, match="threshold"):
        F.solarize(make_image_tensor(dtype=torch.float32), threshold=1.5)


@pytest.mark.parametrize(
    ("op", "kwargs"),
    [
        (F.adjust_contrast, dict(contrast_factor=0.5)),
        (F.adjust_saturation, dict(saturation_factor=0.5)),
        (F.adjust_hue, dict(hue_factor=0.1)),
        (F.rgb_to_grayscale, {}),
        (F.grayscale_to_rgb, {}),
    ],
)
def test_channel_counts_that_make_no_sense(op, kwargs) -> None:
    with pytest.raises(ValueError, match="channels"):
        op(make_image_tensor(channels=2), **kwargs)


@pytest.mark.parametrize("inpt", [make_mask(), make_bounding_box()], ids=["mask", "boxes"])
@pytest.mark.parametrize("op", [F.adjust_brightness, F.invert, F.equalize])
def test_masks_and_boxes_are_refused(op, inpt) -> None:
    kwargs = dict(brightness_factor=0.5) if op is F.adjust_brightness else {}
    with pytest.raises(TypeError, match="supports"):
        op(inpt, **kwargs)


@pytest.mark.parametrize(("op", "kwargs"), REFERENCE_KWARGS, ids=lambda v: getattr(v, "__name__", str(v)))
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_non_contiguous_inputs(op, kwargs, dtype) -> None:
    contiguous = make_image_tensor((20, 16), dtype=dtype, batch_dims=(2,))
    strided = contiguous.transpose(-2, -1).contiguous().transpose(-2, -1)  # same values, other strides
    channels_last = contiguous.contiguous(memory_format=torch.channels_last)
    kwargs = _resolve(kwargs, contiguous)
    expected = op(contiguous, **kwargs)
    atol = 0 if dtype == torch.uint8 else 1e-6  # float means may sum in another order
    assert_equal(op(strided, **kwargs), expected, atol=atol)
    assert_equal(op(channels_last, **kwargs), expected, atol=atol)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16), first=st.floats(-0.5, 0.5), second=st.floats(-0.5, 0.5))
def test_hue_rotations_compose(seed, first, second) -> None:
    image = make_image_tensor((6, 7), dtype=torch.float64, seed=seed)
    total = (first + second + 0.5) % 1.0 - 0.5  # the same rotation, wrapped into [-0.5, 0.5)
    twice = F.adjust_hue(F.adjust_hue(image, hue_factor=first), hue_factor=second)
    assert_equal(twice, F.adjust_hue(image, hue_factor=total), atol=1e-9)



# ------------------------------------------------ adjust_colors (ColorJitter's kernel, not public)
def test_adjust_colors_runs_the_ops_in_order() -> None:
    from visiontx.functional._color._jitter import adjust_colors

    steps = [("saturation", 1.3), ("hue", 0.1), ("brightness", 0.7), ("contrast", 1.2)]
    inputs = [make_image_tensor((9, 11), dtype=torch.float32), make_image_tensor((9, 11), channels=1),
              make_image_pil((9, 11))]
    for image in inputs:
        expected = image
        for name, factor in steps:
            expected = getattr(F, f"adjust_{name}")(expected, factor)
        assert_equal(adjust_colors(image, steps=steps), expected)
    assert adjust_colors(inputs[0], steps=[]) is inputs[0]


@pytest.mark.parametrize(
    ("steps", "match"),
    [
        ([("gamma", 1.2)], "steps"),
        (["brightness"], "steps"),
        ([("brightness", -1.0), ("hue", 0.1)], "brightness_factor"),
        ([("contrast", 1.0), ("hue", 0.7)], "hue_factor"),
    ],
)
def test_adjust_colors_rejects_bad_steps(steps: list, match: str) -> None:
    from visiontx.functional._color._jitter import adjust_colors

    with pytest.raises(ValueError, match=match):
        adjust_colors(make_image_tensor((9, 11)), steps=steps)


@pytest.mark.parametrize("dtype", [torch.int16])  # torchvision refuses int32 (float32 holds it inexactly)
@pytest.mark.parametrize(("gamma", "gain"), [(0.5, 1.0), (2.2, 0.8), (1.0, 1.3)])
def test_adjust_gamma_of_other_integer_dtypes_within_a_level_of_torchvision(dtype, gamma, gain) -> None:
    """On ``[0, 1]`` in float32, as torchvision's; rounded where torchvision truncates (within 1 level)."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    top = torch.iinfo(dtype).max
    image = torch.randint(0, top, (3, 9, 11), generator=torch.Generator().manual_seed(3), dtype=torch.int64).to(dtype)
    out = F.adjust_gamma(image, gamma, gain)
    expected = tv_f.adjust_gamma(image, gamma, gain)
    assert out.dtype == dtype
    assert (out.long() - expected.long()).abs().max() <= 1
    assert int(out.max()) <= top and int(out.min()) >= 0


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_adjust_gamma_refuses_integer_dtypes_float32_cannot_hold(dtype) -> None:
    """Their largest values round up in float32 and would wrap to negative numbers (torchvision refuses int32)."""
    with pytest.raises(TypeError, match="uint8, int16, uint16 or floating point"):
        F.adjust_gamma(torch.tensor([[[torch.iinfo(dtype).max, 0]]], dtype=dtype), 1.0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
@pytest.mark.parametrize(("gamma", "gain"), [(0.5, 1.0), (2.0, 1.0), (2.0, 0.5), (0.7, 1.3)])
def test_adjust_gamma_of_float_values_outside_the_range_is_torchvisions(dtype, gamma, gain) -> None:
    """torchvision clips only after a gain other than 1; HDR values (above 1) pass a plain gamma."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = torch.tensor([[[-0.5, 0.0, 0.25, 1.0, 1.5, 3.0, float("inf"), float("nan")]]], dtype=dtype)
    out = F.adjust_gamma(image, gamma, gain)
    expected = tv_f.adjust_gamma(image, gamma, gain)
    assert out.dtype == dtype
    torch.testing.assert_close(out, expected, equal_nan=True, rtol=0, atol=0)
    if gain == 1.0:
        assert float(out[0, 0, 4]) == pytest.approx(1.5**gamma, rel=1e-3)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize(
    ("op", "kwargs"),
    [
        (F.adjust_hue, dict(hue_factor=0.13)),
        (F.adjust_hue, dict(hue_factor=0.0)),
        (F.gaussian_blur, dict(kernel_size=[3, 3])),
        (F.gaussian_blur, dict(kernel_size=[5, 3], sigma=[1.5, 0.8])),
        (F.adjust_sharpness, dict(sharpness_factor=2.0)),
        (F.autocontrast, {}),
    ],
)
def test_half_precision_is_computed_in_float32_and_rounded_once(op, kwargs, dtype) -> None:
    """Half-precision images are computed in float32 and rounded to their dtype at the end: within that
    rounding of the float64 result (in bfloat16, torchvision's hue is up to 12 levels from it in 255ths)."""
    half = make_image_tensor((17, 23), dtype=dtype)
    out = op(half, **kwargs)
    assert out.dtype == dtype
    reference = op(half.to(torch.float64), **kwargs)
    spacing_below_one = torch.finfo(dtype).eps / 2
    assert float((out.double() - reference).abs().max()) <= spacing_below_one / 2 + 1e-5


@pytest.mark.parametrize("dtype", [torch.int16, torch.uint16])
def test_16_bit_images_invert_posterize_autocontrast_and_warp_as_torchvision(dtype) -> None:
    """torch lacks subtraction, masked_fill and minimum for uint16: the kernels take other ops there."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    top = torch.iinfo(dtype).max
    image = torch.randint(0, top, (3, 9, 11), generator=torch.Generator().manual_seed(5)).to(dtype)
    image[0, 0, :2] = torch.tensor([0, top], dtype=torch.int64).to(dtype)
    affine = dict(angle=10.0, translate=[2, 1], scale=0.9, shear=[5.0])
    for op, kwargs in [(F.invert, {}), (F.posterize, dict(bits=3)), (F.posterize, dict(bits=0)),
                       (F.rotate, dict(angle=30.0)), (F.affine, affine)]:
        out = op(image, **kwargs)
        assert out.dtype == dtype
        assert torch.equal(out.to(torch.int32), getattr(tv_f, op.__name__)(image, **kwargs).to(torch.int32)), op
    out = F.autocontrast(image)
    assert (out.to(torch.int32) - tv_f.autocontrast(image).to(torch.int32)).abs().max() <= 1  # rounded, not truncated
    field = torch.rand(1, 9, 11, 2, generator=torch.Generator().manual_seed(6)) * 0.2
    elastic = F.elastic(image, field, interpolation="nearest")
    assert torch.equal(elastic.to(torch.int32), F.elastic(image.to(torch.int32), field, interpolation="nearest"))


@pytest.mark.parametrize("size", [(1, 4), (64, 80)])
def test_float_grayscale_keeps_values_outside_the_range_as_torchvision(size) -> None:
    """A weighted sum of the channels: HDR and normalised values are not clamped to [0, 1]."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = torch.rand(3, *size, generator=torch.Generator().manual_seed(2)) * 4 - 1
    image[:, 0, :2] = torch.tensor([[-0.5, 1.5]]).expand(3, 2)
    for channels in (1, 3):
        out = F.rgb_to_grayscale(image, channels)
        torch.testing.assert_close(out, tv_f.rgb_to_grayscale(image, channels), rtol=0, atol=1e-6)
    assert F.rgb_to_grayscale(image)[0, 0, :2].tolist() == pytest.approx([-0.5, 1.5], abs=1e-3)  # weights sum to 0.9999
