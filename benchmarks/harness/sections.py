"""The benchmark's sections; each returns rows ``(label, {peer: seconds per call | error}, note)``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import PIL.Image
import torch

from .cases import BenchCase, albumentations_transform, missing, out_size
from .inputs import make_call
from .report import Row
from .timing import Progress, Settings, compare, copy_floor, error_text

Peers = dict[str, SimpleNamespace | None]


Calls = dict[str, Callable[[], Any]]


def _case_calls(case: BenchCase, peers: Peers, size: tuple[int, int], num_boxes: int = 8) -> Calls:
    calls = {}
    extra = (out_size(size, case.factor),) if case.factor is not None else ()
    for name, peer in peers.items():
        if peer is None:
            continue
        if name == "albumentationsx":
            if case.alb is not None:
                calls[name] = peer.worker.call(case.name, case.kind, size, num_boxes)
        elif name == "albumentations":
            if case.alb is not None:
                transform = albumentations_transform(case, peer.A, peer.cv2, *extra)
                calls[name] = make_call(name, peer, transform, case.kind, size, num_boxes)
        else:
            calls[name] = make_call(name, peer, case.build(peer.T, peer.D, *extra), case.kind, size, num_boxes)
    return calls


def _safe_calls(case: BenchCase, peers: Peers, size: tuple[int, int],
                num_boxes: int = 8) -> tuple[Calls, dict[str, str]]:
    """Like ``_case_calls`` but a peer failing to even build its transform becomes an error entry."""
    calls, errors = {}, {}
    for name in peers:
        try:
            calls.update(_case_calls(case, {name: peers[name]}, size, num_boxes))
        except Exception as error:
            errors[name] = error_text(error)
    return calls, errors


def run_cases(cases: Sequence[BenchCase], peers: Peers, size: tuple[int, int], settings: Settings, progress: Progress,
              num_boxes: int = 8) -> tuple[list[Row], list[str]]:
    """Time each available case at ``size``; returns the rows and the cases visiontx lacks. Each row's
    times also hold ``"floor"``: the copy floor of visiontx's input and output bytes (see ``copy_floor``)."""
    rows, unavailable = [], []
    for case in cases:
        progress.step(f"{case.name} @ {size[0]}x{size[1]}")
        if missing(case, peers["visiontx"].T):
            unavailable.append(case.name)
            continue
        calls, errors = _safe_calls(case, peers, size, num_boxes)
        times = {**compare(calls, settings), **errors}
        if isinstance(times.get("visiontx"), float):
            vx = calls["visiontx"]
            times["floor"] = copy_floor(nbytes(vx.sample) + nbytes(vx()), settings)
        rows.append((case.name, times, case.note))
    return rows, unavailable


def nbytes(value: Any) -> int:
    """The bytes of the arrays, tensors, PIL images and byte strings in ``value`` (nested containers)."""
    if isinstance(value, dict):
        return sum(nbytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v) for v in value)
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    if isinstance(value, (np.ndarray, torch.Tensor)):
        return value.numel() * value.element_size() if isinstance(value, torch.Tensor) else value.nbytes
    if isinstance(value, PIL.Image.Image):
        return value.width * value.height * len(value.getbands())
    return 0


# ------------------------------------------------------------------------------------- dispatch
def dispatch_rows(peers: Peers, settings: Settings, progress: Progress) -> list[Row]:
    """Microseconds per call of a no-op, a flip and a centre crop on a 3 x 8 x 8 image (an ``Image``, and
    a plain tensor for the crop: a transform call's overhead is its time minus the kernel's)."""
    tiny = np.zeros((8, 8, 3), dtype=np.uint8)
    entries: dict[str, dict[str, Callable[[], Any]]] = {
        "no-op Transform subclass": {}, "Identity": {}, "RandomHorizontalFlip(p=1)": {},
        "F.horizontal_flip (dispatcher)": {}, "horizontal flip kernel": {},
        "CenterCrop(4)": {}, "CenterCrop(4), plain tensor": {}, "centre crop kernel": {},
    }
    for name, peer in peers.items():
        if peer is None:
            continue
        if name == "albumentationsx":
            continue  # in another interpreter: a pipe round trip per call would swamp microseconds
        if name == "albumentations":
            noop, flip, crop = peer.A.NoOp(p=1.0), peer.A.HorizontalFlip(p=1.0), peer.A.CenterCrop(4, 4)
            entries["Identity"][name] = lambda noop=noop: noop(image=tiny)
            entries["RandomHorizontalFlip(p=1)"][name] = lambda flip=flip: flip(image=tiny)
            entries["horizontal flip kernel"][name] = lambda: peer_flip(tiny)
            entries["CenterCrop(4)"][name] = lambda crop=crop: crop(image=tiny)
            entries["centre crop kernel"][name] = lambda: tiny[2:6, 2:6]
            continue
        image = peer.D.Image(torch.zeros(3, 8, 8, dtype=torch.uint8))
        plain = image.as_subclass(torch.Tensor)
        noop_cls = type("NoOp", (peer.T.Transform,), {"transform": lambda self, inpt, params: inpt})
        kernel = getattr(peer.F, "horizontal_flip_image_tensor", None) or peer.F.horizontal_flip_image
        crop_kernel = getattr(peer.F, "center_crop_image_tensor", None) or peer.F.center_crop_image
        center_crop = peer.T.CenterCrop(4)
        for label, fn in {
            "no-op Transform subclass": noop_cls(),
            "Identity": peer.T.Identity(),
            "RandomHorizontalFlip(p=1)": peer.T.RandomHorizontalFlip(p=1.0),
            "F.horizontal_flip (dispatcher)": peer.F.horizontal_flip,
            "CenterCrop(4)": center_crop,
        }.items():
            entries[label][name] = lambda fn=fn, image=image: fn(image)
        entries["horizontal flip kernel"][name] = lambda kernel=kernel, plain=plain: kernel(plain)
        entries["CenterCrop(4), plain tensor"][name] = lambda fn=center_crop, plain=plain: fn(plain)
        entries["centre crop kernel"][name] = lambda kernel=crop_kernel, plain=plain: kernel(plain, [4, 4])
    rows = []
    for label, calls in entries.items():
        progress.step(f"dispatch: {label}")
        rows.append((label, compare(calls, settings), ""))
    return rows


def peer_flip(array: np.ndarray) -> np.ndarray:
    """albumentations' flip is OpenCV's (``cv2.flip``), called directly here."""
    import cv2

    return cv2.flip(array, 1)


# ---------------------------------------------------------------------------------------- batch
@dataclasses.dataclass(frozen=True)
class KernelCase:
    label: str
    op: str  # visiontx kernel = op + "_image_tensor", torchvision kernel = op + "_image"
    kwargs: Callable[[SimpleNamespace], dict[str, Any]]
    dtype: torch.dtype = torch.uint8


def _interp(peer: SimpleNamespace) -> Any:
    return peer.T.InterpolationMode.BILINEAR


KERNELS = [
    KernelCase("horizontal_flip", "horizontal_flip", lambda P: {}),
    KernelCase("resize to half (antialias)", "resize", lambda P: dict(size=[112, 112], antialias=True)),
    KernelCase("crop 192", "crop", lambda P: dict(top=16, left=16, height=192, width=192)),
    KernelCase("adjust_brightness(1.3)", "adjust_brightness", lambda P: dict(brightness_factor=1.3)),
    KernelCase("adjust_hue(0.1)", "adjust_hue", lambda P: dict(hue_factor=0.1)),
    KernelCase("equalize", "equalize", lambda P: {}),
    KernelCase("gaussian_blur(9, 1.5)", "gaussian_blur", lambda P: dict(kernel_size=[9, 9], sigma=[1.5, 1.5])),
    KernelCase("rotate(30, bilinear)", "rotate", lambda P: dict(angle=30.0, interpolation=_interp(P))),
    KernelCase("normalize (float32)", "normalize",
               lambda P: dict(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]), torch.float32),
    KernelCase("to_dtype float32", "to_dtype", lambda P: dict(dtype=torch.float32, scale=True)),
]


def _kernel(peer_name: str, peer: SimpleNamespace, op: str) -> Callable | None:
    suffix = "_image_tensor" if peer_name == "visiontx" else "_image"
    return getattr(peer.F, op + suffix, None)


def batch_rows(peers: Peers, settings: Settings, progress: Progress, batch_size: int, hw: tuple[int, int],
               device: str) -> tuple[list[Row], list[str]]:
    """Seconds per batch of ``batch_size`` images for tensor kernels on ``device``."""
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    generator = torch.Generator().manual_seed(0)
    batch = torch.randint(0, 256, (batch_size, 3, *hw), generator=generator, dtype=torch.uint8).to(device)
    rows, unavailable = [], []
    for case in KERNELS:
        progress.step(f"batch {device}: {case.label}")
        inpt = batch.float().div(255) if case.dtype.is_floating_point else batch
        calls = {}
        for name, peer in peers.items():
            kernel = _kernel(name, peer, case.op) if peer is not None and not name.startswith("albumentations") else None
            if kernel is not None:
                calls[name] = lambda kernel=kernel, kwargs=case.kwargs(peer): kernel(inpt, **kwargs)
        if "visiontx" not in calls:
            unavailable.append(case.label)
            continue
        rows.append((case.label, compare(calls, settings, sync), ""))
    return rows, unavailable


# -------------------------------------------------------------------------------------- scaling
def size_scaling_rows(cases: Sequence[BenchCase], peers: Peers, sizes: Sequence[int], settings: Settings,
                      progress: Progress) -> dict[int, list[Row]]:
    """Per image size (square), the rows of the given cases."""
    return {s: run_cases(cases, peers, (s, s), settings, progress)[0] for s in sizes}


def box_scaling_rows(cases: Sequence[BenchCase], peers: Peers, counts: Sequence[int], settings: Settings,
                     progress: Progress, size: tuple[int, int] = (128, 128)) -> dict[int, list[Row]]:
    """Per number of boxes, the rows of the given cases on (image, boxes, labels) samples."""
    box_cases = [dataclasses.replace(c, kind="boxes") for c in cases]
    return {n: run_cases(box_cases, peers, size, settings, progress, num_boxes=n)[0] for n in counts}


# ----------------------------------------------------------------------------------------- fusion
FUSION_CHAIN = ("RandomRotation(30), RandomAffine(0, (0.1, 0.1), (0.8, 1.2), 10), RandomPerspective(0.3), Resize(256), "
                "CenterCrop(224)")


def _fusion_chain(T: Any, fuse: bool) -> Any:
    bilinear = T.InterpolationMode.BILINEAR
    return T.Compose([
        T.RandomRotation(30, interpolation=bilinear),
        T.RandomAffine(degrees=0, translate=(0.1, 0.1), scale=(0.8, 1.2), shear=10, interpolation=bilinear),
        T.RandomPerspective(0.3, p=1.0),
        T.Resize(256, antialias=True),
        T.CenterCrop(224),
    ], fuse_geometry=fuse)


def _fusion_chain_alb(A: Any, cv2: Any) -> Any:
    return A.Compose([
        A.Rotate(limit=30, interpolation=cv2.INTER_LINEAR, border_mode=cv2.BORDER_CONSTANT, p=1.0),
        A.Affine(translate_percent=(-0.1, 0.1), scale=(0.8, 1.2), shear=(-10, 10), p=1.0),
        A.Perspective(scale=(0.05, 0.15), p=1.0),
        A.SmallestMaxSize(max_size=256, interpolation=cv2.INTER_AREA),
        A.CenterCrop(224, 224),
    ])


def fusion_calls(peers: Peers, size: tuple[int, int] = (512, 512)) -> Calls:
    """The geometric chain of issue 18 on a ``size`` uint8 photo: visiontx fused and unfused, albumentations."""
    vx = peers["visiontx"]
    calls = {
        "visiontx fused": make_call("visiontx", vx, _fusion_chain(vx.T, True), "image", size),
        "visiontx unfused": make_call("visiontx", vx, _fusion_chain(vx.T, False), "image", size),
    }
    alb = peers.get("albumentations")
    if alb is not None:
        calls["albumentations"] = make_call("albumentations", alb, _fusion_chain_alb(alb.A, alb.cv2), "image", size)
    return calls


def fusion_lines(peers: Peers, settings: Settings, progress: Progress) -> list[str]:
    """Milliseconds per call of the chain, and the fused chain's speed-up over the others."""
    progress.step("fusion: geometric chain")
    times = compare(fusion_calls(peers), settings)
    lines = [f"Chain: {FUSION_CHAIN}, uint8 RGB 512 x 512, bilinear.", "", "| run | ms / call | fused is |",
             "|---|---|---|"]
    fused = times.get("visiontx fused")
    for name, value in times.items():
        if isinstance(value, str):
            lines.append(f"| {name} | {value} | |")
            continue
        ratio = f"{value / fused:.2f}x faster" if isinstance(fused, float) and name != "visiontx fused" else ""
        lines.append(f"| {name} | {value * 1e3:.2f} | {ratio} |")
    return lines
