"""Every color transform on the sample photo (boxes and masks are not color data: they pass through).

Run:

    python gallery/plot_transforms_color.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import torch

import visiontx.transforms as T
from helpers import output_dir, plot_family, sample_image


def examples() -> list[tuple[str, T.Transform]]:
    return [
        ("ColorJitter", T.ColorJitter(brightness=0.5, contrast=0.5, saturation=0.5, hue=0.2)),
        ("Grayscale", T.Grayscale(num_output_channels=3)),
        ("RandomGrayscale", T.RandomGrayscale(p=0.5)),
        ("RGB (of gray)", T.Compose([T.Grayscale(), T.RGB()])),
        ("RandomChannelPermutation", T.RandomChannelPermutation()),
        ("RandomPhotometricDistort", T.RandomPhotometricDistort(p=1.0)),
        ("RandomEqualize", T.RandomEqualize(p=1.0)),
        ("RandomInvert", T.RandomInvert(p=1.0)),
        ("RandomPosterize", T.RandomPosterize(bits=2, p=1.0)),
        ("RandomSolarize", T.RandomSolarize(threshold=128, p=1.0)),
        ("RandomAutocontrast", T.RandomAutocontrast(p=1.0)),
        ("RandomAdjustSharpness", T.RandomAdjustSharpness(sharpness_factor=4, p=1.0)),
    ]


def main() -> None:
    torch.manual_seed(0)
    plot_family(examples(), sample_image(), output_dir() / "transforms_color.png")


if __name__ == "__main__":
    main()
