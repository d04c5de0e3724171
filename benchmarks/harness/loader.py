"""End to end: a ``torch.utils.data.DataLoader`` over JPEG files on disk, classification pipeline per image.

Each library reads the file's bytes, decodes them with its natural decoder (torchvision ``decode_jpeg``,
visiontx ``io.decode_image``, albumentations OpenCV's ``imdecode``), runs the classification pipeline
and hands the DataLoader a tensor (albumentations' ``H x W x C`` float32 array as it comes, wrapped by
``torch.from_numpy``); batches are collated as usual. Each worker runs one thread. The files are the
bundled photo, cropped a little differently each time, written once to a temporary folder.

Also imported by ``albx_worker.py`` (as a top-level module), hence the two import forms.
"""

from __future__ import annotations

import pathlib
import tempfile
import time
from typing import Any

import numpy as np
import PIL.Image
import torch

try:
    from . import arrays
except ImportError:  # in albx_worker.py
    import arrays  # type: ignore[no-redef]


def write_jpegs(folder: str, count: int) -> list[str]:
    """``count`` JPEG files (quality 90) of the bundled photo, each cropped by a few pixels differently."""
    paths = []
    with PIL.Image.open(arrays.PHOTO) as img:
        rgb = img.convert("RGB")
    for i in range(count):
        crop = rgb.crop((i % 7, i % 5, rgb.width - i % 11, rgb.height - i % 3))
        path = str(pathlib.Path(folder) / f"{i:05d}.jpg")
        crop.save(path, quality=arrays.JPEG_QUALITY)
        paths.append(path)
    return paths


class JpegFiles(torch.utils.data.Dataset):
    """``paths`` read, decoded by ``decode`` (bytes -> image) and transformed by ``transform`` (image ->
    tensor or array)."""

    def __init__(self, paths: list[str], decode: Any, transform: Any) -> None:
        self.paths, self.decode, self.transform = paths, decode, transform

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index: int) -> torch.Tensor:
        with open(self.paths[index], "rb") as f:
            out = self.transform(self.decode(f.read()))
        return torch.from_numpy(out) if isinstance(out, np.ndarray) else out.as_subclass(torch.Tensor)


def albumentations_parts(A: Any, transform: Any) -> tuple[Any, Any]:
    """albumentations' decoder and a transform returning the image array."""
    return arrays.imdecode_rgb, lambda image: transform(image=image)["image"]


def _one_thread(_: int) -> None:
    torch.set_num_threads(1)
    import cv2

    cv2.setNumThreads(1)


def images_per_second(dataset: JpegFiles, batch_size: int, workers: int) -> float:
    """One pass over ``dataset`` (worker start-up included): images per second."""
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=workers,
                                         worker_init_fn=_one_thread if workers else None)
    start = time.perf_counter()
    count = sum(len(batch) for batch in loader)
    return count / (time.perf_counter() - start)


def warm_up(paths: list[str], workers: int) -> None:
    """One untimed pass over a few files, reading only their bytes: the process's first DataLoader iteration
    imports and sets up the multiprocessing machinery, which would otherwise count against whichever
    library is timed first."""
    dataset = JpegFiles(paths[:2 * max(workers, 1)], _byte_tensor, lambda data: data)
    for _ in torch.utils.data.DataLoader(dataset, batch_size=1, num_workers=workers):
        pass


def _byte_tensor(data: bytes) -> torch.Tensor:
    return torch.frombuffer(bytearray(data), dtype=torch.uint8)


def temporary_folder() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="visiontx-bench-")
