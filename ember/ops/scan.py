"""Scans: cumsum, cumprod, logcumsumexp, cummax, cummin (forward, node, derivative)."""
__all__ = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"]

import numpy as np

from .. import dtypes as D, return_types as _RT
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, saved_alias, saved_arg
from ..dtypes import C_NAMES, type_name
from ..tensor import Tensor, wrap
from ._args import wrap_dim, write_out, saved_output, conj_if_complex
from ._args import not_tensor, check_args, invalid_args, args_fit, OMITTED, c_strides
from ._views import check_inplace, inplace, inplace_source, mark_written
from .join import cat
from .logical import where
from .reduce import _kernel_check, _prod_others_t, _required_dim, _scatter_add, _sum_dtype
from .sort import _rows, _unrows, write_pair

# ---------------------------------------------------------------- scans


def _rev_cumsum(input, dim):
    """cumsum_backward: grad itself when there is nothing to sum (at most one element, or
    one along dim), else grad.flip(dim).cumsum(dim).flip(dim)."""
    x = input._data
    if x.size <= 1 or x.shape[dim] == 1:
        return input
    return input.flip(dim).cumsum(dim).flip(dim)


class CumsumBackward0(Node):                 # derivatives.yaml: cumsum
    __slots__ = ("_dim", "_dim_arg",)
    _saved_dim = saved_arg("_dim", "_dim_arg")

    def apply(self, grad):
        return _rev_cumsum(grad, self._dim),

    def np_apply(self, g):
        d = self._dim
        if g.size <= 1 or g.shape[d] == 1:
            return g,
        r = np.flip(np.add.accumulate(np.flip(g, d), d), d).copy()
        if r.dtype.kind in "fc":
            np.add(r, 0.0, out=r)    # as the forward: the running sum starts at +0.0
        return r,

    def jvp(self, ts, xs, out):
        t = ts[0]
        return cumsum(t, self._dim) if t._data.ndim else t.clone()


def _accumulate(ufunc, name, input, dim, dtype, axis):
    """cumsum's and cumprod's forward: (result, wrapped dim)."""
    dim = _required_dim(name, dim, axis)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    d = wrap_dim(dim, x.ndim)
    rd = _sum_dtype(x, dtype, input)
    if not x.ndim:
        return wrap(x.astype(rd)), d
    r = np.ascontiguousarray(ufunc.accumulate(x, axis=d, dtype=rd))    # (torch's is, always)
    if ufunc is np.add and r.dtype.kind in "fc":
        np.add(r, 0.0, out=r)        # torch's running sum starts at +0.0: a -0.0 prefix is +0.0
    return wrap(r), d


def cumsum(input, dim=None, *, dtype=None, out=None, axis=None):
    res, d = _accumulate(np.add, "cumsum", input, dim, dtype, axis)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = CumsumBackward0()
        node._dim, node._dim_arg = d, dim if axis is None else axis
        link(res, node, input)
    return write_out(res, out)


def _cumprod_grad_zeros(x, g, out, d):
    """cumprod's gradient when some slice holds a zero, as torch computes it: before a slice's
    first zero z, the reversed cumsum of g * out divided by x; at z, the product of the
    elements before z times sum_{z<=j<z2} g_j prod_{z<m<=j} x_m (z2: the next zero); after z,
    zero."""
    rows_x, rows_g, rows_o = _rows(x, d), _rows(g, d), _rows(out, d)
    n = rows_x.shape[1]
    res = np.zeros(rows_x.shape, np.result_type(rows_x, rows_g))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for r in range(rows_x.shape[0]):
            xr, gr, orow = rows_x[r], rows_g[r], rows_o[r].conj()
            zs = np.flatnonzero(xr == 0)
            z = zs[0] if len(zs) else n
            if z:
                res[r, :z] = np.add.accumulate((gr * orow)[:z][::-1])[::-1] / xr[:z].conj()
            if z < n:                # terms from a second zero on vanish
                end = zs[1] if len(zs) > 1 else n
                before = orow[z - 1] if z else 1
                w = np.concatenate([[1], np.multiply.accumulate(xr[z + 1:end])]).conj()
                res[r, z] = before * np.add.reduce(gr[z:end] * w)
    return _unrows(res, x, d, n)


class CumprodBackward0(Node):                # derivatives.yaml: cumprod
    __slots__ = ("_saved_self", "_dim", "_dim_arg", "_saved_result")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        s = self._saved_self
        x = s._data
        d = self._dim
        if x.ndim == 0 or x.size == 0 or x.shape[d] == 1:
            return grad,
        if not (x == 0).any():
            r = saved_output(self, self._saved_result)
            return _rev_cumsum(grad * conj_if_complex(r), d) / conj_if_complex(s),
        if STATE.enabled:                    # building a graph: differentiable O(n^2) form
            return _cumprod_grad_graph(grad.expand(x.shape), s, d),
        g = np.broadcast_to(grad._data, x.shape)
        res = _cumprod_grad_zeros(x, g, self._saved_result._data, d)
        return wrap(res.astype(grad._data.dtype, copy=False)),

    def jvp(self, ts, xs, out):
        # out_k' = sum_{i<=k} t_i prod_{j<=k, j!=i} x_j: out * cumsum(t / x) without zeros
        s, t, d = self._saved_self, ts[0], self._dim
        x = s._data
        if x.ndim == 0 or x.size == 0:
            return t.clone()
        if not (x == 0).any():
            return out * cumsum(t / s, d)
        parts = [(t.narrow(d, 0, k + 1) * _prod_others_t(s.narrow(d, 0, k + 1), d))
                 .sum(d, keepdim=True) for k in range(x.shape[d])]
        return cat(parts, d)


def _cumprod_grad_graph(g, s, d):
    """grad_k = prod_{i<k} x_i * sum_{j>=k} g_j prod_{k<m<=j} x_m, with ember ops."""
    n = s._data.shape[d]
    shape = list(s._data.shape)
    shape[d] = 1
    ones = wrap(np.ones(shape, s._data.dtype))
    sc = conj_if_complex(s)
    before = cat([ones, sc.narrow(d, 0, n - 1)], d).cumprod(d)
    # (each slice written into zeros in place, as torch's formula does: its graph ends in
    # CopySlices nodes)
    out = wrap(np.zeros(s._data.shape, np.result_type(s._data.dtype, g._data.dtype)))
    for k in range(n):
        w = ones if k == n - 1 else cat([ones, sc.narrow(d, k + 1, n - k - 1).cumprod(d)], d)
        out.narrow(d, k, 1).copy_(before.narrow(d, k, 1) *
                                  (g.narrow(d, k, n - k) * w).sum(d, keepdim=True))
    return out


def cumprod(input, dim=None, *, dtype=None, out=None, axis=None):
    res, d = _accumulate(np.multiply, "cumprod", input, dim, dtype, axis)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = CumprodBackward0()
        node._saved_self = input if dtype is None else input.to(dtype)
        node._dim, node._dim_arg = d, dim if axis is None else axis
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class LogcumsumexpBackward0(Node):           # derivatives.yaml: logcumsumexp
    __slots__ = ("_saved_self", "_dim", "_dim_arg", "_saved_result")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        # the sum_{j>=k} g_j exp(x_k - out_j) in log space, positive and negative parts apart
        d, s = self._dim, self._saved_self
        r = saved_output(self, self._saved_result)
        if s._data.ndim == 0:
            return grad,
        lowest = float(np.finfo(grad._data.dtype).min)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            log_abs = grad.abs().log()
            pos = where(grad > 0, log_abs, lowest) - r
            neg = where(grad < 0, log_abs, lowest) - r
            rev = lambda t: logcumsumexp(t.flip(d), d).flip(d)  # noqa: E731
            return (rev(pos) + s).exp() - (rev(neg) + s).exp(),

    def jvp(self, ts, xs, out):
        # out_k' = sum_{i<=k} t_i exp(x_i - out_k), positive and negative t apart in log space
        d, s, t = self._dim, xs[0], ts[0]
        if s._data.ndim == 0:
            return t.clone()
        lowest = float(np.finfo(t._data.dtype).min)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            log_abs = t.abs().log() + s
            pos = logcumsumexp(where(t > 0, log_abs, lowest), d) - out
            neg = logcumsumexp(where(t < 0, log_abs, lowest), d) - out
            return pos.exp() - neg.exp()


def logcumsumexp(input, dim=None, *, out=None, axis=None):
    dim = _required_dim("logcumsumexp", dim, axis)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    d = wrap_dim(dim, x.ndim)           # (torch checks the dim first)
    if x.dtype.kind != "f":
        raise NotImplementedError('"logcumsumexp_out_cpu" not implemented for '
                                  f"'{type_name(x.dtype)}'")
    with np.errstate(invalid="ignore"):
        # (+ 0.0: torch's running sum starts from -inf, so -0.0 comes out as +0.0; the result
        # is contiguous, as torch's; a 0-d input is copied)
        res = wrap(np.add(np.logaddexp.accumulate(x, axis=d), 0.0, order="C") if x.ndim else
                   x.copy())
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = LogcumsumexpBackward0()
        node._saved_self, node._dim = input, d
        node._dim_arg = dim
        node._saved_result = res.detach()
        link(res, node, input)
    return write_out(res, out)


class CummaxBackward0(Node):                 # derivatives.yaml: cummax
    __slots__ = ("_idx", "_indices", "_saved_dim", "_self_sizes", "_saved_self")
    # _indices: the indices output, saved as torch saves it (a later in-place write to it,
    # or a second backward, is refused: Note [Versions]); the formula reads _idx (its
    # array); _saved_indices / _raw_saved_indices read _indices. torch saves self too (a
    # write into it is refused), which the formula does not read.
    _saved_names = ("_indices", "_saved_self")
    _saved_indices, _raw_saved_indices = saved_alias("_indices")

    def apply(self, grad):
        if not grad._data.size:
            # torch's formula returns its empty input itself (history included: a gradient
            # that requires grad, autograd.grad's result is the input)
            return self._saved_self,
        # (a 0-dim input too: zeros.scatter(_add)(0, indices, grad), as torch records it)
        return _scatter_add(grad, self._saved_dim, self._idx,
                            self._self_sizes, unique=False),

    def jvp(self, ts, xs, out):                 # the tangent at the running extreme
        t = ts[0]
        return t.gather(self._saved_dim, wrap(self._idx)) if t._data.ndim \
            else t.clone()


class CumminBackward0(CummaxBackward0):      # derivatives.yaml: cummin
    __slots__ = ()


def _cumext(input, dim, largest):
    _kernel_check(input, "cummax_cpu" if largest else "cummin_cpu")
    x = input._data
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{'cummax' if largest else 'cummin'}(): argument 'dim' (position 1) "
                        f"must be int, not {type(dim).__name__}")
    if x.ndim and not x.size:       # (torch returns an empty result before it reads the dim)
        d = dim
        vals, idx = x.copy(), np.zeros(x.shape, np.int64)
    elif x.ndim == 0:
        d = dim
        if d not in (-1, 0):
            raise IndexError(f"{'cummax' if largest else 'cummin'}(): Expected reduction dim -1 "
                             f"or 0 for scalar but got {dim}")
        vals, idx = x.copy(), np.zeros((), np.int64)
    else:
        d = wrap_dim(dim, x.ndim)
        xm = np.moveaxis(x, d, -1)
        vals = np.empty_like(xm)
        idx = np.zeros(xm.shape, np.int64)
        if xm.shape[-1]:
            cur = xm[..., 0].copy()
            ci = np.zeros(cur.shape, np.int64)
            isf = xm.dtype.kind in "fc"
            for i in range(xm.shape[-1]):
                v = xm[..., i]
                take = (v >= cur) if largest else (v <= cur)
                if isf:
                    take = (take & ~np.isnan(cur)) | np.isnan(v)
                cur = np.where(take, v, cur)
                ci = np.where(take, i, ci)
                vals[..., i], idx[..., i] = cur, ci
        # (torch's outputs are contiguous whatever the input's layout: a view of them works)
        vals = c_strides(np.ascontiguousarray(np.moveaxis(vals, -1, d)))
        idx = c_strides(np.ascontiguousarray(np.moveaxis(idx, -1, d)))
    values, indices = wrap(vals), wrap(idx)
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = CummaxBackward0() if largest else CumminBackward0()
        node._saved_dim, node._idx, node._indices = d, idx, indices
        node._self_sizes = x.shape
        node._saved_self = input
        link(values, node, input)
    return (_RT.cummax if largest else _RT.cummin)((values, indices))


def cummax(input, dim=None, *, out=None, axis=None):
    dim = _required_dim("cummax", dim, axis)
    return write_pair(_cumext(input, dim, True), out, _RT.cummax_out)


def cummin(input, dim=None, *, out=None, axis=None):
    dim = _required_dim("cummin", dim, axis)
    return write_pair(_cumext(input, dim, False), out, _RT.cummin_out)


def _scan_(op, self, dim, dtype):
    """cumsum_/cumprod_: torch computes into self's dtype, which must be dtype's."""
    x = self._data
    if dtype is not None and dtype.np != x.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {C_NAMES[x.dtype.name]} and "
                           f"output tensor dtype {C_NAMES[dtype.np.name]} should match")
    if x.dtype.kind == "b":         # bool kernels: none (an empty or 0-d tensor runs none)
        wrap_dim(dim, x.ndim)           # (torch checks the dim first)
        if x.size and x.ndim:
            raise NotImplementedError(f"\"{op.__name__}_out_cpu\" not implemented for 'Bool'")
        check_inplace(self, False)
        mark_written(self)      # (torch counts the write of nothing)
        return self
    return inplace(self, op(inplace_source(self), dim, dtype=self.dtype))


def cumsum_(self, dim, *, dtype=None):
    return _scan_(cumsum, self, dim, dtype)


def cumprod_(self, dim, *, dtype=None):
    return _scan_(cumprod, self, dim, dtype)


# ================================================================ surface ops (issue 14):
# diff, gradient, trapezoid/trapz, cumulative_trapezoid: compositions of slices and arithmetic
# (torch composes them too: their grad_fn are the parts')
__all__ += ["diff", "gradient", "trapezoid", "trapz", "cumulative_trapezoid"]


def _slice(t, dim, start, stop=None):
    idx = [slice(None)] * t.ndim
    idx[dim] = slice(start, stop)
    return t[tuple(idx)]


def _floated(t):
    return t if t.is_floating_point() or t.is_complex() else t.to(D.get_default_dtype())


def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    check_args("diff", ("n", 2, "int", n), ("dim", 3, "int", dim),
               ("prepend", 4, "Tensor", prepend, True), ("append", 5, "Tensor", append, True))
    return write_out(_diff(input, n, dim, prepend, append), out, "sub")


def _diff(input, n, dim, prepend, append):
    try:
        if input.ndim == 0:
            raise RuntimeError("diff expects input to be at least one-dimensional")
    except AttributeError as e:
        raise not_tensor(e) from None
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    parts = []
    for extra in (prepend, append):
        if extra is None:
            continue
        if extra.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
        for i in range(input.ndim):
            if i != d and extra.shape[i] != input.shape[i]:
                raise RuntimeError(f"diff expects the shape of tensor to prepend or append to "
                                   f"match that of input except along the differencing "
                                   f"dimension; input.size({i}) = {input.shape[i]}, but got "
                                   f"tensor.size({i}) = {extra.shape[i]}")
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        input = cat(parts, d)
    if n == 0:
        return input.clone()
    out = input
    for _ in range(n):
        if out.shape[d] == 0:
            break
        hi, lo = _slice(out, d, 1), _slice(out, d, 0, -1)
        out = hi.logical_xor(lo) if out._data.dtype.kind == "b" else hi - lo
    return out


def _empty_trapezoid(y, d):
    """No samples along d: zeros, with no history (torch makes them anew)."""
    shape = y.shape[:d] + y.shape[d + 1:]
    dt = y.dtype if y.is_floating_point() or y.is_complex() else D.get_default_dtype()
    return wrap(np.zeros(shape, dt.np))


def _trapezoid_args(name, y, x, dx, dim):
    """x (None when omitted) and the wrapped dim of (cumulative_)trapezoid, after torch's
    argument checks (a 0-d y has no dim)."""
    if x is not OMITTED and not args_fit(("Tensor or Number", x)) or x is None:
        raise invalid_args(name, (y, x))
    check_args(name, ("dx", None, "Number", dx, True), ("dim", None, "int", dim))
    try:
        if y.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    except AttributeError as e:
        raise not_tensor(e) from None
    return None if x is OMITTED else x, wrap_dim(dim, y.ndim)


def trapezoid(y, x=OMITTED, *, dx=None, dim=-1):
    x, d = _trapezoid_args("trapezoid", y, x, dx, dim)
    if x is not None and not isinstance(x, Tensor):
        dx, x = x, None                   # trapezoid(y, dx) as a positional spacing
    if x is None:
        spacing = 1.0 if dx is None else dx
        if y.shape[d] == 0:
            return _empty_trapezoid(y, d)
        # dx * (sum - (first + last) / 2)
        ends = (y.select(d, 0) + y.select(d, -1)) * 0.5
        return (_floated(y.sum(d)) - ends) * spacing
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        h = (x[1:] - x[:-1]).reshape((-1,) + (1,) * (y.ndim - 1 - d))
    else:
        h = diff(x, dim=d)
    if y.shape[d] == 0:
        return _empty_trapezoid(y, d)
    return ((_slice(y, d, 1) + _slice(y, d, 0, -1)) * h).sum(d) / 2.0


def trapz(y, x=OMITTED, *, dx=None, dim=-1):
    if x is not OMITTED and not args_fit(("Tensor or Number", x)) or x is None:
        raise invalid_args("trapz", (y, x))
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=OMITTED, *, dx=None, dim=-1):
    x, d = _trapezoid_args("cumulative_trapezoid", y, x, dx, dim)
    if x is not None and not isinstance(x, Tensor):
        dx, x = x, None
    pair = _slice(y, d, 1) + _slice(y, d, 0, -1)
    if x is None:
        return (pair * ((1.0 if dx is None else dx) / 2.0)).cumsum(d)
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each "
                               "sample point")
        h = (x[1:] - x[:-1]).reshape((-1,) + (1,) * (y.ndim - 1 - d))
    else:
        h = diff(x, dim=d)
    return (pair * h).cumsum(d) / 2.0


def _gradient_along(f, d, h, edge_order):
    """d f / d(axis d) by central differences inside and one-sided ones at the ends; h: a
    number (uniform spacing) or a 1-D tensor of coordinates."""
    n = f.shape[d]
    if n < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")
    f = _floated(f)
    s = lambda a, b=None: _slice(f, d, a, b)     # noqa: E731
    if not isinstance(h, Tensor):
        inner = (s(2) - s(0, -2)) / 2.0 / h
        if edge_order == 1:
            first = (s(1, 2) - s(0, 1)) / h
            last = (s(-1) - s(-2, -1)) / h
        else:
            first = (s(0, 1) * -1.5 + s(1, 2) * 2.0 - s(2, 3) * 0.5) / h
            last = (s(-3, -2) * 0.5 - s(-2, -1) * 2.0 + s(-1) * 1.5) / h
        return cat([first, inner, last], d)
    shape = (-1,) + (1,) * (f.ndim - 1 - d)
    hs = (h[1:] - h[:-1]).to(f.dtype)
    hl, hr = hs[:-1].reshape(shape), hs[1:].reshape(shape)
    inner = s(2) * (hl * hl) - s(0, -2) * (hr * hr) + s(1, -1) * (hr * hr - hl * hl)
    inner = inner / (hl * hr * (hl + hr))
    if edge_order == 1:
        first = (s(1, 2) - s(0, 1)) / hs[0]
        last = (s(-1) - s(-2, -1)) / hs[-1]
    else:
        a, b = hs[0], hs[1]
        first = s(0, 1) * (-(2 * a + b) / (a * (a + b))) + s(1, 2) * ((a + b) / (a * b)) \
            + s(2, 3) * (-a / (b * (a + b)))
        a, b = hs[-2], hs[-1]
        last = s(-3, -2) * (b / (a * (a + b))) + s(-2, -1) * (-(a + b) / (a * b)) \
            + s(-1) * ((a + 2 * b) / (b * (a + b)))
    return cat([first, inner, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dim is None:
        try:
            dims = list(range(input.ndim))
        except AttributeError as e:
            raise not_tensor(e) from None
        what = f"since dim argument was not given"
    else:
        dims = [wrap_dim(d, input.ndim) for d in ([dim] if isinstance(dim, int) else dim)]
        what = f"since dim argument was given as {list(dims) if not isinstance(dim, int) else dim}"
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            size = f"'self.dim() = {input.ndim}'" if dim is None else \
                f"'len(dim) = {len(dims)}'"
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, "
                               f"or a list of length equal to {size}, {what}, but got a list "
                               f"of length {len(spacing)}")
        hs = list(spacing)
    else:
        hs = [spacing] * len(dims)
    hs = [h.item() if isinstance(h, Tensor) and h.ndim == 0 else h for h in hs]
    return tuple(_gradient_along(input, d, h, edge_order) for d, h in zip(dims, hs))
