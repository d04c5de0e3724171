"""Misc transforms: Normalize, LinearTransformation, GaussianBlur, GaussianNoise, UniformTemporalSubsample."""

from __future__ import annotations

import collections
import contextlib
import pickle
import re
import warnings
from typing import Any

import numpy as np
import PIL.Image
import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import BoundingBox, Image, Mask, Video
from visiontx.functional import _cv2

from .common import (
    DEFAULT_SIZE,
    Case,
    assert_equal,
    make_bounding_box,
    make_image,
    make_image_pil,
    make_mask,
    make_video,
)

_D = 3 * DEFAULT_SIZE[0] * DEFAULT_SIZE[1]
NOT_PIL = (torch.Tensor, Image, Video, Mask, BoundingBox)

TRANSFORM_CASES = {
    T.Normalize: [Case(dict(mean=[0.5], std=[0.5]), types=(Mask, BoundingBox))],
    T.LinearTransformation: [
        Case(dict(transformation_matrix=torch.eye(_D) * 0.5, mean_vector=torch.full((_D,), 0.25)), types=NOT_PIL)
    ],
    T.GaussianBlur: [dict(kernel_size=3), dict(kernel_size=(5, 3), sigma=0.7)],
    T.GaussianNoise: [Case(dict(sigma=0.2), types=NOT_PIL), Case(dict(mean=0.3, sigma=0.0, clip=False), types=NOT_PIL)],
    T.UniformTemporalSubsample: [Case(dict(num_samples=2), types=(Image, PIL.Image.Image, Video, Mask, BoundingBox))],
}


# ------------------------------------------------------------------------------------------ Normalize
def test_normalize_transform_matches_functional_and_torchvision() -> None:
    image = make_image(dtype=torch.float32)
    transform = T.Normalize(mean=[0.1, 0.2, 0.3], std=[0.3, 0.2, 0.1])
    out = transform(image)
    assert type(out) is Image
    assert_equal(out, F.normalize(image, [0.1, 0.2, 0.3], [0.3, 0.2, 0.1]))
    tv = pytest.importorskip("torchvision.transforms.v2")
    assert_equal(out, tv.Normalize(mean=[0.1, 0.2, 0.3], std=[0.3, 0.2, 0.1])(image.as_subclass(torch.Tensor)))


def test_normalize_transform_keeps_masks_and_boxes() -> None:
    image, mask, boxes = make_image(dtype=torch.float32), make_mask(), make_bounding_box()
    out_image, out_mask, out_boxes = T.Normalize([0.5], [0.5])(image, mask, boxes)
    assert out_mask is mask and out_boxes is boxes
    assert_equal(out_image, image * 2 - 1, atol=1e-6)


def test_normalize_transform_errors() -> None:
    with pytest.raises(TypeError, match="PIL"):
        T.Normalize([0.5], [0.5])(make_image_pil())
    with pytest.raises(TypeError, match="float"):
        T.Normalize([0.5], [0.5])(make_image())
    with pytest.raises(ValueError, match="std"):
        T.Normalize([0.5, 0.5], [0.5, 0.0])


def _stage_calls(monkeypatch: pytest.MonkeyPatch) -> collections.Counter:
    """Count, over the ToDtype + Normalize stages of Compose calls, the images converted and normalised
    through tables ("table") and those Normalize writes into in place ("in place"); the others are copies."""
    from visiontx.transforms import _dtype
    from visiontx.transforms._misc import _normalize

    seen: collections.Counter = collections.Counter()
    scaled, owned = _dtype.scaled_normalize, _normalize.NormalizeOwnImages._owned_images

    def table(*args: Any) -> Any:
        seen["table"] += 1
        return scaled(*args)

    def in_place(self: Any, *args: Any) -> frozenset[int]:
        ids = owned(self, *args)
        if ids:
            seen["in place"] += len(ids)
        return ids

    monkeypatch.setattr(_dtype, "scaled_normalize", table)  # ToDtype's, in the stage's general path
    monkeypatch.setattr(_normalize, "scaled_normalize", table)  # the stage's own, for a lone image
    monkeypatch.setattr(_normalize.NormalizeOwnImages, "_owned_images", in_place)
    return seen


def _to_float_and_normalize(**kwargs: Any) -> T.Compose:
    return T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize([0.4, 0.5, 0.6], [0.2, 0.3, 0.4])], **kwargs)


@pytest.mark.parametrize("wing", [True, False])
def test_normalize_after_to_dtype_writes_in_place_into_its_own_images(
    wing: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a Compose, Normalize right after ToDtype: uint8 images go through one table per channel (with the
    OpenCV wing), the others are normalised in place in the memory ToDtype made; the values are those of
    the two transforms called one after the other, bit for bit, and the inputs stay untouched."""
    steps = _to_float_and_normalize().transforms
    image, mask, boxes = make_image(batch_dims=(2,)), make_mask(), make_bounding_box()
    samples = [
        image,
        image.as_subclass(torch.Tensor),
        (image, {"masks": mask, "boxes": boxes, "labels": torch.tensor([1, 2])}),
        {"a": image, "b": image.clone()},
        (image, image),
        make_video(),
    ]
    expected = [steps[1](steps[0](sample)) for sample in samples]
    seen = _stage_calls(monkeypatch)
    with contextlib.nullcontext() if wing else _cv2.disabled():
        for sample, reference in zip(samples, expected):
            before = [leaf.clone() for leaf in torch.utils._pytree.tree_leaves(sample)]
            for fuse in (False, True):
                assert_equal(_to_float_and_normalize(fuse_geometry=fuse)(sample), reference)
            assert all(torch.equal(a, b) for a, b in zip(before, torch.utils._pytree.tree_leaves(sample)))
    assert seen == {"table" if wing else "in place": 2 * 8}  # 8 images and videos in the samples, 2 calls each
    pipeline = _to_float_and_normalize()
    out, record = pipeline.record(image)  # a node per transform, as without the joined stage
    assert [node["transform"] for node in record["steps"]] == ["ToDtype", "Normalize"]
    assert_equal(pipeline.replay(image, record=record), out)
    assert_equal(out, pipeline(image))


def test_normalize_after_to_dtype_keeps_memory_it_does_not_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Images a ToDtype hands on as they are (its dtype None for them) and a hook on Normalize: a copy."""
    seen = _stage_calls(monkeypatch)
    image = make_image(dtype=torch.float32)
    before = image.clone()
    keep_images = T.Compose([T.ToDtype({Image: None, "others": None}), T.Normalize([0.4, 0.5, 0.6], [0.2, 0.3, 0.4])])
    for sample in (image, (image, make_mask()), {"image": image, "boxes": make_bounding_box()}):
        keep_images(sample)
        assert torch.equal(image, before)
    assert not seen
    pipeline, kept = _to_float_and_normalize(), []
    pipeline.transforms[1].register_forward_hook(lambda module, args, output: kept.append(args[0]))
    uint8 = make_image()
    pipeline(uint8)
    assert torch.equal(kept[-1], F.to_dtype(uint8, torch.float32, scale=True))  # what the hook saw stays as it was
    assert not seen


class _CachingImage(Image):
    """An Image subclass whose (user) to_dtype kernel returns memory it keeps, and whose normalize kernel
    reports the ``inplace`` it was given."""


_KEPT: dict[str, Any] = {}


@F.register_kernel(F.to_dtype, _CachingImage)
def _cached_to_dtype(inpt: Any, dtype: torch.dtype = torch.float32, scale: bool = False) -> Any:
    if "float" not in _KEPT:
        _KEPT["float"] = _CachingImage(F.to_dtype(inpt.as_subclass(torch.Tensor), dtype, scale=scale))
    return _KEPT["float"]


@F.register_kernel(F.normalize, _CachingImage)
def _reporting_normalize(inpt: Any, mean: Any, std: Any, inplace: bool = False) -> Any:
    _KEPT.setdefault("inplace", []).append(inplace)
    return _CachingImage(F.normalize(inpt.as_subclass(torch.Tensor), mean, std, inplace=inplace))


def test_normalize_after_to_dtype_leaves_user_kernels_and_instance_hooks_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory a user kernel keeps, what an instance-level hook keeps, and user kernels' own ``inplace``
    argument stay as in the sequential calls."""
    seen = _stage_calls(monkeypatch)
    _KEPT.clear()
    cached = _CachingImage(make_image().as_subclass(torch.Tensor))
    pipeline = _to_float_and_normalize()
    first = pipeline(cached)
    kept = _KEPT["float"].clone()
    assert_equal(pipeline(cached), first)
    assert torch.equal(_KEPT["float"], kept) and _KEPT["inplace"] == [False, False]
    pipeline, seen_by_hook = _to_float_and_normalize(), []
    pipeline.transforms[1].check_inputs = lambda flat: seen_by_hook.extend(flat)
    uint8 = make_image()
    pipeline(uint8)
    assert torch.equal(seen_by_hook[0], F.to_dtype(uint8, torch.float32, scale=True))
    assert not seen


def test_normalize_after_to_dtype_under_vmap_and_torchvision_tensors() -> None:
    """torch.func's wrappers have no storage to read: the stage copies; torchvision's tensors come back as
    the sequential calls give them, their inputs untouched."""
    batch = make_image(batch_dims=(4,)).as_subclass(torch.Tensor)
    pipeline = _to_float_and_normalize()
    steps = pipeline.transforms
    assert_equal(torch.func.vmap(pipeline)(batch), steps[1](steps[0](batch)))
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    image = tv_tensors.Image(make_image().as_subclass(torch.Tensor))
    before = image.clone()
    out = pipeline(image)
    assert type(out) is tv_tensors.Image and torch.equal(image, before)
    assert_equal(out, steps[1](steps[0](image)))


@pytest.mark.skipif(not _cv2.available(), reason="OpenCV not installed")
@pytest.mark.parametrize(
    ("mean", "std"),
    [
        ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ([0.5], [0.25]),
        ([0, -0.0, 1], [1, 3, 7]),  # ints, a negative zero
        ([12.5, -3.0, 0.1], [1e-3, 250.0, 0.3]),
    ],
)
def test_to_dtype_then_normalize_tables_are_bit_exact(mean: list, std: list, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-pass tables give exactly the sequential transforms' values and strides: batches, one channel
    with one value, crops (row-strided views), videos. Channels-last images (whose layout the kernels
    keep) take the kernels (normalised in place)."""
    torch.manual_seed(0)
    pipeline = T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize(mean, std)])
    steps = pipeline.transforms
    full = Image(torch.randint(0, 256, (2, 3, 37, 53), dtype=torch.uint8))
    full[:, :, :8, :32] = torch.arange(256, dtype=torch.uint8).view(8, 32)  # every value in every channel
    tabled = [full, full[..., 3:30, 7:50], full[1, :, 5:], make_video()]
    if len(mean) == 1:
        tabled.append(make_image(batch_dims=(2,))[:, :1])
    channels_last = [Image(full[0].permute(1, 2, 0).contiguous().permute(2, 0, 1)),
                     full.as_subclass(torch.Tensor).contiguous(memory_format=torch.channels_last)]
    expected = [steps[1](steps[0](image)) for image in tabled + channels_last]
    seen = _stage_calls(monkeypatch)
    for image, reference in zip(tabled + channels_last, expected):
        out = pipeline(image)
        assert type(out) is type(image) and out.dtype == torch.float32 and out.stride() == reference.stride()
        assert_equal(out, reference)
    assert seen == {"table": len(tabled), "in place": len(channels_last)}


class _NestingImage(Image):
    """An Image subclass whose (user) to_dtype kernel runs a pipeline of its own on another image."""


_NESTED: dict[str, Any] = {}


@F.register_kernel(F.to_dtype, _NestingImage)
def _nesting_to_dtype(inpt: Any, dtype: torch.dtype = torch.float32, scale: bool = False) -> Any:
    inner = T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize(_NESTED["mean"], [0.9, 0.8, 0.7])])
    _NESTED["inner"] = inner(_NESTED["image"])
    _NESTED["plain"] = T.ToDtype(torch.float32, scale=True)(_NESTED["image"])
    return _NestingImage(F.to_dtype(inpt.as_subclass(torch.Tensor), dtype, scale=scale))


@pytest.mark.parametrize("nesting_first", [False, True])
def test_to_dtype_then_normalize_stages_nest(nesting_first: bool) -> None:
    """A stage, or a lone ToDtype, run inside another stage's ToDtype (a user kernel) on an image of the
    outer sample sees none of the outer stage's tables or ownership, and the outer stage's come back
    after it: everything gives the sequential calls' values."""
    image = make_image()
    _NESTED.update(image=image, mean=(np.float32(0.1), 0.2, 0.3))  # a numpy mean: no tables for the inner stage
    nesting = _NestingImage(make_image().as_subclass(torch.Tensor))
    sample = (nesting, image) if nesting_first else (image, nesting)
    outer = _to_float_and_normalize()
    out = outer(sample)
    steps = outer.transforms
    assert_equal(out[1 if nesting_first else 0], steps[1](steps[0](image)))
    scaled = F.to_dtype(image, torch.float32, scale=True)
    assert_equal(_NESTED["inner"], T.Normalize(_NESTED["mean"], [0.9, 0.8, 0.7])(scaled))
    assert_equal(_NESTED["plain"], scaled)


class _OpLog(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


def test_to_dtype_then_normalize_stage_steps_aside(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stage runs the two transforms as they are where something could tell: a dispatch mode sees the
    sequential calls' ops, a method patched onto Normalize's class does what it would there, and values
    the kernels refuse raise the sequential calls' error."""
    pipeline, image = _to_float_and_normalize(), make_image()
    steps = pipeline.transforms
    with _OpLog() as joined:
        out = pipeline(image)
    with _OpLog() as sequential:
        expected = steps[1](steps[0](image))
    assert joined.ops == sequential.ops
    assert_equal(out, expected)
    monkeypatch.setattr(T.Normalize, "transform", lambda self, inpt, params: F.normalize(inpt, self.mean, self.std)
                        if isinstance(inpt, (Image, Video)) else inpt)
    assert_equal(pipeline(image), steps[1](steps[0](image)))  # normalised once
    monkeypatch.undo()
    for dtype, mean in [({Image: None, "others": None}, [10**400, 0.5, 0.5]), (torch.float32, [10**400, 0.5, 0.5]),
                        (torch.float32, [0.5, 0.5])]:
        refusing = T.Compose([T.ToDtype(dtype, scale=True), T.Normalize(mean, [1, 1, 1])])
        with pytest.raises(Exception) as sequential_error:
            refusing.transforms[1](refusing.transforms[0](image))
        with pytest.raises(sequential_error.type, match=re.escape(str(sequential_error.value))):
            refusing(image)


def test_to_dtype_then_normalize_stage_state_is_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrapper patched onto ToDtype's class sees what ToDtype alone gives (the stage stands aside), and an
    error in the middle of a stage leaves no per-thread state behind."""
    from visiontx.transforms import _dtype

    pipeline, image = _to_float_and_normalize(), make_image()
    seen: list[Any] = []
    forward = T.ToDtype.forward
    monkeypatch.setattr(T.ToDtype, "forward", lambda self, *inputs: seen.append(forward(self, *inputs)) or seen[-1])
    pipeline(image)
    assert_equal(seen[0], F.to_dtype(image, torch.float32, scale=True))
    monkeypatch.undo()
    with pytest.raises(TypeError, match="PIL"):
        pipeline(image, make_image_pil())
    state = _dtype.stage_state
    assert state.to_dtype is None and not state.tables
    assert state.normalize is None and not state.made and not state.owned


@pytest.mark.skipif(not _cv2.available(), reason="OpenCV not installed")
def test_to_dtype_then_normalize_tables_avoid_subnormals() -> None:
    """No tables where a subnormal shows up (``torch.set_flush_denormal`` would change it): a tiny mean or
    std, or results that small; the kernels then give what flushing gives."""
    from visiontx.functional._misc._normalize import scaled_normalize_tables

    assert scaled_normalize_tables([0.0], [1e37], 1) is None  # results down to ~4e-40
    assert scaled_normalize_tables([1e-40], [1.0], 1) is None
    assert scaled_normalize_tables([0.5], [1e-40], 1) is None
    assert scaled_normalize_tables([0.0], [1e30], 1) is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a mean beyond float32 is inf for the kernels too: no numpy warning
        assert scaled_normalize_tables([1e39], [1.0], 1) is not None
    pipeline = T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize([0.0], [1e37])])
    image = make_image()
    if not torch.set_flush_denormal(True):
        pytest.skip("this CPU cannot flush subnormals")
    try:
        flushed, expected = pipeline(image), pipeline.transforms[1](pipeline.transforms[0](image))
    finally:
        torch.set_flush_denormal(False)
    assert torch.equal(flushed.view(torch.int32), expected.view(torch.int32))
    torch.set_flush_denormal(True)  # tables built while flushing are not kept for later calls without it
    try:
        assert scaled_normalize_tables([0.25], [1e37], 1) is None
    finally:
        torch.set_flush_denormal(False)
    later = T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize([0.25], [1e37])])
    expected = later.transforms[1](later.transforms[0](image))
    assert torch.equal(later(image).view(torch.int32), expected.view(torch.int32))


@pytest.mark.skipif(not _cv2.available(), reason="OpenCV not installed")
def test_opencv_lookup_tables_leave_sides_over_int_range_to_torch() -> None:
    """OpenCV counts a matrix's rows and columns in ints: a plane side of 2^31 or more (its lookup tables
    write nothing there, silently) takes the torch path, as the wing's shared gate says."""
    wide = torch.zeros(1, 1, 1, dtype=torch.uint8).expand(1, 1, 2**31 + 8)  # no memory behind it
    assert not _cv2.can_use(wide)
    assert not _cv2.can_use(torch.zeros(1, 1, 1, dtype=torch.uint8).expand(1, 2**31 + 8, 1))  # as tall
    assert not _cv2.can_lut_planes(wide, np.zeros((1, 256), dtype=np.float32))
    assert not _cv2.can_lut_planes(wide, torch.zeros(1, 256, dtype=torch.uint8))
    assert not _cv2.can_lut(wide, torch.zeros(256, dtype=torch.uint8))
    assert _cv2.can_lut_planes(wide[..., :8].contiguous(), np.zeros((1, 256), dtype=np.float32))


def test_to_dtype_then_normalize_tables_only_for_plain_numbers() -> None:
    """Tables only for one or C Python numbers (std non-zero); other means and stds take the two kernels,
    which give their own errors."""
    from visiontx.functional._misc._normalize import scaled_normalize_tables

    assert scaled_normalize_tables([0.5, 0.5], [0.5], 3) is None
    assert scaled_normalize_tables([0.5], [0.0], 1) is None
    assert scaled_normalize_tables([torch.tensor(0.5)], [0.5], 3) is None
    assert scaled_normalize_tables((0.5,), (0.5, 0.25, 1.0), 3).tables.shape == (3, 256)
    with pytest.raises(ValueError, match="mean"):
        T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize([0.5, 0.5], [0.5])])(make_image())


# ------------------------------------------------------------------------------- LinearTransformation
def test_linear_transformation_matches_loop_reference_and_torchvision() -> None:
    torch.manual_seed(0)
    image = make_image((4, 5), dtype=torch.float32, batch_dims=(2,))
    d = 3 * 4 * 5
    matrix, mean = torch.randn(d, d), torch.randn(d)
    out = T.LinearTransformation(matrix, mean)(image)
    assert type(out) is Image and out.shape == image.shape
    for k in range(2):
        expected = (image[k].reshape(-1) - mean) @ matrix
        assert_equal(out[k].reshape(-1), expected, atol=1e-4, rtol=1e-5)
    tv = pytest.importorskip("torchvision.transforms.v2")
    assert_equal(out, tv.LinearTransformation(matrix, mean)(image.as_subclass(torch.Tensor)), atol=1e-5, rtol=1e-5)


def test_linear_transformation_errors() -> None:
    with pytest.raises(ValueError, match="square"):
        T.LinearTransformation(torch.eye(3)[:2], torch.zeros(2))
    with pytest.raises(ValueError, match="mean_vector"):
        T.LinearTransformation(torch.eye(3), torch.zeros(2))
    with pytest.raises(ValueError, match="dtype"):
        T.LinearTransformation(torch.eye(3), torch.zeros(3, dtype=torch.float64))
    with pytest.raises(TypeError, match="tensors"):
        T.LinearTransformation([[1.0]], torch.zeros(1))
    with pytest.raises(TypeError, match="PIL"):
        T.LinearTransformation(torch.eye(3), torch.zeros(3))(make_image_pil())
    with pytest.raises(ValueError, match="values"):
        T.LinearTransformation(torch.eye(3), torch.zeros(3))(make_image(dtype=torch.float32))


# ------------------------------------------------------------------------------------- GaussianBlur
def test_gaussian_blur_transform_same_sigma_for_the_sample_and_matches_torchvision() -> None:
    image, video = make_image(), make_video()
    torch.manual_seed(5)
    out_image, out_video = T.GaussianBlur(5, sigma=(0.5, 3.0))(image, video)
    torch.manual_seed(5)
    sigma = torch.empty(1).uniform_(0.5, 3.0).item()
    assert_equal(out_image, F.gaussian_blur(image, 5, sigma))
    assert_equal(out_video, F.gaussian_blur(video, 5, sigma))
    tv = pytest.importorskip("torchvision.transforms.v2")
    torch.manual_seed(5)
    assert_equal(out_image, tv.GaussianBlur(5, sigma=(0.5, 3.0))(image.as_subclass(torch.Tensor)), atol=1)


def test_gaussian_blur_transform_passes_masks_and_boxes() -> None:
    mask, boxes = make_mask(), make_bounding_box()
    _, out_mask, out_boxes = T.GaussianBlur(3)(make_image(), mask, boxes)
    assert out_mask is mask and out_boxes is boxes


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        (dict(kernel_size=4), ValueError),
        (dict(kernel_size=(3, 3, 3)), TypeError),
        (dict(kernel_size=3, sigma=0.0), ValueError),
        (dict(kernel_size=3, sigma=(2.0, 1.0)), ValueError),
        (dict(kernel_size=3, sigma=(1.0, 2.0, 3.0)), TypeError),
    ],
)
def test_gaussian_blur_transform_errors(kwargs, error) -> None:
    with pytest.raises(error, match="kernel_size|sigma"):
        T.GaussianBlur(**kwargs)


# ------------------------------------------------------------------------------------ GaussianNoise
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_gaussian_noise_transform_matches_torchvision(dtype) -> None:
    tv = pytest.importorskip("torchvision.transforms.v2")
    image = make_image(dtype=dtype).as_subclass(torch.Tensor)
    torch.manual_seed(1)
    expected = tv.GaussianNoise(mean=0.1, sigma=0.3)(image)
    torch.manual_seed(1)
    assert_equal(T.GaussianNoise(mean=0.1, sigma=0.3)(image), expected)


def test_gaussian_noise_transform_errors() -> None:
    with pytest.raises(ValueError, match="sigma"):
        T.GaussianNoise(sigma=-1.0)
    with pytest.raises(TypeError, match="mean"):
        T.GaussianNoise(mean="a")
    with pytest.raises(TypeError, match="PIL"):
        T.GaussianNoise()(make_image_pil())


# ------------------------------------------------------------------------------- UniformTemporalSubsample
def test_uniform_temporal_subsample_transform() -> None:
    video = make_video(num_frames=6)
    image = make_image()
    out_video, out_image = T.UniformTemporalSubsample(3)(video, image)
    assert type(out_video) is Video and out_video.shape[0] == 3 and out_image is image
    assert_equal(out_video, video[[0, 2, 5]])
    plain = T.UniformTemporalSubsample(2)(torch.zeros(2, 5, 3, 4, 4))
    assert plain.shape == (2, 2, 3, 4, 4)
    with pytest.raises(ValueError, match="num_samples"):
        T.UniformTemporalSubsample(0)


def test_misc_transforms_pickle() -> None:
    for transform in [T.Normalize([0.5], [0.5]), T.GaussianBlur(3), T.GaussianNoise(), T.UniformTemporalSubsample(4)]:
        assert repr(pickle.loads(pickle.dumps(transform))) == repr(transform)
