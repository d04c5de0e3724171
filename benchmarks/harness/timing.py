"""Fair timing on a loaded machine: peers measured in interleaved blocks (A/B/C, B/C/A, ...), medians.

A callable with a ``block(calls, seed)`` method (a peer in another interpreter, see ``remote``) times its
own blocks; it is interleaved like the others.
"""

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


FULL = Settings(repeats=5, block_s=0.05)
QUICK = Settings(repeats=3, block_s=0.01)


def seed_everything(seed: int = 0) -> None:
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


def _block(fn: Callable[[], object], calls: int, sync: Callable[[], None], seed: int = 0) -> float:
    own_block = getattr(fn, "block", None)
    if own_block is not None:
        return own_block(calls, seed)
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
            results[name] = error_text(error)
    times: dict[str, list[float]] = {name: [] for name in runnable}
    order = list(runnable)
    for repeat in range(settings.repeats if order else 0):
        shift = repeat % len(order)
        for name in order[shift:] + order[:shift]:
            fn, calls = runnable[name]
            seed_everything(repeat)  # every library starts the block from the same random state
            times[name].append(_block(fn, calls, sync, repeat))
    results.update({name: statistics.median(values) for name, values in times.items()})
    return results


def interleaved_runs(fns: dict[str, Callable[[], float]], repeats: int) -> dict[str, float | str]:
    """The median of what each callable returns (seconds per item of a long run it times itself),
    over ``repeats`` interleaved rounds; a callable that raises gives its error."""
    values: dict[str, list[float]] = {name: [] for name in fns}
    errors: dict[str, float | str] = {}
    order = list(fns)
    for repeat in range(repeats):
        shift = repeat % len(order) if order else 0
        for name in order[shift:] + order[:shift]:
            if name in errors:
                continue
            try:
                seed_everything(repeat)
                values[name].append(fns[name]())
            except Exception as error:  # a peer failing is a result
                errors[name] = error_text(error)
    return {**{name: statistics.median(v) for name, v in values.items() if v}, **errors}


def error_text(error: Exception) -> str:
    """A failure as a table cell: ``error: Type: first line of the message``."""
    return f"error: {type(error).__name__}: {str(error).splitlines()[0][:80] if str(error) else ''}"


def copy_floor(nbytes: int, settings: Settings) -> float:
    """Seconds to copy ``nbytes`` bytes once (numpy's memcpy between two warm buffers): the least any op
    reading its input and writing its output could take. Cached per size."""
    if nbytes not in _FLOORS:
        src, dst = np.ones(max(nbytes, 1), dtype=np.uint8), np.empty(max(nbytes, 1), dtype=np.uint8)
        _FLOORS[nbytes] = compare({"copy": lambda: np.copyto(dst, src)}, settings)["copy"]  # type: ignore[assignment]
    return _FLOORS[nbytes]


_FLOORS: dict[int, float] = {}


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
