"""Large uniform draws by the compiled twister (``visiontx/_native_random.c``): torch.rand's floats, torch's state."""

from __future__ import annotations

import threading

import pytest
import torch

import visiontx.transforms as T
from visiontx.datapoints import Image
from visiontx.transforms import _random

from .test_native import X86_64


def _native():
    """The compiled module the draws use (built wherever this suite runs on x86-64, SIMD or not)."""
    if _random._compiled is None and not X86_64:
        pytest.skip("visiontx._native not built on this machine")
    assert _random._compiled is not None, "visiontx._native was not built (pip install -e . needs a C compiler)"
    return _random._compiled


@pytest.fixture
def one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process counted as running one Python thread, whatever threads the test runner keeps."""
    monkeypatch.setattr(_random, "_one_python_thread", lambda: True)


@pytest.fixture(params=["avx2", "sse2"])
def twister(request: pytest.FixtureRequest):
    """The compiled module, with its AVX2 loop (where the CPU has it) and with its SSE2 one."""
    module = _native()
    before = module.set_avx2(request.param == "avx2")
    yield module
    module.set_avx2(before)


def _mid_stream(seed: int, scalar_draws: int) -> torch.Generator:
    """A generator after ``scalar_draws`` single draws: the twister's position anywhere in its 624 words."""
    generator = torch.Generator().manual_seed(seed)
    for _ in range(scalar_draws):
        torch.rand(1, generator=generator)
    return generator


@pytest.mark.parametrize("numel", [1, 623, 624, 625, 8192, 3 * 624 + 17, 100_003])
@pytest.mark.parametrize("scalar_draws", [0, 1, 300, 623, 624])
@pytest.mark.parametrize("centred", [False, True])
def test_twister_gives_torch_floats_and_state(twister, numel: int, scalar_draws: int, centred: bool) -> None:
    ours, theirs = _mid_stream(7, scalar_draws), _mid_stream(7, scalar_draws)
    drawn = _random._twisted(twister, ours, numel, centred)
    expected = torch.rand(numel, generator=theirs)
    if centred:
        expected = expected.mul_(2).sub_(1)
    assert drawn is not None
    torch.testing.assert_close(drawn, expected, rtol=0, atol=0)
    assert torch.equal(ours.get_state(), theirs.get_state())
    # the generator goes on as torch's does: scalar draws and another bulk draw
    assert torch.equal(torch.rand(5, generator=ours), torch.rand(5, generator=theirs))


def test_bulk_draws_are_checked_against_torch(twister) -> None:
    assert _random._bulk_matches_torch(twister)


def test_uniform_tensor_takes_the_twister_for_large_cpu_draws(monkeypatch: pytest.MonkeyPatch, one_thread) -> None:
    _native()
    _random.uniform_tensor((1 << 13,), torch.Generator())  # the first bulk draw checks the twister against torch
    torch.manual_seed(11)
    expected = torch.rand(2, 1, 64, 200).mul_(2).sub_(1)
    after = torch.rand(3)
    torch.manual_seed(11)

    def refuse(*args, **kwargs):
        raise AssertionError("torch.rand was called: the twister did not draw")

    monkeypatch.setattr(_random.torch, "rand", refuse)
    drawn = _random.uniform_tensor((2, 1, 64, 200), None, centred=True)
    monkeypatch.undo()
    assert drawn.shape == (2, 1, 64, 200) and drawn.dtype == torch.float32
    assert torch.equal(drawn, expected)
    assert torch.equal(torch.rand(3), after)  # the global generator left where torch leaves it


def test_small_draws_float64_defaults_and_other_threads_take_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    _native()
    generator = torch.Generator().manual_seed(5)
    with monkeypatch.context() as patch:
        patch.setattr(_random, "_one_python_thread", lambda: True)
        assert _random._bulk_uniform(100_000, generator, False) is not None
        patch.setattr(_random, "_twisted", None)  # the twister is not reached:
        theirs = torch.Generator().set_state(generator.get_state())
        assert torch.equal(_random.uniform_tensor((100,), generator), torch.rand(100, generator=theirs))  # small
        patch.setattr(torch, "get_default_dtype", lambda: torch.float64)  # torch.rand would draw two words a float
        _random.uniform_tensor((100_000,), torch.Generator())
    release = threading.Event()
    worker = threading.Thread(target=release.wait)
    worker.start()
    try:  # another thread could draw from the generator between the state's read and its write
        assert _random._bulk_uniform(100_000, generator, False) is None
        theirs = torch.Generator().set_state(generator.get_state())
        assert torch.equal(_random.uniform_tensor((100_000,), generator), torch.rand(100_000, generator=theirs))
    finally:
        release.set()
        worker.join()


def test_cpu_draws_under_another_default_device(one_thread) -> None:
    _native()
    generator, theirs = torch.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    torch.set_default_device("meta")
    try:
        drawn = _random.uniform_tensor((300, 100), generator, device=torch.device("cpu"))
    finally:
        torch.set_default_device(None)
    assert drawn.device.type == "cpu" and torch.equal(drawn, torch.rand(300, 100, generator=theirs))


def test_elastic_field_equals_torchs_draws(monkeypatch: pytest.MonkeyPatch, one_thread) -> None:
    _native()
    image = Image(torch.randint(0, 256, (3, 150, 120), dtype=torch.uint8))
    twisted = _random._twisted
    calls = []
    monkeypatch.setattr(_random, "_twisted", lambda *args: calls.append(args) or twisted(*args))
    torch.manual_seed(3)
    fast = T.ElasticTransform(alpha=30.0, sigma=4.0)(image)
    assert len(calls) == 2  # both noise planes by the twister
    monkeypatch.setattr(_random, "_BULK_DRAWS", 1 << 62)  # torch's own draws
    torch.manual_seed(3)
    slow = T.ElasticTransform(alpha=30.0, sigma=4.0)(image)
    assert torch.equal(fast, slow)
