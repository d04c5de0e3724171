"""What the benchmark runs: one entry per transform class, and the two whole pipelines.

Each case builds the same transform for visiontx and torchvision (``build(T, D)`` with that library's
transforms and datapoints modules) and, where albumentations has an equivalent, its version
(``alb(A, cv2)``). Random transforms get ``p=1`` so every call does the work. Warps use bilinear
interpolation everywhere; downscaling resizes antialias (albumentations: OpenCV's INTER_AREA).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
FILL = (124, 116, 104)
DEMO_SIZE = 512  # the demo's display size (``python -m visiontx demo``)


@dataclass(frozen=True)
class BenchCase:
    """One benchmarked transform (or pipeline) and its peers' equivalents."""

    name: str
    requires: tuple[str, ...]
    build: Callable[[Any, Any], Any]
    alb: Callable[[Any, Any], Any] | None = None
    kind: str = "image"
    note: str = ""


Builder = Callable[[Any, Any], Any]


def _case(name: str, build: Builder, alb: Builder | None = None, **kw: Any) -> BenchCase:
    return BenchCase(name=name, requires=(name.split("(")[0],), build=build, alb=alb, **kw)


def _bilinear(T: Any) -> Any:
    return T.InterpolationMode.BILINEAR


GEOMETRY = [
    _case("Resize(224)", lambda T, D: T.Resize(224, antialias=True),
          lambda A, cv2: A.SmallestMaxSize(max_size=224, interpolation=cv2.INTER_AREA), note="alb: INTER_AREA"),
    _case("CenterCrop(224)", lambda T, D: T.CenterCrop(224), lambda A, cv2: A.CenterCrop(224, 224)),
    _case("RandomCrop(224)", lambda T, D: T.RandomCrop(224), lambda A, cv2: A.RandomCrop(224, 224)),
    _case("RandomResizedCrop(224)", lambda T, D: T.RandomResizedCrop(224, antialias=True),
          lambda A, cv2: A.RandomResizedCrop((224, 224), area_for_downscale="image"),
          note="alb: INTER_AREA when shrinking"),
    _case("FiveCrop(224)", lambda T, D: T.FiveCrop(224)),
    _case("TenCrop(224)", lambda T, D: T.TenCrop(224)),
    _case("Pad(32)", lambda T, D: T.Pad(32, fill=0), lambda A, cv2: A.Pad(32, fill=0, border_mode=cv2.BORDER_CONSTANT)),
    _case("RandomZoomOut",
          lambda T, D: T.RandomZoomOut(fill={D.Image: FILL, "others": 0}, side_range=(1.0, 2.0), p=1.0)),
    _case("RandomRotation(30)", lambda T, D: T.RandomRotation(30, interpolation=_bilinear(T)),
          lambda A, cv2: A.Rotate(limit=30, interpolation=cv2.INTER_LINEAR, border_mode=cv2.BORDER_CONSTANT, p=1.0)),
    _case("RandomAffine",
          lambda T, D: T.RandomAffine(30, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=10, interpolation=_bilinear(T)),
          lambda A, cv2: A.Affine(rotate=(-30, 30), translate_percent=(-0.1, 0.1), scale=(0.8, 1.2), shear=(-10, 10),
                                  p=1.0)),
    _case("RandomPerspective", lambda T, D: T.RandomPerspective(0.3, p=1.0, interpolation=_bilinear(T)),
          lambda A, cv2: A.Perspective(scale=(0.05, 0.15), p=1.0), note="alb: its own corner sampling"),
    _case("ElasticTransform", lambda T, D: T.ElasticTransform(alpha=50.0, sigma=5.0, interpolation=_bilinear(T)),
          lambda A, cv2: A.ElasticTransform(alpha=50.0, sigma=5.0, p=1.0), note="alb: alpha scaled differently"),
    _case("RandomHorizontalFlip", lambda T, D: T.RandomHorizontalFlip(p=1.0), lambda A, cv2: A.HorizontalFlip(p=1.0)),
    _case("RandomVerticalFlip", lambda T, D: T.RandomVerticalFlip(p=1.0), lambda A, cv2: A.VerticalFlip(p=1.0)),
    _case("RandomIoUCrop", lambda T, D: T.RandomIoUCrop(), kind="boxes"),
    _case("ScaleJitter", lambda T, D: T.ScaleJitter((512, 512), antialias=True)),
    _case("RandomShortestSize", lambda T, D: T.RandomShortestSize([224, 256, 288], antialias=True),
          lambda A, cv2: A.SmallestMaxSize(max_size=[224, 256, 288], interpolation=cv2.INTER_AREA),
          note="alb: INTER_AREA"),
    _case("RandomResize", lambda T, D: T.RandomResize(200, 400, antialias=True)),
]

COLOR = [
    _case("ColorJitter", lambda T, D: T.ColorJitter(0.4, 0.4, 0.4, 0.1),
          lambda A, cv2: A.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1.0),
          note="alb: hue in 8-bit HSV, up to 6 levels off torchvision"),
    _case("Grayscale", lambda T, D: T.Grayscale(3), lambda A, cv2: A.ToGray(num_output_channels=3, p=1.0)),
    _case("RandomGrayscale", lambda T, D: T.RandomGrayscale(p=1.0),
          lambda A, cv2: A.ToGray(num_output_channels=3, p=1.0)),
    _case("RGB", lambda T, D: T.RGB()),
    _case("RandomChannelPermutation", lambda T, D: T.RandomChannelPermutation(),
          lambda A, cv2: A.ChannelShuffle(p=1.0)),
    _case("RandomPhotometricDistort", lambda T, D: T.RandomPhotometricDistort(p=1.0)),
    _case("RandomEqualize", lambda T, D: T.RandomEqualize(p=1.0), lambda A, cv2: A.Equalize(p=1.0)),
    _case("RandomInvert", lambda T, D: T.RandomInvert(p=1.0), lambda A, cv2: A.InvertImg(p=1.0)),
    _case("RandomPosterize(4)", lambda T, D: T.RandomPosterize(4, p=1.0),
          lambda A, cv2: A.Posterize(num_bits=4, p=1.0)),
    _case("RandomSolarize(128)", lambda T, D: T.RandomSolarize(128, p=1.0),
          lambda A, cv2: A.Solarize(threshold_range=(0.5, 0.5), p=1.0)),
    _case("RandomAutocontrast", lambda T, D: T.RandomAutocontrast(p=1.0), lambda A, cv2: A.AutoContrast(p=1.0)),
    _case("RandomAdjustSharpness(2)", lambda T, D: T.RandomAdjustSharpness(2.0, p=1.0),
          lambda A, cv2: A.Sharpen(alpha=(0.5, 0.5), lightness=(1.0, 1.0), p=1.0),
          note="alb: Sharpen, a 3x3 kernel too"),
]

MISC = [
    _case("Normalize", lambda T, D: T.Normalize(MEAN, STD), lambda A, cv2: A.Normalize(MEAN, STD), kind="float",
          note="tensors: float32 input; alb: uint8 input, scales too"),
    _case("GaussianBlur(9)", lambda T, D: T.GaussianBlur(9, sigma=(0.1, 2.0)),
          lambda A, cv2: A.GaussianBlur(blur_limit=(9, 9), sigma_limit=(0.1, 2.0), p=1.0)),
    _case("GaussianNoise", lambda T, D: T.GaussianNoise(sigma=0.1),
          lambda A, cv2: A.GaussNoise(std_range=(0.1, 0.1), p=1.0),
          kind="float", note="tensors: float32 input; alb: uint8 input"),
    _case("RandomErasing", lambda T, D: T.RandomErasing(p=1.0), lambda A, cv2: A.Erasing(p=1.0)),
    _case("JPEG(75)", lambda T, D: T.JPEG(75), lambda A, cv2: A.ImageCompression(quality_range=(75, 75), p=1.0)),
    _case("AutoAugment", lambda T, D: T.AutoAugment()),
    _case("RandAugment", lambda T, D: T.RandAugment()),
    _case("TrivialAugmentWide", lambda T, D: T.TrivialAugmentWide()),
    _case("AugMix", lambda T, D: T.AugMix()),
]

CONVERSION = [
    _case("ToDtype(float32)", lambda T, D: T.ToDtype(torch.float32, scale=True),
          lambda A, cv2: A.ToFloat(max_value=255)),
    _case("ConvertDtype(float32)", lambda T, D: T.ConvertDtype(torch.float32), lambda A, cv2: A.ToFloat(max_value=255)),
    _case("PILToTensor", lambda T, D: T.PILToTensor(), kind="pil"),
    _case("ToImageTensor", lambda T, D: T.ToImageTensor(), kind="pil"),
    _case("ToPILImage", lambda T, D: T.ToPILImage()),
    _case("ToPureTensor", lambda T, D: T.ToPureTensor()),
    _case("ConvertBoundingBoxFormat", lambda T, D: T.ConvertBoundingBoxFormat("CXCYWH"), kind="boxes"),
    _case("ClampBoundingBox", lambda T, D: T.ClampBoundingBox(), kind="boxes"),
    _case("SanitizeBoundingBox", lambda T, D: T.SanitizeBoundingBox(), kind="detection"),
]

TRANSFORMS = GEOMETRY + COLOR + MISC + CONVERSION

# Spec transforms left out of the single-image table, and why.
NOT_BENCHMARKED = {
    "LinearTransformation": "needs a (C*H*W)^2 matrix: 2 TB at 512 x 512",
    "UniformTemporalSubsample": "videos only",
    "MixUp": "batch transform (after the DataLoader)",
    "CutMix": "batch transform (after the DataLoader)",
    "Identity": "see dispatch overhead",
    "Lambda": "see dispatch overhead",
    "ToImagePIL": "alias of ToPILImage",
    "ConvertImageDtype": "alias of ConvertDtype",
    "Compose": "see pipelines",
    "RandomApply": "container",
    "RandomChoice": "container",
    "RandomOrder": "container",
}


def _classification(T: Any, D: Any) -> Any:
    return T.Compose([
        T.RandomResizedCrop(224, antialias=True),
        T.RandomHorizontalFlip(),
        T.ColorJitter(0.4, 0.4, 0.4, 0.1),
        T.ToDtype(torch.float32, scale=True),
        T.Normalize(MEAN, STD),
    ])


def _classification_alb(A: Any, cv2: Any) -> Any:
    return A.Compose([
        A.RandomResizedCrop((224, 224), area_for_downscale="image"),
        A.HorizontalFlip(),
        A.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1.0),
        A.Normalize(MEAN, STD),
    ])


def _detection(T: Any, D: Any) -> Any:
    return T.Compose([
        T.RandomPhotometricDistort(p=1.0),
        T.RandomZoomOut(fill={D.Image: FILL, "others": 0}),
        T.RandomIoUCrop(),
        T.RandomHorizontalFlip(),
        T.Resize(DEMO_SIZE - 1, max_size=DEMO_SIZE, antialias=True),
        T.SanitizeBoundingBox(),
    ])


def _detection_alb(A: Any, cv2: Any) -> Any:
    return A.Compose(
        [
            A.ColorJitter(0.125, 0.5, 0.5, 0.05, p=1.0),
            A.Affine(scale=(0.25, 1.0), keep_ratio=True, fill=FILL, p=0.5),
            A.RandomSizedBBoxSafeCrop(DEMO_SIZE, DEMO_SIZE),  # crops and resizes in one
            A.HorizontalFlip(),
        ],
        bbox_params=A.BboxParams(format="pascal_voc", label_fields=["labels"], min_area=1.0),
    )


PIPELINES = [
    BenchCase(
        "classification (RRC+flip+jitter+normalize)",
        ("RandomResizedCrop", "RandomHorizontalFlip", "ColorJitter", "ToDtype", "Normalize"),
        _classification, _classification_alb,
        note="alb: A.Normalize converts to float itself; hue in 8-bit HSV",
    ),
    BenchCase(
        "detection, the demo's (photometric+zoom-out+IoU crop+flip+resize+sanitize, boxes+masks)",
        ("RandomPhotometricDistort", "RandomZoomOut", "RandomIoUCrop", "RandomHorizontalFlip", "Resize",
         "SanitizeBoundingBox"),
        _detection, _detection_alb, kind="detection",
        note="alb: nearest equivalents (ColorJitter, Affine zoom-out, BBox-safe crop to 512 x 512)",
    ),
]


def missing(case: BenchCase, T: Any) -> list[str]:
    """The visiontx transform classes ``case`` needs that are not (yet) there."""
    return [name for name in case.requires if not hasattr(T, name)]


def albumentations_transform(case: BenchCase, A: Any, cv2: Any) -> Any:
    """The albumentations transform of ``case`` (wrapped in a box-aware Compose for box samples)."""
    transform = case.alb(A, cv2)
    if case.kind == "boxes" and not isinstance(transform, A.Compose):
        transform = A.Compose([transform], bbox_params=A.BboxParams(format="pascal_voc", label_fields=["labels"]))
    return transform
