"""Runs the shared checkers over the case tables every test module declares."""

from __future__ import annotations

import importlib
import inspect
import pathlib
import re
from typing import Any, Callable

import PIL.Image
import pytest
import torch
from visiontx.datapoints import BoundingBox, KeyPoints
from visiontx.functional._registry import get_kernel, registered_types

from .common import (
    INPUT_MAKERS,
    as_case,
    check_functional,
    check_kernel,
    check_transform,
    image_variants,
    unwrap,
)

TEST_DIR = pathlib.Path(__file__).parent


def case_modules() -> list[Any]:
    names = sorted(p.stem for p in TEST_DIR.glob("test_*.py"))
    return [importlib.import_module(f"tests.{name}") for name in names]


def collect(attribute: str) -> dict[Any, list[Any]]:
    table: dict[Any, list[Any]] = {}
    for module in case_modules():
        for key, cases in getattr(module, attribute, {}).items():
            table.setdefault(key, []).extend(as_case(c) for c in cases)
    return table


def _functional_params() -> list[Any]:
    params = []
    for functional, cases in collect("FUNCTIONAL_CASES").items():
        for i, case in enumerate(cases):
            types = case.types or tuple(t for t in INPUT_MAKERS if t in registered_types(functional))
            for input_type in types:
                for variant in image_variants(case, input_type):
                    ident = f"{functional.__name__}-{i}-{input_type.__name__}-{'-'.join(map(str, variant.values()))}"
                    params.append(pytest.param(functional, case, input_type, variant, id=ident))
    return params


def _raw_kernel(functional: Callable, input_type: type) -> Callable:
    adapter = get_kernel(functional, input_type)
    return getattr(adapter, "__wrapped__", adapter)


@pytest.mark.parametrize(("functional", "case", "input_type", "variant"), _functional_params())
def test_functional_case(functional: Callable, case: Any, input_type: type, variant: dict) -> None:
    inpt = INPUT_MAKERS[input_type](**variant)
    check_functional(functional, inpt, **case.kwargs)
    if input_type is PIL.Image.Image:
        return
    kernel = _raw_kernel(functional, input_type)
    kwargs = dict(case.kwargs)
    if isinstance(inpt, (BoundingBox, KeyPoints)):
        params = inspect.signature(kernel).parameters
        if "format" in params:
            kwargs["format"] = inpt.format
        if "spatial_size" in params:
            kwargs["spatial_size"] = inpt.spatial_size
    check_kernel(kernel, unwrap(inpt), check_batched=case.check_batched, atol=case.atol, **kwargs)


def _transform_params() -> list[Any]:
    params = []
    for cls, cases in collect("TRANSFORM_CASES").items():
        for i, case in enumerate(cases):
            for input_type in case.types or tuple(INPUT_MAKERS):
                params.append(pytest.param(cls, case, input_type, id=f"{cls.__name__}-{i}-{input_type.__name__}"))
    return params


@pytest.mark.parametrize(("cls", "case", "input_type"), _transform_params())
def test_transform_case(cls: type, case: Any, input_type: type) -> None:
    transform = cls(**case.kwargs)
    check_transform(transform, INPUT_MAKERS[input_type]())
    if input_type is KeyPoints:  # again with a tracked visibility
        check_transform(transform, INPUT_MAKERS[input_type](tracked=True))


_SPATIAL_CALLS = {
    "affine": lambda F, x: F.affine(x, 10.0, [0, 0], 1.0, [0.0, 0.0]),
    "center_crop": lambda F, x: F.center_crop(x, 2),
    "crop": lambda F, x: F.crop(x, 0, 0, 1, 1),
    "elastic": lambda F, x: F.elastic(x, torch.zeros(1, 1, 5, 2)),
    "erase": lambda F, x: F.erase(x, 0, 0, 1, 1, 0.0),
    "five_crop": lambda F, x: F.five_crop(x, 1),
    "gaussian_blur": lambda F, x: F.gaussian_blur(x, 3),
    "horizontal_flip": lambda F, x: F.horizontal_flip(x),
    "pad": lambda F, x: F.pad(x, 1),
    "perspective": lambda F, x: F.perspective(x, [[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 0], [1, 0], [1, 1], [0, 2]]),
    "resize": lambda F, x: F.resize(x, [2, 2]),
    "rotate": lambda F, x: F.rotate(x, 30.0),
    "ten_crop": lambda F, x: F.ten_crop(x, 1),
    "vertical_flip": lambda F, x: F.vertical_flip(x),
}


@pytest.mark.parametrize("op", sorted(_SPATIAL_CALLS))
def test_spatial_ops_refuse_tensors_without_height_and_width(op: str) -> None:
    import visiontx.functional as F

    for vector in (torch.zeros(5), torch.zeros(5, dtype=torch.uint8), torch.zeros(())):
        shape = re.escape(str(tuple(vector.shape)))
        with pytest.raises(ValueError, match=rf"^{op}: image must be \[\.\.\., H, W\], got shape {shape}"):
            _SPATIAL_CALLS[op](F, vector)
