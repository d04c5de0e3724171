"""torchvision's other names for visiontx's ops: 0.16-0.29 and the 0.15 leftovers, with 0.29's signatures.

Most are the same objects (``resize_image is resize_image_tensor``). Where 0.29 names a parameter
differently (``bounding_boxes`` / ``canvas_size`` for ``bounding_box`` / ``spatial_size``, ``video`` for
``image``), the alias is :func:`~visiontx._names.renamed` over the one implementation. The box
kernels take 0.29's ``clamping_mode`` and rotated formats as the canonical ones do.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import PIL.Image
import torch

from .._names import renamed
from .._torchvision_interop import accepts_torchvision
from ..datapoints import BoundingBox, BoundingBoxFormat, Datapoint
from ._color import adjust_brightness_image_tensor as adjust_brightness_image
from ._color import adjust_contrast_image_tensor as adjust_contrast_image
from ._color import adjust_gamma_image_tensor as adjust_gamma_image
from ._color import adjust_hue_image_tensor as adjust_hue_image
from ._color import adjust_saturation_image_tensor as adjust_saturation_image
from ._color import adjust_sharpness_image_tensor as adjust_sharpness_image
from ._color import autocontrast_image_tensor as autocontrast_image
from ._color import equalize_image_tensor as equalize_image
from ._color import grayscale_to_rgb_image_tensor as grayscale_to_rgb_image
from ._color import invert_image_tensor as invert_image
from ._color import permute_channels_image_tensor as permute_channels_image
from ._color import posterize_image_tensor as posterize_image
from ._color import rgb_to_grayscale as to_grayscale
from ._color import rgb_to_grayscale_image_tensor as rgb_to_grayscale_image
from ._color import solarize_image_tensor as solarize_image
from ._dtype import convert_dtype_image_tensor as convert_image_dtype
from ._dtype import to_dtype_image_tensor as to_dtype_image
from ._geometry import (
    affine_bounding_box,
    center_crop_bounding_box,
    crop_bounding_box,
    elastic_bounding_box,
    horizontal_flip_bounding_box,
    pad_bounding_box,
    perspective_bounding_box,
    resize_bounding_box,
    resized_crop_bounding_box,
    rotate_bounding_box,
    vertical_flip_bounding_box,
)
from ._geometry import affine_image_tensor as affine_image
from ._geometry import center_crop_image_tensor as center_crop_image
from ._geometry import crop_image_tensor as crop_image
from ._geometry import elastic as elastic_transform
from ._geometry import elastic_image_tensor as elastic_image
from ._geometry import five_crop_image_tensor as five_crop_image
from ._geometry import horizontal_flip as hflip
from ._geometry import horizontal_flip_image_tensor as horizontal_flip_image
from ._geometry import pad_image_tensor as pad_image
from ._geometry import perspective_image_tensor as perspective_image
from ._geometry import resize_image_tensor as resize_image
from ._geometry import resized_crop_image_tensor as resized_crop_image
from ._geometry import rotate_image_tensor as rotate_image
from ._geometry import ten_crop_image_tensor as ten_crop_image
from ._geometry import vertical_flip as vflip
from ._geometry import vertical_flip_image_tensor as vertical_flip_image
from ._meta import clamp_bounding_box, convert_format_bounding_box, get_spatial_size
from ._meta import get_dimensions_image_tensor as get_dimensions_image
from ._meta import get_num_channels as get_image_num_channels
from ._meta import get_num_channels_image_tensor as get_num_channels_image
from ._meta import get_spatial_size as get_size
from ._meta import get_spatial_size_bounding_box as get_size_bounding_boxes
from ._meta import get_spatial_size_image_tensor as get_size_image
from ._meta import get_spatial_size_mask as get_size_mask
from ._misc import erase_image_tensor as erase_image
from ._misc import gaussian_blur_image_tensor as gaussian_blur_image
from ._misc import gaussian_noise_image_tensor as gaussian_noise_image
from ._misc import jpeg_image_tensor as jpeg_image
from ._misc import normalize_image_tensor as normalize_image
from ._type_conversion import to_image_tensor
from ._type_conversion import to_image_tensor as to_image

__all__ = [
    "adjust_brightness_image",
    "adjust_contrast_image",
    "adjust_gamma_image",
    "adjust_hue_image",
    "adjust_saturation_image",
    "adjust_sharpness_image",
    "affine_bounding_boxes",
    "affine_image",
    "autocontrast_image",
    "center_crop_bounding_boxes",
    "center_crop_image",
    "clamp_bounding_boxes",
    "convert_bounding_box_format",
    "convert_image_dtype",
    "crop_bounding_boxes",
    "crop_image",
    "elastic_bounding_boxes",
    "elastic_image",
    "elastic_transform",
    "equalize_image",
    "erase_image",
    "five_crop_image",
    "gaussian_blur_image",
    "gaussian_noise_image",
    "get_dimensions_image",
    "get_dimensions_video",
    "get_image_num_channels",
    "get_image_size",
    "get_num_channels_image",
    "get_num_channels_video",
    "get_size",
    "get_size_bounding_boxes",
    "get_size_image",
    "get_size_mask",
    "get_size_video",
    "grayscale_to_rgb_image",
    "hflip",
    "horizontal_flip_bounding_boxes",
    "horizontal_flip_image",
    "invert_image",
    "is_pure_tensor",
    "jpeg_image",
    "normalize_image",
    "pad_bounding_boxes",
    "pad_image",
    "permute_channels_image",
    "perspective_bounding_boxes",
    "perspective_image",
    "posterize_image",
    "resize_bounding_boxes",
    "resize_image",
    "resized_crop_bounding_boxes",
    "resized_crop_image",
    "rgb_to_grayscale_image",
    "rotate_bounding_boxes",
    "rotate_image",
    "solarize_image",
    "ten_crop_image",
    "to_dtype_image",
    "to_grayscale",
    "to_image",
    "to_tensor",
    "vertical_flip_bounding_boxes",
    "vertical_flip_image",
    "vflip",
]


def _here(alias: Callable[..., Any]) -> Callable[..., Any]:
    alias.__module__ = __name__  # where pickle finds it by name
    return alias


def _video_kernel(kernel: Callable[..., Any], name: str) -> Callable[..., Any]:
    return _here(renamed(kernel, name, image="video"))


get_dimensions_video = _video_kernel(get_dimensions_image, "get_dimensions_video")
get_num_channels_video = _video_kernel(get_num_channels_image, "get_num_channels_video")
get_size_video = _video_kernel(get_size_image, "get_size_video")


def _boxes_kernel(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """``op_bounding_boxes(bounding_boxes, format, canvas_size, ...)`` over ``op_bounding_box``."""
    size = {"spatial_size": "canvas_size"} if "spatial_size" in inspect.signature(kernel).parameters else {}
    return _here(renamed(kernel, f"{kernel.__name__}es", bounding_box="bounding_boxes", **size))


affine_bounding_boxes = _boxes_kernel(affine_bounding_box)
center_crop_bounding_boxes = _boxes_kernel(center_crop_bounding_box)
crop_bounding_boxes = _boxes_kernel(crop_bounding_box)
elastic_bounding_boxes = _boxes_kernel(elastic_bounding_box)
horizontal_flip_bounding_boxes = _boxes_kernel(horizontal_flip_bounding_box)
pad_bounding_boxes = _boxes_kernel(pad_bounding_box)
perspective_bounding_boxes = _boxes_kernel(perspective_bounding_box)
resize_bounding_boxes = _boxes_kernel(resize_bounding_box)
resized_crop_bounding_boxes = _boxes_kernel(resized_crop_bounding_box)
rotate_bounding_boxes = _boxes_kernel(rotate_bounding_box)
vertical_flip_bounding_boxes = _boxes_kernel(vertical_flip_bounding_box)

_CLAMPING_MODES = ("soft", "hard", "auto", None)


def clamp_bounding_boxes(
    inpt: torch.Tensor,
    format: BoundingBoxFormat | str | None = None,
    canvas_size: Sequence[int] | None = None,
    clamping_mode: str | None = "auto",
) -> torch.Tensor:
    """``clamp_bounding_box`` under torchvision 0.16-0.29's name.

    Args:
        inpt, format: as for ``clamp_bounding_box``.
        canvas_size: ``(H, W)`` of a plain tensor's image; None for a ``BoundingBox``.
        clamping_mode: ``"auto"`` (a ``BoundingBox``'s own mode, ``"soft"`` for a plain tensor), ``"soft"``
            or ``"hard"`` (the same for axis-aligned boxes, as in torchvision), None returns a copy unclamped.

    Example:
        >>> F.clamp_bounding_boxes(boxes, format="XYXY", canvas_size=(480, 640), clamping_mode="hard")
    """
    if clamping_mode not in _CLAMPING_MODES:
        raise ValueError(f"clamping_mode must be one of {_CLAMPING_MODES}, got {clamping_mode!r}")
    return clamp_bounding_box(inpt, format, canvas_size, clamping_mode)


@accepts_torchvision
def convert_bounding_box_format(
    inpt: torch.Tensor,
    old_format: BoundingBoxFormat | str | None = None,
    new_format: BoundingBoxFormat | str | None = None,
    inplace: bool = False,
) -> torch.Tensor:
    """``convert_format_bounding_box`` under torchvision 0.16-0.29's name.

    Args:
        inpt, old_format, new_format: as for ``convert_format_bounding_box``.
        inplace: write the converted boxes into ``inpt`` too (the result then shares its memory).

    Example:
        >>> F.convert_bounding_box_format(boxes, new_format="CXCYWH")
    """
    output = convert_format_bounding_box(inpt, old_format, new_format)
    if not inplace:
        return output
    plain = inpt.as_subclass(torch.Tensor).copy_(output.as_subclass(torch.Tensor))
    return BoundingBox.wrap_like(output, plain) if isinstance(output, BoundingBox) else plain


def is_pure_tensor(inpt: Any) -> bool:
    """Whether ``inpt`` is a plain ``torch.Tensor``, not a datapoint (which transforms treat by type).

    Args:
        inpt: anything.
    """
    return isinstance(inpt, torch.Tensor) and not isinstance(inpt, Datapoint)


def _deprecated(message: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: a ``UserWarning`` (what torchvision 0.29 gives for these names) on every call."""

    def decorator(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def warned(*args: Any, **kwargs: Any) -> Any:
            warnings.warn(message, UserWarning, stacklevel=2)
            return function(*args, **kwargs)

        return warned

    return decorator


@_deprecated("get_image_size() is deprecated: use get_size(), which returns [H, W] where this returns [W, H]")
def get_image_size(inpt: Any) -> list[int]:
    """[Deprecated] ``[W, H]`` of an image (``get_size`` gives ``[H, W]``): torchvision 0.15's name.

    Args:
        inpt: as for ``get_size``.
    """
    return get_spatial_size(inpt)[::-1]


@_deprecated("to_tensor() is deprecated: use to_image() followed by to_dtype(..., torch.float32, scale=True)")
def to_tensor(inpt: Any) -> torch.Tensor:
    """[Deprecated] PIL image or numpy ``H x W (x C)`` array -> plain ``C x H x W`` tensor, uint8 values
    scaled to float in ``[0, 1]`` (other dtypes kept): torchvision 0.15's ``to_tensor``.

    ``to_tensor.__wrapped__`` is the same without the warning (what ``T.ToTensor`` calls).

    Args:
        inpt: a PIL image or a numpy array.
    """
    if not isinstance(inpt, (PIL.Image.Image, np.ndarray)):
        raise TypeError(f"inpt must be a PIL image or a numpy array, got {type(inpt).__name__}")
    image = to_image_tensor(inpt).as_subclass(torch.Tensor)
    if image.dtype == torch.bool and isinstance(inpt, PIL.Image.Image):  # mode "1": 0 / 255 pixels
        image = image.to(torch.uint8).mul_(255)
    return image.to(torch.get_default_dtype()).div_(255) if image.dtype == torch.uint8 else image
