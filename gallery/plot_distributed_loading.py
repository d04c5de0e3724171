"""Loading on several ranks with ``torch.distributed``: each rank sees its share, the union is one process's run.

Two processes (gloo backend, CPU) each hold a ``DistributedSampler`` and a ``DataLoader`` with workers that
run the detection gallery's training pipeline on the wrapped COCO sample. ``visiontx.datasets.Augmented`` draws the
augmentation of sample ``i`` from ``(seed, epoch, i)`` only, so what the ranks see together equals, sample
for sample, what a single process sees with the same seed and epoch, whatever the number of ranks and
workers. Rank 0 gathers every rank's samples, checks that, and draws who saw what.

Run it as one command (it spawns the two ranks with ``torch.multiprocessing.spawn``):

    python gallery/plot_distributed_loading.py [OUT_DIR] [--fast]

or under ``torchrun`` (one or several nodes), which sets ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR`` and
``MASTER_PORT``:

    torchrun --nproc_per_node=2 gallery/plot_distributed_loading.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import os
import pathlib
import socket
from typing import Any

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from visiontx.datasets import Augmented
from helpers import coco_dataset, fast_mode, output_dir, plot
from plot_detection_end_to_end import RepeatDataset, training_pipeline

WORLD_SIZE = 2
SEED = 2026
EPOCH = 3


def augmented_dataset(fast: bool) -> Augmented:
    size, times = (64, 8) if fast else (160, 16)
    return Augmented(RepeatDataset(coco_dataset(), times), training_pipeline(size), seed=SEED)


def keep_index(batch: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """Collate that keeps each sample as it is (detection samples differ in their number of objects)."""
    return batch


class Indexed(Dataset):
    """``(index, sample)`` pairs, so a rank can say which samples it saw."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> tuple[int, Any]:
        return index, self.dataset[index]


def load_epoch(dataset: Augmented, rank: int, world_size: int, workers: int) -> list[tuple[int, Any]]:
    """The samples one rank loads in epoch ``EPOCH``: its ``DistributedSampler`` share, through workers."""
    dataset.set_epoch(EPOCH)  # before the loader's iterator is made: workers copy the dataset then
    sampler = DistributedSampler(Indexed(dataset), num_replicas=world_size, rank=rank, shuffle=True, seed=SEED)
    sampler.set_epoch(EPOCH)
    loader = DataLoader(Indexed(dataset), batch_size=4, sampler=sampler, num_workers=workers, collate_fn=keep_index)
    return [item for batch in loader for item in batch]


def as_plain(sample: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Image, boxes and labels as plain tensors (what goes through ``gather_object``)."""
    image, target = sample
    return (
        image.as_subclass(torch.Tensor),
        target["boxes"].as_subclass(torch.Tensor),
        target["labels"].as_subclass(torch.Tensor),
    )


def same_samples(a: tuple[torch.Tensor, ...], b: tuple[torch.Tensor, ...]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def check_union(gathered: list[list[tuple[int, Any]]], single: list[tuple[int, Any]]) -> int:
    """Raise unless the ranks' samples, together, are exactly the single process's; return their number."""
    seen = {index: sample for rank_items in gathered for index, sample in rank_items}
    expected = dict(single)
    if sorted(seen) != sorted(expected):
        raise AssertionError(f"the ranks saw indices {sorted(seen)}, one process sees {sorted(expected)}")
    differing = [index for index in expected if not same_samples(seen[index], expected[index])]
    if differing:
        raise AssertionError(f"samples {differing} differ between the ranks and one process")
    return len(seen)


def run_rank(rank: int, world_size: int, out: pathlib.Path, fast: bool) -> None:
    """One rank: load its share with workers, gather everything on rank 0, check it and draw it."""
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    try:
        dataset = augmented_dataset(fast)
        mine = [(index, as_plain(sample)) for index, sample in load_epoch(dataset, rank, world_size, workers=2)]
        gathered: list[Any] = [None] * world_size if rank == 0 else None
        dist.gather_object(mine, gathered, dst=0)
        if rank == 0:
            single = [(i, as_plain(sample)) for i, sample in load_epoch(dataset, 0, 1, workers=0)]
            count = check_union(gathered, single)
            print(f"the union of {world_size} ranks equals one process's epoch {EPOCH}: {count} samples, identical")
            draw_ranks(gathered, out / "distributed_loading.png")
    finally:
        dist.destroy_process_group()


def draw_ranks(gathered: list[list[tuple[int, Any]]], path: pathlib.Path) -> None:
    rows = [[(image, {"boxes": boxes}) for _, (image, boxes, _) in items[:6]] for items in gathered]
    titles = [[f"sample {index}" for index, _ in items[:6]] for items in gathered]
    plot(rows, path, row_titles=[f"rank {r}" for r in range(len(rows))], cell_titles=titles)


def _spawned(rank: int, world_size: int, port: int, out: str, fast: bool) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    run_rank(rank, world_size, pathlib.Path(out), fast)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main() -> None:
    out, fast = output_dir(), fast_mode()
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # launched by torchrun
        run_rank(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), out, fast)
    else:
        mp.spawn(_spawned, args=(WORLD_SIZE, free_port(), str(out), fast), nprocs=WORLD_SIZE)


if __name__ == "__main__":
    main()
