"""``Compose(..., fuse_geometry=True)`` on batches: each run of fusible transforms composes every
sample's matrices and samples once (one batched warp), with the fused path's rules per sample."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import torch

from ...datapoints import Datapoint, Image, Mask
from ...functional import Geometry, InterpolationMode, warp
from ...functional._color._batched import per_image
from ...functional._geometry import _batched as G
from .._fusion import _RANKS, apply_run, edge_bands, repeats_edges, split_runs
from .._geometry import (
    RandomAffine,
    RandomCrop,
    RandomHorizontalFlip,
    RandomPerspective,
    RandomResizedCrop,
    RandomRotation,
    RandomVerticalFlip,
)
from .._tape import Tape, listening, params_of
from .._utils import FillMixin
from ._batch import Batch, _index
from ._core import Context, LeafRecord, Loop, Record, batched_for, own_generator, run_sequence
from ._geometry import Warp

# the fusible transforms whose batched implementations give per-sample matrices onto a common canvas
_MATRIX_RUNS = (RandomResizedCrop, RandomAffine, RandomRotation, RandomPerspective, RandomCrop,
                RandomHorizontalFlip, RandomVerticalFlip)


class _FusedRecord(Record):
    def __init__(self, records: list[Record]) -> None:
        self.records = records

    def params(self, i: int) -> list[Any]:
        return [record.params(i) for record in self.records]


def _fused_single(run: list[Any], sample: Any) -> tuple[Any, list[Any]]:
    """``apply_run`` of one sample, with each transform's parameters (None where its coin skipped it), read off a
    recording tape (the draws and the fused result are the same without one)."""
    nodes: list[dict[str, Any]] = [{} for _ in run]
    with listening(Tape(replaying=False)) as tape:
        tape.pending = list(zip(run, nodes))
        output = apply_run(run, sample)
    return output, [params_of(node) for node in nodes]


class _RunRecord(Record):
    """Transform ``j``'s parameters in the per-sample lists of a fused run looped sample by sample."""

    def __init__(self, record: Record, j: int) -> None:
        self.record, self.j = record, j

    def params(self, i: int) -> Any:
        return self.record.params(i)[self.j]


def run_fused(transforms: list[Any], batch: Batch, context: Context) -> tuple[Batch, Record]:
    """The fused Compose's runs on a batch: runs of several fusible transforms through :func:`_run_matrices`
    when their classes all give matrices (and the batch has no per-sample lists), else sample by sample
    through the fused path (``apply_run``, torch's default generator); other transforms as unfused."""
    records: list[Record] = []
    for fusible, run in split_runs(transforms):
        if fusible and len(run) > 1 and _by_matrices(run, batch):
            batch, run_records = _run_matrices(run, batch, context)
            records.extend(run_records)
        elif fusible and len(run) > 1:
            loop = Loop(functools.partial(apply_run, run), single=functools.partial(_fused_single, run))
            batch, record = loop.run(batch, Context(context.generator, False))
            records.extend(_RunRecord(record, j) for j in range(len(run)))
        else:
            batch, sequence = run_sequence(run, batch, context)
            records.extend(sequence)
    return batch, _FusedRecord(records)


def _by_matrices(run: list[Any], batch: Batch) -> bool:
    return not batch.lists and all(
        type(t) in _MATRIX_RUNS and not getattr(t, "expand", False) for t in run
    )


def _probe(batch: Batch, size: tuple[int, int]) -> Batch:
    """A batch of ``size`` with no data (draws only read sizes)."""
    channels = batch.channels or 1
    empty = Image(torch.empty(1, device=batch.device).expand(batch.size, channels, *size))
    return batch.with_values([empty], [])


def _flip_matrices(transform: Any, size: int, canvas: tuple[int, int], device: torch.device) -> torch.Tensor:
    matrices = G.eye(size, device)
    if isinstance(transform, RandomHorizontalFlip):
        matrices[:, 0, 0], matrices[:, 0, 2] = -1.0, float(canvas[1])
    else:
        matrices[:, 1, 1], matrices[:, 1, 2] = -1.0, float(canvas[0])
    return matrices


def _is_exact(matrices: torch.Tensor) -> torch.Tensor:
    """``[B]``: whether each map moves whole pixels (a flip or quarter turn and an integer shift)."""
    (a, b, c), (d, e, f), (g, h, i) = (row.abs().unbind(-1) for row in matrices.unbind(-2))
    turn = ((a == 1) & (b == 0) & (d == 0) & (e == 1)) | ((a == 0) & (b == 1) & (d == 1) & (e == 0))
    last = (g == 0) & (h == 0) & (matrices[:, 2, 2] == 1)
    return turn & last & (c == c.round()) & (f == f.round())


def _run_matrices(run: list[Any], batch: Batch, context: Context) -> tuple[Batch, list[Record]]:
    """Each transform draws for all samples on the canvas of the run so far (as unfused); per sample,
    the applied transforms' matrices compose. A sample with two or more applied transforms that are not
    all exact moves once through its composed map (the run's fused rules: the highest interpolation it
    applied, the run's fill, block means where an antialiased step shrinks by 2 or more); the others
    keep their unfused result (the same draws, transform by transform)."""
    batch = batch.stacked()
    size, canvas, device = batch.size, batch.spatial_size, batch.device
    composed, applied_count = G.eye(size, device), torch.zeros(size, dtype=torch.long, device=device)
    exact = torch.ones(size, dtype=torch.bool, device=device)
    ranks = torch.zeros(size, dtype=torch.long, device=device)
    antialias = torch.zeros(size, dtype=torch.bool, device=device)
    steps, unfused = [], batch
    for transform in run:
        implementation = batched_for(transform)
        probe = _probe(batch, canvas)
        with own_generator(transform, probe, context) as own:
            applied = implementation.coins(probe, own)
            values = implementation.draw(probe, own)
        on = torch.ones(size, dtype=torch.bool, device=device) if applied is None else applied
        if isinstance(implementation, Warp):
            matrices, canvas = G.invert(implementation.inverse(values)), tuple(values["out_size"])
        else:
            matrices = _flip_matrices(transform, size, canvas, device)
        composed = torch.where(on.view(-1, 1, 1), matrices @ composed, composed)
        applied_count += on.long()
        exact &= ~on | _is_exact(matrices)
        if hasattr(transform, "interpolation"):
            rank = min(_RANKS.get(transform.interpolation, 2), 1)  # tensors: bicubic counts as bilinear
            ranks = torch.where(on, ranks.clamp(min=rank), ranks)
        if getattr(transform, "antialias", False):
            antialias |= on
        unfused = unfused.with_values([implementation._apply_leaf(x, values, applied) for x in unfused.leaves])
        steps.append(LeafRecord(implementation, values, applied))
    fused = (applied_count >= 2) & ~exact
    fill_of = next((t for t in run if isinstance(t, FillMixin)), None)
    leaves = []
    for leaf, replayed in zip(batch.leaves, unfused.stacked().leaves):
        moved = _warp_leaf(leaf, composed, canvas, ranks, antialias, fill_of, run)
        out = torch.where(per_image(fused, moved), moved, replayed.as_subclass(torch.Tensor))
        leaves.append(type(leaf).wrap_like(leaf, out) if isinstance(leaf, Datapoint) else out)
    return batch.with_values(leaves), steps


def _edge_boxes(inverse: torch.Tensor, canvas: tuple[int, int], in_size: Sequence[int]) -> torch.Tensor | None:
    """``warp_batch``'s source boxes: the edge pixels' centres for the maps that read only the input and its outer
    half pixel (``edge_bands``, the fused Compose's test: there the edge pixel, as a resize gives), no bound for the
    others; on the CPU None when no map does (elsewhere that would be a read-back: the bounds are always given)."""
    band = edge_bands(inverse, canvas, in_size)
    if inverse.device.type == "cpu" and not bool(band.any()):
        return None
    height, width = in_size
    centres = inverse.new_tensor([0.5, 0.5, width - 0.5, height - 0.5])
    unbounded = inverse.new_tensor([-math.inf, -math.inf, math.inf, math.inf])
    return torch.where(band[:, None], centres, unbounded)


def _warp_leaf(
    leaf: torch.Tensor, composed: torch.Tensor, canvas: tuple[int, int], ranks: torch.Tensor,
    antialias: torch.Tensor, fill_of: Any, run: list[Any],
) -> torch.Tensor:
    fill = None if fill_of is None else fill_of._fill_for(leaf)
    if fill is not None and not any(torch.as_tensor(fill, dtype=torch.float64).flatten().tolist()):
        fill = None  # zeros: the warp's own border, as the fused path
    plain = leaf.as_subclass(torch.Tensor)
    inverse = G.invert(composed)
    projective = any(isinstance(t, RandomPerspective) for t in run)
    if isinstance(leaf, Mask):
        return G.warp_batch(plain, inverse, canvas, InterpolationMode.NEAREST, fill, projective)
    edges = not projective and repeats_edges(run)  # resizes, crops and flips only (warps blend their fill)
    out = G.warp_batch(plain, inverse, canvas, InterpolationMode.BILINEAR, fill, projective,
                       source_box=_edge_boxes(inverse, canvas, plain.shape[-2:]) if edges else None)
    if any(_RANKS.get(getattr(t, "interpolation", None), 2) == 0 for t in run):
        nearest = G.warp_batch(plain, inverse, canvas, InterpolationMode.NEAREST, fill, projective)
        out = torch.where(per_image(ranks == 0, out), nearest, out)
    if not any(getattr(t, "antialias", False) for t in run):  # nothing antialiases: no read-back
        return out
    shrinking = antialias & G.shrinks_by_two(composed, canvas)
    if bool(shrinking.any()):  # one read-back: those samples average blocks first, one at a time
        out = out.clone()
        for i in shrinking.nonzero()[:, 0].tolist():
            geometry = Geometry(composed[i].tolist(), canvas)
            out[i] = warp(_index(leaf, i), geometry, "bilinear", fill, antialias=True).as_subclass(torch.Tensor)
    return out
