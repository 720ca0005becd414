"""ember.nn.functional dropout family against torch: the masks' structure and scaling, eval
mode and p = 0 / 1, in-place forms, grad_fn chains, warnings and errors; and the random stream:
torch's rule (one bernoulli_(1 - p) on a tensor of the noise's shape, checked here on torch
itself), ember's calls following it, and the exact masks once ember's stream is torch's."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import chain, check, check_error

R = np.random.default_rng(9)
X = R.standard_normal((6, 5, 4, 3))


def F(lib):
    return lib.nn.functional


def _chain(fn):
    return chain(fn, 6)


# name -> (fn(lib, x), noise shape for X (None: X's), alpha)
DROPOUTS = {
    "dropout": (lambda L, x: F(L).dropout(x, 0.3), None, False),
    "dropout_3d_input": (lambda L, x: F(L).dropout(x[0], 0.6), None, False),
    "dropout1d": (lambda L, x: F(L).dropout1d(x[:, :, 0], 0.4), (6, 5, 1), False),
    "dropout1d_unbatched": (lambda L, x: F(L).dropout1d(x[0, :, 0], 0.4), (5, 1), False),
    "dropout2d": (lambda L, x: F(L).dropout2d(x, 0.5), (6, 5, 1, 1), False),
    "dropout3d": (lambda L, x: F(L).dropout3d(x.unsqueeze(2), 0.2), (6, 5, 1, 1, 1), False),
    "dropout3d_unbatched": (lambda L, x: F(L).dropout3d(x[0], 0.2), (5, 1, 1, 1), False),
    "alpha_dropout": (lambda L, x: F(L).alpha_dropout(x, 0.3, True), None, True),
    "feature_alpha_dropout": (lambda L, x: F(L).feature_alpha_dropout(x, 0.4, True),
                              (6, 5, 1, 1), True),
}


def _run(lib, name, x, seed=0):
    lib.manual_seed(seed)
    return DROPOUTS[name][0](lib, x)


@pytest.mark.parametrize("name", sorted(DROPOUTS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mask_structure_scaling_and_gradient(name, dtype):
    """Each element is dropped or kept as one (per channel for feature dropout); kept ones are
    scaled by 1 / (1 - p) (alpha dropout: a * x + b with SELU's constants); the gradient is the
    scale where kept, 0 where dropped (alpha: a, 0)."""
    fn, noise_shape, alpha = DROPOUTS[name]
    x = ember.tensor(X.astype(dtype), requires_grad=True)
    out = fn(ember, x)
    ref = fn(ember, ember.tensor(X.astype(dtype)))       # shapes of the selected input
    assert out.dtype == x.dtype and out.shape == ref.shape
    p = {"dropout": 0.3, "dropout_3d_input": 0.6, "dropout1d": 0.4, "dropout1d_unbatched": 0.4,
         "dropout2d": 0.5, "dropout3d": 0.2, "dropout3d_unbatched": 0.2, "alpha_dropout": 0.3,
         "feature_alpha_dropout": 0.4}[name]
    w = np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)).astype(dtype)
    (out * ember.tensor(w)).sum().backward()
    o = out.detach().numpy()
    g = x.grad.numpy()
    if alpha:
        a = 1.0 / np.sqrt((1.7580993408473766 ** 2 * p + 1) * (1 - p))
        b_keep = 1.7580993408473766 * a * p
        b_drop = -1.7580993408473766 * a + b_keep
        inp = _selected(fn, dtype)
        kept = np.isclose(o, inp * a + b_keep, rtol=1e-5, atol=1e-6)
        dropped = np.isclose(o, b_drop, rtol=1e-5, atol=1e-6) & ~kept
        assert np.all(kept | dropped)
        scale_keep = a
    else:
        inp = _selected(fn, dtype)
        kept = o != 0
        np.testing.assert_allclose(o[kept], inp[kept] / (1 - p), rtol=1e-6)
        scale_keep = 1 / (1 - p)
    if noise_shape is not None:            # one draw per channel
        k = kept.reshape(kept.shape[:len(noise_shape) - noise_shape.count(1)] + (-1,)) \
            if noise_shape[-1] == 1 else kept
        assert np.all(k.all(-1) | ~k.any(-1))
    assert 0 < kept.mean() < 1
    gsel = _selected_grad(fn, dtype, w, kept, scale_keep)
    np.testing.assert_allclose(g, gsel, rtol=1e-6, atol=1e-7)


def _selected(fn, dtype):
    """fn's input values at each output position (fn applied to an identity-like probe)."""
    e = ember.tensor(X.astype(dtype))
    with ember.no_grad():
        ember.manual_seed(0)
        sel = fn(_Identity, e)
    return sel.numpy()


class _Identity:
    """A stand-in for `lib` whose nn.functional dropout functions return their input."""
    class nn:
        class functional:
            dropout = dropout1d = dropout2d = dropout3d = alpha_dropout = \
                feature_alpha_dropout = staticmethod(lambda x, *a, **k: x)


def _selected_grad(fn, dtype, w, kept, scale):
    x = ember.tensor(X.astype(dtype), requires_grad=True)
    sel = fn(_Identity, x)
    sel.backward(ember.tensor(np.where(kept, w * scale, 0).astype(dtype)))
    return x.grad.numpy()


@pytest.mark.parametrize("name", sorted(DROPOUTS))
def test_grad_fn_chain(name):
    got = []
    for lib in (torch, ember):
        x = lib.tensor(X, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got.append(_chain(_run(lib, name, x).grad_fn))
    assert got[0] == got[1]


def test_saved_mask_is_scaled():
    """MulBackward0 saves the scaled mask (other) and no self, as torch's does."""
    for lib in (torch, ember):
        x = lib.tensor(X, requires_grad=True)
        out = F(lib).dropout(x, 0.25)
        m = out.grad_fn._saved_other.numpy()
        assert set(np.unique(m)) <= {0.0, 1 / 0.75} and out.grad_fn._saved_self is None


@pytest.mark.parametrize("make", [
    lambda L, x: F(L).dropout(x, 0.4, training=False),
    lambda L, x: F(L).dropout(x, 0.0),
    lambda L, x: F(L).dropout2d(x, 0.4, training=False),
    lambda L, x: F(L).alpha_dropout(x, 0.4),            # training=False by default
    lambda L, x: F(L).alpha_dropout(x, 0.0, True),
    lambda L, x: F(L).feature_alpha_dropout(x, 0.4),
    lambda L, x: F(L).dropout(x[:0], 0.4),
])
def test_identity_cases(make):
    """Eval mode, p = 0 and empty inputs: the input itself, nothing drawn."""
    for lib in (torch, ember):
        x = lib.tensor(X, requires_grad=True)
        lib.manual_seed(1)
        before = lib.rand(3).tolist()
        lib.manual_seed(1)
        out = make(lib, x)
        assert (out is x) == (x.shape == out.shape)
        assert lib.rand(3).tolist() == before


@pytest.mark.parametrize("make", [lambda L, x: F(L).dropout(x, 1.0),
                                  lambda L, x: F(L).dropout2d(x, 1.0),
                                  lambda L, x: F(L).alpha_dropout(x, 1.0, True)])
def test_p_one(make):
    """p = 1: the input times a 0-dim zero (signed zeros, MulBackward0 with one edge), no draw."""
    check(make, X)
    for lib in (torch, ember):
        lib.manual_seed(1)
        before = lib.rand(3).tolist()
        lib.manual_seed(1)
        make(lib, lib.tensor(X))
        assert lib.rand(3).tolist() == before
    out = F(ember).dropout(ember.tensor(-X), 1.0).numpy()
    np.testing.assert_array_equal(np.signbit(out), np.signbit(-X * 0))


@pytest.mark.parametrize("make", [
    lambda L, y: F(L).dropout(y, 0.3, inplace=True),
    lambda L, y: F(L).dropout(y, 1.0, inplace=True),
    lambda L, y: F(L).dropout2d(y, 0.3, inplace=True),
    lambda L, y: F(L).dropout1d(y[:, :, 0, 0], 0.3, inplace=True),
    lambda L, y: F(L).alpha_dropout(y, 0.3, True, inplace=True),
    lambda L, y: F(L).feature_alpha_dropout(y, 0.3, True, inplace=True),
])
def test_inplace(make):
    """inplace=True writes into the input and rebases its history (MulBackward0 / AddBackward0
    on top of the input's own node)."""
    got = []
    for lib in (torch, ember):
        x = lib.tensor(X, requires_grad=True)
        y = x * 1.0
        out = make(lib, y)
        assert out is y or out._base is y if lib is torch else True
        got.append(_chain(out.grad_fn))
        z = lib.tensor(X)
        make(lib, z)
        assert not np.array_equal(z.numpy(), X)
    assert got[0] == got[1]


def test_inplace_on_leaf_errors():
    check_error(lambda L: F(L).dropout(L.tensor(X, requires_grad=True), 0.3, inplace=True))


# ---------------------------------------------------------------- the random stream

STREAM = {
    "dropout": (lambda L, x: F(L).dropout(x, 0.3), X.shape, 0.7),
    "dropout2d": (lambda L, x: F(L).dropout2d(x, 0.4), X.shape[:2] + (1, 1), 0.6),
    "alpha_dropout": (lambda L, x: F(L).alpha_dropout(x, 0.2, True), X.shape, 0.8),
}


@pytest.mark.parametrize("name", sorted(STREAM))
@pytest.mark.parametrize("requires_grad", [False, True])
def test_torch_draws_one_bernoulli_of_the_noise_shape(name, requires_grad):
    """torch's rule, on torch itself: the mask is torch.empty(noise shape).bernoulli_(1 - p)
    from the default stream (the same with or without autograd), nothing else is drawn."""
    fn, shape, keep = STREAM[name]
    x = torch.tensor(X, dtype=torch.float32, requires_grad=requires_grad)
    torch.manual_seed(7)
    out = fn(torch, x).detach().numpy()
    after = torch.rand(2)
    torch.manual_seed(7)
    mask = torch.empty(shape, dtype=torch.float32).bernoulli_(keep).numpy()
    assert torch.equal(torch.rand(2), after)
    dropped = np.broadcast_to(mask == 0, out.shape)
    if name == "alpha_dropout":
        assert len(np.unique(out[dropped])) == 1
        assert not np.isin(out[~dropped], out[dropped]).any()
    else:
        assert np.all(out[dropped] == 0) and np.all(out[~dropped] != 0)


@pytest.mark.parametrize("name", sorted(STREAM))
def test_ember_draws_as_torch_does(name, monkeypatch):
    """ember makes the same primitive call: one bernoulli_(1 - p) on a tensor of the noise's
    shape and the input's dtype."""
    fn, shape, keep = STREAM[name]
    calls = []

    def bernoulli_(t, p):
        calls.append((tuple(t.shape), t.dtype, p))
        np.copyto(t._data, np.arange(t._data.size).reshape(t._data.shape) % 2)
        return t
    monkeypatch.setattr(ember.Tensor, "bernoulli_", bernoulli_, raising=False)
    fn(ember, ember.tensor(X, dtype=ember.float32))
    assert calls == [(shape, ember.float32, keep)]


@pytest.mark.parametrize("name", sorted(DROPOUTS))
def test_masks_equal_torch(name):
    outs = []
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs.append(_run(lib, name, lib.tensor(X.astype(np.float32)), seed=5).numpy())
    np.testing.assert_array_equal(outs[1], outs[0])


# ---------------------------------------------------------------- errors and warnings

ERRORS = {
    "p_above_one": lambda L: F(L).dropout(L.tensor(X), 1.5),
    "p_negative": lambda L: F(L).dropout(L.tensor(X), -0.1),
    "dropout1d_p": lambda L: F(L).dropout1d(L.tensor(X[0]), 2.0),
    "alpha_p": lambda L: F(L).alpha_dropout(L.tensor(X), -1.0),
    "feature_alpha_p": lambda L: F(L).feature_alpha_dropout(L.tensor(X), 1.1),
    "dropout1d_4d": lambda L: F(L).dropout1d(L.tensor(X)),
    "dropout1d_1d": lambda L: F(L).dropout1d(L.tensor(X[0, 0, 0])),
    "dropout2d_1d": lambda L: F(L).dropout2d(L.tensor(X[0, 0, 0])),
    "feature_alpha_1d": lambda L: F(L).feature_alpha_dropout(L.tensor(X[0, 0, 0]), 0.5, True),
}


@pytest.mark.filterwarnings("ignore:dropout2d")
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check_error(ERRORS[name])


@pytest.mark.parametrize("make", [
    lambda L: F(L).dropout2d(L.tensor(X[0, 0]), 0.5),
    lambda L: F(L).dropout2d(L.tensor(X[0]), 0.5),
    lambda L: F(L).dropout2d(L.tensor(X).unsqueeze(0), 0.5),
    lambda L: F(L).dropout3d(L.tensor(X[0, 0]), 0.5),
    lambda L: F(L).dropout3d(L.tensor(X[0]), 0.5),
])
def test_dimension_warnings(make):
    msgs = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = make(lib)
        msgs.append(([str(w.message) for w in rec], tuple(out.shape)))
    assert msgs[0] == msgs[1] and msgs[0][0]


# ---------------------------------------------------------------- modules

from nn_module_check import check_module  # noqa: E402

DROPOUT_MODULES = {
    "Dropout": lambda L: L.nn.Dropout(), "Dropout_args": lambda L: L.nn.Dropout(0.2, True),
    "Dropout1d": lambda L: L.nn.Dropout1d(0.3), "Dropout2d": lambda L: L.nn.Dropout2d(),
    "Dropout3d": lambda L: L.nn.Dropout3d(0.1, True),
    "AlphaDropout": lambda L: L.nn.AlphaDropout(0.2),
    "FeatureAlphaDropout": lambda L: L.nn.FeatureAlphaDropout(0.1, True),
}


@pytest.mark.parametrize("name", sorted(DROPOUT_MODULES))
def test_module_eval_and_repr(name):
    """repr; in eval mode the input passes unchanged (the same tensor)."""
    x = X[:, :, :, 0] if "1d" in name else X
    inplace = DROPOUT_MODULES[name](ember).inplace
    check_module(DROPOUT_MODULES[name], [x.astype(np.float32)], modes=("eval",),
                 grad_inputs=[] if inplace else None)
    for lib in (torch, ember):
        m = DROPOUT_MODULES[name](lib).eval()
        t = lib.tensor(x)
        assert m(t) is t


@pytest.mark.parametrize("name", sorted(DROPOUT_MODULES))
def test_module_train(name, monkeypatch):
    """In training mode the module draws a mask (one bernoulli_ call) and applies it; the
    alpha variants never write their input (torch does not pass inplace on)."""
    x = X[:, :, :, 0] if "1d" in name else X
    m = DROPOUT_MODULES[name](ember)
    calls = []

    def bernoulli_(t, p):
        calls.append(p)
        np.copyto(t._data, np.arange(t._data.size).reshape(t._data.shape) % 2)
        return t
    monkeypatch.setattr(ember.Tensor, "bernoulli_", bernoulli_, raising=False)
    t = ember.tensor(x) * 1.0
    out = m(t)
    assert calls == [1 - m.p]
    assert (out is t) == (m.inplace and "Alpha" not in name)
    assert not np.array_equal(out.numpy(), x)


def test_module_bad_p():
    for p in (-0.5, 1.5):
        check_error(lambda L: L.nn.Dropout(p))
        check_error(lambda L: L.nn.AlphaDropout(p))


def test_inplace_unbatched_feature_dropout_on_a_leaf():
    """torch unsqueezes an unbatched input in place first (refused on a leaf that requires
    grad), even in eval mode."""
    check_error(lambda L: L.nn.Dropout3d(0.1, True).eval()(L.tensor(X, requires_grad=True)))
