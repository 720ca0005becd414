"""torch.autograd.Function: user-defined ops with forward/backward staticmethods and a ctx.

The ctx object *is* the graph node (as in torch, where ctx is the BackwardCFunction): each
Function subclass gets a node class named `<Name>Backward`, created once and cached."""
import functools
import warnings

import numpy as np

from ..tensor import Tensor, wrap
from .forward import LEVELS, dual
from .grad_mode import STATE, no_grad
from .graph import Node, SECOND_BACKWARD, link, link_multi


# While a vmap runs, ember.func sets this to its rule for Function.apply (a Function's vmap
# staticmethod, or its forward per sample with generate_vmap_rule=True); None otherwise.
VMAP_APPLY = None


class FunctionCtx:
    """ctx methods available inside forward/setup_context/backward."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Tensors for jvp (ctx.saved_tensors reads them there)."""
        self.__dict__["_fw_saved"] = tensors

    @property
    def saved_tensors(self):
        if self.__dict__.get("_in_jvp"):
            return tuple(self.__dict__.get("_fw_saved") or ())
        if self._freed:
            raise RuntimeError(SECOND_BACKWARD)
        return tuple(self._to_save or ())

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff = tensors

    def set_materialize_grads(self, value):
        self._materialize = value


class BackwardCFunction(Node, FunctionCtx):
    """Base of the per-Function node classes; attributes set by user code live in __dict__."""

    _dir_hidden = frozenset(("jvp", "np_apply", "release"))     # (apply is torch's too)
    _function = None
    _saved_names = ("_to_save",)

    def __init__(self):
        self._to_save = None
        self._dirty = ()
        self._non_diff = ()
        self._materialize = True
        self.needs_input_grad = ()
        self._n_outputs = 1
        self._tensor_pos = ()
        self._out_pos = None    # (positions of tensor outputs, all outputs) when some are not

    def apply(self, grad):
        grads = list(grad) if self._n_outputs != 1 else [grad]
        if self._materialize:
            grads = [g if g is not None else wrap(np.zeros(shape, dt.np))
                     for g, (shape, dt) in zip(grads, self._out_specs)]
        if self._out_pos is not None:       # non-tensor outputs get None gradients
            full = [None] * self._out_pos[1]
            for k, g in zip(self._out_pos[0], grads):
                full[k] = g
            grads = full
        res = self._function.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        expected = len(self.needs_input_grad)
        if len(res) != expected:
            if len(res) > expected and all(r is None for r in res[expected:]):
                res = res[:expected]
            else:
                raise RuntimeError(f"function {type(self).__name__} returned an incorrect number "
                                   f"of gradients (expected {expected}, got {len(res)})")
        return tuple(res[i] for i in self._tensor_pos)

    def jvp(self, ts, xs, out):
        """The Function's own jvp staticmethod, given a tangent (or None) per forward argument."""
        fn = self._function
        if fn.jvp is Function.jvp:
            raise NotImplementedError("You must implement the jvp function for custom "
                                      "autograd.Function to use it with forward mode AD.")
        full = [None] * len(self.needs_input_grad)
        for p, t in zip(self._tensor_pos, ts):
            full[p] = t
        self.__dict__["_in_jvp"] = True
        try:
            res = fn.jvp(self, *full)
        finally:
            self.__dict__["_in_jvp"] = False
        if type(out) is list:
            return list(res) if isinstance(res, tuple) else [res]
        return res[0] if isinstance(res, tuple) else res


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_function": cls})


class Function(metaclass=_FunctionMeta):

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")
    """Subclass with `forward(ctx, *args)` (or `forward(*args)` + `setup_context(ctx, inputs,
    output)`) and `backward(ctx, *grad_outputs)`; call with `MyFn.apply(*args)`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    # torch.func.vmap over a Function: torch runs the vmap staticmethod, or with
    # generate_vmap_rule=True the forward on each sample's slice (ember.func's VMAP_APPLY).
    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override "
                                  "the vmap staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if VMAP_APPLY is not None:          # a vmap is running (ember/func/_batching.py)
            res = VMAP_APPLY(cls, args, kwargs)
            if res is not NotImplemented:
                return res
        ctx = cls._backward_cls()
        tensor_pos = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx._tensor_pos = tensor_pos
        uses_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if uses_setup:
                out = cls.forward(*args, **kwargs)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        if uses_setup:
            cls.setup_context(ctx, args, out)
        single = not isinstance(out, tuple)
        outs = [out] if single else list(out)
        inputs = [args[i] for i in tensor_pos]
        # with a dual input the node is made for its tangents too (Note [Forward AD])
        record = STATE.enabled and any(ctx.needs_input_grad) or LEVELS and dual(*inputs)
        for k, o in enumerate(outs):
            # an input returned unchanged becomes a new tensor on this node (unless dirty)
            if isinstance(o, Tensor) and record and any(o is a for a in inputs) and \
                    not any(o is d for d in ctx._dirty):
                outs[k] = wrap(o._data)
        if record:
            # every tensor output is an output of the node (backward gets a grad for each);
            # non-differentiable ones are then cut loose
            touts = [o for o in outs if isinstance(o, Tensor)]
            if len(touts) != len(outs):
                ctx._out_pos = ([k for k, o in enumerate(outs) if isinstance(o, Tensor)],
                                len(outs))
            ctx._out_specs = [(o._data.shape, o.dtype) for o in touts]
            if len(touts) == 1:
                link(touts[0], ctx, *inputs)
            elif touts:
                ctx._n_outputs = len(touts)
                link_multi(touts, ctx, *inputs)
            for o in touts:
                if any(o is n for n in ctx._non_diff):
                    o._grad_fn = None
                    o._requires_grad = False
        return outs[0] if single else tuple(outs)


def once_differentiable(fn):
    """Run a backward without recording it (its result cannot be differentiated again)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper


class NestedIOFunction(Function):
    """torch's legacy nested-input Function, as torch 2.13 has it: instantiating warns that
    Functions are not to be instantiated; calling an instance fails (torch's _do_forward
    reaches a base class that no longer has one); forward/forward_extended and the ctx-like
    methods keep their legacy behaviour."""

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        return self._do_forward(*args)

    def _do_forward(self, *input):
        raise AttributeError("'super' object has no attribute '_do_forward'")

    def _do_backward(self, gradients, retain_variables):
        raise AttributeError("'super' object has no attribute '_do_backward'")

    def forward(self, *args):
        """The legacy forward: forward_extended on the inputs' data, its tensors as a
        tuple."""
        out = self.forward_extended(*(a.detach() if isinstance(a, Tensor) else a for a in args))
        return tuple(_iter_tensors(out))

    def save_for_backward(self, *args):
        self.to_save = tuple(args)
        self._to_save_nested = args

    @property
    def saved_tensors(self):
        nested = self._to_save_nested
        return nested[len(nested)]      # (torch 2.13 indexes past the end: IndexError)

    def mark_dirty(self, *args, **kwargs):
        self.dirty_tensors = tuple(args)

    def mark_non_differentiable(self, *args, **kwargs):
        self.non_differentiable = tuple(args)

    def forward_extended(self, *input):
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        raise NotImplementedError


def _iter_tensors(x):
    if isinstance(x, Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for e in x:
            yield from _iter_tensors(e)
