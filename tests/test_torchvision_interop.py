"""torchvision's tensors, enums and transform hooks in visiontx; containers and error wording as torchvision's."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
import torch
from torch import nn

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Image, Mask, Video
from visiontx.functional import InterpolationMode
from visiontx.functional._registry import has_kernel

from .common import assert_equal, make_bounding_box, make_image, make_image_tensor, make_mask, make_video

SIZE = (20, 30)


@pytest.fixture
def tv() -> ModuleType:
    return pytest.importorskip("torchvision.tv_tensors")


@pytest.fixture
def tvT() -> ModuleType:
    return pytest.importorskip("torchvision.transforms.v2")


def _to_tv(tv: ModuleType, inpt: Any) -> Any:
    """visiontx's datapoint as torchvision's (the same values and metadata)."""
    plain = inpt.as_subclass(torch.Tensor)
    if isinstance(inpt, BoundingBox):
        return tv.BoundingBoxes(plain, format=inpt.format.name, canvas_size=inpt.spatial_size)
    return getattr(tv, type(inpt).__name__)(plain)


def _native_sample() -> dict[str, Any]:
    return {
        "image": make_image(SIZE),
        "boxes": make_bounding_box(SIZE, format="XYWH"),
        "masks": make_mask(SIZE),
        "video": make_video(SIZE),
        "labels": torch.arange(4),
    }


def _tv_sample(tv: ModuleType, sample: dict[str, Any]) -> dict[str, Any]:
    return {k: v if type(v) is torch.Tensor else _to_tv(tv, v) for k, v in sample.items()}


# ------------------------------------------------------------------------------------ transforms
def test_issue_example_boxes_move_with_the_image(tv: ModuleType, tvT: ModuleType) -> None:
    image = tv.Image(make_image_tensor((100, 120)))
    boxes = tv.BoundingBoxes([[10, 10, 50, 60]], format="XYXY", canvas_size=(100, 120), clamping_mode="hard")
    out = T.RandomHorizontalFlip(p=1.0)({"image": image, "boxes": boxes})
    expected = tvT.RandomHorizontalFlip(p=1.0)({"image": image, "boxes": boxes})
    assert type(out["image"]) is tv.Image and type(out["boxes"]) is tv.BoundingBoxes
    assert out["boxes"].tolist() == [[70, 10, 110, 60]] == expected["boxes"].tolist()
    assert torch.equal(out["image"], expected["image"])
    assert out["boxes"].format is tv.BoundingBoxFormat.XYXY and out["boxes"].canvas_size == (100, 120)
    assert out["boxes"].clamping_mode == "hard"  # torchvision's own metadata is kept


PIPELINES: dict[str, Callable[[], Any]] = {
    "flip": lambda: T.RandomHorizontalFlip(p=1.0),
    "resize": lambda: T.Resize((15, 17), antialias=True),
    "rotate_expand": lambda: T.RandomRotation(30, expand=True),
    "resized_crop": lambda: T.RandomResizedCrop((12, 14)),
    "zoom_out_crop": lambda: T.Compose([T.RandomZoomOut(fill={Image: 127, "others": 0}), T.RandomIoUCrop()]),
    "affine": lambda: T.RandomAffine(20, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=5),
    "pad_center_crop": lambda: T.Compose([T.Pad([2, 3]), T.CenterCrop(16)]),
    "format_dtype": lambda: T.Compose([T.ConvertBoundingBoxFormat("CXCYWH"), T.ToDtype(torch.float32, scale=True)]),
    "color": lambda: T.ColorJitter(0.4, 0.4, 0.4, 0.1),
    "sanitize": lambda: T.Compose([T.RandomAffine(0, translate=(0.5, 0.5)), T.SanitizeBoundingBox()]),
}


@pytest.mark.parametrize("name", list(PIPELINES))
def test_torchvision_tensors_are_transformed_as_visiontx_datapoints(tv: ModuleType, name: str) -> None:
    native = _native_sample()
    transform = PIPELINES[name]()
    for seed in range(3):
        torch.manual_seed(seed)
        expected = transform(native)
        torch.manual_seed(seed)
        out = transform(_tv_sample(tv, native))
        for key, value in expected.items():
            assert_equal(out[key].as_subclass(torch.Tensor), value.as_subclass(torch.Tensor))
            if isinstance(value, BoundingBox):
                assert type(out[key]) is tv.BoundingBoxes
                assert out[key].format is tv.BoundingBoxFormat[value.format.name]
                assert out[key].canvas_size == value.spatial_size
            elif isinstance(value, (Image, Video, Mask)):
                assert type(out[key]) is getattr(tv, type(value).__name__)


def test_untouched_torchvision_leaves_come_back_as_the_same_objects(tv: ModuleType) -> None:
    sample = _tv_sample(tv, _native_sample())
    out = T.ColorJitter(brightness=0.5)(sample)
    assert type(out["image"]) is tv.Image and out["image"] is not sample["image"]
    for key in ("boxes", "masks", "labels"):
        assert out[key] is sample[key]
    assert T.RandomHorizontalFlip(p=0.0)(sample) is sample


def test_torchvision_image_takes_the_plain_tensor_rule(tv: ModuleType) -> None:
    image, plain = tv.Image(make_image_tensor(SIZE)), make_image_tensor(SIZE, seed=1)
    out_image, out_plain = T.RandomHorizontalFlip(p=1.0)(image, plain)
    assert out_plain is plain  # an image is in the sample: plain tensors pass through
    assert type(out_image) is tv.Image and torch.equal(out_image, image.flip(-1))
    lone = T.RandomVerticalFlip(p=1.0)(tv.Video(make_video(SIZE).as_subclass(torch.Tensor)))
    assert type(lone) is tv.Video


def test_subclass_of_torchvision_image_comes_back_as_itself(tv: ModuleType) -> None:
    class MyImage(tv.Image):
        pass

    image = tv.Image(make_image_tensor(SIZE)).as_subclass(MyImage)
    assert type(T.RandomHorizontalFlip(p=1.0)(image, torch.tensor(1))[0]) is MyImage
    assert type(F.vertical_flip(image)) is MyImage


def test_sanitize_and_mixing_take_torchvision_tensors(tv: ModuleType) -> None:
    boxes = tv.BoundingBoxes([[0, 0, 5, 5], [3, 3, 3, 9]], format="XYXY", canvas_size=SIZE)
    sample = {"image": tv.Image(make_image_tensor(SIZE)), "boxes": boxes, "labels": torch.tensor([1, 2])}
    out = T.SanitizeBoundingBox()(sample)
    assert type(out["boxes"]) is tv.BoundingBoxes and out["boxes"].tolist() == [[0, 0, 5, 5]]
    assert out["labels"].tolist() == [1] and out["image"] is sample["image"]

    batch = tv.Image(make_image_tensor(SIZE, batch_dims=(4,), dtype=torch.float32))
    images, labels = T.MixUp(num_classes=3)(batch, torch.tensor([0, 1, 2, 0]))
    assert type(images) is tv.Image and labels.shape == (4, 3)


def test_dicts_by_type_take_torchvision_classes(tv: ModuleType) -> None:
    image, mask = tv.Image(make_image_tensor(SIZE)), tv.Mask(make_mask(SIZE).as_subclass(torch.Tensor))
    out_image, out_mask = T.ToDtype({tv.Image: torch.float32, "others": None}, scale=True)(image, mask)
    assert out_image.dtype == torch.float32 and out_image.max() <= 1 and out_mask is mask
    pad = T.Pad(2, fill={tv.Image: 9, tv.Mask: 7})
    out_image, out_mask = pad(image, mask)
    assert out_image[:, 0, 0].tolist() == [9, 9, 9] and out_mask[:, 0, 0].tolist() == [7, 7]


def test_lambda_gets_torchvision_tensors_as_they_are(tv: ModuleType) -> None:
    image = tv.Image(make_image_tensor(SIZE))
    seen = []
    T.Lambda(seen.append, tv.Image)({"image": image, "n": 1})
    assert seen == [image] and type(seen[0]) is tv.Image


def test_unsupported_torchvision_types_and_foreign_subclasses_are_refused(tv: ModuleType) -> None:
    image = make_image(SIZE)

    class Custom(tv.TVTensor):
        pass

    class Foreign(torch.Tensor):
        pass

    for other in (torch.zeros(2).as_subclass(Custom), make_image_tensor(SIZE).as_subclass(Foreign)):
        with pytest.raises(TypeError, match=f"{type(other).__name__}'>"):
            T.RandomHorizontalFlip(p=1.0)({"image": image, "other": other})
    with pytest.raises(TypeError, match="Custom'> instead"):  # never the plain-tensor kernel
        F.horizontal_flip(torch.zeros(2, 2).as_subclass(Custom))
    foreign = make_image_tensor(SIZE).as_subclass(Foreign)  # functionals take it as a tensor, as torchvision's
    assert type(F.horizontal_flip(foreign)) is Foreign and torch.equal(F.horizontal_flip(foreign), foreign.flip(-1))


def test_torch_own_tensor_subclasses_stay_plain_tensors() -> None:
    parameter = nn.Parameter(make_image_tensor(SIZE, dtype=torch.float32), requires_grad=False)
    out = T.RandomHorizontalFlip(p=1.0)(parameter)
    assert type(out) is torch.Tensor and torch.equal(out, parameter.flip(-1))
    image = make_image(SIZE)
    assert T.RandomHorizontalFlip(p=1.0)(image, parameter)[1] is parameter


def test_visiontx_does_not_import_torchvision() -> None:
    code = (
        "import sys, torch; import visiontx.transforms as T, visiontx.functional as F; "
        "from visiontx.datapoints import Image; "
        "T.Compose([T.RandomHorizontalFlip(p=1.0), T.Resize(4)])(Image(torch.zeros(3, 8, 8)), torch.tensor(1)); "
        "F.resize(torch.zeros(3, 8, 8), [4]); T.AutoAugment(); F.InterpolationMode.parse('bilinear'); "
        "assert not [m for m in sys.modules if m.startswith('torchvision')], 'torchvision was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------------------------ functional
def test_functional_dispatch_of_torchvision_tensors(tv: ModuleType) -> None:
    tvF = pytest.importorskip("torchvision.transforms.v2.functional")
    image = tv.Image(make_image_tensor(SIZE))
    boxes = _to_tv(tv, make_bounding_box(SIZE))
    mask = tv.Mask(make_mask(SIZE).as_subclass(torch.Tensor))
    for inpt in (image, boxes, mask):
        resized, expected = F.resize(inpt, [10, 12]), tvF.resize(inpt, [10, 12])
        assert type(resized) is type(inpt) and torch.equal(resized, expected)
        flipped = F.horizontal_flip(inpt)
        assert type(flipped) is type(inpt) and torch.equal(flipped, tvF.horizontal_flip(inpt))
    assert F.resize(boxes, [10, 12]).canvas_size == (10, 12)
    crops = F.five_crop(image, 8)
    assert isinstance(crops, tuple) and all(type(crop) is tv.Image for crop in crops)
    assert F.get_spatial_size(boxes) == list(SIZE)
    assert has_kernel(F.resize, tv.Image) and not has_kernel(F.adjust_hue, tv.BoundingBoxes)


# ------------------------------------------------------------------------------------- enums
def test_torchvision_enums_are_accepted() -> None:
    tv_modes = pytest.importorskip("torchvision.transforms").InterpolationMode
    for mode in tv_modes:
        assert InterpolationMode.parse(mode) is InterpolationMode(mode.value)
    image = make_image(SIZE)
    ours = T.Resize(10, interpolation=InterpolationMode.BICUBIC)(image)
    assert torch.equal(T.Resize(10, interpolation=tv_modes.BICUBIC)(image), ours)
    tv_policy = pytest.importorskip("torchvision.transforms").AutoAugmentPolicy
    for policy in tv_policy:
        assert T.AutoAugment(policy).policy is T.AutoAugmentPolicy(policy.value)
    with pytest.raises(TypeError, match="policy"):
        T.AutoAugment(tv_modes.BILINEAR)


# ---------------------------------------------------------------------------- torchvision's hooks
class _OldStyleTint(T.Transform):
    """A custom transform written against torchvision 0.15's private hooks."""

    def __init__(self) -> None:
        super().__init__()
        self.checked: list[int] = []

    def _check_inputs(self, flat_inputs: list[Any]) -> None:
        self.checked.append(len(flat_inputs))

    def _get_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(delta=int(torch.randint(1, 10, ())))

    def _transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if isinstance(inpt, (BoundingBox, Mask)):
            return inpt
        return self._call_kernel(F.adjust_brightness, inpt, 1.0) + params["delta"]


class _FlipThenShift(T.RandomHorizontalFlip):
    def _transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return super()._transform(inpt, params) + 1


def test_torchvision_015_hooks_are_called() -> None:
    image = make_image(SIZE)
    tint = _OldStyleTint()
    torch.manual_seed(0)
    delta = int(torch.randint(1, 10, ()))
    torch.manual_seed(0)
    out = tint(image, torch.tensor(3))
    assert tint.checked == [2] and torch.equal(out[0], image.as_subclass(torch.Tensor) + delta)
    assert tint.make_params([]).keys() == {"delta"}  # the public names answer too
    shifted = _FlipThenShift(p=1.0)(image)
    assert torch.equal(shifted, image.as_subclass(torch.Tensor).flip(-1) + 1)


def test_public_and_private_hook_names_are_one_method() -> None:
    flip = T.RandomHorizontalFlip(p=1.0)
    image = make_image(SIZE)
    assert torch.equal(flip._transform(image, {}), flip.transform(image, {}))
    assert torch.equal(flip._call_kernel(F.vertical_flip, image), F.vertical_flip(image))
    with pytest.raises(TypeError, match="must override transform"):  # neither overridden: no recursion
        type("Bare", (T.Transform,), {})()(image)


# ------------------------------------------------------------------------------------ containers
class _ImageAndLabel(nn.Module):
    """A plain module written for torchvision's containers: ``forward(image, label)``."""

    def forward(self, image: torch.Tensor, label: int) -> tuple[torch.Tensor, int]:
        return image.flip(-1), label + 1


def _containers(ns: ModuleType) -> dict[str, Any]:
    flip = ns.RandomVerticalFlip(p=0.5)
    return {
        "Compose": ns.Compose([_ImageAndLabel(), flip, _ImageAndLabel()]),
        "RandomApply": ns.RandomApply([_ImageAndLabel(), flip], p=0.5),
        "RandomOrder": ns.RandomOrder([_ImageAndLabel(), flip, _ImageAndLabel()]),
        "RandomChoice": ns.RandomChoice([_ImageAndLabel(), flip]),
    }


@pytest.mark.parametrize("name", ["Compose", "RandomApply", "RandomOrder", "RandomChoice"])
def test_containers_unpack_several_inputs_as_torchvision(tvT: ModuleType, name: str) -> None:
    ours, theirs = _containers(T)[name], _containers(tvT)[name]
    image = make_image_tensor(SIZE)
    for seed in range(6):
        torch.manual_seed(seed)
        out = ours(image, 0)
        torch.manual_seed(seed)
        expected = theirs(image, 0)
        assert isinstance(out, tuple) and out[1] == expected[1] and torch.equal(out[0], expected[0])


def test_containers_pass_one_input_as_it_is(tvT: ModuleType) -> None:
    seen: dict[str, list[Any]] = {"ours": [], "theirs": []}
    sample = (make_image_tensor(SIZE), 3)
    for key, ns in (("ours", T), ("theirs", tvT)):
        out = ns.Compose([lambda s, key=key: seen[key].append(s) or s])(sample)
        assert out is sample
    assert seen["ours"] == seen["theirs"] == [sample]
    assert T.Compose([])(sample) is sample and T.Compose([])(*sample) == sample


# ------------------------------------------------------------------------------------ messages
def test_unsupported_type_message_names_the_type_as_torchvision(tv: ModuleType) -> None:
    tvF = pytest.importorskip("torchvision.transforms.v2.functional")
    with pytest.raises(TypeError) as theirs:
        tvF.resize(object(), [3])
    with pytest.raises(TypeError) as ours:
        F.resize(object(), [3])
    shared = r"Functional F.resize supports inputs of type .*, but got <class 'object'> instead."
    for message in (str(theirs.value), str(ours.value)):
        assert re.fullmatch(shared, message), message
    assert "Image" in str(ours.value) and "PIL.Image.Image" in str(ours.value)


@pytest.mark.parametrize("mode", [InterpolationMode.HAMMING, InterpolationMode.BOX])
def test_hamming_and_box_on_tensors_raise_as_torchvision(mode: InterpolationMode) -> None:
    tvF = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image(SIZE)
    with pytest.raises(NotImplementedError):
        tvF.resize(image.as_subclass(torch.Tensor), [10, 12], interpolation=mode.value)
    calls = (lambda: F.resize(image, [10, 12], interpolation=mode), lambda: T.Resize(10, interpolation=mode)(image))
    for call in calls:
        with pytest.raises(NotImplementedError, match=f"interpolation '{mode.value}' is not supported for tensors"):
            call()
        with pytest.raises(ValueError):  # also a ValueError, as visiontx raised before
            call()
    assert F.get_spatial_size(F.resize(F.to_image_pil(image), [10, 12], interpolation=mode)) == [10, 12]


@pytest.mark.parametrize("new_format", ["XYXY", "XYWH", "CXCYWH"])
def test_box_functionals_outside_the_registry_take_torchvision_boxes(tv: ModuleType, new_format: str) -> None:
    import torchvision.transforms.v2.functional as F2

    boxes = tv.BoundingBoxes([[-5, 10, 50, 60], [3, 4, 3, 9]], format="XYWH", canvas_size=(40, 50))
    for ours, theirs in (
        (
            F.convert_bounding_box_format(boxes, new_format=new_format),
            F2.convert_bounding_box_format(boxes, new_format=new_format),
        ),
        (
            F.convert_format_bounding_box(boxes, new_format=new_format),
            F2.convert_bounding_box_format(boxes, new_format=new_format),
        ),
        (F.clamp_bounding_boxes(boxes), F2.clamp_bounding_boxes(boxes)),
        (F.clamp_bounding_box(boxes), F2.clamp_bounding_boxes(boxes)),
    ):
        assert type(ours) is type(theirs) and ours.format == theirs.format and ours.canvas_size == theirs.canvas_size
        assert_equal(ours.as_subclass(torch.Tensor), theirs.as_subclass(torch.Tensor))
    (kept, valid), (tv_kept, tv_valid) = F.sanitize_bounding_boxes(boxes), F2.sanitize_bounding_boxes(boxes)
    assert type(kept) is type(tv_kept) and valid.tolist() == tv_valid.tolist()
    assert_equal(kept.as_subclass(torch.Tensor), tv_kept.as_subclass(torch.Tensor))
