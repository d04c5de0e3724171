"""Benchmark inputs in each tensor library's native form, and the calls that time them.

visiontx and torchvision get ``C x H x W`` uint8 tensors wrapped in their image type (or, for ``jpeg``
samples, the encoded bytes, decoded by the library's own decoder); albumentations gets the
``H x W x C`` uint8 numpy array it natively takes (see ``arrays``). Every call materialises its output.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import PIL.Image
import torch

from .arrays import LABEL, albumentations_call, boxes_xyxy, jpeg_bytes, masks_of, materialise, photo

__all__ = ["boxes_xyxy", "decoder", "make_call", "masks_of", "photo"]


def decoder(peer_name: str, takes_bytes: bool = False) -> Callable[[bytes], Any]:
    """The library's natural JPEG decoder, bytes -> image: torchvision's ``decode_jpeg``, visiontx's
    ``io.decode_image`` (wrapped as an ``Image``). With ``takes_bytes`` (a ``jpeg_bytes`` case), visiontx's
    pipeline decodes itself: the bytes pass as they are."""
    if takes_bytes and peer_name == "visiontx":
        return lambda data: data
    if peer_name == "torchvision":
        from torchvision.io import decode_jpeg
        from torchvision.tv_tensors import Image as TvImage

        return lambda data: TvImage(decode_jpeg(torch.frombuffer(bytearray(data), dtype=torch.uint8)))
    import visiontx.io
    from visiontx.datapoints import Image

    return lambda data: Image(visiontx.io.decode_image(data))


def make_call(peer_name: str, peer: SimpleNamespace, transform: Any, kind: str, size: tuple[int, int],
              num_boxes: int = 8) -> Callable[[], Any]:
    """A no-argument callable running ``transform`` once on the ``kind`` sample in ``peer``'s form.

    kinds: ``image`` (uint8), ``float`` (float32 for tensors; albumentations keeps uint8), ``pil``
    (a PIL image for tensors libraries), ``jpeg`` (JPEG bytes decoded first), ``jpeg_bytes`` (the same, but
    visiontx's pipeline takes the bytes), ``boxes`` (image, boxes,
    labels), ``detection`` (image and a target dict of boxes, masks and labels).
    """
    if peer_name.startswith("albumentations"):
        return albumentations_call(transform, kind, size, num_boxes)
    if kind in ("jpeg", "jpeg_bytes"):
        data, decode = jpeg_bytes(size), decoder(peer_name, takes_bytes=kind == "jpeg_bytes")
        return _reading(lambda: materialise(transform(decode(data))), data)
    array = photo(size)
    D = peer.D
    tensor = torch.from_numpy(array).permute(2, 0, 1).contiguous()
    if kind == "pil":
        pil = PIL.Image.fromarray(array)
        return _reading(lambda: materialise(transform(pil)), pil)
    image = D.Image(tensor.float().div_(255) if kind == "float" else tensor)
    if kind in ("image", "float"):
        return _reading(lambda: materialise(transform(image)), image)
    boxes = boxes_xyxy(size, num_boxes)
    bbox = _tensor_boxes(D, boxes, size)
    labels = torch.full((num_boxes,), LABEL, dtype=torch.int64)
    if kind == "boxes":
        return _reading(lambda: materialise(transform(image, bbox, labels)), (image, bbox, labels))
    target = {"boxes": bbox, "masks": D.Mask(torch.from_numpy(masks_of(boxes, size))), "labels": labels}
    return _reading(lambda: materialise(transform(image, target)), (image, target))


def _reading(fn: Callable[[], Any], sample: Any) -> Callable[[], Any]:
    """``fn``, with the ``sample`` it reads attached (for the copy floor)."""
    fn.sample = sample  # type: ignore[attr-defined]
    return fn


def _tensor_boxes(D: Any, boxes: np.ndarray, size: tuple[int, int]) -> Any:
    tensor = torch.from_numpy(boxes)
    try:
        return D.BoundingBox(tensor, format="XYXY", spatial_size=size)
    except TypeError:  # torchvision calls it canvas_size
        return D.BoundingBox(tensor, format="XYXY", canvas_size=size)
