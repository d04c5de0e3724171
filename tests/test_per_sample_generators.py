"""T.PerSample with generators inside: a wrapped transform's own ``generator=``, a seeded ``Compose`` and
``RandomOrder``'s per-sample loop draw from their generator and never from torch's global RNG; and
``RandomOrder`` over transforms that change the size loops instead of refusing the batch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Image

from .common import make_image_tensor

B = 4


def _batch() -> Image:
    return Image(make_image_tensor((24, 28), batch_dims=(B,), dtype=torch.uint8, seed=1))


def _touches_global_rng(call: Callable[[], Any]) -> bool:
    torch.manual_seed(0)
    state = torch.get_rng_state()
    call()
    return not torch.equal(state, torch.get_rng_state())


def _seeded(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


PIPELINES = {
    "own generator, loop": lambda: T.PerSample(T.RandomChannelPermutation(generator=_seeded(1))),
    "own generator, vectorised": lambda: T.PerSample(T.RandomCrop(16, generator=_seeded(1))),
    "seeded Compose": lambda: T.PerSample(T.Compose([T.RandomHorizontalFlip(), T.ColorJitter(0.5)], seed=3)),
    "seeded Compose, fused": lambda: T.PerSample(
        T.Compose([T.RandomRotation(20), T.RandomResizedCrop(16)], fuse_geometry=True, seed=3)
    ),
    "RandomOrder loop": lambda: T.PerSample(
        T.RandomOrder([T.RandomChannelPermutation(), T.RandomHorizontalFlip()]), generator=_seeded(2)
    ),
}


@pytest.mark.parametrize("name", PIPELINES)
def test_generator_inside_per_sample_leaves_the_global_rng_alone(name: str) -> None:
    batch = _batch()
    assert not _touches_global_rng(lambda: PIPELINES[name]()(batch))


@pytest.mark.parametrize("name", PIPELINES)
def test_generator_inside_per_sample_reproduces_the_output(name: str) -> None:
    batch = _batch()
    torch.manual_seed(5)
    first = PIPELINES[name]()(batch)
    torch.manual_seed(99)
    again = PIPELINES[name]()(batch)
    assert torch.equal(first, again)


def test_random_order_over_size_changing_transforms_loops() -> None:
    batch = _batch()
    transform = T.PerSample(T.RandomOrder([T.RandomCrop(16), T.RandomHorizontalFlip(p=1.0)]))
    out, record = transform.forward_with_params(batch)
    assert out.shape == (B, 3, 16, 16)
    for i in range(B):
        image = Image(batch[i])
        for j, params in record.params(i):
            step = transform.wrapped.transforms[j]
            image = step.transform(image, params) if params is not None else image
        assert torch.equal(out[i], image)


def test_random_order_over_size_changing_transforms_with_boxes() -> None:
    batch = _batch()
    boxes = [BoundingBox(torch.tensor([[2.0, 3.0, 10.0, 12.0]]), format=BoundingBoxFormat.XYXY, spatial_size=(24, 28))
             for _ in range(B)]
    transform = T.PerSample(T.RandomOrder([T.CenterCrop(20), T.RandomAffine(10)]))
    images, out_boxes = transform(batch, boxes)
    assert images.shape == (B, 3, 20, 20)
    assert all(tuple(b.spatial_size) == (20, 20) for b in out_boxes)


def test_own_generator_inside_a_fused_per_sample_run() -> None:
    batch = _batch()

    def pipeline() -> T.PerSample:
        return T.PerSample(T.Compose(
            [T.RandomRotation(20, generator=_seeded(4)), T.RandomResizedCrop(16, generator=_seeded(5))],
            fuse_geometry=True,
        ))

    assert not _touches_global_rng(lambda: pipeline()(batch))
    torch.manual_seed(1)
    first = pipeline()(batch)
    torch.manual_seed(2)
    assert torch.equal(first, pipeline()(batch))


@pytest.mark.parametrize("value", [0, "random"])
def test_erasing_with_per_sample_targets_holding_labels(value: Any) -> None:
    """A target dict's labels are no image (the sample holds an Image), for the batch as for one sample."""
    batch = _batch()
    targets = [{"labels": torch.tensor([i])} for i in range(B)]
    transform = T.RandomErasing(p=1.0, value=value)
    (images, out_targets), record = T.PerSample(transform).forward_with_params(batch, targets)
    for i in range(B):
        params = record.params(i)
        assert params["h"] < 24  # a rectangle was erased
        assert torch.equal(images[i], transform.transform(Image(batch[i]), params))
        assert torch.equal(out_targets[i]["labels"], torch.tensor([i]))


def test_random_order_loop_unpacks_several_inputs_for_plain_callables() -> None:
    """As the single RandomOrder: called with (images, boxes), a function in it gets them unpacked."""
    batch = _batch()
    boxes = [BoundingBox(torch.tensor([[2.0, 3.0, 10.0, 12.0]]), format="XYXY", spatial_size=(24, 28)) for _ in range(B)]

    def shift(image: Any, box: Any) -> tuple[Any, Any]:
        return image, BoundingBox.wrap_like(box, box.as_subclass(torch.Tensor) + 1)

    images, out_boxes = T.PerSample(T.RandomOrder([shift, T.RandomHorizontalFlip(p=1.0)]))(batch, boxes)
    assert torch.equal(images, batch.flip(-1))
    for box in out_boxes:  # the shift reached every sample: y (which the flip keeps) moved by 1
        assert box[0, 1] == 4.0 and box[0, 3] == 13.0
