"""Issue 14's layer ops that ember lacked: torch.conv_tbc (fairseq's temporal convolution),
F.grid_sample / F.affine_grid, the 3-d pools, torch.stft / istft: values, gradients
(float64 gradchecks too), grad_fn names and errors against torch."""
import numpy as np
import pytest
from oracle import check, check_error, gradcheck, gradgradcheck

import ember

RNG = np.random.default_rng(1414)


def R(*shape, lo=-2.0, hi=2.0, dtype=np.float64):
    return RNG.uniform(lo, hi, shape).astype(dtype)


# ---------------------------------------------------------------- conv_tbc

@pytest.mark.parametrize("t,k,pad", [(5, 3, 1), (5, 3, 0), (6, 2, 3), (5, 3, -1), (2, 3, 0),
                                     (7, 1, 2)])
def test_conv_tbc(t, k, pad):
    x, w, b = R(t, 2, 3), R(k, 3, 4), R(4)
    check(lambda L, x, w, b: L.conv_tbc(x, w, b, pad), x, w, b)
    check(lambda L, x, w, b: L.conv_tbc(x, w, b, pad), x.astype(np.float32),
          w.astype(np.float32), b.astype(np.float32), rtol=1e-5, atol=1e-5)
    if t + 2 * pad - k + 1 > 0:
        gradcheck(lambda x, w, b: ember.conv_tbc(x, w, b, pad), x, w, b)
        gradgradcheck(lambda x, w, b: ember.conv_tbc(x, w, b, pad), x, w, b)


def test_conv_tbc_saved_and_errors():
    x = ember.tensor(R(4, 2, 3), requires_grad=True)
    y = ember.conv_tbc(x, ember.tensor(R(3, 3, 4)), ember.tensor(R(4)), 1)
    assert y.grad_fn.name() == "ConvTbcBackward0" and y.grad_fn._saved_pad == 1
    assert y.grad_fn._saved_self is x
    check(lambda L, x, w, b: L.conv_tbc(x, w, b), R(4, 2, 3).astype(np.int64),
          R(3, 3, 4).astype(np.int64), R(4).astype(np.int64), grad=False)
    check(lambda L, x, w, b: L.conv_tbc(x, w, b), R(4, 2, 3), R(3, 3, 4), R(4, dtype=np.float32),
          grad_inputs=(0,))
    def z(L, *s):
        return L.zeros(*s, dtype=L.float64)
    check_error(lambda L: L.conv_tbc(z(L, 2, 3), z(L, 3, 3, 4), z(L, 4)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 3), z(L, 3, 4), z(L, 4)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 3), z(L, 3, 3, 4), z(L, 2)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 3), z(L, 3, 3, 4), z(L, 2, 2)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 2), z(L, 3, 3, 4), z(L, 4)))
    check_error(lambda L: L.conv_tbc(z(L, 1, 2, 3), z(L, 3, 3, 4), z(L, 4)))
    check_error(lambda L: L.conv_tbc(z(L, 4, 2, 3), L.zeros(3, 3, 4), z(L, 4)))
