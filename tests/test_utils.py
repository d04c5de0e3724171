"""visiontx.utils: drawing boxes and masks, grids, saving; against torchvision.utils and loop references."""

from __future__ import annotations

import io
import pathlib

import numpy as np
import PIL.Image
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import visiontx.functional as F
from visiontx.datapoints import BoundingBox, Image, Mask
from visiontx.utils import draw_bounding_boxes, draw_segmentation_masks, make_grid, save_image

from .common import CUDA_AVAILABLE, assert_equal, make_bounding_box, make_image_tensor

SIZE = (40, 50)
BOXES = torch.tensor([[1.0, 2.0, 20.0, 30.0], [10.0, 5.0, 45.0, 38.0], [5.0, 5.0, 5.0, 5.0]])


def _image(dtype: torch.dtype = torch.uint8, channels: int = 3) -> torch.Tensor:
    return make_image_tensor(SIZE, dtype=dtype, channels=channels)


def _masks(num: int = 3, seed: int = 0) -> torch.Tensor:
    return torch.rand((num, *SIZE), generator=torch.Generator().manual_seed(seed)) > 0.6


def _tv_utils():
    return pytest.importorskip("torchvision.utils")


# ------------------------------------------------------------------------- draw_bounding_boxes
BOX_KWARGS = [
    {},
    dict(labels=["cat", "dog", "dot"], colors="red", width=3),
    dict(fill=True, colors=["blue", (0, 255, 0), "#ff00ff"]),
    dict(labels=["a", "b", "c"], label_colors="yellow", colors=(10, 20, 30)),
    dict(labels=["a", "bb", "ccc"], fill_labels=True),
    dict(labels=["a", "bb", "ccc"], fill_labels=True, label_background_colors="white", label_colors=["red"] * 3),
]


@pytest.mark.parametrize("kwargs", BOX_KWARGS)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("channels", [1, 3])
def test_draw_bounding_boxes_matches_torchvision(kwargs: dict, dtype: torch.dtype, channels: int) -> None:
    tv_utils = _tv_utils()
    image = _image(dtype, channels)
    before = image.clone()
    ours = draw_bounding_boxes(image, BOXES, **kwargs)
    theirs = tv_utils.draw_bounding_boxes(image, BOXES, **kwargs)
    assert ours.dtype == dtype and ours.shape == (3, *SIZE)
    assert_equal(ours, theirs, atol=1e-6)
    assert_equal(image, before)


def test_draw_bounding_boxes_outline_matches_loop_reference() -> None:
    image = torch.zeros(3, 10, 12, dtype=torch.uint8)
    out = draw_bounding_boxes(image, torch.tensor([[2, 3, 8, 7]]), colors=(255, 0, 0))
    expected = torch.zeros(10, 12, dtype=torch.bool)
    for y in range(3, 8):
        for x in range(2, 9):
            expected[y, x] = y in (3, 7) or x in (2, 8)
    assert_equal(out[0] == 255, expected)
    assert not out[1:].any()


def test_draw_bounding_boxes_fill_blends_inside() -> None:
    image = torch.zeros(3, 10, 12, dtype=torch.uint8)
    out = draw_bounding_boxes(image, torch.tensor([[2, 3, 8, 7]]), colors="white", fill=True)
    assert out[:, 5, 5].tolist() == [100, 100, 100]  # alpha 100 / 255 over black
    assert out[:, 0, 0].tolist() == [0, 0, 0]


def test_draw_bounding_boxes_converts_box_formats() -> None:
    boxes = make_bounding_box(SIZE, format="CXCYWH")
    xyxy = F.convert_format_bounding_box(boxes, new_format="XYXY")
    assert_equal(draw_bounding_boxes(_image(), boxes), draw_bounding_boxes(_image(), xyxy.as_subclass(torch.Tensor)))


def test_draw_bounding_boxes_labels_change_pixels() -> None:
    image, boxes = torch.zeros(3, 40, 80, dtype=torch.uint8), torch.tensor([[0, 0, 79, 39]])
    plain = draw_bounding_boxes(image, boxes, colors="white")
    labelled = draw_bounding_boxes(image, boxes, labels=["person"], colors="white", font_size=20)
    assert (labelled != plain).any()


def test_draw_bounding_boxes_without_boxes_returns_the_image_as_torchvision() -> None:
    image, gray = _image(), _image(channels=1)
    assert draw_bounding_boxes(image, torch.zeros(0, 4), labels=[]) is image
    assert draw_bounding_boxes(gray, torch.zeros(0, 4)) is gray  # one channel stays one, as torchvision's


def test_rotated_boxes_dash_their_first_edge_as_torchvision() -> None:
    """The first edge of a rotated box: 5 px dashes, 5 px gaps, each step aimed at the corner from where the
    last ended, the last dash cut short by the corner (it was left out)."""
    tv_utils = _tv_utils()
    image = torch.full((3, 90, 110), 50, dtype=torch.uint8)
    for boxes in ([[20.0, 30.0, 80.0, 20.0, 85.0, 60.0, 25.0, 70.0]], [[5.0, 5.0, 98.5, 41.2, 70.0, 80.0, 3.0, 44.0]]):
        boxes = torch.tensor(boxes)
        assert_equal(draw_bounding_boxes(image, boxes, colors="red"), tv_utils.draw_bounding_boxes(image, boxes,
                                                                                                    colors="red"))


def test_draw_bounding_boxes_datapoints_in_plain_out() -> None:
    image = Image(_image())
    boxes = BoundingBox(BOXES, format="XYXY", spatial_size=SIZE)
    out = draw_bounding_boxes(image, boxes)
    assert type(out) is torch.Tensor


@pytest.mark.parametrize(
    ("image", "boxes", "kwargs", "error", "match"),
    [
        ("img", BOXES, {}, TypeError, "image"),
        (torch.zeros(3, 4, 5, dtype=torch.int32), BOXES, {}, ValueError, "image"),
        (torch.zeros(2, 3, 4, 5, dtype=torch.uint8), BOXES, {}, ValueError, "image"),
        (torch.zeros(4, 4, 5, dtype=torch.uint8), BOXES, {}, ValueError, "image"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), torch.tensor([[5, 0, 1, 3]]), {}, ValueError, "boxes"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), torch.zeros(2, 5), {}, ValueError, "boxes"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), [[0, 0, 1, 1]], {}, TypeError, "boxes"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), BOXES, dict(labels=["a"]), ValueError, "labels"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), BOXES, dict(colors=["red"]), ValueError, "colors"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), BOXES, dict(colors="notacolor"), ValueError, "colors"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), BOXES, dict(colors=(1, 2)), ValueError, "colors"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), BOXES, dict(colors=7), TypeError, "colors"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), BOXES, dict(label_colors=["red"]), ValueError, "label_colors"),
        (torch.zeros(3, 4, 5, dtype=torch.uint8), BOXES, dict(font="/no/such/font.ttf"), ValueError, "font"),
    ],
)
def test_draw_bounding_boxes_errors(image, boxes, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        draw_bounding_boxes(image, boxes, **kwargs)


# --------------------------------------------------------------------- draw_segmentation_masks
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize(
    "kwargs", [{}, dict(alpha=0.3, colors="red"), dict(alpha=1.0, colors=["blue", (1, 2, 3), "#abcdef"])]
)
def test_draw_segmentation_masks_matches_torchvision(dtype: torch.dtype, kwargs: dict) -> None:
    tv_utils = _tv_utils()
    image, masks = _image(dtype), _masks()
    before = image.clone()
    ours = draw_segmentation_masks(image, masks, **kwargs)
    theirs = tv_utils.draw_segmentation_masks(image, masks, **kwargs)
    assert ours.dtype == dtype and ours.shape == image.shape
    # uint8 blends truncated as torchvision's; unmasked pixels stay as they are (torchvision's float sum of
    # v (1 - alpha) + v alpha can fall a hair below v and truncate one level down)
    masked = masks.any(0)
    assert_equal(ours[:, masked], theirs[:, masked], atol=0 if dtype == torch.uint8 else 1e-6)
    assert_equal(ours[:, ~masked], image[:, ~masked])
    assert_equal(image, before)


def test_draw_segmentation_masks_matches_loop_reference() -> None:
    image, masks, alpha = _image(), _masks(), 0.6
    colors = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
    out = draw_segmentation_masks(image, masks, alpha=alpha, colors=colors)
    expected = image.clone()
    for y in range(SIZE[0]):
        for x in range(SIZE[1]):
            hits = [i for i in range(3) if masks[i, y, x]]
            if hits:
                color = colors[hits[-1]] if len(hits) == 1 else (0, 0, 0)
                for c in range(3):
                    expected[c, y, x] = int(float(image[c, y, x]) * (1 - alpha) + color[c] * alpha)
    assert_equal(out, expected, atol=1)  # float32 vs Python float sums next to whole numbers
    untouched = ~masks.any(0)
    assert_equal(out[:, untouched], image[:, untouched])


def test_draw_segmentation_masks_single_mask_gray_and_empty() -> None:
    gray = _image(channels=1)
    out = draw_segmentation_masks(gray, _masks(1)[0], alpha=1.0, colors="white")
    assert out.shape == (3, *SIZE)
    assert bool((out[:, _masks(1)[0]] == 255).all())
    assert draw_segmentation_masks(gray, torch.zeros(0, *SIZE, dtype=torch.bool)) is gray  # as torchvision


def test_draw_segmentation_masks_accepts_mask_datapoints() -> None:
    masks = Mask(_masks())
    assert type(draw_segmentation_masks(Image(_image()), masks)) is torch.Tensor


@pytest.mark.parametrize(
    ("masks", "kwargs", "error", "match"),
    [
        ("m", {}, TypeError, "masks"),
        (torch.zeros(3, *SIZE, dtype=torch.uint8), {}, ValueError, "bool"),
        (torch.zeros(3, 5, 5, dtype=torch.bool), {}, ValueError, "H x W"),
        (torch.zeros(1, 1, *SIZE, dtype=torch.bool), {}, ValueError, "masks"),
        (torch.zeros(3, *SIZE, dtype=torch.bool), dict(alpha=1.5), ValueError, "alpha"),
        (torch.ones(3, *SIZE, dtype=torch.bool), dict(colors=["red"]), ValueError, "colors"),
    ],
)
def test_draw_segmentation_masks_errors(masks, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        draw_segmentation_masks(_image(), masks, **kwargs)


@pytest.mark.skipif(not CUDA_AVAILABLE, reason="needs CUDA")
def test_drawing_on_cuda_matches_cpu() -> None:
    image, masks = _image(), _masks()
    assert_equal(draw_segmentation_masks(image.cuda(), masks.cuda()).cpu(), draw_segmentation_masks(image, masks))
    assert_equal(draw_bounding_boxes(image.cuda(), BOXES.cuda()).cpu(), draw_bounding_boxes(image, BOXES))


# ---------------------------------------------------------------------------------- make_grid
GRID_KWARGS = [
    {},
    dict(nrow=2, padding=3, pad_value=0.5),
    dict(nrow=3, padding=0),
    dict(normalize=True),
    dict(normalize=True, scale_each=True),
    dict(normalize=True, value_range=(0.2, 0.6)),
]


@pytest.mark.parametrize("kwargs", GRID_KWARGS)
@pytest.mark.parametrize("shape", [(5, 3, 8, 9), (5, 1, 8, 9), (1, 3, 8, 9), (3, 8, 9), (1, 8, 9), (8, 9)])
def test_make_grid_matches_torchvision(kwargs: dict, shape: tuple[int, ...]) -> None:
    tv_utils = _tv_utils()
    batch = torch.rand(shape, generator=torch.Generator().manual_seed(0))
    before = batch.clone()
    ours = make_grid(batch, **kwargs)
    assert_equal(ours, tv_utils.make_grid(batch, **kwargs), atol=1e-6, rtol=1e-6)
    assert_equal(batch, before)


def test_make_grid_list_and_uint8() -> None:
    tv_utils = _tv_utils()
    images = [make_image_tensor((6, 7), seed=i) for i in range(3)]
    ours = make_grid(images, nrow=2, pad_value=255)
    assert ours.dtype == torch.uint8
    assert_equal(ours, tv_utils.make_grid(images, nrow=2, pad_value=255))


def test_make_grid_layout_by_hand() -> None:
    batch = torch.arange(1, 4, dtype=torch.float32).reshape(3, 1, 1, 1).expand(3, 3, 2, 2)
    grid = make_grid(batch, nrow=2, padding=1, pad_value=-1)
    assert grid.shape == (3, 2 * 3 + 1, 2 * 3 + 1)
    assert grid[0, 1:3, 1:3].eq(1).all() and grid[0, 1:3, 4:6].eq(2).all() and grid[0, 4:6, 1:3].eq(3).all()
    assert grid[0, 4:6, 4:6].eq(-1).all() and grid[0, 0].eq(-1).all()


def test_make_grid_normalize_uint8_gives_float() -> None:
    grid = make_grid(torch.tensor([[[0, 128, 255]]], dtype=torch.uint8).expand(2, 1, 1, 3), normalize=True)
    assert grid.dtype == torch.float32 and float(grid.max()) == 1.0 and float(grid.min()) == 0.0


@pytest.mark.parametrize(
    ("tensor", "kwargs", "error", "match"),
    [
        ("x", {}, TypeError, "tensor"),
        ([torch.zeros(3, 2, 2), "x"], {}, TypeError, "tensor"),
        ([], {}, TypeError, "tensor"),
        ([torch.zeros(3, 2, 2), torch.zeros(3, 2, 3)], {}, ValueError, "shape"),
        (torch.zeros(1, 1, 3, 2, 2), {}, ValueError, "tensor"),
        (torch.zeros(2, 3, 2, 2), dict(nrow=0), ValueError, "nrow"),
        (torch.zeros(2, 3, 2, 2), dict(padding=-1), ValueError, "padding"),
        (torch.zeros(2, 3, 2, 2), dict(normalize=True, value_range=[0, 1]), TypeError, "value_range"),
    ],
)
def test_make_grid_errors(tensor, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        make_grid(tensor, **kwargs)


# --------------------------------------------------------------------------------- save_image
def test_save_image_matches_torchvision(tmp_path: pathlib.Path) -> None:
    tv_utils = _tv_utils()
    batch = torch.rand(3, 3, 8, 9, generator=torch.Generator().manual_seed(0))
    save_image(batch, tmp_path / "ours.png", nrow=2)
    tv_utils.save_image(batch, tmp_path / "theirs.png", nrow=2)
    assert_equal(PIL.Image.open(tmp_path / "ours.png"), PIL.Image.open(tmp_path / "theirs.png"))


def test_save_image_uint8_is_not_rescaled_and_file_object() -> None:
    image = make_image_tensor((6, 7))
    buffer = io.BytesIO()
    save_image(image, buffer, format="PNG")
    saved = torch.from_numpy(np.asarray(PIL.Image.open(io.BytesIO(buffer.getvalue()))).copy()).permute(2, 0, 1)
    assert_equal(saved, image)


@settings(max_examples=25, deadline=None)
@given(
    num=st.integers(2, 7),
    nrow=st.integers(1, 5),
    padding=st.integers(0, 3),
    size=st.tuples(st.integers(1, 5), st.integers(1, 5)),
)
def test_make_grid_places_every_image(num: int, nrow: int, padding: int, size: tuple[int, int]) -> None:
    batch = torch.arange(num * 3 * size[0] * size[1], dtype=torch.float32).reshape(num, 3, *size)
    grid = make_grid(batch, nrow=nrow, padding=padding, pad_value=-1)
    cols, rows = min(nrow, num), -(-num // min(nrow, num))
    assert grid.shape == (3, rows * (size[0] + padding) + padding, cols * (size[1] + padding) + padding)
    for k in range(num):
        top = (k // cols) * (size[0] + padding) + padding
        left = (k % cols) * (size[1] + padding) + padding
        assert_equal(grid[:, top : top + size[0], left : left + size[1]], batch[k])
    assert int((grid == -1).sum()) == grid.numel() - batch.numel()


def test_torchvision_rotated_boxes_are_drawn_as_visiontx_s() -> None:
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    rotated = [[15.0, 16.0, 10.0, 8.0, 30.0], [30.0, 20.0, 12.0, 6.0, -60.0]]
    theirs = tv_tensors.BoundingBoxes(rotated, format="CXCYWHR", canvas_size=SIZE)
    ours = BoundingBox(rotated, format="CXCYWHR", canvas_size=SIZE)
    assert_equal(draw_bounding_boxes(_image(), theirs), draw_bounding_boxes(_image(), ours))
