"""nn.init against torch.nn.init: gains, fans, deterministic fills exactly; random ones by the
sequence of sampling calls they make (with a stand-in sampler that fills the same numbers in
both libraries, results compared too) and by their distribution; errors and warnings."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error


# ---------------------------------------------------------------- a recording sampler

def _fill_values(shape, kind, p1, p2, k):
    """Deterministic stand-in draws, different for each call k."""
    rng = np.random.default_rng(k)
    if kind == "uniform":
        return p1 + (p2 - p1) * rng.random(shape)
    return p1 + p2 * rng.standard_normal(shape)


@pytest.fixture
def recorder(monkeypatch):
    """Replace uniform_/normal_/randperm in both libraries by deterministic stand-ins that
    record (call, shape, args); returns the dict of call logs."""
    logs = {torch: [], ember: []}

    def sampler(lib, kind):
        def sample_(self, p1=0.0, p2=1.0, *, generator=None):
            logs[lib].append((kind, tuple(self.shape), round(float(p1), 10),
                              round(float(p2), 10)))
            vals = _fill_values(tuple(self.shape), kind, p1, p2, len(logs[lib]))
            if lib is torch:
                with torch.no_grad():
                    self.copy_(torch.from_numpy(vals))
            else:
                self._data[...] = vals
            return self
        return sample_

    def perm(lib, real):
        def randperm(n, **kwargs):
            logs[lib].append(("randperm", n))
            k = sum(1 for c in logs[lib] if c[0] == "randperm")
            return lib.tensor(np.roll(np.arange(n)[::-1], k))
        return randperm

    for lib in (torch, ember):
        for kind in ("uniform", "normal"):
            monkeypatch.setattr(lib.Tensor, kind + "_", sampler(lib, kind), raising=False)
    monkeypatch.setattr(torch, "randperm", perm(torch, torch.randperm))
    monkeypatch.setattr(ember.nn.init, "randperm", perm(ember, ember.randperm))
    return logs


def same_tensor(t, e, tol=1e-6):
    assert tuple(t.shape) == tuple(e.shape)
    assert str(t.dtype) == str(e.dtype)
    np.testing.assert_allclose(e.detach()._data, t.detach().numpy(), rtol=tol, atol=tol)


RANDOM_INITS = {
    "uniform_": lambda L, t: L.nn.init.uniform_(t, -0.3, 0.7),
    "normal_": lambda L, t: L.nn.init.normal_(t, 0.5, 2.0),
    "xavier_uniform_": lambda L, t: L.nn.init.xavier_uniform_(t, gain=1.5),
    "xavier_normal_": lambda L, t: L.nn.init.xavier_normal_(t),
    "kaiming_uniform_": lambda L, t: L.nn.init.kaiming_uniform_(t),
    "kaiming_uniform_a": lambda L, t: L.nn.init.kaiming_uniform_(t, a=math.sqrt(5)),
    "kaiming_uniform_fan_out": lambda L, t: L.nn.init.kaiming_uniform_(
        t, mode="fan_out", nonlinearity="relu"),
    "kaiming_normal_": lambda L, t: L.nn.init.kaiming_normal_(t, a=0.2, mode="fan_out"),
    "kaiming_normal_tanh": lambda L, t: L.nn.init.kaiming_normal_(t, nonlinearity="tanh"),
    "trunc_normal_": lambda L, t: L.nn.init.trunc_normal_(t, mean=0.1, std=0.5, a=-0.4, b=0.9),
    "trunc_normal_default": lambda L, t: L.nn.init.trunc_normal_(t),
    "trunc_normal_uniform_proposals": lambda L, t: L.nn.init.trunc_normal_(t, 0.0, 1.0, 1.5,
                                                                          2.5),
    "orthogonal_": lambda L, t: L.nn.init.orthogonal_(t),
    "orthogonal_gain": lambda L, t: L.nn.init.orthogonal_(t, gain=2.0),
    "sparse_": lambda L, t: L.nn.init.sparse_(t, 0.5) if t.dim() == 2 else L.nn.init.zeros_(t),
}


@pytest.mark.parametrize("shape", [(4, 3), (3, 6), (2, 3, 2, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(RANDOM_INITS))
def test_random_init_calls_and_values(recorder, name, shape, dtype):
    fn = RANDOM_INITS[name]
    tt = torch.empty(shape, dtype=getattr(torch, dtype))
    et = ember.empty(shape, dtype=getattr(ember, dtype))
    rt, re = fn(torch, tt), fn(ember, et)
    assert rt is tt and re is et
    assert recorder[torch] == recorder[ember]
    same_tensor(tt, et, 1e-5 if dtype == "float32" else 1e-12)


MODULE_INITS = {
    "Linear": lambda L: L.nn.Linear(5, 3),
    "Linear_nobias": lambda L: L.nn.Linear(5, 3, bias=False),
    "Linear_empty": lambda L: L.nn.Linear(0, 3),
    "Bilinear": lambda L: L.nn.Bilinear(2, 3, 4),
    "Embedding": lambda L: L.nn.Embedding(6, 3, padding_idx=2),
    "EmbeddingBag": lambda L: L.nn.EmbeddingBag(6, 3, padding_idx=-1),
    "Sequential": lambda L: L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Linear(4, 2)),
}


@pytest.mark.parametrize("name", sorted(MODULE_INITS))
def test_module_default_init(recorder, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # Linear(0, 3): zero-element kaiming warns
        tm, em = MODULE_INITS[name](torch), MODULE_INITS[name](ember)
    assert recorder[torch] == recorder[ember]
    for (n, tp), (en, ep) in zip(tm.named_parameters(), em.named_parameters()):
        assert n == en
        same_tensor(tp, ep)


# ---------------------------------------------------------------- the real samplers

def test_distributions():
    ember.manual_seed(0)
    init = ember.nn.init
    w = ember.empty(200, 300)
    bound = 1 / math.sqrt(300)
    init.kaiming_uniform_(w, a=math.sqrt(5))
    assert w.abs().max().item() <= bound and w.abs().max().item() > 0.99 * bound
    init.kaiming_normal_(w, mode="fan_out")
    assert abs(w.std().item() - math.sqrt(2 / 200)) < 0.01 * math.sqrt(2 / 200) * 5
    init.xavier_uniform_(w)
    a = math.sqrt(6 / 500)
    assert w.abs().max().item() <= a and w.abs().max().item() > 0.99 * a
    init.xavier_normal_(w, gain=2.0)
    assert abs(w.std().item() - 2 * math.sqrt(2 / 500)) < 0.05 * 2 * math.sqrt(2 / 500)
    init.trunc_normal_(w, mean=1.0, std=2.0, a=0.0, b=2.5)
    assert w.min().item() >= 0.0 and w.max().item() <= 2.5
    init.normal_(w, 3.0, 0.5)
    assert abs(w.mean().item() - 3.0) < 0.01 and abs(w.std().item() - 0.5) < 0.01
    init.uniform_(w, -2.0, -1.0)
    assert -2.0 <= w.min().item() and w.max().item() <= -1.0
    q = init.orthogonal_(ember.empty(5, 8), gain=3.0)
    np.testing.assert_allclose(q._data @ q._data.T, 9 * np.eye(5), atol=1e-4)
    q = init.orthogonal_(ember.empty(8, 2, 2))
    flat = q._data.reshape(8, 4)
    np.testing.assert_allclose(flat.T @ flat, np.eye(4), atol=1e-5)
    s = init.sparse_(ember.empty(10, 6), sparsity=0.3, std=0.1)
    assert ((s._data == 0).sum(0) == 3).all()


def test_init_under_no_grad_and_version():
    p = ember.nn.Parameter(ember.empty(3, 4))
    for fn in (lambda t: ember.nn.init.kaiming_uniform_(t), ember.nn.init.zeros_,
               ember.nn.init.eye_, lambda t: ember.nn.init.trunc_normal_(t),
               ember.nn.init.orthogonal_, lambda t: ember.nn.init.constant_(t, 0.3)):
        v = p._version
        assert fn(p) is p
        assert p.is_leaf and p.grad_fn is None and p.requires_grad
        assert p._version > v


# ---------------------------------------------------------------- deterministic inits

@pytest.mark.parametrize("fn, shape", [
    (lambda L, t: L.nn.init.constant_(t, 0.25), (3, 4)),
    (lambda L, t: L.nn.init.ones_(t), (2, 3, 1)),
    (lambda L, t: L.nn.init.zeros_(t), (5,)),
    (lambda L, t: L.nn.init.eye_(t), (3, 5)),
    (lambda L, t: L.nn.init.eye_(t), (4, 2)),
    (lambda L, t: L.nn.init.dirac_(t), (4, 3, 3)),
    (lambda L, t: L.nn.init.dirac_(t), (2, 3, 3, 4)),
    (lambda L, t: L.nn.init.dirac_(t, groups=2), (4, 3, 3, 3)),
    (lambda L, t: L.nn.init.dirac_(t, groups=3), (6, 1, 2, 2, 3)),
])
def test_deterministic(fn, shape):
    tt, et = torch.full(shape, 7.0), ember.full(shape, 7.0)
    assert fn(torch, tt) is tt and fn(ember, et) is et
    same_tensor(tt, et, 0)


@pytest.mark.parametrize("args", [
    ("linear",), ("conv2d",), ("conv_transpose3d",), ("sigmoid",), ("tanh",), ("relu",),
    ("leaky_relu",), ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu",),
])
def test_calculate_gain(args):
    assert torch.nn.init.calculate_gain(*args) == ember.nn.init.calculate_gain(*args)


def test_fans():
    for shape in [(3, 4), (2, 3, 5), (6, 2, 3, 3)]:
        assert torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape)) == \
            ember.nn.init._calculate_fan_in_and_fan_out(ember.empty(shape))


@pytest.mark.parametrize("call", [
    lambda L: L.nn.init.calculate_gain("foo"),
    lambda L: L.nn.init.calculate_gain("leaky_relu", True),
    lambda L: L.nn.init.calculate_gain("leaky_relu", "x"),
    lambda L: L.nn.init.xavier_uniform_(L.empty(3)),
    lambda L: L.nn.init.kaiming_uniform_(L.empty(3)),
    lambda L: L.nn.init.kaiming_normal_(L.empty(3, 2), mode="fan_avg"),
    lambda L: L.nn.init.kaiming_normal_(L.empty(3, 2), nonlinearity="swish"),
    lambda L: L.nn.init.eye_(L.empty(2, 2, 2)),
    lambda L: L.nn.init.dirac_(L.empty(2, 2)),
    lambda L: L.nn.init.dirac_(L.empty(3, 2, 2), groups=2),
    lambda L: L.nn.init.orthogonal_(L.empty(3)),
    lambda L: L.nn.init.sparse_(L.empty(3, 2, 2), 0.1),
])
def test_errors(call):
    check_error(call)


def test_warnings():
    def caught(L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            L.nn.init.kaiming_uniform_(L.empty(0, 3))
            L.nn.init.kaiming_normal_(L.empty(3, 0))
            L.nn.init.trunc_normal_(L.empty(4), mean=10.0)
            L.nn.init.uniform(L.empty(2))
            L.nn.init.xavier_normal(L.empty(2, 2))
            L.nn.init.eye(L.empty(2, 2))
        return [(x.category.__name__, str(x.message)) for x in w]
    assert caught(torch) == caught(ember)


def test_orthogonal_empty_is_noop():
    t = ember.empty(0, 3)
    assert ember.nn.init.orthogonal_(t) is t


# ---------------------------------------------------------------- with torch's streams
# (ember/random.py draws torch's numbers: seeded alike, the inits agree bit for bit)

EXACT = dict(RANDOM_INITS)
EXACT.pop("orthogonal_")        # QR in LAPACK float32 vs NumPy: equal to a few ulp (below)
EXACT.pop("orthogonal_gain")


@pytest.mark.parametrize("name", sorted(EXACT))
@pytest.mark.parametrize("shape", [(8, 9), (4, 30), (40, 50)])
def test_same_numbers_as_torch(name, shape):
    torch.manual_seed(5)
    ember.manual_seed(5)
    t, e = EXACT[name](torch, torch.empty(shape)), EXACT[name](ember, ember.empty(shape))
    assert np.array_equal(t.numpy(), e._data)


@pytest.mark.parametrize("shape", [(8, 9), (4, 30), (3, 2, 5)])
def test_orthogonal_close_to_torch(shape):
    torch.manual_seed(5)
    ember.manual_seed(5)
    t = torch.nn.init.orthogonal_(torch.empty(shape), gain=1.5)
    e = ember.nn.init.orthogonal_(ember.empty(shape), gain=1.5)
    np.testing.assert_allclose(e._data, t.numpy(), rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", sorted(MODULE_INITS))
def test_module_default_init_same_numbers(name):
    torch.manual_seed(3)
    ember.manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, em = MODULE_INITS[name](torch), MODULE_INITS[name](ember)
    for tp, ep in zip(tm.parameters(), em.parameters()):
        assert np.array_equal(tp.detach().numpy(), ep._data)
