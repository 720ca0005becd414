"""Rprop: resilient backpropagation, per-element step sizes grown or shrunk by the sign of
successive gradients (etas), kept within step_sizes; maximize."""
import numpy as np

from .optimizer import (Optimizer, _bump, bump_step, check_lr, closure_loss, grad_of,
                        lr_value, new_step, real)
from ..tensor import wrap

__all__ = ["Rprop"]


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr_value(lr)}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        """One Rprop update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_min, step_max = group["step_sizes"]
            lr = lr_value(group["lr"])
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["prev"] = wrap(np.zeros_like(p._data))
                    # complex parameters: lr on the real and the imaginary parts alike
                    fill = complex(lr, lr) if p._data.dtype.kind == "c" else lr
                    state["step_size"] = wrap(np.full_like(p._data, fill))
                bump_step(state["step"])
                param = real(p._data)
                grad = grad_of(p, group["maximize"])
                prev, step_size = real(state["prev"]._data), real(state["step_size"]._data)
                sign = np.sign(grad * prev)
                factor = np.where(sign > 0, etaplus, np.where(sign < 0, etaminus, 1.0))
                step_size *= factor.astype(step_size.dtype, copy=False)
                np.clip(step_size, step_min, step_max, out=step_size)
                grad = np.where(sign < 0, np.zeros((), grad.dtype), grad)
                param -= np.sign(grad) * step_size
                _bump(p)
                prev[...] = grad
        return loss
