"""autograd.Variable: the pre-0.4 wrapper, now an alias constructor. Variable(t) is a tensor
sharing t's data with no history (requires_grad as given); every tensor is an instance."""
import warnings

import numpy as np

from ..tensor import Tensor, wrap


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)

    def __call__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            return wrap(np.zeros(0, np.float32))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        out = data.detach()
        if requires_grad:
            if data._data.dtype.kind not in "fc":
                raise RuntimeError("Only Tensors of floating point and complex dtype can "
                                   "require gradients")
            out.requires_grad_(True)
        return out


class Variable(metaclass=_VariableMeta):
    """torch.autograd.Variable (deprecated): Variable(tensor, requires_grad=False)."""
