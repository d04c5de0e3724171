"""``python -m visiontx demo``: the main job on the bundled COCO sample writes the expected picture.

``visiontx._demo`` is imported inside the tests, so this module loads even before every transform it
uses has landed (test_generic imports every test module).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import PIL.Image
import pytest
import torch

from visiontx.__main__ import main

ROOT = pathlib.Path(__file__).parent.parent


def _run(tmp_path: pathlib.Path, *args: str) -> pathlib.Path:
    out = tmp_path / "x.png"
    assert main(["demo", "--out", str(out), *args]) == 0
    return out


@pytest.mark.parametrize("n", [1, 2, 5])
def test_demo_writes_grid_of_expected_size(n: int, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture) -> None:
    from visiontx._demo import CELL, PADDING, grid_size

    out = _run(tmp_path, "--n", str(n), "--seed", "3")
    with PIL.Image.open(out) as image:
        assert image.format == "PNG" and image.mode == "RGB"
        assert (image.height, image.width) == grid_size(n)
    expected = {
        1: (CELL, CELL),
        2: (CELL + 2 * PADDING, 2 * CELL + 3 * PADDING),
        5: (2 * CELL + 3 * PADDING, 4 * CELL + 5 * PADDING),
    }
    assert grid_size(n) == expected[n]
    printed = capsys.readouterr().out
    assert str(out) in printed and printed.rstrip().endswith(" s")


def test_demo_is_seeded(tmp_path: pathlib.Path) -> None:
    first = np.asarray(PIL.Image.open(_run(tmp_path / "a", "--n", "2", "--seed", "1")))
    again = np.asarray(PIL.Image.open(_run(tmp_path / "b", "--n", "2", "--seed", "1")))
    other = np.asarray(PIL.Image.open(_run(tmp_path / "c", "--n", "2", "--seed", "2")))
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_demo_draws_boxes_and_masks() -> None:
    from visiontx._demo import CELL, category_names, draw_sample, load_sample, training_pipeline

    image, target = load_sample()[0]
    assert set(target) >= {"boxes", "labels", "masks"} and len(target["boxes"]) == len(target["masks"]) >= 1
    torch.manual_seed(0)
    image, target = next(out for out in (training_pipeline()(image, target) for _ in range(20)) if len(out[1]["boxes"]))
    nothing = {key: value[:0] for key, value in target.items()}
    drawn, plain = draw_sample(image, target, category_names()), draw_sample(image, nothing, {})
    assert drawn.shape == plain.shape == (3, CELL, CELL)
    assert drawn.dtype == plain.dtype == torch.uint8
    assert (drawn != plain).float().mean() > 0.01  # masks and outlines cover a visible part


def test_demo_pipeline_keeps_targets_aligned() -> None:
    from visiontx._demo import load_sample, training_pipeline

    torch.manual_seed(0)
    image, target = load_sample()[0]
    pipeline = training_pipeline(128)
    for _ in range(5):
        out_image, out_target = pipeline(image, target)
        height, width = out_image.shape[-2:]
        assert max(height, width) <= 128
        assert len(out_target["boxes"]) == len(out_target["labels"]) == len(out_target["masks"])
        assert tuple(out_target["boxes"].spatial_size) == (height, width)
        assert out_target["masks"].shape[-2:] == (height, width)


def test_demo_rejects_bad_n(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["demo", "--out", str(tmp_path / "x.png"), "--n", "0"]) == 2
    assert "--n" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_demo_command_needs_no_optional_dependency(tmp_path: pathlib.Path) -> None:
    """The demo in a fresh interpreter where torchvision, matplotlib, albumentations and OpenCV cannot be imported."""
    out = tmp_path / "sub" / "demo.png"
    code = (
        "import sys\n"
        "for name in ('torchvision', 'matplotlib', 'albumentations', 'cv2'):\n"
        "    sys.modules[name] = None  # makes `import name` raise ImportError\n"
        "import visiontx.__main__ as m\n"
        "sys.exit(m.main(['demo', '--out', sys.argv[1], '--n', '1']))\n"
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", code, str(out)]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr + result.stdout
    assert out.exists() and "wrote" in result.stdout
