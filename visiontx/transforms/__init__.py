"""Transforms: classes that apply one draw of random parameters to every input of a sample.

The private modules mirror ``functional``'s floor: ``_geometry/``, ``_color``, ``_misc/``, ``_dtype``, ``_meta``,
``_type_conversion``; plus ``_auto_augment``, ``_mixing`` (batch ops) and the containers.

Arguments shared by many transforms are described here once; the classes' ``Args:`` refer to this:

``fill``
    The value of the pixels a geometric transform creates (padding, corners uncovered by a warp): a
    number, a sequence of one number per channel, or None (zeros). It can also be a dict by input
    type, ``{datapoint type: value, "others": value}``, e.g. ``{Image: (123, 117, 104), "others": 0}``
    for a gray image border and a background label for masks. An input takes the entry of its own
    type, else of its nearest base class, else ``"others"`` (0 when missing). Boxes ignore it.
``interpolation``
    An :class:`InterpolationMode`, its name as a string (``"nearest"``, ``"bilinear"``, ...) or a PIL
    resampling constant. Masks are always resampled with nearest neighbours; boxes ignore it. The modes
    each op accepts are listed in ``visiontx.functional``.
``antialias``
    Whether tensors are low-pass filtered when downscaled with a bilinear, bicubic or lanczos filter
    (None counts as False; lanczos needs True). PIL images are always antialiased.
``p``
    The probability of applying the transform: one coin flip per call, for the whole sample.
"""

from ..functional import InterpolationMode
from . import _inverse, _record  # noqa: F401  (they set Transform.record / replay / inverse's entry points)
from ._aliases import *  # noqa: F401,F403
from ._aliases import __all__ as _aliases_all
from ._auto_augment import *  # noqa: F401,F403
from ._auto_augment import __all__ as _auto_augment_all
from ._color import *  # noqa: F401,F403
from ._color import __all__ as _color_all
from ._container import Compose, RandomApply, RandomChoice, RandomOrder
from ._labels import register_labels_getter
from ._dtype import *  # noqa: F401,F403
from ._dtype import __all__ as _dtype_all
from ._geometry import *  # noqa: F401,F403
from ._geometry import __all__ as _geometry_all
from ._meta import *  # noqa: F401,F403
from ._meta import __all__ as _meta_all
from ._meta_keypoints import *  # noqa: F401,F403
from ._meta_keypoints import __all__ as _meta_keypoints_all
from ._misc import *  # noqa: F401,F403
from ._misc import __all__ as _misc_all
from ._mixing import *  # noqa: F401,F403
from ._mixing import __all__ as _mixing_all
from ._per_sample import PerSample
from . import _serialize
from ._serialize import from_dict, load, save
from ._transform import RandomApplyTransform, Transform
from ._type_conversion import *  # noqa: F401,F403
from ._type_conversion import __all__ as _type_conversion_all

__all__ = sorted(
    [
        "Compose",
        "InterpolationMode",
        "PerSample",
        "RandomApply",
        "RandomApplyTransform",
        "RandomChoice",
        "RandomOrder",
        "Transform",
        "from_dict",
        "load",
        "register_labels_getter",
        "save",
        *_aliases_all,
        *_auto_augment_all,
        *_color_all,
        *_dtype_all,
        *_geometry_all,
        *_meta_all,
        *_meta_keypoints_all,
        *_misc_all,
        *_mixing_all,
        *_type_conversion_all,
    ]
)

_serialize.register_public(globals(), __all__, Transform)
