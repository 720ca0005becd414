"""Statistics: var, std, var_mean, std_mean (forward, node, derivative)."""
__all__ = ["var", "std", "var_mean", "std_mean"]

import warnings

import numpy as np

from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, link_multi
from ..tensor import wrap
from ._args import write_out, saved_output
from .logical import where
from .reduce import _const, _expand_to, _np_aliases, _pymax, _red_dims, _unsqueeze_dims

# ---------------------------------------------------------------- var / std


def _var_args(dim, unbiased, correction, name):
    if isinstance(dim, bool):                # legacy var(input, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _var_forward(input, dim, correction, keepdim, name, stacklevel=3):
    x = input._data
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
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.mean(x, axis=axis, keepdims=True) if x.size else \
            np.full(np.sum(x, axis=axis, keepdims=True).shape, np.nan, x.dtype)
        dev = x - m
        sq = (dev * dev.conj()).real if x.dtype.kind == "c" else dev * dev
        v = np.asarray(np.sum(sq, axis=axis, keepdims=keepdim) / dof,
                       dtype=sq.dtype)
        if not keepdim and x.ndim:
            m = m.reshape(v.shape)
    return dims, v, np.asarray(m, x.dtype)


def _var_node(node, input, dim, dims, correction, keepdim):
    """Fill a var/std node's attributes (what torch's var_backward reads)."""
    node._saved_self = input
    node._saved_dim, node._saved_correction, node._saved_keepdim = dims, correction, keepdim
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
    __slots__ = ("_saved_self", "_saved_dim", "_saved_correction", "_saved_keepdim", "_n",
                 "_all")
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        return _var_backward(grad, self._saved_self, self._saved_dim, self._saved_keepdim,
                             self._n, self._saved_correction, self._all),

    def jvp(self, ts, xs, out):                 # var_backward read against the tangent
        return _var_jvp(self, ts[0], wrap(np.ones(out._data.shape, out._data.dtype)))


def _var_jvp(node, t, g):
    """The tangent of var (g: ones) or std (g: 1 / (2 std)): the sum over the reduced dims of
    the elementwise derivative var_backward gives, times t (Re(conj(d) t) for complex)."""
    s = node._saved_self
    d = _var_backward(g, s, node._saved_dim, node._saved_keepdim, node._n,
                      node._saved_correction, node._all)
    with np.errstate(invalid="ignore", over="ignore"):
        dt = (d.conj() * t).real if d._data.dtype.kind == "c" else d * t
        if node._all:
            return dt.sum()
        return dt.sum(node._saved_dim, keepdim=node._saved_keepdim)


def _std_grad(grad, result):
    """grad / (2 * std), zero where std == 0 (torch's masked_fill)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return where(wrap(result._data == 0), 0.0, grad / (result * 2))


class StdBackward0(Node):                    # derivatives.yaml: std.correction
    __slots__ = ("_saved_self", "_saved_result", "_saved_dim", "_saved_correction",
                 "_saved_keepdim", "_n", "_all")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        gv = _std_grad(grad, saved_output(self, self._saved_result))
        return _var_backward(gv, self._saved_self, self._saved_dim, self._saved_keepdim,
                             self._n, self._saved_correction, self._all),

    def jvp(self, ts, xs, out):
        return _var_jvp(self, ts[0], _std_grad(wrap(np.ones(out._data.shape, out._data.dtype)),
                                               out))


def var(input, dim=None, unbiased=None, keepdim=False, *,
        correction=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    dim, c = _var_args(dim, unbiased, correction, "var")
    dims, v, _ = _var_forward(input, dim, c, keepdim, "var")
    res = wrap(v)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = VarBackward0()
        _var_node(node, input, dim, dims, c, keepdim)
        link(res, node, input)
    return write_out(res, out)


def std(input, dim=None, unbiased=None, keepdim=False, *,
        correction=None, out=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    dim, c = _var_args(dim, unbiased, correction, "std")
    dims, v, _ = _var_forward(input, dim, c, keepdim, "std")
    res = wrap(np.sqrt(v))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = StdBackward0()
        _var_node(node, input, dim, dims, c, keepdim)
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class VarMeanBackward0(Node):                # derivatives.yaml: var_mean.correction
    __slots__ = ("_saved_self", "_saved_dim", "_saved_correction", "_saved_keepdim", "_n",
                 "_all", "_count")
    _saved_names = ("_saved_self",)
    _n_outputs = 2

    def apply(self, grads):
        gv, gm = grads
        s, dims, k = self._saved_self, self._saved_dim, self._saved_keepdim
        out = None
        if gv is not None:
            out = _var_backward(gv, s, dims, k, self._n, self._saved_correction, self._all)
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
    return t.sum(node._saved_dim, keepdim=node._saved_keepdim) / node._count


class StdMeanBackward0(Node):                # derivatives.yaml: std_mean.correction
    __slots__ = ("_saved_self", "_saved_result0", "_saved_dim", "_saved_correction",
                 "_saved_keepdim", "_n", "_all", "_count")
    _saved_names = ("_saved_self", "_saved_result0")
    _n_outputs = 2

    def apply(self, grads):
        gs, gm = grads
        s, dims, k = self._saved_self, self._saved_dim, self._saved_keepdim
        out = None
        if gs is not None:
            r = self._saved_result0
            if STATE.enabled:
                r = wrap(r._data)
                r._requires_grad, r._grad_fn, r._output_nr = True, self, 0
            out = _var_backward(_std_grad(gs, r), s, dims, k, self._n,
                                self._saved_correction, self._all)
        if gm is not None:
            g = _expand_to(_unsqueeze_dims(gm, dims, k), s._data.shape) / self._count
            out = g if out is None else out + g
        return out,

    def jvp(self, ts, xs, out):
        r = out[0]
        return [_var_jvp(self, ts[0], _std_grad(wrap(np.ones(r._data.shape, r._data.dtype)), r)),
                _mean_jvp(self, ts[0])]


def _var_mean(input, dim, unbiased, keepdim, correction, name):
    dim, c = _var_args(dim, unbiased, correction, name)
    dims, v, m = _var_forward(input, dim, c, keepdim, name, 4)
    is_std = name == "std_mean"
    first = wrap(np.sqrt(v) if is_std else v)
    mres = wrap(m)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = StdMeanBackward0() if is_std else VarMeanBackward0()
        _var_node(node, input, dim, dims, c, keepdim)
        if is_std:
            node._saved_result0 = first.detach()
        count = 1
        for d in dims:
            count *= input._data.shape[d]
        node._count = count
        link_multi([first, mres], node, input)
    return first, mres


def var_mean(input, dim=None, unbiased=None, keepdim=False, *,
             correction=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    return _var_mean(input, dim, unbiased, keepdim, correction, "var_mean")


def std_mean(input, dim=None, unbiased=None, keepdim=False, *,
             correction=None, axis=None, keepdims=None):
    dim, keepdim = _np_aliases(dim, keepdim, axis, keepdims)
    return _var_mean(input, dim, unbiased, keepdim, correction, "std_mean")
