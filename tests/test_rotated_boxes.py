"""Rotated boxes (XYWHR, CXCYWHR, XYXYXYXY) and clamping modes: the datapoint, conversions, clamping and
sanitising against torchvision 0.29, every geometric op against torchvision, and boxes covering their pixels."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx import tv_tensors
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Image, Mask

from .common import make_image

ROTATED = ["XYWHR", "CXCYWHR", "XYXYXYXY"]
SIZES = [(30, 40), (41, 27)]
TOLERANCE = 1e-3
COVERED = ["SetClampingMode"]  # for tests/test_coverage.py: tested here


def _tv() -> tuple[Any, Any]:
    tv = pytest.importorskip("torchvision.tv_tensors")
    import torchvision.transforms.v2.functional as F2

    return tv, F2


def make_rotated(size: tuple[int, int], format: str = "XYWHR", n: int = 12, seed: int = 0, **kwargs: Any) -> BoundingBox:
    """Boxes centred on the canvas, 2 to 14 px a side, any angle: many reach out of the canvas."""
    generator = torch.Generator().manual_seed(seed)
    height, width = size
    centres = torch.rand(n, 2, generator=generator, dtype=torch.float64) * torch.tensor([width, height])
    sides = 2 + torch.rand(n, 2, generator=generator, dtype=torch.float64) * 12
    angles = torch.rand(n, 1, generator=generator, dtype=torch.float64) * 360 - 180
    boxes = torch.cat([centres, sides, angles], -1).float()
    boxes = F.convert_format_bounding_box(boxes, old_format="CXCYWHR", new_format=format)
    return BoundingBox(boxes, format=format, canvas_size=size, **kwargs)


def corners(boxes: torch.Tensor, format: Any) -> torch.Tensor:
    name = format.name if hasattr(format, "name") else format
    plain = boxes.as_subclass(torch.Tensor)
    return F.convert_format_bounding_box(plain, old_format=name, new_format="XYXYXYXY")


# ------------------------------------------------------------------------------------ the datapoint
def test_construction_validation_and_metadata() -> None:
    boxes = BoundingBox([1.0, 2.0, 3.0, 4.0, 30.0], format="XYWHR", canvas_size=(10, 12))
    assert boxes.shape == (1, 5) and boxes.format.is_rotated and boxes.clamping_mode == "soft"
    assert BoundingBox([], format="XYXYXYXY", canvas_size=(5, 5)).shape == (0, 8)
    assert BoundingBox(torch.zeros(2, 3, 5), format="CXCYWHR", canvas_size=(5, 5)).shape == (2, 3, 5)
    with pytest.raises(ValueError, match=r"shape \[N, 5\]"):
        BoundingBox(torch.zeros(2, 4), format="XYWHR", canvas_size=(5, 5))
    with pytest.raises(ValueError, match=r"shape \[N, 8\]"):
        BoundingBox(torch.zeros(2, 5), format="XYXYXYXY", canvas_size=(5, 5))
    with pytest.raises(ValueError, match="must be float"):
        BoundingBox([[1, 2, 3, 4, 30]], format="XYWHR", canvas_size=(5, 5))
    with pytest.raises(ValueError, match="clamping_mode"):
        BoundingBox([[1, 2, 3, 4]], format="XYXY", canvas_size=(5, 5), clamping_mode="firm")
    assert tv_tensors.is_rotated_bounding_format("XYXYXYXY") and not tv_tensors.is_rotated_bounding_format("XYWH")
    assert [f.num_coordinates for f in BoundingBoxFormat] == [4, 4, 4, 5, 5, 8]


def test_clamping_mode_is_carried_by_wrap_like_pickle_clone_and_repr() -> None:
    boxes = make_rotated((20, 20), clamping_mode="hard")
    for other in (pickle.loads(pickle.dumps(boxes)), boxes.clone(), BoundingBox.wrap_like(boxes, boxes * 1)):
        assert other.clamping_mode == "hard" and other.format == BoundingBoxFormat.XYWHR
    assert BoundingBox.wrap_like(boxes, boxes * 1, clamping_mode=None).clamping_mode is None
    assert "clamping_mode='hard'" in repr(boxes)
    assert F.rotate(boxes, 10.0).clamping_mode == "hard"


# ------------------------------------------------------------------------------------- conversions
@pytest.mark.parametrize("old", ROTATED)
@pytest.mark.parametrize("new", ROTATED)
def test_conversions_match_torchvision_and_round_trip(old: str, new: str) -> None:
    _, F2 = _tv()
    boxes = make_rotated((30, 40), old).as_subclass(torch.Tensor)
    ours = F.convert_bounding_box_format(boxes, old_format=old, new_format=new)
    theirs = F2.convert_bounding_box_format(boxes, old_format=old, new_format=new)
    torch.testing.assert_close(ours, theirs, atol=TOLERANCE, rtol=0)
    back = F.convert_bounding_box_format(ours, old_format=new, new_format=old)
    torch.testing.assert_close(corners(back, old), corners(boxes, old), atol=TOLERANCE, rtol=0)
    wide = F.convert_format_bounding_box(boxes.double()[None], old_format=old, new_format=new)  # batch dims, float64
    assert wide.dtype == torch.float64 and wide.shape == (1, 12, ours.shape[-1])


def test_conversions_beyond_torchvision() -> None:
    box = BoundingBox([[10.0, 20.0, 4.0, 6.0, 90.0]], format="XYWHR", canvas_size=(50, 50))
    # angle 90: the w edge runs up from (10, 20), the h edge right: x in [10, 16], y in [16, 20]
    enclosing = F.convert_format_bounding_box(box, new_format="XYXY")
    torch.testing.assert_close(enclosing.as_subclass(torch.Tensor), torch.tensor([[10.0, 16.0, 16.0, 20.0]]))
    upright = F.convert_format_bounding_box(BoundingBox([[1.0, 2, 5, 9]], format="XYXY", canvas_size=(9, 9)), new_format="CXCYWHR")
    assert upright.tolist() == [[3.0, 5.5, 4.0, 7.0, 0.0]]
    with pytest.raises(ValueError, match="must be float"):
        F.convert_format_bounding_box(torch.tensor([[1, 2, 5, 9]]), old_format="XYXY", new_format="XYWHR")
    with pytest.raises(ValueError, match=r"\[\.\.\., 5\]"):
        F.convert_format_bounding_box(torch.zeros(2, 4), old_format="XYWHR", new_format="XYXY")


# ------------------------------------------------------------------------------- clamping, sanitize
@pytest.mark.parametrize("format", ROTATED)
@pytest.mark.parametrize("mode", ["soft", "hard", None])
@pytest.mark.parametrize("size", SIZES)
def test_clamping_matches_torchvision(format: str, mode: str | None, size: tuple[int, int]) -> None:
    tv, F2 = _tv()
    boxes = make_rotated(size, format, n=40, seed=3)
    plain = boxes.as_subclass(torch.Tensor)
    theirs = F2.clamp_bounding_boxes(plain, format=format, canvas_size=size, clamping_mode=mode)
    ours = F.clamp_bounding_boxes(plain, format=format, canvas_size=size, clamping_mode=mode)
    torch.testing.assert_close(corners(ours, format), corners(theirs, format), atol=TOLERANCE, rtol=0)
    with_mode = BoundingBox.wrap_like(boxes, plain, clamping_mode=mode)
    torch.testing.assert_close(F.clamp_bounding_box(with_mode).as_subclass(torch.Tensor), ours)
    torch.testing.assert_close(T.ClampBoundingBoxes()(with_mode).as_subclass(torch.Tensor), ours)


def test_hard_clamping_keeps_every_corner_inside_and_soft_keeps_the_inside_covered() -> None:
    boxes = make_rotated((30, 40), n=60, seed=5)
    hard = corners(F.clamp_bounding_box(boxes, clamping_mode="hard"), "XYWHR")
    assert (hard[:, 0::2] >= -TOLERANCE).all() and (hard[:, 0::2] <= 40 + TOLERANCE).all()
    assert (hard[:, 1::2] >= -TOLERANCE).all() and (hard[:, 1::2] <= 30 + TOLERANCE).all()


def test_set_clamping_mode_transform() -> None:
    boxes = make_rotated((30, 40))
    out = T.SetClampingMode("hard")(boxes)
    assert out.clamping_mode == "hard" and torch.equal(out, boxes) and boxes.clamping_mode == "soft"
    assert T.SetClampingMode(None)(boxes).clamping_mode is None
    with pytest.raises(ValueError, match="clamping_mode"):
        T.SetClampingMode("auto")


def test_axis_aligned_boxes_honour_clamping_mode_none() -> None:
    boxes = BoundingBox([[30.0, 30.0, 45.0, 38.0]], format="XYXY", canvas_size=(40, 40), clamping_mode=None)
    assert F.pad(boxes, [0])[0].tolist() == [30.0, 30.0, 45.0, 38.0]
    assert F.rotate(boxes, 90.0).min() < 0  # not clamped
    assert F.rotate(BoundingBox.wrap_like(boxes, boxes * 1, clamping_mode="soft"), 90.0).min() >= 0


@pytest.mark.parametrize("format", ROTATED)
def test_sanitize_matches_torchvision_on_corners_leaving_the_image(format: str) -> None:
    tv, F2 = _tv()
    boxes = make_rotated((30, 40), format, n=40, seed=7).as_subclass(torch.Tensor)
    _, ours = F.sanitize_bounding_boxes(boxes, format=format, canvas_size=(30, 40), min_size=0.1, min_area=0.1)
    _, theirs = F2.sanitize_bounding_boxes(boxes, format=format, canvas_size=(30, 40), min_size=0.1, min_area=0.1)
    assert torch.equal(ours, theirs) and 0 < int(ours.sum()) < 40


def test_sanitize_measures_the_true_height() -> None:
    """torchvision 0.29 measures a rotated box's height from mixed coordinates (|cos r| times the
    diagonal): it keeps a 10 x 0.5 box at angle 0; visiontx removes it (its height is 0.5)."""
    thin = BoundingBox([[5.0, 5.0, 10.0, 0.5, 0.0], [5.0, 5.0, 10.0, 3.0, 20.0]], format="XYWHR", canvas_size=(30, 40))
    kept, valid = F.sanitize_bounding_boxes(thin)
    assert valid.tolist() == [False, True] and kept.shape == (1, 5)
    labels = torch.tensor([1, 2])
    out = T.SanitizeBoundingBoxes()({"boxes": thin, "labels": labels})
    assert out["labels"].tolist() == [2] and out["boxes"].format == BoundingBoxFormat.XYWHR


# ---------------------------------------------------------------------------- ops against torchvision
PERSPECTIVE = dict(startpoints=[[0, 0], [26, 0], [26, 29], [0, 29]], endpoints=[[3, 2], [24, 1], [25, 27], [1, 28]])
OPS = [
    ("horizontal_flip", {}),
    ("vertical_flip", {}),
    ("crop", dict(top=3, left=5, height=20, width=25)),
    ("crop", dict(top=-4, left=-2, height=40, width=30)),
    ("center_crop", dict(output_size=[20, 24])),
    ("resized_crop", dict(top=2, left=4, height=20, width=15, size=[40, 30])),
    ("pad", dict(padding=[2, 3, 4, 5])),
    ("affine", dict(angle=25.0, translate=[3.0, -2.0], scale=1.2, shear=[0.0, 0.0])),
    ("rotate", dict(angle=30.0)),
    ("rotate", dict(angle=-75.0, center=[10.0, 12.0])),
    ("perspective", PERSPECTIVE),
]


@pytest.mark.parametrize(("op", "kwargs"), OPS, ids=lambda v: v if isinstance(v, str) else None)
@pytest.mark.parametrize("format", ROTATED)
@pytest.mark.parametrize("mode", ["soft", "hard", None])
@pytest.mark.parametrize("size", SIZES)
def test_ops_match_torchvision(op: str, kwargs: dict, format: str, mode: str | None, size: tuple[int, int]) -> None:
    tv, F2 = _tv()
    boxes = make_rotated(size, format, clamping_mode=mode)
    theirs = getattr(F2, op)(tv.BoundingBoxes(boxes.as_subclass(torch.Tensor), format=format, canvas_size=size, clamping_mode=mode), **kwargs)
    ours = getattr(F, op)(boxes, **kwargs)
    assert ours.spatial_size == tuple(theirs.canvas_size) and ours.format.name == format
    torch.testing.assert_close(corners(ours, format), corners(theirs, format), atol=TOLERANCE, rtol=0)


FLAT = torch.tensor([[10.0, 10.0, 0.0, 5.0, 30.0], [12.5, 12.0, 0.0, 0.0, -130.0], [20.0, 9.0, 0.0, 7.0, 170.0]])


@pytest.mark.parametrize("format", ["XYWHR", "CXCYWHR"])
def test_zero_width_boxes_keep_their_angle_under_crops_pads_and_flips_as_torchvision(format: str) -> None:
    """Their corners give no direction (p1 == p2): the angle comes from the map, not from the corners."""
    tv, F2 = _tv()
    for op, kwargs in [op for op in OPS if op[0] in ("crop", "pad", "center_crop", "horizontal_flip", "vertical_flip")]:
        ours = getattr(F, op)(BoundingBox(FLAT, format=format, canvas_size=(40, 40), clamping_mode=None), **kwargs)
        theirs = getattr(F2, op)(tv.BoundingBoxes(FLAT, format=format, canvas_size=(40, 40), clamping_mode=None), **kwargs)
        ours, theirs = ours.as_subclass(torch.Tensor), theirs.as_subclass(torch.Tensor)
        torch.testing.assert_close(ours[:, :4], theirs[:, :4], atol=1e-4, rtol=0)
        turn = (ours[:, 4] - theirs[:, 4]).remainder(360)  # torchvision's flips leave (-180, 180]: 310 is -50
        assert torch.minimum(turn, 360 - turn).max() < 1e-3, (op, ours[:, 4], theirs[:, 4])


@pytest.mark.parametrize(("op", "kwargs"), [op for op in OPS if op[0] != "perspective"] + [("resize", dict(size=[80, 80]))],
                         ids=lambda v: v if isinstance(v, str) else None)
@pytest.mark.parametrize("format", ["XYWHR", "CXCYWHR"])
def test_zero_width_boxes_move_as_their_corners(op: str, kwargs: dict, format: str) -> None:
    """Unclamped, a zero-width box lands where its four corners do (torchvision's resizes and warps give it
    angle 0, turning the segment; its crops, pads and flips keep it, as here)."""
    boxes = BoundingBox(FLAT, format=format, canvas_size=(40, 40), clamping_mode=None)
    moved = getattr(F, op)(boxes, **kwargs)
    as_corners = getattr(F, op)(F.convert_bounding_box_format(boxes, new_format="XYXYXYXY"), **kwargs)
    torch.testing.assert_close(corners(moved, format), as_corners.as_subclass(torch.Tensor), atol=1e-4, rtol=0)


@pytest.mark.parametrize("format", ROTATED)
def test_uniform_resize_and_scale_jitter_sizes_match_torchvision(format: str) -> None:
    tv, F2 = _tv()
    boxes = make_rotated((30, 40), format)
    for size in ([60, 80], [15, 20]):
        theirs = F2.resize(tv.BoundingBoxes(boxes.as_subclass(torch.Tensor), format=format, canvas_size=(30, 40)), size)
        torch.testing.assert_close(corners(F.resize(boxes, size), format), corners(theirs, format), atol=TOLERANCE, rtol=0)


def test_elastic_matches_torchvision() -> None:
    tv, F2 = _tv()
    size = (30, 40)
    displacement = torch.randn(1, *size, 2, generator=torch.Generator().manual_seed(0)) * 0.05
    for format in ROTATED:
        boxes = make_rotated(size, format)
        theirs = F2.elastic(tv.BoundingBoxes(boxes.as_subclass(torch.Tensor), format=format, canvas_size=size), displacement)
        torch.testing.assert_close(corners(F.elastic(boxes, displacement), format), corners(theirs, format), atol=TOLERANCE, rtol=0)


def test_rotate_expand_follows_the_pixels() -> None:
    """torchvision shifts boxes by the unrounded corner minimum while its canvas is rounded: up to 0.5 px."""
    tv, F2 = _tv()
    boxes = make_rotated((30, 40))
    theirs = F2.rotate(tv.BoundingBoxes(boxes.as_subclass(torch.Tensor), format="XYWHR", canvas_size=(30, 40)), 30.0, expand=True)
    ours = F.rotate(boxes, 30.0, expand=True)
    assert ours.spatial_size == F.rotate(make_image((30, 40)), 30.0, expand=True).shape[-2:]
    assert 0 < (corners(ours, "XYWHR") - corners(theirs, "XYWHR")).abs().max() <= 0.5


def test_rotated_kernels_with_torchvision_names() -> None:
    boxes = make_rotated((30, 40), "CXCYWHR")
    plain = boxes.as_subclass(torch.Tensor)
    out, size = F.rotate_bounding_boxes(plain, format="CXCYWHR", canvas_size=(30, 40), angle=20.0, clamping_mode="hard")
    torch.testing.assert_close(out, F.rotate(T.SetClampingMode("hard")(boxes), 20.0).as_subclass(torch.Tensor))
    assert size == (30, 40)


def test_edge_cases() -> None:
    empty = BoundingBox(torch.zeros(0, 5), format="XYWHR", canvas_size=(10, 10))
    assert F.rotate(empty, 30.0).shape == (0, 5) and F.resize(empty, [20, 20]).shape == (0, 5)
    point = BoundingBox([[5.0, 5.0, 0.0, 0.0, 0.0]], format="CXCYWHR", canvas_size=(10, 10))
    assert torch.isfinite(F.affine(point, 10.0, [0, 0], 1.0, [5.0, 0.0])).all()
    batch = make_rotated((30, 40)).reshape(3, 4, 5).double()
    batch = BoundingBox(batch, format="XYWHR", canvas_size=(30, 40))
    flat = F.rotate(BoundingBox(batch.reshape(12, 5), format="XYWHR", canvas_size=(30, 40)), 15.0)
    out = F.rotate(batch, 15.0)
    assert out.shape == (3, 4, 5) and out.dtype == torch.float64
    torch.testing.assert_close(out.reshape(12, 5).as_subclass(torch.Tensor), flat.as_subclass(torch.Tensor))


# -------------------------------------------------------------------- boxes cover the pixels they mark
def _inside(boxes: torch.Tensor, format: Any, xs: torch.Tensor, ys: torch.Tensor, margin: float) -> torch.Tensor:
    """[N, P]: whether the points lie inside each box grown by ``margin``."""
    xywhr = F.convert_format_bounding_box(boxes.as_subclass(torch.Tensor).double(), old_format=format, new_format="XYWHR")
    x1, y1, w, h, r = (c[:, None] for c in xywhr.unbind(-1))
    cos, sin = torch.cos(torch.deg2rad(r)), torch.sin(torch.deg2rad(r))
    along_u = (xs - x1) * cos - (ys - y1) * sin
    along_v = (xs - x1) * sin + (ys - y1) * cos
    return (along_u >= -margin) & (along_u <= w + margin) & (along_v >= -margin) & (along_v <= h + margin)


def _drawn(boxes: BoundingBox) -> Mask:
    height, width = boxes.spatial_size
    ys, xs = torch.meshgrid(torch.arange(height) + 0.5, torch.arange(width) + 0.5, indexing="ij")
    inside = _inside(boxes, boxes.format.name, xs.reshape(1, -1).double(), ys.reshape(1, -1).double(), 0.0)
    return Mask(inside.reshape(-1, height, width).to(torch.uint8))


COVERING = {
    "rotate": T.RandomRotation((25, 25)),
    "rotate_expand": T.RandomRotation((-40, -40), expand=True),
    "affine_shear": T.RandomAffine(0, shear=(15, 15, 0, 0)),
    "resize_unequal": T.Resize((50, 30)),
    "flip_crop_pad": T.Compose([T.RandomHorizontalFlip(1.0), T.RandomCrop(24, padding=3)]),
    "zoom_out": T.RandomZoomOut(side_range=(1.5, 1.5)),
    "fused": T.Compose([T.RandomRotation(30), T.RandomVerticalFlip(1.0), T.Resize(50)], fuse_geometry=True),
}


@pytest.mark.parametrize("name", list(COVERING))
@pytest.mark.parametrize("format", ROTATED)
def test_boxes_cover_the_pixels_they_mark(name: str, format: str) -> None:
    torch.manual_seed(0)
    boxes = make_rotated((40, 48), format, n=6, seed=11)
    boxes = F.clamp_bounding_box(boxes, clamping_mode="hard")  # all inside: every pixel drawn
    out_masks, out_boxes = COVERING[name](_drawn(boxes), boxes)
    height, width = out_boxes.spatial_size
    assert out_masks.shape[-2:] == (height, width)
    ys, xs = torch.meshgrid(torch.arange(height) + 0.5, torch.arange(width) + 0.5, indexing="ij")
    covered = _inside(out_boxes, format, xs.reshape(1, -1).double(), ys.reshape(1, -1).double(), 1.0)
    lit = out_masks.reshape(len(boxes), -1).bool()
    assert lit.sum() > 0 and not (lit & ~covered).any()


def test_shear_gives_the_smallest_enclosing_box() -> None:
    box = BoundingBox([[20.0, 20.0, 10.0, 10.0, 0.0]], format="CXCYWHR", canvas_size=(40, 40))
    ours = F.affine(box, 0.0, [0, 0], 1.0, [30.0, 0.0])
    # the square becomes a parallelogram with a 10 px edge and a 10 / cos(30) px one, 10 cos(30) apart
    # from its parallel: the smallest box lies along the longer edge, (10 / cos 30 + 10 sin 30) x 10 cos 30
    cos30 = 3**0.5 / 2
    assert abs(float(ours[0, 2] * ours[0, 3]) - (10 / cos30 + 5) * 10 * cos30) < 1e-2
    assert abs(abs(float(ours[0, 4])) - 30) < 1e-3


def test_unequal_resize_covers_the_corners_torchvision_cuts() -> None:
    """torchvision keeps a parallelogram's p1 p3 diagonal: its rectangle can miss the two other corners."""
    tv, F2 = _tv()
    boxes = make_rotated((30, 40), clamping_mode=None)
    mapped = corners(boxes, "XYWHR").double() * torch.tensor([30 / 40, 50 / 30] * 4, dtype=torch.float64)
    ours = F.resize(boxes, [50, 30])
    theirs = F2.resize(tv.BoundingBoxes(boxes.as_subclass(torch.Tensor), format="XYWHR", canvas_size=(30, 40), clamping_mode=None), [50, 30])
    differ = (corners(ours, "XYWHR") - corners(theirs, "XYWHR")).abs().amax(-1) > TOLERANCE
    assert 0 < int(differ.sum()) < len(boxes)
    for i in range(len(boxes)):
        xs, ys = mapped[i, 0::2][None], mapped[i, 1::2][None]
        assert _inside(ours[i : i + 1], "XYWHR", xs, ys, 1e-3).all()
        assert _inside(theirs[i : i + 1], "XYWHR", xs, ys, 1e-3).all() != bool(differ[i])


# ------------------------------------------------------------------------------ transforms and interop
def test_fused_runs_move_rotated_boxes_as_unfused_ones() -> None:
    boxes = F.clamp_bounding_box(make_rotated((40, 48), "XYXYXYXY", seed=2), clamping_mode="hard")
    chain = [T.RandomRotation(20), T.RandomHorizontalFlip(), T.Resize(60)]
    torch.manual_seed(3)
    fused = T.Compose(chain, fuse_geometry=True)(make_image((40, 48)), boxes)[1]
    torch.manual_seed(3)
    unfused = T.Compose(chain)(make_image((40, 48)), boxes)[1]
    assert fused.spatial_size == unfused.spatial_size and fused.format == BoundingBoxFormat.XYXYXYXY
    torch.testing.assert_close(corners(fused, "XYXYXYXY"), corners(unfused, "XYXYXYXY"), atol=TOLERANCE, rtol=0)


def test_iou_crop_takes_rotated_boxes_by_their_enclosing_boxes() -> None:
    torch.manual_seed(0)
    boxes = make_rotated((60, 80), "CXCYWHR", n=20)
    image, out = T.RandomIoUCrop(sampler_options=[0.0])(make_image((60, 80)), boxes)
    assert out.format == BoundingBoxFormat.CXCYWHR and out.spatial_size == tuple(image.shape[-2:]) != (60, 80)


def test_torchvision_rotated_boxes_convert_both_ways() -> None:
    tv, _ = _tv()
    theirs = tv.BoundingBoxes(make_rotated((30, 40)).as_subclass(torch.Tensor), format="XYWHR", canvas_size=(30, 40), clamping_mode="hard")
    out = T.RandomRotation((30, 30))(theirs)
    assert type(out) is tv.BoundingBoxes and out.format.name == "XYWHR" and out.clamping_mode == "hard"
    ours = F.rotate(BoundingBox(theirs.as_subclass(torch.Tensor), format="XYWHR", canvas_size=(30, 40), clamping_mode="hard"), 30.0)
    torch.testing.assert_close(out.as_subclass(torch.Tensor), ours.as_subclass(torch.Tensor))
    out = T.SetClampingMode(None)(theirs)
    assert type(out) is tv.BoundingBoxes and out.clamping_mode is None


def test_draw_rotated_boxes_as_polygons() -> None:
    from visiontx.utils import draw_bounding_boxes

    image = torch.zeros(3, 40, 40, dtype=torch.uint8)
    box = BoundingBox([[20.0, 20.0, 20.0, 10.0, 45.0]], format="CXCYWHR", canvas_size=(40, 40))
    drawn = draw_bounding_boxes(image, box, colors="red", fill=True)
    assert drawn[0, 20, 20] > 0 and drawn[0, 2, 2] == 0 and drawn[0, 20, 33] == 0  # inside / corner / beside
    plain = draw_bounding_boxes(image, corners(box, "CXCYWHR"), colors="red", fill=True)
    assert torch.equal(drawn, plain)


# ------------------------------------------------------------------- random transforms against torchvision
RANDOM_TRANSFORMS = [
    ("RandomZoomOut", dict(p=1.0)),
    ("RandomCrop", dict(size=(24, 30), padding=3)),
    ("RandomRotation", dict(degrees=40)),
    ("RandomAffine", dict(degrees=30, translate=(0.1, 0.1), scale=(0.8, 1.2))),
    ("RandomHorizontalFlip", dict(p=1.0)),
    ("CenterCrop", dict(size=(26, 20))),
    ("Pad", dict(padding=[3, 1])),
]


@pytest.mark.parametrize(("name", "kwargs"), RANDOM_TRANSFORMS, ids=lambda v: v if isinstance(v, str) else None)
@pytest.mark.parametrize("format", ROTATED)
@pytest.mark.parametrize("seed", [0, 1])
def test_random_transforms_match_torchvision(name: str, kwargs: dict, format: str, seed: int) -> None:
    """Transforms draw torchvision's parameters from the same seed, so their rotated boxes are torchvision's."""
    tv, _ = _tv()
    import torchvision.transforms.v2 as T2

    size = (30, 40)
    boxes = make_rotated(size, format, seed=seed)
    image = torch.zeros(3, *size, dtype=torch.uint8)
    torch.manual_seed(seed)
    _, theirs = getattr(T2, name)(**kwargs)(
        tv.Image(image), tv.BoundingBoxes(boxes.as_subclass(torch.Tensor), format=format, canvas_size=size)
    )
    torch.manual_seed(seed)
    _, ours = getattr(T, name)(**kwargs)(Image(image), boxes)
    assert ours.spatial_size == tuple(theirs.canvas_size)
    torch.testing.assert_close(corners(ours, format), corners(theirs, format), atol=TOLERANCE, rtol=0)


@pytest.mark.parametrize("transform", [T.ScaleJitter((60, 80)), T.RandomShortestSize([20, 50], max_size=90)])
def test_size_jitters_move_rotated_boxes_with_their_scale(transform: T.Transform) -> None:
    """Scale jitter and shortest size resize by (nearly) one factor: the boxes scale with the canvas."""
    boxes = make_rotated((30, 40), "CXCYWHR", clamping_mode=None)
    torch.manual_seed(0)
    _, out = transform(Image(torch.zeros(3, 30, 40, dtype=torch.uint8)), boxes)
    scale = torch.tensor([out.spatial_size[1] / 40, out.spatial_size[0] / 30])
    plain, moved = boxes.as_subclass(torch.Tensor), out.as_subclass(torch.Tensor)
    torch.testing.assert_close(moved[:, :2], plain[:, :2] * scale, atol=0.05 * float(scale.max()), rtol=0)
    torch.testing.assert_close(moved[:, 4], plain[:, 4], atol=1.0, rtol=0)
