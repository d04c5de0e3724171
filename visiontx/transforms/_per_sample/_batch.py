"""A batch as ``PerSample`` sees it: batched leaves (leading dim ``B``) and per-sample lists.

The caller's structure (tuples, lists, dicts) is walked once into a template: ``Image`` / ``Video`` /
``Mask`` leaves, and the first plain tensor of 4+ dims when the batch holds no ``Image`` or ``Video``,
are *batched* (sample ``i`` is ``leaf[i]``); a list or tuple that holds no batched leaf but some tensor
or PIL image is *per-sample* (its ``i``-th entry belongs to sample ``i``, so its length must be ``B``);
everything else passes through as it is.

On CPU the per-image road (the OpenCV wing, and the loop) leaves a batched leaf as :class:`Pieces`, its
``B`` per-sample tensors, until something needs one batch tensor (a batched torch implementation, a
container choosing per sample, the end of the call): a pipeline of such stages stacks once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import PIL.Image
import torch
from torch.utils._pytree import tree_flatten

from ...datapoints import BoundingBox, Datapoint, Image, KeyPoints, Mask, Video

# template nodes: ("batched", k), ("per_sample", k), ("const", value), ("seq", type, children), ("dict", type, items)
Template = tuple


def _is_pure_tensor(obj: Any) -> bool:
    return isinstance(obj, torch.Tensor) and not isinstance(obj, Datapoint)


def _has_leaf(node: Any, test: Callable[[Any], bool]) -> bool:
    return any(test(leaf) for leaf in tree_flatten(node)[0])


def _batched_test(sample: Any) -> Callable[[Any], bool]:
    """Which leaves of ``sample`` are batched: images, videos, masks, else the first 4+-dim plain tensor."""
    leaves = tree_flatten(sample)[0]
    has_image = any(isinstance(leaf, (Image, Video)) for leaf in leaves)
    plain = None if has_image else next((x for x in leaves if _is_pure_tensor(x) and x.ndim >= 4), None)
    return lambda leaf: isinstance(leaf, (Image, Video, Mask)) or (plain is not None and leaf is plain)


def _is_data(leaf: Any) -> bool:
    return isinstance(leaf, (torch.Tensor, PIL.Image.Image))


class Pieces:
    """A batched leaf held as its ``B`` per-sample tensors (one shape, dtype and device: checked when made,
    so the different-shapes ``ValueError`` comes where it always came); :meth:`stack` makes the batch tensor."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        first = items[0]
        self.shape = torch.Size([len(items), *first.shape])
        self.dtype, self.device, self.ndim = first.dtype, first.device, first.ndim + 1

    @property
    def kind(self) -> Any:
        """A sample, for the type tests (``isinstance``) and the wing's gate."""
        return self.items[0]

    @property
    def requires_grad(self) -> bool:
        return any(item.requires_grad for item in self.items)

    def stack(self) -> Any:
        return _join(self.items)


def pieces(outputs: list[Any], name: str) -> Any:
    """``outputs``, one per sample, as one batched leaf: :class:`Pieces` when they are tensors of one dtype
    and device, else stacked at once (``ValueError`` when their shapes differ, as :func:`_stack`)."""
    _check_shapes(outputs, name)
    first = outputs[0]
    if all(isinstance(out, torch.Tensor) and out.dtype == first.dtype and out.device == first.device
           for out in outputs):
        return Pieces(outputs)
    return _join(outputs)


def stacked(leaf: Any) -> Any:
    """``leaf`` as a batch tensor (stacking :class:`Pieces`)."""
    return leaf.stack() if isinstance(leaf, Pieces) else leaf


@dataclass
class Batch:
    """One batch split into batched leaves and per-sample lists, and how to rebuild it."""

    template: Template
    leaves: list[Any]  # batched tensors, leading dim B
    lists: list[list[Any]]  # per-sample lists: lists[k][i] belongs to sample i
    size: int

    @classmethod
    def split(cls, sample: Any, name: str = "PerSample") -> Batch:
        is_batched = _batched_test(sample)
        leaves: list[Any] = []
        lists: list[list[Any]] = []

        def walk(node: Any) -> Template:
            if is_batched(node):
                leaves.append(node)
                return ("batched", len(leaves) - 1)
            if isinstance(node, dict):
                return ("dict", type(node), [(key, walk(value)) for key, value in node.items()])
            if isinstance(node, (list, tuple)):
                if not _has_leaf(node, is_batched) and _has_leaf(node, _is_data):
                    lists.append(list(node))
                    return ("per_sample", len(lists) - 1, type(node))
                return ("seq", type(node), [walk(child) for child in node])
            if isinstance(node, (BoundingBox, KeyPoints)):  # would stay put while the images move
                raise TypeError(
                    f"{name}: boxes and key points go per sample, in a list or tuple of one {type(node).__name__} "
                    f"per sample; got a {type(node).__name__} of shape {tuple(node.shape)} beside the batch"
                )
            return ("const", node)

        template = walk(sample)
        if not leaves:
            raise TypeError(
                f"{name}: a batch needs an Image, Video or Mask, or a plain image tensor [B, C, H, W], "
                f"with a leading batch dim; got {type(sample).__name__}"
            )
        batch = cls(template, leaves, lists, leaves[0].shape[0])
        batch._check()
        return batch

    def _check(self) -> None:
        for leaf in self.leaves:
            least = 3 if isinstance(leaf, Mask) else 4
            if leaf.ndim < least:
                kind = "masks [B, H, W]" if least == 3 else "images [B, C, H, W] (videos [B, T, C, H, W])"
                shape = tuple(leaf.shape)
                raise ValueError(f"PerSample: a batch of {kind} needs a leading batch dim, got shape {shape}")
        sizes = {(leaf.shape[0], tuple(leaf.shape[-2:])) for leaf in self.leaves}
        if len(sizes) > 1:
            raise ValueError(f"PerSample: the batched leaves must agree on B and H x W, "
                             f"got (B, (H, W)) {sorted(sizes)}")
        for entries in self.lists:
            if len(entries) != self.size:
                raise ValueError(
                    f"PerSample: a list or tuple of per-sample entries (boxes, key points, labels) must have one "
                    f"entry per sample ({self.size}), got {len(entries)}"
                )

    @property
    def spatial_size(self) -> tuple[int, int]:
        return (int(self.leaves[0].shape[-2]), int(self.leaves[0].shape[-1]))

    @property
    def device(self) -> torch.device:
        return self.leaves[0].device

    @property
    def channels(self) -> int | None:
        """The channel count of the batch's images or videos (None when it holds only masks)."""
        images = [leaf for leaf in self.leaves if not isinstance(leaf, Mask)]
        return int(images[0].shape[-3]) if images else None

    def with_values(self, leaves: list[Any], lists: list[list[Any]] | None = None) -> Batch:
        return replace(self, leaves=leaves, lists=self.lists if lists is None else lists)

    def stacked(self) -> Batch:
        """This batch with every batched leaf a batch tensor (:class:`Pieces` stacked)."""
        if not any(isinstance(leaf, Pieces) for leaf in self.leaves):
            return self
        return self.with_values([stacked(leaf) for leaf in self.leaves])

    def rebuild(self) -> Any:
        """The caller's structure holding the current leaves (as batch tensors) and lists."""
        lists = [t(entries) for t, entries in zip(self._list_types(), self.lists)]
        return _fill(self.template, self.stacked().leaves, lists)

    def sample(self, i: int) -> Any:
        """Sample ``i`` alone, in the caller's structure (batched leaves indexed, lists' ``i``-th entries)."""
        return _fill(self.template, [_index(leaf, i) for leaf in self.leaves], [entries[i] for entries in self.lists])

    def collect(self, outputs: list[Any], name: str) -> Batch:
        """The batch of ``outputs``, one per sample in :meth:`sample`'s structure: batched leaves as
        :func:`pieces` (``ValueError`` when their shapes differ), per-sample entries gathered."""
        per_sample = [_gather(self.template, output) for output in outputs]
        leaves = [pieces([found[0][k] for found in per_sample], name) for k in range(len(self.leaves))]
        lists = [[found[1][k] for found in per_sample] for k in range(len(self.lists))]
        return self.with_values(leaves, lists)

    def _list_types(self) -> list[type]:
        types: list[type] = []

        def walk(node: Template) -> None:
            if node[0] == "per_sample":
                types.append(node[2])
            elif node[0] in ("seq", "dict"):
                for child in node[2]:
                    walk(child[1] if node[0] == "dict" else child)

        walk(self.template)
        return [t if t in (list, tuple) else list for t in types]


def _index(leaf: torch.Tensor | Pieces, i: int) -> torch.Tensor:
    if isinstance(leaf, Pieces):
        return leaf.items[i]
    item = leaf.as_subclass(torch.Tensor)[i]
    return type(leaf).wrap_like(leaf, item) if isinstance(leaf, Datapoint) else item


def _rebuild_seq(kind: type, children: list[Any]) -> Any:
    return kind(*children) if hasattr(kind, "_fields") else kind(children)


def _fill(node: Template, leaves: list[Any], entries: list[Any]) -> Any:
    tag = node[0]
    if tag == "batched":
        return leaves[node[1]]
    if tag == "per_sample":
        return entries[node[1]]
    if tag == "const":
        return node[1]
    if tag == "dict":
        return node[1]((key, _fill(child, leaves, entries)) for key, child in node[2])
    return _rebuild_seq(node[1], [_fill(child, leaves, entries) for child in node[2]])


def _gather(node: Template, output: Any) -> tuple[dict[int, Any], dict[int, Any]]:
    """The batched leaves and per-sample entries of one sample's ``output``, by their template index."""
    leaves: dict[int, Any] = {}
    entries: dict[int, Any] = {}

    def walk(node: Template, value: Any) -> None:
        tag = node[0]
        if tag == "batched":
            leaves[node[1]] = value
        elif tag == "per_sample":
            entries[node[1]] = value
        elif tag == "dict":
            for key, child in node[2]:
                walk(child, value[key])
        elif tag == "seq":
            for child, item in zip(node[2], value):
                walk(child, item)

    walk(node, output)
    return leaves, entries


def _check_shapes(outputs: list[Any], name: str) -> None:
    shapes = sorted({tuple(out.shape) for out in outputs})
    if len(shapes) > 1:
        raise ValueError(
            f"{name} gave the samples of one batch different shapes {shapes}: a batch tensor cannot hold them "
            "(each transform inside a PerSample must give every sample one size, a Resize after it does not help: "
            "give it a fixed output size, fuse it with the resize that follows in a Compose(..., fuse_geometry=True), "
            "or apply it per sample before batching)"
        )
    dtypes = sorted({str(out.dtype) for out in outputs})
    if len(dtypes) > 1:  # stacking would promote: one sample's 0..255 beside another's 0..1
        raise ValueError(
            f"{name} gave the samples of one batch different dtypes {dtypes}: a batch tensor cannot hold them "
            "(convert the dtype outside the random choice)"
        )


def _stack(outputs: list[Any], name: str) -> Any:
    _check_shapes(outputs, name)
    return _join(outputs)


def _join(outputs: list[Any]) -> Any:
    """One batch tensor of same-shaped ``outputs``, wrapped as the first one."""
    tensor = torch.stack([out.as_subclass(torch.Tensor) for out in outputs])
    first = outputs[0]
    return type(first).wrap_like(first, tensor) if isinstance(first, Datapoint) else tensor
