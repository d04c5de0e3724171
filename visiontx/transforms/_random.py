"""Scalar draws from torch's default CPU generator, without a new tensor per draw.

``rand()``, ``uniform(low, high)`` and ``randint(low, high)`` return the values that
``torch.rand(1).item()``, ``torch.empty(1).uniform_(low, high).item()`` and
``torch.randint(low, high, ()).item()`` would, consuming the generator the same way, so
``torch.manual_seed`` reproduces a run (and gives torchvision's draws for the same calls);
``peek(n)`` and ``skip(n)`` let a search draw in bulk and consume only what it used. They fill
a one-element scratch tensor in place instead of creating one, as creating it would be most of the
cost of a draw (and of a coin flip). The scratch tensors are per thread, so transforms
shared by threads never read each other's draws. Draws always come from the CPU generator, also when
torch's default device is a GPU.
"""

from __future__ import annotations

import threading

import torch


class _Scratch(threading.local):
    """Per-thread one-element tensors the draws fill in place, and a generator to look ahead with."""

    def __init__(self) -> None:
        with torch.inference_mode(False):  # a thread's first draw may come inside inference mode
            self.float = torch.empty(1, dtype=torch.float32, device="cpu")
            self.int = torch.empty(1, dtype=torch.int64, device="cpu")
        self.lookahead = torch.Generator(device="cpu")


_scratch = _Scratch()


def rand() -> float:
    """A float32 draw from ``[0, 1)``, as ``torch.rand(1).item()``."""
    return _scratch.float.uniform_().item()


def uniform(low: float, high: float) -> float:
    """A float32 draw from ``[low, high)``, as ``torch.empty(1).uniform_(low, high).item()``."""
    return _scratch.float.uniform_(low, high).item()


def randint(low: int, high: int | None = None) -> int:
    """An int from ``[low, high)`` (``[0, low)`` when ``high`` is omitted), as ``torch.randint``."""
    if high is None:
        low, high = 0, low
    return _scratch.int.random_(low, high).item()


def peek(n: int) -> torch.Tensor:
    """The next ``n`` float32 draws from ``[0, 1)`` (what ``torch.rand(n)`` would give), without
    consuming them: a search can look at a bulk of draws and :func:`skip` only those it used, so the
    generator ends where draw-by-draw ``torch.rand`` calls would have left it. (Another thread drawing
    from the default generator in between would get some of the same values.)"""
    generator = _scratch.lookahead
    generator.set_state(torch.default_generator.get_state())
    with torch.inference_mode(False):
        return torch.rand(n, generator=generator, device="cpu")


def skip(n: int) -> None:
    """Consume ``n`` float32 draws (as ``torch.rand(n)`` would)."""
    with torch.inference_mode(False):
        torch.empty(n, dtype=torch.float32, device="cpu").uniform_()
