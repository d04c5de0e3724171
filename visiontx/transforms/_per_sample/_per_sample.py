"""``PerSample``: a transform applied to a batch with one draw per sample."""

from __future__ import annotations

from typing import Any

from torch.utils._pytree import tree_flatten, tree_unflatten

from .. import _random
from .._transform import Transform, flatten_sample
from ._batch import Batch
from ._core import Context, Record, run_transform


class PerSample(Transform):
    """Apply ``transform`` to every sample of a batch with that sample's own random parameters.

    Batched leaves are ``Image`` / ``Video`` / ``Mask`` (and a plain image tensor ``[B, C, H, W]`` when
    the batch holds no ``Image``) with a leading batch dim ``B``; per-sample leaves are lists or tuples
    of length ``B`` (boxes, key points, labels: one entry per sample, as detection collate functions give
    them). The structure comes back as given. Sample ``i`` of the output is ``transform`` applied to
    sample ``i`` alone with the parameters drawn for it (:meth:`forward_with_params` returns them).

    Flips, colour ops, normalisation, blur, noise, erasing and the affine family run vectorised (one
    draw of ``B`` values per parameter on the batch's device, one batched op); other transforms loop
    over the samples; the README's "Per-sample batches" lists which. ``p`` is one coin per sample, and
    ``Compose``, ``RandomApply``, ``RandomChoice`` and ``RandomOrder`` draw per sample too.

    Args:
        transform: a transform, a container of transforms, or any callable of one sample (kept as
            the attribute ``wrapped``).
        generator: (keyword only) a CPU ``torch.Generator`` for every draw, as for any transform. The
            vectorised draws take it on a CPU batch, and on another device a generator of that device seeded
            with one draw of it. Default None: the current generator (of a seeded ``Compose`` or
            ``datasets.Augmented``) the same way, else the device's default generator; transforms that
            loop draw as they do alone.

    Raises:
        ValueError: a batch without a leading batch dim, per-sample lists of another length than ``B``,
            or samples that come out with different sizes (a batch tensor cannot hold them).

    Example:
        >>> augment = T.PerSample(T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip()]))
        >>> images = augment(images)            # [B, 3, H, W] -> [B, 3, 224, 224], one crop per sample
        >>> images, draws = augment.forward_with_params(images)
        >>> draws.params(0)                      # sample 0's parameters, as the single transform takes them
    """

    def __init__(self, transform: Any) -> None:
        super().__init__()
        if isinstance(transform, PerSample) or not callable(transform):
            raise TypeError(f"transform must be a transform or callable (not a PerSample), got {transform!r}")
        self.wrapped = transform  # (``transform`` is the name of Transform's hook)

    def forward(self, *inputs: Any) -> Any:
        return self.forward_with_params(*inputs)[0]

    def forward_with_params(self, *inputs: Any) -> tuple[Any, SampleDraws]:
        """The output and the draws: ``draws.params(i)`` is what sample ``i`` got, in the single transform's
        form (a dict of ``make_params``, None where ``p`` skipped the sample; a list for ``Compose``; see the
        README), for ``i`` in ``range(draws.size)``."""
        with _random.using(self.generator):
            sample = inputs if len(inputs) > 1 else inputs[0]
            originals, spec = tree_flatten(sample)
            flat, restore = flatten_sample(sample)  # torchvision's tensors as visiontx's, and back at the end
            converted = any(a is not b for a, b in zip(flat, originals))
            batch = Batch.split(tree_unflatten(flat, spec) if converted else sample, type(self).__name__)
            context = Context(generator=_random.device_generator(batch.device), unpack=len(inputs) > 1)
            size = batch.size
            batch, record = run_transform(self.wrapped, batch, context)
            output = batch.rebuild()
        return (restore(tree_flatten(output)[0]) if converted else output), SampleDraws(size, record)


class SampleDraws:
    """The parameters each sample of a ``PerSample`` call got: :meth:`params` for ``i`` in ``range(size)``."""

    def __init__(self, size: int, record: Record) -> None:
        self.size, self._record = size, record

    def params(self, i: int) -> Any:
        """Sample ``i``'s parameters, as the single-sample transform takes them (None: not applied)."""
        if not isinstance(i, int) or not 0 <= i < self.size:
            raise IndexError(f"sample index must be an int in [0, {self.size}), got {i!r}")
        return self._record.params(i)
