"""A custom datapoint: ``Keypoints`` that follow the geometry of the image through built-in transforms.

Subclass ``Datapoint``, keep your metadata in ``_metadata`` (so ``clone``, ``to``, ``deepcopy`` and
pickling keep it), and teach the functionals your type with ``register_kernel``. A transform calls
the kernel of each input's type, so built-in transforms now move keypoints with the image; ops with no
kernel for ``Keypoints`` (color ops, for example) pass them through. (visiontx has built-in key points,
``visiontx.datapoints.KeyPoints``, that every geometric op moves; this script shows the mechanism a type of
your own would use.) Run:

    python gallery/plot_custom_datapoint.py [OUT_DIR] [--fast]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import Datapoint
from helpers import display_size, draw, output_dir, plot, sample_image


class Keypoints(Datapoint):
    """Points ``N x 2`` as (x, y) pixel coordinates in an image of ``spatial_size`` (H, W)."""

    spatial_size: tuple[int, int]

    def __new__(cls, data: Any, *, spatial_size: Sequence[int], dtype: torch.dtype | None = torch.float32) -> Keypoints:
        tensor = cls._to_tensor(data, dtype=dtype)
        if tensor.ndim != 2 or tensor.shape[-1] != 2:
            raise ValueError(f"data must have shape N x 2, got {tuple(tensor.shape)}")
        return cls._wrap(tensor, spatial_size=(int(spatial_size[0]), int(spatial_size[1])))

    @classmethod
    def wrap_like(cls, other: Keypoints, tensor: torch.Tensor, **metadata: Any) -> Keypoints:
        return cls._wrap(tensor, spatial_size=tuple(metadata.get("spatial_size", other.spatial_size)))

    def _metadata(self) -> dict[str, Any]:
        return {"spatial_size": self.spatial_size}


def _points(inpt: Keypoints) -> torch.Tensor:
    return inpt.as_subclass(torch.Tensor)


@F.register_kernel(F.get_spatial_size, Keypoints)
def get_spatial_size_keypoints(inpt: Keypoints) -> list[int]:
    return list(inpt.spatial_size)


@F.register_kernel(F.horizontal_flip, Keypoints)
def horizontal_flip_keypoints(inpt: Keypoints) -> Keypoints:
    points = _points(inpt).clone()
    points[:, 0] = inpt.spatial_size[1] - points[:, 0]
    return Keypoints.wrap_like(inpt, points)


@F.register_kernel(F.resize, Keypoints)
def resize_keypoints(inpt: Keypoints, size: Any, max_size: int | None = None, **kwargs: Any) -> Keypoints:
    """Scale the points as the image is scaled: the box kernel's arithmetic on boxes (x, y, x, y)."""
    as_boxes = _points(inpt).repeat(1, 2)
    boxes, new_size = F.resize_bounding_box(as_boxes, spatial_size=inpt.spatial_size, size=size, max_size=max_size)
    return Keypoints.wrap_like(inpt, boxes[:, :2], spatial_size=new_size)


@F.register_kernel(F.rotate, Keypoints)
def rotate_keypoints(inpt: Keypoints, angle: float, *args: Any, **kwargs: Any) -> Keypoints:
    """Rotate (counter-clockwise, about the centre, no expansion) as the image is rotated."""
    height, width = inpt.spatial_size
    center = torch.tensor([width / 2, height / 2])
    theta = torch.deg2rad(torch.tensor(float(angle)))
    rotation = torch.tensor([[torch.cos(theta), torch.sin(theta)], [-torch.sin(theta), torch.cos(theta)]])
    return Keypoints.wrap_like(inpt, (_points(inpt) - center) @ rotation.T + center)


MARKER = torch.tensor([255, 0, 255], dtype=torch.uint8)[:, None, None]


def draw_points(image: torch.Tensor, points: Keypoints) -> torch.Tensor:
    """The image with a square marker at each keypoint."""
    canvas = draw(image).clone()
    height, width = canvas.shape[-2:]
    radius = max(width // 128, 1)
    for x, y in _points(points).round().long().tolist():
        if 0 <= x < width and 0 <= y < height:
            top, left = max(y - radius, 0), max(x - radius, 0)
            canvas[:, top : y + radius + 1, left : x + radius + 1] = MARKER
    return canvas


def main() -> None:
    torch.manual_seed(0)
    out = output_dir()
    image = sample_image()
    height, width = image.shape[-2:]
    eyes_and_mouth = [[0.40, 0.21], [0.50, 0.21], [0.45, 0.29]]  # fractions of the photo's width, height
    points = Keypoints(torch.tensor(eyes_and_mouth) * torch.tensor([width, height]), spatial_size=(height, width))
    pipeline = T.Compose(
        [
            T.RandomHorizontalFlip(),
            T.RandomRotation(degrees=25),
            T.Resize(display_size() // 2, antialias=True),
            T.ColorJitter(brightness=0.5),
        ]
    )
    row = [draw_points(image, points)]
    for _ in range(4):
        new_image, new_points = pipeline(image, points)
        assert type(new_points) is Keypoints and tuple(new_points.spatial_size) == tuple(new_image.shape[-2:])
        row.append(draw_points(new_image, new_points))
    plot([row], out / "custom_datapoint.png", col_titles=["input", "samples"])


if __name__ == "__main__":
    main()
