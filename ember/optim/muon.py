"""Muon: momentum orthogonalised by a Newton-Schulz iteration, for 2-d parameters.

What torch 2.13 computes, found by running it (its docstring says B = mu B + g and, with
Nesterov, g + mu B; the numbers say otherwise):
    B <- lerp(B, g, 1 - mu)                  (B = mu B + (1 - mu) g)
    U <- lerp(g, B, mu) if nesterov else B   (U = (1 - mu) g + mu B)
    O <- NS(U): in bfloat16, transposed when rows > cols, X = U / max(||U||_F, eps), then
         ns_steps times A = X X^T, B = addmm(A, A, A, beta=b, alpha=c) (b A + c A A),
         X = addmm(X, B, X, beta=a) (a X + B X)
    p <- p * (1 - lr wd);  p <- p - lr' O, lr' = lr sqrt(max(1, rows/cols)) ("original", the
         default) or 0.2 lr sqrt(max(rows, cols)) ("match_rms_adamw")
torch computes NS in bfloat16, a dtype ember does not have: ember keeps bfloat16 values in
float32 arrays and rounds every result to bfloat16 (to nearest even) where torch's does. The
lerps and the final add are fused multiply-adds in torch; ember rounds them once too."""
import numpy as np

from .optimizer import (Optimizer, _bump, add_scaled_, check_lr, closure_loss, lerp_fused_,
                        lr_value, opmath, zeros_state)
from ..dtypes import type_name

__all__ = ["Muon"]

_ADJUST_LR_FNS = ("original", "match_rms_adamw")


def _bf16(x):
    """x rounded to bfloat16 (nearest, ties to even), kept as float32. float64 goes through
    float32 first, a double rounding, as torch converts it."""
    x = np.asarray(x, np.float32)
    u = x.view(np.uint32)
    # add just under half a bfloat16 ulp (half when the kept last bit is odd), cut 16 bits;
    # a NaN's bits may wrap around here, so NaNs are put back after
    r = ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1)))
         & np.uint32(0xFFFF0000)).view(np.float32)
    return np.where(np.isnan(x), x, r)


def _matmul(x, y):
    """A bfloat16 matrix product (the float32 arrays hold bfloat16 values): the products are
    exact and summed in float64, then rounded. torch sums in float32 in its own order, so in
    about one matrix in fifteen an element rounds to the neighbouring bfloat16 value."""
    return x.astype(np.float64) @ y.astype(np.float64)


def _addmm(c, x, y, beta, alpha):
    """bfloat16 addmm: beta * c + alpha * (x @ y), the scalars in float32, rounded once."""
    prod = _matmul(x, y)
    return _bf16(np.float64(np.float32(beta)) * c + np.float64(np.float32(alpha)) * prod)


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """Newton-Schulz orthogonalisation of a 2-d array, in bfloat16 as torch computes it;
    returns the float32 array of bfloat16 values."""
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = _bf16(grad)
    transposed = x.shape[0] > x.shape[1]
    if transposed:
        x = x.T
    # the norm as torch takes it: squares in float32 (they overflow to inf past 1.8e19 and
    # underflow below 1e-23, as torch's do), summed (here in float64), the sum in float32
    norm = _bf16(np.sqrt(np.float32(np.sum(np.square(x), dtype=np.float64))))
    x = _bf16(x / np.maximum(norm, _bf16(eps)))
    for _ in range(ns_steps):
        gram = _bf16(_matmul(x, x.T))
        poly = _addmm(gram, gram, gram, b, c)
        x = _addmm(x, poly, x, a, 1.0)
    return x.T if transposed else x


def _adjust_lr(lr, adjust_lr_fn, shape):
    rows, cols = shape
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * max(1, rows / cols) ** 0.5
    return 0.2 * max(rows, cols) ** 0.5 * lr


class Muon(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5,
                 adjust_lr_fn=None):
        check_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in _ADJUST_LR_FNS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        # (checked once here: a group added later is not, as in torch)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    _step_keys = ()

    def step(self, closure=None):
        """One Muon update of every parameter that has a gradient."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            lr, wd = lr_value(group["lr"]), lr_value(group["weight_decay"])
            momentum = lr_value(group["momentum"])
            params = [p for p in group["params"] if p._grad is not None]
            # first every buffer (a complex parameter stops the step before any), then the
            # updates (a gradient that is not 2-d stops it there, earlier ones done)
            for p in params:
                if p._data.dtype.kind == "c":
                    raise RuntimeError("Muon does not support complex parameters")
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = zeros_state(p)
            for p in params:
                grad = p._grad._data
                if grad.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                buf = self.state[p]["momentum_buffer"]._data
                if buf.dtype.kind != "f":
                    raise NotImplementedError('"lerp_kernel_scalar" not implemented for '
                                              f"'{type_name(buf.dtype)}'")
                lerp_fused_(buf, grad, 1 - momentum)
                if group["nesterov"]:
                    update = grad.copy()
                    lerp_fused_(update, buf, momentum)
                else:
                    update = buf
                ortho = _zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                                    group["ns_steps"], group["eps"])
                param = p._data
                # (a parameter with no columns fails here, ZeroDivisionError, as in torch:
                # after the buffer's update, before the parameter's)
                adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], param.shape)
                ct = opmath(param.dtype)
                param[...] = param.astype(ct, copy=False) * ct(1 - lr * wd)
                _bump(p)
                add_scaled_(param, ortho, -adjusted_lr)
                _bump(p)
        return loss
