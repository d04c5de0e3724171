"""What every path of the wing shares: OpenCV when it is installed, the switch that turns the wing off, and
the checks on the image that every gate starts from."""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator, Sequence

import torch

try:
    import cv2
except Exception as error:  # missing or broken: every kernel takes its torch path, and the user is told once
    cv2 = None
    warnings.warn(
        f"visiontx: OpenCV (opencv-python-headless) could not be imported ({type(error).__name__}: {error}); "
        "the CPU fast paths are off and the slower torch kernels run. Install it with "
        "`pip install opencv-python-headless`.",
        RuntimeWarning,
        stacklevel=2,
    )

try:
    import visiontx._native as _native  # the compiled kernel (visiontx/_native.c), built where a compiler is
except ImportError:
    _native = None

__all__ = [
    "MAT_SIDE", "MAX_SIZE", "available", "can_use", "cv2", "disabled", "is_wrapped", "native", "takes_batch_per_image",
]

MAX_SIZE = 32768  # OpenCV's warps, remaps and resizes take images and maps under this many pixels a side
MAT_SIDE = 1 << 31  # an OpenCV matrix counts rows and columns in ints: longer sides are not written (silently)
_DTYPES = (torch.uint8, torch.float32)


class _Switch(threading.local):
    """How many :func:`disabled` blocks this thread is inside."""

    depth = 0


_switch = _Switch()
_blocks_open = 0  # in every thread: while 0, no thread's switch needs reading (the common case, one global read)
_blocks_lock = threading.Lock()


def available() -> bool:
    """Whether OpenCV is installed and the wing not switched off in this thread."""
    return cv2 is not None and (_blocks_open == 0 or _switch.depth == 0)


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Within this block, in this thread, every kernel takes its pure-torch path (blocks nest; other threads keep
    the wing, as each keeps its own current generator)."""
    global _blocks_open
    with _blocks_lock:
        _blocks_open += 1
    _switch.depth += 1
    try:
        yield
    finally:
        _switch.depth -= 1
        with _blocks_lock:
            _blocks_open -= 1


is_wrapped = torch._C._functorch.is_functorch_wrapped_tensor  # torch.func's tensors without memory of their own


def native() -> object | None:
    """``visiontx._native`` where it was built with its vectorised loops (SSE2), else None: its plain C loops
    are slower than torch's kernels."""
    return _native if _native is not None and _native.SIMD else None


def can_use(image: torch.Tensor, *, dtypes: Sequence[torch.dtype] = _DTYPES) -> bool:
    """Whether the wing is available for ``image`` (``[..., H, W]``): a plain CPU tensor of one of ``dtypes``,
    no autograd, not empty, planes that fit an OpenCV matrix (sides under 2^31), with memory of its own (not
    one of ``torch.func``'s wrappers, as inside ``vmap``) laid out as OpenCV reads it (see :func:`_rows_apart`).
    Every gate starts from this."""
    return (
        available()
        and type(image) is torch.Tensor
        and image.is_cpu
        and image.dtype in dtypes
        and not image.requires_grad
        and image.ndim >= 2
        and image.numel() > 0
        and image.shape[-1] < MAT_SIDE > image.shape[-2]
        and not is_wrapped(image)
        and (image.is_contiguous() or _rows_apart(image))
    )


def _rows_apart(image: torch.Tensor) -> bool:
    """Whether no dim longer than 1 has stride 0 (as an ``expand``'s) and, where a row's pixels are adjacent, each
    row starts past the previous one's end: OpenCV takes the rows of a plane that repeat or overlap (an
    ``unfold``'s) as consecutive bytes, past the tensor's memory."""
    shape, strides = image.shape, image.stride()
    if not all(stride or size == 1 for size, stride in zip(shape, strides)):
        return False
    return strides[-1] != 1 or shape[-2] == 1 or strides[-2] >= shape[-1]


def takes_batch_per_image(batch: torch.Tensor) -> bool:
    """Whether ``T.PerSample``'s vectorised transforms should hand each image of ``batch`` ``[B, ...]`` to
    the single-image kernels (which take this wing as their own gates say) instead of the batched torch
    maths: on CPU the wing's warps, resizes and colour steps beat one batched ``grid_sample`` or HSV pass."""
    return can_use(batch)
