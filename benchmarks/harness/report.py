"""Markdown tables of benchmark rows: throughput, speed-up ratios and geometric means.

A peer that is not installed reads "not installed" in its cells; a blank cell means the peer has no
equivalent of that transform.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from typing import Any

PEERS = ("visiontx", "torchvision", "albumentations")
SHORT = {"torchvision": "tv", "albumentations": "alb", "albumentationsx": "albx"}
NOT_INSTALLED = "not installed"
Row = tuple[str, dict[str, Any], str]


def _seconds(value: Any) -> float | None:
    return value if isinstance(value, float) and value > 0 else None


def speedup(times: dict[str, Any], peer: str) -> float | None:
    """How many times faster visiontx is than ``peer`` (None when either is missing)."""
    ours, theirs = _seconds(times.get("visiontx")), _seconds(times.get(peer))
    return theirs / ours if ours and theirs else None


def geomean(values: Sequence[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _cell(times: dict[str, Any], peer: str, missing: Collection[str], fmt: Callable[[float], str]) -> str:
    """One peer's measurement: formatted, its (short) error, blank without an equivalent, or "not installed"."""
    if peer in missing:
        return NOT_INSTALLED
    value = times.get(peer)
    if isinstance(value, str):
        return value.split(":")[0] if len(value) > 40 else value
    return "" if value is None else fmt(value)


def _note(note: str, missing: Collection[str]) -> str:
    """``note`` without its parts about peers that are not installed (``"alb: ..."``)."""
    prefixes = tuple(f"{SHORT[p]}:" for p in missing if p in SHORT)
    return "; ".join(part for part in note.split("; ") if not (prefixes and part.startswith(prefixes)))


def _fmt_ratio(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}x"


def _mean_cell(peer: str, ratios: list[float], missing: Collection[str]) -> str:
    if peer in missing:
        return NOT_INSTALLED
    return f"**{_fmt_ratio(geomean(ratios))}** ({len(ratios)})" if ratios else ""


def throughput_table(rows: Sequence[Row], unit: str = "img/s", missing: Collection[str] = (),
                     peers: Sequence[str] = PEERS, floor: bool = False) -> list[str]:
    """Calls per second for each of ``peers``, speed-ups of visiontx, and a geometric-mean line; with
    ``floor``, the copy floor of each row (``times["floor"]``), visiontx's time as a multiple of it, and
    the fastest library's (visiontx included) as a multiple of it: where that is also far above the
    floor, the work itself costs more than a copy."""
    others = peers[1:]
    floor_heads = " floor µs | vx/floor | fastest/floor |" if floor else ""
    lines = [
        "| transform | " + " | ".join(f"{p} {unit}" for p in peers) + " | "
        + " | ".join(f"vx/{SHORT[p]}" for p in others) + " |" + floor_heads + " note |",
        "|---|" + "--:|" * (len(peers) + len(others) + (3 if floor else 0)) + "---|",
    ]
    ratios: dict[str, list[float]] = {p: [] for p in others}
    for label, times, note in rows:
        cells = [speedup(times, peer) for peer in others]
        for peer, cell in zip(others, cells):
            if cell is not None:
                ratios[peer].append(cell)
        errors = [f"{p}: {v}" for p, v in times.items() if isinstance(v, str) and len(v) > 40]
        notes = "; ".join(filter(None, [_note(note, missing), *errors]))
        floor_cells = _floor_cells(times, peers) if floor else ""
        lines.append(
            f"| {label} | " + " | ".join(_cell(times, p, missing, lambda s: f"{1.0 / s:,.0f}") for p in peers) + " | "
            + " | ".join(_fmt_ratio(c) for c in cells) + " |" + floor_cells + f" {notes} |"
        )
    means = " | ".join(_mean_cell(p, ratios[p], missing) for p in others)
    lines.append("| **geometric mean** |" + " |" * len(peers) + f" {means} |" + (" | | |" if floor else "") + " |")
    return lines


def _floor_cells(times: dict[str, Any], peers: Sequence[str]) -> str:
    floor, ours = _seconds(times.get("floor")), _seconds(times.get("visiontx"))
    if floor is None or ours is None:
        return " | | |"
    fastest = min(t for p in peers if (t := _seconds(times.get(p))) is not None)
    return f" {floor * 1e6:,.1f} | {ours / floor:.1f}x | {fastest / floor:.1f}x |"


def above_floor(rows: Sequence[Row], peers: Sequence[str], limit: float = 4.0) -> tuple[list[str], list[str]]:
    """The labels of rows where visiontx takes more than ``limit`` times the copy floor: those where the
    fastest library does too (the work costs more than a copy), and those where it does not."""
    work, ours = [], []
    for label, times, _ in rows:
        floor, vx = _seconds(times.get("floor")), _seconds(times.get("visiontx"))
        if floor is None or vx is None or vx <= limit * floor:
            continue
        fastest = min(t for p in peers if (t := _seconds(times.get(p))) is not None)
        (work if fastest > limit * floor else ours).append(label)
    return work, ours


def micro_table(rows: Sequence[Row], missing: Collection[str] = ()) -> list[str]:
    """Microseconds per call for each peer."""
    lines = ["| call | visiontx µs | torchvision µs | albumentations µs |", "|---|--:|--:|--:|"]
    for label, times, _ in rows:
        cells = [_cell(times, p, missing, lambda s: f"{s * 1e6:.1f}") for p in PEERS]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def scaling_table(by_key: dict[int, list[Row]], key_name: str, missing: Collection[str] = ()) -> list[str]:
    """Milliseconds per call for each (transform, key) pair, with the visiontx speed-ups."""
    lines = [f"| transform | {key_name} | visiontx ms | torchvision ms | albumentations ms | vx/tv | vx/alb |",
             "|---|--:|--:|--:|--:|--:|--:|"]
    labels = [label for label, _, _ in next(iter(by_key.values()), [])]
    for label in labels:
        for key, rows in by_key.items():
            times = next((t for name, t, _ in rows if name == label), {})
            cells = [_cell(times, p, missing, lambda s: f"{s * 1e3:.3f}") for p in PEERS]
            ratios = [_fmt_ratio(speedup(times, p)) for p in ("torchvision", "albumentations")]
            lines.append(f"| {label} | {key} | " + " | ".join(cells + ratios) + " |")
    return lines


def summary(rows: Sequence[Row], peers: Sequence[str] = PEERS[1:]) -> dict[str, Any]:
    """Per peer: the geometric mean of visiontx's speed-ups (``vs_<peer>``) and the worst one with its
    label (``worst_vs_<peer>``)."""
    out: dict[str, Any] = {}
    for peer in peers:
        ratios = [(r, label) for label, t, _ in rows if (r := speedup(t, peer)) is not None]
        out[f"vs_{peer}"] = geomean([r for r, _ in ratios])
        out[f"worst_vs_{peer}"] = min(ratios, default=None)
    return out
