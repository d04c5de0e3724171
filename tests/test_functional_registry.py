"""The kernel registry: lookup through the MRO, user kernels, and refusals."""

from __future__ import annotations

from typing import Any

import PIL.Image
import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Datapoint, Image, Mask
from visiontx.functional._registry import _LOOKUP_CACHE, _REGISTRY, get_kernel, has_kernel, registered_types

from .common import make_bounding_box, make_image, unwrap


class Points(Datapoint):
    """A user datapoint: ``N x 2`` (x, y) points with the width of their image."""

    width: int

    def __new__(cls, data: Any, *, width: int) -> Points:
        return cls._wrap(torch.as_tensor(data, dtype=torch.float32), width=width)

    def _metadata(self) -> dict[str, Any]:
        return {"width": self.width}


class MyImage(Image):
    pass


@pytest.fixture
def points_kernel():
    @F.register_kernel(F.horizontal_flip, Points)
    def flip_points(points: Points) -> Points:
        flipped = unwrap(points).clone()
        flipped[:, 0] = points.width - flipped[:, 0]
        return Points.wrap_like(points, flipped)

    yield flip_points
    del _REGISTRY[F.horizontal_flip][Points]
    _LOOKUP_CACHE.clear()


def test_user_kernel_is_used_by_functional_and_transform(points_kernel) -> None:
    points = Points([[1.0, 2.0], [3.0, 4.0]], width=10)
    flipped = F.horizontal_flip(points)
    assert type(flipped) is Points and flipped.width == 10 and flipped.tolist() == [[9, 2], [7, 4]]
    image, out = T.RandomHorizontalFlip(p=1.0)(make_image(), points)
    assert type(out) is Points and out.tolist() == [[9, 2], [7, 4]]


def test_registration_invalidates_kernel_lookup_cache() -> None:
    class Marked(Points):
        pass

    points = Marked([[1.0, 2.0]], width=10)
    assert not has_kernel(F.vertical_flip, Marked)  # a miss, now cached
    try:

        @F.register_kernel(F.vertical_flip, Points)
        def flip_points(points: Points) -> Points:
            return points

        assert get_kernel(F.vertical_flip, Marked) is flip_points  # found through the MRO
        assert F.vertical_flip(points) is points
        assert T.RandomVerticalFlip(p=1.0)(points) is points
    finally:
        del _REGISTRY[F.vertical_flip][Points]
        _LOOKUP_CACHE.clear()
    assert not has_kernel(F.vertical_flip, Marked)


def test_register_by_name_and_double_registration_refused(points_kernel) -> None:
    with pytest.raises(ValueError, match="already registered"):
        F.register_kernel("horizontal_flip", Points)(lambda p: p)
    with pytest.raises(ValueError, match="already registered"):  # torchvision's alias names the same op
        F.register_kernel("hflip", Points)(lambda p: p)


def test_register_kernel_by_an_alias_name_as_torchvision_s_gallery() -> None:
    try:
        F.register_kernel(functional="vflip", datapoint_cls=Points)(lambda points: Points.wrap_like(points, -points))
        assert F.vertical_flip(Points([[1.0, 2.0]], width=4)).tolist() == [[-1.0, -2.0]]
    finally:
        del _REGISTRY[F.vertical_flip][Points]
        _LOOKUP_CACHE.clear()


def test_register_kernel_refusals() -> None:
    for builtin in (Image, Mask, BoundingBox, Datapoint):
        with pytest.raises(ValueError, match="built in"):
            F.register_kernel(F.vertical_flip, builtin)
    with pytest.raises(TypeError, match="datapoint_cls"):
        F.register_kernel(F.vertical_flip, torch.Tensor)
    with pytest.raises(TypeError, match="datapoint_cls"):
        F.register_kernel(F.vertical_flip, int)
    with pytest.raises(ValueError, match="functional"):
        F.register_kernel("no_such_op", Points)
    with pytest.raises(ValueError, match="functional"):
        F.register_kernel(len, Points)


def test_user_datapoint_without_kernel_never_falls_back_to_tensor_kernel() -> None:
    points = Points([[1.0, 2.0]], width=10)
    message = r"F.horizontal_flip supports inputs of type .*Image.* but got <class .*Points'> instead"
    with pytest.raises(TypeError, match=message):
        F.horizontal_flip(points)
    assert not has_kernel(F.horizontal_flip, Points)
    out_image, out_points = T.RandomHorizontalFlip(p=1.0)(make_image(), points)
    assert out_points is points  # transforms pass unknown datapoints through


def test_subclass_of_builtin_datapoint_uses_its_kernel_and_keeps_its_type() -> None:
    image = MyImage(make_image())
    flipped = F.horizontal_flip(image)
    assert type(flipped) is MyImage
    assert torch.equal(unwrap(flipped), unwrap(image).flip(-1))


def test_lookup_helpers() -> None:
    types = registered_types(F.horizontal_flip)
    assert {torch.Tensor, Image, PIL.Image.Image, BoundingBox, Mask} <= set(types)
    assert get_kernel(F.horizontal_flip, Image) is not None
    with pytest.raises(TypeError, match="PIL.Image.Image"):
        get_kernel(F.horizontal_flip, str)
    boxes = make_bounding_box(format="XYWH")
    assert F.horizontal_flip(boxes).format == boxes.format
