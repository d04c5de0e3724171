"""The hooks behind ``Transform.record`` / ``replay``: where a transform draws, a tape may listen.

Normally ``state.tape`` is None and the hooks in ``Transform.forward``, ``_forward_leaf``, MixUp / CutMix
and fused runs call ``_skip()`` / ``make_params()`` as usual (one attribute check). While
``transforms/_record.py`` records or replays a pipeline, ``state.tape`` is a :class:`Tape` whose
``pending`` list holds ``(transform, node)`` for the transforms about to draw, in order: a recording
tape draws and writes the node, a replaying one reads the node and draws nothing. Draws of a
transform not in ``pending`` (a transform called inside another's ``transform``) pass through.

The record / replay / inverse entry points are set here by ``_record.py`` and ``_inverse.py`` when
``visiontx.transforms`` is imported (they import the transforms, which import this module).
"""

from __future__ import annotations

import base64
import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import PIL.Image
import torch

from ..datapoints import Datapoint, Image, Mask, Video
from ..datapoints._bounding_box import OnCanvas
from ..functional import get_spatial_size
from ..functional._registry import _find_kernel

__all__ = ["Tape", "decode", "encode", "entry_points", "listening", "params_of", "state"]

# "record", "replay", "call" (one step recorded into a node), "inverse" -> function, filled in by _record.py and
# _inverse.py
entry_points: dict[str, Callable[..., Any]] = {}


class _State(threading.local):
    tape: Tape | None = None


state = _State()


@contextmanager
def listening(tape: Tape) -> Iterator[Tape]:
    """``tape`` listening to this thread's draws for the duration; the tape before it (if any) back after."""
    before, state.tape = state.tape, tape
    try:
        yield tape
    finally:
        state.tape = before


def params_of(node: dict[str, Any]) -> Any:
    """The parameters a transform's recorded ``node`` holds, decoded; None where its coin skipped it (or it drew
    nothing a tape saw)."""
    return None if node.get("skipped", False) or "params" not in node else decode(node["params"])


class Tape:
    """Records (``replaying=False``) or replays the draws of the transforms in ``pending``."""

    def __init__(self, replaying: bool) -> None:
        self.replaying = replaying
        self.pending: list[tuple[Any, dict[str, Any]]] = []

    def _node(self, transform: Any) -> dict[str, Any] | None:
        pending = self.pending
        return pending[0][1] if pending and pending[0][0] is transform else None

    def skip(self, transform: Any) -> bool:
        """``transform._skip()``, recorded, or as recorded."""
        node = self._node(transform)
        if node is None:
            return transform._skip()
        if self.replaying:
            skipped = node.get("skipped", False)
            if not isinstance(skipped, bool):
                raise ValueError(f"record of {node['transform']}: 'skipped' must be a bool, got {skipped!r}")
        else:
            skipped = node["skipped"] = bool(transform._skip())
        if skipped:
            self.pending.pop(0)
        return skipped

    def params(self, transform: Any, selected: list[Any]) -> dict[str, Any]:
        """``transform.make_params(selected)``, recorded (with the input's canvas size), or as recorded."""
        node = self._node(transform)
        if node is None:
            return transform.make_params(selected)
        self.pending.pop(0)
        if self.replaying:
            if not isinstance(node.get("params"), dict):
                raise ValueError(f"record of {node['transform']} holds no params, but the transform draws some")
            return decode(node["params"])
        params = transform.make_params(selected)
        node["skipped"] = node.get("skipped", False)
        node["size"] = canvas_size(selected)
        node["params"] = encode(params, f"{type(transform).__name__}'s params")
        return params


def spatial_size_of(inpt: Any) -> tuple[int, ...] | None:
    """The ``(H, W)`` of a sample's leaf: images, videos, masks, plain tensors of 2 dims or more, boxes, key
    points, PIL images and other datapoints with a ``get_spatial_size`` kernel; None for anything else."""
    if isinstance(inpt, (Image, Video, Mask)) or (type(inpt) is torch.Tensor):
        shape = inpt.shape
        return tuple(shape[-2:]) if len(shape) >= 2 else None
    if isinstance(inpt, OnCanvas):  # boxes, key points
        return tuple(inpt.spatial_size)
    if isinstance(inpt, PIL.Image.Image):
        return (inpt.height, inpt.width)
    if isinstance(inpt, Datapoint) and _find_kernel(get_spatial_size, type(inpt)) is not None:
        return tuple(get_spatial_size(inpt))
    return None


def canvas_size(selected: list[Any]) -> list[int] | None:
    """The ``[H, W]`` of the first leaf that has one (None if none): a step's input canvas."""
    size = next((size for size in map(spatial_size_of, selected) if size is not None), None)
    return None if size is None else [int(s) for s in size]


def encode(value: Any, where: str) -> Any:
    """``value`` as plain JSON data: tuples become lists, tensors ``{"tensor": {dtype, shape, device,
    data}}`` with their bytes in base64, non-finite floats ``{"float": "nan" | "inf" | "-inf"}``."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, (list, tuple)):
        return [encode(v, where) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: encode(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, torch.Tensor):
        return {"tensor": _encode_tensor(value)}
    raise TypeError(f"cannot record {where}: {type(value).__name__} values are not supported")


def decode(value: Any) -> Any:
    """The inverse of :func:`encode` (tuples come back as lists)."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {"tensor"}:
            return _decode_tensor(value["tensor"])
        if set(value) == {"float"}:
            return float(value["float"])
        return {k: decode(v) for k, v in value.items()}
    return value


def _encode_tensor(tensor: torch.Tensor) -> dict[str, Any]:
    source = tensor.detach().as_subclass(torch.Tensor).reshape(-1)
    flat = torch.empty(source.shape, dtype=source.dtype).copy_(source)  # stride 1, on the CPU
    data = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
    dtype = str(tensor.dtype).removeprefix("torch.")
    return dict(dtype=dtype, shape=list(tensor.shape), device=str(tensor.device), data=base64.b64encode(data).decode())


def _decode_tensor(spec: dict[str, Any]) -> torch.Tensor:
    try:
        dtype = getattr(torch, spec["dtype"])
        data = base64.b64decode(spec["data"])
        shape = [int(s) for s in spec["shape"]]
        device = torch.device(spec["device"])
    except (KeyError, TypeError, ValueError, AttributeError, RuntimeError) as error:
        raise ValueError(f"malformed tensor in a record: {spec!r:.200}") from error
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"malformed tensor in a record: unknown dtype {spec['dtype']!r}")
    flat = torch.frombuffer(bytearray(data), dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
    with torch.inference_mode(False):
        return flat.view(dtype).reshape(shape).to(device)
