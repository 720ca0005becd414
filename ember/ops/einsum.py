"""einsum: parsed once, contracted pairwise as torch does, with torch's chain of nodes."""
__all__ = ["inner", "einsum", "tensordot", "kron"]

import math

import numpy as np

from .. import dtypes as D
from ..autograd.grad_mode import STATE
from ..autograd.graph import Node, link
from ..dtypes import type_name
from ..tensor import Tensor, wrap
from ._args import needs, wrap_dim, write_out, requires
from .matmul import _named


# ---------------------------------------------------------------- einsum / tensordot / kron
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(equation, shapes):
    """Canonical explicit equation (ellipses replaced by letters) for these operand shapes."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    for c in eq:
        if not (c.isalpha() or c in ".,->"):
            raise RuntimeError(f"einsum(): invalid subscript given at index {eq.index(c)} in "
                               f"the equation string, subscripts must be in [a-zA-Z]")
    free = [c for c in _LETTERS if c not in eq]
    ell_nd = 0
    for i, (t, s) in enumerate(zip(terms, shapes)):
        if "..." in t:
            nd = len(s) - (len(t) - 3)
            if nd < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({len(t) - 3}) is more than the number of dimensions "
                                   f"({len(s)}) for operand {i}")
            ell_nd = max(ell_nd, nd)
        elif len(t) != len(s):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(t)}) "
                               f"does not match the number of dimensions ({len(s)}) for "
                               f"operand {i} and no ellipsis was given")
    ell = "".join(free[:ell_nd])
    new_terms = []
    for t, s in zip(terms, shapes):
        if "..." in t:
            nd = len(s) - (len(t) - 3)
            t = t.replace("...", ell[ell_nd - nd:])
        new_terms.append(t)
    if rhs is None:
        letters = "".join(new_terms)
        rhs = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1
                                   and c not in ell))
    else:
        rhs = rhs.replace("...", ell)
    sizes = {}
    for i, (t, s) in enumerate(zip(new_terms, shapes)):
        for c, n in zip(t, s):
            old = sizes.get(c)
            if old is None or old == 1:
                sizes[c] = n
            elif n != old and n != 1:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {i} "
                                   f"which does not broadcast with previously seen size {old}")
    return new_terms, rhs, sizes


def _np_einsum(eq, arrays):
    """np.einsum, with two-operand contractions done as one batched matmul (BLAS), as torch
    does: NumPy's own einsum does not use BLAS when there are batch letters."""
    if len(arrays) == 2:
        lhs, rhs = eq.split("->")
        ta, tb = lhs.split(",")
        r = _einsum_pair(ta, tb, rhs, arrays[0], arrays[1])
        if r is not None:
            return r
    return np.einsum(eq, *arrays, optimize=len(arrays) > 2)


def _einsum_pair(ta, tb, rhs, a, b):
    if len(set(ta)) != len(ta) or len(set(tb)) != len(tb):
        return None
    only_a = tuple(i for i, c in enumerate(ta) if c not in tb and c not in rhs)
    if only_a:
        a = a.sum(only_a)
        ta = "".join(c for i, c in enumerate(ta) if i not in only_a)
    only_b = tuple(i for i, c in enumerate(tb) if c not in ta and c not in rhs)
    if only_b:
        b = b.sum(only_b)
        tb = "".join(c for i, c in enumerate(tb) if i not in only_b)
    batch = [c for c in rhs if c in ta and c in tb]
    contr = [c for c in ta if c in tb and c not in rhs]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]
    size = {}
    for t, x in ((ta, a), (tb, b)):
        for c, n in zip(t, x.shape):
            if size.setdefault(c, n) != n:
                return None                    # size-1 broadcasting of a letter: np.einsum
    prod = math.prod
    nb, m, k, n = (prod(size[c] for c in g) for g in (batch, left, contr, right))
    A = a.transpose([ta.index(c) for c in batch + left + contr]).reshape(nb, m, k)
    B = b.transpose([tb.index(c) for c in batch + contr + right]).reshape(nb, k, n)
    out = np.matmul(A, B).reshape([size[c] for c in batch + left + right])
    cur = batch + left + right
    perm = [cur.index(c) for c in rhs]
    return out.transpose(perm) if perm != list(range(len(perm))) else out


class _EinsumBackward(Node):
    __slots__ = ("_saved_tensors", "_terms", "_rhs", "_sizes")
    _saved_names = ("_saved_tensors",)

    def apply(self, grad):
        ops = self._saved_tensors
        out = []
        for i, t in enumerate(self._terms):
            if not needs(self, i):
                out.append(None)
                continue
            out.append(_einsum_grad(grad, ops, i, self._terms, self._rhs, self._sizes))
        return tuple(out)


def _einsum_grad(grad, ops, i, terms, rhs, sizes):
    t = terms[i]
    uniq = "".join(dict.fromkeys(t))
    others = [(terms[j], ops[j]) for j in range(len(ops)) if j != i]
    present = set(rhs).union(*[set(s) for s, _ in others]) if others else set(rhs)
    keep = "".join(c for c in uniq if c in present)
    conj = ops[i]._data.dtype.kind == "c"
    eq = ",".join([rhs] + [s for s, _ in others]) + "->" + keep
    args = [grad] + [o.conj() if conj else o for _, o in others]
    if STATE.enabled and len(uniq) != len(t):
        g = _einsum_grad(grad, ops, i, terms[:i] + [uniq] + terms[i + 1:], rhs, sizes)
        return _einsum_scatter_diag(g, t, uniq, sizes, set("".join(terms) + rhs))
    if not STATE.enabled:
        g = _np_einsum(eq, [a._data for a in args])
        if keep != uniq:
            g = np.broadcast_to(np.expand_dims(g, tuple(k for k, c in enumerate(uniq)
                                                        if c not in keep)),
                                tuple(sizes[c] for c in uniq))
        if len(uniq) != len(t):
            full = np.zeros(tuple(sizes[c] for c in t), g.dtype)
            np.einsum(t + "->" + uniq, full)[...] = g
            g = full
        return wrap(np.asarray(g))
    g = _einsum_impl(eq, [a for a in args], *_parse_einsum(eq, [a._data.shape for a in args]))
    if keep != uniq:
        for k, c in enumerate(uniq):
            if c not in keep:
                g = g.unsqueeze(k)
        g = g.expand(*[sizes[c] for c in uniq])
    return g


def _einsum_scatter_diag(g, t, uniq, sizes, used):
    """Place g (subscripts uniq) on the diagonals of an operand with repeated subscripts t,
    differentiably: each repeat gets a fresh letter tied to the first by an identity."""
    fresh = iter(c for c in _LETTERS if c not in used)
    out, subs, eyes = [], [uniq], []
    seen = set()
    for c in t:
        if c in seen:
            f = next(fresh)
            out.append(f)
            subs.append(c + f)
            eyes.append(wrap(np.eye(sizes[c], dtype=g._data.dtype)))
        else:
            seen.add(c)
            out.append(c)
    return einsum(",".join(subs) + "->" + "".join(out), g, *eyes)


def _einsum_node_class(terms, rhs):
    if len(terms) == 1:
        t = terms[0]
        if set(rhs) != set(t):
            return _EinsumSum
        return _EinsumPermute
    letters = "".join(terms)
    if all(c in rhs for c in set(letters)):
        return _EinsumMul
    return _EinsumView


_EinsumSum = _named(_EinsumBackward, "SumBackward1")
_EinsumPermute = _named(_EinsumBackward, "PermuteBackward0")
_EinsumMul = _named(_EinsumBackward, "MulBackward0")
_EinsumView = _named(_EinsumBackward, "ViewBackward0")


def _einsum_impl(eq, ops, terms, rhs, sizes, node_cls=None):
    arrays = [o._data for o in ops]
    dt = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype != dt:
            raise RuntimeError(f"expected scalar type {type_name(dt)} but found "
                               f"{type_name(a.dtype)}")
    canon = ",".join(terms) + "->" + rhs
    try:
        r = _np_einsum(canon, arrays)
    except ValueError as e:
        raise RuntimeError(f"einsum(): {e}") from None
    res = wrap(np.asarray(r, dtype=dt))
    if requires(*ops):
        node = (node_cls or _einsum_node_class(terms, rhs))()
        node._saved_tensors = list(ops)
        node._terms, node._rhs, node._sizes = terms, rhs, sizes
        link(res, node, *ops)
    return res


def _sublist_equation(args):
    """einsum(op1, sublist1, op2, sublist2, ..., [out]) -> (equation, operands)."""
    def sub(lst):
        out = []
        for v in lst:
            if v is Ellipsis:
                out.append("...")
            else:
                v = int(v)
                if not 0 <= v < 52:
                    raise RuntimeError(f"einsum(): subscript in subscript list is not within "
                                       f"the valid range [0, 52)")
                out.append(_LETTERS[v])
        return "".join(out)
    ops = list(args[0::2])
    subs = list(args[1::2])
    rhs = None
    if len(args) % 2 == 1:
        rhs = args[-1]
        ops = list(args[0:-1:2])
        subs = list(args[1:-1:2])
    eq = ",".join(sub(x) for x in subs)
    if rhs is not None:
        eq += "->" + sub(rhs)
    return eq, ops


def einsum(equation, *operands):
    if not isinstance(equation, str):
        equation, operands = _sublist_equation((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for c in equation:
        if c.isalpha() and c not in _LETTERS:
            raise RuntimeError("einsum(): invalid subscript given in the equation string, "
                               "subscripts must be in [a-zA-Z]")
    terms, rhs, sizes = _parse_einsum(equation, [o._data.shape for o in operands])
    if any(rhs.count(c) > 1 for c in rhs):
        c = next(c for c in rhs if rhs.count(c) > 1)
        raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the "
                           f"output")
    for c in rhs:
        if c not in sizes:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                               f"equation for any input operand")
    return _einsum_impl(equation, list(operands), terms, rhs, sizes)


def tensordot(a, b, dims=2, out=None):
    x, y = a._data, b._data
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > x.ndim or dims > y.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        da = list(range(-dims, 0))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    if x.dtype != y.dtype:
        raise RuntimeError("both inputs should have same dtype")
    ta = list(_LETTERS[:x.ndim])
    tb = list(_LETTERS[x.ndim:x.ndim + y.ndim])
    for p, q in zip(da, db):
        p, q = wrap_dim(p, x.ndim), wrap_dim(q, y.ndim)
        if x.shape[p] != y.shape[q]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{x.shape[p]} in dim {da[da.index(p) if p in da else 0]} and "
                               f"second has size {y.shape[q]} in dim "
                               f"{db[db.index(q) if q in db else 0]}")
        tb[q] = ta[p]
    contracted = {ta[wrap_dim(p, x.ndim)] for p in da}
    rhs = "".join(c for c in ta if c not in contracted) + \
        "".join(c for c in tb if c not in contracted)
    terms = ["".join(ta), "".join(tb)]
    sizes = dict(zip(ta, x.shape))
    sizes.update(zip(tb, y.shape))
    return write_out(_einsum_impl(None, [a, b], terms, rhs, sizes, _EinsumView), out)


class _KronBackward(Node):
    __slots__ = ("_saved_self", "_saved_other", "_nd")
    _saved_names = ("_saved_self", "_saved_other")

    def apply(self, grad):
        a, b, nd = self._saved_self, self._saved_other, self._nd
        sa = (1,) * (nd - a.ndim) + tuple(a.shape)
        sb = (1,) * (nd - b.ndim) + tuple(b.shape)
        g = grad.reshape(tuple(v for pair in zip(sa, sb) for v in pair))
        ta, tb = _LETTERS[:nd], _LETTERS[nd:2 * nd]
        tg = "".join(p + q for p, q in zip(ta, tb))
        ga = gb = None
        dt = grad.dtype
        if needs(self, 0):
            bb = b if b.dtype == dt else b.to(dt)
            ga = einsum(f"{tg},{tb}->{ta}", g, bb.reshape(sb).conj()).reshape(a.shape)
        if needs(self, 1):
            aa = a if a.dtype == dt else a.to(dt)
            gb = einsum(f"{tg},{ta}->{tb}", g, aa.reshape(sa).conj()).reshape(b.shape)
        return ga, gb


_KronNode = _named(_KronBackward, "UnsafeViewBackward0")


def kron(input, other, *, out=None):
    a, b = input._data, other._data
    nd = max(a.ndim, b.ndim)
    if a.dtype != b.dtype:
        rt = np.promote_types(a.dtype, b.dtype) if D.FROM_NP.get(a.dtype) is None else \
            D.result_type(input, other).np
        a, b = a.astype(rt), b.astype(rt)
    res = wrap(np.asarray(np.kron(a, b)))
    if requires(input, other):
        node = _KronNode()
        node._saved_self = input if other._requires_grad or input._requires_grad else None
        node._saved_other = other
        node._nd = nd
        link(res, node, input, other)
    return write_out(res, out)


def inner(input, other, *, out=None):
    a, b = input._data, other._data
    if a.ndim == 0 or b.ndim == 0:
        return write_out(input * other, out)
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(a.shape)} and {list(b.shape)}")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    return write_out(tensordot(input, other, ([a.ndim - 1], [b.ndim - 1])), out)
