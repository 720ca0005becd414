"""torch.sym_* run eagerly, and torch's small top-level utilities (ember/_sym.py), against
torch: results with their Python types, and torch's errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember

NAN = float("nan")


def _both(f):
    out = []
    for m in (torch, ember):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = f(m)
            out.append(("ok", type(r).__name__, repr(r)))
        except Exception as e:
            # (ember's Tensor class prints as <class 'ember.tensor.Tensor'>)
            out.append((type(e).__name__, str(e).replace("ember.tensor.Tensor", "torch.Tensor")))
    return out


CASES = [
    lambda m: m.sym_int(2.7), lambda m: m.sym_int(-2.7), lambda m: m.sym_int(True),
    lambda m: m.sym_int(m.tensor(2.5)), lambda m: m.sym_int("3"), lambda m: m.sym_int(math.inf),
    lambda m: m.sym_int(NAN), lambda m: m.sym_int(m.ones(2)),
    lambda m: m.sym_float(3), lambda m: m.sym_float(m.tensor(3)), lambda m: m.sym_float("x"),
    lambda m: m.sym_max(2, 3.5), lambda m: m.sym_max(2, 3), lambda m: m.sym_max(2, 2.0),
    lambda m: m.sym_max(2.0, 2), lambda m: m.sym_max(True, 0), lambda m: m.sym_max(NAN, 1),
    lambda m: m.sym_max(1, NAN), lambda m: m.sym_max(np.int64(2), 3),
    lambda m: m.sym_max(np.float32(2), 3), lambda m: m.sym_max("a", 1),
    lambda m: m.sym_max(m.tensor(1.0), 3),
    lambda m: m.sym_min(2, 3.5), lambda m: m.sym_min(1, 2.0), lambda m: m.sym_min(2.0, 2),
    lambda m: m.sym_min(m.tensor(1.0), 1), lambda m: m.sym_min(3, 1),
    lambda m: m.sym_not(True), lambda m: m.sym_not(0), lambda m: m.sym_not(2.0),
    lambda m: m.sym_not(None), lambda m: m.sym_not(m.tensor(True)),
    lambda m: m.sym_not(m.ones(2)),
    lambda m: m.sym_ite(True, 1, 2), lambda m: m.sym_ite(False, "a", "b"),
    lambda m: m.sym_ite(False, 1, 2.0), lambda m: m.sym_ite(1, 1, 2),
    lambda m: m.sym_ite(m.tensor(True), 1, 2),
    lambda m: m.sym_sqrt(4), lambda m: m.sym_sqrt(m.tensor(2.5)), lambda m: m.sym_sqrt(-1),
    lambda m: m.sym_sqrt("a"),
    lambda m: m.sym_sum([1, 2, 3]), lambda m: m.sym_sum([1, 2.5]), lambda m: m.sym_sum([]),
    lambda m: m.sym_sum(5), lambda m: m.sym_sum((1, 2)), lambda m: m.sym_sum(1, 2),
    lambda m: m.sym_sum(range(3)), lambda m: m.sym_sum([m.tensor(2.5), 1]),
    lambda m: m.sym_constrain_range(3, min=0, max=5), lambda m: m.sym_constrain_range(7, max=5),
    lambda m: m.sym_constrain_range(3, min=4), lambda m: m.sym_constrain_range(3.5, max=2),
    lambda m: m.sym_constrain_range(m.tensor(3), max=2), lambda m: m.sym_constrain_range(3),
    lambda m: m.sym_constrain_range_for_size(3), lambda m: m.sym_constrain_range_for_size(-1),
    lambda m: m.sym_constrain_range_for_size(3, min=4),
    lambda m: m.sym_constrain_range_for_size(3, max=2),
    lambda m: m.sym_constrain_range_for_size(-1, min=-5),
    lambda m: m.sym_fresh_size(5), lambda m: m.sym_fresh_size(m.tensor(3)),
    lambda m: m.compiled_with_cxx11_abi(), lambda m: m.thread_safe_generator(),
    lambda m: m.prepare_multiprocessing_environment("/nonexistent"),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_sym_functions_match_torch(i):
    t, e = _both(CASES[i])
    if t[0] == "ok" and t[1] == "Tensor":
        assert e[:2] == t[:2] and e[2].replace("ember", "torch") == t[2]
    else:
        assert e == t


def test_classproperty():
    for m in (torch, ember):
        class A:
            _x = 3

            @m.classproperty
            def x(cls):
                return cls._x * 2

        class B(A):
            _x = 5

        assert (A.x, A().x, B.x, B().x) == (6, 6, 10, 10)
        d = A.__dict__["x"]
        assert type(d).__name__ == "_ClassPropertyDescriptor"
        assert not hasattr(d, "__set__")
        a = A()
        a.x = 7             # a plain (non-data) descriptor: the instance may shadow it
        assert a.x == 7 and A.x == 6


def test_get_file_path():
    import os
    assert torch.get_file_path("a", "b") == os.path.join(
        os.path.dirname(os.path.dirname(torch.__file__)), "a", "b")
    assert ember.get_file_path("a", "b") == os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__))), "a", "b")
    assert ember.get_file_path() == os.path.dirname(os.path.dirname(
        os.path.abspath(ember.__file__)))


def test_lazy_names_are_the_modules_all():
    import ember._sym as S
    assert {n for n, mod in ember._LAZY_NAMES.items() if mod == "_sym"} == set(S.__all__)
    for n in S.__all__:
        assert hasattr(torch, n) and n in dir(ember)


@pytest.mark.parametrize("arg", [3, (3, 4), [1, 2], "ab", (3, 4, 5), [1], 3.5, True])
def test_assert_int_or_pair(arg):
    t, e = _both(lambda m: m.nn.functional.assert_int_or_pair(arg, "kernel_size", "bad {}"))
    assert e == t


def test_disable_torch_function_blocks():
    for m in (torch, ember):
        for cls in (m.DisableTorchFunction, m.DisableTorchFunctionSubclass):
            d = cls()
            with d as r:
                with d:
                    assert r is None
                    assert m.ones(2).add(1).tolist() == [2.0, 2.0]
            assert d.__exit__(None, None, None) is None
        assert not issubclass(m.DisableTorchFunctionSubclass, m.DisableTorchFunction)


def test_storage_names():
    for m in (torch, ember):
        assert m.Storage is m.FloatStorage
        assert isinstance(m.UntypedStorage(2), m.StorageBase)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = m.Storage(3)
            assert not isinstance(s, m.StorageBase)
            assert s.size() == 3 and s.dtype == m.float32
        with pytest.raises(RuntimeError, match="Cannot directly construct StorageBase; subclass "
                                               "it and then construct that"):
            m.StorageBase(3)

        class Sub(m.StorageBase):
            pass
        assert isinstance(Sub(), m.StorageBase)


def test_cudnn_is_acceptable():
    for case in (lambda m: m.cudnn_is_acceptable(m.ones(2)),
                 lambda m: m.cudnn_is_acceptable(3)):
        t, e = _both(case)
        assert e == t


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batch_norm_update_stats(shape, dtype):
    a = np.random.RandomState(2).randn(*shape).astype(dtype)
    res = []
    for m in (torch, ember):
        rm, rv = m.zeros(3, dtype=getattr(m, dtype)), m.ones(3, dtype=getattr(m, dtype))
        mean, var = m.batch_norm_update_stats(m.tensor(a), rm, rv, 0.1)
        mean2, var2 = m.batch_norm_update_stats(m.tensor(a), None, None, 0.3)
        res.append([v.numpy() for v in (mean, var, rm, rv, mean2, var2)] + [str(mean.dtype)])
    for t, e in zip(*res):
        if isinstance(t, str):
            assert e.replace("ember", "torch") == t
        else:
            np.testing.assert_allclose(e, t, rtol=1e-6 if dtype == "float32" else 1e-13)


def test_batch_norm_update_stats_grad_and_errors():
    for m in (torch, ember):
        x = m.randn(4, 3, requires_grad=True)
        mean, var = m.batch_norm_update_stats(x, None, None, 0.1)
        assert type(mean.grad_fn).__name__ == "NotImplemented" and var.requires_grad
        with pytest.raises(RuntimeError, match="derivative for aten::batch_norm_update_stats is "
                                               "not implemented"):
            mean.sum().backward()
    for case in (lambda m: m.batch_norm_update_stats(m.ones(2, 2, dtype=m.int64), None, None,
                                                     0.1),
                 lambda m: m.batch_norm_update_stats(m.ones(2), None, None, 0.1)):
        t, e = _both(case)
        assert e == t
