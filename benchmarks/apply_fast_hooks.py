"""Insert the one-line fast-path call-outs (``visiontx/functional/_fast.py``) into the owning kernels.

Anchor based and idempotent: ``python benchmarks/apply_fast_hooks.py [REPO] [color warp pad jpeg]``.
Prints each hook it adds and fails on an anchor it cannot find (the kernel changed: hook by hand).
"""
from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent
GROUPS = set(sys.argv[2:]) or {"color", "warp", "pad", "jpeg"}
IMPORT = "from .. import _fast\n"

HOOKS = {
    "color": [
        ("visiontx/functional/_color/_utils.py",
         '''    index = image.reshape(-1).to(torch.int32)
    return lut.index_select(0, index).view(image.shape)''',
         '''    if _fast.can_use(image, dtypes=(torch.uint8,)) and lut.device.type == "cpu":
        return _fast.lut(image, lut)
    index = image.reshape(-1).to(torch.int32)
    return lut.index_select(0, index).view(image.shape)'''),
        ("visiontx/functional/_color/_histogram.py",
         '''def _apply_plane_luts(image: torch.Tensor, index: torch.Tensor, luts: torch.Tensor) -> torch.Tensor:
''',
         '''def _apply_plane_luts(image: torch.Tensor, index: torch.Tensor, luts: torch.Tensor) -> torch.Tensor:
    if _fast.can_use(image, dtypes=(torch.uint8,)) and luts.device.type == "cpu":
        return _fast.lut_planes(image, luts)
'''),
        ("visiontx/functional/_color/_histogram.py",
         '''    """Equalize every ``H x W`` plane of a uint8 image with one histogram pass and one table lookup."""
''',
         '''    """Equalize every ``H x W`` plane of a uint8 image with one histogram pass and one table lookup."""
    if _fast.can_use(image, dtypes=(torch.uint8,)):
        rows = image.reshape(-1, image.shape[-2] * image.shape[-1])
        return _fast.lut_planes(image, _equalize_luts(_fast.histograms(rows), rows.shape[1]))
'''),
        ("visiontx/functional/_color/_hue.py",
         '''        return image.clone()
    dtype = image.dtype if image.is_floating_point() else torch.float32
    hue, chroma, value''',
         '''        return image.clone()
    if _fast.can_use(image):
        return _fast.adjust_hue(image, factor)
    dtype = image.dtype if image.is_floating_point() else torch.float32
    hue, chroma, value'''),
        ("visiontx/functional/_color/_sharpness.py",
         '''        return image.clone()
    work = image if image.is_floating_point() else image.to(torch.float32)''',
         '''        return image.clone()
    if _fast.can_use(image):
        return _fast.sharpen(image, factor)
    work = image if image.is_floating_point() else image.to(torch.float32)'''),
        ("visiontx/functional/_color/_adjust.py",
         '''    gray = _degenerate_gray(work, image.dtype) if channels == 3 else work
    return _blend_into(work, gray.mean(dim=(-3, -2, -1), keepdim=True), factor, image.dtype)''',
         '''    gray = _degenerate_gray(work, image.dtype) if channels == 3 else work
    mean = gray.mean(dim=(-3, -2, -1), keepdim=True)
    if _fast.can_use(image, dtypes=(torch.uint8,)):  # one lookup table per image, same maths
        values = torch.arange(256, dtype=torch.float32).expand(*mean.shape[:-1], 256).clone()
        tables = _blend_into(values, mean, factor, image.dtype).squeeze(-2)
        return _fast.lut_planes(image, tables.expand(*image.shape[:-2], 256))
    return _blend_into(work, mean, factor, image.dtype)'''),
        ("visiontx/functional/_color/_adjust.py",
         '''        return image.clone()
    work = _float_copy(image)
    return _blend_into(work, _degenerate_gray(work, image.dtype), factor, image.dtype)''',
         '''        return image.clone()
    if _fast.can_use(image, dtypes=(torch.uint8,)):
        return _fast.blend(image, _degenerate_gray(image.to(torch.float32), image.dtype).to(torch.uint8), factor)
    work = _float_copy(image)
    return _blend_into(work, _degenerate_gray(work, image.dtype), factor, image.dtype)'''),
    ],
    "warp": [
        ("visiontx/functional/_geometry/_affine.py",
         '''    grid = matrix_grid(invert(matrix), out_size, image.shape[-2:], work_dtype(image.dtype), image.device)
    return sample(image, grid, mode, fill)''',
         '''    if _fast.can_warp(image, mode == InterpolationMode.BILINEAR, fill):
        return _fast.warp(image, invert(matrix), out_size, fill)
    grid = matrix_grid(invert(matrix), out_size, image.shape[-2:], work_dtype(image.dtype), image.device)
    return sample(image, grid, mode, fill)'''),
        ("visiontx/functional/_geometry/_warp.py",
         '''    grid = _perspective_grid(values, image.shape[-2:], work_dtype(image.dtype), image.device)
    return sample(image, grid, mode, fill_values)''',
         '''    if _fast.can_warp(image, mode == InterpolationMode.BILINEAR, fill_values):
        return _fast.warp(image, _coefficient_matrix(values), image.shape[-2:], fill_values)
    grid = _perspective_grid(values, image.shape[-2:], work_dtype(image.dtype), image.device)
    return sample(image, grid, mode, fill_values)'''),
        ("visiontx/functional/_geometry/_warp.py",
         '''    grid = grid.add_(displacement[0].to(dtype=dtype, device=image.device))
    return sample(image, grid, mode, fill_values)''',
         '''    grid = grid.add_(displacement[0].to(dtype=dtype, device=image.device))
    if _fast.can_warp(image, mode == InterpolationMode.BILINEAR, fill_values):
        return _fast.remap(image, grid, fill_values)
    return sample(image, grid, mode, fill_values)'''),
        ("visiontx/functional/_geometry/_warp.py",
         '''    kernel_x = _gaussian_kernel(radius_x, sigma[0]).view(1, 1, 1, -1)''',
         '''    if _fast.can_use(noise):
        return _fast.gaussian_blur(noise, _gaussian_kernel(radius_x, sigma[0]), _gaussian_kernel(radius_y, sigma[1]))
    kernel_x = _gaussian_kernel(radius_x, sigma[0]).view(1, 1, 1, -1)'''),
    ],
    "pad": [
        ("visiontx/functional/_geometry/_pad.py",
         '''    fill_values = _fill_values(fill)
    if padding_mode == "constant":''',
         '''    fill_values = _fill_values(fill)
    if any(padding) and _fast.can_pad(image, padding_mode, fill_values):
        return _fast.pad(image, padding, padding_mode, fill_values)
    if padding_mode == "constant":'''),
    ],
    "jpeg": [
        ("visiontx/functional/_misc/_jpeg.py",
         '''        return image.clone()
    items = image.reshape(''',
         '''        return image.clone()
    if _fast.can_use(image, dtypes=(torch.uint8,)):
        return _fast.jpeg(image, quality)
    items = image.reshape('''),
    ],
}


def add_import(text: str) -> str:
    if IMPORT in text:
        return text
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("from .._") or line.startswith("from ._"):
            lines.insert(i, IMPORT)
            return "".join(lines)
    raise SystemExit("no relative import to anchor on")


ok = True
for group in sorted(GROUPS):
    for rel, old, new in HOOKS[group]:
        path = ROOT / rel
        text = path.read_text()
        if new in text:
            print("already", rel)
            continue
        if text.count(old) != 1:
            print("ANCHOR MISSING", group, rel, repr(old[:60]))
            ok = False
            continue
        path.write_text(add_import(text.replace(old, new)))
        print("hooked", rel)
sys.exit(0 if ok else 1)
