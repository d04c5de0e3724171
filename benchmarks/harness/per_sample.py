"""The per-sample batch section: ``T.PerSample`` on a batch beside a Python loop over visiontx's
single-sample pipeline and kornia's ``AugmentationSequential`` (float32 only, its one dtype).

The pipeline is ImageNet-style: RandomResizedCrop, a horizontal flip, ColorJitter(0.4, 0.4, 0.4, 0.1)
and RandomAffine(15, translate=(0.1, 0.1)), every sample with its own draw on all three sides.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import torch

from .timing import Progress, Settings, compare

SIDES = ("PerSample", "PerSample, torch", "loop", "kornia")


def _kornia() -> Any | None:
    try:
        return importlib.import_module("kornia.augmentation")
    except Exception:
        return None


def _pipeline(T: Any, side: int) -> Any:
    return T.Compose([
        T.RandomResizedCrop(side), T.RandomHorizontalFlip(), T.ColorJitter(0.4, 0.4, 0.4, 0.1),
        T.RandomAffine(15, translate=(0.1, 0.1)),
    ])


def _kornia_pipeline(K: Any, side: int) -> Any:
    return K.AugmentationSequential(
        K.RandomResizedCrop((side, side)), K.RandomHorizontalFlip(), K.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1.0),
        K.RandomAffine(15, translate=(0.1, 0.1), p=1.0),
    )


def _torch_only(vx: SimpleNamespace, per_sample: Any, images: torch.Tensor) -> Any:
    """The batched torch kernels, as on a GPU (the OpenCV wing off)."""
    with vx.F._cv2.disabled():
        return per_sample(images)


def _calls(vx: SimpleNamespace, K: Any, images: torch.Tensor, side: int) -> dict[str, Callable[[], Any]]:
    pipeline = _pipeline(vx.T, side)
    per_sample = vx.T.PerSample(pipeline)
    calls: dict[str, Callable[[], Any]] = {
        "PerSample": lambda: per_sample(images),
        "PerSample, torch": lambda: _torch_only(vx, per_sample, images),
        "loop": lambda: torch.stack([pipeline(image) for image in images]),
    }
    if K is not None and images.is_floating_point():
        kornia = _kornia_pipeline(K, side).to(images.device)
        calls["kornia"] = lambda: kornia(images)
    return calls


def per_sample_rows(
    vx: SimpleNamespace, settings: Settings, progress: Progress, batches: Sequence[int], hw: tuple[int, int],
    device: str,
) -> list[tuple[str, int, dict[str, Any]]]:
    """``(dtype, B, {side: seconds per batch | error})`` for uint8 and float32 batches of ``B x 3 x hw``."""
    K = _kornia()
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    rows = []
    for dtype in (torch.uint8, torch.float32):
        for size in batches:
            progress.step(f"per-sample {dtype} B={size} on {device}")
            generator = torch.Generator().manual_seed(0)
            images = torch.randint(0, 256, (size, 3, *hw), dtype=torch.uint8, generator=generator).to(device)
            if dtype == torch.float32:
                images = images.float().div_(255)
            times = compare(_calls(vx, K, images, hw[0]), settings, sync)
            if not images.is_floating_point():
                times["kornia"] = "float32 only"
            elif K is None:
                times["kornia"] = "not installed"
            rows.append((str(dtype).replace("torch.", ""), size, times))
    return rows


def per_sample_table(rows: Sequence[tuple[str, int, dict[str, Any]]]) -> list[str]:
    lines = ["| dtype | B | PerSample ms | PerSample, torch ms | loop ms | kornia ms | PerSample / loop "
             "| PerSample / kornia |", "|---|--:|--:|--:|--:|--:|--:|--:|"]
    for dtype, size, times in rows:
        cells = [f"{t * 1e3:.1f}" if isinstance(t, float) else str(t) for t in (times.get(s, "-") for s in SIDES)]
        ratios = []
        for peer in ("loop", "kornia"):
            mine, theirs = times.get("PerSample"), times.get(peer)
            ok = isinstance(mine, float) and isinstance(theirs, float)
            ratios.append(f"{theirs / mine:.2f}x" if ok else "-")
        lines.append(f"| {dtype} | {size} | " + " | ".join(cells + ratios) + " |")
    return lines
