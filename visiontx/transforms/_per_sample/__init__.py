"""``PerSample``: transforms on batches with one draw per sample (see ``_per_sample.py``).

``_core`` holds the registry (transform class -> batched implementation), the records of draws and
the loop; ``_batch`` splits a batch into batched leaves and per-sample lists; ``_draws`` draws ``B``
values at once; the other modules register the vectorised implementations by domain.
"""

from . import _color, _containers, _geometry, _misc, _simple  # noqa: F401 (they register their implementations)
from ._core import is_vectorised
from ._per_sample import PerSample

__all__ = ["PerSample", "is_vectorised"]
