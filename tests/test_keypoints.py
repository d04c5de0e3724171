"""KeyPoints: the datapoint, every geometric op against torchvision 0.29, and points landing on their pixels."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx import tv_tensors
from visiontx.datapoints import Image, KeyPoints

from .common import make_image

SIZE = (30, 40)
COVERED = [
    "affine_keypoints",
    "center_crop_keypoints",
    "crop_keypoints",
    "elastic_keypoints",
    "horizontal_flip_keypoints",
    "pad_keypoints",
    "perspective_keypoints",
    "resize_keypoints",
    "resized_crop_keypoints",
    "rotate_keypoints",
    "vertical_flip_keypoints",
]


def make_keypoints(size: tuple[int, int] = SIZE, n: int = 20, dtype: torch.dtype = torch.float64) -> KeyPoints:
    generator = torch.Generator().manual_seed(0)
    xs = torch.randint(0, size[1], (n,), generator=generator)
    ys = torch.randint(0, size[0], (n,), generator=generator)
    return KeyPoints(torch.stack([xs, ys], -1).to(dtype), canvas_size=size)


# ------------------------------------------------------------------------------------ the datapoint
def test_construction_shapes_and_metadata() -> None:
    points = KeyPoints([[1, 2], [3, 4]], spatial_size=(5, 6))
    assert points.shape == (2, 2) and points.dtype == torch.int64
    assert points.spatial_size == points.canvas_size == (5, 6)
    assert KeyPoints([1.0, 2.0], canvas_size=(5, 6)).shape == (1, 2)
    assert KeyPoints([], canvas_size=(5, 6)).shape == (0, 2)
    assert KeyPoints(torch.zeros(3, 4, 17, 2), canvas_size=(5, 6)).shape == (3, 4, 17, 2)  # skeletons
    points.canvas_size = (7, 8)
    assert points.spatial_size == (7, 8)
    assert tv_tensors.KeyPoints is KeyPoints


@pytest.mark.parametrize(
    ("data", "kwargs", "error", "match"),
    [
        ([[1, 2, 3]], dict(canvas_size=(5, 6)), ValueError, r"shape \[\.\.\., 2\]"),
        (5.0, dict(canvas_size=(5, 6)), ValueError, r"shape \[\.\.\., 2\]"),
        ([[True, False]], dict(canvas_size=(5, 6)), ValueError, "real float or int"),
        ([[1, 2]], {}, TypeError, r"KeyPoints\(\) missing its spatial_size"),
        ([[1, 2]], dict(canvas_size=(5, 6), spatial_size=(5, 6)), TypeError, "give one of them"),
        ([[1, 2]], dict(canvas_size=(0, 6)), ValueError, "positive ints"),
    ],
)
def test_validation(data: Any, kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        KeyPoints(data, **kwargs)


def test_wrap_like_pickle_and_repr() -> None:
    points = KeyPoints([[1.0, 2.0]], canvas_size=(5, 6))
    assert KeyPoints.wrap_like(points, torch.zeros(3, 2)).spatial_size == (5, 6)
    assert KeyPoints.wrap_like(points, torch.zeros(3, 2), canvas_size=(9, 9)).spatial_size == (9, 9)
    with pytest.raises(TypeError, match="unknown metadata"):
        KeyPoints.wrap_like(points, torch.zeros(3, 2), format="XYXY")
    loaded = pickle.loads(pickle.dumps(points))
    assert type(loaded) is KeyPoints and loaded.spatial_size == (5, 6) and torch.equal(loaded, points)
    assert repr(points).startswith("KeyPoints(") and "spatial_size=(5, 6)" in repr(points)


# ---------------------------------------------------------------------------- against torchvision
PERSPECTIVE = dict(startpoints=[[0, 0], [39, 0], [39, 29], [0, 29]], endpoints=[[2, 1], [37, 3], [38, 28], [1, 27]])
# op, arguments: torchvision gives the same points
EXACT = [
    ("horizontal_flip", {}),
    ("vertical_flip", {}),
    ("crop", dict(top=3, left=5, height=10, width=12)),
    ("crop", dict(top=-3, left=25, height=40, width=30)),
    ("pad", dict(padding=[1, 2, 3, 4])),
    ("center_crop", dict(output_size=[10, 12])),
]
# op, arguments: torchvision maps pixel edges where the pixels move their centres, so ours is its result
# for the points moved by half a pixel (p + 0.5), moved back (the README's list of differences)
CENTRED = [
    ("resize", dict(size=[15, 60])),
    ("resize", dict(size=17, max_size=30)),
    ("resized_crop", dict(top=3, left=5, height=10, width=12, size=[20, 24])),
    ("affine", dict(angle=30.0, translate=[2.0, 3.0], scale=1.1, shear=[5.0, 0.0])),
    ("affine", dict(angle=-10.0, translate=[0.0, 0.0], scale=0.9, shear=[0.0, 7.0], center=[4.0, 9.0])),
    ("rotate", dict(angle=30.0)),
    ("rotate", dict(angle=90.0)),
    ("perspective", PERSPECTIVE),
]


def _tv() -> tuple[Any, Any]:
    tvt = pytest.importorskip("torchvision.tv_tensors")
    return tvt, pytest.importorskip("torchvision.transforms.v2.functional")


def _theirs(op: str, points: torch.Tensor, shift: float, **kwargs: Any) -> tuple[torch.Tensor, tuple[int, int]]:
    tvt, tvF = _tv()
    out = getattr(tvF, op)(tvt.KeyPoints(points + shift, canvas_size=SIZE), **kwargs)
    return out.as_subclass(torch.Tensor) - shift, tuple(out.canvas_size)


@pytest.mark.parametrize(("op", "kwargs"), EXACT)
def test_exact_ops_match_torchvision(op: str, kwargs: dict[str, Any]) -> None:
    points = make_keypoints()
    out = getattr(F, op)(points, **kwargs)
    expected, canvas = _theirs(op, points.as_subclass(torch.Tensor), 0.0, **kwargs)
    assert type(out) is KeyPoints and out.spatial_size == canvas
    torch.testing.assert_close(out.as_subclass(torch.Tensor), expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize(("op", "kwargs"), CENTRED)
def test_resampling_ops_match_torchvision_on_pixel_centres(op: str, kwargs: dict[str, Any]) -> None:
    points = make_keypoints()
    out = getattr(F, op)(points, **kwargs)
    expected, canvas = _theirs(op, points.as_subclass(torch.Tensor), 0.5, **kwargs)
    assert out.spatial_size == canvas
    torch.testing.assert_close(out.as_subclass(torch.Tensor), expected, rtol=0, atol=1e-5)
    plain, _ = _theirs(op, points.as_subclass(torch.Tensor), 0.0, **kwargs)
    assert (out.as_subclass(torch.Tensor) - plain).abs().max() <= 1.0  # torchvision's own result: within 1 px


@pytest.mark.parametrize(
    ("op", "kwargs", "max_difference"),
    [("center_crop", dict(output_size=[35, 47]), 1.0), ("rotate", dict(angle=30.0, expand=True), 0.5)],
)
def test_documented_differences_from_torchvision(op: str, kwargs: dict[str, Any], max_difference: float) -> None:
    """A padding center_crop (torchvision's points 1 px off its pixels) and rotate(expand=True) (its
    shift by the unrounded corner minimum): the canvas agrees, the points within ``max_difference``."""
    points = make_keypoints()
    out = getattr(F, op)(points, **kwargs)
    expected, canvas = _theirs(op, points.as_subclass(torch.Tensor), 0.0, **kwargs)
    assert out.spatial_size == canvas
    assert 0 < (out.as_subclass(torch.Tensor) - expected).abs().max() <= max_difference + 1e-6


def test_elastic_follows_torchvision_exactly() -> None:
    _, tvF = _tv()
    points = make_keypoints(dtype=torch.float32) + 0.25
    displacement = torch.randn(1, *SIZE, 2, generator=torch.Generator().manual_seed(1)) * 0.05
    out = F.elastic(KeyPoints(points, canvas_size=SIZE), displacement)
    expected = tvF.elastic_keypoints(points.as_subclass(torch.Tensor), SIZE, displacement)
    assert out.spatial_size == SIZE
    torch.testing.assert_close(out.as_subclass(torch.Tensor), expected)


# 0.29 key-point kernel -> its arguments besides keypoints (and canvas_size, passed by keyword where taken)
KERNEL_CASES: dict[str, tuple[dict[str, Any], float]] = {
    "horizontal_flip_keypoints": (dict(canvas_size=SIZE), 0.0),
    "vertical_flip_keypoints": (dict(canvas_size=SIZE), 0.0),
    "crop_keypoints": (dict(top=3, left=5, height=10, width=12), 0.0),
    "center_crop_keypoints": (dict(canvas_size=SIZE, output_size=[10, 12]), 0.0),
    "pad_keypoints": (dict(canvas_size=SIZE, padding=[1, 2, 3, 4]), 0.0),
    "resize_keypoints": (dict(size=[15, 60], canvas_size=SIZE), 0.5),
    "resized_crop_keypoints": (dict(top=3, left=5, height=10, width=12, size=[20, 24]), 0.5),
    "affine_keypoints": (dict(canvas_size=SIZE, angle=30.0, translate=[2.0, 3.0], scale=1.1, shear=[5.0, 0.0]), 0.5),
    "rotate_keypoints": (dict(canvas_size=SIZE, angle=30.0), 0.5),
    "perspective_keypoints": (dict(canvas_size=SIZE, **PERSPECTIVE), 0.5),
}


@pytest.mark.parametrize("name", sorted(KERNEL_CASES))
def test_public_kernels_match_torchvision_s(name: str) -> None:
    _, tvF = _tv()
    kwargs, shift = KERNEL_CASES[name]
    points = make_keypoints().as_subclass(torch.Tensor)
    ours, theirs = getattr(F, name)(points, **kwargs), getattr(tvF, name)(points + shift, **kwargs)
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and tuple(ours[1]) == tuple(theirs[1])
        ours, theirs = ours[0], theirs[0]
    assert type(ours) is torch.Tensor
    torch.testing.assert_close(ours, theirs - shift, rtol=0, atol=1e-5)


def test_integer_points_are_rounded_and_keep_their_dtype() -> None:
    points = KeyPoints([[0, 0], [3, 4]], canvas_size=(10, 20))
    assert F.horizontal_flip(points).tolist() == [[19, 0], [16, 4]]
    out = F.resize(points, [20, 40])
    assert out.dtype == torch.int64 and out.tolist() == [[0, 0], [6, 8]]  # 0.5 and 6.5 / 8.5, half to even


def test_points_leave_the_canvas_unclamped_and_reflecting_pads_are_refused() -> None:
    points = KeyPoints([[1.0, 1.0], [30.0, 20.0]], canvas_size=SIZE)
    assert F.crop(points, 5, 5, 10, 10).tolist() == [[-4.0, -4.0], [25.0, 15.0]]
    with pytest.raises(ValueError):
        F.pad(points, [2], padding_mode="reflect")


def test_warp_and_geometry_of_move_points_as_the_op() -> None:
    points = make_keypoints()
    geometry = F.geometry_of("rotate", SIZE, angle=20.0, expand=True)
    torch.testing.assert_close(F.warp(points, geometry), F.rotate(points, 20.0, expand=True))
    assert F.warp(points, geometry).spatial_size == geometry.canvas_size


# ---------------------------------------------------------------------------------- transforms
def test_non_geometric_transforms_pass_points_through() -> None:
    image, points = make_image(SIZE), make_keypoints()
    for transform in (T.ColorJitter(0.5, 0.5, 0.5, 0.1), T.GaussianBlur(3), T.Grayscale(), T.RandomInvert(1.0)):
        _, out = transform(image, points)
        assert out is points


def test_spatial_sizes_must_agree() -> None:
    with pytest.raises(ValueError, match="key points of a sample must have the same H x W"):
        T.RandomHorizontalFlip(1.0)(make_image(SIZE), make_keypoints((10, 10)))


def test_torchvision_key_points_come_back_as_torchvision_s() -> None:
    tvt, tvF = _tv()
    points = tvt.KeyPoints(make_keypoints().as_subclass(torch.Tensor), canvas_size=SIZE)
    out = F.rotate(points, 30.0, expand=True)
    assert type(out) is tvt.KeyPoints
    assert tuple(out.canvas_size) == F.rotate(make_keypoints(), 30.0, expand=True).spatial_size
    image, out = T.RandomHorizontalFlip(1.0)(tvt.Image(make_image(SIZE)), points)
    assert type(out) is tvt.KeyPoints
    torch.testing.assert_close(out.as_subclass(torch.Tensor), tvF.horizontal_flip(points).as_subclass(torch.Tensor))


# --------------------------------------------------------------------- points land on their pixels
BLOB_SIZE = (48, 64)


def _blobs(seed: int, n: int = 8) -> tuple[Image, KeyPoints]:
    """``n`` images ``[n, 1, H, W]``, each a small Gaussian blob centred on pixel ``points[i]``."""
    height, width = BLOB_SIZE
    generator = torch.Generator().manual_seed(seed)
    xs = torch.randint(8, width - 8, (n,), generator=generator)
    ys = torch.randint(8, height - 8, (n,), generator=generator)
    rows, cols = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
    squared = (cols - xs[:, None, None]) ** 2 + (rows - ys[:, None, None]) ** 2
    image = torch.exp(-squared / 4.5).float()[:, None]
    return Image(image), KeyPoints(torch.stack([xs, ys], -1).float(), canvas_size=BLOB_SIZE)


def _centroids(image: torch.Tensor) -> torch.Tensor:
    image = image[:, 0]
    rows, cols = torch.meshgrid(torch.arange(image.shape[-2]), torch.arange(image.shape[-1]), indexing="ij")
    mass = image.sum((-2, -1))
    return torch.stack([(image * cols).sum((-2, -1)) / mass, (image * rows).sum((-2, -1)) / mass], -1)


GEOMETRIC = {
    "flips": T.Compose([T.RandomHorizontalFlip(1.0), T.RandomVerticalFlip(1.0)]),
    "affine": T.RandomAffine(30, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=10, interpolation="bilinear"),
    "rotate": T.RandomRotation(40, interpolation="bilinear"),
    "rotate_expand": T.RandomRotation(40, expand=True, interpolation="bilinear"),
    "perspective": T.RandomPerspective(0.3, p=1.0, interpolation="bilinear"),
    "resized_crop": T.RandomResizedCrop((40, 50), scale=(0.5, 1.0), antialias=False),
    "resize": T.Resize((96, 80), antialias=False),
    "pad": T.Compose([T.Pad([3, 5, 7, 2]), T.RandomZoomOut(p=1.0)]),
    "center_crop": T.CenterCrop((40, 70)),
    "pipeline": T.Compose(
        [T.RandomZoomOut(p=0.5), T.RandomRotation(20, interpolation="bilinear"), T.RandomHorizontalFlip()]
        + [T.RandomResizedCrop((50, 60), scale=(0.6, 1.0), antialias=False)]
    ),
    "fused": T.Compose(
        [
            T.RandomZoomOut(p=1.0, side_range=(1.0, 1.5)),
            T.RandomRotation(30, interpolation="bilinear"),
            T.RandomAffine(0, translate=(0.05, 0.05), scale=(0.9, 1.1), shear=8, interpolation="bilinear"),
            T.RandomPerspective(0.2, p=1.0, interpolation="bilinear"),
            T.RandomResizedCrop((56, 64), scale=(0.6, 1.0), antialias=False),
        ],
        fuse_geometry=True,
    ),
}


@pytest.mark.parametrize("name", sorted(GEOMETRIC))
def test_points_land_on_the_pixels_they_mark(name: str) -> None:
    """A blob drawn at each point, transformed with it: the blob's centroid is where the point goes."""
    for seed in range(6):
        torch.manual_seed(seed)
        image, points = _blobs(seed)
        out_image, out_points = GEOMETRIC[name](image, points)
        assert type(out_points) is KeyPoints and out_points.spatial_size == tuple(out_image.shape[-2:])
        height, width = out_image.shape[-2:]
        xs, ys = out_points.as_subclass(torch.Tensor).unbind(-1)
        inside = (xs > 6) & (xs < width - 7) & (ys > 6) & (ys < height - 7)  # the whole blob is on the canvas
        error = (_centroids(out_image.as_subclass(torch.Tensor)) - out_points.as_subclass(torch.Tensor))[inside]
        assert error.numel() == 0 or error.abs().max() < 0.15, (name, seed, error.abs().max())


@pytest.mark.parametrize(
    "transform",
    [T.FiveCrop(10), T.TenCrop(10), T.AutoAugment(), T.RandAugment(), T.TrivialAugmentWide(), T.AugMix()],
    ids=lambda t: type(t).__name__,
)
def test_transforms_without_a_key_point_rule_refuse_them(transform: T.Transform) -> None:
    with pytest.raises(TypeError, match="KeyPoints"):
        transform(make_image(SIZE), make_keypoints())


def test_mixing_refuses_and_erasing_passes_key_points_with_a_warning() -> None:
    labels = torch.tensor([0, 1])
    with pytest.raises(TypeError, match="key points"):
        T.MixUp(num_classes=2)(torch.rand(2, 3, *SIZE), make_keypoints(), labels)
    points = make_keypoints()
    with pytest.warns(UserWarning, match="KeyPoints"):
        _, out = T.RandomErasing(1.0)(make_image(SIZE), points)
    assert out is points


def test_fused_runs_move_points_as_unfused_ones() -> None:
    image, points = make_image((48, 64)), KeyPoints([[10.0, 20.0], [30.0, 5.0]], canvas_size=(48, 64))
    steps = [T.RandomRotation(30), T.RandomPerspective(0.3, p=1.0), T.Resize(32), T.CenterCrop(30)]
    outputs = []
    for fuse in (False, True):
        torch.manual_seed(0)
        outputs.append(T.Compose(steps, fuse_geometry=fuse)(image, points)[1])
    assert outputs[0].spatial_size == outputs[1].spatial_size == (30, 30)
    torch.testing.assert_close(outputs[1], outputs[0], rtol=0, atol=1e-4)


def test_fused_runs_keep_points_an_intermediate_canvas_left_out_invisible() -> None:
    """A point off the canvas after one step and brought back by a later one stays invisible, fused as unfused."""
    image = make_image((40, 40))
    points = KeyPoints([[0.64, 14.6], [20.0, 20.0]], canvas_size=(40, 40), visibility=torch.tensor([True, True]))
    for steps in ([T.Resize((27, 16)), T.Pad(2)], [T.Resize((27, 16)), T.RandomAffine(0, translate=(0.3, 0.3))]):
        outputs = []
        for fuse in (False, True):
            torch.manual_seed(0)
            outputs.append(T.Compose(steps, fuse_geometry=fuse)(image, points)[1])
        assert outputs[0].visibility.tolist()[0] is False  # the resize put it at x = -0.044
        assert torch.equal(outputs[1].visibility, outputs[0].visibility)
        torch.testing.assert_close(outputs[1], outputs[0], rtol=0, atol=1e-4)
