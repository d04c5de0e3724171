"""Inverse: ``pipeline.inverse(outputs, record)`` maps outputs back to the frame of the recorded input.

Each applied step of the record runs its own ``transform`` with its recorded params on a
``_GeometryProbe`` of its recorded input size (as fused runs draw, ``_fusion.py``): the probe composes the
``Geometry`` of every described op the step calls and ignores every other op (colour, blur, noise,
erasing, dtypes: the identity for geometry). The steps' geometries compose into one map, whose inverse
moves every leaf once with ``F.warp``: key points exactly, boxes as the enclosing box of their corners
mapped back (exact through axis-aligned maps), masks nearest, images through ``interpolation`` with
``fill`` where the output did not reach. Steps with no matrix raise :class:`ValueError` naming them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .. import functional as F
from ..functional import Geometry, InterpolationMode
from . import _tape
from ._auto_augment import _GEOMETRY_SPACE, AugMix, _AutoAugmentBase
from ._container import _Container
from ._fusion import _GeometryProbe
from ._geometry import DecodeRandomResizedCrop, ElasticTransform, FiveCrop, TenCrop
from ._meta import SanitizeBoundingBox
from ._meta_keypoints import SanitizeKeyPoints
from ._misc import Identity, Lambda
from ._per_sample import PerSample
from ._mixing import CutMix, MixUp
from ._record import check_node, container_steps
from ._transform import Transform, check_spatial_sizes_agree

__all__ = ["NOT_INVERTIBLE", "inverse"]

# transform class -> why it has no inverse
NOT_INVERTIBLE: dict[type, str] = {
    ElasticTransform: "its displacement field has no matrix to invert",
    FiveCrop: "it returns several crops",
    TenCrop: "it returns several crops",
    MixUp: "it mixes several samples",
    CutMix: "it mixes several samples",
    AugMix: "it blends several differently warped images",
    Lambda: "its function is unknown",
    PerSample: "each sample has a geometry of its own (its record's 'samples' list what each got)",
    DecodeRandomResizedCrop: (
        "its input is encoded bytes, not an image to map back to (decode first and use RandomResizedCrop)"
    ),
}
# transforms with their own forward that record no params and leave the geometry as it is
_NO_GEOMETRY = (SanitizeBoundingBox, SanitizeKeyPoints, Identity)


def inverse(
    pipeline: Callable, outputs: Any, record: dict[str, Any], *, interpolation: Any = "bilinear", fill: Any = None
) -> Any:
    """``outputs`` mapped back through the geometry ``record`` describes (see the module docstring)."""
    if not isinstance(record, dict):
        raise TypeError(f"record must be a dict (from Transform.record), got {type(record).__name__}")
    geometry, stuck = None, None
    for where, step, node in _applied_steps(pipeline, record, "record"):
        moved = _geometry_of_step(step, node, where)
        if moved is not None:
            geometry = moved if geometry is None else geometry.then(moved)
            if moved.points_error is not None and stuck is None:  # boxes and key points cannot go back through it
                stuck = f"cannot invert {where} ({node['transform']}) for boxes and key points: {moved.points_error}"
    if geometry is None:
        return outputs
    if stuck is not None:
        geometry = Geometry(geometry.matrix, geometry.canvas_size, geometry.clamp, stuck)
    return _Inverse(geometry, _input_size(record), interpolation, fill)(outputs)


def _input_size(record: dict[str, Any]) -> tuple[int, int]:
    """The input canvas: the recorded size of the first step that had one."""
    for node in _nodes(record):
        if node.get("size") is not None:
            return tuple(node["size"])  # type: ignore[return-value]
    raise AssertionError("a geometry was composed from a record without sizes")


def _nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("steps", ()):
        yield from _nodes(child)


def _applied_steps(step: Callable, node: Any, where: str) -> Iterator[tuple[str, Callable, dict[str, Any]]]:
    """``(where, step, node)`` for every transform applied in the recorded call, in order."""
    check_node(node, step, where)
    if isinstance(step, _Container):
        for i, (child, child_node) in enumerate(zip(container_steps(step, node, where), node["steps"])):
            yield from _applied_steps(child, child_node, f"{where}['steps'][{i}]")
    elif not node.get("skipped", False):
        yield where, step, node


def _geometry_of_step(step: Callable, node: dict[str, Any], where: str) -> Geometry | None:
    """The geometry of one applied step on its recorded input size (None: the identity)."""
    name = node["transform"]
    if not isinstance(step, Transform):
        raise ValueError(f"cannot invert {where} ({name}): it is not a visiontx Transform")  # noqa: TRY004
    reason = next((why for cls, why in NOT_INVERTIBLE.items() if isinstance(step, cls)), None)
    if reason is not None:
        raise ValueError(f"cannot invert {where} ({name}): {reason}")
    if "params" not in node:
        if isinstance(step, _NO_GEOMETRY):
            return None
        raise ValueError(f"cannot invert {where} ({name}): it recorded no parameters")
    if node.get("size") is None:  # nothing with a size went through it
        return None
    probe = _GeometryProbe.start(node["size"])
    if not step._needs_transform_list([probe])[0]:
        return None
    params = _tape.decode(node["params"])
    if isinstance(step, _AutoAugmentBase):  # its colour ops call functionals directly: only its warps run
        params = dict(params, ops=[(name, magnitude) for name, magnitude in params["ops"] if name in _GEOMETRY_SPACE])
    moved = step.transform(probe, params)
    return moved.geometry if isinstance(moved, _GeometryProbe) and moved.steps else None


class _Inverse(Transform):
    """Moves every leaf through the inverse of ``geometry`` (from ``canvas`` back to ``input_size``)."""

    def __init__(self, geometry: Geometry, input_size: tuple[int, int], interpolation: Any, fill: Any) -> None:
        super().__init__()
        self.canvas = geometry.canvas_size
        self.back = Geometry(geometry.inverse_matrix, input_size, "corners", geometry.points_error)
        self.interpolation = InterpolationMode.parse(interpolation)
        self.fill = fill

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        size = check_spatial_sizes_agree(flat_inputs)
        if size is not None and tuple(size) != self.canvas:
            raise ValueError(f"outputs must have the recorded output size {self.canvas}, got {tuple(size)}")
        return {}

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.warp, inpt, geometry=self.back, interpolation=self.interpolation, fill=self.fill)


_tape.entry_points["inverse"] = inverse
