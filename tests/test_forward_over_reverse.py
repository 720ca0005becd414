"""Forward-over-reverse (jvp of grad, jacfwd(jacrev), func.hessian) against torch.func: the
backward of a node that saved its own output must see that output's tangent (ember saves
outputs as separate tensors on the same memory; they share the output's forward grads)."""
import numpy as np
import pytest
import torch

import ember

X = np.array([0.3, -0.7, 1.1, 0.45])
FUNS = {
    "exp": lambda L, x: x.exp().sum(),
    "exp_times_w": lambda L, x: (x.exp() * L.tensor([1., 2., 3., 4.], dtype=x.dtype)).sum(),
    "tanh": lambda L, x: (x.tanh() * x).sum(),
    "sigmoid": lambda L, x: (x.sigmoid() ** 2).sum(),
    "sqrt": lambda L, x: (x * x + 1).sqrt().sum(),
    "rsqrt": lambda L, x: (x * x + 1).rsqrt().sum(),
    "reciprocal": lambda L, x: (x + 2).reciprocal().sum(),
    "expm1": lambda L, x: (x.expm1() * x).sum(),
    "prod": lambda L, x: x.prod(),
    "prod_dim": lambda L, x: x.reshape(2, 2).prod(1).sum(),
    "cumprod": lambda L, x: x.cumprod(0).sum(),
    "softmax": lambda L, x: (L.softmax(x, 0) * L.arange(4, dtype=x.dtype)).sum(),
    "log_softmax": lambda L, x: (L.log_softmax(x, 0) ** 2).sum(),
    "logsumexp": lambda L, x: L.logsumexp(x * x, 0),
    "norm": lambda L, x: x.norm() ** 3,
    "pow": lambda L, x: ((x + 2) ** 2.5).sum(),
    "elu": lambda L, x: L.nn.functional.elu(x * 2).pow(2).sum(),
    "mixed": lambda L, x: (x.exp() * x.tanh() + x.sigmoid() * x.prod()).sum(),
}


def _run(L, name, how):
    f = lambda x: FUNS[name](L, x)          # noqa: E731
    x = L.tensor(X, dtype=L.float64)
    if how == "hessian":
        return L.func.hessian(f)(x).numpy()
    if how == "jacfwd_jacrev":
        return L.func.jacfwd(L.func.jacrev(f))(x).numpy()
    v = L.tensor([1.0, -0.5, 0.25, 2.0], dtype=L.float64)
    return L.func.jvp(L.func.grad(f), (x,), (v,))[1].numpy()


@pytest.mark.parametrize("how", ["hessian", "jacfwd_jacrev", "jvp_grad"])
@pytest.mark.parametrize("name", sorted(FUNS))
def test_forward_over_reverse_equals_torch(name, how):
    want = _run(torch, name, how)
    got = _run(ember, name, how)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    assert np.abs(want).sum() > 0                       # the check can fail


def test_saved_output_carries_its_tangent_through_create_graph_backward():
    fw = ember.autograd.forward_ad
    x = ember.tensor([0.1, 0.2, 0.3])
    with fw.dual_level():
        a = fw.make_dual(x, ember.tensor([1.0, 0.0, 0.0])).view_as(x).requires_grad_()
        g, = ember.autograd.grad(a.exp().sum(), a, create_graph=True)
        assert fw.unpack_dual(g).tangent.tolist() == pytest.approx([1.1051709, 0.0, 0.0])
