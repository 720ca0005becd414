"""einsum, tensordot, kron and inner, composed of view, sum, mul and bmm/mm/dot ops in the order
torch composes them, so that their grad_fn and next_functions are torch's chain of nodes and
their gradients (of every order) come from those ops' own formulas."""
__all__ = ["inner", "einsum", "tensordot", "kron"]

import math

import numpy as np

from ..tensor import Tensor
from ._args import wrap_dim, write_out
from .matmul import _type_error, bmm, dot, mm
from .shape import _unsafe_view

# Labels sort in ASCII order (torch's implicit output and contraction order); a sublist's
# subscripts 0..51 stand for these letters in this order.
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_LETTER = 256      # label of letter c: _LETTER + ord(c); the dims under '...' are 0, 1, ...


# ---------------------------------------------------------------- parsing

def _invalid(i):
    return RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                        f"subscripts must be in [a-zA-Z]")


def _ellipsis_at(equation, i, found, what):
    """Check the '.' at equation[i] starts an ellipsis, the first of its term."""
    if found:
        raise RuntimeError(f"einsum(): found '.' for {what} for which an ellipsis was already "
                           f"found" if what != "output" else
                           "einsum(): found '.' for output but an ellipsis (...) was already "
                           "found")
    if equation[i:i + 3] != "...":
        raise RuntimeError(f"einsum(): found '.' for {what} that is not part of any ellipsis"
                           + (" (...)" if what == "output" else ""))


def _terms(equation, stop):
    """The operands' terms in equation[:stop]: text of letters, with "..." where the ellipsis
    is; spaces are ignored, errors name the index in the whole equation."""
    terms, cur, i = [], "", 0
    while i < stop:
        c = equation[i]
        if c == ".":
            _ellipsis_at(equation, i, "..." in cur, f"operand {len(terms)}")
            cur += "..."
            i += 3
            continue
        if c == ",":
            terms.append(cur)
            cur = ""
        elif c in _LETTERS:
            cur += c
        elif c != " ":
            raise _invalid(i)
        i += 1
    return terms + [cur]


def _output(equation, start, ell_nd, seen):
    """The output's labels from equation[start:], checked left to right as torch does."""
    out, found, i = [], False, start
    while i < len(equation):
        c = equation[i]
        if c == ".":
            _ellipsis_at(equation, i, found, "output")
            found = True
            out += range(ell_nd)
            i += 3
            continue
        if c in _LETTERS:
            lab = _LETTER + ord(c)
            if lab in out:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in "
                                   f"the output")
            if lab not in seen:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   f"equation for any input operand")
            out.append(lab)
        elif c != " ":
            raise _invalid(i)
        i += 1
    return out


def _parse_einsum(equation, shapes):
    """(labels of each operand, labels of the output, size of each label). A letter's label is
    _LETTER + its code; the dims an ellipsis covers are labelled 0, 1, ... (aligned on the
    right, so that they broadcast), which sorts them before every letter, as torch does.
    Errors come in torch's order: the operands' subscripts, their count, their dims, the
    output's subscripts, then the sizes."""
    arrow = equation.find("->")
    terms = _terms(equation, len(equation) if arrow < 0 else arrow)
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    ell_nd = 0
    for i, (t, s) in enumerate(zip(terms, shapes)):
        n = len(t.replace("...", ""))
        if "..." in t:
            if n > len(s):
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) "
                                   f"is more than the number of dimensions ({len(s)}) for "
                                   f"operand {i}")
            ell_nd = max(ell_nd, len(s) - n)
        elif n != len(s):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does "
                               f"not match the number of dimensions ({len(s)}) for operand "
                               f"{i} and no ellipsis was given")
    labels = []
    for t, s in zip(terms, shapes):
        head, dots, tail = t.partition("...")
        nd = len(s) - len(head) - len(tail)
        labels.append([_LETTER + ord(c) for c in head]
                      + (list(range(ell_nd - nd, ell_nd)) if dots else [])
                      + [_LETTER + ord(c) for c in tail])
    flat = [lab for t in labels for lab in t]
    if arrow < 0:
        # implicit output: the ellipsis dims, then the letters seen once, in ASCII order
        out = list(range(ell_nd)) + sorted(lab for lab in set(flat)
                                           if lab >= _LETTER and flat.count(lab) == 1)
    else:
        out = _output(equation, arrow + 2, ell_nd, set(flat))
    sizes = {}
    for i, (t, s) in enumerate(zip(labels, shapes)):
        for k, (lab, n) in enumerate(zip(t, s)):
            old = sizes.get(lab)
            first = t.index(lab)
            if first < k and s[first] != n:
                raise RuntimeError(f"einsum(): subscript {chr(lab - _LETTER)} is repeated for "
                                   f"operand {i} but the sizes don't match, {n} != "
                                   f"{s[first]}")
            if old is None or old == 1:
                sizes[lab] = n
            elif n != old and n != 1:
                if lab < _LETTER:
                    raise RuntimeError(f"einsum(): dimension {lab} covered by ellipsis in "
                                       f"operand {i}has size {n} which does not broadcast "
                                       f"with previously seen ellipsis with size {old} for "
                                       f"the respective dimension")
                raise RuntimeError(f"einsum(): subscript {chr(lab - _LETTER)} has size {n} "
                                   f"for operand {i} which does not broadcast with previously "
                                   f"seen size {old}")
    return labels, out, sizes


def _sublist_equation(args):
    """einsum(op1, sublist1, op2, sublist2, ..., [out]) -> (equation, operands)."""
    def sub(lst):
        out = []
        for v in lst:
            if v is Ellipsis:
                out.append("...")
            else:
                if not isinstance(v, (int, np.integer)):
                    # (torch compares the subscript with 0 first)
                    raise TypeError(f"'>=' not supported between instances of "
                                    f"'{type(v).__name__}' and 'int'")
                v = int(v)
                if not 0 <= v < 52:
                    raise RuntimeError("einsum(): subscript in subscript list is not within "
                                       "the valid range [0, 52)")
                out.append(_LETTERS[v])
        return "".join(out)
    n = len(args) - len(args) % 2
    eq = ",".join(sub(x) for x in args[1:n:2])
    if len(args) % 2:
        eq += "->" + sub(args[-1])
    return eq, list(args[0:n:2])


# ---------------------------------------------------------------- einsum
# Note [einsum chain]: torch's einsum, as its graph shows it (next_functions, walked for many
# equations; with opt_einsum absent, torch's CPU default, the operands are contracted from
# left to right):
# 1. each operand: for each repeated label, diagonal(0, first, repeat).movedim(-1, first);
#    then unsqueeze(dim()) for each label of `order` it lacks and permute into `order`: the
#    output's labels, then the others (ellipsis dims first, then letters in ASCII order);
# 2. one operand: sum over the non-output dims (if any);
# 3. else for each next operand b: the non-output dims seen for the last time (or before)
#    are summed where both have them (size != 1), summed beforehand (keepdim) in the one that
#    has them alone; no dim to sum in both -> a * b, else _sumproduct (one bmm);
# 4. the non-output dims, size 1 by now, are dropped with a view.

def _align(op, labels, order):
    """Step 1 of Note [einsum chain]: op with one dim per label of `order`, in that order."""
    labels = list(labels)
    i = 0
    while i < len(labels):
        first = labels.index(labels[i])
        if first < i:
            op = op.diagonal(0, first, i).movedim(-1, first)
            del labels[i]
        else:
            i += 1
    perm = []
    nd = len(labels)
    for lab in order:
        if lab in labels:
            perm.append(labels.index(lab))
        else:
            op = op.unsqueeze(nd)
            perm.append(nd)
            nd += 1
    return op.permute(perm)


def _sumproduct(a, b, sum_dims):
    """a and b (aligned: same dims) multiplied and summed over sum_dims (size != 1 in both),
    keeping those dims as size 1, with one bmm: the other dims are in both (lro), only in a
    (lo) or the rest (ro); b leads when every ro dim comes before every lo dim, as in torch."""
    sa, sb = a._data.shape, b._data.shape
    lro, lo, ro = [], [], []
    for d in range(len(sa)):
        if d in sum_dims:
            continue
        if sa[d] != 1 and sb[d] != 1:
            lro.append(d)
        elif sa[d] != 1:
            lo.append(d)
        else:
            ro.append(d)
    if lo and ro and ro[-1] < lo[0]:
        a, b, sa, sb, lo, ro = b, a, sb, sa, ro, lo
    prod = math.prod
    n_lro, n_lo = prod(sa[d] for d in lro), prod(sa[d] for d in lo)
    n_sum, n_ro = prod(sa[d] for d in sum_dims), prod(sb[d] for d in ro)
    perm = lro + lo + sum_dims + ro
    left = a.permute(perm).reshape(n_lro, n_lo, n_sum)
    right = b.permute(lro + sum_dims + ro + lo).reshape(n_lro, n_sum, n_ro)
    r = bmm(left, right).view([sa[d] for d in lro + lo] + [1] * len(sum_dims)
                              + [sb[d] for d in ro])
    return r.permute(np.argsort(perm).tolist())


def einsum(*args):
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    equation, operands = args[0], args[1:]
    if not isinstance(equation, str):
        equation, operands = _sublist_equation(args)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, op in enumerate(operands):
        if not isinstance(op, Tensor):
            t = type(op)
            name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {name}")
    labels, out, sizes = _parse_einsum(equation, [o._data.shape for o in operands])
    order = out + sorted(set(sizes) - set(out))
    n_out = len(out)
    ops = [_align(op, t, order) for op, t in zip(operands, labels)]
    if len(ops) == 1:
        x = ops[0]
        return x.sum(list(range(n_out, len(order)))) if len(order) > n_out else x
    # the last operand where each label has a size other than 1 (a size-1 dim broadcasts)
    last = {lab: i for i, (t, op) in enumerate(zip(labels, operands))
            for lab, n in zip(t, op._data.shape) if n != 1}
    a = ops[0]
    for i in range(1, len(ops)):
        b = ops[i]
        sa, sb = a._data.shape, b._data.shape
        both, only_a, only_b = [], [], []
        for d in range(n_out, len(order)):
            if last.get(order[d], 0) > i:
                continue            # a later operand has it
            if sa[d] != 1 and sb[d] != 1:
                both.append(d)
            elif sa[d] != 1:
                only_a.append(d)
            elif sb[d] != 1:
                only_b.append(d)
        if only_a:
            a = a.sum(only_a, keepdim=True)
        if only_b:
            b = b.sum(only_b, keepdim=True)
        a = _sumproduct(a, b, both) if both else a * b
    return a.view(a._data.shape[:n_out]) if len(order) > n_out else a


# ---------------------------------------------------------------- tensordot / inner / kron
# Note [tensordot chain]: contracted dims of size 1 on one side are summed (keepdim) on the
# other side first; then both are permuted (free dims of a, then its contracted dims; the
# contracted dims of b, then its free dims) and multiplied as matrices with mm; when neither
# has a free dim of size > 1 torch uses dot on the flattened operands instead, or, when one
# of them is not contiguous, (a.squeeze() * b.squeeze()).sum(); a view gives the result shape.

def _dims_list(d, name, pos):
    if not isinstance(d, (list, tuple)):
        raise TypeError(f"tensordot(): argument '{name}' (position {pos}) must be tuple of "
                        f"ints, not {type(d).__name__}")
    for i, v in enumerate(d):
        if not isinstance(v, (int, np.integer)):
            raise TypeError(f"tensordot(): argument '{name}' (position {pos}) must be tuple of "
                            f"ints, but found element of type {type(v).__name__} at pos {i}")
    return [int(v) for v in d]


def tensordot(a, b, dims=2, out=None):
    for t in (a, b):
        if not isinstance(t, Tensor):     # torch's Python wrapper calls a.dim() first
            raise AttributeError(f"'{type(t).__name__}' object has no attribute 'dim'")
    x, y = a._data, b._data
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > x.ndim or dims > y.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    elif isinstance(dims, (list, tuple)):
        da, db = dims
        da, db = _dims_list(da, "dims_self", 3), _dims_list(db, "dims_other", 4)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    else:
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if x.dtype != y.dtype:
        raise RuntimeError("both inputs should have same dtype")
    ca = [wrap_dim(p, x.ndim) for p in da]
    cb = [wrap_dim(q, y.ndim) for q in db]
    t1, t2 = a, b
    csize = 1
    for p, q, i, j in zip(da, db, ca, cb):
        s1, s2 = x.shape[i], y.shape[j]
        if s2 == 1:
            t1 = t1.sum(p, keepdim=True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = t2.sum(q, keepdim=True, dtype=t2.dtype)
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} "
                               f"in dim {p} and second has size {s2} in dim {q}")
        else:
            csize *= s1
    free_a = [d for d in range(x.ndim) if d not in ca]
    free_b = [d for d in range(y.ndim) if d not in cb]
    t1 = t1.permute(free_a + da)
    t2 = t2.permute(db + free_b)
    rows = math.prod(x.shape[d] for d in free_a)
    cols = math.prod(y.shape[d] for d in free_b)
    if rows == 1 and cols == 1:
        if t1._data.flags.c_contiguous and t2._data.flags.c_contiguous:
            r = dot(t1.flatten(), t2.flatten())
        else:
            r = (t1.squeeze() * t2.squeeze()).sum()
    else:
        r = mm(t1.reshape(rows, csize), t2.reshape(csize, cols))
    return write_out(r.view([x.shape[d] for d in free_a] + [y.shape[d] for d in free_b]), out)


def inner(input, other, *, out=None):
    try:
        a, b = input._data, other._data
    except AttributeError:
        raise _type_error("inner", ("input", "other"), (input, other)) from None
    if a.ndim == 0 or b.ndim == 0:
        return write_out(input * other, out)
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(a.shape)} and {list(b.shape)}")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    return write_out(tensordot(input, other, ([-1], [-1])), out)


def kron(input, other, *, out=None):
    """torch's chain: each operand _unsafe_view-ed with its dims interleaved with size-1 dims,
    multiplied (broadcast), and the product _unsafe_view-ed to the Kronecker shape."""
    try:
        a, b = input._data, other._data
    except AttributeError:
        raise _type_error("kron", ("input", "other"), (input, other)) from None
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    r = _unsafe_view(input, [v for n in sa for v in (n, 1)]) * \
        _unsafe_view(other, [v for n in sb for v in (1, n)])
    return write_out(_unsafe_view(r, [p * q for p, q in zip(sa, sb)]), out, "mul")
