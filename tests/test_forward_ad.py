"""Forward-mode AD (issue 12, point 3): every op's jvp rule against torch's forward-mode result
and against the Jacobian column ember's reverse mode gives, float64; the forward_ad API and
its errors; views, in-place ops, no_grad, custom Functions."""
import zlib

import numpy as np
import pytest
import torch

import ember
from fwd_check import check_jvp
from oracle import check_error
import test_pointwise as P


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
