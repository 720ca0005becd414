"""Helpers shared by the linear-algebra families (matmul, solve, decomp, matrix): argument
checks and torch's error texts, and small array helpers used in their formulas."""
import warnings

import numpy as np

from .. import return_types as _RT
from ..dtypes import type_name
from ..tensor import wrap
from ._args import _public_caller, write_out
from ._args import not_tensor


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch's class is named _LinAlgError)."""


def _h(a):
    """Conjugate transpose of the last two axes of a NumPy array, as a view for real data."""
    a = a.swapaxes(-1, -2)
    return a.conj() if a.dtype.kind == "c" else a


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


def _outs(res, out, name=None):
    """out= for functions returning several tensors: a tuple of tensors to write into. name:
    the op's name in the out=-under-autograd error, when not the caller's."""
    if out is None:
        return res
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{(name or _public_caller()).lstrip('_')}(): argument 'out' must be "
                        f"tuple of Tensors, not {type(out).__name__}")
    if len(out) != len(res):
        raise RuntimeError(f"expected {len(res)} output tensors in out=, got {len(out)}")
    name = name or _public_caller()
    rt = getattr(_RT, type(res).__name__ + "_out", type(res))  # return_types.<name>_out
    return rt(tuple(write_out(r, o, name) for r, o in zip(res, out)))


def _check_matrices(A, fn, name="A"):
    """A's array, which must hold (batches of) matrices."""
    try:
        a = A._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if a.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    return a


def _check_square(A, fn, name="A"):
    a = _check_matrices(A, fn, name)
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{fn}: {name} must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


# torch's refusal of a Half input, per entry point: the name of the kernel that has no Half
# version (a NotImplementedError), or the whole RuntimeError message; the others say
# "<fn>: Low precision dtypes not supported. Got Half".
_HALF = {"linalg.det": "lu_cpu", "linalg.solve": "lu_cpu", "linalg.cholesky": "cholesky_cpu",
         "linalg.cholesky_ex": "cholesky_cpu", "linalg.qr": "geqrf_cpu", "geqrf": "geqrf_cpu",
         "linalg.eigh": "linalg_eigh_cpu", "linalg.eigvalsh": "linalg_eigh_cpu",
         "linalg.eig": "linalg_eig_out_cpu", "linalg.eigvals": "linalg_eig_out_cpu",
         "linalg.svd": "linalg_svd_cpu", "linalg.solve_triangular": "triangular_solve_cpu",
         "triangular_solve": "triangular_solve_cpu", "cholesky_solve": "cholesky_solve_cpu",
         "cholesky_inverse": "cholesky_inverse_out_cpu", "householder_product": "orgqr_cpu",
         "linalg.inv_ex": RuntimeError("linalg.inv: Low precision dtypes not supported. Got Half"),
         "linalg.matrix_rank": RuntimeError("This function doesn't handle types other than float "
                                            "and double"),
         "torch.linalg.lstsq": RuntimeError("This function doesn't handle types other than float "
                                            "and double")}


def _check_half(A, fn):
    if A._data.dtype == np.float16:
        e = _HALF.get(fn)
        if isinstance(e, Exception):
            raise e
        if e is not None:
            raise NotImplementedError(f"\"{e}\" not implemented for 'Half'")
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got Half")


def _check_float(A, fn, name="input"):
    k = A._data.dtype
    if k == np.float16:
        _check_half(A, fn)
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


def _warn(msg):
    warnings.warn(msg, UserWarning, stacklevel=3)
