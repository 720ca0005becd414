"""torch's functionalization *_copy ops (ember/ops/copy_variants.py, Note [Copy variants]):
the view op's values as fresh contiguous tensors, the view's gradient under a `_copy` node name,
out= and errors, against torch."""
import numpy as np
import pytest
import torch

import ember

CASES = [
    ("alias_copy", lambda m, x: m.alias_copy(x)),
    ("alias_copy", lambda m, x: m.alias_copy(x.t())),
    ("as_strided_copy", lambda m, x: m.as_strided_copy(x, (2, 2), (1, 2), 1)),
    ("as_strided_copy", lambda m, x: m.as_strided_copy(x, (3,), (4,))),
    ("diagonal_copy", lambda m, x: m.diagonal_copy(x, 1)),
    ("diagonal_copy", lambda m, x: m.diagonal_copy(x, -1, 1, 0)),
    ("expand_copy", lambda m, x: m.expand_copy(x[:1], (2, 3, 4))),
    ("expand_copy", lambda m, x: m.expand_copy(x, [-1, 4], implicit=True)),
    ("permute_copy", lambda m, x: m.permute_copy(x, (1, 0))),
    ("select_copy", lambda m, x: m.select_copy(x, 1, -1)),
    ("slice_copy", lambda m, x: m.slice_copy(x, 1, 1, None, 2)),
    ("slice_copy", lambda m, x: m.slice_copy(x, -1, -2)),
    ("slice_copy", lambda m, x: m.slice_copy(x)),
    ("split_copy", lambda m, x: m.split_copy(x, 2, 1)),
    ("split_copy", lambda m, x: m.split_copy(x, 5)),
    ("split_with_sizes_copy", lambda m, x: m.split_with_sizes_copy(x, [1, 2])),
    ("squeeze_copy", lambda m, x: m.squeeze_copy(x[:1])),
    ("squeeze_copy", lambda m, x: m.squeeze_copy(x[:1], 0)),
    ("squeeze_copy", lambda m, x: m.squeeze_copy(x[:1, :1], (0, 1))),
    ("t_copy", lambda m, x: m.t_copy(x)),
    ("t_copy", lambda m, x: m.t_copy(x[0])),
    ("transpose_copy", lambda m, x: m.transpose_copy(x, 0, -1)),
    ("unbind_copy", lambda m, x: m.unbind_copy(x, 1)),
    ("unbind_copy", lambda m, x: m.unbind_copy(x)),
    ("unfold_copy", lambda m, x: m.unfold_copy(x, 1, 2, 1)),
    ("unsqueeze_copy", lambda m, x: m.unsqueeze_copy(x, -1)),
    ("view_copy", lambda m, x: m.view_copy(x, (2, -1))),
    ("view_copy", lambda m, x: m.view_copy(x.t(), [12])),
    ("view_as_real_copy", lambda m, x: m.view_as_real_copy(m.view_as_complex(x.reshape(6, 2)))),
]


def _run(m, f, a):
    x = m.tensor(a, requires_grad=True)
    r = f(m, x)
    return x, (r if isinstance(r, tuple) else (r,)), isinstance(r, tuple)


@pytest.mark.parametrize("name,f", CASES)
def test_values_layout_node_and_gradient_match_torch(name, f):
    a = np.random.RandomState(0).randn(3, 4)
    xt, rt, tt = _run(torch, f, a)
    xe, re_, te = _run(ember, f, a)
    assert tt == te and len(rt) == len(re_)
    for t, e in zip(rt, re_):
        np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy())
        assert e.shape == t.shape and e.stride() == t.stride() and e.dtype.__repr__() == \
            repr(t.dtype)
        assert e._base is None and t._base is None
        assert e.grad_fn.name() == t.grad_fn.name()
        assert e.grad_fn.name().endswith("_copy")
        assert e.data_ptr() != xe.data_ptr()
    ws = [np.arange(t.numel(), dtype=np.float64).reshape(t.shape) for t in rt]
    torch.autograd.backward(list(rt), [torch.tensor(w) for w in ws])
    ember.autograd.backward(list(re_), [ember.tensor(w) for w in ws])
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


def test_copies_share_no_memory_with_the_input():
    x = ember.arange(12.).reshape(3, 4)
    for y in (ember.alias_copy(x), ember.view_copy(x, (12,)), ember.t_copy(x),
              ember.detach_copy(x), ember.slice_copy(x, 0, 0, 1)):
        y.fill_(-1.0)
    assert x.min().item() == 0.0


def test_gradcheck_through_copies():
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda x: ember.transpose_copy(x, 0, 1) ** 2, (x,))
    assert ember.autograd.gradgradcheck(lambda x: ember.view_copy(x, (4, 3)).sin(), (x,))
    assert ember.autograd.gradcheck(lambda x: ember.split_copy(x, 2, 1)[1].exp(), (x,))


def test_no_grad_and_int_inputs():
    x = ember.ones(2, 3, requires_grad=True)
    with ember.no_grad():
        y = ember.t_copy(x)
    assert not y.requires_grad and y.grad_fn is None
    i = ember.arange(6).reshape(2, 3)
    assert ember.permute_copy(i, (1, 0)).tolist() == torch.arange(6).reshape(2, 3).T.tolist()
    assert ember.view_copy(ember.ones(2, 2), ember.int32).tolist() == \
        torch.view_copy(torch.ones(2, 2), torch.int32).tolist()


def test_detach_copy_gets_the_not_implemented_node():
    for m in (torch, ember):
        x = m.ones(2, 3, requires_grad=True)
        y = m.detach_copy(x)
        assert y.requires_grad and type(y.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::detach_copy is not "
                                               "implemented"):
            y.sum().backward()


def test_view_as_complex_copy():
    a = np.random.RandomState(1).randn(3, 2).astype(np.float32)
    np.testing.assert_array_equal(ember.view_as_complex_copy(ember.tensor(a)).numpy(),
                                  torch.view_as_complex_copy(torch.tensor(a)).numpy())
    for m in (torch, ember):
        with pytest.raises(RuntimeError, match="view_as_complex_copy does not support automatic "
                                               "differentiation for outputs with complex dtype"):
            m.view_as_complex_copy(m.tensor(a, requires_grad=True))


def test_out_forms():
    for m in (torch, ember):
        o = m.empty(0)
        r = m.transpose_copy(m.arange(6.).reshape(2, 3), 0, 1, out=o)
        assert r is o and o.shape == (3, 2) and o.is_contiguous()
        parts = [m.empty(2), m.empty(2)]
        assert m.split_copy(m.arange(4.), 2, out=parts) is None
        assert parts[1].tolist() == [2.0, 3.0]
        outs = [m.empty(0), m.empty(3)]
        m.unbind_copy(m.ones(2, 3), out=outs)
        assert outs[0].tolist() == [1.0, 1.0, 1.0]
        with pytest.raises(RuntimeError, match="expected an out= argument of size 2, got size "
                                               "1"):
            m.split_copy(m.zeros(4), 2, out=[m.empty(2)])
        with pytest.raises(RuntimeError, match="split_with_sizes_copy_out expected an out= "
                                               "argument of size 2, got size 1"):
            m.split_with_sizes_copy(m.zeros(4), [2, 2], out=[m.empty(2)])
        with pytest.raises(RuntimeError, match="unbind_copy_int_out expected an out= argument "
                                               "of size 2, got size 1"):
            m.unbind_copy(m.zeros(2, 2), out=[m.empty(2)])
        with pytest.raises(TypeError, match="split_copy\\(\\): argument 'out' must be tuple "
                                            "of Tensors, not Tensor"):
            m.split_copy(m.zeros(4), 2, out=m.empty(2))
        for dt, cname in ((m.float64, "double"), (m.int64, "long int")):
            with pytest.raises(RuntimeError, match=f"Expected out tensor to have dtype float, "
                                                   f"but got {cname} instead"):
                m.t_copy(m.ones(2, 2), out=m.empty(2, 2, dtype=dt))
        with pytest.raises(RuntimeError, match="aten::t_copy\\(\\): functions with out=... "
                                               "arguments don't support automatic "
                                               "differentiation"):
            m.t_copy(m.ones(2, 2), out=m.empty(2, 2, requires_grad=True))


@pytest.mark.parametrize("name,f", [
    ("t_copy", lambda m, x, o: m.t_copy(x, out=o)),
    ("view_copy", lambda m, x, o: m.view_copy(x, (4,), out=o)),
    ("detach_copy", lambda m, x, o: m.detach_copy(x, out=o)),
])
def test_out_from_a_tensor_that_requires_grad_gets_not_implemented(name, f):
    for m in (torch, ember):
        x = m.ones(2, 2, requires_grad=True)
        o = m.empty(0)
        assert f(m, x, o) is o
        assert o.requires_grad and type(o.grad_fn).__name__ == "NotImplemented"
        assert o.grad_fn.next_functions[0][0] is x.grad_fn or \
            type(o.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
        with pytest.raises(RuntimeError, match=f"derivative for aten::{name} is not "
                                               "implemented"):
            o.sum().backward()
    for m in (torch, ember):         # the list forms record nothing
        parts = [m.empty(2), m.empty(2)]
        m.split_copy(m.ones(4, requires_grad=True), 2, out=parts)
        assert not parts[0].requires_grad


@pytest.mark.parametrize("f,exc,msg", [
    (lambda m, x: m.slice_copy(x, 1, 0, 4, 0), RuntimeError, "slice step must be positive"),
    (lambda m, x: m.slice_copy(x, 5), IndexError, "Dimension out of range"),
    (lambda m, x: m.view_copy(x, (5,)), RuntimeError, r"shape '\[5\]' is invalid for input "
                                                       "of size 12"),
    (lambda m, x: m.view_copy(x, -1), TypeError, "view_copy"),
    (lambda m, x: m.select_copy(x, 0, 5), IndexError, "select"),
    (lambda m, x: m.permute_copy(x, [1]), RuntimeError, "number of dimensions"),
    (lambda m, x: m.t_copy(x.reshape(2, 2, 3)), RuntimeError, "t\\(\\) expects a tensor with "
                                                              "<= 2 dimensions"),
    (lambda m, x: m.split_copy(x, [1, 2]), TypeError, "split_copy\\(\\): argument "
                                                      "'split_size' \\(position 2\\) must be "
                                                      "int, not list"),
    (lambda m, x: m.diagonal_copy(x, 0, 1, 1), RuntimeError, "diagonal dimensions cannot be "
                                                             "identical"),
    (lambda m, x: m.view_as_real_copy(x), RuntimeError, "view_as_real is only supported for "
                                                        "complex tensors"),
])
def test_errors_match_torch(f, exc, msg):
    for m in (torch, ember):
        with pytest.raises(exc, match=msg):
            f(m, m.arange(12.).reshape(3, 4))


# ---- slice_inverse: src's geometry over input's memory, SliceInverseBackward0

@pytest.mark.parametrize("dim,start,end,step", [(1, 1, 3, 1), (0, 1, None, 1), (-1, 1, 3, 1),
                                                (1, None, None, 1)])
def test_slice_inverse_values_view_and_gradients(dim, start, end, step):
    a = np.arange(12.).reshape(3, 4)
    w = np.arange(1., 13.).reshape(3, 4)
    res = []
    for m in (torch, ember):
        big = m.tensor(a * 0 + 5, requires_grad=True)   # input: a slice of big
        src = m.tensor(a, requires_grad=True)
        sl = big[(slice(None),) * (dim % 2) + (slice(start, end, step),)]
        r = m.slice_inverse(sl, src, dim, start, end, step)
        assert r._base is big and r.shape == src.shape and r.stride() == src.stride()
        assert r.grad_fn.name() == "SliceInverseBackward0"
        assert (r.grad_fn._saved_dim, r.grad_fn._saved_step) == (dim if dim >= 0 else
                                                                r.grad_fn._saved_dim, step)
        assert r.grad_fn._saved_start == start and r.grad_fn._saved_end == end
        r.backward(m.tensor(w))
        res.append((r.detach().numpy().copy(), big.grad.numpy(), src.grad.numpy()))
    for t, e in zip(*res):
        np.testing.assert_array_equal(e, t)


def test_slice_inverse_shares_memory_and_the_tensor_method():
    for m in (torch, ember):
        x = m.arange(12.).reshape(3, 4)
        r = m.slice_inverse(x[:, 1:3], x, 1, 1, 3)
        r[0, 0] = 100.0
        assert x[0, 0].item() == 100.0
        assert x.slice_inverse(x[1:], 0, 1).shape == (2, 4)
        assert m.slice_inverse(m.zeros(20), m.empty(3, 2), 0).shape == (3, 2)


def test_slice_inverse_one_side_requires_grad():
    for m in (torch, ember):
        big = m.zeros(3, 4, requires_grad=True)
        r = m.slice_inverse(big[:, 1:3], m.ones(3, 4), 1, 1, 3)
        assert r.grad_fn.next_functions[1][0] is None
        r.backward(m.ones(3, 4))
        assert big.grad.tolist() == [[0.0, 1.0, 1.0, 0.0]] * 3
        src = m.ones(3, 4, requires_grad=True)
        r = m.slice_inverse(m.zeros(3, 4)[:, 1:3], src, 1, 1, 3)
        assert r.grad_fn.next_functions[0][0] is None
        r.backward(m.ones(3, 4))
        assert src.grad.tolist() == [[1.0, 0.0, 0.0, 1.0]] * 3


def test_slice_inverse_errors():
    for m in (torch, ember):
        x = m.arange(6.)
        with pytest.raises(RuntimeError, match=r"setStorage: sizes \[3, 4\], strides \[4, 1\], "
                                               r"storage offset 0, and itemsize 4 requiring a "
                                               r"storage size of 48 are out of bounds for "
                                               r"storage of size 24"):
            m.slice_inverse(x, m.empty(3, 4), 1, 1, 3)
        with pytest.raises(TypeError, match=r"slice_inverse\(\): argument 'src' \(position 2\) "
                                            r"must be Tensor, not int"):
            m.slice_inverse(x, 3)
        big = m.zeros(3, 4, requires_grad=True)
        r = m.slice_inverse(big[:, 1:3], m.ones(3, 4, requires_grad=True), 1, -3, 100)
        with pytest.raises(RuntimeError, match=r"expected src to have a size equal to the slice "
                                               r"of self. src size = \[3, 2\], slice size = "
                                               r"\[3, 3\]"):
            r.backward(m.ones(3, 4))


@pytest.mark.parametrize("f", [
    lambda m, x: m.transpose_copy(x, 0, 1), lambda m, x: m.view_copy(x, (6,)),
    lambda m, x: m.split_copy(x, 1)[0], lambda m, x: m.unbind_copy(x)[1],
    lambda m, x: m.as_strided_copy(x, (2,), (2,)), lambda m, x: m.expand_copy(x[:1], (3, 3)),
    lambda m, x: m.diagonal_copy(x), lambda m, x: m.squeeze_copy(x[:1], 0),
])
def test_forward_ad_tangents_are_copied_too(f):
    res = []
    for m in (torch, ember):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.arange(6.).reshape(2, 3), m.arange(10., 16.).reshape(2, 3))
            p, t = fw.unpack_dual(f(m, x))
            assert t.is_contiguous()
            shares = t.data_ptr() == fw.unpack_dual(x).tangent.data_ptr()
            res.append((p.numpy(), t.numpy(), shares))
    for a, b in zip(*res):
        np.testing.assert_array_equal(b, a)      # (and the tangent shares memory as torch's)


def test_forward_ad_detach_copy_refuses():
    for m in (torch, ember):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.ones(2), m.ones(2))
            with pytest.raises(NotImplementedError, match="Trying to use forward AD with "
                                                          "aten::detach_copy that does not "
                                                          "support it"):
                m.detach_copy(x)


def test_slice_inverse_forward_ad():
    res = []
    for m in (torch, ember):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.arange(6.).reshape(2, 3), m.arange(10., 16.).reshape(2, 3))
            for y in (m.slice_inverse(x[:, 1:], x, 1, 1), m.slice_inverse(x[1:], x[1:], 0)):
                p, t = fw.unpack_dual(y)
                res.append((t.tolist(), t.storage_offset(), t.stride(),
                            t.data_ptr() - fw.unpack_dual(x).tangent.data_ptr()))
    assert res[2:] == res[:2]
