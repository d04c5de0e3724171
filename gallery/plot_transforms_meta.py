"""Transforms that change types, dtypes or box metadata rather than pixels, and video subsampling.

Run:

    python gallery/plot_transforms_meta.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import pathlib

import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx import datapoints
from helpers import output_dir, plot, sample_detection, sample_image


def boxes_and_sanitizing(path: pathlib.Path) -> None:
    """Box metadata transforms: format conversion, clamping to the image, removing degenerate boxes."""
    image, target = sample_detection()
    height, width = image.shape[-2:]
    extra = torch.tensor([[-20.0, height * 0.6, width * 0.4, height + 30.0], [5.0, 5.0, 6.0, 40.0]])  # outside, thin
    boxes = datapoints.BoundingBox(
        torch.cat([target["boxes"].as_subclass(torch.Tensor), extra]),
        format="XYXY",
        spatial_size=(height, width),
    )
    labels = torch.tensor([1, 2, 3])
    in_cxcywh = T.ConvertBoundingBoxFormat("CXCYWH")(boxes)
    clamped = T.ClampBoundingBox()(T.SetClampingMode("hard")(boxes))  # axis-aligned: as "soft"
    sanitized = T.SanitizeBoundingBox(min_size=3)({"image": image, "boxes": clamped, "labels": labels})
    assert in_cxcywh.format == datapoints.BoundingBoxFormat.CXCYWH and len(sanitized["labels"]) == 2
    plot(
        [[(image, boxes), (image, in_cxcywh), (image, clamped), (image, sanitized["boxes"])]],
        path,
        col_titles=["3 boxes", "ConvertBoundingBoxFormat", "ClampBoundingBox", "SanitizeBoundingBox"],
    )


def dtypes_and_types(path: pathlib.Path) -> None:
    """Same pixels, other types and dtypes: each output is shown with its type in the title."""
    image = sample_image()
    pil = F.to_image_pil(image)
    outputs = {
        "ToDtype(float32, scale)": T.ToDtype(torch.float32, scale=True)(image),
        "ConvertDtype(float64)": T.ConvertDtype(torch.float64)(image),
        "ConvertImageDtype(float16)": T.ConvertImageDtype(torch.float16)(image).float(),
        "PILToTensor": T.PILToTensor()(pil),
        "ToImageTensor": T.ToImageTensor()(pil),
        "ToImagePIL": T.ToImagePIL()(image),
        "ToPILImage": T.ToPILImage()(image),
        "ToPureTensor": T.ToPureTensor()(image),
    }
    titles = [f"{name}\n-> {type(value).__name__} {getattr(value, 'dtype', '')}" for name, value in outputs.items()]
    items = list(outputs.values())
    plot([items[:4], items[4:]], path, cell_titles=[titles[:4], titles[4:]])


def video_subsampling(path: pathlib.Path) -> None:
    """UniformTemporalSubsample keeps evenly spaced frames of a video ``T x C x H x W``."""
    image = sample_image()
    step = image.shape[-1] // 8
    video = datapoints.Video(torch.stack([image.as_subclass(torch.Tensor).roll(i * step, dims=-1) for i in range(8)]))
    subsampled = T.UniformTemporalSubsample(num_samples=3)(video)
    assert type(subsampled) is datapoints.Video and subsampled.shape[0] == 3
    plot([list(video), list(subsampled)], path, row_titles=["8 frames", "subsampled to 3"])


def main() -> None:
    out = output_dir()
    boxes_and_sanitizing(out / "transforms_meta_boxes.png")
    dtypes_and_types(out / "transforms_meta_types.png")
    video_subsampling(out / "transforms_meta_video.png")


if __name__ == "__main__":
    main()
