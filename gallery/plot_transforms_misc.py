"""Every misc transform (blur, noise, erasing, JPEG, normalization, ...) and the containers.

Run:

    python gallery/plot_transforms_misc.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import torch

import visiontx.transforms as T
from helpers import output_dir, plot_family, sample_image

TO_FLOAT = T.ToDtype(torch.float32, scale=True)
IMAGENET_MEAN, IMAGENET_STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def min_max(image: torch.Tensor) -> torch.Tensor:
    """Rescale to [0, 1] for display (normalized images are not in [0, 1])."""
    low, high = image.amin(), image.amax()
    return (image - low) / (high - low).clamp(min=1e-6)


def swap_red_blue(size: int) -> T.LinearTransformation:
    """A ``LinearTransformation`` on flattened ``3 x size x size`` images that swaps the R and B planes."""
    plane = size * size
    order = torch.cat([torch.arange(2 * plane, 3 * plane), torch.arange(plane, 2 * plane), torch.arange(plane)])
    matrix = torch.eye(3 * plane)[order].T
    return T.LinearTransformation(matrix, mean_vector=torch.zeros(3 * plane))


def misc_examples(small: int) -> list[tuple[str, T.Transform]]:
    return [
        ("Identity", T.Identity()),
        ("Lambda (upside down)", T.Lambda(lambda image: image.flip(-2))),
        ("GaussianBlur", T.GaussianBlur(kernel_size=9, sigma=(0.5, 4.0))),
        ("GaussianNoise", T.Compose([TO_FLOAT, T.GaussianNoise(sigma=0.1)])),
        ("RandomErasing", T.RandomErasing(p=1.0, value=0)),
        ("JPEG", T.JPEG(quality=(2, 20))),
        ("Normalize", T.Compose([TO_FLOAT, T.Normalize(mean=IMAGENET_MEAN, std=IMAGENET_STD), T.Lambda(min_max)])),
        ("LinearTransformation", T.Compose([T.Resize(small), T.CenterCrop(small), TO_FLOAT, swap_red_blue(small)])),
    ]


def container_examples() -> list[tuple[str, T.Transform]]:
    jitter, flip, invert = T.ColorJitter(brightness=0.6, hue=0.3), T.RandomHorizontalFlip(p=1.0), T.RandomInvert(p=1.0)
    return [
        ("Compose", T.Compose([jitter, flip])),
        ("RandomApply(p=0.5)", T.RandomApply([jitter, flip], p=0.5)),
        ("RandomChoice", T.RandomChoice([jitter, flip, invert])),
        ("RandomOrder", T.RandomOrder([T.RandomPosterize(bits=2, p=1.0), invert])),
    ]


def main() -> None:
    torch.manual_seed(0)
    out = output_dir()
    image = sample_image()
    plot_family(misc_examples(small=24), image, out / "transforms_misc.png")
    plot_family(container_examples(), image, out / "transforms_containers.png")


if __name__ == "__main__":
    main()
