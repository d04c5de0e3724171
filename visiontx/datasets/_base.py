"""The small base class of visiontx's datasets: a root folder and the three transform hooks."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import torch.utils.data


class PairTransform:
    """Joint ``(image, target)`` transform built from separate image and target transforms."""

    def __init__(self, transform: Callable | None, target_transform: Callable | None) -> None:
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, image: Any, target: Any) -> tuple[Any, Any]:
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def __repr__(self) -> str:
        return f"{type(self).__name__}(transform={self.transform!r}, target_transform={self.target_transform!r})"


class VisionDataset(torch.utils.data.Dataset):
    """A dataset under ``root`` whose samples go through ``transforms`` (or ``transform`` / ``target_transform``).

    ``transforms`` takes and returns ``(image, target)``; giving it together with ``transform`` or
    ``target_transform`` is a ``ValueError``. The separate ones are combined into ``transforms``.
    """

    def __init__(
        self,
        root: str | os.PathLike,
        transforms: Callable | None = None,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
    ) -> None:
        if transforms is not None and (transform is not None or target_transform is not None):
            raise ValueError("give either transforms or transform / target_transform, not both")
        self.root = os.fspath(root)
        self.transform = transform
        self.target_transform = target_transform
        if transforms is None and (transform is not None or target_transform is not None):
            transforms = PairTransform(transform, target_transform)
        self.transforms = transforms

    def __repr__(self) -> str:
        return f"{type(self).__name__}(root={self.root!r}, size={len(self)}, transforms={self.transforms!r})"
