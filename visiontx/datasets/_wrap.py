"""``wrap_dataset_for_transforms_v2``: the wrapped dataset class, built on the registered per-dataset wrappers."""

from __future__ import annotations

import copy
from collections.abc import Collection
from typing import Any

from . import _coco_wrapper  # noqa: F401 (registers the COCO wrapper)
from ._registry import Wrapper, WrapperFactory, register_wrapper, registered_factory

__all__ = ["Wrapper", "WrapperFactory", "register_wrapper", "wrap_dataset_for_transforms_v2"]

_WRAPPED_CLASSES: dict[type, type] = {}
_TRANSFORM_ATTRS = ("transform", "target_transform", "transforms")

_BY_HAND = (
    "Wrap its samples by hand instead: return the image as a PIL image or datapoints.Image, boxes as "
    "datapoints.BoundingBox(xyxy, format='XYXY', spatial_size=(H, W)), masks as datapoints.Mask and labels as "
    "a torch.Tensor, e.g. from a torch.utils.data.Dataset subclass whose __getitem__ builds them."
)


def _from_torchvision(dataset_cls: type) -> bool:
    return any(cls.__module__.partition(".")[0] == "torchvision" for cls in dataset_cls.__mro__)


def _find_factory(dataset_cls: type) -> tuple[type, WrapperFactory, bool]:
    if _from_torchvision(dataset_cls):
        from . import _torchvision_wrappers  # noqa: F401 (registers torchvision's datasets, imports torchvision)
    found = registered_factory(dataset_cls)
    if found is None:
        name = dataset_cls.__name__
        raise TypeError(f"wrap_dataset_for_transforms_v2() has no wrapper for dataset class {name}. {_BY_HAND}")
    return found


def _check_target_keys(target_keys: Any) -> None:
    if target_keys is None or target_keys == "all":
        return
    if isinstance(target_keys, str) or not isinstance(target_keys, Collection):
        raise ValueError(f"target_keys must be None, 'all' or a collection of strings, got {target_keys!r}")
    if not all(isinstance(key, str) for key in target_keys):
        raise ValueError(f"target_keys must hold only strings, got {target_keys!r}")


class _WrappedDataset:
    """Mixin placed before the dataset's own class: converts each sample, then runs the taken-over transforms."""

    def __init__(self, dataset: Any, target_keys: Any, factory: WrapperFactory) -> None:
        inner = copy.copy(dataset)  # the user's object keeps its transforms
        for name in _TRANSFORM_ATTRS:
            setattr(self, name, getattr(dataset, name, None))
            if hasattr(inner, name):
                setattr(inner, name, None)
        self._dataset = inner
        self._target_keys = target_keys
        self._wrapper = factory(inner, target_keys)  # reads what it needs (COCO's ids) from the samples' dataset

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in {"_dataset", "_wrapper", "_target_keys"}:
            raise AttributeError(name)
        return getattr(self._dataset, name)

    def _apply_transforms(self, sample: Any) -> Any:
        if self.transforms is not None:
            return self.transforms(*sample)
        if self.transform is None and self.target_transform is None:
            return sample
        first, *rest = sample  # e.g. a video dataset's (video, audio, label) with only `transform`
        if self.transform is not None:
            first = self.transform(first)
        if self.target_transform is not None and rest:
            rest[0] = self.target_transform(rest[0])
        return (first, *rest)

    def __getitem__(self, index: int) -> Any:
        return self._apply_transforms(self._wrapper(index, self._dataset[index]))

    def __len__(self) -> int:
        return len(self._dataset)

    def __reduce__(self) -> tuple:
        dataset = copy.copy(self._dataset)
        for name in _TRANSFORM_ATTRS:
            if hasattr(dataset, name):
                setattr(dataset, name, getattr(self, name))
        return wrap_dataset_for_transforms_v2, (dataset, self._target_keys)


def _wrapped_class(dataset_cls: type) -> type:
    if dataset_cls not in _WRAPPED_CLASSES:
        name = f"Wrapped{dataset_cls.__name__}"
        _WRAPPED_CLASSES[dataset_cls] = type(name, (_WrappedDataset, dataset_cls), {"__module__": __name__})
    return _WRAPPED_CLASSES[dataset_cls]


def wrap_dataset_for_transforms_v2(dataset: Any, target_keys: str | Collection[str] | None = None) -> Any:
    """Return a dataset whose samples hold datapoints and whose own transforms run on them.

    The result is an instance of a subclass of ``type(dataset)``; ``dataset`` itself is not modified.
    Its ``transforms`` (or ``transform`` / ``target_transform``) are applied after the conversion.
    Supported: visiontx's ``CocoDetection`` and, when torchvision is installed, torchvision's CocoDetection,
    VOCDetection, VOCSegmentation, SBDataset, Cityscapes, Kitti, WIDERFace, CelebA, OxfordIIITPet, Kinetics,
    HMDB51, UCF101 and classification datasets (unchanged); others raise ``TypeError``. COCO's target becomes a
    dict with ``boxes`` (``BoundingBox`` XYXY), ``masks`` (``Mask`` N x H x W), ``labels``, ``image_id`` and,
    on request, the native keys: ``target_keys`` is None (the dataset's default), "all" or a collection.
    Semantic masks made from PIL images (VOCSegmentation, SBDataset, Cityscapes, OxfordIIITPet) are ``Mask``
    ``H x W``, where torchvision's wrapper gives ``1 x H x W``.

    Example:
        >>> ds = wrap_dataset_for_transforms_v2(CocoDetection(root, ann_file, transforms=trans))
        >>> image, target = ds[0]  # target["boxes"] is a BoundingBox
    """
    if isinstance(dataset, _WrappedDataset):
        raise TypeError("dataset is already wrapped by wrap_dataset_for_transforms_v2()")
    _check_target_keys(target_keys)
    dataset_cls, factory, takes_keys = _find_factory(type(dataset))
    if target_keys is not None and not takes_keys:
        raise ValueError(f"target_keys is not supported for {dataset_cls.__name__} (its target is not a dict)")
    return _wrapped_class(type(dataset))(dataset, target_keys, factory)
