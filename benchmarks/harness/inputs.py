"""Benchmark inputs: one real photo at a chosen size, with boxes and masks, in each peer's native form.

visiontx and torchvision get ``C x H x W`` uint8 tensors wrapped in their image type; albumentations
gets the ``H x W x C`` uint8 numpy array it natively takes.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import PIL.Image
import torch

import visiontx

_PHOTO = pathlib.Path(visiontx.__file__).resolve().parent / "assets" / "coco_sample" / "images" / "000000000001.jpg"
LABEL = 1


def photo(size: tuple[int, int]) -> np.ndarray:
    """The bundled photo as an ``H x W x 3`` uint8 array of ``size`` ``(H, W)``."""
    with PIL.Image.open(_PHOTO) as img:
        rgb = img.convert("RGB").resize((size[1], size[0]), PIL.Image.Resampling.BILINEAR)
    return np.array(rgb)  # a writable, contiguous copy


def boxes_xyxy(size: tuple[int, int], num_boxes: int, seed: int = 0) -> np.ndarray:
    """``num_boxes`` valid XYXY float32 boxes inside an image of ``size``."""
    rng = np.random.default_rng(seed)
    height, width = size
    xy = rng.uniform(0, 0.7, (num_boxes, 2)) * (width, height)
    wh = rng.uniform(0.1, 0.3, (num_boxes, 2)) * (width, height)
    return np.concatenate([xy, xy + wh], axis=1).astype(np.float32)


def masks_of(boxes: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Instance masks ``N x H x W`` (uint8) filling each box."""
    masks = np.zeros((len(boxes), *size), dtype=np.uint8)
    for mask, (x1, y1, x2, y2) in zip(masks, boxes.astype(int)):
        mask[y1:y2, x1:x2] = 1
    return masks


def make_call(peer_name: str, peer: SimpleNamespace, transform: Any, kind: str, size: tuple[int, int],
              num_boxes: int = 8) -> Callable[[], Any]:
    """A no-argument callable running ``transform`` once on the ``kind`` sample in ``peer``'s form.

    kinds: ``image`` (uint8), ``float`` (float32 for tensors; albumentations keeps uint8), ``pil``
    (a PIL image for tensors libraries), ``boxes`` (image, boxes, labels), ``detection`` (image and
    a target dict of boxes, masks and labels).
    """
    array = photo(size)
    boxes = boxes_xyxy(size, num_boxes)
    if peer_name == "albumentations":
        return _albumentations_call(transform, kind, array, boxes, size)
    D = peer.D
    tensor = torch.from_numpy(array).permute(2, 0, 1).contiguous()
    if kind == "pil":
        pil = PIL.Image.fromarray(array)
        return lambda: transform(pil)
    image = D.Image(tensor.float().div_(255) if kind == "float" else tensor)
    if kind in ("image", "float"):
        return lambda: transform(image)
    bbox = _tensor_boxes(D, boxes, size)
    labels = torch.full((num_boxes,), LABEL, dtype=torch.int64)
    if kind == "boxes":
        return lambda: transform(image, bbox, labels)
    target = {"boxes": bbox, "masks": D.Mask(torch.from_numpy(masks_of(boxes, size))), "labels": labels}
    return lambda: transform(image, target)


def _tensor_boxes(D: Any, boxes: np.ndarray, size: tuple[int, int]) -> Any:
    tensor = torch.from_numpy(boxes)
    try:
        return D.BoundingBox(tensor, format="XYXY", spatial_size=size)
    except TypeError:  # torchvision calls it canvas_size
        return D.BoundingBox(tensor, format="XYXY", canvas_size=size)


def _albumentations_call(transform: Any, kind: str, array: np.ndarray, boxes: np.ndarray,
                         size: tuple[int, int]) -> Callable[[], Any]:
    if kind in ("image", "float", "pil"):
        return lambda: transform(image=array)
    labels = [LABEL] * len(boxes)
    bboxes = boxes.tolist()
    if kind == "boxes":
        return lambda: transform(image=array, bboxes=bboxes, labels=labels)
    masks = masks_of(boxes, size)
    return lambda: transform(image=array, bboxes=bboxes, labels=labels, masks=masks)
