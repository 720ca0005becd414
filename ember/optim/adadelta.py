"""Adadelta: rho, eps, weight decay, maximize."""
import numpy as np

from .optimizer import (Optimizer, _bump, addcmul_sq_, bump_step, check_lr,
                        closure_loss, grad_of, lr_value, new_step, real, with_weight_decay,
                        zeros_state)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr_value(lr)}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def step(self, closure=None):
        """One Adadelta update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            lr, rho, eps, wd = lr_value(group["lr"]), group["rho"], group["eps"], \
                group["weight_decay"]
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["square_avg"] = zeros_state(p)
                    state["acc_delta"] = zeros_state(p)
                bump_step(state["step"])
                param = real(p._data)
                grad = grad_of(p, group["maximize"])
                if wd != 0:
                    grad = with_weight_decay(grad, param, wd)
                square_avg = real(state["square_avg"]._data)
                acc_delta = real(state["acc_delta"]._data)
                square_avg *= rho
                addcmul_sq_(square_avg, grad, 1 - rho)
                std = square_avg + eps
                np.sqrt(std, out=std)
                delta = acc_delta + eps
                np.sqrt(delta, out=delta)
                delta /= std
                delta *= grad
                acc_delta *= rho
                addcmul_sq_(acc_delta, delta, 1 - rho)
                param += delta * -lr
                _bump(p)
        return loss
