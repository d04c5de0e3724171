"""PerSample on CPU keeps the per-image outputs of its stages as Pieces and stacks once: the same draws,
outputs, records and errors as stacking after every stage."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Image, Mask
from visiontx.functional import _cv2
from visiontx.transforms._per_sample import _batch, _core

from .common import assert_equal, make_bounding_box, make_image_tensor, make_mask

B = 6
SIZE = (30, 34)
PIPELINE = [T.RandomResizedCrop((28, 32)), T.RandomHorizontalFlip(), T.ColorJitter(0.4, 0.4, 0.4, 0.1),
            T.RandomAffine(15, translate=(0.1, 0.1))]

needs_wing = pytest.mark.skipif(not _cv2.available(), reason="the per-image road is the OpenCV wing's")


def _images(dtype: torch.dtype) -> Image:
    return Image(make_image_tensor(SIZE, batch_dims=(B,), dtype=dtype, seed=5))


def _mask() -> Mask:
    return Mask(make_mask(SIZE, batch_dims=(B,)))


def _boxes() -> list[BoundingBox]:
    return [make_bounding_box(SIZE, num_boxes=2) for _ in range(B)]


def _stacking_every_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    """The former road: every stage's per-image outputs stacked at once."""
    monkeypatch.setattr(_core, "pieces", lambda outputs, name: _batch._stack(outputs, name))
    monkeypatch.setattr(_batch, "pieces", lambda outputs, name: _batch._stack(outputs, name))


def _run(transform: Any, inputs: tuple[Any, ...]) -> tuple[Any, list[str]]:
    torch.manual_seed(7)
    output, record = T.PerSample(transform).forward_with_params(*inputs)
    return output, [repr(record.params(i)) for i in range(B)]


def _assert_same(a: Any, b: Any) -> None:
    if isinstance(a, torch.Tensor):
        assert type(a) is type(b) and a.dtype == b.dtype
        assert_equal(a.as_subclass(torch.Tensor), b.as_subclass(torch.Tensor))
    elif isinstance(a, list | tuple):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    else:
        assert a == b


CASES = [
    T.Compose(PIPELINE),
    T.Compose([*PIPELINE[:2], T.RandomChannelPermutation(), T.RandomApply([T.RandomInvert(p=1.0), T.RandomAffine(5)]),
               T.RandomChoice([T.RandomRotation(10), T.RandomVerticalFlip(p=1.0)]), T.GaussianBlur(3),
               T.RandomOrder([T.RandomAffine(8), T.ColorJitter(0.3)]), T.Resize((20, 21)), T.RandomPerspective()]),
    T.Compose([T.RandomHorizontalFlip(), T.RandomAffine(10), T.RandomResizedCrop((24, 24)), T.ColorJitter(0.3)],
              fuse_geometry=True),
]


@needs_wing
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("with_targets", [False, True])
def test_pieces_give_what_stacking_every_stage_gives(
    case: int, dtype: torch.dtype, with_targets: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    transform = CASES[case]
    inputs: tuple[Any, ...] = (_images(dtype), _mask(), _boxes()) if with_targets else (_images(dtype),)
    output, params = _run(transform, inputs)
    _stacking_every_stage(monkeypatch)
    expected, expected_params = _run(transform, inputs)
    _assert_same(output, expected)
    assert params == expected_params


@needs_wing
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_a_pipeline_of_per_image_stages_stacks_each_leaf_once(
    dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    stacks: list[tuple[int, ...]] = []
    stack = torch.stack

    def counting(tensors: Any, *args: Any, **kwargs: Any) -> torch.Tensor:
        out = stack(tensors, *args, **kwargs)
        if tuple(out.shape[-2:]) == (28, 32) and out.shape[0] == B:  # batches of images or masks, not grids
            stacks.append(tuple(out.shape))
        return out

    monkeypatch.setattr(torch, "stack", counting)
    images, mask = _images(dtype), _mask()
    out_images, out_mask = T.PerSample(T.Compose(PIPELINE))(images, mask)
    assert stacks == [(B, 3, 28, 32), (B, 2, 28, 32)]  # once each, at the end (the mask has 2 objects)
    assert out_images.shape == (B, 3, 28, 32) and out_mask.shape == (B, 2, 28, 32)
    assert type(out_images) is Image and type(out_mask) is Mask


@needs_wing
def test_the_output_does_not_share_memory_with_the_input() -> None:
    images = _images(torch.uint8)
    original = images.clone()
    output = T.PerSample(T.Compose([T.RandomHorizontalFlip(p=0.0), T.RandomInvert(p=0.0)]))(images)
    assert_equal(output, original)
    output.as_subclass(torch.Tensor)[0].zero_()
    assert_equal(images, original)


@pytest.mark.parametrize("wing", [True, False])
def test_different_shapes_still_raise_at_the_stage_that_made_them(wing: bool) -> None:
    if wing and not _cv2.available():
        pytest.skip("the per-image road is the OpenCV wing's")
    stages = [T.RandomHorizontalFlip(), T.RandomRotation(40, expand=True), T.ColorJitter(0.3)]
    transform = T.PerSample(T.Compose(stages))
    torch.manual_seed(0)
    message = r"PerSample\(RandomRotation\) gave the samples of one batch different shapes"
    with pytest.raises(ValueError, match=message):
        if wing:
            transform(_images(torch.uint8))
        else:
            with _cv2.disabled():
                transform(_images(torch.uint8))
    looping = T.PerSample(T.Compose([T.RandomHorizontalFlip(), T.RandomShortestSize([10, 20, 30])]))
    with pytest.raises(ValueError, match=r"PerSample\(RandomShortestSize\) gave the samples .* different shapes"):
        looping(_images(torch.float32))
