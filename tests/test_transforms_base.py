"""The Transform base, containers, meta / dtype / type-conversion transforms and author helpers."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import PIL.Image
import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx import _args
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Image, Mask, Video
from visiontx.transforms import _utils as U

from .common import (
    Case,
    assert_equal,
    check_transform,
    make_bounding_box,
    make_image,
    make_image_pil,
    make_image_tensor,
    make_mask,
    make_video,
    unwrap,
)

ALL_BUT_IMAGE = (torch.Tensor, PIL.Image.Image, Video, Mask, BoundingBox)

TRANSFORM_CASES = {
    T.Compose: [dict(transforms=[T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=1.0)])],
    T.RandomApply: [dict(transforms=[T.RandomHorizontalFlip(p=1.0)], p=0.5)],
    T.RandomChoice: [dict(transforms=[T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=1.0)], p=[1, 3])],
    T.RandomOrder: [dict(transforms=[T.RandomHorizontalFlip(p=1.0), T.ConvertBoundingBoxFormat("CXCYWH")])],
    T.Identity: [{}],
    T.ConvertBoundingBoxFormat: [dict(format="XYWH"), dict(format=BoundingBoxFormat.CXCYWH)],
    T.ClampBoundingBox: [{}],
    T.ToDtype: [dict(dtype=torch.float32, scale=True), dict(dtype={Image: torch.float64, Mask: torch.int64, "others": None})],
    T.ConvertDtype: [dict(dtype=torch.float64)],
    T.PILToTensor: [{}],
    T.ToImageTensor: [{}],
    T.ToImagePIL: [Case({}, types=ALL_BUT_IMAGE)],
}
COVERED = {"Lambda", "ToPureTensor", "ConvertImageDtype", "ToPILImage"}


class _Recorder(T.Transform):
    """Records which leaves it saw and the params of the call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return {"draw": torch.rand(()).item(), "count": len(flat_inputs)}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        self.calls.append(params["count"])
        return ("seen", inpt, params["draw"])


# ----------------------------------------------------------------------------------- Transform base
def test_one_draw_per_call_shared_by_every_leaf() -> None:
    t = _Recorder()
    image, mask, boxes = make_image(), make_mask(), make_bounding_box()
    out = t({"a": image, "b": [mask, (boxes, 3)]})
    draws = {out["a"][2], out["b"][0][2], out["b"][1][0][2]}
    assert len(draws) == 1 and out["b"][1][1] == 3
    assert t.calls == [3, 3, 3]


def test_plain_tensor_rule() -> None:
    t = _Recorder()
    first, second = make_image_tensor(), make_image_tensor(seed=1)
    out = t(first, second)
    assert out[0][0] == "seen" and out[1] is second  # only the first plain tensor is the image
    image = make_image()
    out = t(image, first)
    assert out[0][0] == "seen" and out[1] is first  # next to an Image, plain tensors pass through
    out = t(make_image_pil(), first)
    assert out[1] is first
    out = t(make_mask(), first)
    assert out[1][0] == "seen"  # a mask is not an image: the plain tensor is


def test_single_input_is_not_wrapped_in_a_tuple() -> None:
    image = make_image()
    assert type(T.RandomHorizontalFlip(p=1.0)(image)) is Image
    out = T.RandomHorizontalFlip(p=1.0)(image, 5)
    assert isinstance(out, tuple) and out[1] == 5


def test_spatial_sizes_must_agree() -> None:
    t = T.RandomHorizontalFlip(p=1.0)
    with pytest.raises(ValueError, match="H x W|agree"):
        t(make_image((5, 6)), make_mask((5, 7)))
    with pytest.raises(ValueError, match="H x W|agree"):
        t(make_image((5, 6)), make_bounding_box((6, 5)))
    t(make_image((5, 6)), make_bounding_box((5, 6)), make_mask((5, 6)))


def test_p_transforms_flip_one_coin_for_the_whole_sample() -> None:
    t = T.RandomHorizontalFlip(p=0.5)
    image, mask = make_image(), Mask(make_image()[0])
    flipped = set()
    for seed in range(20):
        torch.manual_seed(seed)
        out_image, out_mask = t(image, mask)
        same = torch.equal(unwrap(out_image)[0], unwrap(out_mask))
        assert same  # image and mask always move together
        flipped.add(torch.equal(unwrap(out_image), unwrap(image)))
    assert flipped == {True, False}
    with pytest.raises(ValueError, match="p"):
        T.RandomHorizontalFlip(p=1.5)


def test_module_hooks_still_run_around_the_short_call() -> None:
    # Transform.__call__ skips nn.Module's call machinery unless a hook (own or global) is registered
    flip, image = T.RandomHorizontalFlip(p=1.0), make_image((4, 5))
    seen = []
    handle = flip.register_forward_pre_hook(lambda module, args: seen.append(("pre", len(args))))
    hook = flip.register_forward_hook(lambda module, args, out: seen.append(("post", type(out))))
    assert_equal(flip(image), F.horizontal_flip(image))
    handle.remove()
    hook.remove()
    assert seen == [("pre", 1), ("post", type(image))]
    global_hook = torch.nn.modules.module.register_module_forward_hook(lambda m, a, o: seen.append("global"))
    try:
        flip(image)
    finally:
        global_hook.remove()
    flip(image)
    assert seen[2:] == ["global"]
    with pytest.raises(TypeError):
        flip(image, unexpected=1)


def test_transform_without_override_raises_type_error() -> None:
    with pytest.raises(TypeError, match="override"):
        T.Transform()(make_image())


def test_repr_and_pickle() -> None:
    t = T.Compose([T.RandomHorizontalFlip(p=0.3), T.ToDtype(torch.float32, scale=True)])
    text = repr(t)
    assert "RandomHorizontalFlip(p=0.3)" in text and "ToDtype" in text and "scale=True" in text
    assert repr(pickle.loads(pickle.dumps(t))) == text


def test_inputs_are_never_mutated() -> None:
    image, boxes = make_image(), make_bounding_box()
    before = (image.clone(), boxes.clone())
    T.Compose([T.RandomHorizontalFlip(p=1.0), T.ClampBoundingBox(), T.ToDtype(torch.float32, scale=True)])(image, boxes)
    assert_equal(image, before[0])
    assert_equal(boxes, before[1])


# -------------------------------------------------------------------------------------- containers
def test_compose_applies_in_order_and_keeps_structure() -> None:
    image = make_image()
    out = T.Compose([T.ToDtype(torch.float32, scale=True), T.RandomHorizontalFlip(p=1.0)])({"x": [image]})
    assert_equal(out["x"][0], F.horizontal_flip(unwrap(image)).float() / 255, atol=1e-6, rtol=0)
    with pytest.raises(TypeError, match="transforms"):
        T.Compose(T.RandomHorizontalFlip())
    with pytest.raises(TypeError, match="callables"):
        T.Compose([1])


def test_random_apply_random_choice_random_order() -> None:
    image = make_image()
    outcomes = set()
    for seed in range(20):
        torch.manual_seed(seed)
        outcomes.add(torch.equal(unwrap(T.RandomApply([T.RandomHorizontalFlip(p=1.0)], p=0.5)(image)), unwrap(image)))
    assert outcomes == {True, False}
    with pytest.raises(ValueError, match="p"):
        T.RandomApply([T.Identity()], p=-0.1)
    from_module_list = T.RandomApply(torch.nn.ModuleList([T.RandomHorizontalFlip(p=1.0)]), p=1.0)  # as torchvision's
    assert_equal(from_module_list(image), F.horizontal_flip(image))
    assert T.from_dict(from_module_list.to_dict()).transforms[0].p == 1.0

    choice = T.RandomChoice([T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=1.0)], p=[0, 1])
    assert_equal(choice(image), F.vertical_flip(image))
    with pytest.raises(ValueError, match="p"):
        T.RandomChoice([T.Identity()], p=[1, 2])
    with pytest.raises(ValueError, match="p"):
        T.RandomChoice([T.Identity()], p=[-1])

    record: list[str] = []
    order = T.RandomOrder([T.Lambda(lambda x: record.append("a") or x), T.Lambda(lambda x: record.append("b") or x)])
    seen = set()
    for seed in range(10):
        record.clear()
        torch.manual_seed(seed)
        order(1)
        seen.add(tuple(record))
    assert seen == {("a", "b"), ("b", "a")}


# ------------------------------------------------------------------------------- misc / meta / dtype
def test_identity_returns_same_objects_and_lambda_filters_types() -> None:
    image, boxes = make_image(), make_bounding_box()
    out = T.Identity()(image, boxes)
    assert out[0] is image and out[1] is boxes
    out = T.Lambda(lambda x: x + 1, int)(3, "s", 2.5)
    assert out == (4, "s", 2.5)
    # plain tensors follow the plain-tensor rule, as torchvision's Lambda: the first one, with no image beside it
    plus = T.Lambda(lambda x: x + 100, torch.Tensor)
    assert [t.item() for t in plus(torch.ones(1), torch.ones(1))] == [101.0, 1.0]
    out = plus(image, 5, torch.ones(1))
    assert torch.equal(out[0], image + 100) and out[1] == 5 and out[2].item() == 1.0
    with pytest.raises(TypeError, match="lambd"):
        T.Lambda(3)


def test_convert_box_format_and_clamp_transforms_touch_only_boxes() -> None:
    image, boxes = make_image(), make_bounding_box(format="XYXY")
    out_image, out_boxes = T.ConvertBoundingBoxFormat("cxcywh")(image, boxes)
    assert out_image is image and out_boxes.format == BoundingBoxFormat.CXCYWH
    assert_equal(out_boxes, F.convert_format_bounding_box(boxes, new_format="CXCYWH"))
    outside = BoundingBox([[-5, -5, 50, 50]], format="XYXY", spatial_size=(10, 20))
    assert T.ClampBoundingBox()(outside).tolist() == [[0, 0, 20, 10]]


def test_to_dtype_single_dtype_and_dict() -> None:
    image, video, mask, boxes, plain = make_image(), make_video(), make_mask(), make_bounding_box(), torch.tensor([1, 2])
    out = T.ToDtype(torch.float32, scale=True)(image, video, mask, boxes, plain)
    assert out[0].dtype == torch.float32 and out[1].dtype == torch.float32 and out[0].max() <= 1
    assert out[2] is mask and out[3] is boxes and out[4] is plain
    t = T.ToDtype({Image: torch.float64, Mask: torch.int64, "others": torch.float16})
    out = t(image, mask, boxes, video)
    assert [o.dtype for o in out] == [torch.float64, torch.int64, torch.float16, torch.float16]
    assert type(out[1]) is Mask and torch.equal(unwrap(out[1]), unwrap(mask).long())
    out = T.ToDtype({Image: torch.float32, "others": None}, scale=True)(make_image_tensor())
    assert out.dtype == torch.float32 and out.max() <= 1  # a plain-tensor image follows Image
    with pytest.raises(TypeError, match="dtype"):
        T.ToDtype("float32")
    with pytest.raises(TypeError, match="dtype"):
        T.ToDtype({Image: "float32"})


def test_to_dtype_dict_without_an_entry_for_a_leaf_raises_as_torchvision() -> None:
    image, mask, labels = make_image(), make_mask(), torch.tensor([1, 2])
    with pytest.raises(ValueError, match="no entry for Mask and no 'others' key"):
        T.ToDtype({Image: torch.float32, Video: torch.float32}, scale=True)(image, mask, labels)
    out = T.ToDtype({Image: torch.float32, "others": None}, scale=True)(image, mask, labels)
    assert out[0].dtype == torch.float32 and out[1] is mask and out[2] is labels
    out = T.ToDtype({Image: torch.float32}, scale=True)(image, labels)  # labels beside an image are not converted
    assert out[0].dtype == torch.float32 and out[1] is labels


def test_to_dtype_transform_matches_torchvision() -> None:
    tv_t = pytest.importorskip("torchvision.transforms.v2")
    image = make_image_tensor()
    assert_equal(T.ToDtype(torch.float32, scale=True)(image), tv_t.ToDtype(torch.float32, scale=True)(image))
    assert_equal(T.ConvertImageDtype(torch.float64)(image), tv_t.ConvertImageDtype(torch.float64)(image))


def test_convert_dtype_alias() -> None:
    assert T.ConvertImageDtype is T.ConvertDtype
    out = T.ConvertDtype()(make_image(), make_mask())
    assert out[0].dtype == torch.float32 and out[1].dtype == torch.uint8


# ---------------------------------------------------------------------------------- type conversion
def test_type_conversion_transforms() -> None:
    pil, mask = make_image_pil(), make_mask()
    tensor = T.PILToTensor()(pil)
    assert type(tensor) is torch.Tensor and torch.equal(tensor, F.pil_to_tensor(pil))
    image, out_mask = T.ToImageTensor()(pil, mask)
    assert type(image) is Image and out_mask is mask
    array = np.zeros((4, 5, 3), dtype=np.uint8)
    assert type(T.ToImageTensor()(array)) is Image
    labels = np.arange(3)
    out = T.ToImageTensor()(pil, labels)
    assert out[1] is labels
    back = T.ToImagePIL()(make_image())
    assert isinstance(back, PIL.Image.Image)
    assert T.ToPILImage is T.ToImagePIL
    assert T.ToImagePIL(mode="L")(make_image()).mode == "L"
    pure = T.ToPureTensor()({"i": make_image(), "b": make_bounding_box(), "n": 3})
    assert type(pure["i"]) is torch.Tensor and type(pure["b"]) is torch.Tensor and pure["n"] == 3


# ----------------------------------------------------------------------------------- author helpers
def test_query_helpers() -> None:
    image, boxes, mask = make_image((5, 6), channels=1), make_bounding_box((5, 6)), make_mask((5, 6))
    flat = [image, boxes, mask, "x"]
    assert U.query_size(flat) == (5, 6)
    assert U.query_chw(flat) == (1, 5, 6)
    assert U.has_any(flat, BoundingBox) and not U.has_any(flat, Video)
    assert U.has_all(flat, Image, Mask) and not U.has_all(flat, Image, Video)
    assert U.has_any(flat, lambda x: isinstance(x, str))
    assert U.get_bounding_boxes(flat) is boxes
    with pytest.raises(ValueError, match="BoundingBox"):
        U.get_bounding_boxes([image])
    with pytest.raises(TypeError, match="size"):
        U.query_size(["x", 1])
    with pytest.raises(TypeError, match="image"):
        U.query_chw([mask])
    with pytest.raises(ValueError, match="agree"):
        U.query_chw([make_image((5, 6)), make_image((5, 7))])
    assert U.is_pure_tensor(torch.zeros(1)) and not U.is_pure_tensor(image)


def test_fill_setup() -> None:
    assert _args.setup_fill_arg(3) == {"others": 3}
    assert _args.setup_fill_arg([1, 2, 3]) == {"others": [1, 2, 3]}
    fill = _args.setup_fill_arg({Image: (1.0, 2, 3), Mask: 255})
    assert fill == {Image: [1.0, 2.0, 3.0], Mask: 255, "others": 0}
    assert _args.get_fill(fill, Image) == [1.0, 2.0, 3.0]
    assert _args.get_fill(fill, BoundingBox) == 0

    class MyImage(Image):
        pass

    assert _args.get_fill(fill, MyImage) == [1.0, 2.0, 3.0]
    with pytest.raises(TypeError, match="fill"):
        _args.setup_fill_arg("white")
    with pytest.raises(TypeError, match="fill keys"):
        _args.setup_fill_arg({"image": 1})
    with pytest.raises(TypeError, match="fill"):
        _args.setup_fill_arg({Image: [1, "a"]})


def test_interpolation_mode_accepts_strings_and_pil_codes() -> None:
    mode = T.InterpolationMode
    assert mode.parse("bilinear") is mode.BILINEAR and mode.parse("NEAREST") is mode.NEAREST
    assert mode.parse(PIL.Image.Resampling.BICUBIC) is mode.BICUBIC
    assert mode.parse(mode.BICUBIC) is mode.BICUBIC
    with pytest.raises(ValueError, match="interpolation"):
        mode.parse("cubic-ish")


class _WrapsEveryLeaf(T.Transform):
    """A broken transform: it replaces the leaves it should have left alone."""

    def _needs_transform_list(self, flat_inputs: list[Any]) -> list[bool]:
        return [True] * len(flat_inputs)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return inpt if isinstance(inpt, torch.Tensor) else [inpt]


def test_check_transform_catches_a_transform_that_replaces_leaves() -> None:
    with pytest.raises(AssertionError, match="untouched|structure"):
        check_transform(_WrapsEveryLeaf(), make_image())


def test_scalar_draws_match_torch_calls_under_the_same_seed() -> None:
    from visiontx.transforms import _random

    torch.manual_seed(7)
    expected = [
        torch.rand(1).item(),
        torch.empty(1).uniform_(0.25, 3.5).item(),
        int(torch.randint(0, 277, ())),
        int(torch.randint(5, 9, ())),
        int(torch.randint(0, 2**40, ())),
        torch.exp(torch.empty(1).uniform_(-0.29, 0.29)).item(),
        torch.rand(1).item(),
    ]
    torch.manual_seed(7)
    got = [_random.rand(), _random.uniform(0.25, 3.5), _random.randint(277), _random.randint(5, 9), _random.randint(2**40),
           _random.exp_uniform(-0.29, 0.29), _random.rand()]
    assert got == expected


def test_exp_uniform_draws_from_the_current_generator() -> None:
    from visiontx.transforms import _random

    expected_generator = torch.Generator().manual_seed(3)
    expected = [torch.exp(torch.empty(1).uniform_(-1.5, 0.5, generator=expected_generator)).item() for _ in range(20)]
    state = torch.get_rng_state()
    with _random.using(torch.Generator().manual_seed(3)):
        got = [_random.exp_uniform(-1.5, 0.5) for _ in range(20)]
    assert got == expected and torch.equal(torch.get_rng_state(), state)


def test_random_resized_crop_draws_torchvisions_regions() -> None:
    """The float32 aspect ratio (``exp_uniform``) keeps torchvision's regions, rejected draws included."""
    tv = pytest.importorskip("torchvision.transforms.v2")
    image = torch.zeros(3, 60, 90, dtype=torch.uint8)
    for kwargs in ({}, {"scale": (0.5, 1.0), "ratio": (0.3, 3.0)}):
        ours, theirs = T.RandomResizedCrop(16, **kwargs), tv.RandomResizedCrop(16, **kwargs)
        for seed in range(300):
            torch.manual_seed(seed)
            got = ours.make_params([image])
            torch.manual_seed(seed)
            assert got == theirs.make_params([image]), seed


def test_scalar_draws_use_one_scratch_tensor_per_thread() -> None:
    import threading

    from visiontx.transforms import _random

    _random.rand()
    seen = []
    thread = threading.Thread(target=lambda: seen.append((_random.rand(), _random._scratch.float.data_ptr())))
    thread.start()
    thread.join()
    assert 0.0 <= seen[0][0] < 1.0
    assert seen[0][1] != _random._scratch.float.data_ptr()


def test_scalar_draws_work_in_and_out_of_inference_mode() -> None:
    import threading

    from visiontx.transforms import _random

    errors = []

    def first_draw_in_inference_mode() -> None:
        try:
            with torch.inference_mode():
                _random.rand()
            _random.rand(), _random.randint(3)
        except RuntimeError as error:
            errors.append(error)

    thread = threading.Thread(target=first_draw_in_inference_mode)
    thread.start()
    thread.join()
    assert errors == []


def test_peek_looks_ahead_and_skip_consumes_like_rand() -> None:
    from visiontx.transforms import _random

    torch.manual_seed(7)
    one_by_one = torch.cat([torch.rand(2) for _ in range(30)])
    after_all = torch.get_rng_state()
    torch.manual_seed(7)
    with torch.inference_mode():
        ahead = _random.peek(60)
        assert torch.equal(ahead, one_by_one) and not ahead.is_inference()
        assert torch.equal(_random.peek(60), one_by_one)  # nothing was consumed
        _random.skip(36)
    assert torch.equal(torch.rand(24), one_by_one[36:])
    assert torch.equal(torch.get_rng_state(), after_all)


def test_is_number_takes_reals_and_refuses_bools() -> None:
    from fractions import Fraction

    from visiontx._args import is_number

    class Real(float):
        pass

    numbers_ = [1, -2.5, float("nan"), np.float32(1), np.int64(2), Fraction(1, 2), Real(3.0)]
    others = [True, False, np.bool_(True), "1", None, 1j, [1], torch.tensor(1.0)]
    assert all(is_number(v) for v in numbers_)
    assert not any(is_number(v) for v in others)
