"""The benchmark harness: throughput of visiontx beside torchvision v2 and albumentations.

Single thread, uint8 RGB, a real photo. Sections: every transform at each image size, two whole
pipelines, dispatch overhead, batch throughput of tensor kernels, and scaling with image size and
number of boxes. Peers are timed in interleaved blocks and the medians compared, so a loaded machine
slows all sides alike. Results are printed as markdown (and written to ``out``); progress goes to
stderr. Run it with ``python benchmarks/run.py`` (or ``python -m visiontx bench`` from a checkout).
"""

from __future__ import annotations

import dataclasses
import datetime
import sys
import warnings
from collections.abc import Sequence

import torch

from . import cases, per_sample, report, sections
from .peers import load_peers, machine_description, single_thread
from .timing import FULL, QUICK, Progress, Settings

__all__ = ["BenchConfig", "QUICK_CONFIG", "run_bench"]

SECTIONS = ("transforms", "pipelines", "fusion", "dispatch", "batch", "scaling", "per_sample")


@dataclasses.dataclass(frozen=True)
class BenchConfig:
    """What to run and for how long. ``only``: keep the cases whose name contains one of these."""

    settings: Settings = FULL
    sizes: tuple[tuple[int, int], ...] = ((512, 512), (375, 500))
    scaling_sizes: tuple[int, ...] = (256, 512, 1024, 2048)
    box_counts: tuple[int, ...] = (1, 10, 100, 1000)
    batch_size: int = 32
    batch_hw: tuple[int, int] = (224, 224)
    per_sample_batches: tuple[int, ...] = (8, 32, 128)
    sections: tuple[str, ...] = SECTIONS
    only: tuple[str, ...] | None = None


QUICK_CONFIG = BenchConfig(settings=QUICK, scaling_sizes=(256, 1024), box_counts=(1, 100, 1000))
SCALING_CASES = ("RandomHorizontalFlip", "RandomResizedCrop(224)", "RandomRotation(30)", "ColorJitter",
                 "GaussianBlur(9)")
BOX_CASES = ("RandomHorizontalFlip", "RandomAffine")
PIPELINE_MIN_CALLS = 20
BATCH_PEERS = ("visiontx", "torchvision")  # albumentations has no batched tensor kernels


def run_bench(quick: bool = False, out: str | None = None, config: BenchConfig | None = None) -> int:
    """Run the benchmark, print the markdown report, write it to ``out`` if given; returns 0."""
    config = config or (QUICK_CONFIG if quick else BenchConfig())
    if any(section not in SECTIONS for section in config.sections):
        raise ValueError(f"sections must be among {SECTIONS}, got {config.sections}")
    with warnings.catch_warnings(), single_thread():
        warnings.simplefilter("ignore")
        peers = load_peers()
        lines = _header(peers, config) + _run(peers, config)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if out is not None:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


@dataclasses.dataclass
class _Run:
    """What every section needs: the peers, those not installed, the configuration and the progress line."""

    peers: dict
    missing: tuple[str, ...]
    config: BenchConfig
    progress: Progress


def _select(candidates: Sequence[cases.BenchCase], only: Sequence[str] | None) -> list[cases.BenchCase]:
    return [c for c in candidates if only is None or any(o in c.name for o in only)]


def _run(peers: dict, config: BenchConfig) -> list[str]:
    transforms = _select(cases.TRANSFORMS, config.only)
    pipelines = _select(cases.PIPELINES, config.only)
    scaling = [c for c in transforms if c.name in SCALING_CASES]
    boxes = [c for c in transforms if c.name in BOX_CASES]
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    steps = {
        "transforms": len(transforms) * len(config.sizes),
        "pipelines": len(pipelines) * len(config.sizes),
        "fusion": 1,
        "dispatch": 5,
        "batch": len(sections.KERNELS) * len(devices),
        "scaling": len(scaling) * len(config.scaling_sizes) + len(boxes) * len(config.box_counts),
        "per_sample": 2 * len(config.per_sample_batches) * len(devices),
    }
    missing = tuple(name for name, peer in peers.items() if peer is None)
    run = _Run(peers, missing, config, Progress(sum(steps[s] for s in config.sections)))
    parts = {
        "transforms": lambda: _per_size(run, "Transforms", transforms),
        "pipelines": lambda: _per_size(run, "Pipelines", pipelines, PIPELINE_MIN_CALLS),
        "fusion": lambda: _fusion(run),
        "dispatch": lambda: _dispatch(run),
        "batch": lambda: [line for device in devices for line in _batch(run, device)],
        "scaling": lambda: _scaling(run, scaling, boxes),
        "per_sample": lambda: [line for device in devices for line in _per_sample(run, device)],
    }
    try:
        return [line for name in SECTIONS if name in config.sections for line in parts[name]()]
    finally:
        run.progress.close()


def _header(peers: dict, config: BenchConfig) -> list[str]:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    settings = config.settings
    return [
        "# visiontx benchmark", "",
        f"Run {now}; one thread (torch and OpenCV); medians of {settings.repeats} interleaved blocks of "
        f"~{settings.block_s:g} s per library. Ratios: how many times faster visiontx is (>1 = faster).", "",
        *[f"- {line}" for line in machine_description(peers)],
    ]


def _per_size(run: _Run, title: str, selected: list, min_calls: int | None = None) -> list[str]:
    """One table per image size; ``min_calls`` lengthens blocks (random sizes vary a lot per call)."""
    settings = run.config.settings
    if min_calls is not None:
        settings = dataclasses.replace(settings, min_calls=min_calls)
    lines: list[str] = []
    for size in run.config.sizes:
        rows, unavailable = sections.run_cases(selected, run.peers, size, settings, run.progress)
        lines += ["", f"## {title}, uint8 RGB {size[0]} x {size[1]} (H x W)", ""]
        table = report.throughput_table(rows, missing=run.missing) + _summary_line(rows, run.missing)
        lines += table if rows else ["(none available)"]
        if unavailable:
            lines += ["", "Not available in visiontx yet: " + ", ".join(unavailable) + "."]
    if title == "Transforms" and run.config.only is None:
        skipped = "; ".join(f"{k} ({v})" for k, v in cases.NOT_BENCHMARKED.items())
        lines += ["", f"Not benchmarked: {skipped}."]
    return lines


def _summary_line(rows: list, missing: Sequence[str]) -> list[str]:
    s = report.summary(rows)
    worst = s["worst_vs_albumentations"]
    parts = [_mean_part("torchvision", s["vs_torchvision"], missing),
             _mean_part("albumentations", s["vs_albumentations"], missing),
             f"slowest vs albumentations: {worst[1]} {worst[0]:.2f}x" if worst else None]
    parts = [p for p in parts if p]
    return ["", "Geometric means: " + ", ".join(parts) + "."] if parts else []


def _mean_part(peer: str, mean: float | None, missing: Sequence[str]) -> str | None:
    if peer in missing:
        return f"vs {peer} {report.NOT_INSTALLED}"
    return f"vs {peer} {mean:.2f}x" if mean else None


def _fusion(run: _Run) -> list[str]:
    lines = sections.fusion_lines(run.peers, run.config.settings, run.progress)
    return ["", "## Fused geometry (Compose(..., fuse_geometry=True))", ""] + lines


def _dispatch(run: _Run) -> list[str]:
    rows = sections.dispatch_rows(run.peers, run.config.settings, run.progress)
    return ["", "## Dispatch overhead (3 x 8 x 8 uint8 image)", ""] + report.micro_table(rows, run.missing)


def _batch(run: _Run, device: str) -> list[str]:
    config, hw = run.config, run.config.batch_hw
    rows, unavailable = sections.batch_rows(run.peers, config.settings, run.progress, config.batch_size, hw, device)
    lines = ["", f"## Batch of {config.batch_size} x 3 x {hw[0]} x {hw[1]} uint8 on {device} (tensor kernels)", ""]
    table = report.throughput_table(rows, unit="batch/s", missing=run.missing, peers=BATCH_PEERS)
    lines += table if rows else ["(none available)"]
    if unavailable:
        lines += ["", "Not available in visiontx yet: " + ", ".join(unavailable) + "."]
    return lines


def _scaling(run: _Run, scaling: list, boxes: list) -> list[str]:
    peers, settings, progress, config = run.peers, run.config.settings, run.progress, run.config
    by_size = sections.size_scaling_rows(scaling, peers, config.scaling_sizes, settings, progress)
    by_count = sections.box_scaling_rows(boxes, peers, config.box_counts, settings, progress)
    return (["", "## Scaling with image size (square, uint8 RGB)", ""]
            + report.scaling_table(by_size, "size", run.missing)
            + ["", "## Scaling with the number of boxes (128 x 128 image + boxes + labels)", ""]
            + report.scaling_table(by_count, "boxes", run.missing))


def _per_sample(run: _Run, device: str) -> list[str]:
    config, hw = run.config, run.config.batch_hw
    rows = per_sample.per_sample_rows(run.peers["visiontx"], config.settings, run.progress,
                                      config.per_sample_batches, hw, device)
    title = (f"## Per-sample batches on {device}: B x 3 x {hw[0]} x {hw[1]}, "
             "RandomResizedCrop + flip + ColorJitter + RandomAffine")
    note = ("PerSample: one call per batch (vectorised draws; on CPU each image through the OpenCV wing); "
            "PerSample, torch: the same with the wing off (the batched torch kernels a GPU runs); loop: visiontx's "
            "single-sample Compose per image; kornia: AugmentationSequential (float32 only). Ratios: how many times "
            "faster PerSample is.")
    return ["", title, "", note, ""] + per_sample.per_sample_table(rows)
