"""Writing a custom transform: subclass ``Transform``, draw parameters in ``make_params``, apply them in ``transform``.

``make_params`` is called once per call with every input that will be transformed, so one draw of
randomness is shared by the image, its boxes and its masks. ``transform`` is called per input and
usually calls one functional through ``self.call_kernel`` (inputs the functional has no kernel for,
such as labels, pass through). Parameters are returned, never stored on ``self``, so the transform is
thread-safe and picklable. Run:

    python gallery/plot_custom_transform.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

import pickle
from typing import Any

import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx import datapoints
from visiontx.transforms import Transform
from helpers import output_dir, plot, sample_detection


class RandomCornerCrop(Transform):
    """Crop a ``fraction`` of the sample at one of its four corners, picked at random."""

    def __init__(self, fraction: float = 0.6) -> None:
        super().__init__()
        if not 0 < fraction <= 1:
            raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
        self.fraction = fraction

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = F.get_spatial_size(flat_inputs[0])
        crop_h, crop_w = int(height * self.fraction), int(width * self.fraction)
        corner = int(torch.randint(4, ()))
        top = 0 if corner in (0, 1) else height - crop_h
        left = 0 if corner in (0, 2) else width - crop_w
        return dict(top=top, left=left, height=crop_h, width=crop_w)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.crop, inpt, **params)


class RandomTint(Transform):
    """Multiply the channels of RGB images by random gains; boxes, masks and labels pass through."""

    _transformed_types = (datapoints.Image, datapoints.Video)  # only these leaves reach transform()

    def __init__(self, strength: float = 0.3) -> None:
        super().__init__()
        self.strength = strength

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(gains=1 + self.strength * (2 * torch.rand(3, 1, 1) - 1))

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        if inpt.shape[-3] != 3:
            return inpt
        tinted = inpt.as_subclass(torch.Tensor).float() * params["gains"].to(inpt.device)
        tinted = tinted.clamp(0, 1) if inpt.is_floating_point() else tinted.round().clamp(0, 255).to(inpt.dtype)
        return datapoints.wrap(tinted, like=inpt)


def main() -> None:
    torch.manual_seed(0)
    out = output_dir()
    image, target = sample_detection()
    corner = RandomCornerCrop(fraction=0.6)
    pipeline = T.Compose([corner, RandomTint(0.4), T.RandomHorizontalFlip()])
    restored = pickle.loads(pickle.dumps(pipeline))
    print(repr(restored))
    row_corner = [(image, target)]
    row_pipeline = [(image, target)]
    for _ in range(4):
        cropped_image, cropped_target = corner(image, target)
        assert cropped_target["labels"] is target["labels"]
        row_corner.append((cropped_image, cropped_target))
        row_pipeline.append(pipeline(image, target))
    plot(
        [row_corner, row_pipeline],
        out / "custom_transform.png",
        row_titles=["RandomCornerCrop", "in a Compose"],
        col_titles=["input", "samples"],
    )


if __name__ == "__main__":
    main()
