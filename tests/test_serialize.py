"""to_dict / from_dict / save / load and repr: every public transform round-trips (same repr, same outputs
under the same seed); what cannot be stored raises a clear error naming it."""

from __future__ import annotations

import inspect
import json
import pathlib
import sys
from collections.abc import Callable
from typing import Any

import pytest
import torch

import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Image
from visiontx.functional import InterpolationMode

from .common import assert_equal, make_bounding_box, make_image
from .test_generic import collect
from .transform_examples import EXTRA_EXAMPLES, batch_sample, built, run_seeded, examples

NOT_TRANSFORMS = {"Transform", "RandomApplyTransform"}


def test_examples_cover_every_public_transform() -> None:
    public = {n for n in T.__all__ if inspect.isclass(getattr(T, n)) and issubclass(getattr(T, n), T.Transform)}
    covered = {cls.__name__ for cls in collect("TRANSFORM_CASES")} | set(EXTRA_EXAMPLES)
    aliases = {n for n in public if getattr(T, n).__name__ != n and getattr(T, n).__name__ in covered}
    assert public - covered - aliases - NOT_TRANSFORMS == {"Lambda"}  # Lambda cannot be saved (tested below)


@pytest.mark.parametrize(("make", "make_sample"), examples())
def test_round_trip_keeps_repr_and_outputs(make: Callable[[], Any], make_sample: Callable[[], Any]) -> None:
    transform = built(make)
    document = json.loads(json.dumps(transform.to_dict()))
    restored = built(lambda: T.from_dict(document))
    assert type(restored) is type(transform)
    assert repr(restored) == repr(transform)
    assert restored.to_dict() == document
    assert_equal(run_seeded(restored, make_sample()), run_seeded(transform, make_sample()))


@pytest.mark.parametrize("suffix", [".json", ".yaml", ".yml"])
def test_save_and_load_files(tmp_path: pathlib.Path, suffix: str) -> None:
    pipeline = built(EXTRA_EXAMPLES["Nested"][0])
    path = tmp_path / f"pipeline{suffix}"
    T.save(pipeline, path)
    text = path.read_text()
    assert ("$transform: Compose" in text) if suffix != ".json" else ('"$transform": "Compose"' in text)
    loaded = T.load(str(path))
    assert repr(loaded) == repr(pipeline)
    image = make_image()
    assert_equal(loaded(image), pipeline(image))  # both seeded with 7: the same first call
    assert_equal(loaded(image), pipeline(image))  # and the same second one


def test_document_layout() -> None:
    transform = T.RandomResizedCrop(
        [8, 12], interpolation=InterpolationMode.NEAREST, antialias=False
    )
    document = T.Compose([transform, T.ToDtype({Image: torch.float16, "others": None})], seed=3).to_dict()
    assert document["format"] == "visiontx.transforms" and document["version"] == 1
    compose = document["transform"]
    assert compose["$transform"] == "Compose" and compose["seed"] == 3 and compose["fuse_geometry"] is False
    crop, to_dtype = compose["transforms"]
    assert crop == {
        "$transform": "RandomResizedCrop", "size": [8, 12], "scale": {"$tuple": [0.08, 1.0]},
        "ratio": {"$tuple": [0.75, 4 / 3]}, "interpolation": {"$enum": "InterpolationMode.NEAREST"}, "antialias": False,
    }
    assert to_dtype["dtype"] == {"$dict": [[{"$type": "Image"}, {"$dtype": "float16"}], ["others", None]]}


def test_tensors_and_box_formats_round_trip() -> None:
    matrix = torch.eye(12, dtype=torch.float64) * 0.5
    linear = T.LinearTransformation(matrix, torch.zeros(12, dtype=torch.float64))
    restored = T.from_dict(json.loads(json.dumps(linear.to_dict())))
    assert torch.equal(restored.transformation_matrix, matrix) and restored.transformation_matrix.dtype == torch.float64
    convert = T.from_dict(json.loads(json.dumps(T.ConvertBoundingBoxFormat(BoundingBoxFormat.CXCYWH).to_dict())))
    assert convert.format is BoundingBoxFormat.CXCYWH
    boxes = make_bounding_box((20, 30), format="XYXY")
    assert convert(boxes).format.name == "CXCYWH"


def test_what_cannot_be_stored_is_named() -> None:
    with pytest.raises(TypeError, match=r"Compose.transforms\[1\]\(Lambda\).lambd=.* is a function.*Transform subclass"):
        T.Compose([T.RandomHorizontalFlip(), T.Lambda(lambda x: x)]).to_dict()
    with pytest.raises(TypeError, match=r"MixUp.labels_getter=.*register_labels_getter"):
        T.MixUp(labels_getter=lambda sample: sample[1]).to_dict()
    with pytest.raises(TypeError, match=r"RandomApply.transforms\[0\]\(RandomCrop\).generator is a torch.Generator.*seed"):
        T.RandomApply([T.RandomCrop(4, generator=torch.Generator())]).to_dict()
    with pytest.raises(TypeError, match="seed"):
        T.Compose([T.RandomCrop(4)], generator=torch.Generator()).to_dict()
    with pytest.raises(TypeError, match=r"Compose.transforms\[0\]=.*function"):
        T.Compose([abs]).to_dict()
    with pytest.raises(TypeError, match=r"Compose.transforms\[0\]=Identity\(\) is a torch.nn.modules.linear.Identity object"):
        T.Compose([torch.nn.Identity()]).to_dict()


def test_registered_labels_getter_is_stored_by_name() -> None:
    T.register_labels_getter("second_item", lambda sample: sample[1])
    mixup = T.MixUp(alpha=0.4, num_classes=3, labels_getter="second_item")
    restored = T.from_dict(json.loads(json.dumps(mixup.to_dict())))
    assert repr(restored) == repr(mixup) and "labels_getter='second_item'" in repr(mixup)
    images, labels = batch_sample()
    assert_equal(run_seeded(restored, (images, labels)), run_seeded(mixup, (images, labels)))
    with pytest.raises(ValueError, match="'default', 'second_item'"):
        T.MixUp(labels_getter="missing")
    with pytest.raises(ValueError, match="default"):
        T.register_labels_getter("default", lambda sample: None)


class _Brighten(T.Transform):
    def __init__(self, amount: float, *, clip: bool = True) -> None:
        super().__init__()
        self.amount, self.clip = amount, clip

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return inpt + self.amount


def test_user_transforms_are_stored_by_module_and_name() -> None:
    pipeline = T.Compose([_Brighten(0.5, clip=False)])
    document = pipeline.to_dict()
    assert document["transform"]["transforms"][0]["$transform"] == f"{__name__}._Brighten"
    assert repr(T.from_dict(document)) == repr(pipeline) == repr(T.from_dict(json.loads(json.dumps(document))))
    document["transform"]["transforms"][0]["$transform"] = "os.system"
    with pytest.raises(ValueError, match="unknown transform 'os.system'"):
        T.from_dict(document)


def test_bad_documents_are_refused() -> None:
    with pytest.raises(ValueError, match="not a visiontx pipeline"):
        T.from_dict({"transform": {"$transform": "Identity"}})
    with pytest.raises(ValueError, match="version 2"):
        T.from_dict({"format": "visiontx.transforms", "version": 2, "transform": {"$transform": "Identity"}})
    base = {"format": "visiontx.transforms", "version": 1}
    with pytest.raises(ValueError, match="unknown dtype"):
        T.from_dict({**base, "transform": {"$transform": "ToDtype", "dtype": {"$dtype": "Tensor"}}})
    with pytest.raises(ValueError, match="unknown enum"):
        T.from_dict({**base, "transform": {"$transform": "Resize", "size": 3, "interpolation": {"$enum": "Foo.BAR"}}})
    with pytest.raises(ValueError, match="unknown type"):
        T.from_dict({**base, "transform": {"$transform": "ToDtype", "dtype": {"$dict": [[{"$type": "str"}, None]]}}})


def test_yaml_without_pyyaml_is_a_clear_error(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml raises ImportError
    with pytest.raises(ImportError, match="PyYAML"):
        T.save(T.Identity(), tmp_path / "p.yaml")
    T.save(T.Identity(), tmp_path / "p.json")  # JSON needs nothing
    assert repr(T.load(tmp_path / "p.json")) == "Identity()"


def test_repr_shows_arguments_stably() -> None:
    assert repr(T.RandomHorizontalFlip(p=0.3)) == "RandomHorizontalFlip(p=0.3)"
    assert repr(T.Resize(10)) == "Resize(size=10, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True)"
    assert repr(T.RandomCrop(3, generator=torch.Generator())).endswith("generator=<torch.Generator>)")
    assert repr(T.ToDtype({Image: torch.float32, "others": None})) == "ToDtype(dtype={Image: torch.float32, 'others': None}, scale=False)"
    nested = T.Compose([T.RandomApply([T.Identity()], p=0.2)], seed=1)
    assert repr(nested) == (
        "Compose(\n  transforms=[\n    RandomApply(\n      transforms=[\n        Identity(),\n      ],\n      p=0.2,\n    ),\n"
        "  ],\n  fuse_geometry=False,\n  seed=1,\n)"
    )
    compose = T.Compose([T.Identity()])
    compose.transforms.append(T.RandomVerticalFlip())  # the containers show (and store) their current list
    assert "RandomVerticalFlip(p=0.5)" in repr(compose) and compose.to_dict()["transform"]["transforms"][1]["p"] == 0.5


def test_torchvision_enums_are_stored_as_visiontx_ones() -> None:
    tv = pytest.importorskip("torchvision.transforms.v2")
    resize = T.Resize(10, interpolation=tv.InterpolationMode.NEAREST)
    restored = T.from_dict(resize.to_dict())
    assert restored.interpolation is InterpolationMode.NEAREST and repr(restored) == repr(resize)
    boxes = make_bounding_box((20, 30))
    assert_equal(restored(boxes), resize(boxes))
    assert isinstance(boxes, BoundingBox)


def test_readme_section_runs(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Seeds, sample-keyed determinism and saving pipelines", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert (tmp_path / "aug.yaml").exists() and namespace["label"] == 5
    assert torch.equal(namespace["image"], namespace["train"][5][0])


def test_hand_written_configs(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "aug.yml"
    path.write_text(
        "format: visiontx.transforms\nversion: 1\ntransform:\n  $transform: Compose\n  seed: 0\n  transforms:\n"
        "  - {$transform: RandomResizedCrop, size: 8, interpolation: {$enum: InterpolationMode.NEAREST}}\n"
        "  - {$transform: RandomHorizontalFlip}\n"
    )
    expected = T.Compose([T.RandomResizedCrop(8, interpolation=InterpolationMode.NEAREST), T.RandomHorizontalFlip()], seed=0)
    loaded = T.load(path)
    assert repr(loaded) == repr(expected)
    image = make_image((16, 16))
    assert_equal(loaded(image), expected(image))
    assert repr(T.from_dict({"$transform": "Resize", "size": 4})) == repr(T.Resize(4))  # a bare entry
