"""End to end detection: the COCO sample, a training pipeline, a DataLoader with a collate function.

``wrap_dataset_for_transforms_v2`` turns COCO targets into datapoints (``BoundingBox``, ``Mask``) so
that a joint pipeline transforms image, boxes and masks together. Detection samples hold a
different number of objects each, so the DataLoader needs a collate function that keeps lists.
Run:

    python gallery/plot_detection_end_to_end.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils.data import DataLoader

import visiontx.transforms as T
from visiontx import datapoints
from helpers import coco_dataset, display_size, fast_mode, output_dir, plot


def collate(batch: list[tuple[Any, dict[str, Any]]]) -> tuple[tuple[Any, ...], tuple[dict[str, Any], ...]]:
    """Keep images and targets as tuples: samples differ in size and number of objects."""
    images, targets = zip(*batch)
    return images, targets


def training_pipeline(size: int) -> T.Compose:
    return T.Compose(
        [
            T.ToImageTensor(),
            T.RandomPhotometricDistort(p=1.0),
            T.RandomZoomOut(fill={datapoints.Image: (123, 117, 104), "others": 0}),
            T.RandomIoUCrop(),
            T.RandomHorizontalFlip(),
            T.Resize((size, size), antialias=True),
            T.SanitizeBoundingBox(),
            T.ToDtype(torch.float32, scale=True),
        ]
    )


class RepeatDataset(torch.utils.data.Dataset):
    """The one-image sample seen ``times`` times, so an epoch has several (differently augmented) samples."""

    def __init__(self, dataset: Any, times: int) -> None:
        self.dataset, self.times = dataset, times

    def __len__(self) -> int:
        return len(self.dataset) * self.times

    def __getitem__(self, index: int) -> Any:
        return self.dataset[index % len(self.dataset)]


def main() -> None:
    torch.manual_seed(0)
    out = output_dir()
    size = display_size()
    dataset = RepeatDataset(coco_dataset(transforms=training_pipeline(size)), times=4 if fast_mode() else 8)
    loader = DataLoader(dataset, batch_size=4, shuffle=True, collate_fn=collate, num_workers=0 if fast_mode() else 2)
    rows = []
    for images, targets in loader:
        batch = torch.stack([image.as_subclass(torch.Tensor) for image in images])  # what a model would take
        assert batch.shape == (len(images), 3, size, size) and batch.dtype == torch.float32
        for target in targets:
            assert len(target["boxes"]) == len(target["labels"]) == len(target["masks"])
        rows.append(list(zip(images, targets)))
    titles = [f"batch {i}" for i in range(len(rows))]
    plot(rows, out / "detection_end_to_end.png", row_titles=titles)


if __name__ == "__main__":
    main()
