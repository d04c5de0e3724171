"""JPEG decoding through OpenCV's libjpeg: the pixels Pillow decodes, without Pillow's array copy and
with the layout change folded into one split."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import PIL.Image
import torch

from ._base import available, cv2

__all__ = ["can_decode_jpeg", "decode_jpeg", "jpeg_size"]

_SOI, _EOI = b"\xff\xd8\xff", b"\xff\xd9"
# start-of-frame markers (C0-CF but DHT C4, JPG C8 and DAC CC), start of scan, markers without a length
_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_SOS = 0xDA
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})


def _frame(data: bytes) -> tuple[int, int, int] | None:
    """``(components, height, width)`` of an 8-bit JPEG's frame header (None: no such header before the
    first scan)."""
    i = 2
    while i + 4 <= len(data) and data[i] == 0xFF:
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
        elif marker in _STANDALONE:
            i += 2
        elif marker in _FRAMES:
            if i + 9 >= len(data) or data[i + 4] != 8:
                return None
            height, width = int.from_bytes(data[i + 5 : i + 7], "big"), int.from_bytes(data[i + 7 : i + 9], "big")
            return data[i + 9], height, width
        elif marker == _SOS:
            return None
        else:
            i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
    return None


def can_decode_jpeg(data: bytes, rgb: bool, apply_exif_orientation: bool) -> bool:
    """Whether :func:`decode_jpeg` can decode ``data`` read as RGB (``rgb``: the mode asks for RGB or
    keeps 3 channels): a complete 8-bit JPEG (ending in its end-of-image marker: truncated files take
    Pillow, which refuses them) of 3 components (YCbCr or RGB; gray and CMYK take Pillow), EXIF
    orientation not applied, and no more pixels than Pillow's ``MAX_IMAGE_PIXELS`` (larger ones take Pillow,
    which warns or refuses)."""
    if not (available() and rgb and not apply_exif_orientation and data[:3] == _SOI):
        return False
    frame = _frame(data)
    limit = PIL.Image.MAX_IMAGE_PIXELS
    pixels = frame[1] * frame[2] if frame is not None else 0
    return (
        frame is not None
        and frame[0] == 3
        and 0 < pixels <= (limit if limit is not None else pixels)
        and data.rstrip(b"\x00")[-2:] == _EOI
    )


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """``(height, width)`` from the frame header of 8-bit JPEG ``data`` (None when it is not one, or the
    header is missing), without decoding: no OpenCV needed."""
    frame = _frame(data) if data[:3] == _SOI else None
    return (frame[1], frame[2]) if frame is not None else None


_REDUCED = {1: "IMREAD_COLOR", 2: "IMREAD_REDUCED_COLOR_2", 4: "IMREAD_REDUCED_COLOR_4", 8: "IMREAD_REDUCED_COLOR_8"}


def decode_jpeg(
    data: bytes, reduction: int = 1, region: Callable[[int, int], tuple[int, int, int, int]] | None = None
) -> torch.Tensor | None:
    """uint8 ``3 x H x W`` RGB planes of a JPEG :func:`can_decode_jpeg` accepts (None where OpenCV
    cannot decode it: the caller's decoder says why): OpenCV's BGR pixels split straight into the
    R, G, B planes. ``reduction`` 2, 4 or 8 decodes at that fraction of the size (libjpeg's scaled
    inverse DCT: ``ceil(H / reduction) x ceil(W / reduction)``, Pillow's ``draft`` pixels). ``region``, a
    function of the decoded ``(H, W)`` giving rows and columns ``(y0, y1, x0, x1)``: only those are split
    (a crop's planes without the rest of the image's)."""
    flags = getattr(cv2, _REDUCED[reduction]) | cv2.IMREAD_IGNORE_ORIENTATION
    pixels = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), flags)
    if pixels is None or pixels.ndim != 3 or pixels.shape[2] != 3:
        return None
    if region is not None:
        y0, y1, x0, x1 = region(*pixels.shape[:2])
        pixels = pixels[y0:y1, x0:x1]
    out = np.empty((3, *pixels.shape[:2]), dtype=np.uint8)
    cv2.split(pixels, [out[2], out[1], out[0]])
    return torch.from_numpy(out)
