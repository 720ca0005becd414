"""RMSprop: centered, momentum, alpha, weight decay, maximize."""
import numpy as np

from .optimizer import (Optimizer, _bump, addcmul_sq_, bump_step, check_lr,
                        closure_loss, grad_of, lerp_, lr_value, new_step, real, with_weight_decay,
                        zeros_state)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr_value(lr)}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    _group_defaults = dict(momentum=0, centered=False, foreach=None, maximize=False,
                            differentiable=False, capturable=False)

    def step(self, closure=None):
        """One RMSprop update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            lr, alpha, eps = lr_value(group["lr"]), group["alpha"], group["eps"]
            wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["square_avg"] = zeros_state(p)
                    if momentum > 0:
                        state["momentum_buffer"] = zeros_state(p)
                    if centered:
                        state["grad_avg"] = zeros_state(p)
                bump_step(state["step"])
                param = real(p._data)
                grad = grad_of(p, group["maximize"])
                if wd != 0:
                    grad = with_weight_decay(grad, param, wd)
                square_avg = real(state["square_avg"]._data)
                square_avg *= alpha
                t = addcmul_sq_(square_avg, grad, 1 - alpha)
                if centered:
                    grad_avg = real(state["grad_avg"]._data)
                    lerp_(grad_avg, grad, 1 - alpha)
                    np.multiply(grad_avg, -1, out=t)
                    t *= grad_avg
                    t += square_avg
                    avg = np.sqrt(t, out=t)
                else:
                    avg = np.sqrt(square_avg)
                avg += eps
                if momentum > 0:
                    buf = real(state["momentum_buffer"]._data)
                    buf *= momentum
                    buf += grad / avg
                    param -= buf * lr
                else:
                    param += (grad * -lr) / avg
                _bump(p)
        return loss
