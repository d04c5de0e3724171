"""The OpenCV wing: optional CPU fast paths of the torch kernels.

Each path has one gate, ``can_<path>(...)``, holding every condition for taking it (OpenCV installed and
not switched off by :func:`disabled`, device, dtype, layout, sizes, channels, argument values), and a
runner; a torch kernel hands over in one line::

    if _cv2.can_erase(image, i, j, h, w, value, inplace):
        return _cv2.erase(image, i, j, h, w, value)

The pure-torch kernels stay the reference and the GPU path; tests run the kernels with and without
the wing. Runners work plane by plane on the ``H x W`` planes of ``[..., C, H, W]`` tensors and write
into a fresh output, except where OpenCV wants interleaved channels (warps sample three planes at a
time as one RGBA image, JPEG (and grayscale without the compiled kernel) merges the RGB planes first,
colour adjustments run on interleaved pixels between one merge and one split, smooth uint8 resizes the
compiled kernel does not take hand torch's own kernel the interleaved pixels it works in).

Modules: ``_base`` (OpenCV, the compiled kernels of ``visiontx._native``, the switch, the checks every gate
starts from), ``_layout`` (planar tensors <-> interleaved pixels, planes, scratch buffers), ``_warp`` (affine
and perspective warps, remaps), ``_geometry`` (resize, pad), ``_masks`` (nearest sampling of 0 / 1 masks eight
to a byte), ``_decode`` (JPEG decoding), ``_color`` (lookup tables, histograms, grayscale, colour adjustments on
planes or interleaved pixels, sharpness), ``_misc`` (blur, JPEG, erase, the scaled normalise). uint8 bilinear
resizes, antialiased bicubic ones, uint8 grayscale, colour adjustments, constant pads, the warps' border blend
and nearest source points, packed masks and the ToDtype + Normalize stage take ``visiontx._native`` where it
was built.
"""

from ._base import available, can_use, disabled, native, takes_batch_per_image
from ._color import (
    ContrastTables,
    Luma,
    Step,
    adjust_colors,
    adjust_contrast,
    adjust_hue,
    adjust_saturation,
    can_adjust_colors,
    can_adjust_contrast,
    can_adjust_hue,
    can_adjust_saturation,
    can_equalize,
    can_grayscale,
    can_lut,
    can_lut_planes,
    can_sharpen,
    contrast_step,
    equalize,
    grayscale,
    hue_step,
    lut,
    lut_planes,
    lut_step,
    saturation_step,
    sharpen,
)
from ._decode import can_decode_jpeg, decode_jpeg, jpeg_size
from ._geometry import (
    can_pad,
    can_resize,
    can_resize_linear,
    can_gather,
    can_shrink,
    gather,
    pad,
    resize,
    resize_linear,
    shrink,
)
from ._layout import can_pil_planes, contiguous, interleaved, pil_planes, planar
from ._misc import can_erase, can_gaussian_blur, can_jpeg, erase, gaussian_blur, jpeg, scale_normalize
from ._warp import (
    can_remap_nearest,
    can_warp,
    pixel_points,
    remap,
    remap_nearest,
    warp,
    warp_nearest,
)

__all__ = [
    "ContrastTables",
    "Luma",
    "Step",
    "adjust_colors",
    "adjust_contrast",
    "adjust_hue",
    "adjust_saturation",
    "available",
    "can_adjust_colors",
    "can_adjust_contrast",
    "can_adjust_hue",
    "can_adjust_saturation",
    "can_decode_jpeg",
    "can_equalize",
    "can_erase",
    "can_gather",
    "can_gaussian_blur",
    "can_grayscale",
    "can_jpeg",
    "can_lut",
    "can_lut_planes",
    "can_pad",
    "can_pil_planes",
    "can_remap_nearest",
    "can_resize",
    "can_resize_linear",
    "can_sharpen",
    "can_shrink",
    "can_use",
    "can_warp",
    "contiguous",
    "contrast_step",
    "decode_jpeg",
    "disabled",
    "equalize",
    "erase",
    "gather",
    "gaussian_blur",
    "grayscale",
    "hue_step",
    "interleaved",
    "jpeg",
    "jpeg_size",
    "lut",
    "lut_planes",
    "lut_step",
    "pad",
    "pil_planes",
    "pixel_points",
    "planar",
    "remap",
    "remap_nearest",
    "resize",
    "resize_linear",
    "shrink",
    "saturation_step",
    "scale_normalize",
    "sharpen",
    "takes_batch_per_image",
    "warp",
    "warp_nearest",
]
