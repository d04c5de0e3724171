"""Large outputs in numpy's memory (functional/_memory.py): the same values, dtypes and strides as the torch ops
they replace, for every layout; the paths are exercised at small sizes by lowering the threshold."""

from __future__ import annotations

import pytest
import torch

import visiontx.functional as F
from visiontx.functional import _cv2, _memory


@pytest.fixture
def everything_large(monkeypatch):
    monkeypatch.setattr(_memory, "LARGE_BYTES", 1)


def _in_numpy_memory(tensor: torch.Tensor) -> bool:
    return not tensor.untyped_storage().resizable()  # torch's own storages are resizable, numpy's are not


def _layouts(dtype: torch.dtype) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    base = torch.randint(0, 256, (2, 3, 9, 11), generator=generator).to(dtype)
    return [
        base,
        base[0],
        base.contiguous(memory_format=torch.channels_last),
        base[0].permute(1, 2, 0).contiguous().permute(2, 0, 1),  # interleaved pixels seen as C x H x W
        base[:, :, 2:7, 1:10],  # a crop: not dense
        base[0, 0],
        base[0].expand(4, 3, 9, 11),  # stride 0
    ]


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float64, torch.int16, torch.bool])
def test_copies_match_torch(everything_large, dtype) -> None:
    for tensor in _layouts(dtype):
        before = tensor.clone()
        for got, expected in [
            (_memory.copy_of(tensor), tensor.clone()),
            (_memory.converted(tensor, torch.float32), tensor.to(torch.float32, copy=True)),
            (_memory.contiguous(tensor), tensor.contiguous()),
        ]:
            assert got.dtype == expected.dtype and got.stride() == expected.stride()
            assert torch.equal(got, expected)
            assert _in_numpy_memory(got) or got.data_ptr() == tensor.data_ptr()
        empty = _memory.fresh_like(tensor, torch.int32)
        assert empty.stride() == torch.empty_like(tensor, dtype=torch.int32).stride() and _in_numpy_memory(empty)
        assert torch.equal(tensor, before)


def test_small_or_special_tensors_stay_in_torch_memory() -> None:
    small = torch.zeros(3, 8, 8)
    assert not _in_numpy_memory(_memory.copy_of(small))
    large = torch.zeros(3, 1024, 1024)  # 12 MB of float32
    assert _memory.is_large(large) and _in_numpy_memory(_memory.copy_of(large))
    assert not _memory.is_large(large.to(torch.bfloat16))  # numpy has no bfloat16
    assert not _memory.is_large(large.requires_grad_())
    assert not _memory.is_large(torch.zeros(3, 1024, 1024, device="meta"))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.bool, torch.int16])
def test_flips_match_torch(everything_large, dtype) -> None:
    for tensor in _layouts(dtype):
        for flip, dim in ((F.horizontal_flip_image_tensor, -1), (F.vertical_flip_image_tensor, -2)):
            got, expected = flip(tensor), tensor.flip(dim)
            assert got.dtype == expected.dtype and torch.equal(got, expected)
            assert _in_numpy_memory(got) == (dtype != torch.int16)  # OpenCV for uint8, bool and float32


def test_flip_of_a_large_image_takes_opencv() -> None:
    image = torch.randint(0, 256, (3, 1300, 1100), dtype=torch.uint8)  # 4.3 MB
    assert _cv2.can_flip(image) == _cv2.available()
    assert torch.equal(F.horizontal_flip(image), image.flip(-1))
    assert torch.equal(F.vertical_flip(image[:, 5:, 3:]), image[:, 5:, 3:].flip(-2))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float16, torch.int32])
def test_to_dtype_matches_torch(everything_large, dtype) -> None:
    for tensor in _layouts(dtype):
        if dtype == torch.bool:
            continue
        for out_dtype in (torch.float32, torch.float64, torch.uint8, torch.int16, dtype):
            for scale in (False, True):
                if scale and dtype.is_floating_point and out_dtype in (torch.int32, torch.int64):
                    continue
                with _cv2.disabled():
                    got = F.to_dtype_image_tensor(tensor, out_dtype, scale=scale)
                monkey = _memory.LARGE_BYTES
                _memory.LARGE_BYTES = 1 << 62  # the torch ops
                try:
                    with _cv2.disabled():
                        expected = F.to_dtype_image_tensor(tensor, out_dtype, scale=scale)
                finally:
                    _memory.LARGE_BYTES = monkey
                assert got.dtype == expected.dtype and got.stride() == expected.stride()
                assert torch.equal(got, expected) and got.data_ptr() != tensor.data_ptr()


def test_normalize_noise_and_erase_match_torch(everything_large) -> None:
    for tensor in _layouts(torch.float32):
        if tensor.ndim < 3:
            continue
        image = tensor / 255
        mean, std = [0.4, 0.5, 0.6], [0.2, 0.3, 0.25]
        expected = image.sub(torch.tensor(mean)[:, None, None]).div_(torch.tensor(std)[:, None, None])
        got = F.normalize_image_tensor(image, mean, std)
        assert torch.equal(got, expected) and got.stride() == expected.stride() and _in_numpy_memory(got)
        generator = torch.Generator().manual_seed(1)
        noise = torch.empty_like(image).normal_(generator=torch.Generator().manual_seed(1))
        got = F.gaussian_noise_image_tensor(image, mean=0.1, sigma=0.3, clip=False, generator=generator)
        assert torch.equal(got, image + (0.1 + noise * 0.3)) and _in_numpy_memory(got)
        clipped = F.gaussian_noise_image_tensor(image, 0.1, 0.3, generator=torch.Generator().manual_seed(1))
        assert torch.equal(clipped, (image + (0.1 + noise * 0.3)).clamp_(0, 1))
        with _cv2.disabled():
            erased = F.erase_image_tensor(image, 1, 2, 3, 4, torch.tensor(0.5))
        expected = image.clone()
        expected[..., 1:4, 2:6] = 0.5
        assert torch.equal(erased, expected) and _in_numpy_memory(erased)


def test_noise_keeps_autograd() -> None:
    image = torch.rand(3, 8, 8, requires_grad=True)
    F.gaussian_noise_image_tensor(image, sigma=0.1, clip=False).sum().backward()
    assert torch.equal(image.grad, torch.ones_like(image))


def test_empty_and_constant_pads(everything_large) -> None:
    like = torch.zeros(3, 4, 4)
    out = _memory.empty((2, 3, 5), torch.float64, like)
    assert out.shape == (2, 3, 5) and out.dtype == torch.float64 and out.is_contiguous() and _in_numpy_memory(out)
    assert not _in_numpy_memory(_memory.empty((2, 3), torch.float32, like.requires_grad_()))
    image = torch.rand(2, 3, 6, 7)
    with _cv2.disabled():
        got = F.pad_image_tensor(image, [1, 2, 3, 4], fill=[0.1, 0.2, 0.3])
    expected = torch.stack([torch.nn.functional.pad(image[:, c], [1, 3, 2, 4], value=v)
                            for c, v in enumerate([0.1, 0.2, 0.3])], dim=1)
    assert torch.equal(got, expected.to(torch.float32)) and _in_numpy_memory(got)
