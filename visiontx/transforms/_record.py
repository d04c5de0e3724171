"""Record and replay: ``out, record = pipeline.record(*inputs)``, ``pipeline.replay(*inputs, record=record)``.

A record is plain JSON data, one node per transform, nested as the pipeline:

- a transform: ``{"transform": class name, "skipped": the p coin, "size": its input [H, W],
  "params": what make_params drew}`` (``_tape.encode`` stores tensors and non-finite floats exactly);
- a container: ``{"transform": "RandomApply", "applied": bool, "steps": [...]}``, ``"index"`` for
  ``RandomChoice``, ``"order"`` for ``RandomOrder``, nothing for ``Compose``; ``steps`` holds one node per
  applied transform, in the order applied (a fused run's transforms are nodes as unfused ones);
- ``PerSample``: ``{"transform": "PerSample", "rng": the generator state before it (and, as ``"inner"``, those
  of the generators of the transforms it wraps), "samples": [what each sample got, as ``draws.params(i)``]}``;
- any other callable: ``{"transform": its name}`` (replay calls it again).

The root also carries ``"record_version"``. Replay walks the pipeline and the record together and hands
each transform its recorded draws (``_tape.Tape``), so it draws nothing; ``GaussianNoise``, which draws
while transforming, and ``PerSample``, which draws for the whole batch, get the RNG states recorded before
them, restored around them.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torch

from . import _random, _tape
from ._container import _Container
from ._fusion import FusedRun
from ._misc import GaussianNoise
from ._per_sample import PerSample
from ._tape import Tape
from ._transform import Transform

__all__ = ["RECORD_VERSION", "check_node", "container_steps", "record", "replay"]

RECORD_VERSION = 1
# transforms that draw while transforming (noise; per-sample batches): their RNG states are recorded
_DRAWS_WHILE_TRANSFORMING = (GaussianNoise, PerSample)


def record(pipeline: Callable, inputs: tuple[Any, ...]) -> tuple[Any, dict[str, Any]]:
    """``pipeline(*inputs)`` and the record of its draws."""
    node: dict[str, Any] = {"record_version": RECORD_VERSION}
    with _active(Tape(replaying=False)) as tape:
        output = _call(tape, pipeline, node, "record", *inputs)
    return output, node


def replay(pipeline: Callable, inputs: tuple[Any, ...], record: dict[str, Any]) -> Any:
    """``inputs`` through ``pipeline`` with the draws of ``record``."""
    if not isinstance(record, dict):
        raise TypeError(f"record must be a dict (from Transform.record), got {type(record).__name__}")
    version = record.get("record_version", RECORD_VERSION)
    if version != RECORD_VERSION:
        raise ValueError(f"record_version {version!r} is not supported (this visiontx writes {RECORD_VERSION})")
    with _active(Tape(replaying=True)) as tape:
        return _call(tape, pipeline, record, "record", *inputs)


@contextmanager
def _active(tape: Tape) -> Iterator[Tape]:
    if _tape.state.tape is not None:
        raise RuntimeError("record / replay cannot be nested in one thread")
    _tape.state.tape = tape
    try:
        yield tape
    finally:
        _tape.state.tape = None


def name_of(step: Callable) -> str:
    """The name a record gives a step: its class, or a function's qualified name."""
    if isinstance(step, torch.nn.Module) or not hasattr(step, "__qualname__"):
        return type(step).__name__
    return step.__qualname__


def check_node(node: Any, step: Callable, where: str) -> None:
    """``ValueError`` unless ``node`` is a record node of ``step``."""
    if not isinstance(node, dict) or "transform" not in node:
        raise ValueError(f"{where}: expected a record node (a dict with 'transform'), got {node!r:.100}")
    if node["transform"] != name_of(step):
        raise ValueError(
            f"{where}: the record does not match the pipeline: it holds {node['transform']!r} where the "
            f"pipeline has {name_of(step)}"
        )


def container_steps(container: _Container, node: dict[str, Any], where: str) -> list[Callable]:
    """The transforms ``container`` applied in the call ``node`` records, checked against its ``steps``."""
    try:
        _check_choice(container, node)
        steps = container._steps(node)
    except (KeyError, IndexError, TypeError) as error:
        raise ValueError(f"{where}: malformed {type(container).__name__} record: {error!r}") from error
    children = node.get("steps")
    if not isinstance(children, list) or len(children) != len(steps):
        count = len(children) if isinstance(children, list) else children
        raise ValueError(
            f"{where}: the record does not match the pipeline: {count} steps recorded, "
            f"{len(steps)} applied by {type(container).__name__}"
        )
    return steps


def _check_choice(container: _Container, node: dict[str, Any]) -> None:
    count = len(container.transforms)
    if "applied" in node and not isinstance(node["applied"], bool):
        raise TypeError(f"'applied' must be a bool, got {node['applied']!r}")
    if "index" in node and not (type(node["index"]) is int and 0 <= node["index"] < count):
        raise IndexError(f"'index' must be an int in [0, {count}), got {node['index']!r}")
    if "order" in node and (not isinstance(node["order"], list) or sorted(node["order"]) != list(range(count))):
        raise IndexError(f"'order' must be a permutation of range({count}), got {node['order']!r}")


def _call(tape: Tape, step: Callable, node: dict[str, Any], where: str, *inputs: Any) -> Any:
    """``step(*inputs)`` with its draws recorded in / taken from ``node``."""
    if tape.replaying:
        check_node(node, step, where)
    else:
        node["transform"] = name_of(step)
    with _random.using(getattr(step, "generator", None)):  # its own generator (a seeded Compose's), as a call
        return _call_drawing(tape, step, node, where, inputs)


def _call_drawing(tape: Tape, step: Callable, node: dict[str, Any], where: str, inputs: tuple) -> Any:
    if isinstance(step, _Container):
        return _call_container(tape, step, node, where, inputs)
    if isinstance(step, _DRAWS_WHILE_TRANSFORMING):
        return _call_with_rng(tape, step, node, where, inputs)
    saved, tape.pending = tape.pending, [(step, node)]
    try:
        return step(*inputs)
    finally:
        tape.pending = saved


def _call_container(tape: Tape, container: _Container, node: dict[str, Any], where: str, inputs: tuple) -> Any:
    if tape.replaying:
        steps = container_steps(container, node, where)
        children = node["steps"]
    else:
        choice = container._choose()
        node.update(choice)
        steps = container._steps(choice)
        children = node["steps"] = [{} for _ in steps]
    nodes = iter(enumerate(children))
    stages = []
    for stage in container._stages(steps):
        run = stage.transforms if isinstance(stage, FusedRun) else [stage]
        entries = [(t, *next(nodes)) for t in run]
        stages.append(functools.partial(_call_stage, tape, stage, entries, f"{where}['steps']"))
    return container._run(stages, inputs)


def _call_stage(tape: Tape, stage: Callable, entries: list, where: str, *inputs: Any) -> Any:
    """One stage of a container: a step, or a fused run whose transforms draw in turn."""
    if not isinstance(stage, FusedRun):
        (step, index, node), = entries
        return _call(tape, step, node, f"{where}[{index}]", *inputs)
    for step, index, node in entries:
        if tape.replaying:
            check_node(node, step, f"{where}[{index}]")
        else:
            node["transform"] = name_of(step)
    saved, tape.pending = tape.pending, [(step, node) for step, _, node in entries]
    try:
        return stage(*inputs)
    finally:
        tape.pending = saved


def _call_with_rng(tape: Tape, step: Transform, node: dict[str, Any], where: str, inputs: tuple) -> Any:
    """A transform drawing while transforming (``GaussianNoise``) or per sample (``PerSample``): the state of
    the generator it draws from (its own, the current one, else torch's global RNG states) is recorded
    before it, and restored around its replay on a copy (so replay leaves every generator as it found it).
    A ``PerSample`` node also holds the states of the generators of the transforms it wraps (``"inner"``:
    their own ``generator=``, a seeded ``Compose``'s), set around its replay and put back after it, and what
    each sample got (``"samples"``, ``draws.params(i)``), to read."""
    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_initialized() else []
    saved, tape.pending = tape.pending, [(step, node)]
    try:
        if not tape.replaying:
            generator = step.generator or _random.current_generator()
            states = {"generator": generator.get_state()} if generator is not None else _rng_states(devices)
            inner = _inner_generators(step)
            if inner:
                states["inner"] = [g.get_state() for g in inner]
            node["rng"] = _tape.encode(states, f"{where}'s RNG states")
            if not isinstance(step, PerSample):
                return step(*inputs)
            output, draws = step.forward_with_params(*inputs)
            node["samples"] = [_tape.encode(draws.params(i), f"{where}'s sample {i}") for i in range(draws.size)]
            return output
        states = _tape.decode(node.get("rng"))
        if not isinstance(states, dict) or not ("cpu" in states or "generator" in states):
            raise ValueError(f"{where}: the record of {node['transform']} holds no RNG states")
        with _inner_states(_inner_generators(step), states.get("inner", []), where):
            if "generator" in states:
                return _call_with_generator_state(tape, step, node, states["generator"], inputs)
            with torch.random.fork_rng(devices=devices):
                torch.set_rng_state(states["cpu"])
                for device, state in enumerate(states.get("cuda", [])[: len(devices)]):
                    torch.cuda.set_rng_state(state, device)
                return step(*inputs)
    finally:
        tape.pending = saved


def _inner_generators(step: Transform) -> list[torch.Generator]:
    """The generators of the transforms a ``PerSample`` wraps (their own, a seeded ``Compose``'s), each once, in
    module order."""
    wrapped = getattr(step, "wrapped", None) if isinstance(step, PerSample) else None
    if not isinstance(wrapped, torch.nn.Module):
        return []
    found: dict[int, torch.Generator] = {}
    for module in wrapped.modules():
        generator = getattr(module, "generator", None) if isinstance(module, Transform) else None
        if generator is not None:
            found.setdefault(id(generator), generator)
    return list(found.values())


@contextmanager
def _inner_states(generators: list[torch.Generator], states: list[Any], where: str) -> Iterator[None]:
    """The recorded ``states`` set in ``generators`` for a replay, their own put back after it (the transforms
    are shared: a thread calling one of them meanwhile would draw from the recorded state)."""
    if len(states) != len(generators):
        raise ValueError(
            f"{where}: the record holds the states of {len(states)} generators of the wrapped transforms, the "
            f"pipeline has {len(generators)}"
        )
    own = [generator.get_state() for generator in generators]
    try:
        for generator, state in zip(generators, states):
            generator.set_state(state)
        yield
    finally:
        for generator, state in zip(generators, own):
            generator.set_state(state)


def _call_with_generator_state(
    tape: Tape, step: Transform, node: dict[str, Any], state: torch.Tensor, inputs: tuple
) -> Any:
    """``step(*inputs)`` drawing from a new generator in ``state``: a shallow copy of the step holds it, so
    the step itself (which other threads may be calling) is never changed."""
    replayed = torch.Generator()
    replayed.set_state(state)
    twin = copy.copy(step)
    twin.generator = replayed
    tape.pending = [(twin, node)]
    return twin(*inputs)


def _rng_states(devices: list[int]) -> dict[str, Any]:
    states: dict[str, Any] = {"cpu": torch.get_rng_state()}
    if devices:
        states["cuda"] = [torch.cuda.get_rng_state(device) for device in devices]
    return states


_tape.entry_points["record"] = record
_tape.entry_points["replay"] = replay
_tape.entry_points["call"] = _call  # PerSample's looping RandomOrder records its container children with it
