"""RAdam: rectified Adam; decoupled_weight_decay, maximize."""
import math

import numpy as np

from .adam import check_common
from .optimizer import (Optimizer, _bump, adam_family_params, addcmul_sq_, closure_loss, lerp_,
                        lr_value, real)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_common(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False,
                            decoupled_weight_decay=False, capturable=False)

    def step(self, closure=None):
        """One RAdam update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps = lr_value(group["lr"]), group["eps"]
            for p, state, step, param, grad in adam_family_params(self, group, ("exp_avg_sq",)):
                exp_avg, exp_avg_sq = real(state["exp_avg"]._data), \
                    real(state["exp_avg_sq"]._data)
                lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                addcmul_sq_(exp_avg_sq, grad, 1 - beta2)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                corrected = exp_avg / bias_correction1
                # the length of the approximated simple moving average (rho_t) decides
                # whether the variance is tractable enough to rectify
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                corrected *= lr
                if rho_t > 5.0:
                    rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                                     / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                    adaptive_lr = np.sqrt(exp_avg_sq)
                    adaptive_lr += eps
                    np.divide(math.sqrt(bias_correction2), adaptive_lr, out=adaptive_lr)
                    corrected *= adaptive_lr
                    corrected *= rect
                param -= corrected
                _bump(p)
        return loss
