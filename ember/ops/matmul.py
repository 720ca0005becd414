"""The matmul family: mm, bmm, mv, dot, vdot, matmul, outer, addmm, addmv, baddbmm, addbmm,
addr, cross. Forward and backward are plain NumPy matmul calls on the existing arrays
(transposes as views); derivative formulas are written with ember ops. matmul of an operand
with 3 or more dims composes view, mm/mv/bmm and copy ops as torch does (Note [matmul chains])."""
__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "outer", "ger", "addmm", "addmv", "addbmm",
           "baddbmm", "addr", "cross"]

import math
import warnings

import numpy as np

from .._amp_state import AUTOCAST, lower
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, saved_arg
from ..dtypes import C_NAMES, type_name
from ..tensor import Tensor, wrap
from ._args import broadcast_error, needs, scalar_array, wrap_dim, write_out, requires
from ._args import not_tensor, check_args
from ._linalg import _h
from ._views import inplace, inplace_source
from .arith import scalar_op, MulBackward1
from .shape import _mH, _mT, _unsafe_view, squeeze_


# ---------------------------------------------------------------- mm / bmm / mv / dot

def _dtype_error_mm(a, b):
    return RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                        f"{C_NAMES[a.dtype.name]} != {C_NAMES[b.dtype.name]}")


def _check_mm(a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                           f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    if a.dtype != b.dtype:
        raise _dtype_error_mm(a, b)
    if a.dtype.kind == "b" and a.size and b.size:      # (torch's kernel skips empty ones)
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


class _MatrixGeometry:
    """torch's _saved_<a>_sym_sizes / _sym_strides of a two-matrix product node (mm, addmm),
    computed when read from what the node holds: its output's shape (_meta) and `_t` = (the
    byte strides of the first matrix where it requires grad, else None; the same for the
    second; the inner size k), set in the forward without computing anything. torch saves the
    strides of the matrices whose gradient is needed, () for the others."""
    __slots__ = ()

    def _sizes(self, i):
        n, p = self._meta[0]
        k = self._t[2]
        return (n, k) if i == 0 else (k, p)

    def _strides(self, i):
        st = self._t[i]
        if st is None:
            return ()
        isz = self._meta[1].itemsize
        return tuple(s // isz for s in st)

    def _flags(self):
        """(whether the first matrix is stored transposed, the second): e.g. `weight.t()` in
        linear, whose gradient is then computed as the transpose of a C-ordered product, so
        that after TBackward0 the leaf receives a C-contiguous array that AccumulateGrad can
        take without a copy (same FLOPs either way). Transposed: Fortran-contiguous and not
        C-contiguous by NumPy's rules, which for an (r, c) matrix is r > 1, c > 1 and byte
        strides (itemsize, r * itemsize)."""
        sa, sb, k = self._t
        (n, p), dt = self._meta
        isz = dt.itemsize
        return (sa is not None and n > 1 and k > 1 and sa[0] == isz and sa[1] == n * isz,
                sb is not None and k > 1 and p > 1 and sb[0] == isz and sb[1] == k * isz)


def _scaled(t, c):
    """t * c for a jvp term, with c == 1 skipped (and c == 0 giving zeros, as beta=0 ignores
    the input)."""
    return t if c == 1 else t * c


def _plain_scalar(v):
    """A Python int or float (weak in NumPy's promotion as in torch's)."""
    return type(v) is int or type(v) is float


def _bmm_np(a, b):
    """a @ b for stacks of matrices (NumPy arrays). With one column against one row (k == 1:
    the per-sample outer products of vmapped linear layers) BLAS is slow; a broadcast product
    gives the same float values at a third of the time, plus 0.0 so that a -0.0 product comes
    out +0.0 as BLAS's (and torch's) sum does."""
    if a.shape[-1] == 1 and a.dtype.kind == "f" and a.ndim == 3 and b.ndim == 3:
        r = a * b
        np.add(r, 0.0, out=r)
        return r
    return np.matmul(a, b)


def _mm_np(a, b):
    """a @ b for two matrices (NumPy arrays) with torch's signed zeros. With an inner dimension
    of 1 and at least two rows and columns, torch's gemm writes the plain products (a -0.0
    product stays -0.0) where NumPy's matmul adds them to +0.0; with one row or one column
    (torch's gemv) torch adds them to +0.0 too, and float16 never keeps -0.0 (no BLAS).
    Found by experiment for float32/64 and complex; the product is the same values
    (one rounding either way) and faster than a BLAS call."""
    if a.shape[1] == 1 and a.shape[0] > 1 and b.shape[1] > 1 and a.dtype.char in "fdFD":
        return a * b
    return np.matmul(a, b)


def _mm_grads_np(g, a, b, na, nb, ta, tb):
    """Gradients of a @ b (NumPy arrays) for the requested inputs; ta/tb: stored transposed."""
    ga = gb = None
    if na:
        ga = _h(_mm_np(b, _h(g))) if ta else _mm_np(g, _h(b))
    if nb:
        gb = _h(_mm_np(_h(g), a)) if tb else _mm_np(_h(a), g)
    return ga, gb


class MmBackward0(_MatrixGeometry, Node):    # derivatives.yaml: mm
    __slots__ = ("_saved_self", "_saved_mat2", "_t")
    _saved_names = ("_saved_self", "_saved_mat2")
    _saved_self_sym_sizes = property(lambda self: self._sizes(0))
    _saved_mat2_sym_sizes = property(lambda self: self._sizes(1))
    _saved_self_sym_strides = property(lambda self: self._strides(0))
    _saved_mat2_sym_strides = property(lambda self: self._strides(1))

    def apply(self, grad):
        s, m = self._saved_self, self._saved_mat2
        return (mm(grad, _mH(m)) if needs(self, 0) else None,
                mm(_mH(s), grad) if needs(self, 1) else None)

    def np_apply(self, g):
        s, m = self._saved_self, self._saved_mat2
        ta, tb = self._flags()
        return _mm_grads_np(g, s._data if s is not None else None,
                            m._data if m is not None else None,
                            needs(self, 0), needs(self, 1), ta, tb)

    def jvp(self, ts, xs, out):
        return ts[0].mm(xs[1]) + xs[0].mm(ts[1])


def _type_error(fn, names, args):
    for i, (n, x) in enumerate(zip(names, args)):
        if not isinstance(x, Tensor):
            return TypeError(f"{fn}(): argument '{n}' (position {i + 1}) must be Tensor, not "
                             f"{type(x).__name__}")
    return TypeError(f"{fn}(): invalid arguments")


def mm(input, mat2, *, out=None):
    if AUTOCAST.cpu and out is None:      # Note [Autocast hook]
        input, mat2 = lower(input, mat2)
    try:
        a, b = input._data, mat2._data
    except AttributeError:
        raise _type_error("mm", ("input", "mat2"), (input, mat2)) from None
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.dtype != b.dtype or a.shape[1] != b.shape[0] or a.dtype.kind == "b":
        _check_mm(a, b)
    res = wrap(_mm_np(a, b))
    if STATE.enabled and (input._requires_grad or mat2._requires_grad) or \
            LEVELS and dual(input, mat2):
        node = MmBackward0()
        node._saved_self = input if mat2._requires_grad else None
        node._saved_mat2 = mat2 if input._requires_grad else None
        node._t = (a.strides if input._requires_grad else None,
                   b.strides if mat2._requires_grad else None, a.shape[1])
        link(res, node, input, mat2)
    return write_out(res, out)


def _check_bmm(a, b):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, "
                           f"{b.shape[1]}].")
    if not (a.size and b.size):
        return          # torch returns zeros of mat2's dtype without checking the dtypes
    if a.dtype.kind == "b":
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {type_name(a.dtype)} but found "
                           f"{type_name(b.dtype)}")


class BmmBackward0(Node):                    # derivatives.yaml: bmm
    __slots__ = ("_saved_self", "_saved_mat2")
    _saved_names = ("_saved_self", "_saved_mat2")

    def apply(self, grad):
        s, m = self._saved_self, self._saved_mat2
        return (bmm(grad, _mH(m)) if needs(self, 0) else None,
                bmm(_mH(s), grad) if needs(self, 1) else None)

    def np_apply(self, grad):
        s, m = self._saved_self, self._saved_mat2
        return (_bmm_np(grad, _h(m._data)) if needs(self, 0) else None,
                _bmm_np(_h(s._data), grad) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        return ts[0].bmm(xs[1]) + xs[0].bmm(ts[1])


def bmm(input, mat2, *, out=None):
    if AUTOCAST.cpu and out is None:      # Note [Autocast hook]
        input, mat2 = lower(input, mat2)
    try:
        a, b = input._data, mat2._data
    except AttributeError:
        raise _type_error("bmm", ("input", "mat2"), (input, mat2)) from None
    if (a.ndim != 3 or b.ndim != 3 or a.dtype != b.dtype or a.shape[0] != b.shape[0]
            or a.shape[2] != b.shape[1] or a.dtype.kind == "b"):
        _check_bmm(a, b)
    if a.dtype != b.dtype:      # (an empty operand: _check_bmm)
        res = wrap(np.zeros((a.shape[0], a.shape[1], b.shape[2]), b.dtype))
    else:
        res = wrap(_bmm_np(a, b))
    if STATE.enabled and (input._requires_grad or mat2._requires_grad) or \
            LEVELS and dual(input, mat2):
        node = BmmBackward0()
        node._saved_self = input if mat2._requires_grad else None
        node._saved_mat2 = mat2 if input._requires_grad else None
        link(res, node, input, mat2)
    return write_out(res, out)


def _check_mv(a, v):
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0]})")
    if a.dtype != v.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{type_name(v.dtype)}, {type_name(a.dtype)}, and "
                           f"{type_name(v.dtype)}")
    if a.dtype.kind == "b" and a.size and v.size:
        raise NotImplementedError("\"addmv_impl_cpu\" not implemented for 'Bool'")


class MvBackward0(Node):                     # derivatives.yaml: mv
    __slots__ = ("_saved_self", "_saved_vec")
    _saved_names = ("_saved_self", "_saved_vec")

    def apply(self, grad):
        s, v = self._saved_self, self._saved_vec
        return (outer(grad, v.conj()) if needs(self, 0) else None,
                mv(_mH(s), grad) if needs(self, 1) else None)

    def np_apply(self, grad):
        s, v = self._saved_self, self._saved_vec
        if not needs(self, 0):
            return None, _h(s._data) @ grad
        vd = v._data.conj() if v._data.dtype.kind == "c" else v._data
        return (np.multiply.outer(grad, vd),
                _h(s._data) @ grad if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        return ts[0].mv(xs[1]) + xs[0].mv(ts[1])


def mv(input, vec, *, out=None):
    try:
        a, v = input._data, vec._data
    except AttributeError:
        raise _type_error("mv", ("input", "vec"), (input, vec)) from None
    if a.ndim != 2 or v.ndim != 1 or a.dtype != v.dtype or a.shape[1] != v.shape[0] \
            or a.dtype.kind == "b":
        _check_mv(a, v)
    res = wrap(np.matmul(a, v))
    if STATE.enabled and (input._requires_grad or vec._requires_grad) or \
            LEVELS and dual(input, vec):
        node = MvBackward0()
        node._saved_self = input if vec._requires_grad else None
        node._saved_vec = vec if input._requires_grad else None
        link(res, node, input, vec)
    return write_out(res, out)


def _check_dot(a, b, name="dot"):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                           f"{type_name(a.dtype)} and {type_name(b.dtype)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    if a.dtype.kind == "b":
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")


class DotBackward0(Node):                    # derivatives.yaml: dot
    __slots__ = ("_saved_self", "_saved_tensor")
    _saved_names = ("_saved_self", "_saved_tensor")

    def apply(self, grad):
        s, t = self._saved_self, self._saved_tensor
        return (grad * t.conj() if needs(self, 0) else None,
                grad * s.conj() if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        return ts[0].dot(xs[1]) + xs[0].dot(ts[1])


def dot(input, tensor, *, out=None):
    try:
        a, b = input._data, tensor._data
    except AttributeError:
        raise _type_error("dot", ("input", "tensor"), (input, tensor)) from None
    if a.ndim != 1 or b.ndim != 1 or a.dtype != b.dtype or a.shape != b.shape \
            or a.dtype.kind == "b":
        _check_dot(a, b)
    res = wrap(np.matmul(a, b))
    if STATE.enabled and (input._requires_grad or tensor._requires_grad) or \
            LEVELS and dual(input, tensor):
        node = DotBackward0()
        node._saved_self = input if tensor._requires_grad else None
        node._saved_tensor = tensor if input._requires_grad else None
        link(res, node, input, tensor)
    return write_out(res, out)


class VdotBackward0(Node):                   # derivatives.yaml: vdot
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        s, o = self._saved_self, self._saved_other
        return (grad.conj() * o if needs(self, 0) else None,
                grad * s if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        return ts[0].vdot(xs[1]) + xs[0].vdot(ts[1])


def vdot(input, other, *, out=None):
    try:
        a, b = input._data, other._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim != 1 or b.ndim != 1 or a.dtype != b.dtype or a.shape != b.shape \
            or a.dtype.kind == "b":
        _check_dot(a, b, "vdot" if a.ndim == 1 == b.ndim and a.dtype == b.dtype else "dot")
    res = wrap(np.asarray(np.vdot(a, b)))
    if STATE.enabled and (input._requires_grad or other._requires_grad) or \
            LEVELS and dual(input, other):
        node = VdotBackward0()
        node._saved_self = input if other._requires_grad else None
        node._saved_other = other if input._requires_grad else None
        link(res, node, input, other)
    return write_out(res, out)

# ---------------------------------------------------------------- matmul
# Note [matmul chains]: matmul with an operand of 3 or more dims is a composition in torch, and
# ember composes the same ops, so grad_fn and next_functions are torch's chain (found by walking
# it in torch for many shapes, layouts and requires_grad flags):
#   fold    (..., n, k) @ (k, p) or (k,): reshape(-1, k), mm or mv, _unsafe_view(..., n, p)
#   fold_t  (n, k) or (k,) @ (..., k, p): fold the transposed problem (other.mT @ input.t()),
#           then .mT.contiguous() when input is a matrix
#   bmm     expand both to the broadcast batch, reshape each to 3 dims, bmm, _unsafe_view
# torch folds when the smaller operand requires grad, or when the larger one folds without a
# copy (its batch dims and rows merge), or is empty; a 2-D input never folds otherwise. Before
# that, a 3-D operand with a batch of 1 that requires grad, paired with a 3-D operand of
# another batch size, loses that dim (squeeze), so its gradient is a plain mm.

def _rows_merge(x, transposed):
    """True when the batch dims of x (its last two swapped if `transposed`) merge with its
    rows without a copy: each stride is the next one times the next size (torch's strict
    test: size-1 dims are not exempt, the last dim's stride is free)."""
    shape, strides = list(x.shape), list(x.strides)
    if transposed:
        shape[-2:] = shape[-1], shape[-2]
        strides[-2:] = strides[-1], strides[-2]
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _fold(t1, t2, first_is_matrix, transposed):
    """torch's choice of the fold path for t1 (>= 3 dims) and t2 (<= 2 dims)."""
    if t2._requires_grad:
        return True
    if first_is_matrix:
        return False
    return t1._data.size == 0 or _rows_merge(t1._data, transposed)


def _matmul_nd(input, other):
    """matmul with an operand of 3 or more dims (Note [matmul chains])."""
    sa, sb = input._data.shape, other._data.shape
    if len(sa) == 3 and len(sb) == 3 and sa[0] != sb[0]:
        if sa[0] == 1 and input._requires_grad:
            input = input.squeeze(0)
        elif sb[0] == 1 and other._requires_grad:
            other = other.squeeze(0)
    d1, d2 = input._data.ndim, other._data.ndim
    if d1 >= 3 and d2 <= 2 and _fold(input, other, False, False):
        sa = input._data.shape
        t1 = input.reshape(math.prod(sa[:-1]), sa[-1])
        r = mm(t1, other) if d2 == 2 else mv(t1, other)
        return _unsafe_view(r, input._data.shape[:-1] + other._data.shape[1:])
    if d2 >= 3 and d1 <= 2 and _fold(other, input, d1 == 2, True):
        t1 = _mT(other)
        t2 = input.t() if d1 == 2 else input
        st = t1._data.shape
        f = t1.reshape(math.prod(st[:-1]), st[-1])
        r = mm(f, t2) if d1 == 2 else mv(f, t2)
        r = _unsafe_view(r, t1._data.shape[:-1] + t2._data.shape[1:])
        return _mT(r).contiguous() if d1 == 2 else r
    a, b = input._data, other._data
    n, k = (a.shape[-2] if d1 > 1 else 1), a.shape[-1]
    k2, p = (b.shape[-2], b.shape[-1]) if d2 > 1 else (b.shape[0], 1)
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise broadcast_error(np.empty(a.shape[:-2]), np.empty(b.shape[:-2])) from None
    nb = math.prod(batch)
    # (a vector here never requires grad: it would have folded)
    x = (input if d1 > 1 else input.unsqueeze(0)).expand(batch + (n, k))
    y = (other if d2 > 1 else other.unsqueeze(-1)).expand(batch + (k2, p))
    r = bmm(x.reshape(nb, n, k), y.reshape(nb, k2, p))
    if d2 == 1:
        return _unsafe_view(r.squeeze(-1), batch + (n,))
    return _unsafe_view(r, batch + a.shape[-2:-1] + (p,))


def matmul(input, other, *, out=None):
    if AUTOCAST.cpu and out is None:      # Note [Autocast hook]
        input, other = lower(input, other)
    try:
        a, b = input._data, other._data
    except AttributeError:
        raise _type_error("matmul", ("input", "other"), (input, other)) from None
    d1, d2 = a.ndim, b.ndim
    if d1 == 2 and d2 == 2:
        # mm, inlined: this is the hot path of every linear layer
        k = a.shape[1]
        if a.dtype != b.dtype or k != b.shape[0] or a.dtype.kind == "b":
            _check_mm(a, b)
        res = wrap(np.matmul(a, b) if k != 1 else _mm_np(a, b))
        if STATE.enabled and (input._requires_grad or other._requires_grad) or \
                LEVELS and dual(input, other):
            node = MmBackward0()
            node._saved_self = input if other._requires_grad else None
            node._saved_mat2 = other if input._requires_grad else None
            node._t = (a.strides if input._requires_grad else None,
                       b.strides if other._requires_grad else None, k)
            link(res, node, input, other)
        return res if out is None else write_out(res, out)
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    if d1 == 2 and d2 == 1:
        return mv(input, other, out=out)
    if d1 == 1 and d2 == 1:
        return dot(input, other, out=out)
    if d1 == 1 and d2 == 2:
        res = squeeze_(mm(input.unsqueeze(0), other), 0)
    else:
        res = _matmul_nd(input, other)
    return write_out(res, out)


def _matmul_op(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


def _rmatmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)

# ---------------------------------------------------------------- inner / outer / add*


def outer(input, vec2, *, out=None):
    check_args("outer", ("vec2", 2, "Tensor", vec2))
    try:
        if input._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D")
    except AttributeError as e:
        raise not_tensor(e) from None
    if vec2._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    return write_out(input.reshape(-1, 1) * vec2, out)     # (torch: a view, then mul)


ger = outer


def _expand_error(src_shape, target):
    nd = len(target)
    s = (1,) * (nd - len(src_shape)) + tuple(src_shape)
    for i in range(nd):
        if s[i] != target[i] and s[i] != 1:
            return RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the "
                                f"existing size ({s[i]}) at non-singleton dimension {i}.  "
                                f"Target sizes: {list(target)}.  Tensor sizes: "
                                f"{list(src_shape)}")
    return RuntimeError(f"expand: cannot expand {list(src_shape)} to {list(target)}")


def _check_self_bcast(x, target):
    try:
        if np.broadcast_shapes(x.shape, target) == tuple(target) and x.ndim <= len(target):
            return
    except ValueError:
        pass
    raise _expand_error(x.shape, target)


def _combine(r, c, alpha, beta):
    """beta * c + alpha * r for the add*-family, in r's own (fresh) buffer; beta == 0
    ignores c entirely (so nan/inf in c do not propagate, as in torch)."""
    if alpha != 1:
        r *= alpha
    if beta != 0:
        r += c if beta == 1 else c * beta
    return r


def _half_combine(a, b, c, alpha, beta, product=np.matmul):
    """The add*-family for float16 operands as torch computes it: the product, alpha and
    beta * c in float32, rounded to float16 once (rounding the product first, then adding,
    differed from torch in about 3 of 10 elements)."""
    r = _combine(product(a.astype(np.float32), b.astype(np.float32)),
                 c.astype(np.float32) if beta != 0 else c, alpha, beta)
    return r.astype(np.float16)


def _addmm_np(c, a, b, alpha, beta):
    """beta * c + alpha * (a @ b) for matrices a, b (NumPy arrays) with torch's values and
    signed zeros where the inner dimension k is 0 or 1 (found by experiment): k == 0 gives
    beta * c (+0.0 where beta is 0), k == 1 (float32/64, complex) the products
    (alpha * a) * b plus beta * c, except with beta == 0 as mm gives them (_mm_np)."""
    if a.dtype == np.float16:
        return _half_combine(a, b, c, alpha, beta)
    k = a.shape[1]
    if k > 1 or a.dtype.char not in "fdFD":
        return _combine(np.matmul(a, b), c, alpha, beta)
    shape = (a.shape[0], b.shape[1])
    if k == 0:
        if beta == 0:
            return np.zeros(shape, a.dtype)
        return np.broadcast_to(c if beta == 1 else c * beta, shape).astype(a.dtype)
    if beta == 0:
        return _combine(_mm_np(a, b), c, alpha, 0)
    r = (a if alpha == 1 else a * alpha) * b
    return _combine(r, c, 1, beta)


def _maybe_multiply(t, s):
    """derivatives.yaml's maybe_multiply: t * s as a mul.Scalar node, unless s is 1."""
    return t if s == 1 else scalar_op(t, s, MulBackward1)


def _tH(m):
    """m.t().conj() (mm's backward formulas: TBackward0, not mH's TransposeBackward0)."""
    return m.t().conj() if m._data.dtype.kind == "c" else m.t()


class AddmmBackward0(_MatrixGeometry, Node):     # derivatives.yaml: addmm
    __slots__ = ("_saved_mat1", "_saved_mat2", "_saved_alpha", "_saved_beta", "_t")
    _saved_names = ("_saved_mat1", "_saved_mat2")
    _saved_mat1_sym_sizes = property(lambda self: self._sizes(0))
    _saved_mat2_sym_sizes = property(lambda self: self._sizes(1))
    _saved_mat1_sym_strides = property(lambda self: self._strides(0))
    _saved_mat2_sym_strides = property(lambda self: self._strides(1))

    def apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        m1, m2 = self._saved_mat1, self._saved_mat2
        gs = g1 = g2 = None
        if needs(self, 0):
            gs = _maybe_multiply(grad, beta)
        if needs(self, 1):
            g1 = _maybe_multiply(mm(grad, _tH(m2)), alpha)
        if needs(self, 2):
            g2 = _maybe_multiply(mm(_tH(m1), grad), alpha)
        return gs, g1, g2

    def np_apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        if not (_plain_scalar(alpha) and _plain_scalar(beta) and grad.dtype.kind in "fc"):
            return Node.np_apply(self, grad)
        m1, m2 = self._saved_mat1, self._saved_mat2
        gs = None
        if needs(self, 0):
            gs = grad if beta == 1 else grad * scalar_array(beta, grad.dtype)
        g = grad if alpha == 1 else grad * scalar_array(alpha, grad.dtype)
        ta, tb = self._flags()
        g1, g2 = _mm_grads_np(g, m1._data if m1 is not None else None,
                              m2._data if m2 is not None else None,
                              needs(self, 1), needs(self, 2), ta, tb)
        return gs, g1, g2

    def jvp(self, ts, xs, out):
        return _scaled(ts[0], self._saved_beta) + \
            _scaled(ts[1].mm(xs[2]) + xs[1].mm(ts[2]), self._saved_alpha)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    if AUTOCAST.cpu and out is None:      # Note [Autocast hook]
        input, mat1, mat2 = lower(input, mat1, mat2)
    try:
        a, b, c = mat1._data, mat2._data, input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {a.ndim}-D tensor")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {b.ndim}-D tensor")
    if a.dtype != b.dtype:       # (addmm's own text, not mm's)
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{type_name(a.dtype)} and {type_name(b.dtype)}")
    if a.shape[1] != b.shape[0] or a.dtype.kind == "b":
        _check_mm(a, b)
    if c.dtype != a.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{type_name(c.dtype)} and {type_name(b.dtype)}")
    _check_self_bcast(c, (a.shape[0], b.shape[1]))
    r = _addmm_np(c, a, b, alpha, beta)
    res = wrap(r)
    if requires(input, mat1, mat2):
        node = AddmmBackward0()
        node._saved_alpha, node._saved_beta = alpha, beta
        node._saved_mat1 = mat1 if mat2._requires_grad else None
        node._saved_mat2 = mat2 if mat1._requires_grad else None
        node._t = (a.strides if mat1._requires_grad else None,
                   b.strides if mat2._requires_grad else None, a.shape[1])
        link(res, node, input, mat1, mat2)
    return write_out(res, out)


class AddmvBackward0(Node):                  # derivatives.yaml: addmv
    __slots__ = ("_saved_mat", "_saved_vec", "_saved_alpha", "_saved_beta")
    _saved_names = ("_saved_mat", "_saved_vec")

    def apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        return (_maybe_multiply(grad, beta) if needs(self, 0) else None,
                _maybe_multiply(outer(grad, self._saved_vec.conj()), alpha)
                if needs(self, 1) else None,
                _maybe_multiply(mv(_tH(self._saved_mat), grad), alpha)
                if needs(self, 2) else None)

    def jvp(self, ts, xs, out):
        return _scaled(ts[0], self._saved_beta) + \
            _scaled(ts[1].mv(xs[2]) + xs[1].mv(ts[2]), self._saved_alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    try:
        a, v, c = mat._data, vec._data, input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim != 2 or v.ndim != 1 or a.shape[1] != v.shape[0]:
        raise RuntimeError(f"vector + matrix @ vector expected, got {c.ndim}, {a.ndim}, "
                           f"{v.ndim}") if a.ndim != 2 or v.ndim != 1 else \
            RuntimeError(f"size mismatch, got input ({c.shape[0] if c.ndim else 1}), mat "
                         f"({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})")
    if not (a.dtype == v.dtype == c.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{type_name(c.dtype)}, {type_name(a.dtype)}, and "
                           f"{type_name(v.dtype)}")
    if c.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {c.ndim}, {a.ndim}, "
                           f"{v.ndim}")
    if c.ndim == 1 and c.shape[0] not in (1, a.shape[0]):
        raise RuntimeError(f"size mismatch, got input ({c.shape[0]}), mat "
                           f"({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})")
    r = _half_combine(a, v, c, alpha, beta) if a.dtype == np.float16 else \
        _combine(np.matmul(a, v), c, alpha, beta)
    res = wrap(r)
    if requires(input, mat, vec):
        node = AddmvBackward0()
        node._saved_alpha, node._saved_beta = alpha, beta
        node._saved_mat = mat if vec._requires_grad else None
        node._saved_vec = vec if mat._requires_grad else None
        link(res, node, input, mat, vec)
    return write_out(res, out)


class BaddbmmBackward0(Node):                # derivatives.yaml: baddbmm
    __slots__ = ("_saved_batch1", "_saved_batch2", "_saved_alpha", "_saved_beta")
    _saved_names = ("_saved_batch1", "_saved_batch2")

    def apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        return (_maybe_multiply(grad, beta) if needs(self, 0) else None,
                _maybe_multiply(bmm(grad, _mH(self._saved_batch2)), alpha)
                if needs(self, 1) else None,
                _maybe_multiply(bmm(_mH(self._saved_batch1), grad), alpha)
                if needs(self, 2) else None)

    def jvp(self, ts, xs, out):
        return _scaled(ts[0], self._saved_beta) + \
            _scaled(ts[1].bmm(xs[2]) + xs[1].bmm(ts[2]), self._saved_alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if AUTOCAST.cpu and out is None:      # Note [Autocast hook]
        input, batch1, batch2 = lower(input, batch1, batch2)
    try:
        a, b, c = batch1._data, batch2._data, input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    _check_bmm(a, b) if (a.ndim != 3 or b.ndim != 3 or a.dtype != b.dtype or a.shape[0] !=
                         b.shape[0] or a.shape[2] != b.shape[1] or a.dtype.kind == "b") \
        else None
    if c.dtype != a.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {C_NAMES[c.dtype.name]}"
                           f", batch1: {C_NAMES[a.dtype.name]}, batch2: "
                           f"{C_NAMES[b.dtype.name]}")
    _check_self_bcast(c, (a.shape[0], a.shape[1], b.shape[2]))
    r = _half_combine(a, b, c, alpha, beta) if a.dtype == np.float16 else \
        _combine(np.matmul(a, b), c, alpha, beta)
    res = wrap(r)
    if requires(input, batch1, batch2):
        node = BaddbmmBackward0()
        node._saved_alpha, node._saved_beta = alpha, beta
        node._saved_batch1 = batch1 if batch2._requires_grad else None
        node._saved_batch2 = batch2 if batch1._requires_grad else None
        link(res, node, input, batch1, batch2)
    return write_out(res, out)


class AddbmmBackward0(Node):                 # derivatives.yaml: addbmm
    __slots__ = ("_saved_batch1", "_saved_batch2", "_saved_alpha", "_saved_beta",
                 "_saved_batch1_sym_argsize_0")
    _saved_names = ("_saved_batch1", "_saved_batch2")
    # (batch1's rows and batch2's columns: the output's shape)
    _saved_batch1_sym_argsize_1 = property(lambda self: self._meta[0][0])
    _saved_batch2_sym_argsize_2 = property(lambda self: self._meta[0][1])

    def apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        n = self._saved_batch1_sym_argsize_0
        ge = grad.unsqueeze(0).expand(n, *grad.shape)
        return (_maybe_multiply(grad, beta) if needs(self, 0) else None,
                _maybe_multiply(bmm(ge, _mH(self._saved_batch2)), alpha)
                if needs(self, 1) else None,
                _maybe_multiply(bmm(_mH(self._saved_batch1), ge), alpha)
                if needs(self, 2) else None)

    def jvp(self, ts, xs, out):
        return _scaled(ts[0], self._saved_beta) + \
            _scaled((ts[1].bmm(xs[2]) + xs[1].bmm(ts[2])).sum(0), self._saved_alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if AUTOCAST.cpu and out is None:      # Note [Autocast hook]
        input, batch1, batch2 = lower(input, batch1, batch2)
    try:
        a, b, c = batch1._data, batch2._data, input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a.ndim != 3 else
                           "batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{a.shape[0]} and {b.shape[0]}")
    if a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({a.shape[1]}x{a.shape[2]} "
                           f"and {b.shape[1]}x{b.shape[2]})")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {type_name(a.dtype)} but found "
                           f"{type_name(b.dtype)}")
    if c.dtype != a.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{type_name(c.dtype)} and {type_name(b.dtype)}")
    _check_self_bcast(c, (a.shape[1], b.shape[2]))
    # torch's order: beta * c, then one addmm_ per batch, each rounded to the dtype (for
    # float16 exactly torch's values; a sum over the batch first differed in the last bits)
    shape = (a.shape[1], b.shape[2])
    r = np.zeros(shape, a.dtype) if beta == 0 else \
        np.array(np.broadcast_to(c if beta == 1 else c * beta, shape), a.dtype)
    for i in range(a.shape[0]):
        r = _half_combine(a[i], b[i], r, alpha, 1) if a.dtype == np.float16 else \
            _combine(np.matmul(a[i], b[i]), r, alpha, 1)
    res = wrap(np.asarray(r, a.dtype))
    if requires(input, batch1, batch2):
        node = AddbmmBackward0()
        node._saved_alpha, node._saved_beta = alpha, beta
        node._saved_batch1_sym_argsize_0 = a.shape[0]
        node._saved_batch1 = batch1 if batch2._requires_grad else None
        node._saved_batch2 = batch2 if batch1._requires_grad else None
        link(res, node, input, batch1, batch2)
    return write_out(res, out)


def _bad_inplace(self, shape):
    return RuntimeError(f"Bad in-place call: input tensor size {list(self._data.shape)} and "
                        f"output tensor size {list(shape)} should match")


def _inplace_add(fn, check_first):
    """fn_ (self += ...): addmm_ rejects a differently-shaped self before anything else;
    baddbmm_ / addmv_ run the out-of-place checks first."""
    def op_(self, *args, **kwargs):
        if check_first:
            try:
                a, b = args[0]._data, args[1]._data
            except AttributeError as e:
                raise not_tensor(e) from None
            if a.ndim == 2 == b.ndim and tuple(self._data.shape) != (a.shape[0], b.shape[1]):
                raise _bad_inplace(self, (a.shape[0], b.shape[1]))
        res = fn(inplace_source(self), *args, **kwargs)
        if check_first is not None and res._data.shape != self._data.shape:
            raise _bad_inplace(self, res._data.shape)
        return inplace(self, res)
    op_.__name__ = fn.__name__ + "_"
    return op_


addmm_ = _inplace_add(addmm, True)
addmv_ = _inplace_add(addmv, False)
baddbmm_ = _inplace_add(baddbmm, False)
addbmm_ = _inplace_add(addbmm, None)


class LinalgCrossBackward0(Node):            # derivatives.yaml: linalg_cross
    __slots__ = ("_saved_self", "_saved_other", "_dim", "_dim_arg")
    _saved_dim = saved_arg("_dim", "_dim_arg")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        d = self._dim
        return (_linalg_cross(self._saved_other.conj(), grad, d) if needs(self, 0) else None,
                _linalg_cross(grad, self._saved_self.conj(), d) if needs(self, 1) else None)

    def jvp(self, ts, xs, out):
        d = self._dim
        return _linalg_cross(ts[0], xs[1], d) + _linalg_cross(xs[0], ts[1], d)


def _linalg_cross(input, other, dim=-1, out=None):
    try:
        a, b = input._data, other._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, a.ndim)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[d]} and {b.shape[d]}")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error(a, b) from None
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {type_name(a.dtype)} but found "
                           f"{type_name(b.dtype)}")
    res = wrap(np.asarray(np.cross(a, b, axis=d)))
    if requires(input, other):
        node = LinalgCrossBackward0()
        node._dim, node._dim_arg = d, dim
        node._saved_self = input if other._requires_grad else None
        node._saved_other = other if input._requires_grad else None
        link(res, node, input, other)
    return write_out(res, out, "linalg_cross")


def cross(input, other, dim=None, *, out=None):
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross."
                      "\nThe default value of dim will change to agree with that of "
                      "linalg.cross in a future release.", UserWarning, stacklevel=2)
        try:
            try:
                shape = np.broadcast_shapes(input._data.shape, other._data.shape)
            except AttributeError as e:
                raise not_tensor(e) from None
        except ValueError:
            raise broadcast_error(input._data, other._data) from None
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _linalg_cross(input, other, dim, out=out)


class AddrBackward0(Node):                   # derivatives.yaml: addr
    __slots__ = ("_saved_vec1", "_saved_vec2", "_saved_alpha", "_saved_beta")
    _saved_names = ("_saved_vec1", "_saved_vec2")

    def apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        g = grad if alpha == 1 else grad * alpha
        return ((grad if beta == 1 else grad * beta) if needs(self, 0) else None,
                mv(g, self._saved_vec2.conj()) if needs(self, 1) else None,
                mv(_mT(g), self._saved_vec1.conj()) if needs(self, 2) else None)

    def jvp(self, ts, xs, out):
        return _scaled(ts[0], self._saved_beta) + \
            _scaled(ts[1].outer(xs[2]) + xs[1].outer(ts[2]), self._saved_alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    try:
        v1, v2, c = vec1._data, vec2._data, input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if v1.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {v1.ndim}-D")
    if v2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {v2.ndim}-D")
    _check_self_bcast(c, (v1.shape[0], v2.shape[0]))
    dt = np.result_type(c.dtype, v1.dtype, v2.dtype)
    r = np.multiply.outer(v1, v2).astype(dt, copy=False)
    if alpha != 1:
        r = r * alpha
    if beta != 0:
        r = r + (c if beta == 1 else c * beta)
    else:
        r = np.broadcast_to(r, (v1.shape[0], v2.shape[0])).copy()
    res = wrap(np.asarray(r, dt))
    if requires(input, vec1, vec2):
        node = AddrBackward0()
        node._saved_alpha, node._saved_beta = alpha, beta
        node._saved_vec1 = vec1 if vec2._requires_grad else None
        node._saved_vec2 = vec2 if vec1._requires_grad else None
        link(res, node, input, vec1, vec2)
    return write_out(res, out)


def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    try:
        shape = (vec1._data.shape[0] if vec1._data.ndim else 1,
                 vec2._data.shape[0] if vec2._data.ndim else 1)
    except AttributeError as e:
        raise not_tensor(e) from None
    if vec1._data.ndim == 1 == vec2._data.ndim and tuple(self._data.shape) != shape:
        raise RuntimeError(f"size mismatch, input: {list(self._data.shape)}, v1: "
                           f"{list(vec1._data.shape)}, v2: {list(vec2._data.shape)}")
    return inplace(self, addr(inplace_source(self), vec1, vec2, beta=beta, alpha=alpha))
