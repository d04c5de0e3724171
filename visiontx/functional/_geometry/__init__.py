"""Geometric ops, split by family: flips, resize, crop, pad, affine / rotate, perspective / elastic.

Each op describes itself as a :class:`Geometry` (:mod:`._description`); key points and boxes follow every
description through one path (:mod:`._matrix`; torchvision's ``*_keypoints`` kernels in :mod:`._keypoints`),
and warps sample images through it (:mod:`._generic`).
"""

from ._affine import *  # noqa: F401,F403
from ._affine import __all__ as _affine_all
from ._crop import *  # noqa: F401,F403
from ._crop import __all__ as _crop_all
from ._description import *  # noqa: F401,F403
from ._description import __all__ as _description_all
from ._flip import *  # noqa: F401,F403
from ._flip import __all__ as _flip_all
from ._generic import *  # noqa: F401,F403
from ._generic import __all__ as _generic_all
from ._keypoints import *  # noqa: F401,F403
from ._keypoints import __all__ as _keypoints_all
from ._pad import *  # noqa: F401,F403
from ._pad import __all__ as _pad_all
from ._resize import *  # noqa: F401,F403
from ._resize import __all__ as _resize_all
from ._warp import *  # noqa: F401,F403
from ._warp import __all__ as _warp_all

__all__ = [
    *_affine_all,
    *_description_all,
    *_crop_all,
    *_flip_all,
    *_generic_all,
    *_keypoints_all,
    *_pad_all,
    *_resize_all,
    *_warp_all,
]
