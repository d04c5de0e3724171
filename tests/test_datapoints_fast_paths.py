"""The cheap paths of datapoints and transform calls behave as the general ones: ``Image.contiguous``,
the registry's unwrap / re-wrap (``unwrap``, ``adopt``), the scalar draws and the lone-leaf call."""

from __future__ import annotations

import pytest
import torch
from torch.autograd import forward_ad
from torch.overrides import TorchFunctionMode

import visiontx.functional as F
import visiontx.transforms as T
from visiontx import datapoints
from visiontx.datapoints import Image, Mask, Video
from visiontx.datapoints._datapoint import adopt, unwrap
from visiontx.functional._registry import _wrap_datapoint_kernel
from visiontx.transforms import _random


def _planar(shape=(3, 6, 8), dtype=torch.float32) -> torch.Tensor:
    return torch.arange(torch.Size(shape).numel(), dtype=torch.float64).reshape(shape).to(dtype)


def test_contiguous_of_a_contiguous_image_is_a_plain_alias() -> None:
    image = Image(_planar())
    out = image.contiguous()
    assert type(out) is torch.Tensor and out is not image
    assert out.data_ptr() == image.data_ptr() and torch.equal(out, image.as_subclass(torch.Tensor))
    out[0, 0, 0] = -1  # an alias: writes show through
    assert image[0, 0, 0].item() == -1


def test_contiguous_of_a_view_copies_and_channels_last_is_honoured() -> None:
    image = Image(_planar().flip(-1)[:, 1:5, 2:7])
    out = image.contiguous()
    assert type(out) is torch.Tensor and out.is_contiguous() and out.data_ptr() != image.data_ptr()
    assert torch.equal(out, image.as_subclass(torch.Tensor))
    batch = Image(_planar((2, 3, 4, 5)))
    last = batch.contiguous(memory_format=torch.channels_last)
    assert type(last) is torch.Tensor and last.is_contiguous(memory_format=torch.channels_last)


def test_contiguous_under_datapoint_return_type_keeps_the_type() -> None:
    image = Image(_planar())
    with datapoints.set_return_type("datapoint"):
        same = image.contiguous()
        copied = Image(_planar().transpose(-1, -2)).contiguous()
    assert same is image  # as torch: the tensor itself when already contiguous
    assert type(copied) is Image and copied.is_contiguous()


def test_contiguous_keeps_autograd() -> None:
    leaf = _planar().requires_grad_()
    Image(leaf.transpose(-1, -2)).contiguous().sum().backward()
    assert leaf.grad is not None and torch.equal(leaf.grad, torch.ones(3, 6, 8))
    alias = Image(leaf).contiguous()  # already contiguous: the alias keeps the graph too
    assert alias.requires_grad and alias.data_ptr() == leaf.data_ptr()
    (2 * alias).sum().backward()
    assert torch.equal(leaf.grad, torch.full((3, 6, 8), 3.0))
    weight, image = torch.rand(3, 4, 4, requires_grad=True), Image(torch.rand(3, 4, 4))
    image.contiguous().mul_(weight)  # an in-place op on the alias reaches the image's autograd, as on a tensor
    image.sum().backward()
    assert weight.grad is not None


def test_contiguous_is_seen_by_torch_function_modes_and_subclass_overrides() -> None:
    seen = []

    class Spy(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    with Spy():
        Image(_planar()).contiguous()
    assert torch.Tensor.contiguous in seen

    class Tagged(Image):
        calls: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    Tagged(_planar()).contiguous()
    assert torch.Tensor.contiguous in Tagged.calls


def test_in_place_ops_clone_and_to_keep_their_rules() -> None:
    image = Image(_planar())
    assert type(image.add_(1)) is torch.Tensor  # "tensor" return type: in-place results are plain aliases
    assert image[0, 0, 0].item() == 1
    for kept in (image.clone(), image.to(torch.float64), image.detach(), image.float().requires_grad_()):
        assert isinstance(kept, torch.Tensor)
    assert type(image.clone()) is Image and type(image.to(torch.float64)) is Image
    assert type(torch.zeros(1).to(image)) is torch.Tensor
    with datapoints.set_return_type("datapoint"):
        assert image.mul_(2) is image and type(image + 1) is Image


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")  # torch's forward AD imports jit code
def test_unwrap_keeps_the_autograd_graph_and_forward_ad() -> None:
    leaf = _planar().requires_grad_()
    plain = unwrap(Image(leaf))
    assert type(plain) is torch.Tensor and plain.requires_grad
    (plain * 2).sum().backward()
    assert torch.equal(leaf.grad, torch.full((3, 6, 8), 2.0))
    frozen = unwrap(Image(_planar()))
    assert type(frozen) is torch.Tensor and not frozen.requires_grad
    with forward_ad.dual_level():
        dual = forward_ad.make_dual(_planar(), torch.ones(3, 6, 8))
        tangent = forward_ad.unpack_dual(unwrap(Image(dual)) * 3).tangent
    assert tangent is not None and torch.equal(tangent, torch.full((3, 6, 8), 3.0))


def test_adopt_switches_only_a_fresh_unshared_plain_tensor() -> None:
    def fresh() -> bool:
        output = torch.zeros(3, 2, 2)
        adopted = adopt(output, Image)
        return adopted is output and type(adopted) is Image

    assert fresh()  # the same object, its class switched
    kept = torch.zeros(3, 2, 2)

    def shared() -> Image:
        output = kept
        return adopt(output, Image)

    wrapped = shared()
    assert type(kept) is torch.Tensor and type(wrapped) is Image and wrapped is not kept
    assert wrapped.data_ptr() == kept.data_ptr()


def test_a_kernel_returning_a_held_tensor_does_not_change_its_class() -> None:
    cache = {"value": torch.zeros(3, 4, 4)}
    adapter = _wrap_datapoint_kernel(lambda image: cache["value"], Image)
    out = adapter(Image(torch.ones(3, 4, 4)))
    assert type(out) is Image and type(cache["value"]) is torch.Tensor
    assert out.data_ptr() == cache["value"].data_ptr()


def test_transform_outputs_keep_type_and_gradients_flow() -> None:
    leaf = torch.rand(3, 10, 12, requires_grad=True)
    image = Image(leaf)
    for transform in (T.RandomVerticalFlip(1.0), T.CenterCrop(6), T.RandomInvert(1.0), T.Pad(2)):
        out = transform(image)
        assert type(out) is Image and out.requires_grad
        (out * torch.rand(out.shape)).sum().backward()
        assert leaf.grad is not None and leaf.grad.abs().sum() > 0
        leaf.grad = None


def test_transform_outputs_are_new_objects_and_inputs_untouched() -> None:
    data = torch.randint(0, 256, (3, 10, 12), dtype=torch.uint8)
    for cls in (Image, Video, Mask):
        inpt = cls(data.clone() if cls is not Video else data.clone()[None])
        before = inpt.clone()
        out = T.CenterCrop(10)(inpt)
        assert type(out) is cls and out is not inpt and torch.equal(inpt, before)
        assert torch.equal(out.as_subclass(torch.Tensor), F.center_crop(inpt.as_subclass(torch.Tensor), 10))


def test_scalar_draws_match_torch() -> None:
    torch.manual_seed(3)
    got = [_random.rand(), _random.uniform(-2.0, 5.0), _random.randint(3, 90), _random.randint(7)]
    torch.manual_seed(3)
    expected = [
        torch.rand(1).item(),
        torch.empty(1).uniform_(-2.0, 5.0).item(),
        torch.randint(3, 90, ()).item(),
        torch.randint(0, 7, ()).item(),
    ]
    assert got == expected and [type(v) for v in got] == [float, float, int, int]
    generator = torch.Generator().manual_seed(5)
    with _random.using(generator):
        drawn = _random.rand()
    assert drawn == torch.rand(1, generator=torch.Generator().manual_seed(5)).item()


@pytest.mark.parametrize("highs", [
    (7, 90), (1, 1), (1, 5), (224, 33), (513, 257, 9, 1000), (4096, 4095), (4096, 4097), (65536, 65535),
    (2**27 - 1, 2), (2**31, 3), (2**40, 2), (5,) * 8,
    (3, 4) * 4, (),
])
def test_randints_match_torch_draw_by_draw(highs) -> None:
    for seed in range(20):
        generator = torch.Generator().manual_seed(seed)
        with _random.using(generator):
            got, after = _random.randints(highs), _random.rand()
        reference = torch.Generator().manual_seed(seed)
        expected = [torch.randint(0, high, (), generator=reference).item() for high in highs]
        assert got == expected and all(type(v) is int for v in got)
        assert after == torch.rand(1, generator=reference).item()  # the generator left where torch's calls leave it


def test_randints_rejects_an_empty_range() -> None:
    with pytest.raises(RuntimeError):
        _random.randints((3, 0))


def test_lone_leaf_calls_overridden_hooks() -> None:
    calls = []

    class Checked(T.RandomHorizontalFlip):
        def check_inputs(self, flat_inputs):
            calls.append(("check", len(flat_inputs)))

        def make_params(self, flat_inputs):
            calls.append(("params", len(flat_inputs)))
            return {}

    class VideoOnly(Checked):
        _transformed_types = (Video,)

    image = Image(torch.zeros(3, 4, 4))
    Checked(p=1.0)(image)
    assert VideoOnly(p=1.0)(image) is image  # not transformed, but make_params still sees [] (as torchvision)
    assert calls == [("check", 1), ("params", 1), ("check", 1), ("params", 0)]


def test_lone_leaf_calls_hooks_set_on_the_instance_as_a_list_sample_does() -> None:
    calls = []
    image = Image(torch.zeros(3, 4, 4))
    t = T.Grayscale(3)
    t.check_inputs = lambda flat: calls.append("check")
    t.make_params = lambda flat: calls.append("params") or {}
    t._skip = lambda: calls.append("skip") or False
    t._needs_transform_list = lambda flat: calls.append("needs") or [True] * len(flat)
    t(image)
    lone = list(calls)
    calls.clear()
    t([image])
    assert lone == calls == ["check", "skip", "needs", "params"]


def test_lone_leaf_shortcut_honours_patched_forward_generators_and_hooks() -> None:
    image = Image(torch.arange(48, dtype=torch.uint8).reshape(3, 4, 4))
    patched = T.RandomHorizontalFlip(1.0)
    patched.forward = lambda *inputs: "patched"
    assert patched(image) == "patched"
    state = torch.get_rng_state()
    seeded = T.RandomHorizontalFlip(0.5, generator=torch.Generator().manual_seed(0))
    outs = [seeded(image) for _ in range(8)]
    assert torch.equal(torch.get_rng_state(), state)  # drew from its own generator only
    flips = [torch.equal(out, image.flip(-1)) for out in outs]
    expected = [torch.rand(1, generator=g).item() < 0.5 for g in [torch.Generator().manual_seed(0)] for _ in range(8)]
    assert flips == expected
    seen = []
    hooked = T.RandomVerticalFlip(1.0)
    hooked.register_forward_hook(lambda module, args, out: seen.append(type(out)))
    assert torch.equal(hooked(image), image.flip(-2)) and seen == [Image]


def test_functorch_grad_and_jvp_flow_through_the_adapter() -> None:
    x, weights = _planar() / 100, torch.rand(3, 6, 8)

    def loss(image):
        return (F.vertical_flip(image) * weights).sum()

    assert torch.allclose(torch.func.grad(loss)(Image(x)), weights.flip(-2))
    _, tangent = torch.func.jvp(loss, (Image(x),), (torch.ones(3, 6, 8),))
    assert torch.allclose(tangent, weights.sum())
