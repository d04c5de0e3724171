"""Vectorised draws: ``B`` values per parameter in one call, on the batch's device.

Every function takes ``generator`` (None: the default generator of ``device``) and never reads a
value back to the host, so a CUDA batch draws without synchronising.
"""

from __future__ import annotations

import torch


def uniform(
    size: int, low: float | torch.Tensor, high: float | torch.Tensor, device: torch.device,
    generator: torch.Generator | None = None, dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """``size`` draws from ``[low, high)`` (float64 by default: the single-sample draws are Python floats)."""
    unit = torch.rand(size, dtype=torch.float32, device=device, generator=generator).to(dtype)
    return unit * (high - low) + low


def coins(size: int, p: float, device: torch.device, generator: torch.Generator | None = None) -> torch.Tensor:
    """``size`` independent coin flips: True with probability ``p``."""
    return torch.rand(size, device=device, generator=generator) < p


def randint(
    size: int, low: int | torch.Tensor, high: int | torch.Tensor, device: torch.device,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """``size`` ints from ``[low, high)`` (bounds may be per-sample tensors; ``high > low``)."""
    unit = torch.rand(size, dtype=torch.float64, device=device, generator=generator)
    return (unit * (high - low)).floor_().long().clamp_(min=0) + low


def permutations(size: int, n: int, device: torch.device, generator: torch.Generator | None = None) -> torch.Tensor:
    """``[size, n]``: one random permutation of ``range(n)`` per row."""
    return torch.rand(size, n, device=device, generator=generator).argsort(dim=1)


def choices(
    size: int, weights: list[float], device: torch.device, generator: torch.Generator | None = None
) -> torch.Tensor:
    """``size`` indices into ``weights`` (probabilities summing to 1), independently."""
    unit = torch.rand(size, dtype=torch.float64, device=device, generator=generator)
    index = torch.zeros(size, dtype=torch.long, device=device)
    bound = 0.0
    for weight in weights[:-1]:  # compared with Python numbers: no host-to-device copy
        bound += weight
        index += (unit >= bound).long()
    return index
