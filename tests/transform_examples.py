"""Representative instances of every public transform, with a sample for each: the shared case tables'
rows plus the transforms tested elsewhere (``EXTRA_EXAMPLES``). Used by test_serialize and test_seeding."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import visiontx.transforms as T
from visiontx.datapoints import Image, Mask
from visiontx.functional import InterpolationMode

from .common import INPUT_MAKERS, make_bounding_box, make_image


def batch_sample() -> tuple[torch.Tensor, torch.Tensor]:
    return torch.rand(4, 3, 12, 14, generator=torch.Generator().manual_seed(1)), torch.tensor([0, 1, 2, 0])


def jpeg_sample() -> torch.Tensor:
    """A JPEG's bytes (1-D uint8), as ``visiontx.io.read_file`` gives them."""
    from visiontx.io import encode_jpeg

    return encode_jpeg(make_image((48, 64)).as_subclass(torch.Tensor), quality=90)


def detection_sample() -> dict[str, Any]:
    size = (40, 60)
    return {"image": make_image(size), "boxes": make_bounding_box(size, num_boxes=5), "labels": torch.arange(5)}


# public transforms without a TRANSFORM_CASES row (bespoke-tested elsewhere): a constructor and a sample maker
EXTRA_EXAMPLES: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
    "ConvertImageDtype": (lambda: T.ConvertImageDtype(torch.float64), make_image),
    "CutMix": (lambda: T.CutMix(alpha=0.5, num_classes=3), batch_sample),
    "DecodeRandomResizedCrop": (lambda: T.DecodeRandomResizedCrop(12, scale=(0.5, 1.0)), jpeg_sample),
    "MixUp": (lambda: T.MixUp(alpha=0.5, num_classes=3), batch_sample),
    "RandomIoUCrop": (lambda: T.RandomIoUCrop(sampler_options=[0.1, 0.3, 0.5]), detection_sample),
    "ToPILImage": (lambda: T.ToPILImage(mode="RGB"), make_image),
    "ToPureTensor": (lambda: T.ToPureTensor(), make_image),
    "ToTensor": (lambda: T.ToTensor(), lambda: make_image().numpy().transpose(1, 2, 0).copy()),
    "SetClampingMode": (lambda: T.SetClampingMode("hard"), detection_sample),
    "PerSample": (
        lambda: T.PerSample(T.Compose([T.RandomHorizontalFlip(), T.ColorJitter(0.3, 0.3), T.RandomAffine(15)])),
        lambda: make_image(batch_dims=(3,)),
    ),
    "SanitizeBoundingBoxes": (lambda: T.SanitizeBoundingBoxes(min_size=2.0, labels_getter="default"), detection_sample),
    "Nested": (
        lambda: T.Compose(
            [
                T.RandomChoice([T.RandomRotation(20), T.RandomAffine(0, shear=(5.0, 10.0))], p=[0.3, 0.7]),
                T.RandomOrder([T.ColorJitter(0.3, 0.3), T.RandomApply([T.GaussianBlur(3)], p=0.5)]),
                T.AutoAugment(T.AutoAugmentPolicy.SVHN, interpolation=InterpolationMode.BILINEAR, fill={Image: 1}),
                T.ToDtype({Image: torch.float32, Mask: torch.int64, "others": None}, scale=True),
                T.Normalize(mean=(0.5, 0.4, 0.3), std=[0.2, 0.2, 0.2]),
            ],
            fuse_geometry=True,
            seed=7,
        ),
        make_image,
    ),
}


def _first_input_type(case: Any) -> type:
    types = case.types or tuple(INPUT_MAKERS)
    return Image if Image in types else types[0]


def examples() -> list[Any]:
    """pytest params (make transform, make sample) for every public transform: the shared case tables' rows
    (each transform with representative arguments, on its first input type) and :data:`EXTRA_EXAMPLES`."""
    from .test_generic import collect  # (imports every test module: not at import time)

    params = []
    for cls, cases in collect("TRANSFORM_CASES").items():
        for i, case in enumerate(cases):
            maker = INPUT_MAKERS[_first_input_type(case)]
            params.append(pytest.param((lambda c=cls, k=case.kwargs: c(**k)), maker, id=f"{cls.__name__}-{i}"))
    for name, (make, sample) in EXTRA_EXAMPLES.items():
        params.append(pytest.param(make, sample, id=name))
    return params


def built(make: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ToTensor's deprecation
        return make()


def run_seeded(transform: Any, sample: Any, seed: int = 0) -> Any:
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return transform(*sample) if isinstance(sample, tuple) else transform(sample)
