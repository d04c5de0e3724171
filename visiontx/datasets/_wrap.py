"""``wrap_dataset_for_transforms_v2``: a registry of per-dataset wrappers and the wrapped dataset class."""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Callable, Collection
from typing import Any

Wrapper = Callable[[int, Any], Any]
WrapperFactory = Callable[[Any, Any], Wrapper]

_FACTORIES: dict[type, tuple[WrapperFactory, bool]] = {}
_WRAPPED_CLASSES: dict[type, type] = {}
_TRANSFORM_ATTRS = ("transform", "target_transform", "transforms")

_BY_HAND = (
    "Wrap its samples by hand instead: return the image as a PIL image or datapoints.Image, boxes as "
    "datapoints.BoundingBox(xyxy, format='XYXY', spatial_size=(H, W)), masks as datapoints.Mask and labels as "
    "a torch.Tensor, e.g. from a torch.utils.data.Dataset subclass whose __getitem__ builds them."
)


def register_wrapper(*dataset_classes: type, target_keys: bool = False) -> Callable[[WrapperFactory], WrapperFactory]:
    """Register ``factory(dataset, target_keys) -> wrapper(index, sample)`` for ``dataset_classes`` (and subclasses).

    ``target_keys=True`` says the wrapper accepts the ``target_keys`` argument.
    """

    def decorator(factory: WrapperFactory) -> WrapperFactory:
        for dataset_cls in dataset_classes:
            _FACTORIES[dataset_cls] = (factory, target_keys)
        return factory

    return decorator


def _from_torchvision(dataset_cls: type) -> bool:
    return any(cls.__module__.partition(".")[0] == "torchvision" for cls in dataset_cls.__mro__)


def _find_factory(dataset_cls: type) -> tuple[type, WrapperFactory, bool]:
    if _from_torchvision(dataset_cls):
        from . import _torchvision_wrappers  # noqa: F401 (registers torchvision's datasets, imports torchvision)
    for cls in dataset_cls.__mro__:
        if cls in _FACTORIES:
            return (cls, *_FACTORIES[cls])
    name = dataset_cls.__name__
    raise TypeError(f"wrap_dataset_for_transforms_v2() has no wrapper for dataset class {name}. {_BY_HAND}")


def _check_target_keys(target_keys: Any) -> None:
    if target_keys is None or target_keys == "all":
        return
    if isinstance(target_keys, str) or not isinstance(target_keys, Collection):
        raise ValueError(f"target_keys must be None, 'all' or a collection of strings, got {target_keys!r}")
    if not all(isinstance(key, str) for key in target_keys):
        raise ValueError(f"target_keys must hold only strings, got {target_keys!r}")


def parse_target_keys(target_keys: Any, *, available: set[str], default: set[str] | str) -> set[str]:
    """Resolve ``target_keys`` (None -> ``default``, "all" -> ``available``); unknown keys are a ValueError."""
    if target_keys is None:
        target_keys = default
    if target_keys == "all":
        return set(available)
    unknown = set(target_keys) - available
    if unknown:
        raise ValueError(f"target_keys {sorted(unknown)} are not available; valid keys: {sorted(available)}")
    return set(target_keys)


def list_of_dicts_to_dict_of_lists(items: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """``[{"a": 1}, {"a": 2, "b": 3}]`` -> ``{"a": [1, 2], "b": [3]}``."""
    lists: dict[str, list[Any]] = defaultdict(list)
    for item in items:
        for key, value in item.items():
            lists[key].append(value)
    return dict(lists)


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
