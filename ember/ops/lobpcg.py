"""torch.lobpcg: the k largest (or smallest) eigenpairs of a symmetric positive definite
generalized eigenproblem A x = lambda B x, by Knyazev's LOBPCG (2001): each step does a
Rayleigh-Ritz on the span of the current Ritz vectors X, the preconditioned residuals
W = iK (A X - B X diag(E)) and the previous search directions P.

method="basic" (Knyazev) does the Rayleigh-Ritz with Gram matrices and a Cholesky factor of the
B-Gram matrix (it fails, as torch's does, when that matrix is numerically singular), and, as
torch's basic method does, takes as P the Ritz vectors of the next n Ritz values;
method="ortho" first B-orthonormalizes [W, P] against X by the block procedure of Stathopoulos
& Wu (2002), repeated SVQB steps (Duersch et al. 2018), so the Rayleigh-Ritz is a plain
symmetric eigenproblem. Converged leading pairs are locked: their W and P columns leave the basis
(soft locking) and X, E keep them unchanged.

The state a `tracker` sees follows torch's LOBPCG object: iparams/fparams/bparams, ivars
(istep, iterations_left, converged_count, converged_end, ortho_i, ortho_j), fvars (X_norm,
A_norm, B_norm, the ortho residuals), bvars (force_stop), tvars (rerr), and A, B, iK, E, X, S, R.
The one random draw is randn(m, n) in A's dtype (float32 unless A is floating), one per matrix
of a batch, as torch's. The iterates equal torch's to rounding (the same draw and the same
subspaces: X, then [X, W], then [X, W, P], P for "ortho" the W and P parts of the new Ritz
vectors): for "ortho" at every step, locking and the tracker's counters included; for "basic"
until the first pair locks (torch's basic locking then takes other steps to the same pairs).
Where [X, W, P] is numerically rank-deficient (m close to 3n) rounding picks the basis, and the
two may part earlier.

Gradients (A only, B None): when A requires grad, A is first symmetrized, (A + A^T) / 2, and the
solver runs as LOBPCGAutogradFunction, whose backward is the derivative of the selected
eigenpairs of a symmetric matrix: gA = U diag(gE) U^T - sum_i (A - E_i)^+ gU_i u_i^T, the
pseudo-inverses taken from a full eigh of A (so create_graph works). Loaded on first use (Note
[Lazy subpackages] in ember/__init__.py)."""
__all__ = ["lobpcg", "LOBPCG"]

import math

from ..autograd.function import Function
from ..creation import eye, zeros
from ..dtypes import float32, float64
from ..random import randn
from .decomp import eigh, linalg_cholesky
from .join import cat, stack
from .matmul import matmul
from .reduce import vector_norm
from .shape import _mH
from .solve import solve_triangular

_FEPS = {float32: 1.2e-07, float64: 2.23e-16}


def _mm(A, X):
    """A X, or X when A is None (the identity)."""
    return X if A is None else matmul(A, X)


def _norm(X):
    return float(vector_norm(X))


def _top(L, Z, count, largest):
    """The `count` eigenpairs (L ascending, Z's columns) wanted: largest first, or smallest."""
    if largest:
        L, Z = L.flip(-1), Z.flip(-1)
    return L[:count], Z[:, :count]


class LOBPCG:
    """The iteration's state, as a tracker sees it (torch's worker object)."""

    def __init__(self, A, B, X, iK, iparams, fparams, bparams, method, tracker):
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.method, self.tracker = method, tracker
        m, n = iparams["m"], iparams["n"]
        self.X = X
        self.E = zeros((n,), dtype=X.dtype)
        self.R = zeros((m, n), dtype=X.dtype)
        self.S = zeros((m, 3 * n), dtype=X.dtype)
        self.ivars = {"istep": 0, "iterations_left": iparams["niter"], "converged_count": 0,
                      "converged_end": 0}
        self.fvars = {"_": 0.0}
        self.bvars = {"_": False}
        self.tvars = {}
        self._W = self._P = None

    def __str__(self):
        lines = ["LOBPCG:"]
        for name in ("iparams", "fparams", "bparams", "ivars", "fvars", "bvars", "tvars"):
            lines.append(f"  {name}={getattr(self, name)}")
        for name in ("A", "B", "iK", "X", "E"):
            lines.append(f"  {name}={getattr(self, name)}")
        return "\n".join(lines) + "\n"

    # ---- the iteration
    def run(self):
        self.update()
        self.call_tracker()
        while not self.stop_iteration():
            self.update()
            self.call_tracker()

    def call_tracker(self):
        if self.tracker is not None:
            self.tracker(self)

    def stop_iteration(self):
        return (self.bvars.get("force_stop", False) or self.ivars["iterations_left"] == 0
                or self.ivars["converged_count"] >= self.iparams["k"])

    def update(self):
        n = self.iparams["n"]
        ortho = self.method == "ortho"
        if self.ivars["istep"] == 0:
            X = self.X
            X_norm = _norm(X)
            iX_norm = X_norm ** -1         # torch's ZeroDivisionError for an empty or zero X
            self.fvars["X_norm"] = X_norm
            self.fvars["A_norm"] = _norm(_mm(self.A, X)) * iX_norm
            self.fvars["B_norm"] = _norm(_mm(self.B, X)) * iX_norm
            if ortho:
                self.X = self._get_ortho(X, None)
            else:
                self.E, C = self._rayleigh_ritz(X, n)
                self.X = matmul(X, C)
            self._P = None
        else:
            self._update_step(self.ivars["converged_count"], ortho)
        self.update_residual()
        self.update_converged_count()
        cc = self.ivars["converged_count"]
        self._W = _mm(self.iK, self.R[:, cc:])
        parts = [self.X, self._W] + ([] if self._P is None else [self._P])
        width = sum(p.shape[-1] for p in parts)
        self.ivars["converged_end"] = width
        S = cat(parts, -1)
        if width < 3 * n:
            S = cat([S, zeros((S.shape[0], 3 * n - width), dtype=S.dtype)], -1)
        self.S = S
        self.ivars["istep"] += 1
        self.ivars["iterations_left"] = self.iparams["niter"] - self.ivars["istep"]

    def _update_step(self, cc, ortho):
        """One Rayleigh-Ritz on [X_active, W, P]; the first cc (converged) pairs stay locked."""
        n = self.iparams["n"]
        X_lock, X_act = self.X[:, :cc], self.X[:, cc:]
        D = [self._W] + ([] if self._P is None else [self._P])
        D = cat(D, -1) if len(D) > 1 else D[0]
        nx = X_act.shape[-1]
        if ortho:
            U = self._get_ortho(D, self.X)
            S = cat([X_act, U], -1)
            T = matmul(_mH(S), _mm(self.A, S))
            L, Z = eigh((T + _mH(T)) * 0.5)
            theta, Z = _top(L, Z, n - cc, self.bparams["largest"])
        else:
            if cc:
                D = D - matmul(X_lock, matmul(_mH(X_lock), _mm(self.B, D)))
            S = cat([X_act, D], -1)
            theta, Z = self._rayleigh_ritz(S, 2 * (n - cc))
            # torch's basic method: the next n Ritz vectors become the search directions
            self._P = matmul(S, Z[:, n - cc:])
            theta, Z = theta[:n - cc], Z[:, :n - cc]
        X_new = matmul(S, Z)
        if ortho:
            self._P = matmul(S[:, nx:], Z[nx:, :])
        self.X = cat([X_lock, X_new], -1) if cc else X_new
        self.E = cat([self.E[:cc], theta], -1) if cc else theta

    def _rayleigh_ritz(self, S, count):
        """(theta, C): the wanted Ritz pairs of span(S), C such that S C is B-orthonormal, with
        the Gram matrix S^T B S Jacobi-scaled and Cholesky-factored (Knyazev's basic method)."""
        SBS = matmul(_mH(S), _mm(self.B, S))
        SAS = matmul(_mH(S), _mm(self.A, S))
        d = (SBS.diagonal(0, -2, -1)) ** -0.5
        Rf = linalg_cholesky((SBS * d.unsqueeze(-2)) * d.unsqueeze(-1), upper=True)
        Rinv = solve_triangular(Rf, eye(Rf.shape[-1], dtype=Rf.dtype), upper=True)
        Ri = Rinv * d.unsqueeze(-1)
        T = matmul(_mH(Ri), matmul(SAS, Ri))
        L, Z = eigh((T + _mH(T)) * 0.5)
        theta, Z = _top(L, Z, count, self.bparams["largest"])
        return theta, matmul(Ri, Z)

    def update_residual(self):
        BX = _mm(self.B, self.X)
        self.R = _mm(self.A, self.X) - BX * self.E
        rerr = vector_norm(self.R, dim=-2) / (
            (self.fvars["A_norm"] + self.E.abs() * self.fvars["B_norm"])
            * vector_norm(self.X, dim=-2))
        self.tvars["rerr"] = rerr

    def update_converged_count(self):
        ok = (self.tvars["rerr"] < self.fparams["tol"]).tolist()
        count = 0
        while count < len(ok) and ok[count]:
            count += 1
        self.ivars["converged_count"] = count

    # ---- Stathopoulos & Wu's B-orthonormalization
    def _svqb(self, U, drop, tau):
        """U's columns B-orthonormalized by one SVQB step (an eigendecomposition of the scaled
        Gram matrix); small eigenvalues are dropped, or raised to tau * max."""
        if U.shape[-1] == 0:
            return U
        UBU = matmul(_mH(U), _mm(self.B, U))
        d = UBU.diagonal(0, -2, -1)
        keep = (d > 0).tolist()
        if not all(keep):
            idx = [i for i, k in enumerate(keep) if k]
            U, UBU, d = U[:, idx], UBU[idx][:, idx], d[idx]
            if not idx:
                return U
        Dm = d ** -0.5
        L, Z = eigh((UBU * Dm.unsqueeze(-1)) * Dm.unsqueeze(-2))
        top = float(L.abs().max())
        if drop:
            idx = [i for i, v in enumerate((L > tau * top).tolist()) if v]
            L, Z = L[idx], Z[:, idx]
        else:
            L = L.clamp(min=tau * top)
        return matmul(U * Dm.unsqueeze(-2), Z * L.unsqueeze(-2) ** -0.5)

    def _get_ortho(self, U, V):
        """U B-orthonormalized, and B-orthogonal to V's (B-orthonormal) columns when V is given."""
        i_max, j_max = self.iparams["ortho_i_max"], self.iparams["ortho_j_max"]
        tau = self.fparams["ortho_tol"]
        drop = self.bparams["ortho_use_drop"]
        tau_svqb = self.fparams["ortho_tol_drop" if drop else "ortho_tol_replace"]
        BV_norm = None if V is None else _norm(_mm(self.B, V))
        i = j = 0
        for i in range(i_max):
            if V is not None:
                U = U - matmul(V, matmul(_mH(V), _mm(self.B, U)))
            for j in range(j_max):
                U = self._svqb(U, drop, tau_svqb)
                UBU = matmul(_mH(U), _mm(self.B, U))
                k = U.shape[-1]
                ident = eye(k, dtype=U.dtype)
                rerr = _norm(UBU - ident) / max(_norm(ident), 1.0)
                self.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = rerr
                if rerr < tau:
                    break
            if V is None:
                break
            VBU = matmul(_mH(V), _mm(self.B, U))
            denom = BV_norm * _norm(U)
            rerr = _norm(VBU) / denom if denom else 0.0
            self.fvars[f"ortho_VBU_rerr[{i}]"] = rerr
            if rerr < tau:
                break
        self.ivars["ortho_i"], self.ivars["ortho_j"] = i, j
        return U


def _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
            ortho_fparams, ortho_bparams):
    m = A.shape[-1]
    if A.shape[-2] != m:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and B.shape != A.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = A.dtype if A.dtype.is_floating_point else float32
    if tol is None:
        tol = _FEPS[dtype] ** 0.5
    if k is None:
        k = 1 if X is None else X.shape[-1]
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter}
    fparams = {"tol": tol}
    bparams = {"largest": True if largest is None else largest}
    if method == "ortho":
        iparams.update(ortho_i_max=3, ortho_j_max=3)
        fparams.update(ortho_tol=tol, ortho_tol_drop=tol, ortho_tol_replace=tol)
        bparams["ortho_use_drop"] = False
        iparams.update(ortho_iparams or {})
        fparams.update(ortho_fparams or {})
        bparams.update(ortho_bparams or {})
    if A.dim() > 2:
        batch = A.shape[:-2]
        N = math.prod(batch)
        bA = A.reshape((N, m, m))
        bB = None if B is None else B.reshape((N, m, m))
        bX = None if X is None else X.reshape((N, m, n))
        bK = None if iK is None or iK.dim() == 2 else iK.reshape((N, m, m))
        Es, Xs = [], []
        for b in range(N):
            worker = _run(bA[b], None if bB is None else bB[b],
                          None if bX is None else bX[b],
                          iK if bK is None else bK[b], m, n, dtype, iparams, fparams, bparams,
                          method, tracker)
            Es.append(worker.E[:k])
            Xs.append(worker.X[:, :k])
        E, U = stack(Es), stack(Xs)
        return E.reshape(tuple(batch) + E.shape[-1:]), U.reshape(tuple(batch) + U.shape[-2:])
    worker = _run(A, B, X, iK, m, n, dtype, iparams, fparams, bparams, method, tracker)
    return worker.E[:k], worker.X[:, :k]


def _run(A, B, X, iK, m, n, dtype, iparams, fparams, bparams, method, tracker):
    if X is None:
        X = randn(m, n, dtype=dtype)
    elif X.shape != (m, n):
        raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(m, n)}")
    worker = LOBPCG(A, B, X, iK, dict(iparams), dict(fparams), dict(bparams), method, tracker)
    worker.run()
    return worker


class LOBPCGAutogradFunction(Function):
    """lobpcg with the derivative of its eigenpairs (A symmetric, B None)."""

    @staticmethod
    def forward(ctx, A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None,
                largest=None, method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
                ortho_bparams=None):
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
                       ortho_fparams, ortho_bparams)
        ctx.save_for_backward(A, D, U)
        ctx.has_B = B is not None
        ctx.largest = True if largest is None else largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        if ctx.has_B:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        A, D, U = ctx.saved_tensors
        k = D.shape[-1]
        m = A.shape[-1]
        gA = None
        if D_grad is not None:
            gA = matmul(U * D_grad.unsqueeze(-2), _mH(U))
        if U_grad is not None:
            # (A - E_i)^+ gU_i = V diag(1 / (L_j - L_i), j != i) V^T gU_i, from a full eigh
            L, V = eigh(A)
            idx = [m - 1 - i for i in range(k)] if ctx.largest else list(range(k))
            Li = L[..., idx]
            diff = L.unsqueeze(-1) - Li.unsqueeze(-2)                  # (*, m, k)
            mask = zeros((m, k), dtype=L.dtype)
            for col, row in enumerate(idx):
                mask[row, col] = 1.0
            F = (1 - mask) / (diff + mask)
            Y = matmul(V, F * matmul(_mH(V), U_grad))
            t = -matmul(Y, _mH(U))
            gA = t if gA is None else gA + t
        return (gA,) + (None,) * 13


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """torch.lobpcg: (E, X), the k largest (largest=True) or smallest eigenvalues E (*, k) and
    their B-orthonormal eigenvectors X (*, m, k) of A x = lambda B x, A and B symmetric positive
    definite."""
    A_grad = A.requires_grad
    B_grad = B is not None and B.requires_grad
    if A_grad or B_grad:
        A_sym = (A + A.mT) / 2 if A_grad else A
        B_sym = (B + B.mT) / 2 if B_grad else B
        return LOBPCGAutogradFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest,
                                             method, tracker, ortho_iparams, ortho_fparams,
                                             ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams,
                   ortho_fparams, ortho_bparams)
