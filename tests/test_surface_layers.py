"""Issue 14's layer ops that ember lacked: torch.conv_tbc (fairseq's temporal convolution),
F.grid_sample / F.affine_grid, the 3-d pools, torch.stft / istft: values, gradients
(float64 gradchecks too), grad_fn names and errors against torch."""
import warnings

import numpy as np
import pytest
import torch
from oracle import check, check_error, gradcheck, gradgradcheck

import ember

RNG = np.random.default_rng(1414)


def R(*shape, lo=-2.0, hi=2.0, dtype=np.float64):
    return RNG.uniform(lo, hi, shape).astype(dtype)


# ---------------------------------------------------------------- conv_tbc

@pytest.mark.parametrize("t,k,pad", [(5, 3, 1), (5, 3, 0), (6, 2, 3), (5, 3, -1), (2, 3, 0),
                                     (7, 1, 2)])
def test_conv_tbc(t, k, pad):
    x, w, b = R(t, 2, 3), R(k, 3, 4), R(4)
    check(lambda L, x, w, b: L.conv_tbc(x, w, b, pad), x, w, b)
    check(lambda L, x, w, b: L.conv_tbc(x, w, b, pad), x.astype(np.float32),
          w.astype(np.float32), b.astype(np.float32), rtol=1e-5, atol=1e-5)
    if t + 2 * pad - k + 1 > 0:
        gradcheck(lambda x, w, b: ember.conv_tbc(x, w, b, pad), x, w, b)
        gradgradcheck(lambda x, w, b: ember.conv_tbc(x, w, b, pad), x, w, b)


def test_conv_tbc_saved_and_errors():
    x = ember.tensor(R(4, 2, 3), requires_grad=True)
    y = ember.conv_tbc(x, ember.tensor(R(3, 3, 4)), ember.tensor(R(4)), 1)
    assert y.grad_fn.name() == "ConvTbcBackward0" and y.grad_fn._saved_pad == 1
    assert y.grad_fn._saved_self is x
    check(lambda L, x, w, b: L.conv_tbc(x, w, b), R(4, 2, 3).astype(np.int64),
          R(3, 3, 4).astype(np.int64), R(4).astype(np.int64), grad=False)
    check(lambda L, x, w, b: L.conv_tbc(x, w, b), R(4, 2, 3), R(3, 3, 4), R(4, dtype=np.float32),
          grad_inputs=(0,))
    def z(L, *s):
        return L.zeros(*s, dtype=L.float64)
    check_error(lambda L: L.conv_tbc(z(L, 2, 3), z(L, 3, 3, 4), z(L, 4)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 3), z(L, 3, 4), z(L, 4)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 3), z(L, 3, 3, 4), z(L, 2)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 3), z(L, 3, 3, 4), z(L, 2, 2)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 2), z(L, 3, 3, 4), z(L, 4)))
    check_error(lambda L: L.conv_tbc(z(L, 1, 2, 3), z(L, 3, 3, 4), z(L, 4)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 3), L.zeros(3, 3, 4), z(L, 4)))


# ---------------------------------------------------------------- grid_sample, affine_grid

MODES = ["bilinear", "nearest", "bicubic"]
PADS = ["zeros", "border", "reflection"]


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("pad", PADS)
@pytest.mark.parametrize("mode", MODES)
def test_grid_sample_2d(mode, pad, align):
    # the grid reaches past [-1, 1] so that every padding mode is exercised
    x, g = R(2, 3, 4, 5), R(2, 3, 4, 2, lo=-1.4, hi=1.4)
    check(lambda L, x, g: L.nn.functional.grid_sample(x, g, mode, pad, align), x, g)
    check(lambda L, x, g: L.nn.functional.grid_sample(x, g, mode, pad, align),
          x.astype(np.float32), g.astype(np.float32), rtol=1e-4, atol=1e-5)
    xs, gs = R(1, 2, 3, 4), R(1, 2, 3, 2, lo=-1.4, hi=1.4)
    gradcheck(lambda x, g: ember.nn.functional.grid_sample(x, g, mode, pad, align), xs, gs)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("pad", PADS)
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_3d(mode, pad, align):
    x, g = R(2, 2, 3, 4, 5), R(2, 2, 3, 2, 3, lo=-1.4, hi=1.4)
    check(lambda L, x, g: L.nn.functional.grid_sample(x, g, mode, pad, align), x, g)
    gradcheck(lambda x, g: ember.nn.functional.grid_sample(x, g, mode, pad, align),
              R(1, 1, 2, 3, 2), R(1, 2, 1, 2, 3, lo=-1.4, hi=1.4))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "nearest"])
def test_grid_sample_double_backward(mode):
    """torch differentiates grid_sampler_2d_backward with one node,
    GridSampler2DBackwardBackward0 (inputs: grad, input, grid); nearest's grid gradient is
    zeros that still hang on it."""
    def second(L, x, g):
        y = L.nn.functional.grid_sample(x, g, mode, "reflection", False)
        w = L.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
        gx, gg = L.autograd.grad((y * w).sum(), (x, g), create_graph=True)
        return (gx * gx).sum() + (gg * gg).sum()
    check(second, R(1, 2, 3, 4), R(1, 3, 2, 2, lo=-1.4, hi=1.4), names=False)

    def graph(L, d, xa, ga):
        x = L.tensor(xa, requires_grad=True)
        g = L.tensor(ga, requires_grad=True)
        y = L.nn.functional.grid_sample(x, g, mode, "zeros", True)
        go = L.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)),
                      requires_grad=True)
        gx, gg = L.autograd.grad(y, (x, g), go, create_graph=True)
        node = gx.grad_fn
        names = (type(node).__name__, gg.grad_fn is node,
                 [type(f).__name__ for f, _ in node.next_functions],
                 sorted(a for a in dir(node) if a.startswith("_saved_") and
                        a != "_saved_names"))
        # second and third order, through the node (values to rounding)
        h = L.autograd.grad((gx * gx).sum() + (gg * gg * gg).sum(), (x, g, go),
                            create_graph=True, allow_unused=True)
        third = L.autograd.grad(sum((t * t).sum() for t in h if t is not None), (x, g),
                                allow_unused=True)
        vals = [None if t is None else t.detach().numpy() for t in h + third]
        return names, vals
    for d in ((2, 3) if mode != "bicubic" else (2,)):
        xa, ga = R(*(1, 2) + (3,) * d), R(*(1,) + (2,) * d + (d,), lo=-1.2, hi=1.2)
        (tn, tv), (en, ev) = graph(torch, d, xa, ga), graph(ember, d, xa, ga)
        assert tn == en
        assert [v is None for v in tv] == [v is None for v in ev]
        for a, b in zip(tv, ev):
            if a is not None:
                np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-10)
    gradgradcheck(lambda x, g: ember.nn.functional.grid_sample(x, g, mode, "zeros", True),
                  R(1, 1, 3, 3), R(1, 2, 2, 2, lo=-1.2, hi=1.2))


def test_grid_sampler_forms_and_saved():
    x, g = R(1, 2, 3, 4), R(1, 2, 2, 2)
    check(lambda L, x, g: L.grid_sampler(x, g, 2, 1, True), x, g)
    check(lambda L, x, g: L.grid_sampler_2d(x, g, 0, 2, False), x, g)
    check(lambda L, x, g: L.grid_sampler_3d(x, g, 1, 0, False), R(1, 2, 2, 3, 4), R(1, 1, 2, 2, 3))
    check(lambda L, x, g: L.grid_sampler(x, g, 0, 0, False), R(1, 2, 2, 3, 4), R(1, 1, 2, 2, 3))
    y = ember.grid_sampler(ember.tensor(x, requires_grad=True), ember.tensor(g), 2, 1, True)
    fn = y.grad_fn
    assert (fn._saved_interpolation_mode, fn._saved_padding_mode, fn._saved_align_corners) == \
        (2, 1, True)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        ember.nn.functional.grid_sample(ember.tensor(x), ember.tensor(g))


def test_grid_sample_errors():
    def gs(L, xs, gs_, *a, dtype=None, **k):
        return L.nn.functional.grid_sample(L.zeros(*xs, dtype=dtype or L.float64),
                                           L.zeros(*gs_, dtype=L.float64), *a, **k)
    check_error(lambda L: gs(L, (1, 1, 2, 2), (1, 1, 1, 2), mode="linear"))
    check_error(lambda L: gs(L, (1, 1, 2, 2), (1, 1, 1, 2), padding_mode="edge"))
    check_error(lambda L: gs(L, (1, 1, 2, 2, 2), (1, 1, 1, 1, 3), mode="bicubic",
                             align_corners=False))
    check_error(lambda L: gs(L, (1, 1, 2, 2), (2, 1, 1, 2), align_corners=False))
    check_error(lambda L: gs(L, (1, 1, 2, 2), (1, 1, 1, 3), align_corners=False))
    check_error(lambda L: gs(L, (1, 1, 2, 2), (1, 1, 2), align_corners=False))
    check_error(lambda L: gs(L, (1, 1, 0, 2), (1, 1, 1, 2), align_corners=False))
    check_error(lambda L: gs(L, (1, 1, 2, 2), (1, 1, 1, 2), dtype=L.float32,
                             align_corners=False))
    check_error(lambda L: L.grid_sampler_2d(L.zeros(1, 1, 2, 2, 2), L.zeros(1, 1, 1, 1, 3),
                                            0, 0, False))


@pytest.mark.parametrize("align", [False, True])
def test_affine_grid(align):
    check(lambda L, t: L.nn.functional.affine_grid(t, (2, 3, 4, 5), align), R(2, 2, 3))
    check(lambda L, t: L.nn.functional.affine_grid(t, [2, 3, 2, 4, 5], align), R(2, 3, 4))
    check(lambda L, t: L.affine_grid_generator(t, [2, 3, 1, 5], align), R(2, 2, 3))
    check(lambda L, t: L.nn.functional.affine_grid(t, (1, 1, 3, 3), align),
          R(1, 2, 3, dtype=np.float32), rtol=1e-6, atol=1e-6)
    gradcheck(lambda t: ember.nn.functional.affine_grid(t, (2, 1, 3, 2), align), R(2, 2, 3))
    # the grid that affine_grid makes, sampled: the usual spatial-transformer pipeline
    check(lambda L, t, x: L.nn.functional.grid_sample(
        x, L.nn.functional.affine_grid(t, (2, 3, 4, 4), align), align_corners=align),
        R(2, 2, 3, lo=-0.8, hi=0.8), R(2, 3, 5, 5))


def test_affine_grid_errors():
    def f(L):
        return L.nn.functional.affine_grid
    check_error(lambda L: f(L)(L.zeros(1, 2, 3, dtype=L.long), (1, 1, 2, 2), False))
    check_error(lambda L: f(L)(L.zeros(1, 3, 3), (1, 1, 2, 2), False))
    check_error(lambda L: f(L)(L.zeros(1, 2, 3), (1, 1, 2, 2, 2), False))
    check_error(lambda L: f(L)(L.zeros(1, 2, 3), (1, 1, 2), False))
    check_error(lambda L: f(L)(L.zeros(1, 2, 3), (1, 1, 0, 2), False))
    with pytest.warns(UserWarning, match="unit-size"):
        ember.nn.functional.affine_grid(ember.zeros(1, 2, 3), (1, 1, 1, 2), True)


def test_grid_sampler_integer_input():
    check_error(lambda L: L.grid_sampler(L.zeros(1, 1, 2, 2, dtype=L.long),
                                         L.zeros(1, 1, 1, 2, dtype=L.long), 0, 0, False))


# ---------------------------------------------------------------- stft, istft

def _hann(L, n):
    return L.tensor(np.hanning(n + 1)[:-1])


STFT = {
    "default": {},
    "window win_length": {"win": 12, "win_length": 12},
    "no center hop": {"center": False, "hop_length": 5},
    "normalized constant": {"normalized": True, "win": 12, "win_length": 12,
                            "pad_mode": "constant"},
    "two-sided": {"onesided": False},
    "circular": {"pad_mode": "circular", "hop_length": 3},
}


@pytest.mark.parametrize("case", list(STFT))
@pytest.mark.parametrize("batch", [False, True])
def test_stft(case, batch):
    kw = dict(STFT[case])
    win = kw.pop("win", None)

    def fn(L, x):
        w = _hann(L, win) if win else None
        return L.view_as_real(L.stft(x, 16, window=w, return_complex=True, **kw))
    x = R(2, 64) if batch else R(64)
    with pytest.warns(UserWarning) if win is None else _no_warning():
        check(fn, x)
    check(lambda L, x: L.view_as_real(x.stft(16, window=_hann(L, 16), return_complex=True,
                                             **{k: v for k, v in kw.items()
                                                if k != "win_length"})),
          x.astype(np.float32), rtol=1e-4, atol=1e-4)
    gradcheck(lambda x: fn(ember, x), R(40))


class _no_warning:
    def __enter__(self):
        self._c = warnings.catch_warnings()
        self._c.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        self._c.__exit__(*exc)


def test_stft_return_complex_and_complex_input():
    check_error(lambda L: L.stft(L.zeros(64), 16))                      # None: required
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        check(lambda L, x: L.stft(x, 16, window=_hann(L, 16), return_complex=False), R(64))
    xc = (R(2, 64) + 1j * R(2, 64)).astype(np.complex128)
    check(lambda L, x: L.view_as_real(L.stft(x, 16, window=_hann(L, 16))), xc, grad=False)
    check_error(lambda L: L.stft(L.tensor(xc), 16, window=_hann(L, 16), onesided=True))
    with warnings.catch_warnings():     # (torch warns that ComplexHalf is experimental first)
        warnings.simplefilter("ignore")
        check_error(lambda L: L.stft(L.zeros(64, dtype=L.float16), 16, return_complex=True))


def test_stft_errors():
    def s(L, x=None, n=16, **kw):
        x = L.zeros(64) if x is None else x
        kw.setdefault("window", _hann(L, kw.get("win_length") or n))
        return L.stft(x, n, return_complex=True, **kw)
    check_error(lambda L: s(L, hop_length=0))
    check_error(lambda L: s(L, n=100, center=False))
    check_error(lambda L: s(L, n=0, window=None))
    check_error(lambda L: s(L, win_length=20, window=None))
    check_error(lambda L: s(L, window=L.ones(10, dtype=L.float64)))
    check_error(lambda L: s(L, x=L.zeros(2, 2, 32)))
    check_error(lambda L: s(L, x=L.zeros(64, dtype=L.long)))
    check_error(lambda L: s(L, x=L.zeros(4)))


ALIGN = {      # (n_fft, hop, win_length, batch): frames step with the window
    "win 12 of 16": (16, 4, 12, False),
    "win 8 of 16 batch": (16, 3, 8, True),
    "win 16 of 16": (16, 5, 16, False),
    "win 3 of 7 (even difference)": (7, 2, 3, False),
    "no window given": (16, 4, None, False),
}


@pytest.mark.parametrize("case", list(ALIGN))
def test_stft_align_to_window(case):
    """align_to_window=True (center=False): frames are counted by the window's length and
    start (n_fft - win_length) // 2 before each hop, over a zero-padded signal (found by running
    torch 2.13: its docstring does not describe it)."""
    n, hop, win, batch = ALIGN[case]

    def fn(L, x):
        w = _hann(L, win) if win else None
        return L.view_as_real(L.stft(x, n, hop, win, w, center=False, return_complex=True,
                                     align_to_window=True))
    x = R(2, 40) if batch else R(40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(fn, x)
        gradcheck(lambda x: fn(ember, x), x)


def test_stft_align_to_window_errors():
    def s(L, x=None, n=16, win=12, **kw):
        x = L.zeros(40) if x is None else x
        return L.stft(x, n, 4, win, _hann(L, win), return_complex=True, **kw)
    check_error(lambda L: s(L, align_to_window=True))                  # center=True
    check_error(lambda L: s(L, align_to_window=False))
    check_error(lambda L: s(L, x=L.zeros(10), center=False, align_to_window=True))
    # an odd n_fft - win_length: the last frame runs past the padded signal (torch's error)
    check_error(lambda L: s(L, x=L.zeros(39), win=11, center=False, align_to_window=True))
    check_error(lambda L: s(L, x=L.zeros(2, 29, dtype=L.float32), win=9, center=False,
                            align_to_window=True))
    check(lambda L, x: L.view_as_real(L.stft(x, 16, 4, 12, _hann(L, 12), center=False,
                                             return_complex=True, align_to_window=False)), R(40))


ISTFT = {
    "default": {},
    "length short": {"length": 60},
    "no center": {"center": False},
    "normalized": {"normalized": True},
}


@pytest.mark.parametrize("case", list(ISTFT))
def test_istft(case):
    kw = ISTFT[case]
    x = R(2, 64)

    def win(L):     # (hann's zero end would leave an uncovered sample without centring)
        return _hann(L, 16) if kw.get("center", True) else L.tensor(np.hamming(16))

    def spec(L):
        return L.stft(L.tensor(x), 16, 4, window=win(L), return_complex=True,
                      normalized=kw.get("normalized", False), center=kw.get("center", True))

    def fn(L, re, im):
        return L.istft(L.complex(re, im), 16, 4, window=win(L), **kw)
    s = spec(ember)
    re, im = np.asarray(s.real._data), np.asarray(s.imag._data)
    check(fn, re, im)
    if case == "default":    # the round trip gives the signal back
        np.testing.assert_allclose(fn(ember, ember.tensor(re), ember.tensor(im))._data, x,
                                   atol=1e-12)
    gradcheck(lambda a, b: fn(ember, a, b), re[:1, :, :6], im[:1, :, :6])


def test_istft_forms_and_errors():
    x = R(64)
    def s2(L):
        return L.stft(L.tensor(x), 16, 4, window=_hann(L, 16), return_complex=True,
                      onesided=False)
    check(lambda L: L.istft(s2(L), 16, 4, window=_hann(L, 16)))
    check(lambda L: L.view_as_real(L.istft(s2(L), 16, 4, window=_hann(L, 16),
                                           return_complex=True)))
    with pytest.warns(UserWarning, match="padded with zeros"):
        check(lambda L: L.istft(s2(L), 16, 4, window=_hann(L, 16), length=90))
    check(lambda L: s2(L).istft(16, 4, window=_hann(L, 16), onesided=False))
    def s1(L):
        return L.stft(L.tensor(x), 8, window=_hann(L, 8), return_complex=True)
    check_error(lambda L: L.istft(s1(L).real, 8))
    check_error(lambda L: L.istft(s1(L), 6, window=_hann(L, 6)))
    check_error(lambda L: L.istft(s1(L), 8, onesided=False, window=_hann(L, 8)))
    check_error(lambda L: L.istft(s1(L), 8, window=_hann(L, 8), return_complex=True))
    check_error(lambda L: L.istft(s1(L), 8, 2, window=_hann(L, 8), center=False))


# ---------------------------------------------------------------- max_pool3d

POOL3D = {
    "k2": {"kernel_size": 2},
    "k3 s2 p1": {"kernel_size": 3, "stride": 2, "padding": 1},
    "dilated ceil": {"kernel_size": (2, 3, 2), "stride": (1, 2, 3), "dilation": (2, 1, 2),
                     "ceil_mode": True},
    "ceil padded": {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True},
}


@pytest.mark.parametrize("case", list(POOL3D))
def test_max_pool3d(case):
    kw = POOL3D[case]
    x = R(2, 2, 5, 6, 7)
    x[0, 0, :2, :2, :2] = 3.0        # a tie: torch keeps the first
    check(lambda L, x: L.nn.functional.max_pool3d(x, return_indices=True, **kw), x)
    check(lambda L, x: L.nn.MaxPool3d(**kw)(x), x.astype(np.float32))
    check(lambda L, x: L.nn.functional.max_pool3d_with_indices(x, **kw), x[0])
    gradcheck(lambda x: ember.nn.functional.max_pool3d(x, **kw), R(1, 1, 4, 5, 5))
    gradgradcheck(lambda x: ember.nn.functional.max_pool3d(x, **kw), R(1, 1, 4, 4, 5))


def test_max_pool3d_forms_and_errors():
    x = R(1, 2, 4, 4, 4)
    check(lambda L, x: L.max_pool3d(x, [2, 2, 2], [], 0, 1, False), x)
    check(lambda L, x: L.max_pool3d(x, 2, 1, 1, 1, True), x)
    check(lambda L: L.nn.functional.max_pool3d(L.tensor(np.arange(64).reshape(1, 1, 4, 4, 4)),
                                               2))

    def second(L, x):
        gx, = L.autograd.grad(L.nn.functional.max_pool3d(x, 2).pow(2).sum(), x,
                              create_graph=True)
        return gx
    check(second, x)
    assert repr(ember.nn.MaxPool3d((2, 1, 2), 1, 1, 2, True, True)) == \
        "MaxPool3d(kernel_size=(2, 1, 2), stride=1, padding=1, dilation=2, ceil_mode=True)"

    def mp(L, *a, **k):
        return L.nn.functional.max_pool3d(L.zeros(1, 2, 4, 4, 4), *a, **k)
    check_error(lambda L: mp(L, (2, 2)))
    check_error(lambda L: mp(L, 2, (1, 1)))
    check_error(lambda L: mp(L, 2, 1, (1, 1)))
    check_error(lambda L: mp(L, 2, 1, 0, (1, 1)))
    check_error(lambda L: mp(L, 2, padding=2))
    check_error(lambda L: mp(L, 2, padding=-1))
    check_error(lambda L: mp(L, 0))
    check_error(lambda L: mp(L, 2, dilation=0))
    check_error(lambda L: mp(L, 5))
    check_error(lambda L: L.nn.functional.max_pool3d(L.zeros(4, 4, 4), 2))


# ---------------------------------------------------------------- avg_pool3d

AVG3D = {
    "k2": {"kernel_size": 2},
    "k3 s2 p1": {"kernel_size": 3, "stride": 2, "padding": 1},
    "ceil no pad count": {"kernel_size": (2, 3, 2), "stride": (1, 2, 3), "padding": (1, 1, 0),
                          "ceil_mode": True, "count_include_pad": False},
    "divisor": {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True,
                "divisor_override": 3},
}


@pytest.mark.parametrize("case", list(AVG3D))
def test_avg_pool3d(case):
    kw = AVG3D[case]
    x = R(2, 2, 5, 6, 7)
    check(lambda L, x: L.nn.functional.avg_pool3d(x, **kw), x)
    check(lambda L, x: L.nn.AvgPool3d(**kw)(x), x[0].astype(np.float32), rtol=1e-6,
          atol=1e-6)
    gradcheck(lambda x: ember.nn.functional.avg_pool3d(x, **kw), R(1, 1, 4, 5, 5))
    gradgradcheck(lambda x: ember.nn.functional.avg_pool3d(x, **kw), R(1, 1, 4, 4, 5))

    def second(L, x):
        gx, = L.autograd.grad(L.nn.functional.avg_pool3d(x, **kw).pow(2).sum(), x,
                              create_graph=True)
        return gx
    check(second, x)


def test_avg_pool3d_forms_and_errors():
    check(lambda L: L.nn.functional.avg_pool3d(L.arange(64).view(1, 1, 4, 4, 4) - 30, 2))
    assert repr(ember.nn.AvgPool3d((1, 2, 2), 1, (0, 1, 1), True, False, 3)) == \
        repr(torch.nn.AvgPool3d((1, 2, 2), 1, (0, 1, 1), True, False, 3))

    def ap(L, *a, **k):
        return L.nn.functional.avg_pool3d(L.zeros(1, 2, 4, 4, 4), *a, **k)
    check_error(lambda L: ap(L, (2, 2)))
    check_error(lambda L: ap(L, 2, (1, 1)))
    check_error(lambda L: ap(L, 2, 1, (1, 1)))
    check_error(lambda L: ap(L, 0))
    check_error(lambda L: ap(L, 5, padding=2))
    check_error(lambda L: ap(L, 2, padding=-1))
    check_error(lambda L: ap(L, 2, padding=2))
    check_error(lambda L: ap(L, 2, divisor_override=0))
    check_error(lambda L: L.nn.functional.avg_pool3d(L.zeros(4, 4, 4), 2))
