"""Names of both eras: torchvision 0.16-0.29's names (``tv_tensors``, ``canvas_size``, ``*_image`` and
``*_bounding_boxes`` kernels, ``ToImage``, ...) and 0.15's leftovers, as aliases of visiontx's objects,
with 0.29's parameter names and results."""

from __future__ import annotations

import copy
import inspect
import pickle
from typing import Any

import numpy as np
import PIL.Image
import pytest
import torch

import visiontx
import visiontx.functional as F
import visiontx.transforms as T
from visiontx import datapoints, tv_tensors
from visiontx.datapoints import BoundingBox

from .common import assert_equal, make_bounding_box, make_image, make_image_pil, make_mask, make_video


def _tv() -> Any:
    return pytest.importorskip("torchvision")


IMAGE_OPS = """adjust_brightness adjust_contrast adjust_gamma adjust_hue adjust_saturation adjust_sharpness affine
    autocontrast center_crop crop elastic equalize erase five_crop gaussian_blur gaussian_noise get_dimensions
    get_num_channels grayscale_to_rgb horizontal_flip invert jpeg normalize pad permute_channels perspective posterize
    resize resized_crop rgb_to_grayscale rotate solarize ten_crop to_dtype vertical_flip""".split()
# alias -> canonical name, the same object
SAME_FUNCTIONALS = {
    **{f"{op}_image": f"{op}_image_tensor" for op in IMAGE_OPS},
    "get_size": "get_spatial_size",
    "get_size_image": "get_spatial_size_image_tensor",
    "get_size_mask": "get_spatial_size_mask",
    "get_size_bounding_boxes": "get_spatial_size_bounding_box",
    "to_image": "to_image_tensor",
    "hflip": "horizontal_flip",
    "vflip": "vertical_flip",
    "to_grayscale": "rgb_to_grayscale",
    "get_image_num_channels": "get_num_channels",
    "convert_image_dtype": "convert_dtype_image_tensor",
    "elastic_transform": "elastic",
}
SAME_TRANSFORMS = {
    "ToImage": "ToImageTensor",
    "ClampBoundingBoxes": "ClampBoundingBox",
    "SanitizeBoundingBoxes": "SanitizeBoundingBox",
}
SAME_TV_TENSORS = {
    "TVTensor": "Datapoint",
    "BoundingBoxes": "BoundingBox",
    **{name: name for name in ("BoundingBoxFormat", "Image", "KeyPoints", "Video", "Mask", "set_return_type", "wrap")},
    "is_rotated_bounding_format": "is_rotated_bounding_format",
}
# torchvision 0.29 names visiontx does not offer yet: key points' clamp / sanitize
NOT_OFFERED = {"ClampKeyPoints", "SanitizeKeyPoints", "get_keypoints"}
# 0.29 parameters left out of the aliases
NOT_OFFERED_PARAMETERS: set[str] = set()
# visiontx's own keyword-only extensions of torchvision's signatures
EXTENSION_PARAMETERS = {"fuse_geometry", "remove", "generator", "seed"}
# Names whose parameter names still differ from 0.29's: register_kernel calls its class ``datapoint_cls``
# (0.15's name; 0.29's ``tv_tensor_cls`` is accepted as a keyword too).
PRE_EXISTING_DIFFERENCES = {"register_kernel"}
# Video and mask kernels: the image kernel under the names 0.29 gives them (first argument video / mask).
VIDEO_KERNELS = [f"{op}_video" for op in IMAGE_OPS if not op.startswith("get_")]
MASK_KERNELS = ["center_crop_mask", "crop_mask", "horizontal_flip_mask", "vertical_flip_mask"]

# 0.29 box kernel -> its arguments besides bounding_boxes, format and canvas_size
BOX_KERNEL_CASES: dict[str, dict[str, Any]] = {
    "affine": dict(angle=30.0, translate=[2.0, 3.0], scale=1.1, shear=[5.0, 0.0], center=None),
    "center_crop": dict(output_size=[10, 12]),
    "crop": dict(top=2, left=3, height=10, width=12),
    "elastic": dict(displacement=torch.rand(1, 17, 23, 2, generator=torch.Generator().manual_seed(0)) * 0.1 - 0.05),
    "horizontal_flip": {},
    "pad": dict(padding=[1, 2, 3, 4]),
    "perspective": dict(
        startpoints=[[0, 0], [22, 0], [22, 16], [0, 16]], endpoints=[[1, 2], [20, 1], [21, 15], [2, 14]]
    ),
    "resize": dict(size=[20, 30]),
    "resized_crop": dict(top=2, left=3, height=10, width=12, size=[20, 24]),
    "rotate": dict(angle=30.0),
    "vertical_flip": {},
}
RENAMED_VIDEO_KERNELS = ["get_dimensions_video", "get_num_channels_video", "get_size_video"]
COVERED = {
    *SAME_FUNCTIONALS,
    *VIDEO_KERNELS,
    *MASK_KERNELS,
    *(f"{op}_bounding_boxes" for op in BOX_KERNEL_CASES),
    *RENAMED_VIDEO_KERNELS,
    "clamp_bounding_boxes",
    "convert_bounding_box_format",
    "sanitize_bounding_boxes",
    "get_image_size",
    "to_tensor",
    "is_pure_tensor",
    "ToTensor",
}


# ------------------------------------------------------------------------------------ the surface
def _public_names(module: Any) -> set[str]:
    return {name for name in dir(module) if not name.startswith("_") and not inspect.ismodule(getattr(module, name))}


@pytest.mark.parametrize("kind", ["transforms", "functional"])
def test_every_torchvision_name_is_offered_but_key_points_and_clamping_modes(kind: str) -> None:
    _tv()
    import torchvision.transforms.v2 as T2
    import torchvision.transforms.v2.functional as F2

    theirs, ours = (T2, T) if kind == "transforms" else (F2, F)
    missing = {name for name in _public_names(theirs) if not hasattr(ours, name)}
    assert {name for name in missing if "keypoints" not in name} <= NOT_OFFERED
    assert T.functional is F


def _parameter_names(obj: Any, skip: frozenset[str] | set[str] = frozenset()) -> list[str]:
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    parameters = inspect.signature(obj).parameters.values()
    return [p.name for p in parameters if p.kind not in variadic and p.name not in skip]


def _torchvision_modules() -> tuple[Any, Any] | None:
    try:
        import torchvision.transforms.v2 as T2
        import torchvision.transforms.v2.functional as F2
    except ImportError:
        return None
    return T2, F2


def _common_callables() -> list[Any]:
    """(torchvision's callable, visiontx's of the same name) for every name both offer."""
    modules = _torchvision_modules()
    if modules is None:
        return [pytest.param("", None, None, marks=pytest.mark.skip(reason="needs torchvision"))]
    params = []
    for theirs, ours in zip(modules, (T, F)):
        for name in sorted(_public_names(theirs) & _public_names(ours) - {"InterpolationMode", "AutoAugmentPolicy"}):
            params.append(pytest.param(name, getattr(theirs, name), getattr(ours, name), id=name))
    return params


@pytest.mark.parametrize(("name", "theirs", "ours"), _common_callables())
def test_parameter_names_are_torchvision_029s(name: str, theirs: Any, ours: Any) -> None:
    """Every alias takes 0.29's parameters, by name and order (``clamping_mode`` aside); names visiontx
    had before keep their documented differences (``PRE_EXISTING_DIFFERENCES``)."""
    expected = _parameter_names(theirs, NOT_OFFERED_PARAMETERS)
    if name in PRE_EXISTING_DIFFERENCES:
        assert _parameter_names(ours, NOT_OFFERED_PARAMETERS) != expected, f"{name} now agrees: drop it from the table"
    else:
        assert _parameter_names(ours, NOT_OFFERED_PARAMETERS | EXTENSION_PARAMETERS) == expected


def test_tv_tensors_are_the_datapoints() -> None:
    for alias, name in SAME_TV_TENSORS.items():
        assert getattr(tv_tensors, alias) is getattr(datapoints, name), alias
    assert sorted(tv_tensors.__all__) == sorted(SAME_TV_TENSORS) and visiontx.tv_tensors is tv_tensors
    assert tv_tensors.BoundingBoxes is datapoints.BoundingBox


def test_tv_tensor_constructors_take_torchvision_029s_arguments() -> None:
    tv = _tv()
    for name in ("BoundingBoxes", "Image", "Video", "Mask"):
        theirs = set(_parameter_names(getattr(tv.tv_tensors, name).__new__, NOT_OFFERED_PARAMETERS))
        assert theirs <= set(_parameter_names(getattr(tv_tensors, name).__new__)), name


@pytest.mark.parametrize("alias", sorted(SAME_FUNCTIONALS))
def test_functional_alias_is_the_same_object(alias: str) -> None:
    assert getattr(F, alias) is getattr(F, SAME_FUNCTIONALS[alias]) and alias in F.__all__


def test_renamed_aliases_pickle() -> None:
    for alias in (F.resize_bounding_boxes, F.get_size_video, F.clamp_bounding_boxes, F.to_tensor):
        assert pickle.loads(pickle.dumps(alias)) is alias


@pytest.mark.parametrize("alias", sorted(SAME_TRANSFORMS))
def test_transform_alias_is_the_same_class(alias: str) -> None:
    assert getattr(T, alias) is getattr(T, SAME_TRANSFORMS[alias]) and alias in T.__all__


# ------------------------------------------------------------------------------------ canvas_size
def test_bounding_box_takes_canvas_size_as_keyword_and_attribute() -> None:
    boxes = tv_tensors.BoundingBoxes([[1, 2, 5, 6]], format="XYXY", canvas_size=(10, 12))
    assert type(boxes) is BoundingBox and boxes.canvas_size == boxes.spatial_size == (10, 12)
    boxes.canvas_size = [20, 24]
    assert boxes.spatial_size == (20, 24)
    for other in (copy.deepcopy(boxes), pickle.loads(pickle.dumps(boxes)), boxes.clone()):
        assert other.canvas_size == (20, 24)
    assert BoundingBox.wrap_like(boxes, torch.zeros(1, 4), canvas_size=(3, 4)).spatial_size == (3, 4)
    assert tv_tensors.wrap(torch.zeros(1, 4), like=boxes, canvas_size=(5, 6)).canvas_size == (5, 6)
    assert BoundingBox.wrap(torch.zeros(1, 4), like=boxes).canvas_size == (20, 24)
    with pytest.raises(TypeError, match="canvas_size"):
        BoundingBox([[1, 2, 5, 6]], format="XYXY", spatial_size=(10, 12), canvas_size=(10, 12))
    with pytest.raises(TypeError, match="canvas_size"):
        BoundingBox([[1, 2, 5, 6]], format="XYXY")
    with pytest.raises(TypeError, match="canvas_size"):
        BoundingBox.wrap_like(boxes, torch.zeros(1, 4), spatial_size=(3, 4), canvas_size=(3, 4))
    assert BoundingBox.wrap_like(boxes, torch.zeros(1, 4), clamping_mode="hard").clamping_mode == "hard"
    with pytest.raises(ValueError, match="clamping_mode"):
        BoundingBox.wrap_like(boxes, torch.zeros(1, 4), clamping_mode="firm")
    with pytest.raises(ValueError, match="canvas_size"):
        boxes.canvas_size = (0, 3)


def test_set_return_type_and_wrap_take_torchvision_names() -> None:
    image = tv_tensors.Image(torch.zeros(3, 4, 5))
    with tv_tensors.set_return_type("TVTensor"):
        assert type(image + 1) is tv_tensors.Image
    assert type(image + 1) is torch.Tensor
    assert type(tv_tensors.Image.wrap(torch.ones(3, 4, 5), like=image)) is tv_tensors.Image
    with pytest.raises(ValueError, match="return_type"):
        tv_tensors.set_return_type("TVTensors")


def _spatial_size_kernel_cases() -> list[Any]:
    """Every public functional taking ``spatial_size``, with arguments that make it work."""
    boxes = make_bounding_box((17, 23), num_boxes=3).as_subclass(torch.Tensor)
    cases = {f"{op}_bounding_box": dict(kwargs, format="XYXY") for op, kwargs in BOX_KERNEL_CASES.items()}
    cases["clamp_bounding_box"] = dict(format="XYXY")
    params = []
    for name in sorted(F.__all__):
        if name in cases and "spatial_size" in inspect.signature(getattr(F, name)).parameters:
            params.append(pytest.param(getattr(F, name), (boxes,), cases[name], id=name))
    params.append(pytest.param(F.geometry_of, ("rotate",), dict(angle=30.0, expand=True), id="geometry_of"))
    return params


@pytest.mark.parametrize(("function", "args", "kwargs"), _spatial_size_kernel_cases())
def test_every_spatial_size_argument_is_also_canvas_size(function: Any, args: tuple, kwargs: dict) -> None:
    expected = function(*args, spatial_size=(17, 23), **kwargs)
    output = function(*args, canvas_size=(17, 23), **kwargs)
    if isinstance(expected, tuple):
        assert_equal(output[0], expected[0])
        assert output[1] == expected[1]
    elif isinstance(expected, torch.Tensor):
        assert_equal(output, expected)
    else:
        assert output == expected
    with pytest.raises(TypeError, match="canvas_size"):
        function(*args, spatial_size=(17, 23), canvas_size=(17, 23), **kwargs)


def test_spatial_size_kernel_cases_cover_every_such_kernel() -> None:
    names = {p.id for p in _spatial_size_kernel_cases()}
    public = [getattr(F, name) for name in F.__all__ if inspect.isfunction(getattr(F, name))]
    assert {f.__name__ for f in public if "spatial_size" in inspect.signature(f).parameters} <= names


# --------------------------------------------------------------------------- renamed kernels
def _first(output: Any) -> Any:
    return output[0] if isinstance(output, tuple) else output


@pytest.mark.parametrize("format", ["XYXY", "XYWH", "CXCYWH"])
@pytest.mark.parametrize("op", sorted(BOX_KERNEL_CASES))
def test_bounding_boxes_kernels_by_keyword_match_ours_and_torchvision(op: str, format: str) -> None:
    tv = _tv()
    boxes = make_bounding_box((17, 23), format=format, num_boxes=5).as_subclass(torch.Tensor)
    alias, kwargs = getattr(F, f"{op}_bounding_boxes"), dict(BOX_KERNEL_CASES[op])
    parameters = inspect.signature(alias).parameters
    if "canvas_size" in parameters:
        kwargs["canvas_size"] = (17, 23)
    output = alias(bounding_boxes=boxes, format=format, **kwargs)
    given = dict(kwargs, bounding_boxes=boxes, format=format)
    by_position = alias(*(given.get(name, p.default) for name, p in parameters.items()))
    old_names = {"spatial_size" if k == "canvas_size" else k: v for k, v in kwargs.items()}
    expected = getattr(F, f"{op}_bounding_box")(bounding_box=boxes, format=format, **old_names)
    theirs = getattr(tv.transforms.v2.functional, f"{op}_bounding_boxes")(
        bounding_boxes=boxes, format=tv.tv_tensors.BoundingBoxFormat[format], **kwargs
    )
    assert_equal(_first(output), _first(expected))
    assert_equal(_first(by_position), _first(expected))
    assert_equal(_first(output), _first(theirs), atol=1e-4, rtol=0)
    if isinstance(theirs, tuple):
        assert output[1] == expected[1] == tuple(theirs[1])


@pytest.mark.parametrize("name", RENAMED_VIDEO_KERNELS)
def test_video_meta_kernels_take_video(name: str) -> None:
    tv = _tv()
    video = make_video().as_subclass(torch.Tensor)
    assert getattr(F, name)(video=video) == getattr(tv.transforms.v2.functional, name)(video=video)


def test_meta_aliases_match_torchvision() -> None:
    tv = _tv()
    F2 = tv.transforms.v2.functional
    boxes = make_bounding_box((17, 23), format="XYWH")
    tv_boxes = tv.tv_tensors.BoundingBoxes(boxes.as_subclass(torch.Tensor), format="XYWH", canvas_size=(17, 23))
    for inpt, theirs in [(make_image(), None), (make_image_pil(), None), (make_mask(), None), (boxes, tv_boxes)]:
        theirs = inpt if theirs is None else theirs
        assert F.get_size(inpt) == F2.get_size(theirs)
    assert F.get_size_bounding_boxes(boxes) == F2.get_size_bounding_boxes(tv_boxes) == [17, 23]
    with pytest.warns(UserWarning, match="get_size"):
        assert F.get_image_size(make_image()) == [23, 17]
    with pytest.warns(UserWarning, match="get_size"):
        assert F2.get_image_size(make_image().as_subclass(torch.Tensor)) == [23, 17]
    plain, xywh = boxes.as_subclass(torch.Tensor) * 2, tv.tv_tensors.BoundingBoxFormat.XYWH
    for mode in ("soft", "hard", None):
        clamped = F.clamp_bounding_boxes(plain, format="XYWH", canvas_size=(17, 23), clamping_mode=mode)
        assert_equal(clamped, F2.clamp_bounding_boxes(plain, format=xywh, canvas_size=(17, 23), clamping_mode=mode))
    doubled = tv.tv_tensors.wrap(plain, like=tv_boxes)
    assert_equal(F.clamp_bounding_boxes(BoundingBox.wrap_like(boxes, plain)), F2.clamp_bounding_boxes(doubled))
    with pytest.raises(ValueError, match="clamping_mode"):
        F.clamp_bounding_boxes(plain, format="XYWH", canvas_size=(17, 23), clamping_mode="firm")


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("datapoint", [False, True])
def test_convert_bounding_box_format_matches_torchvision(inplace: bool, datapoint: bool) -> None:
    tv = _tv()
    boxes = make_bounding_box((17, 23), format="XYWH")
    plain = boxes.as_subclass(torch.Tensor)
    theirs = (
        tv.tv_tensors.BoundingBoxes(plain.clone(), format="XYWH", canvas_size=(17, 23)) if datapoint else plain.clone()
    )
    ours = boxes.clone() if datapoint else plain.clone()
    old = None if datapoint else "XYWH"
    output = F.convert_bounding_box_format(ours, old_format=old, new_format="CXCYWH", inplace=inplace)
    expected = tv.transforms.v2.functional.convert_bounding_box_format(
        theirs, old_format=old, new_format="CXCYWH", inplace=inplace
    )
    assert_equal(output, expected.as_subclass(torch.Tensor))
    assert_equal(ours, theirs.as_subclass(torch.Tensor))  # the input changed as torchvision's did
    assert (output.data_ptr() == ours.data_ptr()) == inplace
    if datapoint:
        assert output.format.name == "CXCYWH" and ours.format.name == "XYWH"


# ------------------------------------------------------------------------------------ sanitize
def _degenerate_boxes() -> torch.Tensor:
    return torch.tensor(
        [
            [1, 2, 5, 6],
            [3, 3, 3, 9],
            [0, 0, 23, 17],
            [-1, 0, 4, 4],
            [2, 2, 24, 5],
            [4, 4, 4.5, 9],
            [1, 1, float("nan"), 3],
        ]
    )


@pytest.mark.parametrize("format", ["XYXY", "XYWH", "CXCYWH"])
@pytest.mark.parametrize("kwargs", [{}, dict(min_size=2.0, min_area=10.0)])
def test_sanitize_bounding_boxes_matches_torchvision(format: str, kwargs: dict) -> None:
    tv = _tv()
    xyxy = _degenerate_boxes()
    plain = F.convert_format_bounding_box(xyxy, old_format="XYXY", new_format=format)
    output, valid = F.sanitize_bounding_boxes(plain, format=format, canvas_size=(17, 23), **kwargs)
    F2 = tv.transforms.v2.functional
    expected, expected_valid = F2.sanitize_bounding_boxes(plain, format=format, canvas_size=(17, 23), **kwargs)
    assert_equal(output, expected)
    assert torch.equal(valid, expected_valid)
    boxes = BoundingBox(plain, format=format, spatial_size=(17, 23))
    kept, kept_valid = F.sanitize_bounding_boxes(boxes, **kwargs)
    assert type(kept) is BoundingBox and kept.format == boxes.format and torch.equal(kept_valid, expected_valid)
    assert_equal(kept, expected)
    assert_equal(F.sanitize_bounding_boxes(plain, format=format, spatial_size=(17, 23), **kwargs)[0], expected)


def test_sanitize_bounding_boxes_refuses_bad_input() -> None:
    boxes = BoundingBox(_degenerate_boxes(), format="XYXY", spatial_size=(17, 23))
    with pytest.raises(ValueError, match="canvas_size"):
        F.sanitize_bounding_boxes(boxes, canvas_size=(17, 23))
    with pytest.raises(ValueError, match="canvas_size"):
        F.sanitize_bounding_boxes(boxes.as_subclass(torch.Tensor), format="XYXY")
    with pytest.raises(ValueError, match="N x 4"):
        F.sanitize_bounding_boxes(torch.zeros(2, 3, 4), format="XYXY", canvas_size=(17, 23))
    with pytest.raises(TypeError, match="BoundingBox"):
        F.sanitize_bounding_boxes(make_mask())
    with pytest.raises(TypeError, match="canvas_size"):
        F.sanitize_bounding_boxes(boxes.as_subclass(torch.Tensor), "XYXY", spatial_size=(1, 1), canvas_size=(1, 1))


# ------------------------------------------------------------------------------- 0.15 leftovers
@pytest.mark.parametrize("source", ["pil_rgb", "pil_1", "pil_f", "array_uint8", "array_2d", "array_float"])
def test_to_tensor_and_to_tensor_transform_match_torchvision(source: str) -> None:
    tv = _tv()
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)
    inpt = {
        "pil_rgb": PIL.Image.fromarray(pixels),
        "pil_1": PIL.Image.fromarray(pixels).convert("1"),
        "pil_f": PIL.Image.fromarray(pixels).convert("F"),
        "array_uint8": pixels,
        "array_2d": pixels[..., 0],
        "array_float": rng.random((5, 6, 3)).astype(np.float32),
    }[source]
    with pytest.warns(UserWarning, match="deprecated"):
        expected = tv.transforms.v2.functional.to_tensor(inpt)
    with pytest.warns(UserWarning, match="deprecated"):
        output = F.to_tensor(inpt)
    assert type(output) is torch.Tensor and output.dtype == expected.dtype
    assert_equal(output, expected)
    with pytest.warns(UserWarning, match="deprecated"):
        transform = T.ToTensor()
    image = make_image()
    sample = transform({"image": inpt, "other": image})  # no warning per call, tensors pass through
    assert_equal(sample["image"], expected)
    assert sample["other"] is image
    with pytest.raises(TypeError, match="PIL"), pytest.warns(UserWarning):
        F.to_tensor(image)


def test_015_functional_names_match_torchvision() -> None:
    tv = _tv()
    F2 = tv.transforms.v2.functional
    image = make_image().as_subclass(torch.Tensor)
    assert_equal(F.hflip(image), F2.hflip(image))
    assert_equal(F.vflip(image), F2.vflip(image))
    assert_equal(F.to_grayscale(image, 3), F2.to_grayscale(image, 3), atol=1, rtol=0)
    assert_equal(F.convert_image_dtype(image), F2.convert_image_dtype(image), atol=1e-6, rtol=0)
    assert F.get_image_num_channels(image) == F2.get_image_num_channels(image) == 3


def test_is_pure_tensor_and_sample_helpers() -> None:
    image, boxes, mask = make_image(), make_bounding_box(), make_mask()
    assert F.is_pure_tensor(torch.zeros(1)) and not F.is_pure_tensor(image) and not F.is_pure_tensor(3)
    flat = [image, boxes, mask, "label"]
    assert T.check_type(image, (datapoints.Video, datapoints.Image)) and not T.check_type("x", (torch.Tensor,))
    assert T.check_type("x", (lambda obj: isinstance(obj, str),))
    assert T.has_any(flat, datapoints.Video, BoundingBox) and not T.has_all(flat, datapoints.Video, BoundingBox)
    assert T.get_bounding_boxes(flat) is boxes
    assert T.query_size(flat) == (17, 23) and T.query_chw(flat) == (3, 17, 23)


def _first_call(name: str) -> tuple[tuple, dict]:
    """Arguments for the kernel ``name`` besides its first one (a few ops need some)."""
    extra = {
        "adjust_brightness": dict(brightness_factor=1.3),
        "adjust_contrast": dict(contrast_factor=0.7),
        "adjust_gamma": dict(gamma=0.8),
        "adjust_hue": dict(hue_factor=0.1),
        "adjust_saturation": dict(saturation_factor=1.2),
        "adjust_sharpness": dict(sharpness_factor=2.0),
        "affine": dict(angle=20.0, translate=[1, 2], scale=1.1, shear=[0.0, 0.0]),
        "center_crop": dict(output_size=[5, 6]),
        "crop": dict(top=1, left=2, height=5, width=6),
        "elastic": dict(displacement=torch.zeros(1, 17, 23, 2)),
        "erase": dict(i=1, j=2, h=3, w=4, v=torch.tensor(0)),
        "five_crop": dict(size=5),
        "gaussian_blur": dict(kernel_size=3),
        "jpeg": dict(quality=50),
        "normalize": dict(mean=[0.5] * 3, std=[0.2] * 3),
        "pad": dict(padding=2),
        "permute_channels": dict(permutation=[2, 0, 1]),
        "perspective": dict(startpoints=None, endpoints=None, coefficients=[1, 0.1, 0, 0, 1, 0, 0, 0]),
        "posterize": dict(bits=3),
        "resize": dict(size=[8, 9]),
        "resized_crop": dict(top=1, left=2, height=5, width=6, size=[7, 8]),
        "rotate": dict(angle=30.0),
        "solarize": dict(threshold=100),
        "ten_crop": dict(size=5),
        "to_dtype": dict(dtype=torch.float32),
    }
    return (), extra.get(name.rsplit("_", 1)[0], {})


@pytest.mark.parametrize("name", VIDEO_KERNELS + MASK_KERNELS)
def test_video_and_mask_kernels_are_the_image_kernel_under_their_own_argument_name(name: str) -> None:
    kind = name.rsplit("_", 1)[1]
    kernel, image_kernel = getattr(F, name), getattr(F, name.replace(f"_{kind}", "_image_tensor"))
    inpt = (
        torch.randint(0, 256, (2, 3, 17, 23), dtype=torch.uint8)
        if kind == "video"
        else torch.randint(0, 3, (2, 17, 23))
    )
    if name.startswith(("normalize", "gaussian_noise")):
        inpt = inpt.float() / 255
    _, kwargs = _first_call(name)
    torch.manual_seed(0)
    expected = image_kernel(inpt, **kwargs)
    torch.manual_seed(0)
    actual = kernel(**{kind: inpt}, **kwargs)
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected):
            torch.testing.assert_close(a, e)
    else:
        torch.testing.assert_close(actual, expected)
    assert list(inspect.signature(kernel).parameters)[0] == kind


def test_register_kernel_takes_the_class_under_either_name() -> None:
    class Tagged(datapoints.Image):
        pass

    class Other(datapoints.Image):
        pass

    F.register_kernel(F.equalize, tv_tensor_cls=Tagged)(lambda inpt: "tagged")
    F.register_kernel(F.equalize, datapoint_cls=Other)(lambda inpt: "other")
    assert F.equalize(Tagged(torch.zeros(3, 4, 4, dtype=torch.uint8))) == "tagged"
    assert F.equalize(Other(torch.zeros(3, 4, 4, dtype=torch.uint8))) == "other"
    with pytest.raises(TypeError, match="both"):
        F.register_kernel(F.equalize, datapoint_cls=Tagged, tv_tensor_cls=Tagged)

