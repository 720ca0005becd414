"""ember: PyTorch's autograd API in pure Python on NumPy. `import ember as torch`."""
import warnings as _warnings

# NumPy's floating-point RuntimeWarnings (overflow, invalid value, divide by zero) raised from
# inside ember's own modules are not shown: torch prints none for the same values. The filter
# matches the module a warning is attributed to, so NumPy warnings from the user's code still
# show, and it costs nothing per op.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ember(\.|$)")
from .dtypes import (bool_ as bool, uint8, int8, int16, int32, int64, float16, float32,
                     float64, complex64, complex128, half, float, double, short, int, long,
                     cfloat, cdouble, dtype, set_default_dtype, get_default_dtype,
                     promote_types)
from .dtypes import result_type as _result_type
from .tensor import Tensor, Size, device
from .ops._args import can_cast as _can_cast
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled,
                                 inference_mode)
from .printing import set_printoptions, get_printoptions
from .creation import (tensor, as_tensor, asarray, from_numpy, zeros, ones, empty, full, eye,
                       arange, linspace, logspace, zeros_like, ones_like, empty_like, full_like)
from .random import (rand, randn, randint, randperm, normal, bernoulli, multinomial, poisson,
                     rand_like, randn_like, randint_like, Generator, default_generator,
                     manual_seed, seed, initial_seed, get_rng_state, set_rng_state)
from .ops.logical import *   # noqa: F401,F403  (each family module lists its names in __all__)
from .ops.arith import *     # noqa: F401,F403
from .ops.binary import *    # noqa: F401,F403
from .ops.complex import *   # noqa: F401,F403
from .ops.unary import *     # noqa: F401,F403
from .ops.special import *   # noqa: F401,F403
from .ops.shape import *     # noqa: F401,F403
from .ops.join import *      # noqa: F401,F403
from .ops.index import *     # noqa: F401,F403
from .ops.scatter import *   # noqa: F401,F403
from .ops.reduce import *    # noqa: F401,F403
from .ops.stats import *     # noqa: F401,F403
from .ops.scan import *      # noqa: F401,F403
from .ops.sort import *      # noqa: F401,F403
from .ops.matmul import *    # noqa: F401,F403
from .ops.einsum import *    # noqa: F401,F403
from .ops.solve import *     # noqa: F401,F403
from .ops.decomp import *    # noqa: F401,F403
from .ops.matrix import *    # noqa: F401,F403
from .ops.convert import *   # noqa: F401,F403
from .ops.distance import *  # noqa: F401,F403
from . import tensor_methods  # noqa: F401  (binds every op method and operator to Tensor)
from . import return_types
from . import autograd, linalg, nn, optim, random, utils
from .autograd import forward_ad as _forward_ad  # noqa: F401  (torch.autograd.forward_ad)
from .serialization import save, load

__version__ = "0.1.0"


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()


def result_type(tensor1, tensor2):
    return _result_type(tensor1, tensor2)


def can_cast(from_, to):
    return _can_cast(from_.np, to.np)
