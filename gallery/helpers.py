"""Shared helpers of the gallery scripts: where figures go, the fast mode, the sample data, plotting.

Every script runs as ``python gallery/plot_NAME.py [OUT_DIR] [--fast]``. The output folder may also
come from ``VISIONTX_GALLERY_OUT`` and the fast mode (small images, few samples) from
``VISIONTX_GALLERY_FAST=1``; the defaults are ``gallery/out`` and the full settings.
"""

from __future__ import annotations

import os
import pathlib
import sys
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import PIL.Image  # noqa: E402
import torch  # noqa: E402

import visiontx.functional as F  # noqa: E402
from visiontx import datapoints, io  # noqa: E402
from visiontx.datasets import CocoDetection, wrap_dataset_for_transforms_v2  # noqa: E402
from visiontx.utils import draw_bounding_boxes, draw_segmentation_masks  # noqa: E402

COCO_SAMPLE = pathlib.Path(__file__).resolve().parent.parent / "visiontx" / "assets" / "coco_sample"
COLORS = ["cyan", "yellow", "lime", "magenta", "dodgerblue", "orange", "red", "white"]


def fast_mode() -> bool:
    """Whether to run with small images and few samples (``--fast`` or ``VISIONTX_GALLERY_FAST=1``)."""
    return "--fast" in sys.argv[1:] or os.environ.get("VISIONTX_GALLERY_FAST", "") not in ("", "0")


def output_dir() -> pathlib.Path:
    """The folder figures are written to: the first non-flag argument, ``VISIONTX_GALLERY_OUT`` or gallery/out."""
    positional = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    default = pathlib.Path(__file__).resolve().parent / "out"
    path = pathlib.Path(positional[0] if positional else os.environ.get("VISIONTX_GALLERY_OUT", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


def display_size() -> int:
    """The shorter edge sample images are resized to: small in fast mode."""
    return 96 if fast_mode() else 320


def coco_dataset(transforms: Any = None) -> Any:
    """The bundled COCO sample as a dataset of datapoints with boxes, labels and masks."""
    dataset = CocoDetection(str(COCO_SAMPLE / "images"), str(COCO_SAMPLE / "instances.json"), transforms=transforms)
    return wrap_dataset_for_transforms_v2(dataset, target_keys=("boxes", "labels", "masks"))


def sample_image() -> datapoints.Image:
    """The bundled photo as a uint8 ``Image``, shorter edge at :func:`display_size`."""
    image = datapoints.Image(io.read_image(COCO_SAMPLE / "images" / "000000000001.jpg", mode="RGB"))
    return F.resize(image, size=display_size(), antialias=True)


def sample_detection() -> tuple[datapoints.Image, dict[str, Any]]:
    """The bundled photo and its target (boxes, labels, masks), at :func:`display_size`."""
    image, target = coco_dataset()[0]
    image = F.to_image_tensor(image)
    size = display_size()
    resized = {key: F.resize(value, size=size) for key, value in target.items() if key in ("boxes", "masks")}
    return F.resize(image, size=size), {**target, **resized}


def _as_uint8_rgb(image: Any) -> torch.Tensor:
    """Any image-like (PIL, uint8 or float tensor, 1 or 3 channels, datapoint) as a uint8 3 x H x W tensor."""
    if isinstance(image, PIL.Image.Image):
        image = F.pil_to_tensor(image.convert("RGB"))
    tensor = image.as_subclass(torch.Tensor).detach().cpu()
    if tensor.is_floating_point():
        tensor = (tensor.clamp(0, 1) * 255).round().to(torch.uint8)
    return tensor.expand(3, -1, -1) if tensor.shape[0] == 1 else tensor[:3]


def draw(image: Any, target: dict[str, Any] | None = None) -> torch.Tensor:
    """``image`` with the target's masks and boxes drawn, as a uint8 RGB tensor."""
    canvas = _as_uint8_rgb(image)
    if not target:
        return canvas
    masks, boxes = target.get("masks"), target.get("boxes")
    count = len(boxes) if boxes is not None else len(masks) if masks is not None else 0
    colors = [COLORS[i % len(COLORS)] for i in range(count)]
    if masks is not None and masks.ndim == 3:
        canvas = draw_segmentation_masks(canvas, masks.bool().cpu(), alpha=0.35, colors=colors)
    if boxes is not None:
        canvas = draw_bounding_boxes(canvas, boxes.to("cpu"), colors=colors, width=2)
    return canvas


def _cell(item: Any) -> torch.Tensor:
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict):
        return draw(*item)
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], datapoints.BoundingBox):
        return draw(item[0], {"boxes": item[1]})
    return draw(item)


def plot(
    rows: Sequence[Sequence[Any]],
    path: pathlib.Path,
    *,
    row_titles: Sequence[str] | None = None,
    col_titles: Sequence[str] | None = None,
    cell_titles: Sequence[Sequence[str]] | None = None,
    cell_inches: float = 2.2,
) -> pathlib.Path:
    """Save a grid figure of images; an item may be an image, ``(image, target dict)`` or ``(image, boxes)``.

    Rows may have different lengths; ``cell_titles`` (per row, per item) override ``col_titles``.
    Returns ``path``.
    """
    num_rows, num_cols = len(rows), max(len(row) for row in rows)
    figure, axes = plt.subplots(
        num_rows, num_cols, squeeze=False, figsize=(cell_inches * num_cols, cell_inches * num_rows)
    )
    for r, row in enumerate(rows):
        for c in range(num_cols):
            axis = axes[r][c]
            axis.set(xticks=[], yticks=[])
            axis.set_frame_on(False)
            if c < len(row):
                axis.imshow(_cell(row[c]).permute(1, 2, 0).numpy())
            if c == 0 and row_titles:
                axis.set_ylabel(row_titles[r], rotation=0, ha="right", va="center", fontsize=9)
            if cell_titles and c < len(cell_titles[r]):
                axis.set_title(cell_titles[r][c], fontsize=8)
            elif r == 0 and col_titles and c < len(col_titles):
                axis.set_title(col_titles[c], fontsize=9)
    figure.tight_layout()
    return save(figure, path)


def save(figure: Any, path: pathlib.Path) -> pathlib.Path:
    """Write ``figure`` to ``path``, close it and say where it went."""
    figure.savefig(path, dpi=60 if fast_mode() else 100)
    plt.close(figure)
    print(f"wrote {path}")
    return path


def plot_family(examples: Sequence[tuple[str, Any]], inputs: Any, path: pathlib.Path) -> pathlib.Path:
    """One figure for a family of transforms: a row per transform, the input then a few outputs.

    ``inputs`` is what each transform is called on (an image, or ``(image, target)``).
    """
    samples = 2 if fast_mode() else 4
    rows, titles = [], []
    for title, transform in examples:
        outputs = [transform(inputs) for _ in range(samples)]
        rows.append([inputs, *outputs])
        titles.append(title)
    return plot(rows, path, row_titles=titles, col_titles=["input", *["sample"] * samples])

