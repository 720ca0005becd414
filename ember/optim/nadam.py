"""NAdam: Adam with Nesterov momentum; momentum_decay, decoupled_weight_decay."""
import numpy as np

from ..tensor import wrap
from .adam import check_common
from .optimizer import (Optimizer, _bump, adam_family_params, addcmul_sq_, closure_loss,
                        lerp_, lr_value, real, scalar_dtype)

__all__ = ["NAdam"]


def _mu_product(p):
    """NAdam's running product of the momentum coefficients: a 0-d default-dtype tensor."""
    return wrap(np.ones((), scalar_dtype()))


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_common(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    _group_defaults = dict(maximize=False, foreach=None, capturable=False, differentiable=False,
                            decoupled_weight_decay=False)
    _step_keys = ("step", "mu_product")

    def step(self, closure=None):
        """One NAdam update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps = lr_value(group["lr"]), group["eps"]
            momentum_decay = group["momentum_decay"]
            for p, state, step, param, grad in adam_family_params(
                    self, group, ("exp_avg_sq",), extra=(("mu_product", _mu_product),)):
                bias_correction2 = 1 - beta2 ** step
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
                # mu_product is a 0-d tensor of the default dtype: its product is rounded
                # there, as in torch.
                mp = state["mu_product"]._data
                mp *= mu
                mu_product = float(mp)
                exp_avg, exp_avg_sq = real(state["exp_avg"]._data), \
                    real(state["exp_avg_sq"]._data)
                lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                addcmul_sq_(exp_avg_sq, grad, 1 - beta2)
                denom = exp_avg_sq / bias_correction2
                np.sqrt(denom, out=denom)
                denom += eps
                mu_product_next = mu_product * mu_next
                param += (grad * (-lr * (1.0 - mu) / (1.0 - mu_product))) / denom
                param += (exp_avg * ((-lr * mu_next) / (1.0 - mu_product_next))) / denom
                _bump(p)
                _bump(p)
        return loss
