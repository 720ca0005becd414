"""torch.linalg: the linear-algebra namespace (`ember.linalg.inv(...)`). The functions live in
ember/ops/linalg.py (vector_norm in ember/ops/reduce.py)."""
from .ops.linalg import (
    _LinAlgError as LinAlgError, inv, inv_ex, det, linalg_slogdet as slogdet, solve,
    linalg_cholesky as cholesky, cholesky_ex, linalg_qr as qr, eigh, eigvalsh, eig, eigvals,
    linalg_svd as svd, svdvals, pinv, matrix_power, matrix_norm, norm, multi_dot, matrix_rank,
    _linalg_cross as cross, matmul, vecdot, matrix_exp, solve_triangular, lstsq, lu_factor,
    lu_factor_ex, linalg_lu as lu, linalg_lu_solve as lu_solve, cond, tensorinv, tensorsolve,
    vander, diagonal)
from .ops.reduce import vector_norm

__all__ = ["LinAlgError", "inv", "inv_ex", "det", "slogdet", "solve", "cholesky", "cholesky_ex",
           "qr", "eigh", "eigvalsh", "eig", "eigvals", "svd", "svdvals", "pinv", "matrix_power",
           "matrix_norm", "norm", "vector_norm", "multi_dot", "matrix_rank", "cross", "matmul",
           "vecdot", "matrix_exp", "solve_triangular", "lstsq", "lu_factor", "lu_factor_ex",
           "lu", "lu_solve", "cond", "tensorinv", "tensorsolve", "vander", "diagonal"]
