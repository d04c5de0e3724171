"""A peer timed in another interpreter: AlbumentationsX, which cannot share an environment with
albumentations 2.0.8 (both are the module ``albumentations``).

The worker (``albx_worker.py``) keeps each case's call and runs one timed block per request, so the
harness interleaves its blocks with the other libraries' as if it were local.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any

WORKER = pathlib.Path(__file__).resolve().parent / "albx_worker.py"


class RemoteError(RuntimeError):
    """The worker answered with an error (its message is the cell's text)."""


class Worker:
    """A running ``albx_worker.py`` under ``python``; ``version`` is its albumentations version."""

    def __init__(self, python: str) -> None:
        self.process = subprocess.Popen([python, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        try:
            hello = self.ask(op="hello")
        except Exception:
            self.close()  # (no albumentations there, or another start-up error: no open pipes left behind)
            raise
        self.version = f"{hello['version']} (OpenCV {hello['cv2']}; its own interpreter: {python})"

    def ask(self, **request: Any) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
        except BrokenPipeError:
            line = ""
        else:
            line = self.process.stdout.readline()
        if not line:
            raise RemoteError(f"error: the worker {WORKER.name} stopped")
        answer = json.loads(line)
        if "error" in answer:
            raise RemoteError(answer["error"])
        return answer

    def call(self, case: str, kind: str, size: tuple[int, int], num_boxes: int) -> RemoteCall:
        """The worker's call of albumentations' ``case`` on a ``kind`` sample of ``size``."""
        answer = self.ask(op="setup", case=case, kind=kind, size=list(size), num_boxes=num_boxes)
        return RemoteCall(self, answer["id"])

    def close(self) -> None:
        """End the worker (it stops at the end of its input) and close the pipes."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.close()
        except BrokenPipeError:  # the worker is gone already
            pass
        self.process.wait(timeout=30)
        self.process.stdout.close()
        if self.process.stderr is not None:
            self.process.stderr.close()


class RemoteCall:
    """One case in the worker: ``block(n, seed)`` times ``n`` calls there; calling it runs one."""

    def __init__(self, worker: Worker, ident: int) -> None:
        self.worker, self.ident = worker, ident

    def block(self, calls: int, seed: int = 0) -> float:
        """Seconds per call over ``calls`` calls, timed in the worker (no pipe round trip inside)."""
        return float(self.worker.ask(op="block", id=self.ident, calls=calls, seed=seed)["seconds"])

    def __call__(self) -> None:
        self.block(1)
