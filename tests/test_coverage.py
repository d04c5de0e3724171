"""Fails when a public functional, kernel or transform has no entry in any test case table."""

from __future__ import annotations

import inspect

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.functional._registry import _REGISTRY

from .test_generic import case_modules, collect

NOT_OPS = {"InterpolationMode", "register_kernel"}
NOT_TRANSFORMS = {"InterpolationMode", "Transform", "RandomApplyTransform"}


def _covered_names() -> set[str]:
    names: set[str] = set()
    for module in case_modules():
        names |= set(getattr(module, "COVERED", ()))
    return names


def _kernels_of(functional: object) -> set[str]:
    kernels = {getattr(k, "__wrapped__", k) for k in _REGISTRY.get(functional, {}).values()}
    return {name for name in F.__all__ if getattr(F, name) in kernels}


def test_every_public_functional_and_kernel_has_cases() -> None:
    covered = _covered_names()
    for functional in collect("FUNCTIONAL_CASES"):
        covered.add(functional.__name__)
        covered |= _kernels_of(functional)
    missing = sorted(set(F.__all__) - NOT_OPS - covered)
    assert not missing, f"public functionals / kernels without test cases: {missing}"


def test_every_public_transform_has_cases() -> None:
    covered = _covered_names() | {cls.__name__ for cls in collect("TRANSFORM_CASES")}
    public = {name for name in T.__all__ if inspect.isclass(getattr(T, name))} - NOT_TRANSFORMS
    aliases = {name for name in public if getattr(T, name).__name__ != name and getattr(T, name).__name__ in covered}
    missing = sorted(public - covered - aliases)
    assert not missing, f"public transforms without test cases: {missing}"
