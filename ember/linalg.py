"""torch.linalg: the linear-algebra namespace (`ember.linalg.inv(...)`). The functions live in
ember/ops/: solve.py (inverses, solves), decomp.py (decompositions), matrix.py (functions built
on them), matmul.py (products), reduce.py (vector_norm)."""
from .ops._linalg import _LinAlgError as LinAlgError
from .ops.decomp import (linalg_cholesky as cholesky, cholesky_ex, linalg_qr as qr, eigh, eigvalsh,
                         eig, eigvals, linalg_svd as svd, svdvals, lu_factor, lu_factor_ex,
                         linalg_lu as lu, linalg_lu_solve as lu_solve, householder_product,
                         solve_ex)
from .ops.matmul import _linalg_cross as cross, matmul
from .ops.matrix import (cond, det, linalg_slogdet as slogdet, pinv, matrix_power, matrix_norm,
                         multi_dot, matrix_rank, vecdot, matrix_exp, lstsq, tensorinv, tensorsolve,
                         vander, linalg_norm as norm, linalg_diagonal as diagonal)
from .ops.reduce import vector_norm
from .ops.solve import inv, inv_ex, solve, solve_triangular

__all__ = ["LinAlgError", "inv", "inv_ex", "det", "slogdet", "solve", "cholesky", "cholesky_ex",
           "qr", "eigh", "eigvalsh", "eig", "eigvals", "svd", "svdvals", "pinv", "matrix_power",
           "matrix_norm", "norm", "vector_norm", "multi_dot", "matrix_rank", "cross", "matmul",
           "vecdot", "matrix_exp", "solve_triangular", "lstsq", "lu_factor", "lu_factor_ex",
           "lu", "lu_solve", "cond", "tensorinv", "tensorsolve", "vander", "diagonal",
           "householder_product", "solve_ex"]
_LAZY_LDL = ("ldl_factor", "ldl_factor_ex", "ldl_solve")     # (loaded on first use: below)
__all__ += _LAZY_LDL


def __getattr__(name):
    # ops/ldl.py loads on first use (Note [Lazy layer ops] in ember/__init__.py: W8's RSS)
    if name in _LAZY_LDL:
        import importlib  # (the lazy load itself)
        value = getattr(importlib.import_module("ember.ops.ldl"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ember.linalg' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_LDL))

