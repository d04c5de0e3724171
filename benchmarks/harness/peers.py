"""The libraries a benchmark compares: visiontx, torchvision transforms v2, albumentations, and (with
``albx_python``) AlbumentationsX in its own interpreter.

Peers are optional: a missing one is ``None`` and its columns stay empty.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator
from types import ModuleType, SimpleNamespace
from typing import Any

import torch

import visiontx.functional as vx_functional
import visiontx.transforms as vx_transforms
from visiontx import datapoints as vx_datapoints

from .remote import Worker

# torchvision v2 spells a few names differently.
_TV_NAMES = {
    "ToImageTensor": "ToImage",
    "ToImagePIL": "ToPILImage",
    "SanitizeBoundingBox": "SanitizeBoundingBoxes",
    "ClampBoundingBox": "ClampBoundingBoxes",
    "ConvertDtype": "ConvertImageDtype",
    "BoundingBox": "BoundingBoxes",
}


class _Renamed:
    """Attribute access on ``module`` with visiontx's names translated to torchvision's."""

    def __init__(self, module: ModuleType) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, _TV_NAMES.get(name, name))


def _quiet_import(name: str) -> ModuleType | None:
    os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return __import__(name, fromlist=["_"])
        except Exception:  # a broken optional install counts as missing
            return None


def load_peers(albx_python: str | None = None) -> dict[str, SimpleNamespace | None]:
    """``{"visiontx": ns, "torchvision": ns | None, "albumentations": ns | None}``, and
    ``"albumentationsx"`` when ``albx_python`` (an interpreter that has it) is given.

    Each namespace has ``T`` (transforms), ``F`` (functional), ``D`` (datapoints) and ``version``;
    albumentations has ``A`` and ``cv2`` instead, AlbumentationsX a ``worker`` (``remote.Worker``).
    """
    peers: dict[str, SimpleNamespace | None] = {
        "visiontx": SimpleNamespace(T=vx_transforms, F=vx_functional, D=vx_datapoints, version=_vx_version())
    }
    tv = _quiet_import("torchvision")
    if tv is not None:
        names = ("torchvision.transforms.v2", "torchvision.transforms.v2.functional", "torchvision.tv_tensors")
        tv_t, tv_f, tv_d = (_quiet_import(m) for m in names)
        complete = None not in (tv_t, tv_f, tv_d)
        tv = SimpleNamespace(T=_Renamed(tv_t), F=tv_f, D=_Renamed(tv_d), version=tv.__version__) if complete else None
    peers["torchvision"] = tv
    albumentations, cv2 = _quiet_import("albumentations"), _quiet_import("cv2")
    peers["albumentations"] = (
        None if albumentations is None or cv2 is None
        else SimpleNamespace(A=albumentations, cv2=cv2, version=albumentations.__version__)
    )
    if albx_python is not None:
        worker = Worker(albx_python)
        peers["albumentationsx"] = SimpleNamespace(worker=worker, version=worker.version)
    return peers


def close_peers(peers: dict[str, SimpleNamespace | None]) -> None:
    """Stop the workers of peers in other interpreters."""
    for peer in peers.values():
        if peer is not None and hasattr(peer, "worker"):
            peer.worker.close()


def _vx_version() -> str:
    import visiontx

    return getattr(visiontx, "__version__", "dev")


def machine_description(peers: dict[str, SimpleNamespace | None]) -> list[str]:
    """Lines describing the CPU, torch threads and the library versions."""
    import platform

    lines = [f"CPU: {_cpu_model()} ({os.cpu_count()} logical cores), {platform.system()} {platform.release()}"]
    lines.append(f"Python {platform.python_version()}, torch {torch.__version__} (threads: {torch.get_num_threads()})")
    for name, peer in peers.items():
        lines.append(f"{name}: {peer.version if peer is not None else 'not installed'}")
    cv2 = _quiet_import("cv2")
    lines.append(f"OpenCV: {cv2.__version__ if cv2 is not None else 'not installed'}")
    if torch.cuda.is_available():
        lines.append(f"GPU: {torch.cuda.get_device_name()}")
    return lines


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


@contextlib.contextmanager
def single_thread() -> Iterator[None]:
    """One thread for torch and OpenCV (as data-loader workers usually run); restored on exit."""
    cv2 = _quiet_import("cv2")
    before = torch.get_num_threads(), cv2.getNumThreads() if cv2 is not None else None
    torch.set_num_threads(1)
    if cv2 is not None:
        cv2.setNumThreads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before[0])
        if cv2 is not None:
            cv2.setNumThreads(before[1])
