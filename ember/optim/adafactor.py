"""Adafactor: second moments kept as row and column means for parameters of two or more
dimensions (a full one for vectors and scalars), a relative step min(lr, 1/sqrt(t)) scaled by
the parameter's RMS, updates clipped to RMS d; decoupled weight decay, maximize."""
import numpy as np

from .optimizer import (Optimizer, _bump, bump_step, check_lr, closure_loss, grad_of,
                        lerp_, lr_value, new_step, zeros_state)
from ..tensor import wrap

__all__ = ["Adafactor"]


def _rms(a):
    """The root mean square: the 2-norm over the square root of the element count."""
    return float(np.sqrt(np.sum(np.square(a)))) / a.size ** 0.5 if a.size else 0.0


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
                beta2 = 1 - t ** tau
                alpha = max(eps2, _rms(param)) * min(lr, 1 / t ** 0.5)
                if wd != 0:
                    param *= 1 - lr * wd
                    _bump(p)
                sq = np.square(grad)
                if len(shape) > 1:
                    row, col = state["row_var"]._data, state["col_var"]._data
                    lerp_(row, np.mean(sq, axis=-1, keepdims=True), 1 - beta2)
                    lerp_(col, np.mean(sq, axis=-2, keepdims=True), 1 - beta2)
                    var = row * col
                    var /= np.maximum(np.mean(row, axis=-2, keepdims=True), e1)
                else:
                    var = state["variance"]._data
                    lerp_(var, sq, 1 - beta2)
                update = grad / np.sqrt(np.maximum(var, e1 * e1))
                update /= max(1.0, _rms(update) / d)
                update *= alpha
                param -= update
                _bump(p)
        return loss
