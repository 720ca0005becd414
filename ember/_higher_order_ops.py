"""torch.cond and torch.while_loop in eager mode, as torch 2.13 runs them without a compiler.

Note [Control flow without a compiler]: with a Python bool (or number) predicate torch.cond
just calls the chosen branch. With a tensor predicate torch traces both branches with dynamo
and runs the taken one; ember has no tracer, so it runs both branches (the untaken one without
recording a graph) and checks what the trace checks: each branch returns the same structure of
tensors (or ints) with the same dtypes and numbers of dimensions, returns no input (or a view
of one), and mutates no input. Failures raise the classes torch raises, with its reason in the
message (UncapturedHigherOrderOpError, TorchRuntimeError: torch._dynamo.exc's names). The
outputs' grad_fn is a CondAutogradOpBackward (WhileLoopAutogradOpBackward) node that passes
each gradient on to the graph the taken branch recorded: gradients, also of tensors the
branches read from their closures, are the branch's own. torch's node has the lifted inputs as
next_functions instead (what dynamo found the branches read); ember's points at the branch's
outputs. torch.while_loop checks the body's outputs against the carried inputs the same way
(number, dtype, shape) and its condition (a bool, or a one-element bool tensor)."""
import numpy as np

from .autograd.grad_mode import STATE, no_grad
from .autograd.graph import Node, link, link_multi
from .tensor import Tensor, wrap

__all__ = ["cond", "while_loop", "UncapturedHigherOrderOpError", "TorchRuntimeError"]


class TorchDynamoException(RuntimeError):
    pass


class UncapturedHigherOrderOpError(TorchDynamoException):
    pass


class TorchRuntimeError(TorchDynamoException):
    pass


_UNCAPTURED = ("This higher order operator doesn't work unless it is captured completely with "
               "torch.compile. Got graph break/error:\n\n")


def _uncaptured(op, reason, explanation):
    return UncapturedHigherOrderOpError(
        f"{_UNCAPTURED}{reason}\n  Higher Order Operator: torch.{op}\n  Explanation: "
        f"{explanation}")


def _leaves(tree, out):
    """The leaves of a nested dict/list/tuple, in order; returns its structure."""
    if isinstance(tree, (list, tuple)):
        return (type(tree), tuple(_leaves(v, out) for v in tree))
    if isinstance(tree, dict):
        return (dict, tuple((k, _leaves(v, out)) for k, v in tree.items()))
    out.append(tree)
    return None


def _rebuild(spec, leaves):
    if spec is None:
        return next(leaves)
    kind, items = spec
    if kind is dict:
        return {k: _rebuild(s, leaves) for k, s in items}
    return kind(_rebuild(s, leaves) for s in items)


def _spec_str(spec):
    if spec is None:
        return "*"
    kind, items = spec
    if kind is dict:
        return "{" + ", ".join(f"{k}: {_spec_str(s)}" for k, s in items) + "}"
    return f"{kind.__name__}[" + ", ".join(_spec_str(s) for s in items) + "]"


def _aliases(out, inputs):
    x = out._data
    return any(np.may_share_memory(x, t._data) for t in inputs if isinstance(t, Tensor))


class CondAutogradOpBackward(Node):
    """Passes each output's gradient on to the graph the taken branch recorded."""
    __slots__ = ("_n_outputs",)

    def apply(self, grads):
        return tuple(grads) if self._n_outputs != 1 else (grads,)


class WhileLoopAutogradOpBackward(CondAutogradOpBackward):
    __slots__ = ()


def _wrap_outputs(node_cls, leaves):
    """Fresh output tensors (sharing the branch's arrays) whose grad_fn is one node_cls."""
    tensors = [(i, t) for i, t in enumerate(leaves) if isinstance(t, Tensor)]
    linked = [(i, t) for i, t in tensors if t._requires_grad]
    if not (STATE.enabled and linked):
        return leaves
    out = list(leaves)
    node = node_cls()
    node._n_outputs = len(linked)
    news = [wrap(t._data) for _, t in linked]
    if len(news) == 1:
        link(news[0], node, linked[0][1])
    else:
        link_multi(news, node, *[t for _, t in linked])
    for (i, _), n in zip(linked, news):
        out[i] = n
    return out


def _versions(tensors):
    return [t._version for t in tensors]


def cond(pred, true_fn, false_fn, operands=()):
    if isinstance(pred, (bool, int, float)) and not isinstance(pred, Tensor):
        if not (callable(true_fn) and callable(false_fn)):
            raise RuntimeError("Expect both branches to be callable.")
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred._data.size != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got "
                           f"{pred}.")
    if not (callable(true_fn) and callable(false_fn)):
        raise RuntimeError("Expect both branches to be callable.")
    flat = []
    if not isinstance(operands, (tuple, list)):
        flat = [operands]
    else:
        _leaves(operands, flat)
    if not isinstance(operands, (tuple, list)) or not all(isinstance(t, Tensor) for t in flat):
        raise RuntimeError(f"Expect operands to be a tuple of possibly nested dict/list/tuple "
                           f"that only consists of tensor leaves, but got {operands}.")
    taken = bool(pred._data.reshape(()).item())
    before = _versions(flat)
    results = {}
    for branch, fn in ((True, true_fn), (False, false_fn)):
        if branch == taken:
            results[branch] = fn(*operands)
        else:
            with no_grad():
                results[branch] = fn(*operands)
        if _versions(flat) != before:
            raise _uncaptured("cond", "Encountered input mutation during higher order op "
                              "tracing", "Higher order ops do not support input mutation.")
    leaves, specs = {}, {}
    for branch in (True, False):
        leaves[branch] = []
        specs[branch] = _leaves(results[branch], leaves[branch])
        for v in leaves[branch]:
            if isinstance(v, Tensor):
                if _aliases(v, flat):
                    raise _uncaptured("cond", "Encountered aliasing during higher order op "
                                      "tracing", "Higher order ops do not support aliasing.")
            elif not isinstance(v, int):
                raise _uncaptured("cond", "torch.cond: unsupported branch return type "
                                  "(constant non-int)",
                                  "Constants returned from branches must be ints.")
    if specs[True] != specs[False]:
        raise TorchRuntimeError(
            f"RuntimeError when making fake tensor call\n  Explanation: Unmatched output spec "
            f"from torch.cond branches: true branch tree_spec {_spec_str(specs[True])} vs "
            f"false branch tree_spec {_spec_str(specs[False])}.")
    for a, b in zip(leaves[True], leaves[False]):
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            what = None
            if a.dtype != b.dtype:
                what = f"dtype but got {a.dtype} and {b.dtype}"
            elif a._data.ndim != b._data.ndim:
                what = f"dim but got {a._data.ndim} and {b._data.ndim}"
            if what:
                raise TorchRuntimeError(
                    f"RuntimeError when making fake tensor call\n  Explanation: When merging "
                    f"two branches' output in torch.cond,  expected same {what}.")
    out = _wrap_outputs(CondAutogradOpBackward, leaves[taken])
    return _rebuild(specs[taken], iter(out))


def _meta_error(pairs):
    for k, (b, c) in enumerate(pairs):
        if isinstance(b, Tensor) and isinstance(c, Tensor):
            if b.dtype != c.dtype:
                return f"pair[{k}] differ in 'dtype: {b.dtype} vs {c.dtype}'"
            if b.shape != c.shape:
                return f"pair[{k}] differ in 'shape: {b.shape} vs {c.shape}'"
    return None


def _check_body(out, carried):
    flat = []
    _leaves(out, flat)
    if not isinstance(out, (tuple, list)):
        flat = [out]
    for v in flat:
        if isinstance(v, Tensor):
            if _aliases(v, carried):
                raise _uncaptured("while_loop", "Encountered aliasing during higher order op "
                                  "tracing", "Higher order ops do not support aliasing.")
        elif not isinstance(v, int):
            raise _uncaptured("while_loop", "HOP body output unsupported",
                              f"HigherOrderOperator body's output must consist of tensors or "
                              f"ints/bools only but got {type(v)}.")
    if len(flat) != len(carried):
        raise UncapturedHigherOrderOpError(
            f"Expected body_fn_output and carried_inputs to have same number of outputs but "
            f"got lhs:{len(flat)} outputs and rhs:{len(carried)} inputs")
    err = _meta_error(list(zip(flat, carried)))
    if err:
        raise UncapturedHigherOrderOpError(
            f"Expected body_fn_output and carried_inputs to have same metadata but found:\n"
            f"{err}")
    return flat


def _truth(c):
    if isinstance(c, bool):
        return c
    if isinstance(c, Tensor) and c._data.ndim == 0 and c._data.dtype == np.bool_:
        return bool(c._data)
    shape = c.shape if isinstance(c, Tensor) else type(c)
    raise _uncaptured("while_loop", "torch.while_loop: unsupported cond_fn return type",
                      f"Expected cond_fn to return a scalar tensor or a bool but got {shape}.")


def while_loop(cond_fn, body_fn, carried_inputs):
    if not (callable(cond_fn) and callable(body_fn)):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    if not isinstance(carried_inputs, (tuple, list)):
        raise _uncaptured("while_loop", "failed to bind arguments when attempting to inline",
                          "Argument mismatch when attempting to trace function.")
    if not any(isinstance(v, Tensor) for v in carried_inputs) and \
            not all(isinstance(v, int) for v in carried_inputs):
        raise AssertionError(
            f"{list(carried_inputs)} can only be of (<class 'torch.Tensor'>, <class 'int'>, "
            f"<class 'torch.SymInt'>) but got "
            f"({', '.join(str(type(v)) for v in carried_inputs)})")
    carried = list(carried_inputs)
    first = cond_fn(*carried)
    if first is True and not any(isinstance(v, int) for v in carried):   # (a constant)
        raise _uncaptured("while_loop", "torch.while_loop: infinite loop detected",
                          "Infinite loop detected because while_loop's cond_fn always returns "
                          "the same value True.")
    if not _truth(first):
        with no_grad():                  # the body is traced all the same (its checks apply)
            _check_body(body_fn(*carried), carried)
        return carried_inputs
    out = None
    while True:
        out = body_fn(*carried)
        carried = _check_body(out, carried)
        if not _truth(cond_fn(*carried)):
            break
    flat = _wrap_outputs(WhileLoopAutogradOpBackward, carried)
    if isinstance(out, (tuple, list)):
        return type(out)(flat)
    return flat[0]
