"""Random non-affine warps: perspective and elastic (torchvision v2's names and arguments)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ... import functional as F
from ..._args import FillSpec, axis_pair, is_number
from ...functional import InterpolationMode
from .. import _random
from .._transform import RandomApplyTransform, Transform
from .._utils import query_size
from ._affine import _WarpMixin

__all__ = ["ElasticTransform", "RandomPerspective"]


class RandomPerspective(_WarpMixin, RandomApplyTransform):
    """With probability ``p``, warp the sample by a random perspective (its corners moved inwards).

    Each corner moves by a random amount up to ``distortion_scale`` of half the width (horizontally)
    and of half the height (vertically); images, videos, masks and boxes follow the same warp.

    Args:
        distortion_scale: how far the corners may move, in ``[0, 1]`` (default 0.5; 0 leaves the sample as it is).
        p: probability of the warp (default 0.5).
        interpolation: the filter (default bilinear); see ``visiontx.transforms``.
        fill: value of uncovered pixels (default 0); see ``visiontx.transforms`` for the per-channel
            and dict forms.

    Example:
        >>> T.RandomPerspective(distortion_scale=0.3, p=1.0)(image, boxes)
    """

    def __init__(
        self,
        distortion_scale: float = 0.5,
        p: float = 0.5,
        interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
        fill: FillSpec = 0,
    ) -> None:
        super().__init__(p=p)
        if not is_number(distortion_scale) or not 0.0 <= distortion_scale <= 1.0:
            raise ValueError(f"distortion_scale must be a number in [0, 1], got {distortion_scale!r}")
        self.distortion_scale = float(distortion_scale)
        self._setup_warp(interpolation, fill)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = query_size(flat_inputs)
        bound_h = int(self.distortion_scale * (height // 2)) + 1
        bound_w = int(self.distortion_scale * (width // 2)) + 1

        # torchvision's eight draws, x then y of each corner: offsets in [0, bound) from the near edge
        x0, y0, x1, y1, x2, y2, x3, y3 = _random.randints((bound_w, bound_h) * 4)
        right, bottom = width - bound_w, height - bound_h
        endpoints = [[x0, y0], [right + x1, y1], [right + x2, bottom + y2], [x3, bottom + y3]]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return dict(startpoints=startpoints, endpoints=endpoints)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        fill = self._fill_for(inpt)
        return self.call_kernel(F.perspective, inpt, **params, interpolation=self.interpolation, fill=fill)


class ElasticTransform(_WarpMixin, Transform):
    """Elastic warp of the sample by a random displacement field, drawn once per call for every input.

    The field is uniform noise in ``[-1, 1]`` smoothed by a Gaussian of ``sigma`` pixels and scaled by
    ``alpha`` pixels.

    Args:
        alpha: magnitude of the displacement in pixels, non-negative: a number or ``(x, y)`` (default 50).
        sigma: standard deviation of the smoothing in pixels, non-negative: a number or ``(x, y)``
            (default 5; 0: no smoothing).
        interpolation: the filter (default bilinear); see ``visiontx.transforms``.
        fill: value of uncovered pixels (default 0); see ``visiontx.transforms`` for the per-channel
            and dict forms.

    Example:
        >>> T.ElasticTransform(alpha=50.0, sigma=5.0)(image, mask)
    """

    def __init__(
        self,
        alpha: float | Sequence[float] = 50.0,
        sigma: float | Sequence[float] = 5.0,
        interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
        fill: FillSpec = 0,
    ) -> None:
        super().__init__()
        self.alpha = list(axis_pair(alpha, "alpha", error=ValueError))
        self.sigma = list(axis_pair(sigma, "sigma", error=ValueError))
        self._setup_warp(interpolation, fill)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        return dict(displacement=self._displacement(*query_size(flat_inputs)))

    def _displacement(
        self,
        height: int,
        width: int,
        n: int = 1,
        generator: torch.Generator | None = None,
        device: torch.device | None = None,
    ) -> torch.Tensor:
        """An ``n x H x W x 2`` field, torchvision's draws: per axis, uniform noise in ``[-1, 1]`` (``2 rand - 1``
        from ``generator``, or the current one; ``PerSample`` passes its own, on ``device``) blurred by
        ``F.gaussian_blur`` (kernel ``8 sigma + 1``, its radius capped below the image size) and scaled to
        ``alpha`` pixels, in ``grid_sample``'s normalised units."""
        if height == 0 or width == 0 or n == 0:  # nothing to displace (and no noise to blur)
            return torch.zeros(n, height, width, 2, device=device)
        generator = generator or _random.current_generator()
        field = None
        for axis, extent in ((0, width), (1, height)):
            noise = _random.uniform_tensor((n, 1, height, width), generator, device, centred=True)
            if field is None:  # planar, on the draws' device: each axis one contiguous plane
                field = noise.new_empty((n, 2, height, width))
            if self.sigma[axis] > 0:
                radius = int(8 * self.sigma[axis] + 1) // 2
                kernel_size = [2 * min(radius, width - 1) + 1, 2 * min(radius, height - 1) + 1]
                noise = F.gaussian_blur(noise, kernel_size, self.sigma)
            torch.mul(noise, self.alpha[axis], out=field[:, axis : axis + 1]).div_(extent)
        return field.permute(0, 2, 3, 1)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        fill = self._fill_for(inpt)
        return self.call_kernel(F.elastic, inpt, params["displacement"], interpolation=self.interpolation, fill=fill)
