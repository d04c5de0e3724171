"""Functional ops: one dispatcher per op plus a public kernel per input type.

``F.op(inpt, ...)`` accepts any supported input type; ``F.op_image_tensor``, ``F.op_image_pil``,
``F.op_video``, ``F.op_mask`` and ``F.op_bounding_box`` are the kernels behind it.
"""

from ._color import *  # noqa: F401,F403
from ._color import __all__ as _color_all
from ._dtype import *  # noqa: F401,F403
from ._dtype import __all__ as _dtype_all
from ._geometry import *  # noqa: F401,F403
from ._geometry import __all__ as _geometry_all
from ._interpolation import InterpolationMode
from ._meta import *  # noqa: F401,F403
from ._meta import __all__ as _meta_all
from ._misc import *  # noqa: F401,F403
from ._misc import __all__ as _misc_all
from ._registry import register_kernel
from ._type_conversion import *  # noqa: F401,F403
from ._type_conversion import __all__ as _type_conversion_all

__all__ = sorted(
    [
        "InterpolationMode",
        "register_kernel",
        *_color_all,
        *_dtype_all,
        *_geometry_all,
        *_meta_all,
        *_misc_all,
        *_type_conversion_all,
    ]
)
