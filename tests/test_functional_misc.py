"""Misc ops: blur, noise, normalize, erase, jpeg, temporal subsampling."""

from __future__ import annotations


import PIL.Image
import pytest
import torch
from torch.nn.functional import conv2d, pad

import visiontx.functional as F
from visiontx.functional import _cv2
from visiontx.datapoints import Image, Video

from .common import Case, assert_equal, make_image, make_image_pil, make_image_tensor, make_video

IMAGE_TYPES = (torch.Tensor, Image, Video)
FLOAT = (torch.float32,)

FUNCTIONAL_CASES = {
    F.gaussian_blur: [
        Case(dict(kernel_size=3), atol=1e-6),
        Case(dict(kernel_size=(5, 3), sigma=(1.0, 2.0)), atol=1e-6),
        Case(dict(kernel_size=1, sigma=0.5)),
    ],
    F.gaussian_noise: [
        Case(dict(mean=0.1, sigma=0.0), types=IMAGE_TYPES),
        Case(dict(sigma=0.2), types=IMAGE_TYPES, dtypes=FLOAT, check_batched=False),
    ],
    F.normalize: [
        Case(dict(mean=[0.5], std=[0.25]), types=IMAGE_TYPES, dtypes=FLOAT),
        Case(dict(mean=(0.1, 0.2, 0.3), std=(0.2, 0.3, 0.4)), types=IMAGE_TYPES, dtypes=FLOAT, channels=(3,)),
    ],
    F.erase: [
        dict(i=2, j=3, h=4, w=5, v=torch.tensor(0.0)),
        Case(dict(i=1, j=0, h=20, w=2, v=torch.tensor([[[1.0]], [[0.0]], [[1.0]]])), channels=(3,)),
    ],
    F.jpeg: [Case(dict(quality=50), dtypes=(torch.uint8,)), Case(dict(quality=1), dtypes=(torch.uint8,))],
    F.uniform_temporal_subsample: [
        Case(dict(num_samples=2), types=(Video,)),
        Case(dict(num_samples=5), types=(Video,), channels=(1,)),
    ],
}
COVERED: set[str] = set()


def _tv():
    return pytest.importorskip("torchvision.transforms.v2.functional")


def _plain(x: torch.Tensor) -> torch.Tensor:
    return x.as_subclass(torch.Tensor)


# ------------------------------------------------------------------------------------- gaussian_blur
BLUR_ARGS = [(3, None), ((5, 3), (1.0, 2.0)), (7, 3.0), ((1, 9), [0.7])]


@pytest.mark.parametrize(("kernel_size", "sigma"), BLUR_ARGS)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("channels", [1, 3])
def test_gaussian_blur_matches_torchvision(kernel_size, sigma, dtype, channels) -> None:
    tv = _tv()
    image = make_image_tensor((19, 26), channels=channels, dtype=dtype, batch_dims=(2, 2))
    tv_size = list(kernel_size) if isinstance(kernel_size, tuple) else kernel_size
    expected = tv.gaussian_blur(image, tv_size, list(sigma) if isinstance(sigma, tuple) else sigma)
    actual = F.gaussian_blur(image, kernel_size, sigma)
    assert_equal(actual, expected, atol=1 if dtype == torch.uint8 else 1e-5)


def _blur_2d_reference(image: torch.Tensor, kernel_size: tuple[int, int], sigma: tuple[float, float]) -> torch.Tensor:
    """Direct (non-separable) 2-D convolution with an explicitly built Gaussian kernel, float64."""

    def gauss(size: int, s: float) -> torch.Tensor:
        t = torch.arange(size, dtype=torch.float64) - (size - 1) / 2
        g = torch.exp(-(t**2) / (2 * s**2))
        return g / g.sum()

    kx, ky = kernel_size
    kernel2d = gauss(ky, sigma[1])[:, None] * gauss(kx, sigma[0])[None, :]
    planes = image.to(torch.float64).reshape(-1, 1, *image.shape[-2:])
    planes = pad(planes, [kx // 2, kx // 2, ky // 2, ky // 2], mode="reflect")
    return conv2d(planes, kernel2d[None, None]).reshape(image.shape)


@pytest.mark.parametrize(("kernel_size", "sigma"), [((3, 3), (0.8, 0.8)), ((5, 9), (1.3, 2.5)), ((11, 1), (4.0, 1.0))])
def test_gaussian_blur_separable_equals_2d_convolution(kernel_size, sigma) -> None:
    image = make_image_tensor((21, 16), dtype=torch.float64, batch_dims=(2,))
    assert_equal(F.gaussian_blur(image, kernel_size, sigma), _blur_2d_reference(image, kernel_size, sigma), atol=1e-12)
    image8 = make_image_tensor((21, 16), dtype=torch.uint8)
    expected8 = _blur_2d_reference(image8, kernel_size, sigma).round().to(torch.uint8)
    assert_equal(F.gaussian_blur(image8, kernel_size, sigma), expected8, atol=1)


def test_gaussian_blur_keeps_constant_image_and_mean() -> None:
    constant = torch.full((3, 12, 15), 77, dtype=torch.uint8)
    assert_equal(F.gaussian_blur(constant, 5, 2.0), constant)
    image = make_image_tensor((30, 30), dtype=torch.float64)
    blurred = F.gaussian_blur(image, 5, 1.0)
    assert blurred.std() < image.std()


def test_gaussian_blur_pil_matches_tensor() -> None:
    pil = make_image_pil((13, 18))
    out = F.gaussian_blur(pil, (5, 3), (1.5, 0.7))
    assert isinstance(out, PIL.Image.Image) and out.mode == pil.mode
    assert_equal(out, F.gaussian_blur(F.pil_to_tensor(pil), (5, 3), (1.5, 0.7)).permute(1, 2, 0))


def test_gaussian_blur_default_sigma() -> None:
    image = make_image_tensor(dtype=torch.float32)
    assert_equal(F.gaussian_blur(image, 5), F.gaussian_blur(image, 5, 5 * 0.15 + 0.35))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        (dict(kernel_size=4), ValueError),
        (dict(kernel_size=0), ValueError),
        (dict(kernel_size=(3, 3, 3)), TypeError),
        (dict(kernel_size=3.0), TypeError),
        (dict(kernel_size=3, sigma=0.0), ValueError),
        (dict(kernel_size=3, sigma=(1.0, 2.0, 3.0)), TypeError),
        (dict(kernel_size=3, sigma="big"), TypeError),
        (dict(kernel_size=41), ValueError),  # larger than twice the image
    ],
)
def test_gaussian_blur_errors(kwargs, error) -> None:
    with pytest.raises(error, match="kernel_size|sigma"):
        F.gaussian_blur(make_image(), **kwargs)


# ------------------------------------------------------------------------------------ gaussian_noise
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize("clip", [True, False])
def test_gaussian_noise_matches_torchvision_same_seed(dtype, clip) -> None:
    tv = _tv()
    image = make_image_tensor(dtype=dtype, batch_dims=(2,))
    torch.manual_seed(3)
    expected = tv.gaussian_noise(image, mean=0.05, sigma=0.2, clip=clip)
    torch.manual_seed(3)
    assert_equal(F.gaussian_noise(image, mean=0.05, sigma=0.2, clip=clip), expected)


def test_gaussian_noise_is_torchvisions_formula_on_every_layout() -> None:
    """``image + (mean + noise * sigma)``: the same values and strides for channels-last images and crops, and the
    gradient reaches the image."""
    base = torch.rand(2, 3, 10, 12)
    for image in (base.contiguous(memory_format=torch.channels_last), base[..., 1:9, 2:11]):
        noise = torch.empty_like(image).normal_(generator=torch.Generator().manual_seed(4))
        expected = image + (0.1 + noise * 0.3)
        got = F.gaussian_noise(image, 0.1, 0.3, clip=False, generator=torch.Generator().manual_seed(4))
        assert torch.equal(got, expected) and got.stride() == expected.stride()
    leaf = torch.rand(3, 8, 8, requires_grad=True)
    F.gaussian_noise(leaf, sigma=0.1, clip=False).sum().backward()
    assert torch.equal(leaf.grad, torch.ones_like(leaf))


def test_gaussian_noise_statistics_and_clipping() -> None:
    image = torch.full((1, 200, 200), 0.5)
    noisy = F.gaussian_noise(image, mean=0.1, sigma=0.05)
    assert abs(float((noisy - image).mean()) - 0.1) < 0.005
    assert abs(float((noisy - image).std()) - 0.05) < 0.005
    assert F.gaussian_noise(image, sigma=2.0).min() >= 0 and F.gaussian_noise(image, sigma=2.0).max() <= 1
    assert F.gaussian_noise(image, sigma=2.0, clip=False).max() > 1
    noisy8 = F.gaussian_noise(torch.full((1, 100, 100), 128, dtype=torch.uint8), sigma=0.1)
    assert noisy8.dtype == torch.uint8 and 20 < float(noisy8.float().std()) < 31


def test_gaussian_noise_errors() -> None:
    with pytest.raises(TypeError, match="PIL"):
        F.gaussian_noise(make_image_pil())
    with pytest.raises(TypeError, match="dtype"):
        F.gaussian_noise(make_image_tensor(dtype=torch.int16))
    with pytest.raises(ValueError, match="sigma"):
        F.gaussian_noise(make_image_tensor(dtype=torch.float32), sigma=-0.1)


# ----------------------------------------------------------------------------------------- normalize
@pytest.mark.parametrize("channels", [1, 3])
def test_normalize_matches_torchvision(channels) -> None:
    tv = _tv()
    image = make_image_tensor(channels=channels, dtype=torch.float32, batch_dims=(2,))
    mean, std = [0.485, 0.456, 0.406][:channels], [0.229, 0.224, 0.225][:channels]
    assert_equal(F.normalize(image, mean, std), tv.normalize(image, mean, std))
    video = make_video(channels=channels, dtype=torch.float64)
    assert_equal(F.normalize(video, mean, std), tv.normalize(_plain(video), mean, std))


def test_normalize_refuses_uint8_pil_and_zero_std() -> None:
    with pytest.raises(TypeError, match="float"):
        F.normalize(make_image(), [0.5] * 3, [0.5] * 3)
    with pytest.raises(TypeError, match="PIL"):
        F.normalize(make_image_pil(), [0.5] * 3, [0.5] * 3)
    with pytest.raises(ValueError, match="std"):
        F.normalize(make_image(dtype=torch.float32), [0.5] * 3, [0.5, 0.0, 0.5])
    with pytest.raises(ValueError, match="mean"):
        F.normalize(make_image(dtype=torch.float32), [0.5] * 2, [0.5] * 3)


def test_normalize_inplace() -> None:
    image = make_image_tensor(dtype=torch.float32)
    before = image.clone()
    F.normalize(image, [0.5], [2.0])
    assert_equal(image, before)
    out = F.normalize(image, [0.5], [2.0], inplace=True)
    assert out.data_ptr() == image.data_ptr()
    assert_equal(image, (before - 0.5) / 2.0)


def test_normalize_reuses_its_mean_and_std_tensors_safely() -> None:
    """Lists of numbers become tensors once per (values, dtype, device); the channel count is still checked
    on every call, and other forms (tensors that may change) are read afresh."""
    from visiontx.functional._misc import _normalize

    image = make_image_tensor(dtype=torch.float32)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    expected = (image - torch.tensor(mean).view(3, 1, 1)) / torch.tensor(std).view(3, 1, 1)
    for _ in range(2):
        assert_equal(F.normalize(image, mean, std), expected)
    assert (tuple(mean), torch.float32, image.device) in _normalize._TENSORS
    with pytest.raises(ValueError, match="mean"):  # the cached 3-value mean for a 1-channel image
        F.normalize(make_image_tensor(channels=1, dtype=torch.float32), mean, [0.5])
    changing = torch.tensor([0.5, 0.5, 0.5])
    first = F.normalize(image, changing, std)
    changing += 0.25
    assert_equal(F.normalize(image, changing, std), first - 0.25 / torch.tensor(std).view(3, 1, 1), rtol=1e-6, atol=1e-6)
    as_tensors = [torch.tensor(0.5)] * 3  # not numbers: never cached
    F.normalize(image, as_tensors, std)
    assert not any(isinstance(key[0][0], torch.Tensor) for key in _normalize._TENSORS)
    # -0.0 and 0.0 would share a key: zeros are not cached, and the sign of a zero result follows the mean
    _normalize._TENSORS.clear()
    zeros = torch.full((1, 2, 2), -0.0)
    assert torch.signbit(F.normalize(zeros, [0.0], [1.0])).all()  # -0 - 0 = -0
    assert not torch.signbit(F.normalize(zeros, [-0.0], [1.0])).any()  # -0 - -0 = +0
    assert all(0 not in key[0] for key in _normalize._TENSORS) and _normalize._TENSORS  # the std [1.0] is kept


def test_normalize_cache_survives_inference_mode_and_fake_tensors() -> None:
    """What a validation pass (inference mode) or a trace (fake tensors) caches must not break a later
    training step on real tensors."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    from visiontx.functional._misc import _normalize

    mean, std = [0.3, 0.4, 0.5], [0.6, 0.7, 0.8]
    _normalize._TENSORS.clear()
    with torch.inference_mode():
        F.normalize(torch.rand(3, 4, 4), mean, std)
    with FakeTensorMode():
        F.normalize(torch.empty(3, 4, 4), [0.1, 0.2, 0.3], [0.4, 0.5, 0.6])
    for m, s in ((mean, std), ([0.1, 0.2, 0.3], [0.4, 0.5, 0.6])):
        leaf = torch.rand(3, 4, 4, requires_grad=True)
        F.normalize(leaf, m, s).sum().backward()
        assert_equal(leaf.grad, (1 / torch.tensor(s)).view(3, 1, 1).expand(3, 4, 4))


# ------------------------------------------------------------------------------------------- erase
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_erase_matches_torchvision(dtype) -> None:
    tv = _tv()
    image = make_image_tensor(dtype=dtype, batch_dims=(2,))
    v = torch.tensor([[[3.0]], [[1.0]], [[0.0]]])
    assert_equal(F.erase(image, 2, 4, 7, 9, v), tv.erase(image, 2, 4, 7, 9, v))
    noise = torch.rand(3, 7, 9)
    assert_equal(F.erase(image.float(), 2, 4, 7, 9, noise), tv.erase(image.float(), 2, 4, 7, 9, noise))


def test_erase_region_only_and_inplace() -> None:
    image = make_image_tensor(dtype=torch.float32)
    out = F.erase(image, 1, 2, 3, 4, 0.25)
    assert (out[..., 1:4, 2:6] == 0.25).all()
    mask = torch.ones_like(image, dtype=torch.bool)
    mask[..., 1:4, 2:6] = False
    assert_equal(out[mask], image[mask])
    assert F.erase(image, 1, 2, 3, 4, 0.25, inplace=True).data_ptr() == image.data_ptr()
    assert (image[..., 1:4, 2:6] == 0.25).all()


def test_erase_uint8_rounds_and_clamps() -> None:
    out = F.erase(make_image_tensor(), 0, 0, 2, 2, torch.tensor([[[2.6]], [[300.0]], [[-4.0]]]))
    assert out[:, 0, 0].tolist() == [3, 255, 0]


def test_erase_pil_matches_tensor() -> None:
    pil = make_image_pil()
    out = F.erase(pil, 1, 2, 3, 4, torch.tensor(9))
    assert isinstance(out, PIL.Image.Image)
    assert_equal(F.pil_to_tensor(out), F.erase(F.pil_to_tensor(pil), 1, 2, 3, 4, torch.tensor(9)))


def test_erase_errors() -> None:
    with pytest.raises(ValueError, match="h must"):
        F.erase(make_image(), 0, 0, -1, 2, 0.0)
    for image in (make_image(), make_image().float(), make_image()[:, 1:], make_image().float()[:, 1:]):
        for inplace in (False, True):
            with pytest.raises(ValueError, match=r"v of shape \(2, 1, 1\) does not fit the erased region \(3, 4, 5\)"):
                F.erase(image, 1, 2, 4, 5, torch.zeros(2, 1, 1), inplace=inplace)


# -------------------------------------------------------------------------------------------- jpeg
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torchvision 0.29 deprecates its jpeg codec
@pytest.mark.parametrize("quality", [1, 40, 95])
@pytest.mark.parametrize("channels", [1, 3])
def test_jpeg_matches_torchvision(quality, channels) -> None:
    tv = _tv()
    image = make_image_tensor((24, 31), channels=channels, batch_dims=(2,))
    expected = tv.jpeg(image, quality)
    actual = F.jpeg(image, quality)
    assert (actual.float() - expected.float()).abs().mean() < 1.0
    pil = make_image_pil((24, 31), channels=channels)
    assert_equal(F.jpeg(pil, quality), tv.jpeg(pil, quality), atol=2)


def test_jpeg_changes_image_and_quality_orders_error() -> None:
    image = make_image_tensor((32, 32))
    errors = [float((F.jpeg(image, q).float() - image.float()).abs().mean()) for q in (5, 50, 100)]
    assert errors[0] > errors[1] > errors[2] > 0


def test_jpeg_pil_matches_tensor() -> None:
    pil = make_image_pil((20, 20))
    out = F.jpeg(pil, 30)
    assert type(out) is PIL.Image.Image and out.mode == "RGB"
    assert_equal(F.pil_to_tensor(out), F.jpeg(F.pil_to_tensor(pil), 30))


@pytest.mark.parametrize(
    ("quality", "error"), [(0, ValueError), (101, ValueError), (50.0, TypeError), (True, TypeError)]
)
def test_jpeg_quality_errors(quality, error) -> None:
    with pytest.raises(error, match="quality"):
        F.jpeg(make_image(), quality)
    with pytest.raises(error, match="quality"):
        F.jpeg(make_image_pil(), quality)


def test_jpeg_refuses_float_and_two_channels() -> None:
    with pytest.raises(TypeError, match="uint8"):
        F.jpeg(make_image(dtype=torch.float32), 50)
    with pytest.raises(ValueError, match="1 or 3"):
        F.jpeg(make_image(channels=2), 50)


# ------------------------------------------------------------------------------ uniform_temporal_subsample
@pytest.mark.parametrize("num_samples", [1, 3, 8, 12])
def test_uniform_temporal_subsample_matches_torchvision(num_samples) -> None:
    tv = _tv()
    video = make_video(num_frames=8, batch_dims=(2,))
    expected = tv.uniform_temporal_subsample(_plain(video), num_samples)
    assert_equal(F.uniform_temporal_subsample(video, num_samples), expected)


def test_uniform_temporal_subsample_plain_tensor_and_endpoints() -> None:
    frames = torch.arange(10, dtype=torch.float32).view(1, 10, 1, 1, 1).expand(2, 10, 1, 2, 2)
    out = F.uniform_temporal_subsample(frames, 4)
    assert type(out) is torch.Tensor and out.shape == (2, 4, 1, 2, 2)
    assert out[0, :, 0, 0, 0].tolist() == [0, 3, 6, 9]
    video = Video(frames[0])
    assert type(F.uniform_temporal_subsample(video, 2)) is Video


def test_uniform_temporal_subsample_errors() -> None:
    with pytest.raises(ValueError, match="num_samples"):
        F.uniform_temporal_subsample(make_video(), 0)
    with pytest.raises(ValueError, match="video"):
        F.uniform_temporal_subsample(make_image_tensor(), 2)
    with pytest.raises(TypeError, match="supports"):
        F.uniform_temporal_subsample(make_image(), 2)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize(("kernel_size", "sigma"), [(3, 0.8), ((9, 5), (2.0, 1.1)), ((1, 7), (0.5, 3.0))])
def test_gaussian_blur_opencv_path_agrees_with_torch_path(dtype, kernel_size, sigma) -> None:
    if not _cv2.available():
        pytest.skip("OpenCV is not installed")
    image = make_image_tensor((23, 31), dtype=dtype, batch_dims=(2,))
    with_cv2 = F.gaussian_blur(image, kernel_size, sigma)
    with _cv2.disabled():
        assert_equal(with_cv2, F.gaussian_blur(image, kernel_size, sigma), atol=1 if dtype == torch.uint8 else 1e-5)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
def test_zero_size_images(dtype) -> None:
    for shape in [(3, 0, 5), (1, 4, 0), (2, 0, 3, 0, 0)]:
        image = torch.zeros(shape, dtype=dtype)
        outputs = [F.gaussian_blur(image, 3), F.erase(image, 0, 0, 1, 1, 0.0)]
        if dtype == torch.uint8 and shape[-3] in (1, 3):
            outputs.append(F.jpeg(image, 50))
        if dtype.is_floating_point:
            outputs += [F.normalize(image, [0.5], [0.5]), F.gaussian_noise(image)]
        for output in outputs:
            assert output.shape == image.shape and output.dtype == dtype
