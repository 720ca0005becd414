"""Issue 14, devices and legacy names: torch.device, torch.cuda/backends/accelerator as a
CPU-only torch has them, process settings, the legacy typed constructors, Tensor.type/new,
torch.Tensor(...), autograd.Variable, finfo/iinfo, layouts. Each against torch."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error

LIBS = (torch, ember)


@pytest.fixture(autouse=True)
def _restore_settings():
    """Every test leaves the default dtype, device and flags of both libraries as it found
    them."""
    yield
    for L in LIBS:
        L.set_default_dtype(L.float32)
        L.set_deterministic_debug_mode(0)
        L.set_float32_matmul_precision("highest")
        L.set_warn_always(False)
    ember.set_default_device(None)


# ---------------------------------------------------------------- torch.device

@pytest.mark.parametrize("args", [("cpu",), ("cuda",), ("cuda:1",), ("mps",), ("cuda", 1),
                                  ("meta",), ("cpu:0",), ("xla", 3), ("cpu", 0)])
def test_device_construction_repr_str_and_hash(args):
    t, e = torch.device(*args), ember.device(*args)
    assert repr(t) == repr(e) and str(t) == str(e)
    assert (t.type, t.index) == (e.type, e.index)
    assert ember.device(e) == e and hash(ember.device(*args)) == hash(e)


def test_device_equality_as_torch():
    for L in LIBS:
        assert L.device("cuda") != L.device("cuda:0")
        assert L.device("cpu") != "cpu"          # torch: a device never equals a string
        assert L.device("cuda", 1) == L.device("cuda:1")


@pytest.mark.parametrize("args", [("xyz",), ("cuda:x",), ("cuda:-1",), ("CUDA",), (" cuda",),
                                  ("cuda:01",), ("",), (":1",), ("cpu0",), ("cuda:",),
                                  ("cuda:1:2",), ("cpu", -1), ("cuda:1", 2), (0,), (1.5,),
                                  (None,), ("cuda", 1.5), ("cuda", True)])
def test_device_errors(args):
    check_error(lambda L: L.device(*args))


@pytest.mark.parametrize("fn", [
    lambda L: L.zeros(2, device="cuda"), lambda L: L.ones(2, device="cuda:1"),
    lambda L: L.tensor([1.0], device="cuda"), lambda L: L.arange(3, device="cuda"),
    lambda L: L.zeros(2).to("cuda"), lambda L: L.zeros(2).to("cuda", L.float64),
    lambda L: L.zeros(2).to(device="cuda"), lambda L: L.zeros(2).cuda(),
    lambda L: L.zeros(2).cuda(device="cuda:1"), lambda L: L.zeros(2).cuda("cpu"),
    lambda L: L.zeros(2).cuda(0), lambda L: L.zeros(2).to(0), lambda L: L.zeros(2, device=0),
    lambda L: L.zeros(2).to("mps"), lambda L: L.tensor([1.0], device="mps"),
    lambda L: L.zeros(2, device="xpu"), lambda L: L.zeros(2).xpu(), lambda L: L.zeros(2).ipu(),
    lambda L: L.zeros(2).pin_memory(), lambda L: L.zeros(2, device="xyz"),
    lambda L: L.full((2,), 1.0, device="cuda"), lambda L: L.eye(2, device="cuda"),
    lambda L: L.zeros(2).new_zeros(3, device="cuda"),
])
def test_cuda_and_other_devices_raise_what_a_cpu_only_torch_raises(fn):
    check_error(fn)


def test_factory_on_mps_raises_torchs_type_and_message_start():
    errs = []
    for L in LIBS:
        with pytest.raises(NotImplementedError) as info:
            L.zeros(2, device="mps")
        errs.append(str(info.value))
    assert errs[0].startswith(errs[1])


def test_cpu_devices_are_accepted_everywhere():
    for d in ("cpu", "cpu:0", ember.device("cpu"), ember.device("cpu", 0)):
        assert ember.zeros(2, device=d).device == ember.device("cpu")
        assert ember.tensor([1.0], device=d).to(d).cpu().tolist() == [1.0]
    assert ember.zeros(2).get_device() == torch.zeros(2).get_device() == -1


# ---------------------------------------------------------------- cuda, backends, accelerator

def test_cuda_namespace_as_a_cpu_only_torch():
    for L in LIBS:
        c = L.cuda
        assert c.is_available() is False and c.device_count() == 0
        assert c.is_initialized() is False and c.is_bf16_supported() is False
        assert c.manual_seed(3) is None and c.manual_seed_all(3) is None
        assert c.seed() is None and c.seed_all() is None and c.empty_cache() is None
        assert c.memory_allocated() == 0 and c.max_memory_allocated() == 0
        assert c.memory_reserved() == 0 and c.get_arch_list() == []
        assert c.get_rng_state_all() == [] and dict(c.memory_stats()) == {}
        assert not isinstance(L.zeros(1), c.FloatTensor)
        with c.device(-1):
            pass
        assert c.device_of(L.zeros(1)).idx == -1 and c.device("cuda:1").idx == 1
        assert issubclass(c.OutOfMemoryError, RuntimeError) and L.OutOfMemoryError is \
            c.OutOfMemoryError
    for name in ("current_device", "synchronize", "get_device_name", "get_device_capability",
                 "init", "mem_get_info", "initial_seed", "get_rng_state", "current_stream",
                 "default_stream", "ipc_collect"):
        check_error(lambda L: getattr(L.cuda, name)())
    check_error(lambda L: L.cuda.get_device_properties(0))
    check_error(lambda L: L.cuda.device(0).__enter__())
    check_error(lambda L: L.cuda.device("cpu"))
    check_error(lambda L: L.cuda.Stream())
    check_error(lambda L: L.cuda.Event())
    check_error(lambda L: L.cuda.FloatTensor([1.0]))
    check_error(lambda L: L.cuda.manual_seed("a"))
    for L in LIBS:
        with pytest.warns(FutureWarning, match="memory_reserved"):
            assert L.cuda.memory_cached() == 0


def test_backends_flags_are_settable_and_read_back():
    for L in LIBS:
        b = L.backends
        assert b.cudnn.is_available() is False and b.cudnn.version() is None
        assert b.mps.is_available() is False and b.mps.is_built() is False
        assert b.cuda.is_built() is False and b.cuda.matmul.allow_tf32 is False
        assert b.opt_einsum.is_available() is False
        old = (b.cudnn.deterministic, b.cudnn.benchmark, b.cudnn.enabled)
        assert old == (False, False, True)
        b.cudnn.deterministic, b.cudnn.benchmark, b.cudnn.enabled = True, True, False
        assert (b.cudnn.deterministic, b.cudnn.benchmark, b.cudnn.enabled) == (True, True, False)
        b.cudnn.deterministic, b.cudnn.benchmark, b.cudnn.enabled = old
        with b.cudnn.flags(enabled=False, deterministic=True):
            assert b.cudnn.enabled is False and b.cudnn.deterministic is True
        assert b.cudnn.enabled is True and b.cudnn.deterministic is False
        b.cuda.matmul.allow_tf32 = True
        assert b.cuda.matmul.allow_tf32 is True
        b.cuda.matmul.allow_tf32 = False
    check_error(lambda L: setattr(L.backends.cuda.matmul, "foo", 1))
    import ember.backends.cudnn as cudnn
    assert cudnn is ember.backends.cudnn


def test_accelerator():
    for L in LIBS:
        assert L.accelerator.is_available() is False
        assert L.accelerator.device_count() == 0
        assert L.accelerator.current_accelerator() is None
    check_error(lambda L: L.accelerator.current_device_index())
    check_error(lambda L: L.accelerator.synchronize())


# ---------------------------------------------------------------- process settings

def test_default_device():
    try:
        _default_device()
    finally:
        torch.set_default_device(None)      # (torch's first call costs seconds: only here)


def _default_device():
    for L in LIBS:
        assert L.get_default_device() == L.device("cpu")
        L.set_default_device("cpu")
        assert L.zeros(1).device == L.device("cpu")
        L.set_default_device("cuda")
    check_error(lambda L: L.get_default_device())
    check_error(lambda L: L.zeros(1))
    check_error(lambda L: L.ones(2))
    check_error(lambda L: L.tensor([1.0]))
    for L in LIBS:
        L.set_default_device(None)
        assert L.zeros(1).device == L.device("cpu")
    check_error(lambda L: L.set_default_device("xyz"))
    check_error(lambda L: L.set_default_device(0))


def test_num_threads_reach_numpys_blas():
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
        blas = ember.runtime._blas()
        if blas is not None:            # the BLAS NumPy loaded reports the same count
            assert blas[1]() == 1
    finally:
        ember.set_num_threads(before)
    assert ember.get_num_threads() == before
    for bad in (0, -1, 1.5, True):
        check_error(lambda L: L.set_num_threads(bad))
    assert ember.get_num_interop_threads() >= 1


def test_deterministic_flags():
    # (torch's use_deterministic_algorithms costs seconds on its first call; its debug-mode
    # setter sets the same two flags and is compared instead)
    e = ember
    assert e.are_deterministic_algorithms_enabled() is False
    e.use_deterministic_algorithms(True)
    assert e.are_deterministic_algorithms_enabled() is True and \
        e.get_deterministic_debug_mode() == 2
    e.use_deterministic_algorithms(True, warn_only=True)
    assert e.is_deterministic_algorithms_warn_only_enabled() is True and \
        e.get_deterministic_debug_mode() == 1
    e.use_deterministic_algorithms(False)
    assert e.get_deterministic_debug_mode() == 0
    for mode in ("warn", "error", "default", 1, 2, 0):
        for L in LIBS:
            L.set_deterministic_debug_mode(mode)
        assert e.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
        assert e.are_deterministic_algorithms_enabled() == \
            torch.are_deterministic_algorithms_enabled()
        assert e.is_deterministic_algorithms_warn_only_enabled() == \
            torch.is_deterministic_algorithms_warn_only_enabled()
    for bad in ("x", 5, None, 1.0):
        check_error(lambda L: L.set_deterministic_debug_mode(bad))
    # torch's messages, recorded
    with pytest.raises(TypeError, match=r"^_set_deterministic_algorithms\(\): argument 'mode' "
                                        r"\(position 1\) must be bool, not int$"):
        e.use_deterministic_algorithms(1)
    with pytest.raises(TypeError, match=r"^_set_deterministic_algorithms\(\): argument "
                                        r"'warn_only' must be bool, not int$"):
        e.use_deterministic_algorithms(True, warn_only=1)


def test_matmul_precision_warn_always_flush_denormal():
    for L in LIBS:
        assert L.get_float32_matmul_precision() == "highest"
        L.set_float32_matmul_precision("high")
        assert L.get_float32_matmul_precision() == "high"
        with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
            L.set_float32_matmul_precision("bad")
        assert L.get_float32_matmul_precision() == "high"
        assert L.is_warn_always_enabled() is False
        L.set_warn_always(True)
        assert L.is_warn_always_enabled() is True
    check_error(lambda L: L.set_float32_matmul_precision(1))
    check_error(lambda L: L.set_warn_always(1))
    check_error(lambda L: L.set_flush_denormal(1))
    # ember cannot set the FPU's flush-to-zero mode: it says so (torch on x86 returns True)
    assert ember.set_flush_denormal(True) is False


# ---------------------------------------------------------------- legacy tensor types

LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
          "CharTensor", "ByteTensor", "BoolTensor"]


def _same(t, e):
    assert str(t.dtype) == str(e.dtype) and tuple(t.shape) == tuple(e.shape)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_constructors(name):
    T, E = getattr(torch, name), getattr(ember, name)
    for args in ([[1, 0, 2]], [(2, 3)], [[[1, 2], [3, 4]]], [[]], [()]):
        _same(T(*args), E(*args))
    assert tuple(E(2, 3).shape) == (2, 3) and tuple(E(ember.Size([4])).shape) == (4,)
    assert E().shape == (0,) and tuple(E(size=(2,)).shape) == (2,)
    assert repr(E) == repr(T) and E.__name__ == name and E.dtype.__repr__() == repr(T.dtype)
    e = E([1, 0])
    assert isinstance(e, E) and isinstance(e, ember.Tensor) and type(e) is ember.Tensor
    assert e.type() == f"torch.{name}"
    others = [n for n in LEGACY if n != name]
    assert not any(isinstance(e, getattr(ember, n)) for n in others)
    assert not issubclass(E, ember.Tensor)


@pytest.mark.parametrize("fn", [
    lambda L: L.FloatTensor(3.5), lambda L: L.FloatTensor("a"), lambda L: L.FloatTensor(None),
    lambda L: L.FloatTensor([1], dtype=L.float64), lambda L: L.FloatTensor(-1),
    lambda L: L.FloatTensor([1], device="cuda"), lambda L: L.FloatTensor(2, [3]),
    lambda L: L.FloatTensor([1, 2], 3), lambda L: L.FloatTensor(L.zeros(2, dtype=L.int64)),
    lambda L: L.FloatTensor([[1, 2], [3]]), lambda L: L.FloatTensor(2, 3.0),
    lambda L: L.FloatTensor(size=3), lambda L: L.Tensor([1j]), lambda L: L.Tensor(2.0, 3),
    lambda L: L.Tensor(2, 3, dtype=L.float64), lambda L: L.Tensor(2, device="cuda"),
    lambda L: L.zeros(2).new([1], requires_grad=True), lambda L: L.zeros(2).new(3.5),
    lambda L: L.zeros(2).new(L.zeros(3, dtype=L.int64)), lambda L: L.cuda.BoolTensor([1]),
])
def test_legacy_constructor_errors(fn):
    check_error(fn)


def test_torch_tensor_and_new():
    for args in ([[1, 2]], [2, 3], [(2, 3)], [[True]], [[[1], [2]]], [0, 3]):
        data = len(args) == 1 and isinstance(args[0], (list, tuple))
        # sizes: torch's memory is uninitialised, ember's zeroed
        _same(torch.Tensor(*args) if data else torch.Tensor(*args).zero_(), ember.Tensor(*args))
    assert ember.Tensor().shape == (0,) and ember.Tensor(ember.Size([])).shape == ()
    # torch.Tensor(t) aliases t, whatever its dtype (AliasBackward0 when t requires grad)
    i = ember.zeros(2, dtype=ember.int64)
    assert ember.Tensor(i).dtype is ember.int64 and ember.Tensor(i).data_ptr() == i.data_ptr()
    x = ember.zeros(2, requires_grad=True)
    y = ember.Tensor(x)
    assert y.grad_fn.name() == type(torch.Tensor(torch.zeros(2, requires_grad=True))
                                    .grad_fn).__name__ and y._base is x
    z = ember.zeros(2, dtype=ember.int32)
    _same(torch.zeros(2, dtype=torch.int32).new([2.7]), z.new([2.7]))
    _same(torch.zeros(2).new([1, 2]), ember.zeros(2).new([1, 2]))
    assert ember.zeros(2).new(2, 3).shape == (2, 3) and ember.zeros(2).new().shape == (0,)
    w = ember.arange(3.0)
    assert w.new(w).data_ptr() == w.data_ptr()


def test_tensor_type():
    for L in LIBS:
        x = L.zeros(2)
        assert x.type() == "torch.FloatTensor"
        assert L.zeros(1, dtype=L.complex64).type() == "torch.ComplexFloatTensor"
        assert L.zeros(1, dtype=L.bool).type() == "torch.BoolTensor"
        assert str(x.type(L.DoubleTensor).dtype) == "torch.float64"
        assert str(x.type("torch.IntTensor").dtype) == "torch.int32"
        assert str(x.type(L.int16).dtype) == "torch.int16"
    for bad in ("torch.FloatTensorX", "float", "torch.cuda.FloatTensor"):
        check_error(lambda L: L.zeros(2).type(bad))
    assert ember.typename(ember.zeros(1)) == "torch.FloatTensor"
    assert ember.typename(ember.zeros(1, dtype=ember.int8)) == torch.typename(
        torch.zeros(1, dtype=torch.int8))
    for obj in (1, "a", [1]):
        assert ember.typename(obj) == torch.typename(obj)


def test_set_default_tensor_type():
    ember.legacy._WARNED.clear()
    with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
        ember.set_default_tensor_type(ember.DoubleTensor)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # once per process, as torch warns
        ember.set_default_tensor_type(ember.DoubleTensor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.set_default_tensor_type(torch.DoubleTensor)
    for L in LIBS:
        assert L.zeros(1).dtype is L.float64 and L.Tensor([1]).dtype is L.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            L.set_default_tensor_type("torch.FloatTensor")
        assert L.get_default_dtype() is L.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for bad in (torch.LongTensor, "torch.cuda.FloatTensor", torch.float64):
            check_error(lambda L: L.set_default_tensor_type(
                getattr(L, bad.__name__) if isinstance(bad, type) else
                (L.float64 if not isinstance(bad, str) else bad)))


def test_autograd_variable():
    from ember.autograd import Variable
    x = ember.tensor([1.0, 2.0])
    v = Variable(x)
    assert v is not x and v.data_ptr() == x.data_ptr() and v.requires_grad is False
    assert Variable(x, requires_grad=True).requires_grad and isinstance(x, Variable)
    y = ember.ones(2, requires_grad=True) * 2
    assert Variable(y).grad_fn is None and Variable(y).requires_grad is False
    assert Variable().shape == (0,)
    for L in LIBS:
        with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
            L.autograd.Variable(L.zeros(1), volatile=True)
    check_error(lambda L: L.autograd.Variable(3))
    check_error(lambda L: L.autograd.Variable([1, 2]))
    check_error(lambda L: L.autograd.Variable(L.tensor([1, 2]), requires_grad=True))


# ---------------------------------------------------------------- finfo, iinfo, layouts

@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "complex64", "complex128"])
def test_finfo(dt):
    t, e = torch.finfo(getattr(torch, dt)), ember.finfo(getattr(ember, dt))
    assert repr(t) == repr(e)
    for a in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(t, a) == getattr(e, a), a


@pytest.mark.parametrize("dt", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo(dt):
    t, e = torch.iinfo(getattr(torch, dt)), ember.iinfo(getattr(ember, dt))
    assert repr(t) == repr(e)
    assert (t.bits, t.max, t.min, t.dtype) == (e.bits, e.max, e.min, e.dtype)


def test_type_info_errors_and_defaults():
    assert repr(ember.finfo()) == repr(torch.finfo())
    for fn in (lambda L: L.finfo(L.int32), lambda L: L.iinfo(L.float32),
               lambda L: L.iinfo(L.bool), lambda L: L.finfo("float32")):
        check_error(fn)


def test_layouts_memory_formats_and_constants():
    for name in ("strided", "sparse_coo", "sparse_csr", "contiguous_format", "channels_last",
                 "preserve_format", "channels_last_3d"):
        assert repr(getattr(ember, name)) == repr(getattr(torch, name))
    assert ember.zeros(1).layout is ember.strided
    check_error(lambda L: L.layout())
    for shape, perm in (((2, 3, 4, 5), (0, 2, 3, 1)), ((2, 3), (0, 1)), ((1, 3, 1, 2), None)):
        for L in LIBS:
            x = L.zeros(*shape)
            if perm:
                x = x.permute(*perm).contiguous().permute(*np.argsort(perm))
            got = x.is_contiguous(memory_format=L.channels_last)
            if L is torch:
                want = got
            else:
                assert got == want, shape
    for name in ("pi", "e", "inf"):
        assert getattr(ember, name) == getattr(torch, name)
    assert np.isnan(ember.nan) and ember.newaxis is None


def test_tensor_predicates():
    x, y = torch.arange(6.0).reshape(2, 3), ember.arange(6.0).reshape(2, 3)
    for name in ("is_cpu", "is_meta", "is_mps", "is_xpu", "is_sparse", "is_quantized",
                 "is_mkldnn", "is_nested", "is_vulkan", "is_sparse_csr", "itemsize", "nbytes"):
        assert getattr(x, name) == getattr(y, name), name
    for name in ("is_conj", "is_neg", "is_pinned", "is_distributed", "dense_dim", "sparse_dim",
                 "get_device"):
        assert getattr(x, name)() == getattr(y, name)(), name
    assert x[1].nbytes == y[1].nbytes and x.t().dim_order() == y.t().dim_order()
    assert ember.zeros(2, 3, 4).permute(2, 0, 1).dim_order() == \
        torch.zeros(2, 3, 4).permute(2, 0, 1).dim_order()
    assert y.to_dense() is y and y.const_data_ptr() == y.data_ptr() and y.name is None
    for L, t in ((torch, x), (ember, y)):
        with pytest.warns(UserWarning, match="volatile was removed"):
            assert t.volatile is False
        assert L.is_nonzero(L.tensor([1.0])) and not L.tensor(0).is_nonzero()
        assert L.is_same_size(t, t) and not t.is_same_size(t.t())
        assert L.is_signed(t) and not L.is_signed(L.zeros(1, dtype=L.uint8))
        assert L.is_conj(t) is False and L.is_neg(t) is False
    for fn in (lambda L: L.tensor([]).is_nonzero(), lambda L: L.tensor([1, 2]).is_nonzero(),
               lambda L: L.zeros(1).record_stream(1), lambda L: L.zeros(1).reinforce(1)):
        check_error(fn)
