"""Markdown tables of benchmark rows: throughput, speed-up ratios and geometric means."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

PEERS = ("visiontx", "torchvision", "albumentations")
SHORT = {"torchvision": "tv", "albumentations": "alb"}


def _seconds(value: Any) -> float | None:
    return value if isinstance(value, float) and value > 0 else None


def speedup(times: dict[str, Any], peer: str) -> float | None:
    """How many times faster visiontx is than ``peer`` (None when either is missing)."""
    ours, theirs = _seconds(times.get("visiontx")), _seconds(times.get(peer))
    return theirs / ours if ours and theirs else None


def geomean(values: Sequence[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _fmt_rate(value: Any) -> str:
    if isinstance(value, str):
        return value.split(":")[0] if len(value) > 40 else value
    return "" if value is None else f"{1.0 / value:,.0f}"


def _fmt_ratio(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}x"


def throughput_table(rows: Sequence[tuple[str, dict[str, Any], str]], unit: str = "img/s") -> list[str]:
    """Rows of calls per second for each peer, speed-ups of visiontx, and a geometric-mean line."""
    lines = [
        f"| transform | visiontx {unit} | torchvision {unit} | albumentations {unit} | vx/tv | vx/alb | note |",
        "|---|--:|--:|--:|--:|--:|---|",
    ]
    ratios: dict[str, list[float]] = {"torchvision": [], "albumentations": []}
    for label, times, note in rows:
        cells = [speedup(times, peer) for peer in ratios]
        for peer, cell in zip(ratios, cells):
            if cell is not None:
                ratios[peer].append(cell)
        errors = "; ".join(f"{p}: {v}" for p, v in times.items() if isinstance(v, str) and len(v) > 40)
        lines.append(
            f"| {label} | " + " | ".join(_fmt_rate(times.get(p)) for p in PEERS) + " | "
            + " | ".join(_fmt_ratio(c) for c in cells) + f" | {'; '.join(filter(None, [note, errors]))} |"
        )
    means = [geomean(ratios[p]) for p in ratios]
    counts = [len(ratios[p]) for p in ratios]
    lines.append(
        f"| **geometric mean** | | | | **{_fmt_ratio(means[0])}** ({counts[0]}) | **{_fmt_ratio(means[1])}** ({counts[1]}) | |"
    )
    return lines


def micro_table(rows: Sequence[tuple[str, dict[str, Any], str]]) -> list[str]:
    """Microseconds per call for each peer."""
    lines = ["| call | visiontx µs | torchvision µs | albumentations µs |", "|---|--:|--:|--:|"]
    for label, times, _ in rows:
        cells = [f"{v * 1e6:.1f}" if isinstance(v, float) else (v or "") for v in (times.get(p) for p in PEERS)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def scaling_table(by_key: dict[int, list[tuple[str, dict[str, Any], str]]], key_name: str) -> list[str]:
    """Milliseconds per call for each (transform, key) pair, with the visiontx speed-ups."""
    lines = [f"| transform | {key_name} | visiontx ms | torchvision ms | albumentations ms | vx/tv | vx/alb |",
             "|---|--:|--:|--:|--:|--:|--:|"]
    labels = [label for label, _, _ in next(iter(by_key.values()), [])]
    for label in labels:
        for key, rows in by_key.items():
            times = next((t for name, t, _ in rows if name == label), {})
            cells = [f"{v * 1e3:.3f}" if isinstance(v, float) else (v or "") for v in (times.get(p) for p in PEERS)]
            ratios = [_fmt_ratio(speedup(times, p)) for p in ("torchvision", "albumentations")]
            lines.append(f"| {label} | {key} | " + " | ".join(cells + ratios) + " |")
    return lines


def summary(rows: Sequence[tuple[str, dict[str, Any], str]]) -> dict[str, Any]:
    """Geometric means and the worst ratio against albumentations over ``rows``."""
    tv = [r for r in (speedup(t, "torchvision") for _, t, _ in rows) if r is not None]
    alb = [(r, label) for label, t, _ in rows if (r := speedup(t, "albumentations")) is not None]
    return {
        "vs_torchvision": geomean(tv),
        "vs_albumentations": geomean([r for r, _ in alb]),
        "worst_vs_albumentations": min(alb, default=None),
    }
