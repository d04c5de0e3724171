"""Sample-keyed augmentation: the draws for sample ``i`` depend only on ``(seed, epoch, i)``."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.utils.data

from ..transforms import Transform
from ..transforms._random import using

_MASK = 2**64 - 1


def _splitmix64(x: int) -> int:
    """SplitMix64's output for state ``x``: one step of the golden-ratio counter, then its 64-bit finaliser."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def sample_seed(seed: int, epoch: int, index: int) -> int:
    """The 64-bit seed of sample ``index`` in ``epoch``: ``mix(mix(mix(seed) ^ epoch) ^ index)`` with ``mix``
    SplitMix64's output function (state ``x`` -> its output), a counter-based derivation: no state, no order."""
    return _splitmix64(_splitmix64(_splitmix64(seed) ^ epoch) ^ index)


def _check_int(value: Any, name: str, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not 0 <= value < high:
        raise ValueError(f"{name} must be in [0, {high}), got {value}")
    return value


def _transforms_in(value: Any) -> Iterator[Any]:
    """``value`` and every transform it holds (containers' transforms, through their recorded arguments)."""
    if isinstance(value, Transform):
        yield value
        for argument in value._constructor_arguments().values():
            yield from _transforms_in(argument)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _transforms_in(item)


class Augmented(torch.utils.data.Dataset):
    """``transform(dataset[i])`` with every draw from a generator seeded by ``(seed, epoch, i)`` only.

    The output for an index and epoch is the same whatever the number of DataLoader workers, their order,
    the batch size, the sampler or what ran before, and again after a restart: the per-sample seed is
    :func:`sample_seed` (a SplitMix64 mix of the three numbers) and a fresh ``torch.Generator`` seeded
    with it is the current generator during the call. The global RNG is not touched.

    Call :meth:`set_epoch` before creating the epoch's DataLoader iterator (as with
    ``DistributedSampler``): the epoch lives in a shared-memory tensor, so workers started before (with
    ``persistent_workers=True``) see it too, but batches prefetched before the call keep the old epoch.

    Args:
        dataset: any map-style dataset (``__getitem__``, ``__len__``).
        transform: the pipeline, called with each sample as one input. Transforms in it with a generator
            of their own (``generator=``, a seeded ``Compose``) are refused (``ValueError``): their draws
            would depend on what ran before. Plain functions that draw from torch's RNG themselves are
            not keyed.
        seed: an int in ``[0, 2**64)`` (keyword only).
        epoch: the starting epoch, an int in ``[0, 2**63)`` (keyword only, default 0).

    Example:
        >>> train = Augmented(dataset, T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip()]), seed=0)
        >>> for epoch in range(epochs):
        ...     train.set_epoch(epoch)
        ...     for images, labels in DataLoader(train, batch_size=64, num_workers=4): ...
    """

    def __init__(self, dataset: Any, transform: Callable[[Any], Any], *, seed: int, epoch: int = 0) -> None:
        if not callable(transform):
            raise TypeError(f"transform must be callable, got {type(transform).__name__}")
        for t in _transforms_in(transform):
            if t.generator is not None:
                raise ValueError(
                    f"transform holds {type(t).__name__} with a generator of its own (generator= or seed=): Augmented "
                    "draws every sample from a generator keyed by (seed, epoch, index); remove it"
                )
        self.dataset = dataset
        self.transform = transform
        self.seed = _check_int(seed, "seed", 2**64)
        self._epoch = torch.tensor(_check_int(epoch, "epoch", 2**63), dtype=torch.int64).share_memory_()

    @property
    def epoch(self) -> int:
        """The current epoch (shared with the DataLoader's workers)."""
        return int(self._epoch)

    def set_epoch(self, epoch: int) -> None:
        """Make the next samples those of ``epoch``; call it before creating the epoch's iterator."""
        self._epoch.fill_(_check_int(epoch, "epoch", 2**63))

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> Any:
        index = operator.index(index)
        size = len(self.dataset)
        if not -size <= index < size:
            raise IndexError(f"index {index} out of range for a dataset of {size} samples")
        index %= size
        sample = self.dataset[index]
        generator = torch.Generator().manual_seed(sample_seed(self.seed, self.epoch, index))
        with using(generator):
            return self.transform(sample)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed}, epoch={self.epoch}, size={len(self)}, transform={self.transform!r})"
