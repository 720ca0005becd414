"""L-BFGS (Nocedal & Wright, Algorithm 7.4/7.5) with an optional strong-Wolfe line search
(Algorithms 3.5/3.6 with cubic interpolation, as in minFunc), on one flat parameter vector.

Scalars that torch keeps as 0-d tensors (dot products, ro, H_diag, the first step length)
are NumPy scalars of the parameters' dtype here, so float32 runs round as torch's do; the
state stores them as 0-d Tensors, torch's types."""
import numpy as np

from ..tensor import Tensor, wrap
from .optimizer import Optimizer, _bump, closure_loss, lr_value

__all__ = ["LBFGS"]


def cubic_minimizer(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clipped to
    bounds (default: the interval between x1 and x2); the midpoint if the cubic has none."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 ** 2 - g1 * g2
    if disc >= 0:
        d2 = np.sqrt(disc)
        if x1 <= x2:
            x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(x, lo), hi)
    return (lo + hi) / 2.0


def strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                 max_ls=25):
    """Find a step t along d satisfying the strong Wolfe conditions: first bracket an
    interval (growing t by cubic extrapolation), then shrink it (zoom). evaluate(t) returns
    (loss, flat gradient) at x + t*d. Returns (loss, gradient, t, evaluations)."""
    d_norm = np.abs(d).max()
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = g_new.dot(d)
    # (step, loss, gradient, directional derivative) at the previous trial point
    prev = [0, f, g.copy(), gtd]
    done = False
    it = 0
    while it < max_ls:
        if f_new > f + c1 * t * gtd or (it > 1 and f_new >= prev[1]):
            bracket = [prev, [t, f_new, g_new.copy(), gtd_new]]     # sufficient decrease fails
            break
        if abs(gtd_new) <= -c2 * gtd:                                 # curvature holds: done
            bracket = [[t, f_new, g_new, gtd_new]]
            done = True
            break
        if gtd_new >= 0:                                              # passed a minimum
            bracket = [prev, [t, f_new, g_new.copy(), gtd_new]]
            break
        # extrapolate: the next trial lies in [t + 0.01 (t - t_prev), 10 t]
        t_next = cubic_minimizer(prev[0], prev[1], prev[3], t, f_new, gtd_new,
                                 bounds=(t + 0.01 * (t - prev[0]), t * 10))
        prev = [t, f_new, g_new.copy(), gtd_new]
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    if it == max_ls:
        bracket = [[0, f, g, None], [t, f_new, g_new, None]]

    # zoom: keep the lower-loss end at `low`
    insufficient = False
    low, high = (0, 1) if bracket[0][1] <= bracket[-1][1] else (1, 0)
    while not done and it < max_ls:
        a, b = bracket[0][0], bracket[1][0]
        if abs(b - a) * d_norm < tolerance_change:
            break
        t = cubic_minimizer(a, bracket[0][1], bracket[0][3], b, bracket[1][1], bracket[1][3])
        top, bottom = max(a, b), min(a, b)
        eps = 0.1 * (top - bottom)
        # a trial too close to an end twice in a row (or outside) moves eps inside
        if min(top - t, t - bottom) < eps:
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket[low][1]:
            bracket[high] = [t, f_new, g_new.copy(), gtd_new]
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = [t, f_new, g_new.copy(), gtd_new]
    t, f_new, g_new = bracket[low][0], bracket[low][1], bracket[low][2]
    return f_new, g_new, t, evals


def _tensor(x):
    """A NumPy scalar kept in the state as a 0-d Tensor (torch's type); numbers stay."""
    return wrap(np.asarray(x)) if isinstance(x, np.generic) else x


def _scalar(x):
    """The state's 0-d Tensors back as NumPy scalars."""
    return x._data[()] if isinstance(x, Tensor) else x


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr_value(lr)}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        parts = [np.zeros(p._data.size, p._data.dtype) if p._grad is None else
                 p._grad._data.reshape(-1) for p in self._params]
        return np.concatenate(parts) if parts else np.zeros(0)

    def _add_step(self, t, d):
        """params += t * d (d flat, split over the parameters in order)."""
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += (d[offset:offset + n] * t).reshape(p._data.shape)
            _bump(p)
            offset += n

    def _set_params(self, arrays):
        for p, a in zip(self._params, arrays):
            np.copyto(p._data, a)
            _bump(p)

    def _evaluate(self, closure, x, t, d):
        """Loss and flat gradient at x + t*d; the parameters are restored to x after."""
        self._add_step(t, d)
        loss = float(closure_loss(closure))
        g = self._flat_grad()
        self._set_params(x)
        return loss, g

    def step(self, closure):
        """Up to max_iter L-BFGS iterations; closure re-evaluates the loss and gradients."""
        group = self.param_groups[0]
        lr = lr_value(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure_loss(closure)
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d = state.get("d")
        d = None if d is None else d._data
        t = _scalar(state.get("t"))
        old_dirs = [y._data for y in state.get("old_dirs", ())]
        old_stps = [s._data for s in state.get("old_stps", ())]
        ro = [_scalar(r) for r in state.get("ro", ())]
        H_diag = _scalar(state.get("H_diag"))
        prev_flat_grad = state.get("prev_flat_grad")
        prev_flat_grad = None if prev_flat_grad is None else prev_flat_grad._data
        prev_loss = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                # curvature pair from the last step; kept only if y's > 0 (stays convex)
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                # two-loop recursion: d = -H g with H from the stored pairs
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    a = old_stps[i].dot(q) * ro[i]
                    al[i] = wrap(np.asarray(a))
                    q -= old_dirs[i] * a
                d = q * H_diag
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(d) * ro[i]
                    d += old_stps[i] * (al[i]._data[()] - be_i)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss

            if state["n_iter"] == 1:
                inv = 1.0 / np.abs(flat_grad).sum()
                t = min(1.0, inv) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            ls_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x0 = [p._data.copy() for p in self._params]
                # the search may spend what is left of this step's max_eval
                loss, flat_grad, t, ls_evals = strong_wolfe(
                    lambda step: self._evaluate(closure, x0, step, d), t, d, loss, flat_grad,
                    gtd, max_ls=max_eval - evals)
                self._add_step(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_step(t, d)
                if n_iter != max_iter:
                    loss = float(closure_loss(closure))
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals

            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = wrap(d)
        state["t"] = _tensor(t)
        state["old_dirs"] = [wrap(y) for y in old_dirs]
        state["old_stps"] = [wrap(s) for s in old_stps]
        state["ro"] = [_tensor(r) for r in ro]
        state["H_diag"] = _tensor(H_diag)
        state["prev_flat_grad"] = wrap(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss
