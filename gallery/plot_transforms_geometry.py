"""Every geometry transform on the COCO sample: boxes and masks follow the image.

DecodeRandomResizedCrop decodes JPEG bytes and crops in one step (a figure of its own).

RandomIoUCrop, as in SSD, also empties the boxes whose centre falls outside its crop (the
SanitizeBoundingBox that follows it in a pipeline removes them with their masks and labels), so its
panel may show fewer boxes than the others.

Run:

    python gallery/plot_transforms_geometry.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import pathlib

import torch

import visiontx.transforms as T
from visiontx import datapoints, io
from helpers import output_dir, plot, plot_family, sample_detection


def examples(size: int) -> list[tuple[str, T.Transform]]:
    crop = size // 2
    fill = {datapoints.Image: (123, 117, 104), "others": 0}
    return [
        ("Resize", T.Resize(crop, antialias=True)),
        ("CenterCrop", T.CenterCrop(crop)),
        ("RandomCrop", T.RandomCrop(crop)),
        ("RandomResizedCrop", T.RandomResizedCrop(crop, antialias=True)),
        ("Pad", T.Pad(size // 8, fill=fill, padding_mode="constant")),
        ("RandomZoomOut", T.RandomZoomOut(fill=fill, side_range=(1.0, 2.0), p=1.0)),
        ("RandomRotation", T.RandomRotation(degrees=45, fill=fill)),
        ("RandomAffine", T.RandomAffine(degrees=20, translate=(0.1, 0.1), scale=(0.75, 1.0), shear=10)),
        ("RandomPerspective", T.RandomPerspective(distortion_scale=0.5, p=1.0)),
        ("ElasticTransform", T.ElasticTransform(alpha=size / 2, sigma=size / 40)),
        ("RandomHorizontalFlip", T.RandomHorizontalFlip(p=1.0)),
        ("RandomVerticalFlip", T.RandomVerticalFlip(p=1.0)),
        ("RandomIoUCrop", T.RandomIoUCrop()),
        ("ScaleJitter", T.ScaleJitter(target_size=(size, size), antialias=True)),
        ("RandomShortestSize", T.RandomShortestSize(min_size=[crop, size], max_size=size * 2, antialias=True)),
        ("RandomResize", T.RandomResize(min_size=crop, max_size=size, antialias=True)),
    ]


def plot_multi_crops(image: datapoints.Image, path: pathlib.Path) -> None:
    """FiveCrop and TenCrop return several crops of an image (no boxes: they are for evaluation)."""
    crop = image.shape[-1] // 2
    five = T.FiveCrop(crop)(image)
    ten = T.TenCrop(crop, vertical_flip=True)(image)
    plot([[image, *five], [image, *ten]], path, row_titles=["FiveCrop", "TenCrop"], col_titles=["input", "crops"])


def plot_decode_crops(image: datapoints.Image, path: pathlib.Path) -> None:
    """DecodeRandomResizedCrop takes JPEG bytes: the same regions as RandomResizedCrop on the decoded image,
    decoded at 1/2, 1/4 or 1/8 scale where the region is that many times the output size."""
    data = io.encode_jpeg(image.as_subclass(torch.Tensor), quality=90)
    size = image.shape[-1] // 6
    fused, plain = T.DecodeRandomResizedCrop(size), T.RandomResizedCrop(size, antialias=True)
    decoded = datapoints.Image(io.decode_image(data))
    rows: list[list[torch.Tensor]] = [[], []]
    for seed in range(5):
        torch.manual_seed(seed)
        rows[0].append(fused(data))
        torch.manual_seed(seed)
        rows[1].append(plain(decoded))
    plot(rows, path, row_titles=["DecodeRandomResizedCrop(bytes)", "decode, RandomResizedCrop"])


def main() -> None:
    torch.manual_seed(0)
    out = output_dir()
    image, target = sample_detection()
    plot_family(examples(image.shape[-1]), (image, target), out / "transforms_geometry.png")
    plot_multi_crops(image, out / "transforms_geometry_crops.png")
    plot_decode_crops(image, out / "transforms_geometry_decode.png")


if __name__ == "__main__":
    main()
