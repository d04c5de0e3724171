"""Argument parsing shared by the functional and transforms floors.

Numbers, ``(min, max)`` ranges, sizes, fills, paddings, kernel sizes and sigmas are each checked here once: a
``TypeError`` for a wrong type, a ``ValueError`` for a wrong value, both naming the argument. Some transforms
raise ``ValueError`` for a malformed sequence, as torchvision does: those pass ``error=ValueError``.
Depends only on torch, PIL and :mod:`visiontx.datapoints`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, Union

import PIL.Image
import torch

from ._torchvision_interop import native_key
from .datapoints import Datapoint

FillArg = Union[int, float, Sequence[Union[int, float]], None]
FillSpec = Union[FillArg, Mapping[Union[type, str], FillArg]]
SizeArg = Union[int, Sequence[int], None]
CropSize = Union[int, Sequence[int]]
PaddingArg = Union[int, Sequence[int]]
PADDING_MODES = ("constant", "edge", "reflect", "symmetric")
_FILL_KEY_TYPES = (Datapoint, torch.Tensor, PIL.Image.Image)


# ------------------------------------------------------------------------------------------ numbers
def is_number(value: Any) -> bool:
    """A real number (Python or numpy), not a bool."""
    kind = type(value)  # (int and float first: the ABC check costs more than the rest of most checks)
    return kind is float or kind is int or (isinstance(value, numbers.Real) and not isinstance(value, bool))


def check_number(value: Any, name: str, *, non_negative: bool = False, finite: bool = False) -> float:
    """``value`` as a float; ``TypeError`` unless a number, ``ValueError`` if negative and ``non_negative``, or
    infinite or NaN and ``finite``."""
    if not is_number(value):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if non_negative and value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")
    if finite and not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return float(value)


def check_probability(p: Any, name: str = "p") -> float:
    """A probability in ``[0, 1]``, as a float; ``ValueError`` otherwise."""
    if not is_number(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")
    return float(p)


def check_positive_int(value: Any, name: str) -> int:
    """An int above 0; ``TypeError`` for other types (bools too), ``ValueError`` for 0 or less."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return value


def number_sequence(
    value: Any, name: str, lengths: Sequence[int] = (2,), *, scalar: bool = False, error: type[Exception] = TypeError
) -> list[float]:
    """``value`` as floats: a sequence (not a string) of numbers, as many as one of ``lengths``; with ``scalar``,
    also a lone number (one value)."""
    if scalar and is_number(value):
        return [float(value)]
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) in lengths:
        if all(is_number(v) for v in value):
            return [float(v) for v in value]
    counts = " or ".join(map(str, lengths))
    raise error(f"{name} must be {'a number or ' if scalar else ''}a sequence of {counts} numbers, got {value!r}")


def axis_pair(
    value: Any, name: str, *, positive: bool = False, error: type[Exception] = TypeError
) -> tuple[float, float]:
    """Per-axis ``(x, y)`` values: one number for both, or a sequence of 1 or 2; each non-negative (or positive)."""
    values = number_sequence(value, name, (1, 2), scalar=True, error=error)
    if any(v <= 0 if positive else v < 0 for v in values):
        raise ValueError(f"{name} must be {'positive' if positive else 'non-negative'}, got {value!r}")
    return values[0], values[-1]


# ------------------------------------------------------------------------------------------- ranges
def _bounds(low: float, high: float, strict: bool) -> str:
    text = "min <= max"
    if low > -math.inf:
        text = f"{low:g} {'<' if strict else '<='} {text}"
    return f"{text} <= {high:g}" if high < math.inf else text


def check_range(
    value: Any,
    name: str,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    strict: bool = False,
    pairs: Sequence[int] = (1,),
    error: type[Exception] = TypeError,
) -> tuple[float, ...]:
    """``(min, max)`` as floats with ``low <= min <= max <= high`` (``low < min`` when ``strict``).

    ``pairs`` says how many ranges may be given one after the other (``(1, 2)``: 2 or 4 numbers); each is checked.
    """
    values = number_sequence(value, name, [2 * n for n in pairs], error=error)
    for first, last in zip(values[0::2], values[1::2]):
        if not ((low < first) if strict else (low <= first)) or not first <= last <= high:
            raise ValueError(f"{name} must satisfy {_bounds(low, high, strict)}, got {value!r}")
    return tuple(values)


def symmetric_range(
    value: Any,
    name: str,
    center: float = 0.0,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    pairs: Sequence[int] = (1,),
    error: type[Exception] = TypeError,
) -> tuple[float, ...]:
    """A number ``d >= 0`` gives ``(max(center - d, low), center + d)``; a sequence is :func:`check_range`'s."""
    values = number_sequence(value, name, [2 * n for n in pairs], scalar=True, error=error)
    if len(values) == 1:
        if values[0] < 0:
            raise ValueError(f"{name} must be non-negative when a single number, got {value}")
        values = [max(center - values[0], low), center + values[0]]
    return check_range(values, name, low, high, pairs=pairs, error=error)


# -------------------------------------------------------------------------------------------- sizes
def parse_size(size: SizeArg, max_size: int | None) -> list[int] | None:
    """Resize's ``size``: an int or ``[s]`` (the shorter edge), ``(h, w)``, or None (only with ``max_size``)."""
    if type(size) in (list, tuple) and 1 <= len(size) <= 2 and (max_size is None or len(size) == 1):
        if all(type(s) is int and s > 0 for s in size):  # the parsed forms transforms store: a copy, as below
            return list(size)
    if isinstance(size, int) and not isinstance(size, bool):
        size = [size]
    elif size is None:
        if max_size is None:
            raise ValueError("size must be given unless max_size is")
        return None
    elif not (isinstance(size, Sequence) and not isinstance(size, str) and len(size) in (1, 2)):
        raise TypeError(f"size must be an int, a sequence of 1 or 2 ints, or None, got {size!r}")
    size = [check_positive_int(s, "size") for s in size]
    if max_size is not None and len(size) == 2:
        raise ValueError("max_size is only allowed when size is an int, a 1-sequence or None")
    return size


def parse_crop_size(size: CropSize, name: str = "output_size", *, positive: bool = False) -> tuple[int, int]:
    """An int, ``[s]`` or ``(h, w)`` as ``(h, w)`` of non-negative (``positive``: positive) ints."""
    minimum = 1 if positive else 0
    if type(size) is tuple and len(size) == 2 and type(size[0]) is type(size[1]) is int and size[0] >= minimum <= size[1]:
        return size  # already parsed (transforms store it so)
    if isinstance(size, int) and not isinstance(size, bool):
        size = [size]
    if not (isinstance(size, Sequence) and not isinstance(size, str) and len(size) in (1, 2)):
        raise TypeError(f"{name} must be an int or a sequence of 1 or 2 ints, got {size!r}")
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in size):
        raise TypeError(f"{name} must hold ints, got {size!r}")
    height, width = (size[0], size[0]) if len(size) == 1 else size
    if min(height, width) < minimum:
        raise ValueError(f"{name} must be {'positive' if positive else 'non-negative'}, got {size!r}")
    return height, width


# -------------------------------------------------------------------------------------------- fills
def per_channel_error(name: str, channels: int, got: object) -> ValueError:
    """The error for ``name`` holding neither 1 value nor one per channel."""
    expected = "1 value" if channels == 1 else f"1 value or one per channel ({channels})"
    return ValueError(f"{name} must hold {expected}, got {got!r}")


def check_fill(fill: Any, name: str = "fill") -> FillArg:
    """None, a number, or a non-empty sequence of numbers (as a list, of floats when one is a float)."""
    if fill is None or is_number(fill):
        return fill
    if isinstance(fill, Sequence) and not isinstance(fill, str) and len(fill) > 0 and all(map(is_number, fill)):
        return [float(v) for v in fill] if any(isinstance(v, float) for v in fill) else list(fill)
    raise TypeError(f"{name} must be a number, a non-empty sequence of numbers per channel, or None, got {fill!r}")


def parse_fill(fill: Any, channels: int | None = None, name: str = "fill") -> list[float] | None:
    """``fill`` as per-channel floats (None stays None); given ``channels``, 1 value or one per channel."""
    checked = check_fill(fill, name)
    if checked is None:
        return None
    values = [float(v) for v in checked] if isinstance(checked, list) else [float(checked)]
    if channels is not None and len(values) not in (1, channels):
        raise per_channel_error(name, channels, fill)
    return values


def setup_fill_arg(fill: FillSpec) -> dict[type | str, FillArg]:
    """A transform's ``fill`` as ``{datapoint type or "others": value}``.

    ``fill`` is a number, a per-channel sequence, None, or a dict by type with an optional "others" (default 0).
    """
    if not isinstance(fill, Mapping):
        return {"others": check_fill(fill)}
    result: dict[type | str, FillArg] = {}
    for key, value in fill.items():
        if not (key == "others" or (isinstance(key, type) and issubclass(key, _FILL_KEY_TYPES))):
            raise TypeError(f"fill keys must be datapoint types or 'others', got {key!r}")
        result[native_key(key)] = check_fill(value)  # torchvision's classes as visiontx's
    result.setdefault("others", 0)
    return result


def get_fill(fill: dict[type | str, FillArg], inpt_type: type) -> FillArg:
    """The fill of :func:`setup_fill_arg` for an input type: its own, its nearest base class's, else "others"."""
    for cls in inpt_type.__mro__:
        if cls in fill:
            return fill[cls]
    return fill["others"]


def fill_tensor(v: torch.Tensor | float, dtype: torch.dtype, device: torch.device | None = None) -> torch.Tensor:
    """``v`` as a tensor of ``dtype`` (on ``device``): integer dtypes round float values and clamp them to
    ``[0, max]``."""
    if isinstance(v, torch.Tensor) and v.dtype == dtype and (device is None or v.device == device):
        return v  # what the conversions below return for it, without their calls
    value = torch.as_tensor(v, device=device)
    if dtype.is_floating_point or not value.is_floating_point():
        return value.to(dtype)
    return value.round().clamp_(0, 1 if dtype == torch.bool else torch.iinfo(dtype).max).to(dtype)


# ----------------------------------------------------------------------------------------- paddings
def parse_padding(padding: PaddingArg) -> tuple[int, int, int, int]:
    """``padding`` (an int, ``[lr, tb]`` or ``[left, top, right, bottom]``) as ``(left, top, right, bottom)``."""
    if type(padding) is int and padding >= 0:
        return padding, padding, padding, padding
    if type(padding) in (tuple, list) and len(padding) == 4:  # the common already-parsed form, checked cheaply
        left, top, right, bottom = padding
        if type(left) is type(top) is type(right) is type(bottom) is int and min(left, top, right, bottom) >= 0:
            return left, top, right, bottom
    if isinstance(padding, int) and not isinstance(padding, bool):
        values = [padding] * 4
    elif isinstance(padding, Sequence) and not isinstance(padding, str) and len(padding) in (1, 2, 4):
        values = list(padding) * (4 // len(padding))
    else:
        raise TypeError(f"padding must be an int or a sequence of 1, 2 or 4 ints, got {padding!r}")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise TypeError(f"padding must hold ints, got {padding!r}")
    if any(v < 0 for v in values):
        raise ValueError(f"padding must be non-negative, got {padding!r}")
    left, top, right, bottom = values
    return left, top, right, bottom


def check_padding_mode(padding_mode: str) -> str:
    """One of :data:`PADDING_MODES`; ``ValueError`` otherwise."""
    if padding_mode not in PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {PADDING_MODES}, got {padding_mode!r}")
    return padding_mode


# --------------------------------------------------------------------------------- kernels and sigma
def parse_kernel_size(kernel_size: int | Sequence[int]) -> tuple[int, int]:
    """An odd positive int, or a pair of them, as ``(kx, ky)``."""
    sizes = [kernel_size, kernel_size] if not isinstance(kernel_size, Sequence) else list(kernel_size)
    if len(sizes) != 2 or not all(isinstance(k, int) and not isinstance(k, bool) for k in sizes):
        raise TypeError(f"kernel_size must be an int or a pair of ints, got {kernel_size!r}")
    if any(k <= 0 or k % 2 == 0 for k in sizes):
        raise ValueError(f"kernel_size must hold odd positive ints, got {kernel_size!r}")
    return sizes[0], sizes[1]


def parse_sigma(sigma: float | Sequence[float] | None, kernel_size: tuple[int, int]) -> tuple[float, float]:
    """A blur's per-axis ``(sx, sy)``: positive; None gives ``0.15 * k + 0.35`` per axis."""
    if sigma is None:
        return kernel_size[0] * 0.15 + 0.35, kernel_size[1] * 0.15 + 0.35
    return axis_pair(sigma, "sigma", positive=True)


def sigma_range(sigma: float | Sequence[float]) -> tuple[float, float]:
    """GaussianBlur's ``sigma``: a positive number, or a ``(min, max)`` range with ``0 < min`` to draw from."""
    if is_number(sigma):
        if sigma <= 0:
            raise ValueError(f"sigma must be positive, got {sigma}")
        return float(sigma), float(sigma)
    low, high = check_range(sigma, "sigma", 0.0, strict=True)
    return low, high
