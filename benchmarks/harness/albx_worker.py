"""Times albumentations cases in this interpreter for a harness running in another (AlbumentationsX).

Run by ``harness.remote`` as ``<python> albx_worker.py``; it reads one JSON request a line on stdin and
answers one JSON line on stdout:

- ``{"op": "hello"}`` -> ``{"version": albumentations version, "cv2": OpenCV version}``
- ``{"op": "setup", "case": name, "kind": kind, "size": [h, w], "num_boxes": n}`` -> ``{"id": k}``
- ``{"op": "block", "id": k, "calls": n, "seed": s}`` -> ``{"seconds": seconds per call}``
- ``{"op": "loader", "case": pipeline, "paths": [...], "batch_size": b, "workers": w}`` ->
  ``{"images_per_s": x}`` (see ``loader``)

Failures answer ``{"error": message}``. Needs numpy, Pillow, OpenCV and albumentations (whose 2.x releases
import torch), not visiontx. One thread for OpenCV and torch, as the harness.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import random
import sys
import time
import warnings
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")

import arrays  # noqa: E402
import cases  # noqa: E402
import numpy as np  # noqa: E402


def _albumentations() -> tuple[Any, Any]:
    import cv2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import albumentations

    cv2.setNumThreads(1)
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    return albumentations, cv2


def _build(A: Any, cv2: Any, request: dict) -> Any:
    by_name = {case.name: case for case in cases.TRANSFORMS + cases.PIPELINES + cases.SMALL_PIPELINES}
    case = dataclasses.replace(by_name[request["case"]], kind=request["kind"])
    size = tuple(request["size"])
    extra = (cases.out_size(size, case.factor),) if case.factor is not None else ()
    transform = cases.albumentations_transform(case, A, cv2, *extra)
    return arrays.albumentations_call(transform, case.kind, size, request["num_boxes"])


def _loader(A: Any, cv2: Any, request: dict) -> float:
    import loader

    by_name = {case.name: case for case in cases.PIPELINES}
    transform = cases.albumentations_transform(by_name[request["case"]], A, cv2)
    dataset = loader.JpegFiles(request["paths"], *loader.albumentations_parts(A, transform))
    return loader.images_per_second(dataset, request["batch_size"], request["workers"])


def _block(fn: Any, calls: int, seed: int) -> float:
    random.seed(seed)
    np.random.seed(seed)
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def main() -> int:
    A, cv2 = _albumentations()
    calls: list[Any] = []
    for line in sys.stdin:
        request = json.loads(line)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if request["op"] == "hello":
                    answer: dict = {"version": A.__version__, "cv2": cv2.__version__}
                elif request["op"] == "setup":
                    calls.append(_build(A, cv2, request))
                    answer = {"id": len(calls) - 1}
                elif request["op"] == "loader":
                    answer = {"images_per_s": _loader(A, cv2, request)}
                else:
                    answer = {"seconds": _block(calls[request["id"]], request["calls"], request["seed"])}
        except Exception as error:  # reported to the harness as this peer's cell
            message = str(error).splitlines()[0][:80] if str(error) else ""
            answer = {"error": f"{type(error).__name__}: {message}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
