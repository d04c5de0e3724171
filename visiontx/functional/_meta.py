"""Metadata queries and bounding-box format / clamping ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import PIL.Image
import torch

from .._names import accepts_canvas_size, accepts_renamed
from .._torchvision_interop import accepts_torchvision
from ..datapoints import BoundingBox, BoundingBoxFormat, Datapoint, Image, Mask, Video
from ..datapoints._bounding_box import check_rotated_dtype, parse_clamping_mode, parse_spatial_size
from ._registry import get_kernel, register_kernels
from ._rotated import (
    convert_rotated,
    corners_to_rotated,
    corners_to_xywhr,
    corners_to_xyxy,
    rotated_to_corners,
    xyxy_to_corners,
)
from ._rotated_clamp import clamp_rotated_corners

__all__ = [
    "clamp_bounding_box",
    "convert_format_bounding_box",
    "get_dimensions",
    "get_dimensions_image_pil",
    "get_dimensions_image_tensor",
    "get_num_channels",
    "get_num_channels_image_pil",
    "get_num_channels_image_tensor",
    "get_num_frames",
    "get_num_frames_video",
    "get_spatial_size",
    "get_spatial_size_bounding_box",
    "get_spatial_size_image_pil",
    "get_spatial_size_image_tensor",
    "get_spatial_size_mask",
    "sanitize_bounding_boxes",
]


def get_dimensions(inpt: Any) -> list[int]:
    """``[C, H, W]`` of an image or video (a 2-D tensor counts as one channel).

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image.

    Example:
        >>> F.get_dimensions(image)
        [3, 480, 640]
    """
    return get_kernel(get_dimensions, type(inpt))(inpt)


@register_kernels(get_dimensions, (torch.Tensor, Image, Video), wrap=False)
def get_dimensions_image_tensor(image: torch.Tensor) -> list[int]:
    """``[C, H, W]`` of a tensor ``[..., C, H, W]`` (a 2-D tensor counts as one channel)."""
    shape = image.shape
    if len(shape) == 2:
        return [1, *shape]
    if len(shape) < 2:
        raise TypeError(f"image must have at least 2 dims, got shape {tuple(shape)}")
    return list(shape[-3:])


@register_kernels(get_dimensions, PIL.Image.Image)
def get_dimensions_image_pil(image: PIL.Image.Image) -> list[int]:
    """``[C, H, W]`` of a PIL image."""
    return [len(image.getbands()), image.height, image.width]


def get_num_channels(inpt: Any) -> int:
    """Number of channels of an image or video.

    Args:
        inpt: an image tensor ``[..., C, H, W]``, ``Image``, ``Video`` or PIL image (its bands).
    """
    return get_kernel(get_num_channels, type(inpt))(inpt)


@register_kernels(get_num_channels, (torch.Tensor, Image, Video), wrap=False)
def get_num_channels_image_tensor(image: torch.Tensor) -> int:
    """Number of channels of a tensor ``[..., C, H, W]``."""
    return get_dimensions_image_tensor(image)[0]


@register_kernels(get_num_channels, PIL.Image.Image)
def get_num_channels_image_pil(image: PIL.Image.Image) -> int:
    """Number of channels (bands) of a PIL image."""
    return len(image.getbands())


def get_spatial_size(inpt: Any) -> list[int]:
    """``[H, W]`` of an image, video, mask or PIL image; boxes give their ``spatial_size``.

    Args:
        inpt: an image tensor, PIL image, ``Video``, ``Mask`` or ``BoundingBox``.

    Example:
        >>> F.get_spatial_size(boxes)
        [480, 640]
    """
    return get_kernel(get_spatial_size, type(inpt))(inpt)


@register_kernels(get_spatial_size, (torch.Tensor, Image, Video), wrap=False)
def get_spatial_size_image_tensor(image: torch.Tensor) -> list[int]:
    """``[H, W]`` of a tensor ``[..., H, W]``."""
    shape = image.shape
    if len(shape) < 2:
        raise TypeError(f"image must have at least 2 dims, got shape {tuple(shape)}")
    return list(shape[-2:])


@register_kernels(get_spatial_size, Mask, wrap=False)
def get_spatial_size_mask(mask: torch.Tensor) -> list[int]:
    """``[H, W]`` of a mask ``[..., H, W]``."""
    return get_spatial_size_image_tensor(mask)


@register_kernels(get_spatial_size, PIL.Image.Image)
def get_spatial_size_image_pil(image: PIL.Image.Image) -> list[int]:
    """``[H, W]`` of a PIL image."""
    return [image.height, image.width]


@register_kernels(get_spatial_size, BoundingBox, wrap=False)
def get_spatial_size_bounding_box(bounding_box: BoundingBox) -> list[int]:
    """The ``spatial_size`` of a ``BoundingBox``."""
    return list(bounding_box.spatial_size)


def get_num_frames(inpt: Any) -> int:
    """Number of frames ``T`` of a video ``[..., T, C, H, W]``.

    Args:
        inpt: a ``Video`` or a plain tensor with at least 4 dims.
    """
    return get_kernel(get_num_frames, type(inpt))(inpt)


@register_kernels(get_num_frames, (torch.Tensor, Video), wrap=False)
def get_num_frames_video(video: torch.Tensor) -> int:
    """Number of frames of a video tensor ``[..., T, C, H, W]``."""
    if video.ndim < 4:
        raise TypeError(f"video must have at least 4 dims (T, C, H, W), got shape {tuple(video.shape)}")
    return video.shape[-4]


def _half(size: torch.Tensor) -> torch.Tensor:
    return size / 2 if size.is_floating_point() else size.div(2, rounding_mode="floor")


def _to_xyxy(boxes: torch.Tensor, format: BoundingBoxFormat) -> torch.Tensor:
    # coordinate pairs (x, y) as 2-column slices: half the torch calls of column-by-column maths
    first, second = boxes[..., :2], boxes[..., 2:]
    if format == BoundingBoxFormat.XYWH:
        return torch.cat([first, first + second], dim=-1)
    if format == BoundingBoxFormat.CXCYWH:  # integer boxes: float maths, truncated back (as torchvision)
        centre, size = (first, second) if boxes.is_floating_point() else (first.float(), second.float())
        top_left = centre - size / 2
        return torch.cat([top_left, top_left + size], dim=-1).to(boxes.dtype)
    return boxes.clone()


def _from_xyxy(boxes: torch.Tensor, format: BoundingBoxFormat) -> torch.Tensor:
    top_left, bottom_right = boxes[..., :2], boxes[..., 2:]
    if format == BoundingBoxFormat.XYWH:
        return torch.cat([top_left, bottom_right - top_left], dim=-1)
    if format == BoundingBoxFormat.CXCYWH:
        size = bottom_right - top_left
        return torch.cat([top_left + _half(size), size], dim=-1)
    return boxes.clone()


def convert_format_bounding_box_tensor(
    bounding_box: torch.Tensor, old_format: BoundingBoxFormat | str, new_format: BoundingBoxFormat | str
) -> torch.Tensor:
    """Convert boxes ``[..., K]`` between formats; returns a new tensor of the same dtype.

    Within the axis-aligned and within the rotated formats as torchvision; rotated to axis-aligned gives
    the enclosing box, axis-aligned to rotated the same box with angle 0 (torchvision refuses both).
    Rotated boxes are float only (``ValueError`` for integer ones)."""
    old_format = BoundingBoxFormat.parse(old_format, "old_format")
    new_format = BoundingBoxFormat.parse(new_format, "new_format")
    if bounding_box.shape[-1:] != (old_format.num_coordinates,):
        raise ValueError(
            f"boxes in format {old_format.value} must have shape [..., {old_format.num_coordinates}], "
            f"got {tuple(bounding_box.shape)}"
        )
    check_rotated_dtype(bounding_box, old_format)
    check_rotated_dtype(bounding_box, new_format)
    if old_format == new_format:
        return bounding_box.clone()
    if old_format.is_rotated and new_format.is_rotated:
        return convert_rotated(bounding_box, old_format, new_format)
    if old_format.is_rotated:
        return _from_xyxy(corners_to_xyxy(rotated_to_corners(bounding_box, old_format)), new_format)
    if new_format.is_rotated:
        return corners_to_rotated(xyxy_to_corners(_to_xyxy(bounding_box, old_format)), new_format)
    if old_format == BoundingBoxFormat.XYXY:
        return _from_xyxy(bounding_box, new_format)
    return _from_xyxy(_to_xyxy(bounding_box, old_format), new_format)


@accepts_torchvision
def convert_format_bounding_box(
    inpt: torch.Tensor,
    old_format: BoundingBoxFormat | str | None = None,
    new_format: BoundingBoxFormat | str | None = None,
) -> torch.Tensor:
    """Convert boxes ``[..., K]`` to ``new_format``; returns new boxes of the same dtype.

    Args:
        inpt: a ``BoundingBox`` (it comes back with the new format in its metadata) or a plain tensor.
        old_format: the format of a plain tensor: a ``BoundingBoxFormat`` or its name (``"XYXY"``,
            ``"XYWH"``, ``"CXCYWH"``, ``"XYWHR"``, ``"CXCYWHR"``, ``"XYXYXYXY"``); must be None for a
            ``BoundingBox``, which knows its own. Rotated to axis-aligned gives the enclosing box,
            axis-aligned to rotated angle 0 (beyond torchvision, which refuses both).
        new_format: the format to convert to, required (same forms).

    Example:
        >>> F.convert_format_bounding_box(boxes, new_format="XYXY")
    """
    if new_format is None:
        raise ValueError("new_format must be given")
    if isinstance(inpt, BoundingBox):
        if old_format is not None:
            raise ValueError("old_format must be None for a BoundingBox: it carries its own format")
        output = convert_format_bounding_box_tensor(inpt.as_subclass(torch.Tensor), inpt.format, new_format)
        return BoundingBox.wrap_like(inpt, output, format=BoundingBoxFormat.parse(new_format, "new_format"))
    if isinstance(inpt, torch.Tensor) and not isinstance(inpt, Datapoint):
        if old_format is None:
            raise ValueError("old_format must be given for a plain tensor")
        return convert_format_bounding_box_tensor(inpt, old_format, new_format)
    raise TypeError(f"convert_format_bounding_box() supports BoundingBox and torch.Tensor, got {type(inpt).__name__}")


def clamp_bounding_box_tensor(
    bounding_box: torch.Tensor,
    format: BoundingBoxFormat | str,
    spatial_size: Sequence[int],
    clamping_mode: str | None = "soft",
) -> torch.Tensor:
    """Clamp boxes ``[..., K]`` to the image ``spatial_size`` ``(H, W)`` in ``clamping_mode`` (``"soft"``,
    ``"hard"``: the same for axis-aligned boxes; None: a copy, unclamped); returns a new tensor."""
    format = BoundingBoxFormat.parse(format)
    height, width = parse_spatial_size(spatial_size)
    if parse_clamping_mode(clamping_mode) is None:
        return bounding_box.clone()
    if format.is_rotated:
        check_rotated_dtype(bounding_box, format)
        corners = clamp_rotated_corners(rotated_to_corners(bounding_box, format), (height, width), clamping_mode)
        return corners_to_rotated(corners, format)
    if format == BoundingBoxFormat.CXCYWH and not bounding_box.is_floating_point():
        # odd sizes put integer centres' corners between pixels: an integer round trip through XYXY
        # would move the centre by -1, so clamp in float and truncate back (as torchvision)
        xyxy = _clamp_xyxy_(_to_xyxy(bounding_box.float(), format), height, width)
        return _from_xyxy(xyxy, format).to(bounding_box.dtype)
    xyxy = _clamp_xyxy_(_to_xyxy(bounding_box, format), height, width)
    return _from_xyxy(xyxy, format) if format != BoundingBoxFormat.XYXY else xyxy


def _clamp_xyxy_(xyxy: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """Clamp XYXY boxes to ``[0, width] x [0, height]`` in place."""
    xyxy[..., 0::2].clamp_(min=0, max=width)
    xyxy[..., 1::2].clamp_(min=0, max=height)
    return xyxy


_CLAMP_CHOICES = ("soft", "hard", "auto", None)


@accepts_torchvision
@accepts_canvas_size
def clamp_bounding_box(
    inpt: torch.Tensor,
    format: BoundingBoxFormat | str | None = None,
    spatial_size: Sequence[int] | None = None,
    clamping_mode: str | None = "auto",
) -> torch.Tensor:
    """Clamp boxes ``[..., K]`` to their image ``[0, W] x [0, H]``; returns new boxes.

    Args:
        inpt: a ``BoundingBox`` (it uses its own metadata) or a plain tensor.
        format: the format of a plain tensor (``BoundingBoxFormat`` or its name); None for a ``BoundingBox``.
        spatial_size: ``(H, W)`` of a plain tensor's image; None for a ``BoundingBox``.
        clamping_mode: ``"auto"`` (default) takes a ``BoundingBox``'s own ``clamping_mode`` (``"soft"`` for
            a plain tensor); ``"soft"`` and ``"hard"`` clamp (the same for axis-aligned boxes; rotated
            boxes keep the box enclosing their part inside the image, or shrink to a box inside it, as
            torchvision 0.29); None returns a copy unclamped.

    Example:
        >>> F.clamp_bounding_box(boxes)
    """
    if clamping_mode not in _CLAMP_CHOICES:
        raise ValueError(f"clamping_mode must be one of {list(_CLAMP_CHOICES)}, got {clamping_mode!r}")
    if isinstance(inpt, BoundingBox):
        if format is not None or spatial_size is not None:
            raise ValueError("format and spatial_size must be None for a BoundingBox: it carries its own")
        mode = inpt.clamping_mode if clamping_mode == "auto" else clamping_mode
        output = clamp_bounding_box_tensor(inpt.as_subclass(torch.Tensor), inpt.format, inpt.spatial_size, mode)
        return BoundingBox.wrap_like(inpt, output)
    if isinstance(inpt, torch.Tensor) and not isinstance(inpt, Datapoint):
        if format is None or spatial_size is None:
            raise ValueError("format and spatial_size must be given for a plain tensor")
        mode = "soft" if clamping_mode == "auto" else clamping_mode
        return clamp_bounding_box_tensor(inpt, format, spatial_size, mode)
    raise TypeError(f"clamp_bounding_box() supports BoundingBox and torch.Tensor, got {type(inpt).__name__}")


def _valid_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    spatial_size: Sequence[int],
    min_size: float,
    min_area: float,
) -> torch.Tensor:
    """Which boxes are at least ``min_size`` wide and high, ``min_area`` large, and inside the image."""
    if bounding_boxes.ndim != 2:
        k = format.num_coordinates
        raise ValueError(f"bounding_boxes must be N x {k}, got shape {tuple(bounding_boxes.shape)}")
    if format.is_rotated:
        return _valid_rotated_boxes(bounding_boxes, format, spatial_size, min_size, min_area)
    # XYXY boxes are only read: no conversion copy
    xyxy = bounding_boxes if format == BoundingBoxFormat.XYXY else _to_xyxy(bounding_boxes, format)
    top_left, bottom_right = xyxy[..., :2], xyxy[..., 2:]
    sizes = bottom_right - top_left
    # With x1 >= 0, x2 <= width and x2 - x1 >= min_size > 0, every coordinate is inside the image;
    # NaN and infinite coordinates fail one of these tests.
    width_height = xyxy.new_tensor((spatial_size[1], spatial_size[0]))
    valid = (top_left >= 0).all(dim=-1) & (bottom_right <= width_height).all(dim=-1)
    return valid & (sizes >= min_size).all(dim=-1) & (sizes.prod(dim=-1) >= min_area)


def _valid_rotated_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat,
    spatial_size: Sequence[int],
    min_size: float,
    min_area: float,
) -> torch.Tensor:
    """Rotated boxes: every corner inside the image, both sides (``|p2 - p1|``, ``|p3 - p2|``) at least
    ``min_size`` and their product at least ``min_area``."""
    check_rotated_dtype(bounding_boxes, format)
    corners = rotated_to_corners(bounding_boxes, format)
    xs, ys = corners[:, 0::2], corners[:, 1::2]
    _, _, width, height, _ = corners_to_xywhr(corners).unbind(-1)
    inside = (corners >= 0).all(-1) & (xs <= spatial_size[1]).all(-1) & (ys <= spatial_size[0]).all(-1)
    return inside & (width >= min_size) & (height >= min_size) & (width * height >= min_area)


@accepts_torchvision
@accepts_renamed("canvas_size", "spatial_size")
def sanitize_bounding_boxes(
    bounding_boxes: torch.Tensor,
    format: BoundingBoxFormat | str | None = None,
    canvas_size: Sequence[int] | None = None,
    min_size: float = 1.0,
    min_area: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Remove degenerate boxes: returns ``(kept boxes, valid)``, ``valid`` a bool tensor ``[N]`` to
    filter what goes with the boxes (labels, masks). ``T.SanitizeBoundingBox`` does this for a sample.

    A box is removed when its width or height is below ``min_size``, its area below ``min_area``, a
    coordinate is not finite, or it leaves the image (torchvision 0.16-0.29's functional); a rotated
    box when one of its corners leaves the image or its sides or area are too small.

    Args:
        bounding_boxes: a ``BoundingBox`` ``N x K`` (it uses its own metadata) or a plain tensor.
        format: the format of a plain tensor (``BoundingBoxFormat`` or its name); None for a ``BoundingBox``.
        canvas_size: ``(H, W)`` of a plain tensor's image (also accepted as ``spatial_size``); None for a
            ``BoundingBox``.
        min_size: smallest width and height kept (default 1).
        min_area: smallest area kept (default 1).

    Example:
        >>> boxes, valid = F.sanitize_bounding_boxes(boxes)
        >>> labels = labels[valid]
    """
    if isinstance(bounding_boxes, BoundingBox):
        if format is not None or canvas_size is not None:
            raise ValueError("format and canvas_size must be None for a BoundingBox: it carries its own")
        plain = bounding_boxes.as_subclass(torch.Tensor)
        valid = _valid_boxes(plain, bounding_boxes.format, bounding_boxes.spatial_size, min_size, min_area)
        return BoundingBox.wrap_like(bounding_boxes, plain[valid]), valid
    if isinstance(bounding_boxes, torch.Tensor) and not isinstance(bounding_boxes, Datapoint):
        if format is None or canvas_size is None:
            raise ValueError("format and canvas_size must be given for a plain tensor")
        format, size = BoundingBoxFormat.parse(format), parse_spatial_size(canvas_size, "canvas_size")
        valid = _valid_boxes(bounding_boxes, format, size, min_size, min_area)
        return bounding_boxes[valid], valid
    kind = type(bounding_boxes).__name__
    raise TypeError(f"sanitize_bounding_boxes() supports BoundingBox and torch.Tensor, got {kind}")
