"""Misc transforms, as in ``functional/_misc``: blur and noise, erase, jpeg, normalize, temporal; Identity, Lambda."""

from ._blur import *  # noqa: F401,F403
from ._blur import __all__ as _blur_all
from ._erase import *  # noqa: F401,F403
from ._erase import __all__ as _erase_all
from ._jpeg import *  # noqa: F401,F403
from ._jpeg import __all__ as _jpeg_all
from ._lambda import *  # noqa: F401,F403
from ._lambda import __all__ as _lambda_all
from ._normalize import *  # noqa: F401,F403
from ._normalize import __all__ as _normalize_all
from ._temporal import *  # noqa: F401,F403
from ._temporal import __all__ as _temporal_all

__all__ = sorted([*_blur_all, *_erase_all, *_jpeg_all, *_lambda_all, *_normalize_all, *_temporal_all])
