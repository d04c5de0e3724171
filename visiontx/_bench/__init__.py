"""``python -m visiontx bench``: throughput of visiontx beside torchvision v2 and albumentations.

Single thread, uint8 RGB, a real photo. Sections: every transform at each image size, two whole
pipelines, dispatch overhead, batch throughput of tensor kernels, and scaling with image size and
number of boxes. Peers are timed in interleaved blocks and the medians compared, so a loaded machine
slows all sides alike. Results are printed as markdown (and written to ``out``); progress goes to
stderr.
"""

from __future__ import annotations

import dataclasses
import datetime
import sys
import warnings
from collections.abc import Sequence

import torch

from . import _cases, _report, _sections
from ._peers import load_peers, machine_description, single_thread
from ._timing import FULL, QUICK, Progress, Settings

__all__ = ["BenchConfig", "run_bench"]

SECTIONS = ("transforms", "pipelines", "dispatch", "batch", "scaling")


@dataclasses.dataclass(frozen=True)
class BenchConfig:
    """What to run and for how long. ``only``: keep the cases whose name contains one of these."""

    settings: Settings = FULL
    sizes: tuple[tuple[int, int], ...] = ((512, 512), (375, 500))
    scaling_sizes: tuple[int, ...] = (256, 512, 1024, 2048)
    box_counts: tuple[int, ...] = (1, 10, 100, 1000)
    batch_size: int = 32
    batch_hw: tuple[int, int] = (224, 224)
    sections: tuple[str, ...] = SECTIONS
    only: tuple[str, ...] | None = None


QUICK_CONFIG = BenchConfig(settings=QUICK, scaling_sizes=(256, 1024), box_counts=(1, 100, 1000))
SCALING_CASES = ("RandomHorizontalFlip", "RandomResizedCrop(224)", "RandomRotation(30)", "ColorJitter", "GaussianBlur(9)")
BOX_CASES = ("RandomHorizontalFlip", "RandomAffine")
PIPELINE_MIN_CALLS = 20


def run_bench(quick: bool = False, out: str | None = None, config: BenchConfig | None = None) -> int:
    """Run the benchmark, print the markdown report, write it to ``out`` if given; returns 0."""
    config = config or (QUICK_CONFIG if quick else BenchConfig())
    if any(section not in SECTIONS for section in config.sections):
        raise ValueError(f"sections must be among {SECTIONS}, got {config.sections}")
    with warnings.catch_warnings(), single_thread():
        warnings.simplefilter("ignore")
        peers = load_peers()
        lines = _run(peers, config)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if out is not None:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


def _select(cases: Sequence[_cases.BenchCase], only: Sequence[str] | None) -> list[_cases.BenchCase]:
    return [c for c in cases if only is None or any(o in c.name for o in only)]


def _run(peers: dict, config: BenchConfig) -> list[str]:
    transforms = _select(_cases.TRANSFORMS, config.only)
    pipelines = _select(_cases.PIPELINES, config.only)
    scaling = [c for c in transforms if c.name in SCALING_CASES]
    boxes = [c for c in transforms if c.name in BOX_CASES]
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    steps = {
        "transforms": len(transforms) * len(config.sizes),
        "pipelines": len(pipelines) * len(config.sizes),
        "dispatch": 5,
        "batch": len(_sections.KERNELS) * len(devices),
        "scaling": len(scaling) * len(config.scaling_sizes) + len(boxes) * len(config.box_counts),
    }
    progress = Progress(sum(steps[s] for s in config.sections))
    lines: list[str] = []
    measured: dict[str, list] = {"transforms": [], "dispatch": []}
    try:
        if "transforms" in config.sections:
            lines += _per_size("Transforms", transforms, peers, config, progress, measured["transforms"])
        if "pipelines" in config.sections:  # random sizes vary a lot per call: longer blocks
            longer = dataclasses.replace(config, settings=dataclasses.replace(config.settings, min_calls=PIPELINE_MIN_CALLS))
            lines += _per_size("Pipelines", pipelines, peers, longer, progress, [])
        if "dispatch" in config.sections:
            measured["dispatch"] = _sections.dispatch_rows(peers, config.settings, progress)
            lines += ["", "## Dispatch overhead (3 x 8 x 8 uint8 image)", ""]
            lines += _report.micro_table(measured["dispatch"])
        if "batch" in config.sections:
            lines += _batch(peers, config, devices, progress)
        if "scaling" in config.sections:
            lines += _scaling(peers, config, scaling, boxes, progress)
    finally:
        progress.close()
    return _header(peers, config) + _targets(measured["transforms"], measured["dispatch"]) + lines


def _targets(rows: list, dispatch: list) -> list[str]:
    """The issue's targets against this run: geometric means over every transform and image size."""
    if not rows:
        return []
    s = _report.summary(rows)
    worst = s["worst_vs_albumentations"]
    noop = next((t.get("visiontx") for label, t, _ in dispatch if label == "no-op Transform subclass"), None)
    checks = [
        ("geometric mean vs torchvision v2", s["vs_torchvision"], ">= 5x", lambda v: v >= 5.0, "{:.2f}x"),
        ("geometric mean vs albumentations", s["vs_albumentations"], ">= 1.0x", lambda v: v >= 1.0, "{:.2f}x"),
        ("slowest transform vs albumentations", worst[0] if worst else None, ">= 0.8x", lambda v: v >= 0.8, "{:.2f}x"
         + (f" ({worst[1]})" if worst else "")),
        ("no-op transform dispatch", noop * 1e6 if isinstance(noop, float) else None, "< 10 µs", lambda v: v < 10.0, "{:.1f} µs"),
    ]
    lines = ["", "## Targets (all transforms, both image sizes)", "", "| target | this run | goal | met |", "|---|--:|--:|:-:|"]
    for label, value, goal, ok, fmt in checks:
        shown = fmt.format(value) if value is not None else "n/a"
        lines.append(f"| {label} | {shown} | {goal} | {'' if value is None else ('yes' if ok(value) else 'no')} |")
    return lines


def _header(peers: dict, config: BenchConfig) -> list[str]:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    settings = config.settings
    return [
        "# visiontx benchmark", "",
        f"Run {now}; one thread (torch and OpenCV); medians of {settings.repeats} interleaved blocks of "
        f"~{settings.block_s:g} s per library. Ratios: how many times faster visiontx is (>1 = faster).", "",
        *[f"- {line}" for line in machine_description(peers)],
    ]


def _per_size(title: str, cases: list, peers: dict, config: BenchConfig, progress: Progress, all_rows: list) -> list[str]:
    lines: list[str] = []
    for size in config.sizes:
        rows, unavailable = _sections.run_cases(cases, peers, size, config.settings, progress)
        all_rows += rows
        lines += ["", f"## {title}, uint8 RGB {size[0]} x {size[1]} (H x W)", ""]
        lines += _report.throughput_table(rows) + _summary_line(rows) if rows else ["(none available)"]
        if unavailable:
            lines += ["", "Not available in visiontx yet: " + ", ".join(unavailable) + "."]
    if title == "Transforms" and config.only is None:
        lines += ["", "Not benchmarked: " + "; ".join(f"{k} ({v})" for k, v in _cases.NOT_BENCHMARKED.items()) + "."]
    return lines


def _summary_line(rows: list) -> list[str]:
    s = _report.summary(rows)
    worst = s["worst_vs_albumentations"]
    parts = [
        f"vs torchvision {s['vs_torchvision']:.2f}x" if s["vs_torchvision"] else None,
        f"vs albumentations {s['vs_albumentations']:.2f}x" if s["vs_albumentations"] else None,
        f"slowest vs albumentations: {worst[1]} {worst[0]:.2f}x" if worst else None,
    ]
    parts = [p for p in parts if p]
    return ["", "Geometric means: " + ", ".join(parts) + "."] if parts else []


def _batch(peers: dict, config: BenchConfig, devices: list[str], progress: Progress) -> list[str]:
    lines: list[str] = []
    for device in devices:
        rows, unavailable = _sections.batch_rows(peers, config.settings, progress, config.batch_size, config.batch_hw, device)
        hw = config.batch_hw
        lines += ["", f"## Batch of {config.batch_size} x 3 x {hw[0]} x {hw[1]} uint8 on {device} (tensor kernels)", ""]
        lines += _report.throughput_table(rows, unit="batch/s") if rows else ["(none available)"]
        if unavailable:
            lines += ["", "Not available in visiontx yet: " + ", ".join(unavailable) + "."]
    return lines


def _scaling(peers: dict, config: BenchConfig, scaling: list, boxes: list, progress: Progress) -> list[str]:
    settings = config.settings
    lines = ["", "## Scaling with image size (square, uint8 RGB)", ""]
    lines += _report.scaling_table(_sections.size_scaling_rows(scaling, peers, config.scaling_sizes, settings, progress), "size")
    lines += ["", "## Scaling with the number of boxes (128 x 128 image + boxes + labels)", ""]
    lines += _report.scaling_table(_sections.box_scaling_rows(boxes, peers, config.box_counts, settings, progress), "boxes")
    return lines
