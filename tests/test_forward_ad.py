"""Forward-mode AD (issue 12, point 3): every op's jvp rule against torch's forward-mode result
and against the Jacobian column ember's reverse mode gives, float64; the forward_ad API and
its errors; views, in-place ops, no_grad, custom Functions."""
import warnings
import zlib

import numpy as np
import pytest
import torch

import ember
from fwd_check import check_jvp
from oracle import check_error
import test_pointwise as P
import test_reduce as R
import test_shape as SH
import test_index as IX


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


NONFINITE = {"nan_to_num_nonfinite"}  # infinite partials: reverse-mode rows hold 0 * inf


@pytest.mark.parametrize("name", sorted(P.UNARY))
def test_unary(name):
    fn, dom, _ = P.UNARY[name]
    rng = _rng(name)
    check_jvp(fn, P._dom(dom, (3, 4), rng), reverse=name not in NONFINITE)
    check_jvp(fn, P._dom(dom, (), rng), reverse=name not in NONFINITE)


@pytest.mark.parametrize("name", sorted(P.BINARY))
def test_binary(name):
    fn, doms, _ = P.BINARY[name]
    rng = _rng(name)
    xs = [P._dom(d, (3, 4), rng) for d in doms]
    check_jvp(fn, *xs)
    for i in range(len(xs)):
        check_jvp(fn, *xs, which={i})
    if len(xs) == 2:     # broadcasting
        check_jvp(fn, P._dom(doms[0], (2, 1, 4), rng), P._dom(doms[1], (3, 1), rng))


# Deviations from torch's forward formulas, checked against ember's reverse-mode J t only:
# logcumsumexp: torch rescales by the row's max, so its tangent underflows to 0 where the
# values span more than ~700 (x * 1000) and is NaN along a whole row holding a NaN; ember's
# log-space sum is exact there. cumprod: a row holding both a zero and a NaN gets NaN at every
# position in torch, ember's tangent is NaN only where the NaN reaches.
TORCH_DEVIATES = {"logcumsumexp_big", "logcumsumexp_inf", "nan_cumprod"}


@pytest.mark.parametrize("case", R.CASES, ids=R.CASE_IDS)
def test_reductions(case):
    name, fn, inputs, _, _ = case
    if name.startswith("c_"):
        inputs = [a.astype(np.complex128) for a in inputs]
    check_jvp(fn, *inputs, reverse=not name.startswith("c_"),
              torch_side=name not in TORCH_DEVIATES)


@pytest.mark.parametrize("name,i", SH.CASES, ids=[f"{n}-{i}" for n, i in SH.CASES])
def test_shape_ops(name, i):
    fn, inputs, _ = SH.OPS[name]
    tol = {"rtol": 1e-6, "atol": 1e-7} if name == "cat_mixed_dtype" else {}   # a float32 part
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_jvp(fn, *inputs[i], **tol)


@pytest.mark.parametrize("k", range(len(IX.GETITEM)))
def test_getitem(k):
    shape, fn = IX.GETITEM[k]
    check_jvp(fn, IX.arr(shape, seed=k))


# No reverse-mode comparison: torch gives scatter_reduce(prod) no tangent (ember neither), and
# a put without accumulate at repeated indices passes the gradient to every duplicate (torch's
# backward), so reverse mode's J is not the derivative there.
NO_REVERSE = {"scatter_reduce_prod", "scatter_reduce_prod_ni", "index_put", "index_put_", "put",
              "put_"}


@pytest.mark.parametrize("name", list(IX.OPS))
def test_index_ops(name):
    fn, ins = IX.OPS[name]
    check_jvp(fn, *ins, reverse=name not in NO_REVERSE)
    if len(ins) > 1:
        check_jvp(fn, *ins, which={1}, reverse=name not in NO_REVERSE)


@pytest.mark.parametrize("k", range(len(IX.SET_INDEX)))
@pytest.mark.parametrize("j", [0, 2, 4])
def test_setitem(k, j):
    def fn(L, x, v, r):
        idx = IX._set_index(L, k, x)
        y = x * 1
        shape = y.detach()[idx].shape
        reg = r.reshape(-1)[:int(np.prod(shape))].reshape(shape) * 1
        y[idx] = IX.SET_VALUE[j](L, v, reg)
        return y
    check_jvp(fn, IX.arr((3, 4, 5)), np.array(2.0), IX.arr(60, seed=1))
