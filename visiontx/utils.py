"""Drawing boxes, masks and key points, making grids, saving images (the ``torchvision.utils`` helpers).

Images are tensors ``C x H x W``, uint8 (0..255) or float (0..1); inputs are never modified.

Example:
    >>> viz = draw_bounding_boxes(image, boxes, labels=["cat", "dog"], colors="red", width=3)
    >>> viz = draw_segmentation_masks(viz, masks.bool(), alpha=0.5)
    >>> save_image(make_grid([viz, viz], nrow=2), "grid.png")
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import BinaryIO, Union

import numpy as np
import PIL.Image
import PIL.ImageColor
import PIL.ImageDraw
import PIL.ImageFont
import torch

from ._args import check_number
from ._torchvision_interop import is_torchvision_type, to_native
from .datapoints import BoundingBox, BoundingBoxFormat, KeyPoints
from .functional import convert_format_bounding_box, pil_to_tensor, to_dtype_image_tensor, to_image_pil

__all__ = ["draw_bounding_boxes", "draw_keypoints", "draw_segmentation_masks", "make_grid", "save_image"]

Color = Union[str, Sequence[int]]
Colors = Union[Color, Sequence[Color], None]

_PALETTE = (2**25 - 1, 2**15 - 1, 2**21 - 1)


def _palette(num_objects: int) -> list[tuple[int, int, int]]:
    """The default colors: distinct, deterministic, the same as torchvision's."""
    return [tuple((i * p) % 255 for p in _PALETTE) for i in range(num_objects)]


def _rgb(color: Color, name: str) -> tuple[int, int, int]:
    if isinstance(color, str):
        try:
            return PIL.ImageColor.getrgb(color)[:3]
        except ValueError as error:
            raise ValueError(f"{name}: unknown color {color!r}") from error
    if isinstance(color, Sequence) and len(color) == 3 and all(isinstance(v, (int, np.integer)) for v in color):
        if all(0 <= v <= 255 for v in color):
            return tuple(int(v) for v in color)
    raise ValueError(f"{name} must hold color names or (r, g, b) tuples of ints in 0..255, got {color!r}")


def _parse_colors(colors: Colors, num_objects: int, name: str = "colors") -> list[tuple[int, int, int]]:
    """None (default palette), one color for all objects, or a list with at least one color per object."""
    if colors is None:
        return _palette(num_objects)
    if isinstance(colors, str) or (isinstance(colors, tuple) and all(isinstance(v, (int, np.integer)) for v in colors)):
        return [_rgb(colors, name)] * num_objects
    if not isinstance(colors, Sequence):
        raise TypeError(f"{name} must be a color, a list of colors or None, got {type(colors).__name__}")
    if len(colors) < num_objects:
        raise ValueError(f"{name} must have at least one color per object ({num_objects}), got {len(colors)}")
    return [_rgb(color, name) for color in colors[:num_objects]]


def _check_image(image: torch.Tensor) -> torch.Tensor:
    if not isinstance(image, torch.Tensor):
        raise TypeError(f"image must be a tensor, got {type(image).__name__}")
    if not (image.dtype == torch.uint8 or image.is_floating_point()):
        raise ValueError(f"image must be uint8 or float, got {image.dtype}")
    if image.ndim != 3 or image.shape[0] not in (1, 3):
        raise ValueError(f"image must be a single 1- or 3-channel image C x H x W, got shape {tuple(image.shape)}")
    image = image.as_subclass(torch.Tensor)
    return image.expand(3, -1, -1) if image.shape[0] == 1 else image


def _drawable_boxes(boxes: torch.Tensor) -> torch.Tensor:
    """``N x 4`` XYXY boxes, or ``N x 8`` corners of rotated boxes (a ``BoundingBox`` is converted)."""
    if not isinstance(boxes, torch.Tensor):
        raise TypeError(f"boxes must be a tensor N x 4 or N x 8, got {type(boxes).__name__}")
    if is_torchvision_type(type(boxes)):  # torchvision's BoundingBoxes, rotated ones too, as visiontx's
        boxes = to_native(boxes)
    if isinstance(boxes, BoundingBox):
        target = BoundingBoxFormat.XYXYXYXY if boxes.format.is_rotated else BoundingBoxFormat.XYXY
        boxes = convert_format_bounding_box(boxes, new_format=target) if boxes.format != target else boxes
    boxes = boxes.as_subclass(torch.Tensor)
    if boxes.ndim != 2 or boxes.shape[1] not in (4, 8):
        raise ValueError(f"boxes must have shape N x 4 (XYXY) or N x 8 (XYXYXYXY), got {tuple(boxes.shape)}")
    if boxes.shape[1] == 4 and ((boxes[:, 0] > boxes[:, 2]).any() or (boxes[:, 1] > boxes[:, 3]).any()):
        raise ValueError("boxes must be (xmin, ymin, xmax, ymax) with xmin <= xmax and ymin <= ymax")
    return boxes


def _draw_polygon(
    draw: PIL.ImageDraw.ImageDraw, corners: list[int], width: int, outline: tuple, fill: tuple | None
) -> None:
    """A rotated box: filled polygon, first edge dashed (its orientation, as torchvision), others solid."""
    points = list(zip(corners[0::2], corners[1::2]))
    draw.polygon(points, fill=fill, outline=None, width=0)
    (x, y), (x2, y2) = points[0], points[1]
    left, dash = ((x2 - x) ** 2 + (y2 - y) ** 2) ** 0.5, True
    while left > 0:  # 5 px on, 5 px off, each step aimed at the corner from where the last ended (torchvision's steps)
        step, angle = min(left, 5.0), math.atan2(y2 - y, x2 - x)
        end = (x + math.cos(angle) * step, y + math.sin(angle) * step)
        if dash:
            draw.line([(x, y), end], outline, width)
        (x, y), left, dash = end, left - step, not dash
    for i in range(1, 4):
        draw.line([points[i], points[(i + 1) % 4]], fill=outline, width=width)


def _label_colors(
    box_colors: list[tuple[int, int, int]], label_colors: Colors, background_colors: Colors, fill_labels: bool
) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """Text and background colors of the labels: the box colors unless given (black text on filled labels)."""
    num = len(box_colors)
    text = box_colors
    if label_colors is not None or fill_labels:
        text = _parse_colors(label_colors if label_colors is not None else "black", num, "label_colors")
    backgrounds = box_colors
    if fill_labels and background_colors is not None:
        backgrounds = _parse_colors(background_colors, num, "label_background_colors")
    return text, backgrounds


def _font(font: str | None, font_size: int | None) -> PIL.ImageFont.ImageFont | PIL.ImageFont.FreeTypeFont:
    if font is not None:
        try:
            return PIL.ImageFont.truetype(font=font, size=font_size or 10)
        except OSError as error:
            raise ValueError(f"font: cannot load the TrueType font {font!r}: {error}") from error
    if font_size is None:
        return PIL.ImageFont.load_default()
    try:
        return PIL.ImageFont.load_default(size=font_size)  # Pillow >= 10.1 with FreeType
    except (TypeError, ImportError):
        return PIL.ImageFont.load_default()


@torch.no_grad()
def draw_bounding_boxes(
    image: torch.Tensor,
    boxes: torch.Tensor,
    labels: Sequence[str] | None = None,
    colors: Colors = None,
    fill: bool = False,
    width: int = 1,
    font: str | None = None,
    font_size: int | None = None,
    label_colors: Colors = None,
    label_background_colors: Colors = None,
    fill_labels: bool = False,
) -> torch.Tensor:
    """Draw boxes (and their labels) on a copy of ``image``; returns a 3-channel image of its dtype (no boxes:
    ``image`` itself, as torchvision).

    Args:
        image: ``C x H x W`` (C = 1 or 3), uint8 or float in [0, 1].
        boxes: ``N x 4`` absolute XYXY coordinates, or ``N x 8`` corners of rotated boxes (drawn as
            polygons, the first edge dashed); a ``BoundingBox`` of any format is converted.
        labels: one string per box.
        colors: a color name, ``(r, g, b)`` or a list with one per box; default: a fixed palette.
        fill: fill the boxes with their color at alpha 100 / 255.
        width: outline width in pixels.
        font, font_size: a TrueType font file and its size; with no ``font``, Pillow's default font
            (at ``font_size`` where Pillow supports sizing it).
        label_colors: text colors (default: the box colors, or black with ``fill_labels``).
        label_background_colors: colors of the label backgrounds (default: the box colors).
        fill_labels: draw each label on a filled background, for legibility.
    """
    rgb = _check_image(image)
    boxes = _drawable_boxes(boxes)
    num_boxes = boxes.shape[0]
    labels = [None] * num_boxes if labels is None else list(labels)
    if len(labels) != num_boxes:
        raise ValueError(f"labels must have one entry per box ({num_boxes}), got {len(labels)}")
    if num_boxes == 0:
        return image
    box_colors = _parse_colors(colors, num_boxes)
    text_colors, backgrounds = _label_colors(box_colors, label_colors, label_background_colors, fill_labels)
    text_font = _font(font, font_size)
    canvas = _to_pil(rgb)
    draw = PIL.ImageDraw.Draw(canvas, "RGBA" if fill else None)
    margin = width + 1
    for box, color, label, text_color, background in zip(
        boxes.to(torch.int64).tolist(), box_colors, labels, text_colors, backgrounds
    ):
        if len(box) == 8:
            _draw_polygon(draw, box, width, color, (*color, 100) if fill else None)
        else:
            draw.rectangle(box, width=width, outline=color, fill=(*color, 100) if fill else None)
        if label is None:
            continue
        origin = (box[0] + margin, box[1] + margin)
        if fill_labels:
            left, top, right, bottom = draw.textbbox(origin, label, font=text_font)
            draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=background)
        draw.text(origin, label, fill=text_color, font=text_font)
    out = pil_to_tensor(canvas).to(image.device)
    return to_dtype_image_tensor(out, image.dtype, scale=True) if image.is_floating_point() else out


def _to_pil(image: torch.Tensor) -> PIL.Image.Image:
    uint8 = to_dtype_image_tensor(image, torch.uint8, scale=True) if image.is_floating_point() else image
    return to_image_pil(uint8)


@torch.no_grad()
def draw_segmentation_masks(
    image: torch.Tensor, masks: torch.Tensor, alpha: float = 0.8, colors: Colors = None
) -> torch.Tensor:
    """Blend colored masks over a copy of ``image``; returns a 3-channel image of its dtype (no masks: ``image``
    itself, as torchvision). uint8 blends are truncated, as torchvision's.

    Args:
        image: ``C x H x W`` (C = 1 or 3), uint8 or float in [0, 1].
        masks: bool ``N x H x W`` (or ``H x W``). Pixels covered by several masks are drawn black.
        alpha: opacity of the masks, 0 (invisible) to 1 (opaque).
        colors: a color name, ``(r, g, b)`` or a list with one per mask; default: a fixed palette.
    """
    rgb = _check_image(image)
    masks = _check_masks(masks, rgb.shape[-2:])
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1], got {alpha!r}")
    if masks.shape[0] == 0:
        return image
    table = torch.tensor([(0, 0, 0), *_parse_colors(colors, masks.shape[0])], dtype=torch.float32, device=rgb.device)
    if rgb.is_floating_point():
        table = table.div_(255).to(rgb.dtype)
    count = masks.sum(dim=0)
    last = (masks * torch.arange(1, masks.shape[0] + 1, device=masks.device)[:, None, None]).amax(dim=0)
    last = torch.where(count > 1, torch.zeros_like(last), last)  # overlaps: black
    painted = table[last].permute(2, 0, 1)
    blended = rgb * (1 - alpha) + painted * alpha
    if not rgb.is_floating_point():
        blended = blended.clamp_(0, 255).to(torch.uint8)  # truncated, as torchvision's cast
    return torch.where(count > 0, blended, rgb)


@torch.no_grad()
def draw_keypoints(
    image: torch.Tensor,
    keypoints: torch.Tensor,
    connectivity: Sequence[tuple[int, int]] | None = None,
    colors: Color | None = None,
    radius: int = 2,
    width: int = 3,
    visibility: torch.Tensor | None = None,
) -> torch.Tensor:
    """Draw key points (and the edges between them) on a copy of ``image``, as torchvision 0.29's
    ``draw_keypoints``; returns a 3-channel image of its dtype.

    Invisible points are not drawn, nor the edges touching them (per instance).

    Args:
        image: ``C x H x W`` (C = 1 or 3), uint8 or float in [0, 1].
        keypoints: ``[N, K, 2]`` ``(x, y)`` of the ``K`` points of ``N`` instances (truncated to ints);
            ``KeyPoints`` give their ``visibility`` when they track one and ``visibility`` is None.
        connectivity: pairs ``(i, j)`` of point indices joined by a line (a skeleton).
        colors: the color of every point and line: a name (``"red"``, ``"#FF00FF"``) or ``(r, g, b)``.
            None (the default, torchvision's result): white lines and no points drawn (only ``colors``
            draws the points). (torchvision draws its lines white whatever ``colors`` says.)
        radius: radius of the points, in pixels.
        width: width of the lines.
        visibility: bool-like ``[N, K]`` (or ``[N, K, 1]``), True where a point is drawn; None: the
            key points' own visibility, else every point.

    Example:
        >>> viz = draw_keypoints(image, points, connectivity=[(0, 1), (1, 2)], colors="red")
    """
    rgb = _check_image(image)
    points, visibility = _check_keypoints(keypoints, visibility)
    color = None if colors is None else _rgb(colors, "colors")
    canvas = _to_pil(rgb)
    draw = PIL.ImageDraw.Draw(canvas)
    check_number(radius, "radius", non_negative=True)
    check_number(width, "width", non_negative=True)
    num_points = points.shape[1]
    pairs = [] if connectivity is None else list(connectivity)
    if any(not hasattr(edge, "__len__") or len(edge) != 2 for edge in pairs):
        raise ValueError(f"connectivity must hold pairs of point indices in [0, {num_points}), got {pairs}")
    edges = [(int(i), int(j)) for i, j in pairs]
    if any(not (0 <= k < num_points) for edge in edges for k in edge):
        raise ValueError(f"connectivity must hold pairs of point indices in [0, {num_points}), got {edges}")
    for instance, shown in zip(points.to(torch.int64).tolist(), visibility.tolist()):
        for (x, y), visible in zip(instance, shown):
            if visible:
                draw.ellipse([x - radius, y - radius, x + radius, y + radius], fill=color, outline=None, width=0)
        for i, j in edges:
            if shown[i] and shown[j]:
                draw.line((tuple(instance[i]), tuple(instance[j])), width=width, fill=color)
    out = pil_to_tensor(canvas).to(image.device)
    return to_dtype_image_tensor(out, image.dtype, scale=True) if image.is_floating_point() else out


def _check_keypoints(keypoints: torch.Tensor, visibility: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    if not isinstance(keypoints, torch.Tensor):
        raise TypeError(f"keypoints must be a tensor [N, K, 2], got {type(keypoints).__name__}")
    if keypoints.ndim != 3 or keypoints.shape[-1] != 2:
        raise ValueError(f"keypoints must have shape [N, K, 2], got {tuple(keypoints.shape)}")
    if visibility is None and isinstance(keypoints, KeyPoints):
        visibility = keypoints.visibility
    points = keypoints.as_subclass(torch.Tensor).cpu()
    if visibility is None:
        return points, torch.ones(points.shape[:-1], dtype=torch.bool)
    if not isinstance(visibility, torch.Tensor):
        raise TypeError(f"visibility must be a tensor [N, K] or None, got {type(visibility).__name__}")
    visibility = visibility.squeeze(-1) if visibility.ndim == 3 else visibility
    if visibility.shape != points.shape[:-1]:
        raise ValueError(
            f"visibility must have shape [N, K] {tuple(points.shape[:-1])} as keypoints, got {tuple(visibility.shape)}"
        )
    return points, visibility.as_subclass(torch.Tensor).cpu().bool()


def _check_masks(masks: torch.Tensor, spatial_size: torch.Size) -> torch.Tensor:
    if not isinstance(masks, torch.Tensor):
        raise TypeError(f"masks must be a bool tensor N x H x W, got {type(masks).__name__}")
    masks = masks.as_subclass(torch.Tensor)
    if masks.ndim == 2:
        masks = masks[None]
    if masks.ndim != 3:
        raise ValueError(f"masks must have shape N x H x W or H x W, got {tuple(masks.shape)}")
    if masks.dtype != torch.bool:
        raise ValueError(f"masks must be bool, got {masks.dtype}")
    if masks.shape[-2:] != spatial_size:
        raise ValueError(f"masks must match the image's H x W {tuple(spatial_size)}, got {tuple(masks.shape[-2:])}")
    return masks


def _as_batch(tensor: torch.Tensor | Sequence[torch.Tensor]) -> torch.Tensor:
    """A ``B x C x H x W`` batch from a tensor ``H x W`` / ``C x H x W`` / ``B x C x H x W`` or a list."""
    if isinstance(tensor, (list, tuple)):
        if not all(isinstance(t, torch.Tensor) for t in tensor) or not tensor:
            raise TypeError("tensor must be a tensor or a non-empty list of tensors")
        shapes = sorted({tuple(t.shape) for t in tensor})
        if len(shapes) > 1:
            raise ValueError(f"tensor: all images of the list must have one shape, got {shapes}")
        tensor = torch.stack([t.as_subclass(torch.Tensor) for t in tensor])
    elif not isinstance(tensor, torch.Tensor):
        raise TypeError(f"tensor must be a tensor or a list of tensors, got {type(tensor).__name__}")
    tensor = tensor.as_subclass(torch.Tensor)
    if tensor.ndim == 2:
        tensor = tensor[None]
    if tensor.ndim == 3:
        tensor = tensor[None]
    if tensor.ndim != 4:
        raise ValueError(f"tensor must be H x W, C x H x W or B x C x H x W, got shape {tuple(tensor.shape)}")
    return tensor.expand(-1, 3, -1, -1) if tensor.shape[1] == 1 else tensor


def _normalized(
    batch: torch.Tensor, value_range: tuple[float, float] | None, scale_each: bool
) -> torch.Tensor:
    """Shift and scale to [0, 1] by ``value_range`` (default: the min and max), per image or overall."""
    if value_range is not None and (not isinstance(value_range, tuple) or len(value_range) != 2):
        raise TypeError(f"value_range must be a tuple (min, max), got {value_range!r}")
    batch = batch.to(torch.float32) if not batch.is_floating_point() else batch
    dims = (1, 2, 3) if scale_each else (0, 1, 2, 3)
    if value_range is None:
        low, high = batch.amin(dim=dims, keepdim=True), batch.amax(dim=dims, keepdim=True)
    else:
        low, high = (torch.tensor(v, dtype=batch.dtype, device=batch.device) for v in value_range)
    span = (high - low).clamp(min=1e-5)
    return torch.minimum(torch.maximum(batch, low), high).sub(low).div(span)


@torch.no_grad()
def make_grid(
    tensor: torch.Tensor | Sequence[torch.Tensor],
    nrow: int = 8,
    padding: int = 2,
    normalize: bool = False,
    value_range: tuple[float, float] | None = None,
    scale_each: bool = False,
    pad_value: float = 0.0,
) -> torch.Tensor:
    """Tile images into one ``C x H' x W'`` image, ``nrow`` per row, ``padding`` pixels apart.

    Args:
        tensor: a batch ``B x C x H x W``, one image, or a list of same-shape images (1-channel
            images become 3-channel).
        normalize: shift and scale to [0, 1] by ``value_range`` (default: min and max of the input;
            per image with ``scale_each``); integer inputs become float32.
        pad_value: value of the padding pixels.
    """
    if isinstance(nrow, bool) or not isinstance(nrow, int) or nrow < 1:
        raise ValueError(f"nrow must be a positive int, got {nrow!r}")
    if isinstance(padding, bool) or not isinstance(padding, int) or padding < 0:
        raise ValueError(f"padding must be a non-negative int, got {padding!r}")
    batch = _as_batch(tensor)
    if normalize:
        batch = _normalized(batch, value_range, scale_each)
    if batch.shape[0] == 1:
        return batch[0].clone()
    num, channels, height, width = batch.shape
    cols = min(nrow, num)
    rows = math.ceil(num / cols)
    cell_h, cell_w = height + padding, width + padding
    grid = batch.new_full((channels, rows * cell_h + padding, cols * cell_w + padding), pad_value)
    for k in range(num):
        top, left = (k // cols) * cell_h + padding, (k % cols) * cell_w + padding
        grid[:, top : top + height, left : left + width] = batch[k]
    return grid


@torch.no_grad()
def save_image(
    tensor: torch.Tensor | Sequence[torch.Tensor],
    fp: str | os.PathLike | BinaryIO,
    format: str | None = None,
    **kwargs: object,
) -> None:
    """Save an image, a batch or a list of images (tiled by :func:`make_grid` with ``kwargs``) to ``fp``.

    Float images are taken as [0, 1]; ``format`` is needed when ``fp`` is a file object.
    """
    grid = make_grid(tensor, **kwargs)
    if grid.is_floating_point():
        grid = grid.mul(255).add_(0.5).clamp_(0, 255)
    to_image_pil(grid.to("cpu", torch.uint8)).save(fp, format=format)
