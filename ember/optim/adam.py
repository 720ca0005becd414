"""Adam (and, with decoupled_weight_decay=True, AdamW): amsgrad, maximize, weight decay."""
import math

import numpy as np

from ..tensor import Tensor
from .optimizer import (Optimizer, _bump, adam_family_params, addcmul_sq_, check_lr,
                        closure_loss, lerp_, lr_value, real)

__all__ = ["Adam"]


def check_betas(betas, foreach, capturable):
    """torch's checks of betas given as Tensors (both or neither; 1 element each)."""
    b0, b1 = betas[0], betas[1]
    if isinstance(b0, Tensor) or isinstance(b1, Tensor):
        if not (isinstance(b0, Tensor) and isinstance(b1, Tensor)):
            raise ValueError("betas must be either both floats or both Tensors")
        if foreach and not capturable:
            raise ValueError("betas[0] as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        if b0.numel() != 1:
            raise ValueError("Tensor betas[0] must be 1-element")
        if b1.numel() != 1:
            raise ValueError("Tensor betas[1] must be 1-element")


def check_common(lr, eps, betas, weight_decay, foreach=None, capturable=False):
    """Validation shared by the Adam family, in torch's order."""
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        check_lr(lr)
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr_value(lr)}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {lr_value(betas[0])}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {lr_value(betas[1])}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def check_fused(fused, differentiable, foreach):
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_common(lr, eps, betas, weight_decay, foreach, capturable)
        check_betas(betas, foreach, capturable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        check_fused(fused, differentiable, foreach)

    _group_defaults = dict(amsgrad=False, maximize=False, foreach=None, capturable=False,
                            differentiable=False, decoupled_weight_decay=False, fused=None)

    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = (lr_value(b) for b in group["betas"])
            lr, eps, amsgrad = lr_value(group["lr"]), group["eps"], group["amsgrad"]
            moments = ("exp_avg_sq", "max_exp_avg_sq") if amsgrad else ("exp_avg_sq",)
            for p, state, step, param, grad in adam_family_params(self, group, moments):
                exp_avg, exp_avg_sq = real(state["exp_avg"]._data), \
                    real(state["exp_avg_sq"]._data)
                lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                t = addcmul_sq_(exp_avg_sq, grad, 1 - beta2)
                step_size = lr / (1 - beta1 ** step)
                bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
                if amsgrad:
                    max_sq = real(state["max_exp_avg_sq"]._data)
                    np.maximum(max_sq, exp_avg_sq, out=max_sq)
                    denom = np.sqrt(max_sq)
                else:
                    denom = np.sqrt(exp_avg_sq)
                denom /= bias_correction2_sqrt
                denom += eps
                np.multiply(exp_avg, -step_size, out=t)
                t /= denom
                param += t
                _bump(p)
        return loss
