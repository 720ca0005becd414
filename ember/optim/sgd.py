"""SGD with momentum, dampening, Nesterov momentum, weight decay and maximize."""
from .optimizer import (Optimizer, _bump, check_lr, closure_loss, grad_of, lr_value, real,
                        with_weight_decay, zeros_state)

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_lr(lr)
        if lr_value(lr) < 0.0:
            raise ValueError(f"Invalid learning rate: {lr_value(lr)}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    _group_defaults = dict(nesterov=False, maximize=False, foreach=None, differentiable=False,
                            fused=False)
    _step_keys = ()

    def step(self, closure=None):
        """One SGD update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            params = self._params_with_grad(group)
            lr = lr_value(group["lr"])
            wd, momentum = lr_value(group["weight_decay"]), group["momentum"]
            dampening, nesterov = group["dampening"], group["nesterov"]
            for p in params:
                param = real(p._data)
                grad = grad_of(p, group["maximize"])
                if wd != 0:
                    grad = with_weight_decay(grad, param, wd)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = zeros_state(p)
                        b = real(buf._data)
                        b[...] = grad
                    else:
                        b = real(buf._data)
                        b *= momentum
                        b += grad if dampening == 0 else grad * (1 - dampening)
                    grad = grad + b * momentum if nesterov else b
                param -= grad * lr
                _bump(p)
        return loss
