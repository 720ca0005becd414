"""In-place ops and views against torch (issue 13): the history an in-place write gives a
tensor, its base and the base's other views; shared version counters and the errors they
raise; torch's refusals. Each test is named by the behaviour it pins down."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error

R = np.random.default_rng(3)


def arr(*shape):
    return R.standard_normal(shape)


def names(t):
    fn = t.grad_fn
    return None if fn is None else (type(fn).__name__,
                                    [None if f is None else type(f).__name__
                                     for f, _ in fn.next_functions])


def same(program):
    """program(L) -> a value built from plain Python data; equal under torch and ember."""
    assert program(torch) == program(ember)


# ---------------------------------------------------------------- wrong gradients before

def test_zero_and_fill_through_a_view_reach_backward():
    check(lambda L, x: _through_view(x, lambda v: v.zero_()), arr(2, 2))
    check(lambda L, x: _through_view(x, lambda v: v.fill_(3.0)), arr(2, 2))


def _through_view(x, write):
    t = x * 1
    write(t[0])
    return t


def test_an_in_place_op_that_saved_its_output_refuses_a_later_write():
    def sigmoid_then_add(L):
        t = L.ones(2, 2, requires_grad=True) * 1
        t.sigmoid_()
        t.add_(1)
        t.sum().backward()

    def relu_then_pow(L):
        t = L.ones(2, 2, requires_grad=True) * 1
        t.relu_()
        t.pow_(2)
        t.sum().backward()
    check_error(sigmoid_then_add)
    check_error(relu_then_pow)


def test_an_expand_view_written_through_its_base_sums_over_the_expanded_dims():
    def program(L, x):
        t = x * 3
        e = t.expand(2, 1)
        t.add_(1)
        return e
    check(program, arr(1))


def test_a_view_taken_before_its_base_required_grad_gets_the_new_history():
    def program(L, x, w):
        t = x.detach() * 1                     # requires no grad yet
        v = t[1]
        t[:, 0].add_(w)
        return v.sum() + w * 0, v
    check(program, arr(2, 2), np.array(0.5))


def test_views_of_a_written_base_read_it_anew():
    def program(L, x):
        t = x * 1
        v = t[0]
        vv = v.view(3)
        t.mul_(2)
        return v * v, vv
    check(program, arr(2, 3))


def test_a_view_of_a_view_written_rebases_the_root():
    def program(L, x):
        t = x * 1
        v = t.view(6)
        v2 = v[1:]
        v2.mul_(2)
        return t, v, v2
    check(program, arr(2, 3))


def test_t_mul_w_where_only_w_requires_grad():
    def program(L, w):
        t = L.ones(2, 2) * 3
        t.mul_(w)
        return t
    check(program, arr(2, 2))


def test_a_hook_returning_the_wrong_shape_is_refused():
    def leaf_hook(L):
        x = L.ones(2, requires_grad=True)
        x.register_hook(lambda g: g.sum())
        (x * 2).sum().backward()

    def nonleaf_hook(L):
        x = L.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g[:1])
        y.sum().backward()
    check_error(leaf_hook)
    check_error(nonleaf_hook)


# ---------------------------------------------------------------- grad_fn names

@pytest.mark.parametrize("write", [
    lambda t, w: t.__setitem__(0, 5),
    lambda t, w: t.__setitem__(Ellipsis, 5),
    lambda t, w: t.__setitem__(slice(None), 5),
    lambda t, w: t.__setitem__([0], 5),
    lambda t, w: t.__setitem__((0, [1]), 5),
    lambda t, w: t.__setitem__(t > 0, 5),
    lambda t, w: t.__setitem__(0, w),
    lambda t, w: t.__setitem__(Ellipsis, w),
    lambda t, w: t.zero_(),
    lambda t, w: t.fill_(2),
    lambda t, w: t.fill_(w),
    lambda t, w: t.copy_(w.expand(2, 3) * 2),
    lambda t, w: t[0].mul_(2),
    lambda t, w: t.sigmoid_(),
], ids=["setitem int", "setitem ...", "setitem :", "setitem list", "setitem int+list",
        "setitem mask", "setitem tensor", "setitem ... tensor", "zero_", "fill_ number",
        "fill_ tensor", "copy_", "view mul_", "sigmoid_"])
def test_writes_give_torchs_nodes_and_gradients(write):
    def program(L, x, w):
        t = x * 1
        write(t, w)
        return t
    check(program, arr(2, 3), np.array(0.5))
    same(lambda L: _write_names(L, write))


def _write_names(L, write):
    x = L.ones(2, 3, requires_grad=True)
    w = L.tensor(0.5, requires_grad=True)
    t = x * 1
    write(t, w)
    return names(t), t._version


def test_writes_into_0d_tensors():
    def program(L, x):
        s = (x * 1).sum()
        s[...] = 0
        z = (x * 1).sum()
        z += x.sum()                           # the everyday total_loss += loss
        return s, z
    check(program, arr(2, 2))
    same(lambda L: names(_zero_dim_setitem(L)))


def _zero_dim_setitem(L):
    s = (L.ones(2, requires_grad=True) * 1).sum()
    s[...] = 0
    return s


def test_in_place_ops_on_0d_views_write_the_base():
    def program(L):
        t = L.tensor([1.0, 2.0])
        t.select(0, 1).mul_(3)
        u = L.tensor([1.0, 2.0])
        u[0].view(()).mul_(5)
        w = L.tensor(4.0)
        w.permute(()).add_(1)
        return t.tolist(), u.tolist(), w.item()
    same(program)


def test_writes_into_a_tensor_expanded_only_along_size_1_dims():
    def program(L):
        t = L.zeros(1, 3)
        t.expand(1, 1, 3).add_(1)
        u = L.zeros(3, 1)
        u.expand(3, 1).add_(2)
        return t.tolist(), u.tolist()
    same(program)
    check_error(lambda L: L.zeros(3, 1).expand(3, 2).add_(1))


def test_fill_of_a_non_leaf_holding_inf_and_nan_gives_zero_gradient():
    def program(L, x):
        y = x * 1
        y.fill_(float("inf"))
        z = x * 1
        z.zero_()
        return y, z
    check(program, np.array([np.inf, np.nan, 1.0]))


# ---------------------------------------------------------------- versions

VERSION_CASES = {
    "saved output then a write": lambda L, x: (lambda y: (y.add_(1), y))(x.exp())[1],
    "saved input then a write": lambda L, x: (lambda y: (y * y, y.add_(1))[0])(x * 2),
    "saved view, base written": lambda L, x: (lambda y: (y[0] * y[0], y.add_(1))[0])(x * 2),
    "saved base, view written": lambda L, x: (lambda y: (y * y, y[0].add_(1))[0])(x * 2),
    "saved, detached alias written": lambda L, x: (
        lambda y: (y * y, y.detach().add_(1))[0])(x * 2),
    "saved output, written through a view": lambda L, x: (
        lambda y: (y[0].add_(1), y)[1])(x.exp()),
}


@pytest.mark.parametrize("name", sorted(VERSION_CASES))
def test_a_write_after_a_node_saved_the_tensor_is_refused(name):
    def program(L):
        x = L.ones(2, 2, requires_grad=True)
        VERSION_CASES[name](L, x).sum().backward()
    check_error(program)


def test_a_write_through_data_is_not_tracked():
    def program(L):
        x = L.ones(2, 2, requires_grad=True)
        y = x * 2
        z = y * y
        y.data.add_(1)
        z.sum().backward()
        return x.grad.tolist(), y._version
    same(program)


def test_views_and_detached_aliases_share_the_version_counter():
    def program(L):
        x = L.ones(2, 3, requires_grad=True)
        t = x * 1
        v, d = t[0], t.detach()
        out = [(t._version, v._version, d._version)]
        t.add_(1)
        out.append((t._version, v._version, d._version))
        v.mul_(2)
        d.zero_()
        out.append((t._version, v._version, d._version))
        t[0] = 1
        t[[1]] = 2
        t.copy_(t * 0)
        out.append((t._version, v._version, d._version))
        return out
    same(program)


def test_backward_twice_through_nodes_that_saved_nothing():
    def program(L):
        x = L.ones(2, requires_grad=True)
        y = (x + 1).sum()
        y.backward(create_graph=True, retain_graph=False)
        y.backward(create_graph=True, retain_graph=False)
        return x.grad.tolist()
    same(program)

    def saved(L):
        x = L.ones(2, requires_grad=True)
        y = (x * x).sum()
        y.backward(create_graph=True, retain_graph=False)
        y.backward(create_graph=True, retain_graph=False)
    check_error(saved)


# ---------------------------------------------------------------- refusals

@pytest.mark.parametrize("program", [
    lambda L: L.ones(2, requires_grad=True).mul_(2),
    lambda L: L.ones(2, requires_grad=True)[0].mul_(2),
    lambda L: L.ones(2, requires_grad=True).fill_(1),
    lambda L: L.ones(2, requires_grad=True).zero_(),
    lambda L: (L.ones(2, 2, requires_grad=True) * 1).split(1)[0].mul_(2),
    lambda L: (L.ones(2, 2, requires_grad=True) * 1).unbind(0)[1].add_(1),
    lambda L: L.zeros(2, 3).copy_(L.ones(2)),
    lambda L: L.zeros(2, 3).copy_(L.ones(1, 2, 3)),
    lambda L: L.zeros(2, 3).copy_([1, 2, 3]),
    lambda L: L.zeros(2).fill_(L.ones(2)),
    lambda L: L.zeros(2, dtype=L.int8).fill_(300),
    lambda L: L.zeros(2, dtype=L.int64).fill_(float("inf")),
    lambda L: L.zeros(2).fill_(1e40),
    lambda L: L.zeros(2).fill_(1j),
    lambda L: L.zeros(2, 3).__setitem__(0, L.ones(2)),
    lambda L: L.zeros(2, 3).__setitem__([0], L.ones(2)),
], ids=["leaf", "view of leaf", "fill_ leaf", "zero_ leaf", "split output", "unbind output",
        "copy_ shape", "copy_ broadcast up", "copy_ list", "fill_ 1-d value", "fill_ int8",
        "fill_ inf into int", "fill_ float32 overflow", "fill_ complex into float",
        "setitem shape", "setitem advanced shape"])
def test_torchs_refusals(program):
    check_error(program)


def test_refused_writes_leave_the_tensor_unchanged():
    for L in (torch, ember):
        x = L.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError):
            x[0].mul_(2)
        assert x.tolist() == [1.0, 1.0] and x._version == 0
        t = (L.ones(2, 2, requires_grad=True) * 1)
        a, _ = t.split(1)
        with pytest.raises(RuntimeError):
            a.mul_(2)
        assert t.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_fill_and_copy_convert_values_as_torch():
    def program(L):
        a = L.zeros(2, dtype=L.int64).fill_(2.7)
        b = L.zeros(2, dtype=L.bool).fill_(2)
        c = L.zeros(2, dtype=L.int64).copy_(L.tensor([1.7, -2.7]))
        d = L.zeros(2, 3).copy_(3)
        return a.tolist(), b.tolist(), c.tolist(), d.tolist()
    same(program)
