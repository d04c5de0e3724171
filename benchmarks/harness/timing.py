"""Fair timing on a loaded machine: peers measured in interleaved blocks (A/B/C, B/C/A, ...), medians."""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True)
class Settings:
    """How long to measure: ``repeats`` interleaved blocks of about ``block_s`` seconds (and at least
    ``min_calls`` calls) each."""

    repeats: int = 5
    block_s: float = 0.1
    max_calls: int = 100_000
    min_calls: int = 1


FULL = Settings()
QUICK = Settings(repeats=3, block_s=0.02)


def seed_everything(seed: int = 0) -> None:
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


def _block(fn: Callable[[], object], calls: int, sync: Callable[[], None]) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    sync()
    return (time.perf_counter() - start) / calls


def _calls_per_block(fn: Callable[[], object], settings: Settings, sync: Callable[[], None]) -> int:
    calls, elapsed = 1, 0.0
    while True:
        elapsed = _block(fn, calls, sync) * calls
        if elapsed >= settings.block_s / 4 or calls >= settings.max_calls:
            break
        calls *= 4
    wanted = round(calls * settings.block_s / max(elapsed, 1e-9))
    return max(settings.min_calls, min(settings.max_calls, wanted))


def compare(fns: dict[str, Callable[[], object]], settings: Settings,
            sync: Callable[[], None] = lambda: None) -> dict[str, float | str]:
    """Median seconds per call of each callable, measured in interleaved blocks.

    A callable that raises is reported by its error message instead of a time.
    """
    results: dict[str, float | str] = {}
    runnable: dict[str, tuple[Callable[[], object], int]] = {}
    for name, fn in fns.items():
        try:
            seed_everything()
            fn()  # warm-up: caches, lazy imports, first-call allocation
            runnable[name] = (fn, _calls_per_block(fn, settings, sync))
        except Exception as error:  # a peer (or a transform still in progress) failing is a result
            results[name] = f"error: {type(error).__name__}: {str(error).splitlines()[0][:80] if str(error) else ''}"
    times: dict[str, list[float]] = {name: [] for name in runnable}
    order = list(runnable)
    for repeat in range(settings.repeats if order else 0):
        shift = repeat % len(order)
        for name in order[shift:] + order[:shift]:
            fn, calls = runnable[name]
            seed_everything(repeat)  # every library starts the block from the same random state
            times[name].append(_block(fn, calls, sync))
    results.update({name: statistics.median(values) for name, values in times.items()})
    return results


class Progress:
    """A one-line progress display on stderr: ``[k/n] section: item  elapsed``."""

    def __init__(self, total: int, stream=sys.stderr) -> None:  # noqa: ANN001
        self.total, self.done, self.stream = total, 0, stream
        self.start = time.perf_counter()
        self.tty = getattr(stream, "isatty", lambda: False)()

    def step(self, label: str) -> None:
        self.done += 1
        elapsed = time.perf_counter() - self.start
        line = f"[{self.done}/{self.total}] {label[:70]:<70} {elapsed:6.1f}s"
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
        self.stream.flush()
