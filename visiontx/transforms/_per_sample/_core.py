"""How a transform runs on a batch: the registry of vectorised implementations, their records of
draws, and the loop every other transform falls back to."""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from ...datapoints import Datapoint, Mask
from ...functional import _cv2
from ...functional._color._batched import per_image
from .. import _random
from .._transform import RandomApplyTransform, Transform, check_spatial_sizes_agree, flatten_sample
from . import _draws
from ._batch import Batch, Pieces, _index, _stack, pieces, stacked


@dataclass
class Context:
    """What every implementation of one call shares."""

    generator: torch.Generator | None
    unpack: bool  # the caller gave several inputs (callables get them unpacked)


class Record(abc.ABC):
    """The draws of one transform on one batch; :meth:`params` gives those of one sample."""

    @abc.abstractmethod
    def params(self, i: int) -> Any:
        """The parameters sample ``i`` got, as the single-sample transform takes them (None: not applied)."""


class Batched(abc.ABC):
    """How one transform runs on a batch (one instance per transform)."""

    # whether run() takes batched leaves held as Pieces (else run_transform stacks them first)
    takes_pieces = False

    def __init__(self, transform: Any) -> None:
        self.transform = transform

    @property
    def name(self) -> str:
        return f"PerSample({type(self.transform).__name__})"

    @abc.abstractmethod
    def run(self, batch: Batch, context: Context) -> tuple[Batch, Record]:
        """The transformed batch and the record of its draws."""


_IMPLEMENTATIONS: dict[type, Callable[[Any], Batched]] = {}


def register(*classes: type) -> Callable[[type[Batched]], type[Batched]]:
    """Register a vectorised implementation for exactly these transform classes (not subclasses: a
    subclass may draw or transform differently, so it takes the loop until registered itself)."""

    def decorator(implementation: type[Batched]) -> type[Batched]:
        for cls in classes:
            _IMPLEMENTATIONS[cls] = implementation
        return implementation

    return decorator


def batched_for(transform: Any) -> Batched:
    """The batched implementation of ``transform``: its class's vectorised one, else the loop."""
    return _IMPLEMENTATIONS.get(type(transform), Loop)(transform)


def is_vectorised(transform: Any) -> bool:
    """Whether ``transform``'s class has a vectorised implementation (else it loops over the samples)."""
    return type(transform) in _IMPLEMENTATIONS


@contextlib.contextmanager
def own_generator(transform: Any, batch: Batch, context: Context) -> Iterator[Context]:
    """The context for ``transform``'s draws: with a generator of its own (``generator=``, a seeded
    ``Compose``'s), that one is the current generator (the loop's draws) and the context's (on another
    device, one of that device seeded from it), as when the transform runs alone."""
    generator = getattr(transform, "generator", None)
    if generator is None or generator is _random.current_generator():
        yield context
        return
    with _random.using(generator):
        yield replace(context, generator=_random.device_generator(batch.device))


def run_transform(transform: Any, batch: Batch, context: Context) -> tuple[Batch, Record]:
    """``transform``'s batched implementation on the batch, drawing from its own generator if it has one."""
    implementation = batched_for(transform)
    if not implementation.takes_pieces:
        batch = batch.stacked()
    with own_generator(transform, batch, context) as own:
        return implementation.run(batch, own)


def run_sequence(transforms: list[Any], batch: Batch, context: Context) -> tuple[Batch, list[Record]]:
    """``transforms`` one after the other on the batch, and their records."""
    records = []
    for transform in transforms:
        batch, record = run_transform(transform, batch, context)
        records.append(record)
    return batch, records


# ------------------------------------------------------------------------------------------ the loop
class _ListRecord(Record):
    def __init__(self, params: list[Any]) -> None:
        self._params = params

    def params(self, i: int) -> Any:
        return self._params[i]


def run_single(transform: Transform, sample: Any) -> tuple[Any, dict[str, Any] | None]:
    """``transform(sample)`` as ``Transform.forward`` does it, also returning the parameters drawn
    (None when the coin of ``p`` skipped the sample)."""
    flat, rebuild = flatten_sample(sample, convert=transform._converts_torchvision)
    transform.check_inputs(flat)
    with _random.using(transform.generator):  # its own generator, as Transform.forward
        if transform._skip():
            return sample, None
        needs = transform._needs_transform_list(flat)
        selected = [inpt for inpt, need in zip(flat, needs) if need]
        if len(selected) > 1:
            check_spatial_sizes_agree(selected)
        params = transform.make_params(selected)
    return rebuild([transform.transform(x, params) if need else x for x, need in zip(flat, needs)]), params


class Loop(Batched):
    """Any transform or callable, one sample at a time (torch's default generator draws), the batched
    leaves gathered again (as ``Pieces``): ``ValueError`` when the samples come out with different shapes.
    ``single``, when given, runs one sample and returns it with the parameters it drew."""

    takes_pieces = True

    def __init__(self, transform: Any, single: Callable[[Any], tuple[Any, Any]] | None = None) -> None:
        super().__init__(transform)
        self.single = single

    def run(self, batch: Batch, context: Context) -> tuple[Batch, Record]:
        outputs, params = [], []
        for i in range(batch.size):
            sample = batch.sample(i)
            if isinstance(self.transform, Transform) and type(self.transform).forward is Transform.forward:
                output, drawn = run_single(self.transform, sample)
            elif self.single is not None:
                output, drawn = self.single(sample)
            else:
                output = self.transform(*sample) if context.unpack else self.transform(sample)
                drawn = None
            outputs.append(output)
            params.append(drawn)
        if batch.size == 0:
            return batch, _ListRecord([])
        return batch.collect(outputs, self.name), _ListRecord(params)


# ------------------------------------------------------------------------------ vectorised leaf ops
def _takes_batch_per_image(leaf: Any) -> bool:
    """The wing's gate for the batch ``leaf`` (``Pieces``: asked of a sample, as the gate reads only its
    type, device, dtype, autograd and size)."""
    if isinstance(leaf, Pieces):
        return not leaf.requires_grad and _cv2.takes_batch_per_image(leaf.kind.as_subclass(torch.Tensor))
    return _cv2.takes_batch_per_image(leaf.as_subclass(torch.Tensor))


class LeafRecord(Record):
    def __init__(self, implementation: Leaf, values: dict[str, Any], applied: torch.Tensor | None) -> None:
        self._implementation, self._values, self._applied = implementation, values, applied
        self._host: tuple[dict[str, Any], list[bool] | None] | None = None

    def params(self, i: int) -> dict[str, Any] | None:
        if self._host is None:  # one read-back per record, only when asked (boxes, replay, tests)
            values = self._implementation.host_values(self._values)
            self._host = (values, None if self._applied is None else self._applied.tolist())
        values, applied = self._host
        if applied is not None and not applied[i]:
            return None
        return self._implementation.sample_params(values, i)


class Leaf(Batched):
    """A vectorised implementation of a ``Transform``: :meth:`draw` the parameters of all samples at
    once, :meth:`apply` them to each batched leaf; per-sample entries (boxes, key points) go through
    the transform's own ``transform`` with their sample's :meth:`sample_params`. ``RandomApplyTransform``'s
    ``p`` is one coin per sample: skipped samples keep their input (``torch.where``). Where the OpenCV
    wing can take the batch (CPU, uint8 / float32), the images go one by one through the single
    transform's kernels instead (``per_image``): the wing's per-image paths are faster there, and their
    outputs stay ``Pieces`` for the next stage (stacked where a batch tensor is needed)."""

    takes_pieces = True

    # the batched leaves apply() takes: images and videos (and plain image tensors), masks too if set
    moves_masks = False
    # whether apply() gets the leaves as they are (datapoints) rather than as plain tensors
    takes_datapoints = False
    # whether CPU batches the OpenCV wing can take go image by image through the single kernels
    per_image = True
    # the values sample_params reads element by element: it gets them as Python lists (one ``tolist`` a
    # value, where indexing a tensor costs ~1 µs an element); a list of tensors becomes a list of lists
    listed: tuple[str, ...] = ()

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        """The parameters of every sample: tensors with leading dim ``B`` (or values shared by all)."""
        return {}

    @abc.abstractmethod
    def apply(self, leaf: torch.Tensor, values: dict[str, Any]) -> torch.Tensor:
        """The transformed batched ``leaf`` (a plain tensor ``[B, ...]``; masks when ``moves_masks``)."""

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        """Sample ``i``'s parameters from the host copy of :meth:`draw`'s values (:meth:`host_values`)."""
        return {}

    def host_values(self, values: dict[str, Any]) -> dict[str, Any]:
        """:meth:`draw`'s values on the host (one read-back each), those named in ``listed`` as lists."""
        host = {}
        for key, value in values.items():
            if key in self.listed:
                value = value.tolist() if isinstance(value, torch.Tensor) else [
                    v.tolist() if isinstance(v, torch.Tensor) else v for v in value  # a list of tensors (or None)
                ]
            elif isinstance(value, torch.Tensor):
                value = value.cpu()
            host[key] = value
        return host

    def coins(self, batch: Batch, context: Context) -> torch.Tensor | None:
        if isinstance(self.transform, RandomApplyTransform):
            return _draws.coins(batch.size, self.transform.p, batch.device, context.generator)
        return None

    def run(self, batch: Batch, context: Context) -> tuple[Batch, Record]:
        if batch.size:
            self.transform.check_inputs(tree_flatten(batch.sample(0))[0])
        applied = self.coins(batch, context)
        values = self.draw(batch, context)
        leaves = [self._apply_leaf(leaf, values, applied) for leaf in batch.leaves]
        record = LeafRecord(self, values, applied)
        lists = [self._apply_entries(entries, record) for entries in batch.lists]
        return batch.with_values(leaves, lists), record

    def _apply_leaf(self, leaf: Any, values: dict[str, Any], applied: torch.Tensor | None) -> Any:
        kind = leaf.kind if isinstance(leaf, Pieces) else leaf
        if not isinstance(kind, self.transform._transformed_types) or (isinstance(kind, Mask) and not self.moves_masks):
            return leaf
        if self.per_image and _takes_batch_per_image(leaf):
            return pieces(self._per_image_outputs(leaf, values, applied), self.name)
        leaf = stacked(leaf)
        plain = leaf.as_subclass(torch.Tensor)
        out = self.apply(leaf if self.takes_datapoints else plain, values).as_subclass(torch.Tensor)
        if applied is not None:
            out = torch.where(per_image(applied, out), out, plain)
        return type(leaf).wrap_like(leaf, out) if isinstance(leaf, Datapoint) else out

    def apply_per_image(self, leaf: Any, values: dict[str, Any]) -> Any:
        """The single transform's ``transform`` on each image of the datapoint ``leaf`` with its parameters,
        stacked again: what the batched kernels do not cover (the implementations say when)."""
        outputs = self._per_image_outputs(leaf, values, None)
        return _stack(outputs, self.name) if outputs else leaf

    def _per_image_outputs(self, leaf: Any, values: dict[str, Any], applied: torch.Tensor | None) -> list[Any]:
        """The single transform's ``transform`` on each applied image of ``leaf`` (a batch tensor or
        ``Pieces``) with its parameters (one read-back of the draws); skipped images as they are."""
        host = self.host_values(values)
        skip = [False] * leaf.shape[0] if applied is None else (~applied).tolist()
        return [
            _index(leaf, i) if skip[i] else self.transform.transform(_index(leaf, i), self.sample_params(host, i))
            for i in range(leaf.shape[0])
        ]

    def _apply_entries(self, entries: list[Any], record: Record) -> list[Any]:
        out = []
        for i, entry in enumerate(entries):
            flat, spec = tree_flatten(entry)
            if not any(self._moves(x) for x in flat) or (params := record.params(i)) is None:
                out.append(entry)
                continue
            moved = [self.transform.transform(x, params) if self._moves(x) else x for x in flat]
            out.append(tree_unflatten(moved, spec))
        return out

    def _moves(self, leaf: Any) -> bool:
        return isinstance(leaf, self.transform._transformed_types) and isinstance(leaf, Datapoint)
