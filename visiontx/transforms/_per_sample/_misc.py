"""GaussianBlur (a sigma per sample) and RandomErasing (a rectangle and values per sample) on batches."""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._pytree import tree_flatten

from ..._args import fill_tensor
from ...functional._misc import _batched as M
from .._misc import GaussianBlur, RandomErasing
from .._utils import query_chw
from . import _draws
from ._batch import Batch
from ._core import Context, Leaf, register


@register(GaussianBlur)
class BatchedGaussianBlur(Leaf):
    """One separable blur of the batch with per-sample weights (grouped by sample, no loop)."""

    listed = ("sigma",)

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        low, high = self.transform.sigma
        return dict(sigma=_draws.uniform(batch.size, low, high, batch.device, context.generator))

    def apply(self, leaf: torch.Tensor, values: dict[str, Any]) -> torch.Tensor:
        sigma = values["sigma"]
        return M.gaussian_blur_batch(leaf, self.transform.kernel_size, torch.stack([sigma, sigma], dim=1))

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        sigma = float(values["sigma"][i])
        return dict(sigma=[sigma, sigma])


@register(RandomErasing)
class BatchedErasing(Leaf):
    """Up to 10 rectangles per sample drawn at once, each sample taking its first that fits (none: the
    sample is left as it is); one masked fill of the batch. ``value="random"`` draws normal noise for the
    whole batch and each sample's rectangle takes its part."""

    listed = ("found", "top", "left", "height", "width")

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        t, n, device, generator = self.transform, batch.size, batch.device, context.generator
        flat = tree_flatten(batch.sample(0))[0] if n else []
        flat = [x for x, need in zip(flat, t._needs_transform_list(flat)) if need]  # as a single call picks them
        channels, height, width = query_chw(flat) if n else (batch.channels or 1, *batch.spatial_size)
        if t._value is not None and len(t._value) not in (1, channels):
            t.make_params(flat)  # raises its per-channel error
        tries = 10
        area = _draws.uniform(tries * n, t.scale[0], t.scale[1], device, generator).view(tries, n) * (height * width)
        aspect = _draws.uniform(tries * n, t._log_ratio[0], t._log_ratio[1], device, generator).view(tries, n).exp()
        h, w = (area * aspect).sqrt().round().long(), (area / aspect).sqrt().round().long()
        fits = (h < height) & (w < width)
        first = fits.to(torch.uint8).argmax(dim=0, keepdim=True)
        found = fits.any(dim=0)
        h, w = h.gather(0, first)[0].clamp(max=height), w.gather(0, first)[0].clamp(max=width)
        top = _draws.randint(n, 0, height - h + 1, device, generator)
        left = _draws.randint(n, 0, width - w + 1, device, generator)
        noise = None
        if t._value is None:
            noise = torch.randn((n, channels, height, width), device=device, generator=generator)
        return dict(top=top, left=left, height=h, width=w, found=found, noise=noise, size=(height, width))

    def apply(self, leaf: torch.Tensor, values: dict[str, Any]) -> torch.Tensor:
        t = self.transform
        if values["noise"] is None:
            value = fill_tensor(t._fixed, leaf.dtype).to(leaf.device, non_blocking=True)  # (no synchronising copy)
        else:
            noise = values["noise"]
            value = noise.view(noise.shape[0], *[1] * (leaf.ndim - 4), *noise.shape[1:]).to(leaf.dtype)
        height = torch.where(values["found"], values["height"], 0)  # nothing erased where nothing fit
        return M.erase_batch(leaf, values["top"], values["left"], height, values["width"], value)

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        if not bool(values["found"][i]):  # as the single transform says it: the whole image, nothing erased
            return dict(i=0, j=0, h=values["size"][0], w=values["size"][1], v=None)
        top, left, h, w = (int(values[k][i]) for k in ("top", "left", "height", "width"))
        noise = values["noise"]
        v = self.transform._fixed if noise is None else noise[i, :, top : top + h, left : left + w]
        return dict(i=top, j=left, h=h, w=w, v=v)
