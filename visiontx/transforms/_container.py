"""Transforms that combine other transforms: Compose, RandomApply, RandomChoice, RandomOrder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from .._args import check_probability
from . import _random
from ._fusion import FusedRun, split_runs, whole_pixel_stages
from ._misc._normalize import own_image_stages
from ._transform import Transform


def _check_transforms(transforms: Any) -> list[Callable]:
    if isinstance(transforms, nn.ModuleList):  # as torchvision's RandomApply takes
        transforms = list(transforms)
    if not isinstance(transforms, Sequence) or isinstance(transforms, str):
        raise TypeError(f"transforms must be a sequence of callables, got {type(transforms).__name__}")
    for t in transforms:
        if not callable(t):
            raise TypeError(f"transforms must contain only callables, got {t!r}")
    return list(transforms)


def _check_seed(seed: Any) -> int:
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return seed


class _Container(Transform):
    def __init__(self, transforms: Sequence[Callable]) -> None:
        super().__init__()
        self.transforms = _check_transforms(transforms)

    def forward(self, *inputs: Any) -> Any:
        return self._run(self._steps(self._choose()), inputs)

    def _choose(self) -> dict[str, Any]:
        """This call's random choice, as JSON data (what a record stores): none for ``Compose``."""
        return {}

    def _steps(self, choice: dict[str, Any]) -> list[Callable]:
        """The transforms to apply, in order, for ``choice``."""
        return self.transforms

    def _stages(self, steps: list[Callable]) -> list[Callable]:
        """``steps`` as the callables ``_run`` calls (fused runs are one stage each)."""
        return steps

    @staticmethod
    def _run(transforms: Sequence[Callable], inputs: tuple[Any, ...]) -> Any:
        """Call each transform on the output of the previous one, as torchvision's containers: called with
        several inputs, each transform gets them unpacked (``t(image, label)``) and returns them packed;
        one input goes as it is."""
        unpack = len(inputs) > 1
        outputs = inputs if unpack else inputs[0]
        for transform in transforms:
            outputs = transform(*inputs)
            inputs = outputs if unpack else (outputs,)
        return outputs

    def _constructor_arguments(self) -> dict[str, Any]:
        return dict(super()._constructor_arguments(), transforms=list(self.transforms))


class Compose(_Container):
    """Apply transforms one after the other to the whole sample.

    Called with several inputs, ``Compose(...)(image, label)``, it calls each transform with them unpacked
    (``t(image, label)``, so plain modules written as ``forward(image, label)`` work) and passes its
    returned tuple on to the next, as torchvision's containers do; one input (a tuple or dict sample
    included) is passed as it is. ``RandomApply``, ``RandomChoice`` and ``RandomOrder`` do the same.
    A ``Normalize`` right after a ``ToDtype`` normalises in place the images that ``ToDtype`` has just made
    (the same values, one float image fewer to allocate). A run of whole-pixel transforms (pads, crops,
    ``RandomIoUCrop``, flips) holding a ``RandomZoomOut`` crops each image, video and mask once, never
    building the zoomed-out canvas (the same values and draws).

    Args:
        transforms: a sequence of callables (transforms or any function of the sample).
        fuse_geometry: resample each run of consecutive geometric transforms once (default False: each
            transform resamples, as torchvision). The random draws are the same; images, videos and masks
            sample the input once through the run's composed geometry (the highest-quality interpolation
            of the run, its fill, antialiased when a resize of the run asks and the composition shrinks),
            boxes map their corners once and are clamped once at the end. See the README's "Fused
            geometry" for the rules.
        seed: an int in ``[0, 2**64)``: the Compose owns a ``torch.Generator`` seeded with it, which its
            transforms without a ``generator`` of their own draw from (keyword only; default None: the
            current generator, else torch's global RNG). A seeded pipeline never touches the global RNG,
            and ``to_dict`` stores the seed. Its draws continue from call to call; for DataLoader workers
            use ``datasets.Augmented``, whose draws depend only on (seed, epoch, index).

    Example:
        >>> Compose([RandomHorizontalFlip(), ToDtype(torch.float32, scale=True)])(image, boxes)
        >>> Compose([RandomRotation(30), RandomPerspective(p=1), Resize(256)], fuse_geometry=True)(image, boxes)
    """

    def __init__(self, transforms: Sequence[Callable], *, fuse_geometry: bool = False, seed: int | None = None) -> None:
        super().__init__(transforms)
        self.fuse_geometry = bool(fuse_geometry)
        if seed is not None:
            if self.generator is not None:
                raise ValueError("Compose takes a seed or a generator, not both")
            self.generator = torch.Generator().manual_seed(_check_seed(seed))

    def forward(self, *inputs: Any) -> Any:
        # record / replay walk _stages themselves, a record node per transform: joining ToDtype and Normalize,
        # and whole-pixel runs (which change where the values are written, not what they are), is for plain
        # calls only
        return self._run(own_image_stages(whole_pixel_stages(self._stages(self.transforms))), inputs)

    def _stages(self, steps: list[Callable]) -> list[Callable]:
        if not self.fuse_geometry:
            return steps
        stages: list[Callable] = []
        for fusible, run in split_runs(steps):
            stages.extend([FusedRun(run)] if fusible and len(run) > 1 else run)
        return stages


class RandomApply(_Container):
    """Apply all of ``transforms`` (in order) with probability ``p``, else none of them.

    Args:
        transforms: a sequence of callables, applied together.
        p: probability of applying them, in ``[0, 1]`` (default 0.5).

    Example:
        >>> T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4), T.RandomGrayscale(p=1.0)], p=0.8)(image)
    """

    def __init__(self, transforms: Sequence[Callable], p: float = 0.5) -> None:
        super().__init__(transforms)
        self.p = check_probability(p)

    def _choose(self) -> dict[str, Any]:
        return {"applied": _random.rand() < self.p}

    def _steps(self, choice: dict[str, Any]) -> list[Callable]:
        return self.transforms if choice["applied"] else []


class RandomChoice(_Container):
    """Apply one of ``transforms``, picked at random per call.

    Args:
        transforms: a non-empty sequence of callables.
        p: one non-negative weight per transform (normalized to probabilities; their sum must be
            positive). None (default): all equally likely.

    Example:
        >>> T.RandomChoice([T.RandomRotation(10), T.RandomAffine(0, shear=10)], p=[0.7, 0.3])(image)
    """

    def __init__(self, transforms: Sequence[Callable], p: Sequence[float] | None = None) -> None:
        super().__init__(transforms)
        if p is None:
            p = [1.0] * len(self.transforms)
        if not isinstance(p, Sequence) or len(p) != len(self.transforms):
            raise ValueError(f"p must have one weight per transform ({len(self.transforms)}), got {p!r}")
        if not self.transforms or any(w < 0 for w in p) or sum(p) <= 0:
            raise ValueError(f"p must hold non-negative weights with a positive sum, got {p!r}")
        self.p = [w / sum(p) for w in p]

    def _choose(self) -> dict[str, Any]:
        return {"index": _random.choice(self.p)}

    def _steps(self, choice: dict[str, Any]) -> list[Callable]:
        return [self.transforms[choice["index"]]]


class RandomOrder(_Container):
    """Apply all of ``transforms``, in a random order drawn per call.

    Args:
        transforms: a sequence of callables.
    """

    def _choose(self) -> dict[str, Any]:
        return {"order": _random.randperm(len(self.transforms))}

    def _steps(self, choice: dict[str, Any]) -> list[Callable]:
        return [self.transforms[i] for i in choice["order"]]
