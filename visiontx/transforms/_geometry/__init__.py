"""Geometric transforms, by family as in ``functional/_geometry``: flip, resize, crop, pad, affine, warp."""

from ._affine import *  # noqa: F401,F403
from ._affine import __all__ as _affine_all
from ._crop import *  # noqa: F401,F403
from ._crop import __all__ as _crop_all
from ._flip import *  # noqa: F401,F403
from ._flip import __all__ as _flip_all
from ._pad import *  # noqa: F401,F403
from ._pad import __all__ as _pad_all
from ._resize import *  # noqa: F401,F403
from ._resize import __all__ as _resize_all
from ._warp import *  # noqa: F401,F403
from ._warp import __all__ as _warp_all

__all__ = sorted([*_affine_all, *_crop_all, *_flip_all, *_pad_all, *_resize_all, *_warp_all])
