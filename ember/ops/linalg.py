"""Linear algebra: the matmul family (forward and backward are plain NumPy matmul calls on the
existing arrays, transposes as views), einsum/tensordot/kron/cross, and the decompositions
behind ember.linalg. Derivative formulas are written with ember ops (double backward)."""
__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm",
           "addmv", "addbmm", "baddbmm", "addr", "einsum", "tensordot", "kron", "cross", "det",
           "logdet", "slogdet", "inverse", "pinverse", "matrix_power", "matrix_exp", "svd", "qr",
           "cholesky", "cholesky_solve", "cholesky_inverse", "chain_matmul", "lu_unpack",
           "triangular_solve", "lu", "lu_solve"]

import math
from collections import namedtuple

import numpy as np

from .. import dtypes as D
from ..autograd.graph import Node, link, link_multi
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, wrap
from ._common import scalar_array, needs, inplace, inplace_source, wrap_dim, write_out, \
    type_name, broadcast_error

_C_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool", "float16": "c10::Half", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch's class is named _LinAlgError)."""


def _named(base, name):
    """A node class called `name` (torch's grad_fn name for the composite it stands for) that
    shares base's formula; for names that another node class of this module already has."""
    return type(name, (base,), {"__slots__": (), "__module__": __name__})


def _grad_needed(*ts):
    if not STATE.enabled:
        return False
    for t in ts:
        if t is not None and t._requires_grad:
            return True
    return False


def _h(a):
    """Conjugate transpose of the last two axes of a NumPy array, as a view for real data."""
    a = a.swapaxes(-1, -2)
    return a.conj() if a.dtype.kind == "c" else a


# ---------------------------------------------------------------- small differentiable helpers

class TransposeBackward0(Node):              # x.mT (derivatives.yaml: transpose.int)
    __slots__ = ()

    def apply(self, grad):
        return _mT(grad),


def _mT(x):
    """x.mT: swap the last two dims (a view)."""
    res = wrap(x._data.swapaxes(-1, -2))
    if STATE.enabled and x._requires_grad:
        link(res, TransposeBackward0(), x)
    return res


def _mH(x):
    return _mT(x.conj()) if x._data.dtype.kind == "c" else _mT(x)


def _out(node, saved, nr):
    """Saved output `nr` of a multi-output node: reconnected to the node when recording
    (create_graph), so that double backward sees its dependence on the input."""
    if not STATE.enabled or saved is None:
        return saved
    t = wrap(saved._data)
    t._requires_grad = True
    t._grad_fn = node
    t._output_nr = nr
    return t


def _eye_like(x, n=None):
    n = x._data.shape[-1] if n is None else n
    return wrap(np.eye(n, dtype=x._data.dtype))


def _diag(x):
    """Diagonal of the last two dims (differentiable: a masked sum)."""
    return (x * _eye_like(x)).sum(-1)


def _diag_embed(v):
    return v.unsqueeze(-1) * _eye_like(v, v._data.shape[-1])


def _tril_mask(x, k=0):
    n, m = x._data.shape[-2:]
    return wrap(np.tri(n, m, k, dtype=x._data.dtype))


def _np_sum_to(g, shape):
    """Sum a broadcast NumPy gradient back to `shape`."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(axes, keepdims=True)
    return g


# ---------------------------------------------------------------- mm / bmm / mv / dot

def _dtype_error_mm(a, b):
    return RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                        f"{_C_NAMES[a.dtype.name]} != {_C_NAMES[b.dtype.name]}")


def _check_mm(a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                           f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    if a.dtype != b.dtype:
        raise _dtype_error_mm(a, b)
    if a.dtype.kind == "b":
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _transposed(x):
    """A matrix stored transposed (e.g. `weight.t()` in linear): its gradient is computed as
    the transpose of a C-ordered product, so that after TBackward0 the leaf receives a
    C-contiguous array that AccumulateGrad can take without a copy. Same FLOPs either way."""
    f = x.flags
    return f.f_contiguous and not f.c_contiguous


def _plain_scalar(v):
    """A Python int or float (weak in NumPy's promotion as in torch's)."""
    return type(v) is int or type(v) is float


def _mm_grads_np(g, a, b, na, nb, ta, tb):
    """Gradients of a @ b (NumPy arrays) for the requested inputs; ta/tb: stored transposed."""
    ga = gb = None
    if na:
        ga = _h(b @ _h(g)) if ta else g @ _h(b)
    if nb:
        gb = _h(_h(g) @ a) if tb else _h(a) @ g
    return ga, gb


class MmBackward0(Node):                     # derivatives.yaml: mm
    __slots__ = ("_saved_self", "_saved_mat2", "_t")
    _saved_names = ("_saved_self", "_saved_mat2")

    def apply(self, grad):
        s, m = self._saved_self, self._saved_mat2
        return (mm(grad, _mH(m)) if needs(self, 0) else None,
                mm(_mH(s), grad) if needs(self, 1) else None)

    def np_apply(self, g):
        s, m = self._saved_self, self._saved_mat2
        ta, tb = self._t
        return _mm_grads_np(g, s._data if s is not None else None,
                            m._data if m is not None else None,
                            needs(self, 0), needs(self, 1), ta, tb)


def _type_error(fn, names, args):
    for i, (n, x) in enumerate(zip(names, args)):
        if not isinstance(x, Tensor):
            return TypeError(f"{fn}(): argument '{n}' (position {i + 1}) must be Tensor, not "
                             f"{type(x).__name__}")
    return TypeError(f"{fn}(): invalid arguments")


def mm(input, mat2, *, out=None):
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
    res = wrap(np.matmul(a, b))
    if STATE.enabled and (input._requires_grad or mat2._requires_grad):
        node = MmBackward0()
        node._saved_self = input if mat2._requires_grad else None
        node._saved_mat2 = mat2 if input._requires_grad else None
        node._t = (input._requires_grad and _transposed(a), mat2._requires_grad and _transposed(b))
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
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {type_name(a.dtype)} but found "
                           f"{type_name(b.dtype)}")
    if a.dtype.kind == "b":
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")


class BmmBackward0(Node):                    # derivatives.yaml: bmm
    __slots__ = ("_saved_self", "_saved_mat2")
    _saved_names = ("_saved_self", "_saved_mat2")

    def apply(self, grad):
        s, m = self._saved_self, self._saved_mat2
        if not STATE.enabled:
            g = grad._data
            return (wrap(g @ _h(m._data)) if needs(self, 0) else None,
                    wrap(_h(s._data) @ g) if needs(self, 1) else None)
        return (bmm(grad, _mH(m)) if needs(self, 0) else None,
                bmm(_mH(s), grad) if needs(self, 1) else None)


def bmm(input, mat2, *, out=None):
    try:
        a, b = input._data, mat2._data
    except AttributeError:
        raise _type_error("bmm", ("input", "mat2"), (input, mat2)) from None
    if (a.ndim != 3 or b.ndim != 3 or a.dtype != b.dtype or a.shape[0] != b.shape[0]
            or a.shape[2] != b.shape[1] or a.dtype.kind == "b"):
        _check_bmm(a, b)
    res = wrap(np.matmul(a, b))
    if STATE.enabled and (input._requires_grad or mat2._requires_grad):
        node = BmmBackward0()
        node._saved_self = input if mat2._requires_grad else None
        node._saved_mat2 = mat2 if input._requires_grad else None
        link(res, node, input, mat2)
    return write_out(res, out)


def _check_mv(a, v, res_dtype=None):
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                           f"{a.shape[1]}), vec ({v.shape[0]})")
    if a.dtype != v.dtype:
        rt = res_dtype or v.dtype
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{type_name(rt)}, {type_name(a.dtype)}, and "
                           f"{type_name(v.dtype)}")
    if a.dtype.kind == "b":
        raise NotImplementedError("\"addmv_impl_cpu\" not implemented for 'Bool'")


class MvBackward0(Node):                     # derivatives.yaml: mv
    __slots__ = ("_saved_self", "_saved_vec")
    _saved_names = ("_saved_self", "_saved_vec")

    def apply(self, grad):
        s, v = self._saved_self, self._saved_vec
        if not STATE.enabled:
            g = grad._data
            if not needs(self, 0):
                return None, wrap(_h(s._data) @ g)
            vd = v._data.conj() if v._data.dtype.kind == "c" else v._data
            return (wrap(np.multiply.outer(g, vd)),
                    wrap(_h(s._data) @ g) if needs(self, 1) else None)
        return (outer(grad, v.conj()) if needs(self, 0) else None,
                mv(_mH(s), grad) if needs(self, 1) else None)


def mv(input, vec, *, out=None):
    try:
        a, v = input._data, vec._data
    except AttributeError:
        raise _type_error("mv", ("input", "vec"), (input, vec)) from None
    if a.ndim != 2 or v.ndim != 1 or a.dtype != v.dtype or a.shape[1] != v.shape[0] \
            or a.dtype.kind == "b":
        _check_mv(a, v)
    res = wrap(np.matmul(a, v))
    if STATE.enabled and (input._requires_grad or vec._requires_grad):
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


def dot(input, tensor, *, out=None):
    try:
        a, b = input._data, tensor._data
    except AttributeError:
        raise _type_error("dot", ("input", "tensor"), (input, tensor)) from None
    if a.ndim != 1 or b.ndim != 1 or a.dtype != b.dtype or a.shape != b.shape \
            or a.dtype.kind == "b":
        _check_dot(a, b)
    res = wrap(np.matmul(a, b))
    if STATE.enabled and (input._requires_grad or tensor._requires_grad):
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


def vdot(input, other, *, out=None):
    a, b = input._data, other._data
    if a.ndim != 1 or b.ndim != 1 or a.dtype != b.dtype or a.shape != b.shape \
            or a.dtype.kind == "b":
        _check_dot(a, b, "vdot" if a.ndim == 1 == b.ndim and a.dtype == b.dtype else "dot")
    res = wrap(np.asarray(np.vdot(a, b)))
    if STATE.enabled and (input._requires_grad or other._requires_grad):
        node = VdotBackward0()
        node._saved_self = input if other._requires_grad else None
        node._saved_other = other if input._requires_grad else None
        link(res, node, input, other)
    return write_out(res, out)


# ---------------------------------------------------------------- matmul

class _MatmulBackward(Node):
    """One node for a batched/broadcast matmul. torch builds a chain of view/mm/bmm nodes whose
    top-level name depends on the shapes; the subclasses carry that name."""
    __slots__ = ("_saved_self", "_saved_other")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        a, b = self._saved_self, self._saved_other
        return _matmul_grads(grad, a, b, needs(self, 0), needs(self, 1))

    def np_apply(self, g):
        return _matmul_grads_np(g, self._saved_self, self._saved_other, needs(self, 0),
                                needs(self, 1))


class UnsafeViewBackward0(_MatmulBackward):
    __slots__ = ()


class CloneBackward0(_MatmulBackward):
    __slots__ = ()


class SqueezeBackward4(_MatmulBackward):
    __slots__ = ()


_TransposeTop = _named(_MatmulBackward, "TransposeBackward0")   # 2-D @ N-D: (b.mT @ a.mT).mT


def _matmul_grads_np(g, a, b, na, nb):
    ad = a._data if a is not None else None
    bd = b._data if b is not None else None
    ga = gb = None
    if na:
        B = bd if bd.ndim > 1 else bd[:, None]
        G = g
        if bd.ndim == 1:
            G = G[..., None]
        if ad.ndim == 1:
            G = np.expand_dims(G, -2)
        r = np.matmul(G, _h(B))
        if ad.ndim == 1:
            r = r[..., 0, :]
        ga = _np_sum_to(r, ad.shape)
    if nb:
        A = ad if ad.ndim > 1 else ad[None, :]
        G = g
        if ad.ndim == 1:
            G = np.expand_dims(G, -2)
        if bd.ndim == 1:
            G = G[..., None]
        if bd.ndim <= 2 and A.ndim >= 3 and A.flags.c_contiguous:
            # fold the batch into rows: one mm instead of a batch of products and a sum
            k = A.shape[-1]
            r = np.matmul(_h(A.reshape(-1, k)), np.ascontiguousarray(G).reshape(-1, G.shape[-1]))
        else:
            r = np.matmul(_h(A), G)
        if bd.ndim == 1:
            r = r[..., 0]
        gb = _np_sum_to(r, bd.shape)
    return ga, gb


def _matmul_grads(grad, a, b, na, nb):
    """The same gradients with ember ops (recorded: create_graph=True)."""
    ga = gb = None
    G = grad
    if b.ndim == 1:
        G = G.unsqueeze(-1)
    if a.ndim == 1:
        G = G.unsqueeze(-2)
    if na:
        r = matmul(G, _mH(b if b.ndim > 1 else b.unsqueeze(-1)))
        ga = r.squeeze(-2) if a.ndim == 1 else r
    if nb:
        r = matmul(_mH(a if a.ndim > 1 else a.unsqueeze(0)), G)
        gb = r.squeeze(-1) if b.ndim == 1 else r
    return ga, gb


def _fold_contiguous(shape, strides):
    """torch's check that t1 can be folded without a copy: contiguous (size-1 dims aside)."""
    expect = 1
    exp_strides = []
    for sz in reversed(shape):
        exp_strides.append(expect)
        expect *= sz
    exp_strides.reverse()
    return all(sz == 1 or st == e for sz, st, e in zip(shape, strides, exp_strides))


def _matmul_plan(input, other):
    """Which path torch's matmul takes for these operands (one of them >= 3-D), which decides
    the grad_fn name torch shows and the error message: returns (kind, a_shape, b_shape)
    after torch's squeeze of a size-1 batch, kind in ('fold', 'fold_t', 'bmm'). 'fold' folds
    the larger operand's batch into mm/mv rows; 'fold_t' does so on the transposed problem
    (the larger operand is the second)."""
    a, b = input._data, other._data
    sa, sb = a.shape, b.shape
    ra, rb = input._requires_grad, other._requires_grad
    if len(sa) == 3 and len(sb) == 3 and sa[0] != sb[0]:
        if sa[0] == 1 and ra:
            sa = sa[1:]
        elif sb[0] == 1 and rb:
            sb = sb[1:]
    d1, d2 = len(sa), len(sb)
    larger = d1 >= d2
    dt1, dt2 = (d1, d2) if larger else (d2, d1)
    t2_grad = rb if larger else ra
    fold = False
    if dt1 >= 3 and dt2 <= 2:
        if t2_grad:
            fold = True
        elif d1 == 2:
            fold = False
        elif (a.size if larger else b.size) == 0:
            fold = True
        else:
            if larger:
                shp, st = sa, a.strides[-len(sa):]
            else:
                shp = sb[:-2] + (sb[-1], sb[-2])
                st = b.strides[-len(sb):]
                st = st[:-2] + (st[-1], st[-2])
            item = a.itemsize
            fold = _fold_contiguous(shp, tuple(s // item for s in st)) if item else True
    if fold:
        return ("fold" if larger else "fold_t"), sa, sb
    return "bmm", sa, sb


def _matmul_error(input, other):
    a, b = input._data, other._data
    d1, d2 = a.ndim, b.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        _check_dot(a, b)
    if d1 == 2 and d2 == 1:
        _check_mv(a, b)
    if d1 == 1 and d2 == 2:
        _check_mm(a.reshape(1, -1), b)
    if d1 == 2 and d2 == 2:
        _check_mm(a, b)
    kind, sa, sb = _matmul_plan(input, other)
    if kind == "fold" or kind == "fold_t":
        if kind == "fold":
            t1s, t2s, x, y = sa, sb, a, b
        else:
            t1s = sb[:-2] + (sb[-1], sb[-2])
            t2s = (sa[1], sa[0]) if len(sa) == 2 else sa
            x, y = b, a
        rows = int(np.prod(t1s[:-1]))
        m = np.empty((rows, t1s[-1]), x.dtype)
        if len(t2s) == 2:
            _check_mm(m, np.empty(t2s, y.dtype))
        else:
            _check_mv(m, np.empty(t2s, y.dtype), y.dtype if kind == "fold_t" else None)
    else:
        ba, bb = sa[:-2], sb[:-2]
        try:
            batch = np.broadcast_shapes(ba, bb)
        except ValueError:
            raise broadcast_error(np.empty(ba), np.empty(bb)) from None
        n = int(np.prod(batch))
        m1 = sa[-1]
        m2 = sb[-2] if len(sb) > 1 else sb[-1]
        _check_bmm(np.empty((n, sa[-2] if len(sa) > 1 else 1, m1), a.dtype),
                   np.empty((n, m2, sb[-1] if len(sb) > 1 else 1), b.dtype))
    raise RuntimeError("matmul: unsupported operands")


def matmul(input, other, *, out=None):
    try:
        a, b = input._data, other._data
    except AttributeError:
        raise _type_error("matmul", ("input", "other"), (input, other)) from None
    d1, d2 = a.ndim, b.ndim
    if d1 == 2 and d2 == 2:
        # mm, inlined: this is the hot path of every linear layer
        if a.dtype != b.dtype or a.shape[1] != b.shape[0] or a.dtype.kind == "b":
            _check_mm(a, b)
        res = wrap(np.matmul(a, b))
        if STATE.enabled and (input._requires_grad or other._requires_grad):
            node = MmBackward0()
            node._saved_self = input if other._requires_grad else None
            node._saved_mat2 = other if input._requires_grad else None
            node._t = (input._requires_grad and _transposed(a),
                       other._requires_grad and _transposed(b))
            link(res, node, input, other)
        return res if out is None else write_out(res, out)
    if d1 == 2 and d2 == 1:
        return mv(input, other, out=out)
    if d1 == 1 and d2 == 1:
        return dot(input, other, out=out)
    if d1 == 0 or d2 == 0 or a.dtype != b.dtype or a.dtype.kind == "b":
        _matmul_error(input, other)
    try:
        r = np.matmul(a, b)
    except ValueError:
        _matmul_error(input, other)
    res = wrap(r)
    if STATE.enabled and (input._requires_grad or other._requires_grad):
        if d1 == 1 and d2 == 2:
            node = SqueezeBackward4()
        else:
            kind, sa, sb = _matmul_plan(input, other)
            if kind == "fold_t" and len(sa) == 2:
                n, p = sa[0], sb[-1]
                node = _TransposeTop() if (n == 1 or p == 1 or r.size == 0) else CloneBackward0()
            else:
                node = UnsafeViewBackward0()
        node._saved_self = input
        node._saved_other = other
        link(res, node, input, other)
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
    if input._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D")
    if vec2._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    return write_out(input.unsqueeze(1) * vec2, out)


ger = outer


def inner(input, other, *, out=None):
    a, b = input._data, other._data
    if a.ndim == 0 or b.ndim == 0:
        return write_out(input * other, out)
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(a.shape)} and {list(b.shape)}")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    return write_out(tensordot(input, other, ([a.ndim - 1], [b.ndim - 1])), out)


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

class AddmmBackward0(Node):                  # derivatives.yaml: addmm
    __slots__ = ("_saved_mat1", "_saved_mat2", "_saved_alpha", "_saved_beta", "_t")
    _saved_names = ("_saved_mat1", "_saved_mat2")

    def apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        m1, m2 = self._saved_mat1, self._saved_mat2
        gs = g1 = g2 = None
        if needs(self, 0):
            gs = grad if beta == 1 else grad * beta
        g = grad if alpha == 1 else grad * alpha
        if needs(self, 1):
            g1 = mm(g, _mH(m2))
        if needs(self, 2):
            g2 = mm(_mH(m1), g)
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
        ta, tb = self._t
        g1, g2 = _mm_grads_np(g, m1._data if m1 is not None else None,
                              m2._data if m2 is not None else None,
                              needs(self, 1), needs(self, 2), ta, tb)
        return gs, g1, g2


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    a, b, c = mat1._data, mat2._data, input._data
    if a.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {a.ndim}-D tensor")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {b.ndim}-D tensor")
    if a.dtype != b.dtype or a.shape[1] != b.shape[0] or a.dtype.kind == "b":
        _check_mm(a, b)
    if c.dtype != a.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{type_name(c.dtype)} and {type_name(b.dtype)}")
    _check_self_bcast(c, (a.shape[0], b.shape[1]))
    r = np.matmul(a, b)
    r = _combine(r, c, alpha, beta)
    res = wrap(r)
    if _grad_needed(input, mat1, mat2):
        node = AddmmBackward0()
        node._saved_alpha, node._saved_beta = alpha, beta
        node._saved_mat1 = mat1 if mat2._requires_grad else None
        node._saved_mat2 = mat2 if mat1._requires_grad else None
        node._t = (mat1._requires_grad and _transposed(a), mat2._requires_grad and _transposed(b))
        link(res, node, input, mat1, mat2)
    return write_out(res, out)


class AddmvBackward0(Node):                  # derivatives.yaml: addmv
    __slots__ = ("_saved_mat", "_saved_vec", "_saved_alpha", "_saved_beta")
    _saved_names = ("_saved_mat", "_saved_vec")

    def apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        g = grad if alpha == 1 else grad * alpha
        return ((grad if beta == 1 else grad * beta) if needs(self, 0) else None,
                outer(g, self._saved_vec.conj()) if needs(self, 1) else None,
                mv(_mH(self._saved_mat), g) if needs(self, 2) else None)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    a, v, c = mat._data, vec._data, input._data
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
    r = np.matmul(a, v)
    r = _combine(r, c, alpha, beta)
    res = wrap(r)
    if _grad_needed(input, mat, vec):
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
        g = grad if alpha == 1 else grad * alpha
        return ((grad if beta == 1 else grad * beta) if needs(self, 0) else None,
                bmm(g, _mH(self._saved_batch2)) if needs(self, 1) else None,
                bmm(_mH(self._saved_batch1), g) if needs(self, 2) else None)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    a, b, c = batch1._data, batch2._data, input._data
    _check_bmm(a, b) if (a.ndim != 3 or b.ndim != 3 or a.dtype != b.dtype or a.shape[0] !=
                         b.shape[0] or a.shape[2] != b.shape[1] or a.dtype.kind == "b") \
        else None
    if c.dtype != a.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_C_NAMES[c.dtype.name]}"
                           f", batch1: {_C_NAMES[a.dtype.name]}, batch2: "
                           f"{_C_NAMES[b.dtype.name]}")
    _check_self_bcast(c, (a.shape[0], a.shape[1], b.shape[2]))
    r = np.matmul(a, b)
    r = _combine(r, c, alpha, beta)
    res = wrap(r)
    if _grad_needed(input, batch1, batch2):
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

    def apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        g = grad if alpha == 1 else grad * alpha
        n = self._saved_batch1_sym_argsize_0
        ge = g.unsqueeze(0).expand(n, *g.shape)
        return ((grad if beta == 1 else grad * beta) if needs(self, 0) else None,
                bmm(ge, _mH(self._saved_batch2)) if needs(self, 1) else None,
                bmm(_mH(self._saved_batch1), ge) if needs(self, 2) else None)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    a, b, c = batch1._data, batch2._data, input._data
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
    r = np.matmul(a, b).sum(0)
    if alpha != 1:
        r *= alpha
    if beta != 0:
        r = r + (c if beta == 1 else c * beta)
    res = wrap(np.asarray(r, a.dtype))
    if _grad_needed(input, batch1, batch2):
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
            a, b = args[0]._data, args[1]._data
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


# ---------------------------------------------------------------- einsum / tensordot / kron

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(equation, shapes):
    """Canonical explicit equation (ellipses replaced by letters) for these operand shapes."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    for c in eq:
        if not (c.isalpha() or c in ".,->"):
            raise RuntimeError(f"einsum(): invalid subscript given at index {eq.index(c)} in "
                               f"the equation string, subscripts must be in [a-zA-Z]")
    free = [c for c in _LETTERS if c not in eq]
    ell_nd = 0
    for i, (t, s) in enumerate(zip(terms, shapes)):
        if "..." in t:
            nd = len(s) - (len(t) - 3)
            if nd < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({len(t) - 3}) is more than the number of dimensions "
                                   f"({len(s)}) for operand {i}")
            ell_nd = max(ell_nd, nd)
        elif len(t) != len(s):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(t)}) "
                               f"does not match the number of dimensions ({len(s)}) for "
                               f"operand {i} and no ellipsis was given")
    ell = "".join(free[:ell_nd])
    new_terms = []
    for t, s in zip(terms, shapes):
        if "..." in t:
            nd = len(s) - (len(t) - 3)
            t = t.replace("...", ell[ell_nd - nd:])
        new_terms.append(t)
    if rhs is None:
        letters = "".join(new_terms)
        rhs = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                   and c not in ell))
    else:
        rhs = rhs.replace("...", ell)
    sizes = {}
    for i, (t, s) in enumerate(zip(new_terms, shapes)):
        for c, n in zip(t, s):
            old = sizes.get(c)
            if old is None or old == 1:
                sizes[c] = n
            elif n != old and n != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} "
                                   f"which does not broadcast with previously seen size {old}")
    return new_terms, rhs, sizes


def _np_einsum(eq, arrays):
    """np.einsum, with two-operand contractions done as one batched matmul (BLAS), as torch
    does: NumPy's own einsum does not use BLAS when there are batch letters."""
    if len(arrays) == 2:
        lhs, rhs = eq.split("->")
        ta, tb = lhs.split(",")
        r = _einsum_pair(ta, tb, rhs, arrays[0], arrays[1])
        if r is not None:
            return r
    return np.einsum(eq, *arrays, optimize=len(arrays) > 2)


def _einsum_pair(ta, tb, rhs, a, b):
    if len(set(ta)) != len(ta) or len(set(tb)) != len(tb):
        return None
    only_a = tuple(i for i, c in enumerate(ta) if c not in tb and c not in rhs)
    if only_a:
        a = a.sum(only_a)
        ta = "".join(c for i, c in enumerate(ta) if i not in only_a)
    only_b = tuple(i for i, c in enumerate(tb) if c not in ta and c not in rhs)
    if only_b:
        b = b.sum(only_b)
        tb = "".join(c for i, c in enumerate(tb) if i not in only_b)
    batch = [c for c in rhs if c in ta and c in tb]
    contr = [c for c in ta if c in tb and c not in rhs]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]
    size = {}
    for t, x in ((ta, a), (tb, b)):
        for c, n in zip(t, x.shape):
            if size.setdefault(c, n) != n:
                return None                    # size-1 broadcasting of a letter: np.einsum
    prod = math.prod
    nb, m, k, n = (prod(size[c] for c in g) for g in (batch, left, contr, right))
    A = a.transpose([ta.index(c) for c in batch + left + contr]).reshape(nb, m, k)
    B = b.transpose([tb.index(c) for c in batch + contr + right]).reshape(nb, k, n)
    out = np.matmul(A, B).reshape([size[c] for c in batch + left + right])
    cur = batch + left + right
    perm = [cur.index(c) for c in rhs]
    return out.transpose(perm) if perm != list(range(len(perm))) else out


class _EinsumBackward(Node):
    __slots__ = ("_saved_tensors", "_terms", "_rhs", "_sizes")
    _saved_names = ("_saved_tensors",)

    def apply(self, grad):
        ops = self._saved_tensors
        out = []
        for i, t in enumerate(self._terms):
            if not needs(self, i):
                out.append(None)
                continue
            out.append(_einsum_grad(grad, ops, i, self._terms, self._rhs, self._sizes))
        return tuple(out)


def _einsum_grad(grad, ops, i, terms, rhs, sizes):
    t = terms[i]
    uniq = "".join(dict.fromkeys(t))
    others = [(terms[j], ops[j]) for j in range(len(ops)) if j != i]
    present = set(rhs).union(*[set(s) for s, _ in others]) if others else set(rhs)
    keep = "".join(c for c in uniq if c in present)
    conj = ops[i]._data.dtype.kind == "c"
    eq = ",".join([rhs] + [s for s, _ in others]) + "->" + keep
    args = [grad] + [o.conj() if conj else o for _, o in others]
    if STATE.enabled and len(uniq) != len(t):
        g = _einsum_grad(grad, ops, i, terms[:i] + [uniq] + terms[i + 1:], rhs, sizes)
        return _einsum_scatter_diag(g, t, uniq, sizes, set("".join(terms) + rhs))
    if not STATE.enabled:
        g = _np_einsum(eq, [a._data for a in args])
        if keep != uniq:
            g = np.broadcast_to(np.expand_dims(g, tuple(k for k, c in enumerate(uniq)
                                                        if c not in keep)),
                                tuple(sizes[c] for c in uniq))
        if len(uniq) != len(t):
            full = np.zeros(tuple(sizes[c] for c in t), g.dtype)
            np.einsum(t + "->" + uniq, full)[...] = g
            g = full
        return wrap(np.asarray(g))
    g = _einsum_impl(eq, [a for a in args], *_parse_einsum(eq, [a._data.shape for a in args]))
    if keep != uniq:
        for k, c in enumerate(uniq):
            if c not in keep:
                g = g.unsqueeze(k)
        g = g.expand(*[sizes[c] for c in uniq])
    return g


def _einsum_scatter_diag(g, t, uniq, sizes, used):
    """Place g (subscripts uniq) on the diagonals of an operand with repeated subscripts t,
    differentiably: each repeat gets a fresh letter tied to the first by an identity."""
    fresh = iter(c for c in _LETTERS if c not in used)
    out, subs, eyes = [], [uniq], []
    seen = set()
    for c in t:
        if c in seen:
            f = next(fresh)
            out.append(f)
            subs.append(c + f)
            eyes.append(wrap(np.eye(sizes[c], dtype=g._data.dtype)))
        else:
            seen.add(c)
            out.append(c)
    return einsum(",".join(subs) + "->" + "".join(out), g, *eyes)


def _einsum_node_class(terms, rhs):
    if len(terms) == 1:
        t = terms[0]
        if set(rhs) != set(t):
            return _EinsumSum
        return _EinsumPermute
    letters = "".join(terms)
    if all(c in rhs for c in set(letters)):
        return _EinsumMul
    return _EinsumView


_EinsumSum = _named(_EinsumBackward, "SumBackward1")
_EinsumPermute = _named(_EinsumBackward, "PermuteBackward0")
_EinsumMul = _named(_EinsumBackward, "MulBackward0")
_EinsumView = _named(_EinsumBackward, "ViewBackward0")


def _einsum_impl(eq, ops, terms, rhs, sizes, node_cls=None):
    arrays = [o._data for o in ops]
    dt = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype != dt:
            raise RuntimeError(f"expected scalar type {type_name(dt)} but found "
                               f"{type_name(a.dtype)}")
    canon = ",".join(terms) + "->" + rhs
    try:
        r = _np_einsum(canon, arrays)
    except ValueError as e:
        raise RuntimeError(f"einsum(): {e}") from None
    res = wrap(np.asarray(r, dtype=dt))
    if _grad_needed(*ops):
        node = (node_cls or _einsum_node_class(terms, rhs))()
        node._saved_tensors = list(ops)
        node._terms, node._rhs, node._sizes = terms, rhs, sizes
        link(res, node, *ops)
    return res


def _sublist_equation(args):
    """einsum(op1, sublist1, op2, sublist2, ..., [out]) -> (equation, operands)."""
    def sub(lst):
        out = []
        for v in lst:
            if v is Ellipsis:
                out.append("...")
            else:
                v = int(v)
                if not 0 <= v < 52:
                    raise RuntimeError(f"einsum(): subscript in subscript list is not within "
                                       f"the valid range [0, 52)")
                out.append(_LETTERS[v])
        return "".join(out)
    ops = list(args[0::2])
    subs = list(args[1::2])
    rhs = None
    if len(args) % 2 == 1:
        rhs = args[-1]
        ops = list(args[0:-1:2])
        subs = list(args[1:-1:2])
    eq = ",".join(sub(x) for x in subs)
    if rhs is not None:
        eq += "->" + sub(rhs)
    return eq, ops


def einsum(equation, *operands):
    if not isinstance(equation, str):
        equation, operands = _sublist_equation((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for c in equation:
        if c.isalpha() and c not in _LETTERS:
            raise RuntimeError("einsum(): invalid subscript given in the equation string, "
                               "subscripts must be in [a-zA-Z]")
    terms, rhs, sizes = _parse_einsum(equation, [o._data.shape for o in operands])
    if any(rhs.count(c) > 1 for c in rhs):
        c = next(c for c in rhs if rhs.count(c) > 1)
        raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the "
                           f"output")
    for c in rhs:
        if c not in sizes:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                               f"equation for any input operand")
    return _einsum_impl(equation, list(operands), terms, rhs, sizes)


def tensordot(a, b, dims=2, out=None):
    x, y = a._data, b._data
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > x.ndim or dims > y.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        da = list(range(-dims, 0))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    if x.dtype != y.dtype:
        raise RuntimeError("both inputs should have same dtype")
    ta = list(_LETTERS[:x.ndim])
    tb = list(_LETTERS[x.ndim:x.ndim + y.ndim])
    for p, q in zip(da, db):
        p, q = wrap_dim(p, x.ndim), wrap_dim(q, y.ndim)
        if x.shape[p] != y.shape[q]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{x.shape[p]} in dim {da[da.index(p) if p in da else 0]} and "
                               f"second has size {y.shape[q]} in dim "
                               f"{db[db.index(q) if q in db else 0]}")
        tb[q] = ta[p]
    contracted = {ta[wrap_dim(p, x.ndim)] for p in da}
    rhs = "".join(c for c in ta if c not in contracted) + \
        "".join(c for c in tb if c not in contracted)
    terms = ["".join(ta), "".join(tb)]
    sizes = dict(zip(ta, x.shape))
    sizes.update(zip(tb, y.shape))
    return write_out(_einsum_impl(None, [a, b], terms, rhs, sizes, _EinsumView), out)


class _KronBackward(Node):
    __slots__ = ("_saved_self", "_saved_other", "_nd")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        a, b, nd = self._saved_self, self._saved_other, self._nd
        sa = (1,) * (nd - a.ndim) + tuple(a.shape)
        sb = (1,) * (nd - b.ndim) + tuple(b.shape)
        g = grad.reshape(tuple(v for pair in zip(sa, sb) for v in pair))
        ta, tb = _LETTERS[:nd], _LETTERS[nd:2 * nd]
        tg = "".join(p + q for p, q in zip(ta, tb))
        ga = gb = None
        dt = grad.dtype
        if needs(self, 0):
            bb = b if b.dtype == dt else b.to(dt)
            ga = einsum(f"{tg},{tb}->{ta}", g, bb.reshape(sb).conj()).reshape(a.shape)
        if needs(self, 1):
            aa = a if a.dtype == dt else a.to(dt)
            gb = einsum(f"{tg},{ta}->{tb}", g, aa.reshape(sa).conj()).reshape(b.shape)
        return ga, gb


_KronNode = _named(_KronBackward, "UnsafeViewBackward0")


def kron(input, other, *, out=None):
    a, b = input._data, other._data
    nd = max(a.ndim, b.ndim)
    if a.dtype != b.dtype:
        rt = np.promote_types(a.dtype, b.dtype) if D.FROM_NP.get(a.dtype) is None else \
            D.result_type(input, other).np
        a, b = a.astype(rt), b.astype(rt)
    res = wrap(np.asarray(np.kron(a, b)))
    if _grad_needed(input, other):
        node = _KronNode()
        node._saved_self = input if other._requires_grad or input._requires_grad else None
        node._saved_other = other
        node._nd = nd
        link(res, node, input, other)
    return write_out(res, out)


class LinalgCrossBackward0(Node):            # derivatives.yaml: linalg_cross
    __slots__ = ("_saved_self", "_saved_other", "_saved_dim")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        d = self._saved_dim
        return (_linalg_cross(self._saved_other.conj(), grad, d) if needs(self, 0) else None,
                _linalg_cross(grad, self._saved_self.conj(), d) if needs(self, 1) else None)


def _linalg_cross(input, other, dim=-1, out=None):
    a, b = input._data, other._data
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
    if _grad_needed(input, other):
        node = LinalgCrossBackward0()
        node._saved_dim = d
        node._saved_self = input if other._requires_grad else None
        node._saved_other = other if input._requires_grad else None
        link(res, node, input, other)
    return write_out(res, out)


def cross(input, other, dim=None, *, out=None):
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross."
                      "\nThe default value of dim will change to agree with that of "
                      "linalg.cross in a future release.", UserWarning, stacklevel=2)
        try:
            shape = np.broadcast_shapes(input._data.shape, other._data.shape)
        except ValueError:
            raise broadcast_error(input._data, other._data) from None
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _linalg_cross(input, other, dim, out=out)


# ---------------------------------------------------------------- decompositions

try:
    from .reduce import _structseq, return_types as _RT
except ImportError:                                     # pragma: no cover
    _RT = None

    def _structseq(name, fields):
        return namedtuple(name, fields)


def _rt(name, fields):
    cls = getattr(_RT, name, None) if _RT is not None else None
    if cls is None:
        cls = _structseq(name, fields)
        if _RT is not None:
            setattr(_RT, name, cls)
    return cls


_slogdet_t = _rt("linalg_slogdet", ("sign", "logabsdet"))
_qr_t = _rt("linalg_qr", ("Q", "R"))
_eigh_t = _rt("linalg_eigh", ("eigenvalues", "eigenvectors"))
_svd_t = _rt("linalg_svd", ("U", "S", "Vh"))
_svd_old_t = _rt("svd", ("U", "S", "V"))
_slogdet_old_t = _rt("slogdet", ("sign", "logabsdet"))
_inv_ex_t = _rt("linalg_inv_ex", ("inverse", "info"))
_chol_ex_t = _rt("linalg_cholesky_ex", ("L", "info"))


def _outs(res, out):
    """out= for functions returning several tensors: a tuple of tensors to write into."""
    if out is None:
        return res
    if len(out) != len(res):
        raise RuntimeError(f"expected {len(res)} output tensors in out=, got {len(out)}")
    return type(res)(tuple(write_out(r, o) for r, o in zip(res, out)))


def _check_square(A, fn, name="A"):
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{fn}: {name} must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _check_float(A, fn, name="input"):
    k = A._data.dtype
    if k == np.float16:
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got Half")
    if k.kind not in "fc":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as {name}. "
                           f"Got {type_name(k)}")


def _batch_prefix(a, idx):
    return f"(Batch element {idx}): " if a.ndim > 2 else ""


def _lu_zero_pivot(m):
    """1-based index of the first exactly-zero pivot of LU with partial pivoting (LAPACK
    getrf's info), 0 when none."""
    u = np.array(m, dtype=np.float64 if m.dtype.kind == "f" else np.complex128)
    n = u.shape[0]
    for j in range(n):
        p = j + int(np.argmax(np.abs(u[j:, j])))
        if u[p, j] == 0:
            return j + 1
        if p != j:
            u[[j, p]] = u[[p, j]]
        u[j + 1:, j:] -= np.multiply.outer(u[j + 1:, j] / u[j, j], u[j, j:])
    return 0


def _singular_error(a, fn):
    flat = a.reshape((-1,) + a.shape[-2:])
    for b, m in enumerate(flat):
        j = _lu_zero_pivot(m)
        if j:
            pre = _batch_prefix(a, b)
            return _LinAlgError(f"{fn}: {pre}The diagonal element {j} is zero, the inversion "
                                f"could not be completed because the input matrix is "
                                f"singular.")
    return _LinAlgError(f"{fn}: The inversion could not be completed because the input "
                        f"matrix is singular.")


class LinalgInvExBackward0(Node):            # derivatives.yaml: linalg_inv_ex
    __slots__ = ("_saved_inverse",)
    _saved_names = ("_saved_inverse",)

    def apply(self, grad):
        from ._common import saved_output
        iH = _mH(saved_output(self, self._saved_inverse))
        return -matmul(iH, matmul(grad, iH)),


def _inv(A, fn="linalg.inv"):
    _check_square(A, fn)
    _check_float(A, fn)
    a = A._data
    try:
        r = np.linalg.inv(a) if a.size else a.copy()
    except np.linalg.LinAlgError:
        raise _singular_error(a, fn) from None
    res = wrap(np.asarray(r, a.dtype))
    if STATE.enabled and A._requires_grad:
        node = LinalgInvExBackward0()
        node._saved_inverse = res.detach()
        link(res, node, A)
    return res


def inv(A, *, out=None):
    return write_out(_inv(A), out)


def inverse(input, *, out=None):
    return write_out(_inv(input), out)


def inv_ex(A, *, check_errors=False, out=None):
    _check_square(A, "linalg.inv_ex")
    _check_float(A, "linalg.inv_ex")
    try:
        res = _inv(A, "linalg.inv_ex")
        info = np.zeros(A._data.shape[:-2], np.int32)
    except _LinAlgError:
        if check_errors:
            raise
        # the singular matrices get NaN (torch leaves LAPACK's partial result there)
        a = A._data
        flat = a.reshape((-1,) + a.shape[-2:])
        infos = np.array([_lu_zero_pivot(m) for m in flat], np.int32)
        out_ = np.full(flat.shape, np.nan, a.dtype)
        ok = infos == 0
        if ok.any():
            out_[ok] = np.linalg.inv(flat[ok])
        info = infos.reshape(a.shape[:-2])
        res = wrap(out_.reshape(a.shape))
        if STATE.enabled and A._requires_grad:
            node = LinalgInvExBackward0()
            node._saved_inverse = res.detach()
            link(res, node, A)
    return _outs(_inv_ex_t((res, wrap(info))), out)


class LinalgDetBackward0(Node):              # derivatives.yaml: linalg_det
    __slots__ = ("_saved_A", "_saved_result")
    _saved_names = ("_saved_A", "_saved_result")

    def apply(self, grad):
        from ._common import saved_output
        A = self._saved_A
        d = saved_output(self, self._saved_result)
        if not STATE.enabled and (d._data == 0).any():
            # singular: torch's formula (det * A^-H) gives zero there
            a = A._data
            ok = d._data != 0
            inv_h = np.zeros_like(a)
            if ok.any():
                inv_h[ok] = _h(np.linalg.inv(a[ok]))
            g = (grad._data * d._data.conj())[..., None, None]
            return wrap(np.asarray(g * inv_h, a.dtype)),
        g = grad * d.conj()
        return g.unsqueeze(-1).unsqueeze(-1) * _mH(_inv(A)),


def det(A, *, out=None):
    _check_square(A, "linalg.det")
    _check_float(A, "linalg.det")
    a = A._data
    res = wrap(np.asarray(np.linalg.det(a), a.dtype))
    if STATE.enabled and A._requires_grad:
        node = LinalgDetBackward0()
        node._saved_A = A
        node._saved_result = res.detach()
        link(res, node, A)
    return write_out(res, out)


class LinalgSlogdetBackward0(Node):          # derivatives.yaml: _linalg_slogdet
    __slots__ = ("_saved_A", "_sign")
    _saved_names = ("_saved_A",)
    _n_outputs = 2

    def apply(self, grads):
        gs, g = grads
        A = self._saved_A
        if A._data.dtype.kind == "c":
            # d sign = i sign Im tr(A^-1 dA):  g = g_logabs + i Im(conj(sign) g_sign)
            if gs is not None:
                sign = wrap(self._sign)
                t = (sign.conj() * gs).imag * 1j
                g = t if g is None else g + t
        if g is None:
            return None,
        return g.unsqueeze(-1).unsqueeze(-1) * _mH(_inv(A)),


def linalg_slogdet(A, *, out=None):
    return _outs(_slogdet_t(_slogdet(A)), out)


def slogdet(input, *, out=None):
    return _outs(_slogdet_old_t(_slogdet(input)), out)


def _slogdet(A):
    _check_square(A, "linalg.slogdet")
    _check_float(A, "linalg.slogdet")
    a = A._data
    s, l = np.linalg.slogdet(a)
    sign, logabs = wrap(np.asarray(s, a.dtype)), wrap(np.asarray(l, a.real.dtype))
    if STATE.enabled and A._requires_grad:
        node = LinalgSlogdetBackward0()
        node._saved_A = A
        node._sign = sign._data
        link_multi([sign, logabs], node, A)
    return sign, logabs


class LinalgSolveExBackward0(Node):          # derivatives.yaml: _linalg_solve_ex
    __slots__ = ("_saved_A", "_saved_result", "_vector", "_saved_left")
    _saved_names = ("_saved_A", "_saved_result")

    def apply(self, grad):
        from ._common import saved_output
        A = self._saved_A
        X = saved_output(self, self._saved_result)
        if not self._saved_left:
            # X A = B:  gB = g A^-H,  gA = -X^H gB
            gB = solve(_mH(A), grad, left=False)
            gA = -matmul(_mH(X), gB) if needs(self, 0) else None
            return gA, (gB if needs(self, 1) else None)
        gB = solve(_mH(A), grad)
        gA = None
        if needs(self, 0):
            if self._vector:
                gA = -(gB.unsqueeze(-1) * X.conj().unsqueeze(-2))
            else:
                gA = -matmul(gB, _mH(X))
        return gA, (gB if needs(self, 1) else None)


def solve(A, B, *, left=True, out=None):
    _check_square(A, "linalg.solve")
    _check_float(A, "linalg.solve")
    a, b = A._data, B._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {type_name(a.dtype)} and B of type {type_name(b.dtype)} "
                           f"instead")
    vector = left and (b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]))
    bm = b[..., None] if vector else b
    if not left:
        if bm.ndim < 2 or bm.shape[-1] != a.shape[-1]:
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                               f"XA = B ({a.shape[-2]}x{a.shape[-1]} and "
                               f"{bm.shape[-2] if bm.ndim > 1 else 1}x{bm.shape[-1]})")
        a, bm = a.swapaxes(-1, -2), bm.swapaxes(-1, -2)
    elif bm.shape[-2] != a.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"AX = B ({a.shape[-2]}x{a.shape[-1]} and {bm.shape[-2]}x"
                           f"{bm.shape[-1]})")
    try:
        x = np.linalg.solve(a, bm)
    except np.linalg.LinAlgError:
        raise _LinAlgError("torch.linalg.solve: The solver failed because the input matrix "
                           "is singular.") from None
    except ValueError:
        raise broadcast_error(np.empty(bm.shape[:-2]), np.empty(a.shape[:-2])) from None
    if not left:
        x = x.swapaxes(-1, -2)
    res = wrap(np.asarray(x[..., 0] if vector else x, a.dtype))
    if _grad_needed(A, B):
        node = LinalgSolveExBackward0()
        node._saved_A = A
        node._saved_result = res.detach()
        node._vector = vector
        node._saved_left = left
        link(res, node, A, B)
    return write_out(res, out)


class LinalgCholeskyExBackward0(Node):       # derivatives.yaml: linalg_cholesky_ex
    __slots__ = ("_saved_L", "_saved_upper")
    _saved_names = ("_saved_L",)

    def apply(self, grad):
        from ._common import saved_output
        L = saved_output(self, self._saved_L)
        gL = grad
        if self._saved_upper:
            L, gL = _mH(L), _mH(gL)
        # Murray (2016): gA = L^-H Phi L^-1 with P = tril(L^H gL) and
        # Phi = (P + tril(P, -1)^H) / 2  (the Hermitian matrix with P's halved diagonal)
        P = matmul(_mH(L), gL) * _tril_mask(L)
        P = 0.5 * (P + _mH(P * _tril_mask(P, -1)))
        Li = _inv(L)
        return matmul(_mH(Li), matmul(P, Li)),


def _chol_error(a, fn):
    flat = a.reshape((-1,) + a.shape[-2:])
    for b, m in enumerate(flat):
        for k in range(1, m.shape[0] + 1):
            try:
                np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                return _LinAlgError(f"{fn}: {_batch_prefix(a, b)}The factorization could not "
                                    f"be completed because the input is not positive-definite "
                                    f"(the leading minor of order {k} is not "
                                    f"positive-definite).")
    return _LinAlgError(f"{fn}: The factorization could not be completed because the input "
                        f"is not positive-definite.")


def _cholesky(A, upper, fn):
    _check_square(A, fn)
    _check_float(A, fn)
    a = A._data
    try:
        L = np.linalg.cholesky(a) if a.size else a.copy()
    except np.linalg.LinAlgError:
        raise _chol_error(a, fn) from None
    if upper:
        L = np.ascontiguousarray(_h(L))
    res = wrap(np.asarray(L, a.dtype))
    if STATE.enabled and A._requires_grad:
        node = LinalgCholeskyExBackward0()
        node._saved_L = res.detach()
        node._saved_upper = upper
        link(res, node, A)
    return res


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    _check_square(A, "linalg.cholesky_ex")
    _check_float(A, "linalg.cholesky_ex")
    try:
        L = _cholesky(A, upper, "linalg.cholesky_ex")
        info = np.zeros(A._data.shape[:-2], np.int32)
    except _LinAlgError:
        if check_errors:
            raise
        a = A._data
        flat = a.reshape((-1,) + a.shape[-2:])
        infos = []
        for m in flat:
            k = next((k for k in range(1, m.shape[0] + 1)
                      if not _is_pd(m[:k, :k])), 0)
            infos.append(k)
        info = np.array(infos, np.int32).reshape(a.shape[:-2])
        L = wrap(np.full(a.shape, np.nan, a.dtype))
    return _outs(_chol_ex_t((L, wrap(info))), out)


def _is_pd(m):
    try:
        np.linalg.cholesky(m)
        return True
    except np.linalg.LinAlgError:
        return False


def linalg_cholesky(A, *, upper=False, out=None):
    return write_out(_cholesky(A, upper, "linalg.cholesky"), out)


class LinalgQrBackward0(Node):               # derivatives.yaml: linalg_qr
    __slots__ = ("_saved_Q", "_saved_R", "_saved_mode", "_saved_A")
    _saved_names = ("_saved_Q", "_saved_R")
    _n_outputs = 2

    def apply(self, grads):
        from ._common import saved_output
        gQ, gR = grads
        Q, R = _out(self, self._saved_Q, 0), _out(self, self._saved_R, 1)
        if self._saved_mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if self._saved_mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete'"
                               " and nrows > ncols.")
        if m >= n:
            return _qr_backward_tall(gQ, gR, Q, R),
        # A = [X | Y], X = Q U (square), Y = Q V:  gY = Q gV, and V = Q^H Y feeds gQ
        U, V = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
        gU = gV = None
        if gR is not None:
            gU, gV = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
        Y = self._saved_A.narrow(-1, m, n - m)
        if gV is not None:
            t = matmul(Y, _mH(gV))
            gQ = t if gQ is None else gQ + t
        gX = _qr_backward_tall(gQ, gU, Q, U)
        gY = matmul(Q, gV) if gV is not None else (gX * 0).narrow(-1, 0, 1).expand(
            *Y.shape)
        from .join import cat
        return cat([gX, gY], -1),


def _qr_backward_tall(gQ, gR, Q, R):
    """gA for m >= n: [gQ + Q copyltu(M)] R^-H with M = R gR^H - gQ^H Q."""
    M = None
    if gR is not None:
        M = matmul(R, _mH(gR))
    if gQ is not None:
        t = matmul(_mH(gQ), Q)
        M = -t if M is None else M - t
    Mt = M * _tril_mask(M, -1)
    d = _diag(M)
    C = Mt + _mH(Mt) + _diag_embed(d.real if d.is_complex() else d)
    b = matmul(Q, C)
    if gQ is not None:
        b = b + gQ
    return matmul(b, _mH(_inv(R)))


def linalg_qr(A, mode="reduced", *, out=None):
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    if A._data.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    _check_float(A, "linalg.qr")
    a = A._data
    if mode == "r":
        R = np.linalg.qr(a, mode="r")
        Q = np.empty((0,), a.dtype)
    else:
        Q, R = np.linalg.qr(a, mode=mode)
    Qt, Rt = wrap(np.asarray(Q, a.dtype)), wrap(np.asarray(R, a.dtype))
    if STATE.enabled and A._requires_grad:
        node = LinalgQrBackward0()
        node._saved_Q, node._saved_R, node._saved_mode = Qt.detach(), Rt.detach(), mode
        node._saved_A = A if a.shape[-2] < a.shape[-1] else None
        link_multi([Qt, Rt], node, A)
    return _outs(_qr_t((Qt, Rt)), out)


class LinalgEighBackward0(Node):             # derivatives.yaml: _linalg_eigh
    __slots__ = ("_saved_eigenvalues", "_saved_eigenvectors")
    _saved_names = ("_saved_eigenvalues", "_saved_eigenvectors")
    _n_outputs = 2

    def apply(self, grads):
        gL, gV = grads
        L = _out(self, self._saved_eigenvalues, 0)
        V = _out(self, self._saved_eigenvectors, 1)
        if gV is None:
            return matmul(V * gL.unsqueeze(-2), _mH(V)),
        # gA = V (diag(gL) + (V^H gV) / E) V^H,  E_ij = L_j - L_i (diagonal excluded)
        E = L.unsqueeze(-2) - L.unsqueeze(-1)
        off = 1 - _eye_like(E)
        Einv = off / (E + _eye_like(E))
        X = matmul(_mH(V), gV)
        inner = (X - _mH(X)) * (0.5 * Einv)
        if gL is not None:
            inner = inner + _diag_embed(gL)
        return matmul(V, matmul(inner, _mH(V))),


def _eigh(A, UPLO, fn, vectors=True):
    _check_square(A, fn)
    if A._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for "
                                  f"'{type_name(A._data.dtype)}'")
    _check_float(A, fn)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    a = A._data
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    L, V = wrap(np.asarray(w, a.real.dtype)), wrap(np.asarray(v, a.dtype))
    if STATE.enabled and A._requires_grad:
        node = LinalgEighBackward0()
        node._saved_eigenvalues, node._saved_eigenvectors = L.detach(), V.detach()
        if vectors:
            link_multi([L, V], node, A)
        else:
            link_multi([L], node, A)
            node._meta.append((v.shape, v.dtype))
    return L, V


def eigh(A, UPLO="L", *, out=None):
    return _outs(_eigh_t(_eigh(A, UPLO, "linalg.eigh")), out)


def eigvalsh(A, UPLO="L", *, out=None):
    return write_out(_eigh(A, UPLO, "linalg.eigvalsh", vectors=False)[0], out)


class LinalgSvdBackward0(Node):              # derivatives.yaml: _linalg_svd
    __slots__ = ("_saved_U", "_saved_S", "_saved_Vh", "_saved_full_matrices")
    _saved_names = ("_saved_U", "_saved_S", "_saved_Vh")
    _n_outputs = 3

    def apply(self, grads):
        gU, gS, gVh = grads
        U, S, Vh = (_out(self, self._saved_U, 0), _out(self, self._saved_S, 1),
                    _out(self, self._saved_Vh, 2))
        m, n = U.shape[-2], Vh.shape[-1]
        k = S.shape[-1]
        if self._saved_full_matrices:
            U = U.narrow(-1, 0, k) if U.shape[-1] != k else U
            Vh = Vh.narrow(-2, 0, k) if Vh.shape[-2] != k else Vh
            if gU is not None and gU.shape[-1] != k:
                gU = gU.narrow(-1, 0, k)
            if gVh is not None and gVh.shape[-2] != k:
                gVh = gVh.narrow(-2, 0, k)
        if gU is None and gVh is None:
            return matmul(U * gS.unsqueeze(-2), Vh),
        S2 = S * S
        eye = _eye_like(S, k)
        E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
        gA = None
        if gU is not None:
            UhgU = matmul(_mH(U), gU)
            UhgU = UhgU - _mH(UhgU)
            gA = UhgU * S.unsqueeze(-2)
        if gVh is not None:
            VhgV = matmul(Vh, _mH(gVh))
            VhgV = VhgV - _mH(VhgV)
            t = S.unsqueeze(-1) * VhgV
            gA = t if gA is None else gA + t
        gA = gA / E
        if gS is not None:
            gA = gA + _diag_embed(gS)
        if m > n and gU is not None:
            gA = matmul(U, gA)
            gUSinv = gU / S.unsqueeze(-2)
            gA = gA + gUSinv - matmul(U, matmul(_mH(U), gUSinv))
            gA = matmul(gA, Vh)
        elif m < n and gVh is not None:
            gA = matmul(gA, Vh)
            SinvgVh = gVh / S.unsqueeze(-1)
            gA = gA + SinvgVh - matmul(matmul(SinvgVh, _mH(Vh)), Vh)
            gA = matmul(U, gA)
        else:
            gA = matmul(U, matmul(gA, Vh))
        return gA,


_SVD_DRIVER = ("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
               "with cuSOLVER backend.")


def _svd(A, full_matrices, fn, outputs=3):
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    _check_float(A, fn)
    a = A._data
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    U, S, Vh = (wrap(np.asarray(u, a.dtype)), wrap(np.asarray(s, a.real.dtype)),
                wrap(np.asarray(vh, a.dtype)))
    if STATE.enabled and A._requires_grad:
        node = LinalgSvdBackward0()
        node._saved_U, node._saved_S, node._saved_Vh = U.detach(), S.detach(), Vh.detach()
        node._saved_full_matrices = full_matrices
        if outputs == 3:
            link_multi([U, S, Vh], node, A)
        else:
            link_multi([U, S, Vh], node, A)
            U._grad_fn = Vh._grad_fn = None
            U._requires_grad = Vh._requires_grad = False
    return U, S, Vh


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    if driver is not None:
        raise RuntimeError(_SVD_DRIVER)
    return _outs(_svd_t(_svd(A, full_matrices, "linalg.svd")), out)


def svdvals(A, *, driver=None, out=None):
    if driver is not None:
        raise RuntimeError(_SVD_DRIVER)
    return write_out(_svd(A, False, "linalg.svd", outputs=1)[1], out)


def _svd_legacy(input, some=True, compute_uv=True, *, out=None):
    if not compute_uv:
        # U and V are zero-filled (m x m) and (n x n) matrices
        S = _svd(input, False, "linalg.svd", outputs=1)[1]
        a = input._data
        m, n = a.shape[-2:]
        U = wrap(np.zeros(a.shape[:-2] + (m, m), a.dtype))
        V = wrap(np.zeros(a.shape[:-2] + (n, n), a.dtype))
        return _outs(_svd_old_t((U, S, V)), out)
    U, S, Vh = _svd(input, not some, "linalg.svd")
    return _outs(_svd_old_t((U, S, _mH(Vh))), out)


class LinalgPinvBackward0(Node):             # derivatives.yaml: linalg_pinv.atol_rtol_tensor
    __slots__ = ("_saved_self", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        from ._common import saved_output
        A = self._saved_self
        P = saved_output(self, self._saved_result)
        m, n = A.shape[-2], A.shape[-1]
        Ph = _mH(P)
        gh = _mH(grad)
        if m <= n:
            K = matmul(gh, P)
            KPh = matmul(K, Ph)
            gA = (-_mH(matmul(P, K)) + KPh - matmul(matmul(A, P), KPh)
                  + matmul(matmul(Ph, P), gh - matmul(K, A)))
        else:
            K = matmul(P, gh)
            PhK = matmul(Ph, K)
            gA = (-_mH(matmul(K, P)) + matmul(matmul(gh - matmul(A, K), P), Ph) + PhK
                  - matmul(matmul(PhK, P), A))
        return gA,


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None, rcond=None):
    a = A._data
    if a.ndim < 2 or a.dtype.kind not in "fc":
        dt = {"float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
              "complex128": "ComplexDouble"}.get(a.dtype.name, type_name(a.dtype))
        raise RuntimeError(f"linalg.pinv({dt}{{{list(a.shape)}}}): expected a tensor with 2 "
                           f"or more dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:
        rtol = rcond
    m, n = a.shape[-2:]
    if a.size == 0:
        p = np.zeros(a.shape[:-2] + (n, m), a.dtype)
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        smax = s[..., :1]
        if rtol is None:
            rtol = 0.0 if atol is not None and atol > 0 else \
                np.finfo(a.dtype).eps * max(m, n)
        tol = np.maximum(atol or 0.0, rtol * smax)
        sinv = np.where(s > tol, 1.0 / np.where(s > tol, s, 1), 0).astype(s.dtype)
        p = np.matmul(_h(vh) * sinv[..., None, :], _h(u))
    res = wrap(np.asarray(p, a.dtype))
    if STATE.enabled and A._requires_grad:
        node = LinalgPinvBackward0()
        node._saved_self = A
        node._saved_result = res.detach()
        link(res, node, A)
    return write_out(res, out)


def pinverse(input, rcond=1e-15):
    return pinv(input, rtol=rcond)


class CopyBackwards(Node):                   # copy_ of a constant into a clone of A
    __slots__ = ()

    def apply(self, grad):
        return grad * 0,


def matrix_power(A, n, *, out=None):
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {a.shape[-2]} by {a.shape[-1]} matrices")
    if n == 0:
        res = wrap(np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy())
        if STATE.enabled and A._requires_grad:
            link(res, CopyBackwards(), A.clone())    # torch: A.clone().copy_(eye)
        return write_out(res, out)
    if n < 0:
        A = _inv(A, "linalg.inv")
        n = -n
    if n == 1:
        return write_out(A.clone(), out)
    # binary exponentiation, as torch computes it
    z = result = None
    while n > 0:
        z = A if z is None else matmul(z, z)
        if n & 1:
            result = z if result is None else matmul(result, z)
        n >>= 1
    return write_out(result, out)


def _vector_norm(*args, **kwargs):
    from .reduce import vector_norm
    return vector_norm(*args, **kwargs)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    _check_float(A, "linalg.matrix_norm", "input")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord:g} not supported."
                           if isinstance(ord, float) else
                           f"linalg.matrix_norm: Order {ord} not supported.")
    d0, d1 = (wrap_dim(d, a.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got "
                           f"({dim[0]}, {dim[1]})")
    if dtype is not None:
        if np.promote_types(a.dtype, dtype.np) != dtype.np:
            raise RuntimeError(f"linalg.matrix_norm: the dtype of the input "
                               f"({type_name(a.dtype)}) should be convertible without "
                               f"narrowing to the specified dtype ({type_name(dtype.np)})")
        A = A.to(dtype)
    if ord == "fro":
        return write_out(_vector_norm(A, 2, (d0, d1), keepdim), out)
    from .reduce import amax, amin
    if ord == "nuc" or abs(ord) == 2:
        perm = [i for i in range(a.ndim) if i not in (d0, d1)] + [d0, d1]
        At = A.permute(perm) if perm != list(range(a.ndim)) else A
        s = svdvals(At)
        r = s.sum(-1) if ord == "nuc" else (amax(s, -1) if ord == 2 else amin(s, -1))
        if keepdim:
            r = r.unsqueeze(-1).unsqueeze(-1).permute(np.argsort(perm).tolist())
        return write_out(r, out)
    # 1 / inf: max (min) over one dim of the abs-sums over the other
    sum_dim, red_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
    s = A.abs().sum(sum_dim, keepdim=keepdim)
    if not keepdim and red_dim > sum_dim:
        red_dim -= 1
    r = (amax if ord > 0 else amin)(s, red_dim, keepdim=keepdim)
    return write_out(r, out)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    a = A._data
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dim)}")
    if dim is not None and len(dim) == 2 or (dim is None and ord is not None and a.ndim == 2):
        if ord is None:
            ord = "fro"
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype,
                           out=out)
    if dim is None and ord is not None and a.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must "
                           f"be 1D or 2D. Got {a.ndim}D.")
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {len(dim)}"
                           if dim is not None else
                           "linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    return _vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


def multi_dot(tensors, *, out=None):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        d = t._data.ndim
        if i == 0 and d not in (1, 2):
            raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {d}D")
        if i == n - 1 and d not in (1, 2):
            raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {d}D")
        if 0 < i < n - 1 and d != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {d}D")
    ts = list(tensors)
    first_1d = ts[0]._data.ndim == 1
    last_1d = ts[-1]._data.ndim == 1
    if first_1d:
        ts[0] = ts[0].unsqueeze(0)
    if last_1d:
        ts[-1] = ts[-1].unsqueeze(1)
    for i in range(n - 1):
        if ts[i]._data.shape[1] != ts[i + 1]._data.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(tensors[i].shape)} and {list(tensors[i + 1].shape)} "
                               f"cannot be multiplied")
    r = ts[0]
    for t in ts[1:]:
        r = mm(r, t)
    shape = tuple(r._data.shape[i] for i, keep in ((0, not first_1d), (1, not last_1d))
                  if keep)
    return write_out(r.view(shape), out)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at "
                           "least 2 dimensions.")
    _check_float(A, "linalg.matrix_rank", "input")
    m, n = a.shape[-2:]
    s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (0,))
    smax = s.max(-1, initial=0.0, keepdims=True) if s.size else np.zeros(a.shape[:-2] + (1,))
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else np.finfo(a.dtype).eps * max(m, n)
    tol = np.maximum(atol or 0.0, rtol * smax)
    return write_out(wrap(np.asarray((s > tol).sum(-1), np.int64)), out)




def vecdot(x, y, *, dim=-1, out=None):
    return write_out((x.conj() * y).sum(dim), out)


def logdet(input):
    """log(det(A)): nan for a negative determinant (torch.logdet)."""
    from .pointwise import where
    sign, logabs = _slogdet(input)
    if input._data.dtype.kind == "c":
        from .pointwise import log
        return logabs + log(sign)
    return where(wrap(sign._data < 0), wrap(np.asarray(np.nan, logabs._data.dtype)), logabs)


def chain_matmul(*matrices, out=None):
    import warnings
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        if matrices[0]._data.ndim != 2:
            raise RuntimeError(f"chain_matmul(): Expected one or more matrices, but got "
                               f"{matrices[0]._data.ndim}-D tensor")
        return write_out(matrices[0].clone(), out)
    for t in matrices:
        if t._data.ndim != 2:
            raise RuntimeError(f"chain_matmul(): Expected one or more matrices, but got "
                               f"{t._data.ndim}-D tensor")
    return multi_dot(list(matrices), out=out)


class CholeskyBackward0(LinalgCholeskyExBackward0):     # derivatives.yaml: cholesky
    __slots__ = ()


def cholesky(input, upper=False, *, out=None):
    import warnings
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
                  "removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be "
                  "replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
                  "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                  "This transform will produce equivalent results for all valid (symmetric "
                  "positive definite) inputs.", UserWarning, stacklevel=2)
    res = _cholesky(input, upper, "cholesky")
    if res._grad_fn is not None:
        old = res._grad_fn
        node = CholeskyBackward0()
        node._saved_L, node._saved_upper = old._saved_L, old._saved_upper
        link(res, node, input)
    return write_out(res, out)




# ---------------------------------------------------------------- matrix_exp / addr / qr

_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def _expm_np(a):
    """exp of a batch of matrices: scaling and squaring with the [13/13] Pade approximant
    (Higham 2005), computed in double precision."""
    dt = a.dtype
    a = a.astype(np.complex128 if dt.kind == "c" else np.float64)
    n = a.shape[-1]
    if a.size == 0:
        return a.astype(dt)
    norm = float(np.abs(a).sum(-2).max()) if a.size else 0.0
    s = max(0, int(math.ceil(math.log2(norm / 5.371920351148152)))) if norm > 0 else 0
    A = a / (2.0 ** s)
    b = _PADE13
    eye = np.eye(n, dtype=a.dtype)
    A2 = A @ A
    A4 = A2 @ A2
    A6 = A4 @ A2
    U = A @ (A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2
             + b[1] * eye)
    V = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 \
        + b[0] * eye
    R = np.linalg.solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R.astype(dt)


class LinalgMatrixExpBackward0(Node):        # derivatives.yaml: linalg_matrix_exp
    __slots__ = ("_saved_self",)
    _saved_names = ("_saved_self",)

    def apply(self, grad):
        # gA = the upper-right block of exp([[A^H, G], [0, A^H]])
        A = self._saved_self
        n = A.shape[-1]
        if not STATE.enabled:
            ah = _h(A._data)
            g = grad._data
            top = np.concatenate([ah, g], -1)
            bot = np.concatenate([np.zeros_like(ah), ah], -1)
            big = np.concatenate([top, bot], -2)
            return wrap(_expm_np(big)[..., :n, n:]),
        from .join import cat
        Ah = _mH(A)
        big = cat([cat([Ah, grad], -1), cat([Ah * 0, Ah], -1)], -2)
        return matrix_exp(big).narrow(-2, 0, n).narrow(-1, n, n),


def matrix_exp(A):
    _check_square(A, "linalg.matrix_exp")
    _check_float(A, "linalg.matrix_exp")
    res = wrap(_expm_np(A._data))
    if STATE.enabled and A._requires_grad:
        node = LinalgMatrixExpBackward0()
        node._saved_self = A
        link(res, node, A)
    return res


class AddrBackward0(Node):                   # derivatives.yaml: addr
    __slots__ = ("_saved_vec1", "_saved_vec2", "_saved_alpha", "_saved_beta")
    _saved_names = ("_saved_vec1", "_saved_vec2")

    def apply(self, grad):
        alpha, beta = self._saved_alpha, self._saved_beta
        g = grad if alpha == 1 else grad * alpha
        return ((grad if beta == 1 else grad * beta) if needs(self, 0) else None,
                mv(g, self._saved_vec2.conj()) if needs(self, 1) else None,
                mv(_mT(g), self._saved_vec1.conj()) if needs(self, 2) else None)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    v1, v2, c = vec1._data, vec2._data, input._data
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
    if _grad_needed(input, vec1, vec2):
        node = AddrBackward0()
        node._saved_alpha, node._saved_beta = alpha, beta
        node._saved_vec1 = vec1 if vec2._requires_grad else None
        node._saved_vec2 = vec2 if vec1._requires_grad else None
        link(res, node, input, vec1, vec2)
    return write_out(res, out)


def addr_(self, vec1, vec2, *, beta=1, alpha=1):
    shape = (vec1._data.shape[0] if vec1._data.ndim else 1,
             vec2._data.shape[0] if vec2._data.ndim else 1)
    if vec1._data.ndim == 1 == vec2._data.ndim and tuple(self._data.shape) != shape:
        raise RuntimeError(f"size mismatch, input: {list(self._data.shape)}, v1: "
                           f"{list(vec1._data.shape)}, v2: {list(vec2._data.shape)}")
    return inplace(self, addr(inplace_source(self), vec1, vec2, beta=beta, alpha=alpha))


def _qr_legacy(input, some=True, *, out=None):
    import warnings
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a "
                  "future PyTorch release.\nThe boolean parameter 'some' has been replaced with "
                  "a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced "
                  "with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
                  UserWarning, stacklevel=2)
    Q, R = linalg_qr(input, "reduced" if some else "complete")
    return _outs(_qr_old_t((Q, R)), out)


_qr_old_t = _rt("qr", ("Q", "R"))


# ---------------------------------------------------------------- triangular / cholesky solves

def _tri_np(a, upper, unitriangular):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t.copy()
        idx = np.arange(a.shape[-1])
        t[..., idx, idx] = 1
    return t


def _tri_mask(x, upper, strict):
    n, m = x._data.shape[-2:]
    if upper:
        mask = 1 - np.tri(n, m, 0 if strict else -1)
    else:
        mask = np.tri(n, m, -1 if strict else 0)
    return wrap(mask.astype(x._data.dtype))


class LinalgSolveTriangularBackward0(Node):  # derivatives.yaml: linalg_solve_triangular
    __slots__ = ("_saved_self", "_saved_result", "_saved_upper", "_saved_left",
                 "_saved_unitriangular")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        from ._common import saved_output
        A = self._saved_self
        X = saved_output(self, self._saved_result)
        up, left, unit = self._saved_upper, self._saved_left, self._saved_unitriangular
        gB = solve_triangular(_mH(A), grad, upper=not up, left=left, unitriangular=unit)
        gA = None
        if needs(self, 0):
            gA = -matmul(gB, _mH(X)) if left else -matmul(_mH(X), gB)
            gA = gA * _tri_mask(gA, up, unit)
        return gA, (gB if needs(self, 1) else None)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    a, b = A._data, B._data
    fn = "linalg.solve_triangular"
    if b.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    _check_square(A, fn)
    _check_float(A, fn)
    if a.dtype != b.dtype:
        raise RuntimeError(f"{fn}: Expected A and B to have the same dtype, but found A of type "
                           f"{type_name(a.dtype)} and B of type {type_name(b.dtype)} instead")
    if (b.shape[-2] if left else b.shape[-1]) != a.shape[-1]:
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a.shape[-2]}x{a.shape[-1]} and "
                           f"{b.shape[-2]}x{b.shape[-1]})")
    t = _tri_np(a, upper, unitriangular)
    try:
        if left:
            x = np.linalg.solve(t, b)
        else:
            x = np.linalg.solve(t.swapaxes(-1, -2), b.swapaxes(-1, -2)).swapaxes(-1, -2)
    except np.linalg.LinAlgError:
        # a zero on the diagonal: back substitution divides by it (inf/nan as LAPACK gives)
        with np.errstate(all="ignore"):
            tp = t + np.where(np.eye(t.shape[-1], dtype=bool) & (t == 0), 1e-300, 0)
            x = (np.linalg.solve(tp, b) if left else
                 np.linalg.solve(tp.swapaxes(-1, -2), b.swapaxes(-1, -2)).swapaxes(-1, -2))
    res = wrap(np.asarray(x, a.dtype))
    if _grad_needed(A, B):
        node = LinalgSolveTriangularBackward0()
        node._saved_self = A
        node._saved_result = res.detach()
        node._saved_upper, node._saved_left = upper, left
        node._saved_unitriangular = unitriangular
        link(res, node, A, B)
    return write_out(res, out)


class CholeskySolveBackward0(Node):          # derivatives.yaml: cholesky_solve
    __slots__ = ("_saved_input2", "_saved_result", "_saved_upper")
    _saved_names = ("_saved_input2", "_saved_result")

    def apply(self, grad):
        from ._common import saved_output
        L = self._saved_input2
        X = saved_output(self, self._saved_result)
        up = self._saved_upper
        gB = cholesky_solve(grad, L, up)
        gL = None
        if needs(self, 1):
            common = matmul(gB, _mH(X))
            common = common + _mH(common)
            gL = -matmul(L, common) if up else -matmul(common, L)
        return (gB if needs(self, 0) else None), gL


def cholesky_solve(input, input2, upper=False, *, out=None):
    b, l = input._data, input2._data
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                           f"instead")
    if l.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {l.ndim} dimensions "
                           f"instead")
    if b.dtype != l.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{type_name(b.dtype)} and A of type {type_name(l.dtype)} instead.")
    t = np.triu(l) if upper else np.tril(l)
    A = _h(t) @ t if upper else t @ _h(t)
    x = np.linalg.solve(A, np.broadcast_to(b, np.broadcast_shapes(b.shape[:-2], A.shape[:-2])
                                           + b.shape[-2:]))
    res = wrap(np.asarray(x, b.dtype))
    if _grad_needed(input, input2):
        node = CholeskySolveBackward0()
        node._saved_input2 = input2
        node._saved_result = res.detach()
        node._saved_upper = upper
        link(res, node, input, input2)
    return write_out(res, out)


class CholeskyInverseBackward0(Node):        # derivatives.yaml: cholesky_inverse
    __slots__ = ("_saved_self", "_saved_result", "_saved_upper")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        from ._common import saved_output
        L = self._saved_self
        inv_ = saved_output(self, self._saved_result)
        common = grad + _mH(grad)
        common = matmul(inv_, matmul(common, inv_))
        return (-matmul(L, common) if self._saved_upper else -matmul(common, L)),


def cholesky_inverse(input, upper=False, *, out=None):
    l = input._data
    if l.ndim < 2 or l.shape[-1] != l.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{l.shape[-2] if l.ndim > 1 else 1} by {l.shape[-1]} matrices"
                           if l.ndim >= 2 else
                           "The input tensor A must have at least 2 dimensions.")
    t = np.triu(l) if upper else np.tril(l)
    A = _h(t) @ t if upper else t @ _h(t)
    res = wrap(np.asarray(np.linalg.inv(A), l.dtype))
    if STATE.enabled and input._requires_grad:
        node = CholeskyInverseBackward0()
        node._saved_self = input
        node._saved_result = res.detach()
        node._saved_upper = upper
        link(res, node, input)
    return write_out(res, out)


# ---------------------------------------------------------------- lstsq

_lstsq_t = _rt("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


class LinalgLstsqBackward0(Node):            # derivatives.yaml: linalg_lstsq
    __slots__ = ("_saved_self", "_saved_b", "_saved_solution", "_vector")
    _saved_names = ("_saved_self", "_saved_b", "_saved_solution")
    _n_outputs = 2

    def apply(self, grads):
        gX, gR = grads
        A, B = self._saved_self, self._saved_b
        if self._vector:
            B = B.unsqueeze(-1)
            if gX is not None:
                gX = gX.unsqueeze(-1)
        gA = gB = None
        if gX is not None:
            P = pinv(A)
            if needs(self, 1):
                gB = matmul(_mH(P), gX)
            if needs(self, 0):
                # X = pinv(A) B: the gradient reaching pinv(A) is gX B^H
                gA = _pinv_backward(matmul(gX, _mH(B)), P, A)
        if gR is not None and gR.numel():
            X = pinv(A).matmul(B) if gX is None else matmul(pinv(A), B)
            r = matmul(A, X) - B                      # residuals = sum |AX - B|^2 over rows
            w = r * gR.unsqueeze(-2) * 2
            tA = matmul(w, _mH(X))
            gA = tA if gA is None else gA + tA
            gB = -w if gB is None else gB - w
        if self._vector and gB is not None:
            gB = gB.squeeze(-1)
        return gA, gB


def _pinv_backward(grad, P, A):
    m, n = A.shape[-2], A.shape[-1]
    Ph = _mH(P)
    gh = _mH(grad)
    if m <= n:
        K = matmul(gh, P)
        KPh = matmul(K, Ph)
        return (-_mH(matmul(P, K)) + KPh - matmul(matmul(A, P), KPh)
                + matmul(matmul(Ph, P), gh - matmul(K, A)))
    K = matmul(P, gh)
    PhK = matmul(Ph, K)
    return (-_mH(matmul(K, P)) + matmul(matmul(gh - matmul(A, K), P), Ph) + PhK
            - matmul(matmul(PhK, P), A))


def lstsq(A, B, rcond=None, *, driver=None):
    a, b = A._data, B._data
    fn = "torch.linalg.lstsq"
    if driver is None:
        driver = "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss)")
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{fn}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {type_name(a.dtype)} and other's dtype "
                           f"{type_name(b.dtype)}")
    _check_float(A, fn)
    vector = b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    m, n = a.shape[-2:]
    if bm.shape[-2] != m:
        raise RuntimeError(f"{fn}: input.size(-2) should match other.size(-2)" if not vector
                           else f"{fn}: input.size(-2) should match other.size(-1)")
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    if rcond is None:
        rcond = np.finfo(a.dtype).eps * max(m, n)
    smax = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), s.dtype)
    keep = s > rcond * smax
    sinv = np.where(keep, 1.0 / np.where(keep, s, 1), 0).astype(s.dtype)
    x = np.matmul(_h(vh) * sinv[..., None, :], np.matmul(_h(u), bm))
    rank = keep.sum(-1).astype(np.int64)
    res_x = wrap(np.asarray(x[..., 0] if vector else x, a.dtype))
    if m > n and driver != "gelsy" and bool((rank == n).all()):
        r = np.matmul(a, x) - bm
        resid = (np.abs(r) ** 2).sum(-2)
        if vector:
            resid = resid[..., 0]
        residuals = wrap(np.asarray(resid, a.real.dtype))
    else:
        residuals = wrap(np.empty((0,), a.real.dtype))
    rank_t = wrap(rank) if driver != "gels" else wrap(np.empty((0,), np.int64))
    sv = wrap(np.asarray(s, a.real.dtype)) if driver in ("gelsd", "gelss") else \
        wrap(np.empty((0,), a.real.dtype))
    if _grad_needed(A, B):
        node = LinalgLstsqBackward0()
        node._saved_self, node._saved_b = A, B
        node._saved_solution = res_x.detach()
        node._vector = vector
        link_multi([res_x, residuals], node, A, B)
    return _lstsq_t((res_x, residuals, rank_t, sv))




# ---------------------------------------------------------------- LU

_lu_factor_t = _rt("linalg_lu_factor", ("LU", "pivots"))
_lu_factor_ex_t = _rt("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_lu_t = _rt("linalg_lu", ("P", "L", "U"))
_lu_unpack_t = _rt("lu_unpack", ("P", "L", "U"))


def _lu_np(a):
    """LU with partial pivoting (LAPACK getrf's choices): packed LU, 1-based int32 pivots and
    info (1-based index of the first zero pivot, 0 if none)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    lu = np.array(a, copy=True).reshape((-1, m, n))
    nb = lu.shape[0]
    piv = np.zeros((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1) if m > j else np.full(nb, j)
        piv[:, j] = p + 1
        swap = p != j
        if swap.any():
            r = rows[swap]
            tmp = lu[r, j, :].copy()
            lu[r, j, :] = lu[r, p[swap], :]
            lu[r, p[swap], :] = tmp
        d = lu[:, j, j]
        zero = d == 0
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1, d)
        col = np.where(zero[:, None], lu[:, j + 1:, j], lu[:, j + 1:, j] / safe[:, None])
        lu[:, j + 1:, j] = col
        lu[:, j + 1:, j + 1:] -= col[:, :, None] * lu[:, j, None, j + 1:]
    return lu.reshape(a.shape), piv.reshape(batch + (k,)), info.reshape(batch)


def _perm_from_pivots(piv, m):
    """P (as an index array) such that A = P L U: A[perm] = L U."""
    flat = piv.reshape((-1, piv.shape[-1])) - 1
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        p = flat[:, j]
        tmp = perm[rows, j].copy()
        perm[rows, j] = perm[rows, p]
        perm[rows, p] = tmp
    return perm.reshape(piv.shape[:-1] + (m,))


def _perm_matrix(piv, m, dtype):
    perm = _perm_from_pivots(piv, m)
    P = np.zeros(perm.shape + (m,), dtype)
    np.put_along_axis(P, perm[..., :, None], 1, axis=-1)   # P[perm[i], i] = 1 -> transpose
    return np.swapaxes(P, -1, -2)


def _unpack_np(lu, piv):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1)
    idx = np.arange(k)
    L[..., idx, idx] = 1
    U = np.triu(lu[..., :k, :])
    return _perm_matrix(piv, m, lu.dtype), L, U


def _unpack(LU, piv):
    """P (constant), L, U from a packed LU, with ember ops (differentiable in LU)."""
    lu = LU._data
    m, n = lu.shape[-2:]
    k = min(m, n)
    dt = lu.dtype
    P = wrap(_perm_matrix(piv._data, m, dt))
    L = LU.narrow(-1, 0, k) * wrap(np.tri(m, k, -1, dtype=dt)) + wrap(np.eye(m, k, dtype=dt))
    U = LU.narrow(-2, 0, k) * wrap(np.triu(np.ones((k, n), dt)))
    return P, L, U


def _lu_backward(gL, gU, P, L, U):
    """gA for A = P L U (L unit lower m x k, U upper k x n), gL / gU may be None."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:
        phi = None
        if gL is not None:
            phi = matmul(_mH(L), gL) * _tri_mask(L, False, True)
        if gU is not None:
            t = matmul(gU, _mH(U)) * _tri_mask(U, True, False)
            phi = t if phi is None else phi + t
        X = solve_triangular(_mH(L), phi, upper=True, unitriangular=True)
        return matmul(P, solve_triangular(_mH(U), X, upper=False, left=False))
    if m < n:
        U1, U2 = U.narrow(-1, 0, k), U.narrow(-1, k, n - k)
        gU1 = gU.narrow(-1, 0, k) if gU is not None else None
        gU2 = gU.narrow(-1, k, n - k) if gU is not None else None
        if gU2 is not None:
            t = -matmul(solve_triangular(_mH(L), gU2, upper=True, unitriangular=True),
                        _mH(U2))
            gL = t if gL is None else gL + t
        g1 = _lu_backward(gL, gU1, P, L, U1)
        g2 = matmul(P, solve_triangular(_mH(L), gU2, upper=True, unitriangular=True)) \
            if gU2 is not None else g1.narrow(-1, 0, 1).expand(*g1.shape[:-1], n - k) * 0
        from .join import cat
        return cat([g1, g2], -1)
    L1, L2 = L.narrow(-2, 0, k), L.narrow(-2, k, m - k)
    gL1 = gL.narrow(-2, 0, k) if gL is not None else None
    gL2 = gL.narrow(-2, k, m - k) if gL is not None else None
    eye = wrap(np.eye(k, dtype=L._data.dtype))
    if gL2 is not None:
        t = -matmul(_mH(L2), solve_triangular(_mH(U), gL2, upper=False, left=False))
        gU = t if gU is None else gU + t
    g1 = _lu_backward(gL1, gU, eye, L1, U)
    g2 = solve_triangular(_mH(U), gL2, upper=False, left=False) if gL2 is not None else \
        g1.narrow(-2, 0, 1).expand(*g1.shape[:-2], m - k, g1.shape[-1]) * 0
    from .join import cat
    return matmul(P, cat([g1, g2], -2))


def _split_packed(gLU, m, n):
    k = min(m, n)
    gL = gLU.narrow(-1, 0, k) * wrap(np.tri(m, k, -1, dtype=gLU._data.dtype))
    gU = gLU.narrow(-2, 0, k) * wrap(np.triu(np.ones((k, n), gLU._data.dtype)))
    return gL, gU


class LinalgLuFactorExBackward0(Node):       # derivatives.yaml: linalg_lu_factor_ex
    __slots__ = ("_saved_LU", "_saved_pivots", "_saved_pivot")
    _saved_names = ("_saved_LU", "_saved_pivots")

    def apply(self, grad):
        LU = _out(self, self._saved_LU, 0)
        m, n = LU.shape[-2:]
        P, L, U = _unpack(LU, self._saved_pivots)
        gL, gU = _split_packed(grad, m, n)
        return _lu_backward(gL, gU, P, L, U),


def _check_lu_input(A, fn, pivot):
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(a.shape)} instead")
    if a.dtype.kind not in "fc" or a.dtype == np.float16:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{type_name(a.dtype)}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the "
                           "CPU")


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    _check_lu_input(A, "torch.lu_factor", pivot)
    a = A._data
    lu, piv, info = _lu_np(a)
    if check_errors and info.any():
        b = int(np.argmax(info.reshape(-1) > 0))
        i = int(info.reshape(-1)[b])
        raise RuntimeError(f"torch.linalg.lu_factor_ex: {_batch_prefix(a, b)}U[{i},{i}] is zero "
                           f"and using it on lu_solve would result in a division by zero. If "
                           f"you still want to perform the factorization, consider calling "
                           f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    LU = wrap(lu)
    if STATE.enabled and A._requires_grad:
        node = LinalgLuFactorExBackward0()
        node._saved_LU, node._saved_pivots, node._saved_pivot = LU.detach(), wrap(piv), pivot
        link(LU, node, A)
    return _outs(_lu_factor_ex_t((LU, wrap(piv), wrap(info))), out)


def lu_factor(A, *, pivot=True, out=None):
    _check_lu_input(A, "torch.lu_factor", pivot)
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    inf = info._data.reshape(-1)
    if inf.any():
        b = int(np.argmax(inf > 0))
        i = int(inf[b])
        raise RuntimeError(f"torch.linalg.lu_factor: {_batch_prefix(A._data, b)}U[{i},{i}] is "
                           f"zero and using it on lu_solve would result in a division by zero. "
                           f"If you still want to perform the factorization, consider calling "
                           f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return _outs(_lu_factor_t((LU, piv)), out)


class LinalgLuBackward0(Node):               # derivatives.yaml: linalg_lu
    __slots__ = ("_saved_P", "_saved_L", "_saved_U")
    _saved_names = ("_saved_P", "_saved_L", "_saved_U")
    _n_outputs = 3

    def apply(self, grads):
        _, gL, gU = grads
        if gL is not None:
            gL = gL * _tri_mask(gL, False, True)
        if gU is not None:
            gU = gU * _tri_mask(gU, True, False)
        return _lu_backward(gL, gU, self._saved_P, _out(self, self._saved_L, 1),
                            _out(self, self._saved_U, 2)),


def linalg_lu(A, *, pivot=True, out=None):
    _check_lu_input(A, "linalg.lu", pivot)
    a = A._data
    lu_, piv, _ = _lu_np(a)
    P, L, U = (wrap(x) for x in _unpack_np(lu_, piv))
    if STATE.enabled and A._requires_grad:
        node = LinalgLuBackward0()
        node._saved_P, node._saved_L, node._saved_U = P, L.detach(), U.detach()
        link_multi([P, L, U], node, A)
        P._grad_fn = None
        P._requires_grad = False
    return _outs(_lu_t((P, L, U)), out)


class LuUnpackBackward0(Node):               # derivatives.yaml: lu_unpack
    __slots__ = ("_m", "_n")
    _n_outputs = 3

    def apply(self, grads):
        _, gL, gU = grads
        m, n = self._m, self._n
        k = min(m, n)
        dt = (gL if gL is not None else gU)._data.dtype
        from .join import cat
        parts = None
        if gL is not None:
            gLm = gL * wrap(np.tri(m, k, -1, dtype=dt))
            parts = gLm if k == n else cat([gLm, wrap(np.zeros(gL.shape[:-1] + (n - k,),
                                                               dt))], -1)
        if gU is not None:
            gUm = gU * wrap(np.triu(np.ones((k, n), dt)))
            full = gUm if k == m else cat([gUm, wrap(np.zeros(gU.shape[:-2] + (m - k, n),
                                                              dt))], -2)
            parts = full if parts is None else parts + full
        return parts, None


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    lu_ = LU_data._data
    m, n = lu_.shape[-2:]
    P, L, U = (wrap(x) for x in _unpack_np(lu_, LU_pivots._data))
    if STATE.enabled and LU_data._requires_grad:
        node = LuUnpackBackward0()
        node._m, node._n = m, n
        link_multi([P, L, U], node, LU_data, LU_pivots)
        P._grad_fn = None
        P._requires_grad = False
    return _outs(_lu_unpack_t((P, L, U)), out)


class LinalgLuSolveBackward0(Node):          # derivatives.yaml: linalg_lu_solve
    __slots__ = ("_saved_LU", "_saved_pivots", "_saved_result", "_saved_left",
                 "_saved_adjoint")
    _saved_names = ("_saved_LU", "_saved_pivots", "_saved_result")

    def apply(self, grad):
        from ._common import saved_output
        LUt, piv = self._saved_LU, self._saved_pivots
        X = saved_output(self, self._saved_result)
        left, adj = self._saved_left, self._saved_adjoint
        gB = linalg_lu_solve(LUt, piv, grad, left=left, adjoint=not adj)
        gLU = None
        if needs(self, 0):
            # the gradient A = P L U would get, pushed through the factors
            if left:
                gA = -matmul(gB, _mH(X))
            else:
                gA = -matmul(_mH(X), gB)
            if adj:
                gA = _mH(gA)
            P, L, U = _unpack(LUt, piv)
            PtgA = matmul(_mT(P), gA)
            gL = matmul(PtgA, _mH(U)) * _tri_mask(L, False, True)
            gU = matmul(_mH(L), PtgA) * _tri_mask(U, True, False)
            gLU = gL + gU
        return gLU, None, (gB if needs(self, 2) else None)


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    lu_, piv, b = LU._data, pivots._data, B._data
    fn = "linalg.lu_solve"
    if b.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    if lu_.shape[-1] != lu_.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{lu_.shape[-2]} by {lu_.shape[-1]} matrices")
    n = lu_.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {b.shape[-2]}x"
                           f"{b.shape[-1]})")
    if lu_.dtype != b.dtype:
        raise RuntimeError(f"{fn}: Expected LU and B to have the same dtype, but found LU of "
                           f"type {type_name(lu_.dtype)} and B of type {type_name(b.dtype)} "
                           f"instead")
    P, L, U = _unpack_np(lu_, piv)
    A = P @ L @ U
    Aop = _h(A) if adjoint else A
    if left:
        x = np.linalg.solve(Aop, b)
    else:
        x = np.linalg.solve(_h(Aop), _h(b))
        x = _h(x)
    res = wrap(np.asarray(x, b.dtype))
    if _grad_needed(LU, B):
        node = LinalgLuSolveBackward0()
        node._saved_LU, node._saved_pivots = LU, pivots
        node._saved_result = res.detach()
        node._saved_left, node._saved_adjoint = left, adjoint
        link(res, node, LU, None, B)
    return write_out(res, out)




# ---------------------------------------------------------------- eig / eigvals

_eig_t = _rt("linalg_eig", ("eigenvalues", "eigenvectors"))


class LinalgEigBackward0(Node):              # derivatives.yaml: linalg_eig
    __slots__ = ("_saved_eigenvalues", "_saved_eigenvectors", "_real_input")
    _saved_names = ("_saved_eigenvalues", "_saved_eigenvectors")
    _n_outputs = 2

    def apply(self, grads):
        gL, gV = grads
        L = _out(self, self._saved_eigenvalues, 0)
        V = _out(self, self._saved_eigenvectors, 1)
        Vh = _mH(V)
        if gV is None:
            inner = _diag_embed(gL)
        else:
            # gA = V^-H (diag(gL) + (V^H gV - V^H V Re diag(V^H gV)) / conj(E)) V^H
            VhgV = matmul(Vh, gV)
            re = _diag(VhgV).real
            VhgV = VhgV - matmul(Vh, V) * re.unsqueeze(-2)
            E = L.unsqueeze(-2) - L.unsqueeze(-1)
            eye = _eye_like(E)
            inner = VhgV / (E + eye).conj() * (1 - eye)
            if gL is not None:
                inner = inner + _diag_embed(gL)
        gA = solve(Vh, matmul(inner, Vh))
        return (gA.real if self._real_input else gA),


def _eig(A, fn, vectors=True):
    _check_square(A, fn)
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(f"Unknown Complex ScalarType for {type_name(A._data.dtype)}")
    _check_float(A, fn)
    a = A._data
    cdt = np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128
    w, v = np.linalg.eig(a)
    L, V = wrap(np.asarray(w, cdt)), wrap(np.asarray(v, cdt))
    if STATE.enabled and A._requires_grad:
        node = LinalgEigBackward0()
        node._saved_eigenvalues, node._saved_eigenvectors = L.detach(), V.detach()
        node._real_input = a.dtype.kind == "f"
        if vectors:
            link_multi([L, V], node, A)
        else:
            link_multi([L], node, A)
            node._meta.append((V._data.shape, V._data.dtype))
    return L, V


def eig(A, *, out=None):
    return _outs(_eig_t(_eig(A, "linalg.eig")), out)


def eigvals(A, *, out=None):
    return write_out(_eig(A, "linalg.eigvals", vectors=False)[0], out)


def cond(A, p=None, *, out=None):
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p in (None, 2, -2, "nuc"):
        s = svdvals(A)
        k = s.shape[-1]
        if p == "nuc":
            return write_out(s.sum(-1) * (1 / s).sum(-1), out)
        hi, lo = s.narrow(-1, 0, 1), s.narrow(-1, k - 1, 1)
        return write_out((lo / hi if p == -2 else hi / lo).squeeze(-1), out)
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but "
                           f"they are {a.shape[-2]} by {a.shape[-1]} matrices")
    inv_ = inv_ex(A).inverse
    r = matrix_norm(A, p) * matrix_norm(inv_, p)
    return write_out(r.nan_to_num(math.inf, math.inf), out)


# ---------------------------------------------------------------- compositions

def tensorinv(A, ind=2, *, out=None):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = A._data.shape
    lo, hi = int(np.prod(shape[:ind])), int(np.prod(shape[ind:]))
    if lo != hi:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {hi} != {lo}")
    r = _inv(A.reshape(lo, hi), "linalg.inv")
    return write_out(r.reshape(shape[ind:] + shape[:ind]), out)


def tensorsolve(A, B, dims=None, *, out=None):
    if dims is not None:
        nd = A._data.ndim
        dd = [wrap_dim(d, nd) for d in dims]
        A = A.permute([i for i in range(nd) if i not in dd] + dd)
    shape = A._data.shape
    nb = B._data.ndim
    lo, hi = int(np.prod(shape[:nb])), int(np.prod(shape[nb:]))
    nb_el = B._data.size
    if hi != nb_el:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]"
                           f") == prod(self.shape[:other.ndim]), but got {hi} != {nb_el}")
    x = solve(A.reshape(lo, hi), B.reshape(lo))
    return write_out(x.view(shape[nb:]), out)


def vander(x, *, N=None):
    if x._data.ndim < 1:
        raise RuntimeError("N must be greater than 1.") if N is not None and N <= 1 else \
            RuntimeError("linalg.vander: x must have at least 1 dimension.")
    n = x._data.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    from .join import cat
    dt = x._data.dtype
    ones = wrap(np.ones(x._data.shape + (1,), dt))
    powers = x.unsqueeze(-1).expand(*x._data.shape, n - 1).cumprod(-1)
    return cat([ones, powers], -1)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


# ---------------------------------------------------------------- deprecated torch-level forms

_lu_with_info_t = _rt("_lu_with_info", ("LU", "pivots", "infos"))
_triangular_solve_t = _rt("triangular_solve", ("solution", "cloned_coefficient"))


def _warn(msg):
    import warnings
    warnings.warn(msg, UserWarning, stacklevel=3)


def _lu_legacy(A, pivot=True, get_infos=False, out=None):
    _warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex"
          " and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
          "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
          "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
          "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
          "compute_pivots)")
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    return _lu_with_info_t((LU, piv, info)) if get_infos else (LU, piv)


def _lu_solve_legacy(b, LU_data, LU_pivots, *, out=None):
    _warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
          "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
          "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
          "torch.linalg.lu_solve(LU, pivots, B)")
    return linalg_lu_solve(LU_data, LU_pivots, b, out=out)


class TriangularSolveBackward0(Node):        # derivatives.yaml: triangular_solve
    __slots__ = ("_saved_A", "_saved_solution", "_saved_upper", "_saved_transpose",
                 "_saved_unitriangular")
    _saved_names = ("_saved_A", "_saved_solution")
    _n_outputs = 2

    def apply(self, grads):
        g, g_coef = grads
        A = self._saved_A
        up, tr, unit = self._saved_upper, self._saved_transpose, self._saved_unitriangular
        gB = gA = None
        if g is not None:
            X = _out(self, self._saved_solution, 0)
            opA = _mT(A) if tr else A
            op_up = up != tr
            gB = solve_triangular(_mH(opA), g, upper=not op_up, unitriangular=unit)
            if needs(self, 1):
                gopA = -matmul(gB, _mH(X))
                gopA = gopA * _tri_mask(gopA, op_up, unit)
                gA = _mT(gopA) if tr else gopA
        if g_coef is not None and needs(self, 1):
            gA = g_coef if gA is None else gA + g_coef
        return (gB if needs(self, 0) else None), gA


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    _warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand "
          "will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
          "arguments reversed and does not return a copy of one of the inputs.\nX = "
          "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
          "torch.linalg.solve_triangular(A, B).")
    a, b = A._data, input._data
    if b.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {b.ndim} dimensions instead")
    if a.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, "
                           f"but it has {a.ndim} dimensions instead")
    t = _tri_np(a, upper, unitriangular)
    if transpose:
        t = t.swapaxes(-1, -2)
    x = np.linalg.solve(t, b)
    X = wrap(np.asarray(x, b.dtype))
    C = wrap(a.copy())
    if _grad_needed(input, A):
        node = TriangularSolveBackward0()
        node._saved_A = A
        node._saved_solution = X.detach()
        node._saved_upper, node._saved_transpose = upper, transpose
        node._saved_unitriangular = unitriangular
        link_multi([X, C], node, input, A)
    return _outs(_triangular_solve_t((X, C)), out)


def _eig_removed(self, eigenvectors=False):
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` "
        "returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
        "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
        "L_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) "
        "should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)")


# ---------------------------------------------------------------- torch-level legacy forms

svd = _svd_legacy
qr = _qr_legacy
lu = _lu_legacy
lu_solve = _lu_solve_legacy


# ---------------------------------------------------------------- Tensor methods

def _bind():
    T = Tensor
    T.matmul = matmul
    T.__matmul__ = _matmul_op
    T.__rmatmul__ = _rmatmul
    # no __imatmul__: as in torch, `x @= y` rebinds x to x @ y (not in place)
    T.mm, T.bmm, T.mv, T.dot, T.vdot, T.inner, T.outer, T.ger = \
        mm, bmm, mv, dot, vdot, inner, outer, ger
    T.addmm, T.addmv, T.baddbmm, T.addbmm, T.addr = addmm, addmv, baddbmm, addbmm, addr
    T.addmm_, T.addmv_, T.baddbmm_, T.addbmm_, T.addr_ = \
        addmm_, addmv_, baddbmm_, addbmm_, addr_
    T.kron, T.cross = kron, cross
    T.det, T.logdet, T.slogdet = det, logdet, slogdet
    T.inverse, T.pinverse, T.matrix_power, T.matrix_exp = inverse, pinverse, matrix_power, \
        matrix_exp
    T.svd, T.qr, T.cholesky = _svd_legacy, _qr_legacy, cholesky
    T.cholesky_solve, T.cholesky_inverse = cholesky_solve, cholesky_inverse
    T.lu, T.lu_solve, T.triangular_solve = _lu_legacy, _lu_solve_legacy, triangular_solve
    T.eig = _eig_removed


_bind()
