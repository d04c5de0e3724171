"""Shared input makers and checkers used by every op's tests.

- ``make_*``: inputs of every type (non-square by default, uint8 or float, 1 or 3 channels).
- ``check_kernel``: no input mutation, dtype/device kept, batched == per item, empty batches,
  CUDA == CPU when a GPU is present.
- ``check_functional``: dispatch per type, metadata kept, TypeError for unsupported types.
- ``check_transform``: pickle round trip, a mixed sample whose untouched leaves come back identical.

Each test module declares ``FUNCTIONAL_CASES`` ({dispatcher: [kwargs, ...]}) and
``TRANSFORM_CASES`` ({transform class: [kwargs, ...]}) and may name bespoke-tested public names in
``COVERED``; ``test_coverage.py`` fails when a public op or transform appears in none of them, and
``test_generic.py`` runs the checkers over every case.
"""

from __future__ import annotations

import copy
import importlib
import pathlib
import pickle
import sys
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import PIL.Image
import pytest
import torch
from torch.utils._pytree import tree_flatten

import visiontx.functional as F
from visiontx import datapoints
from visiontx.datapoints import BoundingBox, BoundingBoxFormat, Datapoint, Image, KeyPoints, Mask, Video
from visiontx.functional._registry import get_kernel, registered_types

# the axis-aligned box formats (the rotated ones are float only: tests/test_rotated_boxes.py)
AXIS_ALIGNED = [f for f in BoundingBoxFormat if not f.is_rotated]

DEFAULT_SIZE = (17, 23)  # (H, W): non-square, odd
CUDA_AVAILABLE = torch.cuda.is_available()
DEVICES = ["cpu", "cuda"] if CUDA_AVAILABLE else ["cpu"]


# --------------------------------------------------------------------------------------- makers
GALLERY = pathlib.Path(__file__).resolve().parent.parent / "gallery"


def gallery_script(name: str) -> Iterator[ModuleType]:
    """The gallery script ``name`` as a module, for a fixture to yield from (it imports the gallery's helpers,
    so gallery/ joins the path while the fixture lives)."""
    sys.path.insert(0, str(GALLERY))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(GALLERY))


def make_image_tensor(
    size: Sequence[int] = DEFAULT_SIZE,
    *,
    channels: int = 3,
    batch_dims: Sequence[int] = (),
    dtype: torch.dtype = torch.uint8,
    device: str = "cpu",
    seed: int = 0,
) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    shape = (*batch_dims, channels, *size)
    if dtype.is_floating_point:
        data = torch.rand(shape, generator=generator, dtype=torch.float64).to(dtype)
    else:
        data = torch.randint(0, 256, shape, generator=generator, dtype=torch.int64).to(dtype)
    return data.to(device)


def make_image(size: Sequence[int] = DEFAULT_SIZE, **kwargs: Any) -> Image:
    return Image(make_image_tensor(size, **kwargs))


def interleaved_copy(image: torch.Tensor) -> torch.Tensor:
    """The same values as ``image`` (``[..., C, H, W]``), laid out in memory as ``H x W x C`` pixels,
    as tensors made from PIL images and numpy arrays are."""
    return image.movedim(-3, -1).contiguous().movedim(-1, -3)


def make_image_pil(size: Sequence[int] = DEFAULT_SIZE, *, channels: int = 3, seed: int = 0) -> PIL.Image.Image:
    return F.to_image_pil(make_image_tensor(size, channels=channels, seed=seed))


def make_video(size: Sequence[int] = DEFAULT_SIZE, *, num_frames: int = 3, **kwargs: Any) -> Video:
    batch_dims = (*kwargs.pop("batch_dims", ()), num_frames)
    return Video(make_image_tensor(size, batch_dims=batch_dims, **kwargs))


def make_mask(
    size: Sequence[int] = DEFAULT_SIZE,
    *,
    num_objects: int | None = 2,
    batch_dims: Sequence[int] = (),
    dtype: torch.dtype = torch.uint8,
    device: str = "cpu",
    seed: int = 0,
) -> Mask:
    """Instance masks ``num_objects x H x W`` of 0/1, or a semantic mask ``H x W`` of class ids."""
    generator = torch.Generator().manual_seed(seed)
    leading = (*batch_dims, num_objects) if num_objects is not None else tuple(batch_dims)
    high = 2 if num_objects is not None else 10
    data = torch.randint(0, high, (*leading, *size), generator=generator).to(dtype)
    return Mask(data, device=device)


def make_bounding_box(
    spatial_size: Sequence[int] = DEFAULT_SIZE,
    *,
    format: BoundingBoxFormat | str = BoundingBoxFormat.XYXY,
    num_boxes: int = 4,
    batch_dims: Sequence[int] = (),
    dtype: torch.dtype = torch.float32,
    device: str = "cpu",
    seed: int = 0,
) -> BoundingBox:
    """Random valid boxes inside ``spatial_size`` in ``format`` (integer-valued, so exact in any dtype)."""
    generator = torch.Generator().manual_seed(seed)
    height, width = spatial_size
    shape = (*batch_dims, num_boxes)
    x1 = torch.randint(0, max(width - 2, 1), shape, generator=generator)
    y1 = torch.randint(0, max(height - 2, 1), shape, generator=generator)
    x2 = x1 + 1 + (torch.rand(shape, generator=generator) * (width - x1 - 1)).long()
    y2 = y1 + 1 + (torch.rand(shape, generator=generator) * (height - y1 - 1)).long()
    xyxy = torch.stack([x1, y1, x2, y2], dim=-1)
    boxes = F.convert_format_bounding_box(xyxy, old_format="XYXY", new_format=format)
    return BoundingBox(boxes.to(dtype), format=format, spatial_size=spatial_size, device=device)


def make_keypoints(
    spatial_size: Sequence[int] = DEFAULT_SIZE,
    *,
    num_points: int = 5,
    batch_dims: Sequence[int] = (),
    dtype: torch.dtype = torch.float32,
    device: str = "cpu",
    seed: int = 0,
    tracked: bool = False,
) -> KeyPoints:
    """Random key points on the pixels of ``spatial_size`` (integer-valued, so exact in any dtype); with
    ``tracked``, a visibility with some points invisible."""
    generator = torch.Generator().manual_seed(seed)
    shape = (*batch_dims, num_points)
    xs = torch.randint(0, spatial_size[1], shape, generator=generator)
    ys = torch.randint(0, spatial_size[0], shape, generator=generator)
    visibility = torch.rand(shape, generator=generator) < 0.7 if tracked else None
    points = torch.stack([xs, ys], -1).to(dtype)
    return KeyPoints(points, spatial_size=spatial_size, device=device, visibility=visibility)


# Every input type a dispatcher may support, made for generic tests.
INPUT_MAKERS: dict[type, Callable[..., Any]] = {
    torch.Tensor: make_image_tensor,
    Image: make_image,
    PIL.Image.Image: make_image_pil,
    Video: make_video,
    Mask: make_mask,
    BoundingBox: make_bounding_box,
    KeyPoints: make_keypoints,
}


def run_patched(
    monkeypatch: pytest.MonkeyPatch, modules: Sequence[ModuleType], name: str, value: Any, run: Callable[[], Any]
) -> Any:
    """``run()`` with the attribute ``name`` of each of ``modules`` set to ``value`` (restored after)."""
    with monkeypatch.context() as patch:
        for module in modules:
            patch.setattr(module, name, value)
        return run()


def unwrap(inpt: Any) -> Any:
    return inpt.as_subclass(torch.Tensor) if isinstance(inpt, torch.Tensor) else inpt


def assert_equal(actual: Any, expected: Any, **kwargs: Any) -> None:
    """``torch.testing.assert_close`` that also accepts PIL images and ignores datapoint types."""
    if isinstance(actual, PIL.Image.Image) or isinstance(expected, PIL.Image.Image):
        actual = torch.from_numpy(np.asarray(actual).copy()) if isinstance(actual, PIL.Image.Image) else actual
        expected = torch.from_numpy(np.asarray(expected).copy()) if isinstance(expected, PIL.Image.Image) else expected
    if isinstance(actual, (list, tuple)):
        assert isinstance(expected, (list, tuple)) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_equal(a, e, **kwargs)
        return
    kwargs.setdefault("rtol", 0)
    kwargs.setdefault("atol", 0)
    torch.testing.assert_close(unwrap(actual), unwrap(expected), **kwargs)


# ------------------------------------------------------------------------------------ checkers
def _is_multi(output: Any) -> bool:
    """A list, or a tuple of tensors (five_crop style), of several outputs."""
    return isinstance(output, list) or (isinstance(output, tuple) and all(isinstance(o, torch.Tensor) for o in output))


def _first_tensor(output: Any) -> Any:
    return output[0] if isinstance(output, tuple) and len(output) == 2 and not isinstance(output[1], torch.Tensor) else output


def check_kernel(
    kernel: Callable,
    inpt: torch.Tensor,
    *args: Any,
    check_batched: bool = True,
    check_dtype: bool = True,
    check_cuda: bool = True,
    atol: float = 0,
    rtol: float = 0,
    **kwargs: Any,
) -> Any:
    """Run the checks every tensor kernel must pass; returns the kernel's output for ``inpt``.

    A box kernel returning ``(boxes, spatial_size)`` is handled: the boxes are compared.
    """
    assert type(inpt) is torch.Tensor, "kernels take plain tensors"
    before = inpt.clone()
    output = kernel(inpt, *args, **kwargs)
    assert_equal(inpt, before)  # never mutate the input
    tensors = list(output) if _is_multi(output) else [_first_tensor(output)]
    for tensor in tensors:
        assert type(tensor) is torch.Tensor, f"kernel must return a plain tensor, got {type(tensor)}"
        assert tensor.device == inpt.device
        if check_dtype:
            assert tensor.dtype == inpt.dtype, f"dtype changed from {inpt.dtype} to {tensor.dtype}"
    if check_batched:
        _check_batched(kernel, inpt, args, kwargs, atol=atol, rtol=rtol)
    if check_cuda and CUDA_AVAILABLE and inpt.device.type == "cpu":
        on_cuda = kernel(inpt.cuda(), *args, **kwargs)
        assert_equal(_to_cpu(on_cuda), output, atol=max(atol, 1), rtol=rtol)
    return output


def _to_cpu(output: Any) -> Any:
    if isinstance(output, torch.Tensor):
        return output.cpu()
    if isinstance(output, (list, tuple)):
        return type(output)(_to_cpu(o) for o in output)
    return output


def _check_batched(kernel: Callable, inpt: torch.Tensor, args: tuple, kwargs: dict, atol: float, rtol: float) -> None:
    other = inpt.flip(-1) if inpt.shape[-1] != 4 else inpt.flip(-2)  # a different item of the same shape
    batch = torch.stack([inpt, other])
    batched = kernel(batch, *args, **kwargs)
    per_item = [kernel(item, *args, **kwargs) for item in (inpt, other)]
    if _is_multi(batched):  # five_crop / ten_crop style outputs
        for i, item in enumerate(per_item):
            assert_equal([b[i] for b in batched], item, atol=atol, rtol=rtol)
    else:
        for i, item in enumerate(per_item):
            assert_equal(_first_tensor(batched)[i], _first_tensor(item), atol=atol, rtol=rtol)
    # degenerate batches: no items at all, in one and in two leading dims
    for shape in [(0, *inpt.shape), (2, 0, *inpt.shape)]:
        empty = kernel(inpt.new_zeros(shape), *args, **kwargs)
        for tensor in empty if _is_multi(empty) else [_first_tensor(empty)]:
            assert tensor.shape[: len(shape) - inpt.ndim] == shape[: len(shape) - inpt.ndim]
            assert tensor.numel() == 0


class _UnregisteredDatapoint(Datapoint):
    """A user datapoint with no kernels: dispatch must refuse it, not fall back to the tensor kernel."""

    def __new__(cls, data: Any) -> _UnregisteredDatapoint:
        return cls._wrap(torch.as_tensor(data))


def check_functional(functional: Callable, inpt: Any, *args: Any, **kwargs: Any) -> Any:
    """Dispatch checks: same output type as input, metadata kept (boxes: format kept and spatial
    size as the kernel said), input not mutated, TypeError for unsupported types."""
    before = copy.deepcopy(inpt)
    output = functional(inpt, *args, **kwargs)
    assert_equal(inpt, before)
    outputs = output if isinstance(output, (list, tuple)) and not isinstance(inpt, (list, tuple)) else [output]
    for out in outputs:
        if isinstance(inpt, Datapoint):
            assert type(out) is type(inpt), f"{functional.__name__} returned {type(out)} for {type(inpt)}"
            if isinstance(inpt, BoundingBox):
                assert out.format == inpt.format
                assert isinstance(out.spatial_size, tuple) and len(out.spatial_size) == 2
            if isinstance(inpt, KeyPoints):
                check_visibility_kept(inpt, out)
        elif isinstance(inpt, PIL.Image.Image):
            assert isinstance(out, PIL.Image.Image)
        else:
            assert type(out) is torch.Tensor
    for unsupported in ("not an image", _UnregisteredDatapoint(torch.zeros(2, 2))):
        with pytest.raises(TypeError, match="supports"):
            functional(unsupported, *args, **kwargs)
    return output


def _mixed_sample(inpt: Any) -> dict[str, Any]:
    sample = {
        "input": inpt,
        "int": 7,
        "float": 0.5,
        "str": "label",
        "none": None,
        "array": np.arange(3),
        "nested": [("a", 1), {"b": [2.0, None]}],
    }
    if isinstance(inpt, (Image, Video, PIL.Image.Image)):
        sample["labels"] = torch.tensor([1, 2])  # a plain tensor next to an image passes through
    return sample


def check_transform(transform: Callable, inpt: Any, *, seed: int = 0) -> Any:
    """Transform checks: pickle round trip (same repr, same output for the same seed), a mixed
    sample whose other leaves come back as the same objects, structure kept."""
    assert isinstance(repr(transform), str) and type(transform).__name__ in repr(transform)
    restored = pickle.loads(pickle.dumps(transform))
    assert repr(restored) == repr(transform)

    sample = _mixed_sample(inpt)
    torch.manual_seed(seed)
    output = transform(sample)
    torch.manual_seed(seed)
    output_restored = restored(_mixed_sample(inpt))

    assert isinstance(output, dict) and output.keys() == sample.keys()
    for key in sample:
        if key != "input":
            out_leaves, out_spec = tree_flatten(output[key])
            in_leaves, in_spec = tree_flatten(sample[key])
            assert out_spec == in_spec, f"structure of {key!r} changed"
            assert all(o is i for o, i in zip(out_leaves, in_leaves)), f"leaf {key!r} was not passed through untouched"
    assert type(output["input"]) is type(inpt) or not isinstance(inpt, Datapoint) or isinstance(output["input"], (list, tuple))
    assert_equal(output["input"], output_restored["input"])
    if isinstance(inpt, KeyPoints) and isinstance(output["input"], KeyPoints):
        check_visibility_kept(inpt, output["input"])
    return output["input"]


def check_visibility_kept(inpt: KeyPoints, out: KeyPoints) -> None:
    """Key points' visibility after an op: still tracked if it was (only ``SanitizeKeyPoints(remove=False)``
    starts tracking it), of the points' leading shape and device, no hidden point shown again, and (after an
    op that moved them) visible points on the canvas."""
    if inpt.visibility is None and out.visibility is None:
        return
    assert out.visibility is not None and out.visibility.dtype == torch.bool
    assert out.visibility.shape == out.shape[:-1] and out.visibility.device == out.device
    if inpt.visibility is not None and out.shape == inpt.shape:
        assert not (out.visibility & ~inpt.visibility).any(), "an invisible point became visible"
    if out is not inpt:
        xs, ys = out.as_subclass(torch.Tensor).unbind(-1)
        height, width = out.spatial_size
        on_canvas = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
        assert not (out.visibility & ~on_canvas).any(), "a point off the canvas is still visible"


def make_input(input_type: type, **kwargs: Any) -> Any:
    return INPUT_MAKERS[input_type](**kwargs)


def supported_input_types(functional: Callable) -> list[type]:
    return [t for t in INPUT_MAKERS if t in registered_types(functional)]


__all__ = [
    "CUDA_AVAILABLE",
    "DEFAULT_SIZE",
    "DEVICES",
    "assert_equal",
    "check_functional",
    "check_kernel",
    "check_transform",
    "check_visibility_kept",
    "datapoints",
    "get_kernel",
    "make_bounding_box",
    "make_image",
    "make_image_pil",
    "make_image_tensor",
    "make_input",
    "make_keypoints",
    "make_mask",
    "make_video",
    "supported_input_types",
    "unwrap",
]


# ------------------------------------------------------------------------- the central case table
class Case:
    """One entry of a module's ``FUNCTIONAL_CASES`` / ``TRANSFORM_CASES`` table.

    ``kwargs``: arguments of the functional (or the transform's constructor). ``types``: input types
    to run with (default: every type the functional has a kernel for / every input type).
    ``dtypes`` and ``channels``: image variants. ``atol``: tolerance of the batched comparison.
    """

    def __init__(
        self,
        kwargs: dict[str, Any] | None = None,
        *,
        types: Sequence[type] | None = None,
        dtypes: Sequence[torch.dtype] = (torch.uint8, torch.float32),
        channels: Sequence[int] = (1, 3),
        atol: float = 0,
        check_batched: bool = True,
    ) -> None:
        self.kwargs = kwargs or {}
        self.types = tuple(types) if types is not None else None
        self.dtypes = tuple(dtypes)
        self.channels = tuple(channels)
        self.atol = atol
        self.check_batched = check_batched

    def __repr__(self) -> str:
        return f"Case({self.kwargs})"


def as_case(case: Case | dict[str, Any]) -> Case:
    return case if isinstance(case, Case) else Case(case)


def image_variants(case: Case, input_type: type) -> list[dict[str, Any]]:
    """Maker kwargs for the dtype / channel variants an input type has."""
    if input_type in (torch.Tensor, Image, Video):
        return [dict(dtype=d, channels=c) for d in case.dtypes for c in case.channels]
    if input_type is PIL.Image.Image:
        return [dict(channels=c) for c in case.channels if torch.uint8 in case.dtypes]
    if input_type is BoundingBox:
        return [dict(format=f) for f in AXIS_ALIGNED]
    if input_type is KeyPoints:
        return [dict(dtype=torch.float32), dict(dtype=torch.int64, batch_dims=(3,)), dict(tracked=True)]
    return [dict(num_objects=2), dict(num_objects=None)]  # instance and semantic masks
