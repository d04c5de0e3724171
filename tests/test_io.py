"""visiontx.io: reading, decoding, encoding and writing images, against Pillow and torchvision.io."""

from __future__ import annotations

import io
import pathlib
import struct
import warnings
import zlib

import numpy as np
import PIL.Image
import pytest
import torch

from visiontx import datapoints
from visiontx.io import (
    ImageReadMode,
    decode_image,
    encode_jpeg,
    encode_png,
    read_file,
    read_image,
    write_file,
    write_jpeg,
    write_png,
)

from .common import assert_equal, make_image_tensor

ASSETS = pathlib.Path(__file__).parent / "assets"
JPEG = ASSETS / "chelsea.jpg"
MODES = ["UNCHANGED", "GRAY", "GRAY_ALPHA", "RGB", "RGB_ALPHA"]
CHANNELS = {"GRAY": 1, "GRAY_ALPHA": 2, "RGB": 3, "RGB_ALPHA": 4}


def _tv_io():
    tv_io = pytest.importorskip("torchvision.io")
    warnings.filterwarnings("ignore", category=DeprecationWarning, module="torchvision")
    return tv_io


def _png_bytes(mode: str, size: tuple[int, int] = (9, 13), **info: object) -> bytes:
    rng = np.random.default_rng(0)
    bands = len(PIL.Image.new(mode, (1, 1)).getbands())
    if mode == "P":
        image = PIL.Image.fromarray(rng.integers(0, 4, size, dtype=np.uint8), "L").convert("P")
        image.putpalette([255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9])
    elif mode == "I;16":
        image = PIL.Image.fromarray(rng.integers(0, 65536, size, dtype=np.uint16))
    elif mode == "1":
        image = PIL.Image.fromarray(rng.integers(0, 2, size, dtype=np.uint8) * 255).convert("1")
    else:
        shape = size if bands == 1 else (*size, bands)
        image = PIL.Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", **info)
    return buffer.getvalue()


# ------------------------------------------------------------------------------------ reading
@pytest.mark.parametrize("mode", MODES)
def test_read_image_matches_pillow(mode: str) -> None:
    image = read_image(JPEG, mode)
    expected = PIL.Image.open(JPEG)
    if mode == "GRAY":  # libjpeg's own luma: Pillow's draft asks for it
        expected.draft("L", expected.size)
    if mode != "UNCHANGED":
        expected = expected.convert({"GRAY": "L", "GRAY_ALPHA": "LA", "RGB": "RGB", "RGB_ALPHA": "RGBA"}[mode])
    array = np.asarray(expected)
    array = array[:, :, None] if array.ndim == 2 else array
    assert image.dtype == torch.uint8 and image.is_contiguous()
    assert_equal(image, torch.from_numpy(array.copy()).permute(2, 0, 1))


@pytest.mark.parametrize("mode", MODES)
def test_read_image_matches_torchvision(mode: str) -> None:
    tv_io = _tv_io()
    ours = read_image(str(JPEG), ImageReadMode[mode] if mode != "RGB_ALPHA" else "rgb_alpha")
    if mode in ("GRAY_ALPHA", "RGB_ALPHA"):  # libjpeg refuses alpha modes for JPEG; we add an opaque alpha
        assert ours.shape[0] == CHANNELS[mode] and bool((ours[-1] == 255).all())
        return
    theirs = tv_io.read_image(str(JPEG), getattr(tv_io.ImageReadMode, mode))
    assert ours.shape == theirs.shape
    assert_equal(ours, theirs, atol=0)  # gray: libjpeg's own luma (Pillow's draft), as torchvision's


@pytest.mark.parametrize("pil_mode", ["L", "LA", "RGB", "RGBA"])
@pytest.mark.parametrize("mode", MODES)
def test_decode_png_modes_match_torchvision(pil_mode: str, mode: str) -> None:
    tv_io = _tv_io()
    data = _png_bytes(pil_mode)
    ours = decode_image(data, mode)
    encoded = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    theirs = tv_io.decode_image(encoded, getattr(tv_io.ImageReadMode, mode))
    assert ours.shape == theirs.shape
    assert_equal(ours, theirs, atol=1)  # RGB -> gray: Pillow and libpng round luma differently


@pytest.mark.parametrize(
    ("pil_mode", "info", "channels"),
    [("P", {}, 3), ("P", {"transparency": 0}, 4), ("1", {}, 1), ("I;16", {}, 1)],
)
def test_unchanged_maps_other_pillow_modes_to_uint8(pil_mode: str, info: dict, channels: int) -> None:
    image = decode_image(_png_bytes(pil_mode, **info))
    assert image.dtype == torch.uint8 and image.shape == (channels, 9, 13)


def test_sixteen_bit_gray_is_scaled() -> None:
    values = np.array([[0, 257, 65535, 32896]], dtype=np.uint16)
    buffer = io.BytesIO()
    PIL.Image.fromarray(values).save(buffer, format="PNG")
    assert decode_image(buffer.getvalue()).tolist() == [[[0, 1, 255, 128]]]


def test_palette_png_decodes_to_palette_colors() -> None:
    image = PIL.Image.new("P", (2, 1))
    image.putpalette([10, 20, 30, 40, 50, 60])
    image.putpixel((1, 0), 1)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    assert decode_image(buffer.getvalue()).permute(1, 2, 0).tolist() == [[[10, 20, 30], [40, 50, 60]]]


def test_decode_image_accepts_bytes_and_tensors() -> None:
    data = JPEG.read_bytes()
    expected = read_image(JPEG)
    assert_equal(decode_image(data), expected)
    assert_equal(decode_image(bytearray(data)), expected)
    assert_equal(decode_image(read_file(JPEG)), expected)
    assert_equal(decode_image(str(JPEG)), expected)
    assert_equal(decode_image(JPEG, mode="GRAY"), read_image(JPEG, mode="GRAY"))


def test_exif_orientation() -> None:
    image = PIL.Image.fromarray(np.arange(6, dtype=np.uint8).reshape(2, 3))
    exif = PIL.Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", exif=exif)
    assert decode_image(buffer.getvalue()).shape == (1, 2, 3)
    rotated = decode_image(buffer.getvalue(), apply_exif_orientation=True)
    assert rotated.shape == (1, 3, 2)
    assert rotated[0].tolist() == [[3, 0], [4, 1], [5, 2]]


# ------------------------------------------------------------------------------------- errors
def test_missing_file_names_the_path(tmp_path: pathlib.Path) -> None:
    missing = tmp_path / "nope.jpg"
    with pytest.raises(FileNotFoundError, match="nope.jpg"):
        read_image(missing)
    with pytest.raises(FileNotFoundError, match="nope.jpg"):
        read_file(missing)


def test_corrupt_file_names_the_file(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "corrupt.jpg"
    bad.write_bytes(b"not an image at all")
    with pytest.raises(ValueError, match="corrupt.jpg"):
        read_image(bad)
    truncated = tmp_path / "truncated.jpg"
    truncated.write_bytes(JPEG.read_bytes()[:2000])
    with pytest.raises(ValueError, match="truncated.jpg"):
        read_image(truncated)


def _png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width x height`` RGB pixels, with one tiny row of data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    rows = zlib.compress(b"\x00" + b"\x00" * 3 * 8)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def test_decompression_bomb_is_a_value_error_naming_the_size(tmp_path: pathlib.Path) -> None:
    """Pillow's DecompressionBombError is neither OSError nor ValueError: it becomes ValueError."""
    data = _png_claiming(60000, 60000)
    assert len(data) < 300
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(data)
    pixels = str(60000 * 60000)
    with pytest.raises(ValueError, match=f"bomb.png.*{pixels} pixels.*MAX_IMAGE_PIXELS"):
        read_image(bomb)
    for payload in (data, torch.frombuffer(bytearray(data), dtype=torch.uint8), str(bomb)):
        with pytest.raises(ValueError, match=f"too large.*{pixels} pixels"):
            decode_image(payload)


def test_decode_errors() -> None:
    with pytest.raises(ValueError, match="decode"):
        decode_image(b"garbage")
    with pytest.raises(ValueError, match="decode"):
        decode_image(b"")
    with pytest.raises(TypeError, match="data"):
        decode_image(["not", "bytes"])
    with pytest.raises(FileNotFoundError, match="no_such_file"):
        decode_image("no_such_file.png")
    with pytest.raises(ValueError, match="data"):
        decode_image(torch.zeros(2, 3, dtype=torch.uint8))
    with pytest.raises(ValueError, match="mode"):
        decode_image(JPEG.read_bytes(), mode="CMYK")
    with pytest.raises(TypeError, match="path"):
        read_image(123)


@pytest.mark.parametrize(
    ("image", "error"),
    [
        (torch.zeros(3, 4, 5), TypeError),
        (torch.zeros(2, 3, 4, 5, dtype=torch.uint8), ValueError),
        (torch.zeros(5, 4, 5, dtype=torch.uint8), ValueError),
        (torch.zeros(3, 0, 5, dtype=torch.uint8), ValueError),
        (np.zeros((3, 4, 5), dtype=np.uint8), TypeError),
    ],
)
def test_encode_errors(image: object, error: type) -> None:
    with pytest.raises(error, match="image"):
        encode_png(image)
    with pytest.raises(error, match="image"):
        encode_jpeg(image)


def test_encode_parameter_errors() -> None:
    image = make_image_tensor()
    with pytest.raises(ValueError, match="quality"):
        encode_jpeg(image, quality=0)
    with pytest.raises(ValueError, match="quality"):
        encode_jpeg(image, quality=101)
    with pytest.raises(ValueError, match="compression_level"):
        encode_png(image, compression_level=10)
    with pytest.raises(ValueError, match="channels|C in"):
        encode_jpeg(torch.zeros(4, 4, 5, dtype=torch.uint8))


# ---------------------------------------------------------------------------- encoding, writing
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_png_round_trip_is_lossless(channels: int, tmp_path: pathlib.Path) -> None:
    image = make_image_tensor(channels=channels)
    before = image.clone()
    encoded = encode_png(image)
    assert encoded.dtype == torch.uint8 and encoded.ndim == 1
    assert_equal(decode_image(encoded), image)
    write_png(datapoints.Image(image), tmp_path / "x.png")
    assert_equal(read_image(tmp_path / "x.png"), image)
    assert_equal(image, before)


@pytest.mark.parametrize("channels", [1, 3])
def test_jpeg_round_trip_is_close(channels: int, tmp_path: pathlib.Path) -> None:
    smooth = torch.linspace(0, 255, 32 * 48).reshape(1, 32, 48).expand(channels, -1, -1).to(torch.uint8)
    write_jpeg(smooth, tmp_path / "x.jpg", quality=95)
    decoded = read_image(tmp_path / "x.jpg")
    assert decoded.shape == smooth.shape
    assert (decoded.float() - smooth.float()).abs().mean() < 2


def test_jpeg_quality_changes_size() -> None:
    image = read_image(JPEG)
    assert encode_jpeg(image, quality=20).numel() < encode_jpeg(image, quality=95).numel()


def test_encode_jpeg_list() -> None:
    images = [make_image_tensor(seed=0), make_image_tensor(seed=1)]
    encoded = encode_jpeg(images)
    assert isinstance(encoded, list) and len(encoded) == 2
    assert_equal(encoded[1], encode_jpeg(images[1]))


def test_encode_jpeg_matches_torchvision() -> None:
    tv_io = _tv_io()
    image = read_image(JPEG)
    ours = decode_image(encode_jpeg(image, quality=80))
    theirs = tv_io.decode_jpeg(tv_io.encode_jpeg(image, quality=80))
    assert (ours.float() - theirs.float()).abs().mean() < 1


def test_encode_non_contiguous() -> None:
    image = make_image_tensor((10, 12)).transpose(-1, -2)
    assert_equal(decode_image(encode_png(image)), image)


def test_read_write_file(tmp_path: pathlib.Path) -> None:
    data = torch.tensor([0, 1, 255, 7], dtype=torch.uint8)
    write_file(tmp_path / "b.bin", data)
    assert (tmp_path / "b.bin").read_bytes() == bytes([0, 1, 255, 7])
    assert_equal(read_file(tmp_path / "b.bin"), data)
    (tmp_path / "empty").write_bytes(b"")
    assert read_file(tmp_path / "empty").shape == (0,)


def test_read_mode_names() -> None:
    assert ImageReadMode.RGBA is ImageReadMode.RGB_ALPHA
    assert read_image(JPEG, "gray").shape[0] == 1
    assert read_image(JPEG, "Rgb").shape[0] == 3


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_encode_cuda_tensor() -> None:
    image = make_image_tensor()
    assert_equal(decode_image(encode_png(image.cuda())), image)


def test_torchvision_read_modes_and_a_bool_exif_flag() -> None:
    tv_io = pytest.importorskip("torchvision.io")
    data = encode_jpeg(make_image_tensor((16, 16))).numpy().tobytes()
    for mode in ("GRAY", "RGB", "UNCHANGED"):
        assert_equal(decode_image(data, mode=getattr(tv_io.ImageReadMode, mode)), decode_image(data, mode=mode))
    with pytest.raises(TypeError, match="apply_exif_orientation"):
        decode_image(data, apply_exif_orientation="yes")
