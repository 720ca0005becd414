"""torch.func: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian,
linearize, vmap, functional_call) on ember's autograd and forward-mode AD."""
from .eager import grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian
from .vmap import vmap, functional_call

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian",
           "vmap", "functional_call"]
