"""Automatic augmentation policies: AutoAugment, RandAugment, TrivialAugmentWide and AugMix.

Each works on a single image or video per sample (tensor, ``Image``, ``Video`` or PIL); bounding
boxes and masks are refused, since most of the ops have no meaning for them. Parameters are drawn
from torch's RNG in the same order as torchvision, so a seed gives the same choice of ops.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from typing import Any

import PIL.Image
import torch

from .. import functional as F
from .._args import FillSpec, is_number
from .._torchvision_interop import from_torchvision_enum
from ..datapoints import BoundingBox, Image, KeyPoints, Mask, Video
from ..functional import InterpolationMode
from ..functional._dtype import max_value
from . import _random
from ._transform import Transform
from ._utils import FillMixin, is_pure_tensor

__all__ = ["AugMix", "AutoAugment", "AutoAugmentPolicy", "RandAugment", "TrivialAugmentWide"]

# magnitudes(num_bins, height, width) -> a tensor of num_bins magnitudes, or None for ops without one
Magnitudes = Callable[[int, int, int], "torch.Tensor | None"]


class AutoAugmentPolicy(enum.Enum):
    """The policies learned by AutoAugment on each dataset.

    An enum of ``IMAGENET``, ``CIFAR10`` and ``SVHN``; ``AutoAugmentPolicy("cifar10")`` looks a member up
    by its value. ``AutoAugment`` also takes torchvision's members.
    """

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


def _linear(high: float) -> Magnitudes:
    return lambda num_bins, height, width: torch.linspace(0.0, high, num_bins)


def _none(num_bins: int, height: int, width: int) -> None:
    return None


def _posterize_bits(start: int, span: int) -> Magnitudes:
    return lambda num_bins, height, width: (start - torch.arange(num_bins) / ((num_bins - 1) / span)).round().int()


def _solarize(num_bins: int, height: int, width: int) -> torch.Tensor:
    return torch.linspace(1.0, 0.0, num_bins)


# op name -> (magnitudes, signed); the order of the keys is part of the random draw
_GEOMETRY_SPACE: dict[str, tuple[Magnitudes, bool]] = {
    "ShearX": (_linear(0.3), True),
    "ShearY": (_linear(0.3), True),
    "TranslateX": (lambda n, h, w: torch.linspace(0.0, 150.0 / 331.0 * w, n), True),
    "TranslateY": (lambda n, h, w: torch.linspace(0.0, 150.0 / 331.0 * h, n), True),
    "Rotate": (_linear(30.0), True),
}
_ENHANCE_SPACE: dict[str, tuple[Magnitudes, bool]] = {
    name: (_linear(0.9), True) for name in ("Brightness", "Color", "Contrast", "Sharpness")
}
_HISTOGRAM_SPACE: dict[str, tuple[Magnitudes, bool]] = {
    "Posterize": (_posterize_bits(8, 4), False),
    "Solarize": (_solarize, False),
    "AutoContrast": (_none, False),
    "Equalize": (_none, False),
}
_AUTO_AUGMENT_SPACE = {**_GEOMETRY_SPACE, **_ENHANCE_SPACE, **_HISTOGRAM_SPACE, "Invert": (_none, False)}
_RAND_AUGMENT_SPACE = {"Identity": (_none, False), **_GEOMETRY_SPACE, **_ENHANCE_SPACE, **_HISTOGRAM_SPACE}
_TRIVIAL_AUGMENT_SPACE: dict[str, tuple[Magnitudes, bool]] = {
    "Identity": (_none, False),
    "ShearX": (_linear(0.99), True),
    "ShearY": (_linear(0.99), True),
    "TranslateX": (_linear(32.0), True),
    "TranslateY": (_linear(32.0), True),
    "Rotate": (_linear(135.0), True),
    **{name: (_linear(0.99), True) for name in ("Brightness", "Color", "Contrast", "Sharpness")},
    "Posterize": (_posterize_bits(8, 6), False),
    **{name: _HISTOGRAM_SPACE[name] for name in ("Solarize", "AutoContrast", "Equalize")},
}
_AUGMIX_PARTIAL_SPACE: dict[str, tuple[Magnitudes, bool]] = {
    "ShearX": (_linear(0.3), True),
    "ShearY": (_linear(0.3), True),
    "TranslateX": (lambda n, h, w: torch.linspace(0.0, w / 3.0, n), True),
    "TranslateY": (lambda n, h, w: torch.linspace(0.0, h / 3.0, n), True),
    "Rotate": (_linear(30.0), True),
    "Posterize": (_posterize_bits(4, 4), False),
    **{name: _HISTOGRAM_SPACE[name] for name in ("Solarize", "AutoContrast", "Equalize")},
}
_AUGMIX_SPACE = {**_AUGMIX_PARTIAL_SPACE, **_ENHANCE_SPACE}


def _shear(image: Any, shear: list[float], interpolation: InterpolationMode, fill: Any) -> Any:
    return F.affine(image, angle=0.0, translate=[0, 0], scale=1.0, shear=shear,
                    interpolation=interpolation, fill=fill, center=[0, 0])


def _translate(image: Any, translate: list[int], interpolation: InterpolationMode, fill: Any) -> Any:
    return F.affine(image, angle=0.0, translate=translate, scale=1.0, shear=[0.0, 0.0],
                    interpolation=interpolation, fill=fill)


def _solarize_op(image: Any, magnitude: float) -> Any:
    bound = 255 if isinstance(image, PIL.Image.Image) else max_value(image.dtype)
    return F.solarize(image, threshold=bound * magnitude)


# op name -> fn(image, magnitude, interpolation, fill)
_OPS: dict[str, Callable[[Any, float, InterpolationMode, Any], Any]] = {
    "Identity": lambda img, m, interp, fill: img,
    "ShearX": lambda img, m, interp, fill: _shear(img, [math.degrees(math.atan(m)), 0.0], interp, fill),
    "ShearY": lambda img, m, interp, fill: _shear(img, [0.0, math.degrees(math.atan(m))], interp, fill),
    "TranslateX": lambda img, m, interp, fill: _translate(img, [int(m), 0], interp, fill),
    "TranslateY": lambda img, m, interp, fill: _translate(img, [0, int(m)], interp, fill),
    "Rotate": lambda img, m, interp, fill: F.rotate(img, angle=m, interpolation=interp, fill=fill),
    "Brightness": lambda img, m, interp, fill: F.adjust_brightness(img, brightness_factor=1.0 + m),
    "Color": lambda img, m, interp, fill: F.adjust_saturation(img, saturation_factor=1.0 + m),
    "Contrast": lambda img, m, interp, fill: F.adjust_contrast(img, contrast_factor=1.0 + m),
    "Sharpness": lambda img, m, interp, fill: F.adjust_sharpness(img, sharpness_factor=1.0 + m),
    "Posterize": lambda img, m, interp, fill: F.posterize(img, bits=int(m)),
    "Solarize": lambda img, m, interp, fill: _solarize_op(img, m),
    "AutoContrast": lambda img, m, interp, fill: F.autocontrast(img),
    "Equalize": lambda img, m, interp, fill: F.equalize(img),
    "Invert": lambda img, m, interp, fill: F.invert(img),
}


def _signed(magnitude: float, signed: bool) -> float:
    return -magnitude if signed and _random.rand() <= 0.5 else magnitude


def _random_op(space: dict[str, tuple[Magnitudes, bool]]) -> tuple[str, tuple[Magnitudes, bool]]:
    names = tuple(space)
    name = names[_random.randint(len(names))]
    return name, space[name]


def _check_int(value: Any, name: str, low: int, high: float = math.inf) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in [{low}, {high}], got {value!r}")
    return value


class _AutoAugmentBase(FillMixin, Transform):
    """Shared checks and op application; subclasses draw ``ops``: a list of ``(name, magnitude)``."""

    def __init__(self, interpolation: InterpolationMode | str | int, fill: FillSpec) -> None:
        super().__init__()
        self.interpolation = InterpolationMode.parse(interpolation)
        self._setup_fill(fill)

    def check_inputs(self, flat_inputs: list[Any]) -> None:
        for inpt in flat_inputs:
            if isinstance(inpt, (BoundingBox, KeyPoints, Mask)):
                raise TypeError(
                    f"{type(self).__name__}() transforms a single image or video; "
                    f"{type(inpt).__name__} inputs are not supported"
                )

    def _image_size(self, flat_inputs: list[Any]) -> tuple[int, int]:
        images = [i for i in flat_inputs if isinstance(i, (Image, Video, PIL.Image.Image)) or is_pure_tensor(i)]
        if len(images) != 1:
            raise TypeError(f"{type(self).__name__}() needs exactly one image or video per sample, got {len(images)}")
        height, width = F.get_spatial_size(images[0])
        return height, width

    def _apply(self, inpt: Any, ops: list[tuple[str, float]]) -> Any:
        fill = self._fill_for(inpt)
        for name, magnitude in ops:
            inpt = _OPS[name](inpt, magnitude, self.interpolation, fill)
        return inpt

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        return self._apply(inpt, params["ops"])


class AutoAugment(_AutoAugmentBase):
    """AutoAugment (Cubuk et al., 2018): one of the policy's sub-policies, each op with its probability.

    Args:
        policy: an :class:`AutoAugmentPolicy` (default IMAGENET; CIFAR10 or SVHN), or torchvision's member.
        interpolation: the filter of the geometric ops (default nearest); see ``visiontx.transforms``.
        fill: value of the pixels the geometric ops uncover (default None: zeros); see
            ``visiontx.transforms`` for the per-channel and dict forms.

    Example:
        >>> T.AutoAugment(T.AutoAugmentPolicy.CIFAR10)(image)
    """

    def __init__(
        self,
        policy: AutoAugmentPolicy = AutoAugmentPolicy.IMAGENET,
        interpolation: InterpolationMode | str | int = InterpolationMode.NEAREST,
        fill: FillSpec = None,
    ) -> None:
        super().__init__(interpolation, fill)
        policy = from_torchvision_enum(policy, AutoAugmentPolicy)
        if not isinstance(policy, AutoAugmentPolicy):
            raise TypeError(f"policy must be an AutoAugmentPolicy, got {policy!r}")
        self.policy = policy

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = self._image_size(flat_inputs)
        sub_policies = _POLICIES[self.policy]
        ops = []
        for name, probability, level in sub_policies[_random.randint(len(sub_policies))]:
            if not _random.rand() <= probability:
                continue
            magnitudes_fn, signed = _AUTO_AUGMENT_SPACE[name]
            magnitudes = magnitudes_fn(10, height, width)
            magnitude = 0.0 if magnitudes is None else _signed(float(magnitudes[level]), signed)
            ops.append((name, magnitude))
        return dict(ops=ops)


class RandAugment(_AutoAugmentBase):
    """RandAugment (Cubuk et al., 2019): ``num_ops`` ops drawn uniformly, all at ``magnitude``.

    Args:
        num_ops: number of ops applied in sequence, ``>= 0`` (default 2).
        magnitude: the magnitude bin, in ``[0, num_magnitude_bins)`` (default 9).
        num_magnitude_bins: number of magnitude levels, ``>= 2`` (default 31).
        interpolation: as in :class:`AutoAugment` (default nearest).
        fill: as in :class:`AutoAugment` (default None).
    """

    def __init__(
        self,
        num_ops: int = 2,
        magnitude: int = 9,
        num_magnitude_bins: int = 31,
        interpolation: InterpolationMode | str | int = InterpolationMode.NEAREST,
        fill: FillSpec = None,
    ) -> None:
        super().__init__(interpolation, fill)
        self.num_ops = _check_int(num_ops, "num_ops", 0)
        self.num_magnitude_bins = _check_int(num_magnitude_bins, "num_magnitude_bins", 2)
        self.magnitude = _check_int(magnitude, "magnitude", 0, num_magnitude_bins - 1)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = self._image_size(flat_inputs)
        ops = []
        for _ in range(self.num_ops):
            name, (magnitudes_fn, signed) = _random_op(_RAND_AUGMENT_SPACE)
            magnitudes = magnitudes_fn(self.num_magnitude_bins, height, width)
            magnitude = 0.0 if magnitudes is None else _signed(float(magnitudes[self.magnitude]), signed)
            ops.append((name, magnitude))
        return dict(ops=ops)


class TrivialAugmentWide(_AutoAugmentBase):
    """TrivialAugment (Müller and Hutter, 2021), wide space: one op at a uniformly drawn magnitude.

    Args:
        num_magnitude_bins: number of magnitude levels, ``>= 2`` (default 31).
        interpolation: as in :class:`AutoAugment` (default nearest).
        fill: as in :class:`AutoAugment` (default None).
    """

    def __init__(
        self,
        num_magnitude_bins: int = 31,
        interpolation: InterpolationMode | str | int = InterpolationMode.NEAREST,
        fill: FillSpec = None,
    ) -> None:
        super().__init__(interpolation, fill)
        self.num_magnitude_bins = _check_int(num_magnitude_bins, "num_magnitude_bins", 2)

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = self._image_size(flat_inputs)
        name, (magnitudes_fn, signed) = _random_op(_TRIVIAL_AUGMENT_SPACE)
        magnitudes = magnitudes_fn(self.num_magnitude_bins, height, width)
        if magnitudes is None:
            return dict(ops=[(name, 0.0)])
        magnitude = float(magnitudes[_random.randint(self.num_magnitude_bins)])
        return dict(ops=[(name, _signed(magnitude, signed))])


class AugMix(_AutoAugmentBase):
    """AugMix (Hendrycks et al., 2020): a Dirichlet-weighted mix of ``mixture_width`` augmentation
    chains, blended with the original by a Beta-distributed weight.

    Args:
        severity: highest magnitude level, in ``[1, 10]`` (default 3).
        mixture_width: number of chains, ``>= 1`` (default 3).
        chain_depth: ops per chain; a value ``<= 0`` (default -1) draws 1 to 3 per chain.
        alpha: concentration of the Dirichlet / Beta distributions, ``> 0`` (default 1).
        all_ops: also use brightness, color, contrast and sharpness (default True).
        interpolation: as in :class:`AutoAugment`, but bilinear by default.
        fill: as in :class:`AutoAugment` (default None).
    """

    def __init__(
        self,
        severity: int = 3,
        mixture_width: int = 3,
        chain_depth: int = -1,
        alpha: float = 1.0,
        all_ops: bool = True,
        interpolation: InterpolationMode | str | int = InterpolationMode.BILINEAR,
        fill: FillSpec = None,
    ) -> None:
        super().__init__(interpolation, fill)
        self.severity = _check_int(severity, "severity", 1, 10)
        self.mixture_width = _check_int(mixture_width, "mixture_width", 1)
        self.chain_depth = _check_int(chain_depth, "chain_depth", -(2**31))
        if not is_number(alpha) or alpha <= 0:
            raise ValueError(f"alpha must be a positive number, got {alpha!r}")
        if not isinstance(all_ops, bool):
            raise TypeError(f"all_ops must be a bool, got {all_ops!r}")
        self.alpha = float(alpha)
        self.all_ops = all_ops

    def _dirichlet(self, size: int, rows: int, device: torch.device) -> torch.Tensor:
        concentration = torch.full((rows, size), self.alpha, device=device)
        return _random.dirichlet(concentration)

    def _chain(self, space: dict[str, tuple[Magnitudes, bool]], height: int, width: int) -> list[tuple[str, float]]:
        depth = self.chain_depth if self.chain_depth > 0 else _random.randint(1, 4)
        ops = []
        for _ in range(depth):
            name, (magnitudes_fn, signed) = _random_op(space)
            magnitudes = magnitudes_fn(10, height, width)
            magnitude = 0.0 if magnitudes is None else float(magnitudes[_random.randint(self.severity)])
            ops.append((name, 0.0 if magnitudes is None else _signed(magnitude, signed)))
        return ops

    def make_params(self, flat_inputs: list[Any]) -> dict[str, Any]:
        height, width = self._image_size(flat_inputs)
        image = next(i for i in flat_inputs if isinstance(i, (torch.Tensor, PIL.Image.Image)))
        rows, device = _mix_rows(image), image.device if isinstance(image, torch.Tensor) else None
        original_weight = self._dirichlet(2, rows, device)
        chain_weights = self._dirichlet(self.mixture_width, rows, device) * original_weight[:, 1:]
        space = _AUGMIX_SPACE if self.all_ops else _AUGMIX_PARTIAL_SPACE
        chains = [self._chain(space, height, width) for _ in range(self.mixture_width)]
        return dict(original_weight=original_weight[:, 0], chain_weights=chain_weights, chains=chains)

    def transform(self, inpt: Any, params: dict[str, Any]) -> Any:
        tensor = F.pil_to_tensor(inpt) if isinstance(inpt, PIL.Image.Image) else inpt.as_subclass(torch.Tensor)
        batch = tensor.reshape(_mix_shape(inpt, tensor))
        weight_shape = [batch.shape[0]] + [1] * (batch.ndim - 1)
        mix = batch.to(torch.float32) * params["original_weight"].reshape(weight_shape)
        source = tensor if is_pure_tensor(inpt) or isinstance(inpt, PIL.Image.Image) else inpt
        for i, ops in enumerate(params["chains"]):
            augmented = self._apply(source, ops).as_subclass(torch.Tensor).reshape(batch.shape)
            mix.add_(augmented.to(torch.float32) * params["chain_weights"][:, i].reshape(weight_shape))
        mix = mix.reshape(tensor.shape)
        mix = mix.round_().clamp_(0, max_value(tensor.dtype)) if not tensor.is_floating_point() else mix
        mix = mix.to(tensor.dtype)
        if isinstance(inpt, PIL.Image.Image):
            return F.to_pil_image(mix)
        return mix if is_pure_tensor(inpt) else type(inpt).wrap_like(inpt, mix)


def _mix_shape(inpt: Any, tensor: torch.Tensor) -> list[int]:
    """The shape with at least one batch dim before ``C x H x W`` (``T x C x H x W`` for videos)."""
    ndim = 5 if isinstance(inpt, Video) else 4
    return [1] * max(ndim - tensor.ndim, 0) + list(tensor.shape)


def _mix_rows(inpt: Any) -> int:
    """Number of independently weighted items: the first dim of the batched shape."""
    if isinstance(inpt, PIL.Image.Image):
        return 1
    return _mix_shape(inpt, inpt)[0]


# AutoAugment's learned sub-policies: two (op, probability, magnitude level) each
_POLICIES: dict[AutoAugmentPolicy, list[tuple[tuple[str, float, int | None], ...]]] = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
        (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
        (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
        (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
        (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
        (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
        (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    ],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)),
        (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)),
        (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)),
        (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)),
        (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)),
        (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)),
        (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)),
        (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)),
        (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)),
        (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)),
        (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)),
        (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)),
        (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
    ],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)),
        (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)),
        (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)),
        (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)),
        (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)),
        (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)),
        (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)),
        (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)),
        (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
    ],
}
