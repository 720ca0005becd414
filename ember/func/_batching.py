"""vmap's batching rules: a batch dimension carried through each op.

Note [Batching]: inside vmap an input is a `BatchedTensor`: a Tensor subclass that holds a
physical tensor `_value` whose dim 0 is the batch of one vmap level (`_level`); everything
else about it (shape, dim(), size(), indexing, dims given to ops) is the logical per-sample
view. The value of an inner level may itself be a BatchedTensor of an outer level, so nested
vmaps compose: a rule unwraps its own level only and calls the op again on the values, which
dispatches to the next level out.

Ops reach the rules without any test on the normal path:
- Tensor methods and operators: BatchedTensor overrides each of Tensor's op methods with a
  dispatcher (a plain Tensor never sees it).
- Functions (ember.sin, F.linear, autograd.grad, ...): while a vmap is running, every op of
  the public namespaces, and every op name ember's own code looks up in its internal modules,
  is swapped for its dispatcher (so are Tensor's methods that take an argument besides self),
  and swapped back when the outermost vmap returns (`enter`/`leave`). Out of vmap the
  functions are the plain ones: the per-op path costs nothing more.
A dispatcher finds the innermost level among its tensor arguments; none: it calls the op.
Otherwise the op's rule (RULES, by function) runs on the physical values; an op without one
runs once per sample (select, call, stack: `_fallback`) and warns once per op, as torch's
BatchedFallback does. Rules write everything with ember ops on the values, so autograd
records on the physical tensors (grad of vmap), and autograd.grad inside vmap (vmap of grad:
per-sample gradients) differentiates the physical outputs with respect to physical inputs
(grad transforms lift inputs that are not batched to every open level first: `lift`).
gradcheck's batched forward-AD check runs under `legacy` (torch's runs under its legacy vmap): a
custom Function runs its own forward and jvp on the batched tensors. autograd.grad's
is_grads_batched pass runs under `grads_batched` (Note [Batched backward] in
autograd/__init__.py): backward formulas see BatchedTensor gradients."""
import itertools
import sys
import types
import warnings

import numpy as np

from .. import autograd as _autograd, return_types as _RT
from ..autograd import forward as _forward, forward_ad as _fad, function as _function
from ..autograd.grad_mode import STATE as _GRAD_MODE, no_grad as _no_grad
from ..creation import arange as _arange_plain, ones_like, tensor as _tensor, zeros
from ..dtypes import bool_, promote_types as _promote_types, result_type
from ..tensor import Size, Tensor, wrap as _wrap
from . import _tree

LEVELS = []         # open vmap levels, outermost first: [id, batch size, randomness]
_ids = [0]
_WARNED = set()
RULES = {}          # op function -> rule(fn, lv, args, kwargs)
WRAP = {}           # op function -> its dispatcher
_SWAPS = []         # (module or Tensor, {name: dispatcher}, {name: original op})
_STATE = {"depth": 0, "mods": None, "raw": 0, "nmods": 0, "legacy": False, "quiet": 0,
          "methods": True}

RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap")


NO_DATA = ("vmap: an operation read a BatchedTensor's data without going through vmap's "
           "dispatch: a function bound by name before vmap started (e.g. `from ember import "
           "sin` in another module; call it as ember.sin(x) or x.sin() instead) or an ember "
           "internal that has no batching rule")


class BatchedTensor(Tensor):
    """A per-sample view of `_value`, whose dim 0 is the batch of vmap level `_level`."""
    __slots__ = ("_value", "_level")

    def _no_data(self):
        raise RuntimeError(NO_DATA)
    _data = property(_no_data)
    _x = property(lambda self: self._value._x)     # forward AD asks whether a value is dual
    _grad_fn = property(lambda self: self._value._grad_fn)
    _output_nr = property(lambda self: self._value._output_nr)

    def _get_rg(self):
        return self._value._requires_grad

    def _set_rg(self, v):
        self._value._requires_grad = v
    _requires_grad = property(_get_rg, _set_rg)
    requires_grad = property(lambda self: self._value.requires_grad,
                             lambda self, v: setattr(self._value, "requires_grad", v))
    is_leaf = property(lambda self: self._value.is_leaf)
    grad_fn = property(lambda self: self._value.grad_fn)
    shape = property(lambda self: Size(tuple(self._value.shape)[1:]))
    dtype = property(lambda self: self._value.dtype)
    device = property(lambda self: self._value.device)
    layout = property(lambda self: self._value.layout)
    ndim = property(lambda self: self._value.dim() - 1)
    T = property(lambda self: self.permute(*range(self.dim() - 1, -1, -1)))
    mT = property(lambda self: self.transpose(-2, -1))
    real = property(lambda self: _batched(self._value.real, self._level))     # elementwise
    imag = property(lambda self: _batched(self._value.imag, self._level))     # views
    mH = property(lambda self: self.transpose(-2, -1).conj())
    H = property(lambda self: self.permute(*range(self.dim() - 1, -1, -1)).conj())

    def dim(self):
        return self._value.dim() - 1

    def size(self, dim=None):
        s = self.shape
        return s if dim is None else s[_wrap_dim(dim, len(s))]

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __len__(self):
        if not self.dim():
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        return iter(self.unbind(0))

    def __repr__(self):
        v = repr(self._value).replace("\n", "\n    ")
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n    {v}\n)"

    __str__ = __repr__

    def __bool__(self):
        raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some "
                           "data-dependent control flow. We don't support that yet, please "
                           "file an issue at https://github.com/pytorch/pytorch/issues .")

    def item(self):
        if _STATE["legacy"] or _STATE["quiet"]:
            raise RuntimeError("Batching rule not implemented for aten::item. We could not "
                               "generate a fallback.")
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't "
                           "support vmap over calling .item() on a Tensor, please try to "
                           "rewrite what you're doing with other operations. If error is "
                           "occurring somewhere inside PyTorch internals, please file a bug "
                           "report.")

    __float__ = __int__ = __index__ = tolist = numpy = item

    def __hash__(self):
        return id(self)


def _batched(value, lv):
    t = object.__new__(BatchedTensor)
    t._value = value
    t._level = lv
    return t


def _wrap_dim(d, n):
    m = max(n, 1)
    if not -m <= d < m:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-m}, {m - 1}], "
                         f"but got {d})")
    return d % m


# ---- dispatch -------------------------------------------------------------------------------
def _top(args, kwargs):
    """The innermost vmap level among the tensors in args/kwargs (None: none is batched)."""
    lv = None
    for a in args:
        if type(a) is BatchedTensor:
            if lv is None or a._level > lv:
                lv = a._level
        elif type(a) in (list, tuple):
            for b in a:
                if type(b) is BatchedTensor and (lv is None or b._level > lv):
                    lv = b._level
    if kwargs:
        for a in kwargs.values():
            if type(a) is BatchedTensor and (lv is None or a._level > lv):
                lv = a._level
    return lv


def _make(fn):
    rule = RULES.get(fn)

    def dispatch(*args, **kwargs):
        lv = _top(args, kwargs)
        if lv is None:
            return fn(*args, **kwargs)
        if rule is None:
            return _fallback(fn, lv, args, kwargs)
        return rule(fn, lv, args, kwargs)
    dispatch.__name__ = getattr(fn, "__name__", "op")
    dispatch.__wrapped__ = fn
    dispatch._vmap_dispatch = True
    return dispatch


def W(fn):
    """fn's dispatcher (rules call ops through it so that outer levels see them)."""
    d = WRAP.get(fn)
    if d is None:
        if getattr(fn, "_vmap_dispatch", False):     # already a dispatcher (a swapped global)
            return fn
        d = WRAP[fn] = _make(fn)
    return d


def _size(lv):
    for ident, size, _ in LEVELS:
        if ident == lv:
            return size
    raise RuntimeError("vmap: a BatchedTensor escaped the vmap that made it")


def _randomness():
    return LEVELS[-1][2]


def _fallback(fn, lv, args, kwargs):
    name = getattr(fn, "__name__", "op").strip("_")
    if name not in _WARNED and not _STATE["quiet"]:
        _WARNED.add(name)
        warnings.warn(f"There is a performance drop because we have not yet implemented the "
                      f"batching rule for aten::{name}. Please file us an issue on GitHub so "
                      f"that we can prioritize its implementation.", UserWarning, stacklevel=3)
    inplace = fn.__name__.endswith("_") and not fn.__name__.endswith("__") and args
    if inplace and isinstance(args[0], Tensor) and \
            not (type(args[0]) is BatchedTensor and args[0]._level == lv):
        _inplace_error(fn.__name__, lv, args)
    leaves, spec = _tree.flatten((list(args), kwargs))
    outs = []
    ospec = None
    d = W(fn)
    for b in range(_size(lv)):
        sample = [x._value.select(0, b) if type(x) is BatchedTensor and x._level == lv else x
                  for x in leaves]
        a, k = _tree.unflatten(sample, spec)
        o = d(*a, **k)
        flat, ospec = _tree.flatten(o)
        outs.append(flat)
    if inplace and type(args[0]) is BatchedTensor:
        return args[0]          # in place: the samples were views of the value
    res = []
    for col in zip(*outs):
        if isinstance(col[0], Tensor):
            res.append(_batched(W(_stack)(list(col)), lv))
        else:
            res.append(col[0])
    return _tree.unflatten(res, ospec)


def _out(o, lv):
    """An op's result on values, as BatchedTensors of level lv."""
    if isinstance(o, Tensor):
        return _batched(o, lv)
    if isinstance(o, tuple):
        return _rebuild(o, [_out(x, lv) for x in o])
    if isinstance(o, list):
        return [_out(x, lv) for x in o]
    return o


def _rebuild(o, vals):
    """A tuple of o's kind (torch.return_types, namedtuple, tuple) holding vals."""
    if hasattr(o, "_fields") and not hasattr(o, "n_fields"):
        return type(o)(*vals)
    return type(o)(vals)


def _un(a, lv):
    """(value, batched?) of a at level lv."""
    if type(a) is BatchedTensor and a._level == lv:
        return a._value, True
    return a, False


def _pad(v, k, r):
    """Value v of a logical rank-k tensor with 1s inserted after the batch dim: rank r."""
    if k >= r:
        return v
    s = tuple(v.shape)
    return v.reshape(s[:1] + (1,) * (r - k) + s[1:])


def _expand_to(a, lv):
    """a as a value of level lv (an unbatched tensor repeated over the batch)."""
    v, b = _un(a, lv)
    if b:
        return v
    return v.unsqueeze(0).expand(_size(lv), *v.shape)


def lift(t):
    """t batched at every open level (grad transforms differentiate per sample)."""
    if not isinstance(t, Tensor):
        return t
    have = set()
    x = t
    while type(x) is BatchedTensor:
        have.add(x._level)
        x = x._value
    for ident, size, _ in LEVELS:
        if ident in have:
            continue
        # wrap the level under the ones t already has that are inner to it
        t = _lift_at(t, ident, size)
    return t


def _lift_at(t, ident, size):
    if type(t) is BatchedTensor and t._level > ident:
        return _batched(_lift_at(t._value, ident, size), t._level)
    return _batched(t.unsqueeze(0).expand(size, *t.shape), ident)


# ---- rules ----------------------------------------------------------------------------------
def _pointwise(fn, lv, args, kwargs):
    r = 0
    lowrank = False
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            r = max(r, a.dim())
    conv = []
    zero_dims = []
    for a in args:
        if type(a) is BatchedTensor and a._level == lv:
            k = a.dim()
            if k == 0:
                zero_dims.append(len(conv))
                lowrank = True
            conv.append(_pad(a._value, k, r))
        else:
            conv.append(a)
    kw = {}
    for key, a in kwargs.items():
        if type(a) is BatchedTensor and a._level == lv:
            kw[key] = _pad(a._value, a.dim(), r)
        else:
            kw[key] = a
    if lowrank and r:
        conv = _promote_fix(args, conv, zero_dims)
    name = fn.__name__
    if name.endswith("_") and not name.endswith("__") and args:
        if not (type(args[0]) is BatchedTensor and args[0]._level == lv):
            _inplace_error(name, lv, args)
        W(fn)(*conv, **kw)
        return args[0]
    return _out(W(fn)(*conv, **kw), lv)


_TI_INPLACE = ("add_", "__iadd__", "atan2_", "arctan2_", "hypot_", "copysign_", "xlogy_",
               "logaddexp_", "maximum_", "minimum_")
_ARITH_INPLACE = ("sub_", "subtract_", "__isub__", "mul_", "multiply_", "__imul__", "div_",
                  "divide_", "true_divide_", "__itruediv__", "copy_")


def _inplace_error(name, lv, args):
    """torch's error for writing a batched value into an unbatched tensor in place."""
    if name in _TI_INPLACE:
        shape = [_size(lv)] + list(_bshape([a for a in args if isinstance(a, Tensor)]))
        raise RuntimeError(f"output with shape {list(args[0].shape)} doesn't match the "
                           f"broadcast shape {shape}")
    if name in _ARITH_INPLACE:
        what, where, instead = "inplace arithmetic", "in a vmap", "inplace arithmetic"
    else:
        what = instead = f"aten::{name.strip('_')}_"
        depth = 1 + [i for i, _, _ in LEVELS].index(lv)
        where = f"at level {depth}"
    raise RuntimeError(f"vmap: {what}(self, *extra_args) is not possible because there exists "
                       f"a Tensor `other` in extra_args that has more elements than `self`. "
                       f"This happened due to `other` being vmapped over but `self` not being "
                       f"vmapped over {where}. Please try to use out-of-place operators "
                       f"instead of {instead}. If said operator is being called inside "
                       f"the PyTorch framework, please file a bug report instead.")


def _bshape(ts):
    r = max(t.dim() for t in ts)
    out = [1] * r
    for t in ts:
        s = list(t.shape)
        for i, n in enumerate(s):
            j = r - len(s) + i
            if out[j] == 1:
                out[j] = n
    return out


def _promote_fix(args, conv, zero_dims):
    """A batched 0-dim tensor is a dimensioned value: cast it to the dtype torch's rule gives
    the logical operands (a 0-dim tensor ranks below a dimensioned one)."""
    ts = [a for a in args if isinstance(a, Tensor) and a.dtype is not _bool()]
    if len(ts) < 2 or len({t.dtype for t in ts}) < 2:
        return conv
    try:
        want = result_type(*[_dummy(a) for a in args if isinstance(a, Tensor)
                             and a.dtype is not _bool()])
    except Exception:
        return conv
    conv = list(conv)
    for i in zero_dims:
        if conv[i].dtype is not _bool() and conv[i].dtype != want:
            conv[i] = conv[i].to(want)
    return conv


def _bool():
    return bool_


def _dummy(a):
    return zeros((1,) * a.dim(), dtype=a.dtype)


def _dimarg(args, kwargs, pos, name="dim"):
    if name in kwargs:
        return kwargs[name], "kw"
    if len(args) > pos:
        return args[pos], "pos"
    return None, None


def _setarg(args, kwargs, pos, name, value, where):
    args = list(args)
    if where == "pos":
        args[pos] = value
    else:
        kwargs = dict(kwargs)
        kwargs[name] = value
    return args, kwargs


def _shift(d, r):
    """Logical dim d of a rank-r tensor as a dim of its value."""
    if isinstance(d, (tuple, list)):
        return type(d)(_shift(x, r) for x in d)
    return _wrap_dim(d, r) + 1


def _reduction(pos, tuple_ok=True):
    """Rule for reductions and dim-wise ops whose dim is argument `pos` (or dim=)."""
    def rule(fn, lv, args, kwargs):
        x = args[0]
        v, b = _un(x, lv)
        d, where = _dimarg(args, kwargs, pos)
        if d is None and "axis" in kwargs:
            d, where = kwargs["axis"], "kw"
            kwargs = dict(kwargs)
            del kwargs["axis"]
            where = "kw"
            kwargs["dim"] = d
        if not b or isinstance(d, (Tensor, bool, str)) or "other" in kwargs:
            return _pointwise(fn, lv, args, kwargs)
        r = x.dim()
        if d is None and fn in _IMPLICIT:         # F.softmax(x): torch's implicit dim, warned
            d = _IMPLICIT[fn](fn.__name__, r, 5)
            where = "kw"
        squeeze = False
        if r == 0:
            v = v.unsqueeze(-1)
            r = 1
            squeeze = True
        if d is None or d == ():
            if where is None and fn.__name__ in ("median", "nanmedian"):
                return _batched(W(fn)(v.reshape(v.shape[0], -1), 1)[0], lv)
            if where is None and fn.__name__ in _MAXMIN:
                out = W(_amax if fn.__name__ == "max" else _amin)(
                    v.reshape(v.shape[0], -1), 1)
                return _batched(out, lv)
            if tuple_ok:
                newd = tuple(range(1, r + 1))
            else:
                keep = kwargs.get("keepdim", False) or (len(args) > pos + 1 and args[pos + 1])
                a2 = list(args)
                a2[0] = v.reshape(v.shape[0], -1)
                a2, k2 = _setarg(a2, kwargs, pos, "dim", 1, where or "kw")
                out = W(fn)(*a2, **k2)
                if keep and isinstance(out, Tensor):
                    out = out.reshape((out.shape[0],) + (1,) * r)
                return _out(out, lv)
            if where is None:
                where = "kw"
        else:
            newd = _shift(d, r)
        a2 = list(args)
        a2[0] = v
        a2, k2 = _setarg(a2, kwargs, pos, "dim", newd, where)
        out = W(fn)(*a2, **k2)
        if squeeze:
            out = _squeeze_out(out)
        return _out(out, lv)
    return rule


def _squeeze_out(o):
    if isinstance(o, Tensor):
        return o.squeeze(-1) if o.dim() == 2 else o
    if isinstance(o, tuple):
        return _rebuild(o, [_squeeze_out(x) for x in o])
    return o


_MAXMIN = ("max", "min")
_IMPLICIT = {}      # F.softmax, log_softmax, softmin -> F._softmax_dim


def _matmul(fn, lv, args, kwargs):
    a, b = args[0], args[1]
    va, ba = _un(a, lv)
    vb, bb = _un(b, lv)
    ra, rb = a.dim(), b.dim()
    if ra == 0 or rb == 0:
        return _fallback(fn, lv, args, kwargs)
    sa = sb = False
    if ra == 1:
        va = va.unsqueeze(-2) if ba else va.unsqueeze(0)
        ra, sa = 2, True
    if rb == 1:
        vb = vb.unsqueeze(-1)
        rb, sb = 2, True
    r = max(ra, rb)
    if ba:
        va = _pad(va, ra, r)
    if bb:
        vb = _pad(vb, rb, r)
    out = W(_mm_fn)(va, vb)
    if sb:
        out = out.squeeze(-1)
    if sa:
        out = out.squeeze(-1 if sb else -2)
    return _batched(out, lv)


def _dot(fn, lv, args, kwargs):
    return _matmul(fn, lv, args[:2], {})


def _outer(fn, lv, args, kwargs):
    a, b = args[0], args[1]
    return W(_mul)(a.unsqueeze(1), b.unsqueeze(0))


def _addmm(fn, lv, args, kwargs):
    inp, m1, m2 = args[:3]
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    prod = W(_mm_fn)(m1, m2)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        return prod
    return W(_add)(prod, inp if beta == 1 else inp * beta)


def _linear(fn, lv, args, kwargs):
    x = args[0]
    w = args[1] if len(args) > 1 else kwargs.get("weight")
    bias = args[2] if len(args) > 2 else kwargs.get("bias")
    vx, bx = _un(x, lv)
    if not (type(w) is BatchedTensor and w._level == lv) and \
            not (type(bias) is BatchedTensor and bias._level == lv):
        return _batched(W(fn)(vx, w, bias), lv)
    out = W(_mm_fn)(x, w.t() if w.dim() == 2 else w)
    return out if bias is None else W(_add)(out, bias)


def _einsum(fn, lv, args, kwargs):
    eq = args[0]
    ops = list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple)) \
        else list(args[1:])
    eq = eq.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    used = set(eq)
    free = next(c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba"
                if c not in used)
    if not arrow:
        counts = {}
        for c in lhs.replace(",", "").replace(".", ""):
            counts[c] = counts.get(c, 0) + 1
        rhs = ("..." if "..." in lhs else "") + "".join(sorted(c for c, n in counts.items()
                                                               if n == 1))
    vals = []
    new_terms = []
    for t, o in zip(terms, ops):
        v, b = _un(o, lv)
        vals.append(v)
        new_terms.append(free + t if b else t)
    new = ",".join(new_terms) + "->" + free + rhs
    return _batched(W(fn)(new, *vals), lv)


def _shape_args(args, kwargs, key="size"):
    if key in kwargs:
        s = kwargs[key]
    elif len(args) == 2 and isinstance(args[1], (tuple, list, Size)):
        s = args[1]
    else:
        s = args[1:]
    return tuple(int(n) for n in s)


def _reshape(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    if not b:
        return _fallback(fn, lv, args, kwargs)
    shape = _shape_args(args, kwargs, "size" if "size" in kwargs else "shape")
    return _batched(v.reshape((v.shape[0],) + shape), lv)


def _as(fn, lv, args, kwargs):
    x, other = args[0], args[1]
    v, b = _un(x, lv)
    if not b:           # the other's logical shape only: an unbatched result
        shape = tuple(other.shape)
        return v.expand(*shape) if fn.__name__.startswith("expand") else v.reshape(shape)
    if fn.__name__.startswith("expand"):
        return x.expand(*other.shape)
    return _batched(v.reshape((v.shape[0],) + tuple(other.shape)), lv)


def _flatten(fn, lv, args, kwargs):
    x = args[0]
    v, _ = _un(x, lv)
    r = x.dim()
    s = kwargs.get("start_dim", args[1] if len(args) > 1 else 0)
    e = kwargs.get("end_dim", args[2] if len(args) > 2 else -1)
    if r == 0:
        _wrap_dim(s, 0)
        _wrap_dim(e, 0)
        return _batched(v.reshape(v.shape[0], 1), lv)
    return _batched(v.flatten(_shift(s, r), _shift(e, r)), lv)


def _dims_rule(*positions, new_rank=0):
    """Rule for ops whose arguments at `positions` are dims of the input (logical rank + new_rank
    for the range, e.g. unsqueeze's 1)."""
    def rule(fn, lv, args, kwargs):
        x = args[0]
        v, b = _un(x, lv)
        if not b:
            return _fallback(fn, lv, args, kwargs)
        r = x.dim() + new_rank
        names = _DIM_NAMES
        a2 = [v] + list(args[1:])
        k2 = dict(kwargs)
        for p in positions:
            if p < len(a2):
                a2[p] = _shift(a2[p], r)
        for k in names:
            if k in k2 and k2[k] is not None:
                k2[k] = _shift(k2[k], r)
        return _out(W(fn)(*a2, **k2), lv)
    return rule


_DIM_NAMES = ("dim", "dim0", "dim1", "source", "destination", "start_dim", "end_dim", "dims")


def _permute(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    if not b:
        return _fallback(fn, lv, args, kwargs)
    dims = kwargs.get("dims", args[1] if len(args) == 2 and
                      isinstance(args[1], (tuple, list)) else args[1:])
    r = x.dim()
    if len(dims) != r:
        return _fallback(fn, lv, args, kwargs)
    return _batched(v.permute(0, *[_shift(d, r) for d in dims]), lv)


def _transpose(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    if not b:
        return _fallback(fn, lv, args, kwargs)
    r = x.dim()
    d0 = kwargs.get("dim0", args[1] if len(args) > 1 else None)
    d1 = kwargs.get("dim1", args[2] if len(args) > 2 else None)
    if r == 0:
        _wrap_dim(d0, 0)
        _wrap_dim(d1, 0)
        return _batched(v.view_as(v), lv)
    return _batched(v.transpose(_shift(d0, r), _shift(d1, r)), lv)


def _t(fn, lv, args, kwargs):
    x = args[0]
    v, _ = _un(x, lv)
    if x.dim() > 2:
        return _fallback(fn, lv, args, kwargs)
    if x.dim() < 2:
        return _batched(v.view_as(v), lv)
    return _batched(v.transpose(1, 2), lv)


def _squeeze(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    if not b:
        return _fallback(fn, lv, args, kwargs)
    d = kwargs.get("dim", args[1] if len(args) > 1 else None)
    r = x.dim()
    if r == 0:
        if d is not None:
            for dd in (d if isinstance(d, (tuple, list)) else (d,)):
                _wrap_dim(dd, 0)
        return _batched(v.view_as(v), lv)
    if d is None:
        d = tuple(i for i, n in enumerate(x.shape) if n == 1)
    d = _shift(d, r)
    if isinstance(d, list):
        d = tuple(d)
    if d == ():
        return _batched(v.view_as(v), lv)
    return _batched(W(_squeeze_fn)(v, d), lv)


def _expand(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    if not b:
        return _fallback(fn, lv, args, kwargs)
    sizes = _shape_args(args, kwargs)
    r = x.dim()
    if len(sizes) < r:
        return _fallback(fn, lv, args, kwargs)
    v = _pad(v, r, len(sizes))
    return _batched(v.expand(v.shape[0], *sizes), lv)


def _getitem(fn, lv, args, kwargs):
    x, idx = args[0], args[1]
    v, b = _un(x, lv)
    items = idx if isinstance(idx, tuple) else (idx,)
    advanced = [i for i in items if not (i is None or i is Ellipsis or isinstance(i, (int, slice)))
                or isinstance(i, bool)]
    # one unbatched tensor index keeps its place (no dims move to the front): as basic ones
    if b and (not advanced or len(advanced) == 1 and isinstance(advanced[0], Tensor) and
              type(advanced[0]) is not BatchedTensor):
        return _batched(v[(slice(None),) + items], lv)
    adv = _advanced_index(x, items, lv)
    if adv is None:
        return _fallback(fn, lv, args, kwargs)
    vx, new, order = adv
    out = vx[new]
    if order is not None:
        k, q = order
        out = out.permute(0, *range(k + 1, k + 1 + q), *range(1, k + 1),
                          *range(k + 1 + q, out.dim()))
    return _batched(out, lv)


def _advanced_index(x, items, lv):
    """x[items] with integer tensor indices (any of them, or x, batched) on the values: the
    batch indexed by an arange placed first, the others padded to the indices' common rank
    k. The value's result is (B, *index shape, *sliced dims); `order`, (k, q) or None: the
    k index dims go after the q dims sliced before them (indices that sit together).
    None: an index this does not cover (bool or list indices)."""
    tensor_pos = [p for p, i in enumerate(items) if isinstance(i, Tensor)]
    if not tensor_pos:
        return None
    k = 0
    for p, i in enumerate(items):
        if isinstance(i, Tensor):
            if i.dtype is bool_ or i.dtype.is_floating_point or i.dtype.is_complex:
                return None
            k = max(k, i.dim())
        elif isinstance(i, bool) or not (i is None or i is Ellipsis or
                                          isinstance(i, (int, slice))):
            return None
    # (a Python int selects first, as in torch: it is neither advanced nor a result dim)
    rest = [i for i in items if not isinstance(i, int)]
    advanced = [p for p, i in enumerate(rest) if isinstance(i, Tensor)]
    vx = _expand_to(x, lv)
    size = vx.shape[0]
    new = [W(_arange)(size).reshape((size,) + (1,) * k)]
    for i in items:
        if isinstance(i, Tensor):
            vi, bi = _un(i, lv)
            new.append(_pad(vi, i.dim(), k) if bi else vi)
        else:
            new.append(i)
    first = advanced[0]
    if advanced != list(range(first, advanced[-1] + 1)):
        return vx, tuple(new), None     # apart: the index dims go first, as logically
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    q = 0                               # the result's dims before the advanced ones
    for i in rest[:first]:
        q += x.dim() - consumed if i is Ellipsis else 1
    if not q:
        return vx, tuple(new), None
    return vx, tuple(new), (k, q)


def _setitem(fn, lv, args, kwargs):
    """x[idx] = value with a basic index: the write lands in the value's region per sample."""
    x, idx, val = args[0], args[1], args[2]
    items = idx if isinstance(idx, tuple) else (idx,)
    basic = all((i is None or i is Ellipsis or isinstance(i, (int, slice)))
                and not isinstance(i, bool) for i in items)
    v, b = _un(x, lv)
    if not b:
        _inplace_error("copy_", lv, (x, val))
    if not basic:
        adv = _advanced_index(x, items, lv)
        if adv is None or not isinstance(val, (Tensor, int, float, bool)):
            return _fallback(fn, lv, args, kwargs)
        _put_advanced(adv, val, lv, lambda vx, new, vv: W(fn)(vx, new, vv))
        return None
    region = (slice(None),) + items
    vv, vb = _un(val, lv)
    if vb:
        vv = _pad(vv, val.dim(), v[region].dim() - 1)
    W(fn)(v, region, vv)
    return None


def _put_advanced(adv, val, lv, write):
    """Write val into x[items] (adv: _advanced_index's value, indices and order): val
    broadcast to the logical result, its dims put in the value's order."""
    vx, new, order = adv
    shape = list(vx[new].shape)             # the value's result: (B, *index shape, *rest)
    perm = None
    if order is not None:
        k, q = order
        perm = [0, *range(k + 1, k + 1 + q), *range(1, k + 1), *range(k + 1 + q, len(shape))]
        shape = [shape[p] for p in perm]    # the logical result's, batch first
    if isinstance(val, Tensor):
        vv, vb = _un(val, lv)
        if vb:
            vv = _pad(vv, val.dim(), len(shape) - 1)
        vv = vv.expand(*shape)
        if perm is not None:                # back to the value's order
            vv = vv.permute(*[perm.index(i) for i in range(len(perm))])
    else:
        vv = val
    write(vx, new, vv)


def _index_put(fn, lv, args, kwargs):
    """index_put(_)(x, indices, values, accumulate): as x[indices] = values, batched."""
    kw = dict(zip(("input", "indices", "values", "accumulate"), args))
    kw.update(kwargs)
    x, idx, val = kw.get("input"), kw.get("indices"), kw.get("values")
    acc = kw.get("accumulate", False)
    inplace = fn.__name__.endswith("_")
    if not isinstance(idx, (tuple, list)) or not isinstance(val, Tensor) or \
            not all(isinstance(i, Tensor) for i in idx) or \
            inplace and not (type(x) is BatchedTensor and x._level == lv):
        return _fallback(fn, lv, args, kwargs)
    if not inplace:
        x = x.clone()
    adv = _advanced_index(x, tuple(idx), lv)
    if adv is None:
        return _fallback(fn, lv, args, kwargs)
    _put_advanced(adv, val, lv, lambda vx, new, vv: W(_index_put_fn)(vx, list(new), vv, acc))
    return x


def _dimop(pos, default):
    """Rule for ops along one dim (argument `pos`, or dim=; `default` when not given)."""
    def rule(fn, lv, args, kwargs):
        x = args[0]
        v, b = _un(x, lv)
        if not b or not x.dim() or _top(args[1:], kwargs) == lv:
            return _fallback(fn, lv, args, kwargs)
        a2 = [v] + list(args[1:])
        k2 = dict(kwargs)
        if len(a2) > pos:
            a2[pos] = _shift(a2[pos], x.dim())
        else:
            k2["dim"] = _shift(k2.get("dim", default), x.dim())
        return _out(W(fn)(*a2, **k2), lv)
    return rule


def _new(fn, lv, args, kwargs):
    """x.new_zeros(size), ...: only x's dtype and device matter; the result is unbatched."""
    if _top(args[1:], kwargs) is not None:
        return _fallback(fn, lv, args, kwargs)
    v, _ = _un(args[0], lv)
    return W(fn)(v, *args[1:], **kwargs)


def _layer_norm(fn, lv, args, kwargs):
    kw = dict(zip(("input", "normalized_shape", "weight", "bias", "eps"), args))
    kw.update(kwargs)
    v, b = _un(kw.pop("input"), lv)
    w, bias = kw.get("weight"), kw.get("bias")
    if _top((w, bias), {}) != lv:
        return _batched(W(fn)(v, **kw), lv)
    kw["weight"] = kw["bias"] = None        # a batched affine: applied as ops after
    out = W(fn)(v, **kw)
    if b:
        out = _batched(out, lv)
    if w is not None:
        out = out * w
    return out if bias is None else out + bias


def _repeat(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    sizes = _shape_args(args, kwargs, "repeats")
    if not b or len(sizes) < x.dim():
        return _fallback(fn, lv, args, kwargs)
    return _batched(W(fn)(_pad(v, x.dim(), len(sizes)), (1,) + sizes), lv)


def _join(fn, lv, args, kwargs):
    ts = list(args[0])
    d = kwargs.get("dim", args[1] if len(args) > 1 else 0)
    if "axis" in kwargs:
        d = kwargs["axis"]
    vals = [_expand_to(t, lv) for t in ts]
    r = max(t.dim() for t in ts) + (1 if fn.__name__ == "stack" else 0)
    if fn.__name__ != "stack":
        vals = [v if t.dim() else v for v, t in zip(vals, ts)]
    return _batched(W(fn)(vals, _shift(d, r)), lv)


def _split(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    if not b:
        return _fallback(fn, lv, args, kwargs)
    d = kwargs.get("dim", args[2] if len(args) > 2 else 0)
    a2 = [v, args[1] if len(args) > 1 else kwargs.get("split_size_or_sections",
                                                      kwargs.get("chunks",
                                                                 kwargs.get("split_size")))]
    return _out(W(fn)(*a2, dim=_shift(d, x.dim())), lv)


def _gather(fn, lv, args, kwargs):
    x, d, idx = args[0], kwargs.get("dim", args[1] if len(args) > 1 else None), \
        kwargs.get("index", args[2] if len(args) > 2 else None)
    r = x.dim()
    if fn.__name__ == "index_select":
        vi, bi = _un(idx, lv)
        vx = _expand_to(x, lv)
        dd = _shift(d, r)
        if not bi:
            return _batched(W(fn)(vx, dd, vi), lv)
        # a batched index: gather with the index broadcast over the other dims
        shape = list(vx.shape)
        k = vi.shape[-1] if vi.dim() > 1 else 1
        vi = vi.reshape((shape[0],) + (1,) * (dd - 1) + (k,) + (1,) * (len(shape) - dd - 1))
        shape[dd] = k
        return _batched(W(_gather_fn)(vx, dd, vi.expand(*shape)), lv)
    vx = _expand_to(x, lv)
    vi = _expand_to(idx, lv)
    return _batched(W(fn)(vx, _shift(d, r), vi), lv)


def _like(fn, lv, args, kwargs):
    """*_like creation: the value's *_like (random ones follow vmap's randomness)."""
    if fn in _RANDOM:
        mode = _randomness()
        if mode == "error":
            raise RuntimeError(RANDOM_ERROR)
        if mode == "same":
            x = args[0]
            return W(fn)(zeros(tuple(x.shape), dtype=x.dtype), *args[1:], **kwargs)
    return _pointwise(fn, lv, args, kwargs)


def _random_creation(fn):
    """rand/randn/... inside vmap: per randomness, an error, one draw, or one per sample."""
    def dispatch(*args, **kwargs):
        if not LEVELS:
            return fn(*args, **kwargs)
        lv = _top(args, kwargs)
        if lv is None and _STATE["raw"]:        # a rule's call on values
            return fn(*args, **kwargs)
        mode = _randomness()
        if mode == "error":
            raise RuntimeError(RANDOM_ERROR)
        if lv is not None:
            if mode == "same" and fn.__name__ == "dropout" and not kwargs.get("inplace"):
                x = args[0]         # one mask for every sample: drawn on the logical shape
                mask = fn(ones_like(zeros(tuple(x.shape), dtype=x.dtype)), *args[1:],
                          **kwargs)
                return x * mask
            if mode == "same" and fn not in RULES:
                raise RuntimeError("Vmap does not currently support same randomness with a "
                                   "batched tensor input. Please file an issue with functorch")
            _STATE["raw"] += 1
            try:
                if mode == "same" and fn in RULES:
                    return _like(fn, lv, args, kwargs)
                return _pointwise(fn, lv, args, kwargs)
            finally:
                _STATE["raw"] -= 1
        if mode == "same":
            return fn(*args, **kwargs)
        ident, size, _ = LEVELS[-1]
        if fn.__name__ in ("rand", "randn"):
            shape = kwargs.pop("size", None) or _shape_args((None,) + args, {})
            return _batched(fn((size,) + tuple(shape), **kwargs), ident)
        outs = [fn(*args, **kwargs) for _ in range(size)]
        return _batched(W(_stack)(outs), ident)
    dispatch.__name__ = fn.__name__
    dispatch.__wrapped__ = fn
    dispatch._vmap_dispatch = True
    return dispatch


def _cross_entropy(fn, lv, args, kwargs):
    names = ("input", "target", "weight", "size_average", "ignore_index", "reduce",
             "reduction", "label_smoothing")
    kw = dict(zip(names, args))
    kw.update(kwargs)
    x, tgt = kw.pop("input"), kw.pop("target")
    red = kw.pop("reduction", "mean")
    if kw.get("size_average") is not None or kw.get("reduce") is not None:
        return _fallback(fn, lv, args, kwargs)
    kw.pop("size_average", None)
    kw.pop("reduce", None)
    w = kw.get("weight")
    if type(w) is BatchedTensor and w._level == lv:
        return _fallback(fn, lv, args, kwargs)
    vx = _expand_to(x, lv)
    vt = _expand_to(tgt, lv)
    probs = tgt.dtype.is_floating_point
    if x.dim() == 2:
        vx = vx.transpose(1, 2)          # (B, C, N): N as a spatial dim
        if probs:
            vt = vt.transpose(1, 2)
    elif x.dim() != 1:
        return _fallback(fn, lv, args, kwargs)
    loss = W(fn)(vx, vt, reduction="none", **kw)
    if red == "none":
        return _batched(loss, lv)
    if x.dim() == 1:
        if red == "mean" and w is not None and not probs:
            ww = W(_index_select)(w, 0, vt.reshape(-1)).reshape(vt.shape)
            loss = loss / ww
        return _batched(loss, lv)
    total = loss.sum(1)
    if red == "sum":
        return _batched(total, lv)
    if probs:
        return _batched(total / loss.shape[1], lv)
    ig = kw.get("ignore_index", -100)
    keep = vt != ig
    if w is None:
        den = keep.sum(1).to(loss.dtype)
    else:
        safe = W(_where)(keep, vt, 0)
        ww = W(_index_select)(w, 0, safe.reshape(-1)).reshape(safe.shape)
        den = (ww * keep).sum(1)
    return _batched(total / den, lv)


def _nll_loss(fn, lv, args, kwargs):
    return _cross_entropy(fn, lv, args, kwargs)


def _pointwise_loss(fn, lv, args, kwargs):
    names = ("input", "target", "size_average", "reduce", "reduction")
    kw = dict(zip(names, args))
    kw.update(kwargs)
    x, tgt = kw.pop("input"), kw.pop("target")
    red = kw.pop("reduction", "mean")
    if kw.pop("size_average", None) is not None or kw.pop("reduce", None) is not None:
        return _fallback(fn, lv, args, kwargs)
    r = max(x.dim(), tgt.dim())
    loss = _pointwise(fn, lv, (x, tgt), dict(kw, reduction="none"))
    if red == "none" or r == 0:
        return loss
    v = loss._value
    dims = tuple(range(1, r + 1))
    return _batched(v.mean(dims) if red == "mean" else v.sum(dims), lv)


def _trace(fn, lv, args, kwargs):
    x = args[0] if args else kwargs.get("input")
    v, b = _un(x, lv)
    if not b or x.dim() != 2 or x.dtype is bool_:
        return _fallback(fn, lv, args, kwargs)      # (the sample's error)
    return _batched(v.diagonal(0, 1, 2).sum(-1), lv)


def _atleast(t, n):
    """torch's atleast_{n}d on a logical tensor (a view through the dispatchers)."""
    s = tuple(t.shape)
    if len(s) >= n:
        return t
    if n == 1 or not s:
        return t.reshape((1,) * n)
    if n == 2:
        return t.reshape(1, s[0])
    return t.reshape(1, s[0], 1) if len(s) == 1 else t.reshape(s + (1,))


def _stacks(fn, lv, args, kwargs):
    """hstack, vstack, dstack, column_stack: torch's compositions (atleast_Nd, then cat)."""
    ts = args[0] if args else kwargs.get("tensors")
    if kwargs.get("out") is not None or not isinstance(ts, (list, tuple)) or not ts or \
            not all(isinstance(t, Tensor) for t in ts):
        return _fallback(fn, lv, args, kwargs)
    name = fn.__name__
    if name == "hstack":
        ts = [_atleast(t, 1) for t in ts]
        d = 0 if ts[0].dim() == 1 else 1
    elif name == "dstack":
        ts, d = [_atleast(t, 3) for t in ts], 2
    elif name == "column_stack":
        ts, d = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in ts], 1
    else:
        ts, d = [_atleast(t, 2) for t in ts], 0
    return W(_cat)(list(ts), d)


def _tile(fn, lv, args, kwargs):
    x = args[0] if args else kwargs.get("input")
    dims = args[1] if len(args) == 2 else tuple(args[1:]) if len(args) > 2 else \
        kwargs.get("dims")
    if isinstance(dims, int) and not isinstance(dims, bool):
        dims = (dims,)
    if not isinstance(dims, (tuple, list, Size)) or \
            not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
        return _fallback(fn, lv, args, kwargs)
    reps = (1,) * (x.dim() - len(dims)) + tuple(dims)
    return x.repeat(*reps)


def _spatial(name):
    """The number of spatial dims in an op's name (conv2d, max_pool3d, ...: 2, 3)."""
    for n in "123":
        if n + "d" in name:
            return int(n)
    return None


def _pool(fn, lv, args, kwargs):
    """Pooling (and any op on (N, C, *spatial) or (C, *spatial) with no other batched
    argument): the vmap batch folded into N, one call, unfolded."""
    n = _spatial(fn.__name__)
    x = args[0] if args else None
    v, b = _un(x, lv)
    if b and fn.__name__.startswith("adaptive_avg") and x.dim() not in (n + 1, n + 2) and \
            x.dim() >= n and _top(args[1:], kwargs) is None:
        # an output of all 1s is the mean over the last n dims, at any rank (as torch's op)
        o = args[1] if len(args) > 1 else kwargs.get("output_size")
        if o == 1 and not isinstance(o, bool) or isinstance(o, (tuple, list)) and \
                x.dim() > len(o) and all(s == 1 and not isinstance(s, bool) for s in o):
            return x.mean(tuple(range(-1, -n - 1, -1)), keepdim=True)
    if not b or n is None or _top(args[1:], kwargs) is not None or \
            x.dim() not in (n + 1, n + 2):
        return _fallback(fn, lv, args, kwargs)
    if x.dim() == n + 1:        # samples without N: the vmap batch is N
        return _out(W(fn)(v, *args[1:], **kwargs), lv)
    s = tuple(v.shape)
    out = W(fn)(v.reshape((s[0] * s[1],) + s[2:]), *args[1:], **kwargs)
    return _out(_unfold(out, s[0], s[1]), lv)


def _unfold(o, B, N):
    if isinstance(o, Tensor):
        return o.reshape((B, N) + tuple(o.shape)[1:])
    if isinstance(o, tuple):
        return _rebuild(o, [_unfold(x, B, N) for x in o])
    return o


_CONV_ARGS = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
_CONVT_ARGS = ("input", "weight", "bias", "stride", "padding", "output_padding", "groups",
               "dilation")


def _conv(fn, lv, args, kwargs):
    """conv and conv_transpose: a batched input alone folds the vmap batch into N; a batched
    weight or bias makes each sample its own group (the batch moved into the channels,
    groups * B)."""
    name = fn.__name__
    n = _spatial(name)
    kw = dict(zip(_CONVT_ARGS if "transpose" in name else _CONV_ARGS, args))
    kw.update(kwargs)
    x, w, bias = kw.pop("input", None), kw.pop("weight", None), kw.pop("bias", None)
    groups = kw.pop("groups", 1)
    if n is None or not isinstance(x, Tensor) or not isinstance(w, Tensor) or \
            _top((), kw) is not None or x.dim() not in (n + 1, n + 2) or \
            w.dim() != n + 2 or not isinstance(groups, int):
        return _fallback(fn, lv, args, kwargs)
    vx, bx = _un(x, lv)
    vw, bw = _un(w, lv)
    vb, bb = _un(bias, lv)
    if not bw and not bb:
        return _conv_fold(fn, lv, x, w, bias, groups, kw, n)
    vx = _expand_to(x, lv)
    if x.dim() == n + 1:
        vx = vx.unsqueeze(1)
    s = tuple(vx.shape)
    B, N = s[0], s[1]
    xs = vx.movedim(0, 1).reshape((N, B * s[2]) + s[3:])
    vw = _expand_to(w, lv)
    ws = tuple(vw.shape)
    ww = vw.reshape((B * ws[1],) + ws[2:])
    if bias is not None:
        vb = _expand_to(bias, lv)
        vb = vb.reshape(B * vb.shape[1])
    out = W(fn)(xs, ww, vb, groups=groups * B, **kw)
    o = tuple(out.shape)
    out = out.reshape((N, B, o[1] // B) + o[2:]).movedim(1, 0)
    if x.dim() == n + 1:
        out = out.squeeze(1)
    return _batched(out, lv)


def _conv_fold(fn, lv, x, w, bias, groups, kw, n):
    v = x._value
    if x.dim() == n + 1:
        return _batched(W(fn)(v, w, bias, groups=groups, **kw), lv)
    s = tuple(v.shape)
    out = W(fn)(v.reshape((s[0] * s[1],) + s[2:]), w, bias, groups=groups, **kw)
    return _batched(out.reshape((s[0], s[1]) + tuple(out.shape)[1:]), lv)


def _defaults(names, defaults, new_rank=0):
    """Rule for view ops whose dims (arguments `names`, at positions 1.. in order) have
    defaults: each given or default dim shifted past the batch (logical rank + new_rank)."""
    def rule(fn, lv, args, kwargs):
        x = args[0]
        v, b = _un(x, lv)
        if not b or _top(args[1:], kwargs) is not None:
            return _fallback(fn, lv, args, kwargs)
        kw = dict(zip(names, args[1:]))
        kw.update(kwargs)
        r = x.dim() + new_rank
        for n, d in defaults.items():
            k = kw.get(n, d)
            if k is not None:
                kw[n] = _shift(k, r)
        return _out(W(fn)(v, **kw), lv)
    return rule


def _diag(fn, lv, args, kwargs):
    """diag: a vector's diagonal matrix (diag_embed) or a matrix's diagonal (diagonal)."""
    x = args[0]
    v, b = _un(x, lv)
    off = args[1] if len(args) > 1 else kwargs.get("diagonal", 0)
    if not b or x.dim() not in (1, 2) or not isinstance(off, int):
        return _fallback(fn, lv, args, kwargs)
    if x.dim() == 1:
        return _batched(W(_diag_embed)(v, off, 1, 2), lv)
    return _batched(W(_diagonal)(v, off, 1, 2), lv)


def _diagflat(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    off = args[1] if len(args) > 1 else kwargs.get("offset", 0)
    if not b or not isinstance(off, int):
        return _fallback(fn, lv, args, kwargs)
    return _batched(W(_diag_embed)(v.reshape(v.shape[0], -1), off, 1, 2), lv)


def _roll(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    shifts = args[1] if len(args) > 1 else kwargs.get("shifts")
    dims = args[2] if len(args) > 2 else kwargs.get("dims")
    if not b or _top(args[1:], kwargs) is not None:
        return _fallback(fn, lv, args, kwargs)
    if dims is None or dims == () or dims == []:
        if isinstance(shifts, (tuple, list)) and len(shifts) != 1:
            return _fallback(fn, lv, args, kwargs)      # (the sample's error)
        flat = v.reshape(v.shape[0], -1)
        return _batched(W(fn)(flat, shifts, 1).reshape(v.shape), lv)
    return _batched(W(fn)(v, shifts, _shift(dims, max(x.dim(), 1))), lv)


def _flip_lr_ud(fn, lv, args, kwargs):
    x = args[0]
    d = 1 if fn.__name__ == "fliplr" else 0
    if x.dim() <= d:
        return _fallback(fn, lv, args, kwargs)      # (the sample's error)
    return x.flip(d)


def _ravel(fn, lv, args, kwargs):
    return args[0].reshape(-1)


def _atleast_nd(fn, lv, args, kwargs):
    n = int(fn.__name__[-2])
    if kwargs or not args:
        return _fallback(fn, lv, args, kwargs)
    single = len(args) == 1 and isinstance(args[0], Tensor)
    ts = args if len(args) > 1 or single else args[0]
    if not all(isinstance(t, Tensor) for t in ts):
        return _fallback(fn, lv, args, kwargs)
    out = tuple(_atleast(t, n) for t in ts)
    return out[0] if single else out


def _broadcast_tensors(fn, lv, args, kwargs):
    if kwargs or not all(isinstance(t, Tensor) for t in args):
        return _fallback(fn, lv, args, kwargs)
    shape = _bshape(args) if args else []
    return tuple(t.expand(*shape) for t in args)


def _msort(fn, lv, args, kwargs):
    return W(_sort)(args[0], 0)[0]


def _take(fn, lv, args, kwargs):
    x = args[0] if args else kwargs.get("input")
    idx = args[1] if len(args) > 1 else kwargs.get("index")
    if not isinstance(x, Tensor) or not isinstance(idx, Tensor):
        return _fallback(fn, lv, args, kwargs)
    vx = _expand_to(x, lv)
    vi = _expand_to(idx, lv)
    size = vx.shape[0]
    flat = W(_gather_fn)(vx.reshape(size, -1), 1, vi.reshape(size, -1))
    return _batched(flat.reshape(vi.shape), lv)


def _last_dim(pos, default):
    """Rule for ops of several broadcasting inputs along one dim (argument `pos`, or dim=):
    the dim as a negative one (unchanged by the 1s pointwise padding inserts), then pointwise."""
    def rule(fn, lv, args, kwargs):
        d, where = _dimarg(args, kwargs, pos)
        if d is None:
            d, where = default, "kw"
        if d is None or not isinstance(d, int):
            return _fallback(fn, lv, args, kwargs)
        r = max(a.dim() for a in args[:pos] if isinstance(a, Tensor))
        d = _wrap_dim(d, r) - max(r, 1)
        a2, k2 = _setarg(args, kwargs, pos, "dim", d, where)
        return _pointwise(fn, lv, tuple(a2), k2)
    return rule


def _loss(names):
    """Rule for elementwise losses with signature `names` (input, target, ...): the loss per
    element (reduction='none'), then the reduction per sample."""
    def rule(fn, lv, args, kwargs):
        kw = dict(zip(names, args))
        kw.update(kwargs)
        x, tgt = kw.pop("input", None), kw.pop("target", None)
        red = kw.pop("reduction", "mean")
        if not isinstance(x, Tensor) or not isinstance(tgt, Tensor) or \
                kw.pop("size_average", None) is not None or \
                kw.pop("reduce", None) is not None or red not in ("none", "mean", "sum",
                                                                   "batchmean") or \
                _top((), kw) is not None:
            return _fallback(fn, lv, args, kwargs)
        r = max(x.dim(), tgt.dim())
        loss = _pointwise(fn, lv, (x, tgt), dict(kw, reduction="none"))
        if red == "none":
            return loss
        v = loss._value
        dims = tuple(range(1, r + 1))
        if red == "batchmean":
            return _batched(v.sum(dims) / (x.shape[0] if x.dim() else 1), lv)
        if not dims:
            return loss
        return _batched(v.mean(dims) if red == "mean" else v.sum(dims), lv)
    return rule


def _fold_n(n_spatial=None, only_first=True):
    """Rule for ops on (N, C, *) inputs (group_norm, interpolate, ...): the vmap batch folded
    into N when no other argument is batched."""
    def rule(fn, lv, args, kwargs):
        x = args[0] if args else None
        v, b = _un(x, lv)
        if not b or _top(args[1:], kwargs) is not None or x.dim() < 2:
            return _fallback(fn, lv, args, kwargs)
        s = tuple(v.shape)
        out = W(fn)(v.reshape((s[0] * s[1],) + s[2:]), *args[1:], **kwargs)
        return _out(_unfold(out, s[0], s[1]), lv)
    return rule


def _pad_rule(fn, lv, args, kwargs):
    kw = dict(zip(("input", "pad", "mode", "value"), args))
    kw.update(kwargs)
    x = kw.pop("input", None)
    v, b = _un(x, lv)
    pad = kw.get("pad")
    if not b or _top((), kw) is not None or not isinstance(pad, (tuple, list)) or \
            len(pad) % 2 or len(pad) // 2 > x.dim():
        return _fallback(fn, lv, args, kwargs)
    if kw.get("mode", "constant") == "constant":
        return _batched(W(fn)(v, **kw), lv)
    n = len(pad) // 2
    if x.dim() == n + 1:
        return _batched(W(fn)(v, **kw), lv)
    if x.dim() != n + 2:
        return _fallback(fn, lv, args, kwargs)      # (the sample's error)
    s = tuple(v.shape)
    out = W(fn)(v.reshape((s[0] * s[1],) + s[2:]), **kw)
    return _batched(out.reshape((s[0], s[1]) + tuple(out.shape)[1:]), lv)


def _one_hot(fn, lv, args, kwargs):
    n = args[1] if len(args) > 1 else kwargs.get("num_classes", -1)
    if n is None or n < 0:
        raise RuntimeError("When vmap-ing torch.nn.functional.one_hot, please provide an "
                           "explicit positive num_classes argument.")
    return _pointwise(fn, lv, args, kwargs)


def _embedding(fn, lv, args, kwargs):
    """F.embedding(input, weight): an unbatched table looked up with the batch of indices."""
    kw = dict(zip(("input", "weight"), args))
    kw.update(kwargs)
    idx, w = kw.pop("input", None), kw.pop("weight", None)
    vi, bi = _un(idx, lv)
    if not bi or _top((w,), kw) is not None:
        return _fallback(fn, lv, args, kwargs)
    return _batched(W(fn)(vi, w, **kw), lv)


def _matrices(fn, lv, args, kwargs):
    """Ops on the last two dims (or one) that take leading batch dims themselves: the value
    as it is, when nothing else is batched."""
    x = args[0] if args else None
    v, b = _un(x, lv)
    if not b or _top(args[1:], kwargs) is not None or "dim" in kwargs or x.dim() < 2:
        return _fallback(fn, lv, args, kwargs)
    return _out(W(fn)(v, *args[1:], **kwargs), lv)


def _inner(fn, lv, args, kwargs):
    a, b = args[0], args[1]
    if a.dim() == 0 or b.dim() == 0:
        return W(_mul)(a, b)
    if a.dim() == 1 and b.dim() == 1:
        return _dot(fn, lv, args, kwargs)
    k = a.shape[-1]
    out = W(_mm_fn)(a.reshape(-1, k), b.reshape(-1, k).t())
    return out.reshape(*(tuple(a.shape)[:-1] + tuple(b.shape)[:-1]))


def _bucketize(fn, lv, args, kwargs):
    if _top(args[1:], kwargs) is not None:      # per-sample boundaries
        return _fallback(fn, lv, args, kwargs)
    return _pointwise(fn, lv, args, kwargs)


def _dist(fn, lv, args, kwargs):
    a, b = args[0], args[1]
    p = args[2] if len(args) > 2 else kwargs.get("p", 2)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor) or isinstance(p, Tensor):
        return _fallback(fn, lv, args, kwargs)
    return W(_norm)(W(_sub)(a, b), p)


def _split_named(fn, lv, args, kwargs):
    """hsplit, vsplit, dsplit: tensor_split along dim 1 (0 for a vector), 0, 2."""
    x = args[0]
    if len(args) != 2 or kwargs:
        return _fallback(fn, lv, args, kwargs)
    name = fn.__name__
    d = {"vsplit": 0, "dsplit": 2}.get(name, 1 if x.dim() > 1 else 0)
    sec = args[1]
    if x.dim() <= d or isinstance(sec, int) and (sec <= 0 or x.shape[d] % sec):
        return _fallback(fn, lv, args, kwargs)      # (the sample's error)
    return W(_tensor_split)(x, sec, d)


def _embedding_w_first(fn, lv, args, kwargs):
    """torch.embedding(weight, indices)."""
    w, idx = args[0], args[1]
    vi, bi = _un(idx, lv)
    if not bi or _top((w,) + tuple(args[2:]), kwargs) is not None:
        return _fallback(fn, lv, args, kwargs)
    return _batched(W(fn)(w, vi, *args[2:], **kwargs), lv)


def _quantile(fn, lv, args, kwargs):
    q = args[1] if len(args) > 1 else kwargs.get("q")
    if isinstance(q, Tensor) and q.dim():
        return _fallback(fn, lv, args, kwargs)
    return _reduction(2, False)(fn, lv, args, kwargs)


def _take_along_dim(fn, lv, args, kwargs):
    x, idx = args[0], args[1]
    d = args[2] if len(args) > 2 else kwargs.get("dim")
    if not isinstance(idx, Tensor) or "out" in kwargs:
        return _fallback(fn, lv, args, kwargs)
    if d is None:
        return _take(fn, lv, (x.reshape(-1), idx.reshape(-1)), {})
    r = max(x.dim(), idx.dim())
    if x.dim() != idx.dim():
        return _fallback(fn, lv, args, kwargs)      # (the sample's error)
    vx, vi = _expand_to(x, lv), _expand_to(idx, lv)
    return _batched(W(fn)(vx, vi, _shift(d, r)), lv)


def _unfold_im2col(fn, lv, args, kwargs):
    """F.unfold on (N, C, H, W) or (C, H, W): as pooling, with two spatial dims."""
    x = args[0] if args else None
    v, b = _un(x, lv)
    if not b or _top(args[1:], kwargs) is not None or x.dim() not in (3, 4):
        return _fallback(fn, lv, args, kwargs)
    if x.dim() == 3:
        return _batched(W(fn)(v, *args[1:], **kwargs), lv)
    s = tuple(v.shape)
    out = W(fn)(v.reshape((s[0] * s[1],) + s[2:]), *args[1:], **kwargs)
    return _batched(out.reshape((s[0], s[1]) + tuple(out.shape)[1:]), lv)


def _solve(fn, lv, args, kwargs):
    """linalg.solve(A, B): both as batched values, so that a vector B stays a vector."""
    a, b = args[0], args[1] if len(args) > 1 else kwargs.get("B")
    if not isinstance(a, Tensor) or not isinstance(b, Tensor) or a.dim() < 2 or \
            _top(args[2:], {k: v for k, v in kwargs.items() if k != "B"}) is not None:
        return _fallback(fn, lv, args, kwargs)
    kw = {k: v for k, v in kwargs.items() if k != "B"}
    return _out(W(fn)(_expand_to(a, lv), _expand_to(b, lv), *args[2:], **kw), lv)


def _fft(fn, lv, args, kwargs):
    """torch.fft: dims given are shifted past the batch; the N-d forms' default (every dim)
    and the shifts' made explicit; the 1-d and 2-d defaults (-1; -2, -1) hold as they are."""
    x = args[0] if args else None
    v, b = _un(x, lv)
    name = fn.__name__
    if not b or _top(args[1:], kwargs) is not None or not x.dim() or "out" in kwargs:
        return _fallback(fn, lv, args, kwargs)
    pos = 1 if name.endswith("shift") else 2
    d, where = _dimarg(args, kwargs, pos)
    r = x.dim()
    if d is None:
        sizes = None if pos == 1 else (args[1] if len(args) > 1 else
                                      kwargs.get("s", kwargs.get("n")))
        if name.endswith("shift") or name.endswith("n") and sizes is None:
            d, where = tuple(range(r)), where or "kw"
        else:
            return _out(W(fn)(v, *args[1:], **kwargs), lv)
    a2 = [v] + list(args[1:])
    a2, k2 = _setarg(a2, kwargs, pos, "dim", _shift(d, r), where)
    return _out(W(fn)(*a2, **k2), lv)


_DYNAMIC = {"where": "where", "nonzero": "nonzero", "unique": "_unique2",
            "unique_consecutive": "unique_consecutive"}


def _dynamic(fn, lv, args, kwargs):
    """Ops whose result's shape depends on the values: torch's refusal (where(cond) is one;
    where(cond, x, y) is pointwise)."""
    name = fn.__name__
    if name == "where" and len(args) + len(kwargs) > 1:
        return _pointwise(fn, lv, args, kwargs)
    raise RuntimeError(f"vmap: We do not support batching operators that can output dynamic "
                       f"shape. Attempted to vmap over aten::{_DYNAMIC[name]}. Please file an "
                       f"issue at https://github.com/pytorch/pytorch/issues if you need this "
                       f"feature.")


def _inplace_view(out_of_place):
    """t_, unsqueeze_, squeeze_, transpose_, swapaxes_, ...: the out-of-place view's value
    becomes the batched tensor's (the metadata change is the wrapper's)."""
    def rule(fn, lv, args, kwargs):
        x = args[0]
        if not (type(x) is BatchedTensor and x._level == lv):
            return _fallback(fn, lv, args, kwargs)
        out = getattr(x, out_of_place)(*args[1:], **kwargs)
        x._value = out._value
        return x
    return rule


def _sum_to_size(fn, lv, args, kwargs):
    x = args[0]
    v, b = _un(x, lv)
    if not b or kwargs:
        return _fallback(fn, lv, args, kwargs)
    size = _shape_args(args, kwargs)
    r = x.dim()
    if len(size) > r:
        return _fallback(fn, lv, args, kwargs)      # (the sample's error)
    full = (v.shape[0],) + (1,) * (r - len(size)) + size
    return _batched(W(fn)(v, full).reshape((v.shape[0],) + size), lv)


def _autograd_grad(fn, lv, args, kwargs):
    names = ("outputs", "inputs", "grad_outputs", "retain_graph", "create_graph")
    kw = dict(zip(names, args))
    kw.update(kwargs)
    outs = kw.pop("outputs")
    ins = kw.pop("inputs")
    gos = kw.pop("grad_outputs", None)
    single_out = isinstance(outs, Tensor)
    outs = [outs] if single_out else list(outs)
    single_in = isinstance(ins, Tensor)
    ins = [ins] if single_in else list(ins)
    if gos is None:
        gos = [None] * len(outs)
    elif isinstance(gos, Tensor):
        gos = [gos]
    pairs = [(_un(o, lv), None if g is None else _un(g, lv)) for o, g in zip(outs, gos)]
    batched_gos = any(g is not None and g[1] for _, g in pairs)
    if batched_gos and not any(b for (_, b), _ in pairs) and \
            not any(_un(i, lv)[1] for i in ins):
        # unbatched outputs and inputs, a batch of grad outputs: one backward with batched
        # grads (autograd.grad's is_grads_batched), every gradient batched
        size = next(g[0].shape[0] for _, g in pairs if g is not None and g[1])
        vg = []
        for (v, _), g in pairs:
            if g is None:
                g = (W(ones_like)(v), False)
            gv, gb = g
            vg.append(gv if gb else gv.unsqueeze(0).expand(size, *gv.shape))
        got = W(fn)([v for (v, _), _ in pairs], ins, vg, is_grads_batched=True, **kw)
        return tuple(None if g is None else _batched(g, lv) for g in got)
    vo, vg = [], []
    for o, g in zip(outs, gos):
        v, b = _un(o, lv)
        vo.append(v)
        if g is None:
            g = W(ones_like)(o)
        gv, gb = _un(g, lv)
        if not gb and b:
            gv = gv.unsqueeze(0).expand(*v.shape)
        vg.append(gv)
    vi = [_un(i, lv) for i in ins]
    got = W(fn)(vo, [v for v, _ in vi], vg, **kw)
    res = tuple(None if g is None else (_batched(g, lv) if b else g)
                for g, (_, b) in zip(got, vi))
    return res


def _softmax_backward(fn, lv, args, kwargs):
    """_softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim)."""
    g, y, d = args
    r = max(g.dim(), y.dim())
    return _batched(W(fn)(_expand_to(g, lv), _expand_to(y, lv),
                          None if d is None else _shift(d, r)), lv)


def _act_backward(fn, lv, args, kwargs):
    """unary._sigmoid_backward / _tanh_backward(grad_output, output): elementwise."""
    g, y = args
    return _batched(W(fn)(_expand_to(g, lv), _expand_to(y, lv)), lv)


def _embed(fn, lv, args, kwargs):
    """shape.embed(grad, sizes, writer, node_cls, fwd), the backward of select, slice,
    diagonal, ...: zeros of the input's size with the gradient written in, per sample (one
    NumPy write each) when nothing records it, else through the fallback's ops."""
    v = _plain_grad(args, kwargs, lv)
    if v is None:
        return _fallback(fn, lv, args, kwargs)
    sizes, writer = args[1], args[2]
    a = v._data
    z = np.zeros((a.shape[0],) + tuple(sizes), a.dtype)
    for k in range(a.shape[0]):
        writer(z[k], a[k])
    return _batched(_wrap(z), lv)


def _plain_grad(args, kwargs, lv):
    """The value of a backward helper's batched gradient (args[0]) when nothing records the
    helper's result (NumPy can compute it at once), else None."""
    v, b = _un(args[0], lv)
    if not b or type(v) is not Tensor or v._requires_grad or _forward.LEVELS or kwargs or \
            _top(args[1:], {}) is not None:
        return None
    return v


def _linear_grad(fn, lv, args, kwargs):
    """unary._linear_grad(node_cls, grad, saved, keep, slope): the gradient kept where `keep`
    (the sample's shape: it broadcasts over the batch), else scaled by slope."""
    v = _plain_grad(args[1:], kwargs, lv) if len(args) > 1 and \
        (args[2] is None or not (_GRAD_MODE.enabled and args[2]._requires_grad)) else None
    if v is None:
        return _fallback(fn, lv, args, kwargs)
    from ..ops.unary import _select_np     # (loaded with the op surface, in _build)
    return _batched(_wrap(_select_np(v._data, args[3], args[4] if len(args) > 4 else None)),
                    lv)


def _index_grad(fn, lv, args, kwargs):
    """index._index_grad(grad, shape, indices): zeros with each sample's gradient summed in."""
    v = _plain_grad(args, kwargs, lv)
    if v is None:
        return _fallback(fn, lv, args, kwargs)
    a, shape, indices = v._data, args[1], args[2]
    out = np.zeros((a.shape[0],) + tuple(shape), a.dtype)
    for k in range(a.shape[0]):
        np.add.at(out[k], indices, a[k])
    return _batched(_wrap(out), lv)


def _make_dual(fn, lv, args, kwargs):
    p, t = args[0], args[1]
    vp = _expand_to(p, lv)
    vt = _expand_to(t, lv)
    return _batched(W(fn)(vp, vt, *args[2:], **kwargs), lv)


def _unpack(fn, lv, args, kwargs):
    v, _ = _un(args[0], lv)
    p, t = W(fn)(v, *args[1:], **kwargs)
    return _fad.UnpackedDualTensor(_out(p, lv), None if t is None else _batched(t, lv))


# ---- compositions: ops carried through the batched ops they are made of ---------------------
def _composite(fn, lv, args, kwargs):
    """Ops written with ember ops that have rules (cov, trapezoid, gradient, poisson_nll_loss,
    the losses' F and aten forms, ...): the op itself on the batched tensors. An argument form
    whose code reads a batched tensor's data (a batched weight, say) runs once per sample."""
    try:
        return fn(*args, **kwargs)
    except RuntimeError as e:
        if not is_no_data_error(e):
            raise
    return _fallback(fn, lv, args, kwargs)


def _leading(min_rank):
    """Ops that take leading batch dims themselves (pixel_unshuffle, cholesky_solve,
    triangular_solve, lstsq): each tensor argument as a batched value, when every sample has
    at least min_rank dims (else the sample's error)."""
    def rule(fn, lv, args, kwargs):
        ts = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        if any(t.dim() < min_rank for t in ts) or "out" in kwargs:
            return _fallback(fn, lv, args, kwargs)
        a2 = [_expand_to(a, lv) if isinstance(a, Tensor) else a for a in args]
        k2 = {k: _expand_to(a, lv) if isinstance(a, Tensor) else a for k, a in kwargs.items()}
        return _out(W(fn)(*a2, **k2), lv)
    return rule


def _lstsq(fn, lv, args, kwargs):
    """linalg.lstsq: batched values; the outputs a driver leaves empty get the batch dim (torch's
    (B, 0))."""
    out = _leading(2)(fn, lv, args, kwargs)
    if type(out[0]) is not BatchedTensor:
        return out
    size = _size(lv)
    return _rebuild(out, [o if o._value.dim() and o._value.shape[0] == size and
                          (o.dim() or o._value.numel() == size) else
                          _batched(o._value.reshape(size, 0), lv) for o in out])


_REFUSED = {"chain_matmul": "aten::chain_matmul", "split_copy": "aten::split_copy.Tensor"}


def _refused(fn, lv, args, kwargs):
    """Ops torch's vmap refuses (no rule, and its fallback cannot run them): torch's error."""
    name = fn.__name__.strip("_")
    if name == "slice_inverse":
        raise RuntimeError("Batching rule not implemented for aten::slice_inverse; the "
                           "fallback path doesn't work on out= or view ops.")
    if name == "histogramdd":
        bins = args[1] if len(args) > 1 else kwargs.get("bins", 10)
        name = "aten::histogramdd" + (".int_bins" if isinstance(bins, int) else
                                      ".TensorList_bins" if isinstance(bins, (list, tuple)) and
                                      bins and isinstance(bins[0], Tensor) else "")
    else:
        name = _REFUSED[name]
    raise RuntimeError(f"Batching rule not implemented for {name}. We could not generate a "
                       f"fallback.")


_COPY_VIEWS = {"alias_copy": "view_as", "detach_copy": "detach", "diagonal_copy": "diagonal",
               "select_copy": "select", "squeeze_copy": "squeeze", "t_copy": "t",
               "transpose_copy": "transpose", "unbind_copy": "unbind",
               "unsqueeze_copy": "unsqueeze", "expand_copy": "expand",
               "permute_copy": "permute", "unfold_copy": "unfold",
               "split_with_sizes_copy": "split_with_sizes", "view_copy": "reshape"}


def _copy_variant(fn, lv, args, kwargs):
    """The *_copy ops: their view op's rule, then a copy (Note [Copy variants])."""
    name = fn.__name__
    if kwargs.get("out") is not None or not args or not isinstance(args[0], Tensor):
        return _fallback(fn, lv, args, kwargs)
    kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    x = args[0]
    if name == "slice_copy":
        kw = dict(zip(("dim", "start", "end", "step"), args[1:]))
        kw.update(kwargs)
        if kw.get("step", 1) <= 0:
            raise RuntimeError("slice step must be positive")
        d = _wrap_dim(kw.get("dim", 0), x.dim())
        out = x[(slice(None),) * d + (slice(kw.get("start"), kw.get("end"), kw.get("step", 1)),)]
    elif name == "squeeze_copy" and len(args) == 1 and "dim" not in kwargs:
        out = x.squeeze()
    elif name == "view_copy" and len(args) > 1 and not isinstance(args[1], (tuple, list, Size)):
        return _fallback(fn, lv, args, kwargs)      # (a dtype view)
    elif name == "alias_copy":
        out = x.view_as(x)
    else:
        out = getattr(x, _COPY_VIEWS[name])(*args[1:], **kwargs)
    if name == "detach_copy":
        return out.clone()
    if isinstance(out, (tuple, list)):
        return tuple(o.clone() for o in out)
    return out.clone()


def _tensordot(fn, lv, args, kwargs):
    """tensordot as the op composes it (permute, reshape, mm), on the batched tensors."""
    a, b = args[0], args[1]
    dims = args[2] if len(args) > 2 else kwargs.get("dims", 2)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor) or a.dtype != b.dtype or \
            kwargs.get("out") is not None or len(args) > 3:
        return _fallback(fn, lv, args, kwargs)
    na, nb = a.dim(), b.dim()
    if isinstance(dims, int) and not isinstance(dims, bool):
        if not 0 <= dims <= min(na, nb):
            return _fallback(fn, lv, args, kwargs)
        da, db = list(range(na - dims, na)), list(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db) or not all(isinstance(d, int) for d in da + db) or \
                not all(-na <= d < na for d in da) or not all(-nb <= d < nb for d in db):
            return _fallback(fn, lv, args, kwargs)
        da, db = [d % na for d in da], [d % nb for d in db]
    else:
        return _fallback(fn, lv, args, kwargs)
    sa, sb = tuple(a.shape), tuple(b.shape)
    csize = 1
    for p, q in zip(da, db):
        if sb[q] == 1:
            a = a.sum(p, keepdim=True, dtype=a.dtype)
        elif sa[p] == 1:
            b = b.sum(q, keepdim=True, dtype=b.dtype)
        elif sa[p] != sb[q]:
            return _fallback(fn, lv, args, kwargs)
        else:
            csize *= sa[p]
    free_a = [d for d in range(na) if d not in da]
    free_b = [d for d in range(nb) if d not in db]
    rows = cols = 1
    for d in free_a:
        rows *= sa[d]
    for d in free_b:
        cols *= sb[d]
    t1 = a.permute(*(free_a + da)).reshape(rows, csize)
    t2 = b.permute(*(db + free_b)).reshape(csize, cols)
    return W(_mm_fn)(t1, t2).reshape(*([sa[d] for d in free_a] + [sb[d] for d in free_b]))


def _kron(fn, lv, args, kwargs):
    """kron as the op composes it: each operand's dims interleaved with 1s, multiplied."""
    a, b = args[0], args[1]
    if not isinstance(a, Tensor) or not isinstance(b, Tensor) or kwargs:
        return _fallback(fn, lv, args, kwargs)
    nd = max(a.dim(), b.dim())
    sa = (1,) * (nd - a.dim()) + tuple(a.shape)
    sb = (1,) * (nd - b.dim()) + tuple(b.shape)
    r = a.reshape(*[v for n in sa for v in (n, 1)]) * b.reshape(*[v for n in sb for v in (1, n)])
    return r.reshape(*[p * q for p, q in zip(sa, sb)])


def _block_diag(fn, lv, args, kwargs):
    """block_diag: each block padded with zeros to the full width, the rows joined."""
    if kwargs or not all(isinstance(t, Tensor) and t.dim() <= 2 for t in args):
        return _fallback(fn, lv, args, kwargs)
    rt = args[0].dtype
    for t in args[1:]:
        rt = _promote_types(rt, t.dtype)
    mats = [t.reshape(1, -1) if t.dim() == 1 else t.reshape(1, 1) if t.dim() == 0 else t
            for t in args]
    cols = sum(m.shape[1] for m in mats)
    rows, c = [], 0
    for m in mats:
        r, w = m.shape
        parts = [m.to(rt)]
        if c:
            parts.insert(0, zeros((r, c), dtype=rt))
        if cols - c - w:
            parts.append(zeros((r, cols - c - w), dtype=rt))
        rows.append(W(_cat)(parts, 1) if len(parts) > 1 else parts[0])
        c += w
    return W(_cat)(rows, 0)


def _meshgrid(fn, lv, args, kwargs):
    """meshgrid: each 0-d or 1-d tensor viewed along its own dim and expanded to the grid."""
    ts = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    indexing = kwargs.get("indexing")
    if set(kwargs) - {"indexing"} or indexing not in (None, "ij", "xy") or not ts or \
            not all(isinstance(t, Tensor) and t.dim() <= 1 for t in ts) or \
            len({t.dtype for t in ts}) > 1:
        return _fallback(fn, lv, args, kwargs)
    if indexing is None:
        W(fn)(*[zeros(tuple(t.shape), dtype=t.dtype) for t in ts])   # (torch's warning, once)
    ts = list(ts)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    sizes = [t.numel() for t in ts]
    out = []
    for i, t in enumerate(ts):
        shape = [1] * len(ts)
        shape[i] = sizes[i]
        out.append(t.reshape(*shape).expand(*sizes))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def _cartesian_prod(fn, lv, args, kwargs):
    if kwargs or not args or not all(isinstance(t, Tensor) and t.dim() == 1 for t in args):
        return _fallback(fn, lv, args, kwargs)
    if len(args) == 1:
        return args[0]
    grids = _meshgrid(fn, lv, args, {"indexing": "ij"})
    return W(_stack)([g.flatten() for g in grids], 1)


def _combinations(fn, lv, args, kwargs):
    """combinations: the input indexed by every combination of positions (data-independent)."""
    kw = dict(zip(("input", "r", "with_replacement"), args))
    kw.update(kwargs)
    x, r, rep = kw.get("input"), kw.get("r", 2), kw.get("with_replacement", False)
    if not isinstance(x, Tensor) or x.dim() != 1 or not isinstance(r, int) or r <= 0 or \
            set(kw) - {"input", "r", "with_replacement"}:
        return _fallback(fn, lv, args, kwargs)
    pick = itertools.combinations_with_replacement if rep else itertools.combinations
    idx = list(pick(range(x.shape[0]), r))
    if not idx:
        return _fallback(fn, lv, args, kwargs)
    out = x[_tensor(idx)]
    return out.reshape(-1) if r == 1 else out


def _cross(fn, lv, args, kwargs):
    """cross / linalg.cross: both operands as batched values of one rank (the op wants equal
    ranks), the dim as a negative one; torch.cross's deprecated default dim (dim=None) is the
    first of size 3 of the broadcast samples."""
    a, b = args[0] if args else kwargs.get("input"), \
        args[1] if len(args) > 1 else kwargs.get("other")
    d = args[2] if len(args) > 2 else kwargs.get("dim", -1 if fn in _LINALG_CROSS else None)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor) or a.dim() != b.dim() or \
            set(kwargs) - {"input", "other", "dim"} or d is not None and not isinstance(d, int):
        return _fallback(fn, lv, args, kwargs)
    shape = _bshape([a, b])
    if d is None:
        W(fn)(zeros((3,)), zeros((3,)))      # (the deprecation warning, as the op gives it)
        d = next((i for i, s in enumerate(shape) if s == 3), None)
        if d is None:
            return _fallback(fn, lv, args, kwargs)
    r = len(shape)
    if not -max(r, 1) <= d < max(r, 1):
        return _fallback(fn, lv, args, kwargs)
    d = _wrap_dim(d, r) - max(r, 1)
    return _batched(W(fn)(_expand_to(a, lv), _expand_to(b, lv), dim=d), lv)


_LINALG_CROSS = set()


def _repeat_interleave(fn, lv, args, kwargs):
    """repeat_interleave with repeats the samples share: one index along the dim for all."""
    kw = dict(zip(("input", "repeats", "dim"), args))
    kw.update(kwargs)
    x, rep, d = kw.get("input"), kw.get("repeats"), kw.get("dim")
    if not isinstance(x, Tensor) or rep is None or _top((rep,), {}) is not None or \
            set(kw) - {"input", "repeats", "dim", "output_size"} or \
            d is not None and not isinstance(d, int):
        return _fallback(fn, lv, args, kwargs)
    if d is None:
        x, d = x.reshape(-1), 0
    elif x.dim() == 0:
        return _fallback(fn, lv, args, kwargs)
    n = x.shape[_wrap_dim(d, x.dim())]
    idx = W(fn)(_arange_plain(n), rep)           # (the op's own checks of repeats)
    if kw.get("output_size") is not None and idx.shape[0] != kw["output_size"]:
        return _fallback(fn, lv, args, kwargs)
    return W(_index_select)(x, d, idx)


def _searchsorted(fn, lv, args, kwargs):
    """searchsorted(sorted_sequence, input): a batched sequence searched row by row (the op
    takes leading dims on both that match)."""
    kw = dict(zip(("sorted_sequence", "input"), args))
    kw.update(kwargs)
    seq, x = kw.pop("sorted_sequence", None), kw.pop("input", None)
    if not isinstance(seq, Tensor) or not isinstance(x, Tensor) or kw.get("out") is not None \
            or seq.dim() == 0 or x.dim() == 0 or kw.get("sorter") is not None:
        return _fallback(fn, lv, args, kwargs)
    if seq.dim() > 1 and tuple(seq.shape)[:-1] != tuple(x.shape)[:-1]:
        return _fallback(fn, lv, args, kwargs)
    vs, vx = _expand_to(seq, lv), _expand_to(x, lv)
    if seq.dim() == 1 and x.dim() > 1:      # one sequence per sample, for all its rows
        s = tuple(vx.shape)
        vx = vx.reshape(s[0], -1)
    out = W(fn)(vs, vx, **kw)
    return _batched(out.reshape(tuple(_expand_to(x, lv).shape)), lv)


def _bucketize_rule(fn, lv, args, kwargs):
    kw = dict(zip(("input", "boundaries"), args))
    kw.update(kwargs)
    x, bnd = kw.pop("input", None), kw.pop("boundaries", None)
    if not (type(bnd) is BatchedTensor and bnd._level == lv):
        return _bucketize(fn, lv, args, kwargs)
    if not isinstance(x, Tensor) or bnd.dim() != 1 or x.dim() == 0 or \
            kw.get("out") is not None or set(kw) - {"out_int32", "right", "out"}:
        return _fallback(fn, lv, args, kwargs)
    kw.pop("out", None)
    return _searchsorted(_searchsorted_fn, lv, (bnd, x), kw)


def _isin(fn, lv, args, kwargs):
    """isin with batched test elements: each element compared with every test element."""
    kw = dict(zip(("elements", "test_elements"), args))
    kw.update(kwargs)
    e, t = kw.pop("elements", None), kw.pop("test_elements", None)
    if not (type(t) is BatchedTensor and t._level == lv):
        return _bucketize(fn, lv, args, kwargs)
    if not isinstance(e, Tensor) or set(kw) - {"assume_unique", "invert"} or \
            e.dtype.is_complex or t.dtype.is_complex:
        return _fallback(fn, lv, args, kwargs)
    hit = (e.unsqueeze(-1) == t.reshape(-1)).any(-1)
    return hit.logical_not() if kw.get("invert") else hit


def _embedding_weight(fn, lv, args, kwargs):
    """torch.embedding(weight, indices, padding_idx, ...) with a batched table: each sample's
    table indexed (the padding row gets no gradient, as the op gives it)."""
    kw = dict(zip(("weight", "indices", "padding_idx", "scale_grad_by_freq", "sparse"), args))
    kw.update(kwargs)
    w, idx = kw.get("weight"), kw.get("indices")
    if not (type(w) is BatchedTensor and w._level == lv):
        return _embedding_w_first(fn, lv, args, kwargs)
    pad = kw.get("padding_idx", -1)
    if not isinstance(idx, Tensor) or w.dim() != 2 or idx.dtype.is_floating_point or \
            idx.dtype.is_complex or idx.dtype is bool_ or kw.get("scale_grad_by_freq") or \
            kw.get("sparse") or not isinstance(pad, int):
        return _fallback(fn, lv, args, kwargs)
    out = w[idx]
    if pad >= 0 and w.requires_grad:
        keep = (idx != pad).unsqueeze(-1)
        out = W(_where)(keep, out, out.detach())
    return out


def _pdist(fn, lv, args, kwargs):
    """pdist: the rows' differences for each pair i < j (positions the samples share), normed."""
    x = args[0] if args else kwargs.get("input")
    p = args[1] if len(args) > 1 else kwargs.get("p", 2)
    if not isinstance(x, Tensor) or x.dim() != 2 or not x.dtype.is_floating_point or \
            isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0:
        return _fallback(fn, lv, args, kwargs)
    i, j = np.triu_indices(x.shape[0], 1)
    diff = x[_tensor(i)] - x[_tensor(j)]
    return W(_vector_norm)(diff, float(p), -1)


def _elementwise_loss(names, n, same_rank=False, same_shape=False):
    """Rule for ops/loss.py's losses whose first n arguments broadcast elementwise (or row by
    row): the loss per element (reduction='none') on the values, then the reduction per
    sample."""
    def rule(fn, lv, args, kwargs):
        kw = dict(zip(names, args))
        kw.update(kwargs)
        ts = [kw.get(k) for k in names[:n]]
        red = kw.get("reduction", "mean")
        if not all(isinstance(t, Tensor) for t in ts) or red not in ("none", "mean", "sum",
                                                                    "batchmean") or \
                same_rank and len({t.dim() for t in ts}) > 1 or \
                same_shape and len({tuple(t.shape) for t in ts}) > 1:
            return _fallback(fn, lv, args, kwargs)
        r = max(t.dim() for t in ts)
        for k, t in zip(names[:n], ts):
            kw[k] = _pad(_expand_to(t, lv), t.dim(), r)
        for k, a in kw.items():
            if k not in names[:n] and type(a) is BatchedTensor and a._level == lv:
                kw[k] = _pad(a._value, a.dim(), r)
        kw["reduction"] = "none"
        loss = W(fn)(**kw)
        if red == "none":
            return _batched(loss, lv)
        dims = tuple(range(1, loss.dim()))
        if red == "batchmean":
            total = loss.sum(dims) if dims else loss
            return _batched(total / (ts[0].shape[0] if ts[0].dim() else 1), lv)
        if not dims:
            return _batched(loss, lv)
        return _batched(loss.mean(dims) if red == "mean" else loss.sum(dims), lv)
    return rule


def _multi_margin(fn, lv, args, kwargs):
    """multi_margin_loss: the samples' rows folded into one (N, C) input, loss per row."""
    kw = dict(zip(("input", "target", "p", "margin", "weight", "reduction"), args))
    kw.update(kwargs)
    x, t, red = kw.get("input"), kw.get("target"), kw.get("reduction", "mean")
    if not isinstance(x, Tensor) or not isinstance(t, Tensor) or x.dim() not in (1, 2) or \
            t.dim() != x.dim() - 1 or (x.dim() == 2 and t.shape[0] != x.shape[0]) or \
            red not in ("none", "mean", "sum") or _top((kw.get("weight"),), {}) == lv:
        return _fallback(fn, lv, args, kwargs)
    vx, vt = _expand_to(x, lv), _expand_to(t, lv)
    s = tuple(vx.shape)
    kw.update(input=vx.reshape(-1, s[-1]), target=vt.reshape(-1), reduction="none")
    loss = W(fn)(**kw)
    if x.dim() == 1:
        return _batched(loss, lv)
    loss = loss.reshape(s[0], s[1])
    if red == "none":
        return _batched(loss, lv)
    return _batched(loss.mean(1) if red == "mean" else loss.sum(1), lv)


def _triplet_distance(fn, lv, args, kwargs):
    """triplet_margin_with_distance_loss: the distance function (any callable) on the batched
    tensors, then the op's clamp and reduction."""
    kw = dict(zip(("anchor", "positive", "negative"), args))
    kw.update(kwargs)
    a, p, n = kw.get("anchor"), kw.get("positive"), kw.get("negative")
    red = kw.get("reduction", "mean")
    if not all(isinstance(t, Tensor) for t in (a, p, n)) or \
            len({a.dim(), p.dim(), n.dim()}) > 1 or red not in ("none", "mean", "sum"):
        return _fallback(fn, lv, args, kwargs)
    dist = kw.get("distance_function") or W(_pairwise_distance)
    dp, dn = dist(a, p), dist(a, n)
    if kw.get("swap", False):
        dn = W(_minimum)(dn, dist(p, n))
    out = (kw.get("margin", 1.0) + dp - dn).clamp_min(0)
    if red == "none":
        return out
    return out.mean() if red == "mean" else out.sum()


def _norm_linalg(fn, lv, args, kwargs):
    """linalg.norm: the vector or matrix norm it picks by the sample's rank and ord / dim."""
    kw = dict(zip(("A", "ord", "dim", "keepdim"), args))
    kw.update(kwargs)
    A, ord_, dim = kw.get("A"), kw.get("ord"), kw.get("dim")
    keep, dtype = kw.get("keepdim", False), kw.get("dtype")
    if not isinstance(A, Tensor) or kw.get("out") is not None or \
            set(kw) - {"A", "ord", "dim", "keepdim", "dtype", "out"}:
        return _fallback(fn, lv, args, kwargs)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and (not isinstance(dim, (tuple, list)) or len(dim) not in (1, 2)):
        return _fallback(fn, lv, args, kwargs)
    n = A.dim()
    if dim is not None and len(dim) == 2 or dim is None and ord_ is not None and n == 2:
        if dim is not None and not all(-max(n, 1) <= d < max(n, 1) for d in dim):
            return _fallback(fn, lv, args, kwargs)
        if ord_ is None and dim is not None and len({d % n for d in dim}) == 2:
            return W(_vector_norm)(A, 2.0, tuple(dim), keep, dtype=dtype)
        return W(_matrix_norm)(A, "fro" if ord_ is None else ord_,
                               (-2, -1) if dim is None else tuple(dim), keep, dtype=dtype)
    if dim is None and ord_ is not None and n != 1 or isinstance(ord_, str):
        return _fallback(fn, lv, args, kwargs)
    return W(_vector_norm)(A, 2.0 if ord_ is None else ord_, dim, keep, dtype=dtype)


def _tensorinv(fn, lv, args, kwargs):
    A = args[0] if args else kwargs.get("A")
    ind = args[1] if len(args) > 1 else kwargs.get("ind", 2)
    if not isinstance(A, Tensor) or not isinstance(ind, int) or ind <= 0 or \
            kwargs.get("out") is not None:
        return _fallback(fn, lv, args, kwargs)
    s = tuple(A.shape)
    lo = int(np.prod(s[:ind]))
    if lo != int(np.prod(s[ind:])) or lo == 0:
        return _fallback(fn, lv, args, kwargs)
    return W(_inv)(A.reshape(lo, lo)).reshape(*(s[ind:] + s[:ind]))


def _scatter_like(pos_dims, defaults):
    """slice_scatter / diagonal_scatter(input, src, ...): both as batched values, the dims
    (arguments from position 2, given or default) shifted past the batch."""
    names = tuple(defaults)

    def rule(fn, lv, args, kwargs):
        x, src = args[0], args[1] if len(args) > 1 else kwargs.get("src")
        if not isinstance(x, Tensor) or not isinstance(src, Tensor) or \
                kwargs.get("out") is not None or _top(args[2:], {}) is not None:
            return _fallback(fn, lv, args, kwargs)
        kw = dict(zip(names, args[2:]))
        kw.update({k: v for k, v in kwargs.items() if k not in ("src", "out")})
        r = x.dim()
        for k in pos_dims:
            d = kw.get(k, defaults[k])
            if not isinstance(d, int) or not -max(r, 1) <= d < max(r, 1):
                return _fallback(fn, lv, args, kwargs)
            kw[k] = _shift(d, r)
        return _batched(W(fn)(_expand_to(x, lv), _expand_to(src, lv), **kw), lv)
    return rule


def _addmm_(fn, lv, args, kwargs):
    """x.addmm_(m1, m2, beta=, alpha=): addmm's rule, written back into x."""
    x = args[0]
    if not (type(x) is BatchedTensor and x._level == lv):
        _inplace_error("addmm_", lv, args)
    res = _addmm(fn, lv, args, kwargs)
    return x.copy_(res)


def _fill_diagonal_(fn, lv, args, kwargs):
    """fill_diagonal_ on a square sample (no wrap): the diagonal view of the value filled."""
    x = args[0]
    kw = dict(zip(("fill_value", "wrap"), args[1:]))
    kw.update(kwargs)
    v = kw.get("fill_value")
    if not (type(x) is BatchedTensor and x._level == lv) or x.dim() < 2 or \
            len(set(x.shape)) != 1 or isinstance(v, Tensor) or set(kw) - {"fill_value", "wrap"}:
        return _fallback(fn, lv, args, kwargs)
    n = x.dim()
    diag = x._value
    for _ in range(n - 2):
        diag = diag.diagonal(0, 1, 2).movedim(-1, 1)
    diag.diagonal(0, 1, 2).fill_(v)
    return x


def _plain_value(x, lv):
    """x's value when x is batched at lv over a plain tensor that records nothing (a rule may
    compute on its NumPy data at once), else None."""
    v, b = _un(x, lv)
    if not b or type(v) is not Tensor or v._requires_grad or _forward.LEVELS:
        return None
    return v


def _histc(fn, lv, args, kwargs):
    """histc: every sample binned at once (its own data range when min == max, as the op
    takes it), the counts of sample k at k * bins + bin."""
    from ..ops.stats import _uniform_bins     # (loaded with the op surface, in _build)
    kw = dict(zip(("input", "bins", "min", "max"), args))
    kw.update(kwargs)
    x = kw.get("input")
    bins, lo, hi = kw.get("bins", 100), kw.get("min", 0), kw.get("max", 0)
    v = _plain_value(x, lv)
    if v is None or set(kw) - {"input", "bins", "min", "max"} or \
            not isinstance(bins, int) or isinstance(bins, bool) or bins <= 0 or \
            not all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in (lo, hi)) \
            or lo > hi or not x.dtype.is_floating_point or not x.numel() or \
            _top(args[1:], kwargs) is not None:
        return _fallback(fn, lv, args, kwargs)      # (the sample's error, or its data)
    a = v._data.reshape(v.shape[0], -1)
    if lo == hi:
        with np.errstate(all="ignore"):
            lo, hi = a.min(1).astype(np.float64)[:, None], a.max(1).astype(np.float64)[:, None]
        same = lo == hi
        lo, hi = np.where(same, lo - 1, lo), np.where(same, hi + 1, hi)
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        return _fallback(fn, lv, args, kwargs)      # (the sample's error)
    idx = _uniform_bins(a, bins, lo, hi)
    flat = (idx + np.arange(a.shape[0])[:, None] * bins)[idx >= 0]
    hist = np.bincount(flat, minlength=a.shape[0] * bins).reshape(a.shape[0], bins)
    return _batched(_wrap(hist.astype(a.dtype)), lv)


def _bincount(fn, lv, args, kwargs):
    """bincount of samples whose counts have one length (torch's loop stacks them; other
    lengths: its stack error, through the loop): each sample's values offset by k * length."""
    kw = dict(zip(("input", "weights", "minlength"), args))
    kw.update(kwargs)
    x, w, m = kw.get("input"), kw.get("weights"), kw.get("minlength", 0)
    v = _plain_value(x, lv)
    if v is None or x.dim() != 1 or x.dtype.is_floating_point or x.dtype.is_complex or \
            x.dtype is bool_ or not x.numel() or not isinstance(m, int) or m < 0 or \
            set(kw) - {"input", "weights", "minlength"} or \
            w is not None and (not isinstance(w, Tensor) or tuple(w.shape) != tuple(x.shape)):
        return _fallback(fn, lv, args, kwargs)
    a = v._data
    if (a < 0).any():
        return _fallback(fn, lv, args, kwargs)      # (the sample's error)
    lens = np.maximum(a.max(1) + 1, m)
    if (lens != lens[0]).any():
        return _fallback(fn, lv, args, kwargs)      # (the samples' stack error)
    n, size = int(lens[0]), a.shape[0]
    flat = _wrap((a + np.arange(size)[:, None] * n).reshape(-1))
    if w is not None:
        w = _expand_to(w, lv).reshape(-1)
    return _batched(W(fn)(flat, w, minlength=n * size).reshape(size, n), lv)

def _histogram(fn, lv, args, kwargs):
    """histogram with a count of bins: every sample binned at once (its own data range when no
    range is given, as the op takes it), each with its own bin edges."""
    from ..ops.stats import _uniform_bins     # (loaded with the op surface, in _build)
    kw = dict(zip(("input", "bins"), args))
    kw.update(kwargs)
    x, bins, rng, w = kw.get("input"), kw.get("bins", 100), kw.get("range"), kw.get("weight")
    density = kw.get("density", False)
    v = _plain_value(x, lv)
    if v is None or set(kw) - {"input", "bins", "range", "weight", "density"} or \
            not isinstance(bins, int) or isinstance(bins, bool) or bins <= 0 or \
            not isinstance(density, bool) or not x.dtype.is_floating_point or not x.numel() or \
            rng is not None and not (isinstance(rng, (tuple, list)) and len(rng) == 2 and all(
                isinstance(n, (int, float)) and not isinstance(n, bool) for n in rng)) or \
            w is not None and (not isinstance(w, Tensor) or w.dtype != x.dtype or
                               tuple(w.shape) != tuple(x.shape) or
                               _top((w,), {}) is not None and _plain_value(w, lv) is None):
        return _fallback(fn, lv, args, kwargs)      # (the sample's error, or a batched weight)
    a = v._data.reshape(v.shape[0], -1)
    size = a.shape[0]
    lo, hi = (0, 0) if rng is None else rng
    if lo == hi:
        with np.errstate(all="ignore"):
            lo, hi = a.min(1).astype(np.float64)[:, None], a.max(1).astype(np.float64)[:, None]
        same = lo == hi
        lo, hi = np.where(same, lo - 1, lo), np.where(same, hi + 1, hi)
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()) or np.any(np.asarray(lo) > hi):
        return _fallback(fn, lv, args, kwargs)      # (the sample's error)
    if isinstance(lo, np.ndarray):
        edges = np.linspace(lo[:, 0], hi[:, 0], bins + 1, axis=-1).astype(a.dtype)
    else:
        edges = np.broadcast_to(np.linspace(lo, hi, bins + 1).astype(a.dtype),
                                (size, bins + 1)).copy()
    idx = _uniform_bins(a, bins, lo, hi)
    keep = idx >= 0
    wd = None
    if w is not None:
        wd = np.broadcast_to(_expand_to(w, lv)._data.reshape(size, -1), a.shape)[keep]
    flat = (idx + np.arange(size)[:, None] * bins)[keep]
    hist = np.bincount(flat, weights=wd, minlength=size * bins).reshape(size, bins)
    hist = hist.astype(a.dtype)
    if density:
        with np.errstate(all="ignore"):
            hist = (hist / (hist.sum(1, keepdims=True) * np.diff(edges, axis=-1))).astype(a.dtype)
    return _RT.histogram((_batched(_wrap(hist), lv), _batched(_wrap(edges), lv)))

def _compositions(E, F, put, put_ns):
    """The rules above, by op (called from _build)."""
    global _searchsorted_fn, _vector_norm, _matrix_norm, _inv
    global _pairwise_distance, _minimum
    from ..ops import loss as _loss_ops       # (a lazily loaded module: loaded by now)
    _searchsorted_fn, _vector_norm, _matrix_norm = E.searchsorted, E.linalg.vector_norm, \
        E.linalg.matrix_norm
    _inv, _pairwise_distance, _minimum = E.linalg.inv, F.pairwise_distance, E.minimum
    put_ns(E, "cov corrcoef trapezoid trapz cumulative_trapezoid gradient combinations vander "
           "frobenius_norm nuclear_norm norm_except_dim poisson_nll_loss kl_div "
           "hinge_embedding_loss margin_ranking_loss triplet_margin_loss "
           "binary_cross_entropy_with_logits", _composite)
    put("cov corrcoef", _composite)
    put_ns(F, "binary_cross_entropy_with_logits hinge_embedding_loss margin_ranking_loss "
           "triplet_margin_loss multi_margin_loss multilabel_soft_margin_loss poisson_nll_loss "
           "triplet_margin_with_distance_loss linear_cross_entropy", _composite)
    for n, rule in (("binary_cross_entropy_with_logits",
                     _elementwise_loss(("input", "target", "weight", "reduction",
                                        "pos_weight"), 2, same_shape=True)),
                    ("kl_div", _elementwise_loss(("input", "target", "reduction",
                                                  "log_target"), 2)),
                    ("margin_ranking_loss", _elementwise_loss(("input1", "input2", "target",
                                                               "margin", "reduction"), 3,
                                                              same_rank=True)),
                    ("hinge_embedding_loss", _elementwise_loss(("input", "target", "margin",
                                                                "reduction"), 2)),
                    ("triplet_margin_loss", _elementwise_loss(
                        ("anchor", "positive", "negative", "margin", "p", "eps", "swap",
                         "reduction"), 3, same_rank=True)),
                    ("poisson_nll_loss", _elementwise_loss(("input", "target", "log_input",
                                                            "full", "eps", "reduction"), 2)),
                    ("multilabel_soft_margin_loss", _elementwise_loss(
                        ("input", "target", "weight", "reduction"), 2, same_rank=True)),
                    ("multi_margin_loss", _multi_margin),
                    ("triplet_margin_with_distance_loss", _triplet_distance)):
        f = getattr(_loss_ops, n)
        RULES[f] = rule
        W(f)            # (F's and torch's forms call it by name: swapped in while vmap runs)
    put("tensordot", _tensordot)
    put("kron", _kron)
    put_ns(E, "block_diag", _block_diag)
    put_ns(E, "meshgrid", _meshgrid)
    put_ns(E, "cartesian_prod", _cartesian_prod)
    put("cross", _cross)
    put_ns(E.linalg, "cross", _cross)
    _LINALG_CROSS.add(E.linalg.cross)
    put("repeat_interleave", _repeat_interleave)
    put_ns(E, "searchsorted", _searchsorted)
    put("bucketize", _bucketize_rule)
    put("isin", _isin)
    put_ns(E, "embedding", _embedding_weight)
    put("pdist", _pdist)
    put_ns(E.linalg, "norm", _norm_linalg)
    put_ns(E.linalg, "tensorinv", _tensorinv)
    put_ns(E.linalg, "lstsq", _lstsq)
    put("cholesky_solve triangular_solve", _leading(2))
    put("pixel_unshuffle", _leading(3))
    put("slice_scatter", _scatter_like(("dim",), {"dim": 0, "start": None, "end": None,
                                                  "step": 1}))
    put("diagonal_scatter", _scatter_like(("dim1", "dim2"), {"offset": 0, "dim1": 0,
                                                             "dim2": 1}))
    put("addmm_", _addmm_)
    put("fill_diagonal_", _fill_diagonal_)
    put_ns(E, list(_COPY_VIEWS) + ["slice_copy"], _copy_variant)
    put("chain_matmul histogramdd split_copy slice_inverse", _refused)
    put_ns(E.linalg, "ldl_factor ldl_factor_ex", _matrices)
    put("histc", _histc)
    put("bincount", _bincount)
    put("histogram", _histogram)


# ---- the tables -----------------------------------------------------------------------------
_RANDOM = set()


def _build():
    """Fill RULES, WRAP and BatchedTensor's methods (once, on the first vmap)."""
    # the whole op surface, nn (a lazy subpackage) included: loaded when the first vmap runs
    import ember as E
    from ..nn import functional as F
    from ..ops import activation, arith, binary, logical, unary, special
    # the lazily loaded ops (Note [Lazy layer ops]) are resolved now, so that each gets its
    # dispatcher and rule whatever was loaded before the first vmap
    for n in E._LAZY_OP_NAMES:
        getattr(E, n)
    for n in E.linalg._LAZY_LDL:
        getattr(E.linalg, n)
    global _amax, _amin, _mm_fn, _mul, _add, _stack, _squeeze_fn, _gather_fn, _index_select
    global _where, _cat, _arange, _diag_embed, _diagonal, _sort, _norm, _sub, _tensor_split
    _norm, _sub, _tensor_split = E.norm, E.sub, E.tensor_split
    global _index_put_fn
    _index_put_fn = E.index_put_
    _cat, _arange, _diag_embed, _diagonal, _sort = E.cat, E.arange, E.diag_embed, E.diagonal, \
        E.sort
    _amax, _amin, _mm_fn, _mul, _add = E.amax, E.amin, E.matmul, E.mul, E.add
    _stack, _squeeze_fn, _gather_fn, _index_select = E.stack, E.squeeze, E.gather, \
        E.index_select
    _where = E.where
    T = Tensor

    def both(name):
        out = []
        for ns in (E, T, F):
            f = getattr(ns, name, None)
            if isinstance(f, types.FunctionType) and f not in out:
                out.append(f)
        return out

    def put_ns(ns, names, rule):
        for n in names.split() if isinstance(names, str) else names:
            f = getattr(ns, n, None)
            if isinstance(f, types.FunctionType):
                RULES[f] = rule

    def put(names, rule):
        for n in names.split() if isinstance(names, str) else names:
            for f in both(n):
                RULES[f] = rule

    pw = []
    for m in (unary, arith, binary, logical, activation, special):
        pw += [n for n in getattr(m, "__all__", ()) if n not in ("where",)]
    pw += ("add_ sub_ mul_ div_ pow_ neg_ where clamp clamp_ clip masked_fill masked_fill_ "
           "detach clone contiguous float double half int long bool to type_as zero_ fill_ "
           "copy_ __add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ "
           "__pow__ __rpow__ __neg__ __abs__ __pos__ __eq__ __ne__ __lt__ __le__ __gt__ "
           "__ge__ __and__ __or__ __xor__ __invert__ __mod__ __floordiv__ __rfloordiv__ "
           "__rmod__ __iadd__ __isub__ __imul__ __itruediv__ _rsub _rdiv _rpow "
           "relu gelu sigmoid tanh silu softplus elu leaky_relu hardtanh relu6 selu "
           "logsigmoid mish hardswish hardsigmoid softsign tanhshrink "
           "zeros_like ones_like empty_like full_like requires_grad_ conj "
           "abs exp log sqrt sin cos is_floating_point is_complex is_signed is_tensor "
           "get_device type element_size is_contiguous").split()
    pw += [n for n in vars(T) if n.startswith("__r") and n.endswith("__")
           and n not in ("__rmatmul__", "__repr__", "__reduce__", "__reduce_ex__",
                         "__reversed__")]
    put(pw, _pointwise)
    put("sum mean nansum nanmean prod amax amin logsumexp all any argmax argmin count_nonzero "
        "max min", _reduction(1))
    for n in ("prod", "argmax", "argmin", "max", "min"):
        for f in both(n):
            RULES[f] = _reduction(1, tuple_ok=False)
    put("var std var_mean std_mean", _reduction(1))
    put("norm", _reduction(2))
    put("softmax log_softmax softmin cumsum cumprod logcumsumexp", _reduction(1, False))
    for f in (F.softmax, F.log_softmax, F.softmin):
        _IMPLICIT[f] = F._softmax_dim
    put("matmul mm bmm mv __matmul__", _matmul)
    put("__rmatmul__", lambda fn, lv, args, kwargs: _matmul(fn, lv, args[1::-1], {}))
    put("dot vdot", _dot)
    put("inner", _inner)
    put("outer ger", _outer)
    put("addmm", _addmm)
    put("linear", _linear)
    put("einsum", _einsum)
    put("view reshape", _reshape)
    put("view_as reshape_as expand_as", _as)
    put("flatten", _flatten)
    put("unflatten select narrow", _dims_rule(1))
    put("unbind", _defaults(("dim",), {"dim": 0}))
    put("movedim moveaxis", _dims_rule(1, 2))
    put("unsqueeze", _dims_rule(1, new_rank=1))
    put("flip", _dims_rule(1))
    put("permute", _permute)
    put("transpose swapaxes swapdims", _transpose)
    put("t", _t)
    put("squeeze", _squeeze)
    put("expand", _expand)
    put("__getitem__", _getitem)
    put("__setitem__", _setitem)
    put("sort argsort glu", _dimop(1, -1))
    put("msort", _msort)
    put("topk", _dimop(2, -1))
    put("cummax cummin", _dimop(1, None))
    put("normalize", _dimop(2, 1))
    put("new_zeros new_ones new_empty new_full new_tensor", _new)
    put("layer_norm", _layer_norm)
    put("repeat", _repeat)
    put("cat concat concatenate stack", _join)
    put("split chunk tensor_split", _split)
    put("gather index_select", _gather)
    put("cross_entropy nll_loss", _cross_entropy)
    put("trace", _trace)
    put("diagonal", _defaults(("offset", "dim1", "dim2"), {"dim1": 0, "dim2": 1}))
    put("diag_embed", _defaults(("offset", "dim1", "dim2"), {"dim1": -2, "dim2": -1},
                                new_rank=1))
    put("rot90", _defaults(("k", "dims"), {"dims": (0, 1)}))
    put("diag", _diag)
    put("diagflat", _diagflat)
    put("roll", _roll)
    put("fliplr flipud", _flip_lr_ud)
    put("ravel", _ravel)
    put("atleast_1d atleast_2d atleast_3d", _atleast_nd)
    put("broadcast_tensors", _broadcast_tensors)
    put("take", _take)
    put("tril triu tril_ triu_ angle conj_physical resolve_conj resolve_neg complex polar",
        _pointwise)
    put("kthvalue", _dimop(2, -1))
    put("mode", _dimop(1, -1))
    put("median nanmedian aminmax", _reduction(1, False))
    put("where nonzero unique unique_consecutive", _dynamic)
    put("index_put index_put_", _index_put)
    put("sum_to_size", _sum_to_size)
    for n, o in (("t_", "t"), ("unsqueeze_", "unsqueeze"), ("squeeze_", "squeeze"),
                 ("transpose_", "transpose"), ("swapaxes_", "swapaxes"),
                 ("swapdims_", "swapdims")):
        put(n, _inplace_view(o))
    put("addcdiv_ addcmul_ arctan2_ bitwise_not_ copysign_ digamma_ eq_ erfinv_ float_power_ "
        "floor_divide_ fmod_ ge_ greater_ heaviside_ hypot_ igamma_ igammac_ le_ lerp_ less_ "
        "lgamma_ logical_and_ logical_not_ logical_or_ logical_xor_ mvlgamma_ ne_ nextafter_ "
        "polygamma_ remainder_ sgn_ sign_ gt_ lt_ greater_equal_ less_equal_ not_equal_ "
        "byte char short cdouble cfloat cpu to_dense", _pointwise)
    put("cumsum_ cumprod_", _reduction(1, False))
    put("cdist fill", _pointwise)
    put("isin", _bucketize)
    put("channel_shuffle native_channel_shuffle", _fold_n())
    put("constant_pad_nd", _pad_rule)
    put_ns(E, "qr svd geqrf cholesky_inverse lu", _matrices)
    put("cosine_similarity", _last_dim(2, 1))
    put("pairwise_distance real conj_physical_ adjoint", _pointwise)
    put("bucketize", _bucketize)
    put("dist", _dist)
    put("hsplit vsplit dsplit", _split_named)
    put("unsafe_split unsafe_chunk", _split)
    put("quantile nanquantile", _quantile)
    put("take_along_dim", _take_along_dim)
    put("diff", _last_dim(2, -1))
    put_ns(E, "cross", _last_dim(2, None))
    put_ns(E, "embedding", _embedding_w_first)
    put_ns(E, "group_norm", _fold_n())
    put_ns(F, "unfold", _unfold_im2col)
    put_ns(F, "scaled_dot_product_attention", _pointwise)
    put_ns(E.linalg, "solve solve_ex", _solve)
    put_ns(E.linalg, "matrix_norm", _defaults(("ord", "dim"), {"dim": (-2, -1)}))
    put_ns(E.fft, [n for n, f in vars(E.fft).items() if isinstance(f, types.FunctionType)
                   and not n.startswith("_") and "freq" not in n], _fft)
    put("det logdet slogdet inverse matrix_exp pinverse matrix_power", _matrices)
    put("pad", _pad_rule)
    _compositions(E, F, put, put_ns)
    put("one_hot", _one_hot)
    put("interpolate upsample upsample_nearest upsample_bilinear local_response_norm",
        _fold_n())
    for f in (F.group_norm, F.embedding):
        RULES[f] = _fold_n() if f is F.group_norm else _embedding
    put_ns(E.linalg, "inv inv_ex det slogdet cholesky cholesky_ex eigh eigvalsh eig eigvals svd "
           "svdvals qr lu lu_factor lu_factor_ex pinv matrix_rank matrix_exp matrix_power "
           "cond", _matrices)
    put_ns(E.linalg, "vector_norm", _reduction(2))
    put_ns(E.linalg, "cross vecdot", _last_dim(2, -1))
    put_ns(E.linalg, "diagonal", _defaults(("offset", "dim1", "dim2"), {"dim1": -2, "dim2": -1}))
    put_ns(E.linalg, "vander", _pointwise)
    put_ns(E.special, "softmax log_softmax", _reduction(1, False))
    put_ns(E.special, [n for n, f in vars(E.special).items() if isinstance(f, types.FunctionType)
                       and not n.startswith("_") and n not in ("softmax", "log_softmax")
                       and f not in RULES], _pointwise)
    put_ns(F, "huber_loss", _loss(("input", "target", "reduction", "delta")))
    put_ns(F, "smooth_l1_loss", _loss(("input", "target", "size_average", "reduce",
                                       "reduction", "beta")))
    put_ns(F, "soft_margin_loss", _loss(("input", "target", "size_average", "reduce",
                                         "reduction")))
    put_ns(F, "kl_div", _loss(("input", "target", "size_average", "reduce", "reduction")))
    put("hstack vstack row_stack dstack column_stack", _stacks)
    put("tile", _tile)
    put("conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d", _conv)
    put([f"{k}pool{n}d{w}" for k in ("max_", "avg_", "adaptive_avg_", "adaptive_max_", "lp_")
         for n in "123" for w in ("", "_with_indices")], _pool)
    put("mse_loss l1_loss", _pointwise_loss)
    RULES[_autograd.grad] = _autograd_grad
    # backward formulas' own ops, met by grad(is_grads_batched=True)'s batched gradients
    from ..ops import activation as _activation_ops
    from ..ops import conv as _conv_ops
    from ..ops import fft as _fft_ops
    from ..ops import index as _index_ops
    from ..ops import join as _join_ops
    from ..ops import reduce as _reduce_ops
    from ..ops import scan as _scan_ops
    from ..ops import shape as _shape_ops
    from ..ops import unary as _unary_ops
    for f in (_reduce_ops._softmax_backward_data, _reduce_ops._log_softmax_backward_data):
        RULES[f] = _softmax_backward
        W(f)
    # (no rule: one call per sample, inside the one pass)
    for f in (_reduce_ops._scatter_add, _activation_ops._hardswish_backward,
              _conv_ops.convolution_backward, _fft_ops.fft_c2c):
        W(f)
    for f in (_unary_ops._sigmoid_backward, _unary_ops._tanh_backward):
        RULES[f] = _act_backward
        W(f)
    RULES[_shape_ops.embed] = _embed
    W(_shape_ops.embed)
    RULES[_unary_ops._linear_grad] = _linear_grad
    RULES[_index_ops._index_grad] = _index_grad
    W(_unary_ops._linear_grad)
    W(_index_ops._index_grad)
    along = _dims_rule(1)
    for f in (_join_ops.slice_dim, _scan_ops._rev_cumsum):     # (input, dim, ...)
        RULES[f] = lambda fn, lv, args, kwargs: along(fn, lv, args, kwargs) \
            if args[0].dim() else _fallback(fn, lv, args, kwargs)
        W(f)
    RULES[_fad.make_dual_at] = _make_dual
    RULES[_fad.make_dual] = _make_dual
    RULES[_fad.unpack_at] = _unpack
    RULES[_fad.unpack_dual] = _unpack
    for n in ("rand_like", "randn_like", "randint_like"):
        for f in both(n):
            RULES[f] = _like
            _RANDOM.add(f)
    for ns, n in ((T, "__getitem__"),):
        RULES[getattr(ns, n)] = _getitem
    # dispatchers: random creation first, then every op function reachable from the public
    # namespaces and Tensor's methods
    for n in ("rand randn randint normal bernoulli multinomial poisson randperm rand_like "
              "randn_like randint_like dropout alpha_dropout feature_alpha_dropout dropout1d "
              "dropout2d dropout3d uniform_ normal_ bernoulli_ random_ exponential_ "
              "cauchy_ log_normal_ geometric_").split():
        for f in both(n):
            if f not in WRAP:
                WRAP[f] = _random_creation(f)
    namespaces = [E, F, E.special, E.linalg, E.fft, _autograd, _fad]
    for ns in namespaces:
        for n, f in vars(ns).items():
            if isinstance(f, types.FunctionType) and not n.startswith("__"):
                W(f)
    for n, f in list(vars(T).items()):
        if n in _SKIP or not isinstance(f, types.FunctionType):
            continue
        if n.startswith("_") and not n.startswith("__"):
            continue
        setattr(BatchedTensor, n, _method(W(f)))


def _method(d):
    def m(self, *args, **kwargs):
        return d(self, *args, **kwargs)
    m.__name__ = d.__name__
    return m


# ---- swapping module globals while a vmap runs ----------------------------------------------
def _collect():
    if _STATE["nmods"] == len(sys.modules):     # (no module loaded since: the same swaps)
        return
    _STATE["nmods"] = len(sys.modules)
    mods = {n for n in sys.modules if n == "ember" or n.startswith("ember.")}
    if _STATE["mods"] == mods:
        return
    _SWAPS.clear()
    # a namespace users call through: every op; an internal module: the op names ember's
    # code looks up, by global name or as a module's attribute (`_ops.sum(x)`): each global
    # set costs ~70 ns, twice per vmap
    used = set()
    for n in mods:
        if sys.modules[n] is not None:
            used |= _global_names(sys.modules[n])
    for n in sorted(mods):
        m = sys.modules[n]
        if m is None or n == "ember.func._batching":
            continue
        on = {k: WRAP[f] for k, f in list(vars(m).items())
              if isinstance(f, types.FunctionType) and f in WRAP
              and (n in _PUBLIC or k in used)}
        if on:
            _SWAPS.append((m, on, {k: f.__wrapped__ for k, f in on.items()}))
    # Tensor's op methods too: a plain tensor's method may be given a batched argument (one
    # that takes nothing but self cannot be, and is left alone: each class attribute set
    # costs ~0.5 us, twice per vmap)
    on = {k: WRAP[f] for k, f in list(vars(Tensor).items())
          if isinstance(f, types.FunctionType) and f in WRAP and k not in _SKIP
          and not (k.startswith("_") and not k.startswith("__")) and _takes_more(f)}
    _SWAPS.append((Tensor, on, {k: f.__wrapped__ for k, f in on.items()}))
    _STATE["mods"] = mods


_PUBLIC = {"ember", "ember.nn.functional", "ember.special", "ember.linalg", "ember.fft",
           "ember.autograd", "ember.autograd.forward_ad", "ember.func"}


def _global_names(m):
    """The names the functions and classes defined in module m (or in its tables) look up,
    as globals or attributes: their code's co_names, nested code included."""
    names = set()
    stack = []
    values = list(vars(m).values())
    for v in list(values):          # (tables of functions: one level down)
        if isinstance(v, dict):
            values += v.values()
        elif isinstance(v, (list, tuple)):
            values += v
    for v in values:
        if getattr(v, "__module__", None) != m.__name__:
            continue
        if isinstance(v, types.FunctionType):
            stack.append(v.__code__)
        elif isinstance(v, type):
            for a in vars(v).values():
                for g in ((a.fget, a.fset, a.fdel) if isinstance(a, property) else
                          (getattr(a, "__func__", a),)):
                    if isinstance(g, types.FunctionType):
                        stack.append(g.__code__)
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    return names


def _takes_more(f):
    """Whether function f takes an argument besides self."""
    c = f.__code__
    return c.co_argcount + c.co_kwonlyargcount > 1 or bool(c.co_flags & 0x0C)  # *args, **kw


def _put(o, names):
    if isinstance(o, type):
        for k, f in names.items():
            setattr(o, k, f)
    else:
        vars(o).update(names)


_SKIP = {"__init__", "__new__", "__repr__", "__str__", "__hash__", "__bool__", "item",
         "tolist", "numpy", "__len__", "__iter__", "dim", "size", "numel", "__float__",
         "__int__", "__index__", "__reduce_ex__", "__deepcopy__", "__getstate__",
         "__setstate__", "__array__", "__format__", "__dir__", "__torch_function__",
         "_wrap_dim", "__array_wrap__", "__contains__", "__dlpack__", "__array_priority__",
         "__init_subclass__", "__class_getitem__", "data_ptr", "stride", "storage_offset",
         "untyped_storage", "storage", "_tensor_hooks",
         "_extra", "__reversed__", "__setattr__", "__getattribute__", "__delattr__",
         "__copy__", "__sizeof__"}


def enter(methods=True):
    """Swap the dispatchers in (outermost call). methods=False leaves Tensor's methods
    unswapped (half the cost of a swap): grad(is_grads_batched=True)'s pass, where a formula
    that calls a plain tensor's method with a batched gradient fails on its data and the
    pass falls back to the row loop (Note [Batched backward] in autograd/__init__.py)."""
    if not WRAP:
        _build()
    if _STATE["depth"] == 0:
        _collect()
        for o, on, _ in _SWAPS:
            if methods or o is not Tensor:
                _put(o, on)
        _STATE["methods"] = methods
        _function.VMAP_APPLY = _function_apply
    elif methods and not _STATE["methods"]:
        for o, on, _ in _SWAPS:         # a vmap inside that pass: every method now
            if o is Tensor:
                _put(o, on)
        _STATE["methods"] = True
    _STATE["depth"] += 1


def leave():
    _STATE["depth"] -= 1
    if _STATE["depth"] == 0:
        for o, _, off in _SWAPS:
            if _STATE["methods"] or o is not Tensor:
                _put(o, off)
        _function.VMAP_APPLY = None


class _VmapInfo(tuple):
    """The info a Function's vmap staticmethod gets (torch's VmapInfo: batch_size,
    randomness)."""
    __slots__ = ()
    batch_size = property(lambda self: self[0])
    randomness = property(lambda self: self[1])


def _function_apply(cls, args, kwargs):
    """Function.apply with a BatchedTensor argument: the Function's own vmap staticmethod,
    or (generate_vmap_rule=True) its forward on each sample, stacked."""
    lvs = [a._level for a in args if type(a) is BatchedTensor]
    if not lvs:
        return NotImplemented
    lv = max(lvs)
    if _STATE["legacy"]:
        return _legacy_apply(cls, args, kwargs)
    level = next(x for x in LEVELS if x[0] == lv)
    un = [_un(a, lv) for a in args]
    if cls.generate_vmap_rule:
        outs = []
        for b in range(level[1]):
            outs.append(cls.apply(*[v.select(0, b) if bt else v for v, bt in un], **kwargs))
        if isinstance(outs[0], tuple):
            return tuple(_batched(W(_stack)([o[k] for o in outs]), lv)
                         for k in range(len(outs[0])))
        return _batched(W(_stack)(outs), lv)
    in_dims = tuple(0 if bt else None for _, bt in un)
    out, out_dims = cls.vmap(_VmapInfo((level[1], level[2])), in_dims,
                             *[v for v, _ in un], **kwargs)
    if isinstance(out, tuple):
        dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(out)
        return tuple(o if d is None else wrap_input(o, d, lv) for o, d in zip(out, dims))
    return out if out_dims is None else wrap_input(out, out_dims, lv)


class legacy:
    """gradcheck's batched forward-AD check runs under torch's legacy vmap semantics (torch's
    gradcheck uses that vmap): a custom Function runs its own forward and jvp on the batched
    tensors (no vmap staticmethod needed), and .item() on one fails with the legacy error."""
    def __enter__(self):
        self.prev = _STATE["legacy"]
        _STATE["legacy"] = True

    def __exit__(self, *exc):
        _STATE["legacy"] = self.prev


def _legacy_apply(cls, args, kwargs):
    """Function.apply on batched tensors, legacy style: forward on the primals, the Function's
    jvp on the tangents of the open dual level, the outputs made dual with its results (the
    reverse-mode graph is not recorded: the check reads tangents only)."""
    ctx = cls._backward_cls()
    tensor_pos = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    ctx._tensor_pos = tensor_pos
    prims, tans = list(args), []
    for i in tensor_pos:
        p, t = W(_fad.unpack_dual)(args[i]) if _fad_level() else (args[i], None)
        prims[i] = p
        tans.append(t)
    uses_setup = cls.setup_context is not _function.Function.setup_context
    with _no_grad():
        out = cls.forward(*prims, **kwargs) if uses_setup else cls.forward(ctx, *prims, **kwargs)
    if uses_setup:
        cls.setup_context(ctx, tuple(prims), out)
    if all(t is None for t in tans):
        return out
    res = ctx.jvp(tans, None, out)
    if not isinstance(out, tuple):
        return W(_fad.make_dual)(out, res)
    return tuple(W(_fad.make_dual)(o, t) if isinstance(o, Tensor) and t is not None else o
                 for o, t in zip(out, res))


def _fad_level():
    return bool(_forward.LEVELS)


def push_level(size, randomness):
    _ids[0] += 1
    LEVELS.append([_ids[0], size, randomness])
    return _ids[0]


def pop_level(ident):
    LEVELS[:] = [lv for lv in LEVELS if lv[0] != ident]


def wrap_input(x, d, lv):
    if d != 0:
        x = x.movedim(d, 0)
    return _batched(x, lv)


def unwrap_output(o, d, lv, size):
    """o (a function's output) with level lv's batch dim at d."""
    v, b = _un(o, lv)
    if not b:
        v = v.unsqueeze(0).expand(size, *v.shape)
    if d != 0:
        v = v.movedim(0, d)
    return v


def level_of(t):
    return t._level if type(t) is BatchedTensor else None


class grads_batched:
    """The vmap level of one autograd.grad(is_grads_batched=True) backward pass (torch runs
    it under its legacy vmap): the grad outputs' dim 0 is its batch, fallbacks do not warn
    (torch's legacy fallback warnings are off by default) and .item() on a batched gradient
    fails with the legacy error."""
    def __init__(self, size):
        self.size = size

    def __enter__(self):
        enter(methods=False)
        self.lv = push_level(self.size, "error")
        _STATE["quiet"] += 1
        return self.lv

    def __exit__(self, *exc):
        _STATE["quiet"] -= 1
        pop_level(self.lv)
        leave()


def is_no_data_error(e):
    """Whether e is the error of an ember internal that read a BatchedTensor's data (a node
    whose backward formula cannot run batched)."""
    return isinstance(e, RuntimeError) and str(e).startswith(NO_DATA[:40])
