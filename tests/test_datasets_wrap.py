"""wrap_dataset_for_transforms_v2 on visiontx's CocoDetection: targets, keys, transforms, pickling, workers."""

from __future__ import annotations

import pathlib
import pickle
import subprocess
import sys
from typing import Any

import numpy as np
import PIL.Image
import pytest
import torch
import torch.utils.data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pycocotools import mask as coco_mask

import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Mask
from visiontx.datasets import CocoDetection, wrap_dataset_for_transforms_v2
from visiontx.datasets._wrap import register_wrapper

from .test_datasets_coco import SAMPLE_ANN, SAMPLE_ROOT, make_annotation, write_coco

COVERED = {"wrap_dataset_for_transforms_v2"}
SIZE = (20, 30)  # (H, W)


def collate_tuples(batch: list[Any]) -> tuple[Any, ...]:
    """Module-level (picklable) collate: a list of samples -> a tuple per field."""
    return tuple(zip(*batch))


def _mask_array() -> np.ndarray:
    array = np.zeros(SIZE, dtype=np.uint8)
    array[4:11, 6:19] = 1
    array[15:18, 2:5] = 1
    return array


def _uncompressed_rle(array: np.ndarray) -> dict[str, Any]:
    """Column-major run lengths, starting with a run of zeros (COCO's uncompressed RLE)."""
    flat = array.flatten(order="F")
    changes = np.flatnonzero(np.diff(flat)) + 1
    bounds = np.concatenate([[0], changes, [flat.size]])
    counts = np.diff(bounds).tolist()
    if flat[0] == 1:
        counts = [0, *counts]
    return {"size": list(array.shape), "counts": counts}


def _compressed_rle(array: np.ndarray) -> dict[str, Any]:
    rle = coco_mask.encode(np.asfortranarray(array))
    return {"size": rle["size"], "counts": rle["counts"].decode()}


@pytest.fixture
def coco(tmp_path: pathlib.Path) -> CocoDetection:
    anns = [
        make_annotation(1, 1, bbox=[2.0, 3.0, 10.0, 6.0], category_id=3),
        make_annotation(2, 1, bbox=[6.0, 4.0, 13.0, 7.0], segmentation=_uncompressed_rle(_mask_array()), iscrowd=1),
        make_annotation(3, 1, bbox=[0.5, 0.5, 0.0, 2.0], segmentation=_compressed_rle(_mask_array()), category_id=2),
    ]
    return CocoDetection(*write_coco(tmp_path, [(1, SIZE), (2, (8, 9))], anns))


# ------------------------------------------------------------------------------------------ targets
def test_default_target(coco: CocoDetection) -> None:
    image, target = wrap_dataset_for_transforms_v2(coco)[0]
    assert isinstance(image, PIL.Image.Image)
    assert set(target) == {"image_id", "boxes", "labels"}
    assert target["image_id"] == 1
    boxes = target["boxes"]
    assert isinstance(boxes, BoundingBox) and boxes.format == BoundingBoxFormat.XYXY
    assert tuple(boxes.spatial_size) == SIZE
    expected = torch.tensor([[2.0, 3.0, 12.0, 9.0], [6.0, 4.0, 19.0, 11.0], [0.5, 0.5, 0.5, 2.5]])
    torch.testing.assert_close(boxes.as_subclass(torch.Tensor), expected)
    assert target["labels"].dtype == torch.int64 and target["labels"].tolist() == [3, 3, 2]


def test_image_id_follows_the_wrapped_samples_when_the_original_changes(coco: CocoDetection) -> None:
    wrapped = wrap_dataset_for_transforms_v2(coco)
    coco.ids = coco.ids[::-1]  # the user's object changes after wrapping; the wrapper keeps its own view
    for index, image_id, size in [(0, 1, SIZE), (1, 2, (8, 9))]:
        image, target = wrapped[index]
        assert target["image_id"] == image_id and image.size[::-1] == size


def test_masks_from_polygon_and_rle(coco: CocoDetection) -> None:
    masks = wrap_dataset_for_transforms_v2(coco, target_keys={"masks"})[0][1]["masks"]
    assert isinstance(masks, Mask) and masks.shape == (3, *SIZE) and masks.dtype == torch.uint8
    expected = torch.from_numpy(_mask_array())
    assert torch.equal(masks[1].as_subclass(torch.Tensor), expected)  # uncompressed RLE
    assert torch.equal(masks[2].as_subclass(torch.Tensor), expected)  # compressed RLE
    polygon = masks[0].as_subclass(torch.Tensor).bool()  # rectangle x 2..12, y 3..9
    assert not polygon[:3].any() and not polygon[10:].any() and not polygon[:, :2].any() and not polygon[:, 13:].any()
    assert polygon[4:9, 3:12].all()


def test_several_polygons_merge(tmp_path: pathlib.Path) -> None:
    two = [[1.0, 1.0, 4.0, 1.0, 4.0, 4.0, 1.0, 4.0], [10.0, 10.0, 14.0, 10.0, 14.0, 14.0, 10.0, 14.0]]
    anns = [make_annotation(1, 1, segmentation=two), make_annotation(2, 1, segmentation=[])]
    dataset = wrap_dataset_for_transforms_v2(CocoDetection(*write_coco(tmp_path, [(1, SIZE)], anns)), target_keys="all")
    masks = dataset[0][1]["masks"].as_subclass(torch.Tensor)
    assert masks[0, 2, 2] == 1 and masks[0, 12, 12] == 1 and masks[0, 7, 7] == 0
    assert not masks[1].any()  # an empty polygon list gives an empty mask


def test_all_keys_and_native_values(coco: CocoDetection) -> None:
    target = wrap_dataset_for_transforms_v2(coco, target_keys="all")[0][1]
    natives = {"id", "segmentation", "area", "iscrowd", "bbox", "category_id", "num_keypoints"}
    assert set(target) == natives | {"image_id", "boxes", "masks", "labels", "keypoints"}
    assert target["num_keypoints"] == [None, None, None] and target["keypoints"].shape == (3, 0, 2)
    assert target["id"] == [1, 2, 3] and target["iscrowd"] == [0, 1, 0]
    assert target["bbox"][1] == [6.0, 4.0, 13.0, 7.0] and target["image_id"] == 1


def test_selected_keys(coco: CocoDetection) -> None:
    target = wrap_dataset_for_transforms_v2(coco, target_keys=["bbox", "labels"])[0][1]
    assert set(target) == {"bbox", "labels"}


def test_native_key_missing_in_an_annotation_stays_aligned(tmp_path: pathlib.Path) -> None:
    anns = [make_annotation(1, 1), make_annotation(2, 1)]
    del anns[0]["area"]
    dataset = CocoDetection(*write_coco(tmp_path, [(1, SIZE)], anns))
    assert wrap_dataset_for_transforms_v2(dataset, target_keys={"area"})[0][1]["area"] == [None, 60.0]


def test_image_without_annotations_gives_a_typed_empty_target(coco: CocoDetection) -> None:
    target = wrap_dataset_for_transforms_v2(coco, target_keys="all")[1][1]
    assert target["image_id"] == 2
    assert isinstance(target["boxes"], BoundingBox) and target["boxes"].shape == (0, 4)
    assert tuple(target["boxes"].spatial_size) == (8, 9) and target["boxes"].format == BoundingBoxFormat.XYXY
    assert isinstance(target["masks"], Mask) and target["masks"].shape == (0, 8, 9)
    assert target["masks"].dtype == torch.uint8
    assert target["labels"].shape == (0,) and target["labels"].dtype == torch.int64
    assert target["bbox"] == [] and target["segmentation"] == []


def test_bundled_sample() -> None:
    image, target = wrap_dataset_for_transforms_v2(CocoDetection(SAMPLE_ROOT, SAMPLE_ANN), target_keys="all")[0]
    mask = target["masks"][0].as_subclass(torch.Tensor)
    assert mask.shape == (512, 512) and mask.any()
    ys, xs = torch.nonzero(mask, as_tuple=True)
    x0, y0, x1, y1 = target["boxes"][0].tolist()
    assert x0 - 1 <= xs.min() and xs.max() <= x1 and y0 - 1 <= ys.min() and ys.max() <= y1  # mask inside its box


@pytest.mark.parametrize(
    ("segmentation", "message"),
    [(None, "has no 'segmentation'"), ({"size": [3, 3], "counts": [9]}, r"RLE size \[3, 3\] differs")],
)
def test_mask_errors(tmp_path: pathlib.Path, segmentation: Any, message: str) -> None:
    ann = make_annotation(7, 1, segmentation=segmentation)
    if segmentation is None:
        del ann["segmentation"]
    dataset = CocoDetection(*write_coco(tmp_path, [(1, SIZE)], [ann]))
    dataset = wrap_dataset_for_transforms_v2(dataset, target_keys="all")
    with pytest.raises(ValueError, match=message) as info:
        dataset[0]
    assert "annotation id=7" in str(info.value)


@pytest.mark.parametrize(
    ("target_keys", "message"),
    [
        ({"boxes", "nope"}, r"\['nope'\] are not available; valid keys: \['area', 'bbox'"),
        ("boxes", "collection of strings"),
        ([1, 2], "only strings"),
        (3, "collection of strings"),
    ],
)
def test_bad_target_keys(coco: CocoDetection, target_keys: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        wrap_dataset_for_transforms_v2(coco, target_keys=target_keys)


# ------------------------------------------------------------------------------------ the wrapper
def test_wrapped_is_an_instance_and_forwards_attributes(coco: CocoDetection) -> None:
    wrapped = wrap_dataset_for_transforms_v2(coco)
    assert isinstance(wrapped, CocoDetection) and type(wrapped).__name__ == "WrappedCocoDetection"
    assert len(wrapped) == 2 and wrapped.ids == [1, 2] and wrapped.coco is coco.coco
    assert type(wrap_dataset_for_transforms_v2(coco)) is type(wrapped)


def test_transforms_run_after_conversion_and_the_user_dataset_is_untouched(tmp_path: pathlib.Path) -> None:
    seen = []

    def transforms(image: Any, target: Any) -> tuple[Any, Any]:
        seen.append(type(target["boxes"]))
        return image, target

    dataset = CocoDetection(*write_coco(tmp_path, [(1, SIZE)], [make_annotation(1, 1)]), transforms=transforms)
    wrapped = wrap_dataset_for_transforms_v2(dataset)
    wrapped[0]
    assert seen == [BoundingBox]
    assert dataset.transforms is transforms and wrapped.transforms is transforms
    with pytest.raises(TypeError):  # the user's dataset still runs its transforms on the raw list
        dataset[0]


def test_separate_transforms_are_taken_over(tmp_path: pathlib.Path) -> None:
    paths = write_coco(tmp_path, [(1, SIZE)], [make_annotation(1, 1)])
    dataset = CocoDetection(*paths, transform=lambda image: image.size, target_transform=lambda t: t["boxes"])
    size, boxes = wrap_dataset_for_transforms_v2(dataset)[0]
    assert size == (SIZE[1], SIZE[0]) and isinstance(boxes, BoundingBox)


def test_visiontx_pipeline_flips_boxes_and_masks_together(coco: CocoDetection) -> None:
    coco.transforms = T.Compose([T.ToImageTensor(), T.RandomHorizontalFlip(p=1.0)])
    image, target = wrap_dataset_for_transforms_v2(coco, target_keys={"boxes", "masks"})[0]
    masks, boxes = target["masks"].as_subclass(torch.Tensor), target["boxes"]
    assert torch.equal(masks[1], torch.from_numpy(_mask_array()).flip(-1))
    assert boxes[1].tolist() == [SIZE[1] - 19.0, 4.0, SIZE[1] - 6.0, 11.0]


def test_pickle_round_trip(coco: CocoDetection) -> None:
    coco.transforms = T.RandomHorizontalFlip(p=1.0)
    wrapped = wrap_dataset_for_transforms_v2(coco, target_keys={"boxes"})
    restored = pickle.loads(pickle.dumps(wrapped))
    assert type(restored) is type(wrapped) and isinstance(restored.transforms, T.RandomHorizontalFlip)
    assert restored._dataset.transforms is None and coco.transforms is not None
    assert torch.equal(restored[0][1]["boxes"], wrapped[0][1]["boxes"])


@pytest.mark.parametrize("context", [None, "spawn"])
def test_dataloader_workers(context: str | None) -> None:
    dataset = CocoDetection(SAMPLE_ROOT, SAMPLE_ANN, transforms=T.RandomHorizontalFlip(p=1.0))
    wrapped = wrap_dataset_for_transforms_v2(dataset, target_keys={"boxes", "labels", "masks"})
    loader = torch.utils.data.DataLoader(
        torch.utils.data.ConcatDataset([wrapped] * 2),
        batch_size=2,
        num_workers=2,
        collate_fn=collate_tuples,
        multiprocessing_context=context,
    )
    images, targets = next(iter(loader))
    assert len(images) == 2 and isinstance(targets[0]["boxes"], BoundingBox)
    assert torch.equal(targets[1]["boxes"], wrapped[0][1]["boxes"])


# ---------------------------------------------------------------------------------------- errors
class _Plain(torch.utils.data.Dataset):
    def __getitem__(self, index: int) -> int:
        return index

    def __len__(self) -> int:
        return 1


def test_unsupported_dataset_explains_wrapping_by_hand() -> None:
    with pytest.raises(TypeError, match="no wrapper for dataset class _Plain.*by hand"):
        wrap_dataset_for_transforms_v2(_Plain())


def test_already_wrapped(coco: CocoDetection) -> None:
    with pytest.raises(TypeError, match="already wrapped"):
        wrap_dataset_for_transforms_v2(wrap_dataset_for_transforms_v2(coco))


class _Registered(_Plain):
    pass


register_wrapper(_Registered)(lambda dataset, target_keys: lambda index, sample: sample * 10)


def test_registered_wrapper_without_target_keys() -> None:
    wrapped = wrap_dataset_for_transforms_v2(_Registered())
    assert wrapped[0] == 0 and isinstance(wrapped, _Registered)
    with pytest.raises(ValueError, match="target_keys is not supported for _Registered"):
        wrap_dataset_for_transforms_v2(_Registered(), target_keys="all")


def test_wrapping_visiontx_datasets_does_not_import_torchvision() -> None:
    code = (
        "import sys; from visiontx.datasets import CocoDetection, wrap_dataset_for_transforms_v2 as w; "
        f"w(CocoDetection({str(SAMPLE_ROOT)!r}, {str(SAMPLE_ANN)!r}))[0]; "
        "assert 'torchvision' not in sys.modules, 'torchvision imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -------------------------------------------------------------------------------------- properties
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_rle_round_trip(tmp_path: pathlib.Path, height: int, width: int, seed: int) -> None:
    array = (np.random.default_rng(seed).random((height, width)) > 0.5).astype(np.uint8)
    anns = [
        make_annotation(1, 1, segmentation=_uncompressed_rle(array)),
        make_annotation(2, 1, segmentation=_compressed_rle(array)),
    ]
    dataset = CocoDetection(*write_coco(tmp_path / str(seed), [(1, (height, width))], anns))
    masks = wrap_dataset_for_transforms_v2(dataset, target_keys={"masks"})[0][1]["masks"].as_subclass(torch.Tensor)
    assert torch.equal(masks, torch.from_numpy(array).expand(2, height, width))
