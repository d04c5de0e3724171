"""Runs the shared checkers over the case tables every test module declares."""

from __future__ import annotations

import importlib
import inspect
import pathlib
from typing import Any, Callable

import PIL.Image
import pytest
from visiontx.datapoints import BoundingBox
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
    if isinstance(inpt, BoundingBox):
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
