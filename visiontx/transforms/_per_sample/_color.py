"""ColorJitter and RandomPhotometricDistort on batches: per-sample factors, coins and orders."""

from __future__ import annotations

from typing import Any

import torch

from ...functional._color import _batched as C
from .._color import ColorJitter, RandomPhotometricDistort
from . import _draws
from ._batch import Batch
from ._core import Context, Leaf, register

_HUE = 3  # ColorJitter's order indexes brightness, contrast, saturation, hue


@register(ColorJitter)
class BatchedColorJitter(Leaf):
    """Each sample its own four factors and its own order. The brightness, contrast and saturation steps
    are one blend step each (``functional/_color/_batched.py``) whose kind differs per sample; the hue
    rotation, the costly one, runs once: the steps a sample takes before its hue are right-aligned in the
    slots before the common hue step, those after it left-aligned in the slots after (empty slots are the
    identity), so ``n`` adjustments take ``2 (n - 1)`` blend steps and one hue step."""

    listed = ("order", "factors")

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        size, device, generator = batch.size, batch.device, context.generator
        ranges = (self.transform.brightness, self.transform.contrast, self.transform.saturation, self.transform.hue)
        factors = [None if r is None else _draws.uniform(size, r[0], r[1], device, generator) for r in ranges]
        order = _draws.permutations(size, 4, device, generator)
        return dict(order=order, factors=factors)

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        factors = [None if f is None else float(f[i]) for f in values["factors"]]
        return dict(order=values["order"][i], factors=factors)

    def apply(self, leaf: torch.Tensor, values: dict[str, Any]) -> torch.Tensor:
        factors = values["factors"]
        active = [j for j in range(4) if factors[j] is not None]
        if not active:
            return leaf
        sequence = _active_sequence(values["order"], active)  # [B, n]: each sample's steps, in order
        work = C.to_work(leaf)
        if factors[_HUE] is None:
            for step in range(len(active)):
                work = _blend(work, sequence[:, step], factors, leaf.dtype)
            return work.to(leaf.dtype)
        n = len(active)
        hue_at = (sequence == _HUE).long().argmax(dim=1)  # [B]: how many steps come before the hue
        for slot in range(n - 1):  # before the hue: the sample's steps right-aligned
            work = _blend(work, _step_or_identity(sequence, slot - (n - 1) + hue_at, hue_at), factors, leaf.dtype)
        work = C.hue_step(work, factors[_HUE], leaf.dtype)
        for slot in range(n - 1):  # after the hue: left-aligned
            work = _blend(work, _step_or_identity(sequence, hue_at + 1 + slot, n), factors, leaf.dtype)
        return work.to(leaf.dtype)


def _active_sequence(order: torch.Tensor, active: list[int]) -> torch.Tensor:
    """``[B, n]``: each row of ``order`` with the inactive adjustments left out (stable)."""
    keep = torch.zeros_like(order, dtype=torch.bool)
    for j in active:
        keep |= order == j
    rank = torch.where(keep, torch.arange(4, device=order.device), 4)  # inactive ones sort last
    return order.gather(1, rank.argsort(dim=1, stable=True))[:, : len(active)]


def _step_or_identity(sequence: torch.Tensor, index: torch.Tensor, end: torch.Tensor | int) -> torch.Tensor:
    """The kind at ``index`` of each row (``IDENTITY`` where ``index`` is outside ``[0, end)``)."""
    valid = (index >= 0) & (index < end)
    kinds = sequence.gather(1, index.clamp(0, sequence.shape[1] - 1).view(-1, 1))[:, 0]
    return torch.where(valid, kinds, C.IDENTITY)


def _blend(
    work: torch.Tensor, kinds: torch.Tensor, factors: list[torch.Tensor | None], dtype: torch.dtype
) -> torch.Tensor:
    chosen = torch.ones_like(kinds, dtype=torch.float64)
    for kind in (C.BRIGHTNESS, C.CONTRAST, C.SATURATION):
        if factors[kind] is not None:
            chosen = torch.where(kinds == kind, factors[kind], chosen)
    return C.blend_step(work, kinds, chosen, dtype)


@register(RandomPhotometricDistort)
class BatchedPhotometricDistort(Leaf):
    """Five coins per sample (one per distortion), contrast before or after the hue per sample, a channel
    permutation per sample: two contrast slots, one taken per sample, and the hue kept where its coin fell."""

    _STEPS = ("brightness", "contrast", "saturation", "hue")
    listed = (*_STEPS, *(f"{name}_on" for name in _STEPS), "contrast_before", "permute_on", "permutation")

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        t, n, device, generator = self.transform, batch.size, batch.device, context.generator
        values: dict[str, Any] = {}
        for name in self._STEPS:
            low, high = getattr(t, name)
            values[name] = _draws.uniform(n, low, high, device, generator)
            values[f"{name}_on"] = _draws.coins(n, t.p, device, generator)
        values["contrast_before"] = _draws.coins(n, 0.5, device, generator)
        channels = batch.channels
        values["permute_on"] = _draws.coins(n, t.p, device, generator) & (channels is not None)
        values["permutation"] = _draws.permutations(n, channels or 1, device, generator)
        return values

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        params: dict[str, Any] = {
            f"{name}_factor": float(values[name][i]) if bool(values[f"{name}_on"][i]) else None for name in self._STEPS
        }
        params["contrast_before"] = bool(values["contrast_before"][i])
        params["permutation"] = values["permutation"][i] if values["permute_on"][i] else None
        return params

    def apply(self, leaf: torch.Tensor, values: dict[str, Any]) -> torch.Tensor:
        work, dtype = C.to_work(leaf), leaf.dtype

        def step(kind: int, name: str, on: torch.Tensor) -> torch.Tensor:
            kinds = torch.where(on, kind, C.IDENTITY)
            return C.blend_step(work, kinds, values[name], dtype)

        before = values["contrast_before"]
        work = step(C.BRIGHTNESS, "brightness", values["brightness_on"])
        work = step(C.CONTRAST, "contrast", values["contrast_on"] & before)
        work = step(C.SATURATION, "saturation", values["saturation_on"])
        hue_on = C.per_image(values["hue_on"], work)
        work = torch.where(hue_on, C.hue_step(work, values["hue"], dtype), work)
        work = step(C.CONTRAST, "contrast", values["contrast_on"] & ~before)
        out = work.to(dtype)
        if leaf.shape[-3] == values["permutation"].shape[1]:
            index = values["permutation"].view(out.shape[0], *[1] * (out.ndim - 4), -1, 1, 1).expand_as(out)
            out = torch.where(C.per_image(values["permute_on"], out), out.gather(-3, index), out)
        return out
