"""Getting started: one transform pipeline for classification, detection and segmentation.

A visiontx transform takes any sample structure and applies *one* draw of random parameters to every
input in it, so an image and its boxes and masks move together. Run:

    python gallery/plot_getting_started.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import pathlib

import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx import datapoints
from helpers import output_dir, plot, sample_detection, sample_image


def classification(out: pathlib.Path) -> None:
    """A classification pipeline on a uint8 image; the last step makes it float for a model."""
    image = sample_image()
    size = image.shape[-1] // 2
    trans = T.Compose(
        [
            T.RandomResizedCrop(size=(size, size), antialias=True),
            T.RandomHorizontalFlip(p=0.5),
            T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1),
            T.ToDtype(torch.float32, scale=True),
        ]
    )
    outputs = [trans(image) for _ in range(4)]
    assert outputs[0].dtype == torch.float32 and type(outputs[0]) is datapoints.Image
    plot([[image, *outputs]], out / "getting_started_classification.png", col_titles=["input", "augmented"])


def detection_and_segmentation(out: pathlib.Path) -> None:
    """Boxes and instance masks follow the geometry of the image; the labels pass through."""
    image, target = sample_detection()
    boxes, masks, labels = target["boxes"], target["masks"], target["labels"]
    trans = T.Compose(
        [
            T.RandomRotation(degrees=30),
            T.RandomHorizontalFlip(p=0.5),
            T.RandomResizedCrop(size=image.shape[-2:], scale=(0.5, 1.0), antialias=True),
        ]
    )
    rows = [[(image, target)]]
    for _ in range(3):
        new_image, new_boxes, new_masks, new_labels = trans(image, boxes, masks, labels)
        assert new_labels is labels  # untouched leaves come back as the same object
        rows[0].append((new_image, {"boxes": new_boxes, "masks": new_masks}))
    sample = trans({"image": image, "target": target, "note": "any structure is kept"})
    rows.append([(image, target), (sample["image"], sample["target"])])
    plot(rows, out / "getting_started_detection.png", row_titles=["positional", "dict sample"])


def functional_api(out: pathlib.Path) -> None:
    """The same ops as functions: one dispatcher per op, for any input type."""
    image, target = sample_detection()
    boxes = target["boxes"]
    flipped = (F.horizontal_flip(image), F.horizontal_flip(boxes))
    rotated = (F.rotate(image, angle=20, expand=True), F.rotate(boxes, angle=20, expand=True))
    pil = F.to_image_pil(image)
    gray = F.to_image_tensor(F.rgb_to_grayscale(pil))
    plot(
        [[(image, boxes), flipped, rotated, gray]],
        out / "getting_started_functional.png",
        col_titles=["input", "horizontal_flip", "rotate(20, expand)", "rgb_to_grayscale (PIL)"],
    )


def main() -> None:
    torch.manual_seed(0)
    out = output_dir()
    classification(out)
    detection_and_segmentation(out)
    functional_api(out)


if __name__ == "__main__":
    main()
