"""Decompositions behind ember.linalg: cholesky, qr, eigh, eig, svd, lu (forward, node,
derivative)."""
__all__ = ["cholesky", "lu_unpack"]

import warnings

import numpy as np

from .. import return_types as _RT
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, link_multi
from ..dtypes import type_name
from ..tensor import wrap
from ._args import needs, write_out, saved_output, requires
from ._args import not_tensor, check_args, out_tuple
from ._linalg import (_LinAlgError, _batch_prefix, _check_float, _check_half, _check_square,
                      _diag, _diag_embed, _eye_like, _h, _outs, _tril_mask, _warn)
from .join import cat
from .matmul import matmul
from .shape import _mH, _mT
from .solve import LinalgSolveExBackward0, _inv, _tri_mask, solve, solve_triangular


# ---------------------------------------------------------------- decompositions
_slogdet_t = _RT.linalg_slogdet
_qr_t = _RT.linalg_qr
_eigh_t = _RT.linalg_eigh
_svd_t = _RT.linalg_svd
_svd_old_t = _RT.svd
_slogdet_old_t = _RT.slogdet
_chol_ex_t = _RT.linalg_cholesky_ex


class LinalgCholeskyExBackward0(Node):       # derivatives.yaml: linalg_cholesky_ex
    __slots__ = ("_saved_L", "_saved_upper")
    _saved_names = ("_saved_L",)

    def apply(self, grad):
        return _cholesky_backward(self, self._saved_L, grad),


def _cholesky_backward(node, saved_L, grad):
    """The gradient of A from that of its Cholesky factor (saved_L: node's saved output)."""
    L = saved_output(node, saved_L)
    gL = grad
    if node._saved_upper:
        L, gL = _mH(L), _mH(gL)
    # Murray (2016): gA = L^-H Phi L^-1 with P = tril(L^H gL) and
    # Phi = (P + tril(P, -1)^H) / 2  (the Hermitian matrix with P's halved diagonal)
    P = matmul(_mH(L), gL) * _tril_mask(L)
    P = 0.5 * (P + _mH(P * _tril_mask(P, -1)))
    Li = _inv(L)
    return matmul(_mH(Li), matmul(P, Li))


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
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
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
    return _outs(_chol_ex_t((L, wrap(info))), out, "linalg_cholesky_ex")


def _is_pd(m):
    try:
        np.linalg.cholesky(m)
        return True
    except np.linalg.LinAlgError:
        return False


def linalg_cholesky(A, *, upper=False, out=None):
    return write_out(_cholesky(A, upper, "linalg.cholesky"), out, "linalg_cholesky_ex")


class LinalgQrBackward0(Node):               # derivatives.yaml: linalg_qr
    __slots__ = ("_saved_Q", "_saved_R", "_saved_mode", "_saved_A")
    _saved_names = ("_saved_Q", "_saved_R")
    _n_outputs = 2

    def apply(self, grads):
        gQ, gR = grads
        Q, R = saved_output(self, self._saved_Q, 0), saved_output(self, self._saved_R, 1)
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
    check_args("linalg_qr", ("mode", 2, "str", mode))
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    try:
        if A._data.ndim < 2:
            raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    except AttributeError as e:
        raise not_tensor(e) from None
    _check_float(A, "linalg.qr")
    a = A._data
    if mode == "r":
        R = np.linalg.qr(a, mode="r")
        Q = np.empty((0,), a.dtype)
    else:
        Q, R = np.linalg.qr(a, mode=mode)
    Qt, Rt = wrap(np.asarray(Q, a.dtype)), wrap(np.asarray(R, a.dtype))
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
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
        L = saved_output(self, self._saved_eigenvalues, 0)
        V = saved_output(self, self._saved_eigenvectors, 1)
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
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
        node = LinalgEighBackward0()
        node._saved_eigenvalues, node._saved_eigenvectors = L.detach(), V.detach()
        if vectors:
            link_multi([L, V], node, A)
        else:
            link_multi([L], node, A)
            node._meta.append((v.shape, v.dtype))
    return L, V


def eigh(A, UPLO="L", *, out=None):
    check_args("linalg_eigh", ("UPLO", 2, "str", UPLO))
    return _outs(_eigh_t(_eigh(A, UPLO, "linalg.eigh")), out, "_linalg_eigh")


def eigvalsh(A, UPLO="L", *, out=None):
    check_args("linalg_eigvalsh", ("UPLO", 2, "str", UPLO))
    return write_out(_eigh(A, UPLO, "linalg.eigvalsh", vectors=False)[0], out,
                     "_linalg_eigh")


class LinalgSvdBackward0(Node):              # derivatives.yaml: _linalg_svd
    __slots__ = ("_saved_U", "_saved_S", "_saved_Vh", "_saved_full_matrices",
                 "_saved_S_sym_argsize_minus_1")
    _saved_names = ("_saved_U", "_saved_S", "_saved_Vh")
    _n_outputs = 3

    def apply(self, grads):
        gU, gS, gVh = grads
        U, S, Vh = (saved_output(self, self._saved_U, 0), saved_output(self, self._saved_S, 1),
                    saved_output(self, self._saved_Vh, 2))
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
    try:
        if A._data.ndim < 2:
            raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    except AttributeError as e:
        raise not_tensor(e) from None
    _check_float(A, fn)
    a = A._data
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    U, S, Vh = (wrap(np.asarray(u, a.dtype)), wrap(np.asarray(s, a.real.dtype)),
                wrap(np.asarray(vh, a.dtype)))
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
        node = LinalgSvdBackward0()
        node._saved_U, node._saved_S, node._saved_Vh = U.detach(), S.detach(), Vh.detach()
        node._saved_full_matrices = full_matrices
        node._saved_S_sym_argsize_minus_1 = s.shape[-1]
        if outputs == 3:
            link_multi([U, S, Vh], node, A)
        else:
            link_multi([U, S, Vh], node, A)
            U._grad_fn = Vh._grad_fn = None
            U._requires_grad = Vh._requires_grad = False
    return U, S, Vh


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    check_args("linalg_svd", ("full_matrices", 2, "bool", full_matrices))
    if driver is not None:
        raise RuntimeError(_SVD_DRIVER)
    return _outs(_svd_t(_svd(A, full_matrices, "linalg.svd")), out, "_linalg_svd")


def svdvals(A, *, driver=None, out=None):
    if driver is not None:
        raise RuntimeError(_SVD_DRIVER)
    return write_out(_svd(A, False, "linalg.svd", outputs=1)[1], out, "_linalg_svd")


def _svd_legacy(input, some=True, compute_uv=True, *, out=None):
    check_args("svd", ("some", 2, "bool", some), ("compute_uv", 3, "bool", compute_uv))
    if not compute_uv:
        # U and V are zero-filled (m x m) and (n x n) matrices
        S = _svd(input, False, "linalg.svd", outputs=1)[1]
        a = input._data
        m, n = a.shape[-2:]
        U = wrap(np.zeros(a.shape[:-2] + (m, m), a.dtype))
        V = wrap(np.zeros(a.shape[:-2] + (n, n), a.dtype))
        return _outs(_svd_old_t((U, S, V)), out, "_linalg_svd")
    U, S, Vh = _svd(input, not some, "linalg.svd")
    return _outs(_svd_old_t((U, S, _mH(Vh))), out, "_linalg_svd")


class CholeskyBackward0(Node):               # derivatives.yaml: cholesky
    __slots__ = ("_saved_result", "_saved_upper")
    _saved_names = ("_saved_result",)

    def apply(self, grad):
        return _cholesky_backward(self, self._saved_result, grad),


def cholesky(input, upper=False, *, out=None):
    check_args("cholesky", ("upper", 2, "bool", upper))
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
        node._saved_result, node._saved_upper = old._saved_L, old._saved_upper
        link(res, node, input)
    return write_out(res, out)


# ---------------------------------------------------------------- LU
_lu_factor_t = _RT.linalg_lu_factor
_lu_factor_ex_t = _RT.linalg_lu_factor_ex
_lu_t = _RT.linalg_lu
_lu_unpack_t = _RT.lu_unpack


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
        LU = saved_output(self, self._saved_LU, 0)
        m, n = LU.shape[-2:]
        P, L, U = _unpack(LU, self._saved_pivots)
        gL, gU = _split_packed(grad, m, n)
        return _lu_backward(gL, gU, P, L, U),


def _check_lu_input(A, fn, pivot):
    try:
        a = A._data
    except AttributeError as e:
        raise not_tensor(e) from None
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
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
        node = LinalgLuFactorExBackward0()
        node._saved_LU, node._saved_pivots, node._saved_pivot = LU.detach(), wrap(piv), pivot
        link(LU, node, A)
    return _outs(_lu_factor_ex_t((LU, wrap(piv), wrap(info))), out,
                 "linalg_lu_factor_ex")


def _getrs_np(lu, piv, b):
    """LAPACK getrs on one packed LU (n x n) and b (n x k) as torch's OpenBLAS runs it: row
    swaps, then unit-lower and upper substitutions column by column, each pivot applied as a
    multiplication by its reciprocal and no entry skipped (so a zero pivot gives the
    infinities and NaNs torch's result shows: 0 * inf is NaN)."""
    x = np.array(b, copy=True)
    n = lu.shape[0]
    for i in range(n):
        p = int(piv[i]) - 1
        if p != i:
            x[[i, p]] = x[[p, i]]
    with np.errstate(all="ignore"):
        for c in range(x.shape[1]):
            col = x[:, c]
            for k in range(n):
                col[k + 1:] -= col[k] * lu[k + 1:, k]
            for k in range(n - 1, -1, -1):
                col[k] *= 1 / lu[k, k]
                col[:k] -= col[k] * lu[:k, k]
    return x


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """torch.linalg.solve_ex: (result, info); info is getrf's (1-based index of the first
    zero pivot per matrix). A singular matrix gets LAPACK's result (infinities, NaN)."""
    try:
        res = solve(A, B, left=left)
        info = wrap(np.zeros(A._data.shape[:-2], np.int32))
    except _LinAlgError:
        if check_errors:
            raise _LinAlgError("torch.linalg.solve_ex: The solver failed because the input "
                               "matrix is singular.") from None
        a, b = A._data, B._data
        vector = left and (b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]))
        bm = b[..., None] if vector else b
        if not left:
            a, bm = np.swapaxes(a, -1, -2), np.swapaxes(bm, -1, -2)
        batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        bm = np.broadcast_to(bm, batch + bm.shape[-2:])
        lu, piv, infos = _lu_np(a)
        fl, fp, fb = (lu.reshape((-1,) + lu.shape[-2:]), piv.reshape((-1, piv.shape[-1])),
                      bm.reshape((-1,) + bm.shape[-2:]))
        x = np.stack([_getrs_np(fl[i], fp[i], fb[i]) for i in range(fl.shape[0])])
        x = x.reshape(batch + bm.shape[-2:])
        if not left:
            x = np.swapaxes(x, -1, -2)
        res = wrap(np.asarray(x[..., 0] if vector else x, a.dtype))
        info = wrap(np.asarray(infos, np.int32))
        if requires(A, B):
            node = LinalgSolveExBackward0()
            node._saved_A, node._saved_result = A, res.detach()
            node._vector, node._saved_left = vector, left
            link(res, node, A, B)
    return _outs(_RT.linalg_solve_ex((res, info)), out, "_linalg_solve_ex")


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
    return _outs(_lu_factor_t((LU, piv)), out, "linalg_lu_factor_ex")


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
        return _lu_backward(gL, gU, self._saved_P, saved_output(self, self._saved_L, 1),
                            saved_output(self, self._saved_U, 2)),


def linalg_lu(A, *, pivot=True, out=None):
    _check_lu_input(A, "linalg.lu", pivot)
    a = A._data
    lu_, piv, _ = _lu_np(a)
    P, L, U = (wrap(x) for x in _unpack_np(lu_, piv))
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
        node = LinalgLuBackward0()
        node._saved_P, node._saved_L, node._saved_U = P, L.detach(), U.detach()
        link_multi([P, L, U], node, A)
        P._grad_fn = None
        P._requires_grad = False
    return _outs(_lu_t((P, L, U)), out)


class LuUnpackBackward0(Node):               # derivatives.yaml: lu_unpack
    __slots__ = ("_m", "_n")
    _n_outputs = 3
    _saved_LU_data_sym_argsize_minus_1 = property(lambda self: self._n)
    _saved_LU_data_sym_argsize_minus_2 = property(lambda self: self._m)

    def apply(self, grads):
        _, gL, gU = grads
        m, n = self._m, self._n
        k = min(m, n)
        dt = (gL if gL is not None else gU)._data.dtype
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
    try:
        lu_ = LU_data._data
    except AttributeError as e:
        raise not_tensor(e) from None
    m, n = lu_.shape[-2:]
    try:
        P, L, U = (wrap(x) for x in _unpack_np(lu_, LU_pivots._data))
    except AttributeError as e:
        raise not_tensor(e) from None
    if STATE.enabled and LU_data._requires_grad or LEVELS and dual(LU_data):
        node = LuUnpackBackward0()
        node._m, node._n = m, n
        link_multi([P, L, U], node, LU_data, LU_pivots)
        P._grad_fn = None
        P._requires_grad = False
    return _outs(_lu_unpack_t((P, L, U)), out)


# ---------------------------------------------------------------- eig / eigvals
_eig_t = _RT.linalg_eig


class LinalgEigBackward0(Node):              # derivatives.yaml: linalg_eig
    __slots__ = ("_saved_eigenvalues", "_saved_eigenvectors", "_real_input")
    _saved_names = ("_saved_eigenvalues", "_saved_eigenvectors")
    _n_outputs = 2

    def apply(self, grads):
        gL, gV = grads
        L = saved_output(self, self._saved_eigenvalues, 0)
        V = saved_output(self, self._saved_eigenvectors, 1)
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
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
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
    return _outs(_eig_t(_eig(A, "linalg.eig")), out, "linalg_eig")


def eigvals(A, *, out=None):
    return write_out(_eig(A, "linalg.eigvals", vectors=False)[0], out)


def _qr_legacy(input, some=True, *, out=None):
    check_args("qr", ("some", 2, "bool", some))
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a "
                  "future PyTorch release.\nThe boolean parameter 'some' has been replaced with "
                  "a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced "
                  "with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
                  UserWarning, stacklevel=2)
    Q, R = linalg_qr(input, "reduced" if some else "complete")
    return _outs(_qr_old_t((Q, R)), out, "linalg_qr")


_qr_old_t = _RT.qr


class LinalgLuSolveBackward0(Node):          # derivatives.yaml: linalg_lu_solve
    __slots__ = ("_saved_LU", "_saved_pivots", "_saved_result", "_saved_left",
                 "_saved_adjoint")
    _saved_names = ("_saved_LU", "_saved_pivots", "_saved_result")

    def apply(self, grad):
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
    try:
        lu_, piv, b = LU._data, pivots._data, B._data
    except AttributeError as e:
        raise not_tensor(e) from None
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
    if requires(LU, B):
        node = LinalgLuSolveBackward0()
        node._saved_LU, node._saved_pivots = LU, pivots
        node._saved_result = res.detach()
        node._saved_left, node._saved_adjoint = left, adjoint
        link(res, node, LU, None, B)
    return write_out(res, out)


_lu_with_info_t = _RT._lu_with_info


def _lu_legacy(A, pivot=True, get_infos=False, out=None):
    n_out = 3 if get_infos else 2
    if out is not None and (not isinstance(out, (tuple, list, str)) or len(out) != n_out):
        raise TypeError(f"expected tuple of {n_out} elements but got "
                        f"{len(out) if hasattr(out, '__len__') else type(out).__name__}")
    check_args("_lu_with_info", ("pivot", None, "bool", pivot))
    _warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex"
          " and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
          "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
          "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
          "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
          "compute_pivots)")
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    return _lu_with_info_t((LU, piv, info)) if get_infos else (LU, piv)


# ================================================================ surface ops (issue 14): LAPACK's
# Householder form of QR: geqrf (its factors), householder_product / orgqr (Q from them),
# ormqr (Q times a matrix). Q is built by applying the reflectors one by one with ember ops (a
# loop over the k reflectors, each a rank-1 update of the whole batch), so its gradient flows
# through the composition (torch names it LinalgHouseholderProductBackward0/OrmqrBackward0).
__all__ += ["geqrf", "orgqr", "ormqr"]


class GeqrfBackward0(Node):                  # derivatives.yaml: geqrf (not differentiable)
    __slots__ = ()
    _n_outputs = 2

    def apply(self, grad):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input, *, out=None):
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    _check_float(input, "geqrf", "input")
    if x.ndim < 2:
        raise RuntimeError("torch.geqrf: The input tensor A must have at least 2 dimensions.")
    h, tau = np.linalg.qr(x, mode="raw")
    a, t = wrap(np.ascontiguousarray(np.swapaxes(h, -1, -2)).astype(x.dtype)), \
        wrap(tau.astype(x.dtype))
    if STATE.enabled and input._requires_grad or LEVELS and dual(input):
        link_multi((a, t), GeqrfBackward0(), input)
    if out is not None:
        out_tuple(out, 2)
        write_out(a, out[0])
        write_out(t, out[1])
        return _RT.geqrf_out(out)
    return _RT.geqrf((a, t))


def _reflect(x, a, tau, i, left):
    """x with the i-th reflector H_i = I - tau_i v v^H applied: from the left (H x) or the
    right (x H); v = [0 .. 0, 1, a[i+1:, i]]."""
    m = a.shape[-2]
    col = a[..., i + 1:, i]
    parts = [a.new_ones(a.shape[:-2] + (1,))]
    if i:
        parts.insert(0, a.new_zeros(a.shape[:-2] + (i,)))
    if m - i - 1:
        parts.append(col)
    v = cat(parts, -1) if len(parts) > 1 else parts[0]
    t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
    if left:
        # H x = x - tau v (v^H x)
        return x - t * v.unsqueeze(-1) * (v.conj().unsqueeze(-2) @ x)
    return x - t * (x @ v.unsqueeze(-1)) * v.conj().unsqueeze(-2)


def householder_product(A, tau, *, out=None):
    try:
        A._data, tau._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 "
                           "dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater "
                           "than or equal to input.shape[-1]")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(f"torch.linalg.householder_product: Expected tau to have one "
                           f"dimension less than input, but got tau.ndim equal to {tau.ndim} "
                           f"and input.ndim is equal to {A.ndim}")
    _check_half(A, "householder_product")
    if tau.shape[-1] > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater "
                           "than or equal to tau.shape[-1]")
    eye = np.zeros(A.shape[:-2] + (m, n), A._data.dtype)
    idx = np.arange(n)
    eye[..., idx, idx] = 1
    q = wrap(eye)
    for i in reversed(range(tau.shape[-1])):
        q = _reflect(q, A, tau, i, True)
    return write_out(q, out)


def orgqr(input, input2, *, out=None):
    """torch.orgqr: householder_product under its old name and argument names."""
    return householder_product(input, input2, out=out)


def _ormqr_checks(a, tau, c, left):
    """torch.ormqr's shape checks, in its order."""
    try:
        a._data, tau._data, c._data
    except AttributeError as e:
        raise not_tensor(e) from None
    fn = "torch.ormqr: "
    if a.ndim < 2:
        raise RuntimeError(fn + "input must have at least 2 dimensions.")
    if c.ndim < 2:
        raise RuntimeError(fn + "other must have at least 2 dimensions.")
    if tau.ndim != a.ndim - 1:
        raise RuntimeError(f"{fn}Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {a.ndim}")
    if c.ndim != a.ndim:
        raise RuntimeError(f"{fn}Expected other to have the same number of dimensions as input, "
                           f"but got other.ndim equal to {c.ndim} and input.ndim is equal to "
                           f"{a.ndim}")
    side = -2 if left else -1
    if c.shape[side] != a.shape[-2]:
        raise RuntimeError(f"{fn}other.shape[{side}] must be equal to input.shape[-2]")
    if tau.shape[-1] != min(c.shape[side], a.shape[-1]):
        raise RuntimeError(f"{fn}tau.shape[-1] must be equal to min(other.shape[{side}], "
                           f"input.shape[-1])")
    for name, t in (("tau", tau), ("other", c)):
        if tuple(t.shape[:a.ndim - 2]) != tuple(a.shape[:-2]):
            raise RuntimeError(f"{fn}Expected batch dimensions of {name} to be equal to "
                               f"input.shape[:-2], but got {list(t.shape[:a.ndim - 2])}")


def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """Q (from input's reflectors and tau = input2) times input3: Q C, Q^H C, C Q or C Q^H."""
    a, tau, c = input, input2, input3
    _ormqr_checks(a, tau, c, left)
    k = tau.shape[-1]
    order = reversed(range(k)) if left != transpose else range(k)
    x = c
    for i in order:
        x = _reflect(x, a, tau.conj() if transpose else tau, i, left)
    return write_out(x, out)
