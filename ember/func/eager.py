"""torch.func's autodiff transforms on ember's eager autograd: grad, grad_and_value, vjp,
jvp, linearize, jacrev, jacfwd, hessian. Reverse transforms run autograd.grad on aliases of
the inputs (with create_graph whenever an outer transform or a dual level can see the
result, so transforms nest: hessian = jacfwd(jacrev)); forward transforms open a dual level of
their own (nested levels: Note [Forward AD] in autograd/forward.py)."""
import functools

import numpy as np

from .. import autograd
from ..autograd import forward
from ..autograd.forward_ad import make_dual_at, unpack_at
from ..autograd.grad_mode import STATE, enable_grad
from ..tensor import Tensor, wrap
from ..creation import eye, ones, zeros, zeros_like
from ..ops.join import cat
from . import _batching, _tree
from .vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian"]


def _argnums_check(argnums, n):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums and not isinstance(argnums, int):
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    return [a % n for a in nums]


def _needs_graph(leaves):
    """Whether a result must stay differentiable: an outer transform (grad mode, inputs that
    require grad) or a dual level can see it."""
    return bool(forward.LEVELS) or STATE.enabled and any(
        isinstance(t, Tensor) and t._requires_grad for t in leaves)


def _alias(t, what="grad"):
    """A fresh differentiable handle on input t (its history kept: outer transforms)."""
    if not isinstance(t, Tensor):
        raise RuntimeError(f"{what}: Expected input to be a Tensor, got {type(t)}")
    if _batching.LEVELS:            # inside vmap: differentiate per sample (Note [Batching])
        t = _batching.lift(t)
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if t._requires_grad or forward.LEVELS and forward.dual(t):
        with enable_grad():
            a = t.view_as(t)
        if not a._requires_grad:
            a._requires_grad = True
        return a
    a = t.detach()
    a._requires_grad = True
    return a


def _grads(outputs, inputs, cotangents, create_graph):
    """autograd.grad with zeros for inputs the outputs do not reach."""
    def zero(x):
        return zeros_like(x) if _batching.LEVELS else wrap(np.zeros_like(x._data))
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o._requires_grad]
    if not pairs:
        return [zero(x) for x in inputs]
    got = autograd.grad([o for o, _ in pairs], inputs, [c for _, c in pairs],
                        retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [g if g is not None else zero(x) for g, x in zip(got, inputs)]


def _plain(t, keep):
    """A result as the caller sees it: detached unless an outer transform needs its history."""
    if keep or not isinstance(t, Tensor):
        return t
    return t.detach()


def _split_aux(out, has_aux, who):
    """(output, aux) of what f returned: with has_aux, f must return that pair (who: the call
    as torch's message names it)."""
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{who}: output of function f should be a tuple: (output, aux) if "
                           f"has_aux is True")
    return out


def _tensor_leaves(out, who, call):
    """The leaves of f's output (and its tree spec), which must all be tensors."""
    outs, ospec = _tree.flatten(out)
    for o in outs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{who}: expected {call} to return only tensors, got unsupported "
                               f"type {type(o)}")
    return outs, ospec


def grad_and_value(func, argnums=0, has_aux=False):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_check(argnums, len(args))
        args = list(args)
        specs, flat = [], []
        all_leaves = []
        for a in nums:
            leaves, spec = _tree.flatten(args[a])
            all_leaves += leaves
            al = [_alias(t) for t in leaves]
            specs.append(spec)
            flat.append(al)
            args[a] = _tree.unflatten(al, spec)
        keep = _needs_graph(all_leaves)
        with enable_grad():
            out = func(*args, **kwargs)
        out, aux = _split_aux(out, has_aux, "grad_and_value(f)(*args)")
        if not isinstance(out, Tensor):
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(out)}")
        if out.dim():
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {out.dim()} dims. Maybe you wanted "
                               f"to use the vjp or jacrev APIs instead?")
        inputs = [t for al in flat for t in al]
        gs = _grads([out], inputs, [ones((), dtype=out.dtype)], keep)
        gs = [_plain(g, keep) for g in gs]
        res, k = [], 0
        for al, spec in zip(flat, specs):
            res.append(_tree.unflatten(gs[k:k + len(al)], spec))
            k += len(al)
        g = res[0] if isinstance(argnums, int) else tuple(res)
        value = _plain(out, keep)
        if has_aux:
            return g, (value, _tree.unflatten([_plain(t, keep) for t in _tree.flatten(aux)[0]],
                                              _tree.flatten(aux)[1]))
        return g, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g
    return wrapper


def vjp(func, *primals, has_aux=False):
    leaves, spec = _tree.flatten(primals)
    keep = _needs_graph(leaves)
    al = [_alias(t, "vjp") for t in leaves]
    with enable_grad():
        out = func(*_tree.unflatten(al, spec))
    out, aux = _split_aux(out, has_aux, "vjp(f, *primals)")
    outs, ospec = _tensor_leaves(out, "vjp(f, *primals)", "f(*primals)")

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        cts, cspec = _tree.flatten(cotangents)
        if len(cts) != len(outs):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. ")
        for i, (o, c) in enumerate(zip(outs, cts)):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{c.shape} and output[{i}] has a shape of {o.shape}.")
        cg = keep or _needs_graph(cts) if create_graph is None else create_graph
        gs = _grads(outs, al, cts, cg)
        return _tree.unflatten([_plain(g, cg) for g in gs], spec)

    primal_out = _tree.unflatten([_plain(o, keep) for o in outs], ospec)
    if has_aux:
        return primal_out, vjp_fn, aux
    return primal_out, vjp_fn


def _jvp_structure_check(primals, tangents, name="jvp"):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{name}(f, primals, tangents): Expected primals to be a tuple. E.g. "
                           f"it should be valid to call f(*primals).")
    pl, ps = _tree.flatten(primals)
    tl, ts = _tree.flatten(tangents)
    if ps != ts or type(tangents) is not type(primals):
        raise RuntimeError(f"{name}(f, primals, tangents): Expected primals and tangents to have "
                           f"the same python structure. For example, if primals is a tuple of 3 "
                           f"tensors, tangents also must be.")
    return pl, ps, tl


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    pl, ps, tl = _jvp_structure_check(primals, tangents)
    keep = _needs_graph(pl + tl)        # (before this level opens: only outer transforms count)
    lv = forward.open_level()
    try:
        duals = [make_dual_at(p, t, lv) for p, t in zip(pl, tl)]
        out = func(*_tree.unflatten(duals, ps))
        out, aux = _split_aux(out, has_aux, "jvp(f, primals, tangents)")
        outs, ospec = _tree.flatten(out)
        po, to = [], []
        for o in outs:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"jvp(f, primals, tangents): expected f(*primals) to return "
                                   f"only tensors, got unsupported type {type(o)}")
            p, t = unpack_at(o, lv)
            if t is None:
                t = wrap(np.zeros_like(o._data))
            po.append(p)
            to.append(t)
    finally:
        forward.close_level(lv)
    po, to = [_plain(t, keep) for t in po], [_plain(t, keep) for t in to]
    res = (_tree.unflatten(po, ospec), _tree.unflatten(to, ospec))
    return res + (aux,) if has_aux else res


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is the jvp at primals."""
    out = func(*primals)

    def jvp_fn(*tangents):
        return jvp(func, primals, tangents)[1]
    return out, jvp_fn


def _jac_inputs(args, argnums):
    nums = _argnums_check(argnums, len(args))
    return nums


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        nums = _jac_inputs(args, argnums)
        args = list(args)
        flat, specs, originals = [], [], []
        for a in nums:
            leaves, spec = _tree.flatten(args[a])
            originals += leaves
            al = [_alias(t, "jacrev") for t in leaves]
            flat.append(al)
            specs.append(spec)
            args[a] = _tree.unflatten(al, spec)
        keep = _needs_graph(originals)
        with enable_grad():
            out = func(*args)
        # (torch's jacrev runs vjp, whose words its messages use)
        out, aux = _split_aux(out, has_aux, "vjp(f, *primals)")
        outs, ospec = _tensor_leaves(out, "vjp(f, *primals)", "f(*primals)")
        inputs = [t for al in flat for t in al]
        sizes = [o.numel() for o in outs]
        total = sum(sizes)
        if total and not _batching.LEVELS:
            rows = _vjp_rows_batched(outs, inputs, sizes, keep, chunk_size)
        elif total:
            rows = _vjp_rows(func, args, nums, specs, flat, originals, outs, sizes, keep,
                             has_aux, chunk_size)
        per_out = []
        off = 0
        for o, n in zip(outs, sizes):
            jacs = []
            for k, x in enumerate(inputs):
                if total:
                    j = rows[k].narrow(0, off, n) if len(outs) > 1 else rows[k]
                else:
                    j = zeros((0,) + tuple(x.shape), dtype=x.dtype)
                jacs.append(_plain(j.reshape(tuple(o.shape) + tuple(x.shape)), keep))
            per_out.append(jacs)
            off += n
        res = _arrange(per_out, flat, specs, argnums, ospec)
        if has_aux:
            return res, aux
        return res
    return wrapper


def _vjp_rows_batched(outs, inputs, sizes, keep, chunk_size):
    """The rows of jacrev's Jacobians from the one forward pass already run: the basis of the
    outputs as a batch of grad outputs, one autograd.grad(is_grads_batched=True) per chunk.
    Per input: (sum of output sizes, *shape)."""
    total = sum(sizes)
    basis = eye(total, dtype=outs[0].dtype)
    used = [(o, off, n) for o, off, n in zip(outs, np.cumsum([0] + sizes[:-1]), sizes)
            if o._requires_grad]
    step = chunk_size or total
    rows = []
    for start in range(0, total, step):
        e = basis.narrow(0, start, min(step, total - start))
        k = e.shape[0]
        if used:
            cts = [e.narrow(1, int(off), n).reshape((k,) + tuple(o.shape)).to(o.dtype)
                   for o, off, n in used]
            got = autograd.grad([o for o, _, _ in used], inputs, cts, retain_graph=True,
                                create_graph=keep, allow_unused=True, is_grads_batched=True)
        else:
            got = [None] * len(inputs)
        rows.append([g if g is not None else zeros((k,) + tuple(x.shape), dtype=x.dtype)
                     for g, x in zip(got, inputs)])
    if len(rows) == 1:
        return rows[0]
    return [cat([r[j] for r in rows]) for j in range(len(inputs))]


def _vjp_rows(func, args, nums, specs, flat, originals, outs, sizes, keep, has_aux,
              chunk_size):
    """The rows of jacrev's Jacobians: one vjp per basis vector of the outputs, all of them
    in one vmap (the forward pass runs batched too, on inputs lifted to the batch; the
    backward pass then gives every row at once). Per input: (sum of output sizes, *shape)."""
    total = sum(sizes)
    dtype = outs[0].dtype

    def row(e):
        a2 = list(args)
        k = 0
        for a, al, spec in zip(nums, flat, specs):
            a2[a] = _tree.unflatten([_alias(t, "jacrev") for t in originals[k:k + len(al)]],
                                    spec)
            k += len(al)
        inputs = [t for a in nums for t in _tree.flatten(a2[a])[0]]
        with enable_grad():
            out = func(*a2)
        if has_aux:
            out = out[0]
        os = _tree.flatten(out)[0]
        cts, off = [], 0
        for o, n in zip(os, sizes):
            cts.append(e.narrow(0, off, n).reshape(tuple(o.shape)).to(o.dtype))
            off += n
        return tuple(_grads(os, inputs, cts, keep))
    return vmap(row, randomness="same", chunk_size=chunk_size)(eye(total, dtype=dtype))


def _jvp_cols(func, args, nums, specs, flat_args, inputs, sizes, has_aux, randomness):
    """The columns of jacfwd's Jacobians: one jvp per basis vector of the inputs, all of them in
    one vmap (a batch of tangents through one forward pass). Per output: (sum of input sizes,
    *shape)."""
    total = sum(sizes)

    def col(e):
        lv = forward.open_level()
        try:
            duals, off = [], 0
            for y, n in zip(inputs, sizes):
                t = e.narrow(0, off, n).reshape(tuple(y.shape)).to(y.dtype)
                duals.append(make_dual_at(y, t, lv))
                off += n
            a2 = list(args)
            k = 0
            for a, fl, spec in zip(nums, flat_args, specs):
                a2[a] = _tree.unflatten(duals[k:k + len(fl)], spec)
                k += len(fl)
            o = func(*a2)
            if has_aux:
                o = o[0]
            tans = []
            for oo in _tree.flatten(o)[0]:
                _, t = unpack_at(oo, lv)
                tans.append(t if t is not None else zeros_like(oo))
            return tuple(tans)
        finally:
            forward.close_level(lv)
    return vmap(col, randomness=randomness)(eye(total, dtype=inputs[0].dtype))


def _arrange(per_out, flat, specs, argnums, ospec):
    """Jacobians in torch.func's nesting: outputs' structure outside, argnums' inside."""
    def for_output(jacs):
        res, k = [], 0
        for al, spec in zip(flat, specs):
            res.append(_tree.unflatten(jacs[k:k + len(al)], spec))
            k += len(al)
        return res[0] if isinstance(argnums, int) else tuple(res)
    return _tree.unflatten([for_output(j) for j in per_out], ospec)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    @functools.wraps(func)
    def wrapper(*args):
        nums = _jac_inputs(args, argnums)
        flat_args, specs = [], []
        for a in nums:
            leaves, spec = _tree.flatten(args[a])
            for t in leaves:
                if not isinstance(t, Tensor):
                    raise RuntimeError(f"jacfwd: Expected input to be a Tensor, got {type(t)}")
            flat_args.append(leaves)
            specs.append(spec)
        inputs = [t for fl in flat_args for t in fl]
        keep = _needs_graph(inputs)
        sizes = [x.numel() for x in inputs]
        total = sum(sizes)
        o = func(*args)         # the outputs' structure and shapes (and aux)
        # (torch's jacfwd runs jvp, whose words its messages use)
        o, aux = _split_aux(o, has_aux, "jvp(f, primals, tangents)")
        out, ospec = _tensor_leaves(o, "jvp(f, primals, tangents)", "f(*primals)")
        if total:
            cols = _jvp_cols(func, args, nums, specs, flat_args, inputs, sizes, has_aux,
                             randomness)
        per_out = []
        for m, o in enumerate(out):
            jacs = []
            off = 0
            for x, n in zip(inputs, sizes):
                if total:
                    j = cols[m].narrow(0, off, n) if len(inputs) > 1 else cols[m]
                    j = j.movedim(0, -1)
                else:
                    j = zeros(tuple(o.shape) + (0,), dtype=o.dtype)
                jacs.append(_plain(j.reshape(tuple(o.shape) + tuple(x.shape)), keep))
                off += n
            per_out.append(jacs)
        res = _arrange(per_out, flat_args, specs, argnums, ospec)
        if has_aux:
            return res, aux
        return res
    return wrapper


def hessian(func, argnums=0):
    return jacfwd(jacrev(func, argnums), argnums)
