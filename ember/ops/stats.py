"""Statistics: var, std, var_mean, std_mean (forward, node, derivative)."""
__all__ = ["var", "std", "var_mean", "std_mean"]

import warnings

import numpy as np

from .. import dtypes as D, return_types as _RT
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, NotImplementedBackward, link, link_multi, saved_dims
from ..dtypes import C_NAMES, type_name
from ..tensor import Tensor, wrap
from ._args import wrap_dim, write_out, saved_output, OMITTED
from ._args import not_tensor, wrong_type, check_args, invalid_args, args_fit
from .logical import where
from .reduce import _const, _expand_to, _np_aliases, _pymax, _red_dims, _unsqueeze_dims

# ---------------------------------------------------------------- var / std


def _var_args(dim, unbiased, correction, name, axis=OMITTED):
    """(dim, the correction to apply, torch's saved correction) from the arguments as given
    (OMITTED: not given). torch's overload is chosen by what was given, and so is its
    grad_fn._saved_correction: correction= (even None) saves the correction as given; a dim
    (even None) or unbiased saves unbiased's 1 or 0 (default 1); neither saves None."""
    if axis is not OMITTED:
        dim = axis
    if isinstance(dim, bool):                # legacy var(input, unbiased)
        dim, unbiased = OMITTED, dim
    if unbiased is not OMITTED and not isinstance(unbiased, bool):
        if unbiased is None:                 # (no overload takes unbiased=None)
            raise TypeError(f"{name}() received an invalid combination of arguments")
        raise wrong_type(unbiased, "bool")
    if correction is not OMITTED:
        check_args(name, ("correction", None, "Number", correction, True))
        if unbiased is not OMITTED:
            raise TypeError(f"{name}() received an invalid combination of arguments")
        given = correction
    elif unbiased is not OMITTED:
        given = int(unbiased)
    else:
        given = None if dim is OMITTED else 1
    correction = given if given is not None else 1
    return (None if dim is OMITTED else dim), correction, given


def _var_forward(input, dim, correction, keepdim, name, stacklevel=3):
    two = not name.endswith("_mean")        # (var_mean, std_mean: _real_moments)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes"
                           if name.endswith("_mean") else
                           "std and var only support floating point and complex dtypes")
    dims, axis = _red_dims(dim, x.ndim)
    n = 1
    for d in dims:
        n *= x.shape[d]
    dof = _pymax(0, n - correction)
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly "
                      "less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=stacklevel)
    # torch accumulates float32 moments in float64 and rounds the variance, the standard
    # deviation (its square root taken wide) and the mean once: v is returned wide, for the
    # caller to round (_narrow); a complex variance is the variances of the real and the
    # imaginary parts, each rounded, added
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if x.dtype.kind == "c":
            v = _real_moments(x.real, axis, keepdim, dof, two)[0].astype(x.real.dtype) + \
                _real_moments(x.imag, axis, keepdim, dof, two)[0].astype(x.real.dtype)
            m = np.mean(x, axis=axis, keepdims=True) if x.size else \
                np.full(np.sum(x, axis=axis, keepdims=True).shape, np.nan, x.dtype)
        else:
            v, m = _real_moments(x, axis, keepdim, dof, two)
        if not keepdim and x.ndim:
            m = m.reshape(v.shape)
    return dims, v, np.asarray(m, x.dtype)


def _real_moments(x, axis, keepdim, dof, two_pass=True):
    """The variance (wide: float64 for float32) and the mean (keepdims, wide) of a real array.
    torch's float32 var and std are two-pass: the deviations are taken from the mean computed
    in float32 (torch.mean's value), then squared and summed in float64 (found by experiment:
    bit for bit on 420 random float32 vectors of 2-100 elements, where a float64 mean matched
    377); so the variance of equal values is not 0 where their float32 sum rounds (seven of
    1.1752012: 2**-46 * 7/6). var_mean and std_mean take them from the wide mean (two_pass
    False: 0 there). (torch's float32 sum adds in another order than NumPy's pairwise one, so
    the two float32 means, and such variances, can still differ.)"""
    xw = x.astype(_WIDE[x.dtype]) if x.dtype in _WIDE else x
    m = np.mean(xw, axis=axis, keepdims=True) if x.size else \
        np.full(np.sum(xw, axis=axis, keepdims=True).shape, np.nan, xw.dtype)
    if xw is x or not x.size or not two_pass:
        dev = xw - m
    else:       # (ember's float32 mean: reduce.py's arithmetic, add.reduce then one division)
        n = x.size // m.size
        dev = xw - (np.add.reduce(x, axis=axis, keepdims=True) / x.dtype.type(n))
    v = np.asarray(np.sum(dev * dev, axis=axis, keepdims=keepdim) / dof, dtype=xw.dtype)
    return v, m


_WIDE = {np.dtype(np.float32): np.float64}


def _narrow(v, input):
    """A wide variance (or its square root) rounded to input's real dtype."""
    x = input._data
    return np.asarray(v, x.real.dtype if x.dtype.kind == "c" else x.dtype)


def _var_node(node, input, dim, dims, correction, keepdim, given):
    """Fill a var/std node's attributes (what torch's var_backward reads)."""
    node._saved_self = input
    node._dim, node._correction, node._saved_keepdim = dims, correction, keepdim
    node._dim_arg, node._correction_arg = dim, given     # (as given: torch's)
    node._all = dim is None or input._data.ndim == 0
    n = 1
    if not (isinstance(dim, (list, tuple)) and len(dim) == 0):
        for d in dims:
            n *= input._data.shape[d]
    node._n = n


def _var_backward(grad, s, dims, keepdim, n, correction, all_dims):
    """torch's var_backward: over all elements (dim=None), a non-positive dof gives
    grad * (nan where x == mean else inf); with dims, the factor 2 / (n - correction) is not
    clamped (n counts the listed dims, so 1 for an explicit dim=[])."""
    g = _unsqueeze_dims(grad, dims, keepdim)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if all_dims:
            dof = s._data.size - correction
            if dof <= 0:
                x = s._data
                return g * _const(np.where(x == x.mean(), np.nan, np.inf), g)
            return g * (2.0 / dof) * (s - s.mean())
        dof = n - correction
        factor = 2.0 / dof if dof else float("inf")
        return g * factor * (s - s.mean(dims, keepdim=True))


class VarBackward0(Node):                    # derivatives.yaml: var.correction
    __slots__ = ("_saved_self", "_dim", "_correction", "_saved_keepdim", "_n",
                 "_all", "_dim_arg",
                 "_correction_arg")
    _saved_dim = saved_dims("_dim", "_dim_arg")
    _saved_correction = property(lambda self: self._correction_arg)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return _var_backward(grad, self._saved_self, self._dim, self._saved_keepdim,
                             self._n, self._correction, self._all),

    def jvp(self, ts, xs, out):                 # var_backward read against the tangent
        return _var_jvp(self, ts[0], wrap(np.ones(out._data.shape, out._data.dtype)))


def _var_jvp(node, t, g):
    """The tangent of var (g: ones) or std (g: 1 / (2 std)): the sum over the reduced dims of
    the elementwise derivative var_backward gives, times t (Re(conj(d) t) for complex)."""
    s = node._saved_self
    d = _var_backward(g, s, node._dim, node._saved_keepdim, node._n,
                      node._correction, node._all)
    with np.errstate(invalid="ignore", over="ignore"):
        dt = (d.conj() * t).real if d._data.dtype.kind == "c" else d * t
        if node._all:
            return dt.sum()
        return dt.sum(node._dim, keepdim=node._saved_keepdim)


def _std_grad(grad, result):
    """grad / (2 * std), zero where std == 0 (torch's masked_fill)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return where(wrap(result._data == 0), 0.0, grad / (result * 2))


class StdBackward0(Node):                    # derivatives.yaml: std.correction
    __slots__ = ("_saved_self", "_saved_result", "_dim", "_correction",
                 "_saved_keepdim", "_n", "_all", "_dim_arg",
                 "_correction_arg")
    _saved_dim = saved_dims("_dim", "_dim_arg")
    _saved_correction = property(lambda self: self._correction_arg)
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        gv = _std_grad(grad, saved_output(self, self._saved_result))
        return _var_backward(gv, self._saved_self, self._dim, self._saved_keepdim,
                             self._n, self._correction, self._all),

    def jvp(self, ts, xs, out):
        return _var_jvp(self, ts[0], _std_grad(wrap(np.ones(out._data.shape, out._data.dtype)),
                                               out))


def var(input, dim=OMITTED, unbiased=OMITTED, keepdim=False, *,
        correction=OMITTED, out=None, axis=OMITTED, keepdims=None):
    _, keepdim = _np_aliases(None, keepdim, None, keepdims)
    dim, c, given = _var_args(dim, unbiased, correction, "var", axis)
    dims, v, _ = _var_forward(input, dim, c, keepdim, "var")
    res = wrap(_narrow(v, input))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = VarBackward0()
        _var_node(node, input, dim, dims, c, keepdim, given)
        link(res, node, input)
    return write_out(res, out)


def std(input, dim=OMITTED, unbiased=OMITTED, keepdim=False, *,
        correction=OMITTED, out=None, axis=OMITTED, keepdims=None):
    _, keepdim = _np_aliases(None, keepdim, None, keepdims)
    dim, c, given = _var_args(dim, unbiased, correction, "std", axis)
    dims, v, _ = _var_forward(input, dim, c, keepdim, "std")
    res = wrap(_narrow(np.sqrt(v), input))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = StdBackward0()
        _var_node(node, input, dim, dims, c, keepdim, given)
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class VarMeanBackward0(Node):                # derivatives.yaml: var_mean.correction
    __slots__ = ("_saved_self", "_dim", "_correction", "_saved_keepdim", "_n",
                 "_all", "_count", "_dim_arg",
                 "_correction_arg")
    _saved_dim = saved_dims("_dim", "_dim_arg")
    _saved_correction = property(lambda self: self._correction_arg)
    _saved_names = ("_saved_self",)
    _n_outputs = 2

    def apply(self, grads):
        gv, gm = grads
        s, dims, k = self._saved_self, self._dim, self._saved_keepdim
        out = None
        if gv is not None:
            out = _var_backward(gv, s, dims, k, self._n, self._correction, self._all)
        if gm is not None:
            g = _expand_to(_unsqueeze_dims(gm, dims, k), s._data.shape) / self._count
            out = g if out is None else out + g
        return out,

    def jvp(self, ts, xs, out):
        v = out[0]
        return [_var_jvp(self, ts[0], wrap(np.ones(v._data.shape, v._data.dtype))),
                _mean_jvp(self, ts[0])]


def _mean_jvp(node, t):
    if node._all:
        return t.sum() / node._count
    return t.sum(node._dim, keepdim=node._saved_keepdim) / node._count


class StdMeanBackward0(Node):                # derivatives.yaml: std_mean.correction
    __slots__ = ("_saved_self", "_saved_result0", "_dim", "_correction",
                 "_saved_keepdim", "_n", "_all", "_count", "_dim_arg",
                 "_correction_arg")
    _saved_dim = saved_dims("_dim", "_dim_arg")
    _saved_correction = property(lambda self: self._correction_arg)
    _saved_names = ("_saved_self", "_saved_result0")
    _n_outputs = 2

    def apply(self, grads):
        gs, gm = grads
        s, dims, k = self._saved_self, self._dim, self._saved_keepdim
        out = None
        if gs is not None:
            r = self._saved_result0
            if STATE.enabled:
                r = wrap(r._data)
                r._requires_grad, r._grad_fn, r._output_nr = True, self, 0
            out = _var_backward(_std_grad(gs, r), s, dims, k, self._n,
                                self._correction, self._all)
        if gm is not None:
            g = _expand_to(_unsqueeze_dims(gm, dims, k), s._data.shape) / self._count
            out = g if out is None else out + g
        return out,

    def jvp(self, ts, xs, out):
        r = out[0]
        return [_var_jvp(self, ts[0], _std_grad(wrap(np.ones(r._data.shape, r._data.dtype)), r)),
                _mean_jvp(self, ts[0])]


def _var_mean(input, dim, unbiased, keepdim, correction, name, axis):
    dim, c, given = _var_args(dim, unbiased, correction, name, axis)
    dims, v, m = _var_forward(input, dim, c, keepdim, name, 4)
    is_std = name == "std_mean"
    first = wrap(_narrow(np.sqrt(v) if is_std else v, input))
    mres = wrap(m)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = StdMeanBackward0() if is_std else VarMeanBackward0()
        _var_node(node, input, dim, dims, c, keepdim, given)
        if is_std:
            node._saved_result0 = first.detach()
        count = 1
        for d in dims:
            count *= input._data.shape[d]
        node._count = count
        link_multi([first, mres], node, input)
    return first, mres


def var_mean(input, dim=OMITTED, unbiased=OMITTED, keepdim=False, *,
             correction=OMITTED, axis=OMITTED, keepdims=None):
    _, keepdim = _np_aliases(None, keepdim, None, keepdims)
    return _var_mean(input, dim, unbiased, keepdim, correction, "var_mean", axis)


def std_mean(input, dim=OMITTED, unbiased=OMITTED, keepdim=False, *,
             correction=OMITTED, axis=OMITTED, keepdims=None):
    _, keepdim = _np_aliases(None, keepdim, None, keepdims)
    return _var_mean(input, dim, unbiased, keepdim, correction, "std_mean", axis)


# ================================================================ surface ops (issue 14):
# histc, histogram, histogramdd, bincount, quantile, nanquantile, cov, corrcoef
__all__ += ["histc", "histogram", "histogramdd", "bincount", "quantile", "nanquantile", "cov",
            "corrcoef"]


def _not_implemented_outputs(op, outs, *inputs):
    """Outputs of an op torch does not differentiate: a NotImplemented node when recording."""
    if STATE.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in inputs):
        for o in outs:          # (one node per output: each raises torch's error on use)
            node = NotImplementedBackward()
            node._op = op
            link(o, node, *inputs)
    return outs


def _uniform_bins(x, bins, lo, hi):
    """Bin of each element of x for `bins` equal bins over [lo, hi] (x == hi: the last one);
    -1 outside. Computed in x's dtype, as torch does."""
    ft = x.dtype.type
    with np.errstate(all="ignore"):
        pos = ((x - ft(lo)) * ft(bins) / (ft(hi) - ft(lo)))
    idx = np.floor(pos).astype(np.int64)
    idx[x == ft(hi)] = bins - 1
    idx[(x < ft(lo)) | (x > ft(hi)) | np.isnan(x)] = -1
    np.clip(idx, -1, bins - 1, out=idx)
    return idx


def _data_range(x, lo, hi, name):
    if lo == hi and x.size:
        with np.errstate(all="ignore"):
            lo, hi = x.min().item(), x.max().item()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        fmt = lambda v: "-nan" if v != v else ("inf" if v > 0 else "-inf") \
            if not np.isfinite(v) else f"{v:g}"                       # noqa: E731
        raise RuntimeError(f"{name}: range of [{fmt(lo)}, {fmt(hi)}] is not finite")
    return lo, hi


def _weight_check(x, weight):
    if weight is not None and not isinstance(weight, Tensor):
        raise wrong_type(weight, "Tensor")
    if weight is not None and weight._data.dtype != x.dtype:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and "
                           f"weight tensor should have the same dtype, but got input("
                           f"{C_NAMES[x.dtype.name]}), and weight("
                           f"{C_NAMES[weight._data.dtype.name]})")


def _float_input(x, name):
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"{name}\" not implemented for '{type_name(x.dtype)}'")


def histc(input, bins=100, min=0, max=0, *, out=None):
    check_args("histc", ("bins", 2, "int", bins), ("min", 3, "Number", min),
               ("max", 4, "Number", max))
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    _float_input(x, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    lo, hi = _data_range(x, min, max, "torch.histc")
    idx = _uniform_bins(x.reshape(-1), bins, lo, hi)
    hist = np.bincount(idx[idx >= 0], minlength=bins).astype(x.dtype)
    return write_out(wrap(hist), out)       # histc records no history (torch's does neither)


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    if not args_fit(("Tensor", bins)) and not args_fit(("int", bins)) or bins is None:
        raise invalid_args("histogram", (input, bins))
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    _float_input(x, "histogramdd")
    _weight_check(x, weight)
    flat = x.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._data.astype(x.dtype)
        idx = np.searchsorted(edges, flat, side="right") - 1
        idx[flat == edges[-1]] = edges.size - 2
        idx[(flat < edges[0]) | (flat > edges[-1]) | np.isnan(flat)] = -1
        n = edges.size - 1
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                               f"dimension 0")
        lo, hi = (0, 0) if range is None else range
        lo, hi = _data_range(x, lo, hi, "torch.histogram")
        edges = np.linspace(lo, hi, bins + 1).astype(x.dtype)
        idx = _uniform_bins(flat, bins, lo, hi)
        n = bins
    keep = idx >= 0
    w = None if weight is None else weight._data.reshape(-1)[keep]
    hist = np.bincount(idx[keep], weights=w, minlength=n).astype(x.dtype)
    if density:
        with np.errstate(all="ignore"):
            hist = (hist / (hist.sum() * np.diff(edges))).astype(x.dtype)
    outs = (wrap(hist), wrap(edges))
    _not_implemented_outputs("histogram", outs, input, weight)
    if out is not None:
        write_out(outs[0], out[0])
        write_out(outs[1], out[1])
        return _RT.histogram_out(tuple(out))
    return _RT.histogram(outs)


def histogramdd(input, bins=10, *, range=None, weight=None, density=False):
    if isinstance(bins, (list, tuple)) and not all(isinstance(b, Tensor) for b in bins) \
            and not args_fit(("tuple of ints", bins)):
        i, b = next((i, b) for i, b in enumerate(bins) if not isinstance(b, Tensor))
        raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(b).__name__}")
    if not isinstance(bins, (list, tuple)) and not args_fit(("int", bins)) or bins is None:
        raise invalid_args("histogramdd", (input, bins))
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    _float_input(x, "histogramdd")
    _weight_check(x, weight)
    k = x.shape[-1]
    pts = x.reshape(-1, k)
    if isinstance(bins, int):
        bins = [bins] * k
    edges, idx = [], []
    for j in builtins_range(k):
        col = pts[:, j]
        b = bins[j]
        if isinstance(b, Tensor):
            e = b._data.astype(x.dtype)
            i = np.searchsorted(e, col, side="right") - 1
            i[col == e[-1]] = e.size - 2
            i[(col < e[0]) | (col > e[-1]) | np.isnan(col)] = -1
        else:
            lo, hi = (0, 0) if range is None else (range[2 * j], range[2 * j + 1])
            lo, hi = _data_range(col, lo, hi, "torch.histogramdd")
            e = np.linspace(lo, hi, b + 1).astype(x.dtype)
            i = _uniform_bins(col, b, lo, hi)
        edges.append(e)
        idx.append(i)
    shape = tuple(e.size - 1 for e in edges)
    keep = np.all(np.stack(idx) >= 0, axis=0) if k else np.ones(len(pts), bool)
    flat = np.ravel_multi_index(tuple(i[keep] for i in idx), shape) if k else np.zeros(0, int)
    w = None if weight is None else weight._data.reshape(-1)[keep]
    hist = np.bincount(flat, weights=w, minlength=int(np.prod(shape))).astype(x.dtype)
    hist = hist.reshape(shape)
    if density:
        with np.errstate(all="ignore"):
            vol = np.ones(shape)
            for j, e in enumerate(edges):
                vol = vol * np.diff(e).reshape((-1,) + (1,) * (k - 1 - j))
            hist = (hist / (hist.sum() * vol)).astype(x.dtype)
    return _RT.histogramdd((wrap(hist), tuple(wrap(e) for e in edges)))


builtins_range = range


def bincount(input, weights=None, minlength=0):
    check_args("bincount", ("weights", 2, "Tensor", weights, True),
               ("minlength", None, "int", minlength))
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind not in "iu":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for "
                                  f"'{type_name(x.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return wrap(np.bincount(x, minlength=minlength).astype(np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != x.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = w.dtype if w.dtype.kind == "f" else np.dtype(np.float64)
    res = wrap(np.bincount(x, weights=w.astype(np.float64), minlength=minlength).astype(dt))
    return _not_implemented_outputs("bincount", (res,), input, weights)[0]


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan):
    name = "nanquantile" if ignore_nan else "quantile"
    if not (isinstance(q, Tensor) or args_fit(("float", q), ("int", dim), ("bool", keepdim))) \
            or q is None:
        raise invalid_args(name, (input, q) + ((dim,) if dim is not None else ()))
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind != "f" or x.dtype == np.float16:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q._data.dtype != x.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qa = q._data
    else:
        try:
            qa = np.asarray(q, x.dtype)
        except (TypeError, ValueError):
            raise wrong_type(q, "float") from None
    if x.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if ((qa < 0) | (qa > 1)).any():
        bad = qa[(qa < 0) | (qa > 1)].reshape(-1)[0].item()
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {bad:g}"
                           if qa.ndim == 0 else
                           f"{name}() q values must be in the range [0, 1]")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if dim is None:
        flat, d = input.reshape(-1), None
    else:
        d = wrap_dim(dim, _pymax(x.ndim, 1))
        flat = input.unsqueeze(0) if x.ndim == 0 else input.movedim(d, -1)
    srt = flat.sort(-1).values                       # NaNs sort last
    n = srt.shape[-1]
    nan = np.isnan(srt._data)
    count = (n - nan.sum(-1)) if ignore_nan else np.full(srt.shape[:-1], n)
    ft = x.dtype.type
    rank = qa.reshape(-1).astype(x.dtype) * (count[..., None] - 1).astype(x.dtype)
    # quantile: a NaN in the slice gives NaN (the last, NaN, element); nanquantile: all NaN too
    bad = (nan.any(-1) if not ignore_nan else count == 0)[..., None]
    rank = np.where(bad, ft(n - 1), rank)
    if interpolation == "lower":
        rank = np.floor(rank)
    elif interpolation == "higher":
        rank = np.ceil(rank)
    elif interpolation == "nearest":
        rank = np.round(rank)                        # half to even, as torch.round
    lo_i = np.floor(rank).astype(np.int64)
    hi_i = np.ceil(rank).astype(np.int64)
    lo = srt.gather(-1, wrap(lo_i))
    hi = srt.gather(-1, wrap(hi_i))
    if interpolation == "midpoint":
        res = lo.lerp(hi, 0.5)
    elif interpolation == "linear":
        res = lo.lerp(hi, wrap((rank - lo_i).astype(x.dtype)))
    else:
        res = lo
    res = res.movedim(-1, 0)                          # (q, ...)
    if keepdim:
        if dim is None:
            res = res.reshape((res.shape[0],) + (1,) * x.ndim)
        elif x.ndim:
            res = res.unsqueeze(d + 1)
    if qa.ndim == 0:
        res = res.squeeze(0)
    return res


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return write_out(_quantile(input, q, dim, keepdim, interpolation, False), out)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    return write_out(_quantile(input, q, dim, keepdim, interpolation, True), out)


def cov(input, *, correction=1, fweights=None, aweights=None):
    check_args("cov", ("correction", None, "int", correction),
               ("fweights", None, "Tensor", fweights, True),
               ("aweights", None, "Tensor", aweights, True))
    try:
        if input.ndim > 2:
            raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                               f"input with {input.ndim} dimensions")
    except AttributeError as e:
        raise not_tensor(e) from None
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(D.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.ndim > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but "
                               f"got fweights with {fweights.ndim} dimensions")
        if fweights._data.dtype.kind not in "iu":
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got "
                               f"fweights with {type_name(fweights._data.dtype)} dtype")
        if fweights.numel() != n:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are "
                               f"observations in the input but got {fweights.numel()} != {n}")
        if (fweights._data < 0).any():
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.ndim > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but "
                               f"got aweights with {aweights.ndim} dimensions")
        if aweights._data.dtype.kind != "f":
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {type_name(aweights._data.dtype)} dtype")
        if aweights.numel() != n:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are "
                               f"observations in the input but got {aweights.numel()} != {n}")
        if (aweights._data < 0).any():
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.sum(1) / n
        w_sum = n
        norm = n - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if float(norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = 0 if w is None else norm * 0
    xm = x - avg.unsqueeze(1)
    c = (xm if w is None else xm * w).mm(xm.t().conj())
    return (c / norm).squeeze()


def corrcoef(input):
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    std = (d.real if d.is_complex() else d).sqrt()
    c = c / std.view(-1, 1)
    c = c / std.view(1, -1)
    return c if c.is_complex() else c.clamp(-1, 1)
