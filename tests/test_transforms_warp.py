"""RandomRotation, RandomAffine, RandomPerspective, ElasticTransform: generic cases, same-seed
equality with torchvision, one draw per sample, fill by type, constructor errors."""

from __future__ import annotations

import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Image, Mask

from .common import assert_equal, make_bounding_box, make_image, make_mask

TRANSFORM_CASES = {
    T.RandomRotation: [dict(degrees=30), dict(degrees=(10, 20), expand=True, fill={Image: 3, "others": 0})],
    T.RandomAffine: [dict(degrees=10, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5), dict(degrees=(0, 0))],
    T.RandomPerspective: [dict(p=1.0), dict(distortion_scale=0.2, p=0.0, fill=[1, 2, 3])],
    T.ElasticTransform: [dict(), dict(alpha=10.0, sigma=(2.0, 3.0), interpolation="nearest")],
}

SIZE = (48, 64)


def _torchvision_pairs():
    v2 = pytest.importorskip("torchvision.transforms.v2")
    bilinear = v2.InterpolationMode.BILINEAR
    return [
        (T.RandomRotation(30), v2.RandomRotation(30)),
        (
            T.RandomRotation((10, 50), interpolation="bilinear", fill=3),
            v2.RandomRotation((10, 50), interpolation=bilinear, fill=3),
        ),
        (
            T.RandomAffine(20, translate=(0.1, 0.2), scale=(0.8, 1.2), shear=(1, 5, 2, 8)),
            v2.RandomAffine(20, translate=(0.1, 0.2), scale=(0.8, 1.2), shear=(1, 5, 2, 8)),
        ),
        (T.RandomPerspective(0.6, p=1), v2.RandomPerspective(0.6, p=1)),
        (T.ElasticTransform(), v2.ElasticTransform()),
        (T.ElasticTransform(alpha=(20, 40), sigma=(3, 4)), v2.ElasticTransform(alpha=(20, 40), sigma=(3, 4))),
    ]


@pytest.mark.parametrize("index", range(6))
def test_same_seed_matches_torchvision(index) -> None:
    """Parameters are drawn from torch's RNG in torchvision's order: same seed, same output."""
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    ours, theirs = _torchvision_pairs()[index]
    image = make_image(SIZE)
    boxes = make_bounding_box(SIZE, num_boxes=5)
    torch.manual_seed(3)
    out_image, out_boxes = ours(image, boxes)
    torch.manual_seed(3)
    tv_boxes = tv_tensors.BoundingBoxes(boxes.as_subclass(torch.Tensor), format="XYXY", canvas_size=SIZE)
    exp_image, exp_boxes = theirs(tv_tensors.Image(image.as_subclass(torch.Tensor)), tv_boxes)
    diff = (out_image.int() - exp_image.as_subclass(torch.Tensor).int()).abs()
    assert diff.max() <= 1 and (diff > 0).float().mean() < 0.01
    expected_boxes = exp_boxes.as_subclass(torch.Tensor)
    torch.testing.assert_close(out_boxes.as_subclass(torch.Tensor), expected_boxes, atol=1e-3, rtol=0)


@pytest.mark.parametrize(
    "transform",
    [
        T.RandomRotation(40),
        T.RandomAffine(30, translate=(0.2, 0.2), scale=(0.7, 1.3), shear=(-10, 10, -5, 5)),
        T.RandomPerspective(0.7, p=1.0, interpolation="nearest"),
        T.ElasticTransform(alpha=30.0, sigma=3.0, interpolation="nearest"),
    ],
)
def test_one_draw_for_every_input(transform) -> None:
    mask = make_mask(SIZE, num_objects=None)
    image = Image(mask.as_subclass(torch.Tensor)[None])  # the mask's values as an image
    for _ in range(3):
        out_image, out_mask = transform(image, mask)
        assert isinstance(out_mask, Mask)
        assert_equal(out_image[0], out_mask)


def test_rotation_params_reach_boxes() -> None:
    boxes = make_bounding_box(SIZE)
    transform = T.RandomRotation((25, 25), expand=True)
    out = transform(boxes)
    assert_equal(out, F.rotate(boxes, 25, expand=True))
    assert out.spatial_size == F.rotate(boxes, 25, expand=True).spatial_size


def test_fill_by_type() -> None:
    transform = T.RandomRotation((45, 45), fill={Image: 7, "others": 1})
    image, mask = make_image(SIZE), make_mask(SIZE, num_objects=None)
    out_image, out_mask = transform(image, mask)
    assert out_image[:, 0, 0].tolist() == [7, 7, 7]
    assert out_mask[0, 0].item() == 1


def test_elastic_works_on_images_smaller_than_the_kernel() -> None:
    out = T.ElasticTransform(sigma=5.0)(make_image((9, 7)))  # torchvision's blur fails here
    assert out.shape == (3, 9, 7)


def test_random_perspective_with_p_zero_is_identity() -> None:
    image = make_image(SIZE)
    assert T.RandomPerspective(p=0.0)(image) is image


@pytest.mark.parametrize(
    ("cls", "kwargs", "match"),
    [
        (T.RandomRotation, dict(degrees=-5), "degrees"),
        (T.RandomRotation, dict(degrees=(20, 10)), "degrees"),
        (T.RandomRotation, dict(degrees=(1, 2, 3)), "degrees"),
        (T.RandomRotation, dict(degrees=10, center=[1]), "center"),
        (T.RandomRotation, dict(degrees=10, interpolation="spline"), "interpolation"),
        (T.RandomAffine, dict(degrees=10, translate=(0.1, 1.5)), "translate"),
        (T.RandomAffine, dict(degrees=10, translate=(0.1,)), "translate"),
        (T.RandomAffine, dict(degrees=10, scale=(1.2, 0.8)), "scale"),
        (T.RandomAffine, dict(degrees=10, scale=(0, 1)), "scale"),
        (T.RandomAffine, dict(degrees=10, shear=(1, 2, 3)), "shear"),
        (T.RandomAffine, dict(degrees=10, shear=-3), "shear"),
        (T.RandomAffine, dict(degrees=10, shear=(5, 1, 0, 0)), "shear"),
        (T.RandomPerspective, dict(distortion_scale=1.5), "distortion_scale"),
        (T.RandomPerspective, dict(distortion_scale=-0.1), "distortion_scale"),
        (T.RandomPerspective, dict(p=2.0), "p must"),
        (T.ElasticTransform, dict(alpha=-1.0), "alpha"),
        (T.ElasticTransform, dict(sigma=(1, 2, 3)), "sigma"),
    ],
)
def test_constructor_errors(cls, kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        cls(**kwargs)


def test_fill_type_error() -> None:
    with pytest.raises(TypeError, match="fill"):
        T.RandomRotation(10, fill="black")


def test_boxes_alone_are_transformed() -> None:
    boxes = BoundingBox([[2, 2, 10, 10]], format="XYXY", spatial_size=SIZE, dtype=torch.float32)
    out = T.RandomAffine(degrees=(90, 90))(boxes)
    assert out.spatial_size == SIZE and not torch.equal(out, boxes)
