"""wrap_dataset_for_transforms_v2 on torchvision's datasets, built from tiny fake files in each on-disk format.

Each wrapper is compared with torchvision's own wrapper (same structure and values, visiontx datapoints).
Video datasets use a minimal subclass returning a native sample: torchvision cannot decode videos here
(no PyAV / video_reader backend).
"""

from __future__ import annotations

import json
import pathlib
import pickle
import struct
import types
from typing import Any

import numpy as np
import PIL.Image
import pytest
import torch

import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Mask, Video
from visiontx.datasets import CocoDetection, wrap_dataset_for_transforms_v2

from .test_datasets_coco import SAMPLE_ANN, SAMPLE_ROOT, make_annotation, write_coco

COVERED = {"wrap_dataset_for_transforms_v2"}

# torchvision's datasets open PIL images lazily (files closed by the garbage collector) and its COCO wrapper
# calls pycocotools, whose __array__ predates numpy 2: warnings from torchvision's side, not ours
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


@pytest.fixture(scope="module")
def tv() -> Any:
    return pytest.importorskip("torchvision")


def _save_image(path: pathlib.Path, size: tuple[int, int] = (12, 16), seed: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pixels = np.random.default_rng(seed).integers(0, 256, (*size, 3), dtype=np.uint8)
    PIL.Image.fromarray(pixels).save(path)


def _save_mask(path: pathlib.Path, values: np.ndarray, mode: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    PIL.Image.fromarray(values, mode).save(path)


def _plain(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.as_subclass(torch.Tensor)


def assert_same(ours: Any, theirs: Any, *, key: str = "") -> None:
    """Our wrapped sample has torchvision's structure and values, with visiontx datapoints in place of tv_tensors.

    Known differences: a mask made from a PIL image is ``H x W`` here (visiontx's ``Mask``) where torchvision
    keeps a ``1 x H x W`` channel dim (and stacks Cityscapes instances as ``N x 1 x H x W``).
    """
    from torchvision import tv_tensors

    kinds = {tv_tensors.BoundingBoxes: BoundingBox, tv_tensors.Mask: Mask, tv_tensors.Video: Video}
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and set(ours) == set(theirs), (key, ours.keys(), theirs.keys())
        for name in theirs:
            assert_same(ours[name], theirs[name], key=name)
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), key
        for mine, other in zip(ours, theirs):
            assert_same(mine, other, key=key)
    elif isinstance(theirs, torch.Tensor):
        expected_type = next((cls for tv_cls, cls in kinds.items() if isinstance(theirs, tv_cls)), torch.Tensor)
        assert type(ours) is expected_type, (key, type(ours), type(theirs))
        if isinstance(theirs, tv_tensors.BoundingBoxes):
            assert ours.format.name == theirs.format.name and tuple(ours.spatial_size) == tuple(theirs.canvas_size)
        assert ours.dtype == theirs.dtype, (key, ours.dtype, theirs.dtype)
        if isinstance(theirs, tv_tensors.Mask) and theirs.ndim == ours.ndim + 1:
            assert theirs.shape[-3] == 1, (key, ours.shape, theirs.shape)
            theirs = theirs.squeeze(-3)
        assert ours.shape == theirs.shape, (key, ours.shape, theirs.shape)
        assert torch.equal(_plain(ours).to(theirs.dtype), _plain(theirs)), key
    elif isinstance(theirs, PIL.Image.Image):
        assert isinstance(ours, PIL.Image.Image) and np.array_equal(np.asarray(ours), np.asarray(theirs)), key
    else:
        assert ours == theirs, key


def assert_like_torchvision(make: Any, *, target_keys: Any = None) -> None:
    """Wrap two fresh datasets from ``make()`` with visiontx and torchvision; every sample must match."""
    from torchvision.datasets import wrap_dataset_for_transforms_v2 as tv_wrap

    dataset = make()
    ours, theirs = wrap_dataset_for_transforms_v2(dataset, target_keys), tv_wrap(make(), target_keys)
    assert isinstance(ours, type(dataset)) and len(ours) == len(theirs) > 0
    for index in range(len(ours)):
        assert_same(ours[index], theirs[index])


# -------------------------------------------------------------------------------------------- COCO
COCO_TV_KEYS = {"segmentation", "iscrowd", "image_id", "bbox", "category_id", "boxes", "masks", "labels"}


@pytest.mark.parametrize("target_keys", [None, COCO_TV_KEYS])
def test_coco_bundled_sample(tv: Any, target_keys: Any) -> None:
    make = lambda: tv.datasets.CocoDetection(str(SAMPLE_ROOT), str(SAMPLE_ANN))  # noqa: E731
    assert_like_torchvision(make, target_keys=target_keys)


def test_coco_visiontx_dataset_matches_torchvision(tv: Any) -> None:
    from torchvision.datasets import wrap_dataset_for_transforms_v2 as tv_wrap

    ours = wrap_dataset_for_transforms_v2(CocoDetection(SAMPLE_ROOT, SAMPLE_ANN), COCO_TV_KEYS)
    theirs = tv_wrap(tv.datasets.CocoDetection(str(SAMPLE_ROOT), str(SAMPLE_ANN)), COCO_TV_KEYS)
    assert_same(ours[0], theirs[0])


def test_coco_fake_file(tv: Any, tmp_path: pathlib.Path) -> None:
    rle = {"size": [10, 12], "counts": [5, 3, 100, 12]}
    anns = [make_annotation(1, 1), make_annotation(2, 2, segmentation=rle, iscrowd=1), make_annotation(3, 2)]
    root, ann_file = write_coco(tmp_path, [(1, (20, 16)), (2, (10, 12))], anns)
    keys = COCO_TV_KEYS | {"area"}
    assert_like_torchvision(lambda: tv.datasets.CocoDetection(str(root), str(ann_file)), target_keys=keys)


def test_coco_empty_image_is_typed_unlike_torchvision(tv: Any, tmp_path: pathlib.Path) -> None:
    root, ann_file = write_coco(tmp_path, [(1, (20, 16))], [])
    _, target = wrap_dataset_for_transforms_v2(tv.datasets.CocoDetection(str(root), str(ann_file)))[0]
    assert set(target) == {"image_id", "boxes", "labels"} and target["boxes"].shape == (0, 4)


# --------------------------------------------------------------------------------------------- VOC
VOC_XML = """<annotation><filename>{name}.jpg</filename><size><width>16</width><height>12</height></size>
{objects}</annotation>"""
VOC_OBJECT = "<object><name>{label}</name><bndbox><xmin>{0}</xmin><ymin>{1}</ymin><xmax>{2}</xmax><ymax>{3}</ymax>" \
    "</bndbox><difficult>0</difficult></object>"


def _voc_root(tmp_path: pathlib.Path, split_dir: str) -> pathlib.Path:
    base = tmp_path / "VOCdevkit" / "VOC2012"
    objects = {"a": [("dog", (1, 2, 9, 10)), ("person", (3, 4, 15, 11))], "b": [("car", (0, 0, 5, 5))]}
    for seed, (name, objs) in enumerate(objects.items()):
        _save_image(base / "JPEGImages" / f"{name}.jpg", seed=seed)
        xml = VOC_XML.format(name=name, objects="".join(VOC_OBJECT.format(*box, label=lbl) for lbl, box in objs))
        (base / "Annotations").mkdir(exist_ok=True)
        (base / "Annotations" / f"{name}.xml").write_text(xml)
        _save_mask(base / "SegmentationClass" / f"{name}.png", np.full((12, 16), seed + 3, dtype=np.uint8))
    (base / "ImageSets" / split_dir).mkdir(parents=True)
    (base / "ImageSets" / split_dir / "train.txt").write_text("a\nb\n")
    return tmp_path


@pytest.mark.parametrize("target_keys", [None, "all", {"labels"}])
def test_voc_detection(tv: Any, tmp_path: pathlib.Path, target_keys: Any) -> None:
    root = _voc_root(tmp_path, "Main")
    assert_like_torchvision(lambda: tv.datasets.VOCDetection(root, image_set="train"), target_keys=target_keys)
    _, target = wrap_dataset_for_transforms_v2(tv.datasets.VOCDetection(root, image_set="train"))[0]
    assert target["labels"].tolist() == [12, 15] and target["boxes"].tolist() == [[1, 2, 9, 10], [3, 4, 15, 11]]


def test_voc_detection_transforms_and_pickle(tv: Any, tmp_path: pathlib.Path) -> None:
    dataset = tv.datasets.VOCDetection(_voc_root(tmp_path, "Main"), image_set="train")
    dataset.transforms = T.Compose([T.ToImageTensor(), T.RandomHorizontalFlip(p=1.0)])
    wrapped = pickle.loads(pickle.dumps(wrap_dataset_for_transforms_v2(dataset)))
    image, target = wrapped[0]
    assert isinstance(target["boxes"], BoundingBox) and target["boxes"].tolist() == [[7, 2, 15, 10], [1, 4, 13, 11]]
    assert image.shape == (3, 12, 16) and dataset.transforms is not None


def test_voc_segmentation(tv: Any, tmp_path: pathlib.Path) -> None:
    root = _voc_root(tmp_path, "Segmentation")
    assert_like_torchvision(lambda: tv.datasets.VOCSegmentation(root, image_set="train"))
    with pytest.raises(ValueError, match="target_keys is not supported for VOCSegmentation"):
        wrap_dataset_for_transforms_v2(tv.datasets.VOCSegmentation(root, image_set="train"), target_keys="all")


# --------------------------------------------------------------------------------------------- SBD
def test_sbd(tv: Any, tmp_path: pathlib.Path) -> None:
    from scipy.io import savemat  # a test dependency (setup.py extras "test")

    _save_image(tmp_path / "img" / "a.jpg")
    (tmp_path / "cls").mkdir()
    segmentation = np.arange(12 * 16, dtype=np.uint8).reshape(12, 16) % 21
    savemat(tmp_path / "cls" / "a.mat", {"GTcls": {"Segmentation": segmentation}})
    (tmp_path / "train.txt").write_text("a\n")
    assert_like_torchvision(lambda: tv.datasets.SBDataset(tmp_path, mode="segmentation"))
    with pytest.raises(ValueError, match=r"SBDataset with mode=\['boundaries'\] is not supported"):
        wrap_dataset_for_transforms_v2(tv.datasets.SBDataset(tmp_path, mode="boundaries"))


# -------------------------------------------------------------------------------------- Cityscapes
def _cityscapes_root(tmp_path: pathlib.Path) -> pathlib.Path:
    stem = "city_000000_000019"
    _save_image(tmp_path / "leftImg8bit" / "train" / "city" / f"{stem}_leftImg8bit.png")
    gt = tmp_path / "gtFine" / "train" / "city"
    instances = np.zeros((12, 16), dtype=np.int32)
    instances[2:5, 3:9], instances[6:, 8:] , instances[0, :] = 26001, 26002, 7
    _save_mask(gt / f"{stem}_gtFine_instanceIds.png", instances.astype(np.uint16))
    _save_mask(gt / f"{stem}_gtFine_labelIds.png", (instances % 256).astype(np.uint8))
    (gt / f"{stem}_gtFine_polygons.json").write_text(json.dumps({"objects": []}))
    return tmp_path


def test_cityscapes_semantic(tv: Any, tmp_path: pathlib.Path) -> None:
    # instance targets are not compared: torchvision's wrapper fails on the 16-bit instance PNGs Pillow reads
    root = _cityscapes_root(tmp_path)
    assert_like_torchvision(lambda: tv.datasets.Cityscapes(root, target_type="semantic"))


def test_cityscapes_instances(tv: Any, tmp_path: pathlib.Path) -> None:
    dataset = tv.datasets.Cityscapes(_cityscapes_root(tmp_path), target_type=["instance", "semantic"])
    _, (target, semantic) = wrap_dataset_for_transforms_v2(dataset)[0]
    assert isinstance(semantic, Mask) and semantic.shape == (12, 16)
    assert target["labels"].tolist() == [0, 7, 26, 26] and target["labels"].dtype == torch.int64
    assert target["masks"].shape == (4, 12, 16) and target["masks"].dtype == torch.bool
    assert int(target["masks"].sum()) == 12 * 16 and bool(target["masks"][2, 2, 3]) and not target["masks"][2, 0, 0]


def test_cityscapes_polygon_is_refused(tv: Any, tmp_path: pathlib.Path) -> None:
    dataset = tv.datasets.Cityscapes(_cityscapes_root(tmp_path), target_type=["semantic", "polygon"])
    with pytest.raises(ValueError, match=r"target_type=\['polygon'\]"):
        wrap_dataset_for_transforms_v2(dataset)


# ------------------------------------------------------------------------------------------- Kitti
def _kitti_root(tmp_path: pathlib.Path) -> pathlib.Path:
    for location in ("training", "testing"):
        base = tmp_path / "Kitti" / "raw" / location
        _save_image(base / "image_2" / "000000.png")
    labels = tmp_path / "Kitti" / "raw" / "training" / "label_2"
    labels.mkdir()
    (labels / "000000.txt").write_text(
        "Car 0.00 0 -1.58 1.5 2.0 9.25 10.0 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59\n"
        "Pedestrian 0.10 1 0.2 3.0 4.0 15.0 11.0 1.0 1.0 1.0 0.0 0.0 10.0 0.5\n"
    )
    return tmp_path


@pytest.mark.parametrize("target_keys", [None, "all", {"boxes", "alpha"}])
def test_kitti(tv: Any, tmp_path: pathlib.Path, target_keys: Any) -> None:
    root = _kitti_root(tmp_path)
    assert_like_torchvision(lambda: tv.datasets.Kitti(root), target_keys=target_keys)


def test_kitti_test_split_has_no_target(tv: Any, tmp_path: pathlib.Path) -> None:
    image, target = wrap_dataset_for_transforms_v2(tv.datasets.Kitti(_kitti_root(tmp_path), train=False))[0]
    assert isinstance(image, PIL.Image.Image) and target is None


# --------------------------------------------------------------------------------------- WIDERFace
def _widerface_root(tmp_path: pathlib.Path) -> pathlib.Path:
    base = tmp_path / "widerface"
    for split in ("train", "val", "test"):
        _save_image(base / f"WIDER_{split}" / "images" / "0--Parade" / "a.jpg")
    (base / "wider_face_split").mkdir()
    (base / "wider_face_split" / "wider_face_train_bbx_gt.txt").write_text(
        "0--Parade/a.jpg\n2\n1 2 8 8 0 0 0 0 0 0\n3 4 12 7 1 0 1 0 0 1\n"
    )
    (base / "wider_face_split" / "wider_face_test_filelist.txt").write_text("0--Parade/a.jpg\n")
    return tmp_path


@pytest.mark.parametrize("target_keys", [None, {"bbox", "blur"}])
def test_widerface(tv: Any, tmp_path: pathlib.Path, target_keys: Any) -> None:
    root = _widerface_root(tmp_path)
    assert_like_torchvision(lambda: tv.datasets.WIDERFace(root), target_keys=target_keys)
    test = wrap_dataset_for_transforms_v2(tv.datasets.WIDERFace(root, split="test"))
    assert test[0][1] is None


def test_widerface_target_transform_runs_after_conversion(tv: Any, tmp_path: pathlib.Path) -> None:
    dataset = tv.datasets.WIDERFace(_widerface_root(tmp_path), target_transform=lambda target: target["bbox"])
    boxes = wrap_dataset_for_transforms_v2(dataset)[0][1]
    assert isinstance(boxes, BoundingBox) and boxes.tolist() == [[1, 2, 9, 10], [3, 4, 15, 11]]


# ------------------------------------------------------------------------------------------ CelebA
def _celeba_class(tv: Any) -> type:
    # CelebA checks the md5 of its annotation files; the fake files cannot match them
    return type("FakeCelebA", (tv.datasets.CelebA,), {"_check_integrity": lambda self: True})


def _celeba_root(tmp_path: pathlib.Path) -> pathlib.Path:
    base = tmp_path / "celeba"
    names = ["000001.jpg", "000002.jpg"]
    for seed, name in enumerate(names):
        _save_image(base / "img_align_celeba" / name, seed=seed)
    tables = {
        "list_eval_partition.txt": (None, ["0", "0"]),
        "identity_CelebA.txt": (None, ["5", "9"]),
        "list_bbox_celeba.txt": ("image_id x_1 y_1 width height", ["1 2 8 8", "0 3 16 5"]),
        "list_landmarks_align_celeba.txt": ("a b", ["1 2", "3 4"]),
        "list_attr_celeba.txt": ("Smiling Young", ["1 -1", "-1 1"]),
    }
    for filename, (header, rows) in tables.items():
        lines = ([str(len(names)), header] if header else []) + [f"{n} {r}" for n, r in zip(names, rows)]
        (base / filename).write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize("target_type", ["bbox", ["identity", "bbox"]])
def test_celeba(tv: Any, tmp_path: pathlib.Path, target_type: Any) -> None:
    root, cls = _celeba_root(tmp_path), _celeba_class(tv)
    assert_like_torchvision(lambda: cls(root, target_type=target_type))


def test_celeba_without_target_keeps_none(tv: Any, tmp_path: pathlib.Path) -> None:
    # torchvision's wrapper turns the native None into (); the wrapper keeps the dataset's None
    dataset = _celeba_class(tv)(_celeba_root(tmp_path), target_type=[])
    assert wrap_dataset_for_transforms_v2(dataset)[0][1] is None


def test_celeba_bbox_is_xyxy(tv: Any, tmp_path: pathlib.Path) -> None:
    dataset = _celeba_class(tv)(_celeba_root(tmp_path), target_type="bbox")
    boxes = wrap_dataset_for_transforms_v2(dataset)[1][1]
    assert boxes.format.name == "XYXY" and boxes.tolist() == [[0, 3, 16, 8]] and tuple(boxes.spatial_size) == (12, 16)


def test_celeba_attr_is_refused(tv: Any, tmp_path: pathlib.Path) -> None:
    dataset = _celeba_class(tv)(_celeba_root(tmp_path), target_type=["bbox", "attr"])
    with pytest.raises(ValueError, match=r"CelebA with target_type=\['attr'\]"):
        wrap_dataset_for_transforms_v2(dataset)


# ----------------------------------------------------------------------------------- OxfordIIITPet
@pytest.mark.parametrize("target_types", ["segmentation", ["category", "segmentation"], []])
def test_oxford_iiit_pet(tv: Any, tmp_path: pathlib.Path, target_types: Any) -> None:
    base = tmp_path / "oxford-iiit-pet"
    _save_image(base / "images" / "Abyssinian_1.jpg")
    _save_mask(base / "annotations" / "trimaps" / "Abyssinian_1.png", np.full((12, 16), 2, dtype=np.uint8))
    (base / "annotations" / "trainval.txt").write_text("Abyssinian_1 1 1 1\n")
    assert_like_torchvision(lambda: tv.datasets.OxfordIIITPet(tmp_path, target_types=target_types))


# ------------------------------------------------------------------------------------------- video
def _video_dataset(cls: type, output_format: str = "TCHW", transform: Any = None) -> Any:
    """A video dataset instance with a native sample, bypassing the decoding backends this machine lacks."""

    def getitem(self: Any, index: int) -> tuple[torch.Tensor, torch.Tensor, int]:
        return torch.arange(2 * 3 * 4 * 5, dtype=torch.uint8).reshape(2, 3, 4, 5), torch.zeros(1, 0), 3

    fake = type(f"Fake{cls.__name__}", (cls,), {"__getitem__": getitem, "__len__": lambda self: 1})
    dataset = fake.__new__(fake)
    dataset.video_clips = types.SimpleNamespace(output_format=output_format)
    dataset.transform, dataset.target_transform, dataset.transforms = transform, None, None
    return dataset


@pytest.mark.parametrize("name", ["Kinetics", "HMDB51", "UCF101"])
def test_video_datasets(tv: Any, name: str) -> None:
    cls = getattr(tv.datasets, name)
    assert_like_torchvision(lambda: _video_dataset(cls))
    with pytest.raises(ValueError, match="output_format"):
        wrap_dataset_for_transforms_v2(_video_dataset(cls, output_format="THWC"))


def test_video_transform_runs_on_the_video(tv: Any) -> None:
    flip = T.RandomHorizontalFlip(p=1.0)
    dataset = _video_dataset(tv.datasets.Kinetics, transform=flip)
    video, audio, label = wrap_dataset_for_transforms_v2(dataset)[0]
    assert isinstance(video, Video) and label == 3 and dataset.transform is flip
    assert torch.equal(_plain(video), torch.arange(120, dtype=torch.uint8).reshape(2, 3, 4, 5).flip(-1))


# ---------------------------------------------------------------------------------- classification
CLASSIFICATION = ["Caltech256", "CIFAR10", "CIFAR100", "ImageNet", "MNIST", "FashionMNIST", "GTSRB", "Imagenette"]


@pytest.mark.parametrize("name", CLASSIFICATION)
def test_classification_samples_are_unchanged(tv: Any, name: str) -> None:
    image = PIL.Image.new("RGB", (4, 3))
    methods = {"__getitem__": lambda self, i: (image, 7), "__len__": lambda self: 1}
    fake = type("Fake", (getattr(tv.datasets, name),), methods)
    sample = wrap_dataset_for_transforms_v2(fake.__new__(fake))[0]
    assert sample[0] is image and sample[1] == 7


def test_image_folder(tv: Any, tmp_path: pathlib.Path) -> None:
    for seed, path in enumerate(["cat/a.png", "cat/b.png", "dog/c.png"]):
        _save_image(tmp_path / path, seed=seed)
    assert_like_torchvision(lambda: tv.datasets.ImageFolder(tmp_path))
    folder = tv.datasets.DatasetFolder(tmp_path, loader=lambda path: path, extensions=(".png",))
    assert wrap_dataset_for_transforms_v2(folder)[2] == (str(tmp_path / "dog" / "c.png"), 1)


def test_mnist(tv: Any, tmp_path: pathlib.Path) -> None:
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for prefix in ("train", "t10k"):
        pixels = bytes(range(256)) * 6 + bytes(32)  # 2 x 28 x 28
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(struct.pack(">iiii", 0x803, 2, 28, 28) + pixels)
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(struct.pack(">ii", 0x801, 2) + bytes([3, 8]))
    assert_like_torchvision(lambda: tv.datasets.MNIST(tmp_path))
    assert wrap_dataset_for_transforms_v2(tv.datasets.MNIST(tmp_path))[1][1] == 8


def test_caltech101_annotations_are_refused(tv: Any) -> None:
    cls = tv.datasets.Caltech101
    dataset = cls.__new__(cls)
    dataset.target_type = ["category", "annotation"]
    with pytest.raises(ValueError, match=r"Caltech101 with target_type=\['annotation'\]"):
        wrap_dataset_for_transforms_v2(dataset)


def test_unsupported_torchvision_dataset(tv: Any) -> None:
    with pytest.raises(TypeError, match="no wrapper for dataset class FakeData.*by hand"):
        wrap_dataset_for_transforms_v2(tv.datasets.FakeData(size=1))
