"""Lazy modules (LazyLinear, LazyConv*/LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*),
LazyModuleMixin and UninitializedParameter/UninitializedBuffer against torch: reprs before and
after the first call, the shapes inferred, cls_to_become, seeded initial values, outputs and
gradients, state_dict/load_state_dict, conversions, and the errors for using an uninitialized
tensor."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember
from oracle import check_error

R = np.random.default_rng(14)


def both(fn):
    """fn(lib) for torch and ember."""
    return fn(torch), fn(ember)


def arr(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else t.detach()._data


# name -> (constructor(lib), input shape)
LAZY = {
    "LazyLinear": (lambda nn: nn.LazyLinear(3), (2, 5)),
    "LazyLinear_nobias": (lambda nn: nn.LazyLinear(4, bias=False), (2, 3, 6)),
    "LazyConv1d": (lambda nn: nn.LazyConv1d(4, 3), (2, 3, 7)),
    "LazyConv1d_unbatched": (lambda nn: nn.LazyConv1d(4, 3), (3, 7)),
    "LazyConv2d": (lambda nn: nn.LazyConv2d(4, 3, stride=2, padding=1, bias=False), (2, 2, 6, 5)),
    "LazyConv2d_groups": (lambda nn: nn.LazyConv2d(4, 2, groups=2), (1, 6, 4, 4)),
    "LazyConv3d": (lambda nn: nn.LazyConv3d(2, 2), (1, 3, 4, 4, 3)),
    "LazyConvTranspose1d": (lambda nn: nn.LazyConvTranspose1d(4, 3, groups=2), (1, 6, 5)),
    "LazyConvTranspose2d": (lambda nn: nn.LazyConvTranspose2d(3, 3, stride=2), (2, 2, 3, 4)),
    "LazyConvTranspose3d": (lambda nn: nn.LazyConvTranspose3d(2, 2), (1, 3, 3, 3, 2)),
    "LazyBatchNorm1d": (lambda nn: nn.LazyBatchNorm1d(), (4, 3)),
    "LazyBatchNorm2d": (lambda nn: nn.LazyBatchNorm2d(affine=False), (2, 3, 4, 4)),
    "LazyBatchNorm3d": (lambda nn: nn.LazyBatchNorm3d(track_running_stats=False),
                        (2, 3, 2, 3, 2)),
    "LazyInstanceNorm1d": (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 5)),
    "LazyInstanceNorm2d": (lambda nn: nn.LazyInstanceNorm2d(momentum=None), (2, 3, 4, 4)),
    "LazyInstanceNorm3d": (lambda nn: nn.LazyInstanceNorm3d(affine=False), (2, 3, 2, 3, 2)),
}


def _state(m):
    return {k: (repr(v) if type(v).__name__.startswith("Uninit") else arr(v))
            for k, v in m.state_dict().items()}


def _types(m):
    return ([(n, type(p).__name__) for n, p in m.named_parameters()],
            [(n, type(b).__name__) for n, b in m.named_buffers()])


@pytest.mark.parametrize("name", LAZY)
def test_lazy_module_first_call(name):
    make, shape = LAZY[name]
    x = R.standard_normal(shape).astype(np.float32)
    out = {}
    for lib in (torch, ember):
        lib.manual_seed(3)
        m = make(lib.nn)
        before = (repr(m), type(m).__name__, type(m).cls_to_become.__name__,
                  m.has_uninitialized_params(), _types(m), _state(m))
        xt = lib.tensor(x, requires_grad=True)
        y = m(xt)
        y.pow(2).sum().backward()
        grads = [arr(p.grad) for p in m.parameters()]
        after = (repr(m), type(m).__name__, type(m) is type(m).__mro__[0], _types(m))
        out[lib] = (before, after, arr(y), arr(xt.grad), grads, _state(m),
                    [arr(p) for p in m.parameters()], y.grad_fn.name())
        # a second call runs the plain module
        assert not hasattr(m, "_initialize_hook")
        assert type(m).__name__ == name.split("_")[0][4:]
    t, e = out[torch], out[ember]
    assert t[0][:4] == e[0][:4] and t[0][4] == e[0][4]
    assert t[0][5].keys() == e[0][5].keys()
    assert {k: v for k, v in t[0][5].items() if isinstance(v, str)} == \
        {k: v for k, v in e[0][5].items() if isinstance(v, str)}
    assert t[1] == e[1]
    assert t[7] == e[7]
    for a, b in zip(t[2:5], e[2:5]):
        if isinstance(a, list):
            assert len(a) == len(b)
            for ga, gb in zip(a, b):
                np.testing.assert_allclose(gb, ga, rtol=1e-4, atol=1e-5)
        else:
            np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
    assert t[5].keys() == e[5].keys()
    for k in t[5]:
        np.testing.assert_allclose(e[5][k], t[5][k], rtol=1e-5, atol=1e-6)
    # seeded initial values: the same random stream as torch
    for a, b in zip(t[6], e[6]):
        assert a.shape == b.shape


@pytest.mark.parametrize("name", ["LazyLinear", "LazyConv2d", "LazyConvTranspose1d",
                                  "LazyConv3d"])
def test_seeded_init_matches_torch(name):
    make, shape = LAZY[name]
    vals = {}
    for lib in (torch, ember):
        m = make(lib.nn)
        lib.manual_seed(7)
        m.initialize_parameters(lib.zeros(shape))
        vals[lib] = [arr(p) for p in m.parameters()]
        # initialize_parameters alone does not change the class (the hook does)
        assert type(m).__name__ == name
        assert not m.has_uninitialized_params()
    for a, b in zip(vals[torch], vals[ember]):
        np.testing.assert_array_equal(b, a)


def test_cls_to_become_is_the_plain_class():
    m = ember.nn.LazyLinear(3)
    assert isinstance(m, ember.nn.modules.lazy.LazyModuleMixin)
    assert ember.nn.LazyLinear.cls_to_become is ember.nn.Linear
    m(ember.ones(2, 4))
    assert type(m) is ember.nn.Linear
    assert not isinstance(m, ember.nn.modules.lazy.LazyModuleMixin)
    assert type(m.weight) is ember.nn.Parameter
    bn = ember.nn.LazyBatchNorm1d()
    bn(ember.ones(2, 3))
    assert type(bn.running_mean) is ember.Tensor


def test_sequential_of_lazy_layers():
    out = {}
    for lib in (torch, ember):
        m = lib.nn.Sequential(lib.nn.LazyLinear(4), lib.nn.ReLU(), lib.nn.LazyLinear(2))
        r0 = repr(m)
        lib.manual_seed(1)
        x = lib.randn(3, 5)
        y = m(x)
        out[lib] = (r0, repr(m), arr(y), arr(m[2].weight))
    assert out[torch][:2] == out[ember][:2]
    np.testing.assert_allclose(out[ember][2], out[torch][2], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out[ember][3], out[torch][3])


def test_user_hooks_run_after_the_lazy_one():
    seen = {}
    for lib in (torch, ember):
        m = lib.nn.LazyLinear(3)
        def hook(mod, args, lib=lib):
            seen[lib] = (type(mod).__name__, tuple(mod.weight.shape))
        m.register_forward_pre_hook(hook)
        m(lib.ones(1, 2))
    assert seen[torch] == seen[ember] == ("Linear", (3, 2))


# ---------------------------------------------------------------- uninitialized tensors

def test_uninitialized_parameter_and_buffer():
    res = {}
    for lib in (torch, ember):
        nnp = lib.nn.parameter
        p = nnp.UninitializedParameter()
        q = nnp.UninitializedParameter(requires_grad=False, dtype=lib.float64)
        b = nnp.UninitializedBuffer()
        r = [repr(p), str(p), p.dtype is lib.float32, p.requires_grad, p.grad, p.ndim,
             p.is_leaf, p.grad_fn, tuple(p.size()), tuple(p.data.shape), repr(q),
             q.dtype is lib.float64, q.requires_grad, repr(b), b.requires_grad,
             isinstance(p, lib.nn.Parameter), isinstance(b, lib.nn.Parameter),
             nnp.UninitializedParameter.cls_to_become is lib.nn.Parameter,
             nnp.UninitializedBuffer.cls_to_become is lib.Tensor,
             repr(copy.deepcopy(p)), repr(pickle.loads(pickle.dumps(p)))]
        p.materialize((2, 3))
        q.materialize(4)
        b.materialize((3,), dtype=lib.float64)
        r += [type(p).__name__, tuple(p.shape), p.requires_grad, type(q).__name__,
              tuple(q.shape), q.dtype is lib.float64, q.requires_grad, type(b).__name__,
              b.dtype is lib.float64, b.requires_grad]
        res[lib] = r
    assert res[torch] == res[ember]


USES = {
    "mul": lambda lib, p: p * 2,
    "rmul": lambda lib, p: 2 * p,
    "add": lambda lib, p: p + 1,
    "radd": lambda lib, p: lib.zeros(2) + p,
    "getitem": lambda lib, p: p[0],
    "sum": lambda lib, p: p.sum(),
    "t": lambda lib, p: p.t(),
    "numel": lambda lib, p: p.numel(),
    "dim": lambda lib, p: p.dim(),
    "detach": lambda lib, p: p.detach(),
    "clone": lambda lib, p: p.clone(),
    "tolist": lambda lib, p: p.tolist(),
    "zero_": lambda lib, p: p.zero_(),
    "uniform_": lambda lib, p: p.uniform_(),
    "requires_grad_": lambda lib, p: p.requires_grad_(False),
    "shape": lambda lib, p: p.shape,
    "eq": lambda lib, p: p == 1,
    "iter": lambda lib, p: list(p),
    "cuda": lambda lib, p: p.cuda(),
    "type": lambda lib, p: p.type(),
}


@pytest.mark.parametrize("use", USES)
@pytest.mark.parametrize("kind", ["UninitializedParameter", "UninitializedBuffer"])
def test_using_an_uninitialized_tensor_raises(kind, use):
    check_error(lambda lib: USES[use](lib, getattr(lib.nn.parameter, kind)()))


@pytest.mark.parametrize("fn", [lambda lib, p: lib.add(p, 1),
                                lambda lib, p: lib.nn.functional.linear(lib.ones(2, 2), p),
                                lambda lib, p: lib.exp(p)])
def test_functions_on_an_uninitialized_tensor_raise(fn):
    # the message names the function ("<built-in method add of type object at 0x..>" in
    # torch: the address differs, so the text up to it is compared)
    errs = {}
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            fn(lib, lib.nn.parameter.UninitializedParameter())
        errs[lib] = str(info.value)
    head = "Attempted to use an uninitialized parameter in "
    assert errs[torch].startswith(head) and errs[ember].startswith(head)
    assert errs[torch].split(" at 0x")[0].split(">")[0] == \
        errs[ember].split(" at 0x")[0].split(">")[0]
    assert errs[torch].split(">", 1)[1] == errs[ember].split(">", 1)[1]


# ---------------------------------------------------------------- state_dict and conversions

def test_state_dict_of_a_lazy_module():
    for lib in (torch, ember):
        m = lib.nn.LazyLinear(3)
        sd = m.state_dict()
        assert sd["weight"] is m.weight and sd["bias"] is m.bias
        assert repr(sd["weight"]) == "<UninitializedParameter>"
    assert both(lambda lib: repr(lib.nn.LazyBatchNorm1d().state_dict()["num_batches_tracked"]))\
        == ("tensor(0)", "tensor(0)")


def test_load_state_dict_materializes():
    res = {}
    for lib in (torch, ember):
        lib.manual_seed(0)
        src = lib.nn.Linear(5, 3)
        m = lib.nn.LazyLinear(3)
        r = m.load_state_dict(src.state_dict())
        a = (repr(r), type(m).__name__, repr(m), tuple(m.weight.shape),
             bool(lib.equal(m.weight, src.weight)), m.has_uninitialized_params(),
             type(m.weight).__name__)
        m(lib.ones(2, 5))
        a += (type(m).__name__,)
        # a partial load leaves the rest uninitialized
        m = lib.nn.LazyLinear(3)
        r = m.load_state_dict({"weight": src.weight.detach()}, strict=False)
        a += (repr(r), m.has_uninitialized_params(), type(m.weight).__name__,
              type(m.bias).__name__)
        # uninitialized into uninitialized: nothing to copy, all keys match
        m = lib.nn.LazyLinear(3)
        a += (repr(m.load_state_dict(lib.nn.LazyLinear(3).state_dict())),
              m.has_uninitialized_params())
        # a batch norm's buffers too
        bn = lib.nn.LazyBatchNorm1d()
        bn.load_state_dict(lib.nn.BatchNorm1d(4).state_dict())
        a += (tuple(bn.running_var.shape), type(bn.running_var).__name__,
              bn.has_uninitialized_params())
        res[lib] = a
    assert res[torch] == res[ember]


def test_loading_uninitialized_into_initialized_raises():
    check_error(lambda lib: lib.nn.Linear(5, 3).load_state_dict(
        lib.nn.LazyLinear(3).state_dict()))


@pytest.mark.parametrize("conv", ["float", "double", "half", "cpu", "train", "zero_grad",
                                  "to64", "to32kw", "deepcopy", "pickle"])
def test_conversions_keep_it_uninitialized(conv):
    def run(lib):
        m = lib.nn.LazyLinear(3)
        ops = {"to64": lambda: m.to(lib.float64), "to32kw": lambda: m.to(dtype=lib.float32),
               "deepcopy": lambda: copy.deepcopy(m),
               "pickle": lambda: pickle.loads(pickle.dumps(m))}
        out = ops[conv]() if conv in ops else getattr(m, conv)()
        m = out if isinstance(out, lib.nn.Module) else m
        return (repr(m), type(m.weight).__name__, str(m.weight.dtype).split(".")[-1],
                m.weight.requires_grad, m.has_uninitialized_params())
    t, e = both(run)
    assert t == e


def test_double_lazy_linear_infers_in_float64():
    def run(lib):
        m = lib.nn.LazyLinear(3).double()
        return m(lib.ones(2, 4, dtype=lib.float64)).dtype is lib.float64, type(m).__name__
    res = both(run)
    assert res[0] == res[1] == (True, "Linear")


ERRORS = {
    "conv_dims": lambda lib: lib.nn.LazyConv1d(4, 3)(lib.randn(5, 5, 5, 5)),
    "conv_groups": lambda lib: lib.nn.LazyConv1d(4, 3, groups=2)(lib.randn(1, 5, 5)),
    "linear_scalar": lambda lib: lib.nn.LazyLinear(4)(lib.randn(())),
    "bn_1d_input": lambda lib: lib.nn.LazyBatchNorm1d()(lib.randn(3)),
    "bn_dims": lambda lib: lib.nn.LazyBatchNorm2d()(lib.randn(3, 2)),
    "instance_unbatched": lambda lib: lib.nn.LazyInstanceNorm1d()(lib.randn(3, 5)),
    "dtype_mismatch": lambda lib: lib.nn.LazyLinear(3)(lib.ones(2, 4, dtype=lib.float64)),
    "share_memory": lambda lib: lib.nn.LazyLinear(3).share_memory(),
    "type": lambda lib: lib.nn.LazyLinear(3).type(lib.float64),
    "requires_grad_": lambda lib: lib.nn.LazyLinear(3).requires_grad_(False),
}


@pytest.mark.parametrize("case", ERRORS)
def test_lazy_errors(case):
    check_error(ERRORS[case])


def test_failed_first_call_leaves_the_module_lazy():
    res = {}
    for lib in (torch, ember):
        m = lib.nn.LazyConv1d(4, 3, groups=2)
        with pytest.raises(ValueError):
            m(lib.randn(1, 5, 5))
        res[lib] = (repr(m), type(m).__name__, m.has_uninitialized_params())
    assert res[torch] == res[ember]


def test_mixin_errors():
    def run(lib, with_init):
        mixin = lib.nn.modules.lazy.LazyModuleMixin

        class M(mixin, lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.parameter.UninitializedParameter()

            if with_init:
                def initialize_parameters(self, x):
                    pass
        M.__name__ = "M"
        return M()(lib.ones(2))
    check_error(lambda lib: run(lib, True))
    check_error(lambda lib: run(lib, False))


def test_optimizers_accept_uninitialized_params():
    # torch's optimizers take them (they are Parameters); a step skips them (no grad), and
    # after the first call the same objects are the materialized parameters
    res = {}
    for lib in (torch, ember):
        lib.manual_seed(0)
        m = lib.nn.LazyLinear(3)
        sgd = lib.optim.SGD(m.parameters(), lr=0.1)
        sgd.step()
        adam = lib.optim.Adam(m.parameters(), lr=0.1)
        x = lib.randn(2, 4)
        m(x).sum().backward()
        adam.step()
        sgd.step()
        res[lib] = [arr(p) for p in m.parameters()]
    for a, b in zip(res[torch], res[ember]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["Adagrad", "LBFGS"])
def test_optimizers_that_refuse_uninitialized_params(name):
    # Adagrad reads each parameter at construction, LBFGS counts elements at its first step:
    # both meet an uninitialized parameter's ValueError in torch (the function it names is
    # the optimizer's own choice, so the message is compared up to it)
    def run(lib):
        m = lib.nn.LazyLinear(2)
        opt = getattr(lib.optim, name)(m.parameters())
        opt.step(lambda: lib.tensor(0.0))
    errs = {}
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            run(lib)
        errs[lib] = str(info.value)
    for msg in errs.values():
        assert msg.startswith("Attempted to use an uninitialized parameter in <")
        assert msg.endswith("When using LazyModules Call `forward` with a dummy batch to "
                            "initialize the parameters before calling torch functions")


def test_conversions_of_bare_uninitialized_tensors():
    # a parameter's conversion is an empty tensor (ToCopyBackward0 when it requires grad),
    # a buffer's another uninitialized buffer
    def run(lib):
        nnp = lib.nn.parameter
        p, b = nnp.UninitializedParameter(), nnp.UninitializedBuffer()
        return (repr(p.half()), repr(p.double()), repr(p.to(lib.float64)),
                repr(b.to(lib.float16)), str(b.to(lib.float16).dtype), repr(b.float()),
                repr(nnp.UninitializedParameter(False).double()), p.is_floating_point(),
                p.cpu() is p)
    t, e = both(run)
    assert t == e


def test_materializing_a_grad_parameter_as_integers_raises():
    check_error(lambda lib: lib.nn.parameter.UninitializedParameter().materialize(
        (2,), dtype=lib.int64))

    def run(lib):
        b = lib.nn.parameter.UninitializedBuffer()
        b.materialize(2, dtype=lib.int64)
        return str(b.dtype), type(b).__name__
    assert both(run) == (("torch.int64", "Tensor"),) * 2
