"""``python -m visiontx demo``: augment the bundled COCO sample and draw the results in one grid picture."""

from __future__ import annotations

import json
import math
import pathlib
import sys
import time
from typing import Any

import torch

from . import datapoints
from . import transforms as T
from .datasets import CocoDetection, wrap_dataset_for_transforms_v2
from .utils import draw_bounding_boxes, draw_segmentation_masks, make_grid, save_image

SAMPLE = pathlib.Path(__file__).parent / "assets" / "coco_sample"
CELL = 256  # each augmented sample is drawn in a CELL x CELL square
COLUMNS = 4
PADDING = 2
IMAGENET_MEAN_RGB = (123, 117, 104)
COLORS = ["cyan", "yellow", "lime", "magenta", "dodgerblue", "orange", "red", "white"]


def load_sample(root: pathlib.Path = SAMPLE) -> Any:
    """The bundled COCO sample as a dataset of datapoints: (Image, {"boxes", "labels", "masks"})."""
    dataset = CocoDetection(str(root / "images"), str(root / "instances.json"))
    return wrap_dataset_for_transforms_v2(dataset, target_keys=("boxes", "labels", "masks"))


def category_names(root: pathlib.Path = SAMPLE) -> dict[int, str]:
    with open(root / "instances.json", encoding="utf-8") as file:
        return {category["id"]: category["name"] for category in json.load(file)["categories"]}


def training_pipeline(display_size: int = CELL) -> T.Compose:
    """The detection / instance-segmentation training augmentation, then a resize to fit the display."""
    return T.Compose(
        [
            T.ToImageTensor(),
            T.RandomPhotometricDistort(p=1.0),
            T.RandomZoomOut(fill={datapoints.Image: IMAGENET_MEAN_RGB, "others": 0}),
            T.RandomIoUCrop(),
            T.RandomHorizontalFlip(),
            T.Resize(display_size - 1, max_size=display_size),
            T.SanitizeBoundingBox(),
        ]
    )


def draw_sample(image: torch.Tensor, target: dict[str, Any], names: dict[int, str]) -> torch.Tensor:
    """Masks and labelled boxes drawn on the image, centred on a CELL x CELL canvas."""
    labels = [int(label) for label in target["labels"]]
    colors = [COLORS[i % len(COLORS)] for i in range(len(labels))]
    drawn = draw_segmentation_masks(image, target["masks"].bool(), alpha=0.35, colors=colors)
    captions = [names.get(label, str(label)) for label in labels]
    drawn = draw_bounding_boxes(
        drawn, target["boxes"], labels=captions, colors=colors, width=2, font_size=14, fill_labels=True
    )
    return letterbox(drawn, CELL)


def letterbox(image: torch.Tensor, size: int) -> torch.Tensor:
    """``image`` (at most ``size`` on each side) centred on a black ``size x size`` canvas."""
    height, width = image.shape[-2:]
    canvas = image.new_zeros((image.shape[0], size, size))
    top, left = (size - height) // 2, (size - width) // 2
    canvas[:, top : top + height, left : left + width] = image
    return canvas


def grid_size(n: int) -> tuple[int, int]:
    """(height, width) in pixels of the demo picture for ``n`` samples."""
    if n == 1:
        return CELL, CELL
    columns = min(n, COLUMNS)
    rows = math.ceil(n / columns)
    return rows * (CELL + PADDING) + PADDING, columns * (CELL + PADDING) + PADDING


def run_demo(out: str = "visiontx_demo.png", n: int = 8, seed: int = 0) -> int:
    """Augment the bundled sample ``n`` times (seeded), draw boxes and masks, write a grid PNG to ``out``."""
    if n < 1:
        print(f"--n must be at least 1, got {n}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    torch.manual_seed(seed)
    image, target = load_sample()[0]
    names = category_names()
    pipeline = training_pipeline()
    panels = [draw_sample(*pipeline(image, target), names) for _ in range(n)]
    path = pathlib.Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_image(make_grid(panels, nrow=COLUMNS, padding=PADDING, pad_value=255), path)
    height, width = grid_size(n)
    print(f"wrote {path} ({n} augmented samples, {width}x{height} px) in {time.perf_counter() - start:.2f} s")
    return 0
