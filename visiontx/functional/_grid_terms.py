"""torchvision's sampling grid of an affine or projective map, as terms that every sampler computes the same way.

torchvision builds a warp's normalised grid (``grid_sample``'s, ``align_corners=False``) from a base grid of
pixel coordinates and a float matrix: ``_affine_grid`` centres the base grid on the output and divides the
matrix (in coordinates centred on each image, cast to the image's float dtype) by half the input's sides;
``_perspective_grid`` takes the base grid from 0.5 and divides the first two rows of the float coefficients
by half the sides. Its batched matrix product rounds each step: ``(x k0 + y k1) + k2``. Nearest sampling
rounds half to even, so a source point that lands exactly between two pixels (quarter turns of images whose
sides differ in parity, scales of 2, ...) picks the even one: the same terms in the same order pick the
same pixels. The torch path (``_geometry/_grid.py``), the OpenCV wing's nearest warps (``_cv2/_warp.py``)
and their compiled loop (``nearest_points`` in ``_native_warp.c``) all start from :func:`grid_terms`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["grid_terms"]


def grid_terms(
    inverse: Sequence[Sequence[float]], out_size: Sequence[int], in_size: Sequence[int], real: Any,
    projective: bool | None = None,
) -> tuple[list[Any], tuple[float, float], bool]:
    """``(k, (x0, y0), projective)`` for ``inverse`` (2 x 3 or 3 x 3: output pixel coordinates to input ones,
    pixel ``(i, j)`` covering ``[j, j + 1] x [i, i + 1]``): the grid at column ``c`` and row ``r`` of the output is,
    with ``x = x0 + c`` and ``y = y0 + r`` (exact), ``u = (x k0 + y k1) + k2`` and ``v = (x k3 + y k4) + k5``, each
    operation rounded to ``real`` (``np.float32`` or ``np.float64``: the work dtype); a projective map then
    divides both by ``(x k6 + y k7) + k8`` and takes 1 off. ``k`` holds ``real`` values. ``projective``: whether to
    build the projective grid (None: where the last row is not ``[0, 0, 1]``; ``F.perspective`` always does, as
    torchvision's, an affine-looking perspective included)."""
    if projective is None:
        projective = len(inverse) == 3 and list(inverse[2]) != [0.0, 0.0, 1.0]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # huge maps: inf and nan, as torch's casts
        return _terms(inverse, out_size, in_size, real, projective)


def _terms(
    inverse: Sequence[Sequence[float]], out_size: Sequence[int], in_size: Sequence[int], real: Any, projective: bool
) -> tuple[list[Any], tuple[float, float], bool]:
    (a, b, c), (d, e, f) = inverse[:2]
    height, width = in_size
    half_width, half_height = real(0.5 * width), real(0.5 * height)
    if projective:  # _perspective_grid (its coefficients' last is 1), the base grid from 0.5
        terms = [real(value) / half_width for value in (a, b, c)] + [real(value) / half_height for value in (d, e, f)]
        last = inverse[2] if len(inverse) == 3 else (0.0, 0.0, 1.0)
        return terms + [real(value) for value in last], (0.5, 0.5), True
    # _affine_grid: the map between coordinates centred on the output and on the input
    out_height, out_width = out_size
    c_centred = a * (out_width / 2) + b * (out_height / 2) + c - width / 2
    f_centred = d * (out_width / 2) + e * (out_height / 2) + f - height / 2
    terms = [real(a) / half_width, real(b) / half_width, real(c_centred) / half_width,
             real(d) / half_height, real(e) / half_height, real(f_centred) / half_height]
    return terms + [real(0.0), real(0.0), real(1.0)], ((1.0 - out_width) * 0.5, (1.0 - out_height) * 0.5), False
