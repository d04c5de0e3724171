"""Optional accelerated CPU paths (OpenCV), used by kernels where a benchmark shows they win.

The pure-torch kernels stay the reference and the GPU path: a kernel calls ``can_use(image)`` and,
when it says yes, hands the work to a helper here. Helpers work plane by plane on the contiguous
``H x W`` planes of a ``[..., C, H, W]`` tensor and write straight into the output tensor, so no
layout conversion is needed. ``disabled()`` switches the fast paths off (tests compare the two).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import numpy as np
import torch

try:
    import cv2
except ImportError:  # OpenCV is optional: without it every kernel takes its torch path
    cv2 = None

__all__ = ["available", "can_use", "disabled", "gaussian_blur", "lut", "warp_affine", "warp_perspective"]

_DTYPES = (torch.uint8, torch.float32)
_disabled_depth = 0


def available() -> bool:
    """Whether the accelerated backend is installed and not switched off."""
    return cv2 is not None and _disabled_depth == 0


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Within this block every kernel takes its pure-torch path."""
    global _disabled_depth
    _disabled_depth += 1
    try:
        yield
    finally:
        _disabled_depth -= 1


def can_use(image: torch.Tensor, *, dtypes: Sequence[torch.dtype] = _DTYPES) -> bool:
    """Whether ``image`` (``[..., H, W]``) can take the accelerated path: a CPU tensor of one of
    ``dtypes``, no autograd, not empty, planes below OpenCV's size limit."""
    return (
        cv2 is not None
        and _disabled_depth == 0
        and type(image) is torch.Tensor
        and image.device.type == "cpu"
        and image.dtype in dtypes
        and not image.requires_grad
        and image.ndim >= 2
        and image.numel() > 0
        and max(image.shape[-2:]) < 32768
    )


def _planes(image: torch.Tensor, out_size: Sequence[int] | None = None) -> tuple[np.ndarray, torch.Tensor, np.ndarray]:
    """(input planes ``N x H x W`` as numpy, output tensor, output planes as numpy)."""
    height, width = image.shape[-2:]
    out_h, out_w = out_size if out_size is not None else (height, width)
    src = image.reshape(-1, height, width).contiguous().numpy()
    out = torch.empty((*image.shape[:-2], out_h, out_w), dtype=image.dtype)
    return src, out, out.view(-1, out_h, out_w).numpy()


def _plane_fill(fill: Sequence[float] | None, num_channels: int, index: int) -> float:
    if not fill:
        return 0.0
    return float(fill[index % num_channels] if len(fill) > 1 else fill[0])


def lut(image: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """Map every value of a uint8 ``image`` through ``table`` (256 uint8 entries, one for all planes)."""
    src = image.reshape(-1, image.shape[-1]).contiguous().numpy()
    out = torch.empty_like(image, memory_format=torch.contiguous_format)
    cv2.LUT(src, table.contiguous().numpy(), dst=out.view(-1, image.shape[-1]).numpy())
    return out


_INTERPOLATION = {"nearest": 0, "bilinear": 1}  # cv2.INTER_NEAREST, cv2.INTER_LINEAR


def warp_affine(
    image: torch.Tensor,
    matrix: Sequence[Sequence[float]],
    size: Sequence[int],
    interpolation: str,
    fill: Sequence[float] | None,
    num_channels: int = 1,
) -> torch.Tensor:
    """Warp ``[..., H, W]`` planes with the 2 x 3 ``matrix`` mapping output pixel (x, y) to input
    pixel coordinates (pixel centres at integers), to output ``size`` ``(H, W)``. Outside pixels take
    ``fill`` (per channel, the channel of plane ``i`` being ``i % num_channels``)."""
    src, out, dst = _planes(image, size)
    m = np.asarray(matrix, dtype=np.float64).reshape(2, 3)
    flags = _INTERPOLATION[interpolation] | cv2.WARP_INVERSE_MAP
    for i in range(src.shape[0]):
        cv2.warpAffine(src[i], m, (dst.shape[2], dst.shape[1]), dst=dst[i], flags=flags,
                       borderMode=cv2.BORDER_CONSTANT, borderValue=_plane_fill(fill, num_channels, i))
    return out


def warp_perspective(
    image: torch.Tensor,
    matrix: Sequence[Sequence[float]],
    size: Sequence[int],
    interpolation: str,
    fill: Sequence[float] | None,
    num_channels: int = 1,
) -> torch.Tensor:
    """Like :func:`warp_affine` with a 3 x 3 projective ``matrix`` (output pixel -> input pixel)."""
    src, out, dst = _planes(image, size)
    m = np.asarray(matrix, dtype=np.float64).reshape(3, 3)
    flags = _INTERPOLATION[interpolation] | cv2.WARP_INVERSE_MAP
    for i in range(src.shape[0]):
        cv2.warpPerspective(src[i], m, (dst.shape[2], dst.shape[1]), dst=dst[i], flags=flags,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=_plane_fill(fill, num_channels, i))
    return out


def gaussian_blur(image: torch.Tensor, kernel_x: torch.Tensor, kernel_y: torch.Tensor) -> torch.Tensor:
    """Separable convolution of each plane with 1-D kernels, reflect border (no edge repeat)."""
    src, out, dst = _planes(image)
    kx = kernel_x.to(torch.float32).numpy()
    ky = kernel_y.to(torch.float32).numpy()
    for i in range(src.shape[0]):
        cv2.sepFilter2D(src[i], -1, kx, ky, dst=dst[i], borderType=cv2.BORDER_REFLECT_101)
    return out
