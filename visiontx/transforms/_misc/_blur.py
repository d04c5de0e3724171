"""Gaussian blur and Gaussian noise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ... import functional as F
from ..._args import check_number, is_number, parse_kernel_size, sigma_range
from .. import _random
from .._transform import Transform

__all__ = ["GaussianBlur", "GaussianNoise"]


class GaussianBlur(Transform):
    """Blur images and videos with a Gaussian kernel whose ``sigma`` is drawn uniformly per call.

    Masks and boxes pass through.

    Args:
        kernel_size: odd positive size of the kernel: an int or ``(kx, ky)``.
        sigma: positive standard deviation, the same on both axes: a number, or a ``(min, max)`` range
            to draw it from (default ``(0.1, 2.0)``).

    Example:
        >>> T.GaussianBlur(kernel_size=5, sigma=(0.1, 2.0))(image)
    """

    def __init__(self, kernel_size: int | Sequence[int], sigma: float | Sequence[float] = (0.1, 2.0)) -> None:
        super().__init__()
        self.kernel_size = list(parse_kernel_size(kernel_size))
        self.sigma = sigma_range(sigma)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        sigma = _random.uniform(self.sigma[0], self.sigma[1])
        return dict(sigma=[sigma, sigma])

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self.call_kernel(F.gaussian_blur, inpt, self.kernel_size, **params)


class GaussianNoise(Transform):
    """Add Gaussian noise to float and uint8 image tensors and videos (fresh noise per pixel).

    PIL images are refused (``TypeError``); masks and boxes pass through.

    Args:
        mean: mean of the noise on the float ``[0, 1]`` scale (uint8 images: times 255; default 0).
        sigma: non-negative standard deviation on the same scale (default 0.1).
        clip: clamp the result to the dtype's value range (default True).

    Example:
        >>> T.GaussianNoise(sigma=0.05)(image)
    """

    def __init__(self, mean: float = 0.0, sigma: float = 0.1, clip: bool = True) -> None:
        super().__init__()
        self.mean = check_number(mean, "mean")
        if not is_number(sigma) or sigma < 0:
            raise ValueError(f"sigma must be a non-negative number, got {sigma!r}")
        self.sigma, self.clip = float(sigma), bool(clip)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        device = inpt.device if isinstance(inpt, torch.Tensor) else torch.device("cpu")  # (PIL images are refused)
        generator = _random.device_generator(device)
        return self.call_kernel(F.gaussian_noise, inpt, mean=self.mean, sigma=self.sigma, clip=self.clip, generator=generator)
