"""torch.svd_lowrank and torch.pca_lowrank: the randomized SVD of Halko, Martinsson & Tropp
(2009), composed of ember ops (randn, matmul, linalg.qr, linalg.svd), so gradients flow through
those ops' own nodes as in torch (U: MmBackward0, S: LinalgSvdBackward0, V: TransposeBackward0).

Note [Low-rank draw]: the one random draw is randn(n, q) in A's dtype (float32 for an integer A)
where n is the smaller of A's two matrix dimensions (a wide A is solved as A^H, and U and V
swapped back); a batch of matrices shares that one unbatched draw. With the same seed this is
torch's draw, so ember reproduces torch's S to rounding, and U and V up to the sign of each
singular pair: the SVD of the small wide matrix B = Q^H A is LAPACK's gesdd in both, but MKL
(torch) and OpenBLAS (NumPy) pick different signs for wide matrices (ember.linalg.svd shows the
same on any wide input). Loaded on first use (Note [Lazy subpackages] in ember/__init__.py)."""
__all__ = ["svd_lowrank", "pca_lowrank"]

from ..dtypes import float32
from ..random import randn
from .decomp import linalg_qr, linalg_svd
from .matmul import matmul
from .shape import _mH


def _apply(A, M, X):
    """(A - M) X, computed as A X - M X (M: None or A's broadcast mean)."""
    Y = matmul(A, X)
    return Y if M is None else Y - matmul(M, X)


def _range_finder(A, q, niter, M):
    """Q with orthonormal columns whose span approximates the range of A - M: Halko et al.
    Algorithm 4.4 (randomized subspace iteration, a QR after every product)."""
    dtype = A.dtype if A.dtype.is_floating_point or A.dtype.is_complex else float32
    R = randn(A.shape[-1], q, dtype=dtype)
    Q = linalg_qr(_apply(A, M, R)).Q
    AH = _mH(A)
    MH = None if M is None else _mH(M)
    for _ in range(niter):
        Q = linalg_qr(_apply(AH, MH, Q)).Q
        Q = linalg_qr(_apply(A, M, Q)).Q
    return Q


def _svd_tall(A, q, niter, M):
    """Halko et al. Algorithm 5.1 for m >= n: B = Q^H (A - M), B = U_B S V^H, U = Q U_B."""
    Q = _range_finder(A, q, niter, M)
    B = _mH(_apply(_mH(A), None if M is None else _mH(M), Q))
    U, S, Vh = linalg_svd(B, full_matrices=False)
    return matmul(Q, U), S, _mH(Vh)


def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) with A - M ~= U diag(S) V^H, U: (*, m, q), S: (*, q), V: (*, n, q)."""
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.expand(A.size())
    if m < n:
        U, S, V = _svd_tall(_mH(A), q, niter, None if M is None else _mH(M))
        return V, S, U
    return _svd_tall(A, q, niter, M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """svd_lowrank of A with its column means (over dim -2) subtracted when center is true;
    q defaults to min(6, m, n)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A, q, niter=niter)
