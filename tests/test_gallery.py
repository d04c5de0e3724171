"""Every gallery script runs (fast settings, temporary output folder) and writes its figures.

Also checks that the gallery illustrates every public transform, so a new transform without a
picture fails here.
"""

from __future__ import annotations

import inspect
import os
import pathlib
import re
import subprocess
import sys

import PIL.Image
import pytest

import visiontx.transforms as T

ROOT = pathlib.Path(__file__).resolve().parent.parent
GALLERY = ROOT / "gallery"
SCRIPTS = sorted(GALLERY.glob("plot_*.py"))
# ToTensor: torchvision's deprecated transform, ToImage + ToDtype(scale=True), which the gallery shows
NOT_ILLUSTRATED = {"Transform", "RandomApplyTransform", "InterpolationMode", "AutoAugmentPolicy", "ToTensor"}

EXPECTED_FIGURES = {
    "plot_getting_started.py": [
        "getting_started_classification.png",
        "getting_started_detection.png",
        "getting_started_functional.png",
    ],
    "plot_detection_end_to_end.py": ["detection_end_to_end.png"],
    "plot_keypoints.py": ["keypoints.png"],
    "plot_custom_transform.py": ["custom_transform.png"],
    "plot_custom_datapoint.py": ["custom_datapoint.png"],
    "plot_cutmix_mixup.py": ["cutmix_mixup.png"],
    "plot_training_parity.py": ["training_parity_samples.png", "training_parity_accuracy.png"],
    "plot_per_sample.py": ["per_sample.png"],
    "plot_distributed_loading.py": ["distributed_loading.png"],
    "plot_transforms_geometry.py": [
        "transforms_geometry.png", "transforms_geometry_crops.png", "transforms_geometry_decode.png",
    ],
    "plot_transforms_color.py": ["transforms_color.png"],
    "plot_transforms_misc.py": ["transforms_misc.png", "transforms_containers.png"],
    "plot_transforms_meta.py": ["transforms_meta_boxes.png", "transforms_meta_types.png", "transforms_meta_video.png"],
    "plot_transforms_auto_augment.py": ["transforms_auto_augment.png"],
    "plot_test_time_augmentation.py": ["test_time_augmentation.png"],
}


def test_every_script_is_listed() -> None:
    assert sorted(p.name for p in SCRIPTS) == sorted(EXPECTED_FIGURES)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_gallery_script_writes_its_figures(script: pathlib.Path, tmp_path: pathlib.Path) -> None:
    pytest.importorskip("matplotlib")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}
    env["VISIONTX_GALLERY_FAST"] = "1"
    env.pop("VISIONTX_GALLERY_OUT", None)
    result = subprocess.run(
        [sys.executable, str(script), str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"{script.name} failed:\n{result.stdout}\n{result.stderr}"
    for name in EXPECTED_FIGURES[script.name]:
        figure = tmp_path / name
        assert figure.exists(), f"{script.name} did not write {name}"
        with PIL.Image.open(figure) as image:
            assert image.format == "PNG" and image.width > 50 and image.height > 50
        assert f"wrote {figure}" in result.stdout


def test_gallery_illustrates_every_transform() -> None:
    text = "\n".join(script.read_text(encoding="utf-8") for script in SCRIPTS)
    used = set(re.findall(r"\bT\.(\w+)\(", text))
    public = {name for name in T.__all__ if inspect.isclass(getattr(T, name))} - NOT_ILLUSTRATED
    missing = sorted(name for name in public - used if getattr(T, name).__name__ not in used)  # aliases count
    assert not missing, f"transforms with no gallery illustration: {missing}"


def test_helpers_read_output_dir_and_fast_mode(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib")
    monkeypatch.syspath_prepend(str(GALLERY))
    import helpers

    monkeypatch.setattr(sys, "argv", ["x.py", str(tmp_path / "a"), "--fast"])
    assert helpers.output_dir() == tmp_path / "a" and (tmp_path / "a").is_dir() and helpers.fast_mode()
    monkeypatch.setattr(sys, "argv", ["x.py"])
    monkeypatch.setenv("VISIONTX_GALLERY_OUT", str(tmp_path / "b"))
    monkeypatch.setenv("VISIONTX_GALLERY_FAST", "0")
    assert helpers.output_dir() == tmp_path / "b" and not helpers.fast_mode()
