"""Every random draw of the transforms: from torch's default CPU generator, or from the current generator.

``rand()``, ``uniform(low, high)`` and ``randint(low, high)`` return the values that
``torch.rand(1).item()``, ``torch.empty(1).uniform_(low, high).item()`` and
``torch.randint(low, high, ()).item()`` would, consuming the generator the same way, so
``torch.manual_seed`` reproduces a run (and gives torchvision's draws for the same calls);
``randints(highs)`` makes several such int draws in one call; ``peek(n)`` and ``skip(n)`` let a search
draw in bulk and consume only what it used. They fill a scratch tensor in place instead of creating
one, as creating it would be most of the cost of a draw (and of a coin flip). The scratch tensors are
per thread, so transforms shared by threads never read each other's draws. Scalar draws always come
from a CPU generator, also when torch's default device is a GPU.

The current generator: while :func:`using` (or :func:`call_with`) holds a ``torch.Generator`` (a
transform's ``generator=``, a seeded ``Compose``, ``datasets.Augmented``'s per-sample generator), every
draw below comes from it and the global RNG is not touched; otherwise (None, the default) the draws
come from torch's global RNG exactly as before. The current generator is per thread.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

try:
    import visiontx._native as _compiled  # visiontx/_native_random.c's twister, where the module was built
except ImportError:
    _compiled = None


class _Scratch(threading.local):
    """Per-thread one-element tensors the draws fill in place, a generator to look ahead with, and the
    current generator (None: torch's default one)."""

    def __init__(self) -> None:
        with torch.inference_mode(False):  # a thread's first draw may come inside inference mode
            self.float = torch.empty(1, dtype=torch.float32, device="cpu")
            self.int = torch.empty(1, dtype=torch.int64, device="cpu")
        # numpy views of the same memory: reading a draw through them is cheaper than ``Tensor.item()``
        self.float_view = self.float.numpy()
        self.int_view = self.int.numpy()
        self.ints: dict[int, tuple[torch.Tensor, Any]] = {}  # by length, for randints
        self.lookahead = torch.Generator(device="cpu")
        self.generator: torch.Generator | None = None


_scratch = _Scratch()


def current_generator() -> torch.Generator | None:
    """The generator the draws of this thread come from now (None: torch's global RNG)."""
    return _scratch.generator


class using:
    """Context making ``generator`` the current one (None: leave the current one as it is)."""

    __slots__ = ("_generator", "_previous")

    def __init__(self, generator: torch.Generator | None) -> None:
        self._generator = generator

    def __enter__(self) -> None:
        self._previous = _scratch.generator
        if self._generator is not None:
            _scratch.generator = self._generator

    def __exit__(self, *exc: Any) -> None:
        _scratch.generator = self._previous


def call_with(generator: torch.Generator, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` with ``generator`` as the current generator (a cheaper :class:`using`)."""
    scratch = _scratch
    previous = scratch.generator
    scratch.generator = generator
    try:
        return function(*args)
    finally:
        scratch.generator = previous


def check_generator(generator: Any, name: str = "generator") -> torch.Generator | None:
    """``generator`` if it is None or a CPU ``torch.Generator``; else a ``TypeError`` / ``ValueError``."""
    if generator is None:
        return None
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"{name} must be a torch.Generator or None, got {type(generator).__name__}")
    if generator.device.type != "cpu":
        raise ValueError(f"{name} must be a CPU torch.Generator (draws are made on the CPU), got {generator.device}")
    return generator


def rand() -> float:
    """A float32 draw from ``[0, 1)``, as ``torch.rand(1).item()``."""
    scratch = _scratch
    generator = scratch.generator
    if generator is None:  # without the keyword: a quarter of the call's cost less
        scratch.float.uniform_()
    else:
        scratch.float.uniform_(generator=generator)
    return scratch.float_view.item(0)


def uniform(low: float, high: float) -> float:
    """A float32 draw from ``[low, high)``, as ``torch.empty(1).uniform_(low, high).item()``."""
    scratch = _scratch
    generator = scratch.generator
    if generator is None:
        scratch.float.uniform_(low, high)
    else:
        scratch.float.uniform_(low, high, generator=generator)
    return scratch.float_view.item(0)


def exp_uniform(low: float, high: float) -> float:
    """``exp`` (in float32) of a float32 draw from ``[low, high)``, as
    ``torch.exp(torch.empty(1).uniform_(low, high)).item()`` (one draw, the exponential taken in place)."""
    scratch = _scratch
    generator = scratch.generator
    if generator is None:
        scratch.float.uniform_(low, high).exp_()
    else:
        scratch.float.uniform_(low, high, generator=generator).exp_()
    return scratch.float_view.item(0)


def randint(low: int, high: int | None = None) -> int:
    """An int from ``[low, high)`` (``[0, low)`` when ``high`` is omitted), as ``torch.randint``."""
    if high is None:
        low, high = 0, low
    scratch = _scratch
    generator = scratch.generator
    if generator is None:
        scratch.int.random_(low, high)
    else:
        scratch.int.random_(low, high, generator=generator)
    return scratch.int_view.item(0)


# torch draws one 32-bit word per element for ranges below 2^28 (2.14; 2^32 in older releases), two above:
# a common range kept well below both takes one word a draw, as the draws it replaces
_ONE_WORD_RANGES = 1 << 24


def randints(highs: Sequence[int]) -> list[int]:
    """``[randint(high) for high in highs]`` in one draw call: the same values, the generator left the same.

    For a small range torch's ``random_(0, r)`` takes one 32-bit word ``x`` per element and returns ``x % r``;
    with ``r`` a common multiple of the ``highs``, ``(x % r) % high == x % high``. Larger ranges draw one by one.
    """
    common = math.lcm(*highs) if highs and min(highs) >= 1 else 0
    if not 1 <= common < _ONE_WORD_RANGES:
        return [randint(high) for high in highs]
    scratch = _scratch
    buffers = scratch.ints.get(len(highs)) or _int_buffers(len(highs))
    generator = scratch.generator
    if generator is None:
        buffers[0].random_(0, common)
    else:
        buffers[0].random_(0, common, generator=generator)
    return [value % high for value, high in zip(buffers[1].tolist(), highs)]


def _int_buffers(n: int) -> tuple[torch.Tensor, Any]:
    """This thread's ``n``-element int64 scratch tensor for :func:`randints`, and its numpy view."""
    with torch.inference_mode(False):
        tensor = torch.empty(n, dtype=torch.int64, device="cpu")
    buffers = _scratch.ints[n] = (tensor, tensor.numpy())
    return buffers


def peek(n: int) -> torch.Tensor:
    """The next ``n`` float32 draws from ``[0, 1)`` (what ``torch.rand(n)`` would give), without
    consuming them: a search can look at a bulk of draws and :func:`skip` only those it used, so the
    generator ends where draw-by-draw ``torch.rand`` calls would have left it. (Another thread drawing
    from the same generator in between would get some of the same values.)"""
    lookahead = _scratch.lookahead
    lookahead.set_state((_scratch.generator or torch.default_generator).get_state())
    with torch.inference_mode(False):
        return torch.rand(n, generator=lookahead, device="cpu")


def skip(n: int) -> None:
    """Consume ``n`` float32 draws (as ``torch.rand(n)`` would)."""
    with torch.inference_mode(False):
        torch.empty(n, dtype=torch.float32, device="cpu").uniform_(generator=_scratch.generator)


def rand_tensor(*size: int) -> torch.Tensor:
    """``torch.rand(*size)`` (float32, CPU) from the current generator."""
    return uniform_tensor(size, _scratch.generator)


def uniform_tensor(
    size: Sequence[int], generator: torch.Generator | None, device: torch.device | None = None, centred: bool = False
) -> torch.Tensor:
    """``torch.rand(size, generator=generator, device=device)``, or ``2 * rand - 1`` when ``centred`` (torch's
    ``rand(...).mul_(2).sub_(1)``). Large float32 CPU draws take :func:`_bulk_uniform`: the same floats."""
    numel = math.prod(size)
    if (
        numel >= _BULK_DRAWS and torch.get_default_dtype() is torch.float32  # float64 draws take two words each
        and torch.device(device or torch.get_default_device()).type == "cpu"
    ):
        bulk = _bulk_uniform(numel, generator or torch.default_generator, centred)
        if bulk is not None:
            return bulk.view(*size)
    noise = torch.rand(size, generator=generator, device=device)
    return noise.mul_(2).sub_(1) if centred else noise


# torch's CPU generator state (``Generator.get_state()``, torch 1.x to 2.x): the seed (8 bytes), ``left`` and
# ``seeded`` (int32 each), ``next`` (8), the Mersenne Twister's 624 words (8 bytes each, the low 4 used), then the
# normal draws' cache, which uniform draws leave alone. The next draw takes word ``next`` after a twist when
# ``left`` is 1: the twister's position is ``625 - left``.
_STATE_BYTES = 5056
_LEFT, _NEXT, _WORDS = slice(8, 12), slice(16, 24), slice(24, 24 + 624 * 8)
_BULK_DRAWS = 1 << 13  # fewer: torch's loop is cheaper than the state's round trip
_bulk_checked: bool | None = None  # whether the compiled loop gives torch's floats (checked on first use)


def _bulk_uniform(numel: int, generator: torch.Generator, centred: bool) -> torch.Tensor | None:
    """``numel`` float32 draws of ``generator`` (a CPU one) as ``torch.rand`` gives them, by the compiled twister
    (``visiontx/_native_random.c``, 7-9x torch's one-at-a-time loop) on the generator's state, which then goes
    back advanced as far as ``torch.rand`` would leave it. None where that cannot be done: no compiled module,
    another state layout, a generator on another device, or other Python threads alive (one could draw from
    the same generator between the state's read and its write)."""
    global _bulk_checked
    module = _compiled
    if module is None or generator.device.type != "cpu" or not _one_python_thread():
        return None
    if _bulk_checked is None:
        _bulk_checked = _bulk_matches_torch(module)
    return _twisted(module, generator, numel, centred) if _bulk_checked else None


def _one_python_thread() -> bool:
    return threading.active_count() == 1


def _twisted(module: Any, generator: torch.Generator, numel: int, centred: bool) -> torch.Tensor | None:
    state = generator.get_state()
    raw = state.numpy()
    if raw.size != _STATE_BYTES:
        return None
    left, following = int(raw[_LEFT].view(np.int32)[0]), int(raw[_NEXT].view(np.uint64)[0])
    if not (left == 1 or 1 < left <= 624 and following == 625 - left):
        return None  # not the layout this reads
    stored = raw[_WORDS].view(np.uint64)
    words = stored.astype(np.uint32)
    with torch.inference_mode(False):
        out = torch.empty(numel, dtype=torch.float32, device="cpu")
    position = module.mt_uniform(words, 625 - left, out.numpy(), centred)
    stored[:] = words
    raw[_LEFT].view(np.int32)[0] = 625 - position
    raw[_NEXT].view(np.uint64)[0] = position
    generator.set_state(state)
    return out


def _bulk_matches_torch(module: Any) -> bool:
    """Whether the compiled twister gives ``torch.rand``'s floats and leaves the generator's state as it does, over
    several twists from a fresh seed and from a mid-state position."""
    ours, torchs = torch.Generator().manual_seed(20261125), torch.Generator().manual_seed(20261125)
    for numel in (1000, 3 * 624 + 5):
        mine = _twisted(module, ours, numel, False)
        expected = torch.rand(numel, generator=torchs, dtype=torch.float32, device="cpu")
        if mine is None or not torch.equal(mine, expected):
            return False
    return torch.equal(ours.get_state(), torchs.get_state())


def normal_tensor(*size: int) -> torch.Tensor:
    """``torch.empty(*size).normal_()`` (float32, CPU) from the current generator."""
    return torch.empty(size).normal_(generator=_scratch.generator)


def randperm(n: int) -> list[int]:
    """A random permutation of ``range(n)``, as ``torch.randperm(n).tolist()``."""
    return torch.randperm(n, generator=_scratch.generator).tolist()


def choice(weights: Sequence[float]) -> int:
    """An index drawn with probabilities proportional to ``weights``, as ``torch.multinomial``."""
    return int(torch.multinomial(torch.tensor(weights), 1, generator=_scratch.generator))


def dirichlet(concentration: torch.Tensor) -> torch.Tensor:
    """A draw of ``torch.distributions.Dirichlet(concentration).sample()`` (the last dimension sums to 1),
    on ``concentration``'s device."""
    generator = device_generator(concentration.device)
    if generator is None:
        return torch.distributions.Dirichlet(concentration).sample()
    return torch._sample_dirichlet(concentration, generator=generator)  # the sampler Dirichlet calls


def beta(alpha: float) -> float:
    """A draw of ``Beta(alpha, alpha)``, as ``torch.distributions.Beta(a, a).sample(())`` with
    ``a = torch.tensor([alpha])`` (the first of a two-component Dirichlet draw)."""
    concentration = torch.tensor([alpha])
    if _scratch.generator is None:
        return float(torch.distributions.Beta(concentration, concentration).sample(()))
    return float(dirichlet(torch.tensor([[alpha, alpha]]))[0, 0])


def device_generator(device: torch.device) -> torch.Generator | None:
    """The generator for tensor draws on ``device``: None (the device's global RNG) without a current
    generator; the current generator on the CPU; elsewhere a new generator of the device seeded with one
    draw from the current generator."""
    generator = _scratch.generator
    if generator is None or device.type == "cpu":
        return generator
    return torch.Generator(device=device).manual_seed(randint(0, 2**62))
