"""Multi-process loading (gallery/plot_distributed_loading.py): two ``torch.distributed`` ranks (gloo, CPU),
each a ``DistributedSampler`` and a DataLoader with workers over ``datasets.Augmented``, see together exactly
the samples one process sees with the same seed and epoch. ``test_gallery`` runs the script's spawn launch;
here it runs under ``torchrun`` (``python -m torch.distributed.run``), and the check itself is tested."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest
import torch

from .common import GALLERY, gallery_script

ROOT = GALLERY.parent


@pytest.fixture(scope="module")
def script() -> Iterator[ModuleType]:
    """The gallery script as a module."""
    yield from gallery_script("plot_distributed_loading")


def _sample(value: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return torch.full((3, 4, 4), value, dtype=torch.uint8), torch.tensor([[0.0, 0.0, 2.0, 2.0]]), torch.tensor([value])


def test_check_union_accepts_the_same_samples_in_any_split(script: ModuleType) -> None:
    single = [(i, _sample(i)) for i in range(6)]
    ranks = [[single[4], single[0], single[2]], [single[1], single[5], single[3]]]
    assert script.check_union(ranks, single) == 6


def test_check_union_finds_a_different_or_missing_sample(script: ModuleType) -> None:
    single = [(i, _sample(i)) for i in range(4)]
    with pytest.raises(AssertionError, match=r"samples \[2\] differ"):
        script.check_union([[single[0], single[1]], [(2, _sample(9)), single[3]]], single)
    with pytest.raises(AssertionError, match="indices"):
        script.check_union([[single[0], single[1]], [single[3]]], single)


def test_augmented_draws_do_not_depend_on_the_rank_split(script: ModuleType) -> None:
    """The loading function itself, without processes: ranks of a 2-way split (with workers) against one."""
    dataset = script.augmented_dataset(fast=True)
    single = dict(script.load_epoch(dataset, 0, 1, workers=0))
    for rank in range(2):
        for index, sample in script.load_epoch(dataset, rank, 2, workers=1):
            assert script.same_samples(script.as_plain(sample), script.as_plain(single[index]))


def test_two_ranks_under_torchrun_see_one_process_epoch(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("matplotlib")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    command += [str(GALLERY / "plot_distributed_loading.py"), str(tmp_path), "--fast"]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"torchrun failed:\n{result.stdout}\n{result.stderr}"
    assert "the union of 2 ranks equals one process's epoch 3: 8 samples, identical" in result.stdout
    assert (tmp_path / "distributed_loading.png").exists()
