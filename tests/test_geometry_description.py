"""Geometry as data: each op's description, the public kernels built on it, and a new op added from a
description alone (the walk-through of ARCHITECTURE.md)."""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np
import PIL.Image
import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Image, Mask
from visiontx.functional._geometry._generic import register_warp_kernels
from visiontx.functional._registry import get_kernel

from .common import AXIS_ALIGNED
from .common import assert_equal, make_bounding_box, make_image, make_image_pil, make_mask, make_video

COVERED = {
    "Geometry",
    "geometry_of",
    "affine_image_pil",
    "affine_image_tensor",
    "affine_video",
    "center_crop_bounding_box",
    "horizontal_flip_bounding_box",
    "rotate_image_pil",
    "rotate_image_tensor",
    "rotate_video",
    "vertical_flip_bounding_box",
}

AFFINE = dict(angle=25.0, translate=[3.0, -2.0], scale=1.1, shear=[5.0, 2.0])


def _corners(matrix: Any, height: int, width: int) -> list[tuple[float, float]]:
    (a, b, c), (d, e, f), _ = matrix
    return [(a * x + b * y + c, d * x + e * y + f) for x, y in ((0, 0), (width, 0), (width, height), (0, height))]


# ------------------------------------------------------------------------------------ descriptions
def test_rotate_quarter_turn_with_expand_swaps_the_canvas_and_maps_onto_it() -> None:
    geometry = F.geometry_of("rotate", (100, 200), angle=90, expand=True)
    assert geometry.canvas_size == (200, 100)
    xs, ys = zip(*_corners(geometry.matrix, 100, 200))
    assert (min(xs), max(xs), min(ys), max(ys)) == (0.0, 100.0, 0.0, 200.0)
    assert geometry.clamp == "corners"


def test_geometry_of_takes_the_functional_or_its_name_and_ignores_sampling_arguments() -> None:
    by_name = F.geometry_of("affine", (30, 40), **AFFINE)
    by_op = F.geometry_of(F.affine, (30, 40), interpolation="bilinear", fill=7, **AFFINE)
    assert by_name == by_op


def test_resize_crop_and_pad_are_scales_and_shifts() -> None:
    resize = F.geometry_of("resize", (40, 60), size=20)
    assert resize.canvas_size == (20, 30) and resize.matrix[0] == (0.5, 0.0, 0.0) and resize.clamp is None
    crop = F.geometry_of("crop", (40, 60), top=5, left=7, height=10, width=12)
    assert crop.canvas_size == (10, 12) and crop.matrix[:2] == ((1.0, 0.0, -7.0), (0.0, 1.0, -5.0))
    assert crop.clamp == "boxes"
    pad = F.geometry_of("pad", (40, 60), padding=[1, 2, 3, 4])
    assert pad.canvas_size == (46, 64) and pad.matrix[:2] == ((1.0, 0.0, 1.0), (0.0, 1.0, 2.0))


def test_resized_crop_is_the_crop_then_the_resize() -> None:
    crop = F.geometry_of("crop", (40, 60), top=4, left=6, height=20, width=30)
    resize = F.geometry_of("resize", crop.canvas_size, size=[10, 10])
    assert F.geometry_of("resized_crop", (40, 60), top=4, left=6, height=20, width=30, size=[10, 10]) == crop.then(
        resize
    )


def test_inverse_matrix_undoes_the_matrix() -> None:
    geometry = F.geometry_of(
        "perspective",
        (50, 50),
        startpoints=None,
        endpoints=None,
        coefficients=[1.1, 0.1, -3.0, 0.05, 0.9, 2.0, 0.001, 0.002],
    )
    assert geometry.is_projective
    product = torch.tensor(geometry.matrix, dtype=torch.float64) @ torch.tensor(
        geometry.inverse_matrix, dtype=torch.float64
    )
    torch.testing.assert_close(product / product[2, 2], torch.eye(3, dtype=torch.float64))


def test_geometry_accepts_2x3_and_refuses_other_shapes() -> None:
    assert F.Geometry([[1, 0, 2], [0, 1, 3]], (4, 5)).matrix[2] == (0.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="matrix must be 2 x 3 or 3 x 3"):
        F.Geometry([[1, 0], [0, 1]], (4, 5))


def test_ops_without_a_matrix_and_unknown_ops_are_value_errors() -> None:
    with pytest.raises(ValueError, match="elastic"):
        F.geometry_of("elastic", (10, 10), displacement=torch.zeros(1, 10, 10, 2))
    with pytest.raises(ValueError, match="op must be one of"):
        F.geometry_of("sharpen", (10, 10))


def test_points_cannot_follow_a_reflecting_pad() -> None:
    geometry = F.geometry_of("pad", (10, 10), padding=2, padding_mode="reflect")
    assert geometry.canvas_size == (14, 14)
    with pytest.raises(ValueError, match="padding_mode for bounding boxes must be 'constant'"):
        F.pad(make_bounding_box((10, 10)), 2, padding_mode="reflect")


@pytest.mark.parametrize(
    ("op", "params"),
    [
        ("horizontal_flip", {}),
        ("resize", dict(size=[17, 23])),
        ("crop", dict(top=3, left=-2, height=20, width=25)),
        ("pad", dict(padding=[2, 3])),
        ("affine", AFFINE),
        ("rotate", dict(angle=33.0, expand=True)),
    ],
)
@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_boxes_follow_the_description(op: str, params: dict, format: BoundingBoxFormat) -> None:
    boxes = make_bounding_box((32, 40), format=format, dtype=torch.float64)
    geometry = F.geometry_of(op, boxes.spatial_size, **params)
    out = getattr(F, op)(boxes, **params)
    assert out.spatial_size == geometry.canvas_size
    xyxy = F.convert_format_bounding_box(boxes, new_format="XYXY").as_subclass(torch.Tensor)
    corners = torch.stack([xyxy[:, [0, 1]], xyxy[:, [2, 1]], xyxy[:, [2, 3]], xyxy[:, [0, 3]]], dim=1)
    matrix = torch.tensor(geometry.matrix, dtype=torch.float64)
    mapped = torch.cat([corners, torch.ones_like(corners[..., :1])], dim=-1) @ matrix.T
    expected = torch.cat([mapped[..., :2].amin(1), mapped[..., :2].amax(1)], dim=-1)
    if geometry.clamp is not None:
        expected[:, 0::2] = expected[:, 0::2].clamp(0, geometry.canvas_size[1])
        expected[:, 1::2] = expected[:, 1::2].clamp(0, geometry.canvas_size[0])
    actual = F.convert_format_bounding_box(out, new_format="XYXY").as_subclass(torch.Tensor)
    torch.testing.assert_close(actual, expected)


# ------------------------------------------------------------------- public kernels on descriptions
def _box_parts(boxes: BoundingBox) -> tuple[torch.Tensor, BoundingBoxFormat, tuple[int, int]]:
    return boxes.as_subclass(torch.Tensor), boxes.format, boxes.spatial_size


@pytest.mark.parametrize("flip", ["horizontal_flip", "vertical_flip"])
def test_public_flip_box_kernels_equal_the_dispatcher(flip: str) -> None:
    boxes = make_bounding_box(format="CXCYWH")
    kernel = getattr(F, f"{flip}_bounding_box")
    assert_equal(kernel(*_box_parts(boxes)), getattr(F, flip)(boxes).as_subclass(torch.Tensor))


def test_public_center_crop_box_kernel_equals_the_dispatcher() -> None:
    boxes = make_bounding_box(format="XYWH")
    out, size = F.center_crop_bounding_box(*_box_parts(boxes), output_size=[7, 9])
    expected = F.center_crop(boxes, [7, 9])
    assert_equal(out, expected.as_subclass(torch.Tensor))
    assert size == expected.spatial_size


@pytest.mark.parametrize("make", [make_image, make_video])
def test_public_warp_kernels_equal_the_dispatcher(make: Any) -> None:
    image = make()
    plain = image.as_subclass(torch.Tensor)
    affine_kernel = F.affine_video if make is make_video else F.affine_image_tensor
    rotate_kernel = F.rotate_video if make is make_video else F.rotate_image_tensor
    assert_equal(
        affine_kernel(plain, **AFFINE, interpolation="bilinear"), F.affine(image, **AFFINE, interpolation="bilinear")
    )
    assert_equal(rotate_kernel(plain, 40.0, expand=True, fill=3), F.rotate(image, 40.0, expand=True, fill=3))


def test_public_pil_warp_kernels_equal_the_dispatcher() -> None:
    image = make_image_pil()
    assert_equal(F.affine_image_pil(image, **AFFINE), F.affine(image, **AFFINE))
    assert_equal(F.rotate_image_pil(image, 40.0, expand=True), F.rotate(image, 40.0, expand=True))


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_quarter_turns_are_exact_and_take_rot90(turns: int) -> None:
    image = make_image(size=(5, 8))
    out = F.rotate(image, 90.0 * turns, expand=True)
    assert_equal(out, torch.rot90(image.as_subclass(torch.Tensor), k=turns, dims=(-2, -1)))


# --------------------------------------------------------------- a new op from its description alone
def transpose(inpt: Any, interpolation: Any = "nearest", fill: Any = None) -> Any:
    """Swap rows and columns (a test op: its description is all it is)."""
    return get_kernel(transpose, type(inpt))(inpt, interpolation=interpolation, fill=fill)


def transpose_geometry(spatial_size: tuple[int, int]) -> F.Geometry:
    return F.Geometry([[0, 1, 0], [1, 0, 0]], (spatial_size[1], spatial_size[0]))


register_warp_kernels(transpose, transpose_geometry)


class RandomTranspose(T.RandomApplyTransform):
    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(transpose, inpt)


def test_a_new_op_moves_every_type_from_its_description() -> None:
    image, mask = make_image(size=(6, 9)), make_mask(size=(6, 9))
    boxes = BoundingBox([[1, 2, 4, 6]], format="XYXY", spatial_size=(6, 9))
    out = RandomTranspose(p=1.0)({"image": image, "mask": mask, "boxes": boxes})
    assert isinstance(out["image"], Image) and isinstance(out["mask"], Mask)
    assert_equal(out["image"], image.as_subclass(torch.Tensor).transpose(-2, -1))
    assert_equal(out["mask"], mask.as_subclass(torch.Tensor).transpose(-2, -1))
    assert out["boxes"].tolist() == [[2, 1, 6, 4]] and out["boxes"].spatial_size == (9, 6)
    pil = transpose(F.to_image_pil(image))
    assert isinstance(pil, PIL.Image.Image)
    assert_equal(F.pil_to_tensor(pil), out["image"])
    assert F.geometry_of("transpose", (6, 9)).canvas_size == (9, 6)


@pytest.mark.parametrize("size", [(10,), (10, 10, 3), (10, -1), (10.5, 4), "ab", 10, (True, 4)])
def test_geometry_of_refuses_a_bad_spatial_size(size: Any) -> None:
    with pytest.raises(ValueError, match="spatial_size"):
        F.geometry_of("rotate", size, angle=30)


def test_geometry_of_takes_sizes_of_any_int_type() -> None:
    expected = F.geometry_of("rotate", (10, 12), angle=30)
    assert F.geometry_of("rotate", torch.Size([10, 12]), angle=30) == expected
    assert F.geometry_of("rotate", (np.int64(10), torch.tensor(12)), angle=30) == expected


def test_warp_refuses_what_is_not_a_geometry() -> None:
    with pytest.raises(TypeError, match="geometry"):
        F.warp(torch.zeros(3, 4, 4), [[1, 0, 0], [0, 1, 0]])


@pytest.mark.parametrize(
    "first",
    [
        ((0.5, -0.0, 3.0), (0.25, 2.0, -1.0), (0.0, 0.0, 1.0)),
        ((1e308, 2.0, 0.0), (0.0, 1e308, 0.0), (0.0, 0.0, 1.0)),  # sums overflow
        ((math.inf, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),  # compose's pass through the identity makes NaNs
        ((1.0, 0.0, math.nan), (0.0, 1.0, 0.0), (1e-3, -0.0, 1.0)),
    ],
)
def test_then_is_compose_to_the_bit(first) -> None:
    """``then`` gives compose's floats (signed zeros, infinities and NaNs where compose has them)."""
    from visiontx.functional._geometry._matrix import compose

    second = ((-0.0, 2.0, 7.5), (3.0, 0.0, -2.0), (0.001, 0.0, 1.0))
    for a, b in ((first, second), (second, first)):
        actual = F.Geometry(b, (4, 5)).then(F.Geometry(a, (6, 7))).matrix
        assert _bits(actual) == _bits(compose(a, b))


def _bits(matrix: Any) -> list[list[Any]]:
    return [["nan" if math.isnan(v) else struct.pack("d", v) for v in row] for row in matrix]
