"""Datapoints: construction, refusal of bad input, the return-type rule, copying and re-wrapping."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import PIL.Image
import pytest
import torch

from visiontx import datapoints
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Datapoint, Image, Mask, Video

from .common import make_bounding_box, make_image, make_mask, make_video

COVERED = {"Datapoint"}


def test_image_from_tensor_list_numpy_and_pil() -> None:
    data = torch.arange(24, dtype=torch.uint8).reshape(2, 3, 4)
    assert torch.equal(Image(data), data)
    assert torch.equal(Image(data.tolist(), dtype=torch.uint8), data)
    assert torch.equal(Image(data.numpy()), data)
    pil = PIL.Image.fromarray(data.permute(1, 2, 0)[..., :1].squeeze(-1).numpy().copy())
    from_pil = Image(pil)
    assert from_pil.shape == (1, 3, 4) and torch.equal(from_pil[0], data[0])
    rgb = PIL.Image.fromarray(np.stack([data[0].numpy()] * 3, axis=-1))
    assert Image(rgb).shape == (3, 3, 4)


def test_channels_last_image_is_refused_before_a_transform_garbles_it() -> None:
    import visiontx.transforms as T

    image = make_image((30, 50))
    with pytest.raises(ValueError, match="permute"):
        T.Resize(10)(Image(image.permute(1, 2, 0)))
    for shape in [(3, 5, 4), (4, 10, 3), (1, 5, 1), (2, 3, 5, 4), (3, 4), (6, 10, 5), (5, 4, 4, 2)]:
        assert Image(torch.zeros(shape)).shape[-2:] == shape[-2:]  # channels first, or too few channels to tell


def test_image_gains_channel_and_keeps_dtype_device_requires_grad() -> None:
    image = Image(torch.zeros(5, 6), dtype=torch.float64, requires_grad=True)
    assert image.shape == (1, 5, 6) and image.dtype == torch.float64 and image.requires_grad
    assert image.device == torch.device("cpu")


def test_construction_never_aliases_a_datapoint_type() -> None:
    image = make_image()
    mask = Mask(image)
    assert type(mask) is Mask and torch.equal(mask, image)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Image(torch.zeros(3)), "at least 2 dims"),
        (lambda: Image(torch.zeros(30, 50, 3)), "permute it to C x H x W"),
        (lambda: Image(np.zeros((30, 50, 4), dtype=np.uint8)), "permute it to C x H x W"),
        (lambda: Image(torch.zeros(2, 30, 50, 1)), "permute it to C x H x W"),
        (lambda: Image(torch.zeros(5, 10, 3)), "permute it to C x H x W"),  # 5 channels, width 3: refused too
        (lambda: Video(torch.zeros(3, 4, 5)), "at least 4 dims"),
        (lambda: Mask(torch.zeros(3)), "at least 2 dims"),
        (lambda: BoundingBox([[1, 2, 3]], format="XYXY", spatial_size=(4, 4)), r"\[N, 4\]"),
        (lambda: BoundingBox([[1, 2, 3, 4]], format="XYZ", spatial_size=(4, 4)), "format"),
        (lambda: BoundingBox([[1, 2, 3, 4]], format="XYXY", spatial_size=(0, 4)), "spatial_size"),
        (lambda: BoundingBox([[1, 2, 3, 4]], format="XYXY", spatial_size=(4,)), "spatial_size"),
        (lambda: BoundingBox([[1, 2, 3, 4]], format="XYXY", spatial_size=(4.5, 4)), "spatial_size"),
        (lambda: BoundingBox([[1, 2, 3, 4]], format="XYXY", spatial_size=(True, True)), "spatial_size"),
    ],
)
def test_bad_construction_is_refused(make, match) -> None:
    with pytest.raises(ValueError, match=match):
        make()


def test_bounding_box_formats_and_shapes() -> None:
    for name in ["xyxy", "XyWh", "CXCYWH", BoundingBoxFormat.XYWH]:
        boxes = BoundingBox([1, 2, 3, 4], format=name, spatial_size=torch.tensor([8, 9]))
        assert boxes.shape == (1, 4) and isinstance(boxes.format, BoundingBoxFormat)
        assert boxes.spatial_size == (8, 9)
    assert BoundingBox([], format="XYXY", spatial_size=(3, 3)).shape == (0, 4)


def test_torch_ops_return_plain_tensors_except_the_keep_type_ops() -> None:
    boxes = make_bounding_box(format="CXCYWH")
    assert type(boxes + 1) is torch.Tensor
    assert type(boxes.sum()) is torch.Tensor
    for kept in (boxes.clone(), boxes.to(torch.float64), boxes.detach(), boxes.clone().requires_grad_()):
        assert type(kept) is BoundingBox
        assert kept.format == BoundingBoxFormat.CXCYWH and kept.spatial_size == boxes.spatial_size


def test_keep_type_ops_keep_the_type_of_self_only_as_torchvision() -> None:
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    plain, image = torch.zeros(3, 4, 5, dtype=torch.uint8), make_image(dtype=torch.float64)
    tv_image = tv_tensors.Image(image.as_subclass(torch.Tensor))
    for convert in (lambda t, like: t.to(like), lambda t, like: torch.Tensor.to(t, like)):
        out = convert(plain, image)
        assert type(out) is torch.Tensor and out.dtype == torch.float64
        assert type(out) is type(convert(plain, tv_image))
        kept = convert(image.to(torch.uint8), plain)
        assert type(kept) is Image and kept.dtype == torch.uint8
    with datapoints.set_return_type("datapoint"), tv_tensors.set_return_type("TVTensor"):
        assert type(plain.to(image)) is Image and type(plain.to(tv_image)) is tv_tensors.Image


def test_set_return_type_switch_and_context_manager() -> None:
    image = make_image()
    with datapoints.set_return_type("datapoint"):
        assert type(image + 1) is Image
        first, second = image.unbind(0)[:2]
        assert type(first) is Image and type(second) is Image
    assert type(image + 1) is torch.Tensor
    datapoints.set_return_type("DATAPOINT")
    try:
        assert type(image * 2) is Image
    finally:
        datapoints.set_return_type("tensor")
    assert type(image * 2) is torch.Tensor
    with pytest.raises(ValueError, match="return_type"):
        datapoints.set_return_type("numpy")


def test_in_place_ops_and_no_op_methods_return_plain_tensors() -> None:
    # the type of a result never depends on whether the op returned its input (as torchvision)
    image = Image(torch.zeros(3, 2, 2))
    out = image.add_(1)
    assert type(out) is torch.Tensor and out.data_ptr() == image.data_ptr()
    assert type(image) is Image and image.sum().item() == 12  # changed in place, still an Image
    as_uint8 = Image(torch.zeros(3, 2, 2, dtype=torch.uint8))
    for result in (image.float(), as_uint8.float(), image.contiguous(), image.cpu(), image.abs_()):
        assert type(result) is torch.Tensor
    with datapoints.set_return_type("datapoint"):
        assert image.add_(1) is image


def test_datapoint_return_type_finds_datapoints_in_lists_and_keywords() -> None:
    image, boxes = make_image(), make_bounding_box(format="XYWH")
    with datapoints.set_return_type("datapoint"):
        assert type(torch.cat([image, image])) is Image
        stacked = torch.stack([boxes, boxes])
        assert type(stacked) is BoundingBox and stacked.format == BoundingBoxFormat.XYWH
        assert stacked.spatial_size == boxes.spatial_size
        assert type(torch.add(input=image, other=1)) is Image
    assert type(torch.cat([image, image])) is torch.Tensor


@pytest.mark.parametrize("make", [make_image, make_video, make_mask, make_bounding_box])
def test_deepcopy_and_pickle_keep_type_and_metadata(make) -> None:
    inpt = make()
    for copied in (copy.deepcopy(inpt), pickle.loads(pickle.dumps(inpt))):
        assert type(copied) is type(inpt)
        assert torch.equal(copied.as_subclass(torch.Tensor), inpt.as_subclass(torch.Tensor))
        assert copied.data_ptr() != inpt.data_ptr()
        if isinstance(inpt, BoundingBox):
            assert (copied.format, copied.spatial_size) == (inpt.format, inpt.spatial_size)


def test_deepcopy_keeps_requires_grad() -> None:
    image = Image(torch.rand(3, 4, 5), requires_grad=True)
    assert copy.deepcopy(image).requires_grad


def test_wrap_like_and_wrap_with_overrides() -> None:
    boxes = make_bounding_box(format="XYWH", spatial_size=(10, 20))
    tensor = torch.ones(2, 4)
    wrapped = BoundingBox.wrap_like(boxes, tensor)
    assert type(wrapped) is BoundingBox and wrapped.format == BoundingBoxFormat.XYWH
    assert wrapped.spatial_size == (10, 20)
    moved = datapoints.wrap(tensor, like=boxes, spatial_size=(5, 6), format="xyxy")
    assert moved.spatial_size == (5, 6) and moved.format == BoundingBoxFormat.XYXY
    assert type(datapoints.wrap(torch.zeros(3, 2, 2), like=make_image())) is Image
    with pytest.raises(TypeError, match="like"):
        datapoints.wrap(tensor, like=tensor)
    with pytest.raises(TypeError, match="tensor"):
        datapoints.wrap([1, 2], like=boxes)
    with pytest.raises(ValueError, match="spatial_size"):
        datapoints.wrap(tensor, like=boxes, spatial_size=(-1, 2))


def test_cheap_properties_and_repr() -> None:
    boxes = make_bounding_box(spatial_size=(5, 7), num_boxes=2)
    assert boxes.shape == (2, 4) and boxes.ndim == 2 and boxes.dtype == torch.float32
    assert boxes.device.type == "cpu"
    text = repr(boxes)
    assert text.startswith("BoundingBox(") and "spatial_size=(5, 7)" in text and "XYXY" in text
    assert repr(make_image()).startswith("Image(")
    lines = repr(Mask(torch.zeros(2, 3, dtype=torch.uint8))).splitlines()
    assert lines == ["Mask([[0, 0, 0],", "      [0, 0, 0]], dtype=torch.uint8)"]  # rows aligned under the first
    assert BoundingBox([[1, 2, 3, 4]], format="XYXY", spatial_size=np.array([5, 6])).spatial_size == (5, 6)


def test_datapoint_base_is_a_tensor_subclass() -> None:
    assert issubclass(Datapoint, torch.Tensor)
    for cls in (Image, Video, Mask, BoundingBox):
        assert issubclass(cls, Datapoint)
