"""The README's example runs as written (on the bundled photo), so it cannot rot."""

from __future__ import annotations

import pathlib
import re

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
PHOTO = ROOT / "visiontx" / "assets" / "coco_sample" / "images" / "000000000001.jpg"


def test_readme_example_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks, "README.md has no python example"
    code = blocks[0].replace('"photo.jpg"', repr(str(PHOTO)))
    namespace: dict = {"print": lambda *args: None}
    exec(compile(code, "README.md", "exec"), namespace)
    out = namespace["out"]
    assert out["image"].shape == (3, 320, 320) and out["image"].dtype == torch.float32
    assert len(out["boxes"]) == len(out["labels"])
    assert namespace["picture"].shape == namespace["img"].shape


def test_readme_decoding_example_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = next(b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.S) if "DecodeRandomResizedCrop" in b)
    import visiontx.transforms as T
    from visiontx import io

    namespace: dict = {"T": T, "io": io, "torch": torch}
    exec(compile(code.replace('"photo.jpg"', repr(str(PHOTO))), "README.md", "exec"), namespace)
    assert namespace["image"].shape == (3, 224, 224) and namespace["image"].dtype == torch.float32
