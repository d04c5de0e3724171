"""Per-sample augmentation of whole batches, after the DataLoader (GPU-style, CPU tensors here).

The DataLoader only decodes and crops to a common size; ``T.PerSample`` then augments the collated
batch in one vectorised call per transform, every sample with its own crop, flip, colour and warp,
as each would get alone. On a GPU move the batch there first (``images.cuda()``): the draws and the
pixel work stay on the device. Run:

    python gallery/plot_per_sample.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import torch
from helpers import display_size, fast_mode, output_dir, plot, sample_image
from torch.utils.data import DataLoader, Dataset

import visiontx.transforms as T


class CentreCrops(Dataset):
    """The sample photo at a fixed size: what a dataset gives before any random augmentation."""

    def __init__(self, length: int, size: int) -> None:
        self.image = T.Compose([T.Resize(size), T.CenterCrop(size)])(sample_image())
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> torch.Tensor:
        return self.image.as_subclass(torch.Tensor)


def main() -> None:
    torch.manual_seed(0)
    out = output_dir()
    size, batch_size = (96, 4) if fast_mode() else (display_size(), 8)
    loader = DataLoader(CentreCrops(length=batch_size, size=size), batch_size=batch_size)
    augment = T.PerSample(
        T.Compose([
            T.RandomResizedCrop(size, scale=(0.3, 1.0)),
            T.RandomHorizontalFlip(),
            T.ColorJitter(0.4, 0.4, 0.4, 0.1),
            T.RandomAffine(15, translate=(0.1, 0.1)),
        ]),
        generator=torch.Generator().manual_seed(0),
    )
    images = next(iter(loader))  # [B, 3, H, W] uint8, every sample the same picture
    augmented, draws = augment.forward_with_params(images)  # images.cuda() on a GPU
    titles = []
    for i in range(batch_size):
        crop, flip, _, affine = draws.params(i)
        flipped = "flip" if flip is not None else "no flip"
        titles.append(f"crop {crop['height']}x{crop['width']}, {flipped}, {affine['angle']:.0f}°")
    half = batch_size // 2
    plot(
        [list(images[:half]), list(augmented[:half]), list(augmented[half:])],
        out / "per_sample.png",
        row_titles=["batch in", "PerSample", "PerSample"],
        cell_titles=[["the same image"] * half, titles[:half], titles[half:]],
    )


if __name__ == "__main__":
    main()
