"""The compiled kernel (``visiontx/_native.c``): torch's antialiased uint8 resize, value for value."""

from __future__ import annotations

import platform
import threading

import numpy as np
import pytest
import torch
import torch.nn.functional as nnf

from visiontx.functional import _cv2
from visiontx.functional._cv2 import _base, _geometry

from .common import make_image_tensor, run_patched

pytestmark = pytest.mark.skipif(_base.cv2 is None, reason="OpenCV not installed")

# CI and this suite install visiontx with a C compiler at hand: on x86-64 (SSE2 everywhere) the kernel must be there
X86_64 = platform.machine().lower() in ("x86_64", "amd64")


def _native():
    module = _base._native
    if module is None and not X86_64:
        pytest.skip("visiontx._native not built on this machine")
    assert module is not None, "visiontx._native was not built (pip install -e . needs a C compiler)"
    return module


def _switched(setter: str, on: bool, name: str):
    """``name`` with the module's ``setter`` (``set_avx2``, ``set_avx512``) set to ``on``, restored after."""
    switch = getattr(_native(), setter)
    before = switch(on)
    yield name
    switch(before)


@pytest.fixture(params=["avx512", "avx2", "sse2"])
def loops(request: pytest.FixtureRequest):
    """Each test of values runs the 512-bit loops (the halving's, where the CPU has AVX-512BW), the 256-bit ones
    (where it has AVX2) and the 128-bit ones."""
    module = _native()
    avx2, avx512 = module.set_avx2(request.param != "sse2"), module.set_avx512(request.param == "avx512")
    yield request.param
    module.set_avx2(avx2)
    module.set_avx512(avx512)


# (interpolation, antialias): the compiled kernel's modes. torch samples bicubic without antialias otherwise.
MODES = [("bilinear", True), ("bicubic", True), ("bilinear", False)]


def _torch_resize(planes: torch.Tensor, size: tuple[int, int], mode: str, antialias: bool = True) -> torch.Tensor:
    """torch's own resize of ``N x H x W`` uint8 planes (torch's planar path: no OpenCV, no wing)."""
    return nnf.interpolate(planes[:, None], size=size, mode=mode, antialias=antialias, align_corners=False)[:, 0]


def _native_resize(planes: torch.Tensor, size: tuple[int, int], mode: str, antialias: bool = True) -> torch.Tensor:
    out = np.empty((planes.shape[0], *size), dtype=np.uint8)
    _native().resize(planes.numpy(), out, mode == "bicubic", antialias)
    return torch.from_numpy(out)


def test_native_is_built_with_its_vectorised_loops() -> None:
    module = _native()
    assert module.SIMD == (1 if X86_64 else module.SIMD)
    assert (_cv2.native() is module) == bool(module.SIMD)
    before = module.set_avx2(True)
    assert module.set_avx2(False) == bool(module.AVX2)  # on where the CPU has AVX2
    assert module.set_avx2(before) is False


@pytest.mark.parametrize(("mode", "antialias"), MODES)
def test_resize_equals_torch_on_random_sizes(mode: str, antialias: bool, loops: str) -> None:
    """Halvings (the vectorised row loop), whole factors, other scales and upscales (the transposed pass),
    one axis unchanged, one-pixel sides; noise and hard 0 / 255 edges (where rounding and clamping show)."""
    rng = np.random.default_rng(MODES.index((mode, antialias)))
    for case in range(120):
        height, width = (int(v) for v in rng.integers(1, 200, 2))
        if case % 3 == 0:  # whole factors on each axis, 1 included
            size = (max(1, height // int(rng.integers(1, 5))), max(1, width // int(rng.integers(1, 5))))
        elif case % 3 == 1:
            size = (height, int(rng.integers(1, 260)))
        else:
            size = tuple(int(v) for v in rng.integers(1, 260, 2))
        planes = int(rng.integers(1, 5))
        shape = (planes, height, width)
        values = rng.integers(0, 256, shape) if case % 2 else rng.choice([0, 255], shape)
        image = torch.from_numpy(values.astype(np.uint8))
        fast, reference = _native_resize(image, size, mode, antialias), _torch_resize(image, size, mode, antialias)
        torch.testing.assert_close(fast, reference, rtol=0, atol=0)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_halving_edges_sixteen_rows_at_a_time_equal_torch(mode: str, loops: str) -> None:
    """A halving's edge outputs (taps cut by the border) run 16 rows at a time from the first and last 16 bytes of
    each row: row counts around multiples of 16, widths from 15 up, crops with a wider row stride, 0 / 255 values."""
    rng = np.random.default_rng(7)
    for height in (1, 2, 15, 16, 17, 31, 32, 33, 40):
        for width in (15, 16, 17, 18, 30, 31, 32, 33, 47, 48, 64, 130):
            shape = (2, 2 * height + 3, width + 5)
            values = rng.choice([0, 255], shape) if width % 2 else rng.integers(0, 256, shape)
            crop = torch.from_numpy(values.astype(np.uint8))[:, 1 : 1 + 2 * height, 2 : 2 + width]
            for size in ((height, max(1, width // 2)), (2 * height, max(1, width // 2))):
                out = np.empty((2, *size), dtype=np.uint8)
                _native().resize(crop.numpy(), out, mode == "bicubic", True)
                torch.testing.assert_close(torch.from_numpy(out), _torch_resize(crop.contiguous(), size, mode),
                                           rtol=0, atol=0)


@pytest.mark.parametrize(("mode", "antialias"), MODES)
@pytest.mark.parametrize(
    ("in_size", "size"),
    [((512, 512), (256, 256)), ((768, 1024), (384, 512)), ((64, 48), (32, 24)), ((37, 90), (37, 45)),
     ((90, 37), (45, 37)), ((33, 33), (16, 16)), ((16, 17), (8, 8)), ((2, 2), (1, 1)), ((300, 300), (214, 214)),
     ((100, 80), (25, 20)), ((5, 7), (40, 30))],
)
def test_resize_equals_torch_at_sizes_users_meet(mode: str, antialias: bool, in_size: tuple[int, int],
                                                 size: tuple[int, int], loops: str) -> None:
    image = make_image_tensor(in_size, channels=3)
    fast, reference = _native_resize(image, size, mode, antialias), _torch_resize(image, size, mode, antialias)
    torch.testing.assert_close(fast, reference, rtol=0, atol=0)


def test_resize_takes_strided_rows_and_planes_without_copying_or_writing_them() -> None:
    image = make_image_tensor((120, 130), batch_dims=(2,))
    crop = image[..., 7:107, 3:123]  # rows 130 apart, planes 120 x 130 apart
    before = image.clone()
    planes = crop.numpy().reshape(-1, 100, 120)
    assert not planes.flags.c_contiguous
    out = np.empty((6, 50, 60), dtype=np.uint8)
    _native().resize(planes, out, False, True)
    expected = _torch_resize(crop.reshape(-1, 100, 120).contiguous(), (50, 60), "bilinear")
    torch.testing.assert_close(torch.from_numpy(out), expected, rtol=0, atol=0)
    torch.testing.assert_close(image, before, rtol=0, atol=0)


def test_resize_with_more_taps_than_the_vectorised_loops_hold() -> None:
    """A 40x reduction has 81 bilinear taps a side (the vector loops hold 64): the plain loops, same values."""
    image = make_image_tensor((400, 440), channels=2)
    torch.testing.assert_close(
        _native_resize(image, (10, 11), "bilinear"), _torch_resize(image, (10, 11), "bilinear"), rtol=0, atol=0
    )


def test_resize_rejects_what_it_cannot_read_or_write() -> None:
    module = _native()
    planes = np.zeros((2, 8, 8), dtype=np.uint8)
    for src, dst in [
        (planes, np.zeros((3, 4, 4), np.uint8)),  # plane counts differ
        (planes[0], np.zeros((4, 4), np.uint8)),  # 2-D
        (planes.astype(np.float32), np.zeros((2, 4, 4), np.uint8)),  # not uint8
        (planes[:, :, ::2], np.zeros((2, 4, 4), np.uint8)),  # pixels not contiguous within a row
        (planes, np.zeros((2, 0, 4), np.uint8)),  # an empty side
    ]:
        with pytest.raises(ValueError, match="resize"):
            module.resize(src, dst, False, True)
    with pytest.raises(ValueError, match="bicubic needs antialias"):
        module.resize(planes, np.zeros((2, 4, 4), np.uint8), True, False)
    with pytest.raises((BufferError, ValueError)):
        module.resize(planes, np.zeros((2, 4, 8), np.uint8)[:, :, ::2], False, True)  # dst not contiguous
    read_only = np.zeros((2, 4, 4), np.uint8)
    read_only.flags.writeable = False
    with pytest.raises((BufferError, ValueError)):
        module.resize(planes, read_only, False, True)


def test_resize_runs_in_threads() -> None:
    """The GIL is released while it works: threads resizing at once get their own results."""
    images = [make_image_tensor((200, 180), channels=3, seed=seed) for seed in range(4)]
    expected = [_torch_resize(image, (100, 90), "bicubic") for image in images]
    results: dict[int, torch.Tensor] = {}

    def work(index: int) -> None:
        for _ in range(5):
            results[index] = _native_resize(images[index], (100, 90), "bicubic")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, reference in enumerate(expected):
        torch.testing.assert_close(results[index], reference, rtol=0, atol=0)


def test_resize_keeps_its_weights_between_calls_of_many_sizes_and_threads() -> None:
    """The axes' weights are cached between calls (8 of them): more sizes than that, from threads at once, with
    and without antialias (other weights for the same sizes), all give torch's values."""
    image = make_image_tensor((200, 180), channels=3)
    cases = [((40 + 7 * k, 30 + 5 * k), antialias) for k in range(6) for antialias in (True, False)]
    expected = [_torch_resize(image, size, "bilinear", antialias) for size, antialias in cases]
    wrong: list[int] = []

    def work(offset: int) -> None:
        for step in range(30):
            index = (step + offset) % len(cases)
            size, antialias = cases[index]
            if not torch.equal(_native_resize(image, size, "bilinear", antialias), expected[index]):
                wrong.append(index)

    threads = [threading.Thread(target=work, args=(offset,)) for offset in (0, 5, 7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong


def test_resize_without_antialias_reads_only_the_rows_it_needs() -> None:
    """A strong reduction without antialias reads two rows an output row: the horizontal pass skips the others
    (in blocks of consecutive rows and of scattered ones), and the result is torch's."""
    image = make_image_tensor((760, 700), channels=3)
    for size in [(224, 224), (100, 350), (37, 701), (760, 90)]:
        fast, reference = _native_resize(image, size, "bilinear", False), _torch_resize(image, size, "bilinear", False)
        torch.testing.assert_close(fast, reference, rtol=0, atol=0)


@pytest.mark.parametrize("in_width", [15, 16, 17, 31, 33, 64, 69, 70, 100, 257, 1000])
def test_rows_by_windows_equal_torch(in_width: int, loops: str) -> None:
    """Bilinear without antialias, antialiased up to ~2.7x and upscales take the row-wise pass by 16-byte windows where
    every output has at most six taps and four outputs' taps fit a window (widths of 16 and more; AVX2; the last
    outputs 4 at a time), the rest the transposed one: output widths whose last block is short, scales around the
    window's limit (69 -> 16 fits, 70 -> 16 does not; at 4.8 four outputs span 16 or 17 bytes), upscales whose edge
    outputs have one tap, rows of a crop (a wider row stride), 0 / 255 values."""
    rng = np.random.default_rng(in_width)
    scales = (2, 3, 4, 4.2, 4.6, 4.8, 5, 5.3)
    widths = {1, 2, 15, 16, 17, 31, 33, 47, in_width - 1, in_width, in_width + 1, 2 * in_width + 3, 4 * in_width,
              *(round(in_width / scale) for scale in scales)}
    for out_width in sorted(w for w in widths if w >= 1):
        for antialias in (False, True):
            shape = (2, 13, in_width + 9)
            values = rng.choice([0, 255], shape) if out_width % 2 else rng.integers(0, 256, shape)
            crop = torch.from_numpy(values.astype(np.uint8))[:, 2:11, 4 : 4 + in_width]
            for size in ((9, out_width), (4, out_width), (20, out_width)):
                out = np.empty((2, *size), dtype=np.uint8)
                _native().resize(crop.numpy(), out, False, antialias)
                reference = _torch_resize(crop.contiguous(), size, "bilinear", antialias)
                torch.testing.assert_close(torch.from_numpy(out), reference, rtol=0, atol=0)


@pytest.mark.parametrize("in_size", [(2, 2), (2, 34), (6, 66), (64, 130), (512, 512), (10, 2), (768, 1024)])
def test_resize_halving_without_antialias_is_torchs_rounded_2x2_mean(in_size: tuple[int, int], loops: str) -> None:
    """Its own loop (no weights): widths around the 16- and 32-wide blocks, crops with strided rows."""
    height, width = in_size
    image = make_image_tensor((height + 3, width + 5), channels=3)
    for planes in (image[:, :height, :width].contiguous(), image[:, 1 : height + 1, 3 : width + 3]):
        size = (height // 2, width // 2)
        fast = _native_resize(planes, size, "bilinear", False)
        torch.testing.assert_close(fast, _torch_resize(planes.contiguous(), size, "bilinear", False), rtol=0, atol=0)


def test_resize_kernel_takes_the_native_path_for_uint8_bilinear_and_antialiased_bicubic() -> None:
    import visiontx.functional as F
    from visiontx.functional._interpolation import InterpolationMode

    _native()
    image = make_image_tensor((240, 250))
    assert _geometry.can_resize_native(image, "bilinear", True)
    assert _geometry.can_resize_native(image, "bicubic", True)
    assert _geometry.can_resize_native(image[0], "bicubic", True)  # a plane: any channels
    assert _geometry.can_resize_native(image, "bilinear", False)
    assert not _geometry.can_resize_native(image, "bicubic", False)  # torch samples it another way
    assert not _geometry.can_resize_native(image, "nearest", True)
    assert not _geometry.can_resize_native(image.float(), "bilinear", True)
    with _cv2.disabled():
        assert not _geometry.can_resize_native(image, "bilinear", True)
    bilinear = InterpolationMode.BILINEAR
    assert _geometry._resize_path(image, (120, 125), bilinear, True) == "native"
    assert _geometry._resize_path(image, (120, 125), bilinear, False) == "native"  # a halving: 2 x 2 means
    assert _geometry._resize_path(image, (120, 126), bilinear, False) == "native"
    assert _geometry._resize_path(image.float(), (120, 126), bilinear, False) == "linear"
    for mode, size, antialias in [("bilinear", [120, 125], True), ("bicubic", [120, 125], True),
                                  ("bicubic", [300, 260], True), ("bilinear", [77, 200], True),
                                  ("bilinear", [77, 200], False), ("bilinear", [300, 260], False),
                                  ("bilinear", [300, 260], True)]:
        fast = F.resize_image_tensor(image, size, interpolation=mode, antialias=antialias)
        with _cv2.disabled():
            reference = F.resize_image_tensor(image, size, interpolation=mode, antialias=antialias)
        torch.testing.assert_close(fast, reference, rtol=0, atol=0)


def test_luma_equals_the_torch_kernel_on_every_layout(loops: str) -> None:
    """Batches, crops (strided rows and planes), channels-last images, 1 and 3 output planes."""
    import visiontx.functional as F
    from visiontx.functional._color._grayscale import _LUMA_FIXED, _luma_uint8

    module = _native()
    image = make_image_tensor((70, 93), batch_dims=(2,))
    image[0, :, :5] = 255  # the top of the range: the sum reaches 65530 * 255 + 2^15
    for inpt in (image, image[..., 3:60, 1:90], image.contiguous(memory_format=torch.channels_last)):
        pixels = inpt.contiguous()
        for planes in (1, 3):
            out = np.empty((2, planes, *inpt.shape[-2:]), dtype=np.uint8)
            module.luma(pixels.numpy(), out, _LUMA_FIXED)
            torch.testing.assert_close(torch.from_numpy(out), _luma_uint8(inpt).expand(out.shape), rtol=0, atol=0)
            fast = F.rgb_to_grayscale_image_tensor(inpt, planes)
            with _cv2.disabled():
                torch.testing.assert_close(fast, F.rgb_to_grayscale_image_tensor(inpt, planes), rtol=0, atol=0)


def test_luma_rejects_bad_weights_and_shapes() -> None:
    module = _native()
    image = np.zeros((1, 3, 4, 4), np.uint8)
    for weights in [(-1, 0, 0), (40000, 0, 0), (0, 65535, 0), (30000, 30000, 30000)]:
        with pytest.raises(ValueError, match="luma: weights"):
            module.luma(image, np.zeros((1, 1, 4, 4), np.uint8), weights)
    for src, dst in [(image[:, :2], np.zeros((1, 1, 4, 4), np.uint8)), (image, np.zeros((1, 1, 4, 5), np.uint8)),
                     (image[0], np.zeros((1, 4, 4), np.uint8))]:
        with pytest.raises(ValueError, match="luma: src"):
            module.luma(src, dst, (19589, 38470, 7471))


def test_one_pixel_wide_images_with_any_stride_on_their_single_column(loops: str) -> None:
    """A one-column crop's pixels need no stride of 1 (numpy may give the lone column any stride): still taken."""
    import visiontx.functional as F
    from visiontx.functional._color._grayscale import _LUMA_FIXED, _luma_uint8

    module = _native()
    base = make_image_tensor((40, 31), batch_dims=(2,))
    crop = base[..., 3:29, 5:6]
    planes = np.lib.stride_tricks.as_strided(base.numpy()[..., 3:, 5:], shape=(6, 26, 1), strides=(1240, 31, 31))
    out = np.empty((6, 13, 1), np.uint8)
    module.resize(planes, out, True, True)
    expected = _torch_resize(crop.reshape(6, 26, 1).contiguous(), (13, 1), "bicubic")
    torch.testing.assert_close(torch.from_numpy(out), expected, rtol=0, atol=0)
    pixels = np.lib.stride_tricks.as_strided(base.numpy()[..., 3:, 5:], shape=(2, 3, 26, 1),
                                             strides=(3720, 1240, 31, 7))
    gray = np.empty((2, 1, 26, 1), np.uint8)
    module.luma(pixels, gray, _LUMA_FIXED)
    torch.testing.assert_close(torch.from_numpy(gray), _luma_uint8(crop), rtol=0, atol=0)
    for size in ([13, 1], [7, 1]):
        fast = F.resize_image_tensor(crop, size, interpolation="bilinear", antialias=True)
        with _cv2.disabled():
            torch.testing.assert_close(fast, F.resize_image_tensor(crop, size, interpolation="bilinear", antialias=True),
                                       rtol=0, atol=0)


# ------------------------------------------------------------------------------------------------------ hue
HUE_FACTORS = [0.0, 0.1, -0.3, 0.5, -0.5, 0.27, 1e-7, -1e-7, 1 / 6, -1 / 6]


def _torch_hue(image: torch.Tensor, factor: float) -> torch.Tensor:
    import visiontx.functional as F

    with _cv2.disabled():  # the torch path, whose float32 steps the kernel repeats
        return F.adjust_hue_image_tensor(image, factor)


def _colours(count: int, seed: int) -> torch.Tensor:
    """``1 x 3 x 64 x count/64`` uint8 RGB: random colours, then grays, primaries, and pixels where two channels
    tie for the maximum (where the hue's sextant is picked)."""
    rng = np.random.default_rng(seed)
    rgb = rng.integers(0, 256, (count, 3))
    level = rng.integers(0, 256, count // 4)
    rgb[: count // 4] = level[:, None]  # grays: no chroma
    rgb[count // 4 : count // 2, 0] = rgb[count // 4 : count // 2, 1]  # R = G
    rgb[count // 2 : 3 * count // 4, 1] = rgb[count // 2 : 3 * count // 4, 2]  # G = B
    rgb[:6] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [0, 255, 255], [255, 0, 255]]
    return torch.from_numpy(rgb.astype(np.uint8).T.copy()).reshape(1, 3, 64, count // 64)


@pytest.mark.parametrize("factor", HUE_FACTORS)
def test_hue_equals_the_torch_path_on_every_layout(factor: float, loops: str) -> None:
    """Planar images (``hue``) and interleaved pixels rotated in place (``hue_pixels``), value for value."""
    module = _native()
    image = _colours(1 << 16, seed=int(factor * 1e6) % 1000)
    expected = _torch_hue(image, factor)
    out = np.empty(image.shape, np.uint8)
    module.hue(image.numpy(), out, factor)
    torch.testing.assert_close(torch.from_numpy(out), expected, rtol=0, atol=0)
    pixels = np.ascontiguousarray(image[0].permute(1, 2, 0).numpy())
    module.hue_pixels(pixels, pixels, factor)
    torch.testing.assert_close(torch.from_numpy(pixels).permute(2, 0, 1), expected[0], rtol=0, atol=0)


@pytest.mark.parametrize("width", [1, 2, 7, 8, 9, 15, 16, 17, 24, 63, 64, 65, 71, 80, 129])
def test_hue_on_widths_around_the_vector_blocks_batches_and_crops(width: int, loops: str) -> None:
    """Widths around the 8-pixel blocks and the 64-pixel chunks (the last pixels take a padded copy); crops read
    through their row and plane strides, left as they were; nothing written after the output."""
    module = _native()
    base = make_image_tensor((9, width + 5), batch_dims=(2,), seed=width)
    crop = base[..., 2:9, 3 : 3 + width]
    before = base.clone()
    size = 2 * 3 * 7 * width
    memory = np.full(size + 32, 7, np.uint8)  # the output, then 32 bytes that must stay 7
    module.hue(crop.numpy(), memory[:size].reshape(2, 3, 7, width), -0.2)
    expected = _torch_hue(crop, -0.2)
    torch.testing.assert_close(torch.from_numpy(memory[:size]).view(expected.shape), expected, rtol=0, atol=0)
    torch.testing.assert_close(base, before, rtol=0, atol=0)
    assert (memory[size:] == 7).all()
    pixels = np.full((7, width + 1, 3), 7, np.uint8)
    pixels[:, :width] = crop[0].permute(1, 2, 0).numpy()
    memory = np.full(7 * width * 3 + 32, 7, np.uint8)
    module.hue_pixels(pixels[:, :width], memory[:-32].reshape(7, width, 3), -0.2)  # strided rows in
    out = torch.from_numpy(memory[:-32]).view(7, width, 3).permute(2, 0, 1)
    torch.testing.assert_close(out, expected[0], rtol=0, atol=0)
    assert (memory[-32:] == 7).all() and (pixels[:, width] == 7).all()


def test_hue_kernel_and_steps_take_the_compiled_kernel_for_uint8() -> None:
    """``F.adjust_hue`` and ``ColorJitter``'s hue step on uint8 images give the torch path's values exactly (the
    OpenCV path they replace was within 1 level); float32 keeps OpenCV's."""
    import visiontx.functional as F
    from visiontx.functional._cv2._color import adjust_colors, hue_step

    _native()
    image = make_image_tensor((33, 47), batch_dims=(2,), seed=5)
    for factor in (0.31, -0.44):
        expected = _torch_hue(image, factor)
        torch.testing.assert_close(F.adjust_hue_image_tensor(image, factor), expected, rtol=0, atol=0)
        torch.testing.assert_close(adjust_colors(image, [hue_step(factor)]), expected, rtol=0, atol=0)
        torch.testing.assert_close(F.adjust_hue_image_tensor(image[..., 1:30, 2:40], factor),
                                   expected[..., 1:30, 2:40], rtol=0, atol=0)


def test_hue_rejects_bad_shapes_and_factors() -> None:
    module = _native()
    image = np.zeros((1, 3, 4, 4), np.uint8)
    with pytest.raises(ValueError, match="hue: factor"):
        module.hue(image, np.empty_like(image), 1.5)
    with pytest.raises(ValueError, match="hue_pixels: factor"):
        module.hue_pixels(image[0].transpose(1, 2, 0).copy(), np.empty((4, 4, 3), np.uint8), float("nan"))
    for src, dst in [(image[:, :2], np.empty((1, 2, 4, 4), np.uint8)), (image, np.empty((1, 3, 4, 5), np.uint8)),
                     (image[0], np.empty((3, 4, 4), np.uint8)), (image[..., ::2], np.empty((1, 3, 4, 2), np.uint8))]:
        with pytest.raises(ValueError, match="hue: src"):
            module.hue(src, dst, 0.1)
    pixels = np.zeros((4, 4, 3), np.uint8)
    for src, dst in [(pixels[..., :2], np.empty((4, 4, 2), np.uint8)), (pixels, np.empty((4, 5, 3), np.uint8)),
                     (pixels[:, ::2], np.empty((4, 2, 3), np.uint8)), (image, np.empty_like(image))]:
        with pytest.raises(ValueError, match="hue_pixels: src"):
            module.hue_pixels(src, dst, 0.1)
    with pytest.raises(ValueError, match="src and dst must be uint8"):
        module.hue(image.astype(np.float32), np.empty((1, 3, 4, 4), np.float32), 0.1)


# --------------------------------------------------------------------------------------------- colour matrix
def _matrix_reference(image: torch.Tensor, matrix: np.ndarray) -> torch.Tensor:
    """``[..., 3, H, W]`` uint8 through ``matrix``: ``(m0 * R + m1 * G) + m2 * B`` per channel in float32 (numpy's
    float32 operations, one rounding each), rounded half to even, clipped."""
    rgb = image.numpy().astype(np.float32)
    r, g, b = rgb[..., 0, :, :], rgb[..., 1, :, :], rgb[..., 2, :, :]
    m = matrix.astype(np.float32)
    out = [(m[c, 0] * r + m[c, 1] * g) + m[c, 2] * b for c in range(3)]
    return torch.from_numpy(np.clip(np.rint(np.stack(out, axis=-3)), 0, 255).astype(np.uint8))


def _matrices() -> list[np.ndarray]:
    from visiontx.functional._cv2._color import _saturation_matrix

    rng = np.random.default_rng(7)
    saturations = [_saturation_matrix(f) for f in (0.5, 0.77, 1.0, 1.3, 1.5)]
    return saturations + [rng.uniform(-2, 2, (3, 3)).astype(np.float32), np.eye(3, dtype=np.float32)[::-1]]


@pytest.mark.parametrize("width", [1, 7, 8, 9, 17, 63, 64, 65, 100])
def test_color_matrix_equals_float32_sums_on_every_layout(width: int, loops: str) -> None:
    """Planar images (``color_matrix``) and interleaved pixels (``color_matrix_pixels``, in place too): saturation
    matrices and matrices whose sums leave 0..255 (saturated); crops read through their strides; nothing written
    after the output."""
    module = _native()
    base = make_image_tensor((9, width + 4), batch_dims=(2,), seed=width)
    base[0, :, 0] = 255
    crop = base[..., 1:9, 2 : 2 + width]
    for matrix in _matrices():
        expected = _matrix_reference(crop, matrix)
        size = crop.numel()
        memory = np.full(size + 32, 7, np.uint8)
        module.color_matrix(crop.numpy(), memory[:size].reshape(crop.shape), matrix.ravel().tolist())
        torch.testing.assert_close(torch.from_numpy(memory[:size]).view(crop.shape), expected, rtol=0, atol=0)
        assert (memory[size:] == 7).all()
        pixels = np.ascontiguousarray(crop[1].permute(1, 2, 0).numpy())
        module.color_matrix_pixels(pixels, pixels, matrix.ravel().tolist())
        torch.testing.assert_close(torch.from_numpy(pixels).permute(2, 0, 1), expected[1], rtol=0, atol=0)


def test_saturation_takes_the_color_matrix_where_the_unfloored_luma_fits() -> None:
    """``F.adjust_saturation`` and ``ColorJitter``'s saturation step: the float32 sums of the saturation matrix
    (within 1 level of the torch path, which floors the luma as torchvision); other factors keep that path's
    floored luma (through OpenCV)."""
    import visiontx.functional as F
    from visiontx.functional._cv2._color import _saturation_matrix, adjust_colors, saturation_step
    from visiontx.functional._color._grayscale import luma

    _native()
    image = make_image_tensor((33, 47), batch_dims=(2,), seed=9)
    for factor in (0.6, 1.45):
        expected = _matrix_reference(image, _saturation_matrix(factor))
        torch.testing.assert_close(F.adjust_saturation_image_tensor(image, factor), expected, rtol=0, atol=0)
        torch.testing.assert_close(adjust_colors(image, [saturation_step(factor, luma)]), expected, rtol=0, atol=0)
        with _cv2.disabled():
            reference = F.adjust_saturation_image_tensor(image, factor)
        torch.testing.assert_close(expected, reference, rtol=0, atol=1)
    with _cv2.disabled():
        reference = F.adjust_saturation_image_tensor(image, 1.8)
    torch.testing.assert_close(F.adjust_saturation_image_tensor(image, 1.8), reference, rtol=0, atol=1)


def test_color_matrix_rejects_bad_matrices_and_shapes() -> None:
    module = _native()
    image = np.zeros((1, 3, 4, 4), np.uint8)
    for matrix in ([1.0] * 8, [1.0] * 8 + [300.0], [float("nan")] + [0.0] * 8):
        with pytest.raises((ValueError, TypeError), match="color_matrix"):
            module.color_matrix(image, np.empty_like(image), matrix)
    with pytest.raises(ValueError, match="color_matrix: src"):
        module.color_matrix(image[:, :2], np.empty((1, 2, 4, 4), np.uint8), [0.0] * 9)
    with pytest.raises(ValueError, match="color_matrix_pixels: src"):
        module.color_matrix_pixels(image, np.empty_like(image), [0.0] * 9)


@pytest.mark.parametrize("seed", range(6))
def test_adjust_colors_on_planes_equals_the_interleaved_steps(seed: int) -> None:
    """ColorJitter's steps in random orders: on the planes (every step has a planar form) and on interleaved
    pixels (the same steps without it), value for value, on batches and crops; a step without a planar form
    (a contrast factor the unfloored luma does not fit) sends the whole chain to the interleaved pixels."""
    from visiontx.functional._color import _adjust, _hue
    from visiontx.functional._cv2._color import Step, adjust_colors

    _native()
    rng = np.random.default_rng(seed)
    image = make_image_tensor((23, 37), batch_dims=(2,), seed=seed)
    makers = [lambda: _adjust.brightness_step(float(rng.uniform(0.6, 1.4))),
              lambda: _adjust.contrast_step(float(rng.uniform(0.6, 1.4))),
              lambda: _adjust.saturation_step(float(rng.uniform(0.6, 1.4))),
              lambda: _hue.hue_step(float(rng.uniform(-0.5, 0.5)))]
    steps = [makers[i]() for i in rng.permutation(4)]
    assert all(step.planes is not None for step in steps)
    interleaved = [Step(step.pixels) for step in steps]
    for inpt in (image, image[..., 2:21, 3:30], image[0]):
        out = adjust_colors(inpt, steps)
        torch.testing.assert_close(out, adjust_colors(inpt, interleaved), rtol=0, atol=0)
    mixed = [*steps, _adjust.contrast_step(1.8)]
    assert mixed[-1].planes is None
    torch.testing.assert_close(adjust_colors(image, mixed), adjust_colors(image, [*interleaved, mixed[-1]]),
                               rtol=0, atol=0)
    before = image.clone()
    adjust_colors(image, steps)
    torch.testing.assert_close(image, before, rtol=0, atol=0)  # the input is read, never written


# ------------------------------------------------------------------------------------ to float32, normalised
def _kernels_normalize(image: torch.Tensor, mean: list[float], std: list[float]) -> torch.Tensor:
    from visiontx.functional._dtype import to_dtype_image_tensor
    from visiontx.functional._misc._normalize import normalize_image_tensor

    return normalize_image_tensor(to_dtype_image_tensor(image, torch.float32, scale=True), mean, std)


@pytest.mark.parametrize("width", [1, 3, 4, 7, 8, 9, 31, 33])
def test_normalize_equals_the_two_kernels_bit_for_bit(width: int, loops: str) -> None:
    """torch's to_dtype(float32, scale=True) then normalize, in the same float32 steps: every value, batches of
    crops (strided rows and planes), 1 and 3 channels, widths around the 4- and 8-value blocks."""
    module = _native()
    for channels, mean, std in [(3, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), (1, [0.5], [0.25]),
                                (3, [-1.5, 0.0, 300.0], [3.0, 1e-3, 7.5])]:
        base = make_image_tensor((6, width + 3), batch_dims=(2,), channels=channels, seed=width)
        base[0, :, 0, :] = 0
        base[0, :, 1, :] = 255
        crop = base[..., 1:6, 2 : 2 + width]
        expected = _kernels_normalize(crop, mean, std)
        as_float32 = [float(np.float32(v)) for v in mean], [float(np.float32(v)) for v in std]
        out = np.empty(crop.shape, np.float32)
        module.normalize(crop.numpy(), out, 1.0 / 255, *as_float32)
        assert torch.equal(torch.from_numpy(out).view(torch.int32), expected.view(torch.int32))


def test_to_dtype_normalize_stage_takes_the_compiled_steps_and_checks_them() -> None:
    """The ToDtype + Normalize stage runs the compiled kernel where its steps gave the kernels' 256 values (its
    output equal to the two transforms'); a kernel whose values differ is not used (the tables are)."""
    import visiontx.transforms as T
    from visiontx.datapoints import Image
    from visiontx.functional._misc import _normalize

    module = _native()
    made = _normalize.scaled_normalize_tables([0.485, 0.456, 0.406], [0.229, 0.224, 0.225], 3)
    assert made is not None and made.mean is not None and made.std is not None
    image = Image(make_image_tensor((40, 50), seed=3))
    stage = T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    expected = stage.transforms[1](stage.transforms[0](image))
    assert torch.equal(stage(image).view(torch.int32), expected.view(torch.int32))

    class OffByOne:  # a kernel whose steps differ from torch's by one unit in the last place
        def normalize(self, src, dst, *args):
            module.normalize(src, dst, *args)
            dst.view(np.uint32)[..., 7] += 1

    from visiontx.functional._cv2 import _misc

    tables = made.tables
    assert _normalize._native_steps(tables, made.mean, made.std) == (made.mean, made.std)
    original = _misc.native  # the wing's runner (_cv2.scale_normalize) reaches the module through it
    try:
        _misc.native = lambda: OffByOne()
        assert _normalize._native_steps(tables, made.mean, made.std) == (None, None)
    finally:
        _misc.native = original


def test_normalize_rejects_what_it_cannot_read_or_write() -> None:
    module = _native()
    image = np.zeros((1, 3, 4, 4), np.uint8)
    for dst, mean in [(np.empty((1, 3, 4, 4), np.float64), [0.5] * 3), (np.empty((1, 3, 4, 5), np.float32), [0.5] * 3),
                      (np.empty((1, 3, 4, 4), np.float32), [0.5] * 2), (np.empty((1, 3, 4, 4), np.uint8), [0.5] * 3)]:
        with pytest.raises(ValueError, match="normalize: src"):
            module.normalize(image, dst, 1 / 255, mean, [0.5] * 3)
    with pytest.raises(TypeError):
        module.normalize(image, np.empty((1, 3, 4, 4), np.float32), 1 / 255, ["a"] * 3, [0.5] * 3)


def test_to_dtype_normalize_stage_with_more_channels_than_the_compiled_kernel_takes() -> None:
    """Images of more than 256 channels take the tables (the compiled kernel refuses them): the stage's output
    equals the two transforms'."""
    import visiontx.transforms as T
    from visiontx.functional._misc import _normalize

    _native()
    made = _normalize.scaled_normalize_tables([0.5], [0.25], 257)
    assert made is not None and made.mean is None
    image = torch.randint(0, 256, (257, 4, 5), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    stage = T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize([0.5], [0.25])])
    expected = stage.transforms[1](stage.transforms[0](image))
    assert torch.equal(stage(image).view(torch.int32), expected.view(torch.int32))


# ------------------------------------------------------------------------------------------ border blend
def _warps(image: torch.Tensor, fill: list[float], rng: np.random.Generator) -> dict[str, torch.Tensor]:
    """The three OpenCV samplers that blend the border (affine, perspective, elastic) on ``image``."""
    import visiontx.functional as F

    height, width = image.shape[-2:]
    corners = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
    moved = [[float(x + rng.uniform(-0.3, 0.3) * width), float(y + rng.uniform(-0.3, 0.3) * height)]
             for x, y in corners]
    displacement = torch.from_numpy(rng.normal(0.0, 0.2, (1, height, width, 2)).astype(np.float32))
    return {
        "affine": F.affine(image, angle=float(rng.uniform(-180, 180)), translate=[1.5, -2.0],
                           scale=float(rng.uniform(0.5, 1.5)), shear=[5.0, 0.0], interpolation="bilinear",
                           fill=fill),
        "perspective": F.perspective(image, corners, moved, fill=fill),
        "elastic": F.elastic(image, displacement, fill=fill),
    }


@pytest.mark.parametrize("channels", [1, 3, 4, 5])
def test_border_blend_equals_the_numpy_blend(channels: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled blend of the warps' border (``_native_warp.c``) gives the numpy version's bytes, for affine,
    perspective and elastic warps of random sizes, one fill or one per channel; and it changes the border (the
    comparison sees blended pixels)."""
    from visiontx.functional._cv2 import _warp

    _native()
    if not _warp._PRECISE_BILINEAR:
        pytest.skip("the warps take OpenCV from version 5 on")
    rng = np.random.default_rng(channels)
    calls = []
    blend = _warp._native_blend
    monkeypatch.setattr(_warp, "_native_blend", lambda *args, **kwargs: (calls.append(1), blend(*args, **kwargs)))
    for trial in range(40):
        height, width = (int(n) for n in rng.integers(3, 70, 2))
        image = torch.from_numpy(rng.integers(0, 256, (channels, height, width), dtype=np.uint8))
        fill = [float(v) for v in rng.uniform(0, 255, 1 if trial % 2 else channels)]
        state = rng.bit_generator.state
        native = _warps(image, fill, rng)
        with monkeypatch.context() as patch:
            patch.setattr(_warp, "_blends_natively", lambda *args: False)
            rng.bit_generator.state = state
            numpy = _warps(image, fill, rng)
            rng.bit_generator.state = state
            patch.setattr(_warp, "_blend_border", lambda *args: None)
            unblended = _warps(image, fill, rng)
        for name in native:
            assert torch.equal(native[name], numpy[name]), (name, height, width)
        assert any(not torch.equal(native[name], unblended[name]) for name in native)
    assert len(calls) == 3 * 40


_MAP_KINDS = ["mild", "pole", "huge", "zero", "cancel", "flat", "affine"]


def _projective_matrix(kind: str, rng: np.random.Generator, out_w: int) -> np.ndarray:
    """A 3 x 3 output -> input map of one ``kind``: a mild perspective, one whose pole crosses the output's rows,
    one with huge or non-finite terms, one dividing by 0 everywhere, one whose large parts cancel on some row, or
    one whose u is flat along the rows, on a level (its asymptote), or an affine one."""
    matrix = np.eye(3) + rng.normal(0, 0.3, (3, 3)) * [[1, 1, 8], [1, 1, 8], [0.01, 0.01, 0.1]]
    if kind == "pole":
        matrix[2] = [0.05, rng.normal(0, 0.02), -0.05 * rng.uniform(0, out_w)]
    elif kind == "huge":
        matrix[rng.integers(0, 3), rng.integers(0, 3)] = rng.choice([1e13, -1e112, np.inf, np.nan])
    elif kind == "zero":
        matrix[2] = [0.0, 0.0, 0.0]
    elif kind == "cancel":  # m1 y + m2 = 0 on row y0, from parts of 1e17 (or under 1e12)
        scale = rng.choice([1e17, 1e11])
        matrix[0, 1:] = [scale, -scale * rng.integers(0, 3)]
    elif kind == "affine":  # a rotation, scale and shift: the last row [0, 0, 1]
        matrix[2] = [0.0, 0.0, 1.0]
    elif kind == "flat":  # u = m0 / m6 along every row: on a level (the input's width, 0 or -1)
        matrix[2] = [0.01, 0.0, 0.1 + rng.uniform(0, 1)]
        matrix[0] = [0.01 * rng.choice([-1.0, 0.0, 41.0]), 0.0, rng.normal(0, 1)]
    return matrix


def _exact_shares(matrix: np.ndarray, out_size: tuple[int, int], in_size: tuple[int, int]) -> np.ndarray:
    """The in-image share of every output pixel's footprint and its source point ``(u, v)`` (flat), in double, as
    the blends compute them."""
    from visiontx.functional._cv2 import _warp

    y, x = np.divmod(np.arange(out_size[0] * out_size[1]), out_size[1])
    with np.errstate(all="ignore"):
        d = matrix[2, 0] * x + matrix[2, 1] * y + matrix[2, 2]
        u, v = ((matrix[i, 0] * x + matrix[i, 1] * y + matrix[i, 2]) / d for i in range(2))
        return _warp._footprint(u, v, in_size), u, v


@pytest.mark.parametrize("kind", _MAP_KINDS)
def test_projective_spans_hold_every_straddling_pixel(kind: str) -> None:
    """``_matrix_spans`` (and so the compiled pass it mirrors) finds every pixel whose exact share is strictly
    between 0 and 1, where OpenCV's quantised alpha can read 0 or 255, under any projective map."""
    from visiontx.functional._cv2 import _warp

    rng = np.random.default_rng(_MAP_KINDS.index(kind))
    for trial in range(60):
        out_size = (int(rng.integers(1, 40)), int(rng.integers(1, 60)))
        in_size = (int(rng.integers(1, 40)), int(rng.integers(1, 40)))
        matrix = _projective_matrix(kind, rng, out_size[1])
        share, _, _ = _exact_shares(matrix, out_size, in_size)
        straddling = (share > 0) & (share < 1)
        spans = _warp._matrix_spans(matrix, out_size, in_size)
        assert not (straddling & ~spans).any(), (kind, trial)
    if kind == "mild":  # and not much more: a band a few pixels wide along the image's edges
        matrix = np.array([[1.02, 0.03, -1.3], [-0.02, 0.98, 0.7], [2e-4, -1e-4, 1.0]])
        assert _warp._matrix_spans(matrix, (64, 80), (64, 80)).sum() < 6 * 2 * (64 + 80)


@pytest.mark.parametrize("kind", _MAP_KINDS)
def test_projective_border_blend_equals_the_numpy_blend_on_any_map(kind: str) -> None:
    """The compiled blend of a perspective warp's border equals the numpy blend over ``_matrix_spans`` and the
    alpha band, byte for byte, also with poles, huge and non-finite terms and 0 / 0 points."""
    from visiontx.functional._cv2 import _warp

    module = _native()
    rng = np.random.default_rng(10 + _MAP_KINDS.index(kind))
    changed = 0
    for trial in range(60):
        out_size = (int(rng.integers(1, 40)), int(rng.integers(1, 60)))
        in_size = (int(rng.integers(1, 40)), int(rng.integers(1, 40)))
        matrix = _projective_matrix(kind, rng, out_size[1])
        src = rng.integers(0, 256, (3, *in_size), dtype=np.uint8)
        alpha = rng.choice(np.array([0, 255, 255, 128], np.uint8), out_size)
        before = rng.integers(0, 256, (3, *out_size), dtype=np.uint8)
        fills = [float(f) for f in rng.uniform(0, 255, 3)]
        compiled = before.copy()
        module.blend_border(compiled, alpha, fills, src, matrix.reshape(-1).tolist(), True, None, None)
        in_band = (alpha.reshape(-1) - np.uint8(1)) < np.uint8(254)
        index = np.flatnonzero(in_band | _warp._matrix_spans(matrix, out_size, in_size))
        _, u, v = _exact_shares(matrix, out_size, in_size)
        numpy = torch.from_numpy(before.copy())
        _warp._blend_border(numpy, index, u[index], v[index], fills, 3, src, in_band[index])
        assert np.array_equal(compiled, numpy.numpy()), (kind, trial)
        changed += not np.array_equal(compiled, before)
    assert changed > 10


def test_blend_border_clips_fills_outside_the_byte_range_as_numpy() -> None:
    """Fills outside 0..255 (never passed by visiontx, whose gate keeps them) clip to 0 and 255 as the numpy
    blend's ``np.clip``: no out-of-range float to byte conversion."""
    module = _native()
    for fill, expected in [(-100.0, 0), (1000.0, 255), (float("nan"), 0)]:
        out, alpha = np.full((1, 1, 3), 10, np.uint8), np.full((1, 3), 100, np.uint8)
        src = np.full((1, 4, 4), 10, np.uint8)
        module.blend_border(out, alpha, [fill], src, [1, 0, -0.5, 0, 1, 0, 0, 0, 1], False, None, None)
        assert out[0, 0, 0] == expected and out[0, 0, 1:].tolist() == [10, 10]


def test_blend_border_rejects_what_it_cannot_read_or_write() -> None:
    module = _native()
    out, alpha, maps = np.zeros((3, 4, 5), np.uint8), np.zeros((4, 5), np.uint8), np.zeros((4, 5), np.float32)
    matrix, src = [1.0, 0, 0, 0, 1, 0, 0, 0, 1], np.zeros((3, 4, 5), np.uint8)
    module.blend_border(out, alpha, [0.0] * 3, src, matrix, False, None, None)  # the valid call
    module.blend_border(out, alpha, [0.0] * 3, src, None, False, maps, maps)
    bad = [
        ((out.astype(np.float32), alpha, [0.0] * 3, src, matrix, False, None, None), "out must be"),
        ((out, np.zeros((4, 4), np.uint8), [0.0] * 3, src, matrix, False, None, None), "their rows and columns"),
        ((out, alpha.T, [0.0] * 3, src, matrix, False, None, None), "C-contiguous"),
        ((out, alpha[None], [0.0] * 3, src, matrix, False, None, None), "alpha must be"),
        ((out, alpha, [0.0] * 2, src, matrix, False, None, None), "fills must hold 3"),
        ((out, alpha, [0.0] * 3, src, matrix[:8], False, None, None), "matrix must hold 9"),
        ((out, alpha, [0.0] * 3, src, matrix, False, maps, maps), "either matrix or"),
        ((out, alpha, [0.0] * 3, src, None, False, maps, None), "either matrix or"),
        ((out, alpha, [0.0] * 3, src, None, False, maps.astype(np.float64), maps), "map_x must be"),
        ((out, alpha, [0.0] * 3, src, None, False, maps, maps[:3]), "their rows and columns"),
        ((np.zeros((257, 4, 5), np.uint8), alpha, [0.0] * 257, np.zeros((257, 4, 5), np.uint8), matrix, False, None,
          None), "at most 256"),
        ((out, alpha, [0.0] * 3, src[:2], matrix, False, None, None), "share their planes"),
        ((out, alpha, [0.0] * 3, src.astype(np.float32), matrix, False, None, None), "src must be"),
    ]
    for args, message in bad:
        with pytest.raises(ValueError, match=message):
            module.blend_border(*args)
    with pytest.raises(ValueError, match="read-only|writable|not writable"):
        frozen = out.copy()
        frozen.flags.writeable = False
        module.blend_border(frozen, alpha, [0.0] * 3, src, matrix, False, None, None)


# ------------------------------------------------------------------------------------------ packed masks
@pytest.mark.parametrize("planes", [1, 7, 8, 9, 17])
@pytest.mark.parametrize("width", [1, 15, 16, 17, 40])
def test_pack_masks_round_trips_and_refuses_values_above_one(planes: int, width: int) -> None:
    module = _native()
    rng = np.random.default_rng(planes * 100 + width)
    masks = rng.integers(0, 2, (planes, 5, width + 3), dtype=np.uint8)[:, :, 2 : 2 + width]  # rows with a stride
    packed = np.empty(((planes + 7) // 8, 5, width), np.uint8)
    assert module.pack_masks(masks, packed) is True
    expected = np.zeros(packed.shape, np.int64)
    for plane in range(planes):  # plane 8 g + k: bit k of packed plane g
        expected[plane // 8] |= masks[plane].astype(np.int64) << (plane % 8)
    assert np.array_equal(packed, expected)
    out = np.empty((planes, 5, width), np.uint8)
    module.unpack_masks(packed, out)
    assert np.array_equal(out, masks)
    masks[-1, -1, -1] = 2
    assert module.pack_masks(masks, packed) is False


def test_pack_masks_rejects_what_it_cannot_read_or_write() -> None:
    module = _native()
    masks = np.zeros((9, 4, 5), np.uint8)
    for packed in (np.zeros((1, 4, 5), np.uint8), np.zeros((2, 4, 6), np.uint8), np.zeros((2, 4, 5), np.float32)):
        with pytest.raises(ValueError, match="pack_masks"):
            module.pack_masks(masks, packed)
    with pytest.raises(ValueError, match="unpack_masks"):
        module.unpack_masks(np.zeros((2, 4, 5), np.uint8), np.zeros((17, 4, 5), np.uint8))
    with pytest.raises(ValueError, match="unpack_masks"):
        module.unpack_masks(np.zeros((2, 4, 10), np.uint8)[:, :, ::2], masks)


def test_nearest_warps_and_resizes_of_masks_eight_to_a_byte_equal_plane_by_plane(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Masks of 0 / 1 warped (affine, perspective) and resized through the packed planes give the bytes of the
    plane-by-plane path, for any count of planes, fills of 0 and 1, batch dims and crops; other masks (a value
    above 1) and other fills take the planes as they are."""
    import visiontx.functional as F
    from visiontx import datapoints as D
    from visiontx.functional._cv2 import _geometry as geometry_wing, _masks, _warp

    _native()
    rng = np.random.default_rng(0)
    packed_calls = []
    sample = _masks.sample_packed

    def spy(*args):
        out = sample(*args)
        packed_calls.append(out is not None)
        return out

    for trial in range(120):
        planes = int(rng.integers(1, 21))
        height, width = (int(n) for n in rng.integers(2, 40, 2))
        shape = (planes, height, width) if trial % 5 else (2, (planes + 1) // 2, height, width)
        masks = torch.from_numpy(rng.integers(0, 2, shape, dtype=np.uint8))
        if trial % 7 == 0:
            masks.view(-1)[0] = 3
        if trial % 11 == 0:
            masks = masks[..., 1:, 1:]
        fill = [None, [0.0], [1.0], [float(v) for v in rng.integers(0, 2, masks.shape[-3])], [0.5]][trial % 5]
        size = [int(rng.integers(1, 60)), int(rng.integers(1, 60))]
        affine = dict(angle=float(rng.uniform(-180, 180)), translate=[2.0, -1.0], scale=float(rng.uniform(0.5, 2.0)),
                      shear=[3.0, 1.0], fill=fill)
        corners = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        moved = [[x + float(rng.uniform(-3, 3)), y + float(rng.uniform(-3, 3))] for x, y in corners]

        def run() -> list[torch.Tensor]:
            mask = D.Mask(masks)
            return [F.affine(mask, **affine), F.perspective(mask, corners, moved, fill=fill), F.resize(mask, size)]

        modules = (_warp, geometry_wing)
        packed = run_patched(monkeypatch, modules, "sample_packed", spy, run)
        plain = run_patched(monkeypatch, modules, "sample_packed", lambda *args: None, run)
        for got, expected in zip(packed, plain):
            assert torch.equal(got, expected), (shape, fill)
    assert sum(packed_calls) > 150 and not all(packed_calls)


# ------------------------------------------------------------------------------------------ nearest source points
def test_nearest_points_equal_the_numpy_steps(loops: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled source points of nearest warps (``nearest_points``) equal the numpy version's float32 steps,
    rounding and off-image -1s, for affine, projective, degenerate (0 / 0, overflowing) and tie-making maps."""
    from visiontx.functional._cv2 import _warp

    rng = np.random.default_rng(1 if loops == "avx2" else 2)
    for trial in range(400):
        out_size = (int(rng.integers(1, 50)), int(rng.integers(1, 50)))
        in_size = (int(rng.integers(1, 70)), int(rng.integers(1, 70)))
        matrix = rng.normal(0, 1, (3, 3)) * rng.choice([1e-3, 1.0, 10.0, 1e30])
        kind = trial % 5
        if kind == 0:
            matrix[2] = [0, 0, 1]
        elif kind == 1:
            matrix[2] = [0, 0, 0]  # every point 0 / 0 or infinite
        elif kind == 2:
            matrix[2] = [1e-3, -2e-3, 1]
        elif kind == 3:
            matrix = np.array([[0.5, 0, 0.25], [0, 0.5, 0.25], [0, 0, 1]])  # source points on half-pixel ties
        inverse = matrix.tolist() if kind != 4 else matrix[:2].tolist()
        compiled = [a.copy() for a in _warp._rounded_source_points(inverse, out_size, in_size)]
        with monkeypatch.context() as patch:
            patch.setattr(_warp, "native", lambda: None)
            expected = _warp._rounded_source_points(inverse, out_size, in_size)
        for got, want in zip(compiled, expected):
            assert np.array_equal(got, want), (trial, out_size, in_size)


def test_nearest_points_rejects_bad_buffers() -> None:
    module = _native()
    u, v = np.zeros((3, 4), np.float32), np.zeros((3, 4), np.float32)
    module.nearest_points(u, v, [1.0, 0, 0, 0, 1, 0, 0, 0, 1], False, 2.0, 1.5, -1.5, -1.0)  # the valid call
    for args, message in [
        ((u, np.zeros((3, 5), np.float32), [0.0] * 9, False, 1.0, 1.0, 0.5, 0.5), "one shape"),
        ((u.astype(np.float64), v, [0.0] * 9, False, 1.0, 1.0, 0.5, 0.5), "u must be"),
        ((u, v[:, ::2], [0.0] * 9, False, 1.0, 1.0, 0.5, 0.5), "C-contiguous"),
        ((u, v, [0.0] * 8, False, 1.0, 1.0, 0.5, 0.5), "coefficients must hold 9"),
    ]:
        with pytest.raises(ValueError, match=message):
            module.nearest_points(*args)


# ------------------------------------------------------------------------------------------ constant pad
def test_pad_equals_copy_make_border_plane_by_plane(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled constant pad gives OpenCV's ``copyMakeBorder`` planes: any sides (zeros among them), one fill
    or one per channel, batch dims and crops (strided rows)."""
    import visiontx.functional as F
    from visiontx.functional._cv2 import _geometry

    _native()
    rng = np.random.default_rng(0)
    for trial in range(150):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 40)), int(rng.integers(1, 40)))
        image = torch.from_numpy(rng.integers(0, 256, ((2,) if trial % 4 == 0 else ()) + shape, dtype=np.uint8))
        if trial % 3 == 0:
            image = image[..., 1:, :-1] if image.shape[-1] > 1 and image.shape[-2] > 1 else image
        padding = [int(v) for v in rng.integers(0, 12, 4)]
        fill = [int(rng.integers(0, 256))] if trial % 2 else [int(v) for v in rng.integers(0, 256, image.shape[-3])]
        padded = F.pad(image, padding, fill=fill)
        with monkeypatch.context() as patch:
            patch.setattr(_geometry, "native", lambda: None)
            expected = F.pad(image, padding, fill=fill)
        assert torch.equal(padded, expected), (image.shape, padding, fill)


def test_pad_rejects_what_it_cannot_write() -> None:
    module = _native()
    src = np.zeros((2, 3, 4), np.uint8)
    module.pad(src, np.empty((2, 5, 7), np.uint8), (1, 1, 2, 1), b"\x01\x02")  # the valid call
    for dst, sides, fills in [(np.empty((2, 5, 8), np.uint8), (1, 1, 2, 1), b"\x01\x02"),
                              (np.empty((2, 5, 7), np.uint8), (1, 1, 2, 1), b"\x01"),
                              (np.empty((2, 5, 7), np.uint8), (-1, 1, 4, 1), b"\x01\x02"),
                              (np.empty((3, 5, 7), np.uint8), (1, 1, 2, 1), b"\x01\x02")]:
        with pytest.raises(ValueError, match="pad: src"):
            module.pad(src, dst, sides, fills)


# ---------------------------------------------------------------------------------------------- Gaussian blur
def _torch_blur(planes: torch.Tensor, wx: list[float], wy: list[float]) -> torch.Tensor:
    """visiontx's torch path of the blur of ``N x H x W`` planes (uint8: rounded and saturated)."""
    from visiontx.functional._dtype import clamp_to_range_
    from visiontx.functional._misc._blur import _blur_planes_torch

    out = _blur_planes_torch(planes[:, None].to(torch.float32), wx, wy)[:, 0]
    return out if planes.is_floating_point() else clamp_to_range_(out, planes.dtype).to(planes.dtype)


def _native_blur(planes: torch.Tensor, wx: list[float], wy: list[float]) -> torch.Tensor | None:
    out = np.empty(planes.shape, planes.numpy().dtype)
    return torch.from_numpy(out) if _native().blur(planes.numpy(), out, wx, wy) else None


def _gaussian(size: int, sigma: float) -> list[float]:
    from visiontx.functional._misc._blur import _weights

    return _weights(size, sigma)


@pytest.fixture(params=["16 lanes", "8 lanes"])
def blur_lanes(request: pytest.FixtureRequest):
    """The blur's AVX-512 loops (where the CPU has them) and its AVX2 ones alone."""
    yield from _switched("set_avx512", request.param == "16 lanes", request.param)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("width", [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 70, 130])
def test_blur_equals_the_torch_path_value_for_value(dtype: torch.dtype, width: int, blur_lanes: str) -> None:
    """The torch path's float32 steps (a product, then fused multiply-adds, vertical pass first): every value equal,
    on widths around the 8-, 16-, 32- and 64-value blocks, kernels from 1 tap to one reaching the far border, crops
    (strided rows and planes), ties of uint8 rounding (a flat image blurred by weights of one half)."""
    base = make_image_tensor((26, width + 5), batch_dims=(2,), seed=width).reshape(-1, 26, width + 5)
    if dtype == torch.float32:
        base = base.to(torch.float32) * 0.37 - 40.0
    planes = base[:, 2:24, 3 : 3 + width]  # 22 rows
    for kx, ky in [(1, 1), (3, 3), (9, 5), (1, 13), (2 * width - 1, 43)]:
        if kx // 2 >= width:
            continue
        wx, wy = _gaussian(kx, 0.3 + 0.2 * kx), _gaussian(ky, 0.5 + 0.25 * ky)
        out = _native_blur(planes, wx, wy)
        if out is None:  # no AVX2 with FMA: nothing written, OpenCV's path blurs
            assert not _native().AVX2
            return
        expected = _torch_blur(planes, wx, wy)
        assert out.dtype == dtype
        assert torch.equal(out.view(torch.int32) if dtype == torch.float32 else out,
                           expected.view(torch.int32) if dtype == torch.float32 else expected), (kx, ky)
    ties = torch.full((1, 4, width + 2), 3, dtype=torch.uint8)
    ties[..., ::2] = 4  # (3 + 4) / 2 = 3.5 and 4.5 -> 4: half to even
    halves = [0.5, 0.5, 0.0]
    if width + 2 > 1:
        assert torch.equal(_native_blur(ties, halves, [1.0]), _torch_blur(ties, halves, [1.0]))


def test_blur_writes_nothing_without_avx2_and_never_writes_its_input() -> None:
    module = _native()
    planes = make_image_tensor((9, 40), channels=3)
    before = planes.clone()
    out = np.zeros(planes.shape, np.uint8)
    previous = module.set_avx2(False)
    try:
        assert module.blur(planes.numpy(), out, [0.25, 0.5, 0.25], [1.0]) is False
        assert not out.any()
    finally:
        module.set_avx2(previous)
    assert module.blur(planes.numpy(), out, [0.25, 0.5, 0.25], [1.0]) is bool(module.AVX2)
    assert torch.equal(planes, before)


def test_blur_rejects_what_it_cannot_read_or_write() -> None:
    module = _native()
    planes = np.zeros((2, 6, 9), np.uint8)
    out = np.empty_like(planes)
    weights, layout = "odd number of weights", "3-D uint8 or float32 buffer with contiguous rows"
    bad = [
        ((planes, out, [0.5, 0.5], [1.0]), ValueError, weights),  # an even kernel
        ((planes, out, [], [1.0]), ValueError, weights),
        ((planes, out, [1.0] * 1027, [1.0]), ValueError, weights),
        ((planes, out, 3, [1.0]), ValueError, weights),  # not a sequence
        ((planes, out, [1.0], ["a"]), TypeError, "str"),
        ((planes, out, [1.0] * 19, [1.0]), ValueError, "larger than half of each kernel"),
        ((planes, out, [1.0], [1.0] * 13), ValueError, "larger than half of each kernel"),
        ((planes, np.empty((2, 6, 9), np.float32), [1.0], [1.0]), ValueError, layout),
        ((planes.astype(np.int16), out.astype(np.int16), [1.0], [1.0]), ValueError, layout),
        ((planes, np.empty((2, 6, 8), np.uint8), [1.0], [1.0]), ValueError, layout),
        ((planes[0], out[0], [1.0], [1.0]), ValueError, layout),
        ((planes[:, :, ::2], np.empty((2, 6, 5), np.uint8), [1.0], [1.0]), ValueError, layout),
        ((planes, out[:, ::-1], [1.0], [1.0]), (ValueError, BufferError), "contiguous"),
    ]
    for args, error, match in bad:
        with pytest.raises(error, match=match):
            module.blur(*args)


@pytest.mark.parametrize("dtype", [torch.float32, torch.uint8])
def test_blurs_take_the_compiled_kernel_and_equal_the_torch_path(dtype: torch.dtype) -> None:
    """``F.gaussian_blur`` of float32 images (and ElasticTransform's displacement field) runs the compiled blur where
    the CPU has AVX2 and FMA, of uint8 ones where it also has AVX-512: the torch path's values exactly, where
    OpenCV's ``sepFilter2D`` differs in the last bits (a level for uint8)."""
    from visiontx import functional as F

    module = _native()
    if not module.AVX2 or (dtype == torch.uint8 and not module.AVX512):
        pytest.skip("this CPU blurs these images with OpenCV (tested in test_functional_misc)")
    image = make_image_tensor((37, 150), batch_dims=(2,), dtype=dtype)
    fast = F.gaussian_blur(image, [9, 5], [2.0, 1.1])
    with _cv2.disabled():
        expected = F.gaussian_blur(image, [9, 5], [2.0, 1.1])
    as_bits = (lambda t: t.view(torch.int32)) if dtype == torch.float32 else (lambda t: t)
    assert torch.equal(as_bits(fast), as_bits(expected))


def test_kernels_longer_than_the_compiled_blur_takes_go_to_opencv() -> None:
    """1025 taps at most reach the compiled blur (a ValueError there); longer ones take sepFilter2D, as before."""
    from visiontx import functional as F

    image = make_image_tensor((3, 1100), dtype=torch.float32)
    out = F.gaussian_blur(image, [1027, 1], [300.0, 1.0])
    with _cv2.disabled():
        expected = F.gaussian_blur(image, [1027, 1], [300.0, 1.0])
    torch.testing.assert_close(out, expected, rtol=0, atol=1e-5)
    with pytest.raises(ValueError, match="odd number of weights, 1 to 1025"):
        _native().blur(image.numpy(), np.empty_like(image.numpy()), [1 / 1027] * 1027, [1.0])
