"""The optional OpenCV fast paths agree with the pure-torch reference (skipped without OpenCV).

Helper-level tests compare each helper of the OpenCV wing ``visiontx.functional._cv2`` with an independent torch
reference; kernel-level tests run each accelerated kernel with and without ``_cv2.disabled()``.
"""

from __future__ import annotations

import functools

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as nnf

import visiontx.functional as F
from visiontx.functional import InterpolationMode, _cv2
from visiontx.functional._cv2 import _base, _color, _geometry, _layout, _warp

from .common import interleaved_copy, make_image_tensor, run_patched

needs_cv2 = pytest.mark.skipif(_base.cv2 is None, reason="OpenCV not installed")


def _fast_and_torch(
    kernel: Callable[..., torch.Tensor], *args: Any, **kwargs: Any
) -> tuple[torch.Tensor, torch.Tensor]:
    """``kernel(*args, **kwargs)`` with the fast paths on, then with them off."""
    fast = kernel(*args, **kwargs)
    with _cv2.disabled():
        return fast, kernel(*args, **kwargs)


def test_disabled_switch_is_per_thread() -> None:
    import threading

    inside, seen = threading.Event(), []

    def other() -> None:
        inside.wait()
        seen.append(_cv2.available())

    worker = threading.Thread(target=other)
    worker.start()
    before = _cv2.available()
    with _cv2.disabled():
        inside.set()
        worker.join()
        assert not _cv2.available()
    assert seen == [before]  # the other thread kept the wing


def test_disabled_switch_nests() -> None:
    before = _cv2.available()
    with _cv2.disabled():
        assert not _cv2.available()
        with _cv2.disabled():
            assert not _cv2.available()
        assert not _cv2.available()
    assert _cv2.available() == before == (_base.cv2 is not None)


@needs_cv2
def test_can_use() -> None:
    image = make_image_tensor((8, 9))
    assert _cv2.can_use(image)
    assert _cv2.can_use(image.float())
    assert not _cv2.can_use(image.to(torch.int64))
    assert not _cv2.can_use(image.float(), dtypes=(torch.uint8,))
    assert not _cv2.can_use(image[:, :0])
    assert not _cv2.can_use(image.float().requires_grad_())
    assert not _cv2.can_use(image.as_subclass(_Sub))
    with _cv2.disabled():
        assert not _cv2.can_use(image)


class _Sub(torch.Tensor):
    pass


@needs_cv2
@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("adjust_brightness", dict(brightness_factor=1.2)),
        ("gaussian_blur", dict(kernel_size=[3, 3])),
        ("adjust_hue", dict(hue_factor=0.1)),
        ("equalize", {}),
        ("rotate", dict(angle=10.0)),
    ],
)
@pytest.mark.filterwarnings("ignore:There is a performance drop")  # functorch's fallback for some ops
def test_wing_stays_out_of_vmap(name: str, kwargs: dict) -> None:
    """``torch.func``'s wrapped tensors have no memory to hand OpenCV: under ``vmap`` the kernels take their
    torch path (the wing's gates let them in before, and they failed)."""
    import visiontx.functional as F

    batch = make_image_tensor((9, 11), batch_dims=(3,))
    seen: list[bool] = []
    torch.func.vmap(lambda image: seen.append(_cv2.can_use(image)) or image)(batch)
    assert seen == [False] and _cv2.can_use(batch)
    out = torch.func.vmap(lambda image: getattr(F, name)(image, **kwargs))(batch)
    with _cv2.disabled():
        expected = torch.stack([getattr(F, name)(image, **kwargs) for image in batch])
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


@needs_cv2
def test_erase_with_a_value_from_vmap_takes_the_torch_path() -> None:
    """A fill value ``vmap`` maps over is a wrapped tensor too: the torch path says what is wrong (it cannot
    write a batch of values into one image), not OpenCV's missing memory."""
    import visiontx.functional as F

    image = make_image_tensor((10, 12))
    with pytest.raises(ValueError, match="does not fit"):
        torch.func.vmap(lambda v: F.erase(image, 1, 2, 3, 4, v))(torch.zeros(4, 3, 1, 1, dtype=torch.uint8))


@needs_cv2
@pytest.mark.parametrize("batch_dims", [(), (2,), (2, 3)])
def test_lut_matches_indexing(batch_dims: tuple[int, ...]) -> None:
    image = make_image_tensor((7, 11), batch_dims=batch_dims)
    table = torch.arange(255, -1, -1, dtype=torch.uint8)
    before = image.clone()
    out = _cv2.lut(image[..., ::1, :], table)
    torch.testing.assert_close(out, table[image.long()], rtol=0, atol=0)
    torch.testing.assert_close(image, before, rtol=0, atol=0)


def _rotation_matrix(angle: float, size: tuple[int, int]) -> list[list[float]]:
    """Output pixel -> input pixel for a counter-clockwise rotation about the image centre."""
    height, width = size
    cx, cy = (width - 1) / 2, (height - 1) / 2
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return [[c, -s, cx - c * cx + s * cy], [s, c, cy - s * cx - c * cy]]


def _reference_warp(image: torch.Tensor, matrix: list[list[float]], mode: str, fill: float) -> torch.Tensor:
    """grid_sample reference: sample the input at matrix @ (x, y, 1) for each output pixel."""
    height, width = image.shape[-2:]
    ys, xs = torch.meshgrid(torch.arange(height, dtype=torch.float64), torch.arange(width, dtype=torch.float64), indexing="ij")
    m = torch.tensor(matrix, dtype=torch.float64)
    src_x = m[0, 0] * xs + m[0, 1] * ys + m[0, 2]
    src_y = m[1, 0] * xs + m[1, 1] * ys + m[1, 2]
    grid = torch.stack([(2 * src_x + 1) / width - 1, (2 * src_y + 1) / height - 1], dim=-1)[None].float()
    flat = image.reshape(-1, 1, height, width).float()
    ones = torch.ones_like(flat[:1])
    sampled = nnf.grid_sample(flat, grid.expand(flat.shape[0], -1, -1, -1), mode=mode, align_corners=False)
    weight = nnf.grid_sample(ones, grid, mode=mode, align_corners=False)
    out = sampled + (1 - weight) * fill
    if not image.is_floating_point():
        out = out.round().clamp(0, 255)
    return out.to(image.dtype).reshape(image.shape)


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
# nearest at 90 degrees is left out: on half-pixel ties OpenCV rounds up, grid_sample to even
# (the kernels send only bilinear warps to OpenCV for this reason)
@pytest.mark.parametrize(("mode", "angle"), [("bilinear", 0.0), ("bilinear", 17.0), ("bilinear", 90.0), ("nearest", 0.0), ("nearest", 17.0)])
def test_warp_affine_matches_grid_sample(dtype: torch.dtype, mode: str, angle: float) -> None:
    image = make_image_tensor((31, 40), batch_dims=(2,), dtype=dtype)
    fill = 0.5 if dtype.is_floating_point else 127.0
    matrix = _rotation_matrix(angle, (31, 40))
    out = _warp.warp_planes(image, matrix, (31, 40), mode, [fill], num_channels=3)
    expected = _reference_warp(image, matrix, mode, fill)
    diff = (out.double() - expected.double()).abs()
    scale = 1.0 if dtype.is_floating_point else 255.0
    # OpenCV's fixed-point bilinear weights: rare small differences, never structural ones
    assert diff.mean() / scale < 2e-3
    assert (diff / scale > 0.02).float().mean() < 0.01


@needs_cv2
def test_warp_affine_identity_and_integer_shift_are_exact() -> None:
    image = make_image_tensor((9, 12), batch_dims=(2,))
    identity = [[1, 0, 0], [0, 1, 0]]
    torch.testing.assert_close(_warp.warp_planes(image, identity, (9, 12), "bilinear", None, 3), image, rtol=0, atol=0)
    shifted = _warp.warp_planes(image, [[1, 0, -2], [0, 1, 0]], (9, 12), "nearest", [1, 2, 3], num_channels=3)
    torch.testing.assert_close(shifted[..., 2:], image[..., :-2], rtol=0, atol=0)
    expected_fill = torch.tensor([1, 2, 3], dtype=torch.uint8).view(1, 3, 1, 1).expand(2, 3, 9, 2)
    torch.testing.assert_close(shifted[..., :2], expected_fill, rtol=0, atol=0)


@needs_cv2
def test_warp_perspective_with_affine_matrix_equals_warp_affine() -> None:
    image = make_image_tensor((20, 25))
    matrix = _rotation_matrix(30.0, (20, 25))
    affine = _warp.warp_planes(image, matrix, (20, 25), "bilinear", None, 3)
    perspective = _warp.warp_planes(image, [*matrix, [0, 0, 1]], (20, 25), "bilinear", None, 3)
    torch.testing.assert_close(perspective, affine, rtol=0, atol=1)


def _reference_blur(image: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    k = kernel.numel()
    flat = image.reshape(-1, 1, *image.shape[-2:]).double()
    padded = nnf.pad(flat, [k // 2] * 4, mode="reflect")
    kernel2d = (kernel.double()[:, None] * kernel.double()[None, :])[None, None]
    out = nnf.conv2d(padded, kernel2d)
    if not image.is_floating_point():
        out = out.round().clamp(0, 255)
    return out.to(image.dtype).reshape(image.shape)


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("kernel_size", [3, 9])
def test_gaussian_blur_matches_conv(dtype: torch.dtype, kernel_size: int) -> None:
    image = make_image_tensor((19, 23), batch_dims=(2,), dtype=dtype)
    x = torch.arange(kernel_size, dtype=torch.float64) - (kernel_size - 1) / 2
    kernel = torch.exp(-0.5 * (x / 1.7) ** 2)
    kernel = (kernel / kernel.sum()).float()
    out = _cv2.gaussian_blur(image, kernel, kernel)
    atol = 1e-5 if dtype.is_floating_point else 1
    torch.testing.assert_close(out, _reference_blur(image, kernel), rtol=0, atol=atol)


@needs_cv2
def test_histograms_match_bincount() -> None:
    rows = make_image_tensor((5, 7), channels=1).reshape(5, 7)
    expected = torch.stack([torch.bincount(r.long(), minlength=256) for r in rows])
    torch.testing.assert_close(torch.from_numpy(_color.histograms(rows.numpy())), expected, rtol=0, atol=0)
    assert _color.histograms(rows[:0].numpy()).shape == (0, 256)


def test_numpy_equalize_tables_equal_the_torch_ones() -> None:
    """The OpenCV path's tables (numpy) against the torch path's, on random images and the edge cases of
    PIL's algorithm: one value (step 0, kept as is), two values, every value once."""
    import numpy as np

    from visiontx.functional._color._histogram import _equalize_luts, _equalize_tables

    g = torch.Generator().manual_seed(0)
    images = [torch.randint(0, 256, (64, 64), generator=g), torch.randint(40, 60, (64, 64), generator=g),
              torch.full((64, 64), 7), torch.tensor([3, 200]).repeat(32, 64), torch.arange(256).reshape(16, 16)]
    for image in images:
        hist = torch.bincount(image.reshape(-1), minlength=256).unsqueeze(0)
        expected = _equalize_luts(hist, image.numel())
        assert torch.equal(torch.from_numpy(_equalize_tables(hist.numpy(), image.numel())), expected)
    both = torch.stack([torch.bincount(i.reshape(-1), minlength=256) for i in images[:3]])
    assert np.array_equal(_equalize_tables(both.numpy(), 4096), _equalize_luts(both, 4096).numpy())


@needs_cv2
def test_lut_planes() -> None:
    image = make_image_tensor((6, 5), batch_dims=(2,))
    tables = torch.stack([torch.arange(256).roll(i).to(torch.uint8) for i in range(6)])
    out = _cv2.lut_planes(image, tables)
    expected = torch.stack([tables[i][p.long()] for i, p in enumerate(image.reshape(6, 6, 5))]).view(image.shape)
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
    column = image[..., :1]  # a crop one pixel wide: its rows are no longer contiguous
    expected = torch.stack([tables[i][p.long()] for i, p in enumerate(column.reshape(6, 6, 1))]).view(column.shape)
    torch.testing.assert_close(_cv2.lut_planes(column, tables), expected, rtol=0, atol=0)


# ------------------------------------------------------- accelerated kernels vs their torch path
B = "bilinear"
# (kernel name, kwargs, uint8 atol): each accelerated kernel, run with and without the fast path.
KERNEL_CASES = [
    ("adjust_brightness_image_tensor", dict(brightness_factor=1.4), 0),
    ("adjust_contrast_image_tensor", dict(contrast_factor=0.6), 1),  # unfloored luma mean (|1 - factor| <= 0.5)
    ("adjust_contrast_image_tensor", dict(contrast_factor=1.8), 0),  # floored luma, as the torch path
    ("adjust_gamma_image_tensor", dict(gamma=0.7), 0),
    ("adjust_saturation_image_tensor", dict(saturation_factor=0.3), 1),
    ("adjust_saturation_image_tensor", dict(saturation_factor=1.4), 1),
    ("adjust_saturation_image_tensor", dict(saturation_factor=1.8), 1),
    ("adjust_hue_image_tensor", dict(hue_factor=-0.3), 1),
    ("adjust_hue_image_tensor", dict(hue_factor=0.45), 1),
    ("adjust_sharpness_image_tensor", dict(sharpness_factor=2.5), 1),
    ("adjust_sharpness_image_tensor", dict(sharpness_factor=0.2), 1),
    ("rgb_to_grayscale_image_tensor", dict(num_output_channels=1), 1),
    ("rgb_to_grayscale_image_tensor", dict(num_output_channels=3), 1),
    ("autocontrast_image_tensor", {}, 0),
    ("equalize_image_tensor", {}, 0),
    ("solarize_image_tensor", dict(threshold=0.4), 0),
    ("rotate_image_tensor", dict(angle=33.0, interpolation=B), 1),
    ("rotate_image_tensor", dict(angle=-20.0, interpolation=B, expand=True, fill=[10, 200, 30]), 1),
    ("affine_image_tensor", dict(angle=15.0, translate=[3, -2], scale=1.1, shear=[8.0, 4.0], interpolation=B, fill=5), 1),
    ("affine_image_tensor", dict(angle=-70.0, translate=[0, 4], scale=0.45, shear=[0.0, 20.0], interpolation=B, fill=[255, 0, 9]), 1),
    ("affine_image_tensor", dict(angle=5.0, translate=[-6, 0], scale=2.7, shear=[-30.0, 0.0], interpolation=B, fill=128), 1),
    ("perspective_image_tensor", dict(startpoints=[[0, 0], [40, 0], [40, 30], [0, 30]],
                                      endpoints=[[3, 2], [38, 0], [40, 28], [1, 30]], interpolation=B, fill=0), 1),
]


def _ids(cases: list[tuple]) -> list[str]:
    return [f"{case[0]}-{i}" for i, case in enumerate(cases)]


KERNEL_IDS = _ids(KERNEL_CASES)


def _case_kwargs(kwargs: dict, dtype: torch.dtype) -> dict:
    if "threshold" in kwargs and dtype == torch.uint8:
        return {**kwargs, "threshold": kwargs["threshold"] * 255}
    if "interpolation" in kwargs:
        from visiontx.functional import InterpolationMode

        return {**kwargs, "interpolation": InterpolationMode(kwargs["interpolation"])}
    return kwargs


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("batch_dims", [(), (2,)])
@pytest.mark.parametrize(("name", "kwargs", "atol"), KERNEL_CASES, ids=KERNEL_IDS)
def test_fast_kernel_matches_torch_path(name: str, kwargs: dict, atol: int, dtype: torch.dtype, batch_dims: tuple) -> None:
    import visiontx.functional as F

    kernel = getattr(F, name)
    image = make_image_tensor((31, 41), batch_dims=batch_dims, dtype=dtype)
    kwargs = _case_kwargs(kwargs, dtype)
    before = image.clone()
    fast, reference = _fast_and_torch(kernel, image, **kwargs)
    torch.testing.assert_close(image, before, rtol=0, atol=0)
    scale = 255 if dtype == torch.uint8 else 1
    torch.testing.assert_close(fast.double(), reference.double(), rtol=0, atol=max(atol, 1e-5 * scale))
    assert fast.dtype == reference.dtype and fast.shape == reference.shape
    if dtype == torch.uint8 and _blends_unfloored_luma(kwargs):
        # the fast path keeps the luma unfloored where the torch path floors it (as torchvision): off by
        # one often, but closer to the same op in float
        exact = kernel(image.float() / 255, **kwargs) * 255
        assert (fast - exact).abs().mean() < (reference - exact).abs().mean()
    else:  # rare off-by-ones
        assert (fast.double() - reference.double()).abs().gt(0.5 * scale / 255).float().mean() < 0.05


def _blends_unfloored_luma(kwargs: dict) -> bool:
    """Contrast and saturation by a factor within 0.5 of 1: the uint8 fast paths blend with an unfloored luma."""
    factor = kwargs.get("contrast_factor", kwargs.get("saturation_factor"))
    return factor is not None and abs(1.0 - factor) <= 0.5


@needs_cv2
@pytest.mark.parametrize(("name", "kwargs", "atol"), KERNEL_CASES, ids=KERNEL_IDS)
def test_fast_kernel_takes_interleaved_images(name: str, kwargs: dict, atol: int) -> None:
    """Channels-innermost images (from PIL or numpy), whole or cropped, give the planar image's result."""
    import visiontx.functional as F

    kernel = getattr(F, name)
    image = make_image_tensor((31, 41), batch_dims=(2,))
    kwargs = _case_kwargs(kwargs, image.dtype)
    interleaved = interleaved_copy(image)
    assert _layout._is_interleaved(interleaved)
    torch.testing.assert_close(kernel(interleaved, **kwargs), kernel(image, **kwargs), rtol=0, atol=0)
    crop = (..., slice(2, 29), slice(3, None))
    expected = kernel(image[crop].contiguous(), **kwargs)
    torch.testing.assert_close(kernel(interleaved[crop], **kwargs), expected, rtol=0, atol=0)


@needs_cv2
@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("num_output_channels", [1, 3])
def test_fast_grayscale_is_within_one_level_of_the_torch_kernel(num_output_channels: int, compiled: bool,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Every (r, g) pair with varied b, in a batch with a non-contiguous layout: OpenCV's weights
    (0.299 / 0.587 / 0.114) move some pixels by one level from the torch kernel's, never more; the compiled
    kernel (where built) has the torch kernel's values exactly."""
    import visiontx.functional as F

    if compiled and _base.native() is None:
        pytest.skip("visiontx._native not built (tests/test_native.py says why)")
    if not compiled:
        monkeypatch.setattr(_base, "_native", None)  # OpenCV's conversion on merged pixels

    rg = torch.cartesian_prod(torch.arange(256), torch.arange(256))
    colors = torch.stack([rg[:, 0], rg[:, 1], (rg[:, 0] * 7 + rg[:, 1] * 13) % 256], dim=1)
    colors = torch.cat([colors, colors.flip(0)]).to(torch.uint8)
    image = colors.T.reshape(3, 2, 256, 256).permute(1, 0, 3, 2)  # non-contiguous
    before = image.clone()
    fast, reference = _fast_and_torch(F.rgb_to_grayscale_image_tensor, image, num_output_channels)
    torch.testing.assert_close(image, before, rtol=0, atol=0)
    torch.testing.assert_close(fast, reference, rtol=0, atol=0 if compiled else 1)
    assert 0 < fast.ne(reference).float().mean() < 0.03 or compiled
    assert fast.shape == (2, num_output_channels, 256, 256) and fast.is_contiguous()
    assert all(torch.equal(fast[:, i], fast[:, 0]) for i in range(num_output_channels))


@needs_cv2
def test_floor_uint8() -> None:
    values = torch.tensor([[0.0, 0.4999, 1.0, 254.99, 255.0], [7.5, 3.0, 2.9999, 100.2, 0.7]])
    out = _color.floor_uint8(values.T)
    assert out.dtype == torch.uint8 and out.shape == (5, 2)
    torch.testing.assert_close(out, values.T.floor().to(torch.uint8), rtol=0, atol=0)


@needs_cv2
@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("batch_dims", [(), (2, 3)])
def test_fast_contrast_matches_torch_path(channels: int, batch_dims: tuple[int, ...]) -> None:
    import visiontx.functional as F

    image = make_image_tensor((33, 29), channels=channels, batch_dims=batch_dims)
    image[..., :10, :] //= 3  # per-image means that differ
    for factor in (0.0, 0.45, 1.7):
        fast, reference = _fast_and_torch(F.adjust_contrast_image_tensor, image, factor)
        torch.testing.assert_close(fast, reference, rtol=0, atol=0)


@needs_cv2
@pytest.mark.parametrize("batch_dims", [(), (2, 3)])
def test_fast_rgb_contrast_blends_with_the_unfloored_luma_mean(batch_dims: tuple[int, ...]) -> None:
    """Factors within 0.5 of 1: the gray mean is the luma weights applied to the plane means (the mean
    of the unfloored luma), the planes are mapped where they are. Within 1 level of the torch path
    (which floors the luma first), and the mean itself within 1e-4 of the unfloored luma's."""
    import visiontx.functional as F
    from visiontx.functional._color._grayscale import luma

    image = make_image_tensor((33, 29), batch_dims=batch_dims)
    image[..., :10, :] //= 3  # per-image means that differ
    for inpt in (image, image[..., 2:, 1:], interleaved_copy(image)):
        for factor in (0.5, 0.8, 1.3):
            before = inpt.clone()
            fast, reference = _fast_and_torch(F.adjust_contrast_image_tensor, inpt, factor)
            torch.testing.assert_close(fast, reference, rtol=0, atol=1)
            assert fast.is_contiguous() and fast.shape == inpt.shape
            torch.testing.assert_close(inpt, before, rtol=0, atol=0)
    pixels = image.reshape(-1, 3, 33, 29)[0].permute(1, 2, 0).contiguous().numpy()
    mean = _color._gray_mean(_base.cv2.mean(pixels))
    assert mean == pytest.approx(luma(image.reshape(-1, 3, 33, 29)[0]).mean().item(), abs=1e-4)


def test_numpy_contrast_table_equals_the_torch_tables() -> None:
    """The wing's numpy table (one image) against the torch path's ``_contrast_tables``: every entry equal,
    for random gray means and factors and the ends of both ranges, with torch's rounding of the blend
    (one or two roundings) found on probe values."""
    from visiontx.functional._color._adjust import _contrast_tables

    rng = np.random.default_rng(0)
    # factors within 0.5 of 1 (the rounded luma's) and beyond (the floored luma's: the same table function)
    cases = [(float(m), float(f)) for m, f in zip(rng.uniform(0, 255, 3000), rng.uniform(0.0, 3.0, 3000))]
    cases += [(m, f) for m in (0.0, 0.5, 127.5, 254.5, 255.0) for f in (0.5, 0.75, 1.0, 1.25, 1.5)]
    means = torch.tensor([m for m, _ in cases], dtype=torch.float32)
    for (mean, factor), expected_mean in zip(cases, means):
        expected = _contrast_tables(expected_mean.view(1, 1, 1), factor).reshape(256).numpy()
        actual = _color.contrast_table(mean, factor, _contrast_tables)
        np.testing.assert_array_equal(actual, expected, err_msg=f"{mean=}, {factor=}")
    # the probes that find torch's rounding tell one rounding from two, and one of them is this machine's
    for mean, factor in _color._ROUNDING_PROBES:
        assert not np.array_equal(_color._numpy_table(mean, factor, True), _color._numpy_table(mean, factor, False))
    assert _color._torch_rounding(_contrast_tables) in (True, False)

    def rounding_twice(means: torch.Tensor, factor: float) -> torch.Tensor:  # a machine without fused kernels
        return torch.from_numpy(_color._numpy_table(float(means.reshape(-1)[0]), factor, False)).view(1, 1, 256)

    def other_maths(means: torch.Tensor, factor: float) -> torch.Tensor:  # neither: the reference is used
        return torch.full((1, 1, 256), 7, dtype=torch.uint8)

    assert _color._torch_rounding(rounding_twice) is False
    assert np.array_equal(_color.contrast_table(100.3, 1.2, rounding_twice), _color._numpy_table(100.3, 1.2, False))
    assert _color._torch_rounding(other_maths) is None
    assert np.array_equal(_color.contrast_table(100.3, 1.2, other_maths), np.full(256, 7, dtype=np.uint8))


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_fast_hue_in_bands_matches_torch_path(dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch) -> None:
    import visiontx.functional as F

    monkeypatch.setattr(_color, "_BAND_PIXELS", 3 * 41)  # bands of 3 rows, the last one of 1
    image = make_image_tensor((31, 41), batch_dims=(2,), dtype=dtype)
    fast, reference = _fast_and_torch(F.adjust_hue_image_tensor, image, 0.3)
    atol = 1 if dtype == torch.uint8 else 1e-5
    torch.testing.assert_close(fast, reference, rtol=0, atol=atol)
    assert (fast.double() - reference.double()).abs().gt(atol / 2).float().mean() < 0.05


@needs_cv2
@pytest.mark.parametrize("band_pixels", [1, 45 * 37 * 2, 1 << 16])  # one plane, two, all six per call
def test_fast_sharpness_smoothing_is_exact(band_pixels: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """At factor 0 the output is the rounded smoothing itself: identical to the torch path."""
    import visiontx.functional as F

    monkeypatch.setattr(_color, "_BAND_PIXELS", band_pixels)
    image = make_image_tensor((37, 45), batch_dims=(2,))
    image[0, :, :9] = 255
    fast, reference = _fast_and_torch(F.adjust_sharpness_image_tensor, image, 0.0)
    torch.testing.assert_close(fast, reference, rtol=0, atol=0)


@needs_cv2
@pytest.mark.parametrize("size", [(1, 1), (1, 7), (30, 40), (257, 130)])
def test_elastic_source_points_equal_the_grids_value_for_value(size: tuple[int, int]) -> None:
    """The wing's elastic builds each axis's source points from the identity axes and the displacement's plane: the
    values of the interleaved grid ``identity + displacement`` turned into pixels, bit for bit, for a planar field
    (the transform's) and an interleaved one (a user's)."""
    from visiontx.functional._geometry._warp import _displaced_points, _identity_grid

    generator = torch.Generator().manual_seed(size[0])
    planar = (torch.randn(1, 2, *size, generator=generator) * 0.3).permute(0, 2, 3, 1)
    for displacement in (planar, planar.contiguous()):
        grid = _identity_grid(size, torch.float32, torch.device("cpu")).add_(displacement[0])
        # the unnormalisation in torch's steps, beside the points' numpy ones
        expected = [grid[..., i].add(1.0).mul_(extent / 2).sub_(0.5).numpy() for i, extent in enumerate(size[::-1])]
        for got, want in zip(_displaced_points(size, displacement[0]), expected):
            assert got.shape == want.shape and got.flags.c_contiguous
            np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
    assert torch.equal(displacement, planar)  # the field is read, never written


@needs_cv2
def test_fast_elastic_matches_torch_path() -> None:
    import visiontx.functional as F

    image = make_image_tensor((30, 40), batch_dims=(2,))
    displacement = torch.randn(1, 30, 40, 2, generator=torch.Generator().manual_seed(0)) * 0.05
    for fill in (None, [9.0, 99.0, 199.0]):
        fast, reference = _fast_and_torch(F.elastic_image_tensor, image, displacement, fill=fill)
        torch.testing.assert_close(fast, reference, rtol=0, atol=1)
    # float images: every pixel straddling the border is blended, also those within half a uint8 level
    for seed in range(6):  # seeds 4 and 5 have such pixels
        generator = torch.Generator().manual_seed(seed)
        image = torch.rand(3, 32, 32, generator=generator)
        displacement = torch.randn(1, 32, 32, 2, generator=generator) * 0.3
        fast, reference = _fast_and_torch(F.elastic_image_tensor, image, displacement, fill=[1.0])
        torch.testing.assert_close(fast, reference, rtol=0, atol=1e-5)


@needs_cv2
def test_lookup_tables_without_stringzilla(monkeypatch: pytest.MonkeyPatch) -> None:
    image = make_image_tensor((6, 5), batch_dims=(2,))
    table = torch.arange(256).mul(7).remainder(256).to(torch.uint8)
    with_default = _cv2.lut(image, table)
    monkeypatch.setattr(_color, "stringzilla", None)
    torch.testing.assert_close(_cv2.lut(image, table), with_default, rtol=0, atol=0)
    torch.testing.assert_close(_cv2.lut_planes(image, table.expand(6, 256)), with_default, rtol=0, atol=0)
    torch.testing.assert_close(with_default, table[image.long()], rtol=0, atol=0)


@needs_cv2
@pytest.mark.parametrize("channels", [1, 3])
def test_fast_jpeg_is_byte_identical_to_pillow(channels: int) -> None:
    import visiontx.functional as F

    image = make_image_tensor((33, 47), channels=channels, batch_dims=(2,))
    image = F.gaussian_blur_image_tensor(image, [5, 5])
    for quality in (10, 75, 95):
        fast, reference = _fast_and_torch(F.jpeg_image_tensor, image, quality)
        torch.testing.assert_close(fast, reference, rtol=0, atol=0)


@needs_cv2
@pytest.mark.parametrize("padding_mode", ["constant", "edge", "reflect", "symmetric"])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("size", [(1, 1), (2, 3), (9, 7)])
def test_fast_pad_matches_torch_path(padding_mode: str, dtype: torch.dtype, size: tuple[int, int], monkeypatch) -> None:
    """(Small constant pads of one fill value take torch's kernel: here the wing takes them too, to be checked.)"""
    import visiontx.functional as F
    from visiontx.functional._cv2 import _geometry

    monkeypatch.setattr(_geometry, "_TORCH_PAD_BYTES", 0)
    image = make_image_tensor(size, batch_dims=(2,), dtype=dtype)
    for padding, fill in (([1, 2, 3, 4], 7), ([5], [1, 2, 3]), ([0, 11], 0), ([3, 0, 0, 0], None)):
        fill = fill if padding_mode == "constant" else 0
        if dtype.is_floating_point and fill is not None:
            fill = [v / 255 for v in fill] if isinstance(fill, list) else fill / 255
        fast, reference = _fast_and_torch(F.pad_image_tensor, image, padding, fill=fill, padding_mode=padding_mode)
        torch.testing.assert_close(fast, reference, rtol=0, atol=0)
    if padding_mode != "constant":  # a fill the constant mode would refuse is ignored, as by torch's path
        fast, reference = _fast_and_torch(F.pad_image_tensor, image, [1], fill=[4, 5], padding_mode=padding_mode)
        torch.testing.assert_close(fast, reference, rtol=0, atol=0)


@needs_cv2
def test_small_constant_pads_of_one_fill_take_torchs_kernel(monkeypatch) -> None:
    """Below ``_TORCH_PAD_BYTES`` of output, a constant pad of one fill value never reaches the wing."""
    import visiontx.functional as F

    calls = []
    wing = _cv2.pad
    monkeypatch.setattr(_cv2, "pad", lambda *args: calls.append(args[1]) or wing(*args))
    small, large = make_image_tensor((32, 32)), make_image_tensor((300, 300))
    for image, fill, expected in [(small, 7, 0), (large, 7, 1), (large, [1, 2, 3], 1)]:
        out = F.pad(image, [4, 4], fill=fill)
        torch.testing.assert_close(out[:, 4:-4, 4:-4], image, rtol=0, atol=0)
        assert out[:, 0, 0].tolist() == ([fill] * 3 if isinstance(fill, int) else fill)
        assert len(calls) == expected, (image.shape, fill)
        calls.clear()


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_nearest_resize_equals_torch_for_every_size(dtype: torch.dtype) -> None:
    """OpenCV is used only where its source indices equal torch's: the results are identical."""
    import visiontx.functional as F

    image = make_image_tensor((24, 36), batch_dims=(2,), dtype=dtype)
    used = 0
    for size in [(1, 1), (23, 37), (48, 72), (11, 18), (34, 20), (123, 141), (5, 300), (68, 44)]:
        used += _geometry.can_resize_nearest(image, size)
        assert _cv2.can_resize(image, size, InterpolationMode.NEAREST, False) in ("nearest", "gather")
        for source in (image, image[..., 1:23, 2:35]):  # and a crop: a view
            fast, reference = _fast_and_torch(F.resize_image_tensor, source, list(size), interpolation="nearest")
            torch.testing.assert_close(fast, reference, rtol=0, atol=0)
    assert 0 < used < 8  # both paths ran: (34, 20) and (68, 44) disagree with OpenCV's indices (gathered)


@needs_cv2
def test_nearest_resize_gathers_by_torch_indices_where_opencv_differs() -> None:
    masks = (torch.rand(8, 200, 202, generator=torch.Generator().manual_seed(0)) > 0.5).to(torch.uint8)
    assert not _geometry._nearest_agrees(200, 374)
    assert _cv2.can_resize(masks, (374, 448), InterpolationMode.NEAREST, False) == "gather"
    expected = torch.nn.functional.interpolate(masks[None].float(), size=(374, 448), mode="nearest")[0]
    assert torch.equal(_geometry.resize_gather(masks, (374, 448)), expected.to(torch.uint8))
    rows, columns = torch.tensor([199, 3, 3]), torch.tensor([201, 0, 5, 5])
    assert torch.equal(_geometry.gather(masks, rows, columns), masks[..., [199, 3, 3], :][..., [201, 0, 5, 5]])


@needs_cv2
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize(
    ("channels", "batch_dims", "in_size", "size"),
    [
        (3, (), (264, 250), (29, 37)),
        (4, (2,), (30, 41), (257, 260)),
        (3, (2, 3), (256, 259), (16, 5)),
        (3, (), (257, 256), (1, 1)),
    ],
)
def test_interleaved_resize_is_identical_to_torch(mode, antialias, channels, batch_dims, in_size, size) -> None:
    """Down- and upscaling, batches, planar, cropped and interleaved inputs: torch's own values (bilinear
    resizes without a low-pass filter take OpenCV's INTER_LINEAR where the compiled kernel is not built:
    within 1 level, see below)."""
    import visiontx.functional as F

    image = make_image_tensor(in_size, channels=channels, batch_dims=batch_dims)
    assert _geometry.can_resize_interleaved(image, size, mode)
    assert not _geometry.can_resize_interleaved(image[..., :100, :100], (9, 9), mode)  # small: torch's own path
    linear = mode == "bilinear" and _geometry.can_resize_linear(image, size, antialias) and _cv2.native() is None
    for inpt in (image, image[..., 1:, 2:], interleaved_copy(image), interleaved_copy(image)[..., 1:, 2:]):
        before = inpt.clone()
        kwargs = dict(interpolation=mode, antialias=antialias)
        fast, reference = _fast_and_torch(F.resize_image_tensor, inpt, list(size), **kwargs)
        torch.testing.assert_close(fast, reference, rtol=0, atol=1 if linear else 0)
        assert fast.is_contiguous() and fast.shape == (*batch_dims, channels, *size)
        # the runner itself (the dispatcher prefers the compiled kernel for antialiased resizes where it is built)
        torch.testing.assert_close(_geometry.resize_interleaved(inpt, size, mode, antialias), reference, rtol=0, atol=0)
        torch.testing.assert_close(inpt, before, rtol=0, atol=0)


@needs_cv2
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize(
    ("channels", "batch_dims", "in_size", "size"),
    [
        (3, (), (256, 256), (128, 128)),  # a whole factor
        (3, (), (512, 384), (358, 269)),  # a fractional one
        (1, (2,), (40, 50), (60, 75)),  # upscaling (antialias changes nothing there)
        (4, (2, 3), (33, 47), (33, 20)),  # one side only
        (3, (), (300, 200), (1, 1)),
    ],
)
def test_linear_resize_is_within_one_level_of_torch(antialias, channels, batch_dims, in_size, size) -> None:
    """Bilinear without the low-pass filter (or without shrinking) through OpenCV's INTER_LINEAR: its
    fixed-point weights put up to ~35% of the uint8 pixels 1 level from torch's, never more; float32
    within 1e-4 (its float weights). The dispatcher takes it for float32, and for uint8 where the compiled
    kernel is not built (which has torch's values)."""
    import visiontx.functional as F

    image = make_image_tensor(in_size, channels=channels, batch_dims=batch_dims)
    shrinks = size[0] < in_size[0] or size[1] < in_size[1]
    linear = not (antialias and shrinks)
    assert _geometry.can_resize_linear(image, size, antialias) == linear
    for inpt in (image, image[..., 1:, 2:], interleaved_copy(image), image.float() / 255):
        before = inpt.clone()
        fast, reference = _fast_and_torch(F.resize_image_tensor, inpt, list(size), antialias=antialias)
        assert fast.dtype == inpt.dtype and fast.shape == reference.shape
        runs = [fast, _geometry.resize_linear(inpt, size)] if linear else [fast]
        for out in runs:
            difference = (out.double() - reference.double()).abs()
            if inpt.dtype == torch.uint8:
                assert difference.max() <= 1
                assert out.numel() < 100 or (difference > 0).double().mean() <= 0.4
            else:
                assert difference.max() <= 1e-4
        torch.testing.assert_close(inpt, before, rtol=0, atol=0)


@needs_cv2
@pytest.mark.parametrize(
    ("interpolation", "antialias", "atol"), [("nearest", False, 0), ("bilinear", False, 1), ("bilinear", True, 0)]
)
@pytest.mark.parametrize("shape", [(300, 260), (3, 300, 260), (2, 1, 3, 300, 260)])
def test_resize_hands_any_leading_dims_to_the_wing(interpolation, antialias, atol, shape) -> None:
    """The wing takes the image with its own leading dims (2-D images, 5-D batches): same shape and values
    as the torch kernel's flattened call."""
    import visiontx.functional as F

    image = make_image_tensor(shape[-2:], channels=1, batch_dims=()).reshape(shape[-2:]).expand(shape).contiguous()
    image[..., 5:9, :] = 17  # planes need not be equal: the first batch item differs from the others
    if len(shape) > 3:
        image[1] = 255 - image[1]
    # an antialiased 2-D plane has no channels to interleave: the compiled kernel takes it, else torch's own path
    taken = not (antialias and len(shape) == 2) or _cv2.native() is not None
    assert bool(_cv2.can_resize(image, (150, 113), _interpolation(interpolation), antialias)) == taken
    fast, reference = _fast_and_torch(F.resize_image_tensor, image, [150, 113], interpolation, antialias=antialias)
    assert fast.shape == reference.shape == (*shape[:-2], 150, 113)
    torch.testing.assert_close(fast, reference, rtol=0, atol=atol)


def _interpolation(name: str) -> Any:
    from visiontx.functional._interpolation import InterpolationMode

    return InterpolationMode.parse(name)


@needs_cv2
def test_linear_resize_gate() -> None:
    image = make_image_tensor((64, 64))
    assert _geometry.can_resize_linear(image, (32, 32), antialias=False)
    assert _geometry.can_resize_linear(image, (64, 128), antialias=True)  # nothing shrinks
    assert not _geometry.can_resize_linear(image, (32, 64), antialias=True)
    assert not _geometry.can_resize_linear(image.double(), (32, 32), antialias=False)
    assert not _geometry.can_resize_linear(image.to(torch.int16), (32, 32), antialias=False)
    assert not _geometry.can_resize_linear(image, (40000, 32), antialias=False)
    with _cv2.disabled():
        assert not _geometry.can_resize_linear(image, (32, 32), antialias=False)


@needs_cv2
def test_interleaved_resize_is_only_for_smooth_uint8_rgb_or_rgba() -> None:
    image, size = make_image_tensor((256, 256)), (8, 9)
    assert _geometry.can_resize_interleaved(image, size, "bicubic")
    assert not _geometry.can_resize_interleaved(image, size, "nearest")
    assert not _geometry.can_resize_interleaved(image.float(), size, "bilinear")
    assert not _geometry.can_resize_interleaved(image[:1], size, "bilinear")
    assert not _geometry.can_resize_interleaved(make_image_tensor((256, 256), channels=5), size, "bicubic")


@needs_cv2
@pytest.mark.parametrize(("channels", "batch_dims"), [(1, ()), (3, ()), (4, (2,)), (2, (2, 3))])
def test_planar_and_interleaved_layouts(channels: int, batch_dims: tuple[int, ...]) -> None:
    image = make_image_tensor((5, 7), channels=channels, batch_dims=batch_dims)
    pixels = image.movedim(-3, -1).contiguous()
    planar = _cv2.planar(pixels.numpy())
    assert planar.is_contiguous() and torch.equal(planar, image)
    for item in image.reshape(-1, channels, 5, 7):
        for inpt in (item, item[:, 1:, 2:], interleaved_copy(item), interleaved_copy(item)[:, 1:, 2:]):
            hwc = _cv2.interleaved(inpt)
            assert hwc.flags.c_contiguous and torch.equal(torch.from_numpy(hwc), inpt.movedim(0, -1))
    interleaved = interleaved_copy(image)
    for inpt, expected in ((interleaved, image), (interleaved[..., 1:4, 2:], image[..., 1:4, 2:])):
        assert _layout._is_interleaved(inpt) == (channels > 1)
        assert torch.equal(_cv2.contiguous(inpt), expected) and _cv2.contiguous(inpt).is_contiguous()
    assert not _layout._is_interleaved(interleaved.float()) and not _layout._is_interleaved(image[..., ::2])
    assert not _layout._is_interleaved(interleaved[..., ::2]) and not _layout._is_interleaved(image)


@needs_cv2
def test_nearest_index_check_spots_sizes_where_opencv_differs() -> None:
    disagreeing = [(i, o) for i in range(1, 60) for o in range(1, 200) if not _geometry._nearest_agrees(i, o)]
    assert (2, 82) in disagreeing  # float32 vs double rounding: torch picks another source pixel here
    for i, o in disagreeing[:50]:
        row = torch.arange(i, dtype=torch.uint8).view(1, 1, i)
        fast = _geometry.resize_nearest(row, (1, o)).view(-1)
        assert not torch.equal(fast, torch.nn.functional.interpolate(row.view(1, 1, 1, i), size=(1, o)).view(-1))


# ------------------------------------------- warps: planes interleaved in groups of three channels
PLANE_LAYOUTS = [(1, ()), (2, ()), (3, ()), (4, ()), (5, ()), (3, (2,)), (1, (4,)), (4, (2, 1))]


def _fills(channels: int, dtype: torch.dtype) -> list[float]:
    values = [40.0 * c + 7.0 for c in range(channels)]
    return [v / 255 for v in values] if dtype.is_floating_point else values


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize(("channels", "batch_dims"), PLANE_LAYOUTS)
def test_grouped_warps_equal_plane_by_plane(dtype: torch.dtype, channels: int, batch_dims: tuple) -> None:
    image = make_image_tensor((23, 30), channels=channels, batch_dims=batch_dims, dtype=dtype)
    fills = _fills(channels, dtype)
    affine = [[0.9, -0.35, 6.0], [0.3, 1.05, -4.0]]
    projective = [*affine, [0.004, -0.006, 1.0]]
    grid = torch.rand(21, 33, 2, generator=torch.Generator().manual_seed(1), dtype=torch.float32) * 2.4 - 1.2
    maps = tuple(_cv2.pixel_points(grid[..., i].numpy().copy(), extent) for i, extent in enumerate((30, 23)))
    runs = {
        "affine": lambda x, fill, c: _warp.warp_planes(x, affine, (21, 33), "bilinear", fill, c),
        "perspective": lambda x, fill, c: _warp.warp_planes(x, projective, (21, 33), "bilinear", fill, c),
        "warp with fill": lambda x, fill, c: _cv2.warp(x, projective, (21, 33), fill),
        "remap with fill": lambda x, fill, c: _cv2.remap(x, maps, fill),
    }
    planes = image.reshape(-1, *image.shape[-2:])
    for name, run in runs.items():
        out = run(image, fills, channels)
        expected = torch.stack([run(plane, [fills[i % channels]], 1) for i, plane in enumerate(planes)])
        assert out.shape == (*image.shape[:-2], 21, 33), name
        torch.testing.assert_close(out, expected.view(out.shape), rtol=0, atol=0, msg=name)


CORNERS, MOVED = [[0, 0], [40, 0], [40, 30], [0, 30]], [[4, 2], [37, 1], [40, 27], [2, 30]]
WARP_CASES = [
    ("rotate_image_tensor", dict(angle=23.0, interpolation=B)),
    ("rotate_image_tensor", dict(angle=-35.0, interpolation=B, expand=True, fill="per channel")),
    ("affine_image_tensor", dict(angle=12.0, translate=[4, -3], scale=0.8, shear=[6.0, -4.0], interpolation=B, fill=9)),
    ("perspective_image_tensor", dict(startpoints=CORNERS, endpoints=MOVED, interpolation=B, fill="per channel")),
    ("perspective_image_tensor", dict(startpoints=CORNERS, endpoints=MOVED, interpolation=B)),
    ("elastic_image_tensor", dict(fill="per channel")),
    ("elastic_image_tensor", dict()),
]


WARP_LAYOUTS = [(1, ()), (3, ()), (4, ()), (3, (2,)), (5, (2,))]  # (channels, batch dims)


def _warp_inputs(
    name: str, kwargs: dict, dtype: torch.dtype, channels: int, batch_dims: tuple
) -> tuple[torch.Tensor, dict]:
    """The image and the resolved kwargs of a warp case: per-channel fills, an elastic displacement."""
    image = make_image_tensor((31, 41), channels=channels, batch_dims=batch_dims, dtype=dtype)
    kwargs = dict(kwargs)
    if kwargs.get("fill") == "per channel":
        kwargs["fill"] = _fills(channels, dtype)
    if name == "elastic_image_tensor":
        kwargs["displacement"] = torch.randn(1, 31, 41, 2, generator=torch.Generator().manual_seed(0)) * 0.05
    return image, kwargs


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize(("channels", "batch_dims"), WARP_LAYOUTS)
@pytest.mark.parametrize(("name", "kwargs"), WARP_CASES, ids=_ids(WARP_CASES))
def test_fast_warps_match_torch_path_for_any_channels(name, kwargs, dtype, channels, batch_dims) -> None:
    import visiontx.functional as F

    image, kwargs = _warp_inputs(name, _case_kwargs(kwargs, dtype), dtype, channels, batch_dims)
    if isinstance(kwargs.get("fill"), (int, float)) and dtype.is_floating_point:
        kwargs["fill"] = kwargs["fill"] / 255
    fast, reference = _fast_and_torch(getattr(F, name), image, **kwargs)
    scale = 255 if dtype == torch.uint8 else 1
    diff = (fast.double() - reference.double()).abs() / scale
    assert fast.dtype == reference.dtype and fast.shape == reference.shape
    assert diff.max() <= 1.5 / 255  # OpenCV's fixed-point bilinear weights
    assert diff.gt(0.5 / 255).float().mean() < 0.05


NEAREST_CASES = [
    ("rotate_image_tensor", dict(angle=23.0)),
    ("rotate_image_tensor", dict(angle=-35.0, expand=True, fill="per channel")),
    ("rotate_image_tensor", dict(angle=90.0, fill=12.5)),  # a tie: both round half to even
    ("rotate_image_tensor", dict(angle=31.0, fill=1e10)),  # beyond int range: saturated on both paths
    ("affine_image_tensor", dict(angle=-8.0, translate=[3, 5], scale=1.2, shear=[0.0, 0.0], fill=-1e12)),
    ("affine_image_tensor", dict(angle=12.0, translate=[4, -3], scale=0.8, shear=[6.0, -4.0], fill=300.0)),
    ("affine_image_tensor", dict(angle=0.0, translate=[7, 0], scale=1.0, shear=[0.0, 0.0])),  # whole pixels
    ("perspective_image_tensor", dict(startpoints=CORNERS, endpoints=MOVED, fill="per channel")),
    ("elastic_image_tensor", dict(fill=-4.0)),
]


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize(("channels", "batch_dims"), WARP_LAYOUTS)
@pytest.mark.parametrize(("name", "kwargs"), NEAREST_CASES, ids=_ids(NEAREST_CASES))
def test_fast_nearest_warps_equal_the_torch_path(name, kwargs, dtype, channels, batch_dims) -> None:
    """Nearest sampling through OpenCV's remap at the torch path's rounded source pixels: identical."""
    import visiontx.functional as F

    kwargs = {**kwargs, "interpolation": F.InterpolationMode.NEAREST}
    image, kwargs = _warp_inputs(name, kwargs, dtype, channels, batch_dims)
    fast, reference = _fast_and_torch(getattr(F, name), image, **kwargs)
    assert fast.dtype == reference.dtype
    torch.testing.assert_close(fast, reference, rtol=0, atol=0)


def _random_inverse(rng: torch.Generator, kind: str) -> list[list[float]]:
    """An output -> input map of the given kind (see the test below), 3 x 3."""
    def uniform(low: float, high: float) -> float:
        return float(torch.empty(()).uniform_(low, high, generator=rng))

    if kind == "rotation":
        angle, scale = uniform(-math.pi, math.pi), uniform(0.4, 2.5)
        return [[scale * math.cos(angle), -scale * math.sin(angle), uniform(-30, 30)],
                [scale * math.sin(angle), scale * math.cos(angle), uniform(-30, 30)], [0.0, 0.0, 1.0]]
    if kind == "ties":  # half-pixel shifts and halvings: every source point a tie
        bounds = [(1, 3), (-9, 9), (0, 40)]
        scale, shift_x, shift_y = (float(torch.randint(low, high, (), generator=rng)) for low, high in bounds)
        return [[scale / 2, 0.0, shift_x / 2], [0.0, -1.0, shift_y / 2], [0.0, 0.0, 1.0]]
    if kind == "horizon":  # the line where the last row's value is 0 crosses the output: 0 / 0 and infinities
        return [[1.0, 0.2, 0.0], [0.1, 1.0, 0.0], [uniform(-0.1, -0.02), uniform(-0.05, 0.05), 1.0]]
    if kind == "huge":  # source points beyond int16 and float32 overflow
        return [[uniform(1e3, 1e5), 0.0, 0.0], [0.0, 1e38, 0.0], [0.0, 0.0, 1.0]]
    values = torch.randn(3, 3, generator=rng, dtype=torch.float64)
    values[2] = values[2] * 0.01 + torch.tensor([0.0, 0.0, 1.0], dtype=torch.float64)
    return values.tolist()


@needs_cv2
@pytest.mark.parametrize("kind", ["rotation", "ties", "horizon", "huge", "projective"])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_nearest_matrix_warps_equal_the_torch_path_for_random_maps(
    kind: str, dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``warp_nearest`` computes the torch path's source points in numpy: identical pixels for any map,
    sizes, layout and fill, ties and points that are not finite included."""
    from visiontx.functional._geometry._description import Geometry
    from visiontx.functional._geometry._generic import warp_image_tensor
    from visiontx.functional._geometry._matrix import invert

    calls = []
    monkeypatch.setattr(_cv2, "warp_nearest", lambda *args: calls.append(1) or _warp.warp_nearest(*args))
    rng = torch.Generator().manual_seed(7)
    for trial in range(12):
        height, width = (int(v) for v in torch.randint(1, 90, (2,), generator=rng))
        out_size = tuple(int(v) for v in torch.randint(1, 90, (2,), generator=rng))
        channels, batch_dims = [(0, ()), (1, ()), (3, ()), (4, (2,))][trial % 4]  # 0: a mask [H, W]
        if channels:
            image = make_image_tensor((height, width), channels=channels, batch_dims=batch_dims, dtype=dtype)
        else:
            image = torch.randint(0, 9, (height, width), generator=rng).to(dtype)
        fill = [None, 7.0, [1.0, 2.0, 3.0, 4.0][:channels] or None][trial % 3]
        inverse = _random_inverse(rng, kind)
        geometry = Geometry(invert(inverse), out_size)
        taken = len(calls)
        fast, reference = _fast_and_torch(warp_image_tensor, image, geometry, "nearest", fill)
        assert len(calls) == taken + 1 and fast.shape == reference.shape  # the fast path ran, once
        assert torch.equal(fast, reference), (kind, trial, inverse)


@needs_cv2
def test_fast_nearest_warp_of_a_mask_keeps_its_labels() -> None:
    import visiontx.functional as F
    from visiontx.datapoints import Mask

    mask = Mask(torch.randint(0, 7, (2, 31, 41), generator=torch.Generator().manual_seed(0), dtype=torch.uint8))
    fast, reference = _fast_and_torch(F.rotate, mask, 31.0, fill=5)
    assert type(fast) is Mask and torch.equal(fast, reference)
    assert set(fast.unique().tolist()) <= set(range(7))


# ------------------------------------------------------------------ per-call shortcuts (no OpenCV)
def test_lone_leaf_shortcut_matches_the_flattened_sample_path() -> None:
    import visiontx.transforms as T
    from visiontx.datapoints import BoundingBox, Image, Mask

    class Recorder(T.Transform):
        _transformed_types = (Image, Mask)

        def __init__(self) -> None:
            super().__init__()
            self.seen: list[int] = []

        def make_params(self, flat_inputs: list) -> dict:
            self.seen.append(len(flat_inputs))
            return {}

        def transform(self, inpt, params: dict):
            return ("done", inpt)

    t = Recorder()
    image, mask = Image(make_image_tensor((4, 5))), Mask(torch.zeros(4, 5, dtype=torch.uint8))
    boxes = BoundingBox(torch.zeros(1, 4), format="XYXY", spatial_size=(4, 5))
    for leaf, transformed in ((image, True), (mask, True), (boxes, False), (make_image_tensor((4, 5)), False)):
        alone, in_list = t(leaf), t([leaf])[0]
        assert (alone[0] == "done") is transformed and (in_list[0] == "done") is transformed
        if not transformed:
            assert alone is leaf and in_list is leaf
    assert t.seen == [1, 1, 1, 1, 0, 0, 0, 0]
    plain = make_image_tensor((4, 5))
    assert T.Lambda(lambda x: "lambda", Image)(plain) is plain  # an overridden leaf filter still applies
    assert T.RandomHorizontalFlip(p=1.0)(plain).shape == plain.shape  # a lone plain tensor is the image


@pytest.mark.parametrize("batch_dims", [(), (2,)])
def test_crop_inside_the_image_is_a_view_and_matches_the_padded_crop(batch_dims: tuple) -> None:
    import visiontx.functional as F

    image = make_image_tensor((6, 7), batch_dims=batch_dims)
    padded = nnf.pad(image, [9, 9, 9, 9])
    for top in (-2, -1, 0, 1, 3, 5, 6):
        for left in (-1, 0, 2, 6, 7):
            for height, width in ((1, 1), (3, 4), (6, 7), (0, 2), (8, 9)):
                out = F.crop_image_tensor(image, top, left, height, width)
                expected = padded[..., top + 9 : top + 9 + height, left + 9 : left + 9 + width]
                torch.testing.assert_close(out, expected, rtol=0, atol=0)
                inside = top >= 0 and left >= 0 and top + height <= 6 and left + width <= 7
                assert (out.data_ptr() == image[..., top:, left:].data_ptr()) or not inside or out.numel() == 0
    with pytest.raises(ValueError, match="non-negative"):
        F.crop_image_tensor(image, 0, 0, -1, 3)
    assert F.center_crop_image_tensor(image, (4, 3)).shape[-2:] == (4, 3)
    with pytest.raises(ValueError, match="non-negative"):
        F.center_crop_image_tensor(image, (4, -3))
    with pytest.raises(TypeError):
        F.center_crop_image_tensor(image, (4, True))


def test_random_erasing_fixed_value_as_f_erase_converts_it_also_when_replayed() -> None:
    import visiontx.functional as F
    import visiontx.transforms as T

    value = [0.6, 100.4, 300.0]
    t = T.RandomErasing(p=1.0, scale=(0.3, 0.3), ratio=(1.0, 1.0), value=value)
    for dtype in (torch.uint8, torch.float32, torch.uint8, torch.float64, torch.int32):
        image = make_image_tensor((20, 20), batch_dims=(2,), dtype=dtype)
        torch.manual_seed(0)
        out = t(image)
        torch.manual_seed(0)
        torch.rand(1)  # the coin flip of p
        params = T.RandomErasing(scale=(0.3, 0.3), ratio=(1.0, 1.0)).make_params([image])
        region = params["i"], params["j"], params["h"], params["w"]
        expected = F.erase(image, *region, torch.tensor(value)[:, None, None])
        torch.testing.assert_close(out, expected, rtol=0, atol=0)
        assert not torch.equal(out, image)
        recorded, record = t.record(image)
        torch.testing.assert_close(t.replay(image, record=record), recorded, rtol=0, atol=0)  # a new value tensor
    assert t._fixed_value(torch.uint8, torch.device("cpu")) is t._fixed_value(torch.uint8, torch.device("cpu"))
    fresh = T.RandomErasing(p=1.0, value=value)
    assert "_fixed_as" not in fresh.__dict__  # made on first use: transforms pickled before it existed work
    assert not torch.equal(fresh(make_image_tensor((20, 20))), make_image_tensor((20, 20)))


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_fast_warps_with_fill_match_the_torch_path_under_random_maps(dtype: torch.dtype) -> None:
    """The border blend finds its pixels from the sampled alpha plane: under random rotations, scales,
    shears, translations (some axis-aligned) and perspectives (some far from the image), every pixel stays
    within a level of the torch path, and uint8 ones at the border within rounding of the float64 warp
    (the blend of OpenCV's rounded border values was up to 0.87 level off it)."""
    import numpy as np

    import visiontx.functional as F

    rng = np.random.default_rng(0)
    B = F.InterpolationMode.BILINEAR
    for trial in range(60):
        height, width = (int(n) for n in rng.integers(2, 40, 2))
        image = make_image_tensor((height, width), channels=3, dtype=dtype)
        fill = _fills(3, dtype)
        if trial % 3 == 2:
            corners = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
            moved = [[x + rng.uniform(-0.6, 0.6) * width, y + rng.uniform(-0.6, 0.6) * height] for x, y in corners]
            warp = functools.partial(F.perspective_image_tensor, startpoints=corners, endpoints=moved,
                                     interpolation=B, fill=fill)
        else:
            angle = 0.0 if trial % 3 == 1 else float(rng.uniform(-180, 180))
            translate = [int(n) for n in rng.integers(-10, 10, 2)]
            scale, shear = float(rng.uniform(0.4, 2.5)), [float(a) for a in rng.uniform(-20, 20, 2)]
            warp = functools.partial(F.affine_image_tensor, angle=angle, translate=translate, scale=scale,
                                     shear=shear if trial % 3 == 0 else [0.0, 0.0], interpolation=B, fill=fill)
        fast, reference = _fast_and_torch(warp, image)
        scale = 255 if dtype == torch.uint8 else 1
        assert ((fast.double() - reference.double()).abs() / scale).max() <= 1 / 255, trial
        if dtype == torch.uint8:  # the border (the footprint straddling the edge)
            with _cv2.disabled():
                exact = warp(image.double())
                share = warp(torch.ones(1, height, width, dtype=torch.float64), fill=[0.0])[0]
            border = (share > 1e-9) & (share < 1 - 1e-9)
            off = (fast.double() - exact).abs()[:, border]  # within rounding of the float64 warp
            assert off.numel() == 0 or float(off.max()) <= 0.5 + 1e-6, trial


@needs_cv2
def test_uint8_perspective_border_is_within_rounding_of_the_float64_warp() -> None:
    """Perspective warps find the border pixels whose quantised alpha reads 0 or 255 from the map, row by row:
    every pixel whose footprint straddles the edge is within 0.5 of the float64 warp (up to 0.78 before)."""
    import numpy as np

    import visiontx.functional as F

    rng = np.random.default_rng(0)
    for trial in range(150):
        height, width = (int(n) for n in rng.integers(2, 60, 2))
        image = make_image_tensor((height, width), channels=3)
        fill = [float(v) for v in rng.integers(0, 256, 3)]
        corners = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        moved = [[x + rng.uniform(-0.6, 0.6) * width, y + rng.uniform(-0.6, 0.6) * height] for x, y in corners]
        warp = functools.partial(F.perspective_image_tensor, startpoints=corners, endpoints=moved,
                                 interpolation=F.InterpolationMode.BILINEAR, fill=fill)
        fast = warp(image)
        with _cv2.disabled():
            exact = warp(image.double())
            share = warp(torch.ones(1, height, width, dtype=torch.float64), fill=[0.0])[0]
        border = (share > 1e-9) & (share < 1 - 1e-9)
        off = (fast.double() - exact).abs()[:, border]
        assert off.numel() == 0 or float(off.max()) <= 0.5 + 1e-6, trial


@needs_cv2
def test_bilinear_warps_take_opencv_from_version_5_only(monkeypatch) -> None:
    import visiontx.functional as F
    from visiontx.functional._cv2 import _warp

    image = torch.zeros(3, 8, 8, dtype=torch.uint8)
    assert _cv2.can_warp(image, F.InterpolationMode.BILINEAR, [0.0]) == _warp._PRECISE_BILINEAR
    monkeypatch.setattr(_warp, "_PRECISE_BILINEAR", False)  # as under OpenCV 4 (source points snapped to 1/32)
    assert not _cv2.can_warp(image, F.InterpolationMode.BILINEAR, [0.0])


@needs_cv2
@pytest.mark.parametrize("fill", [300.0, -40.0, [10.0, 400.0, 20.0]])
def test_uint8_bilinear_warps_with_fills_out_of_range_equal_the_torch_path(fill: Any) -> None:
    """OpenCV saturates its border sums: uint8 fills outside 0..255 take the torch path (clamped there)."""
    import visiontx.functional as F

    image = torch.full((3, 20, 24), 255, dtype=torch.uint8)
    B = F.InterpolationMode.BILINEAR
    fills = fill if isinstance(fill, list) else [fill]
    assert not _cv2.can_warp(image, B, fills)
    for op, kwargs in (
        (F.rotate, dict(angle=17.0)),
        (F.elastic, dict(displacement=torch.full((1, 20, 24, 2), 0.05))),
    ):
        fast, reference = _fast_and_torch(op, image, interpolation=B, fill=fill, **kwargs)
        torch.testing.assert_close(fast, reference, rtol=0, atol=0)


def test_compose_equals_the_summed_matrix_product_bit_for_bit() -> None:
    import random

    from visiontx.functional._geometry._matrix import compose

    def reference(*matrices: list) -> list:
        result = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        for m in matrices:
            result = [[sum(result[i][k] * m[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        return result

    rng = random.Random(0)
    values = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-300]
    for _ in range(2000):
        entries = [*values, rng.uniform(-5, 5), rng.uniform(-5, 5)]
        matrices = [[[rng.choice(entries) for _ in range(3)] for _ in range(3)] for _ in range(rng.randint(0, 5))]
        expected, out = reference(*matrices), compose(*matrices)
        signed = [[(v, math.copysign(1, v)) for v in row] for row in out]
        assert signed == [[(v, math.copysign(1, v)) for v in row] for row in expected]


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize(("channels", "batch_dims"), [(1, ()), (3, ()), (4, (2,)), (3, (2, 2))])
def test_fast_erase_matches_torch_path(dtype: torch.dtype, channels: int, batch_dims: tuple) -> None:
    import visiontx.functional as F

    image = make_image_tensor((9, 11), channels=channels, batch_dims=batch_dims, dtype=dtype)
    per_channel = torch.tensor(_fills(channels, dtype))[:, None, None]
    one_value = torch.full((1,) * (len(batch_dims) + 5), 3.0)  # more dims than the region, all 1: any region
    values = [torch.rand(channels, 4, 5) * 300, per_channel, 7.6, torch.tensor(2), one_value]
    regions = [(1, 2, 4, 5), (0, 0, 9, 11), (6, 8, 4, 5), (3, 3, 0, 2), (2, 1, 3, 4)]
    for (i, j, h, w), v in zip(regions, values):
        before = image.clone()
        fast, reference = _fast_and_torch(F.erase_image_tensor, image, i, j, h, w, v)
        torch.testing.assert_close(fast, reference, rtol=0, atol=0)
        torch.testing.assert_close(image, before, rtol=0, atol=0)
        assert fast.data_ptr() != image.data_ptr() and fast.stride() == reference.stride()
    strided = image.transpose(-1, -2)  # not contiguous: torch's clone keeps its strides
    assert F.erase_image_tensor(strided, 1, 1, 2, 2, 0.0).stride() == strided.clone().stride()
    with pytest.raises(ValueError, match="does not fit"):  # a value that does not broadcast, on both paths
        F.erase_image_tensor(image, 1, 2, 4, 5, torch.zeros(channels, 3, 3))


def _layout_transforms() -> tuple[list[Callable], list[Callable]]:
    """The image transforms checked on every memory layout: those also run on masks, and the others."""
    import visiontx.transforms as T
    from visiontx import datapoints as D

    bilinear = T.InterpolationMode.BILINEAR
    geometry = [
        T.Resize(224, antialias=True), T.CenterCrop(224), T.RandomCrop(224), T.RandomResizedCrop(224, antialias=True),
        T.Pad(32, fill=0), T.RandomZoomOut(fill={D.Image: (124, 116, 104), "others": 0}, side_range=(1.0, 2.0), p=1.0),
        T.RandomRotation(30, interpolation=bilinear),
        T.RandomAffine(30, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=10, interpolation=bilinear),
        T.RandomPerspective(0.3, p=1.0, interpolation=bilinear),
        T.ElasticTransform(alpha=50.0, sigma=5.0, interpolation=bilinear),
        T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=1.0), T.ScaleJitter((512, 512), antialias=True),
        T.RandomShortestSize([224, 256, 288], antialias=True), T.RandomResize(200, 400, antialias=True),
    ]
    images_only = [
        T.FiveCrop(224), T.TenCrop(224),  # these refuse masks
        T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.Grayscale(3), T.RandomGrayscale(p=1.0), T.RGB(),
        T.RandomChannelPermutation(), T.RandomPhotometricDistort(p=1.0), T.RandomEqualize(p=1.0),
        T.RandomInvert(p=1.0), T.RandomPosterize(4, p=1.0), T.RandomSolarize(128, p=1.0),
        T.RandomAutocontrast(p=1.0), T.RandomAdjustSharpness(2.0, p=1.0),
        T.GaussianBlur(9, sigma=(0.1, 2.0)), T.RandomErasing(p=1.0), T.JPEG(75),
        T.AutoAugment(), T.RandAugment(), T.TrivialAugmentWide(), T.AugMix(),
    ]
    return geometry, images_only


def test_every_image_transform_treats_crops_and_interleaved_images_like_planar_ones() -> None:
    """PIL- and numpy-made images are interleaved in memory, crops keep their parent's row stride:
    every image transform of ``_layout_transforms`` gives them, under one seed, exactly the contiguous
    planar copy's result; so do the geometry transforms for a crop of masks."""
    from visiontx import datapoints as D

    planar = make_image_tensor((240, 250))
    parent = make_image_tensor((250, 270), seed=7)
    crop = parent[:, 6:246, 9:259]
    layouts = [interleaved_copy(planar), crop, interleaved_copy(parent)[:, 6:246, 9:259]]
    masks = (make_image_tensor((250, 270), channels=4, seed=8) > 128).to(torch.uint8)[:, 6:246, 9:259]
    geometry, images_only = _layout_transforms()
    for transform in geometry + images_only:
        name = type(transform).__name__
        for image, reference in zip(layouts, [planar, crop.contiguous(), crop.contiguous()]):
            _assert_same_outputs(transform, D.Image(image), D.Image(reference), name)
        if transform in geometry:
            _assert_same_outputs(transform, D.Mask(masks), D.Mask(masks.contiguous()), name)


def _assert_same_outputs(transform: Callable, inpt: Any, reference: Any, name: str) -> None:
    outputs = []
    for sample in (inpt, reference):
        torch.manual_seed(1)
        output = transform(sample)
        outputs.append(list(output) if isinstance(output, (list, tuple)) else [output])
    assert all(torch.equal(a, b) for a, b in zip(*outputs)), name


# ------------------------------------------------------------- colour adjustments in one pass
JITTER_STEPS = [
    [("brightness", 1.3), ("contrast", 0.7), ("saturation", 1.2), ("hue", -0.08)],
    [("hue", 0.3), ("saturation", 0.6), ("brightness", 0.8), ("contrast", 1.45)],
    [("contrast", 1.9), ("saturation", 0.2), ("contrast", 0.0), ("hue", 0.5)],  # floored-luma factors
    [("saturation", 2.6), ("brightness", 0.0)],
]


@needs_cv2
@pytest.mark.parametrize("steps", JITTER_STEPS, ids=lambda steps: "-".join(name for name, _ in steps))
@pytest.mark.parametrize("batch_dims", [(), (2,)])
@pytest.mark.parametrize("layout", ["planar", "interleaved"])
def test_adjust_colors_equals_the_ops_one_by_one(steps: list, batch_dims: tuple, layout: str) -> None:
    import visiontx.functional as F
    from visiontx.functional._color._jitter import adjust_colors

    image = make_image_tensor((29, 37), batch_dims=batch_dims, seed=len(steps))
    image = interleaved_copy(image) if layout == "interleaved" else image
    before = image.clone()
    expected = image
    for name, factor in steps:
        expected = getattr(F, f"adjust_{name}")(expected, factor)
    output = adjust_colors(image, steps=steps)
    torch.testing.assert_close(output, expected, rtol=0, atol=0)
    torch.testing.assert_close(image, before, rtol=0, atol=0)
    assert output.is_contiguous() and output.shape == image.shape


def test_scratch_slots_do_not_overlap_and_are_reused() -> None:
    import numpy as np

    work = _layout.scratch([((6, 7), np.float32), ((5,), np.uint8)])
    pixels = _layout.scratch([((6, 7, 3), np.uint8)], slot="pixels")[0]
    assert not any(np.shares_memory(pixels, array) for array in work)
    assert not np.shares_memory(*work)
    assert [a.shape for a in work] == [(6, 7), (5,)] and work[0].dtype == np.float32
    assert np.shares_memory(_layout.scratch([((6, 7), np.float32)])[0], work[0])  # the same buffer next call


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_hue_bands_give_the_whole_image_result(dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch) -> None:
    import visiontx.functional as F

    image = make_image_tensor((37, 29), batch_dims=(2,), dtype=dtype)
    whole = F.adjust_hue(image, hue_factor=0.27)
    monkeypatch.setattr(_color, "_HUE_BAND_PIXELS", 29 * 5)  # bands of 5 rows, the last one of 2
    torch.testing.assert_close(F.adjust_hue(image, hue_factor=0.27), whole, rtol=0, atol=0)


# ------------------------------------------------------------------------------------------ JPEG decoding
def _jpeg(size: tuple[int, int] = (37, 53), mode: str = "RGB", **options: Any) -> bytes:
    import io

    import numpy as np
    import PIL.Image

    array = np.random.default_rng(0).integers(0, 256, (*size, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    PIL.Image.fromarray(array).convert(mode).save(buffer, format="JPEG", **options)
    return buffer.getvalue()


@needs_cv2
@pytest.mark.parametrize(
    "options",
    [dict(quality=90), dict(quality=75, subsampling=0), dict(quality=95, subsampling=1), dict(progressive=True),
     dict(quality=60, optimize=True)],
)
def test_opencv_jpeg_decoding_equals_pillows(options: dict) -> None:
    """Every chroma subsampling, progressive and optimised files: exactly Pillow's pixels."""
    from visiontx.io import decode_image

    data = _jpeg(**options)
    assert _cv2.can_decode_jpeg(data, rgb=True, apply_exif_orientation=False)
    fast = decode_image(data)
    with _cv2.disabled():
        reference = decode_image(data)
    torch.testing.assert_close(fast, reference, rtol=0, atol=0)
    assert fast.shape == (3, 37, 53) and fast.is_contiguous()
    torch.testing.assert_close(decode_image(data, mode="RGB"), reference, rtol=0, atol=0)


@needs_cv2
def test_opencv_jpeg_decoding_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    import PIL.Image

    from visiontx.functional._cv2 import _decode

    data = _jpeg()
    assert _cv2.can_decode_jpeg(data + b"\x00\x00", True, False)  # trailing padding
    assert not _cv2.can_decode_jpeg(data, rgb=False, apply_exif_orientation=False)  # gray / alpha modes
    assert not _cv2.can_decode_jpeg(data, rgb=True, apply_exif_orientation=True)
    assert not _cv2.can_decode_jpeg(data[:-40], True, False)  # truncated: Pillow refuses it
    assert not _cv2.can_decode_jpeg(_jpeg(mode="L"), True, False)  # one component
    assert not _cv2.can_decode_jpeg(_jpeg(mode="CMYK"), True, False)  # four
    assert not _cv2.can_decode_jpeg(b"\x89PNG\r\n\x1a\n", True, False) and not _cv2.can_decode_jpeg(b"", True, False)
    assert _decode._frame(data) == (3, 37, 53) and _cv2.jpeg_size(data) == (37, 53)
    monkeypatch.setattr(PIL.Image, "MAX_IMAGE_PIXELS", 37 * 53 - 1)  # larger than Pillow's limit: Pillow's path
    assert not _cv2.can_decode_jpeg(data, True, False)
    with _cv2.disabled():
        assert not _cv2.can_decode_jpeg(data, True, False)


@needs_cv2
@pytest.mark.parametrize("fill", [None, 0, 1.0, [1.0], 0.5])
def test_bool_masks_sample_as_bytes_with_the_values_of_the_bool_path(
    fill: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nearest warps of bool masks (affine, rotate, perspective, elastic) run on their bytes viewed as uint8 where
    the fill is 0 or 1 (the OpenCV paths), with the bool path's values and dtype; other fills keep the bool path."""
    import visiontx.functional as F
    from visiontx import datapoints as D
    from visiontx.functional._geometry import _generic, _grid
    from visiontx.functional._geometry import _warp as geometry_warp

    rng = np.random.default_rng(0)
    views = []
    as_bytes = _grid.samples_as_bytes

    def spy(image: torch.Tensor, *args: Any) -> bool:
        taken = as_bytes(image, *args)
        views.append(taken)
        return taken

    for trial in range(12):
        planes, height, width = int(rng.integers(1, 10)), int(rng.integers(2, 30)), int(rng.integers(2, 30))
        masks = torch.from_numpy(rng.integers(0, 2, (planes, height, width)).astype(bool))
        if trial % 3 == 0:
            masks = masks[:, 1:, ::2]
        mask, (h, w) = D.Mask(masks), masks.shape[-2:]
        corners = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        moved = [[x + float(rng.uniform(-3, 3)), y + float(rng.uniform(-3, 3))] for x, y in corners]
        displacement = torch.from_numpy(rng.normal(0, 0.2, (1, h, w, 2)).astype(np.float32))
        affine = dict(angle=float(rng.uniform(-180, 180)), translate=[1.0, 2.0], scale=float(rng.uniform(0.5, 2)),
                      shear=[2.0, 0.0], fill=fill)

        def run() -> list[torch.Tensor]:
            return [F.affine(mask, **affine), F.rotate(mask, 33.0, fill=fill),
                    F.perspective(mask, corners, moved, fill=fill), F.elastic(mask, displacement, fill=fill)]

        modules = (_generic, geometry_warp)
        fast = run_patched(monkeypatch, modules, "samples_as_bytes", spy, run)
        reference = run_patched(monkeypatch, modules, "samples_as_bytes", lambda *args: False, run)
        for got, expected in zip(fast, reference):
            assert got.dtype == expected.dtype == torch.bool
            assert torch.equal(got, expected)
    assert any(views) == (fill != 0.5)  # a fill of 0.5 keeps the bool path


@needs_cv2
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize(
    "op",
    [
        lambda x: F.rotate(x, 30.0, interpolation=InterpolationMode.BILINEAR),
        lambda x: F.rotate(x, 270.0),
        lambda x: F.affine(x, angle=10.0, translate=[0, 0], scale=1.2, shear=[0.0, 0.0], interpolation="bilinear"),
        lambda x: F.elastic(x, torch.zeros(1, 17, 1, 2), interpolation=InterpolationMode.NEAREST),
        lambda x: F.resize(x, [34, 2], interpolation=InterpolationMode.NEAREST),
        lambda x: F.resize(x, [34, 2], antialias=False),
        lambda x: F.adjust_contrast(x, 0.7),
    ],
    ids=["rotate-bilinear", "rotate-270", "affine", "elastic", "resize-nearest", "resize-bilinear", "contrast"],
)
def test_expanded_images_read_as_torch_reads_them(
    op: Callable[[torch.Tensor], torch.Tensor], dtype: torch.dtype
) -> None:
    """A batch of 1-pixel-wide images expanded down their rows (row stride 0): OpenCV took such planes' rows as
    consecutive bytes, past the tensor's memory (up to 251 levels off). They take the torch path now."""
    torch.manual_seed(0)
    small = make_image_tensor((1, 1), dtype=dtype, batch_dims=(2,))
    image = small.expand(2, 3, 17, 1)
    assert image.stride(-2) == 0 and not _base.can_use(image)
    with _cv2.disabled():
        expected = op(image.contiguous())
    torch.testing.assert_close(op(image), expected, rtol=0, atol=0)


@needs_cv2
def test_expanded_rows_of_any_width_are_refused_by_the_gate() -> None:
    rows = torch.rand(3, 1, 5).expand(3, 4, 5)
    assert not _base.can_use(rows)
    assert _base.can_use(rows.contiguous()) and _base.can_use(torch.rand(3, 4, 5)[:, :, ::2])
    assert _base.can_use(torch.rand(3, 4, 1).expand(3, 4, 1))  # stride 0 on a dim of one: nothing repeated


@needs_cv2
def test_overlapping_rows_take_the_torch_path() -> None:
    """An ``unfold``'s rows overlap (row stride 2, rows 16 wide): OpenCV misread them as it did repeated ones."""
    rows = make_image_tensor((1, 60)).view(3, 60).unfold(1, 16, 2)
    assert rows.stride() == (60, 2, 1) and not _base.can_use(rows)
    for op in (lambda x: F.rotate(x, 30.0, interpolation="bilinear"), lambda x: F.adjust_saturation(x, 0.4),
               lambda x: F.resize(x, [34, 22], interpolation="nearest")):
        with _cv2.disabled():
            expected = op(rows.contiguous())
        torch.testing.assert_close(op(rows), expected, rtol=0, atol=0)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_nearest_sources_stay_whole_past_2_to_24(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """Above 2^24 float32 positions round (the last of 2^24 + 4 to the length itself: one past the last pixel), so
    the positions go as two exact parts. The split, taken here from 0 on, picks torch's indices."""
    from visiontx.functional import _interpolation

    # the split starts where whole numbers stop being float32 exactly
    threshold = _interpolation._EXACT_FLOAT32
    assert float(np.float32(threshold - 1)) == threshold - 1 and float(np.float32(threshold)) != threshold
    cases = [(37, 100), (100, 37), (4097, 9000), (9000, 4097), (12289, 12289)]
    expected = [_interpolation.nearest_source(n, m, mode).tolist() for n, m in cases]
    monkeypatch.setattr(_interpolation, "_EXACT_FLOAT32", 0)
    assert [_interpolation.nearest_source(n, m, mode).tolist() for n, m in cases] == expected


@needs_cv2
@pytest.mark.parametrize("dtype, channels", [(torch.float32, 3), (torch.uint8, 5)])
def test_height_only_resize_of_one_pixel_wide_images_is_bilinear(dtype: torch.dtype, channels: int) -> None:
    """The fast path gives bilinear values; torch's kernel (the torch path) repeats the first row there (README)."""
    image = make_image_tensor((14, 1), channels=channels, dtype=dtype)
    fast, torch_path = _fast_and_torch(F.resize, image, [28, 1])
    bilinear = nnf.interpolate(image[None].double(), size=(28, 1), mode="bilinear", align_corners=False)[0]
    expected, tolerance = (bilinear, 1e-6) if dtype.is_floating_point else (bilinear.round(), 1.0)
    torch.testing.assert_close(fast.double(), expected, rtol=0, atol=tolerance)
    assert torch.equal(torch_path, image[:, :1].expand_as(torch_path))  # torch's: the first row, repeated
