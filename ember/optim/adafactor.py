"""Adafactor: second moments kept as row and column means for parameters of two or more
dimensions (a full one for vectors and scalars), a relative step min(lr, 1/sqrt(t)) scaled by
the parameter's RMS, updates clipped to RMS d; decoupled weight decay, maximize."""
import numpy as np

from .optimizer import (Optimizer, _bump, add_scaled_, bump_step, check_lr, closure_loss,
                        grad_of, lerp_fused_, lr_value, new_step, opmath, zeros_state)
from ..tensor import wrap

__all__ = ["Adafactor"]


def _norm(a, axis=None):
    """The 2-norm in a's dtype: summed in float64, rounded once (torch sums in its own
    order, which now and then rounds the other way)."""
    return np.sqrt(np.sum(np.square(a, dtype=np.float64), axis=axis, keepdims=axis is not None)
                   ).astype(a.dtype)


def _rms(a):
    """The root mean square: the 2-norm (in a's dtype) over the square root of the element
    count, in Python floats."""
    return float(_norm(a)) / a.size ** 0.5 if a.size else 0.0


def _mean_square(a, axis):
    """The mean of squares over an axis as torch's Adafactor computes it: the norm squared,
    over the count, in a's dtype."""
    n = _norm(a, axis)
    n *= n
    n /= a.dtype.type(a.shape[axis])
    return n


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        check_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr_value(lr)}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    _group_defaults = dict(foreach=None)   # (torch fills no maximize back in)

    def step(self, closure=None):
        """One Adafactor update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            lr, tau, d = lr_value(group["lr"]), group["beta2_decay"], group["d"]
            eps1, eps2 = group["eps"]
            wd = group["weight_decay"]
            params = self._params_with_grad(group)
            if any(p._data.dtype.kind == "c" for p in params):
                raise RuntimeError("Adafactor does not support complex parameters")
            for p in params:
                state = self.state[p]
                shape = p._data.shape
                if len(state) == 0:
                    state["step"] = new_step()
                    if len(shape) > 1:
                        state["row_var"] = wrap(np.zeros(shape[:-1] + (1,), p._data.dtype))
                        state["col_var"] = wrap(np.zeros(shape[:-2] + (1,) + shape[-1:],
                                                         p._data.dtype))
                    else:
                        state["variance"] = zeros_state(p)
                t = bump_step(state["step"])
                param = p._data
                grad = grad_of(p, group["maximize"])
                e1 = np.finfo(grad.dtype).eps if eps1 is None else eps1
                # the order of torch's operations, found by experiment (each rounding where
                # torch's is): the averages' weight t**tau (1 - beta2), fused lerps, the
                # row and column statistics as squared norms over the count, rsqrt times
                # the gradient, the clipping folded into the step size, a fused update
                weight = t ** tau
                alpha = max(eps2, _rms(param)) * min(lr, 1 / t ** 0.5)
                if wd != 0:
                    ct = opmath(param.dtype)
                    param[...] = param.astype(ct, copy=False) * ct(1 - lr * wd)
                    _bump(p)
                if len(shape) > 1:
                    row, col = state["row_var"]._data, state["col_var"]._data
                    lerp_fused_(row, _mean_square(grad, -1), weight)
                    lerp_fused_(col, _mean_square(grad, -2), weight)
                    var = row * col
                    var /= np.maximum(np.mean(row, axis=-2, keepdims=True), e1)
                else:
                    var = state["variance"]._data
                    lerp_fused_(var, np.square(grad), weight)
                update = np.asarray(np.maximum(var, var.dtype.type(e1 * e1)))
                update = np.sqrt(update, out=update)
                update = np.divide(1, update, out=update)
                update *= grad
                add_scaled_(param, update, -alpha / max(1.0, _rms(update) / d))
                _bump(p)
        return loss
