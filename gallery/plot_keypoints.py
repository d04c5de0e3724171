"""Key points: a person's skeleton through a random geometric pipeline, with its visibility.

The bundled photo comes with a hand-made COCO person key-point annotation (``person_keypoints.json``):
``wrap_dataset_for_transforms_v2(..., target_keys={"keypoints", ...})`` gives ``KeyPoints`` ``[1, 17, 2]``
whose ``visibility`` is COCO's ``v > 0``. A random flip, affine and crop move the points with the pixels;
the points a step moves off the canvas become invisible and ``draw_keypoints`` leaves them (and their
edges) out. ``SanitizeKeyPoints`` then drops people with no visible point left, with their labels;
``ClampKeyPoints`` pulls the hidden points onto the border (drawn in the second row, visibility ignored).
The last row adds the person's box twice, axis-aligned (white) and as a rotated ``CXCYWHR`` box (cyan),
through random rotations: the rotated box turns with the person and stays tight, the axis-aligned one
grows into the enclosing box.
Run:

    python gallery/plot_keypoints.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import json
from typing import Any

import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datasets import CocoDetection, wrap_dataset_for_transforms_v2
from visiontx.utils import draw_bounding_boxes, draw_keypoints
from helpers import COCO_SAMPLE, display_size, fast_mode, output_dir, plot

ANNOTATION = COCO_SAMPLE / "person_keypoints.json"


def skeleton() -> list[tuple[int, int]]:
    """COCO's person skeleton (1-based in the file) as 0-based index pairs."""
    (category,) = json.loads(ANNOTATION.read_text())["categories"]
    return [(i - 1, j - 1) for i, j in category["skeleton"]]


def person() -> tuple[Any, dict[str, Any]]:
    """The photo and its target (boxes, labels, key points), shorter edge at the display size."""
    dataset = CocoDetection(str(COCO_SAMPLE / "images"), str(ANNOTATION), transforms=T.ToImageTensor())
    wrapped = wrap_dataset_for_transforms_v2(dataset, target_keys={"boxes", "labels", "keypoints"})
    image, target = wrapped[0]
    size = display_size()
    resized = {key: F.resize(value, size) for key, value in target.items() if key != "labels"}
    return F.resize(image, size), {**target, **resized}


def pipeline(size: int) -> T.Compose:
    return T.Compose(
        [
            T.RandomHorizontalFlip(),
            T.RandomAffine(degrees=30, translate=(0.15, 0.15), scale=(0.8, 1.3)),
            T.RandomResizedCrop(size, scale=(0.3, 1.0), antialias=True),
            T.SanitizeKeyPoints(labels_getter="default"),
        ]
    )


def rotation_pipeline(size: int) -> T.Compose:
    return T.Compose([T.RandomRotation(40, expand=True), T.RandomHorizontalFlip(), T.Resize(size, antialias=True)])


def drawn_with_boxes(image: Any, target: dict[str, Any], edges: list[tuple[int, int]]) -> torch.Tensor:
    canvas = drawn(image, target["keypoints"], edges)
    canvas = draw_bounding_boxes(canvas, target["boxes"], colors="white", width=2)
    return draw_bounding_boxes(canvas, target["rotated_boxes"], colors="cyan", width=2)


def drawn(image: Any, points: Any, edges: list[tuple[int, int]], *, ignore_visibility: bool = False) -> torch.Tensor:
    radius = 2 if fast_mode() else 4
    canvas = image.as_subclass(torch.Tensor)
    if ignore_visibility:
        everything = torch.ones(points.shape[:-1], dtype=torch.bool)
        return draw_keypoints(canvas, points, edges, colors="orange", radius=radius, width=2, visibility=everything)
    return draw_keypoints(canvas, points, edges, colors="lime", radius=radius, width=2)


def main() -> None:
    torch.manual_seed(0)
    out = output_dir()
    edges = skeleton()
    image, target = person()
    transform = pipeline(display_size())
    rows: list[list[Any]] = [[], []]
    titles: list[list[str]] = [[], []]
    points = target["keypoints"]
    rows[0].append(drawn(image, points, edges))
    titles[0].append(f"input: {int(points.visibility.sum())} of 17 visible")
    rows[1].append(drawn(image, T.ClampKeyPoints()(points), edges, ignore_visibility=True))
    titles[1].append("input, all drawn (v = 0 at 0, 0)")
    for _ in range(3 if fast_mode() else 5):
        new_image, new_target = transform(image, target)
        new_points = new_target["keypoints"]
        rows[0].append(drawn(new_image, new_points, edges))
        titles[0].append(f"{int(new_points.visibility.sum())} visible, {len(new_target['labels'])} person")
        clamped = T.ClampKeyPoints()(new_points)
        rows[1].append(drawn(new_image, clamped, edges, ignore_visibility=True))
        titles[1].append("clamped, all drawn")
    rotated = {**target, "rotated_boxes": F.convert_bounding_box_format(target["boxes"], new_format="CXCYWHR")}
    rows.append([drawn_with_boxes(image, rotated, edges)])
    titles.append(["input, both boxes"])
    turn = rotation_pipeline(display_size())
    for _ in range(3 if fast_mode() else 5):
        new_image, new_target = turn(image, rotated)
        rows[2].append(drawn_with_boxes(new_image, new_target, edges))
        titles[2].append(f"angle {float(new_target['rotated_boxes'][0, 4]):.0f}")
    row_titles = ["pipeline", "ClampKeyPoints", "rotated boxes"]
    plot(rows, out / "keypoints.png", cell_titles=titles, row_titles=row_titles)


if __name__ == "__main__":
    main()
