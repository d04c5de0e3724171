"""perspective and elastic: generic cases, torchvision references, loop references, errors."""

from __future__ import annotations

import contextlib
import math

import numpy as np
import PIL.Image
import pytest
import torch

import visiontx.functional as F
from visiontx.datapoints import BoundingBox, Image, Mask, Video
from visiontx.functional import _cv2
from visiontx.functional._geometry._grid import matrix_grid
from visiontx.functional._geometry._warp import _coefficient_matrix, _perspective_coefficients
from visiontx.transforms import ElasticTransform

from .common import AXIS_ALIGNED
from .common import DEFAULT_SIZE, Case, assert_equal, make_bounding_box, make_image_pil, make_image_tensor, make_mask
from .test_functional_affine import _plain, _tv_boxes, assert_mostly_equal

HEIGHT, WIDTH = DEFAULT_SIZE
STARTPOINTS = [[0, 0], [WIDTH - 1, 0], [WIDTH - 1, HEIGHT - 1], [0, HEIGHT - 1]]
ENDPOINTS = [[2, 1], [WIDTH - 3, 0], [WIDTH - 1, HEIGHT - 2], [1, HEIGHT - 3]]
COEFFICIENTS = [1.1, 0.05, -2.0, 0.03, 1.2, -1.5, 0.004, 0.006]
DISPLACEMENT = 0.1 * torch.randn(1, HEIGHT, WIDTH, 2, generator=torch.Generator().manual_seed(0))
IMAGE_TYPES = (torch.Tensor, Image, Video, PIL.Image.Image)

FUNCTIONAL_CASES = {
    F.perspective: [
        dict(startpoints=STARTPOINTS, endpoints=ENDPOINTS),
        Case(dict(startpoints=None, endpoints=None, coefficients=COEFFICIENTS, interpolation="nearest", fill=3)),
        Case(dict(startpoints=STARTPOINTS, endpoints=ENDPOINTS, fill=[1, 2, 3]), types=IMAGE_TYPES, channels=(3,)),
    ],
    F.elastic: [
        dict(displacement=DISPLACEMENT),
        Case(dict(displacement=DISPLACEMENT, interpolation="nearest", fill=5)),
        Case(dict(displacement=DISPLACEMENT, fill=[1, 2, 3]), types=IMAGE_TYPES, channels=(3,)),
    ],
}
COVERED = {"elastic_bounding_box", "elastic_mask", "perspective_bounding_box", "perspective_mask"}


def _tolerance(dtype: torch.dtype) -> float:
    return 1 if dtype == torch.uint8 else 1e-4


# ----------------------------------------------------------------------------------- perspective
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
@pytest.mark.parametrize("fill", [None, 1, [1, 2, 3]])
def test_perspective_image_matches_torchvision(dtype, channels, interpolation, fill) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image_tensor(dtype=dtype, channels=channels, batch_dims=(2,))
    fill = fill[:1] if isinstance(fill, list) and channels == 1 else fill
    mode = tv_f.InterpolationMode(interpolation)
    for points in (dict(startpoints=STARTPOINTS, endpoints=ENDPOINTS), dict(startpoints=None, endpoints=None)):
        coefficients = None if points["startpoints"] else COEFFICIENTS
        actual = F.perspective(image, **points, interpolation=interpolation, fill=fill, coefficients=coefficients)
        expected = tv_f.perspective(image, **points, interpolation=mode, fill=fill, coefficients=coefficients)
        assert_mostly_equal(actual, expected, atol=_tolerance(dtype), max_fraction=0.01)


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("channels", [1, 3])
def test_perspective_pil_matches_torchvision(interpolation, channels) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image_pil(channels=channels)
    mode = tv_f.InterpolationMode(interpolation)
    actual = F.perspective(image, None, None, interpolation=interpolation, fill=9, coefficients=COEFFICIENTS)
    expected = tv_f.perspective(image, None, None, interpolation=mode, fill=9, coefficients=COEFFICIENTS)
    assert_equal(actual, expected)
    # torchvision rounds solved coefficients to float32: a few pixels on exact boundaries may differ
    actual = F.perspective(image, STARTPOINTS, ENDPOINTS, interpolation=interpolation)
    expected = tv_f.perspective(image, STARTPOINTS, ENDPOINTS, interpolation=mode)
    assert_mostly_equal(actual, expected, atol=1, max_fraction=0.01)


def test_perspective_pil_matches_tensor() -> None:
    image = make_image_tensor()
    actual = F.perspective(F.to_image_pil(image), STARTPOINTS, ENDPOINTS, interpolation="nearest")
    expected = F.perspective(image, STARTPOINTS, ENDPOINTS, interpolation="nearest")
    assert_mostly_equal(F.pil_to_tensor(actual), expected, atol=0, max_fraction=0.01)


@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_perspective_bounding_box_matches_torchvision(format) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    boxes = make_bounding_box(format=format, num_boxes=6)
    by_coefficients = dict(startpoints=None, endpoints=None, coefficients=COEFFICIENTS)
    for kwargs in (dict(startpoints=STARTPOINTS, endpoints=ENDPOINTS), by_coefficients):
        actual = F.perspective(boxes, **kwargs)
        expected = tv_f.perspective(_tv_boxes(boxes), **kwargs)
        torch.testing.assert_close(_plain(actual), _plain(expected), atol=1e-3, rtol=0)


def _solve_forward(x: float, y: float, coefficients: list[float]) -> tuple[float, float]:
    """Reference forward map: the output point ``(u, v)`` that the coefficients (output -> input)
    send to the input point ``(x, y)``, from the 2 x 2 linear system it satisfies."""
    a, b, c, d, e, f, g, h = coefficients
    # (a - g x) u + (b - h x) v = x - c ; (d - g y) u + (e - h y) v = y - f
    m = np.array([[a - g * x, b - h * x], [d - g * y, e - h * y]])
    return tuple(np.linalg.solve(m, [x - c, y - f]))


def test_perspective_bounding_box_matches_loop_reference() -> None:
    boxes = make_bounding_box(num_boxes=5, dtype=torch.float64)
    out = F.perspective(boxes, None, None, coefficients=COEFFICIENTS)
    expected = []
    for x1, y1, x2, y2 in boxes.tolist():
        points = [_solve_forward(x, y, COEFFICIENTS) for x, y in [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        expected.append([max(min(xs), 0), max(min(ys), 0), min(max(xs), WIDTH), min(max(ys), HEIGHT)])
    torch.testing.assert_close(_plain(out), torch.tensor(expected, dtype=torch.float64))


def test_solved_coefficients_send_each_end_point_to_its_start_point() -> None:
    """Solved in float64, rounded to float32 as torchvision's coefficients (the points land within float32's
    precision), and equal to torchvision's."""
    from visiontx.functional._geometry._warp import _solve_coefficients

    start, end = [[0, 0], [39, 2], [37, 30], [1, 28]], [[3, 1], [35, 0], [39, 31], [0, 25]]
    coefficients = _solve_coefficients(start, end)
    assert all(float(np.float32(value)) == value for value in coefficients)
    a, b, c, d, e, f, g, h = coefficients
    for (sx, sy), (ex, ey) in zip(start, end):
        denominator = g * ex + h * ey + 1
        assert (a * ex + b * ey + c) / denominator == pytest.approx(sx, abs=1e-5)
        assert (d * ex + e * ey + f) / denominator == pytest.approx(sy, abs=1e-5)
    tv_geometry = pytest.importorskip("torchvision.transforms.v2.functional._geometry")
    assert coefficients == tv_geometry._get_perspective_coeffs(start, end)


_QUAD = [[3.0, 1.0], [35.0, 0.0], [39.0, 31.0], [0.0, 25.0]]


@pytest.mark.parametrize(
    "end",
    [
        [_QUAD[0], _QUAD[0], _QUAD[2], _QUAD[3]],  # coincident points
        [[0.0, 0.0], [10.0, 10.0], [20.0, 20.0], [0.0, 30.0]],  # three collinear
        [[0.0, 0.0], [10.0, 10.0], [20.0, 20.0 + 1e-12], [0.0, 30.0]],  # nearly collinear, by tiny steps
        [[0.0, 0.0], [10.0, 10.0], [20.0, 20.0 + 1e-9], [0.0, 30.0]],
        [[0.0, 0.0], [10.0, 10.0], [20.0, 20.0 + 1e-6], [0.0, 30.0]],
        [[0.0, 0.0], [10.0, 10.0], [20.0, 20.0 + 1e-3], [0.0, 30.0]],
        [[0.0, 7.0], [1.0, 7.0], [2.0, 7.0], [3.0, 7.0]],  # all on one line
        [[0.0, 0.0]] * 3 + [[1e-300, 1e-300]],
        [[x + 1e-14, y] for x, y in _QUAD],  # the start points, nudged
        [[x * 1e8, y * 1e8] for x, y in _QUAD],
        _QUAD,
    ],
)
def test_solved_coefficients_raise_where_the_system_is_rank_deficient(end) -> None:
    """ValueError exactly where numpy's matrix_rank of the 8 x 8 system is below 8 (or the solution is not
    finite); otherwise the solution is numpy's solve of it, to the bit."""
    from visiontx.functional._geometry._warp import _solve_coefficients

    start = [[0.0, 0.0], [39.0, 2.0], [37.0, 30.0], [1.0, 28.0]]
    rows = []
    for (sx, sy), (ex, ey) in zip(start, end):
        rows += [[ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey], [0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey]]
    system, rhs = np.array(rows, dtype=np.float64), np.array(start, dtype=np.float64).ravel()
    expected = np.linalg.solve(system, rhs) if np.linalg.matrix_rank(system) == 8 else None
    if expected is None or not np.isfinite(expected).all():
        with pytest.raises(ValueError, match="general position"):
            _solve_coefficients(start, end)
    else:
        assert _solve_coefficients(start, end) == expected.astype(np.float32).tolist()


@pytest.mark.parametrize(
    "points",
    [
        [[0.0, 0.0]] * 4,
        [[1.0, 1.0], [1.0, 1.0], [5.0, 2.0], [3.0, 6.0]],
        [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [0.0, 5.0]],
    ],
)
def test_perspective_from_degenerate_points_to_themselves_raises(points) -> None:
    """Start points equal to the end points are the identity only in general position: coincident or
    collinear ones raise as they do when they differ."""
    with pytest.raises(ValueError, match="general position"):
        F.perspective(make_image_tensor(), points, points)


def test_perspective_identity_returns_input() -> None:
    image = make_image_tensor()
    assert F.perspective_image_tensor(image, STARTPOINTS, STARTPOINTS) is image
    masks = torch.zeros(3, 8, 8, dtype=torch.bool)  # bool masks sample as their bytes: still the input itself
    assert F.perspective_image_tensor(masks, STARTPOINTS, STARTPOINTS, "nearest") is masks
    boxes = make_bounding_box()
    assert_equal(F.perspective(boxes, STARTPOINTS, STARTPOINTS), boxes, atol=1e-4, rtol=0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(startpoints=STARTPOINTS, endpoints=ENDPOINTS, coefficients=COEFFICIENTS), "not both"),
        (dict(startpoints=None, endpoints=None), "startpoints"),
        (dict(startpoints=None, endpoints=None, coefficients=[1, 2, 3]), "coefficients"),
        (dict(startpoints=STARTPOINTS[:3], endpoints=ENDPOINTS), "startpoints"),
        (dict(startpoints=STARTPOINTS, endpoints=[[0, 0]] * 4), "general position"),
    ],
)
def test_perspective_errors(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        F.perspective(make_image_tensor(), **kwargs)


# --------------------------------------------------------------------------------------- elastic
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
@pytest.mark.parametrize("fill", [None, 2, [1, 2, 3]])
def test_elastic_image_matches_torchvision(dtype, channels, interpolation, fill) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image_tensor(dtype=dtype, channels=channels, batch_dims=(2,))
    fill = fill[:1] if isinstance(fill, list) and channels == 1 else fill
    actual = F.elastic(image, DISPLACEMENT, interpolation=interpolation, fill=fill)
    expected = tv_f.elastic(image, DISPLACEMENT, interpolation=tv_f.InterpolationMode(interpolation), fill=fill)
    assert_mostly_equal(actual, expected, atol=_tolerance(dtype), max_fraction=0.01)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("fill", [None, 2, [1, 2, 3]])
@pytest.mark.parametrize("accelerated", [True, False])
def test_elastic_bicubic_matches_torchvision(dtype, fill, accelerated) -> None:
    """torchvision samples with ``grid_sample``'s bicubic; its uint8 result casts the overshoot without
    saturating (-3 becomes 253), where visiontx saturates: equal wherever torchvision's value fits."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image_tensor(dtype=dtype, batch_dims=(2,))
    assert not _cv2.can_warp(image, F.InterpolationMode.BICUBIC, None)  # OpenCV's cubic is not grid_sample's
    with contextlib.nullcontext() if accelerated else _cv2.disabled():
        actual = F.elastic(image, DISPLACEMENT, interpolation="bicubic", fill=fill)
    bicubic = dict(interpolation=tv_f.InterpolationMode.BICUBIC, fill=fill)
    exact = tv_f.elastic(image.double(), DISPLACEMENT.double(), **bicubic)
    if dtype == torch.uint8:
        fits = (exact > -0.5) & (exact < 255.5)
        assert not fits.all()  # the case that needs saturation is exercised
        wrapped = tv_f.elastic(image, DISPLACEMENT, **bicubic)
        assert_mostly_equal(actual[fits], wrapped[fits], atol=0, max_fraction=0.002)
        exact = exact.round().clamp(0, 255)
    assert_mostly_equal(actual, exact, atol=_tolerance(dtype), max_fraction=0.0)
    if dtype == torch.uint8:  # PIL images go through the tensor kernel
        pil = F.elastic(F.to_image_pil(image[0]), DISPLACEMENT, interpolation="bicubic")
        assert_equal(F.pil_to_tensor(pil), F.elastic(image[0], DISPLACEMENT, interpolation="bicubic"))


def test_elastic_transform_bicubic_matches_torchvision() -> None:
    tv_t = pytest.importorskip("torchvision.transforms.v2")
    image, mask = make_image_tensor(dtype=torch.float32), make_mask()
    torch.manual_seed(3)
    actual = ElasticTransform(alpha=20.0, sigma=1.5, interpolation="bicubic")(Image(image), mask)
    torch.manual_seed(3)
    bicubic = tv_t.InterpolationMode.BICUBIC
    expected = tv_t.ElasticTransform(alpha=20.0, sigma=1.5, interpolation=bicubic)(image, mask)
    assert_mostly_equal(actual[0], expected[0], atol=1e-4)
    assert set(actual[1].unique().tolist()) <= set(mask.unique().tolist())  # masks stay nearest


@pytest.mark.parametrize("channels", [1, 3])
def test_elastic_pil_matches_torchvision(channels) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = make_image_pil(channels=channels)
    actual = F.elastic(image, DISPLACEMENT, fill=4)
    assert isinstance(actual, PIL.Image.Image) and actual.mode == image.mode
    assert_mostly_equal(actual, tv_f.elastic(image, DISPLACEMENT, fill=4), atol=1)


@pytest.mark.parametrize("format", AXIS_ALIGNED)
def test_elastic_bounding_box_matches_torchvision(format) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    boxes = make_bounding_box(format=format, num_boxes=6)
    actual = F.elastic(boxes, DISPLACEMENT)
    torch.testing.assert_close(_plain(actual), _plain(tv_f.elastic(_tv_boxes(boxes), DISPLACEMENT)), atol=1e-4, rtol=0)


def test_elastic_bounding_box_matches_loop_reference() -> None:
    boxes = BoundingBox([[2.2, 3.0, 10.5, 12.0], [0, 0, 23, 17]], format="XYXY", spatial_size=DEFAULT_SIZE)
    out = F.elastic(boxes, DISPLACEMENT)
    expected = []
    for x1, y1, x2, y2 in boxes.tolist():
        points = []
        for x, y in [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]:
            col, row = min(int(np.ceil(x)), WIDTH - 1), min(int(np.ceil(y)), HEIGHT - 1)
            dx, dy = DISPLACEMENT[0, row, col].tolist()
            points.append((col - dx * WIDTH / 2, row - dy * HEIGHT / 2))
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        expected.append([max(min(xs), 0), max(min(ys), 0), min(max(xs), WIDTH), min(max(ys), HEIGHT)])
    torch.testing.assert_close(_plain(out), torch.tensor(expected), atol=1e-4, rtol=0)


def test_elastic_zero_displacement_is_identity() -> None:
    zero = torch.zeros(1, HEIGHT, WIDTH, 2)
    for interpolation in ("nearest", "bilinear"):
        image = make_image_tensor()
        assert_equal(F.elastic(image, zero, interpolation=interpolation), image)
    mask = make_mask()
    assert_equal(F.elastic(mask, zero), mask)


def test_elastic_masks_use_nearest() -> None:
    mask = make_mask(num_objects=None)
    out = F.elastic(mask, DISPLACEMENT, interpolation="bilinear")
    assert set(out.unique().tolist()) <= set(mask.unique().tolist()) | {0}
    assert_equal(F.elastic_mask(mask.as_subclass(torch.Tensor), DISPLACEMENT), out)


def test_elastic_errors() -> None:
    image = make_image_tensor()
    with pytest.raises(TypeError, match="displacement"):
        F.elastic(image, DISPLACEMENT.numpy())
    with pytest.raises(ValueError, match="displacement"):
        F.elastic(image, torch.zeros(1, HEIGHT, WIDTH + 1, 2))
    with pytest.raises(ValueError, match="displacement"):
        F.elastic(make_bounding_box(), torch.zeros(HEIGHT, WIDTH, 2))
    with pytest.raises(ValueError, match="interpolation"):
        F.elastic(image, DISPLACEMENT, interpolation="lanczos")
    with pytest.raises(ValueError, match="interpolation"):
        F.perspective(image, STARTPOINTS, ENDPOINTS, interpolation="bicubic")  # torchvision's tensors refuse it too


def test_empty_inputs() -> None:
    boxes = BoundingBox(torch.zeros(0, 4), format="CXCYWH", spatial_size=DEFAULT_SIZE)
    assert F.elastic(boxes, DISPLACEMENT).shape == (0, 4)
    assert F.perspective(boxes, STARTPOINTS, ENDPOINTS).shape == (0, 4)
    assert F.elastic(torch.zeros(0, 3, HEIGHT, WIDTH), DISPLACEMENT).shape == (0, 3, HEIGHT, WIDTH)


# ------------------------------------------------------------------ degenerate grids and images
HORIZON_START, HORIZON_END = [[0, 0], [6, 0], [6, 6], [0, 6]], [[2, -1], [4, 1], [4, 4], [1, 7]]


@pytest.mark.parametrize("dtype", [torch.int16, torch.uint8, torch.float32])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
@pytest.mark.parametrize("fill", [None, 7])
@pytest.mark.parametrize("accelerated", [True, False])
def test_perspective_points_on_the_horizon_get_the_fill(dtype, interpolation, fill, accelerated) -> None:
    """Output pixel (2, 5) of this warp lies on the horizon: its source point is 0 / 0 = NaN. It is
    outside the image (nearest indexed with NaN cast to INT64_MIN; bilinear gave NaN)."""
    coefficients = _perspective_coefficients(HORIZON_START, HORIZON_END)
    grid = matrix_grid(_coefficient_matrix(coefficients), (7, 7), (7, 7), torch.float32, torch.device("cpu"))
    assert grid[2, 5].isnan().any()
    image = torch.arange(3 * 7 * 7).reshape(3, 7, 7).add(10).to(dtype)
    with contextlib.nullcontext() if accelerated else _cv2.disabled():
        out = F.perspective(image, HORIZON_START, HORIZON_END, interpolation=interpolation, fill=fill)
    assert out.dtype == dtype and out.shape == image.shape
    assert out[:, 2, 5].tolist() == [fill or 0] * 3
    if dtype.is_floating_point:
        assert not out.isnan().any()
    if interpolation == "nearest":  # torchvision's grid_sample treats the NaN point as outside too
        tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
        expected = tv_f.perspective(
            image, HORIZON_START, HORIZON_END, interpolation=tv_f.InterpolationMode.NEAREST, fill=fill
        )
        assert_equal(out[:, 2, 5], expected[:, 2, 5])
        assert_mostly_equal(out, expected, atol=0, max_fraction=0.15)  # this tiny warp is all rounding ties


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
@pytest.mark.parametrize("accelerated", [True, False])
def test_elastic_non_finite_displacement_gets_the_fill(dtype, interpolation, accelerated) -> None:
    image = torch.full((3, 6, 6), 100, dtype=dtype)
    displacement = torch.zeros(1, 6, 6, 2)
    displacement[0, 2, 3, 0], displacement[0, 3, 3, 1], displacement[0, 4, 4, 0] = math.nan, math.inf, -math.inf
    with contextlib.nullcontext() if accelerated else _cv2.disabled():
        out = F.elastic(image, displacement, interpolation=interpolation, fill=7)
    assert out[:, [2, 3, 4], [3, 3, 4]].eq(7).all()
    assert out[:, 0, 0].eq(100).all()


@pytest.mark.parametrize("size", [(0, 5), (5, 0), (0, 0)])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_warps_of_images_without_pixels(size, interpolation) -> None:
    """Zero height or width (divided by, before): empty outputs of the input's shape and dtype."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    displacement = torch.zeros(1, *size, 2)
    for dtype in (torch.uint8, torch.float32):
        image = torch.zeros(2, 3, *size, dtype=dtype)
        for out in (
            F.perspective(image, HORIZON_START, HORIZON_END, interpolation=interpolation, fill=3),
            F.perspective(image, None, None, coefficients=COEFFICIENTS, interpolation=interpolation),
            F.elastic(image, displacement, interpolation=interpolation, fill=[1, 2, 3]),
            F.perspective(Mask(image[0, 0]), HORIZON_START, HORIZON_END),
            F.elastic(Mask(image[0, 0]), displacement),
        ):
            assert out.shape[-2:] == size and out.dtype == dtype
        expected = tv_f.perspective(
            image, HORIZON_START, HORIZON_END, interpolation=tv_f.InterpolationMode(interpolation)
        )
        assert F.perspective(image, HORIZON_START, HORIZON_END, interpolation=interpolation).shape == expected.shape
    pil = PIL.Image.new("RGB", size[::-1])
    assert F.perspective(pil, HORIZON_START, HORIZON_END, interpolation=interpolation).size == pil.size
    assert F.elastic(pil, displacement, interpolation=interpolation).size == pil.size
    boxes = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    for out in (
        F.perspective_bounding_box(boxes, "XYXY", size, HORIZON_START, HORIZON_END),
        F.elastic_bounding_box(boxes, "XYWH", size, displacement),
    ):
        assert out.shape == boxes.shape and out.isfinite().all()
    # clamped to the empty image: nothing to move along
    assert F.elastic_bounding_box(boxes, "XYXY", size, displacement).tolist() == [
        [min(1, size[1]), min(2, size[0]), min(3, size[1]), min(4, size[0])]
    ]
    transformed = ElasticTransform()(torch.zeros(3, *size, dtype=torch.uint8))
    assert transformed.shape == (3, *size)


# ------------------------------------------------------------------ nearest ties, as torchvision breaks them
TIE_CASES = [  # source points exactly between two pixels: torchvision's grid rounds them half to even
    ("rotate", (223, 224), dict(angle=90.0)),  # a quarter turn of sides of different parity
    ("rotate", (300, 181), dict(angle=270.0, expand=True)),
    ("rotate", (75, 59), dict(angle=30.0)),
    ("affine", (65, 65), dict(angle=0.0, translate=[0, 0], scale=2.0, shear=[0.0, 0.0])),
    ("affine", (300, 181), dict(angle=0.0, translate=[0, 0], scale=1.3, shear=[0.0, 0.0])),
    ("affine", (80, 61), dict(angle=90.0, translate=[1, -2], scale=1.0, shear=[10.0, 0.0])),
    ("perspective", (47, 62), dict(startpoints=[[0, 0], [61, 0], [61, 46], [0, 46]],
                                   endpoints=[[13, 13], [50, 3], [59, 32], [4, 43]])),
    ("perspective", (6, 72), dict(startpoints=[[0, 0], [71, 0], [71, 5], [0, 5]],
                                  endpoints=[[16, 1], [54, 2], [53, 3], [12, 4]])),
]


@pytest.mark.parametrize(("op", "size", "kwargs"), TIE_CASES)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.int64])
@pytest.mark.parametrize("accelerated", [True, False])
def test_nearest_warps_pick_torchvisions_pixels_on_ties(op, size, kwargs, dtype, accelerated) -> None:
    """Every output pixel takes torchvision's source pixel, on the OpenCV wing and on the torch path: the grid is
    torchvision's, step for step (``_grid_terms``), where another order of the same float32 operations lands
    beside the ties (up to half of a quarter turn's pixels a row off)."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    height, width = size
    image = torch.arange(3 * height * width).reshape(3, height, width)  # each value names its source pixel
    image = image.remainder(251).to(dtype) if dtype == torch.uint8 else image.to(dtype)
    for fill in (None, 9):
        expected = getattr(tv_f, op)(image, interpolation=tv_f.InterpolationMode.NEAREST, fill=fill, **kwargs)
        with contextlib.nullcontext() if accelerated else _cv2.disabled():
            out = getattr(F, op)(image, interpolation="nearest", fill=fill, **kwargs)
            mask = getattr(F, op)(Mask(image[0]), fill=fill, **kwargs)
        assert torch.equal(out, expected), (op, size, fill)
        assert torch.equal(mask.as_subclass(torch.Tensor), expected[0]), (op, size, fill)


@pytest.mark.parametrize("op", ["rotate", "affine", "perspective"])
def test_pil_warps_truncate_a_fractional_fill_as_torchvision(op) -> None:
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    pil = make_image_pil((20, 24))
    kwargs = {"rotate": dict(angle=30.0), "affine": dict(angle=10.0, translate=[0, 0], scale=1.0, shear=[0.0, 0.0]),
              "perspective": dict(startpoints=[[0, 0], [23, 0], [23, 19], [0, 19]],
                                  endpoints=[[4, 3], [20, 1], [23, 19], [0, 15]])}[op]
    for fill in (99.6, [99.6, 5.5, 0.4]):
        out = np.asarray(getattr(F, op)(pil, fill=fill, **kwargs))
        expected = np.asarray(getattr(tv_f, op)(pil, fill=fill, **kwargs))
        assert np.array_equal(out, expected), fill
        assert out[0, 0].tolist() == ([99, 99, 99] if fill == 99.6 else [99, 5, 0])


@pytest.mark.parametrize("accelerated", [True, False])
def test_a_perspective_whose_coefficients_are_affine_samples_torchvisions_perspective_grid(accelerated) -> None:
    """torchvision builds its perspective grid (base grid from 0.5, the first rows over half the sides) even where
    the last coefficients are 0; so does F.perspective, where the affine grid lands beside nearest ties."""
    tv_f = pytest.importorskip("torchvision.transforms.v2.functional")
    image = torch.arange(7 * 13, dtype=torch.float32).reshape(1, 7, 13)
    points = dict(startpoints=[[0, 0], [12, 0], [12, 6], [0, 6]], endpoints=[[1, 0], [12, 0], [11, 6], [0, 6]])
    assert _perspective_coefficients(points["startpoints"], points["endpoints"])[6:] == [0.0, 0.0]
    expected = tv_f.perspective(image, **points, interpolation=tv_f.InterpolationMode.NEAREST)
    with contextlib.nullcontext() if accelerated else _cv2.disabled():
        assert torch.equal(F.perspective(image, **points, interpolation="nearest"), expected)
        assert torch.equal(F.perspective(image.to(torch.uint8), **points, interpolation="nearest"),
                           expected.to(torch.uint8))
