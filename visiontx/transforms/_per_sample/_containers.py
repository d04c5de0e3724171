"""Compose, RandomApply, RandomChoice and RandomOrder on batches, drawing per sample."""

from __future__ import annotations

import functools
from typing import Any

import torch

from ...datapoints import Datapoint
from ...functional._color._batched import per_image
from .. import _random
from .._container import Compose, RandomApply, RandomChoice, RandomOrder, _Container
from .._tape import Tape, entry_points, listening, params_of
from .._transform import Transform
from . import _draws
from ._batch import Batch
from ._core import (
    Batched,
    Context,
    Leaf,
    LeafRecord,
    Loop,
    Record,
    batched_for,
    own_generator,
    register,
    run_sequence,
    run_single,
    run_transform,
)
from ._fusion import run_fused


class _SequenceRecord(Record):
    """Compose's draws: sample ``i`` got the list of its transforms' parameters."""

    def __init__(self, records: list[Record]) -> None:
        self.records = records

    def params(self, i: int) -> list[Any]:
        return [record.params(i) for record in self.records]


@register(Compose)
class BatchedCompose(Batched):
    takes_pieces = True  # each transform gets the batch as the one before left it

    def run(self, batch: Batch, context: Context) -> tuple[Batch, Record]:
        if self.transform.fuse_geometry:
            return run_fused(self.transform.transforms, batch, context)
        batch, records = run_sequence(self.transform.transforms, batch, context)
        return batch, _SequenceRecord(records)


def _select(chosen: list[torch.Tensor], options: list[Batch], name: str) -> Batch:
    """Per sample, the batch of the option whose mask is True (exactly one per sample)."""
    options = [option.stacked() for option in options]
    shapes = {tuple(leaf.shape) for option in options for leaf in option.leaves}
    first = options[0]
    if len({tuple(tuple(leaf.shape) for leaf in option.leaves) for option in options}) > 1:
        raise ValueError(
            f"{name}: the options give different shapes {sorted(shapes)}, so samples taking different options "
            "cannot share a batch tensor"
        )
    dtypes = {tuple(leaf.dtype for leaf in option.leaves) for option in options}
    if len(dtypes) > 1:  # torch.where would promote: one sample's 0..255 beside another's 0..1
        raise ValueError(
            f"{name}: the options give different dtypes {sorted(map(str, dtypes))}, so samples taking different "
            "options cannot share a batch tensor (convert the dtype outside the random choice)"
        )
    leaves = []
    for k, like in enumerate(first.leaves):
        out = like.as_subclass(torch.Tensor)
        for mask, option in zip(chosen[1:], options[1:]):
            out = torch.where(per_image(mask, out), option.leaves[k].as_subclass(torch.Tensor), out)
        leaves.append(type(like).wrap_like(like, out) if isinstance(like, Datapoint) else out)
    lists = []
    if first.lists:
        host = [mask.tolist() for mask in chosen]
        for k in range(len(first.lists)):
            lists.append([next(o.lists[k][i] for o, m in zip(options, host) if m[i]) for i in range(first.size)])
    return first.with_values(leaves, lists)


class _ApplyRecord(Record):
    def __init__(self, applied: torch.Tensor, records: list[Record]) -> None:
        self.applied, self.records = applied, records

    def params(self, i: int) -> list[Any] | None:
        return [r.params(i) for r in self.records] if bool(self.applied[i]) else None


@register(RandomApply)
class BatchedRandomApply(Batched):
    """Each sample flips its own coin; the transforms run on the whole batch, skipped samples keep their
    input (so the transforms must keep the shape)."""

    def run(self, batch: Batch, context: Context) -> tuple[Batch, Record]:
        applied = _draws.coins(batch.size, self.transform.p, batch.device, context.generator)
        out, records = run_sequence(self.transform.transforms, batch, context)
        return _select([~applied, applied], [batch, out], self.name), _ApplyRecord(applied, records)


class _ChoiceRecord(Record):
    def __init__(self, index: torch.Tensor, records: list[Record]) -> None:
        self.index, self.records = index, records

    def params(self, i: int) -> tuple[int, Any]:
        j = int(self.index[i])
        return j, self.records[j].params(i)


@register(RandomChoice)
class BatchedRandomChoice(Batched):
    """One option per sample: every option runs on the whole batch (its own per-sample draws) and each
    sample takes its option's result, so the options must agree on the output shape."""

    def run(self, batch: Batch, context: Context) -> tuple[Batch, Record]:
        index = _draws.choices(batch.size, self.transform.p, batch.device, context.generator)
        options, records = [], []
        for transform in self.transform.transforms:
            option, record = run_transform(transform, batch, context)
            options.append(option)
            records.append(record)
        chosen = [index == j for j in range(len(options))]
        return _select(chosen, options, self.name), _ChoiceRecord(index, records)


class _OrderRecord(Record):
    def __init__(self, order: torch.Tensor, records: list[Record]) -> None:
        self.order, self.records = order, records

    def params(self, i: int) -> list[tuple[int, Any]]:
        return [(j, self.records[j].params(i)) for j in self.order[i].tolist()]


@register(RandomOrder)
class BatchedRandomOrder(Batched):
    """One order per sample. With vectorised leaf transforms that keep the shape, each transform draws
    once and, at each of the ``n`` steps, every transform is applied to the whole batch with its draw and
    each sample takes the one its order names there (``n * n`` applications); otherwise (a looping
    child, per-sample lists, a transform changing the size) a loop."""

    def run(self, batch: Batch, context: Context) -> tuple[Batch, Record]:
        implementations = [batched_for(t) for t in self.transform.transforms]
        if not implementations or batch.lists or not all(isinstance(i, Leaf) for i in implementations):
            return self._loop(batch, context)
        order = _draws.permutations(batch.size, len(implementations), batch.device, context.generator)
        draws = []
        for implementation in implementations:
            with own_generator(implementation.transform, batch, context) as own:
                draws.append((implementation, implementation.coins(batch, own), implementation.draw(batch, own)))
        for step in range(len(implementations)):
            options = [batch.with_values([i._apply_leaf(x, v, a) for x in batch.leaves]) for i, a, v in draws]
            if step == 0 and any(_layout(option) != _layout(batch) for option in options):
                # a transform changes the size (the draws of later steps would be for another size) or the dtype
                # (samples at different steps would mix scales): a loop
                return self._loop(batch, context)
            batch = _select([order[:, step] == j for j in range(len(options))], options, self.name)
        records = [LeafRecord(i, v, a) for i, a, v in draws]
        return batch, _OrderRecord(order, records)

    def _loop(self, batch: Batch, context: Context) -> tuple[Batch, Record]:
        return Loop(self.transform, functools.partial(_order_one, self.transform.transforms, context.unpack)).run(
            batch, context
        )


def _layout(batch: Batch) -> list[tuple[tuple[int, ...], torch.dtype]]:
    return [(tuple(leaf.shape), leaf.dtype) for leaf in batch.leaves]


def _order_one(transforms: list[Any], unpack: bool, sample: Any) -> tuple[Any, list[tuple[int, Any]]]:
    """One sample through ``transforms`` in a random order (the current generator, else torch's default
    one), and what each got; other callables get the caller's inputs unpacked when there were several."""
    drawn = []
    for j in _random.randperm(len(transforms)):
        if isinstance(transforms[j], Transform) and type(transforms[j]).forward is Transform.forward:
            sample, params = run_single(transforms[j], sample)
        elif isinstance(transforms[j], _Container):
            sample, params = _container_single(transforms[j], unpack, sample)
        else:
            sample, params = (transforms[j](*sample) if unpack else transforms[j](sample)), None
        drawn.append((j, params))
    return sample, drawn


def _container_single(container: _Container, unpack: bool, sample: Any) -> tuple[Any, Any]:
    """``container`` on one sample and what it drew, as its batched record lists a sample's draws: read off a
    recording tape around the call (the same draws and result as without one)."""
    call = entry_points["call"]  # _record.py's, set there (it imports the transforms, this module among them)
    node: dict[str, Any] = {}
    with listening(Tape(replaying=False)) as tape:
        output = call(tape, container, node, "sample", *(sample if unpack else (sample,)))
    return output, _as_params(container, node)


def _as_params(step: Any, node: dict[str, Any]) -> Any:
    """A recorded node as per-sample params: ``Compose`` a list, ``RandomApply`` a list or None (not applied),
    ``RandomChoice`` ``(index, params)``, ``RandomOrder`` ``[(index, params), ...]``; a transform its params (None
    where its coin skipped it, or it records none)."""
    if isinstance(step, _Container):
        children = [_as_params(child, child_node) for child, child_node in zip(step._steps(node), node["steps"])]
        if isinstance(step, RandomApply):
            return children if node["applied"] else None
        if isinstance(step, RandomChoice):
            return node["index"], children[0]
        if isinstance(step, RandomOrder):
            return list(zip(node["order"], children))
        return children
    return params_of(node)
