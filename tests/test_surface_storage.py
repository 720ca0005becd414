"""Issue 14: storages (untyped_storage/storage objects: data_ptr, nbytes, sharing between
views, element access, conversions, reprs), set_, resize_, resize_as_, storage_offset,
is_set_to, share_memory_, against torch."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error

LIBS = (torch, ember)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # TypedStorage's deprecation warning
        yield


def test_untyped_storage_shares_memory_between_views():
    for L in LIBS:
        x = L.arange(6.0).reshape(2, 3)
        s, v = x.untyped_storage(), x[1].untyped_storage()
        assert s.data_ptr() == x.data_ptr() == v.data_ptr()
        assert s.nbytes() == v.nbytes() == 24 and s.size() == len(s) == 24
        assert s.element_size() == 1 and s.device == L.device("cpu") and not s.is_cuda
        assert s.type() == "torch.storage.UntypedStorage"
        s[0] = 1                                # writes reach every view
        assert x[0, 0].item() == 1.4012984643248171e-45
    assert ember.arange(6.0).untyped_storage().tolist() == \
        torch.arange(6.0).untyped_storage().tolist()


def test_typed_storage():
    for L in LIBS:
        x = L.arange(3.0)
        ts = x.storage()
        ts[1] = 7.5
        assert x.tolist() == [0.0, 7.5, 2.0]
        assert ts.size() == len(ts) == 3 and ts.nbytes() == 12 and ts.element_size() == 4
        assert ts.data_ptr() == x.data_ptr() and ts.type() == "torch.FloatStorage"
        assert ts.tolist() == [0.0, 7.5, 2.0] and ts[2] == 2.0
        assert str(ts.dtype) == "torch.float32" and ts.untyped().data_ptr() == x.data_ptr()
        assert ts.double().tolist() == [0.0, 7.5, 2.0] and str(ts.long().dtype) == "torch.int64"
        assert ts.long().tolist() == [0, 7, 2]
        assert x[1:].storage().size() == 3           # the whole storage, from any view
        assert x.storage_type() is L.FloatStorage and isinstance(ts, L.FloatStorage)
        assert L.is_storage(ts) and L.is_storage(x.untyped_storage()) and not L.is_storage(1)
        c = ts.clone()
        c[0] = 9.0
        assert x[0].item() == 0.0
        assert L.FloatStorage([1, 2]).tolist() == [1.0, 2.0]
        assert L.FloatStorage(2).fill_(3).tolist() == [3.0, 3.0]
        assert ts.copy_(L.FloatStorage([9, 8, 7])).tolist() == [9.0, 8.0, 7.0]
        assert x.tolist() == [9.0, 8.0, 7.0]
        assert L.tensor(L.FloatStorage([1, 2])).tolist() == [1.0, 2.0]
        assert L.tensor([1.0, 2]).new(L.FloatStorage([3.0, 4])).tolist() == [3.0, 4.0]


def test_storage_reprs():
    for make in (lambda L: L.arange(3.0).storage(), lambda L: L.tensor([True, False]).storage(),
                 lambda L: L.tensor([1, 2]).untyped_storage(), lambda L: L.UntypedStorage(0),
                 lambda L: L.tensor([1 + 2j]).storage()):
        assert repr(make(ember)) == repr(make(torch))


def test_storage_offset_and_is_set_to():
    for L in LIBS:
        x = L.arange(6.0).reshape(2, 3)
        assert x.storage_offset() == 0 and x[1].storage_offset() == 3
        assert x[:, 1].storage_offset() == 1 and x[1, 1:].storage_offset() == 4
        assert x.is_set_to(x) and x.is_set_to(x[:]) and x.is_set_to(x.view(2, 3))
        assert not x.is_set_to(x.view(6)) and not x.is_set_to(x.t())
        assert not L.zeros(2).is_shared()
        assert x.share_memory_() is x and x.is_shared() and x[0].is_shared()


def test_set_():
    for L in LIBS:
        x = L.arange(6.0).reshape(2, 3)
        y = L.zeros(2)
        y.set_(x)
        y[0, 0] = 99.0
        assert x[0, 0].item() == 99.0 and y.is_set_to(x) and x.is_set_to(y)
        z = L.zeros(2).set_(x.untyped_storage(), 1, (2, 2), (1, 2))
        assert z.tolist() == [[1.0, 3.0], [2.0, 4.0]] and z.storage_offset() == 1
        assert L.zeros(2).set_(x.untyped_storage()).tolist() == [99.0, 1, 2, 3, 4, 5]
        assert L.zeros(2).set_(x.storage()).shape == (6,)
        assert L.zeros(2).set_().shape == (0,)
    for fn in (lambda L: L.zeros(2, dtype=L.int64).set_(L.zeros(3)),
               lambda L: L.zeros(2, requires_grad=True).set_(L.zeros(3)),
               lambda L: L.zeros(2).set_(L.zeros(6).untyped_storage(), 5, (2,), (1,))):
        check_error(fn)


def test_resize():
    check(lambda L: L.arange(6.0).resize_(2, 2), grad=False)
    check(lambda L: L.arange(6.0).resize_((2, 2)), grad=False)
    check(lambda L: L.arange(6.0).resize_(2, 2).resize_(2, 3), grad=False)
    check(lambda L: L.arange(4.0).resize_as_(L.zeros(2, 2)), grad=False)
    check(lambda L: L.arange(4.0).resize(2, 2), grad=False)
    check(lambda L: L.arange(4.0).resize_as(L.zeros(2, 2)), grad=False)
    check(lambda L: L.resize_as_(L.arange(4.0), L.zeros(2, 2)), grad=False)
    for L in LIBS:
        r = L.arange(6.0)
        r.resize_(3, 3)                 # grows: the old values first
        assert r.reshape(-1)[:6].tolist() == [0.0, 1, 2, 3, 4, 5]
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            warnings.simplefilter("always")
            L.arange(4.0).resize(2, 2)
    check_error(lambda L: L.zeros(2, requires_grad=True).resize_(3))


def test_as_strided_in_place_and_untyped_conversions():
    for L in LIBS:
        x = L.arange(9.0)
        x.as_strided_((2,), (2,), 1)
        assert x.tolist() == [1.0, 3.0]
        s = L.arange(2.0).untyped_storage()
        assert s.float().size() == 8 and s.float().tolist()[:4] == [0.0, 0.0, 0.0, 0.0]
        assert s[0:4].nbytes() == 4
    assert ember.UntypedStorage([1, 2, 300 % 256]).tolist() == [1, 2, 44]
    assert ember.UntypedStorage(4).nbytes() == 4
