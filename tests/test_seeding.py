"""generator= / Compose(seed=): seeded pipelines draw only from their generator (the global RNG is unchanged)
and give torch.manual_seed's draws; datasets.Augmented: the same (seed, epoch, index) gives the same output
with any number of DataLoader workers, batch size and order, and after a restart."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader

import visiontx.transforms as T
from visiontx.datasets import Augmented, sample_seed
from visiontx.transforms import _random
from visiontx.transforms._arguments import call_arguments

from .common import assert_equal, make_image
from .transform_examples import built, run_seeded, examples


def _call(transform: Any, sample: Any) -> Any:
    return transform(*sample) if isinstance(sample, tuple) else transform(sample)


@pytest.mark.parametrize(("make", "make_sample"), examples())
def test_seeded_pipelines_draw_from_their_generator_only(make: Callable[[], Any], make_sample: Callable[[], Any]
                                                          ) -> None:
    """For every public transform: ``Compose([t], seed=s)`` and ``t`` built with ``generator=`` give the
    outputs of ``torch.manual_seed(s); t(sample)`` (the same stream), and leave the global RNG as it was."""
    sample = make_sample()
    expected = run_seeded(built(make), sample, seed=5)
    torch.manual_seed(123)
    state = torch.get_rng_state()
    seeded = built(lambda: T.Compose([make()], seed=5))
    assert_equal(_call(seeded, sample), expected)
    assert torch.equal(torch.get_rng_state(), state), "a seeded Compose touched the global RNG"
    transform = built(make)
    if transform.generator is None:  # (the Nested example is a seeded Compose already)
        positional, keywords = call_arguments(type(transform), transform._constructor_arguments())
        own = built(lambda: type(transform)(*positional, **keywords, generator=torch.Generator().manual_seed(5)))
        assert_equal(_call(own, sample), expected)
        assert torch.equal(torch.get_rng_state(), state), "a transform with generator= touched the global RNG"


def test_runs_repeat_and_calls_continue_the_stream() -> None:
    image = make_image((32, 32))
    pipeline = lambda: T.Compose([T.RandomResizedCrop(16), T.ColorJitter(0.5, 0.5, 0.5, 0.1)], seed=11)  # noqa: E731
    first, second = pipeline(), pipeline()
    outputs = [first(image) for _ in range(3)]
    assert all(torch.equal(a, second(image)) for a in outputs)  # a second run: the same three outputs
    assert not torch.equal(outputs[0], outputs[1])  # the generator goes on between calls
    other = T.Compose([T.RandomResizedCrop(16), T.ColorJitter(0.5, 0.5, 0.5, 0.1)], seed=12)(image)
    assert not torch.equal(other, outputs[0])


def test_own_generator_beats_the_composes_and_the_global_rng_is_left_alone() -> None:
    """A child with its own generator draws from it; its siblings from the Compose's (or the global RNG)."""
    image = make_image((16, 16))
    flip = lambda g=None: T.RandomHorizontalFlip(p=0.5, generator=g)  # noqa: E731
    draws = torch.rand(8, generator=torch.Generator().manual_seed(3))
    own = flip(torch.Generator().manual_seed(3))
    for draw in draws.tolist():  # a new seeded Compose each time: the flip's own generator goes on
        expected = image.flip(-1) if draw < 0.5 else image
        assert torch.equal(T.Compose([own], seed=0)(image), expected)
    # unseeded Compose: the generator-less child takes the global RNG, the other one its own generator
    torch.manual_seed(0)
    global_draw = torch.rand(1).item()
    torch.manual_seed(0)
    mixed = T.Compose([T.RandomVerticalFlip(p=0.5), flip(torch.Generator().manual_seed(3))])
    output = mixed(image)
    expected = image.flip(-2) if global_draw < 0.5 else image
    expected = expected.flip(-1) if draws[0] < 0.5 else expected
    assert torch.equal(output, expected)


def test_fused_runs_draw_each_transforms_own_generator() -> None:
    image = make_image((24, 24))
    state = torch.get_rng_state()
    angles: list[float] = []

    class Recording(T.RandomRotation):
        def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
            params = super().make_params(flat_inputs)
            angles.append(params["angle"])
            return params

    for fuse in (True, False):
        T.Compose([Recording(30, generator=torch.Generator().manual_seed(1)), T.RandomAffine(10)], fuse_geometry=fuse,
                  seed=2)(image)
    expected = torch.empty(1).uniform_(-30, 30, generator=torch.Generator().manual_seed(1)).item()
    assert angles == [expected, expected]
    assert torch.equal(torch.get_rng_state(), state)


def test_generator_argument_is_checked_and_visible() -> None:
    import inspect

    assert inspect.signature(T.RandomCrop).parameters["generator"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "seed" in inspect.signature(T.Compose).parameters
    with pytest.raises(TypeError, match="generator must be a torch.Generator"):
        T.RandomCrop(4, generator=0)
    with pytest.raises(TypeError, match="seed must be an int"):
        T.Compose([], seed=1.5)
    with pytest.raises(ValueError, match="seed must be in"):
        T.Compose([], seed=-1)
    with pytest.raises(ValueError, match="not both"):
        T.Compose([], seed=1, generator=torch.Generator())
    if torch.cuda.is_available():
        with pytest.raises(ValueError, match="CPU"):
            T.RandomCrop(4, generator=torch.Generator(device="cuda"))


def test_current_generator_is_per_thread() -> None:
    image = make_image((32, 32))
    pipeline = T.Compose([T.RandomResizedCrop(8), T.ColorJitter(0.4, 0.4)], seed=4)
    expected = T.Compose([T.RandomResizedCrop(8), T.ColorJitter(0.4, 0.4)], seed=4)(image)
    seen: list[Any] = []

    def other_thread() -> None:
        seen.append(_random.current_generator())

    with _random.using(torch.Generator()):
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    assert seen == [None] and _random.current_generator() is None
    outputs: list[torch.Tensor] = []
    thread = threading.Thread(target=lambda: outputs.append(pipeline(image)))
    thread.start()
    thread.join()
    assert torch.equal(outputs[0], expected)


def test_unseeded_draws_keep_torchvisions_stream() -> None:
    """No generator anywhere: the global RNG, as before (the draws of torch.manual_seed's stream)."""
    tv = pytest.importorskip("torchvision.transforms.v2")
    image = make_image((32, 32))
    for ours, theirs in [
        (T.RandomResizedCrop(16), tv.RandomResizedCrop(16)),
        (T.RandomChoice([T.RandomHorizontalFlip(1.0), T.RandomVerticalFlip(1.0)], p=[0.3, 0.7]),
         tv.RandomChoice([tv.RandomHorizontalFlip(1.0), tv.RandomVerticalFlip(1.0)], p=[0.3, 0.7])),
        (T.RandomOrder([T.RandomHorizontalFlip(1.0), T.RandomCrop(20)]),
         tv.RandomOrder([tv.RandomHorizontalFlip(1.0), tv.RandomCrop(20)])),
        (T.RandomZoomOut(p=1.0), tv.RandomZoomOut(p=1.0)),
        (T.ScaleJitter((24, 24)), tv.ScaleJitter((24, 24))),
    ]:
        for seed in range(3):
            torch.manual_seed(seed)
            a = ours(image)
            torch.manual_seed(seed)
            b = theirs(image.as_subclass(torch.Tensor))
            assert a.shape == b.shape, type(ours).__name__


@pytest.mark.parametrize("size", [(32, 32), (31, 47), (300, 200)])
def test_crop_and_perspective_draws_are_torchvisions(size) -> None:
    """The positions drawn in one call for several ints (``_random.randints``) are torchvision's draw-by-draw ones,
    and leave the global RNG where torchvision leaves it."""
    tv = pytest.importorskip("torchvision.transforms.v2")
    from torchvision import tv_tensors
    from torchvision.transforms.functional import _get_perspective_coeffs

    image = make_image(size)
    keys = {"RandomCrop": ("top", "left"), "RandomResizedCrop": ("top", "left", "height", "width"),
            "RandomErasing": ("i", "j", "h", "w")}
    for ours, theirs in [
        (T.RandomCrop(16), tv.RandomCrop(16)),
        (T.RandomResizedCrop(16), tv.RandomResizedCrop(16)),
        (T.RandomErasing(p=1.0), tv.RandomErasing(p=1.0)),
        (T.RandomPerspective(0.7, p=1.0), tv.RandomPerspective(0.7, p=1.0)),
    ]:
        name = type(ours).__name__
        for seed in range(10):
            torch.manual_seed(seed)
            a, after_a = ours.make_params([image]), torch.rand(1)
            torch.manual_seed(seed)
            b, after_b = theirs.make_params([tv_tensors.Image(image.as_subclass(torch.Tensor))]), torch.rand(1)
            assert torch.equal(after_a, after_b), name
            if name == "RandomPerspective":
                assert _get_perspective_coeffs(a["startpoints"], a["endpoints"]) == b["coefficients"], seed
            else:
                assert [a[k] for k in keys[name]] == [b[k] for k in keys[name]], (name, seed)


# ------------------------------------------------------------------------------------ Augmented
class _Tiny(torch.utils.data.Dataset):
    """8 small images, with their index as the label."""

    def __init__(self) -> None:
        generator = torch.Generator().manual_seed(0)
        self.images = [torch.randint(0, 256, (3, 12, 12), dtype=torch.uint8, generator=generator) for _ in range(8)]

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        return self.images[index], index


def _pipeline() -> T.Compose:
    return T.Compose([
        T.RandomResizedCrop(8, scale=(0.3, 1.0)),
        T.RandomHorizontalFlip(),
        T.ColorJitter(0.4, 0.4, 0.4, 0.1),
        T.ToDtype(torch.float32, scale=True),
        T.GaussianNoise(sigma=0.05),
    ])


def _by_index(loader: DataLoader) -> dict[int, torch.Tensor]:
    outputs = {}
    for images, labels in loader:
        for image, label in zip(images, labels.tolist()):
            outputs[label] = image
    return outputs


@pytest.mark.filterwarnings("ignore:This DataLoader will create")  # 4 workers on a 2-core machine
@pytest.mark.parametrize(
    ("num_workers", "batch_size", "shuffle"), [(0, 1, False), (1, 3, True), (2, 2, False), (4, 5, True)]
)
def test_same_seed_epoch_and_index_give_the_same_output_with_any_workers(num_workers: int, batch_size: int,
                                                                        shuffle: bool) -> None:
    reference = Augmented(_Tiny(), _pipeline(), seed=3, epoch=1)
    expected = {i: reference[i][0] for i in range(8)}
    dataset = Augmented(_Tiny(), _pipeline(), seed=3)  # a "restart": new objects
    dataset.set_epoch(1)
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, num_workers=num_workers,
                        generator=torch.Generator().manual_seed(num_workers))
    state = torch.get_rng_state()
    torch.manual_seed(99)  # whatever ran before
    outputs = _by_index(loader)
    assert sorted(outputs) == list(range(8))
    for i in range(8):
        assert torch.equal(outputs[i], expected[i]), i
    assert len({tuple(v.flatten().tolist()) for v in outputs.values()}) == 8
    torch.set_rng_state(state)


def test_epochs_differ_and_persistent_workers_see_set_epoch() -> None:
    dataset = Augmented(_Tiny(), _pipeline(), seed=3)
    epochs = []
    for epoch in range(2):
        dataset.set_epoch(epoch)
        epochs.append({i: dataset[i][0] for i in range(8)})
    assert all(not torch.equal(epochs[0][i], epochs[1][i]) for i in range(8))
    loader = DataLoader(dataset, batch_size=4, num_workers=2, persistent_workers=True)
    for epoch in (1, 0, 1):
        dataset.set_epoch(epoch)
        outputs = _by_index(loader)
        assert all(torch.equal(outputs[i], epochs[epoch][i]) for i in range(8)), epoch


def test_augmented_keys_only_on_seed_epoch_and_index() -> None:
    state = torch.get_rng_state()
    dataset = Augmented(_Tiny(), _pipeline(), seed=3, epoch=2)
    image, label = dataset[5]
    assert torch.equal(torch.get_rng_state(), state), "Augmented touched the global RNG"
    assert label == 5 and torch.equal(dataset[-3][0], image) and len(dataset) == 8
    for _ in range(3):
        dataset[1]  # what ran before does not matter
    assert torch.equal(dataset[5][0], image)
    assert not torch.equal(Augmented(_Tiny(), _pipeline(), seed=4, epoch=2)[5][0], image)
    # the per-sample generator is torch.Generator().manual_seed(sample_seed(seed, epoch, index))
    generator = torch.Generator().manual_seed(sample_seed(3, 2, 5))
    assert torch.equal(T.Compose(_pipeline().transforms, generator=generator)(_Tiny()[5])[0], image)


def test_sample_seed_is_splitmix64() -> None:
    # SplitMix64's reference outputs for states 0 (its first output from seed 0) and 1
    from visiontx.datasets._augmented import _splitmix64

    assert _splitmix64(0) == 0xE220A8397B1DCDAF
    assert _splitmix64(0x9E3779B97F4A7C15) == 0x6E789E6AA1B965F4
    assert sample_seed(1, 2, 3) == _splitmix64(_splitmix64(_splitmix64(1) ^ 2) ^ 3)
    assert len({sample_seed(0, e, i) for e in range(50) for i in range(200)}) == 50 * 200


def test_augmented_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="generator of its own"):
        Augmented(_Tiny(), T.Compose([T.RandomCrop(4)], seed=1), seed=0)
    with pytest.raises(ValueError, match="RandomCrop with a generator"):
        Augmented(_Tiny(), T.Compose([T.RandomApply([T.RandomCrop(4, generator=torch.Generator())])]), seed=0)
    with pytest.raises(TypeError, match="seed"):
        Augmented(_Tiny(), _pipeline(), seed=None)
    with pytest.raises(ValueError, match="epoch"):
        Augmented(_Tiny(), _pipeline(), seed=0).set_epoch(-1)
    with pytest.raises(IndexError):
        Augmented(_Tiny(), _pipeline(), seed=0)[8]
    with pytest.raises(TypeError, match="callable"):
        Augmented(_Tiny(), None, seed=0)
