"""The package as installed: its metadata, its files, and how it behaves without a working OpenCV."""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _requirement_names() -> set[str]:
    requires = importlib.metadata.requires("visiontx") or []
    return {r.split(";")[0].split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip().lower() for r in requires}


def test_opencv_is_a_dependency_so_pip_install_gives_the_fast_paths() -> None:
    assert "opencv-python-headless" in _requirement_names()
    from visiontx.functional import _cv2

    assert _cv2.available()


def test_metadata_names_the_license_and_the_python_the_pinned_torch_needs() -> None:
    metadata = importlib.metadata.metadata("visiontx")
    assert metadata["Requires-Python"] == ">=3.10"
    assert "BSD-3-Clause" in (metadata.get("License") or metadata.get("License-Expression") or "")
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("BSD 3-Clause License")


def test_the_package_ships_its_type_hints() -> None:
    assert importlib.resources.files("visiontx").joinpath("py.typed").is_file()
    assert "py.typed" in (ROOT / "setup.py").read_text()


def _run(code: str, tmp_path: pathlib.Path) -> subprocess.CompletedProcess:
    script = tmp_path / "check.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, "-W", "default", str(script)], capture_output=True, text=True, cwd=ROOT)


CHECK = """
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import torch
        import visiontx.functional as F
        from visiontx.functional import _cv2
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "opencv-python-headless" in messages[0], messages
    assert not _cv2.available()
    image = torch.arange(3 * 20 * 30, dtype=torch.uint8).reshape(3, 20, 30)
    out = F.rotate(F.gaussian_blur(F.resize(image, [10, 15]), 3), 30.0, interpolation="bilinear")
    assert out.shape == (3, 10, 15) and out.dtype == torch.uint8
    print("ok")
"""


@pytest.mark.parametrize("broken", [False, True], ids=["missing", "broken"])
def test_without_a_working_opencv_visiontx_warns_once_and_runs_its_torch_kernels(
    broken: bool, tmp_path: pathlib.Path
) -> None:
    if broken:  # a cv2 that fails while importing, as a wheel built for another numpy does
        (tmp_path / "cv2.py").write_text("raise RuntimeError('compiled against another numpy')\n")
        block = f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
    else:
        block = "import sys; sys.modules['cv2'] = None\n"
    result = _run(block + textwrap.dedent(CHECK), tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
