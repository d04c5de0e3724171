"""CutMix and MixUp in a classification training loop.

They mix *batches*, so they run after the DataLoader (or inside its collate function): the images of
a batch are blended (MixUp) or pasted into each other (CutMix) and the integer labels become class
probabilities weighted by the mixed area. Run:

    python gallery/plot_cutmix_mixup.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, default_collate

import visiontx.transforms as T
from helpers import fast_mode, output_dir, plot, sample_image

NUM_CLASSES = 4


class CropsDataset(Dataset):
    """Augmented crops of the sample photo; the label of a crop is which quadrant its centre fell in."""

    def __init__(self, length: int, size: int) -> None:
        self.image, self.length = sample_image(), length
        self.crop = T.RandomCrop(size)
        self.finish = T.Compose([T.RandomHorizontalFlip(), T.ToDtype(torch.float32, scale=True)])

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> tuple[torch.Tensor, int]:
        crop = self.crop(self.image)
        return self.finish(crop).as_subclass(torch.Tensor), index % NUM_CLASSES


def cutmix_or_mixup_collate(batch: list[tuple[torch.Tensor, int]], mix: Any) -> Any:
    """Collate the batch then mix it: one of CutMix / MixUp per batch."""
    return mix(*default_collate(batch))


def main() -> None:
    torch.manual_seed(0)
    out = output_dir()
    size = 32 if fast_mode() else 64
    mix = T.RandomChoice([T.CutMix(num_classes=NUM_CLASSES), T.MixUp(num_classes=NUM_CLASSES)])
    loader = DataLoader(
        CropsDataset(length=8 if fast_mode() else 64, size=size),
        batch_size=4,
        shuffle=True,
        collate_fn=lambda batch: cutmix_or_mixup_collate(batch, mix),
    )
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * size * size, NUM_CLASSES))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    shown: list[tuple[torch.Tensor, torch.Tensor]] = []
    for epoch in range(1 if fast_mode() else 2):
        for images, labels in loader:
            assert labels.shape == (len(images), NUM_CLASSES)  # probabilities now, not class indices
            loss = nn.functional.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if len(shown) < 8:
                shown.extend(zip(images, labels))
        print(f"epoch {epoch}: last loss {loss.item():.3f}")
    rows = [shown[i : i + 4] for i in range(0, len(shown), 4)]
    titles = [[" ".join(f"{p:.2f}" for p in labels.tolist()) for _, labels in row] for row in rows]
    plot([[image for image, _ in row] for row in rows], out / "cutmix_mixup.png", cell_titles=titles)


if __name__ == "__main__":
    main()
