"""What the benchmark runs: one entry per transform class, resizes at two factors, and whole pipelines.

Each case builds the same transform for visiontx and torchvision (``build(T, D)`` with that library's
transforms and datapoints modules) and, where albumentations has an equivalent, its version
(``alb(A, cv2)``); cases with a ``factor`` get the output size ``(h, w)`` as a third argument. Random
transforms get ``p=1`` so every call does the work. Warps use bilinear interpolation everywhere. Every
resize-like entry runs antialiased and not, at a whole factor (1/2) and a fractional one (0.7 or a
random crop), each beside albumentations' equal-quality setting: OpenCV's INTER_AREA for antialiased
downscaling, INTER_LINEAR otherwise.

No torch at import: ``albx_worker.py`` imports this module in an interpreter that has AlbumentationsX.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
    factor: float | None = None  # build(T, D, (h, w)) and alb(A, cv2, (h, w)) get the input size times this


def out_size(size: tuple[int, int], factor: float) -> tuple[int, int]:
    """The ``(h, w)`` of a resize of ``size`` by ``factor`` (at least 1 pixel a side)."""
    return max(1, round(size[0] * factor)), max(1, round(size[1] * factor))


def _float32() -> object:
    import torch

    return torch.float32


Builder = Callable[[Any, Any], Any]


def _case(name: str, build: Builder, alb: Builder | None = None, **kw: Any) -> BenchCase:
    return BenchCase(name=name, requires=(name.split("(")[0],), build=build, alb=alb, **kw)


def _bilinear(T: Any) -> Any:
    return T.InterpolationMode.BILINEAR


def _resizes() -> list[BenchCase]:
    """Resize and RandomResizedCrop, antialiased and not, at 1/2 and at a fractional factor."""
    out = []
    for antialias in (True, False):
        tag = "" if antialias else ", antialias=False"
        note = "alb: INTER_AREA" if antialias else "alb: INTER_LINEAR"
        for label, factor in (("x1/2", 0.5), ("x0.7", 0.7)):
            out.append(BenchCase(
                f"Resize({label}{tag})", ("Resize",),
                lambda T, D, hw, aa=antialias: T.Resize(list(hw), antialias=aa),
                lambda A, cv2, hw, aa=antialias: A.Resize(*hw, interpolation=cv2.INTER_AREA if aa else cv2.INTER_LINEAR),
                note=note, factor=factor))
        out.append(BenchCase(
            f"RandomResizedCrop(x1/2 whole image{tag})", ("RandomResizedCrop",),
            lambda T, D, hw, aa=antialias: T.RandomResizedCrop(list(hw), scale=(1.0, 1.0), ratio=_whole(hw),
                                                                antialias=aa),
            lambda A, cv2, hw, aa=antialias: A.RandomResizedCrop(tuple(hw), scale=(1.0, 1.0), ratio=_whole(hw),
                                                                 **_alb_area(aa)),
            note=note + "; crops the whole image: a whole factor", factor=0.5))
        out.append(BenchCase(
            f"RandomResizedCrop(224{tag})", ("RandomResizedCrop",),
            lambda T, D, aa=antialias: T.RandomResizedCrop(224, antialias=aa),
            lambda A, cv2, aa=antialias: A.RandomResizedCrop((224, 224), **_alb_area(aa)),
            note=(note + " when shrinking") if antialias else note))
    return out


def _alb_jitter(A: Any, brightness: float, contrast: float, saturation: float, hue: float) -> Any:
    """``ColorJitter`` with torchvision's factor ranges; AlbumentationsX takes them as ``*_range`` tuples."""
    ranges = {"brightness": (1 - brightness, 1 + brightness), "contrast": (1 - contrast, 1 + contrast),
              "saturation": (1 - saturation, 1 + saturation), "hue": (-hue, hue)}
    if "brightness_range" in inspect.signature(A.ColorJitter).parameters:
        return A.ColorJitter(**{f"{k}_range": v for k, v in ranges.items()}, p=1.0)
    return A.ColorJitter(**ranges, p=1.0)


def _bbox_params(A: Any, **kw: Any) -> Any:
    """Pascal-VOC boxes with a ``labels`` field (AlbumentationsX names the format ``coord_format``)."""
    key = "coord_format" if "coord_format" in inspect.signature(A.BboxParams).parameters else "format"
    return A.BboxParams(**{key: "pascal_voc"}, label_fields=["labels"], **kw)


def _whole(hw: tuple[int, int]) -> tuple[float, float]:
    return hw[1] / hw[0], hw[1] / hw[0]


def _alb_area(antialias: bool) -> dict[str, Any]:
    """albumentations' crop-and-resize: INTER_AREA when shrinking for antialiased entries, INTER_LINEAR (its
    default) otherwise."""
    return {"area_for_downscale": "image"} if antialias else {}


GEOMETRY = _resizes() + [
    _case("CenterCrop(224)", lambda T, D: T.CenterCrop(224), lambda A, cv2: A.CenterCrop(224, 224)),
    _case("RandomCrop(224)", lambda T, D: T.RandomCrop(224), lambda A, cv2: A.RandomCrop(224, 224)),
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
          lambda A, cv2: A.ElasticTransform(alpha=50.0, sigma=5.0, p=1.0),
          note="alb: alpha scaled differently; albx 2.5: another model (a smooth field from a 7 x 7 control grid, "
               "no full-size noise field to smooth)"),
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
          lambda A, cv2: _alb_jitter(A, 0.4, 0.4, 0.4, 0.1),
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
          lambda A, cv2: A.Posterize(num_bits=(4, 4), p=1.0)),
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
    _case("JPEG(75)", lambda T, D: T.JPEG(75), lambda A, cv2: A.ImageCompression(quality_range=(75, 75), p=1.0),
          note="alb: encodes its RGB pixels as OpenCV's BGR (the luma weights of R and B swapped; on the photo up to "
          "24 levels, 2 on average, off Pillow's round trip, which visiontx equals) and skips the planar <-> "
          "interleaved copies"),
    _case("AutoAugment", lambda T, D: T.AutoAugment()),
    _case("RandAugment", lambda T, D: T.RandAugment()),
    _case("TrivialAugmentWide", lambda T, D: T.TrivialAugmentWide()),
    _case("AugMix", lambda T, D: T.AugMix()),
]

CONVERSION = [
    _case("ToDtype(float32)", lambda T, D: T.ToDtype(_float32(), scale=True),
          lambda A, cv2: A.ToFloat(max_value=255)),
    _case("ConvertDtype(float32)", lambda T, D: T.ConvertDtype(_float32()), lambda A, cv2: A.ToFloat(max_value=255)),
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


def _classification(antialias: bool) -> Builder:
    def build(T: Any, D: Any) -> Any:
        return T.Compose([
            T.RandomResizedCrop(224, antialias=antialias),
            T.RandomHorizontalFlip(),
            T.ColorJitter(0.4, 0.4, 0.4, 0.1),
            T.ToDtype(_float32(), scale=True),
            T.Normalize(MEAN, STD),
        ])

    return build


def _classification_alb(antialias: bool) -> Builder:
    def build(A: Any, cv2: Any) -> Any:
        return A.Compose([
            A.RandomResizedCrop((224, 224), **_alb_area(antialias)),
            A.HorizontalFlip(),
            _alb_jitter(A, 0.4, 0.4, 0.4, 0.1),
            A.Normalize(MEAN, STD),
        ])

    return build


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
            _alb_jitter(A, 0.125, 0.5, 0.5, 0.05),
            A.Affine(scale=(0.25, 1.0), keep_ratio=True, fill=FILL, p=0.5),
            A.RandomSizedBBoxSafeCrop(DEMO_SIZE, DEMO_SIZE),  # crops and resizes in one
            A.HorizontalFlip(),
        ],
        bbox_params=_bbox_params(A, min_area=1.0),
    )


_CLASSIFICATION = ("RandomResizedCrop", "RandomHorizontalFlip", "ColorJitter", "ToDtype", "Normalize")
_DECODERS = "decoders: tv decode_jpeg, vx visiontx.io.decode_image, alb cv2.imdecode + BGR->RGB"


def _classifications() -> list[BenchCase]:
    out = []
    for jpeg in (False, True):
        for antialias in (True, False):
            source = "JPEG bytes: decode+" if jpeg else ""
            resize = "RRC" if antialias else "RRC antialias=False"
            out.append(BenchCase(
                f"classification ({source}{resize}+flip+jitter+normalize)", _CLASSIFICATION,
                _classification(antialias), _classification_alb(antialias), kind="jpeg" if jpeg else "image",
                note="; ".join(filter(None, [
                    "alb: " + ("INTER_AREA when shrinking" if antialias else "INTER_LINEAR")
                    + "; A.Normalize converts to float itself; hue in 8-bit HSV",
                    _DECODERS if jpeg else ""])),
            ))
    return out


def _classification_from_bytes(T: Any, D: Any) -> Any:
    """The classification pipeline; visiontx's starts from the JPEG bytes (``DecodeRandomResizedCrop``), a
    library without it from its decoded image (``RandomResizedCrop``)."""
    decode_crop = getattr(T, "DecodeRandomResizedCrop", None)
    crop = decode_crop(224) if decode_crop is not None else T.RandomResizedCrop(224, antialias=True)
    return T.Compose([crop, *_classification(True)(T, D).transforms[1:]])


DECODE_CROP = BenchCase(
    "classification (JPEG bytes: DecodeRandomResizedCrop+flip+jitter+normalize)", _CLASSIFICATION,
    _classification_from_bytes, _classification_alb(True), kind="jpeg_bytes",
    note="vx: T.DecodeRandomResizedCrop takes the bytes and decodes a JPEG at 1/2-1/8 scale where the region is "
    "that many times 224 (other pixels: scaled IDCT, region rounded to the reduced grid); the others decode in "
    "full and run the same pipeline as the entries above (alb: INTER_AREA when shrinking); " + _DECODERS,
)


def _detection_fused(T: Any, D: Any) -> Any:
    """The demo's pipeline with fused geometry where the library has it (torchvision: as unfused)."""
    transforms = list(_detection(T, D).transforms)
    if "fuse_geometry" not in inspect.signature(T.Compose).parameters:
        return T.Compose(transforms)
    return T.Compose(transforms, fuse_geometry=True)


_DETECTION = (
    "RandomPhotometricDistort", "RandomZoomOut", "RandomIoUCrop", "RandomHorizontalFlip", "Resize", "SanitizeBoundingBox",
)
PIPELINES = _classifications() + [DECODE_CROP] + [
    BenchCase(
        "detection, the demo's (photometric+zoom-out+IoU crop+flip+resize+sanitize, boxes+masks)",
        _DETECTION,
        _detection, _detection_alb, kind="detection",
        note="alb: nearest equivalents (ColorJitter, Affine zoom-out, BBox-safe crop to 512 x 512)",
    ),
    BenchCase(
        "detection, the demo's, fused (Compose(..., fuse_geometry=True))",
        _DETECTION,
        _detection_fused, _detection_alb, kind="detection",
        note="vx: fuse_geometry=True (zoom-out, IoU crop, flip and resize resample once; boxes as unfused); "
        "tv (no fusion) and alb: as the row above",
    ),
]


CIFAR_SIZE = (32, 32)
_CIFAR_MEAN, _CIFAR_STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def _cifar(T: Any, D: Any) -> Any:
    return T.Compose([
        T.RandomCrop(32, padding=4),
        T.RandomHorizontalFlip(),
        T.ToDtype(_float32(), scale=True),
        T.Normalize(_CIFAR_MEAN, _CIFAR_STD),
    ])


def _cifar_alb(A: Any, cv2: Any) -> Any:
    return A.Compose([
        A.PadIfNeeded(40, 40, border_mode=cv2.BORDER_CONSTANT, fill=0),
        A.RandomCrop(32, 32),
        A.HorizontalFlip(),
        A.Normalize(_CIFAR_MEAN, _CIFAR_STD),
    ])


# Pipelines of small images, each at its own size: per-call costs, not pixels, decide these.
SMALL_PIPELINES = [
    BenchCase(
        "CIFAR-10 training (RandomCrop(32, padding=4)+flip+ToDtype+Normalize)",
        ("RandomCrop", "RandomHorizontalFlip", "ToDtype", "Normalize"), _cifar, _cifar_alb,
        note="alb: PadIfNeeded(40) + RandomCrop(32); A.Normalize converts to float itself",
    ),
]


def missing(case: BenchCase, T: Any) -> list[str]:
    """The visiontx transform classes ``case`` needs that are not (yet) there."""
    return [name for name in case.requires if not hasattr(T, name)]


def albumentations_transform(case: BenchCase, A: Any, cv2: Any, *extra: Any) -> Any:
    """The albumentations transform of ``case`` (wrapped in a box-aware Compose for box samples); ``extra``:
    the output size of cases with a ``factor``."""
    transform = case.alb(A, cv2, *extra)
    if case.kind == "boxes" and not isinstance(transform, A.Compose):
        transform = A.Compose([transform], bbox_params=_bbox_params(A))
    return transform
