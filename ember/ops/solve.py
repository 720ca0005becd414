"""Inverses and solves behind ember.linalg: inv, det, slogdet, solve, lstsq, pinv, triangular
and Cholesky solves, matrix_exp, matrix_power, matrix norms and the compositions built on them."""
__all__ = ["inverse", "cholesky_solve", "cholesky_inverse", "triangular_solve"]


import numpy as np

from .. import return_types as _RT
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, link_multi
from ..dtypes import type_name
from ..tensor import wrap
from ._args import broadcast_error, needs, write_out, saved_output, requires
from ._args import not_tensor, check_args
from ._linalg import (_LinAlgError, _check_float, _check_half, _check_square, _h,
                      _lu_zero_pivot, _outs, _singular_error, _warn)
from .matmul import matmul
from .shape import _mH, _mT


class LinalgInvExBackward0(Node):            # derivatives.yaml: linalg_inv_ex
    __slots__ = ("_saved_inverse",)
    _saved_names = ("_saved_inverse",)

    def apply(self, grad):
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
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
        node = LinalgInvExBackward0()
        node._saved_inverse = res.detach()
        link(res, node, A)
    return res


def inv(A, *, out=None):
    return write_out(_inv(A), out, "linalg_inv_ex")


def inverse(input, *, out=None):
    return write_out(_inv(input), out, "linalg_inv_ex")


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
        if STATE.enabled and A._requires_grad or LEVELS and dual(A):
            node = LinalgInvExBackward0()
            node._saved_inverse = res.detach()
            link(res, node, A)
    return _outs(_RT.linalg_inv_ex((res, wrap(info))), out, "linalg_inv_ex")


class LinalgSolveExBackward0(Node):          # derivatives.yaml: _linalg_solve_ex
    __slots__ = ("_saved_A", "_saved_result", "_vector", "_saved_left")
    _saved_names = ("_saved_A", "_saved_result")

    def apply(self, grad):
        A = self._saved_A
        X = saved_output(self, self._saved_result)
        if not self._saved_left:
            # X A = B:  gB = g A^-H,  gA = -X^H gB
            gB = solve(_mH(A), grad, left=False)
            gA = -matmul(_mH(X), gB) if needs(self, 0) else None
            return gA, (gB if needs(self, 1) else None)
        # linalg_solve_backward: a vector B goes through as a one-column matrix
        vector = self._vector
        gB = solve(_mH(A), grad.unsqueeze(-1) if vector else grad)
        gA = None
        if needs(self, 0):
            gA = -matmul(gB, _mH(X.unsqueeze(-1) if vector else X))
        return gA, ((gB.squeeze(-1) if vector else gB) if needs(self, 1) else None)


def solve(A, B, *, left=True, out=None):
    _check_square(A, "linalg.solve")
    _check_float(A, "linalg.solve")
    try:
        a, b = A._data, B._data
    except AttributeError as e:
        raise not_tensor(e) from None
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
    if requires(A, B):
        node = LinalgSolveExBackward0()
        node._saved_A = A
        node._saved_result = res.detach()
        node._vector = vector
        node._saved_left = left
        link(res, node, A, B)
    return write_out(res, out, "_linalg_solve_ex")


# ---------------------------------------------------------------- matrix_exp / addr / qr


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
    if requires(A, B):
        node = LinalgSolveTriangularBackward0()
        node._saved_self = A
        node._saved_result = res.detach()
        node._saved_upper, node._saved_left = upper, left
        node._saved_unitriangular = unitriangular
        link(res, node, A, B)
    return write_out(res, out)


class CholeskySolveBackward0(Node):          # derivatives.yaml: cholesky_solve
    # (_saved_self: torch saves b too, so an in-place write to it fails backward; the formula
    # reads the result instead)
    __slots__ = ("_saved_self", "_saved_input2", "_saved_result", "_saved_upper")
    _saved_names = ("_saved_self", "_saved_input2", "_saved_result")

    def apply(self, grad):
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
    try:
        b, l = input._data, input2._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                           f"instead")
    if l.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {l.ndim} dimensions "
                           f"instead")
    if b.dtype != l.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{type_name(b.dtype)} and A of type {type_name(l.dtype)} instead.")
    _check_half(input, "cholesky_solve")
    t = np.triu(l) if upper else np.tril(l)
    A = _h(t) @ t if upper else t @ _h(t)
    x = np.linalg.solve(A, np.broadcast_to(b, np.broadcast_shapes(b.shape[:-2], A.shape[:-2])
                                           + b.shape[-2:]))
    res = wrap(np.asarray(x, b.dtype))
    if requires(input, input2):
        node = CholeskySolveBackward0()
        node._saved_self, node._saved_input2 = input, input2
        node._saved_result = res.detach()
        node._saved_upper = upper
        link(res, node, input, input2)
    return write_out(res, out)


class CholeskyInverseBackward0(Node):        # derivatives.yaml: cholesky_inverse
    __slots__ = ("_saved_self", "_saved_result", "_saved_upper")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
        L = self._saved_self
        inv_ = saved_output(self, self._saved_result)
        common = grad + _mH(grad)
        common = matmul(inv_, matmul(common, inv_))
        return (-matmul(L, common) if self._saved_upper else -matmul(common, L)),


def cholesky_inverse(input, upper=False, *, out=None):
    check_args("cholesky_inverse", ("upper", 2, "bool", upper))
    try:
        l = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if l.ndim < 2 or l.shape[-1] != l.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{l.shape[-2] if l.ndim > 1 else 1} by {l.shape[-1]} matrices"
                           if l.ndim >= 2 else
                           "The input tensor A must have at least 2 dimensions.")
    _check_half(input, "cholesky_inverse")
    t = np.triu(l) if upper else np.tril(l)
    A = _h(t) @ t if upper else t @ _h(t)
    res = wrap(np.asarray(np.linalg.inv(A), l.dtype))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        node = CholeskyInverseBackward0()
        node._saved_self = input
        node._saved_result = res.detach()
        node._saved_upper = upper
        link(res, node, input)
    return write_out(res, out)

# ---------------------------------------------------------------- lstsq


# ---------------------------------------------------------------- compositions


# ---------------------------------------------------------------- deprecated torch-level forms
_triangular_solve_t = _RT.triangular_solve


class TriangularSolveBackward0(Node):        # derivatives.yaml: triangular_solve
    # (_saved_self: torch saves b too, so an in-place write to it fails backward; the formula
    # reads the solution instead)
    __slots__ = ("_saved_self", "_saved_A", "_saved_solution", "_saved_upper",
                 "_saved_transpose", "_saved_unitriangular")
    _saved_names = ("_saved_self", "_saved_A", "_saved_solution")
    _n_outputs = 2

    def apply(self, grads):
        # triangular_solve_backward: grad_b = grad_x.triangular_solve(A.conj(), upper,
        # !transpose, unitriangular); grad_a = -grad_b X^H (transpose: -X.conj() grad_b^T),
        # triu(unit) / tril(-unit) of it
        g, g_coef = grads
        A = self._saved_A
        up, tr, unit = self._saved_upper, self._saved_transpose, self._saved_unitriangular
        gB = gA = None
        if g is not None:
            X = saved_output(self, self._saved_solution, 0)
            gB = _triangular_solve(g, A.conj(), up, not tr, unit)[0]
            if needs(self, 1):
                gA = -matmul(X.conj(), _mT(gB)) if tr else -matmul(gB, _mH(X))
                gA = gA.triu(int(unit)) if up else gA.tril(-int(unit))
        if g_coef is not None and needs(self, 1):
            gA = g_coef if gA is None else gA + g_coef
        return (gB if needs(self, 0) else None), gA


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    _warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand "
          "will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its "
          "arguments reversed and does not return a copy of one of the inputs.\nX = "
          "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
          "torch.linalg.solve_triangular(A, B).")
    return _triangular_solve(input, A, upper, transpose, unitriangular, out)


def _triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, out=None):
    try:
        a, b = A._data, input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    _check_half(A, "triangular_solve")
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
    if requires(input, A):
        node = TriangularSolveBackward0()
        node._saved_self, node._saved_A = input, A
        node._saved_solution = X.detach()
        node._saved_upper, node._saved_transpose = upper, transpose
        node._saved_unitriangular = unitriangular
        link_multi([X, C], node, input, A)
    return _outs(_triangular_solve_t((X, C)), out)


# ---------------------------------------------------------------- torch-level legacy forms
