"""Transform.record / replay: the record is JSON, replay reproduces the recorded call bit for bit and draws nothing.

Every transform of the case tables (and those tested apart) runs on the richest sample it accepts:
image, boxes, mask and key points; else an image alone; else a batch with labels (mixing).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import torch
from torch.utils._pytree import tree_flatten

import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Image, KeyPoints, Mask
from visiontx.transforms._tape import decode

from .common import DEFAULT_SIZE, make_bounding_box, make_image, make_keypoints, make_mask
from .test_generic import collect

# transforms whose tests live apart from the case tables
EXTRA_CASES = [
    (T.MixUp, {"num_classes": 4}),
    (T.CutMix, {"num_classes": 4}),
    (T.RandomIoUCrop, {"sampler_options": [0.0, 0.3]}),
    (T.Lambda, {"lambd": lambda x: x}),
]


def _all_cases() -> list[Any]:
    cases = [(cls, case.kwargs) for cls, entries in collect("TRANSFORM_CASES").items() for case in entries]
    cases += EXTRA_CASES
    return [pytest.param(cls, kwargs, id=f"{cls.__name__}-{i}") for i, (cls, kwargs) in enumerate(cases)]


def _samples(seed: int) -> list[Any]:
    """The samples to try, richest first."""
    image = make_image(DEFAULT_SIZE, seed=seed)
    boxes = make_bounding_box(DEFAULT_SIZE, seed=seed)
    full = (image, {"boxes": boxes, "masks": make_mask(DEFAULT_SIZE, num_objects=4, seed=seed),
                    "keypoints": make_keypoints(DEFAULT_SIZE, seed=seed), "labels": torch.arange(4)})
    batch = (Image(torch.stack([make_image(DEFAULT_SIZE, seed=seed + i) for i in range(4)])), torch.arange(4))
    return [full, (image,), (Image(image.float() / 255),), batch]


def _accepted_sample(transform: Any, seed: int, image_alone: bool = False) -> tuple[Any, ...]:
    for sample in _samples(seed)[1:3] if image_alone else _samples(seed):
        try:
            transform(*sample)
        except (TypeError, ValueError):
            continue
        return sample
    raise AssertionError(f"{transform!r} accepts none of the test samples")


def assert_identical(actual: Any, expected: Any) -> None:
    actual_leaves, actual_spec = tree_flatten(actual)
    expected_leaves, expected_spec = tree_flatten(expected)
    assert actual_spec == expected_spec
    for a, e in zip(actual_leaves, expected_leaves):
        assert type(a) is type(e)
        if isinstance(e, torch.Tensor):
            assert a.dtype == e.dtype and a.shape == e.shape and torch.equal(a, e)
        else:
            assert a == e


def _json(record: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(record, allow_nan=False))


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("cls", "kwargs"), _all_cases())
@pytest.mark.parametrize("seed", [0, 1])
def test_record_gives_the_call_and_replay_reproduces_it(cls: type, kwargs: dict, seed: int) -> None:
    transform = cls(**kwargs)
    sample = _accepted_sample(transform, seed)
    torch.manual_seed(seed)
    expected = transform(*sample)
    torch.manual_seed(seed)
    output, record = transform.record(*sample)
    assert_identical(output, expected)
    assert record["transform"] == cls.__name__
    record = _json(record)
    state = torch.get_rng_state()
    assert_identical(transform.replay(*sample, record=record), output)
    assert torch.equal(torch.get_rng_state(), state), "replay drew from the global RNG"


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("cls", "kwargs"), _all_cases())
def test_replay_on_another_sample_applies_the_recorded_params(cls: type, kwargs: dict) -> None:
    transform = cls(**kwargs)
    if isinstance(transform, (T.MixUp, T.CutMix, T.GaussianNoise)):
        pytest.skip("mixing takes batches; GaussianNoise replays its noise from the recorded RNG state")
    try:
        (image,), (other,) = _accepted_sample(transform, 3, True), _accepted_sample(transform, 4, True)
    except AssertionError:
        pytest.skip(f"{cls.__name__} needs more than an image")
    torch.manual_seed(0)
    _, record = transform.record(image)
    record = _json(record)
    replayed = transform.replay(other, record=record)
    if record.get("skipped") or "params" not in record:  # containers, custom forwards: the main test
        return
    needed = transform._needs_transform_list([other])[0]
    assert record["size"] == (list(DEFAULT_SIZE) if needed else None)  # the input canvas of what it transformed
    by_hand = transform.transform(other, decode(record["params"])) if needed else other
    assert_identical(replayed, by_hand)


def _pipeline(fuse: bool) -> T.Compose:
    return T.Compose(
        [
            T.RandomHorizontalFlip(),
            T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4), T.RandomGrayscale(p=0.5)], p=0.7),
            T.RandomChoice([T.RandomRotation(20), T.RandomAffine(10, translate=(0.1, 0.1)), T.Pad(2)]),
            T.RandomResizedCrop((15, 19), scale=(0.5, 1.0)),
            T.RandomOrder([T.RandomVerticalFlip(), T.RandomPerspective(p=0.8), T.GaussianNoise()]),
            T.RandomRotation(10),
            T.Resize(12),
            T.RandomErasing(p=0.5),
        ],
        fuse_geometry=fuse,
    )


def _float_sample(seed: int) -> tuple[Any, ...]:
    image = Image(make_image(DEFAULT_SIZE, seed=seed).float() / 255)
    return (image, make_bounding_box(DEFAULT_SIZE, seed=seed), make_mask(DEFAULT_SIZE, seed=seed),
            make_keypoints(DEFAULT_SIZE, seed=seed))


@pytest.mark.filterwarnings("ignore:RandomErasing")
@pytest.mark.parametrize("fuse", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_nested_containers_record_and_replay(fuse: bool, seed: int) -> None:
    pipeline, sample = _pipeline(fuse), _float_sample(seed)
    torch.manual_seed(seed)
    expected = pipeline(*sample)
    torch.manual_seed(seed)
    output, record = pipeline.record(*sample)
    assert_identical(output, expected)
    record = _json(record)
    assert [step["transform"] for step in record["steps"]] == [type(t).__name__ for t in pipeline.transforms]
    choice = record["steps"][2]
    assert choice["transform"] == "RandomChoice" and len(choice["steps"]) == 1
    assert sorted(record["steps"][4]["order"]) == [0, 1, 2]
    state = torch.get_rng_state()
    assert_identical(pipeline.replay(*sample, record=record), output)
    assert torch.equal(torch.get_rng_state(), state)


def test_record_structure_of_containers() -> None:
    pipeline = T.Compose([T.RandomApply([T.RandomHorizontalFlip(p=1.0)], p=1.0), T.SanitizeBoundingBox(),
                          T.RandomChoice([T.Pad(1), T.Pad(2)], p=[0.0, 1.0]),
                          T.RandomOrder([T.Identity()]), T.RandomVerticalFlip(p=0.0)])
    _, record = pipeline.record(make_image(), {"boxes": make_bounding_box(), "labels": torch.arange(4)})
    assert record == {
        "record_version": 1,
        "transform": "Compose",
        "steps": [
            {"transform": "RandomApply", "applied": True,
             "steps": [{"transform": "RandomHorizontalFlip", "skipped": False, "size": [17, 23], "params": {}}]},
            {"transform": "SanitizeBoundingBox"},
            {"transform": "RandomChoice", "index": 1,
             "steps": [{"transform": "Pad", "skipped": False, "size": [17, 23], "params": {}}]},
            {"transform": "RandomOrder", "order": [0], "steps": [{"transform": "Identity"}]},
            {"transform": "RandomVerticalFlip", "skipped": True},
        ],
    }


def test_tensors_and_floats_round_trip_exactly() -> None:
    transform = T.ElasticTransform(alpha=20.0)
    image = make_image()
    _, record = transform.record(image)
    displacement = decode(_json(record)["params"])["displacement"]
    torch.manual_seed(0)
    expected = transform.make_params([image])["displacement"]
    torch.manual_seed(0)
    _, record = transform.record(image)
    decoded = decode(_json(record)["params"])["displacement"]
    assert decoded.dtype == expected.dtype and torch.equal(decoded, expected)
    assert displacement.shape == (1, *DEFAULT_SIZE, 2)


def test_a_plain_callable_is_recorded_by_name_and_called_again() -> None:
    def double(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    pipeline = T.Compose([double, T.RandomHorizontalFlip(p=1.0)])
    output, record = pipeline.record(torch.ones(1, 2, 3))
    assert record["steps"][0] == {"transform": "test_a_plain_callable_is_recorded_by_name_and_called_again.<locals>.double"}
    assert torch.equal(pipeline.replay(torch.ones(1, 2, 3), record=record), output)


def _record_of(pipeline: Any) -> dict[str, Any]:
    return _json(pipeline.record(make_image())[1])


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda r: r.update(transform="Compose"), "holds 'Compose' where the pipeline has RandomHorizontalFlip"),
        (lambda r: r["steps"].pop(), "2 steps recorded, 3 applied by Compose"),
        (lambda r: r["steps"][1].update(transform="Pad"), r"record\['steps'\]\[1\].*'Pad' where the pipeline has RandomChoice"),
        (lambda r: r["steps"][1].update(index=5), "'index' must be an int in"),
        (lambda r: r["steps"][2]["steps"][0].update(skipped="no"), "'skipped' must be a bool"),
        (lambda r: r["steps"][2]["steps"][0].pop("params"), "holds no params"),
        (lambda r: r.update(record_version=99), "record_version 99"),
    ],
)
def test_a_record_of_another_pipeline_raises(edit: Any, match: str) -> None:
    pipeline = T.Compose([T.RandomHorizontalFlip(p=0.0), T.RandomChoice([T.Pad(1)]),
                          T.RandomApply([T.RandomCrop(5)], p=1.0)])
    record = _record_of(pipeline)
    if "RandomHorizontalFlip" in match:
        with pytest.raises(ValueError, match=match):
            T.RandomHorizontalFlip().replay(make_image(), record=record)
        return
    edit(record)
    with pytest.raises(ValueError, match=match):
        pipeline.replay(make_image(), record=record)


def test_a_record_of_another_order_raises() -> None:
    pipeline = T.RandomOrder([T.Pad(1), T.Pad(2)])
    record = _record_of(pipeline)
    record["order"] = [0, 0]
    with pytest.raises(ValueError, match="permutation"):
        pipeline.replay(make_image(), record=record)


def test_record_needs_a_dict() -> None:
    with pytest.raises(TypeError, match="record must be a dict"):
        T.Pad(1).replay(make_image(), record=[1])


def test_unsupported_params_name_the_transform() -> None:
    class Odd(T.Transform):
        def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
            return {"when": object()}

        def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
            return inpt

    with pytest.raises(TypeError, match=r"cannot record Odd's params\['when'\]: object values"):
        Odd().record(make_image())


def test_the_tape_is_off_after_record_replay_and_errors() -> None:
    from visiontx.transforms import _tape

    T.RandomCrop(5).record(make_image())
    with pytest.raises(ValueError):
        T.RandomCrop(5).replay(make_image(), record={"transform": "Pad"})
    assert _tape.state.tape is None
    torch.manual_seed(0)
    a = T.RandomCrop(5)(make_image())
    torch.manual_seed(0)
    assert torch.equal(T.RandomCrop(5)(make_image()), a)


def test_masks_boxes_and_key_points_follow_a_replayed_crop() -> None:
    transform = T.RandomResizedCrop(11)
    image, mask = make_image(), Mask(make_mask(num_objects=None))
    boxes, points = make_bounding_box(), make_keypoints()
    _, record = transform.record(image, mask, boxes, points)
    params = decode(_json(record)["params"])
    replayed = transform.replay(image, mask, boxes, points, record=_json(record))
    for leaf, out in zip((image, mask, boxes, points), replayed):
        assert_identical(out, transform.transform(leaf, params))
    assert isinstance(replayed[2], BoundingBox) and isinstance(replayed[3], KeyPoints)


@pytest.mark.parametrize(
    "make",
    [
        lambda: T.Compose([T.GaussianNoise(sigma=0.2)], seed=3),
        lambda: T.GaussianNoise(sigma=0.2, generator=torch.Generator().manual_seed(1)),
        lambda: T.Compose([T.GaussianNoise(sigma=0.2, generator=torch.Generator().manual_seed(2))], seed=4),
    ],
    ids=["seeded-compose", "own-generator", "both"],
)
def test_gaussian_noise_replays_from_the_generator_it_drew_from(make: Any) -> None:
    """The noise drawn while transforming comes back on replay from a seeded pipeline or a transform's own
    generator too, and replay leaves that generator where the call left it."""
    pipeline = make()
    image = Image(torch.rand(3, 8, 8, generator=torch.Generator().manual_seed(0)))
    out, record = pipeline.record(image)
    generators = [g for g in (pipeline.generator, getattr(pipeline, "transforms", [pipeline])[0].generator) if g]
    states = [g.get_state() for g in generators]
    again = pipeline.replay(image, record=json.loads(json.dumps(record)))
    assert torch.equal(out, again)
    assert all(torch.equal(g.get_state(), state) for g, state in zip(generators, states))


def test_recording_a_seeded_pipeline_draws_from_its_seed() -> None:
    """record() gives what the call gives: the seeded Compose's generator, not the global RNG."""

    def make() -> T.Compose:
        flips = T.RandomChoice([T.RandomHorizontalFlip(), T.RandomVerticalFlip()])
        return T.Compose([T.RandomRotation(30), T.RandomApply([T.ColorJitter(0.5)], p=0.5), flips], seed=3)

    image = Image(torch.randint(0, 256, (3, 20, 20), dtype=torch.uint8, generator=torch.Generator().manual_seed(0)))
    expected = make()(image)
    state = torch.get_rng_state()
    out, record = make().record(image)
    assert torch.equal(out, expected)
    assert torch.equal(torch.get_rng_state(), state)


@pytest.mark.parametrize("seeded", [False, True])
def test_per_sample_records_each_sample_and_replays_bit_exactly(seeded: bool) -> None:
    inner = T.Compose([T.RandomHorizontalFlip(), T.RandomAffine(20, translate=(0.1, 0.1)), T.ColorJitter(0.4, 0.4)])
    pipeline = T.Compose([T.PerSample(inner)], seed=5 if seeded else None)
    batch = Image(torch.randint(0, 256, (4, 3, 24, 24), dtype=torch.uint8, generator=torch.Generator().manual_seed(1)))
    torch.manual_seed(2)
    out, record = pipeline.record(batch)
    record = json.loads(json.dumps(record))
    node = record["steps"][0]
    assert node["transform"] == "PerSample" and len(node["samples"]) == 4
    angles = [sample[1]["angle"] for sample in node["samples"]]
    assert len(set(angles)) == 4  # each sample its own draw
    torch.manual_seed(3)  # replay does not depend on the global RNG
    state = torch.get_rng_state()
    assert torch.equal(pipeline.replay(batch, record=record), out)
    assert torch.equal(torch.get_rng_state(), state)
    # each recorded sample is the single transform with those parameters
    for i, params in enumerate(node["samples"]):
        sample = Image(batch[i])
        for transform, step_params in zip(inner.transforms, params):
            if step_params is not None:
                sample = transform.transform(sample, _tape_decode(step_params))
        torch.testing.assert_close(sample.as_subclass(torch.Tensor), out[i].as_subclass(torch.Tensor), atol=1, rtol=0)


@pytest.mark.parametrize("wrapped", ["own generator", "seeded compose", "noise"])
def test_per_sample_replays_the_generators_of_what_it_wraps_and_leaves_them(wrapped: str) -> None:
    """A transform inside PerSample with its own generator (or a seeded Compose) draws from that one: the record
    holds its state, the replay draws from it and leaves the generator where it was."""
    generator = torch.Generator().manual_seed(9)
    inner = {
        "own generator": lambda: T.RandomAffine(30, generator=generator),
        "seeded compose": lambda: T.Compose([T.RandomAffine(30), T.RandomHorizontalFlip()], seed=9),
        "noise": lambda: T.GaussianNoise(sigma=0.2, generator=generator),
    }[wrapped]()
    pipeline = T.PerSample(inner)
    batch = Image(torch.rand(4, 3, 20, 24, generator=torch.Generator().manual_seed(0)))
    out, record = pipeline.record(batch)
    record = json.loads(json.dumps(record))
    owner = generator if wrapped != "seeded compose" else inner.generator
    state = owner.get_state()
    assert torch.equal(pipeline.replay(batch, record=record), out)
    assert torch.equal(owner.get_state(), state)
    assert not torch.equal(pipeline(batch), out)  # a call draws on from where the record left the generator
    record["rng"]["inner"] = []
    with pytest.raises(ValueError, match="states of 0 generators"):
        pipeline.replay(batch, record=record)


def _tape_decode(value: Any) -> Any:
    from visiontx.transforms._tape import decode

    return decode(value)


def test_per_sample_forward_with_params_draws_from_its_generator() -> None:
    batch = Image(torch.rand(3, 3, 16, 16, generator=torch.Generator().manual_seed(0)))
    make = lambda: T.PerSample(T.RandomAffine(30), generator=torch.Generator().manual_seed(9))  # noqa: E731
    out, draws = make().forward_with_params(batch)
    assert torch.equal(out, make()(batch))
    assert draws.size == 3 and draws.params(2)["angle"] != draws.params(0)["angle"]
    with pytest.raises(IndexError, match="sample index"):
        draws.params(3)


def _seeded_pipeline() -> T.Compose:
    return T.Compose(
        [T.RandomHorizontalFlip(), T.RandomChoice([T.RandomCrop(16), T.CenterCrop(16)]), T.ColorJitter(0.5)], seed=7
    )


def test_record_of_a_seeded_compose_draws_from_its_seed() -> None:
    image = make_image((32, 32), seed=2)
    torch.manual_seed(0)
    state = torch.get_rng_state()
    out, record = _seeded_pipeline().record(image)
    assert torch.equal(state, torch.get_rng_state())
    torch.manual_seed(1)
    assert torch.equal(out, _seeded_pipeline()(image))
    assert torch.equal(_seeded_pipeline().replay(image, record=record), out)


def test_record_of_a_container_with_its_own_generator_leaves_the_global_rng() -> None:
    image = make_image((32, 32), seed=2)
    torch.manual_seed(0)
    state = torch.get_rng_state()
    T.RandomApply([T.ColorJitter(0.5)], generator=torch.Generator().manual_seed(1)).record(image)
    assert torch.equal(state, torch.get_rng_state())


class _WatchedNoise(T.GaussianNoise):
    """GaussianNoise noting the generator its instance holds while it transforms."""

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        self.seen.append(self.watched.generator)
        return super().transform(inpt, params)


def test_gaussian_noise_replay_leaves_the_transform_unchanged_while_it_runs() -> None:
    """Replay must not swap the transform's generator (another thread may be calling the same transform)."""
    own = torch.Generator().manual_seed(1)
    noise = _WatchedNoise(sigma=0.2, generator=own)
    noise.seen, noise.watched = [], noise
    image = Image(torch.rand(3, 8, 8, generator=torch.Generator().manual_seed(0)))
    out, record = noise.record(image)
    again = noise.replay(image, record=record)
    assert torch.equal(out, again)
    assert all(generator is own for generator in noise.seen) and len(noise.seen) == 2


def test_an_iou_crop_replays_on_other_boxes_emptying_those_it_leaves_out() -> None:
    """The crop's test of box centres is made on the boxes it is given: other boxes, as many or not."""
    image = make_image((40, 40), seed=0)
    drawn_for = BoundingBox([[5.0, 5.0, 30.0, 30.0], [1.0, 1.0, 4.0, 4.0]], format="XYXY", spatial_size=(40, 40))
    pipeline = T.Compose([T.RandomIoUCrop()])
    for seed in range(20):
        torch.manual_seed(seed)
        (_, boxes), record = pipeline.record(image, drawn_for)
        params = record["steps"][0].get("params")
        if params:
            break
    top, left, height, width = (params[k] for k in ("top", "left", "height", "width"))
    others = BoundingBox([[2.0, 2.0, 10.0, 10.0], [20.0, 20.0, 35.0, 35.0], [0.0, 0.0, 40.0, 40.0]],
                         format="XYXY", spatial_size=(40, 40))
    replayed = pipeline.replay(image, others, record=record)[1]
    assert replayed.spatial_size == (height, width)
    for box, out in zip(others.tolist(), replayed.tolist()):
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        if left < cx < left + width and top < cy < top + height:  # kept: shifted, clamped to the crop
            x1, y1, x2, y2 = box[0] - left, box[1] - top, box[2] - left, box[3] - top
            expected = [min(max(v, 0), side) for v, side in zip((x1, y1, x2, y2), (width, height) * 2)]
        else:
            expected = [0.0, 0.0, 0.0, 0.0]
        assert out == expected, (box, out, (top, left, height, width))
    assert torch.equal(pipeline.replay(image, drawn_for, record=record)[1], boxes)
