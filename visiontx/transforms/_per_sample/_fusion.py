"""``Compose(..., fuse_geometry=True)`` on batches: its runs as the fused Compose splits them."""

from __future__ import annotations

import functools
from typing import Any

from .._fusion import apply_run, split_runs
from ._batch import Batch
from ._containers import run_sequence
from ._core import Context, Loop, Record


class _FusedRecord(Record):
    def __init__(self, records: list[Record]) -> None:
        self.records = records

    def params(self, i: int) -> list[Any]:
        return [record.params(i) for record in self.records]


def run_fused(transforms: list[Any], batch: Batch, context: Context) -> tuple[Batch, Record]:
    """Runs of several fusible transforms go sample by sample through the fused path (``apply_run``:
    draws from torch's default generator, one resampling per sample); the other transforms as unfused."""
    records: list[Record] = []
    for fusible, run in split_runs(transforms):
        if fusible and len(run) > 1:
            batch, record = Loop(functools.partial(apply_run, run)).run(batch, Context(context.generator, False))
            records.append(record)
        else:
            batch, sequence = run_sequence(run, batch, context)
            records.extend(sequence)
    return batch, _FusedRecord(records)
