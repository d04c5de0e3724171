"""Smoke tests of the benchmark harness (tiny settings; no timing assertions)."""

from __future__ import annotations

import math

import pytest

from visiontx._bench import BenchConfig, run_bench
from visiontx._bench._report import geomean, speedup, throughput_table
from visiontx._bench._timing import Settings, compare

TINY = BenchConfig(
    settings=Settings(repeats=2, block_s=0.0005, max_calls=2),
    sizes=((24, 32),),
    scaling_sizes=(16,),
    box_counts=(1, 3),
    batch_size=2,
    batch_hw=(8, 8),
    only=("RandomHorizontalFlip", "ToDtype", "classification"),
)


def test_run_bench_writes_a_markdown_report(tmp_path, capsys) -> None:
    out = tmp_path / "results.md"
    assert run_bench(out=str(out), config=TINY) == 0
    text = out.read_text(encoding="utf-8")
    assert text == capsys.readouterr().out
    for heading in ("# visiontx benchmark", "## Transforms, uint8 RGB 24 x 32", "## Pipelines", "## Dispatch overhead",
                    "## Batch of 2 x 3 x 8 x 8", "## Scaling with image size", "## Scaling with the number of boxes"):
        assert heading in text
    assert "| RandomHorizontalFlip |" in text and "geometric mean" in text
    assert "CPU:" in text and "torch " in text
    assert "## Targets" in text and "| no-op transform dispatch |" in text


def test_run_bench_sections_are_checked() -> None:
    with pytest.raises(ValueError, match="sections"):
        run_bench(config=BenchConfig(sections=("nope",)))


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
    assert f"**{math.sqrt(16):.2f}x** (1)" in table
