"""torch.linalg.ldl_factor / ldl_factor_ex / ldl_solve: the LDL^T (LDL^H) factorization of a
symmetric (Hermitian) matrix with Bunch-Kaufman diagonal pivoting, as LAPACK's sytrf / hetrf
(lower triangle) computes it and torch returns it, and its solve, sytrs / hetrs.

Note [Bunch-Kaufman as LAPACK runs it]: column k's pivot is chosen from |a_kk| (a 1x1 block
when it is at least alpha times the column's largest off-diagonal |a_rk|, alpha =
(1 + sqrt(17)) / 8), else from row r's largest off-diagonal: a 1x1 block with or without
swapping k and r, or a 2x2 block on rows k, k+1 with r swapped into k+1. Sizes compare as
LAPACK's i?amax does (|re| + |im| for complex; the first largest wins) and NaN is not tested
(torch's LAPACK keeps going: a NaN diagonal becomes a later zero pivot, info > 0). LD holds L
below the diagonal and D on it (its 2x2 blocks' off-diagonal below), column-major as LAPACK
writes it; pivots is LAPACK's 1-based ipiv (negative for both rows of a 2x2 block); info is the
first exactly zero pivot (1-based). The steps are LAPACK's unblocked ones (sytf2 / hetf2),
which torch's sytrf runs for matrices below its block size of 64: their arithmetic is the same
operation by operation, so LD agrees with torch's exactly or to an ulp (the rank-1 updates run
in an order and with fused multiply-adds of OpenBLAS's choosing). Above 64, LAPACK's blocked
panels choose the same pivots but round differently. torch defines no derivative for either:
outputs get the NotImplemented node."""
__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

import math

import numpy as np

from .. import return_types as _RT
from ..autograd.grad_mode import STATE, no_grad
from ..autograd.graph import NotImplementedBackward, link
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import not_tensor, out_grad_error, write_out
from ._linalg import _check_square

_ALPHA = (1 + math.sqrt(17)) / 8


def _abs1(v):
    """LAPACK's cabs1 for complex (|re| + |im|, in the element's own precision), |v| for
    real."""
    if isinstance(v, (np.complex64, np.complex128)):
        return abs(v.real) + abs(v.imag)
    return abs(v)


def _amax(vals):
    """i?amax: the index of the first largest _abs1 (0 for an empty list)."""
    best, at = -1.0, 0
    for i, v in enumerate(vals):
        a = _abs1(v)
        if a > best:            # (a NaN never wins, as in OpenBLAS's kernels)
            best, at = a, i
    return at


def _fmax(a, b):
    """Fortran's MAX as gfortran computes it: a NaN argument loses."""
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return max(a, b)


def _sytf2(a, herm):
    """LAPACK ?sytf2 / ?hetf2 (uplo 'L') on one square matrix `a` (a NumPy array, modified in
    place, lower triangle used): (ipiv as 1-based ints, info)."""
    n = a.shape[0]
    cplx = a.dtype.kind == "c"
    conj = np.conj if herm and cplx else (lambda v: v)
    ipiv = np.zeros(n, np.int32)
    info = 0
    k = 0
    with np.errstate(all="ignore"):
        while k < n:
            kstep = 1
            akk = a[k, k]
            absakk = abs(akk.real) if herm and cplx else _abs1(akk)
            if k < n - 1:
                imax = k + 1 + _amax(list(a[k + 1:, k]))
                colmax = _abs1(a[imax, k])
            else:
                imax, colmax = k, 0.0
            if _fmax(absakk, colmax) == 0:
                if info == 0:
                    info = k + 1
                kp = k
                if herm and cplx:
                    a[k, k] = a[k, k].real
            else:
                if absakk >= _ALPHA * colmax:
                    kp = k
                else:
                    row = list(a[imax, k:imax])
                    jmax = k + _amax(row)
                    rowmax = _abs1(a[imax, jmax])
                    if imax < n - 1:
                        jmax = imax + 1 + _amax(list(a[imax + 1:, imax]))
                        rowmax = max(rowmax, _abs1(a[jmax, imax]))
                    arr = abs(a[imax, imax].real) if herm and cplx else \
                        _abs1(a[imax, imax])
                    if absakk >= _ALPHA * colmax * (colmax / rowmax):
                        kp = k
                    elif arr >= _ALPHA * rowmax:
                        kp = imax
                    else:
                        kp, kstep = imax, 2
                kk = k + kstep - 1
                if kp != kk:
                    # rows and columns kk and kp of the trailing matrix swapped (lower part)
                    if kp < n - 1:
                        t = a[kp + 1:, kk].copy()
                        a[kp + 1:, kk] = a[kp + 1:, kp]
                        a[kp + 1:, kp] = t
                    t = conj(a[kk + 1:kp, kk].copy())
                    a[kk + 1:kp, kk] = conj(a[kp, kk + 1:kp])
                    a[kp, kk + 1:kp] = t
                    if herm and cplx:
                        a[kp, kk] = np.conj(a[kp, kk])
                        r1 = a[kk, kk].real
                        a[kk, kk] = a[kp, kp].real
                        a[kp, kp] = r1
                    else:
                        a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                    if kstep == 2:
                        if herm and cplx:
                            a[k, k] = a[k, k].real
                        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
                elif herm and cplx:
                    a[k, k] = a[k, k].real
                    if kstep == 2:
                        a[k + 1, k + 1] = a[k + 1, k + 1].real
                if kstep == 1:
                    if k < n - 1:
                        _update1(a, k, herm and cplx)
                elif k < n - 2:
                    _update2(a, k, herm and cplx)
            if kstep == 1:
                ipiv[k] = kp + 1
            else:
                ipiv[k] = ipiv[k + 1] = -(kp + 1)
            k += kstep
    return ipiv, info


_SFMIN = {np.dtype(np.float32): np.finfo(np.float32).tiny,
          np.dtype(np.float64): np.finfo(np.float64).tiny,
          np.dtype(np.complex64): np.finfo(np.float32).tiny,
          np.dtype(np.complex128): np.finfo(np.float64).tiny}


def _update1(a, k, herm):
    """A 1x1 pivot: the trailing lower triangle minus x x^T / d (x^H for Hermitian), then x / d
    (LAPACK's syr / her and scal, column by column)."""
    n = a.shape[0]
    x = a[k + 1:, k].copy()
    if herm:
        r1 = a.dtype.type(1 / a[k, k].real)
        for j in range(n - k - 1):
            temp = -r1 * np.conj(x[j])
            a[k + 1 + j:, k + 1 + j] += x[j:] * temp
            a[k + 1 + j, k + 1 + j] = a[k + 1 + j, k + 1 + j].real
        a[k + 1:, k] = x * r1.real
        return
    if abs(a[k, k]) >= _SFMIN[a.dtype]:
        d11 = a.dtype.type(1) / a[k, k]
        for j in range(n - k - 1):
            temp = -d11 * x[j]
            a[k + 1 + j:, k + 1 + j] += x[j:] * temp
        a[k + 1:, k] = x * d11
    else:
        d11 = a[k, k]
        x = x / d11
        a[k + 1:, k] = x
        for j in range(n - k - 1):
            temp = -d11 * x[j]
            a[k + 1 + j:, k + 1 + j] += x[j:] * temp


def _update2(a, k, herm):
    """A 2x2 pivot on rows k, k+1: LAPACK's explicit update of the trailing lower triangle."""
    n = a.shape[0]
    if herm:
        d = abs(a[k + 1, k])
        d11 = a[k + 1, k + 1].real / d
        d22 = a[k, k].real / d
        tt = 1 / (d11 * d22 - 1)
        d21 = a[k + 1, k] / d
        d = tt / d
        for j in range(k + 2, n):
            wk = d * (d11 * a[j, k] - d21 * a[j, k + 1])
            wkp1 = d * (d22 * a[j, k + 1] - np.conj(d21) * a[j, k])
            a[j:, j] = a[j:, j] - a[j:, k] * np.conj(wk) - a[j:, k + 1] * np.conj(wkp1)
            a[j, k] = wk
            a[j, k + 1] = wkp1
            a[j, j] = a[j, j].real
        return
    d21 = a[k + 1, k]
    d11 = a[k + 1, k + 1] / d21
    d22 = a[k, k] / d21
    t = 1 / (d11 * d22 - 1)
    d21 = t / d21
    for j in range(k + 2, n):
        wk = d21 * (d11 * a[j, k] - a[j, k + 1])
        wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
        a[j:, j] = a[j:, j] - a[j:, k] * wk - a[j:, k + 1] * wkp1
        a[j, k] = wk
        a[j, k + 1] = wkp1


def _fortran(x):
    """A batch of matrices laid out column-major per matrix (torch's LAPACK results)."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)


def _check_A(A, fn):
    _check_square(A, fn)
    a = A._data
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{type_name(a.dtype)}")
    return a


def _not_implemented(op, outs, *inputs):
    if STATE.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in inputs):
        for o in outs:
            node = NotImplementedBackward()
            node._op = op
            link(o, node, *inputs)


def _factor(A, hermitian, fn):
    a = _check_A(A, fn)
    if a.dtype not in _SFMIN:
        raise NotImplementedError(f'"ldl_factor_kernel_cpu" not implemented for '
                                  f"'{type_name(a.dtype)}'")
    n = a.shape[-1]
    flat = np.array(a.reshape((int(np.prod(a.shape[:-2], dtype=np.int64)), n, n)), copy=True)
    pivs = np.zeros(flat.shape[:-1], np.int32)
    infos = np.zeros(flat.shape[0], np.int32)
    herm = bool(hermitian)
    for i in range(flat.shape[0]):
        pivs[i], infos[i] = _sytf2(flat[i], herm)
    flat = np.tril(flat)
    LD = wrap(_fortran(flat.reshape(a.shape)))
    pivots = wrap(pivs.reshape(a.shape[:-1]))
    info = wrap(infos.reshape(a.shape[:-2]))
    _not_implemented("linalg_ldl_factor_ex", (LD,), A)
    return LD, pivots, info


def _raise_info(info, fn):
    bad = info._data[info._data != 0]
    if bad.size:
        raise RuntimeError(f'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/'
                           f'ATen/native/BatchLinearAlgebra.cpp":1642, please report a bug to '
                           f"PyTorch. {fn}: Unknown error code: {bad.flat[0]}.")


_C_NAMES = {"int64": "long int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "float32": "float", "float64": "double", "bool": "bool"}


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """torch.linalg.ldl_factor_ex: (LD, pivots, info), LAPACK sytrf / hetrf's (Note
    [Bunch-Kaufman as LAPACK runs it])."""
    fn = "torch.linalg.ldl_factor_ex"
    _check_out(out, 3, "linalg_ldl_factor_ex")
    LD, pivots, info = _factor(A, hermitian, fn)
    if check_errors:
        _raise_info(info, fn)
    return _write(_RT.linalg_ldl_factor_ex((LD, pivots, info)), out, A,
                  "linalg_ldl_factor_ex")


def ldl_factor(A, *, hermitian=False, out=None):
    """torch.linalg.ldl_factor: (LD, pivots); a zero pivot is torch's internal-assert error."""
    _check_out(out, 2, "linalg_ldl_factor")
    LD, pivots, info = _factor(A, hermitian, "torch.linalg.ldl_factor_ex")
    _raise_info(info, "torch.linalg.ldl_factor")
    return _write(_RT.linalg_ldl_factor((LD, pivots)), out, A, "linalg_ldl_factor")


def _check_out(out, n, name):
    """torch's argument parser on out= (a tuple of n tensors; out is argument n)."""
    if out is None:
        return
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {n}, but got "
                            f"{type(o).__name__}")
    if len(out) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(out)}")


def _write(res, out, A, name):
    if out is None:
        return res
    out = tuple(out)
    if STATE.enabled and any(o._requires_grad for o in out):
        raise out_grad_error("aten::linalg_ldl_factor_ex")
    for o, r in zip(out, res):
        if r._data.dtype == np.int32 and o._data.dtype != np.int32:
            raise RuntimeError(f"Expected out tensor to have dtype int, but got "
                               f"{_C_NAMES.get(o._data.dtype.name, o._data.dtype.name)} "
                               f"instead")
    for o, r in zip(out, res):
        with _no_grad():
            write_out(r.detach(), o)
        o._data = _fortran(o._data) if o._data.ndim >= 2 else o._data
    # torch writes the factor into out, which then carries the NotImplemented node
    _not_implemented("linalg_ldl_factor_ex", out[:1], A)
    return getattr(_RT, name + "_out")(out)


def _no_grad():
    return no_grad()


def _sytrs(ld, ipiv, b, herm):
    """LAPACK ?sytrs / ?hetrs (uplo 'L'): b (n x k) overwritten with A^-1 b."""
    n = ld.shape[0]
    conj = np.conj if herm else (lambda v: v)
    k = 0
    with np.errstate(all="ignore"):
        while k < n:                        # L D y = b
            if ipiv[k] > 0:
                kp = ipiv[k] - 1
                if kp != k:
                    b[[k, kp]] = b[[kp, k]]
                if k < n - 1:
                    b[k + 1:] -= np.outer(ld[k + 1:, k], b[k])
                if herm:
                    b[k] *= 1 / ld[k, k].real
                else:
                    b[k] /= ld[k, k]
                k += 1
            else:
                kp = -ipiv[k] - 1
                if kp != k + 1:
                    b[[k + 1, kp]] = b[[kp, k + 1]]
                if k < n - 2:
                    b[k + 2:] -= np.outer(ld[k + 2:, k], b[k])
                    b[k + 2:] -= np.outer(ld[k + 2:, k + 1], b[k + 1])
                akm1k = ld[k + 1, k]
                akm1 = ld[k, k] / conj(akm1k)
                ak = ld[k + 1, k + 1] / akm1k
                denom = akm1 * ak - 1
                bkm1 = b[k] / conj(akm1k)
                bk = b[k + 1] / akm1k
                b[k] = (ak * bkm1 - bk) / denom
                b[k + 1] = (akm1 * bk - bkm1) / denom
                k += 2
        k = n - 1
        while k >= 0:                       # L^T x = y (L^H)
            if ipiv[k] > 0:
                if k < n - 1:
                    b[k] -= conj(ld[k + 1:, k]) @ b[k + 1:]
                kp = ipiv[k] - 1
                if kp != k:
                    b[[k, kp]] = b[[kp, k]]
                k -= 1
            else:
                if k < n - 1:
                    b[k] -= conj(ld[k + 1:, k]) @ b[k + 1:]
                    b[k - 1] -= conj(ld[k + 1:, k - 1]) @ b[k + 1:]
                kp = -ipiv[k] - 1
                if kp != k:
                    b[[k, kp]] = b[[kp, k]]
                k -= 2
    return b


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """torch.linalg.ldl_solve: A^-1 B from ldl_factor's (LD, pivots), LAPACK sytrs / hetrs;
    LD and B's batch dimensions broadcast, pivots must match LD's."""
    fn = "torch.linalg.ldl_solve"
    ld = _check_A(LD, fn)
    try:
        p, b = pivots._data, B._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if ld.shape[:-1] != p.shape:
        raise RuntimeError(f"{fn}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape {list(p.shape)} instead")
    if p.dtype.kind not in "iu":
        raise RuntimeError(f"{fn}: Expected pivots to be integers. Got {type_name(p.dtype)}")
    if b.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(b.ndim, 1)}, {max(b.ndim, 1) - 1}], but got -2)")
    if b.dtype != ld.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{type_name(b.dtype)} and A of type {type_name(ld.dtype)} instead.")
    n = ld.shape[-1]
    if b.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {fn}: each A matrix is {n} by {n} "
                           f"but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    m = int(np.prod(batch, dtype=np.int64))
    lds = np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((m, n, n))
    ps = np.broadcast_to(p, batch + p.shape[-1:]).reshape((m, n)).astype(np.int64)
    bs = np.array(np.broadcast_to(b, batch + b.shape[-2:]).reshape((m,) + b.shape[-2:]))
    herm = bool(hermitian) and ld.dtype.kind == "c"
    for i in range(bs.shape[0]):
        _sytrs(lds[i], ps[i], bs[i], herm)
    res = wrap(_fortran(bs.reshape(batch + b.shape[-2:])))
    _not_implemented("linalg_ldl_solve", (res,), LD, B)
    return write_out(res, out, "linalg_ldl_solve")
