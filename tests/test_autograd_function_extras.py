"""Issue 12 point 8: custom Function features (mark_dirty, mark_non_differentiable,
set_materialize_grads, needs_input_grad, non-tensor outputs, once_differentiable), compared
with torch event by event."""
import torch

import ember


def functions(L, out):
    class Dirty(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class ND(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            s, i = a.sort()
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(i)
            return s, i

        @staticmethod
        def backward(ctx, gs, gi):
            i, = ctx.saved_tensors
            out.append(("gi", None if gi is None else gi.tolist()))
            return L.zeros_like(gs).scatter(0, i, gs)

    class NoMat(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            out.append(("nomat", g1 is None, g2 is None))
            return g1 * 2 if g1 is not None else None

    class NonT(L.autograd.Function):
        @staticmethod
        def forward(ctx, a, k):
            out.append(("needs", ctx.needs_input_grad))
            return a * k, k + 1

        @staticmethod
        def backward(ctx, g, gk):
            return g * 2, None

    class OD(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 2

        @staticmethod
        @L.autograd.function.once_differentiable
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 2 * a * g
    return Dirty, ND, NoMat, NonT, OD


def prog(L):
    out = []
    Dirty, ND, NoMat, NonT, OD = functions(L, out)
    x = L.tensor([3., 1., 2.], requires_grad=True)
    y = Dirty.apply(x.clone())
    out.append((type(y.grad_fn).__name__, y.tolist()))
    y.sum().backward()
    out.append(x.grad.tolist())
    s, i = ND.apply(x)
    out.append((i.requires_grad, s.requires_grad, type(s.grad_fn).__name__))
    (s * L.tensor([1., 2, 3])).sum().backward()
    out.append(x.grad.tolist())
    a, b = NoMat.apply(x)
    a.sum().backward()
    out.append(x.grad.tolist())
    r, k = NonT.apply(x, 2)
    out.append((k, type(r.grad_fn).__name__))
    r.sum().backward()
    out.append(x.grad.tolist())
    z = OD.apply(x)
    g, = L.autograd.grad(z.sum(), x, create_graph=True)
    out.append((g.requires_grad, type(g.grad_fn).__name__))
    try:
        g.sum().backward()
    except RuntimeError as e:
        out.append(str(e))
    return out


def test_custom_function_features_match_torch():
    t, e = prog(torch), prog(ember)
    assert len(t) == len(e) == 12
    for a, b in zip(t, e):
        assert a == b
