"""Adamax: Adam with the infinity norm; betas, eps, weight decay, maximize."""
import numpy as np

from .adam import check_common
from .optimizer import Optimizer, _bump, adam_family_params, closure_loss, lerp_, lr_value, real

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
            beta1, beta2 = group["betas"]
            lr, eps = lr_value(group["lr"]), group["eps"]
            for p, state, step, param, grad in adam_family_params(self, group, ("exp_inf",)):
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
