"""Accuracy parity in training: the same tiny CNN on scikit-learn's digits, augmented by torchvision's
transforms v2 or by visiontx with identical arguments, reaches the same test accuracy (3 seeds each).

The training code is the gallery script's (gallery/plot_training_parity.py), imported here.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from types import ModuleType

import pytest
import torch

from .common import gallery_script


@pytest.fixture(scope="module")
def parity() -> Iterator[ModuleType]:
    """The gallery script as a module."""
    yield from gallery_script("plot_training_parity")


def test_digits_are_real_scans_upsampled_and_split_once(parity: ModuleType) -> None:
    images, labels = parity.load_digits_32()
    assert images.shape == (1797, 1, 32, 32) and images.dtype == torch.uint8
    assert labels.shape == (1797,) and sorted(labels.unique().tolist()) == list(range(10))
    assert images.amin() == 0 and images.amax() == 255
    train, test = parity.fixed_split(len(labels))
    assert len(test) == 449 and len(train) == 1348
    assert sorted(torch.cat([train, test]).tolist()) == list(range(1797))
    assert torch.equal(test, parity.fixed_split(len(labels))[1])


def test_both_pipelines_draw_the_same_augmentation_from_the_same_seed(parity: ModuleType) -> None:
    originals, from_torchvision, from_visiontx = (torch.stack(row) for row in parity.augmented_examples(32))
    assert from_torchvision.dtype == from_visiontx.dtype == torch.float32
    assert from_visiontx.shape == from_torchvision.shape == (32, 1, 32, 32)
    moved = (from_torchvision - originals.float() / 255).abs().mean() * 255
    apart = (from_torchvision - from_visiontx).abs() * 255
    assert moved > 20  # the augmentation changes the images a lot ...
    assert apart.mean() < 1.5 and apart.amax() <= 3.01  # ... and both libraries alike (uint8 rounding)


def test_parity_criterion(parity: ModuleType) -> None:
    assert parity.parity_holds([97.0, 98.0, 99.0], [97.5, 98.5, 99.5])  # means 0.5 apart, stds 1
    assert parity.parity_holds([97.0, 98.0, 99.0], [98.5, 99.0, 99.5])  # 1.0 apart, stds 1 and 0.5
    assert not parity.parity_holds([98.0, 98.1, 98.2], [97.5, 97.6, 97.7])  # 0.5 apart, stds 0.1
    assert not parity.parity_holds([94.0, 97.0, 100.0], [95.5, 98.5, 101.5])  # stds 3, but 1.5 apart
    assert not parity.parity_holds([89.0, 90.0, 91.0], [89.0, 90.0, 91.0])  # equal, but not above 90


def test_torchvision_and_visiontx_augmentations_train_to_the_same_accuracy(parity: ModuleType) -> None:
    results = parity.compare(parity.SEEDS, parity.EPOCHS)
    summary = {library: (statistics.fmean(values), statistics.stdev(values)) for library, values in results.items()}
    message = f"test accuracies per seed {results}, (mean, std) {summary}"
    assert set(results) == {"torchvision", "visiontx"} and all(len(v) == 3 for v in results.values()), message
    (tv_mean, tv_std), (vx_mean, vx_std) = summary["torchvision"], summary["visiontx"]
    assert tv_mean > 90 and vx_mean > 90, message
    assert abs(tv_mean - vx_mean) <= max(tv_std, vx_std), message
    assert abs(tv_mean - vx_mean) <= 1.0, message
