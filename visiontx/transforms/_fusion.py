"""Fused geometry: one resampling per run of geometric transforms (``Compose(..., fuse_geometry=True)``).

A run is a stretch of consecutive transforms of the classes in :data:`FUSIBLE` whose fills agree. Per
call, each transform of the run draws its parameters as it would unfused (same draws, same order, on
a :class:`_GeometryProbe` of the size the sample would have by then) and runs its own ``transform`` on
the probe, whose kernels compose each op's ``Geometry`` instead of moving pixels. Every leaf then
moves once through the composed geometry (``F.warp``), but for the boxes of a run with a
``RandomIoUCrop``, which move unfused (its draws read them: see :func:`_draw`), and key points, which move
step by step (a point an intermediate canvas left out stays invisible, as unfused). Runs of one applied transform
replay the drawn parameters unfused. Runs whose applied transforms are all crops, pads and flips
(:data:`WHOLE_PIXEL`) are exact: their images, videos and masks take one crop of the input and its flips, with
the run's fill outside the part of the input every step kept, without the canvases in between, and the other
leaves replay the drawn parameters unfused. Plain ``Compose`` calls take that exact path too, for such runs
holding a ``RandomZoomOut`` (its canvas is up to 16 times the input) and the ``Resize`` right after them
(:func:`whole_pixel_stages`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import PIL.Image
import torch

from .. import functional as F
from .._args import setup_fill_arg
from ..datapoints import BoundingBox, Datapoint, Image, KeyPoints, Mask, Video
from ..functional import Geometry, InterpolationMode
from ..functional._geometry._description import describe_step
from ..functional._geometry._crop import _valid_span, window_resize_mask
from . import _random
from ._geometry import (
    CenterCrop,
    Pad,
    RandomAffine,
    RandomCrop,
    RandomHorizontalFlip,
    RandomIoUCrop,
    RandomPerspective,
    RandomResize,
    RandomResizedCrop,
    RandomRotation,
    RandomShortestSize,
    RandomVerticalFlip,
    RandomZoomOut,
    Resize,
    ScaleJitter,
)
from ._tape import spatial_size_of
from ._tape import state as _TAPE
from ._transform import Transform, flatten_sample, needs_module_call
from ._utils import FillMixin

__all__ = [
    "FUSIBLE", "WHOLE_PIXEL", "FusedRun", "WholePixelRun", "apply_run", "apply_whole_pixel_run", "is_fusible",
    "edge_bands", "reads_edge_band", "repeats_edges", "split_runs", "whole_pixel_stages",
]

# Transforms whose every call goes through described ops (their params need only the sample's size, or for
# RandomIoUCrop its boxes, which the run replays unfused: see _draw).
FUSIBLE = (
    Resize, RandomResize, RandomShortestSize, ScaleJitter, CenterCrop, RandomCrop, RandomResizedCrop,
    Pad, RandomZoomOut, RandomRotation, RandomAffine, RandomPerspective, RandomHorizontalFlip, RandomVerticalFlip,
    RandomIoUCrop,
)
# Transforms whose every op moves whole pixels: integer pads and crops, flips
WHOLE_PIXEL = (Pad, RandomZoomOut, CenterCrop, RandomCrop, RandomIoUCrop, RandomHorizontalFlip, RandomVerticalFlip)
_DESCRIBED_OPS = (
    F.resize, F.crop, F.center_crop, F.resized_crop, F.pad, F.affine, F.rotate, F.perspective,
    F.horizontal_flip, F.vertical_flip,
)
_PIXELS = (Image, Video, Mask, PIL.Image.Image)
_ZERO_FILL = setup_fill_arg(0)
_IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_EMPTY = torch.empty(0)
# nearest < bilinear < bicubic; the other resize filters (box, hamming, lanczos) count as bicubic
_RANKS = {InterpolationMode.NEAREST: 0, InterpolationMode.NEAREST_EXACT: 0, InterpolationMode.BILINEAR: 1}


class _GeometryProbe(Datapoint):
    """Stands for the sample inside a fused run: the geometry composed so far, each op's geometry, and
    the canvas as its spatial size. Its kernels (one per described op) compose instead of resampling."""

    geometry: Geometry
    steps: tuple[Geometry, ...]

    @classmethod
    def start(cls, spatial_size: Sequence[int]) -> _GeometryProbe:
        """A probe of the identity on an input of ``spatial_size``."""
        return cls._make(Geometry(_IDENTITY, tuple(spatial_size)), ())

    @classmethod
    def _make(cls, geometry: Geometry, steps: tuple[Geometry, ...]) -> _GeometryProbe:
        probe = _EMPTY.as_subclass(cls)  # (Datapoint._wrap, one loop less)
        probe.geometry, probe.steps = geometry, steps
        return probe

    def follow(self, op: Callable, **params: Any) -> _GeometryProbe:
        """The probe after ``op(**params)``; arguments that only concern pixels are ignored."""
        geometry = self.geometry
        step = describe_step(op, geometry.canvas_size, params)
        return _GeometryProbe._make(geometry.then(step), (*self.steps, step))


def _follow(op: Callable, probe: _GeometryProbe, *args: Any, **params: Any) -> _GeometryProbe:
    if args:
        raise TypeError(f"a geometry probe takes {op.__name__}'s arguments by keyword, got {args!r}")
    return probe.follow(op, **params)


for _op in _DESCRIBED_OPS:
    F.register_kernel(_op, _GeometryProbe)(functools.partial(_follow, _op))
F.register_kernel(F.get_spatial_size, _GeometryProbe)(lambda probe: list(probe.geometry.canvas_size))


def _fill_spec(transform: Any) -> Any:
    """The fill of ``transform``'s padding: its own, or zeros for ``CenterCrop`` (zero-padding a smaller input)."""
    return transform._fill if isinstance(transform, FillMixin) else _ZERO_FILL


def is_fusible(transform: Any, classes: tuple[type, ...] = FUSIBLE) -> bool:
    """Whether ``transform`` can sit in a fused run (exact class among ``classes``, constant padding)."""
    # (padding_mode is an instance attribute where a FUSIBLE class has one: a miss through
    # nn.Module.__getattr__ would cost more than the rest of a split)
    return type(transform) in classes and vars(transform).get("padding_mode", "constant") == "constant"


def split_runs(
    transforms: Sequence[Callable], classes: tuple[type, ...] = FUSIBLE
) -> list[tuple[bool, list[Callable]]]:
    """``transforms`` as ``(fusible, run)`` pairs: fusible runs (of ``classes``) end at any other transform
    and where a transform's fill differs from the run's (that of its first transform with a fill)."""
    runs: list[tuple[bool, list[Callable]]] = []
    run_fill: tuple[Any, ...] = ()  # the last run's fill, once a transform of it has one
    for transform in transforms:
        fusible = is_fusible(transform, classes)
        fill = (_fill_spec(transform),) if isinstance(transform, (FillMixin, CenterCrop)) else ()
        if fusible and runs and runs[-1][0] and _fills_agree(run_fill, fill):
            runs[-1][1].append(transform)
            run_fill = run_fill or fill
        else:
            runs.append((fusible, [transform]))
            run_fill = fill
    return runs


def _fills_agree(run_fill: tuple[Any, ...], fill: tuple[Any, ...]) -> bool:
    """Whether a transform's ``fill`` (empty: it has none) agrees with its run's (empty: none yet)."""
    return not run_fill or not fill or fill[0] == run_fill[0]


def _is_exact(geometry: Geometry) -> bool:
    """Whether ``geometry`` moves whole pixels: a flip or quarter turn and an integer shift."""
    (a, b, c), (d, e, f), last = geometry.matrix
    turn = (abs(a), abs(b), abs(d), abs(e)) in ((1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 1.0, 0.0))
    return turn and last == (0.0, 0.0, 1.0) and c.is_integer() and f.is_integer()


Drawn = list[tuple[Transform, dict[str, Any]]]


def _draw(
    run: list[Transform], flat_inputs: list[Any], size: tuple[int, int]
) -> tuple[Drawn, _GeometryProbe, dict[int, BoundingBox]]:
    """Each transform's coin flip and parameters, drawn as unfused, on the probe of the run so far.

    A run with a ``RandomIoUCrop`` also moves the sample's boxes unfused, step by step: its draws read
    them, it empties those whose centre it leaves out, and they come out exactly as unfused (returned
    third, by their index in ``flat_inputs``; empty for other runs)."""
    probe, drawn = _GeometryProbe.start(size), []
    has_iou_crop = any(type(t) is RandomIoUCrop for t in run)
    boxes = {i: x for i, x in enumerate(flat_inputs) if isinstance(x, BoundingBox)} if has_iou_crop else {}
    for transform in run:
        transform.check_inputs(flat_inputs)
        tape = _TAPE.tape  # None unless recording or replaying (transforms/_tape.py)
        inputs = [probe, *boxes.values()] if type(transform) is RandomIoUCrop else [probe]
        with _random.using(transform.generator):  # a transform's own generator, as when it runs unfused
            if transform._skip() if tape is None else tape.skip(transform):
                continue
            params = transform.make_params(inputs) if tape is None else tape.params(transform, inputs)
        probe = transform.transform(probe, params)
        boxes = {i: transform.transform(x, params) for i, x in boxes.items()}
        drawn.append((transform, params))
    return drawn, probe, boxes


def _replay(drawn: Drawn, flat_inputs: list[Any], done: Sequence[bool] = ()) -> list[Any]:
    """The drawn parameters applied unfused, transform by transform, to the leaves not marked ``done``."""
    for transform, params in drawn:
        needs = transform._needs_transform_list(flat_inputs)
        if done:
            needs = [need and not skip for need, skip in zip(needs, done)]
        flat_inputs = [transform.transform(x, params) if need else x for x, need in zip(flat_inputs, needs)]
    return flat_inputs


class _Window(NamedTuple):
    """An exact run as one crop of its input, then flips: the crop (``top``, ``left``, ``height``, ``width``,
    reaching outside the input where the run pads), the flips, and ``kept``: the part of the input that every
    step of the run kept on its canvas (``top, left, bottom, right``); the rest of the crop is the run's fill."""

    top: int
    left: int
    height: int
    width: int
    vflip: bool
    hflip: bool
    kept: tuple[int, int, int, int]


def _window(steps: Sequence[Geometry], size: tuple[int, int]) -> _Window | None:
    """The :class:`_Window` of exact ``steps`` on an input of ``size``; None for a quarter turn (or no step)."""
    geometry, kept, window = Geometry(_IDENTITY, size), (0, 0, *size), None
    for step in steps:
        geometry = geometry.then(step)
        (a, b, c), (d, e, f), _ = geometry.matrix
        if b or d:
            return None
        height, width = geometry.canvas_size
        left = int(c) - width if a < 0 else -int(c)
        top = int(f) - height if e < 0 else -int(f)
        kept = (max(kept[0], top), max(kept[1], left), min(kept[2], top + height), min(kept[3], left + width))
        window = _Window(top, left, height, width, e < 0, a < 0, kept)
    return window


def _whole_pixels(leaf: Any, window: _Window, run: list[Transform]) -> Any:
    """An image, video or mask through an exact run: one crop of it (the run's fill outside what the run
    kept), then flips."""
    top, left, height, width, vflip, hflip, (low_y, low_x, high_y, high_x) = window
    y0, y1 = _valid_span(top - low_y, height, max(high_y - low_y, 0))  # the crop's rows and columns kept
    x0, x1 = _valid_span(left - low_x, width, max(high_x - low_x, 0))
    padding = [x0, y0, width - x1, height - y1]
    last = run[-1]
    out = last.call_kernel(F.crop, leaf, top=top + y0, left=left + x0, height=y1 - y0, width=x1 - x0)
    if hflip:
        out = last.call_kernel(F.horizontal_flip, out)
        padding[0], padding[2] = padding[2], padding[0]
    if vflip:
        out = last.call_kernel(F.vertical_flip, out)
        padding[1], padding[3] = padding[3], padding[1]
    if any(padding):
        fill = _pad_fill(run, leaf)
        out = last.call_kernel(F.pad, out, padding=padding, fill=0 if fill is None else fill, padding_mode="constant")
    return out


def _exact(
    drawn: Drawn, steps: Sequence[Geometry], size: tuple[int, int], run: list[Transform], flat_inputs: list[Any],
    needs: list[bool], boxes: dict[int, BoundingBox], resize: tuple[Transform, dict[str, Any]] | None = None,
) -> list[Any] | None:
    """The leaves through a run of exact ``steps`` (then ``resize``, a drawn ``Resize``, if given): images,
    videos and masks by :func:`_whole_pixels` (masks a ``Resize`` shrinks with zero fill by
    :func:`_mask_resized`), the boxes of a run with a ``RandomIoUCrop`` as :func:`_draw` moved them, the
    rest replayed unfused. None for a quarter turn or PIL images: the caller replays the whole run."""
    window = _window(steps, size)
    pixels = [need and (isinstance(x, _PIXELS) or type(x) is torch.Tensor) for x, need in zip(flat_inputs, needs)]
    if window is None or any(isinstance(x, PIL.Image.Image) for x, p in zip(flat_inputs, pixels) if p):
        return None
    outputs = _replay(drawn, flat_inputs, [p or i in boxes for i, p in enumerate(pixels)])
    moved = []
    for i, (x, out, pixel) in enumerate(zip(flat_inputs, outputs, pixels)):
        if not pixel:
            moved.append(boxes.get(i, out))
            continue
        sampled = None if resize is None else _mask_resized(x, window, run, resize[0])
        if sampled is None:
            sampled = _whole_pixels(x, window, run)
            sampled = sampled if resize is None else resize[0].transform(sampled, resize[1])
        moved.append(sampled)
    return moved


def _pad_fill(run: list[Transform], leaf: Any) -> Any:
    """The fill of ``run``'s padding for ``leaf`` (None where no transform of it has one)."""
    return next((t._fill_for(leaf) for t in run if isinstance(t, FillMixin)), None)


def _run_fill(run: list[Transform], leaf: Any) -> Any:
    """:func:`_pad_fill`, None for zeros."""
    fill = _pad_fill(run, leaf)
    if fill is not None and not any(map(float, fill if isinstance(fill, list) else (fill,))):
        return None
    return fill


def _mask_resized(leaf: Any, window: _Window, run: list[Transform], resize: Transform) -> Any | None:
    """A mask's crop by ``window`` (zeros outside what the run kept, then flips) resized by ``resize``, read
    straight from the mask (``window_resize_mask``) where that reads less than cropping: a mask, zero fill,
    ``nearest`` (a mask's mode but for ``nearest-exact``) and a crop larger than the output; else None."""
    if not isinstance(leaf, Mask) or vars(resize)["interpolation"] == InterpolationMode.NEAREST_EXACT:
        return None
    canvas = (window.height, window.width)
    size = F.geometry_of("resize", canvas, size=resize.size, max_size=resize.max_size).canvas_size
    if canvas[0] * canvas[1] <= size[0] * size[1] or _run_fill(run, leaf) is not None:
        return None
    out = window_resize_mask(leaf.as_subclass(torch.Tensor), *window[:4], size, window.vflip, window.hflip,
                             window.kept)
    return type(leaf).wrap_like(leaf, out)


def _interpolation(drawn: Drawn, leaf: Any) -> InterpolationMode:
    """The highest-quality mode asked for in the run; tensors take bilinear for bicubic."""
    # (vars: interpolation and antialias are instance attributes where a FUSIBLE class has them)
    ranks = [_RANKS.get(vars(t)["interpolation"], 2) for t, _ in drawn if "interpolation" in vars(t)]
    rank = max(ranks, default=0)
    if rank == 2 and not isinstance(leaf, PIL.Image.Image):
        rank = 1
    return (InterpolationMode.NEAREST, InterpolationMode.BILINEAR, InterpolationMode.BICUBIC)[rank]


def _fused(leaf: Any, geometry: Geometry, run: list[Transform], drawn: Drawn) -> Any:
    """``leaf`` moved once through the run's composed geometry."""
    fill = _run_fill(run, leaf)  # None for zeros: the warp's own border (grid_sample's zero padding), no blending pass
    antialias = any(vars(t).get("antialias", False) for t, _ in drawn)
    interpolation = _interpolation(drawn, leaf)
    pixels = isinstance(leaf, (Image, Video, PIL.Image.Image)) or type(leaf) is torch.Tensor
    size = spatial_size_of(leaf) if pixels and interpolation != InterpolationMode.NEAREST else None
    if (
        size is not None and min(size) > 0 and repeats_edges(run) and not geometry.is_projective
        and reads_edge_band(geometry.inverse_matrix, geometry.canvas_size, size)
    ):
        # resizes and crops inside the input that read its outer half pixel: the edge pixel there, as a resize
        # gives, not a blend with the fill (one pixel of edge padding under the same geometry); warps blend
        leaf = run[-1].call_kernel(F.pad, leaf, padding=1, padding_mode="edge")
        geometry = F.geometry_of("crop", (size[0] + 2, size[1] + 2), top=1, left=1, height=size[0],
                                 width=size[1]).then(geometry)
    return run[-1].call_kernel(F.warp, leaf, geometry=geometry, interpolation=interpolation, fill=fill,
                               antialias=antialias)


# Transforms whose unfused sampling never blends a fill into the image's border (resizes repeat the edge pixels,
# crops and flips move whole pixels): a run of only these may give the edge pixels where it reads the outer half pixel
_EDGE_REPEATING = (
    Resize, RandomResize, RandomShortestSize, ScaleJitter, CenterCrop, RandomCrop, RandomResizedCrop, RandomIoUCrop,
    RandomHorizontalFlip, RandomVerticalFlip,
)


def repeats_edges(run: Sequence[Any]) -> bool:
    """Whether every transform of ``run`` is of the :data:`_EDGE_REPEATING` classes."""
    return all(type(t) in _EDGE_REPEATING for t in run)


def reads_edge_band(inverse: Sequence[Sequence[float]], canvas: Sequence[int], size: Sequence[int]) -> bool:
    """Whether the affine output -> input map ``inverse`` (2 x 3 or 3 x 3, its last row ignored) takes every pixel
    centre of ``canvas`` from inside an input of ``size``, some of them from its outer half pixel (between the border
    and the edge pixels' centres, where bilinear sampling blends in the fill): an upscale reaching the border. An
    affine map's extremes over the grid of output centres are at its corners."""
    (a, b, c), (d, e, f) = inverse[:2]
    height, width = canvas
    sources = [(a * x + b * y + c, d * x + e * y + f) for x in (0.5, width - 0.5) for y in (0.5, height - 0.5)]
    inside = all(-1e-6 <= u <= size[1] + 1e-6 and -1e-6 <= v <= size[0] + 1e-6 for u, v in sources)
    return inside and any(min(u, size[1] - u) < 0.5 - 1e-6 or min(v, size[0] - v) < 0.5 - 1e-6 for u, v in sources)


def edge_bands(inverse: torch.Tensor, canvas: Sequence[int], size: Sequence[int]) -> torch.Tensor:
    """:func:`reads_edge_band` of each affine map of ``inverse`` ``[B, 3, 3]`` (float64, on any device), the same
    corners in the same float64 steps, as a ``[B]`` bool tensor on its device (nothing read back to the host)."""
    height, width = canvas
    x = inverse.new_tensor([0.5, 0.5, width - 0.5, width - 0.5])
    y = inverse.new_tensor([0.5, height - 0.5, 0.5, height - 0.5])
    u, v = (inverse[:, i, 0, None] * x + inverse[:, i, 1, None] * y + inverse[:, i, 2, None] for i in (0, 1))
    inside = ((u >= -1e-6) & (u <= size[1] + 1e-6) & (v >= -1e-6) & (v <= size[0] + 1e-6)).all(-1)
    band = (torch.minimum(u, size[1] - u) < 0.5 - 1e-6) | (torch.minimum(v, size[0] - v) < 0.5 - 1e-6)
    return inside & band.any(-1)


def _common_size(flat_inputs: list[Any], needs: list[bool]) -> tuple[int, int] | None:
    """The ``(H, W)`` the leaves a run transforms share; None when none has one or they disagree (then only
    the transforms applied one by one check them: a skipped one checks nothing)."""
    sizes = {spatial_size_of(x) for x, need in zip(flat_inputs, needs) if need} - {None}
    return next(iter(sizes)) if len(sizes) == 1 else None


def apply_run(run: list[Transform], sample: Any) -> Any:
    """``sample`` through the fusible ``run``: one resampling, unless the run is exact or one transform."""
    flat_inputs, rebuild = flatten_sample(sample)
    needs = run[0]._needs_transform_list(flat_inputs)
    size = _common_size(flat_inputs, needs)
    if size is None:  # nothing with a size, or sizes that disagree: the transforms say what they say unfused
        for transform in run:
            sample = transform(sample)
        return sample
    drawn, probe, boxes = _draw(run, flat_inputs, size)
    if len(drawn) <= 1:
        outputs = _replay(drawn, flat_inputs)
    elif all(map(_is_exact, probe.steps)):
        # one crop where every op is a crop, pad or flip (pads and warps treat a fill differently: the warps
        # round a fractional fill and clamp one out of range)
        whole = all(type(t) in WHOLE_PIXEL for t, _ in drawn)
        exact = _exact(drawn, probe.steps, size, run, flat_inputs, needs, boxes) if whole else None
        outputs = _replay(drawn, flat_inputs) if exact is None else exact
    else:
        # key points step by step, as unfused: a point an intermediate canvas left out stays invisible
        points = [isinstance(x, KeyPoints) for x in flat_inputs]
        stepped = _replay(drawn, flat_inputs, [not p for p in points]) if any(points) else flat_inputs
        outputs = []
        for i, (x, need) in enumerate(zip(flat_inputs, needs)):
            if need:
                x = boxes[i] if i in boxes else stepped[i] if points[i] else _fused(x, probe.geometry, run, drawn)
            outputs.append(x)
    return rebuild(outputs)


class FusedRun:
    """A fusible run as one stage of ``Compose``: called like a transform, it applies :func:`apply_run`."""

    def __init__(self, transforms: list[Transform]) -> None:
        self.transforms = transforms

    def __call__(self, *inputs: Any) -> Any:
        return apply_run(self.transforms, inputs if len(inputs) > 1 else inputs[0])


def apply_whole_pixel_run(run: list[Transform], sample: Any) -> Any:
    """``sample`` through a run of :data:`WHOLE_PIXEL` transforms, perhaps ending in a ``Resize``: what the
    transforms give one by one, with each image, video and mask cropped once (:func:`_exact`)."""
    flat_inputs, rebuild = flatten_sample(sample)
    needs = run[0]._needs_transform_list(flat_inputs)
    size = _common_size(flat_inputs, needs)
    if size is None:  # nothing with a size, or sizes that disagree: the transforms one by one say what they say
        for transform in run:
            sample = transform(sample)
        return sample
    drawn, probe, boxes = _draw(run, flat_inputs, size)
    resize = drawn[-1] if drawn and type(drawn[-1][0]) is Resize else None
    steps = probe.steps[:-1] if resize is not None else probe.steps
    outputs = _exact(drawn, steps, size, run, flat_inputs, needs, boxes, resize)
    return rebuild(_replay(drawn, flat_inputs) if outputs is None else outputs)


class WholePixelRun(FusedRun):
    """A run of :data:`WHOLE_PIXEL` transforms (perhaps ending in a ``Resize``) as one stage of a plain
    ``Compose`` call: it applies :func:`apply_whole_pixel_run`."""

    def __call__(self, *inputs: Any) -> Any:
        return apply_whole_pixel_run(self.transforms, inputs if len(inputs) > 1 else inputs[0])


# what an instance may set to change its own calls (nn.Module's hooks aside)
_OWN_METHODS = frozenset({
    "forward", "check_inputs", "_check_inputs", "make_params", "_get_params", "transform", "_transform",
    "call_kernel", "_call_kernel", "_skip", "_needs_transform_list",
})


def _as_defined(transform: Transform) -> bool:
    """Whether ``transform`` runs as its class defines it: no hooks, no method set on the instance."""
    return not needs_module_call(transform) and not _OWN_METHODS & vars(transform).keys()


def whole_pixel_stages(stages: list[Callable]) -> list[Callable]:
    """``stages`` with each run of :data:`WHOLE_PIXEL` transforms that holds a ``RandomZoomOut`` (exact classes,
    constant padding, agreeing fills, no hooks), and the ``Resize`` right after it, as one
    :class:`WholePixelRun`: exact, it gives what the transforms give one by one, without materialising the
    zoomed-out canvas (nor, for masks the ``Resize`` takes, the crop)."""
    if not any(type(stage) is RandomZoomOut for stage in stages):
        return stages
    joined: list[Callable] = []
    for fusible, run in split_runs(stages, WHOLE_PIXEL):
        last = joined[-1] if joined else None
        if fusible and len(run) > 1 and any(type(t) is RandomZoomOut for t in run) and all(map(_as_defined, run)):
            joined.append(WholePixelRun(run))
        elif (
            type(run[0]) is Resize and isinstance(last, WholePixelRun) and type(last.transforms[-1]) is not Resize
            and _as_defined(run[0])
        ):
            joined[-1] = WholePixelRun([*last.transforms, run[0]])
        else:
            joined.extend(run)
    return joined
