"""Issue 14, argument forms: dtype given as a Python type (float, int, bool, complex) wherever
torch takes a dtype, and the size= keyword of the random factories; against torch."""
import pytest
import torch

import ember

DTYPE_CASES = {
    "to(float)": lambda L: L.ones(2).to(float),
    "to(int)": lambda L: L.ones(2).to(int),
    "to(bool)": lambda L: L.ones(2).to(bool),
    "to(dtype=int)": lambda L: L.ones(2).to(dtype=int),
    "sum": lambda L: L.ones(2).sum(dtype=float),
    "mean": lambda L: L.ones(2).mean(dtype=float),
    "nanmean": lambda L: L.ones(2).nanmean(dtype=float),
    "prod": lambda L: L.ones(2).prod(dtype=int),
    "cumsum": lambda L: L.ones(2).cumsum(0, dtype=float),
    "softmax": lambda L: L.ones(2).softmax(0, dtype=float),
    "vector_norm": lambda L: L.linalg.vector_norm(L.ones(2), dtype=float),
    "randn": lambda L: L.randn(2, dtype=float),
    "rand": lambda L: L.rand(2, dtype=float),
    "randint": lambda L: L.randint(3, (2,), dtype=float),
    "randperm": lambda L: L.randperm(3, dtype=float),
    "rand_like": lambda L: L.rand_like(L.ones(2), dtype=float),
    "zeros": lambda L: L.zeros(2, dtype=float),
    "ones": lambda L: L.ones(2, dtype=int),
    "tensor": lambda L: L.tensor([1, 0], dtype=bool),
    "complex": lambda L: L.zeros(2, dtype=complex),
    "arange": lambda L: L.arange(3, dtype=float),
    "full": lambda L: L.full((2,), 1.5, dtype=int),
}


@pytest.mark.parametrize("case", list(DTYPE_CASES))
def test_dtype_as_python_type(case):
    outs = []
    for L in (torch, ember):
        L.manual_seed(0)
        r = DTYPE_CASES[case](L)
        outs.append((str(r.dtype), tuple(r.shape), r.tolist()))
    assert outs[0] == outs[1]


SIZE_CASES = {
    "rand": lambda L: L.rand(size=(2, 3)),
    "randn": lambda L: L.randn(size=(3,)),
    "randn 0-d": lambda L: L.randn(size=(), requires_grad=True),
    "rand generator": lambda L: L.rand(size=[2], generator=L.Generator().manual_seed(5)),
    "randint": lambda L: L.randint(5, size=(2,)),
    "zeros": lambda L: L.zeros(size=(2, 1)),
    "ones": lambda L: L.ones(size=[2]),
    "full": lambda L: L.full(size=(2,), fill_value=3.0),
    "normal": lambda L: L.normal(0.0, 1.0, size=(2,)),
    "new_full": lambda L: L.ones(2).new_full(size=(3,), fill_value=2.0),
}


@pytest.mark.parametrize("case", list(SIZE_CASES))
def test_size_keyword(case):
    outs = []
    for L in (torch, ember):
        L.manual_seed(0)
        r = SIZE_CASES[case](L)
        outs.append((str(r.dtype), tuple(r.shape), r.tolist(), r.requires_grad))
    assert outs[0] == outs[1]
