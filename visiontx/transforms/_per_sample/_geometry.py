"""Flips and the affine family on batches: index masks for flips, one batched warp of all samples
through per-sample 3 x 3 matrices for crops, resized crops, affine warps, rotations and perspectives,
and one batched sampling of per-sample displacement fields for the elastic warp."""

from __future__ import annotations

import abc
from typing import Any

import torch

from ...datapoints import Mask
from ...functional import InterpolationMode
from ...functional._geometry import _batched as G
from ...functional._geometry._warp import sample_displaced
from .._geometry import (
    ElasticTransform,
    RandomAffine,
    RandomCrop,
    RandomHorizontalFlip,
    RandomPerspective,
    RandomResizedCrop,
    RandomRotation,
    RandomVerticalFlip,
)
from .._utils import FillMixin
from . import _draws
from ._batch import Batch
from ._core import Context, Leaf, register


@register(RandomHorizontalFlip, RandomVerticalFlip)
class BatchedFlip(Leaf):
    """Every sample flipped, then each keeps the flip or its input by its coin."""

    moves_masks = True

    def apply(self, leaf: torch.Tensor, values: dict[str, Any]) -> torch.Tensor:
        return leaf.flip(-1 if isinstance(self.transform, RandomHorizontalFlip) else -2)


class Warp(Leaf):
    """A transform whose samples each move through their own matrix: :meth:`draw` gives the common output size
    ``out_size`` and the draws :meth:`inverse` makes the matrices of (``[B, 3, 3]`` output -> input), when a
    batched warp needs them (not the CPU's per-image path); images sample with the transform's interpolation,
    masks with nearest neighbours, both with the transform's fill for their type."""

    moves_masks = True
    takes_datapoints = True
    projective = False

    def batched(self, leaf: torch.Tensor) -> bool:
        """Whether the batched warp gives this leaf what the single transform gives (else a loop)."""
        return True

    @abc.abstractmethod
    def matrices(self, values: dict[str, Any]) -> torch.Tensor:
        """The ``[B, 3, 3]`` output -> input matrices of :meth:`draw`'s ``values``."""

    def source_box(self, values: dict[str, Any]) -> torch.Tensor | None:
        """``warp_batch``'s bounds on the source points of each sample (None: none)."""
        return None

    def inverse(self, values: dict[str, Any]) -> torch.Tensor:
        """:meth:`matrices`, made once per draw (kept in ``values``)."""
        if "inverse" not in values:
            values["inverse"] = self.matrices(values)
        return values["inverse"]

    def apply(self, leaf: torch.Tensor, values: dict[str, Any]) -> torch.Tensor:
        if not self.batched(leaf):
            return self.apply_per_image(leaf, values)
        mode = getattr(self.transform, "interpolation", InterpolationMode.NEAREST)
        mode = InterpolationMode.NEAREST if isinstance(leaf, Mask) else mode
        return G.warp_batch(
            leaf.as_subclass(torch.Tensor),
            self.inverse(values),
            values["out_size"],
            mode,
            self.transform._fill_for(leaf) if isinstance(self.transform, FillMixin) else None,
            projective=self.projective,
            source_box=self.source_box(values),
        )


def _affine_params(values: dict[str, Any], i: int) -> dict[str, Any]:
    return dict(
        angle=float(values["angle"][i]),
        translate=[int(v) for v in values["translate"][i]],
        scale=float(values["scale"][i]),
        shear=[float(v) for v in values["shear"][i]],
    )


def _center(transform: Any, size: tuple[int, int]) -> list[float]:
    return list(transform.center) if transform.center is not None else [size[1] * 0.5, size[0] * 0.5]


@register(RandomAffine)
class BatchedAffine(Warp):
    listed = ("angle", "translate", "scale", "shear")

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        t, (height, width), n = self.transform, batch.spatial_size, batch.size
        device, generator = batch.device, context.generator

        def uniform(low: float, high: float) -> torch.Tensor:
            return _draws.uniform(n, low, high, device, generator)

        zeros = torch.zeros(n, dtype=torch.float64, device=device)
        angle = uniform(*t.degrees)
        translate = torch.stack([zeros, zeros], dim=1)
        if t.translate is not None:
            max_dx, max_dy = t.translate[0] * width, t.translate[1] * height
            translate = torch.stack([uniform(-max_dx, max_dx), uniform(-max_dy, max_dy)], dim=1).round()
        scale = zeros + 1.0 if t.scale is None else uniform(*t.scale)
        shear = torch.stack([zeros, zeros], dim=1)
        if t.shear is not None:
            shear[:, 0] = uniform(t.shear[0], t.shear[1])
            if len(t.shear) == 4:
                shear[:, 1] = uniform(t.shear[2], t.shear[3])
        return dict(angle=angle, translate=translate, scale=scale, shear=shear, out_size=(height, width))

    def matrices(self, values: dict[str, Any]) -> torch.Tensor:
        angle, translate, scale, shear = (values[key] for key in ("angle", "translate", "scale", "shear"))
        return G.invert(G.affine_matrices(angle, translate, scale, shear, _center(self.transform, values["out_size"])))

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        return _affine_params(values, i)


@register(RandomRotation)
class BatchedRotation(Warp):
    """Rotations about the centre keep the size; with ``expand`` each sample has its own size: a loop,
    whose samples cannot be stacked unless their sizes agree."""

    listed = ("angle",)

    def batched(self, leaf: torch.Tensor) -> bool:
        return not self.transform.expand

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        t, size, n = self.transform, batch.spatial_size, batch.size
        angle = _draws.uniform(n, t.degrees[0], t.degrees[1], batch.device, context.generator)
        return dict(angle=angle, out_size=size)

    def matrices(self, values: dict[str, Any]) -> torch.Tensor:
        angle = values["angle"]
        zeros = angle.new_zeros(angle.shape[0], 2)
        center = _center(self.transform, values["out_size"])
        return G.invert(G.affine_matrices(-angle, zeros, torch.ones_like(angle), zeros, center))

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        return dict(angle=float(values["angle"][i]))


@register(RandomPerspective)
class BatchedPerspective(Warp):
    projective = True
    listed = ("endpoints",)

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        (height, width), n, device, generator = batch.spatial_size, batch.size, batch.device, context.generator
        bound_h = int(self.transform.distortion_scale * (height // 2)) + 1
        bound_w = int(self.transform.distortion_scale * (width // 2)) + 1

        def draw(low: int, high: int) -> torch.Tensor:
            return _draws.randint(n, low, high, device, generator)

        x_low, x_high = (0, bound_w), (width - bound_w, width)
        y_low, y_high = (0, bound_h), (height - bound_h, height)
        corners = [(x_low, y_low), (x_high, y_low), (x_high, y_high), (x_low, y_high)]
        endpoints = torch.stack([torch.stack([draw(*xs), draw(*ys)], dim=1) for xs, ys in corners], dim=1)
        return dict(endpoints=endpoints, out_size=(height, width))

    def matrices(self, values: dict[str, Any]) -> torch.Tensor:
        endpoints, (height, width) = values["endpoints"], values["out_size"]
        start = torch.zeros(4, 2, dtype=torch.float64, device=endpoints.device)
        start[1:3, 0], start[2:, 1] = width - 1, height - 1  # the corners, set without a host-to-device copy
        return G.perspective_inverses(start.expand(endpoints.shape[0], 4, 2), endpoints.to(torch.float64))

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        height, width = values["out_size"]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return dict(startpoints=startpoints, endpoints=values["endpoints"][i])


@register(RandomResizedCrop)
class BatchedResizedCrop(Warp):
    """Up to 10 tries per sample, all drawn at once, each sample taking its first that fits (else the
    centre crop). The batched warp clamps source points to the crop, as the resize of a crop repeats its
    edges: the same bilinear sampling, where nothing shrinks. Masks (nearest), other filters and crops
    that may shrink with ``antialias`` loop."""

    listed = ("top", "left", "height", "width")

    def batched(self, leaf: torch.Tensor) -> bool:
        t = self.transform
        shrinks = leaf.shape[-2] > t.size[0] or leaf.shape[-1] > t.size[1]
        bilinear = t.interpolation == InterpolationMode.BILINEAR
        return not isinstance(leaf, Mask) and bilinear and not (t.antialias and shrinks)

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        t, (height, width), n = self.transform, batch.spatial_size, batch.size
        device, generator = batch.device, context.generator
        tries = 10
        area = _draws.uniform(tries * n, *t.scale, device, generator).view(tries, n) * (height * width)
        log_ratio = _draws.uniform(tries * n, float(t._log_ratio[0]), float(t._log_ratio[1]), device, generator)
        ratio = log_ratio.view(tries, n).exp()
        w, h = (area * ratio).sqrt().round(), (area / ratio).sqrt().round()
        fits = (w > 0) & (w <= width) & (h > 0) & (h <= height)
        first = fits.to(torch.uint8).argmax(dim=0, keepdim=True)  # the first try that fits
        fallback = t._fallback(height, width)
        found = fits.any(dim=0)
        w = torch.where(found, w.gather(0, first)[0], float(fallback["width"])).long()
        h = torch.where(found, h.gather(0, first)[0], float(fallback["height"])).long()
        top = torch.where(found, _draws.randint(n, 0, height - h + 1, device, generator), (height - h) // 2)
        left = torch.where(found, _draws.randint(n, 0, width - w + 1, device, generator), (width - w) // 2)
        return dict(top=top, left=left, height=h, width=w, out_size=tuple(t.size))

    def matrices(self, values: dict[str, Any]) -> torch.Tensor:
        (out_h, out_w), top, left = values["out_size"], values["top"], values["left"]
        inverse = G.translations(left.double(), top.double())
        inverse[:, 0, 0], inverse[:, 1, 1] = values["width"].double() / out_w, values["height"].double() / out_h
        return inverse

    def source_box(self, values: dict[str, Any]) -> torch.Tensor:
        top, left, h, w = (values[key] for key in ("top", "left", "height", "width"))
        return torch.stack([left + 0.5, top + 0.5, left + w - 0.5, top + h - 0.5], dim=1).double()

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        return {k: int(values[k][i]) for k in ("top", "left", "height", "width")}


@register(RandomCrop)
class BatchedCrop(Warp):
    """Integer shifts sampled with nearest neighbours (exact), the constant padding as the fill; other
    padding modes loop."""

    listed = ("top", "left")

    def batched(self, leaf: torch.Tensor) -> bool:
        return self.transform.padding_mode == "constant"

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        t = self.transform
        (left, top, right, bottom), (height, width) = t.padded(*batch.spatial_size)
        crop_height, crop_width = t.size
        n, device, generator = batch.size, batch.device, context.generator
        crop_top = _draws.randint(n, 0, height - crop_height + 1, device, generator)
        crop_left = _draws.randint(n, 0, width - crop_width + 1, device, generator)
        padding = [left, top, right, bottom]
        return dict(padding=padding, top=crop_top, left=crop_left, out_size=tuple(t.size))

    def matrices(self, values: dict[str, Any]) -> torch.Tensor:
        left, top = values["padding"][:2]
        return G.translations((values["left"] - left).double(), (values["top"] - top).double())

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        return dict(padding=values["padding"], top=int(values["top"][i]), left=int(values["left"][i]))



@register(ElasticTransform)
class BatchedElastic(Leaf):
    """A displacement field per sample (the single transform's noise and blur, on ``[B, 1, H, W]``), one
    batched sampling (no matrices: not a :class:`Warp`)."""

    moves_masks = True
    takes_datapoints = True

    def draw(self, batch: Batch, context: Context) -> dict[str, Any]:
        transform, (height, width) = self.transform, batch.spatial_size
        displacement = transform._displacement(height, width, batch.size, context.generator, batch.device)
        return dict(displacement=displacement)

    def apply(self, leaf: torch.Tensor, values: dict[str, Any]) -> torch.Tensor:
        mode = InterpolationMode.NEAREST if isinstance(leaf, Mask) else self.transform.interpolation
        fill = self.transform._fill_for(leaf)
        return sample_displaced(leaf.as_subclass(torch.Tensor), values["displacement"], mode, fill)

    def sample_params(self, values: dict[str, Any], i: int) -> dict[str, Any]:
        return dict(displacement=values["displacement"][i : i + 1])
