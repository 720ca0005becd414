"""Adagrad: lr_decay, initial_accumulator_value, weight decay, maximize."""
import numpy as np

from .adam import check_fused
from .optimizer import (Optimizer, _bump, bump_step, check_lr, closure_loss,
                        grad_of, lr_value, new_step, real, with_weight_decay, zeros_state)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr_value(lr)}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError("Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        check_fused(fused, differentiable, foreach)
        # Adagrad's state exists from the start (torch builds it in the constructor).
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = new_step()
                init = group["initial_accumulator_value"]
                state["sum"] = zeros_state(p, complex(init, init) if p.is_complex() else init)

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, fused=None)

    def step(self, closure=None):
        """One Adagrad update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            lr, lr_decay = lr_value(group["lr"]), group["lr_decay"]
            wd, eps = group["weight_decay"], group["eps"]
            for p in params:
                state = self.state[p]
                step = bump_step(state["step"])
                param = real(p._data)
                grad = grad_of(p, group["maximize"])
                if wd != 0:
                    grad = with_weight_decay(grad, param, wd)
                clr = lr / (1 + (step - 1) * lr_decay)
                acc = real(state["sum"]._data)
                acc += grad * grad
                std = np.sqrt(acc)
                std += eps
                param += (grad * -clr) / std
                _bump(p)
        return loss
