"""The benchmark harness: throughput of visiontx beside torchvision v2, albumentations and (optionally,
in its own interpreter) AlbumentationsX.

Single thread, uint8 RGB, a real photo. Sections: every transform at each image size (with a copy
floor per entry), whole pipelines (classification from pixels and from JPEG bytes, the demo's
detection; CIFAR-10's on 32 x 32 images), a DataLoader over JPEG files, fused geometry, dispatch
overhead, batch throughput of tensor kernels, and scaling with image size and number of boxes. Outputs
are materialised on every side. Peers are timed in interleaved blocks and the medians compared, so a
loaded machine slows all sides alike. Results are printed as markdown (and written to ``out``); progress
goes to stderr. Run it with ``python benchmarks/run.py`` (or ``python -m visiontx bench`` from a checkout).
"""

from __future__ import annotations

import dataclasses
import datetime
import sys
import warnings
from collections.abc import Sequence

import torch

from . import cases, loader, per_sample, report, sections
from .inputs import decoder
from .peers import close_peers, load_peers, machine_description, single_thread
from .timing import FULL, QUICK, Progress, Settings, interleaved_runs

__all__ = ["BenchConfig", "QUICK_CONFIG", "run_bench"]

SECTIONS = ("transforms", "pipelines", "small", "loader", "fusion", "dispatch", "batch", "scaling", "per_sample")
# The DataLoader runs first, its workers forked from a process that has run nothing else yet (as a training
# script's): forked after the other sections, visiontx's workers measured up to 10% slower (NOTES.md, round 16).
RUN_ORDER = ("loader",) + tuple(name for name in SECTIONS if name != "loader")


@dataclasses.dataclass(frozen=True)
class BenchConfig:
    """What to run and for how long. ``only``: keep the cases whose name contains one of these."""

    settings: Settings = FULL
    sizes: tuple[tuple[int, int], ...] = ((256, 256), (512, 512), (768, 1024))
    scaling_sizes: tuple[int, ...] = (256, 512, 1024, 2048)
    loader_images: int = 1024
    loader_workers: int = 2
    loader_batch: int = 64
    loader_repeats: int = 5
    box_counts: tuple[int, ...] = (1, 10, 100, 1000)
    batch_size: int = 32
    batch_hw: tuple[int, int] = (224, 224)
    per_sample_batches: tuple[int, ...] = (8, 32, 128)
    sections: tuple[str, ...] = SECTIONS
    only: tuple[str, ...] | None = None


QUICK_CONFIG = BenchConfig(settings=QUICK, sizes=((512, 512),), scaling_sizes=(256, 1024), box_counts=(1, 100, 1000),
                           loader_images=128, loader_repeats=1)
SCALING_CASES = ("RandomHorizontalFlip", "RandomResizedCrop(224)", "Resize(x1/2)", "RandomRotation(30)", "ColorJitter",
                 "GaussianBlur(9)")
BOX_CASES = ("RandomHorizontalFlip", "RandomAffine")
PIPELINE_MIN_CALLS = 20
BATCH_PEERS = ("visiontx", "torchvision")  # albumentations has no batched tensor kernels


def run_bench(quick: bool = False, out: str | None = None, config: BenchConfig | None = None,
              albx_python: str | None = None) -> int:
    """Run the benchmark, print the markdown report, write it to ``out`` if given; returns 0.
    ``albx_python``: an interpreter with AlbumentationsX, timed as a fourth peer (see ``remote``)."""
    config = config or (QUICK_CONFIG if quick else BenchConfig())
    if any(section not in SECTIONS for section in config.sections):
        raise ValueError(f"sections must be among {SECTIONS}, got {config.sections}")
    with warnings.catch_warnings(), single_thread():
        warnings.simplefilter("ignore")
        peers = load_peers(albx_python)
        try:
            lines = _header(peers, config) + _run(peers, config)
        finally:
            close_peers(peers)
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
    # every row of the per-image tables (transforms, pipelines, DataLoader), its label prefixed by its table
    rows: list = dataclasses.field(default_factory=list)

    @property
    def columns(self) -> tuple[str, ...]:
        """The peers of the per-image tables: AlbumentationsX only when it is run."""
        return tuple(p for p in (*report.PEERS, "albumentationsx") if p in self.peers)

    @property
    def local_peers(self) -> dict:
        """The peers in this interpreter (the scaling tables leave AlbumentationsX out)."""
        return {name: peer for name, peer in self.peers.items() if name != "albumentationsx"}


def _select(candidates: Sequence[cases.BenchCase], only: Sequence[str] | None) -> list[cases.BenchCase]:
    return [c for c in candidates if only is None or any(o in c.name for o in only)]


def _run(peers: dict, config: BenchConfig) -> list[str]:
    transforms = _select(cases.TRANSFORMS, config.only)
    pipelines = _select(cases.PIPELINES, config.only)
    small = _select(cases.SMALL_PIPELINES, config.only)
    scaling = [c for c in transforms if c.name in SCALING_CASES]
    boxes = [c for c in transforms if c.name in BOX_CASES]
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    steps = {
        "transforms": len(transforms) * len(config.sizes),
        "pipelines": len(pipelines) * len(config.sizes),
        "small": len(small),
        "loader": 1,
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
        "small": lambda: _per_size(run, "Small images", small, sizes=(cases.CIFAR_SIZE,)),
        "loader": lambda: _loader(run),
        "fusion": lambda: _fusion(run),
        "dispatch": lambda: _dispatch(run),
        "batch": lambda: [line for device in devices for line in _batch(run, device)],
        "scaling": lambda: _scaling(run, scaling, boxes),
        "per_sample": lambda: [line for device in devices for line in _per_sample(run, device)],
    }
    try:
        lines = {name: parts[name]() for name in RUN_ORDER if name in config.sections}
    finally:
        run.progress.close()
    return [line for name in SECTIONS if name in lines for line in lines[name]] + _overall(run)


def _overall(run: _Run) -> list[str]:
    """The geometric means over every row of the per-image tables of this run, all sizes together."""
    if not run.rows:
        return []
    lines = ["", "## Overall: every entry of the transform, pipeline, small-image and DataLoader tables above", ""]
    lines += _summary_line(run.rows, run.missing, run.columns)[1:]
    for peer in run.columns[1:]:
        ratios = [r for _, times, _ in run.rows if (r := report.speedup(times, peer)) is not None]
        if peer.startswith("albumentations") and ratios:
            slow = sum(r < 0.9 for r in ratios)
            lines += ["", f"Below 0.9x {peer}: {slow} of {len(ratios)} entries."]
    return lines


def _header(peers: dict, config: BenchConfig) -> list[str]:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    settings = config.settings
    return [
        "# visiontx benchmark", "",
        f"Run {now}; one thread (torch and OpenCV); medians of {settings.repeats} interleaved blocks of "
        f"~{settings.block_s:g} s per library. Ratios: how many times faster visiontx is (>1 = faster). "
        "Outputs are materialised on every side (`.contiguous()` / `np.ascontiguousarray`). Floor: the time to "
        "copy visiontx's input and output bytes once (memcpy); vx/floor: visiontx's time as a multiple of it.", "",
        *[f"- {line}" for line in machine_description(peers)],
    ]


def _per_size(run: _Run, title: str, selected: list, min_calls: int | None = None,
              sizes: Sequence[tuple[int, int]] | None = None) -> list[str]:
    """One table per image size (the run's unless ``sizes``); ``min_calls`` lengthens blocks (random sizes vary
    a lot per call)."""
    settings = run.config.settings
    if min_calls is not None:
        settings = dataclasses.replace(settings, min_calls=min_calls)
    lines: list[str] = []
    for size in sizes or run.config.sizes:
        if not selected:
            continue
        rows, unavailable = sections.run_cases(selected, run.peers, size, settings, run.progress)
        run.rows += [(f"{label} at {size[0]} x {size[1]}", *rest) for label, *rest in rows]
        lines += ["", f"## {title}, uint8 RGB {size[0]} x {size[1]} (H x W)", ""]
        table = (report.throughput_table(rows, missing=run.missing, peers=run.columns, floor=True)
                 + _summary_line(rows, run.missing, run.columns))
        lines += table if rows else ["(none available)"]
        if rows and title == "Transforms":
            lines += _floor_line(rows, run.columns)
        if unavailable:
            lines += ["", "Not available in visiontx yet: " + ", ".join(unavailable) + "."]
    if title == "Transforms" and run.config.only is None:
        skipped = "; ".join(f"{k} ({v})" for k, v in cases.NOT_BENCHMARKED.items())
        lines += ["", f"Not benchmarked: {skipped}."]
    return lines


def _floor_line(rows: list, columns: Sequence[str]) -> list[str]:
    work, ours = report.above_floor(rows, columns)
    if not work and not ours:
        return ["", "Every entry is within 4x of the copy floor."]
    lines = [""]
    if work:
        lines.append(f"Above 4x the copy floor where the fastest library is too (the work costs more than a copy: "
                     f"interpolation, filtering, colour conversion, coding, random draws): {', '.join(work)}.")
    if ours:
        lines.append(f"Above 4x the copy floor where another library is not: {', '.join(ours)}.")
    return lines


def _summary_line(rows: list, missing: Sequence[str], columns: Sequence[str] = report.PEERS) -> list[str]:
    s = report.summary(rows, columns[1:])
    parts = [_mean_part(peer, s[f"vs_{peer}"], missing) for peer in columns[1:]]
    for peer in columns[1:]:
        worst = s[f"worst_vs_{peer}"]
        if peer.startswith("albumentations") and worst:
            parts.append(f"slowest vs {peer}: {worst[1]} {worst[0]:.2f}x")
    parts = [p for p in parts if p]
    return ["", "Geometric means: " + ", ".join(parts) + "."] if parts else []


def _mean_part(peer: str, mean: float | None, missing: Sequence[str]) -> str | None:
    if peer in missing:
        return f"vs {peer} {report.NOT_INSTALLED}"
    return f"vs {peer} {mean:.2f}x" if mean else None


def _loader(run: _Run) -> list[str]:
    config = run.config
    run.progress.step("DataLoader over JPEG files")
    jpeg_cases = [next(c for c in cases.PIPELINES if c.kind == "jpeg"), cases.DECODE_CROP]
    rows = []
    with loader.temporary_folder() as folder:
        paths = loader.write_jpegs(folder, config.loader_images)
        loader.warm_up(paths, config.loader_workers)
        for case in jpeg_cases:
            results = interleaved_runs(_loader_passes(run, case, paths), config.loader_repeats)
            rows.append(("DataLoader, " + case.name, results, case.note))
    run.rows += rows
    title = (f"## DataLoader: {config.loader_images} JPEG files on disk, {config.loader_workers} workers, batch "
             f"{config.loader_batch}, read + decode + the classification pipeline (images/s, end to end)")
    return ["", title, ""] + report.throughput_table(rows, missing=run.missing, peers=run.columns)


def _loader_passes(run: _Run, case: cases.BenchCase, paths: list[str]) -> dict:
    """Per peer, a callable making one pass over the files: seconds per image."""
    config, passes = run.config, {}
    for name, peer in run.peers.items():
        if peer is None or (name.startswith("albumentations") and case.alb is None):
            continue
        if name == "albumentationsx":
            passes[name] = lambda peer=peer: 1.0 / peer.worker.ask(
                op="loader", case=case.name, paths=paths, batch_size=config.loader_batch,
                workers=config.loader_workers)["images_per_s"]
            continue
        if name == "albumentations":
            parts = loader.albumentations_parts(peer.A, cases.albumentations_transform(case, peer.A, peer.cv2))
        else:
            parts = (decoder(name, takes_bytes=case.kind == "jpeg_bytes"), case.build(peer.T, peer.D))
        dataset = loader.JpegFiles(paths, *parts)
        passes[name] = lambda dataset=dataset: 1.0 / loader.images_per_second(
            dataset, config.loader_batch, config.loader_workers)
    return passes


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
    peers = run.local_peers
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
