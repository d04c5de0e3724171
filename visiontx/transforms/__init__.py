"""Transforms: classes that apply one draw of random parameters to every input of a sample."""

from ..functional._interpolation import InterpolationMode
from ._augment import *  # noqa: F401,F403
from ._augment import __all__ as _augment_all
from ._auto_augment import *  # noqa: F401,F403
from ._auto_augment import __all__ as _auto_augment_all
from ._color import *  # noqa: F401,F403
from ._color import __all__ as _color_all
from ._container import Compose, RandomApply, RandomChoice, RandomOrder
from ._crop import *  # noqa: F401,F403
from ._crop import __all__ as _crop_all
from ._resize import *  # noqa: F401,F403
from ._resize import __all__ as _resize_all
from ._warp import *  # noqa: F401,F403
from ._warp import __all__ as _warp_all
from ._geometry import *  # noqa: F401,F403
from ._geometry import __all__ as _geometry_all
from ._meta import *  # noqa: F401,F403
from ._meta import __all__ as _meta_all
from ._misc import *  # noqa: F401,F403
from ._misc import __all__ as _misc_all
from ._transform import RandomApplyTransform, Transform
from ._type_conversion import *  # noqa: F401,F403
from ._type_conversion import __all__ as _type_conversion_all

__all__ = sorted(
    [
        "Compose",
        "InterpolationMode",
        "RandomApply",
        "RandomApplyTransform",
        "RandomChoice",
        "RandomOrder",
        "Transform",
        *_augment_all,
        *_auto_augment_all,
        *_color_all,
        *_geometry_all,
        *_warp_all,
        *_resize_all,
        *_crop_all,
        *_meta_all,
        *_misc_all,
        *_type_conversion_all,
    ]
)
