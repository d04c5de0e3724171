"""Wrappers for torchvision's datasets; imported (with torchvision) only when such a dataset is wrapped.

Targets have the structure of torchvision's own ``wrap_dataset_for_transforms_v2``, with visiontx datapoints;
semantic masks made from PIL images are ``H x W`` (visiontx's ``Mask``) where torchvision's are ``1 x H x W``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import PIL.Image
import torch
from torchvision import datasets

from .. import functional as F
from ..datapoints import BoundingBox, BoundingBoxFormat, Mask, Video
from ._coco_wrapper import coco_wrapper_factory
from ._registry import Wrapper, register_wrapper
from ._targets import list_of_dicts_to_dict_of_lists, parse_target_keys

VOC_CATEGORIES = (
    "__background__ aeroplane bicycle bird boat bottle bus car cat chair cow diningtable dog horse motorbike "
    "person pottedplant sheep sofa train tvmonitor"
).split()
KITTI_CATEGORIES = ["Car", "Van", "Truck", "Pedestrian", "Person_sitting", "Cyclist", "Tram", "Misc", "DontCare"]
WIDERFACE_KEYS = {"bbox", "blur", "expression", "illumination", "occlusion", "pose", "invalid"}
KITTI_NATIVE_KEYS = {"type", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y"}


def _classes(*names: str) -> list[type]:
    """The named dataset classes this torchvision version has."""
    return [getattr(datasets, name) for name in names if hasattr(datasets, name)]


def _refuse(dataset: Any, option: str, values: Any, unsupported: set[str]) -> None:
    bad = sorted(unsupported.intersection(values))
    if bad:
        raise ValueError(f"{type(dataset).__name__} with {option}={bad} is not supported by the wrapper")


def _size(image: PIL.Image.Image) -> tuple[int, int]:
    return image.height, image.width


def _xywh_to_xyxy(data: Any, spatial_size: tuple[int, int]) -> BoundingBox:
    boxes = BoundingBox(data, format=BoundingBoxFormat.XYWH, spatial_size=spatial_size)
    return F.convert_format_bounding_box(boxes, new_format=BoundingBoxFormat.XYXY)


def _by_type(target: Any, target_types: list[str], converters: dict[str, Callable[[Any], Any]]) -> Any:
    """Convert each item of a (single or tuple) target according to its target type."""
    if target is None:
        return None
    items = target if isinstance(target, (tuple, list)) else [target]
    converted = tuple(converters.get(kind, lambda item: item)(item) for kind, item in zip(target_types, items))
    return converted[0] if len(converted) == 1 else converted


def identity_factory(dataset: Any, target_keys: Any) -> Wrapper:
    return lambda index, sample: sample


def segmentation_factory(dataset: Any, target_keys: Any) -> Wrapper:
    return lambda index, sample: (sample[0], Mask(sample[1]))


register_wrapper(
    *_classes(
        "Caltech256", "CIFAR10", "CIFAR100", "ImageNet", "MNIST", "FashionMNIST", "GTSRB", "DatasetFolder",
        "ImageFolder", "Imagenette", "CocoCaptions",
    )
)(identity_factory)
register_wrapper(datasets.VOCSegmentation)(segmentation_factory)
register_wrapper(datasets.CocoDetection, target_keys=True)(coco_wrapper_factory)


@register_wrapper(datasets.Caltech101)
def caltech101_factory(dataset: Any, target_keys: Any) -> Wrapper:
    _refuse(dataset, "target_type", dataset.target_type, {"annotation"})
    return identity_factory(dataset, target_keys)


@register_wrapper(datasets.SBDataset)
def sbd_factory(dataset: Any, target_keys: Any) -> Wrapper:
    _refuse(dataset, "mode", [dataset.mode], {"boundaries"})
    return segmentation_factory(dataset, target_keys)


@register_wrapper(datasets.HMDB51, datasets.Kinetics, datasets.UCF101)
def video_factory(dataset: Any, target_keys: Any) -> Wrapper:
    _refuse(dataset, "output_format", [dataset.video_clips.output_format], {"THWC"})
    return lambda index, sample: (Video(sample[0]), *sample[1:])


@register_wrapper(datasets.VOCDetection, target_keys=True)
def voc_detection_factory(dataset: Any, target_keys: Any) -> Wrapper:
    keys = parse_target_keys(target_keys, available={"annotation", "boxes", "labels"}, default={"boxes", "labels"})

    def wrapper(index: int, sample: Any) -> tuple[Any, dict[str, Any]]:
        image, target = sample
        objects = target["annotation"].get("object", [])
        wrapped = dict(target) if "annotation" in keys else {}
        if "boxes" in keys:
            corners = [[int(float(obj["bndbox"][k])) for k in ("xmin", "ymin", "xmax", "ymax")] for obj in objects]
            data = torch.tensor(corners, dtype=torch.int64).reshape(-1, 4)
            wrapped["boxes"] = BoundingBox(data, format=BoundingBoxFormat.XYXY, spatial_size=_size(image))
        if "labels" in keys:
            wrapped["labels"] = torch.tensor([VOC_CATEGORIES.index(obj["name"]) for obj in objects], dtype=torch.int64)
        return image, wrapped

    return wrapper


@register_wrapper(datasets.CelebA)
def celeba_factory(dataset: Any, target_keys: Any) -> Wrapper:
    _refuse(dataset, "target_type", dataset.target_type, {"attr", "landmarks"})

    def wrapper(index: int, sample: Any) -> tuple[Any, Any]:
        image, target = sample
        converters = {"bbox": lambda item: _xywh_to_xyxy(item, _size(image))}
        return image, _by_type(target, dataset.target_type, converters)

    return wrapper


@register_wrapper(datasets.Kitti, target_keys=True)
def kitti_factory(dataset: Any, target_keys: Any) -> Wrapper:
    added = {"boxes", "labels"}
    keys = parse_target_keys(target_keys, available=KITTI_NATIVE_KEYS | added, default=added)

    def wrapper(index: int, sample: Any) -> tuple[Any, Any]:
        image, target = sample
        if target is None:
            return image, None
        lists = list_of_dicts_to_dict_of_lists(target)
        wrapped: dict[str, Any] = {}
        if "boxes" in keys:
            data = torch.tensor(lists.get("bbox", []), dtype=torch.float32).reshape(-1, 4)
            wrapped["boxes"] = BoundingBox(data, format=BoundingBoxFormat.XYXY, spatial_size=_size(image))
        if "labels" in keys:
            labels = [KITTI_CATEGORIES.index(kind) for kind in lists.get("type", [])]
            wrapped["labels"] = torch.tensor(labels, dtype=torch.int64)
        for key in sorted(keys - added):
            wrapped[key] = lists.get(key, [])
        return image, wrapped

    return wrapper


@register_wrapper(datasets.OxfordIIITPet)
def oxford_iiit_pet_factory(dataset: Any, target_keys: Any) -> Wrapper:
    def wrapper(index: int, sample: Any) -> tuple[Any, Any]:
        image, target = sample
        return image, _by_type(target, dataset._target_types, {"segmentation": Mask})

    return wrapper


def _cityscapes_instances(image: PIL.Image.Image) -> dict[str, torch.Tensor]:
    """Instance-id image -> one boolean mask per id; ids >= 1000 encode ``label * 1000 + instance``."""
    data = Mask(image).as_subclass(torch.Tensor).to(torch.int64)  # 16-bit PNG ids
    ids = data.unique()
    masks = data.unsqueeze(0) == ids.reshape(-1, 1, 1)
    labels = torch.where(ids >= 1000, ids // 1000, ids)
    return {"masks": Mask(masks), "labels": labels}


@register_wrapper(datasets.Cityscapes)
def cityscapes_factory(dataset: Any, target_keys: Any) -> Wrapper:
    _refuse(dataset, "target_type", dataset.target_type, {"polygon", "color"})
    converters = {"instance": _cityscapes_instances, "semantic": Mask}
    return lambda index, sample: (sample[0], _by_type(sample[1], dataset.target_type, converters))


@register_wrapper(datasets.WIDERFace, target_keys=True)
def widerface_factory(dataset: Any, target_keys: Any) -> Wrapper:
    keys = parse_target_keys(target_keys, available=WIDERFACE_KEYS, default="all")

    def wrapper(index: int, sample: Any) -> tuple[Any, Any]:
        image, target = sample
        if target is None:
            return image, None
        wrapped = {key: target[key] for key in sorted(keys)}
        if "bbox" in wrapped:
            wrapped["bbox"] = _xywh_to_xyxy(wrapped["bbox"], _size(image))
        return image, wrapped

    return wrapper
