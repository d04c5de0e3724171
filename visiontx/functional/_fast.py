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

__all__ = [
    "adjust_hue",
    "available",
    "can_use",
    "can_warp",
    "disabled",
    "gaussian_blur",
    "lut",
    "remap",
    "warp",
    "warp_affine",
    "warp_perspective",
]

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


def _num_channels(image: torch.Tensor) -> int:
    return image.shape[-3] if image.ndim >= 3 else 1


def can_warp(image: torch.Tensor, bilinear: bool, fill: Sequence[float] | None) -> bool:
    """Whether a warp of ``image`` can take the accelerated path: bilinear only (OpenCV rounds
    nearest-neighbour ties differently), and a fill the torch path would accept."""
    channels = _num_channels(image)
    return bilinear and can_use(image) and (fill is None or len(fill) == 1 or (image.ndim >= 3 and len(fill) == channels))


def _to_pixel_centres(matrix: Sequence[Sequence[float]]) -> np.ndarray:
    """A 3 x 3 map between continuous coordinates (pixel ``(i, j)`` covers ``[j, j + 1]``) re-expressed
    between pixel-centre coordinates (pixel ``(i, j)`` at ``(j, i)``), as OpenCV uses."""
    m = np.asarray(matrix, dtype=np.float64)
    m = np.vstack([m, [0.0, 0.0, 1.0]]) if m.shape == (2, 3) else m
    shift = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    unshift = np.array([[1.0, 0.0, -0.5], [0.0, 1.0, -0.5], [0.0, 0.0, 1.0]])
    return unshift @ m @ shift


def warp(image: torch.Tensor, inverse: Sequence[Sequence[float]], size: Sequence[int], fill: Sequence[float] | None) -> torch.Tensor:
    """Bilinear warp of ``[..., C, H, W]`` to ``size`` ``(H, W)``; ``inverse`` (2 x 3 affine or 3 x 3
    projective) maps output to input points in continuous coordinates. Outside points get ``fill``."""
    m = _to_pixel_centres(inverse)
    channels = _num_channels(image)
    if np.allclose(m[2], [0.0, 0.0, 1.0], rtol=0.0, atol=0.0):
        return warp_affine(image, m[:2], size, "bilinear", fill, channels)
    return warp_perspective(image, m, size, "bilinear", fill, channels)


def remap(image: torch.Tensor, grid: torch.Tensor, fill: Sequence[float] | None) -> torch.Tensor:
    """Bilinear sampling of ``[..., C, H, W]`` at ``grid`` ``(H_out, W_out, 2)`` (``grid_sample``
    convention: ``(x, y)`` normalised to ``[-1, 1]``, ``align_corners=False``); outside gets ``fill``."""
    height, width = image.shape[-2:]
    grid = grid.to(torch.float32)
    map_x = grid[..., 0].add(1.0).mul_(width / 2).sub_(0.5).numpy()
    map_y = grid[..., 1].add(1.0).mul_(height / 2).sub_(0.5).numpy()
    src, out, dst = _planes(image, grid.shape[:2])
    channels = _num_channels(image)
    for i in range(src.shape[0]):
        cv2.remap(src[i], map_x, map_y, cv2.INTER_LINEAR, dst=dst[i], borderMode=cv2.BORDER_CONSTANT,
                  borderValue=_plane_fill(fill, channels, i))
    return out


def adjust_hue(image: torch.Tensor, hue_factor: float) -> torch.Tensor:
    """Rotate the hue of RGB ``[..., 3, H, W]`` by ``hue_factor`` turns, through OpenCV's float HSV."""
    scale = 255.0 if image.dtype == torch.uint8 else 1.0
    flat = image.reshape(-1, 3, *image.shape[-2:])
    out = torch.empty_like(flat)
    for item, target in zip(flat, out):
        rgb = item.permute(1, 2, 0).numpy().astype(np.float32)
        if scale != 1.0:
            rgb *= 1.0 / scale
        hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV)
        hue = hsv[..., 0]
        hue += 360.0 * hue_factor
        np.remainder(hue, 360.0, out=hue)
        back = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)
        if scale != 1.0:
            back *= scale
            np.rint(back, out=back)
        np.clip(back, 0.0, scale, out=back)
        target.copy_(torch.from_numpy(back).permute(2, 0, 1))
    return out.reshape(image.shape)
