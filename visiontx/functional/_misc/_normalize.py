"""Per-channel normalization of float images and videos."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import PIL.Image
import torch
from torch.utils._python_dispatch import is_in_torch_dispatch_mode

from ..._args import per_channel_error
from ..._names import video_kernel
from ...datapoints import Image, Video
from ...datapoints._datapoint import adopt, unwrap
from .. import _cv2
from .._dtype import to_dtype_image_tensor
from .._registry import get_kernel, register_kernels

__all__ = ["normalize", "normalize_image_tensor", "normalize_video"]


def normalize(inpt: Any, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> Any:
    """Normalize per channel: ``(inpt - mean) / std``.

    Args:
        inpt: a float image tensor ``[..., C, H, W]``, ``Image`` or ``Video`` (uint8 and PIL are refused).
        mean: one mean per channel, or one for all.
        std: one non-zero standard deviation per channel, or one for all.
        inplace: write into the input tensor instead of a copy (default False).

    Example:
        >>> normalize(image, mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    """
    return get_kernel(normalize, type(inpt))(inpt, mean=mean, std=std, inplace=inplace)


# (values, dtype, device) -> the values as a read-only C x 1 x 1 tensor: building it from a list costs
# about a third of a 224 x 224 normalisation, and pipelines pass the same mean and std on every call
_TENSORS: dict[tuple[Any, ...], torch.Tensor] = {}
_MAX_TENSORS = 64


def _cache_key(values: Any, like: torch.Tensor) -> tuple[Any, ...] | None:
    """The cache key of ``values`` for images like ``like``; None (no caching) unless they are non-zero
    Python numbers (0.0 and -0.0 would share a key) and no torch function or dispatch mode (fake tensors,
    tracing) is active."""
    if not isinstance(values, (list, tuple)) or not all(type(v) in (int, float) and v != 0 for v in values):
        return None
    if mode_active():
        return None
    return (tuple(values), like.dtype, like.device)


def mode_active() -> bool:
    """Whether a torch function or dispatch mode (fake tensors, tracing, op logging) is active: then nothing
    is cached and no shortcut replaces the kernels' ops."""
    return torch._C._is_torch_function_mode_enabled() or is_in_torch_dispatch_mode()


def _per_channel(values: Any, name: str, channels: int, like: torch.Tensor) -> torch.Tensor:
    key = _cache_key(values, like)
    tensor = _TENSORS.get(key) if key is not None else None
    if tensor is None:
        with torch.inference_mode(False):  # a cached inference tensor could not be saved for backward later
            tensor = torch.as_tensor(values, dtype=like.dtype, device=like.device)
        if tensor.ndim > 1:
            raise per_channel_error(name, channels, values)
        tensor = tensor.view(-1, 1, 1)
        if key is not None:
            if len(_TENSORS) >= _MAX_TENSORS:
                _TENSORS.clear()
            _TENSORS[key] = tensor
    if tensor.numel() not in (1, channels):
        raise per_channel_error(name, channels, values)
    return tensor


def _has_zero(std: Any) -> bool:
    if isinstance(std, torch.Tensor):
        return bool((std == 0).any())
    return any(s == 0 for s in std) if isinstance(std, Sequence) else std == 0


@register_kernels(normalize, (torch.Tensor, Image, Video))
def normalize_image_tensor(
    image: torch.Tensor, mean: Sequence[float], std: Sequence[float], inplace: bool = False
) -> torch.Tensor:
    """Normalize a float tensor ``[..., C, H, W]`` per channel."""
    if not image.is_floating_point():
        raise TypeError(f"normalize needs a float image, got dtype {image.dtype}; use to_dtype(..., scale=True) first")
    if image.ndim < 3:
        raise ValueError(f"normalize needs an image [..., C, H, W], got shape {tuple(image.shape)}")
    if _has_zero(std):
        raise ValueError(f"std must not contain zeros, got {std!r}")
    channels = image.shape[-3]
    mean_t = _per_channel(mean, "mean", channels, image)
    std_t = _per_channel(std, "std", channels, image)
    output = image.sub_(mean_t) if inplace else image.sub(mean_t)
    return output.div_(std_t)


normalize_video = video_kernel(normalize_image_tensor)


@register_kernels(normalize, PIL.Image.Image)
def _normalize_image_pil(image: PIL.Image.Image, **kwargs: Any) -> PIL.Image.Image:
    raise TypeError("normalize does not support PIL images; use to_image_tensor and to_dtype(..., scale=True) first")


# ------------------------------------------------------------------- uint8 -> normalised float32 in one pass
@dataclass(frozen=True)
class ScaledNormalize:
    """What ``to_dtype(float32, scale=True)`` then ``normalize`` make of uint8 values, per channel: ``tables``
    (``channels x 256``, computed by those two kernels) and, where the compiled kernel's float32 steps give the
    tables' values bit for bit (checked when made), the float32 ``mean`` and ``std`` it runs with (else None)."""

    tables: np.ndarray
    mean: list[float] | None = None
    std: list[float] | None = None


_SCALE = 1.0 / 255  # to_dtype's factor from uint8 (torch takes it as float32, as the compiled kernel does)
_NATIVE_CHANNELS = 256  # the most the compiled kernel takes
# (mean, std, channels) -> the tables of scaled_normalize_tables, or None where there are none
_SCALED_TABLES: dict[tuple[Any, ...], ScaledNormalize | None] = {}
_MISSING = object()
_TINY = np.finfo(np.float32).tiny


def scaled_normalize_tables(mean: Any, std: Any, channels: int) -> ScaledNormalize | None:
    """:class:`ScaledNormalize` of ``channels x 256`` float32 tables: what ``to_dtype(float32, scale=True)``
    then ``normalize(mean, std)`` make of each uint8 value in each channel, computed by those two kernels, so
    that looking the values up gives their result bit for bit. None unless ``mean`` and ``std`` are one or
    ``channels`` Python numbers the kernels take, no value on the way is subnormal
    (``torch.set_flush_denormal`` would change it) and no torch function or dispatch mode is active.

    The key is the values as given: an int and the equal float, or 0.0 and -0.0 (the scaled values are
    never -0.0; a zero std is refused), give the same tables."""
    if not _plain_numbers(mean) or not _plain_numbers(std) or {len(mean), len(std)} - {1, channels}:
        return None
    if mode_active():
        return None
    key = (tuple(mean), tuple(std), channels)
    tables = _SCALED_TABLES.get(key, _MISSING)
    if tables is _MISSING:
        tables = _build_tables(mean, std, channels)
        if len(_SCALED_TABLES) >= _MAX_TENSORS:
            _SCALED_TABLES.clear()
        _SCALED_TABLES[key] = tables
    return tables  # type: ignore[return-value]


def _plain_numbers(values: Any) -> bool:
    return type(values) in (list, tuple) and all(type(v) is float or type(v) is int for v in values)


def _build_tables(mean: Sequence[float], std: Sequence[float], channels: int) -> ScaledNormalize | None:
    """The tables of :func:`scaled_normalize_tables`; None where the kernels refuse the values (they then
    raise in their own order), where subnormals are being flushed now, or where one shows up: in the
    mean or std, or in a result (the difference before the division is subnormal only where the mean is)."""
    try:
        values = torch.arange(256, dtype=torch.uint8).expand(channels, 1, 256)
        scaled = normalize_image_tensor(to_dtype_image_tensor(values, torch.float32, scale=True), mean, std)
        given = torch.as_tensor([*mean, *std], dtype=torch.float32)  # as the kernel converts them
    except (TypeError, ValueError, OverflowError, RuntimeError):
        return None
    if _flushing():  # results that would be subnormal came out as zeros
        return None
    tables = np.ascontiguousarray(scaled.reshape(channels, 256).numpy())
    if _has_subnormal(given.numpy()) or _has_subnormal(tables):
        return None
    as_given = given.tolist()
    means, stds = (np.broadcast_to(part, channels).tolist() for part in (as_given[: len(mean)], as_given[len(mean) :]))
    return ScaledNormalize(tables, *_native_steps(tables, means, stds))


def _native_steps(tables: np.ndarray, mean: list[float], std: list[float]) -> tuple[Any, Any]:
    """``(mean, std)`` where the compiled kernel's float32 steps (``_cv2.scale_normalize``) give ``tables`` bit for
    bit on the 256 values (so also on any image), else ``(None, None)``."""
    channels = len(tables)
    if channels > _NATIVE_CHANNELS:
        return None, None
    values = torch.arange(256, dtype=torch.uint8).expand(1, channels, 1, 256).contiguous()
    out = _cv2.scale_normalize(values, _SCALE, mean, std)
    if out is None or not np.array_equal(out.numpy().reshape(channels, 256).view(np.uint32), tables.view(np.uint32)):
        return None, None
    return mean, std


def _flushing() -> bool:
    """Whether torch flushes subnormal results to zero now (``torch.set_flush_denormal(True)``)."""
    return torch.tensor(_TINY, dtype=torch.float32).div_(2).item() == 0.0


def _has_subnormal(values: np.ndarray) -> bool:
    magnitudes = np.abs(values)
    return bool(((magnitudes > 0) & (magnitudes < _TINY)).any())


def can_scaled_normalize(inpt: Any) -> bool:
    """Whether :func:`scaled_normalize` takes ``inpt``: a uint8 CPU ``[..., C, H, W]`` plain tensor, ``Image``
    or ``Video`` (exactly those types) the OpenCV wing takes, whose conversions torch would give contiguous
    strides (not channels-last ones: those are kept by the kernels; ``empty_like`` on the meta device
    makes torch's choice without memory)."""
    if type(inpt) not in (torch.Tensor, Image, Video):
        return False
    image = unwrap(inpt)
    return image.ndim >= 3 and _cv2.can_use(image, dtypes=(torch.uint8,)) and (
        image.is_contiguous() or torch.empty_like(image, dtype=torch.float32, device="meta").is_contiguous()
    )


def scaled_normalize(inpt: torch.Tensor, tables: ScaledNormalize) -> torch.Tensor:
    """``to_dtype(inpt, float32, scale=True)`` then ``normalize`` by the mean and std of ``tables`` (from
    :func:`scaled_normalize_tables`), in one pass over the pixels: the compiled kernel's float32 steps where
    they give the tables' values (224 x 224 RGB: 24 against 76 µs), else each plane through its channel's
    table. ``inpt`` is one :func:`can_scaled_normalize` takes; the output has its type."""
    image = unwrap(inpt)
    output = None if tables.mean is None else _cv2.scale_normalize(image, _SCALE, tables.mean, tables.std)
    if output is None:
        output = _cv2.lut_planes(image, tables.tables)
    return output if type(inpt) is torch.Tensor else adopt(output, type(inpt))
