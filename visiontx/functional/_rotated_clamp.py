"""Clamping rotated boxes to their canvas with torchvision 0.29's results (its ``"soft"`` and ``"hard"`` modes).

The box is clamped against one canvas side at a time, the left one: its corners are listed from the
leftmost, the lines through its four edges (``y = a x + b``) get new intercepts ``b`` (kept between the
original box's), and the corners become the intersections of the new lines; then the box and the
canvas are turned by 90 degrees and the next side follows. ``"soft"`` keeps the box enclosing the part
inside the canvas (corners may stay outside), ``"hard"`` shrinks it to a box inside the canvas.
Corner lists come back starting where torchvision's do (its re-listing is kept, so ``XYWHR`` results
have its first corner and angle).
"""

from __future__ import annotations

import torch


def _start_index(corners: torch.Tensor) -> torch.Tensor:
    """``[N]`` index of the leftmost corner (the topmost among nearly equal x), scored as torchvision does."""
    xs, ys = corners[:, 0::2], corners[:, 1::2]
    score = ys / ys.abs().amax(1, keepdim=True) + xs / xs.abs().amax(1, keepdim=True) * 100
    return score.argmin(1)


def _roll(corners: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
    """Corners ``[N, 8]`` re-listed from corner ``start`` ``[N]`` on."""
    columns = (torch.arange(8, device=corners.device) + 2 * start[:, None]) % 8
    return corners.gather(1, columns)


def _lines(corners: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Slopes and intercepts ``[N, 4]`` of the lines through the edges ``p_i p_(i+1)``."""
    xs, ys = corners[:, 0::2], corners[:, 1::2]
    slope = (ys.roll(-1, 1) - ys) / (xs.roll(-1, 1) - xs)
    return slope, ys - slope * xs


def _corners_of(slope: torch.Tensor, intercept: torch.Tensor) -> torch.Tensor:
    """Corner ``i`` as the crossing of the lines of edges ``i - 1`` and ``i``."""
    xs = -(intercept - intercept.roll(1, 1)) / (slope - slope.roll(1, 1))
    ys = slope * xs + intercept
    return torch.stack([xs, ys], dim=-1).flatten(1)


def _new_intercepts(
    slope: torch.Tensor, intercept: torch.Tensor, original: torch.Tensor, size: tuple[int, int], hard: bool
) -> torch.Tensor:
    """The intercepts of the four edges after clamping against the left side."""
    height, width = size
    a1, a2, a3, a4 = slope.unbind(-1)
    b1, b2, b3, b4 = intercept.unbind(-1)
    m1, m2, m3, m4 = original.unbind(-1)
    first = torch.clamp(b2, b1, b3).clamp(0, height)
    last = torch.clamp(b3, b2, b4).clamp(0, height)
    if hard:
        first = last = (first + last) / 2  # one value: both clamps below apply to it
        b2 = torch.stack(
            [first * a2 / a1, b3 * a2 / a3, (a1 - a2) * width + first, (a3 - a2) * width + b3], dim=1
        ).amax(1).clamp(max=b2)
        b3 = torch.stack(
            [
                height * (1 - a3 / a4) + last * a3 / a4,
                height * (1 - a3 / a2) + b2 * a3 / a2,
                (a2 - a3) * width + b2,
                (a4 - a3) * width + last,
            ],
            dim=1,
        ).amin(1).clamp(min=b3)
        first = last = first.clamp(m1, m3).clamp(m2, m4)
    else:
        first, last = first.clamp(m1, m3), last.clamp(m2, m4)
    return torch.stack([first, b2.clamp(m2, m4), b3.clamp(m1, m3), last], dim=-1)


def _clamp_left(corners: torch.Tensor, original: torch.Tensor, size: tuple[int, int], hard: bool) -> torch.Tensor:
    """Corners ``[N, 8]`` (listed from the leftmost) clamped against the canvas' left side."""
    slope, intercept = _lines(corners)
    _, original_intercept = _lines(original)
    moved = _corners_of(slope, _new_intercepts(slope, intercept, original_intercept, size, hard))
    x1, y1, x2, y2, x3, y3, x4, y4 = corners.unbind(-1)
    shifted = corners.clone()
    shifted[:, 0].clamp_(min=0)
    shifted[:, 6].clamp_(min=0)
    flat_first = y1.isclose(y2) | y3.isclose(y4)
    outside = (x1 <= 0) & (x2 <= 0) & (x3 <= 0) & (x4 <= 0)
    degenerate = outside | y1.isclose(y4) | y2.isclose(y3) | (flat_first & x1.isclose(x2))
    out = torch.where(((x1 < 0) & ~moved.isnan().any(-1))[:, None], moved, corners)
    out = torch.where(flat_first[:, None], shifted, out)
    return torch.where(degenerate[:, None], torch.zeros_like(out), out)


def _turn(corners: torch.Tensor, width: int) -> torch.Tensor:
    """Corners on a canvas of ``width`` turned by 90 degrees: ``(x, y) -> (y, width - x)``."""
    xs, ys = corners[:, 0::2], corners[:, 1::2]
    return torch.stack([ys, width - xs], dim=-1).flatten(1)


def clamp_rotated_corners(corners: torch.Tensor, spatial_size: tuple[int, int], mode: str) -> torch.Tensor:
    """Rotated boxes as corners ``[..., 8]`` (float) clamped to a canvas ``(H, W)`` in ``mode``
    (``"soft"`` or ``"hard"``); a new tensor of the same shape."""
    shape = corners.shape
    out = corners.reshape(-1, 8)
    original = out.clone()
    size = (int(spatial_size[0]), int(spatial_size[1]))
    for _ in range(4):
        start = _start_index(out)
        out, original = _roll(out, start), _roll(original, start)
        out = _clamp_left(out, original, size, mode == "hard")
        # torchvision re-lists by the same shift once more (not back): kept for the same first corner
        out, original = _roll(out, start), _roll(original, start)
        out, original = _turn(out, size[1]), _turn(original, size[1])
        size = (size[1], size[0])
    return out.reshape(shape)
