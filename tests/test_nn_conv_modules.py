"""The convolution, pooling, padding, upsampling, pixel shuffle and fold layers against torch's:
reprs, attributes, parameters and their default initialisation, forward and backward with
torch's weights (float32 and float64, batched and unbatched), constructor and forward errors,
and the 60-minute blitz's LeNet (Net) end to end."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error

R = np.random.default_rng(13)


def randn(*shape, dtype=np.float64):
    return R.standard_normal(shape).astype(dtype)


def copy_weights(tmod, emod):
    emod.load_state_dict({k: ember.tensor(v.detach().numpy().copy())
                          for k, v in tmod.state_dict().items()})


def _unpool(cls, k):
    def call(m, x):
        lib = torch if isinstance(x, torch.Tensor) else ember
        y, i = getattr(lib.nn, cls)(k, return_indices=True)(x)
        return m(y, i)
    return call


MODULES = {
    # name -> (constructor(lib), inputs (numpy), call(module, *tensors) or None)
    "conv1d": (lambda L: L.nn.Conv1d(2, 4, 3, stride=2, padding=1), [randn(3, 2, 9)], None),
    "conv1d_unbatched": (lambda L: L.nn.Conv1d(2, 4, 3), [randn(2, 7)], None),
    "conv1d_circular": (lambda L: L.nn.Conv1d(2, 4, 3, padding=2, padding_mode="circular"),
                        [randn(2, 2, 6)], None),
    "conv2d": (lambda L: L.nn.Conv2d(3, 4, 3), [randn(2, 3, 6, 5)], None),
    "conv2d_unbatched": (lambda L: L.nn.Conv2d(3, 4, (3, 2), padding=1), [randn(3, 5, 5)],
                         None),
    "conv2d_all": (lambda L: L.nn.Conv2d(4, 6, (3, 2), (2, 1), (1, 2), (2, 1), 2, False),
                   [randn(2, 4, 8, 7)], None),
    "conv2d_same": (lambda L: L.nn.Conv2d(2, 3, 4, padding="same"), [randn(2, 2, 5, 6)], None),
    "conv2d_reflect": (lambda L: L.nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="reflect"),
                       [randn(2, 2, 5, 6)], None),
    "conv2d_reflect_unbatched": (lambda L: L.nn.Conv2d(2, 3, 3, padding=1,
                                                       padding_mode="reflect"),
                                 [randn(2, 5, 6)], None),
    "conv2d_replicate": (lambda L: L.nn.Conv2d(2, 3, 3, padding=2, padding_mode="replicate"),
                         [randn(2, 2, 5, 6)], None),
    "conv2d_circular": (lambda L: L.nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular"),
                        [randn(2, 2, 5, 6)], None),
    "conv2d_same_circular": (lambda L: L.nn.Conv2d(2, 3, 4, padding="same",
                                                   padding_mode="circular"),
                             [randn(2, 2, 5, 6)], None),
    "conv3d": (lambda L: L.nn.Conv3d(2, 2, 2, padding=1), [randn(1, 2, 3, 4, 3)], None),
    "conv_transpose1d": (lambda L: L.nn.ConvTranspose1d(2, 3, 3, stride=2), [randn(2, 2, 4)],
                         None),
    "conv_transpose2d": (lambda L: L.nn.ConvTranspose2d(4, 6, 3, 2, 1, 1, groups=2),
                         [randn(2, 4, 4, 5)], None),
    "conv_transpose2d_unbatched": (lambda L: L.nn.ConvTranspose2d(2, 3, 2, bias=False),
                                   [randn(2, 3, 3)], None),
    "conv_transpose2d_output_size": (lambda L: L.nn.ConvTranspose2d(2, 3, 3, stride=2),
                                     [randn(1, 2, 4, 4)], lambda m, x: m(x, output_size=[10, 9])),
    "conv_transpose2d_output_size4": (lambda L: L.nn.ConvTranspose2d(2, 3, 3, stride=2),
                                      [randn(1, 2, 4, 4)],
                                      lambda m, x: m(x, output_size=(1, 3, 9, 10))),
    "conv_transpose3d": (lambda L: L.nn.ConvTranspose3d(2, 2, 2, stride=2),
                         [randn(1, 2, 2, 3, 2)], None),
    "max_pool1d": (lambda L: L.nn.MaxPool1d(3, 2, 1), [randn(2, 3, 9)], None),
    "max_pool2d": (lambda L: L.nn.MaxPool2d(2), [randn(2, 3, 6, 6)], None),
    "max_pool2d_indices": (lambda L: L.nn.MaxPool2d((3, 2), 1, 1, return_indices=True,
                                                    ceil_mode=True), [randn(2, 3, 5, 6)],
                           None),
    "max_pool2d_unbatched": (lambda L: L.nn.MaxPool2d(2, dilation=2), [randn(3, 6, 6)], None),
    "avg_pool1d": (lambda L: L.nn.AvgPool1d(3, 2, 1, count_include_pad=False),
                   [randn(2, 3, 9)], None),
    "avg_pool2d": (lambda L: L.nn.AvgPool2d(3, 2, 1, True, False, None), [randn(2, 3, 6, 7)],
                   None),
    "avg_pool2d_divisor": (lambda L: L.nn.AvgPool2d(2, divisor_override=3), [randn(3, 4, 4)],
                           None),
    "adaptive_avg_pool1d": (lambda L: L.nn.AdaptiveAvgPool1d(4), [randn(2, 3, 9)], None),
    "adaptive_avg_pool2d": (lambda L: L.nn.AdaptiveAvgPool2d((3, None)), [randn(2, 3, 7, 5)],
                            None),
    "adaptive_avg_pool2d_1": (lambda L: L.nn.AdaptiveAvgPool2d(1), [randn(2, 3, 7, 5)], None),
    "adaptive_avg_pool3d": (lambda L: L.nn.AdaptiveAvgPool3d(2), [randn(1, 2, 5, 4, 3)], None),
    "adaptive_max_pool1d": (lambda L: L.nn.AdaptiveMaxPool1d(3, True), [randn(2, 3, 8)], None),
    "adaptive_max_pool2d": (lambda L: L.nn.AdaptiveMaxPool2d((2, 3)), [randn(2, 3, 7, 5)],
                            None),
    "max_unpool1d": (lambda L: L.nn.MaxUnpool1d(2), [randn(2, 3, 8)],
                     _unpool("MaxPool1d", 2)),
    "max_unpool2d": (lambda L: L.nn.MaxUnpool2d(2), [randn(2, 3, 6, 4)],
                     _unpool("MaxPool2d", 2)),
    "zero_pad1d": (lambda L: L.nn.ZeroPad1d((1, 2)), [randn(2, 3, 4)], None),
    "zero_pad2d": (lambda L: L.nn.ZeroPad2d(2), [randn(2, 3, 4, 4)], None),
    "zero_pad2d_negative": (lambda L: L.nn.ZeroPad2d((-1, 2, 0, -1)), [randn(2, 3, 4, 4)],
                            None),
    "constant_pad1d": (lambda L: L.nn.ConstantPad1d(2, 3.5), [randn(2, 3, 4)], None),
    "constant_pad2d": (lambda L: L.nn.ConstantPad2d((1, 0, 2, 1), -1.0), [randn(3, 4, 4)],
                       None),
    "reflection_pad1d": (lambda L: L.nn.ReflectionPad1d((2, 1)), [randn(2, 3, 4)], None),
    "reflection_pad2d": (lambda L: L.nn.ReflectionPad2d(1), [randn(2, 3, 4, 4)], None),
    "replication_pad1d": (lambda L: L.nn.ReplicationPad1d(3), [randn(2, 3, 4)], None),
    "replication_pad2d": (lambda L: L.nn.ReplicationPad2d((1, 2, 0, 3)), [randn(3, 4, 4)],
                          None),
    "circular_pad1d": (lambda L: L.nn.CircularPad1d(2), [randn(2, 3, 4)], None),
    "circular_pad2d": (lambda L: L.nn.CircularPad2d((1, 2, 2, 0)), [randn(2, 3, 4, 4)], None),
    "zero_pad3d": (lambda L: L.nn.ZeroPad3d(1), [randn(1, 2, 2, 3, 2)], None),
    "reflection_pad3d": (lambda L: L.nn.ReflectionPad3d(1), [randn(1, 2, 2, 3, 2)], None),
    "replication_pad3d": (lambda L: L.nn.ReplicationPad3d((1, 0, 0, 1, 2, 1)),
                          [randn(1, 2, 2, 3, 2)], None),
    "circular_pad3d": (lambda L: L.nn.CircularPad3d(1), [randn(1, 2, 2, 3, 2)], None),
    "upsample": (lambda L: L.nn.Upsample(scale_factor=2), [randn(2, 3, 3, 4)], None),
    "upsample_bilinear": (lambda L: L.nn.Upsample(size=(5, 7), mode="bilinear"),
                          [randn(2, 3, 3, 4)], None),
    "upsample_linear_align": (lambda L: L.nn.Upsample(scale_factor=1.5, mode="linear",
                                                      align_corners=True),
                              [randn(2, 3, 5)], None),
    "upsampling_nearest2d": (lambda L: L.nn.UpsamplingNearest2d(size=5), [randn(2, 3, 3, 4)],
                             None),
    "upsampling_bilinear2d": (lambda L: L.nn.UpsamplingBilinear2d(scale_factor=2),
                              [randn(2, 3, 3, 4)], None),
    "pixel_shuffle": (lambda L: L.nn.PixelShuffle(2), [randn(2, 8, 3, 3)], None),
    "pixel_unshuffle": (lambda L: L.nn.PixelUnshuffle(2), [randn(2, 2, 4, 6)], None),
    "fold": (lambda L: L.nn.Fold((4, 5), 2), [randn(2, 12, 12)], None),
    "unfold": (lambda L: L.nn.Unfold((2, 3), dilation=1, padding=1, stride=(1, 2)),
               [randn(2, 3, 5, 5)], None),
}


@pytest.mark.parametrize("name", MODULES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_module(name, dtype):
    make, inputs, call = MODULES[name]
    mods = {}

    def fn(L, *xs):
        m = make(L)
        if dtype == np.float64:
            m = m.double()
        mods[L] = m
        if L is ember:
            copy_weights(mods[torch], m)
        return call(m, *xs) if call else m(*xs)
    inputs = [x.astype(dtype) for x in inputs]
    tol = (1e-4, 1e-5) if dtype == np.float32 else (None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # (padding='same' with an even kernel warns)
        check(fn, *inputs, rtol=tol[0], atol=tol[1])
    tm, em = mods[torch], mods[ember]
    assert repr(tm) == repr(em)
    assert [n for n, _ in tm.named_parameters()] == [n for n, _ in em.named_parameters()]
    for (n, tp), (_, ep) in zip(tm.named_parameters(), em.named_parameters()):
        assert str(tp.dtype) == str(ep.dtype) and tuple(tp.shape) == tuple(ep.shape)
        np.testing.assert_allclose(ep.grad._data, tp.grad.numpy(), rtol=tol[0] or 1e-10,
                                   atol=tol[1] or 1e-10, err_msg=n + " grad")


REPRS = [
    lambda L: L.nn.Conv2d(1, 6, 5),
    lambda L: L.nn.Conv2d(4, 8, (3, 2), stride=2, padding=1, dilation=2, groups=2, bias=False,
                          padding_mode="reflect"),
    lambda L: L.nn.Conv2d(1, 2, 3, padding="same"),
    lambda L: L.nn.Conv2d(1, 2, 3, padding="valid"),
    lambda L: L.nn.Conv1d(2, 4, 3, padding=1, padding_mode="circular"),
    lambda L: L.nn.Conv3d(1, 2, 3),
    lambda L: L.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
    lambda L: L.nn.ConvTranspose1d(2, 3, 3, dilation=2),
    lambda L: L.nn.ConvTranspose3d(1, 2, 3),
    lambda L: L.nn.MaxPool2d(2),
    lambda L: L.nn.MaxPool2d((3, 2), stride=1, padding=1, return_indices=True, ceil_mode=True),
    lambda L: L.nn.MaxPool1d(3, 2, 1),
    lambda L: L.nn.AvgPool2d(3, 2, 1, True, False, 2),
    lambda L: L.nn.AvgPool1d(3),
    lambda L: L.nn.AdaptiveAvgPool2d((3, None)),
    lambda L: L.nn.AdaptiveAvgPool1d(3),
    lambda L: L.nn.AdaptiveAvgPool3d(1),
    lambda L: L.nn.AdaptiveMaxPool2d(3, True),
    lambda L: L.nn.AdaptiveMaxPool1d(3),
    lambda L: L.nn.MaxUnpool2d(3, 2, 1),
    lambda L: L.nn.MaxUnpool1d(2),
    lambda L: L.nn.Upsample(scale_factor=2),
    lambda L: L.nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
    lambda L: L.nn.Upsample(scale_factor=(2, 3)),
    lambda L: L.nn.Upsample(size=5),
    lambda L: L.nn.UpsamplingNearest2d(scale_factor=2),
    lambda L: L.nn.UpsamplingBilinear2d(size=4),
    lambda L: L.nn.PixelShuffle(2),
    lambda L: L.nn.PixelUnshuffle(3),
    lambda L: L.nn.Fold((4, 5), 2),
    lambda L: L.nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2)),
    lambda L: L.nn.ZeroPad1d(2),
    lambda L: L.nn.ZeroPad2d((1, 2, 3, 4)),
    lambda L: L.nn.ZeroPad3d(1),
    lambda L: L.nn.ConstantPad1d(2, 3.5),
    lambda L: L.nn.ConstantPad2d((1, 2, 3, 4), 1),
    lambda L: L.nn.ConstantPad3d(1, 2.0),
    lambda L: L.nn.ReflectionPad1d(2),
    lambda L: L.nn.ReflectionPad2d((1, 2, 3, 4)),
    lambda L: L.nn.ReplicationPad1d((1, 2)),
    lambda L: L.nn.ReplicationPad3d(1),
    lambda L: L.nn.CircularPad2d((1, 2, 3, 4)),
    lambda L: L.nn.Sequential(L.nn.Conv2d(1, 6, 5), L.nn.MaxPool2d(2), L.nn.Upsample(size=3)),
]


@pytest.mark.parametrize("make", REPRS)
def test_reprs(make):
    assert repr(make(torch)) == repr(make(ember))


ATTRS = ["in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
         "transposed", "output_padding", "groups", "padding_mode",
         "_reversed_padding_repeated_twice", "return_indices", "ceil_mode",
         "count_include_pad", "divisor_override", "output_size", "size", "scale_factor", "mode",
         "align_corners", "name", "value", "upscale_factor"]


@pytest.mark.parametrize("make", REPRS[:-1])
def test_attributes(make):
    t, e = make(torch), make(ember)
    for a in ATTRS:
        if hasattr(t, a):
            got = getattr(e, a)
            want = getattr(t, a)
            assert got == want and type(got) is type(want), a
    assert sorted(t.state_dict()) == sorted(e.state_dict())


@pytest.mark.parametrize("make", [
    lambda L: L.nn.Conv2d(6, 16, 5), lambda L: L.nn.Conv1d(4, 8, 3, groups=2),
    lambda L: L.nn.ConvTranspose2d(6, 4, 3, groups=2), lambda L: L.nn.Conv3d(2, 3, 2)])
def test_default_init(make, monkeypatch):
    """torch's reset_parameters: kaiming_uniform_(weight, a=sqrt(5)), then uniform_(bias, -b, b)
    with b = 1/sqrt(fan_in): the same init calls in the same order, and values within (and
    spread over) those bounds."""
    calls = {}
    for lib in (torch, ember):
        log = calls[lib] = []
        for name in ("kaiming_uniform_", "uniform_", "normal_", "xavier_uniform_"):
            orig = getattr(lib.nn.init, name)

            def spy(tensor, *args, _name=name, _orig=orig, _log=log, **kwargs):
                _log.append((_name, tuple(tensor.shape), args, kwargs))
                return _orig(tensor, *args, **kwargs)
            monkeypatch.setattr(lib.nn.init, name, spy)
        m = make(lib)
    assert calls[torch] == calls[ember]
    w, b = m.weight._data, m.bias._data
    fan_in = w.shape[1] * int(np.prod(w.shape[2:]))
    bound = 1 / math.sqrt(fan_in)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.25 * bound
    assert m.weight.requires_grad and m.weight.dtype == ember.float32


@pytest.mark.parametrize("make", [
    lambda L: L.nn.Conv2d(1, 6, 5), lambda L: L.nn.Conv1d(4, 8, 3, groups=2),
    lambda L: L.nn.ConvTranspose2d(6, 4, 3, groups=2), lambda L: L.nn.Conv3d(2, 3, 2, bias=False),
    lambda L: L.nn.ConvTranspose1d(2, 3, 3, dtype=L.float64)])
def test_default_init_matches_torch_stream(make):
    """With ember's random streams equal to torch's, the same seed gives the same weights."""
    torch.manual_seed(7)
    ember.manual_seed(7)
    t, e = make(torch), make(ember)
    for (n, tp), (_, ep) in zip(t.named_parameters(), e.named_parameters()):
        assert np.array_equal(tp.detach().numpy(), ep._data), n


def test_dtype_and_device_arguments():
    m = ember.nn.Conv2d(1, 2, 3, dtype=ember.float64)
    assert m.weight.dtype == ember.float64 and m.bias.dtype == ember.float64
    assert ember.nn.ConvTranspose1d(1, 2, 3, bias=False, device="cpu").bias is None


# ------------------------------------------------------------------ the blitz's network

def blitz_net(lib):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, input):
            c1 = F.relu(self.conv1(input))
            s2 = F.max_pool2d(c1, (2, 2))
            c3 = F.relu(self.conv2(s2))
            s4 = F.max_pool2d(c3, 2)
            s4 = lib.flatten(s4, 1)
            f5 = F.relu(self.fc1(s4))
            f6 = F.relu(self.fc2(f5))
            return self.fc3(f6)
    return Net()


def test_blitz_neural_networks_tutorial():
    """The 60-minute blitz's neural_networks_tutorial with torch's weights: the printed net,
    parameter sizes, output, loss, grad_fn chain of the loss, conv1's bias gradient before and
    after backward, and a manual SGD update."""
    x = randn(1, 1, 32, 32, dtype=np.float32)
    target = randn(1, 10, dtype=np.float32)
    seen = {}
    for lib in (torch, ember):
        net = blitz_net(lib)
        if lib is torch:
            start = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
        else:
            net.load_state_dict({k: ember.tensor(v) for k, v in start.items()})
        params = list(net.parameters())
        out = net(lib.tensor(x))
        criterion = lib.nn.MSELoss() if hasattr(lib.nn, "MSELoss") else None
        loss = criterion(out, lib.tensor(target)) if criterion else \
            lib.nn.functional.mse_loss(out, lib.tensor(target))
        fn = loss.grad_fn
        chain = [type(fn).__name__, type(fn.next_functions[0][0]).__name__,
                 type(fn.next_functions[0][0].next_functions[0][0]).__name__]
        net.zero_grad()
        before = net.conv1.bias.grad
        loss.backward()
        after = net.conv1.bias.grad.detach().clone()
        with lib.no_grad():
            for p in net.parameters():
                p.sub_(p.grad * 0.01)
        seen[lib] = {"repr": repr(net), "len": len(params),
                     "sizes": [tuple(p.size()) for p in params], "out": out.detach().numpy(),
                     "loss": loss.item(), "chain": chain, "before": before,
                     "after": after.numpy(), "w": net.conv1.weight.detach().numpy().copy()}
    t, e = seen[torch], seen[ember]
    assert e["repr"] == t["repr"] and e["len"] == t["len"] and e["sizes"] == t["sizes"]
    assert e["chain"] == t["chain"] and e["before"] is None and t["before"] is None
    np.testing.assert_allclose(e["out"], t["out"], rtol=1e-5, atol=1e-6)
    assert abs(e["loss"] - t["loss"]) <= 1e-6 * max(1.0, abs(t["loss"]))
    np.testing.assert_allclose(e["after"], t["after"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(e["w"], t["w"], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ errors

ERRORS = {
    "groups_zero": lambda L: L.nn.Conv2d(2, 4, 3, groups=0),
    "groups_in": lambda L: L.nn.Conv2d(3, 4, 3, groups=2),
    "groups_out": lambda L: L.nn.Conv2d(4, 3, 3, groups=2),
    "padding_string": lambda L: L.nn.Conv2d(4, 3, 3, padding="full"),
    "same_strided": lambda L: L.nn.Conv2d(4, 3, 3, padding="same", stride=2),
    "padding_mode": lambda L: L.nn.Conv2d(4, 3, 3, padding_mode="foo"),
    "transposed_padding_mode": lambda L: L.nn.ConvTranspose2d(4, 3, 3, padding_mode="reflect"),
    "channels": lambda L: L.nn.Conv2d(1, 6, 5)(L.ones(1, 3, 28, 28)),
    "output_size_range": lambda L: L.nn.ConvTranspose2d(2, 3, 3, stride=2)(
        L.ones(1, 2, 4, 4), output_size=[12, 12]),
    "output_size_length": lambda L: L.nn.ConvTranspose2d(2, 3, 3, stride=2)(
        L.ones(1, 2, 4, 4), output_size=[10]),
    "pool_too_small": lambda L: L.nn.MaxPool2d(5)(L.ones(1, 1, 3, 3)),
    "upsample_both": lambda L: L.nn.Upsample(size=2, scale_factor=2)(L.ones(1, 1, 3, 3)),
    "reflection_too_big": lambda L: L.nn.ReflectionPad2d(4)(L.ones(1, 1, 3, 3)),
    "shuffle_channels": lambda L: L.nn.PixelShuffle(2)(L.ones(1, 3, 2, 2)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error(name):
    check_error(ERRORS[name])


def test_error_leaves_module_unchanged():
    m = ember.nn.Conv2d(1, 6, 5)
    state = {k: v.clone() for k, v in m.state_dict().items()}
    with pytest.raises(RuntimeError):
        m(ember.ones(1, 3, 28, 28, requires_grad=True))
    assert all(np.array_equal(v._data, state[k]._data) for k, v in m.state_dict().items())
    assert all(p.grad is None for p in m.parameters())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert m(ember.ones(1, 1, 28, 28)).shape == (1, 6, 24, 24)
