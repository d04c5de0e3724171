"""visiontx: vision transforms for PyTorch in the "transforms v2" style.

Datapoints carry metadata, transforms apply one draw of random parameters to a whole sample, and
functional ops dispatch each input type to its kernel. See the README for an example.
"""

from . import datapoints, datasets, functional, io, transforms, tv_tensors, utils

__version__ = "0.1.0"

__all__ = ["datapoints", "datasets", "functional", "io", "transforms", "tv_tensors", "utils", "__version__"]
