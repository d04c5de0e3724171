"""Accuracy parity: the same small CNN trained with torchvision's transforms v2 and with visiontx.

The data are scikit-learn's handwritten digits (1,797 real 8 x 8 scans shipped inside scikit-learn,
upsampled once to 32 x 32 uint8 images), split once into fixed train and test sets. For each seed,
both runs build the same model from ``torch.manual_seed(seed)``, shuffle the training set in the same
order and augment every training sample with the same pipeline, written once against each library's
transforms with identical arguments; only the library differs. Test accuracy is measured on the
un-augmented test images. Needs torchvision and scikit-learn (the ``test`` extra). Run:

    python gallery/plot_training_parity.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import visiontx.transforms as T
from helpers import fast_mode, output_dir, plot, save

IMAGE_SIZE = 32
SEEDS = (0, 1, 2)
EPOCHS = 3
BATCH_SIZE = 32
LEARNING_RATE = 1e-2  # the peak of a one-cycle schedule
TEST_FRACTION = 0.25
SPLIT_SEED = 0
LIBRARIES = ("torchvision", "visiontx")


def load_digits_32() -> tuple[torch.Tensor, torch.Tensor]:
    """scikit-learn's digits as uint8 images ``N x 1 x 32 x 32`` (bilinear upsampling) and int64 labels."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    small = torch.from_numpy(digits.images).float().unsqueeze(1) / 16.0  # values 0..16 -> [0, 1]
    large = nn.functional.interpolate(small, size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)
    images = (large.clamp(0, 1) * 255).round().to(torch.uint8)
    return images, torch.from_numpy(digits.target).long()


def fixed_split(count: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Train and test indices: one permutation drawn from ``SPLIT_SEED``, the same for every run."""
    order = torch.randperm(count, generator=torch.Generator().manual_seed(SPLIT_SEED))
    num_test = round(count * TEST_FRACTION)
    return order[num_test:], order[:num_test]


def transforms_module(library: str) -> ModuleType:
    """``torchvision.transforms.v2`` or ``visiontx.transforms``."""
    if library == "torchvision":
        import torchvision.transforms.v2 as tv_transforms

        return tv_transforms
    if library == "visiontx":
        return T
    raise ValueError(f"library must be one of {LIBRARIES}, got {library!r}")


def augmentation(library: str) -> Any:
    """The training pipeline, the same arguments for both libraries, uint8 in and float32 in [0, 1] out."""
    transforms = transforms_module(library)
    return transforms.Compose(
        [
            transforms.RandomResizedCrop(IMAGE_SIZE, scale=(0.8, 1.0), antialias=True),
            transforms.RandomAffine(degrees=10, translate=(0.1, 0.1)),
            transforms.ColorJitter(brightness=0.3, contrast=0.3),
            transforms.ToDtype(torch.float32, scale=True),
        ]
    )


class AugmentedDigits(Dataset):
    """Images and labels; ``transform`` runs on every image as it is read (one draw per sample)."""

    def __init__(self, images: torch.Tensor, labels: torch.Tensor, transform: Any) -> None:
        self.images, self.labels, self.transform = images, labels, transform

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.transform(self.images[index]).as_subclass(torch.Tensor), self.labels[index]


def tiny_cnn() -> nn.Module:
    """Two 3 x 3 convolutions with batch norm and pooling, and a linear classifier: 11,546 parameters."""
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * (IMAGE_SIZE // 4) ** 2, 10),
    )


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Run the block with ``count`` intra-op threads, then restore the previous number."""
    previous = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def accuracy(model: nn.Module, images: torch.Tensor, labels: torch.Tensor) -> float:
    """Percentage of ``images`` (uint8) that ``model`` classifies as ``labels``."""
    model.eval()
    with torch.no_grad():
        predictions = model(images.float() / 255).argmax(dim=1)
    return 100.0 * (predictions == labels).float().mean().item()


def train_and_test(library: str, seed: int, epochs: int, data: tuple[torch.Tensor, torch.Tensor]) -> float:
    """Train :func:`tiny_cnn` for ``epochs`` with ``library``'s augmentation; the test accuracy in percent.

    ``torch.manual_seed(seed)`` fixes the model's initial weights and the augmentation draws; the shuffle
    has its own generator from ``seed``, so it is the same whatever the augmentation draws.
    """
    images, labels = data
    train, test = fixed_split(len(labels))
    torch.manual_seed(seed)
    model = tiny_cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    loader = DataLoader(
        AugmentedDigits(images[train], labels[train], augmentation(library)),
        batch_size=BATCH_SIZE,
        shuffle=True,
        num_workers=0,
        generator=torch.Generator().manual_seed(seed),
    )
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, LEARNING_RATE, total_steps=epochs * len(loader))
    for _ in range(epochs):
        model.train()
        for batch, targets in loader:
            loss = nn.functional.cross_entropy(model(batch), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
    return accuracy(model, images[test], labels[test])


def compare(seeds: Sequence[int] = SEEDS, epochs: int = EPOCHS, threads: int = 1) -> dict[str, list[float]]:
    """Test accuracies (percent) per library, one per seed, each run with ``threads`` torch threads."""
    return {library: timed_runs(library, seeds, epochs, threads)[0] for library in LIBRARIES}


def timed_runs(library: str, seeds: Sequence[int], epochs: int, threads: int = 1) -> tuple[list[float], float]:
    """``library``'s test accuracies, one per seed, and the CPU seconds the runs took.

    Torch's global generator is restored afterwards, so the runs leave no trace in the caller's draws.
    """
    data = load_digits_32()
    start = time.process_time()
    with torch_threads(threads), torch.random.fork_rng(devices=[]):
        accuracies = [train_and_test(library, seed, epochs, data) for seed in seeds]
    return accuracies, time.process_time() - start


def mean_and_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value)."""
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def parity_holds(first: Sequence[float], second: Sequence[float], floor: float = 90.0) -> bool:
    """Whether two sets of accuracies agree: both means above ``floor`` and apart by at most the larger
    standard deviation and at most 1 point."""
    (mean_a, std_a), (mean_b, std_b) = mean_and_std(first), mean_and_std(second)
    gap = abs(mean_a - mean_b)
    return min(mean_a, mean_b) > floor and gap <= max(std_a, std_b) and gap <= 1.0


def augmented_examples(count: int, seed: int = 0) -> list[list[torch.Tensor]]:
    """The first ``count`` training images, then each library's augmentation of them from the same seed."""
    images, labels = load_digits_32()
    originals = images[fixed_split(len(labels))[0][:count]]
    rows = [list(originals)]
    for library in LIBRARIES:
        pipeline = augmentation(library)
        torch.manual_seed(seed)
        rows.append([pipeline(image).as_subclass(torch.Tensor) for image in originals])
    return rows


def plot_accuracies(results: dict[str, list[float]], seeds: Sequence[int], path: Any) -> None:
    """Test accuracy per seed for each library, with each mean as a line."""
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(4.5, 3))
    for offset, (library, values) in zip((-0.1, 0.1), results.items()):
        mean, std = mean_and_std(values)
        line = axis.plot([s + offset for s in seeds], values, "o", label=f"{library}: {mean:.2f} ± {std:.2f}")
        axis.axhline(mean, color=line[0].get_color(), linestyle="--", linewidth=1)
    axis.set(xlabel="seed", ylabel="test accuracy (%)", xticks=list(seeds), title="digits, tiny CNN")
    axis.legend(fontsize=8)
    figure.tight_layout()
    save(figure, path)


def main() -> None:
    out = output_dir()
    seeds, epochs = ((0,), 1) if fast_mode() else (SEEDS, EPOCHS)
    rows = augmented_examples(4 if fast_mode() else 8)
    plot(rows, out / "training_parity_samples.png", row_titles=["input", *LIBRARIES], cell_inches=1.2)
    results = {}
    for library in LIBRARIES:
        results[library], seconds = timed_runs(library, seeds, epochs)
        mean, std = mean_and_std(results[library])
        runs = " ".join(f"{value:.2f}" for value in results[library])
        print(f"{library}: {runs}; mean {mean:.2f} ± {std:.2f}; {seconds:.1f} s of CPU ({epochs} epochs)")
    if len(seeds) > 1:
        print("parity:", "yes" if parity_holds(*results.values()) else "no")
    plot_accuracies(results, seeds, out / "training_parity_accuracy.png")


if __name__ == "__main__":
    main()
