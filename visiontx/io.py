"""Reading, decoding, encoding and writing images (Pillow underneath; JPEG bytes decoded to RGB through
OpenCV's libjpeg where it is installed: the same pixels, see ``functional._cv2._decode``).

Images are uint8 tensors ``C x H x W``, as in ``torchvision.io`` (16-bit PNGs too, scaled from 0..65535, where
torchvision gives uint16).

Example:
    >>> image = read_image("photo.jpg", mode="RGB")      # uint8, 3 x H x W
    >>> write_png(image, "photo.png")
"""

from __future__ import annotations

import enum
import functools
import io as _io
import os
from collections.abc import Callable

import numpy as np
import PIL.Image
import PIL.ImageOps
import torch

from ._args import check_positive_int
from ._torchvision_interop import from_torchvision_enum
from .functional import _cv2, to_image_pil
from .functional._cv2 import planar

__all__ = [
    "ImageReadMode",
    "decode_image",
    "encoded_size",
    "encode_jpeg",
    "encode_png",
    "read_file",
    "read_image",
    "write_file",
    "write_jpeg",
    "write_png",
]


class ImageReadMode(enum.Enum):
    """Channels an image is read with: as stored, gray, gray + alpha, RGB, RGB + alpha."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = 4  # alias of RGB_ALPHA


_PIL_MODES = {
    ImageReadMode.GRAY: "L",
    ImageReadMode.GRAY_ALPHA: "LA",
    ImageReadMode.RGB: "RGB",
    ImageReadMode.RGB_ALPHA: "RGBA",
}
_KEPT_MODES = {"L", "LA", "RGB", "RGBA"}
_SIXTEEN_BIT_MODES = {"I", "I;16", "I;16B", "I;16L", "I;16N"}
_DECODE_ERRORS = (PIL.UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError)
# Pillow refuses images of more than 2 * PIL.Image.MAX_IMAGE_PIXELS pixels (and warns above the limit itself)
_TOO_LARGE = (PIL.Image.DecompressionBombError, PIL.Image.DecompressionBombWarning)
_REDUCTIONS = (1, 2, 4, 8)


def _as_mode(mode: ImageReadMode | str) -> ImageReadMode:
    mode = from_torchvision_enum(mode, ImageReadMode)  # torchvision's ImageReadMode: the member of that value
    if isinstance(mode, ImageReadMode):
        return mode
    if isinstance(mode, str) and mode.upper() in ImageReadMode.__members__:
        return ImageReadMode[mode.upper()]
    names = ", ".join(ImageReadMode.__members__)
    raise ValueError(f"mode must be an ImageReadMode or one of {names} (any case), got {mode!r}")


def _check_exif(apply_exif_orientation: bool) -> bool:
    if not isinstance(apply_exif_orientation, bool):
        raise TypeError(f"apply_exif_orientation must be a bool, got {apply_exif_orientation!r}")
    return apply_exif_orientation


def _unchanged_mode(image: PIL.Image.Image) -> str:
    """The L / LA / RGB / RGBA mode an image of any Pillow mode is read as under UNCHANGED."""
    if image.mode in _KEPT_MODES:
        return image.mode
    if image.mode in ("1", "F") or image.mode in _SIXTEEN_BIT_MODES:
        return "L"
    if image.mode in ("P", "PA"):
        return "RGBA" if image.mode == "PA" or "transparency" in image.info else "RGB"
    return "RGBA" if "A" in image.getbands() else "RGB"


def _to_uint8_array(image: PIL.Image.Image, mode: ImageReadMode) -> np.ndarray:
    if image.mode in _SIXTEEN_BIT_MODES:  # 16-bit gray: scale 0..65535 to 0..255
        wide = np.asarray(image, dtype=np.int64).clip(0, 65535)
        image = PIL.Image.fromarray(((wide * 255 + 32767) // 65535).astype(np.uint8))
    target = _PIL_MODES.get(mode) or _unchanged_mode(image)
    if image.mode != target:
        image = image.convert(target)
    array = np.asarray(image)
    return array[:, :, None] if array.ndim == 2 else array


def _decode(opener: Callable[[], PIL.Image.Image], source: str, mode: ImageReadMode, exif: bool) -> torch.Tensor:
    try:
        with opener() as image:
            if mode == ImageReadMode.GRAY and image.format == "JPEG" and image.mode == "RGB":
                image.draft("L", image.size)  # libjpeg's own luma (the Y plane), as torchvision's decoder gives
            image.load()
            if exif:
                image = PIL.ImageOps.exif_transpose(image)
            array = _to_uint8_array(image, mode)
    except _DECODE_ERRORS as error:
        raise ValueError(f"cannot decode {source} as an image: {error}") from error
    except _TOO_LARGE as error:
        hint = "set PIL.Image.MAX_IMAGE_PIXELS higher (or None) to read it"
        raise ValueError(f"cannot decode {source} as an image, too large for Pillow: {error} ({hint})") from error
    return planar(array)


def _bytes_of(data: bytes | bytearray | memoryview | torch.Tensor, name: str) -> bytes:
    if isinstance(data, torch.Tensor):
        if data.dtype != torch.uint8 or data.ndim != 1:
            got = f"{data.dtype} of shape {tuple(data.shape)}"
            raise ValueError(f"{name} as a tensor must be 1-D uint8 bytes, got {got}")
        return data.detach().cpu().numpy().tobytes()
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"{name} must be bytes or a 1-D uint8 tensor, got {type(data).__name__}")


def read_file(path: str | os.PathLike) -> torch.Tensor:
    """The bytes of a file as a 1-D uint8 tensor."""
    path = _existing_file(path)
    with open(path, "rb") as file:
        data = bytearray(file.read())
    return torch.frombuffer(data, dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)


def write_file(path: str | os.PathLike, data: torch.Tensor) -> None:
    """Write a 1-D uint8 tensor of bytes to ``path``."""
    payload = _bytes_of(data, "data")
    with open(path, "wb") as file:
        file.write(payload)


def _existing_file(path: str | os.PathLike) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such image file: {path!r}")
    return path


def read_image(
    path: str | os.PathLike, mode: ImageReadMode | str = ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False
) -> torch.Tensor:
    """Read an image file (any format Pillow reads) as a uint8 ``C x H x W`` tensor.

    Args:
        path: the file.
        mode: channels to read with (``ImageReadMode`` or its name as a string, e.g. ``"RGB"``).
            ``UNCHANGED`` keeps gray / gray + alpha / RGB / RGBA as stored (palettes become RGB or RGBA).
        apply_exif_orientation: rotate / mirror as the file's EXIF orientation tag says.

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` naming the file if it is not a
    readable image, or one larger than Pillow's decompression-bomb limit (the message gives its size).
    """
    mode = _as_mode(mode)
    path = _existing_file(path)
    return _decode(lambda: PIL.Image.open(path), f"file {path!r}", mode, _check_exif(apply_exif_orientation))


def decode_image(
    data: bytes | bytearray | memoryview | torch.Tensor | str | os.PathLike,
    mode: ImageReadMode | str = ImageReadMode.UNCHANGED,
    apply_exif_orientation: bool = False,
) -> torch.Tensor:
    """Decode encoded image bytes (``bytes`` or a 1-D uint8 tensor) to a uint8 ``C x H x W`` tensor.

    A path (``str`` or ``os.PathLike``) is read as :func:`read_image` does, as in ``torchvision.io``.
    Data that is not a readable image, or one larger than Pillow's limit, raises ``ValueError``.
    """
    if isinstance(data, (str, os.PathLike)):
        return read_image(data, mode, apply_exif_orientation)
    mode, apply_exif_orientation = _as_mode(mode), _check_exif(apply_exif_orientation)
    payload = _bytes_of(data, "data")
    rgb = mode in (ImageReadMode.UNCHANGED, ImageReadMode.RGB)
    if _cv2.can_decode_jpeg(payload, rgb, apply_exif_orientation):
        decoded = _cv2.decode_jpeg(payload)
        if decoded is not None:
            return decoded
    return _decode(lambda: PIL.Image.open(_io.BytesIO(payload)), "the given data", mode, apply_exif_orientation)


def encoded_size(data: bytes | bytearray | memoryview | torch.Tensor) -> tuple[int, int]:
    """``(height, width)`` of encoded image bytes, read from the header without decoding the pixels (as
    stored: EXIF orientation not applied). Data that is not a readable image raises ``ValueError``."""
    payload = _bytes_of(data, "data")
    size = _cv2.jpeg_size(payload)
    if size is not None:
        return size
    try:
        with PIL.Image.open(_io.BytesIO(payload)) as image:
            return image.height, image.width
    except (*_DECODE_ERRORS, PIL.Image.DecompressionBombError) as error:
        raise ValueError(f"cannot read the size of the given data as an image: {error}") from error


def _decode_reduced(
    data: bytes | bytearray | memoryview | torch.Tensor, reduction: int,
    region: Callable[[int, int, int], tuple[int, int, int, int]] | None = None,
) -> tuple[torch.Tensor, int]:
    """Decode encoded image bytes to RGB on the CPU, a JPEG at ``1 / reduction`` of its size (``reduction``
    1, 2, 4 or 8; libjpeg's scaled inverse DCT, as Pillow's ``draft``: reduced pixel ``(i, j)`` covers the
    full image's ``reduction x reduction`` block at ``(i, j) * reduction``, each side ``ceil(side / reduction)``).
    ``region(applied, H', W')`` gives the rows and columns ``(y0, y1, x0, x1)`` of the decoded image to keep
    (a JPEG splits only those into planes).

    Returns the uint8 ``3 x H' x W'`` image (or its region) and the reduction applied: 1 for other formats,
    which decode in full, and less than asked for a side shorter than ``reduction``. EXIF orientation is not
    applied.
    """
    if check_positive_int(reduction, "reduction") not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    payload = _bytes_of(data, "data")
    if _cv2.can_decode_jpeg(payload, True, False) and min(_cv2.jpeg_size(payload)) >= reduction:
        keep = None if region is None else functools.partial(region, reduction)
        decoded = _cv2.decode_jpeg(payload, reduction, keep)
        if decoded is not None:
            return decoded, reduction
    applied = 1

    def opener() -> PIL.Image.Image:
        nonlocal applied
        image = PIL.Image.open(_io.BytesIO(payload))
        if reduction > 1 and image.format == "JPEG":  # (Pillow takes the scale as the sides' floor quotients)
            width = image.width
            chosen = image.draft(None, (max(1, width // reduction), max(1, image.height // reduction)))
            applied = round(width / chosen[1][2]) if chosen else 1
        return image

    image = _decode(opener, "the given data", ImageReadMode.RGB, False)
    if region is not None:
        y0, y1, x0, x1 = region(applied, *image.shape[-2:])
        image = image[:, y0:y1, x0:x1]
    return image, applied


def _decode_region(
    data: bytes | bytearray | memoryview | torch.Tensor, top: int, left: int, height: int, width: int,
    min_size: tuple[int, int],
) -> torch.Tensor:
    """The region ``[top, top + height) x [left, left + width)`` (full-size pixels, inside the image) of
    encoded image bytes, as RGB uint8 ``3 x h x w`` planes: a JPEG decoded at the largest reduction (8, 4
    or 2) by which the region still covers ``min_size`` ``(h, w)`` on both sides, its edges rounded to the
    reduced grid (within half a reduced pixel), only the region split into planes; other formats, and smaller
    regions, decode in full (the region itself)."""

    def spans(reduction: int, side_h: int, side_w: int) -> tuple[int, int, int, int]:
        return (*_scaled_span(top, height, reduction, side_h), *_scaled_span(left, width, reduction, side_w))

    return _decode_reduced(data, _region_reduction(height, width, min_size), spans)[0]


def _region_reduction(height: int, width: int, min_size: tuple[int, int]) -> int:
    """The largest of 8, 4, 2 by which a ``height x width`` region still covers ``min_size`` (else 1)."""
    for reduction in (8, 4, 2):
        if height >= reduction * min_size[0] and width >= reduction * min_size[1]:
            return reduction
    return 1


def _scaled_span(start: int, length: int, reduction: int, side: int) -> tuple[int, int]:
    """``[start, start + length)`` of the full image on a side decoded at ``1 / reduction`` (``side`` pixels),
    rounded to whole pixels, at least one long and inside it (the span itself when ``reduction`` is 1)."""
    first = min(round(start / reduction), side - 1)
    return first, min(max(first + 1, round((start + length) / reduction)), side)


def _to_pil(image: torch.Tensor, channels: tuple[int, ...]) -> PIL.Image.Image:
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"image must be a tensor, got {type(image).__name__}")
    if image.dtype != torch.uint8:
        raise TypeError(f"image must be a uint8 tensor, got {image.dtype}")
    if image.ndim != 3 or image.shape[0] not in channels:
        raise ValueError(f"image must be C x H x W with C in {channels}, got shape {tuple(image.shape)}")
    if image.shape[1] == 0 or image.shape[2] == 0:
        raise ValueError(f"image must not be empty, got shape {tuple(image.shape)}")
    return to_image_pil(image)


def _encode(image: PIL.Image.Image, format: str, **options: object) -> torch.Tensor:
    buffer = _io.BytesIO()
    image.save(buffer, format=format, **options)
    return torch.frombuffer(bytearray(buffer.getvalue()), dtype=torch.uint8)


def _check_quality(quality: int) -> None:
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ValueError(f"quality must be an int in [1, 100], got {quality!r}")


def encode_jpeg(image: torch.Tensor | list[torch.Tensor], quality: int = 75) -> torch.Tensor | list[torch.Tensor]:
    """Encode a uint8 ``C x H x W`` image (C = 1 or 3), or a list of them, as JPEG bytes (1-D uint8)."""
    _check_quality(quality)
    if isinstance(image, (list, tuple)):
        return [encode_jpeg(item, quality) for item in image]
    return _encode(_to_pil(image, (1, 3)), "JPEG", quality=quality)


def encode_png(image: torch.Tensor, compression_level: int = 6) -> torch.Tensor:
    """Encode a uint8 ``C x H x W`` image (C = 1 to 4) as PNG bytes (1-D uint8)."""
    if isinstance(compression_level, bool) or not isinstance(compression_level, int) or not 0 <= compression_level <= 9:
        raise ValueError(f"compression_level must be an int in [0, 9], got {compression_level!r}")
    return _encode(_to_pil(image, (1, 2, 3, 4)), "PNG", compress_level=compression_level)


def write_jpeg(image: torch.Tensor, path: str | os.PathLike, quality: int = 75) -> None:
    """Encode ``image`` as JPEG and write it to ``path``."""
    write_file(path, encode_jpeg(image, quality))


def write_png(image: torch.Tensor, path: str | os.PathLike, compression_level: int = 6) -> None:
    """Encode ``image`` as PNG and write it to ``path``."""
    write_file(path, encode_png(image, compression_level))
