"""PIL images beyond 8-bit L / RGB against torchvision's PIL paths: alpha through quarter turns, palettes and
32-bit integers through pads, float images through the blur, 1-bit images through JPEG."""

from __future__ import annotations

import numpy as np
import PIL.Image
import pytest

import visiontx.functional as F


def _tv():
    return pytest.importorskip("torchvision.transforms.v2.functional")


def _random(mode: str, shape: tuple[int, ...], seed: int = 0) -> PIL.Image.Image:
    rng = np.random.default_rng(seed)
    if mode == "F":
        return PIL.Image.fromarray(rng.random(shape, dtype=np.float32))
    if mode == "I":
        return PIL.Image.fromarray(rng.integers(-1000, 1000, shape).astype(np.int32))
    return PIL.Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8), mode)


@pytest.mark.parametrize(("mode", "shape"), [("RGBA", (3, 5, 4)), ("LA", (5, 5, 2)), ("RGB", (4, 6, 3))])
@pytest.mark.parametrize("angle", [0, 90, 180, 270, -90])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear", "bicubic"])
def test_quarter_turns_are_exact_transposes_as_torchvision(mode, shape, angle, interpolation) -> None:
    """Pillow resamples RGBA and LA through premultiplied alpha (up to 24 levels off): a quarter turn filling the
    canvas is its transpose, as torchvision's rotate (Pillow's) gives."""
    tv_f = _tv()
    image = _random(mode, shape)
    for expand in (False, True):
        ours = F.rotate(image, angle, interpolation=interpolation, expand=expand)
        theirs = tv_f.rotate(image, angle, interpolation=tv_f.InterpolationMode(interpolation), expand=expand)
        assert ours.mode == theirs.mode and ours.size == theirs.size
        assert np.array_equal(np.asarray(ours), np.asarray(theirs)), (angle, expand)
    if angle % 180 == 0:
        turned = image.copy() if angle % 360 == 0 else image.transpose(PIL.Image.Transpose.ROTATE_180)
        assert np.array_equal(np.asarray(F.rotate(image, angle, interpolation=interpolation)), np.asarray(turned))


@pytest.mark.parametrize("padding_mode", ["constant", "edge", "reflect", "symmetric"])
def test_pads_keep_palettes_and_32_bit_integers(padding_mode: str) -> None:
    tv_f = _tv()
    palette = _random("L", (3, 5)).convert("P")
    palette.putpalette(list(range(256)) * 3)
    for image in (palette, _random("I", (3, 5))):
        ours = F.pad(image, [1, 2], fill=7, padding_mode=padding_mode)
        theirs = tv_f.pad(image, [1, 2], fill=7, padding_mode=padding_mode)
        assert ours.mode == theirs.mode == image.mode
        assert np.array_equal(np.asarray(ours), np.asarray(theirs))
        if image.mode == "P":
            assert ours.getpalette() == image.getpalette()


def test_float_images_keep_their_values_through_the_blur_and_to_image_pil() -> None:
    tv_f = _tv()
    image = _random("F", (7, 9))
    assert np.array_equal(np.asarray(F.gaussian_blur(image, [1, 1])), np.asarray(image))  # a 1 x 1 kernel
    ours, theirs = F.gaussian_blur(image, [3, 3]), tv_f.gaussian_blur(image, [3, 3])
    assert ours.mode == theirs.mode == "F"
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=0, atol=1e-6)
    values = np.asarray(image)[..., None]
    assert np.array_equal(np.asarray(F.to_image_pil(values, mode="F")), np.asarray(image))


def test_jpeg_of_a_1_bit_image_is_the_l_image_jpeg_stores() -> None:
    tv_f = _tv()
    image = _random("L", (8, 8)).convert("1")
    ours, theirs = F.jpeg(image, 50), tv_f.jpeg(image, 50)
    assert ours.mode == theirs.mode == "L"
    assert np.array_equal(np.asarray(ours), np.asarray(theirs))
