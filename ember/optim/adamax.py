"""Adamax: Adam with the infinity norm; betas, eps, weight decay, maximize."""
import numpy as np

from .adam import check_common
from .optimizer import (Optimizer, _bump, bump_step, closure_loss, grad_of, lerp_,
                        lr_value, new_step, real, with_weight_decay, zeros_state)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_common(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        """One Adamax update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            beta1, beta2 = group["betas"]
            lr, eps, wd = lr_value(group["lr"]), group["eps"], group["weight_decay"]
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["exp_avg"] = zeros_state(p)
                    state["exp_inf"] = zeros_state(p)
                step = bump_step(state["step"])
                param = real(p._data)
                grad = grad_of(p, group["maximize"])
                if wd != 0:
                    grad = with_weight_decay(grad, param, wd)
                exp_avg, exp_inf = real(state["exp_avg"]._data), real(state["exp_inf"]._data)
                lerp_(exp_avg, grad, 1 - beta1)
                exp_inf *= beta2
                t = np.abs(grad)
                t += eps
                np.maximum(exp_inf, t, out=exp_inf)
                clr = lr / (1 - beta1 ** step)
                param += (exp_avg * -clr) / exp_inf
                _bump(p)
        return loss
