"""torch.segment_reduce (ember/ops/segment.py) against torch: values for every reduction with
and without initial, lengths and offsets forms, axis > 0, gradients (ties, zeros for prod),
the node and its saved attributes, and torch's errors."""
import numpy as np
import pytest
import torch

import ember

D0 = [1., 3, 3, 4, 0, 6, 0, 0, 2]
L0 = [3, 0, 3, 3]


def _run(m, reduce, initial, form, dtype="float64"):
    d = m.tensor(np.array(D0, dtype=dtype), requires_grad=True)
    if form == "lengths":
        kw = dict(lengths=m.tensor(L0))
    elif form == "lengths32":
        kw = dict(lengths=m.tensor(L0, dtype=m.int32))
    else:
        kw = dict(offsets=m.tensor(np.concatenate([[0], np.cumsum(L0)])))
    return m.segment_reduce(d, reduce, initial=initial, **kw), d


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("initial", [None, 2.0, -1])
@pytest.mark.parametrize("form", ["lengths", "lengths32", "offsets"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_and_gradients(reduce, initial, form, dtype):
    yt, dt = _run(torch, reduce, initial, form, dtype)
    ye, de = _run(ember, reduce, initial, form, dtype)
    np.testing.assert_array_equal(ye.detach().numpy(), yt.detach().numpy())
    assert ye.grad_fn.name() == yt.grad_fn.name() == "SegmentReduceBackward0"
    assert len(ye.grad_fn.next_functions) == len(yt.grad_fn.next_functions) == 1
    for a in ("_saved_axis", "_saved_initial", "_saved_reduce"):
        assert getattr(ye.grad_fn, a) == getattr(yt.grad_fn, a)
    np.testing.assert_array_equal(ye.grad_fn._saved_result.numpy(),
                                  yt.grad_fn._saved_result.detach().numpy())
    assert (ye.grad_fn._saved_lengths is None) == (yt.grad_fn._saved_lengths is None)
    g = np.array([1., 2, 3, 4], dtype=dtype)
    yt.backward(torch.tensor(g))
    ye.backward(ember.tensor(g))
    np.testing.assert_array_equal(de.grad.numpy(), dt.grad.numpy())


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_axis_and_trailing_dims(reduce):
    a = np.random.RandomState(0).randn(2, 6, 3).round(1)
    a[0, 1] = a[0, 0]                       # ties for max/min
    lens = [[2, 4], [3, 3]]
    res = []
    for m in (torch, ember):
        x = m.tensor(a, requires_grad=True)
        y = m.segment_reduce(x, reduce, lengths=m.tensor(lens), axis=1)
        y.backward(m.tensor(np.arange(1., 13).reshape(2, 2, 3)))
        res.append((y.detach().numpy(), x.grad.numpy()))
        x0 = m.tensor(a[0], requires_grad=True)
        y0 = m.segment_reduce(x0, reduce, lengths=m.tensor([2, 0, 4]), axis=-2)
        y0.sum().backward()
        res[-1] += (y0.detach().numpy(), x0.grad.numpy())
    for t, e in zip(*res):
        np.testing.assert_allclose(e, t, rtol=1e-12)


def test_gradcheck_and_no_double_backward():
    L = ember.tensor([3, 3, 3])          # (an empty segment's mean is nan)
    d = ember.tensor([1., 2, 3, 4, 5, 6, 7, 8, 9], dtype=ember.float64, requires_grad=True)
    for r in ("sum", "mean", "prod"):
        assert ember.autograd.gradcheck(lambda d: ember.segment_reduce(d, r, lengths=L), (d,))
    for m in (torch, ember):
        d = m.tensor(D0, dtype=m.float64, requires_grad=True)
        y = m.segment_reduce(d, "sum", lengths=m.tensor(L0))
        (g,) = m.autograd.grad(y.sum(), d, create_graph=True)
        assert type(g.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::_segment_reduce_backward "
                                               "is not implemented"):
            g.sum().backward()


def test_unsafe_skips_the_checks():
    for m in (torch, ember):
        r = m.segment_reduce(m.arange(1., 7), "sum", lengths=m.tensor([2, 2]), unsafe=True)
        assert r.tolist() == [3.0, 7.0]


@pytest.mark.parametrize("f", [
    lambda m: m.segment_reduce(m.ones(6), "foo", lengths=m.tensor([6])),
    lambda m: m.segment_reduce(m.ones(6), "sum"),
    lambda m: m.segment_reduce(m.ones(6), "sum", indices=m.tensor([0, 0, 1, 1, 1, 1])),
    lambda m: m.segment_reduce(m.ones(6), "sum", lengths=m.tensor([2, 2])),
    lambda m: m.segment_reduce(m.ones(6), "sum", lengths=m.tensor([7, -1])),
    lambda m: m.segment_reduce(m.arange(6), "sum", lengths=m.tensor([6])),
    lambda m: m.segment_reduce(m.ones(6), "sum", lengths=m.tensor([6.0])),
    lambda m: m.segment_reduce(m.ones(6), "sum", offsets=m.tensor([0, 2, 6.0])),
    lambda m: m.segment_reduce(m.ones(2, 6), "sum", lengths=m.tensor([2, 4]), axis=1),
])
def test_errors_match_torch(f):
    out = []
    for m in (torch, ember):
        try:
            f(m)
            out.append(None)
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    assert out[1] == out[0] and out[0] is not None
