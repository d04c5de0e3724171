"""Test-time augmentation with ``record`` and ``inverse``: predictions on augmented views mapped back.

Each view of the photo is recorded (``out, record = tta.record(image, boxes, points)``); a model's
predictions on the view (here: the view's own boxes and box centres, as a perfect detector would give)
go back to the photo's frame with ``tta.inverse(predictions, record)``. Key points come back exactly;
boxes through the flip, crop and resize exactly, and through the rotation as the enclosing box of the
corners mapped back, which contains the original. The view itself maps back too, with gray where the
view did not reach. Run:

    python gallery/plot_test_time_augmentation.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import torch

import visiontx.transforms as T
from visiontx import datapoints
from helpers import fast_mode, output_dir, plot, sample_detection


def as_boxes(points: datapoints.KeyPoints, radius: float = 2.0) -> datapoints.BoundingBox:
    """Key points drawn as small squares (the figure's boxes drawer shows them)."""
    xy = points.as_subclass(torch.Tensor)
    return datapoints.BoundingBox(
        torch.cat([xy - radius, xy + radius], dim=-1), format="XYXY", spatial_size=points.spatial_size
    )


def main() -> None:
    torch.manual_seed(0)
    image, target = sample_detection()
    boxes = target["boxes"]
    xyxy = boxes.as_subclass(torch.Tensor)
    centres = datapoints.KeyPoints((xyxy[:, :2] + xyxy[:, 2:]) / 2, spatial_size=boxes.spatial_size)
    size = min(image.shape[-2:])
    tta = T.Compose(
        [
            T.RandomHorizontalFlip(),
            T.RandomRotation(15, fill=128),
            T.RandomResizedCrop(size, scale=(0.6, 1.0), antialias=True),
            T.ColorJitter(0.3, 0.3),
        ]
    )
    num_views = 2 if fast_mode() else 4
    views, backs, mapped_boxes, mapped_points = [], [], [], []
    for _ in range(num_views):
        (view, view_boxes, view_points), record = tta.record(image, boxes, centres)
        # a detector would predict boxes and key points on the view; here: the view's own
        back_image, back_boxes, back_points = tta.inverse((view, view_boxes, view_points), record, fill=128)
        views.append((view, {"boxes": torch.cat([view_boxes, as_boxes(view_points)])}))
        backs.append((back_image, {"boxes": torch.cat([back_boxes, as_boxes(back_points)])}))
        mapped_boxes.append(back_boxes)
        mapped_points.append(back_points)
        assert torch.allclose(back_points, centres, atol=1e-3)
    overlay = datapoints.BoundingBox(torch.cat([*mapped_boxes, boxes]), format="XYXY", spatial_size=boxes.spatial_size)
    mean_points = as_boxes(datapoints.KeyPoints(torch.stack(mapped_points).mean(0), spatial_size=boxes.spatial_size))
    rows = [views, backs, [(image, {"boxes": torch.cat([overlay, mean_points])})]]
    plot(
        rows,
        output_dir() / "test_time_augmentation.png",
        row_titles=["views", "inverse", "on the photo"],
        cell_titles=[[f"view {i}" for i in range(num_views)], ["mapped back"] * num_views,
                     ["all views' boxes + mean centres"]],
    )


if __name__ == "__main__":
    main()
