"""ember.func (issue 12, point 4) against torch.func on the same programs: grad,
grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian, functional_call, vmap (values,
nesting, errors)."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error


def _np(t):
    if isinstance(t, (tuple, list)):
        return [_np(x) for x in t]
    if isinstance(t, dict):
        return {k: _np(v) for k, v in t.items()}
    return t.detach().numpy() if hasattr(t, "detach") else t


def _same(a, b, rtol=1e-10, atol=1e-12):
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y, rtol, atol)
    elif isinstance(a, dict):
        assert set(a) == set(b)
        for k in a:
            _same(a[k], b[k], rtol, atol)
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def both(prog, *arrays):
    """prog(lib, *tensors) through torch and ember: the results must agree."""
    out = []
    for lib in (torch, ember):
        out.append(_np(prog(lib, *[lib.tensor(a) for a in arrays])))
    _same(*out)
    return out[1]


def f_scalar(L, x):
    return (x.sin() * x).sum() + (x ** 3).mean()


def f_vec(L, x):
    return L.tanh(x) * x.sum() + x.exp()


def f_two(L, x, y):
    return (x @ y).softmax(-1)


GRAD_PROGS = {
    "grad": lambda L, x: L.func.grad(lambda x: f_scalar(L, x))(x),
    "grad_argnums": lambda L, x, y: L.func.grad(lambda a, b: (f_two(L, a, b) * a.sum()).sum(),
                                                argnums=(0, 1))(x, y),
    "grad_and_value": lambda L, x: L.func.grad_and_value(lambda x: f_scalar(L, x))(x),
    "grad_aux": lambda L, x: L.func.grad(lambda x: (f_scalar(L, x), {"s": x.sin()}),
                                         has_aux=True)(x),
    "grad_dict": lambda L, x: L.func.grad(lambda p: (p["a"] * p["b"]).sum())(
        {"a": x, "b": x.cos()}),
    "grad_grad": lambda L, x: L.func.grad(
        lambda x: L.func.grad(lambda y: f_scalar(L, y))(x).sum())(x),
    "grad_unused": lambda L, x, y: L.func.grad(lambda a, b: a.sum(), argnums=1)(x, y),
    "vjp": lambda L, x: L.func.vjp(lambda x: f_vec(L, x), x)[1](x.cos()),
    "vjp_out": lambda L, x: L.func.vjp(lambda x: f_vec(L, x), x)[0],
    "jvp": lambda L, x: L.func.jvp(lambda x: f_vec(L, x), (x,), (x.cos(),)),
    "jvp_two": lambda L, x, y: L.func.jvp(lambda a, b: f_two(L, a, b), (x, y), (x * 2, y - 1)),
    "jvp_of_grad": lambda L, x: L.func.jvp(L.func.grad(lambda x: f_scalar(L, x)), (x,),
                                           (x.cos(),)),
    "linearize": lambda L, x: L.func.linearize(lambda x: f_vec(L, x), x)[1](x.cos()),
    "jacrev": lambda L, x: L.func.jacrev(lambda x: f_vec(L, x))(x),
    "jacfwd": lambda L, x: L.func.jacfwd(lambda x: f_vec(L, x))(x),
    "jacrev_two": lambda L, x, y: L.func.jacrev(lambda a, b: f_two(L, a, b), argnums=(0, 1))(x, y),
    "jacfwd_two": lambda L, x, y: L.func.jacfwd(lambda a, b: f_two(L, a, b), argnums=(0, 1))(x, y),
    "jac_multi_out": lambda L, x: L.func.jacrev(lambda x: (x.sin(), x.sum()))(x),
    "hessian": lambda L, x: L.func.hessian(lambda x: f_scalar(L, x))(x),
    "hessian_rev_rev": lambda L, x: L.func.jacrev(L.func.jacrev(lambda x: f_scalar(L, x)))(x),
    "vmap": lambda L, x: L.func.vmap(lambda r: f_vec(L, r))(x),
    "vmap_in_dims": lambda L, x, y: L.func.vmap(lambda a, b: a * b, in_dims=(1, None))(x, y[0]),
    "vmap_out_dims": lambda L, x: L.func.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(x),
    "vmap_nested": lambda L, x: L.func.vmap(L.func.vmap(lambda a: a.exp() * 2))(x),
    "vmap_dot": lambda L, x: L.func.vmap(L.dot)(x, x.cos()),
    "vmap_jacrev": lambda L, x: L.func.vmap(L.func.jacrev(lambda r: f_vec(L, r)))(x),
    "vmap_grad": lambda L, x: L.func.vmap(L.func.grad(lambda r: f_scalar(L, r)))(x),
    "vmap_dict": lambda L, x: L.func.vmap(lambda d: d["a"] + d["b"], in_dims=({"a": 0, "b": 1},))(
        {"a": x, "b": x.t()}),
}
ARGS = {"grad_argnums": (_x(2, 3), _x(3, 2, seed=1)), "jvp_two": (_x(2, 3), _x(3, 2, seed=1)),
        "jacrev_two": (_x(2, 3), _x(3, 2, seed=1)), "jacfwd_two": (_x(2, 3), _x(3, 2, seed=1)),
        "grad_unused": (_x(3), _x(2, seed=1)), "vmap_in_dims": (_x(3, 4), _x(1, 3, seed=1))}


@pytest.mark.parametrize("name", list(GRAD_PROGS))
def test_transforms(name):
    both(GRAD_PROGS[name], *ARGS.get(name, (_x(3, 3) if name.startswith(("vmap", "jac_m"))
                                            else _x(4),)))


def test_grad_composes_with_backward():
    """A transform's result stays differentiable w.r.t. inputs that require grad."""
    res = []
    for lib in (torch, ember):
        x = lib.tensor(_x(4), requires_grad=True)
        g = lib.func.grad(lambda x: f_scalar(lib, x))(x)
        (gx,) = lib.autograd.grad(g.sum(), x)
        res.append((_np(g), _np(gx), g.requires_grad))
    _same(res[0][:2], res[1][:2])
    assert res[0][2] == res[1][2]


def test_results_do_not_require_grad():
    for lib in (torch, ember):
        x = lib.tensor(_x(3))
        assert not lib.func.grad(lambda x: (x * x).sum())(x).requires_grad
        assert not lib.func.hessian(lambda x: (x ** 3).sum())(x).requires_grad
        assert not lib.func.jacrev(lambda x: x.sin())(x).requires_grad


def test_functional_call():
    res = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
        bn = lib.nn.BatchNorm1d(2)
        params = {k: v.detach() * 2 for k, v in m.named_parameters()}
        x = lib.tensor(_x(5, 3), dtype=lib.float32)
        before = [p.detach().clone() for p in m.parameters()]
        out = lib.func.functional_call(m, params, (x,))
        after = list(m.parameters())
        assert all(bool((a == b).all()) for a, b in zip(before, after))   # module unchanged
        g = lib.func.grad(lambda p: lib.func.functional_call(m, p, x).sum())(params)
        bufs = {"running_mean": lib.ones(2), "running_var": lib.ones(2) * 4}
        bn.eval()
        ob = lib.func.functional_call(bn, bufs, (out,))
        assert bool((bn.running_mean == 0).all())
        res.append((_np(out), _np(g), _np(ob)))
    _same(res[0], res[1], rtol=1e-5, atol=1e-6)


def test_vmap_randomness():
    x = ember.ones(3, 2)
    same = ember.func.vmap(lambda r: r + ember.rand(2), randomness="same")(x)
    assert bool((same[0] == same[1]).all()) and bool((same[1] == same[2]).all())
    diff = ember.func.vmap(lambda r: r + ember.rand(2), randomness="different")(x)
    assert not bool((diff[0] == diff[1]).all())
    check_error(lambda L: L.func.vmap(lambda r: r + L.rand(2))(L.ones(3, 2)))


@pytest.mark.parametrize("prog", [
    lambda L: L.func.grad(lambda x: x * 2)(L.ones(3)),
    lambda L: L.func.grad(lambda x: x.sum(), has_aux=True)(L.ones(3)),
    lambda L: L.func.grad(lambda x: x.sum(), argnums=2)(L.ones(3)),
    lambda L: L.func.grad(lambda x: 3)(L.ones(3)),
    lambda L: L.func.grad(lambda x: x.sum())(L.tensor([1, 2])),
    lambda L: L.func.jvp(lambda x: x * 2, L.ones(3), L.ones(3)),
    lambda L: L.func.jvp(lambda x: x * 2, (L.ones(3),), (L.ones(2),)),
    lambda L: L.func.vjp(lambda x: x * 2, L.ones(3))[1](L.ones(2)),
    lambda L: L.func.jacrev(lambda x: x * 2, argnums=1)(L.ones(3)),
    lambda L: L.func.vmap(lambda x: x * 2, in_dims=1)(L.ones(3)),
    lambda L: L.func.vmap(lambda x, y: x * y)(L.ones(3), L.ones(2)),
    lambda L: L.func.vmap(lambda x: 3)(L.ones(3)),
    lambda L: L.func.vmap(lambda x: x)(3),
    lambda L: L.func.vjp(lambda x: x, L.ones(2), has_aux=True),
    lambda L: L.func.vjp(lambda x: [x, 1], L.ones(2)),
    lambda L: L.func.jvp(lambda x: [x, 1], (L.ones(2),), (L.ones(2),)),
    lambda L: L.func.jacrev(lambda x: x, has_aux=True)(L.ones(2)),
    lambda L: L.func.jacrev(lambda x: [x, 1])(L.ones(2)),
    lambda L: L.func.jacfwd(lambda x: x, has_aux=True)(L.ones(2)),
    lambda L: L.func.jacfwd(lambda x: [x, 1])(L.ones(2)),
], ids=["grad_nonscalar", "grad_aux_missing", "argnums_range", "grad_not_tensor",
        "grad_int_input", "jvp_not_tuple", "jvp_tangent_shape", "vjp_shape", "jacrev_argnums",
        "vmap_in_dim_range", "vmap_sizes", "vmap_nontensor_out", "vmap_nontensor_in",
        "vjp_aux_missing", "vjp_nontensor_out", "jvp_nontensor_out", "jacrev_aux_missing",
        "jacrev_nontensor_out", "jacfwd_aux_missing", "jacfwd_nontensor_out"])
def test_errors(prog):
    check_error(prog)


@pytest.mark.parametrize("chunk_size", [None, 1, 4])
def test_jacrev_runs_the_forward_once(chunk_size):
    """jacrev out of vmap: one forward pass, then the outputs' basis as one batch of grad
    outputs (autograd.grad with is_grads_batched), per chunk; values equal torch.func.jacrev's
    (several outputs, an input an output ignores, an output no input reaches, has_aux)."""
    calls = []

    def prog(L, x, y):
        def f(a, b):
            calls.append(L)
            return (a.sin() * b.sum(), (a * a).sum(), L.ones(2, dtype=a.dtype)), a.cos()
        return L.func.jacrev(f, argnums=(0, 1), has_aux=True, chunk_size=chunk_size)(x, y)
    both(prog, _x(3, 2), _x(4, seed=1))
    assert calls.count(ember) == 1


def test_jacobian_vectorize_uses_the_batched_backward():
    calls = []

    def prog(L, x):
        def f(a):
            calls.append(L)
            return a.exp() * a.sum(), a.tanh()
        return L.autograd.functional.jacobian(f, x, vectorize=True, create_graph=True)
    both(prog, _x(2, 3))
    assert calls.count(ember) == 1
