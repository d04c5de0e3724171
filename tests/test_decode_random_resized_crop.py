"""DecodeRandomResizedCrop: RandomResizedCrop's regions drawn from the header, JPEGs decoded at reduced scale
where the region allows; ``io.encoded_size`` and ``io._decode_reduced`` underneath."""

from __future__ import annotations

import io as _io
import math
import pathlib

import numpy as np
import PIL.Image
import pytest
import torch

import visiontx.transforms as T
from visiontx import io
from visiontx.datapoints import BoundingBox, Image
from visiontx.functional import _cv2
from visiontx.transforms import functional as F
from visiontx.io import _region_reduction, _scaled_span

COVERED = {"DecodeRandomResizedCrop"}
PHOTO = pathlib.Path(io.__file__).parent / "assets" / "coco_sample" / "images" / "000000000001.jpg"


def _encoded(size: tuple[int, int] = (389, 517), format: str = "JPEG", mode: str = "RGB") -> bytes:
    """The sample photo resized to ``size`` (H, W) and encoded: a side not a multiple of 8 shows the
    reduced decode's rounding."""
    with PIL.Image.open(PHOTO) as photo:
        image = photo.convert("RGB").resize((size[1], size[0]), PIL.Image.BILINEAR).convert(mode)
    buffer = _io.BytesIO()
    image.save(buffer, format=format, **({"quality": 90} if format == "JPEG" else {}))
    return buffer.getvalue()


def _params(transform: T.Transform, sample: object, seed: int) -> dict:
    torch.manual_seed(seed)
    return transform.record(sample)[1]["params"]


@pytest.mark.parametrize("format", ["JPEG", "PNG"])
def test_regions_are_random_resized_crops(format: str) -> None:
    data = _encoded(format=format)
    decoded = Image(io.decode_image(data))
    for size, scale in [(32, (0.08, 1.0)), (100, (0.5, 1.0)), ((40, 70), (0.9, 1.0))]:
        ours = T.DecodeRandomResizedCrop(size, scale=scale)
        theirs = T.RandomResizedCrop(size, scale=scale)
        for seed in range(20):
            assert _params(ours, data, seed) == _params(theirs, decoded, seed)


def test_without_reduction_the_output_is_random_resized_crops() -> None:
    """Regions smaller than twice the size (and every PNG) decode in full: RandomResizedCrop's pixels."""
    for data, size in [(_encoded(), 300), (_encoded(format="PNG"), 24), (_encoded(mode="L"), 300)]:
        decoded = Image(io.decode_image(data, mode="RGB"))
        for seed in range(6):
            torch.manual_seed(seed)
            ours = T.DecodeRandomResizedCrop(size)(data)
            torch.manual_seed(seed)
            assert type(ours) is Image and torch.equal(ours, T.RandomResizedCrop(size)(decoded))


@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_reduced_decodes_are_the_rounded_region_of_the_full_pipeline(mode: str) -> None:
    """With reduction (regions of at least 2x the size), the output is RandomResizedCrop's of the full decode
    at the region rounded to the reduced grid, within the DCT-domain scaling's few levels; OpenCV and Pillow
    give the same pixels."""
    data = _encoded(mode=mode)
    decoded = Image(io.decode_image(data, mode="RGB"))
    transform = T.DecodeRandomResizedCrop(64, scale=(0.3, 1.0))
    reductions = set()
    for seed in range(12):
        params = _params(transform, data, seed)
        reduction = _region_reduction(params["height"], params["width"], (64, 64))
        reductions.add(reduction)
        torch.manual_seed(seed)
        ours = transform(data)
        with _cv2.disabled():
            torch.manual_seed(seed)
            assert torch.equal(transform(data), ours)
        y0, y1 = _scaled_span(params["top"], params["height"], reduction, math.ceil(389 / reduction))
        x0, x1 = _scaled_span(params["left"], params["width"], reduction, math.ceil(517 / reduction))
        region = [v * reduction for v in (y0, x0, y1 - y0, x1 - x0)]
        assert all(abs(v - params[k]) <= reduction for v, k in zip(region, ("top", "left", "height", "width")))
        assert all(abs(a - b) <= reduction / 2 for a, b in [(region[0], params["top"]), (region[1], params["left"])])
        full = F.resized_crop(decoded, *region, size=[64, 64], antialias=True)
        difference = (ours.float() - full.float()).abs()
        assert ours.shape == (3, 64, 64) and difference.mean() < 3.0, (seed, difference.mean())
    assert {2, 4} <= reductions  # the test covers reduced decodes


def test_reduction_is_the_largest_that_still_covers_the_size() -> None:
    assert _region_reduction(80, 160, (10, 20)) == 8
    assert _region_reduction(79, 160, (10, 20)) == 4
    assert _region_reduction(40, 79, (10, 20)) == 2
    assert _region_reduction(19, 400, (10, 20)) == 1


def test_scaled_span_stays_inside_the_reduced_side() -> None:
    assert _scaled_span(13, 200, 1, 517) == (13, 213)  # no reduction: the region itself
    assert _scaled_span(0, 517, 8, 65) == (0, 65)
    assert _scaled_span(516, 1, 8, 65) == (64, 65)  # at least one pixel, never past the end
    for start, length, reduction in [(3, 50, 4), (100, 17, 2), (400, 117, 4), (37, 480, 8)]:
        side = math.ceil(517 / reduction)
        first, last = _scaled_span(start, length, reduction, side)
        assert 0 <= first < last <= side
        assert abs(first - start / reduction) <= 0.5 and abs(last - (start + length) / reduction) <= 0.5


def test_inputs_labels_and_bytes_forms() -> None:
    data = _encoded()
    tensor = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    before = tensor.clone()
    transform = T.DecodeRandomResizedCrop(40)
    outputs = []
    for sample in (data, bytearray(data), memoryview(data), tensor):
        torch.manual_seed(3)
        outputs.append(transform(sample))
    assert all(torch.equal(out, outputs[0]) for out in outputs) and torch.equal(tensor, before)
    torch.manual_seed(3)
    image, label = transform((tensor, 7))
    assert label == 7 and torch.equal(image, outputs[0])
    for label in (torch.tensor(3), torch.zeros(10), torch.tensor([1, 2], dtype=torch.int64)):  # tensor labels pass
        torch.manual_seed(3)
        image, same = transform((tensor, label))
        assert same is label and torch.equal(image, outputs[0])
    torch.manual_seed(3)
    pipeline = T.Compose([transform, T.RandomHorizontalFlip(p=0.0)])
    assert torch.equal(pipeline({"image": data, "label": 1})["image"], image)


def test_bad_inputs_are_refused_clearly() -> None:
    data = _encoded()
    transform = T.DecodeRandomResizedCrop(40)
    with pytest.raises(TypeError, match=r"takes encoded image bytes .*, not Image of shape \(3, 389, 517\): decode"):
        transform(Image(io.decode_image(data)))
    with pytest.raises(TypeError, match=r"not Tensor of shape \(3, 389, 517\)"):
        transform((data, io.decode_image(data)))
    with pytest.raises(TypeError, match="not BoundingBox"):
        transform((data, BoundingBox(torch.zeros(1, 4), format="XYXY", spatial_size=(389, 517))))
    with pytest.raises(ValueError, match="one encoded image per sample, got 2"):
        transform((data, data))
    with pytest.raises(ValueError, match="cannot read the size of the given data as an image"):
        transform(b"not an image")
    _, record = transform.record(data)
    with pytest.raises(ValueError, match=r"\(DecodeRandomResizedCrop\): its input is encoded bytes"):
        transform.inverse(torch.zeros(3, 40, 40), record)


def test_record_replay_and_serialize() -> None:
    data = _encoded()
    transform = T.DecodeRandomResizedCrop(40, scale=(0.5, 1.0), antialias=False)
    out, record = transform.record(data)
    assert torch.equal(transform.replay(data, record=record), out)
    restored = T.from_dict(transform.to_dict())
    assert repr(restored) == repr(transform)
    torch.manual_seed(1)
    expected = transform(data)
    torch.manual_seed(1)
    assert torch.equal(restored(data), expected)


def test_encoded_size_and_reduced_decodes() -> None:
    jpeg, png = _encoded(), _encoded(format="PNG")
    png_tensor = torch.frombuffer(bytearray(png), dtype=torch.uint8)
    assert io.encoded_size(jpeg) == io.encoded_size(png) == io.encoded_size(png_tensor) == (389, 517)
    for reduction in (1, 2, 4, 8):
        reduced, applied = io._decode_reduced(jpeg, reduction)
        assert applied == reduction and reduced.dtype == torch.uint8
        assert reduced.shape == (3, math.ceil(389 / reduction), math.ceil(517 / reduction))
        with _cv2.disabled():  # Pillow's draft: the same scale and pixels
            drafted, applied = io._decode_reduced(jpeg, reduction)
            assert applied == reduction and torch.equal(drafted, reduced)
        full_size, applied = io._decode_reduced(png, reduction)
        assert applied == 1 and full_size.shape == (3, 389, 517)  # other formats: full size
    full = io._decode_reduced(jpeg, 1)[0].float()
    halved = torch.nn.functional.avg_pool2d(full[None, :, :388, :516], 2)[0]
    assert (io._decode_reduced(jpeg, 2)[0][:, :194, :258].float() - halved).abs().mean() < 3.0  # a true half-size image
    assert np.array_equal(io._decode_reduced(jpeg, 1)[0].numpy(), io.decode_image(jpeg).numpy())
    tiny = _encoded((5, 30))  # a side shorter than the reduction: Pillow's draft (always) reduces less
    image, applied = io._decode_reduced(tiny, 8)
    assert applied == 4 and image.shape == (3, 2, 8)
    with pytest.raises(TypeError, match="data must be bytes"):
        io.encoded_size("not bytes")
    with pytest.raises(ValueError, match="reduction must be one of"):
        io._decode_reduced(jpeg, 3)
    for bad in (2.0, True, "2"):
        with pytest.raises(TypeError, match="reduction must be an int"):
            io._decode_reduced(jpeg, bad)


def test_reduced_decodes_of_a_region_split_only_its_planes() -> None:
    """A region keeps the rows and columns it names of the whole decode (JPEG: only those split into planes;
    Pillow's path and other formats: a slice), told the reduction applied and the decoded size."""
    jpeg, png = _encoded(), _encoded(format="PNG")
    seen = []

    def region(applied: int, height: int, width: int) -> tuple[int, int, int, int]:
        seen.append((applied, height, width))
        return 3, height - 5, 7, width // 2

    for data in (jpeg, png):
        for reduction in (1, 2, 8):
            whole, applied = io._decode_reduced(data, reduction)
            part, applied_too = io._decode_reduced(data, reduction, region)
            assert applied_too == applied and seen[-1] == (applied, *whole.shape[-2:])
            assert torch.equal(part, whole[:, 3:-5, 7 : whole.shape[-1] // 2])
            assert part.is_contiguous() == (data is jpeg)  # planes of the region alone, not a view of the whole
            with _cv2.disabled():
                assert torch.equal(io._decode_reduced(data, reduction, region)[0], part)
