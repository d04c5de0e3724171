"""The automatic augmentation policies: AutoAugment, RandAugment, TrivialAugmentWide, AugMix.

Run:

    python gallery/plot_transforms_auto_augment.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import torch

import visiontx.transforms as T
from helpers import output_dir, plot_family, sample_image


def examples() -> list[tuple[str, T.Transform]]:
    return [
        ("AutoAugment IMAGENET", T.AutoAugment(T.AutoAugmentPolicy.IMAGENET)),
        ("AutoAugment CIFAR10", T.AutoAugment(T.AutoAugmentPolicy.CIFAR10)),
        ("AutoAugment SVHN", T.AutoAugment(T.AutoAugmentPolicy.SVHN)),
        ("RandAugment", T.RandAugment(num_ops=2, magnitude=9)),
        ("TrivialAugmentWide", T.TrivialAugmentWide()),
        ("AugMix", T.AugMix(severity=3)),
    ]


def main() -> None:
    torch.manual_seed(0)
    plot_family(examples(), sample_image(), output_dir() / "transforms_auto_augment.png")


if __name__ == "__main__":
    main()
