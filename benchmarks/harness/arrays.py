"""The benchmark's pictures as numpy data, and albumentations' side of a call (no torch, no visiontx).

Imported by the harness and by ``albx_worker.py``, which runs albumentations in another interpreter: both
sides build the same inputs from the same photo.
"""

from __future__ import annotations

import io
import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import PIL.Image

PHOTOS = pathlib.Path(__file__).resolve().parents[2] / "visiontx" / "assets" / "coco_sample" / "images"
PHOTO = PHOTOS / "000000000001.jpg"
LABEL = 1
JPEG_QUALITY = 90


def photo(size: tuple[int, int]) -> np.ndarray:
    """The bundled photo as an ``H x W x 3`` uint8 array of ``size`` ``(H, W)``."""
    with PIL.Image.open(PHOTO) as img:
        rgb = img.convert("RGB").resize((size[1], size[0]), PIL.Image.Resampling.BILINEAR)
    return np.array(rgb)  # a writable, contiguous copy


def jpeg_bytes(size: tuple[int, int]) -> bytes:
    """The photo of ``size`` as a JPEG file's bytes (quality 90, 4:2:0)."""
    buffer = io.BytesIO()
    PIL.Image.fromarray(photo(size)).save(buffer, format="JPEG", quality=JPEG_QUALITY)
    return buffer.getvalue()


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


def materialise(out: Any) -> Any:
    """Every array or tensor in ``out`` made contiguous (a lazy view costs its copy here, on every side)."""
    if isinstance(out, dict):
        return {key: materialise(value) for key, value in out.items()}
    if isinstance(out, (list, tuple)):
        return type(out)(materialise(value) for value in out)
    if isinstance(out, np.ndarray):
        return np.ascontiguousarray(out)
    contiguous = getattr(out, "contiguous", None)
    return contiguous() if callable(contiguous) else out


def imdecode_rgb(data: bytes) -> np.ndarray:
    """albumentations' natural decoder: OpenCV's ``imdecode`` and a BGR -> RGB swap."""
    import cv2

    bgr = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def albumentations_call(transform: Any, kind: str, size: tuple[int, int], num_boxes: int = 8) -> Callable[[], Any]:
    """A no-argument callable running an albumentations ``transform`` once on the ``kind`` sample (see
    ``inputs.make_call``), its output materialised."""
    if kind in ("jpeg", "jpeg_bytes"):
        data = jpeg_bytes(size)
        return lambda: materialise(transform(image=imdecode_rgb(data)))
    array = photo(size)
    if kind in ("image", "float", "pil"):
        return lambda: materialise(transform(image=array))
    boxes = boxes_xyxy(size, num_boxes)
    labels = [LABEL] * len(boxes)
    bboxes = boxes.tolist()
    if kind == "boxes":
        return lambda: materialise(transform(image=array, bboxes=bboxes, labels=labels))
    masks = masks_of(boxes, size)
    return lambda: materialise(transform(image=array, bboxes=bboxes, labels=labels, masks=masks))
