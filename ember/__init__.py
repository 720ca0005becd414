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
from .tensor import Tensor, Size, device, is_inference
from .ops._args import can_cast as _can_cast, not_tensor as _not_tensor
from .ops._args import check_operands as _check_operands
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled,
                                 inference_mode, is_inference_mode_enabled, is_anomaly_enabled,
                                 is_anomaly_check_nan_enabled)
from .autograd.anomaly_mode import set_anomaly_enabled
from .printing import set_printoptions, get_printoptions
from .creation import (tensor, as_tensor, asarray, from_numpy, zeros, ones, empty, full, eye,
                       arange, linspace, logspace, zeros_like, ones_like, empty_like, full_like)
from .random import (rand, randn, randint, randperm, normal, bernoulli, binomial,
                     multinomial, poisson,
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
from .ops.pad import *       # noqa: F401,F403
from .ops.resize import *    # noqa: F401,F403
from .ops.trilinear import *  # noqa: F401,F403
from .ops.spectral import stft, istft  # noqa: F401
from . import tensor_methods  # noqa: F401  (binds every op method and operator to Tensor)
from . import return_types
from . import autograd, linalg, random
from .autograd import forward_ad as _forward_ad  # noqa: F401  (torch.autograd.forward_ad)
from . import backends, cuda, accelerator
from .cuda import OutOfMemoryError
from .runtime import (set_default_device, get_default_device, set_num_threads, get_num_threads,
                      set_num_interop_threads, get_num_interop_threads, init_num_threads,
                      use_deterministic_algorithms, are_deterministic_algorithms_enabled,
                      is_deterministic_algorithms_warn_only_enabled,
                      set_deterministic_debug_mode, get_deterministic_debug_mode,
                      set_float32_matmul_precision, get_float32_matmul_precision,
                      set_warn_always, is_warn_always_enabled, set_flush_denormal)
from .legacy import (FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ShortTensor,
                     CharTensor, ByteTensor, BoolTensor, set_default_tensor_type, typename)

__version__ = "0.1.0"


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    try:
        return input.numel()
    except AttributeError as e:
        raise _not_tensor(e) from None


def is_floating_point(input):
    try:
        return input.is_floating_point()
    except AttributeError as e:
        raise _not_tensor(e) from None


def is_complex(input):
    try:
        return input.is_complex()
    except AttributeError as e:
        raise _not_tensor(e) from None


def result_type(tensor1, tensor2):
    _check_operands("result_type", tensor1, tensor2)
    return _result_type(tensor1, tensor2)


def can_cast(from_, to):
    for pos, (name, v) in enumerate((("from_", from_), ("to", to)), 1):
        if not isinstance(v, dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {pos}) must be "
                            f"torch.dtype, not {type(v).__name__}")
    return _can_cast(from_.np, to.np)


# ---- the everyday surface (issue 14)
import math as _math  # noqa: E402

from .creation import (hann_window, hamming_window, blackman_window, bartlett_window,  # noqa: E402
                       kaiser_window, scalar_tensor, empty_strided, frombuffer, range,
                       empty_permuted, from_dlpack, to_dlpack, from_file)
from .ops.complex import conj_physical_  # noqa: E402
from .ops.convert import fill, fill_, zero_  # noqa: E402
from .ops.matmul import addmv_  # noqa: E402
from .ops.matrix import nuclear_norm, frobenius_norm  # noqa: E402
from .storage import resize_as_  # noqa: E402
from .ops.matrix import (_solve_removed as solve, _lstsq_removed as lstsq,  # noqa: E402
                         _symeig_removed as symeig, _eig_removed as eig,
                         _matrix_rank_removed as matrix_rank,   # (removed in 1.9: they raise)
                         torch_vander as vander)
from .storage import (UntypedStorage, TypedStorage, FloatStorage, DoubleStorage,  # noqa: E402
                      HalfStorage, LongStorage, IntStorage, ShortStorage, CharStorage,
                      ByteStorage, BoolStorage, ComplexFloatStorage, ComplexDoubleStorage,
                      is_storage, StorageBase)
Storage = FloatStorage                     # torch.Storage is torch.FloatStorage
from .tensor import (layout, memory_format, strided, sparse_coo, sparse_csr,  # noqa: E402
                     sparse_csc, sparse_bsr, sparse_bsc, jagged, contiguous_format,
                     channels_last, channels_last_3d, preserve_format)
from .typeinfo import finfo, iinfo  # noqa: E402
from . import storage  # noqa: E402,F811

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None
has_lapack, has_spectral, has_mkl, has_openmp = True, True, False, False


def is_signed(input):
    try:
        return input.is_signed()
    except AttributeError as e:
        raise _not_tensor(e) from None


def is_nonzero(input):
    try:
        return input.is_nonzero()
    except AttributeError as e:
        raise _not_tensor(e) from None


def is_same_size(input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"is_same_size(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    return input.is_same_size(other)


def is_conj(input):
    try:
        return input.is_conj()
    except AttributeError as e:
        raise _not_tensor(e) from None


def is_neg(input):
    try:
        return input.is_neg()
    except AttributeError as e:
        raise _not_tensor(e) from None


def is_distributed(input):
    if not isinstance(input, Tensor):
        raise _not_tensor(AttributeError(name="_data", obj=input))
    return False


def get_device(input):
    try:
        return input.get_device()
    except AttributeError as e:
        raise _not_tensor(e) from None


def is_vulkan_available():
    return False


def detach(input):
    try:
        return input.detach()
    except AttributeError as e:
        raise _not_tensor(e) from None


def detach_(input):
    try:
        return input.detach_()
    except AttributeError as e:
        raise _not_tensor(e) from None


class AcceleratorError(RuntimeError):
    """torch.AcceleratorError: raised by accelerator runtimes (never by ember, which has none)."""


# ---- torch.autograd's front-end extras (issue 12): they sit above the ops they use, so the
# autograd package cannot import them itself; torch.autograd.gradcheck is the function.
from .autograd import functional as _functional, gradcheck as _gradcheck  # noqa: E402
autograd.gradcheck = _gradcheck.gradcheck
autograd.gradgradcheck = _gradcheck.gradgradcheck


# Note [Lazy subpackages]: nn, optim, utils, func, special, fft, testing, save/load,
# install_as_torch and the iterative solvers (svd_lowrank, pca_lowrank, lobpcg) are
# imported on first use (`ember.nn`, `import ember.nn` and `from ember import nn` all work as
# usual). Together they are ~3.4 MB of an `import ember`'s memory (W8's import RSS), and a
# program that only uses autograd never needs them.
import importlib as _importlib  # noqa: E402

_LAZY_MODULES = frozenset(("nn", "optim", "utils", "func", "special", "fft", "testing",
                           "cpu", "amp"))
_LAZY_NAMES = {"save": "serialization", "load": "serialization", "vmap": "func",
               "PyTorchFileReader": "serialization", "PyTorchFileWriter": "serialization",
               "install_as_torch": "_torch_alias", "svd_lowrank": "ops.lowrank",
               "pca_lowrank": "ops.lowrank", "lobpcg": "ops.lobpcg"}
_LAZY_NAMES.update(dict.fromkeys((        # ember/_sym.py's __all__ (tests/test_sym.py checks)
    "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite", "sym_sqrt", "sym_sum",
    "sym_constrain_range", "sym_constrain_range_for_size", "sym_fresh_size", "classproperty",
    "get_file_path", "compiled_with_cxx11_abi", "prepare_multiprocessing_environment",
    "thread_safe_generator", "DisableTorchFunction", "DisableTorchFunctionSubclass"), "_sym"))
_LAZY_NAMES.update(dict.fromkeys(("Stream", "Event", "get_device_module"), "streams"))
_LAZY_NAMES.update(dict.fromkeys(("autocast", "GradScaler"), "amp"))
_LAZY_NAMES.update(dict.fromkeys(("cond", "while_loop"), "_higher_order_ops"))
_LAZY_NAMES.update(dict.fromkeys((        # torch.* names of ember/amp/autocast_mode.py
    "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "is_autocast_cache_enabled", "set_autocast_cache_enabled", "autocast_increment_nesting",
    "autocast_decrement_nesting", "clear_autocast_cache", "is_autocast_cpu_enabled",
    "is_autocast_ipu_enabled", "is_autocast_xla_enabled", "set_autocast_cpu_enabled",
    "set_autocast_ipu_enabled", "set_autocast_xla_enabled", "get_autocast_cpu_dtype",
    "get_autocast_gpu_dtype", "get_autocast_ipu_dtype", "get_autocast_xla_dtype",
    "set_autocast_cpu_dtype", "set_autocast_gpu_dtype", "set_autocast_ipu_dtype",
    "set_autocast_xla_dtype"), "amp.autocast_mode"))

# Note [Lazy layer ops]: torch.*'s forms of the layer ops (torch.conv2d, torch.lstm,
# torch.grid_sampler, torch.dropout(input, p, train), torch.max_pool2d, ...) live in ops modules
# that only layer code needs: conv.py, rnn.py, grid.py and layer_forms.py, which brings in
# pool.py, loss.py, normalization.py and embedding.py. They are loaded on the first use of one
# of their names (~0.8 MB of W8's import RSS). The names are listed here so that nothing is
# imported to find them; tests/test_lazy_imports.py checks each list against its module's
# __all__ and that `import ember` loads none of these modules. copy_variants.py holds the
# functionalization *_copy ops (torch.view_copy, ...; Note [Copy variants]).
_LAZY_OPS = {
    "conv": ("convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
             "conv_transpose2d", "conv_transpose3d", "conv_tbc"),
    "rnn": ("rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "rnn_tanh", "rnn_relu",
            "lstm", "gru"),
    "copy_variants": (
        "alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
        "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy",
        "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy",
        "unsqueeze_copy", "view_copy", "view_as_real_copy", "view_as_complex_copy",
        "slice_inverse"),
    "segment": ("segment_reduce",),
    "grid": ("grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator"),
    "layer_forms": (
        "dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout",
        "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "native_dropout",
        "batch_norm", "native_batch_norm", "batch_norm_update_stats", "cudnn_is_acceptable",
        "layer_norm", "native_layer_norm", "group_norm",
        "native_group_norm", "instance_norm", "rms_norm", "binary_cross_entropy_with_logits",
        "cosine_embedding_loss", "hinge_embedding_loss", "kl_div", "margin_ranking_loss",
        "poisson_nll_loss", "triplet_margin_loss", "ctc_loss", "celu", "celu_", "selu",
        "selu_", "rrelu", "rrelu_", "threshold", "threshold_", "hardshrink", "prelu",
        "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool3d", "avg_pool1d",
        "adaptive_avg_pool1d", "adaptive_max_pool1d", "embedding", "embedding_bag",
        "embedding_renorm_", "norm_except_dim", "channel_shuffle", "native_channel_shuffle"),
}
_LAZY_OP_NAMES = {name: mod for mod, names in _LAZY_OPS.items() for name in names}


def __getattr__(name):
    mod = _LAZY_OP_NAMES.get(name)
    if mod is not None:
        value = getattr(_importlib.import_module(".ops." + mod, __name__), name)
        globals()[name] = value              # later lookups are plain attribute reads
        return value
    if name in _LAZY_MODULES:
        return _importlib.import_module("." + name, __name__)
    if name in _LAZY_NAMES:
        return getattr(_importlib.import_module("." + _LAZY_NAMES[name], __name__), name)
    raise AttributeError(f"module 'ember' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | _LAZY_MODULES | set(_LAZY_NAMES) | set(_LAZY_OP_NAMES))
