"""ASGD: averaged stochastic gradient descent (decaying step eta, averaging from step t0 on
into `ax`); weight decay, maximize."""
import numpy as np

from .optimizer import (Optimizer, _bump, bump_step, check_lr, closure_loss, grad_of,
                        lr_value, new_step, real, scalar_dtype, with_weight_decay, zeros_state)
from ..tensor import wrap

__all__ = ["ASGD"]


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr_value(lr)}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def _check_capturable(self, group):
        if group.get("capturable"):
            raise AssertionError("If capturable=True, params, mus, etas, and state_steps must "
                                 "be on supported devices: ['cuda', 'xpu', 'hpu', "
                                 "'privateuseone', 'xla'].")

    def step(self, closure=None):
        """One ASGD update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            lr, lambd, alpha = lr_value(group["lr"]), group["lambd"], group["alpha"]
            t0, wd = group["t0"], group["weight_decay"]
            for p in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = new_step()
                    state["eta"] = wrap(np.array(lr, scalar_dtype()))
                    state["mu"] = wrap(np.ones((), scalar_dtype()))
                    state["ax"] = zeros_state(p)
                step = bump_step(state["step"])
                param = real(p._data)
                grad = grad_of(p, group["maximize"])
                if wd != 0:
                    grad = with_weight_decay(grad, param, wd)
                eta_t, mu_t = state["eta"]._data, state["mu"]._data
                eta, mu = float(eta_t), float(mu_t)
                param *= 1 - lambd * eta
                _bump(p)
                param -= grad * eta
                _bump(p)
                ax = real(state["ax"]._data)
                if mu != 1:
                    ax += (param - ax) * mu
                else:
                    ax[...] = param
                if group["foreach"]:
                    # torch's foreach form works on the step tensors, in their dtype
                    f = eta_t.dtype.type
                    eta_t[...] = f(lr) / (f(1) + f(lambd * lr) * f(step)) ** f(alpha)
                else:
                    # (a tensor of the default dtype, copied in: rounded through it)
                    eta_t[...] = np.array(lr / ((1 + lambd * lr * step) ** alpha),
                                          scalar_dtype())
                mu_t[...] = np.array(1 / max(1, step - t0), scalar_dtype())
        return loss
