"""Issue 2: autograd.Function (custom ops), compared with torch."""
import numpy as np

import torch

import ember
from oracle import check, check_error


def make_exp(L):
    class MyExp(L.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            y = x.exp() * scale
            ctx.save_for_backward(y)
            ctx.scale = scale
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y, None
    return MyExp


def make_split(L):
    class Split(L.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2, x * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output[1])

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2
    return Split


def test_custom_function_forward_backward_and_node_name():
    def run(L, x):
        return make_exp(L).apply(x, 2.0)
    t, e = check(run, np.array([0.5, -1.0, 2.0]))
    assert type(e.grad_fn).__name__ == "MyExpBackward"
    assert e.grad_fn.next_functions[0][0].__class__.__name__ == "AccumulateGrad"


def test_setup_context_and_non_differentiable_outputs():
    def run(L, x):
        a, b = make_split(L).apply(x)
        assert not b.requires_grad
        return a
    check(run, np.array([1.0, 2.0]))


def test_saved_tensors_freed_after_backward():
    def run(L):
        x = L.ones(2, requires_grad=True)
        y = make_exp(L).apply(x, 1.0)
        y.sum().backward()
        y.sum().backward()
    check_error(run)


def test_double_backward_through_custom_function():
    def run(L, x):
        x.requires_grad_()
        y = make_exp(L).apply(x, 1.0).sum()
        (g,) = L.autograd.grad(y, x, create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), x)
        return gg
    check(run, np.array([0.1, 0.2]), grad=False, names=False)


def test_wrong_number_of_gradients_is_torchs_error():
    def run(L):
        class Bad(L.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g
        a = L.ones(2, requires_grad=True)
        Bad.apply(a, L.ones(2)).sum().backward()
    check_error(run)


def test_once_differentiable_and_needs_input_grad():
    for lib in (torch, ember):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.flags = ctx.needs_input_grad
                return a + b

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                return g, g
        a = lib.ones(2, requires_grad=True)
        out = F.apply(a, lib.ones(2))
        assert out.grad_fn.flags == (True, False)
        out.sum().backward()
        assert a.grad.tolist() == [1.0, 1.0]
