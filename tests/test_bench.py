"""Smoke tests of the benchmark harness in ``benchmarks/`` (tiny settings; no timing assertions) and its entries."""

from __future__ import annotations

import importlib.util
import math
import pathlib
import subprocess
import sys

import pytest

import visiontx
from visiontx import __main__ as cli

if str(cli.BENCHMARKS) not in sys.path:  # the harness is no part of the package: imported from the checkout
    sys.path.insert(0, str(cli.BENCHMARKS))

import harness  # noqa: E402
from harness import BenchConfig, run_bench  # noqa: E402
from harness.report import NOT_INSTALLED, geomean, speedup, throughput_table  # noqa: E402
from harness.timing import Settings, compare  # noqa: E402

TINY = BenchConfig(
    settings=Settings(repeats=2, block_s=0.0005, max_calls=2),
    sizes=((24, 32),),
    scaling_sizes=(16,),
    box_counts=(1, 3),
    batch_size=2,
    batch_hw=(8, 8),
    loader_images=3,
    loader_workers=0,
    loader_batch=2,
    loader_repeats=1,
    only=(
        "RandomHorizontalFlip", "ToDtype", "Resize(x1/2", "classification (JPEG bytes: decode+RRC+", "CIFAR-10",
    ),
)


def test_run_bench_writes_a_markdown_report(tmp_path, capsys) -> None:
    out = tmp_path / "results.md"
    assert run_bench(out=str(out), config=TINY) == 0
    text = out.read_text(encoding="utf-8")
    assert text == capsys.readouterr().out
    for heading in ("# visiontx benchmark", "## Transforms, uint8 RGB 24 x 32", "## Pipelines",
                    "## Small images, uint8 RGB 32 x 32", "## DataLoader: 3 JPEG",
                    "## Dispatch overhead", "## Batch of 2 x 3 x 8 x 8", "## Scaling with image size",
                    "## Scaling with the number of boxes"):
        assert heading in text
    assert "| RandomHorizontalFlip |" in text and "geometric mean" in text
    assert "| Resize(x1/2) |" in text and "| Resize(x1/2, antialias=False) |" in text and "floor µs | vx/floor |" in text
    assert "| classification (JPEG bytes: decode+RRC+flip+jitter+normalize) |" in text
    assert "| DataLoader, classification (JPEG bytes" in text
    assert "| CIFAR-10 training (RandomCrop(32, padding=4)+flip+ToDtype+Normalize) |" in text
    assert "CPU:" in text and "torch " in text
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    # shown in the order of SECTIONS though the DataLoader runs first; the overall means come last
    assert text.index("## Pipelines") < text.index("## Small images") < text.index("## DataLoader")
    assert text.index("## DataLoader") < text.index("## Dispatch overhead")
    assert headings[-1].startswith("## Overall: every entry")
    overall = text[text.index("## Overall"):]
    means = next(line for line in overall.splitlines() if line.startswith("Geometric means"))
    # over every size: the slowest entries name their size
    assert "vs torchvision" in means and ("slowest" not in means or " at 24 x 32 " in means or " at 32 x 32 " in means)
    assert "Targets" not in text and "goal" not in text and "****" not in text


def test_missing_peers_read_not_installed(monkeypatch, capsys) -> None:
    load = harness.load_peers
    monkeypatch.setattr(harness, "load_peers", lambda albx: {**load(), "torchvision": None, "albumentations": None})
    config = BenchConfig(settings=TINY.settings, sizes=TINY.sizes, batch_hw=(8, 8), batch_size=2,
                         sections=("transforms", "dispatch", "batch"), only=("RandomHorizontalFlip",))
    assert run_bench(config=config) == 0
    text = capsys.readouterr().out
    assert "| RandomHorizontalFlip | " in text and "| not installed | not installed |" in text
    assert "vs torchvision not installed, vs albumentations not installed" in text
    assert "- albumentations: not installed" in text and "****" not in text


def test_run_bench_sections_are_checked() -> None:
    with pytest.raises(ValueError, match="sections"):
        run_bench(config=BenchConfig(sections=("nope",)))


def test_albumentations_in_another_interpreter_is_timed_like_a_local_peer(capsys) -> None:
    # the worker protocol, run here under this interpreter (albumentations 2.0.8 stands in for AlbumentationsX)
    pytest.importorskip("albumentations")  # a benchmark peer (the "bench" extra), not a test dependency
    config = BenchConfig(settings=TINY.settings, sizes=TINY.sizes, sections=("transforms", "loader"),
                         loader_images=2, loader_workers=0, loader_batch=2, loader_repeats=1,
                         only=("RandomHorizontalFlip", "Resize(x0.7)"))
    assert run_bench(config=config, albx_python=sys.executable) == 0
    text = capsys.readouterr().out
    assert "| vx/tv | vx/alb | vx/albx |" in text and "- albumentationsx: 2." in text
    flip = next(line for line in text.splitlines() if line.startswith("| RandomHorizontalFlip |"))
    cells = [c.strip() for c in flip.split("|")[2:6]]
    assert all(c and c[0].isdigit() for c in cells), cells  # img/s of all four peers
    assert "slowest vs albumentationsx" in text
    below = [line for line in text.splitlines() if line.startswith("Below 0.9x albumentations")]
    assert [line.split(":")[0] for line in below] == ["Below 0.9x albumentations", "Below 0.9x albumentationsx"]
    assert all(line.endswith(" of 4 entries.") for line in below), below  # 2 transforms, 2 DataLoader rows
    loader_row = next(line for line in text.splitlines() if line.startswith("| DataLoader"))
    assert "error" not in loader_row


def test_remote_worker_reports_errors() -> None:
    pytest.importorskip("albumentations")  # the worker times albumentations
    from harness.remote import RemoteError, Worker

    worker = Worker(sys.executable)
    try:
        with pytest.raises(RemoteError, match="KeyError"):
            worker.call("no such case", "image", (8, 8), 1)
        call = worker.call("RandomVerticalFlip", "image", (8, 8), 1)
        assert call.block(2, seed=1) > 0
    finally:
        worker.close()
    assert worker.process.returncode == 0


def test_copy_floor_and_nbytes() -> None:
    import numpy as np
    import torch
    from harness.sections import nbytes
    from harness.timing import copy_floor

    assert nbytes({"a": torch.zeros(2, 3), "b": [np.zeros(5, np.uint8), b"xyz"]}) == 24 + 5 + 3
    assert copy_floor(1000, Settings(repeats=2, block_s=0.0005, max_calls=2)) > 0


def test_compare_reports_errors_and_times() -> None:
    def broken() -> None:
        raise RuntimeError("boom")

    results = compare({"ok": lambda: None, "broken": broken}, Settings(repeats=2, block_s=0.0001, max_calls=2))
    assert isinstance(results["ok"], float) and results["ok"] >= 0
    assert results["broken"] == "error: RuntimeError: boom"


def test_ratios_and_geomean() -> None:
    times = {"visiontx": 0.001, "torchvision": 0.004, "albumentations": "error: x"}
    assert speedup(times, "torchvision") == pytest.approx(4.0)
    assert speedup(times, "albumentations") is None
    assert geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert geomean([]) is None
    table = "\n".join(throughput_table([("op", times, "a note")]))
    assert "| op | 1,000 | 250 | error: x | 4.00x |  | a note |" in table
    assert f"| **geometric mean** | | | | **{math.sqrt(16):.2f}x** (1) |  | |" in table
    row = ("op", {"visiontx": 0.001}, "kept; alb: dropped")
    missing = "\n".join(throughput_table([row], missing=("albumentations",)))
    assert f"| op | 1,000 |  | {NOT_INSTALLED} |  |  | kept |" in missing
    assert f"| **geometric mean** | | | |  | {NOT_INSTALLED} | |" in missing


def test_cli_bench_runs_the_checkout_harness(monkeypatch) -> None:
    calls = []
    monkeypatch.setattr(harness, "run_bench", lambda **kw: calls.append(kw) or 0)
    assert cli.main(["bench", "--quick", "--out", "x.md"]) == 0
    assert calls == [{"quick": True, "out": "x.md"}]


def test_cli_bench_without_a_checkout_says_so(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.setattr(cli, "BENCHMARKS", tmp_path / "benchmarks")
    assert cli.main(["bench"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "source checkout" in err and "python benchmarks/run.py" in err


def test_benchmarks_run_script_defaults_to_results_md(monkeypatch) -> None:
    spec = importlib.util.spec_from_file_location("benchmarks_run", cli.BENCHMARKS / "run.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    calls = []
    monkeypatch.setattr(harness, "run_bench", lambda **kw: calls.append(kw) or 0)
    assert script.main(["--quick"]) == 0
    assert calls == [{"quick": True, "out": str(cli.BENCHMARKS / "RESULTS.md")}]
    assert script.main(["--only", "Resize", "Pad", "--sizes", "256x256", "768x1024", "--out", "x.md"]) == 0
    config = calls[-1]["config"]
    assert config.only == ("Resize", "Pad") and config.sizes == ((256, 256), (768, 1024))
    assert config.sections == ("transforms", "pipelines", "small") and calls[-1]["out"] == "x.md"


def test_the_package_carries_no_benchmark_code() -> None:
    assert not list(pathlib.Path(visiontx.__file__).parent.rglob("*bench*"))


def test_a_worker_without_albumentations_is_an_error_and_leaves_no_pipes_open(tmp_path) -> None:
    from harness.remote import RemoteError, Worker

    python = tmp_path / "python"  # an "interpreter" whose worker stops at once, as one without albumentations
    python.write_text("#!/bin/sh\nexit 1\n")
    python.chmod(0o755)
    opened = []
    original = subprocess.Popen

    def recording_popen(*args, **kwargs):
        opened.append(original(*args, **kwargs))
        return opened[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subprocess, "Popen", recording_popen)
        with pytest.raises(RemoteError, match="stopped"):
            Worker(str(python))
    (process,) = opened
    assert process.stdin.closed and process.stdout.closed and process.returncode == 1
