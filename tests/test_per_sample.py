"""T.PerSample: every sample of a batch gets its own draw, and equals the single transform applied to
it alone with those parameters (``record.params(i)``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import torch

import visiontx.functional as F
import visiontx.transforms as T
from visiontx.datapoints import Image, KeyPoints, Mask, Video
from visiontx.functional import _cv2
from visiontx.transforms._fusion import apply_run
from visiontx.transforms._per_sample import is_vectorised
from visiontx.transforms._per_sample._batch import Batch
from visiontx.transforms._per_sample._core import Context, batched_for
from visiontx.transforms._transform import flatten_sample

from .common import CUDA_AVAILABLE, assert_equal, make_bounding_box, make_image_tensor, make_mask

COVERED = {"PerSample"}
B = 8
SIZE = (17, 23)


def _batch(dtype: torch.dtype = torch.uint8, size: tuple[int, int] = SIZE, device: str = "cpu") -> Image:
    return Image(make_image_tensor(size, batch_dims=(B,), dtype=dtype, device=device, seed=3))


def apply_params(transform: Any, sample: Any, params: Any) -> Any:
    """``transform`` on one sample with given parameters (containers: their children's, as recorded)."""
    if isinstance(transform, T.Compose):
        for child, child_params in zip(transform.transforms, params):
            sample = apply_params(child, sample, child_params)
        return sample
    if isinstance(transform, T.RandomApply):
        return sample if params is None else apply_params(T.Compose(transform.transforms), sample, params)
    if isinstance(transform, T.RandomChoice):
        index, child_params = params
        return apply_params(transform.transforms[index], sample, child_params)
    if isinstance(transform, T.RandomOrder):
        for index, child_params in params:
            sample = apply_params(transform.transforms[index], sample, child_params)
        return sample
    if params is None:  # the coin of p skipped this sample
        return sample
    flat, rebuild = flatten_sample(sample)
    needs = transform._needs_transform_list(flat)
    return rebuild([transform.transform(x, params) if need else x for x, need in zip(flat, needs)])


def _sample(leaf: torch.Tensor, i: int) -> torch.Tensor:
    if isinstance(leaf, Image | Video | Mask):
        return type(leaf).wrap_like(leaf, leaf.as_subclass(torch.Tensor)[i])
    return leaf[i]


def check_per_sample(transform: Any, batch: torch.Tensor, atol: float = 0) -> Any:
    """Sample i of PerSample(transform)(batch) equals transform on sample i with its recorded params."""
    torch.manual_seed(0)
    original = batch.clone()
    output, record = T.PerSample(transform).forward_with_params(batch)
    assert_equal(batch, original)  # the input is not mutated
    assert output.shape[0] == B
    for i in range(B):
        expected = apply_params(transform, _sample(batch, i), record.params(i))
        actual = output[i]
        assert actual.shape == expected.shape, (i, actual.shape, expected.shape)
        diff = (actual.double() - expected.as_subclass(torch.Tensor).double()).abs()
        assert diff.max() <= atol, f"{transform}: sample {i} differs by {diff.max()}"
    return record


LINEAR = torch.eye(3 * 6 * 5)
UINT8_ONLY = T.RandomPosterize | T.JPEG | T.RandomEqualize | T.RandomSolarize
EVERY_TRANSFORM = [
    # vectorised: colour
    (T.ColorJitter(0.4, 0.4, 0.4, 0.1), 0),
    (T.ColorJitter(brightness=0.5, saturation=0.5), 0),
    (T.RandomGrayscale(p=0.5), 0),
    (T.Grayscale(3), 0),
    (T.RGB(), 0),
    (T.RandomInvert(), 0),
    (T.RandomSolarize(128), 0),
    (T.RandomPosterize(3), 0),
    (T.RandomAutocontrast(), 0),
    (T.RandomEqualize(), 0),
    (T.RandomAdjustSharpness(2.0), 0),
    # vectorised: geometry
    (T.RandomHorizontalFlip(), 0),
    (T.RandomVerticalFlip(p=0.3), 0),
    (T.RandomResizedCrop((20, 25)), 1),
    (T.RandomResizedCrop(12), 1),  # shrinking crops loop (antialias)
    (T.RandomAffine(20, translate=(0.2, 0.1), scale=(0.8, 1.2), shear=(-5, 5, -5, 5)), 0),
    (T.RandomAffine(10, interpolation="bilinear", fill=7), 1),
    (T.RandomRotation(40), 0),
    (T.RandomRotation(40, interpolation="bilinear", center=(3, 4)), 1),
    (T.RandomPerspective(p=0.7), 1),
    (T.RandomCrop(12, padding=3, fill=9), 0),
    (T.RandomCrop((20, 26), pad_if_needed=True), 0),
    (T.RandomCrop(12, padding=2, padding_mode="reflect"), 0),
    (T.CenterCrop(10), 0),
    (T.Resize((9, 13)), 0),
    (T.Pad(2, fill=3), 0),
    # vectorised: misc
    (T.GaussianBlur(3), 0),
    (T.GaussianBlur((5, 3), sigma=(0.5, 3.0)), 0),
    (T.RandomErasing(p=0.6), 0),
    (T.RandomErasing(p=1.0, value="random"), 0),
    (T.RandomErasing(p=1.0, value=(10, 20, 30), scale=(0.5, 0.9)), 0),
    (T.ElasticTransform(alpha=20.0), 0),
    (T.ElasticTransform(alpha=30.0, interpolation="nearest", fill=5), 0),
    (T.RandomPhotometricDistort(p=0.5), 0),
    # the rest: the loop
    (T.RandomChannelPermutation(), 0),
    (T.JPEG((40, 90)), 0),
    (T.AutoAugment(), 0),
    (T.RandAugment(), 0),
    (T.TrivialAugmentWide(), 0),
    (T.AugMix(), 0),
    (T.Identity(), 0),
    (T.Lambda(lambda x: x.flip(-1) if isinstance(x, torch.Tensor) else x), 0),
    (T.ToDtype(torch.float32, scale=True), 0),
    (T.ConvertDtype(torch.float32), 0),
    (T.ToPureTensor(), 0),
    (T.ClampBoundingBox(), 0),
    (T.ConvertBoundingBoxFormat("CXCYWH"), 0),
    # containers
    (T.Compose([T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.RandomResizedCrop((20, 25)), T.RandomHorizontalFlip()]), 1),
    (T.RandomApply([T.RandomAffine(10), T.RandomInvert(p=1.0)], p=0.5), 0),
    (T.RandomChoice([T.RandomRotation(10), T.RandomHorizontalFlip(p=1.0), T.RandomPosterize(2)]), 0),
    (T.RandomOrder([T.RandomInvert(), T.RandomAffine(10), T.ColorJitter(0.5)]), 0),
    (T.RandomOrder([T.GaussianBlur(3), T.RandomInvert()]), 0),  # a looping child: the whole order loops
]


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize(
    ("transform", "atol"), EVERY_TRANSFORM, ids=lambda v: str(v) if isinstance(v, int | float) else type(v).__name__
)
def test_sample_i_is_the_transform_on_sample_i(transform: Any, atol: float, dtype: torch.dtype) -> None:
    if dtype == torch.float32 and isinstance(transform, UINT8_ONLY):
        pytest.skip("uint8-only op")
    tolerance = atol if dtype == torch.uint8 else atol * 1e-5 + 1e-6
    with _cv2.disabled():  # both sides on the torch kernels: the batched maths are theirs
        check_per_sample(transform, _batch(dtype), atol=tolerance)


def test_normalize_and_linear_transformation() -> None:
    batch = _batch(torch.float32)
    check_per_sample(T.Normalize([0.5, 0.4, 0.3], [0.2, 0.3, 0.4]), batch, atol=1e-6)
    small = Image(make_image_tensor((6, 5), batch_dims=(B,), dtype=torch.float32))
    check_per_sample(T.LinearTransformation(LINEAR, torch.zeros(90)), small, atol=1e-6)


def test_with_the_opencv_wing_samples_agree_within_its_rounding() -> None:
    """With OpenCV on, the single transforms take its fixed-point paths (off by one here and there)."""
    pipeline = T.Compose([T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.RandomResizedCrop((20, 25)), T.RandomAffine(10)])
    check_per_sample(pipeline, _batch(torch.uint8), atol=1)
    check_per_sample(pipeline, _batch(torch.float32), atol=2e-2)


@pytest.mark.parametrize(
    "transform",
    [T.RandomAffine(30, translate=(0.2, 0.2)), T.RandomResizedCrop(16), T.ColorJitter(0.5, 0.5, 0.5, 0.2),
     T.RandomPerspective(p=1.0), T.RandomRotation(90), T.RandomCrop(9), T.GaussianBlur(5), T.RandomErasing(p=1.0),
     T.ElasticTransform(), T.RandomPhotometricDistort(p=1.0)],
    ids=lambda t: type(t).__name__,
)
def test_every_sample_gets_its_own_draw(transform: Any) -> None:
    torch.manual_seed(1)
    _, record = T.PerSample(transform).forward_with_params(_batch(size=(64, 64)))
    params = [repr(record.params(i)) for i in range(B)]
    assert len(set(params)) == B


def test_p_is_one_coin_per_sample() -> None:
    batch = Image(make_image_tensor(SIZE, batch_dims=(64,)))
    torch.manual_seed(0)
    output, record = T.PerSample(T.RandomHorizontalFlip(p=0.5)).forward_with_params(batch)
    flipped = [record.params(i) is not None for i in range(64)]
    assert 10 < sum(flipped) < 54
    for i in range(64):
        assert_equal(output[i], batch[i].flip(-1) if flipped[i] else batch[i])


def test_vectorised_draws_and_matrices_match_the_descriptions() -> None:
    """The batched matrices are those of F.geometry_of with each sample's parameters."""
    batch = Batch.split(_batch())
    for transform, op in [(T.RandomAffine(30, (0.2, 0.2), (0.5, 1.5), (-10, 10, -5, 5)), "affine"),
                          (T.RandomRotation(45, center=(2, 3)), "rotate"),
                          (T.RandomPerspective(p=1.0), "perspective"),
                          (T.RandomResizedCrop((9, 11)), "resized_crop")]:
        implementation = batched_for(transform)
        values = implementation.draw(batch, Context(None, False))
        host = implementation.host_values(values)
        assert "inverse" not in values  # made only when a batched warp asks (the CPU's per-image path does not)
        inverse = implementation.inverse(values)
        assert implementation.inverse(values) is inverse  # once per draw
        for i in range(B):
            params = implementation.sample_params(host, i)
            if op == "rotate":
                params = dict(params, center=transform.center)
            if op == "resized_crop":
                params = dict(params, size=list(transform.size))
            expected = torch.tensor(F.geometry_of(op, SIZE, **params).inverse_matrix, dtype=torch.float64)
            torch.testing.assert_close(inverse[i], expected, rtol=1e-9, atol=1e-9)


def test_sample_params_read_the_listed_values_as_lists() -> None:
    """The host copy holds the values each vectorised transform reads per sample as Python lists (indexing a
    tensor costs ~1 µs an element), and the samples' parameters are plain numbers, not 0-d tensors."""
    batch = Batch.split(_batch())
    for transform in [T.RandomAffine(30, (0.2, 0.2), (0.5, 1.5), (-10, 10, -5, 5)), T.RandomRotation(45),
                      T.RandomPerspective(p=1.0), T.RandomResizedCrop((9, 11)), T.RandomCrop(12, padding=3),
                      T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.RandomPhotometricDistort(p=0.5),
                      T.GaussianBlur(3, sigma=(0.5, 2.0)), T.RandomErasing(p=1.0)]:
        implementation = batched_for(transform)
        host = implementation.host_values(implementation.draw(batch, Context(None, False)))
        assert implementation.listed and all(isinstance(host[key], list) for key in implementation.listed)
        for i in range(B):
            leaves = torch.utils._pytree.tree_leaves(implementation.sample_params(host, i))
            assert not any(isinstance(leaf, torch.Tensor) and leaf.ndim == 0 for leaf in leaves), transform


def test_boxes_key_points_and_labels_per_sample_stay_aligned() -> None:
    images = _batch()
    masks = Mask(make_mask(SIZE, batch_dims=(B,)))
    boxes = [make_bounding_box(spatial_size=SIZE, batch_dims=(i + 1,), seed=i) for i in range(B)]
    points = [KeyPoints(torch.rand(3, 2) * 15, spatial_size=SIZE) for _ in range(B)]
    labels = [torch.arange(i + 1) for i in range(B)]
    targets = [{"boxes": b, "points": p, "labels": lab} for b, p, lab in zip(boxes, points, labels)]
    transform = T.Compose(
        [T.RandomAffine(20, translate=(0.1, 0.1)), T.RandomHorizontalFlip(), T.RandomResizedCrop((15, 20))]
    )
    torch.manual_seed(0)
    (_, out_masks, out_targets), record = T.PerSample(transform).forward_with_params(images, masks, targets)
    assert isinstance(out_targets, list) and len(out_targets) == B
    for i in range(B):
        expected = apply_params(transform, (_sample(images, i), _sample(masks, i), targets[i]), record.params(i))
        assert_equal(out_masks[i], expected[1].as_subclass(torch.Tensor))
        assert_equal(out_targets[i]["boxes"], expected[2]["boxes"])
        assert_equal(out_targets[i]["points"], expected[2]["points"])
        assert out_targets[i]["labels"] is labels[i]
        assert tuple(out_targets[i]["boxes"].spatial_size) == (15, 20)


def test_tuples_of_boxes_come_back_as_tuples() -> None:
    boxes = tuple(make_bounding_box(spatial_size=SIZE, batch_dims=(2,), seed=i) for i in range(B))
    _, out_boxes = T.PerSample(T.RandomVerticalFlip())(_batch(), boxes)
    assert isinstance(out_boxes, tuple) and len(out_boxes) == B


def test_plain_tensors_videos_and_masks() -> None:
    plain = make_image_tensor(SIZE, batch_dims=(B,))
    check_per_sample(T.RandomAffine(15), plain)
    video = Video(make_image_tensor(SIZE, batch_dims=(B, 2), seed=1))
    check_per_sample(T.Compose([T.ColorJitter(0.3, 0.3, 0.3, 0.1), T.RandomResizedCrop((20, 24))]), video, atol=1)
    mask = Mask(make_mask(SIZE, batch_dims=(B,)))
    check_per_sample(T.RandomRotation(30), mask)


def test_torchvision_tensors_come_back_as_torchvision_tensors() -> None:
    tv_tensors = pytest.importorskip("torchvision.tv_tensors")
    images = tv_tensors.Image(make_image_tensor(SIZE, batch_dims=(B,)))
    boxes = [tv_tensors.BoundingBoxes(torch.tensor([[1.0, 2.0, 9.0, 12.0]]), format="XYXY", canvas_size=SIZE)] * B
    out_images, out_boxes = T.PerSample(T.RandomHorizontalFlip(p=1.0))(images, boxes)
    assert type(out_images) is tv_tensors.Image and all(type(b) is tv_tensors.BoundingBoxes for b in out_boxes)
    assert_equal(out_images.as_subclass(torch.Tensor), images.as_subclass(torch.Tensor).flip(-1))
    assert out_boxes[0].tolist() == [[SIZE[1] - 9.0, 2.0, SIZE[1] - 1.0, 12.0]]


def test_one_channel_images() -> None:
    gray = Image(make_image_tensor(SIZE, channels=1, batch_dims=(B,)))
    with _cv2.disabled():
        check_per_sample(T.ColorJitter(0.4, 0.4, 0.4, 0.1), gray)
        check_per_sample(T.RandomAffine(15, interpolation="bilinear"), gray, atol=1)


def test_generator_makes_the_draws_reproducible() -> None:
    batch = _batch()
    first = T.PerSample(T.RandomAffine(30), generator=torch.Generator().manual_seed(5))(batch)
    again = T.PerSample(T.RandomAffine(30), generator=torch.Generator().manual_seed(5))(batch)
    other = T.PerSample(T.RandomAffine(30), generator=torch.Generator().manual_seed(6))(batch)
    assert_equal(first, again)
    assert not torch.equal(first, other)


def test_gaussian_noise_differs_per_sample() -> None:
    batch = Image(torch.full((B, 3, 16, 16), 0.5))
    out = T.PerSample(T.GaussianNoise(sigma=0.1))(batch)
    assert not torch.equal(out[0], out[1])
    assert 0.05 < float((out - batch).std()) < 0.15


def _with_params(transform: Any, params: Any) -> Any:
    """A copy of ``transform`` whose coin and draw give ``params`` (None: skipped)."""
    fixed = copy.deepcopy(transform)
    fixed._skip = lambda: params is None
    fixed.make_params = lambda flat_inputs: params
    return fixed


FUSED_RUNS = [
    [T.RandomRotation(20, interpolation="bilinear"), T.RandomPerspective(p=0.6), T.RandomResizedCrop((12, 16))],
    [T.RandomResizedCrop((20, 26)), T.RandomHorizontalFlip(), T.RandomAffine(15, translate=(0.1, 0.1))],
    [T.RandomCrop(14, padding=2, fill=40), T.RandomVerticalFlip(), T.RandomAffine(10, scale=(0.3, 0.5), fill=40),
     T.RandomPerspective(p=0.5, fill=40)],
    [T.RandomResizedCrop(10, scale=(0.9, 1.0)), T.RandomAffine(30, scale=(0.2, 0.3))],  # shrinks: block means
    # runs looped sample by sample through the fused path (classes without batched matrices)
    [T.RandomRotation(20, interpolation="bilinear"), T.Resize((16, 13))],
    [T.RandomRotation(20), T.CenterCrop(10)],
    [T.RandomAffine(15, translate=(0.1, 0.1)), T.RandomHorizontalFlip(), T.Pad(2)],
]


@pytest.mark.parametrize("run", FUSED_RUNS, ids=lambda run: "+".join(type(t).__name__ for t in run))
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_fused_compose_equals_per_sample_fused_runs(run: list[Any], dtype: torch.dtype) -> None:
    """Sample i of a fused run is the fused Compose on sample i with the parameters drawn for it."""
    batch = _batch(dtype, size=(24, 30))
    masks = Mask(make_mask((24, 30), batch_dims=(B,)))
    torch.manual_seed(0)
    with _cv2.disabled():
        per_sample = T.PerSample(T.Compose(run, fuse_geometry=True))
        (output, out_masks), record = per_sample.forward_with_params(batch, masks)
        for i in range(B):
            assert len(record.params(i)) == len(run)  # one entry a transform (None: its coin skipped it)
            fixed = [_with_params(t, p) for t, p in zip(run, record.params(i))]
            image, mask = apply_run(fixed, (_sample(batch, i), _sample(masks, i)))
            atol = 1 if dtype == torch.uint8 else 1e-5
            torch.testing.assert_close(output[i].double(), image.as_subclass(torch.Tensor).double(), atol=atol, rtol=0)
            assert_equal(out_masks[i], mask.as_subclass(torch.Tensor))


def test_fused_runs_with_per_sample_boxes_loop_through_the_fused_path() -> None:
    run = [T.RandomRotation(20), T.RandomResizedCrop((12, 16))]
    batch = _batch()
    boxes = [make_bounding_box(spatial_size=SIZE, batch_dims=(2,), seed=i) for i in range(B)]
    torch.manual_seed(0)
    output, out_boxes = T.PerSample(T.Compose(run, fuse_geometry=True))(batch, boxes)
    torch.manual_seed(0)
    for i in range(B):
        image, expected = apply_run(run, (_sample(batch, i), boxes[i]))
        assert_equal(output[i], image.as_subclass(torch.Tensor))
        assert_equal(out_boxes[i], expected)


def test_zoom_out_to_a_fixed_size_in_a_fused_compose() -> None:
    """A zoom out gives each sample its own canvas; a fused run ending in a fixed Resize gives one size."""
    run = [T.RandomZoomOut(fill=7, side_range=(1.0, 3.0), p=1.0), T.Resize((16, 20))]
    batch = _batch()
    torch.manual_seed(0)
    output = T.PerSample(T.Compose(run, fuse_geometry=True))(batch)
    torch.manual_seed(0)
    for i in range(B):
        assert_equal(output[i], apply_run(run, _sample(batch, i)).as_subclass(torch.Tensor))


def test_which_transforms_are_vectorised() -> None:
    vectorised = (T.ColorJitter(0.1), T.RandomAffine(5), T.RandomResizedCrop(5), T.RandomHorizontalFlip())
    for transform in vectorised:
        assert is_vectorised(transform)
    assert not is_vectorised(T.AutoAugment())

    class MyFlip(T.RandomHorizontalFlip):  # a subclass may draw differently: it loops until registered
        pass

    assert not is_vectorised(MyFlip())


# --------------------------------------------------------------------------------------------- errors
def test_a_batch_needs_a_batch_dim() -> None:
    with pytest.raises(ValueError, match="leading batch dim"):
        T.PerSample(T.RandomHorizontalFlip())(Image(make_image_tensor(SIZE)))
    with pytest.raises(TypeError, match="a batch needs"):
        T.PerSample(T.RandomHorizontalFlip())([make_bounding_box(spatial_size=SIZE)])


def test_per_sample_lists_need_one_entry_per_sample() -> None:
    boxes = [make_bounding_box(spatial_size=SIZE) for _ in range(B - 1)]
    with pytest.raises(ValueError, match=f"one entry per sample \\({B}\\)"):
        T.PerSample(T.RandomHorizontalFlip())(_batch(), boxes)


def test_boxes_and_key_points_beside_the_batch_are_refused() -> None:
    """A BoundingBox / KeyPoints not in a per-sample list would stay put while the images move: refused."""
    from visiontx.datapoints import KeyPoints

    boxes = make_bounding_box(spatial_size=SIZE)
    points = KeyPoints(torch.zeros(B, 2, 2), spatial_size=SIZE)
    for fuse in (False, True):
        transform = T.PerSample(T.Compose([T.RandomRotation(20), T.Resize(8)], fuse_geometry=fuse))
        with pytest.raises(TypeError, match=r"boxes and key points go per sample.* got a BoundingBox of shape"):
            transform(_batch(), boxes)
        with pytest.raises(TypeError, match="got a KeyPoints of shape"):
            transform({"image": _batch(), "points": points})


def test_batched_leaves_must_agree() -> None:
    with pytest.raises(ValueError, match="agree on B"):
        T.PerSample(T.RandomHorizontalFlip())(_batch(), Mask(make_mask((5, 5), batch_dims=(B,))))


@pytest.mark.parametrize(
    "transform",
    [T.RandomRotation(40, expand=True), T.RandomZoomOut(p=1.0), T.RandomShortestSize([10, 20, 30]),
     T.RandomChoice([T.Resize(10), T.Resize(12)])],
    ids=lambda t: type(t).__name__,
)
def test_different_output_sizes_cannot_share_a_batch(transform: Any) -> None:
    torch.manual_seed(0)
    with pytest.raises(ValueError, match="different shapes"):
        T.PerSample(transform)(_batch())


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="transform must be"):
        T.PerSample(T.PerSample(T.RandomHorizontalFlip()))
    with pytest.raises(TypeError, match="generator"):
        T.PerSample(T.RandomHorizontalFlip(), generator=3)


def test_repr_and_empty_batch() -> None:
    transform = T.PerSample(T.RandomHorizontalFlip())
    assert "PerSample" in repr(transform) and "RandomHorizontalFlip" in repr(transform)
    empty = Image(torch.zeros(0, 3, 5, 5, dtype=torch.uint8))
    assert T.PerSample(T.Compose([T.RandomAffine(5), T.GaussianBlur(3)]))(empty).shape == (0, 3, 5, 5)


@pytest.mark.skipif(not CUDA_AVAILABLE, reason="needs a GPU")
def test_cuda_batches_draw_and_apply_without_synchronising() -> None:
    batch = _batch(torch.uint8, device="cuda")
    pipeline = T.PerSample(T.Compose([
        T.RandomResizedCrop((20, 25)), T.RandomHorizontalFlip(), T.ColorJitter(0.4, 0.4, 0.4, 0.1),
        T.RandomAffine(15, translate=(0.1, 0.1)), T.RandomPerspective(), T.RandomGrayscale(0.2),
    ]))
    pipeline(batch)  # warm up (lazy CUDA initialisation may synchronise)
    torch.cuda.set_sync_debug_mode("error")
    try:
        out = pipeline(batch)
        out_float = pipeline(batch.float() / 255)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert out.device.type == "cuda" and out.shape == (B, 3, 20, 25) and out_float.dtype == torch.float32


def test_options_of_different_dtypes_refuse_to_share_a_batch() -> None:
    """A sample taking a uint8 option beside one taking a float option would be cast, not scaled (0..255 beside
    0..1): ValueError, as for different shapes. A RandomOrder whose steps change the dtype loops instead."""
    batch = Image(make_image_tensor((4, 4), batch_dims=(6,)))
    to_float = T.ToDtype(torch.float32, scale=True)
    for transform in (T.RandomChoice([T.RandomInvert(p=1.0), to_float]), T.RandomApply([to_float], p=0.5)):
        torch.manual_seed(0)
        with pytest.raises(ValueError, match="different dtypes"):
            T.PerSample(transform)(batch)
    order = T.RandomOrder([to_float, T.GaussianBlur(3)])
    torch.manual_seed(1)
    out, record = T.PerSample(order).forward_with_params(batch)
    assert out.dtype == torch.float32 and float(out.max()) <= 1.0
    for i in range(6):
        expected = _sample(batch, i)
        for j, params in record.params(i):
            expected = _with_params(order.transforms[j], params)(expected)
        assert_equal(out[i], expected.as_subclass(torch.Tensor), atol=1e-6, rtol=0)


@pytest.mark.parametrize("seed", range(6))
def test_per_sample_perspective_masks_equal_the_single_transform(seed: int) -> None:
    """The batched perspective takes F.perspective's own coefficients on the CPU and torchvision's perspective grid,
    so nearest masks equal the single transform's pixel for pixel (they differed where a tie fell the other way)."""
    generator = torch.Generator().manual_seed(seed)
    images = Image(torch.randint(0, 256, (4, 3, 7, 13), dtype=torch.uint8, generator=generator))
    masks = Mask(torch.randint(0, 2, (4, 3, 7, 13), dtype=torch.uint8, generator=generator))
    transform = T.RandomPerspective(0.3, p=1.0)
    torch.manual_seed(seed)
    with _cv2.disabled():
        (_, out_masks), record = T.PerSample(transform).forward_with_params(images, masks)
        for i in range(4):
            expected = transform.transform(Mask(masks[i]), record.params(i))
            assert torch.equal(out_masks[i].as_subclass(torch.Tensor), expected.as_subclass(torch.Tensor)), i


def test_random_order_lists_the_draws_of_its_container_children() -> None:
    """A looping RandomOrder records what a container child drew (read off a recording tape), in the form the
    batched containers give: it listed None, as if the child had been skipped."""
    batch = Image(make_image_tensor((6, 8), batch_dims=(8,)))
    order = T.RandomOrder([
        T.Compose([T.RandomInvert(p=1.0)]),
        T.RandomChoice([T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=1.0)]),
        T.RandomApply([T.RandomInvert(p=1.0)], p=0.5),
    ])
    torch.manual_seed(0)
    out, record = T.PerSample(order).forward_with_params(batch)
    applied = set()
    for i in range(8):
        expected = _sample(batch, i).as_subclass(torch.Tensor)
        for j, params in record.params(i):
            if j == 0:
                assert params == [{}]
                expected = 255 - expected
            elif j == 1:
                index, flip_params = params
                assert flip_params == {} and index in (0, 1)
                expected = expected.flip(-1 if index == 0 else -2)
            else:
                assert params in (None, [{}])
                applied.add(params is not None)
                expected = expected if params is None else 255 - expected
        assert_equal(out[i], expected)
    assert applied == {True, False}  # the coin fell both ways over the batch


def test_saturation_of_one_channel_float_images_leaves_them_as_the_single_transform() -> None:
    """One channel has no saturation: the single kernel returns the image as it is, values outside [0, 1]
    included (a fill of 7 put them there); the batched step clamped them."""
    images = Image(torch.full((3, 1, 4, 4), 0.5))
    images[:, :, 0, 0] = 7.0
    images[1, :, 1, 1] = -2.0
    transform = T.ColorJitter(brightness=0.3, saturation=0.4)
    torch.manual_seed(0)
    with _cv2.disabled():
        out, record = T.PerSample(transform).forward_with_params(images)
        for i in range(3):
            expected = transform.transform(Image(images[i]), record.params(i))
            assert_equal(out[i], expected.as_subclass(torch.Tensor), atol=1e-6, rtol=0)
    assert T.PerSample(T.ColorJitter(saturation=0.4))(images).max() == 7.0
