"""Fused geometry: ``Compose(..., fuse_geometry=True)`` against the unfused chain, and ``F.warp``."""

from __future__ import annotations

import itertools
import math
import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import PIL.Image
import pytest
import torch

import visiontx
import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Datapoint, Image, KeyPoints, Mask, Video
from visiontx.transforms._fusion import WholePixelRun, _draw, split_runs, whole_pixel_stages

from .common import DEFAULT_SIZE, Case, assert_equal

COVERED = {"warp_bounding_box"}

_ROTATION = F.geometry_of("rotate", DEFAULT_SIZE, angle=30.0)
_SHRINK = F.geometry_of("affine", DEFAULT_SIZE, angle=10.0, translate=[1, 2], scale=0.4, shear=[0.0, 0.0])
FUNCTIONAL_CASES = {
    F.warp: [
        dict(geometry=_ROTATION, interpolation="bilinear", fill=3),
        Case(dict(geometry=_SHRINK, interpolation="bilinear", antialias=True), atol=1),
        dict(
            geometry=F.geometry_of(
                "perspective",
                DEFAULT_SIZE,
                startpoints=None,
                endpoints=None,
                coefficients=[1.1, 0.1, -2, 0.05, 0.9, 1, 0.001, 0.002],
            )
        ),
    ],
}

SIZE = (48, 64)
BILINEAR = "bilinear"
# name -> factory of a geometric transform whose every call is described (p=1 where there is a coin)
GEOMETRIC: dict[str, Callable[[], T.Transform]] = {
    "Resize": lambda: T.Resize(40, interpolation=BILINEAR),
    "CenterCrop": lambda: T.CenterCrop((36, 44)),
    "RandomCrop": lambda: T.RandomCrop((32, 40), padding=2),
    "RandomResizedCrop": lambda: T.RandomResizedCrop((40, 48), scale=(0.5, 1.0)),
    "Pad": lambda: T.Pad([3, 2, 1, 4]),
    "RandomZoomOut": lambda: T.RandomZoomOut(side_range=(1.0, 1.5), p=1.0),
    "RandomRotation": lambda: T.RandomRotation(20, interpolation=BILINEAR),
    "RandomAffine": lambda: T.RandomAffine(10, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5, interpolation=BILINEAR),
    "RandomPerspective": lambda: T.RandomPerspective(0.2, p=1.0),
    "RandomHorizontalFlip": lambda: T.RandomHorizontalFlip(p=1.0),
    "RandomVerticalFlip": lambda: T.RandomVerticalFlip(p=1.0),
    "ScaleJitter": lambda: T.ScaleJitter((64, 64), scale_range=(0.6, 1.2)),
    "RandomShortestSize": lambda: T.RandomShortestSize([40, 56]),
    "RandomResize": lambda: T.RandomResize(40, 60),
}
AXIS_ALIGNED = {
    "Resize",
    "CenterCrop",
    "RandomCrop",
    "RandomResizedCrop",
    "Pad",
    "RandomZoomOut",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "ScaleJitter",
    "RandomShortestSize",
    "RandomResize",
}
PAIRS = [pair for pair in itertools.product(GEOMETRIC, repeat=2) if pair[0] != pair[1] or pair[0] == "RandomRotation"]


def _smooth_image(size: tuple[int, int] = SIZE, channels: int = 3) -> torch.Tensor:
    """A smooth uint8 picture (gradients and a blob): resampling differences stay small on it."""
    y, x = torch.meshgrid(torch.linspace(0, 1, size[0]), torch.linspace(0, 1, size[1]), indexing="ij")
    blob = torch.exp(-((x - 0.4) ** 2 + (y - 0.5) ** 2) / 0.05)
    planes = [40 + 150 * x, 40 + 150 * y, 40 + 150 * blob][:channels]
    return torch.stack(planes).round().to(torch.uint8)


def _sample(size: tuple[int, int] = SIZE) -> tuple[Image, BoundingBox, Mask]:
    mask = torch.zeros(size, dtype=torch.uint8)
    mask[14:30, 20:41] = 1
    boxes = BoundingBox([[20.0, 14.0, 41.0, 30.0]], format="XYXY", spatial_size=size)
    return Image(_smooth_image(size)), boxes, Mask(mask)


def _both(transforms: list[Any], sample: Any, seed: int = 0) -> tuple[Any, Any]:
    """(fused, unfused) outputs from the same seed; asserts the RNG ends in the same state."""
    outputs, states = [], []
    for fuse in (True, False):
        torch.manual_seed(seed)
        outputs.append(T.Compose(transforms, fuse_geometry=fuse)(sample))
        states.append(torch.get_rng_state())
    assert torch.equal(states[0], states[1]), "fusion changed the random draws"
    return outputs[0], outputs[1]


def _object_box(mask: torch.Tensor) -> torch.Tensor | None:
    ys, xs = torch.nonzero(mask, as_tuple=True)
    if len(ys) == 0:
        return None
    return torch.tensor([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], dtype=torch.float32)


def _inside(transforms: list[Any], seed: int = 0) -> torch.Tensor:
    """The output pixels both the fused and the unfused chain take wholly from the input (a white
    image stays white there); elsewhere fused outputs may show what an intermediate crop cut."""
    white = Image(torch.full((3, *SIZE), 255, dtype=torch.uint8))
    fused, unfused = _both(transforms, white, seed)
    return (fused == 255).all(0) & (unfused == 255).all(0)


def _check_close(fused: tuple, unfused: tuple, inside: torch.Tensor, axis_aligned: bool) -> None:
    (image, boxes, mask), (image_u, boxes_u, mask_u) = fused, unfused
    assert image.shape == image_u.shape and boxes.spatial_size == boxes_u.spatial_size
    assert (image.float() - image_u.float()).abs()[:, inside].mean() < 6
    assert (mask != mask_u)[inside].float().mean() < 0.04
    if axis_aligned:
        assert_equal(boxes, boxes_u, atol=1e-3, rtol=0)
        return
    assert (boxes[0, :2] >= boxes_u[0, :2] - 0.5).all() and (boxes[0, 2:] <= boxes_u[0, 2:] + 0.5).all()
    obj = _object_box(mask.as_subclass(torch.Tensor))
    if obj is not None:  # the box holds the mapped object (a nearest-neighbour pixel of slack)
        assert (boxes[0, :2] <= obj[:2] + 1).all() and (boxes[0, 2:] >= obj[2:] - 1).all()


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=["-".join(p) for p in PAIRS])
def test_fused_pairs_are_close_to_unfused_with_the_same_draws(first: str, second: str) -> None:
    transforms = [GEOMETRIC[first](), GEOMETRIC[second]()]
    fused, unfused = _both(transforms, _sample())
    _check_close(fused, unfused, _inside(transforms), {first, second} <= AXIS_ALIGNED)


@pytest.mark.parametrize("seed", range(4))
def test_fused_chain_of_every_geometric_transform(seed: int) -> None:
    names = [
        "RandomZoomOut",
        "RandomRotation",
        "RandomAffine",
        "RandomPerspective",
        "RandomHorizontalFlip",
        "RandomResizedCrop",
    ]
    transforms = [GEOMETRIC[name]() for name in names]
    fused, unfused = _both(transforms, _sample(), seed)
    (image, boxes, _), (image_u, boxes_u, _) = fused, unfused
    assert image.shape == image_u.shape
    assert (image.float() - image_u.float()).abs()[:, _inside(transforms, seed)].mean() < 8
    assert (boxes[0, :2] >= boxes_u[0, :2] - 0.5).all() and (boxes[0, 2:] <= boxes_u[0, 2:] + 0.5).all()


@pytest.mark.parametrize("kind", ["pil", "tensor", "video"])
def test_fused_images_of_every_kind(kind: str) -> None:
    image = _smooth_image()
    inpt = {"pil": F.to_image_pil(image), "tensor": image, "video": image.expand(2, -1, -1, -1)}[kind]
    interpolation = "bicubic" if kind == "pil" else BILINEAR  # tensors' warps take nearest and bilinear
    transforms = [T.RandomRotation(20, interpolation=interpolation), T.Resize(32, interpolation=BILINEAR)]
    fused, unfused = _both(transforms, inpt)
    assert type(fused) is type(unfused)
    if kind == "pil":
        fused, unfused = (torch.from_numpy(np.array(x)).permute(2, 0, 1) for x in (fused, unfused))
    assert fused.shape == unfused.shape
    inside = fused.shape[-1] // 4, 3 * fused.shape[-1] // 4  # away from the rotated corners
    centre = (slice(None),) * (fused.ndim - 2) + (slice(*inside), slice(*inside))
    assert (fused[centre].float() - unfused[centre].float()).abs().mean() < 3


def test_non_geometric_transforms_end_runs_and_keep_their_place() -> None:
    transforms = [
        T.RandomRotation(15, interpolation=BILINEAR),
        T.ColorJitter(0.3),
        T.ElasticTransform(alpha=5.0),
        T.Resize(32),
        T.CenterCrop(30),
        T.ToDtype(torch.float32, scale=True),
    ]
    fused, unfused = _both(transforms, _sample())
    assert fused[0].dtype == torch.float32 and fused[0].shape == unfused[0].shape
    assert (fused[0] - unfused[0]).abs().mean() < 0.03


@pytest.mark.parametrize(
    "transforms",
    [
        [T.RandomHorizontalFlip(p=1.0), T.RandomCrop((30, 40), padding=3), T.Pad(2), T.CenterCrop(24)],
        [T.RandomRotation((90, 90), expand=True), T.RandomVerticalFlip(p=1.0), T.RandomZoomOut(p=1.0)],
        [T.RandomRotation(25, interpolation=BILINEAR)],
        [T.RandomPerspective(p=0.0), T.RandomAffine(10, interpolation=BILINEAR)],  # one applied transform
        [T.RandomCrop(20), T.Pad(2)],  # what the crop dropped stays dropped
        [T.RandomAffine(0, translate=(0.3, 0.3), fill=9), T.RandomHorizontalFlip(), T.Pad(1, fill=9)],
        [T.RandomAffine(0, translate=(0.5, 0.5), fill=127.5), T.RandomHorizontalFlip(p=1.0)],  # rounds its fill
    ],
    ids=["flips-crops-pads", "quarter-turn", "one-transform", "one-applied", "crop-pad", "shift-flip-pad",
         "shift-with-a-fractional-fill"],
)
def test_exact_and_single_runs_are_the_unfused_ops(transforms: list[Any]) -> None:
    fused, unfused = _both(transforms, _sample())
    assert_equal(fused, unfused)


def test_boxes_are_clamped_once_at_the_end() -> None:
    """A box cut by the crop and brought back by the zoom out keeps the part the crop cut."""
    transforms = [T.CenterCrop(24), T.Pad(20), T.Resize(48, interpolation=BILINEAR)]
    boxes = BoundingBox([[4.0, 10.0, 30.0, 30.0]], format="XYXY", spatial_size=SIZE)
    (image, fused), (_, unfused) = _both(transforms, (Image(_smooth_image()), boxes))
    assert (fused[0, :2] < unfused[0, :2] - 1).all() and torch.equal(fused[0, 2:], unfused[0, 2:])
    column = int(fused[0, 0]) + 1  # the image shows the original there, not the crop's cut
    assert image[:, int(fused[0, 1]) + 1, column].float().sum() > 0


def test_fills_that_differ_split_the_run() -> None:
    transforms = [T.RandomRotation(20, fill=255), T.RandomAffine(10, fill=0), T.Resize(32)]
    fused, unfused = _both(transforms, _sample())
    runs = [len(run) for _, run in visiontx.transforms._fusion.split_runs(transforms)]
    assert runs == [1, 2]
    assert (fused[0].float() - unfused[0].float()).abs().mean() < 6


def test_zoom_out_fill_reaches_fused_images() -> None:
    transforms = [T.RandomZoomOut(fill={Image: 200, "others": 0}, side_range=(2.0, 2.0), p=1.0), T.Resize(32)]
    (image, _, mask), (image_u, _, mask_u) = _both(transforms, _sample())
    assert image[:, 0, 0].tolist() == image_u[:, 0, 0].tolist() == [200, 200, 200]
    assert mask[0, 0] == mask_u[0, 0] == 0


def _detection_sample(size: tuple[int, int] = (60, 80)) -> tuple[Image, dict[str, Any]]:
    """A picture with three objects: boxes, a mask each and labels."""
    xyxy = [[8.0, 6.0, 30.0, 28.0], [40.0, 10.0, 72.0, 40.0], [20.0, 35.0, 50.0, 58.0]]
    masks = torch.zeros((3, *size), dtype=torch.uint8)
    for k, (x1, y1, x2, y2) in enumerate(xyxy):
        masks[k, int(y1) : int(y2), int(x1) : int(x2)] = 1
    target = {"boxes": BoundingBox(xyxy, format="XYXY", spatial_size=size), "masks": Mask(masks),
              "labels": torch.tensor([1, 2, 3])}
    return Image(_smooth_image(size)), target


SSD_CHAINS = {
    "zoom-iou-flip-resize": lambda: [
        T.RandomZoomOut(fill={Image: 100, "others": 0}, side_range=(1.0, 3.0), p=1.0), T.RandomIoUCrop(),
        T.RandomHorizontalFlip(), T.Resize(40, interpolation=BILINEAR), T.SanitizeBoundingBox(),
    ],
    "iou-first": lambda: [T.RandomIoUCrop(), T.RandomRotation(15, interpolation=BILINEAR), T.Resize(36)],
    "no-crop-drawn": lambda: [T.RandomZoomOut(p=1.0), T.RandomIoUCrop(sampler_options=[1.0]), T.Resize(50)],
}


@pytest.mark.parametrize("chain", SSD_CHAINS)
def test_iou_crop_fuses_with_its_boxes_moved_as_unfused(chain: str) -> None:
    """RandomIoUCrop sits in fused runs: the same draws; boxes (emptied where the crop leaves their centre
    out) and labels exactly as unfused; images and masks resampled once, close to the unfused chain."""
    assert [len(run) for _, run in split_runs(SSD_CHAINS[chain]())][0] >= 3
    for seed in range(8):
        (image, target), (image_u, target_u) = _both(SSD_CHAINS[chain](), _detection_sample(), seed)
        assert_equal(target["boxes"], target_u["boxes"])
        assert torch.equal(target["labels"], target_u["labels"])
        assert image.shape == image_u.shape and target["masks"].shape == target_u["masks"].shape
        white = (Image(torch.full((3, 60, 80), 255, dtype=torch.uint8)), _detection_sample()[1])
        (white_f, _), (white_u, _) = _both(SSD_CHAINS[chain](), white, seed)
        inside = (white_f == white_u).all(0)  # where both take the picture (or the fill), not an edge between
        assert inside.float().mean() > 0.5
        assert (image.float() - image_u.float()).abs()[:, inside].mean() < 4, (chain, seed)
        assert (target["masks"] != target_u["masks"])[:, inside].float().mean() < 0.03, (chain, seed)


def test_iou_crop_runs_move_every_box_leaf_and_refuse_a_sample_without_boxes() -> None:
    image, target = _detection_sample()
    others = BoundingBox([[2.0, 3.0, 20.0, 15.0], [50.0, 30.0, 70.0, 50.0], [10.0, 40.0, 30.0, 55.0]],
                         format="XYXY", spatial_size=(60, 80))
    chain = [T.RandomRotation(20), T.RandomIoUCrop(), T.Resize(40)]
    for seed in range(6):
        fused, unfused = _both(chain, (image, target["boxes"], others), seed)
        assert_equal(fused[1], unfused[1])
        assert_equal(fused[2], unfused[2])
        assert not torch.equal(fused[1], fused[2])
    for fuse in (True, False):
        with pytest.raises(TypeError, match="needs an image and a BoundingBox"):
            T.Compose(chain, fuse_geometry=fuse)(image)


def test_iou_crop_in_a_fused_run_records_and_replays() -> None:
    pipeline = T.Compose(SSD_CHAINS["zoom-iou-flip-resize"](), fuse_geometry=True)
    torch.manual_seed(3)
    out, record = pipeline.record(*_detection_sample())
    again = pipeline.replay(*_detection_sample(), record=record)
    assert_equal(again, out)


# ------------------------------------------------------------------------------------ quality
def _psnr(actual: torch.Tensor, reference: torch.Tensor, valid: torch.Tensor) -> float:
    mse = ((actual.double() - reference) ** 2)[..., valid].mean().item()
    return 10 * math.log10(255.0**2 / mse)


def _photo(size: int) -> torch.Tensor:
    path = next((pathlib.Path(visiontx.__file__).parent / "assets" / "coco_sample" / "images").glob("*.jpg"))
    with PIL.Image.open(path) as img:
        square = img.convert("RGB").resize((size, size), PIL.Image.Resampling.BICUBIC)
    return torch.from_numpy(np.array(square)).permute(2, 0, 1).contiguous()


def _checkerboard(size: int, period: int = 6) -> torch.Tensor:
    y, x = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    board = (((x // (period // 2)) + (y // (period // 2))) % 2 * 255).to(torch.uint8)
    return board.expand(3, -1, -1).contiguous()


def psnr_fused_unfused(transforms: list[Any], image: torch.Tensor, seed: int = 0) -> tuple[float, float]:
    """PSNR (dB) of the fused and unfused outputs against a float64 sampling of ``image`` once through the
    run's composed geometry, over the pixels both outputs take from the image."""
    torch.manual_seed(seed)
    probe = _draw(transforms, [image], tuple(image.shape[-2:]))[1]
    reference = F.warp_image_tensor(image.double(), probe.geometry, BILINEAR)
    fused, unfused = _both(transforms, image, seed)
    white = torch.full_like(image, 255)
    ones_fused, ones_unfused = _both(transforms, white, seed)
    valid = (ones_fused[0] == 255) & (ones_unfused[0] == 255)
    return _psnr(fused, reference, valid), _psnr(unfused, reference, valid)


QUALITY_CHAIN = [
    lambda: T.RandomRotation(30, interpolation=BILINEAR),
    lambda: T.RandomAffine(0, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=10, interpolation=BILINEAR),
    lambda: T.RandomPerspective(0.3, p=1.0),
    lambda: T.CenterCrop(160),
]


@pytest.mark.parametrize("picture", ["photo", "checkerboard"])
def test_fused_output_is_closer_to_one_sampling_than_the_unfused_chain(picture: str) -> None:
    image = _photo(256) if picture == "photo" else _checkerboard(256)
    for seed in range(3):
        fused, unfused = psnr_fused_unfused([make() for make in QUALITY_CHAIN], image, seed)
        assert fused > unfused + 1.0, (picture, seed, fused, unfused)


def test_antialiased_block_means_agree_with_and_without_opencv() -> None:
    image = torch.randint(0, 256, (2, 3, 37, 41), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    geometry = F.geometry_of("resize", (37, 41), size=[12, 13])
    with_cv2 = F.warp_image_tensor(image, geometry, BILINEAR, antialias=True)
    with F._cv2.disabled():
        without = F.warp_image_tensor(image, geometry, BILINEAR, antialias=True)
    assert_equal(with_cv2, without, atol=1, rtol=0)


def test_fused_compose_takes_several_inputs_as_the_unfused_one() -> None:
    class KeepLabel(torch.nn.Module):
        def forward(self, image: Any, boxes: Any, label: Any) -> Any:
            return image, boxes, label + 1

    image = Image(torch.randint(0, 256, (3, 24, 32), dtype=torch.uint8))
    boxes = BoundingBox([[2, 3, 12, 15]], format="XYXY", spatial_size=(24, 32))
    transforms = [T.RandomHorizontalFlip(p=1.0), T.Resize((12, 16)), KeepLabel(), T.RandomRotation(20), T.Pad(2)]
    outputs = []
    for fuse in (False, True):
        torch.manual_seed(0)
        outputs.append(T.Compose(transforms, fuse_geometry=fuse)(image, boxes, torch.tensor(1)))
    (image_u, boxes_u, label_u), (image_f, boxes_f, label_f) = outputs
    assert label_u.item() == label_f.item() == 2
    assert image_f.shape == image_u.shape and boxes_f.spatial_size == boxes_u.spatial_size


@pytest.mark.parametrize(
    "transforms", [[T.RandomRotation(20), T.Resize(24)], [T.RandomHorizontalFlip(p=1.0), T.Pad(2)]]
)
def test_fused_runs_take_torchvision_tensors_as_the_unfused_ones(transforms: list[Any]) -> None:
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    image, boxes, mask = _sample()
    sample = {
        "image": tv_tensors.Image(image.as_subclass(torch.Tensor)),
        "boxes": tv_tensors.BoundingBoxes(boxes.as_subclass(torch.Tensor), format="XYXY", canvas_size=SIZE),
        "mask": tv_tensors.Mask(mask.as_subclass(torch.Tensor)),
    }
    fused, unfused = _both(transforms, sample)
    for key in sample:
        assert type(fused[key]) is type(sample[key])
        assert fused[key].shape == unfused[key].shape
    assert fused["boxes"].canvas_size == unfused["boxes"].canvas_size
    assert not torch.equal(fused["boxes"], sample["boxes"])


def test_fused_runs_refuse_unknown_tensor_subclasses() -> None:
    class Unknown(torch.Tensor):
        pass

    image, _, _ = _sample()
    sample = {"image": image, "other": torch.zeros(3).as_subclass(Unknown)}
    with pytest.raises(TypeError, match="Unknown"):
        T.Compose([T.RandomRotation(20), T.Resize(24)], fuse_geometry=True)(sample)


def test_center_crop_zero_padding_is_not_filled_with_the_run_fill() -> None:
    image = Image(torch.full((3, *SIZE), 200, dtype=torch.uint8))
    big = (SIZE[0] + 20, SIZE[1] + 20)
    transforms = [T.RandomRotation(10, fill=128), T.CenterCrop(big)]
    fused, unfused = _both(transforms, image)
    assert fused.shape == unfused.shape
    assert fused[:, 0, 0].tolist() == unfused[:, 0, 0].tolist() == [0, 0, 0]  # CenterCrop's zero padding
    assert [len(run) for _, run in split_runs(transforms)] == [1, 1]
    assert [len(run) for _, run in split_runs([T.RandomRotation(10), T.CenterCrop(big)])] == [2]


def test_the_geometry_probe_is_not_listed_to_users() -> None:
    with pytest.raises(
        TypeError, match=r"supports inputs of type BoundingBox, Image, KeyPoints, Mask, PIL.Image.Image, Tensor, Video, but"
    ):
        F.resize(object(), [2, 2])


# ------------------------------------------------------------------ whole-pixel runs in plain Compose calls
WHOLE_PIXEL_CHAINS = {
    "ssd": lambda: [T.RandomZoomOut(fill={Image: (10, 20, 30), "others": 0}, side_range=(1.0, 3.0)),
                    T.RandomIoUCrop(), T.RandomHorizontalFlip(), T.RandomVerticalFlip()],
    "crop-beyond-the-canvas": lambda: [
        T.RandomZoomOut(fill=7, side_range=(1.0, 2.0), p=1.0), T.RandomVerticalFlip(),
        T.RandomCrop((70, 200), padding=[3, 1, 0, 5], pad_if_needed=True, fill=7), T.RandomHorizontalFlip(),
    ],
    "small-crops-of-a-large-canvas": lambda: [
        T.RandomHorizontalFlip(), T.RandomZoomOut(fill=5, side_range=(4.0, 4.0), p=1.0), T.RandomCrop(30, fill=5),
    ],
    "pad-zoom-centre": lambda: [T.Pad([2, 0, 5, 1]), T.RandomZoomOut(side_range=(1.0, 1.5)), T.CenterCrop((50, 61))],
    "no-canvas-drawn": lambda: [T.RandomZoomOut(side_range=(1.0, 1.0), p=1.0), T.RandomHorizontalFlip(p=1.0),
                                T.RandomIoUCrop()],
    # a Resize after the run joins it: masks it shrinks are sampled straight from the input
    "then-a-shrinking-resize": lambda: [T.RandomZoomOut(side_range=(1.0, 3.0), p=1.0), T.RandomIoUCrop(),
                                        T.RandomHorizontalFlip(), T.RandomVerticalFlip(), T.Resize(20, max_size=31)],
    "then-a-growing-resize": lambda: [T.RandomZoomOut(fill={Image: 4, "others": 0}), T.RandomHorizontalFlip(),
                                      T.RandomIoUCrop(), T.Resize((150, 170), antialias=False)],
    "then-nearest-exact": lambda: [T.RandomZoomOut(p=1.0), T.RandomIoUCrop(), T.RandomVerticalFlip(p=1.0),
                                   T.Resize(25, interpolation="nearest-exact")],
    "masks-filled-with-ones": lambda: [T.RandomZoomOut(fill={Image: 9, "others": 1}, p=1.0), T.RandomIoUCrop(),
                                       T.Resize(22)],
    # pixels a crop drops stay dropped (the fill) where a later step pads
    "crop-then-zoom": lambda: [T.CenterCrop(30), T.RandomZoomOut(p=1.0, side_range=(2.0, 2.0))],
    "crop-zoom-resize": lambda: [T.RandomCrop(40), T.RandomHorizontalFlip(), T.RandomZoomOut(p=1.0),
                                 T.Resize(25, interpolation="nearest")],
    "zoom-crop-pad": lambda: [T.RandomZoomOut(p=1.0), T.RandomCrop(50), T.RandomVerticalFlip(), T.Pad(2)],
}


def _leaves_of_every_kind() -> dict[str, Any]:
    image, target = _detection_sample()
    size = image.shape[-2:]
    return {
        "image": image,
        "video": Video(torch.rand(2, 3, *size)),
        "target": target,
        "cxcywh": F.convert_format_bounding_box(target["boxes"], new_format="CXCYWH"),
        "points": KeyPoints([[5.0, 7.0], [70.0, 50.0], [40.0, 30.0]], spatial_size=size),
        "bool_masks": Mask(target["masks"] > 0),
        "scores": torch.tensor([0.5, 0.25, 0.125]),
    }


def _assert_identical(actual: Any, expected: Any) -> None:
    """The same structure, leaf types, metadata and values (exactly)."""
    flat_actual, flat_expected = torch.utils._pytree.tree_leaves(actual), torch.utils._pytree.tree_leaves(expected)
    assert len(flat_actual) == len(flat_expected)
    for a, e in zip(flat_actual, flat_expected):
        assert type(a) is type(e)
        if isinstance(a, torch.Tensor):
            assert a.dtype == e.dtype and torch.equal(a.as_subclass(torch.Tensor), e.as_subclass(torch.Tensor))
            assert a._metadata() == e._metadata() if isinstance(a, Datapoint) else True
        elif isinstance(a, PIL.Image.Image):
            assert np.array_equal(np.asarray(a), np.asarray(e))
        else:
            assert a == e


def _one_by_one(transforms: list[Any], sample: Any) -> Any:
    for transform in transforms:
        sample = transform(sample)
    return sample


@pytest.mark.parametrize("chain", WHOLE_PIXEL_CHAINS)
def test_plain_compose_moves_whole_pixel_runs_as_the_transforms_one_by_one(chain: str) -> None:
    """A run with a zoom out takes one crop of each image, video and mask (the fill outside, then flips):
    outputs, metadata and the RNG exactly as the transforms called one by one."""
    transforms = WHOLE_PIXEL_CHAINS[chain]()
    assert [type(stage) for stage in whole_pixel_stages(transforms)] == [WholePixelRun]
    drawn = set()  # the images the seeds give: the draws vary
    for seed in range(12):
        torch.manual_seed(seed)
        expected = _one_by_one(transforms, _leaves_of_every_kind())
        state = torch.get_rng_state()
        torch.manual_seed(seed)
        actual = T.Compose(transforms)(_leaves_of_every_kind())
        assert torch.equal(torch.get_rng_state(), state)
        _assert_identical(actual, expected)
        drawn.add((tuple(actual["image"].shape), actual["image"].numpy().tobytes()))
    assert len(drawn) > 1


def test_whole_pixel_runs_reach_crops_wholly_in_the_fill() -> None:
    transforms = WHOLE_PIXEL_CHAINS["small-crops-of-a-large-canvas"]()
    filled = 0
    for seed in range(40):
        torch.manual_seed(seed)
        out = T.Compose(transforms)(_detection_sample()[0])
        torch.manual_seed(seed)
        assert torch.equal(out, _one_by_one(transforms, _detection_sample()[0]))
        filled += bool((out == 5).all())
    assert filled > 0


@pytest.mark.parametrize("kind", ["pil", "plain"])
def test_whole_pixel_runs_of_pil_images_and_plain_tensors(kind: str) -> None:
    image = _detection_sample()[0].as_subclass(torch.Tensor)
    image = F.to_pil_image(image) if kind == "pil" else image
    transforms = [T.RandomZoomOut(fill=9, p=1.0), T.RandomCrop(40, fill=9), T.RandomHorizontalFlip()]
    for seed in range(6):
        torch.manual_seed(seed)
        expected = _one_by_one(transforms, (image, torch.tensor(3)))
        torch.manual_seed(seed)
        _assert_identical(T.Compose(transforms)((image, torch.tensor(3))), expected)


def test_which_runs_plain_compose_joins() -> None:
    zoom, iou, flip, resize = T.RandomZoomOut(), T.RandomIoUCrop(), T.RandomHorizontalFlip(), T.Resize(32)
    stages = whole_pixel_stages([T.RandomPhotometricDistort(), zoom, iou, flip, resize, T.SanitizeBoundingBox()])
    assert [type(s).__name__ for s in stages] == ["RandomPhotometricDistort", "WholePixelRun", "SanitizeBoundingBox"]
    assert stages[1].transforms == [zoom, iou, flip, resize]  # the Resize right after joins
    assert len(whole_pixel_stages([zoom, iou, resize, T.Resize(20)])) == 2
    assert len(whole_pixel_stages([zoom, iou, T.Resize(20, interpolation="nearest"), iou])) == 2
    assert len(whole_pixel_stages([zoom, iou, T.RandomResize(20, 30)])) == 2
    hooked_resize = T.Resize(20)
    hooked_resize.register_forward_pre_hook(lambda *args: None)
    assert len(whole_pixel_stages([zoom, iou, hooked_resize])) == 2
    no_zoom = [T.RandomCrop(32, padding=4), flip]
    assert whole_pixel_stages(no_zoom) is no_zoom
    assert whole_pixel_stages([zoom]) == [zoom]
    reflect = T.Pad(2, padding_mode="reflect")
    assert whole_pixel_stages([zoom, reflect, iou]) == [zoom, reflect, iou]
    assert len(whole_pixel_stages([T.RandomZoomOut(), T.CenterCrop(20)])) == 1
    assert len(whole_pixel_stages([T.RandomZoomOut(fill=3), T.CenterCrop(20)])) == 2  # its zero padding differs
    assert len(whole_pixel_stages([T.RandomZoomOut(fill=3), T.Pad(1, fill=4)])) == 2
    hooked = T.RandomHorizontalFlip()
    hooked.register_forward_hook(lambda *args: None)
    assert whole_pixel_stages([zoom, hooked]) == [zoom, hooked]


@pytest.mark.parametrize(
    ("chain", "sampled"),
    [("then-a-shrinking-resize", True), ("then-nearest-exact", False), ("masks-filled-with-ones", False)],
)
def test_masks_are_sampled_from_the_input_only_where_that_is_exact(monkeypatch, chain: str, sampled: bool) -> None:
    calls = []
    original = visiontx.transforms._fusion.window_resize_mask
    monkeypatch.setattr(visiontx.transforms._fusion, "window_resize_mask",
                        lambda *args: calls.append(1) or original(*args))
    for seed in range(4):
        torch.manual_seed(seed)
        T.Compose(WHOLE_PIXEL_CHAINS[chain]())(_leaves_of_every_kind())
    assert bool(calls) == sampled


def test_whole_pixel_runs_leave_instances_with_their_own_methods_alone() -> None:
    zoom, flip = T.RandomZoomOut(p=1.0), T.RandomHorizontalFlip(p=1.0)
    flip.transform = lambda inpt, params: inpt  # an instance's own transform: honoured one by one
    assert whole_pixel_stages([zoom, flip]) == [zoom, flip]
    image = _detection_sample()[0]
    torch.manual_seed(0)
    expected = _one_by_one([zoom, flip], image)
    torch.manual_seed(0)
    assert torch.equal(T.Compose([zoom, flip])(image), expected)


def test_whole_pixel_runs_check_sizes_as_the_transforms_one_by_one() -> None:
    """Sizes that disagree raise where a transform is applied, and only there (a skipped one checks nothing)."""
    transforms = [T.RandomZoomOut(p=0.3), T.RandomHorizontalFlip(p=0.3)]
    sample = (Image(torch.zeros(3, 37, 53, dtype=torch.uint8)), Mask(torch.zeros(38, 53, dtype=torch.uint8)))
    outcomes = set()
    for seed in range(12):
        results = []
        for call in (lambda: _one_by_one(transforms, sample), lambda: T.Compose(transforms)(sample)):
            torch.manual_seed(seed)
            try:
                results.append(call())
            except ValueError as error:
                results.append(str(error))
        assert type(results[0]) is type(results[1])
        if isinstance(results[0], str):
            assert results[0] == results[1]
        else:
            _assert_identical(results[1], results[0])
        outcomes.add(type(results[0]))
    assert outcomes == {str, tuple}


def test_whole_pixel_runs_of_meta_tensors() -> None:
    transforms = [T.RandomZoomOut(p=1.0), T.RandomHorizontalFlip(), T.Resize(10)]
    sample = (Image(torch.empty(3, 20, 30, dtype=torch.uint8, device="meta")),
              Mask(torch.empty(4, 20, 30, dtype=torch.uint8, device="meta")))
    for seed in range(4):
        torch.manual_seed(seed)
        expected = _one_by_one(transforms, sample)
        torch.manual_seed(seed)
        actual = T.Compose(transforms)(sample)
        assert [(x.shape, x.device, type(x)) for x in actual] == [(x.shape, x.device, type(x)) for x in expected]


def test_fused_runs_check_sizes_only_where_a_transform_applies() -> None:
    sample = (Image(torch.zeros(3, 4, 6, dtype=torch.uint8)), Mask(torch.zeros(5, 6, dtype=torch.uint8)))
    skipped = [T.RandomHorizontalFlip(p=0.0), T.RandomVerticalFlip(p=0.0)]
    for fuse in (False, True):
        out = T.Compose(skipped, fuse_geometry=fuse)(sample)
        assert out[0] is sample[0] and out[1] is sample[1]
        with pytest.raises(ValueError, match="same H x W"):
            T.Compose([T.RandomHorizontalFlip(p=1.0), T.Resize(3)], fuse_geometry=fuse)(sample)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("chain", [
    lambda: [T.Resize(32), T.RandomHorizontalFlip(p=1.0)],
    lambda: [T.RandomResizedCrop((40, 36), scale=(1.0, 1.0), ratio=(1.0, 1.0)), T.RandomVerticalFlip(p=1.0)],
    lambda: [T.CenterCrop(6), T.Resize(30), T.RandomHorizontalFlip(p=1.0)],
])
def test_fused_upscales_give_the_edge_pixels_as_unfused(chain, dtype) -> None:
    """An upscale reads the input's outer half pixel: fused, the edge pixel there (as the unfused resize repeats
    it), not a blend with the zero fill (which darkened the outer rows and columns by up to 60 %)."""
    image = Image(torch.full((3, 8, 8), 200, dtype=torch.uint8))
    image = image if dtype == torch.uint8 else Image(image.as_subclass(torch.Tensor).float() / 255)
    torch.manual_seed(0)
    fused = T.Compose(chain(), fuse_geometry=True)(image)
    torch.manual_seed(0)
    unfused = T.Compose(chain())(image)
    assert_equal(fused, unfused, atol=1 if dtype == torch.uint8 else 1e-5, rtol=0)
    pil = T.Compose(chain(), fuse_geometry=True)(F.to_image_pil(image if dtype == torch.uint8 else
                                                                 Image(torch.full((3, 8, 8), 200, dtype=torch.uint8))))
    assert set(np.asarray(pil).flatten().tolist()) == {200}


def test_edge_band_test_of_one_map_agrees_with_the_batched_one() -> None:
    """The fused Compose and PerSample's batched runs pick the same maps (one test, ``reads_edge_band``)."""
    from visiontx.transforms._fusion import edge_bands, reads_edge_band
    from visiontx.transforms._per_sample._fusion import _edge_boxes

    size = (20, 30)
    geometries = [
        F.geometry_of("resize", size, size=[45, 60]),  # an upscale: reads the band
        F.geometry_of("resize", size, size=[10, 15]),  # a reduction: does not
        F.geometry_of("resized_crop", size, top=2, left=3, height=10, width=12, size=[40, 40]),  # inside the input
        F.geometry_of("resize", size, size=[45, 60]).then(F.geometry_of("horizontal_flip", (45, 60))),
        F.geometry_of("rotate", size, angle=20.0),  # reaches outside
        F.geometry_of("pad", size, padding=[2]),
    ]
    expected = [True, False, False, True, False, False]
    assert [reads_edge_band(g.inverse_matrix, g.canvas_size, size) for g in geometries] == expected
    batched = [_edge_boxes(torch.tensor([g.inverse_matrix], dtype=torch.float64), g.canvas_size, size) is not None
               for g in geometries]
    assert batched == expected
    bands = [edge_bands(torch.tensor([g.inverse_matrix], dtype=torch.float64), g.canvas_size, size).tolist()
             for g in geometries]
    assert bands == [[band] for band in expected]


def test_fused_runs_with_a_warp_keep_blending_the_fill_at_the_border() -> None:
    """The edge pixels stand in for the outer half pixel only in runs of resizes, crops and flips: a warp's unfused
    sampling blends its fill there, and so does its fused run."""
    from visiontx.transforms._fusion import repeats_edges

    image = Image(torch.full((1, 8, 8), 200, dtype=torch.uint8))
    chain = [T.RandomAffine(degrees=0, translate=(0.5, 0.5), scale=(2, 2), interpolation="bilinear"),
             T.RandomHorizontalFlip(p=1.0)]
    assert not repeats_edges(chain) and repeats_edges([T.Resize(4), T.CenterCrop(2), T.RandomVerticalFlip()])
    torch.manual_seed(6)
    fused = T.Compose(chain, fuse_geometry=True)(image)
    assert int(fused[0, 0, 0]) < 200  # the zero fill blended in, as unfused (no edge padding)
