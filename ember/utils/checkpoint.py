"""torch.utils.checkpoint: activation checkpointing. The forward keeps no saved tensors from
inside the checkpointed function; backward runs the function again to get them.

use_reentrant=False: the forward runs under saved-tensor hooks whose pack keeps only an index
(ember/autograd/graph.py, Note [Saved-tensor hooks]); the first unpack of a backward recomputes
the function under hooks that collect the tensors it saves, in the same order.
use_reentrant=True: a custom Function runs the forward without grad and, in its backward,
recomputes it with grad and backpropagates through the recomputed graph."""
import contextlib
import warnings

from ..autograd import Function, backward as _backward
from ..autograd.grad_mode import enable_grad, no_grad, is_grad_enabled
from ..autograd.graph import saved_tensors_hooks
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "detach_variable",
           "check_backward_validity", "get_device_states", "set_device_states",
           "noop_context_fn", "set_checkpoint_early_stop", "set_checkpoint_debug_enabled",
           "DefaultDeviceType"]


class CheckpointError(RuntimeError):
    """Raised when the recomputed forward does not save what the original forward saved."""


def detach_variable(inputs):
    """A tuple of the inputs, tensors detached with their requires_grad kept."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: ",
                           type(inputs).__name__)
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x
                 for x in inputs)


def check_backward_validity(inputs):
    """Warn when no input tensor requires grad (the checkpointed gradients would be None)."""
    if not any(isinstance(i, Tensor) and i.requires_grad for i in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      UserWarning, stacklevel=2)


def get_device_states(*args):
    """(devices, RNG states) of the accelerators the arguments live on: none in ember."""
    return [], []


def set_device_states(devices, states, *, device_type=None):
    """Restore accelerator RNG states: ember has no accelerator, so there are none to set."""
    if list(devices):
        raise RuntimeError("ember has no accelerator devices whose RNG state could be set")


def noop_context_fn():
    """The default context_fn: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


class DefaultDeviceType:
    """The device type whose RNG state checkpoint preserves ("cuda" by default in torch; ember's
    tensors are on the CPU, whose state is always preserved)."""
    _default_device_type = "cuda"

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        return DefaultDeviceType._default_device_type


class _Flag:
    """A setting that is a function call and a context manager restoring the previous value."""
    value = None

    def __init__(self, enable):
        self.prev = type(self).value
        type(self).value = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        type(self).value = self.prev
        return False


class set_checkpoint_early_stop(_Flag):
    """Whether recomputation may stop once every needed tensor is recomputed (ember always
    recomputes the whole function: the results are the same)."""
    value = True


class set_checkpoint_debug_enabled(_Flag):
    """Overrides checkpoint's debug= (None: use the argument)."""
    value = None


class _RngScope:
    """Runs a block with the RNG state the forward started from, then puts the current one
    back (torch's fork_rng), so that dropout draws the same masks when recomputed."""

    def __init__(self, state):
        self.state = state

    def __enter__(self):
        if self.state is not None:
            self.now = get_rng_state()
            set_rng_state(self.state)

    def __exit__(self, *exc):
        if self.state is not None:
            set_rng_state(self.now)
        return False


class CheckpointFunction(Function):
    """use_reentrant=True: forward without grad; backward recomputes and backpropagates."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng = get_rng_state() if preserve_rng_state else None
        ctx.inputs = [a if not isinstance(a, Tensor) else None for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with _RngScope(ctx.rng), enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None
                                    for a in detached)


class _Frame:
    """One non-reentrant checkpoint: what recomputing needs, and the tensors it recovered."""

    def __init__(self, fn, args, kwargs, rng, context):
        self.fn, self.args, self.kwargs, self.rng = fn, args, kwargs, rng
        self.context = context      # context_fn's recompute context (entered each time)
        self.count = 0
        self.cache = {}

    def pack(self, t):
        i = self.count
        self.count += 1
        return i

    def unpack(self, i):
        if i not in self.cache:
            self.recompute()
        if i not in self.cache:
            raise CheckpointError("torch.utils.checkpoint: Unpack is being triggered for a "
                                  "tensor that was already unpacked once. If you are calling "
                                  "ctx.saved_tensors in backward, make sure to do so only once. "
                                  "Otherwise please open an issue with details on your use "
                                  "case.")
        return self.cache.pop(i)

    def recompute(self):
        got = []

        def keep(t):
            got.append(t)
            return len(got) - 1

        with _RngScope(self.rng), enable_grad(), self.context, \
                saved_tensors_hooks(keep, lambda j: got[j]):
            self.fn(*self.args, **self.kwargs)
        if len(got) != self.count:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {self.count}\n"
                f"Number of tensors saved during recomputation: {len(got)}.\n")
        self.cache = dict(enumerate(got))


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, preserve_rng_state=True, **kwargs):
    """Run function(*args, **kwargs) keeping none of the tensors it saves for backward; backward
    recomputes them (see the module doc)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                      "use_reentrant will raise an exception. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if context_fn is not None or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if is_grad_enabled():
            check_backward_validity(args)
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    forward_ctx, recompute_ctx = (context_fn or noop_context_fn)()
    frame = _Frame(function, args, kwargs, get_rng_state() if preserve_rng_state else None,
                   recompute_ctx)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_ctx:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Split a Sequential (or a list of modules/functions) into `segments` chunks and
    checkpoint each chunk but the last."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
                      "parameter should be passed explicitly. In version 2.9 we will raise an "
                      "exception if use_reentrant is not passed. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    functions = list(functions)

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
