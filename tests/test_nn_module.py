"""nn.Module, Parameter, Buffer and the containers against torch.nn: registration, traversal,
state_dict / load_state_dict, train/eval, conversion, hooks, reprs, pickling and errors.

Most tests write a program once as prog(lib) returning a list of results, run it with torch
and with ember, and compare what the results print as (object addresses masked)."""
import copy
import io
import pickle
import re
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
from oracle import check_error as _check_error

_ADDR = re.compile(r" at 0x[0-9a-f]+")


def check_error(fn, match_message=True):
    """oracle.check_error, reading ember's class paths in messages as torch's."""
    def wrapped(L):
        try:
            fn(L)
        except Exception as e:     # noqa: BLE001 - re-raised with the path renamed
            if L is ember and "<class 'ember." in str(e):
                raise type(e)(str(e).replace("<class 'ember.", "<class 'torch.")) from None
            raise
    _check_error(wrapped, match_message)


def show(x):
    """What x prints as, with object addresses masked."""
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        inner = ", ".join(show(v) for v in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner})"
    return _ADDR.sub(" at 0x?", str(x))


def same(prog):
    """prog(torch) and prog(ember) return lists that print the same, item by item."""
    t, e = prog(torch), prog(ember)
    assert len(t) == len(e)
    for i, (a, b) in enumerate(zip(t, e)):
        assert show(a) == show(b), f"item {i}:\ntorch: {show(a)}\nember: {show(b)}"
    return t, e


def fill(lib, module):
    """Deterministic parameter values (the same in both libraries)."""
    with lib.no_grad():
        for k, p in enumerate(module.parameters()):
            vals = np.sin(np.arange(p.numel()) + k).reshape(tuple(p.shape)) * 0.5
            p.data = lib.tensor(vals.astype(np.float32 if p.dtype == lib.float32 else
                                            np.float64))
    return module


def net(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 3)
            self.act = nn.Identity()
            self.seq = nn.Sequential(nn.Linear(3, 2), nn.Flatten(), nn.Linear(2, 2, bias=False))
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("scratch", lib.ones(1), persistent=False)
            self.register_buffer("steps", lib.tensor(0))

        def forward(self, x):
            return self.seq(self.act(self.fc1(x))) + self.running
    return fill(lib, Net())


def inp(lib, *shape, seed=0):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


# ---------------------------------------------------------------- Parameter and Buffer

def test_parameter_repr_and_type():
    def prog(L):
        nn = L.nn
        p = nn.Parameter(L.ones(2))
        q = nn.Parameter(L.ones(2, dtype=L.float64), requires_grad=False)
        r = nn.Parameter(L.arange(3), requires_grad=False)
        return [p, q, r, nn.Parameter(), repr(p), type(p).__name__, isinstance(p, L.Tensor),
                type(p.data).__name__, type(p * 2).__name__, p.is_leaf, p.requires_grad,
                q.requires_grad, p.grad_fn, str(p), p.shape, r.dtype]
    same(prog)


def test_parameter_shares_memory_and_errors():
    t = ember.ones(3)
    p = ember.nn.Parameter(t)
    p.data[0] = 5.0         # a write through .data reaches the tensor it was made from
    assert t[0].item() == 5.0
    check_error(lambda L: L.nn.Parameter(L.arange(3)))
    check_error(lambda L: L.nn.Parameter([1.0]))


def test_parameter_deepcopy_pickle():
    def prog(L):
        p = L.nn.Parameter(L.tensor([1.0, 2.0]))
        p.grad = L.tensor([0.5, 0.5])
        q = copy.deepcopy(p)
        shared = copy.deepcopy([p, p])
        r = pickle.loads(pickle.dumps(p))
        s = pickle.loads(pickle.dumps(L.nn.Parameter(L.ones(1), requires_grad=False)))
        return [q, type(q).__name__, q is p, q.grad, shared[0] is shared[1], r,
                type(r).__name__, s, s.requires_grad]
    same(prog)


def test_buffer():
    def prog(L):
        nn = L.nn
        b = nn.Buffer(L.ones(2), persistent=False)
        g = nn.Buffer(L.ones(2, requires_grad=True))
        m = nn.Module()
        m.x = b
        m.y = nn.Buffer(L.zeros(1))
        m.y = L.ones(1)         # still a buffer: a plain tensor assigned over it
        m.x = L.zeros(1)        # stays non-persistent
        return [isinstance(b, nn.Buffer), isinstance(L.ones(1), nn.Buffer), type(b).__name__,
                b.persistent if L is torch else False, g.requires_grad, list(m.state_dict()),
                sorted(m._non_persistent_buffers_set), list(m._buffers), m.y, m]
    same(prog)


# ---------------------------------------------------------------- registration and errors

def test_repr_nested():
    same(lambda L: [net(L), L.nn.Sequential(), L.nn.Module(),
                    L.nn.Sequential(OrderedDict(a=L.nn.Identity(), b=L.nn.Linear(1, 2))),
                    L.nn.Sequential(L.nn.Sequential(L.nn.Sequential(L.nn.Linear(1, 1))))])


def test_extra_repr_multiline_and_none_child():
    def prog(L):
        class Odd(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = L.nn.Linear(1, 1)
                self.b = None
                self.register_module("c", None)

            def extra_repr(self):
                return "first line\nsecond line"

        class One(L.nn.Module):
            def extra_repr(self):
                return "k=1"
        return [Odd(), One(), L.nn.Sequential(One(), Odd())]
    same(prog)


def test_attribute_errors():
    def make(L):
        return L.nn.Linear(2, 3)
    check_error(lambda L: make(L).foo)
    check_error(lambda L: setattr(make(L), "weight", L.ones(3, 2)))
    check_error(lambda L: setattr(make(L), "weight", 3))
    check_error(lambda L: delattr(make(L), "nothere"))

    def child(L):
        s = L.nn.Sequential(L.nn.Linear(1, 1))
        setattr(s, "0", L.ones(1))
    check_error(child)

    def buffer(L):
        m = L.nn.Module()
        m.register_buffer("b", L.ones(1))
        m.b = 3
    check_error(buffer)


@pytest.mark.parametrize("call", [
    lambda L, m: m.register_buffer("x", L.ones(1)),
    lambda L, m: setattr(m, "x", L.nn.Buffer(L.ones(1))),
    lambda L, m: m.register_parameter("x", L.nn.Parameter(L.ones(1))),
    lambda L, m: m.add_module("x", L.nn.Identity()),
    lambda L, m: m.register_buffer(1, None),
    lambda L, m: m.register_buffer("a.b", None),
    lambda L, m: m.register_buffer("", None),
    lambda L, m: m.register_buffer("q", 3),
    lambda L, m: m.register_parameter(1, None),
    lambda L, m: m.register_parameter("a.b", None),
    lambda L, m: m.register_parameter("", None),
    lambda L, m: m.register_parameter("q", L.ones(1)),
    lambda L, m: m.register_parameter("q", L.nn.Parameter(L.ones(1)) * 2),
    lambda L, m: m.add_module("q", 3),
    lambda L, m: m.add_module("a.b", L.nn.Identity()),
    lambda L, m: m.add_module("", L.nn.Identity()),
    lambda L, m: m.add_module(3, L.nn.Identity()),
    lambda L, m: m(1),
    lambda L, m: m.train("yes"),
])
def test_registration_errors(call):
    def prog(L):
        class A(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.x = 1
        call(L, A())
    check_error(prog)


@pytest.mark.parametrize("body", ["param", "module", "buffer", "args", "kwargs"])
def test_assign_before_init(body):
    def prog(L):
        class B(L.nn.Module):
            def __init__(self):
                if body == "param":
                    self.w = L.nn.Parameter(L.ones(1))
                elif body == "module":
                    self.w = L.nn.Linear(1, 1)
                elif body == "buffer":
                    self.register_buffer("b", None)
                elif body == "args":
                    super().__init__(3)
                else:
                    super().__init__(a=3)
        B()
    check_error(prog)


def test_reassign_and_delete():
    def prog(L):
        m = L.nn.Linear(2, 2)
        m.extra = 5
        m.extra = L.nn.Parameter(L.zeros(1))       # a plain attribute becomes a parameter
        m.sub = L.nn.Identity()
        m.sub = L.nn.Linear(1, 1)
        m.sub = None
        m.bias = None
        r = [list(m._parameters), list(m._modules), "extra" in m.__dict__, m]
        del m.extra
        del m.sub
        m.register_buffer("buf", L.ones(1), persistent=False)
        del m.buf
        r += [list(m._parameters), list(m._modules), list(m._buffers),
              sorted(m._non_persistent_buffers_set), hasattr(m, "buf")]
        m.sub = L.nn.Identity()
        m.sub2 = m.sub
        r += [m, [n for n, _ in m.named_modules()],
              [n for n, _ in m.named_modules(remove_duplicate=False)]]
        return r
    same(prog)


def test_dir():
    def prog(L):
        m = net(L)
        names = set(dir(m))
        return [all(k in names for k in ("fc1", "seq", "running", "forward", "training")),
                [k for k in dir(L.nn.Sequential(L.nn.Identity())) if k[0].isdigit()]]
    same(prog)


# ---------------------------------------------------------------- traversal

def shared(L):
    nn = L.nn
    lin = nn.Linear(2, 2)
    m = nn.Sequential(lin, nn.Identity(), lin,
                      nn.Sequential(nn.Linear(2, 1)))
    m[3].tied = lin.weight      # a parameter registered under two names
    return fill(L, m)


def test_traversal():
    def prog(L):
        m, n = shared(L), net(L)
        return [
            [k for k, _ in m.named_parameters()],
            [k for k, _ in m.named_parameters(remove_duplicate=False)],
            [k for k, _ in m.named_parameters(prefix="model")],
            [k for k, _ in n.named_parameters(recurse=False)],
            [k for k, _ in n.seq.named_parameters(prefix="p", recurse=False)],
            len(list(m.parameters())), [p.shape for p in n.parameters()],
            [k for k, _ in n.named_buffers()], [k for k, _ in n.named_buffers(prefix="b")],
            [b.shape for b in n.buffers(recurse=False)],
            [k for k, _ in m.named_children()], [type(c).__name__ for c in n.children()],
            [k for k, _ in m.named_modules()], [k for k, _ in n.named_modules(prefix="top")],
            [type(c).__name__ for c in n.modules()],
            [k for k, _ in m.named_modules(remove_duplicate=False)],
        ]
    same(prog)


def test_get_submodule_parameter_buffer():
    def prog(L):
        n = net(L)
        return [n.get_submodule("seq.0"), n.get_submodule("") is n,
                n.get_parameter("seq.0.bias"), n.get_parameter("fc1.weight").shape,
                n.get_buffer("running"), n.get_buffer("scratch")]
    same(prog)
    for target in ("seq.9", "nothere", "fc1.weight.x", "fc1.in_features"):
        check_error(lambda L: net(L).get_submodule(target))
    for target in ("seq.0.nothere", "fc1.in_features", "running", "seq.nothere.bias"):
        check_error(lambda L: net(L).get_parameter(target))
    for target in ("fc1.weight", "nothere", "fc1.nothere"):
        check_error(lambda L: net(L).get_buffer(target))


def test_set_submodule():
    def prog(L):
        n = net(L)
        n.set_submodule("seq.1", L.nn.Identity())
        n.set_submodule("fc1", L.nn.Linear(4, 3, bias=False))
        return [n]
    same(prog)
    check_error(lambda L: net(L).set_submodule("", L.nn.Identity()))
    check_error(lambda L: net(L).set_submodule("seq.x", L.nn.Identity(), strict=True))
    check_error(lambda L: net(L).set_submodule("running", L.nn.Identity()))


# ---------------------------------------------------------------- state_dict

def test_state_dict():
    def prog(L):
        n = net(L)
        sd = n.state_dict()
        kv = n.state_dict(keep_vars=True)
        pre = n.seq.state_dict(prefix="pre.")
        dest = OrderedDict()
        out = n.fc1.state_dict(destination=dest, prefix="x.")
        return [sd, sd._metadata, type(sd).__name__, sd["fc1.weight"].requires_grad,
                kv["fc1.weight"] is n.fc1.weight, kv["fc1.weight"].requires_grad,
                list(pre), pre._metadata, out is dest, list(dest), shared(L).state_dict(),
                L.nn.Sequential().state_dict()]
    same(prog)


def test_state_dict_detached_shares_memory():
    n = net(ember)
    sd = n.state_dict()
    sd["fc1.bias"][0] = 7.0     # the detached tensor shares the parameter's memory, as in torch
    assert n.fc1.bias[0].item() == 7.0


def test_state_dict_positional_args_warn():
    for L in (torch, ember):
        with pytest.warns(FutureWarning, match="Positional args are being deprecated"):
            d = L.nn.Linear(1, 1).state_dict(OrderedDict(), "p.")
        assert list(d) == ["p.weight", "p.bias"]


def test_load_state_dict_roundtrip_and_returns():
    def prog(L):
        src, dst = net(L), L.nn.Module()
        dst = net(L)
        with L.no_grad():
            for p in dst.parameters():
                p.data = p.data * 0
        r = dst.load_state_dict(src.state_dict())
        sd = src.state_dict()
        sd.pop("fc1.bias")
        sd["extra.w"] = L.ones(1)
        sd["fc1.zzz"] = L.ones(1)
        r2 = dst.load_state_dict(sd, strict=False)
        r3 = dst.load_state_dict(dict(src.state_dict()))      # no _metadata: fine too
        return [r, repr(r), r2, r2.missing_keys, r2.unexpected_keys, type(r2).__name__,
                isinstance(r2, tuple), r3, dst(inp(L, 2, 4))]
    same(prog)


def test_load_state_dict_dtype_cast_and_scalar():
    def prog(L):
        m = L.nn.Linear(2, 2).double()
        src = fill(L, L.nn.Linear(2, 2))
        m.load_state_dict(src.state_dict())
        b = L.nn.Module()
        b.register_buffer("s", L.tensor(0.0))
        b.load_state_dict({"s": L.tensor([3.0])})      # old 1-element checkpoints of scalars
        return [m.weight, m.weight.dtype, b.s]
    same(prog)


@pytest.mark.parametrize("edit", ["missing", "unexpected", "size", "all", "type", "child"])
def test_load_state_dict_errors(edit):
    def prog(L):
        n = net(L)
        sd = net(L).state_dict()
        if edit in ("missing", "all"):
            del sd["seq.0.weight"]
            del sd["running"]
        if edit in ("unexpected", "all"):
            sd["bogus"] = L.ones(1)
            sd["seq.9.weight"] = L.ones(1)
        if edit in ("size", "all"):
            sd["fc1.weight"] = L.ones(3, 5)
        if edit == "type":
            sd["fc1.bias"] = [1.0, 2.0, 3.0]
        if edit == "child":
            return n.seq.load_state_dict({"0.weight": L.ones(1)})
        n.load_state_dict(sd)

    def full_message(L):
        try:
            prog(L)
        except RuntimeError as e:
            return str(e)
    check_error(prog)
    assert full_message(torch) == full_message(ember)


def test_load_state_dict_error_leaves_module_unchanged():
    n = net(ember)
    before = {k: v.clone() for k, v in n.state_dict().items()}
    sd = {k: v * 0 + 3 for k, v in n.state_dict().items()}
    sd["fc1.weight"] = ember.ones(3, 5)
    with pytest.raises(RuntimeError, match="size mismatch for fc1.weight"):
        n.load_state_dict(sd)
    for k, v in n.state_dict().items():
        assert np.array_equal(v._data, before[k]._data), k


def test_load_state_dict_not_mapping():
    check_error(lambda L: L.nn.Linear(1, 1).load_state_dict([("weight", L.ones(1, 1))]))


def test_load_state_dict_size_mismatch_strict_false_raises():
    check_error(lambda L: L.nn.Linear(2, 2).load_state_dict({"weight": L.ones(1)},
                                                            strict=False))


def test_load_state_dict_assign():
    def prog(L):
        m = L.nn.Linear(2, 2)
        m.register_buffer("b", L.zeros(1))
        w, new_w = m.weight, L.ones(2, 2, dtype=L.float64)
        r = m.load_state_dict({"weight": new_w, "bias": L.zeros(2), "b": L.ones(1)},
                              assign=True)
        f = L.nn.Linear(2, 2).requires_grad_(False)
        f.load_state_dict({"weight": L.ones(2, 2), "bias": L.zeros(2)}, assign=True)
        return [r, m.weight is w, type(m.weight).__name__, m.weight, m.weight.requires_grad,
                m.b, f.weight.requires_grad, m.weight.data_ptr() == new_w.data_ptr()]
    same(prog)


def test_load_state_dict_bumps_version():
    m = ember.nn.Linear(2, 2)
    v = m.weight._version
    m.load_state_dict(m.state_dict())
    assert m.weight._version > v


def test_state_dict_hooks():
    def prog(L):
        calls = []
        m = L.nn.Sequential(L.nn.Linear(1, 1))
        m.register_state_dict_pre_hook(lambda mod, prefix, keep: calls.append(
            ("pre", type(mod).__name__, prefix, keep)))
        m[0].register_state_dict_pre_hook(lambda mod, prefix, keep: calls.append(
            ("pre0", prefix)))

        def post(mod, sd, prefix, meta):
            calls.append(("post", prefix, list(sd), meta))
            sd["added"] = L.ones(1)
        m.register_state_dict_post_hook(post)
        sd = m.state_dict()

        def lpre(mod, sd, prefix, meta, strict, missing, unexpected, errors):
            calls.append(("lpre", type(mod).__name__, prefix, strict))
        h = m.register_load_state_dict_pre_hook(lpre)

        def lpost(mod, keys):
            calls.append(("lpost", type(mod).__name__, keys))
            keys.unexpected_keys.clear()
        m.register_load_state_dict_post_hook(lpost)
        r = m.load_state_dict(sd)
        h.remove()
        m.load_state_dict(sd, strict=False)
        return [calls, list(sd), r]
    same(prog)


def test_extra_state():
    def prog(L):
        class S(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = L.nn.Linear(1, 1)
                self.value = {"n": 1}

            def get_extra_state(self):
                return self.value

            def set_extra_state(self, state):
                self.value = state
        a, b = S(), S()
        a.value = {"n": 7}
        sd = a.state_dict()
        b.load_state_dict(sd)
        return [list(sd), sd["_extra_state"], b.value]
    same(prog)


# ---------------------------------------------------------------- modes, grads, apply

def test_train_eval_requires_grad_zero_grad_apply():
    def prog(L):
        n = net(L)
        r = [n.training, n.eval() is n, [m.training for m in n.modules()],
             n.train() is n, [m.training for m in n.modules()]]
        n.seq.eval()
        r.append([m.training for m in n.modules()])
        n.requires_grad_(False)
        r.append([p.requires_grad for p in n.parameters()])
        n.seq.requires_grad_()
        r.append([p.requires_grad for p in n.parameters()])
        out = n(inp(L, 3, 4)).sum()
        out.backward()
        r.append([p.grad for p in n.parameters()])
        n.zero_grad(set_to_none=False)
        r.append([p.grad for p in n.parameters()])
        n.zero_grad()
        r.append([p.grad for p in n.parameters()])
        seen = []
        r.append(n.apply(lambda m: seen.append(type(m).__name__)) is n)
        r.append(seen)
        return r
    same(prog)


def test_zero_grad_keeps_tensor_when_not_set_to_none():
    m = ember.nn.Linear(2, 1)
    m(ember.ones(1, 2)).sum().backward()
    g = m.weight.grad
    m.zero_grad(set_to_none=False)
    assert m.weight.grad is g and not g._data.any()


# ---------------------------------------------------------------- conversion

def test_to_float_double_half_type():
    def prog(L):
        n = net(L)
        w = n.fc1.weight
        n(inp(L, 2, 4)).sum().backward()
        g = n.fc1.weight.grad
        r = [n.double() is n, n.fc1.weight is w, w.dtype, w.grad is g, g.dtype,
             n.steps.dtype, n.running.dtype]
        r += [n.float().fc1.weight.dtype, n.half().fc1.weight.dtype, n.running.dtype,
              n.to(L.float64).fc1.weight.dtype, n.to(L.zeros(1, dtype=L.float32)).running.dtype,
              n.to("cpu").fc1.weight.dtype, n.to("cpu", L.float64).fc1.weight.dtype,
              n.to(device="cpu", dtype=L.float32).fc1.weight.dtype,
              n.to(L.device("cpu")).fc1.weight.dtype, n.cpu() is n,
              n.type(L.float64).fc1.weight.dtype, n.to(L.float32, True).fc1.weight.dtype,
              n.steps.dtype, n.fc1.weight is w, n.fc1.weight.requires_grad,
              n.fc1.weight.is_leaf]
        return r
    same(prog)


def test_converted_module_trains():
    def prog(L):
        n = net(L).double()
        out = n(inp(L, 2, 4).double())
        out.sum().backward()
        return [out, n.fc1.weight.grad]
    same(prog)


@pytest.mark.parametrize("call", [
    lambda L, m: m.cuda(),
    lambda L, m: m.cuda(0),
    lambda L, m: m.to("cuda"),
    lambda L, m: m.to("cuda:0"),
    lambda L, m: m.to("foo"),
    lambda L, m: m.to(L.int64),
    lambda L, m: m.to(L.float64, L.float32),
    lambda L, m: m.to("cpu", "float64"),
    lambda L, m: m.to(foo=1),
    lambda L, m: m.type(L.int64),
    lambda L, m: L.nn.Identity().to("foo"),
])
def test_conversion_errors(call):
    check_error(lambda L: call(L, L.nn.Linear(2, 2)))


def test_conversion_without_tensors_passes():
    same(lambda L: [L.nn.Identity().cuda(), L.nn.Identity().to("cuda")])


# ---------------------------------------------------------------- forward hooks

def test_forward_hooks():
    def prog(L):
        calls = []
        m = fill(L, L.nn.Linear(2, 2))

        def pre(mod, args):
            calls.append(("pre", args))
            return args[0] * 2

        def pre_kw(mod, args, kwargs):
            calls.append(("pre_kw", args, kwargs))
            return args, kwargs

        def first(mod, args):
            calls.append("first")

        def post(mod, args, out):
            calls.append(("post", args, out))
            return out + 1

        def post_kw(mod, args, kwargs, out):
            calls.append(("post_kw", kwargs))
        h1 = m.register_forward_pre_hook(pre)
        m.register_forward_pre_hook(pre_kw, with_kwargs=True)
        m.register_forward_pre_hook(first, prepend=True)
        h4 = m.register_forward_hook(post)
        m.register_forward_hook(post_kw, with_kwargs=True, prepend=True)
        x = L.tensor([[1.0, 2.0]])
        y1 = m(x)
        h1.remove()
        with h4:
            y2 = m(x)
        y3 = m(x)
        return [y1, y2, y3, calls, type(h1).__name__, h1.id < h4.id]
    same(prog)


def test_forward_pre_hook_bad_return():
    def prog(L):
        m = L.nn.Identity()
        m.register_forward_pre_hook(lambda mod, a, k: 3, with_kwargs=True)
        m(L.ones(1))
    check_error(prog)


def test_forward_hook_always_call():
    def prog(L):
        calls = []

        class Bad(L.nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        m = Bad()
        m.register_forward_hook(lambda mod, a, out: calls.append(("always", out)),
                                always_call=True)
        m.register_forward_hook(lambda mod, a, out: calls.append("never"))
        try:
            m(L.ones(1))
        except ValueError as e:
            calls.append(str(e))
        return [calls]
    same(prog)


def test_global_forward_hooks():
    def prog(L):
        calls = []
        mm = L.nn.modules.module
        h1 = mm.register_module_forward_pre_hook(lambda m, a: calls.append(type(m).__name__))
        h2 = mm.register_module_forward_hook(lambda m, a, o: calls.append("post"))
        try:
            L.nn.Sequential(L.nn.Identity())(L.ones(1))
        finally:
            h1.remove()
            h2.remove()
        L.nn.Identity()(L.ones(1))
        return [calls]
    same(prog)


# ---------------------------------------------------------------- backward hooks

def _grads(gs):
    return [None if g is None else np.round(g.detach().numpy().astype(np.float64), 5).tolist()
            for g in gs]


def test_full_backward_hook():
    def prog(L):
        log = []
        m = fill(L, L.nn.Linear(3, 2))

        def hook(mod, gin, gout):
            log.append(("hook", type(mod).__name__, _grads(gin), _grads(gout)))

        def pre(mod, gout):
            log.append(("pre", _grads(gout)))
        m.register_full_backward_hook(hook)
        m.register_full_backward_pre_hook(pre)
        x = L.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        y = m(x)
        name = type(y.grad_fn).__name__
        (y * L.tensor([[1.0, -2.0]])).sum().backward()
        return [log, name, x.grad, m.weight.grad]
    same(prog)


def test_full_backward_hook_replaces_grads():
    def prog(L):
        log = []
        m = fill(L, L.nn.Linear(2, 2))
        m.register_full_backward_pre_hook(lambda mod, gout: (gout[0] * 10,))
        m.register_full_backward_hook(lambda mod, gin, gout: (gin[0] + 1,))
        m.register_full_backward_hook(lambda mod, gin, gout: log.append(_grads(gin)),
                                      prepend=True)
        x = L.tensor([[1.0, 2.0]], requires_grad=True)
        m(x).sum().backward()
        return [log, x.grad, m.weight.grad, m.bias.grad]
    same(prog)


def test_full_backward_hook_no_input_grad_and_tuples():
    def prog(L):
        log = []
        m = fill(L, L.nn.Linear(2, 2))
        m.register_full_backward_hook(lambda mod, gin, gout: log.append(
            ("lin", _grads(gin), _grads(gout))))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(L.ones(1, 2)).sum().backward()   # input needs no grad: grad_input is (None,)
        log.append([str(x.message) for x in w])

        class Two(L.nn.Module):
            def forward(self, a, scale, b):
                return a * scale, b * 2, 5
        t = Two()
        t.register_full_backward_hook(lambda mod, gin, gout: log.append(
            ("two", _grads(gin), _grads(gout))))
        a = L.ones(2, requires_grad=True)
        b = L.ones(2)
        out = t(a, 3.0, b)
        out[0].sum().backward()
        return [log, a.grad, len(out), out[2]]
    same(prog)


def test_non_full_backward_hook():
    def prog(L):
        log = []

        def hook(mod, gin, gout):
            log.append((_grads(gin), _grads(gout)))
        m = fill(L, L.nn.Linear(2, 3))
        m.register_backward_hook(hook)
        x = L.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = m(x)
        (y * L.tensor([1.0, 2.0, 3.0])).sum().backward()
        return [log, [str(x.message) for x in w], [x.category.__name__ for x in w], x.grad]
    same(prog)


def test_full_backward_pre_hook_alone():
    def prog(L):
        log = []
        m = fill(L, L.nn.Linear(2, 2))
        m.register_full_backward_pre_hook(lambda mod, gout: log.append(_grads(gout)))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(L.ones(1, 2)).sum().backward()
            x = L.ones(1, 2, requires_grad=True)
            m(x).sum().backward()
        return [log, [str(x.message) for x in w], x.grad, m.weight.grad]
    same(prog)


def test_full_backward_hook_errors():
    def prog(L):
        m = L.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda mod, gin, gout: (gin[0], gin[0]))
        m(L.ones(1, 2, requires_grad=True)).sum().backward()
    check_error(prog)

    def prog2(L):
        m = L.nn.Linear(2, 2)
        m.register_backward_hook(lambda mod, gin, gout: None)
        m.register_full_backward_hook(lambda mod, gin, gout: None)
    check_error(prog2)


# ---------------------------------------------------------------- copies

class TorchPicklable(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.register_buffer("b", torch.ones(2))

    def forward(self, x):
        return self.lin(x) + self.b


class EmberPicklable(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = ember.nn.Linear(2, 2)
        self.register_buffer("b", ember.ones(2))

    def forward(self, x):
        return self.lin(x) + self.b


TorchPicklable.__name__ = EmberPicklable.__name__ = "Picklable"     # (qualnames stay apart)


def test_deepcopy_and_pickle_module():
    def prog(L):
        n = net(L)
        n.register_forward_hook(_double_output)
        d = copy.deepcopy(n)
        buf = io.BytesIO()
        pk = fill(L, TorchPicklable() if L is torch else EmberPicklable())
        pk.register_forward_pre_hook(_double_input)
        pickle.dump(pk, buf)
        p = pickle.loads(buf.getvalue())
        x = inp(L, 2, 4)
        r = [d, d(x), p(x[:, :2]), d.fc1.weight is n.fc1.weight, p.state_dict(), p,
             p.lin.weight is pk.lin.weight]
        with L.no_grad():
            d.fc1.weight.data = d.fc1.weight.data * 0
        r.append(n(x))
        s = shared(L)
        ds = copy.deepcopy(s)
        r.append([ds[0] is ds[2], ds[3].tied is ds[0].weight])
        return r
    same(prog)


def _double_output(mod, args, out):
    return out * 2


def _double_input(mod, args):
    return args[0] * 2


def test_setstate_fills_missing_fields():
    m = ember.nn.Linear(1, 1)
    state = m.__getstate__()
    for k in ("_forward_hooks_always_called", "_non_persistent_buffers_set",
              "_is_full_backward_hook", "_state_dict_pre_hooks"):
        state.pop(k)
    m2 = ember.nn.Linear.__new__(ember.nn.Linear)
    m2.__setstate__(state)
    assert m2(ember.ones(1, 1)).shape == (1, 1)
    assert list(m2.state_dict()) == ["weight", "bias"]


# ---------------------------------------------------------------- containers

def lins(L, n=3):
    return [fill(L, L.nn.Linear(k + 1, k + 2)) for k in range(n)]


def test_sequential():
    def prog(L):
        nn = L.nn
        s = nn.Sequential(*lins(L))
        r = [s, len(s), s[0], s[-1], s[1:], type(s[1:]).__name__, s[::2], s[-2:],
             [type(m).__name__ for m in s]]
        s.append(nn.Identity())
        s.insert(1, nn.Flatten())
        s.insert(-1, nn.Identity())
        s.extend([nn.Identity()])
        r.append(s)
        del s[1]
        r.append(s)
        del s[-3:]
        r.append(s)
        r.append(s.pop(0))
        r.append(s)
        s[0] = nn.Linear(2, 3)
        r.append(s)
        a = nn.Sequential(nn.Identity(), nn.Flatten())
        b = nn.Sequential(nn.Identity())
        r += [a + b, a * 2, 2 * a, len(a)]
        a += b
        r.append(a)
        a *= 2
        r.append(a)
        od = nn.Sequential(OrderedDict([("first", nn.Linear(1, 1)), ("second", nn.Identity())]))
        r += [od, od[1], od[0:1], od.first]
        x = fill(L, nn.Sequential(*lins(L)))
        r.append(x(L.ones(2, 1)))
        r.append(nn.Sequential()(L.ones(1)))
        return r
    same(prog)


@pytest.mark.parametrize("call", [
    lambda L, s: s[3],
    lambda L, s: s[-4],
    lambda L, s: s["a"],
    lambda L, s: s.__setitem__(5, L.nn.Identity()),
    lambda L, s: s.__delitem__(7),
    lambda L, s: s + L.nn.ModuleList(),
    lambda L, s: s * 0,
    lambda L, s: s * 1.5,
    lambda L, s: s.insert(9, L.nn.Identity()),
    lambda L, s: s.insert(0, 3),
    lambda L, s: s.append(3),
    lambda L, s: s.pop(5),
])
def test_sequential_errors(call):
    check_error(lambda L: call(L, L.nn.Sequential(*lins(L))))


def test_module_list():
    def prog(L):
        nn = L.nn
        ml = nn.ModuleList(lins(L))
        r = [ml, len(ml), ml[0], ml[-1], ml[1:], type(ml[1:]).__name__]
        ml.append(nn.Identity())
        ml.extend([nn.Identity(), nn.Identity()])
        ml.insert(0, nn.Flatten())
        r.append(ml)
        ml += [nn.Linear(1, 1)]
        r.append(ml)
        del ml[0]
        r.append(ml)
        del ml[1:3]
        r.append(ml)
        r.append(ml.pop(-1))
        ml[0] = nn.Identity()
        r.append(ml)
        r.append(ml + [nn.Flatten()])
        r.append(nn.ModuleList())
        same_reprs = nn.ModuleList([nn.Linear(2, 2) for _ in range(4)] + [nn.Identity()] +
                                   [nn.Linear(2, 2) for _ in range(2)])
        r.append(same_reprs)
        r.append(nn.Sequential(nn.ModuleList([nn.Identity(), nn.Identity()])))
        r.append([k for k, _ in same_reprs.named_parameters()][:4])
        return r
    same(prog)


@pytest.mark.parametrize("call", [
    lambda L, m: m[3],
    lambda L, m: m[-4],
    lambda L, m: m.extend(3),
    lambda L, m: m.append(3),
    lambda L, m: m(L.ones(1)),
    lambda L, m: m.__setitem__(4, L.nn.Identity()),
])
def test_module_list_errors(call):
    check_error(lambda L: call(L, L.nn.ModuleList(lins(L))))


def test_module_dict():
    def prog(L):
        nn = L.nn
        md = nn.ModuleDict({"b": nn.Linear(1, 1), "a": nn.Identity()})
        r = [md, len(md), list(md), list(md.keys()), [type(v).__name__ for v in md.values()],
             [k for k, _ in md.items()], "a" in md, md["b"]]
        md["c"] = nn.Flatten()
        md.update([("d", nn.Identity())])
        md.update(OrderedDict(e=nn.Identity()))
        md.update(nn.ModuleDict({"f": nn.Identity()}))
        r.append(md)
        r.append(md.pop("b"))
        del md["a"]
        r.append(md)
        md.clear()
        r.append(md)
        return r
    same(prog)


@pytest.mark.parametrize("call", [
    lambda L, m: m["zz"],
    lambda L, m: m.update(3),
    lambda L, m: m.update([3]),
    lambda L, m: m.update([("a", L.nn.Identity(), 1)]),
    lambda L, m: m.__setitem__("x", 3),
    lambda L, m: m.__setitem__("a.b", L.nn.Identity()),
])
def test_module_dict_errors(call):
    check_error(lambda L: call(L, L.nn.ModuleDict({"a": L.nn.Identity()})))


def test_parameter_list():
    def prog(L):
        nn = L.nn
        pl = nn.ParameterList([nn.Parameter(L.ones(2)), L.zeros(3, 4)])
        r = [pl, len(pl), type(pl[1]).__name__, pl[1].requires_grad, pl[-1].shape]
        pl.append(L.ones(1, dtype=L.float64))
        pl.extend([nn.Parameter(L.ones(2), requires_grad=False)])
        pl += [L.ones(5)]
        pl.append("not a tensor")
        r += [pl, pl[1:3], type(pl[1:3]).__name__, [k for k, _ in pl.named_parameters()],
              pl[5]]
        pl[0] = L.full((2,), 3.0)
        r += [pl[0], [p.shape if hasattr(p, "shape") else p for p in pl]]
        r.append(nn.ParameterList())
        return r
    same(prog)


@pytest.mark.parametrize("call", [
    lambda L, p: p[5],
    lambda L, p: p.extend(L.ones(2)),
    lambda L, p: p.extend(3),
    lambda L, p: p(L.ones(1)),
])
def test_parameter_list_errors(call):
    check_error(lambda L: call(L, L.nn.ParameterList([L.nn.Parameter(L.ones(1))])))


def test_parameter_dict():
    def prog(L):
        nn = L.nn
        pd = nn.ParameterDict({"b": nn.Parameter(L.ones(2)), "a": L.zeros(3)})
        r = [pd, list(pd), len(pd), "a" in pd, type(pd["a"]).__name__]
        pd["c"] = L.ones(1, dtype=L.float64)
        pd.update([("d", L.ones(2, 2))])
        pd.update(OrderedDict(z=L.ones(1), y=L.ones(1)))
        pd["s"] = "text"
        r += [pd, list(pd.keys()), [k for k, _ in pd.items()], len(list(pd.values())),
              list(reversed(pd)), pd.get("zz", 5), pd.get("a").shape]
        r += [pd.pop("b"), list(pd), pd.popitem()[0], list(pd), pd.setdefault("q", L.ones(1)),
              list(pd.copy()), list(pd.fromkeys(["u", "v"], L.ones(1)))]
        r += [list(pd | nn.ParameterDict({"w": L.ones(1)})),
              [k for k, _ in pd.named_parameters()]]
        pd |= nn.ParameterDict({"x": L.ones(1)})
        del pd["a"]
        r.append(pd)
        pd.clear()
        r += [pd, len(pd)]
        return r
    same(prog)


@pytest.mark.parametrize("call", [
    lambda L, p: p["zz"],
    lambda L, p: p[1],
    lambda L, p: p.update(3),
    lambda L, p: p.update([3]),
    lambda L, p: p.update([("a", L.ones(1), 1)]),
    lambda L, p: p(L.ones(1)),
])
def test_parameter_dict_errors(call):
    check_error(lambda L: call(L, L.nn.ParameterDict({"a": L.ones(1)})), match_message=True)


def test_unpickled_hooks_run_in_a_process_without_hooks(monkeypatch):
    # Note [Hooks in use]: a module carrying hooks turns the hook path on when unpickled
    m = EmberPicklable()
    m.register_forward_pre_hook(_double_input)
    data = pickle.dumps(m)
    mm = ember.nn.modules.module
    monkeypatch.setattr(mm, "_hooks_in_use", False)
    p = pickle.loads(data)
    x = ember.ones(1, 2)
    np.testing.assert_array_equal(p(x)._data, (p.lin(x * 2) + p.b)._data)
