"""Functional ops: one dispatcher per op plus a public kernel per input type.

``F.op(inpt, ...)`` accepts any supported input type; ``F.op_image_tensor``, ``F.op_image_pil``,
``F.op_video``, ``F.op_mask`` and ``F.op_bounding_box`` are the kernels behind it.

Arguments shared by many ops are described here once; the ops' ``Args:`` refer to this:

``inpt``
    What the op transforms, of one of the types its ``Args:`` list: an image tensor ``[..., C, H, W]``
    (a plain ``torch.Tensor`` or an ``Image``), a PIL image, a ``Video`` ``[..., T, C, H, W]``, a
    ``Mask`` ``[..., H, W]`` or a ``BoundingBox`` ``[..., 4]``. A datapoint comes back as a datapoint of
    its type, with updated metadata (a box's ``spatial_size``). Other types raise ``TypeError``.
``interpolation``
    An :class:`InterpolationMode`, its name as a string (``"bilinear"``, ...) or a PIL resampling
    constant. Resizing tensors takes nearest, nearest-exact, bilinear, bicubic and lanczos (PIL images
    every mode); warps (rotate, affine, perspective, elastic) take nearest and bilinear for tensors and
    also bicubic for PIL images (and, for elastic, tensors). Masks are always resampled with nearest
    neighbours; boxes ignore it.
``spatial_size``
    ``(H, W)`` of the image boxes live in; box kernels and ops taking it also take it as ``canvas_size``
    (torchvision 0.16-0.29's name).
``fill``
    The value of the pixels an op creates (padding, corners uncovered by a warp): a number, a sequence
    of one number per channel, or None (zeros). Boxes ignore it.
"""

from ._aliases import *  # noqa: F401,F403
from ._aliases import __all__ as _aliases_all
from ._color import *  # noqa: F401,F403
from ._color import __all__ as _color_all
from ._dtype import *  # noqa: F401,F403
from ._dtype import __all__ as _dtype_all
from ._geometry import *  # noqa: F401,F403
from ._geometry import __all__ as _geometry_all
from ._interpolation import InterpolationMode
from ._meta import *  # noqa: F401,F403
from ._meta import __all__ as _meta_all
from ._meta_keypoints import *  # noqa: F401,F403
from ._meta_keypoints import __all__ as _meta_keypoints_all
from ._misc import *  # noqa: F401,F403
from ._misc import __all__ as _misc_all
from ._registry import register_kernel
from ._type_conversion import *  # noqa: F401,F403
from ._type_conversion import __all__ as _type_conversion_all

__all__ = sorted(
    [
        "InterpolationMode",
        "register_kernel",
        *_aliases_all,
        *_color_all,
        *_dtype_all,
        *_geometry_all,
        *_meta_all,
        *_meta_keypoints_all,
        *_misc_all,
        *_type_conversion_all,
    ]
)
