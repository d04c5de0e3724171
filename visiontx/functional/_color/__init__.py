"""Color ops: intensity, hue, grayscale, point-wise and histogram ops for images and videos."""

from ._adjust import *  # noqa: F401,F403
from ._adjust import __all__ as _adjust_all
from ._grayscale import *  # noqa: F401,F403
from ._grayscale import __all__ as _grayscale_all
from ._histogram import *  # noqa: F401,F403
from ._histogram import __all__ as _histogram_all
from ._hue import *  # noqa: F401,F403
from ._hue import __all__ as _hue_all
from ._point import *  # noqa: F401,F403
from ._point import __all__ as _point_all
from ._sharpness import *  # noqa: F401,F403
from ._sharpness import __all__ as _sharpness_all

__all__ = sorted([*_adjust_all, *_grayscale_all, *_histogram_all, *_hue_all, *_point_all, *_sharpness_all])
