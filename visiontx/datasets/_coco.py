"""``CocoDetection``: images and their COCO annotations, read with pycocotools."""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable
from typing import Any

import PIL.Image

from ._base import VisionDataset
from ._coco_check import check_coco


def _read_json(ann_file: str) -> Any:
    try:
        with open(ann_file, encoding="utf-8") as file:
            return json.load(file)
    except FileNotFoundError:
        raise FileNotFoundError(f"annotation file {ann_file} not found") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{ann_file}: not a valid JSON file ({error})") from error


def load_coco(ann_file: str | os.PathLike) -> Any:
    """Read and validate a COCO annotation file; returns an indexed ``pycocotools.coco.COCO``."""
    from pycocotools.coco import COCO

    ann_file = os.fspath(ann_file)
    data = _read_json(ann_file)
    check_coco(data, ann_file)
    coco = COCO()
    coco.dataset = data
    with contextlib.redirect_stdout(io.StringIO()):  # pycocotools prints progress
        coco.createIndex()
    return coco


class CocoDetection(VisionDataset):
    """COCO detection / instance segmentation: samples are ``(PIL RGB image, list of annotation dicts)``.

    Images come in the order of the file's ``images`` list, each with its annotations in file order.
    A malformed annotation file raises ``ValueError`` naming the file and the annotation id; a missing
    image file raises ``FileNotFoundError`` and an undecodable one ``ValueError`` when the sample is read.
    Wrap with ``wrap_dataset_for_transforms_v2`` to get datapoint targets (boxes, masks, labels).

    Example:
        >>> ds = CocoDetection("images/", "instances.json")
        >>> image, annotations = ds[0]
    """

    def __init__(
        self,
        root: str | os.PathLike,
        annFile: str | os.PathLike,  # noqa: N803 (torchvision's name)
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        transforms: Callable | None = None,
    ) -> None:
        super().__init__(root, transforms, transform, target_transform)
        self.ann_file = os.fspath(annFile)
        self.coco = load_coco(self.ann_file)
        self.ids = [image["id"] for image in self.coco.dataset["images"]]

    def _load_image(self, image_id: Any) -> PIL.Image.Image:
        path = os.path.join(self.root, self.coco.imgs[image_id]["file_name"])
        try:
            with PIL.Image.open(path) as image:
                return image.convert("RGB")
        except FileNotFoundError:
            raise FileNotFoundError(f"image file {path} (image id={image_id!r} in {self.ann_file}) not found") from None
        except (OSError, SyntaxError, ValueError) as error:
            message = f"image file {path} (image id={image_id!r} in {self.ann_file}) is corrupt: {error}"
            raise ValueError(message) from error

    def _load_target(self, image_id: Any) -> list[dict[str, Any]]:
        return [dict(ann) for ann in self.coco.imgToAnns[image_id]]  # copies: the index stays intact

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        image_id = self.ids[index]
        sample = self._load_image(image_id), self._load_target(image_id)
        if self.transforms is not None:
            sample = self.transforms(*sample)
        return sample

    def __len__(self) -> int:
        return len(self.ids)
