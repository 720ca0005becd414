"""Matrix functions built on the solves and decompositions: det, slogdet, logdet, pinv, lstsq,
matrix and vector norms of matrices, cond, matrix_rank, matrix_power, matrix_exp, multi_dot,
tensorinv/tensorsolve, vander, and torch's legacy top-level forms (svd, qr, lu, lu_solve)."""
__all__ = ["norm", "det", "logdet", "slogdet", "pinverse", "matrix_power", "matrix_exp", "svd",
           "qr", "chain_matmul", "lu", "lu_solve"]

import math
import warnings

import numpy as np

from .. import return_types as _RT
from ..autograd.forward import LEVELS, dual
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link, link_multi
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import needs, wrap_dim, write_out, saved_output, requires
from ._args import not_tensor, wrong_type, check_args, invalid_args, args_fit, OMITTED
from ._linalg import _check_float, _check_matrices, _check_square, _h, _outs, _warn
from .convert import copy_
from .decomp import (_lu_legacy, _qr_legacy, _slogdet_old_t, _slogdet_t, _svd_legacy,
                     linalg_lu_solve, svdvals, linalg_svd)
from .join import _tensor_list, cat
from .logical import where
from .matmul import matmul, mm
from .reduce import amax, amin, vector_norm
from .shape import _mH, diag_embed
from .solve import _inv, inv_ex, solve
from .unary import log


class LinalgDetBackward0(Node):              # derivatives.yaml: linalg_det
    __slots__ = ("_saved_A", "_saved_result")
    _saved_names = ("_saved_A", "_saved_result")

    def apply(self, grad):
        A = self._saved_A
        d = saved_output(self, self._saved_result)
        if (d._data == 0).any():
            # singular: torch's recorded formula, the adjugate through an SVD
            # (A = U S Vh: d det / dA = conj(det U det Vh) U diag(prod_{j != i} s_j) Vh)
            U, S, Vh = linalg_svd(A)
            n = A._data.shape[-1]
            eye = wrap(np.eye(n, dtype=bool))
            others = S.unsqueeze(-2).expand(S.shape[:-1] + (n, n)).masked_fill(eye, 1)
            sign = wrap(np.asarray(np.linalg.det(U._data) * np.linalg.det(Vh._data)))
            g = (grad * sign.conj()).unsqueeze(-1).unsqueeze(-1)
            return g * matmul(U * others.prod(-1).unsqueeze(-2), Vh),
        # linalg_det_backward under grad mode: linalg_solve(A.mH, diag_embed(grad * det.conj()))
        return _solve_diag(A, grad * d.conj()),

    def np_apply(self, grad):
        a = self._saved_A._data
        d = self._saved_result._data
        g = np.asarray(grad * d.conj())
        if not (d == 0).any():
            return _solve_diag_np(a, g),
        # singular: torch's unrecorded formula (det * A^-H) gives zero there
        ok = d != 0
        res = np.zeros(a.shape, g.dtype)
        if ok.any():
            res[ok] = _solve_diag_np(a[ok], g[ok])
        return np.asarray(res, a.dtype),


def det(A, *, out=None):
    _check_square(A, "linalg.det")
    _check_float(A, "linalg.det")
    a = A._data
    res = wrap(np.asarray(np.linalg.det(a), a.dtype))
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
        node = LinalgDetBackward0()
        node._saved_A = A
        node._saved_result = res.detach()
        link(res, node, A)
    return write_out(res, out, "_linalg_det")


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
        if g._data.dtype != A._data.dtype:      # a real g for a complex A
            g = g.to(A.dtype)
        return _solve_diag(A, g),       # g * A^-H, as linalg_solve(A.mH, diag_embed(g))


def _solve_diag_np(a, g):
    """_solve_diag on arrays, with the same solve (so that both passes give the same bits)."""
    n = a.shape[-1]
    m = np.zeros(g.shape + (n, n), g.dtype)
    m[..., range(n), range(n)] = g[..., None]
    return np.linalg.solve(_h(a), np.swapaxes(m, -1, -2))


def _solve_diag(A, g):
    """g * A^-H for a batch of numbers g, as torch's det/slogdet backward writes it under grad
    mode: linalg_solve(A.mH, diag_embed(g.unsqueeze(-1).expand(..., n)).mT)."""
    d = diag_embed(g.unsqueeze(-1).expand(A._data.shape[:-1]))
    return solve(_mH(A), d.mT)


def linalg_slogdet(A, *, out=None):
    return _outs(_slogdet_t(_slogdet(A)), out, "_linalg_slogdet")


def slogdet(input, *, out=None):
    return _outs(_slogdet_old_t(_slogdet(input)), out, "_linalg_slogdet")


def _slogdet(A):
    _check_square(A, "linalg.slogdet")
    _check_float(A, "linalg.slogdet")
    a = A._data
    s, l = np.linalg.slogdet(a)
    sign, logabs = wrap(np.asarray(s, a.dtype)), wrap(np.asarray(l, a.real.dtype))
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
        node = LinalgSlogdetBackward0()
        node._saved_A = A
        node._sign = sign._data
        link_multi([sign, logabs], node, A)
    return sign, logabs


class LinalgPinvBackward0(Node):             # derivatives.yaml: linalg_pinv.atol_rtol_tensor
    __slots__ = ("_saved_self", "_saved_result")
    _saved_names = ("_saved_self", "_saved_result")

    def apply(self, grad):
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
    try:
        a = A._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim < 2 or a.dtype.kind not in "fc" or a.dtype == np.float16:
        dt = {"float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
              "complex128": "ComplexDouble", "float16": "Half"}.get(a.dtype.name, type_name(a.dtype))
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
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
        node = LinalgPinvBackward0()
        node._saved_self = A
        node._saved_result = res.detach()
        link(res, node, A)
    return write_out(res, out, "linalg_pinv")


def pinverse(input, rcond=1e-15):
    if not isinstance(rcond, (int, float, np.floating, np.integer)):
        raise wrong_type(rcond, "float")
    return pinv(input, rtol=rcond)


def matrix_power(A, n, *, out=None):
    check_args("matrix_power", ("n", 2, "int", n))
    try:
        a = A._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {a.shape[-2]} by {a.shape[-1]} matrices")
    if n == 0:
        eye = wrap(np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape))
        return write_out(copy_(A.clone(), eye), out)     # as torch computes it
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
    return vector_norm(*args, **kwargs)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    if not _ord_ok(ord) or not args_fit(("bool", keepdim)) or \
            dtype is not None and type(dtype).__name__ != "dtype":
        raise invalid_args("linalg_matrix_norm", (A, ord))
    a = _check_matrices(A, "linalg.matrix_norm")
    if a.dtype != np.float16 or ord == "nuc" or ord in (2, -2):   # (Half: only through SVD)
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
    if ord == "nuc" or abs(ord) == 2:
        # torch's composition: the two dims moved last by a permute (the identity too), the
        # singular values reduced over -1 (keepdim), one unsqueeze and the inverse permute
        perm = [i for i in range(a.ndim) if i not in (d0, d1)] + [d0, d1]
        s = svdvals(A.permute(perm))
        r = s.sum(-1, keepdim=keepdim) if ord == "nuc" else \
            (amax if ord == 2 else amin)(s, -1, keepdim=keepdim)
        if keepdim:
            r = r.unsqueeze(-1).permute(np.argsort(perm).tolist())
        return write_out(r, out)
    # 1 / inf: max (min) over one dim of the abs-sums over the other
    sum_dim, red_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
    s = A.abs().sum(sum_dim, keepdim=keepdim)
    if not keepdim and red_dim > sum_dim:
        red_dim -= 1
    r = (amax if ord > 0 else amin)(s, red_dim, keepdim=keepdim)
    return write_out(r, out)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    if ord is not None and not _ord_ok(ord) or not args_fit(("bool", keepdim)):
        raise invalid_args("linalg_norm", (A, ord))
    try:
        a = A._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dim)}")
    if dim is not None and len(dim) == 2 or (dim is None and ord is not None and a.ndim == 2):
        if ord is None and len(set(wrap_dim(d, a.ndim) for d in dim)) == 2:
            # torch's linalg.norm takes the 2-norm over both dims (ord 2.0), not "fro"
            return _vector_norm(A, 2.0, dim, keepdim, dtype=dtype, out=out)
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
    return _vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


def multi_dot(tensors, *, out=None):
    tensors = _tensor_list(tensors, "linalg_multi_dot")
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
    a = _check_matrices(A, "torch.linalg.matrix_rank", "input")
    _check_float(A, "linalg.matrix_rank", "input")
    m, n = a.shape[-2:]
    s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (0,))
    smax = s.max(-1, initial=0.0, keepdims=True) if s.size else np.zeros(a.shape[:-2] + (1,))
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else np.finfo(a.dtype).eps * max(m, n)
    tol = np.maximum(atol or 0.0, rtol * smax)
    return write_out(wrap(np.asarray((s > tol).sum(-1), np.int64)), out)


def vecdot(x, y, *, dim=-1, out=None):
    return write_out((x.conj() * y).sum(dim), out, "sum")


def logdet(input):
    """log(det(A)): nan for a negative determinant (torch.logdet)."""
    if getattr(input, "_data", None) is not None and input._data.dtype == np.float16:
        _check_float(input, "logdet")
    sign, logabs = _slogdet(input)
    if input._data.dtype.kind == "c":
        return logabs + log(sign)
    return where(wrap(sign._data < 0), wrap(np.asarray(np.nan, logabs._data.dtype)), logabs)


def chain_matmul(*matrices, out=None):
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    for i, m in enumerate(matrices):
        if not isinstance(m, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(m).__name__}")
    if len(matrices) == 1:
        try:
            if matrices[0]._data.ndim != 2:
                raise RuntimeError(f"chain_matmul(): Expected one or more matrices, but got "
                                   f"{matrices[0]._data.ndim}-D tensor")
        except AttributeError as e:
            raise not_tensor(e) from None
        return write_out(matrices[0].clone(), out)
    for t in matrices:
        try:
            if t._data.ndim != 2:
                raise RuntimeError(f"chain_matmul(): Expected one or more matrices, but got "
                                   f"{t._data.ndim}-D tensor")
        except AttributeError as e:
            raise not_tensor(e) from None
    return multi_dot(list(matrices), out=out)


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
        Ah = _mH(A)
        big = cat([cat([Ah, grad], -1), cat([Ah * 0, Ah], -1)], -2)
        return matrix_exp(big).narrow(-2, 0, n).narrow(-1, n, n),

    def np_apply(self, grad):
        a = self._saved_self._data
        n = a.shape[-1]
        ah = _h(a)
        top = np.concatenate([ah, grad], -1)
        bot = np.concatenate([np.zeros_like(ah), ah], -1)
        return _expm_np(np.concatenate([top, bot], -2))[..., :n, n:],


def matrix_exp(A):
    _check_square(A, "linalg.matrix_exp")
    _check_float(A, "linalg.matrix_exp")
    res = wrap(_expm_np(A._data))
    if STATE.enabled and A._requires_grad or LEVELS and dual(A):
        node = LinalgMatrixExpBackward0()
        node._saved_self = A
        link(res, node, A)
    return res


_lstsq_t = _RT.linalg_lstsq


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


def lstsq(A, B, rcond=None, *, driver=None, out=None):
    check_args("lstsq", ("b", 2, "Tensor", B))
    return _outs(_lstsq(A, B, rcond, driver), out, "linalg_lstsq")


def _lstsq(A, B, rcond, driver):
    try:
        a, b = A._data, B._data
    except AttributeError as e:
        raise not_tensor(e) from None
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
    if requires(A, B):
        node = LinalgLstsqBackward0()
        node._saved_self, node._saved_b = A, B
        node._saved_solution = res_x.detach()
        node._vector = vector
        link_multi([res_x, residuals], node, A, B)
    return _lstsq_t((res_x, residuals, rank_t, sv))


def tensorinv(A, ind=2, *, out=None):
    check_args("linalg_tensorinv", ("ind", 2, "int", ind))
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    try:
        shape = A._data.shape
    except AttributeError as e:
        raise not_tensor(e) from None
    lo, hi = int(np.prod(shape[:ind])), int(np.prod(shape[ind:]))
    if lo != hi:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {hi} != {lo}")
    r = _inv(A.reshape(lo, hi), "linalg.inv")
    return write_out(r.reshape(shape[ind:] + shape[:ind]), out)


def tensorsolve(A, B, dims=None, *, out=None):
    check_args("tensorsolve", ("other", 2, "Tensor", B))
    if dims is not None:
        nd = A._data.ndim
        dd = [wrap_dim(d, nd) for d in dims]
        A = A.permute([i for i in range(nd) if i not in dd] + dd)
    try:
        shape = A._data.shape
    except AttributeError as e:
        raise not_tensor(e) from None
    try:
        nb = B._data.ndim
    except AttributeError as e:
        raise not_tensor(e) from None
    lo, hi = int(np.prod(shape[:nb])), int(np.prod(shape[nb:]))
    nb_el = B._data.size
    if hi != nb_el:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]"
                           f") == prod(self.shape[:other.ndim]), but got {hi} != {nb_el}")
    x = solve(A.reshape(lo, hi), B.reshape(lo))
    return write_out(x.view(shape[nb:]), out)


def vander(x, *, N=None):
    try:
        if x._data.ndim < 1:
            raise RuntimeError("N must be greater than 1.") if N is not None and N <= 1 else \
                RuntimeError("linalg.vander: x must have at least 1 dimension.")
    except AttributeError as e:
        raise not_tensor(e) from None
    n = x._data.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    dt = x._data.dtype
    if dt == np.bool_ or dt == np.float16:
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {type_name(dt)}")
    ones = wrap(np.ones(x._data.shape + (1,), dt))
    powers = x.unsqueeze(-1).expand(*x._data.shape, n - 1).cumprod(-1)
    return cat([ones, powers], -1)


def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    try:
        return A.diagonal(offset, dim1, dim2)
    except AttributeError as e:
        raise not_tensor(e) from None


def _lu_solve_legacy(b, LU_data, LU_pivots, *, out=None):
    _warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in "
          "a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
          "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = "
          "torch.linalg.lu_solve(LU, pivots, B)")
    return linalg_lu_solve(LU_data, LU_pivots, b, out=out)


def _eig_removed(self, eigenvectors=False):
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` "
        "returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
        "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
        "L_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) "
        "should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)")


svd = _svd_legacy


qr = _qr_legacy


lu = _lu_legacy


lu_solve = _lu_solve_legacy


def _ord_ok(ord):
    """torch's norm overloads take ord as a number or as a string."""
    return isinstance(ord, str) or args_fit(("Number", ord)) and ord is not None


def cond(A, p=None, *, out=None):
    if p is not None and not _ord_ok(p):
        raise invalid_args("linalg_cond", (A, p))
    try:
        a = A._data
    except AttributeError as e:
        raise not_tensor(e) from None
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


_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    if p is not None and not isinstance(p, str):
        check_args("vector_norm", ("ord", 2, "Number", p))
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, dim, keepdim, dtype=dtype, out=out)
        return matrix_norm(input, p, dim if dim is not None else (-2, -1), keepdim,
                           dtype=dtype)
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype, out=out)


# ================================================================ surface ops (issue 14):
# vander, and the top-level names torch removed in 1.9 but still exports (they raise; exported
# from ember/__init__.py under torch's names, which this module's linalg ops already use)


def torch_vander(x, N=None, increasing=False):
    check_args("vander", ("N", 2, "int", N, True), ("increasing", 3, "bool", increasing))
    """torch.vander (not linalg.vander, above; exported as ember.vander): columns x**0 .. x**(N-1) (reversed unless increasing), made as the
    cumulative product of [1, x, x, ...] so that its gradient is the product rule's. (torch
    builds the same product with in-place writes, whose backward fails on a saved-tensor
    version check; ember's backward gives the gradient.)"""
    try:
        if x.ndim != 1:
            raise RuntimeError("x must be a one-dimensional tensor.")
    except AttributeError as e:
        raise not_tensor(e) from None
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind == "b":
        x = x.long()
    if n == 0:
        return x.new_zeros((x.shape[0], 0))
    cols = x.unsqueeze(1).expand(x.shape[0], n - 1)
    res = cat([x.new_ones((x.shape[0], 1)), cols], 1).cumprod(1)
    return res if increasing else res.flip(1)


_LSTSQ_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is "
    "deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed arguments "
    "and does not return the QR decomposition in the returned tuple (although it returns other "
    "information about the problem).\n\nTo get the QR decomposition consider using "
    "`torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the residuals of the "
    "solution in the last m - n columns of the returned value whenever m > n. In "
    "torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned named "
    "tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size("
    "1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")
_SYMEIG_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. The default behavior "
    "has changed from using the upper triangular portion of the matrix by default to using the "
    "lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
    "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
    "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper "
    "else 'L')")
_SOLVE_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.solve` is "
    "deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its arguments "
    "reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
    "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = "
    "torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)")
_MATRIX_RANK_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
    "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
    "`torch.linalg.matrix_rank()` to 'hermitian'.")


def _lstsq_removed(input, A, *, out=None):
    raise RuntimeError(_LSTSQ_REMOVED)


def _symeig_removed(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(_SYMEIG_REMOVED)


def _solve_removed(input, A, *, out=None):
    raise RuntimeError(_SOLVE_REMOVED)


def _matrix_rank_removed(input, tol=None, symmetric=False, *, out=None):
    raise RuntimeError(_MATRIX_RANK_REMOVED)



def nuclear_norm(input, dim=OMITTED, keepdim=False, *, out=None):
    """torch.nuclear_norm (deprecated, kept for JIT): linalg.matrix_norm(input, 'nuc')."""
    if dim is not OMITTED and not isinstance(dim, bool) and not args_fit(("tuple of ints", dim)) \
            or dim is None or not args_fit(("bool", keepdim)):
        raise invalid_args("nuclear_norm", (input, dim))
    _warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be "
          "removed in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, "
          "keepdim)` instead")
    if isinstance(dim, bool):
        dim, keepdim = OMITTED, dim
    return write_out(matrix_norm(input, "nuc", (-2, -1) if dim is OMITTED else dim, keepdim), out)


def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """torch.frobenius_norm (deprecated, kept for JIT): the 2-norm over dim."""
    check_args("frobenius_norm", ("dim", 2, "tuple of ints", dim),
               ("keepdim", 3, "bool", keepdim))
    _warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will "
          "be removed in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, "
          "keepdim)` instead")
    return write_out(vector_norm(input, 2, dim, keepdim), out, "norm")
