"""matmul, einsum, tensordot, kron and inner build torch's chain of nodes (issue 8): for each case
the whole graph under the result, walked through next_functions (node names, None edges, and
which input each AccumulateGrad belongs to), is torch's; so are the values, the gradients and
the gradients of the gradients. Inputs come in several layouts (contiguous, transposed, sliced,
expanded) and requires_grad patterns, since torch's composition depends on both."""
import random

import numpy as np
import pytest
import torch

import ember
from oracle import check_error, gradgradcheck


def _tree(fn, leaves):
    """(name, children) for a node; ("leaf", i) for the AccumulateGrad of input i."""
    if fn is None:
        return None
    if type(fn).__name__ == "AccumulateGrad":
        return ("leaf", next(i for i, x in enumerate(leaves) if x is fn.variable))
    return (type(fn).__name__, tuple(_tree(f, leaves) for f, _ in fn.next_functions))


def _show(t):
    if t is None or t[0] == "leaf":
        return "None" if t is None else f"leaf{t[1]}"
    return f"{t[0]}[{', '.join(_show(c) for c in t[1])}]"


def _input(L, spec, data):
    """(leaf, the tensor passed to the op): spec = (shape, layout, requires_grad)."""
    shape, layout, rg = spec
    if layout == "c":
        leaf = L.tensor(data, requires_grad=rg)
        return leaf, leaf
    if layout == "t":                         # a transposed view of a contiguous leaf
        leaf = L.tensor(np.swapaxes(data, -1, -2).copy(order="C"), requires_grad=rg)
        return leaf, leaf.transpose(-1, -2)
    if layout == "s":                         # every other element of the last dim
        leaf = L.tensor(np.repeat(data, 2, axis=-1), requires_grad=rg)
        return leaf, leaf[..., ::2]
    leaf = L.tensor(data[:1].copy(), requires_grad=rg)     # "x": expanded along dim 0
    return leaf, leaf.expand(*shape)


def _arrays(specs, seed):
    rng = np.random.default_rng(seed)
    out = []
    for shape, layout, _ in specs:
        d = rng.standard_normal(shape)
        if layout == "x":
            d = np.broadcast_to(d[:1], shape).copy()
        out.append(d)
    return out


def check_chain(fn, specs, seed=0):
    """fn(lib, *inputs) in torch and ember: the same chain, values, gradients and second
    derivatives (of the sum of the squared gradients)."""
    arrays = _arrays(specs, seed)
    rng = np.random.default_rng(seed + 1)
    got = {}
    for L in (torch, ember):
        made = [_input(L, s, a) for s, a in zip(specs, arrays)]
        leaves = [m[0] for m in made]
        out = fn(L, *[m[1] for m in made])
        got[L] = (leaves, out, _tree(out.grad_fn, leaves))
    (tleaves, tout, ttree), (eleaves, eout, etree) = got[torch], got[ember]
    assert ttree == etree, f"\ntorch: {_show(ttree)}\nember: {_show(etree)}"
    assert str(tout.dtype) == str(eout.dtype) and tuple(tout.shape) == tuple(eout.shape)
    np.testing.assert_allclose(eout.detach().numpy(), tout.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    if not tout.requires_grad:
        return
    w = rng.standard_normal(tuple(tout.shape))
    wants = [i for i, x in enumerate(tleaves) if x.requires_grad]
    second = {}
    for L, leaves, out in ((torch, tleaves, tout), (ember, eleaves, eout)):
        xs = [leaves[i] for i in wants]
        gs = L.autograd.grad((out * L.tensor(w)).sum(), xs, create_graph=True,
                             allow_unused=True)
        total = sum((g * g).sum() for g in gs if g is not None)
        gg = None
        if isinstance(total, L.Tensor) and total.requires_grad:
            gg = L.autograd.grad(total, xs, allow_unused=True)
        second[L] = (gs, gg)
    (tg, tgg), (eg, egg) = second[torch], second[ember]
    assert (tgg is None) == (egg is None)
    for a, b in zip(tg + (tgg or ()), eg + (egg or ())):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10,
                                       atol=1e-12)


def C(*s):
    return (s, "c", True)


def T(*s):
    return (s, "t", True)


def S(*s):
    return (s, "s", True)


def X(*s):
    return (s, "x", True)


def N(*s):                                     # no gradient wanted
    return (s, "c", False)


def NT(*s):
    return (s, "t", False)


def NS(*s):
    return (s, "s", False)


def _mm(L, a, b):
    return a @ b


MATMUL = {
    "1d@2d": [C(3), C(3, 4)],
    "2d@1d": [C(2, 3), C(3)],
    "1d@1d": [C(3), C(3)],
    "fold 3d@2d": [C(5, 2, 3), C(3, 4)],
    "fold 3d@1d": [C(5, 2, 3), C(3)],
    "fold 4d@2d": [C(2, 3, 2, 3), C(3, 4)],
    "fold copy": [T(5, 2, 3), C(3, 4)],
    "fold sliced rows": [S(5, 2, 3), N(3, 4)],
    "fold_t 2d@3d": [C(2, 3), C(5, 3, 4)],
    "fold_t 1d@3d": [C(3), C(5, 3, 4)],
    "fold_t 1d@4d": [C(4), C(2, 3, 4, 5)],
    "fold_t contiguous result": [C(1, 3), C(5, 3, 4)],
    "fold_t transposed": [C(2, 3), T(5, 3, 4)],
    "fold_t 1d no grad": [N(3), T(5, 3, 4)],
    "squeezed batch a": [C(1, 2, 3), C(5, 3, 4)],
    "squeezed batch b": [C(5, 2, 3), C(1, 3, 4)],
    "bmm": [C(5, 2, 3), C(5, 3, 4)],
    "bmm broadcast": [C(5, 1, 2, 3), C(4, 3, 2)],
    "bmm 4d@3d": [C(6, 5, 2, 3), C(5, 3, 4)],
    "bmm transposed": [T(5, 2, 3), C(5, 3, 4)],
    "bmm expanded": [X(3, 2, 3), C(3, 3, 2)],
    "bmm 2d no grad": [N(2, 3), C(5, 3, 4)],
    "bmm 2d transposed no grad": [N(2, 3), T(5, 3, 4)],
    "bmm 1d no grad": [N(3), C(5, 3, 4)],
    "bmm 3d@1d no grad": [T(5, 2, 3), N(3)],
    "bmm 3d@2d no grad": [T(5, 2, 3), N(3, 4)],
    "bmm one side": [C(5, 2, 3), N(5, 3, 4)],
    "empty batch": [C(0, 2, 3), C(3, 4)],
    "empty rows": [C(0, 3), C(5, 3, 4)],
    "empty inner": [C(2, 0), C(4, 0, 3)],
}


@pytest.mark.parametrize("name", list(MATMUL))
def test_matmul_chain(name):
    check_chain(_mm, MATMUL[name])


def test_matmul_chains_random():
    """A seeded sweep over ranks, sizes (0 and 1 included), layouts and requires_grad."""
    rnd = random.Random(8)
    for trial in range(120):
        d1, d2 = rnd.choice([(1, 3), (3, 1), (2, 3), (3, 2), (3, 3), (4, 3), (3, 4), (4, 2),
                             (2, 4), (1, 4), (4, 4)])
        k, n, p = rnd.choice([0, 2, 3]), rnd.choice([1, 2]), rnd.choice([1, 2, 3])
        batch = [rnd.choice([0, 1, 2, 3]) for _ in range(max(d1, d2) - 2)]

        def shape(d, rows, cols):
            if d == 1:
                return (k,)
            lead = [b if rnd.random() < 0.7 else 1 for b in batch[len(batch) - (d - 2):]]
            return tuple(lead) + (rows, cols)
        sa, sb = shape(d1, n, k), shape(d2, k, p)
        specs = []
        for s, rg in zip((sa, sb), rnd.choice([(True, True), (True, False), (False, True)])):
            lay = rnd.choice("cts" + ("x" if len(s) >= 3 and s[0] > 1 else "")) \
                if len(s) >= 2 else rnd.choice("cs")
            specs.append((s, lay, rg))
        check_chain(_mm, specs, seed=trial)


EINSUM = {
    "ij,jk->ik": [C(2, 3), C(3, 4)],
    "ij,jk": [C(2, 3), C(3, 4)],
    "zy,yx": [C(2, 3), C(3, 4)],           # b leads the bmm (its dims come first)
    "zy,yx->": [C(2, 3), C(3, 4)],
    "Ab,bc": [C(2, 3), C(3, 4)],
    "xA,Ax->": [C(2, 3), C(3, 2)],
    "bA,Ba": [C(2, 3), C(4, 5)],
    "ii->i": [C(3, 3)],
    "ii": [C(3, 3)],
    "iij->ij": [C(3, 3, 2)],
    "iji->j": [C(3, 2, 3)],
    "iiii->": [C(3, 3, 3, 3)],
    "ijij->ji": [C(2, 3, 2, 3)],
    "jii->ij": [C(2, 3, 3)],
    "ij->ji": [C(2, 3)],
    "ij->j": [C(2, 3)],
    "ij": [C(2, 3)],
    "ijk->kj": [C(2, 3, 4)],
    "i,j->ij": [C(2), C(3)],
    "i,i": [C(3), C(3)],
    "i,i->i": [C(3), C(3)],
    "bij,bjk->bik": [C(5, 2, 3), C(5, 3, 4)],
    "bij,jk->bik": [C(2, 2, 3), C(3, 2)],
    "ij,k->ik": [C(2, 3), C(4)],
    "ijl,k->ik": [C(2, 3, 5), C(4)],
    "ij,jk->i": [C(2, 3), C(3, 4)],
    "ij,ij->": [C(2, 3), C(2, 3)],
    "ij,ji->": [C(3, 3), C(3, 3)],
    "ij,ij->ij": [C(2, 3), C(2, 3)],
    "ii,i->i": [C(3, 3), C(3)],
    "iij,jj->i": [C(3, 3, 2), C(2, 2)],
    "ij,jk broadcast a": [C(2, 1), C(3, 4)],
    "ij,jk broadcast b": [C(2, 3), C(1, 4)],
    "ij,jk,kl->il": [C(2, 3), C(3, 4), C(4, 5)],
    "ij,jk,il->kl": [C(2, 3), C(3, 4), C(2, 5)],
    "ab,bc,cd,de->ae": [C(2, 3), C(3, 4), C(4, 5), C(5, 6)],
    "i,i,i->": [C(3), C(3), C(3)],
    "b,ce,ee": [C(4), T(3, 4), NT(1, 1)],  # a size-1 dim: not the label's last operand
    "...ij,...jk": [C(5, 2, 3), C(3, 4)],
    "b...i,b...i->b...": [C(2, 3, 4), C(2, 3, 4)],
    "...i->i": [C(2, 3)],
    "A...->": [C(2, 3)],
    "i...j->j...i": [C(2, 3, 4, 5)],
    "...i,...i->...": [C(2, 3, 4), C(3, 4)],
    "...i,...i->": [C(2, 3, 4), C(3, 4)],
    "i,...->i...": [C(2), C(3, 4)],
    "ij,jk->ik transposed": [T(2, 3), T(3, 4)],
    "ij,jk->ik sliced": [S(2, 3), C(3, 4)],
    "bij,bjk->bik expanded": [X(5, 2, 3), C(5, 3, 4)],
    "ij,jk,kl->il no grad ends": [N(2, 3), C(3, 4), N(4, 5)],
    "ij,jk->ik empty k": [C(2, 0), C(0, 3)],
    "ij,jk->ik empty i": [C(0, 2), C(2, 3)],
    "ii->i empty": [C(0, 0)],
}


@pytest.mark.parametrize("name", list(EINSUM))
def test_einsum_chain(name):
    eq = name.split(" ")[0]
    check_chain(lambda L, *xs: L.einsum(eq, *xs), EINSUM[name])


def test_einsum_sublist_and_list_forms():
    check_chain(lambda L, x, y: L.einsum(x, [0, 27], y, [27, 1]), [C(2, 3), C(3, 4)])
    check_chain(lambda L, x: L.einsum(x, [27, 0]), [C(2, 3)])   # 0..51 = 'A'..'Z', 'a'..'z'
    check_chain(lambda L, x, y: L.einsum(x, [Ellipsis, 1], y, [1]), [C(2, 3), C(3)])
    check_chain(lambda L, x, y: L.einsum("ij,jk", [x, y]), [C(2, 3), C(3, 4)])


def test_einsum_chains_random():
    """A seeded sweep of one- and two-operand equations: repeated labels, ellipses, size-1
    broadcasting, implicit and explicit outputs, layouts and requires_grad."""
    rnd = random.Random(8)
    alpha = "abcdAB"
    for trial in range(120):
        size = {c: rnd.choice([1, 2, 3]) for c in alpha}
        terms, specs = [], []
        ell = rnd.random() < 0.3
        for _ in range(rnd.choice([1, 2, 2])):
            t = "".join(rnd.choice(alpha) for _ in range(rnd.choice([0, 1, 2, 3])))
            shape = [size[c] if rnd.random() < 0.85 else 1 for c in t]
            for i, c in enumerate(t):
                shape[i] = shape[t.index(c)]
            if ell and rnd.random() < 0.7:
                nd, pos = rnd.choice([0, 1, 2]), rnd.randint(0, len(t))
                t = t[:pos] + "..." + t[pos:]
                shape[pos:pos] = [(2, 3)[2 - nd + j] for j in range(nd)]
            lay = rnd.choice("cct" if len(shape) >= 2 else "c")
            terms.append(t)
            specs.append((tuple(shape), "s" if shape and rnd.random() < 0.15 else lay,
                          rnd.random() < 0.8))
        if not any(s[2] for s in specs):
            specs[0] = specs[0][:2] + (True,)
        eq = ",".join(terms)
        if rnd.random() < 0.5:
            letters = sorted(set(eq) - set(".,"))
            rnd.shuffle(letters)
            out = "".join(letters[:rnd.randint(0, len(letters))])
            if "..." in eq and rnd.random() < 0.7:
                out += "..."
            eq += "->" + out
        check_chain(lambda L, *xs: L.einsum(eq, *xs), specs, seed=trial)


def test_einsum_chain_after_mul_of_broadcast_operands():
    # mul's result has torch's layout (Note [Elementwise layout]), so the later bmm operand
    # reshapes by a copy (Clone + UnsafeView) exactly where torch's does
    check_chain(lambda L, *xs: L.einsum("da,Ab,b", *xs), [C(1, 2), C(3, 2), N(2)])


@pytest.mark.parametrize("eq, shapes", [
    ("i..j", [(2, 3)]), ("i....j", [(2, 3)]), ("...i...", [(2, 3)]), ("i.j,k", [(2, 3)]),
    (". ..i", [(2, 3)]), ("ij->i.", [(2, 3)]), ("ij->......", [(2, 3)]), ("ij->i$", [(2, 3)]),
    ("ij->i->j", [(2, 3)]), ("ij->ii", [(2, 3)]), ("ij->k$", [(2, 3)]), ("ij->kk", [(2, 3)]),
    ("i$,j", [(2, 3)]), ("i - > j", [(2, 3)]), ("i j -> $", [(2, 3)]), ("ij,k->$", [(2, 3)]),
    ("ijk->$", [(2, 3)]), ("ij,jk->$", [(2, 3), (4, 5)]), ("ij,jk->m", [(2, 3), (4, 5)]),
    ("ij->i.", [(2, 3), (2,)]), ("ii", [(2, 3)]), ("...,...", [(2,), (3,)]),
    ("ij,jk", [(2, 3), (4, 5)]), ("ij,jk", [(2, 3), (3,)]), ("...ij->...", [(3,)]),
])
def test_einsum_equation_errors(eq, shapes):
    check_error(lambda L: L.einsum(eq, *[L.ones(*s) for s in shapes]))


def test_einsum_spaces_and_dtypes():
    check_chain(lambda L, x: L.einsum(" i j -> j i ", x), [C(2, 3)])
    check_chain(lambda L, x, y: L.einsum("i,j->ij", x, y.float()), [C(2), N(3)])
    check_error(lambda L: L.einsum("ij,jk", L.ones(2, 3), L.ones(3, 4, dtype=L.float64)))
    check_error(lambda L: L.einsum("ij,jk", L.ones(2, 3, dtype=L.bool),
                                   L.ones(3, 4, dtype=L.bool)))
    # integer sums widen to int64 as torch's do; a bmm keeps int32
    shapes = {"ij->": [(2, 3)], "ij,k->ik": [(2, 3), (4,)], "ij,kj->ik": [(2, 3), (5, 3)]}
    for eq, ss in shapes.items():
        ts, es = [L.einsum(eq, *[L.ones(*s, dtype=L.int32) for s in ss]) for L in (torch, ember)]
        assert str(ts.dtype) == str(es.dtype) and ts.tolist() == es.tolist()


def test_operands_that_are_not_tensors():
    for fn in (lambda L: L.einsum("i", [1.0, 2.0]), lambda L: L.einsum("i,i", L.ones(2), 3),
               lambda L: L.einsum("i", np.ones(2)), lambda L: L.einsum("i"), lambda L: L.einsum(3),
               lambda L: L.kron(L.ones(2), 3), lambda L: L.kron(2, L.ones(2)),
               lambda L: L.inner(L.ones(2), 2.0), lambda L: L.tensordot(L.ones(2), [1.0], 1)):
        check_error(fn)


TENSORDOT = {
    "1": (1, [C(2, 3), C(3, 4)]),
    "2": (2, [C(2, 3, 4), C(3, 4, 5)]),
    "0": (0, [C(2, 3), C(4)]),
    "lists": (([1, 2], [0, 2]), [C(3, 4, 2), C(4, 5, 2)]),
    "lists copy": (([1, 2], [1, 0]), [C(2, 3, 4), C(4, 3, 2)]),
    "reshape alias": (([0], [1]), [C(3, 2), C(2, 3)]),
    "negative dims": (([-1], [-2]), [C(2, 3), C(4, 3, 5)]),
    "vectors (dot)": (1, [C(3), C(3)]),
    "full (dot)": (2, [C(2, 3), C(2, 3)]),
    "full permuted (mul, sum)": (([1, 0], [0, 1]), [C(2, 3), C(3, 2)]),
    "full transposed (mul, sum)": (2, [T(2, 3), C(2, 3)]),
    "full sliced (mul, sum)": (1, [S(3), C(3)]),
    "full expanded (mul, sum)": (2, [X(2, 3), C(2, 3)]),
    "free dims of size 1 (dot)": (([1], [1]), [C(1, 3), C(1, 3)]),
    "size-1 contracted dims": (2, [C(1, 3), C(1, 3)]),
    "broadcast a": (([1], [1]), [C(2, 1), C(2, 3)]),
    "broadcast b": (([1], [1]), [C(2, 3), C(2, 1)]),
    "no free dim in a": (2, [T(2, 3), C(2, 3, 4)]),
    "no free dim in b": (2, [C(4, 2, 3), T(2, 3)]),
    "scalars": (0, [C(), C()]),
    "scalar, vector": (0, [C(), C(3)]),
    "one side": (1, [C(2, 3), N(3, 4)]),
    "one side (mul, sum)": (2, [C(2, 3), NT(2, 3)]),
    "empty": (1, [C(2, 0), C(0, 4)]),
}


@pytest.mark.parametrize("name", list(TENSORDOT))
def test_tensordot_chain(name):
    dims, specs = TENSORDOT[name]
    check_chain(lambda L, a, b: L.tensordot(a, b, dims), specs)


def test_tensordot_dims_forms():
    check_chain(lambda L, a, b: L.tensordot(a, b, dims=L.tensor(1)), [C(2, 3), C(3, 4)])
    check_chain(lambda L, a, b: L.tensordot(a, b, dims=L.tensor([[1], [0]])),
                [C(2, 3), C(3, 4)])
    check_chain(lambda L, a, b: L.tensordot(a, b, dims=[[1], [0]]), [C(2, 3), C(3, 4)])
    check_chain(lambda L, a, b: L.tensordot(a, b, dims=((1,), (0,))), [C(2, 3), C(3, 4)])
    for dims in [(1, 0), ([1], 0), (1, [0]), ([1.0], [0]), 1.0, "ab", None, ([1], [0], [2]),
                 ([1],), ([1, 0], [0])]:
        check_error(lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 4), dims=dims))
    check_error(lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 4), dims=L.tensor([1, 0])))


INNER = {
    "matrices": [C(2, 3), C(4, 3)],
    "vectors": [C(3), C(3)],
    "matrix, vector": [C(2, 3), C(3)],
    "scalar": [C(), C(3)],
    "3-d": [C(2, 5, 3), C(4, 3)],
    "transposed": [T(2, 3), C(4, 3)],
}


@pytest.mark.parametrize("name", list(INNER))
def test_inner_chain(name):
    check_chain(lambda L, a, b: L.inner(a, b), INNER[name])


KRON = {
    "2d": [C(2, 3), C(3, 2)],
    "2d, 1d": [C(2, 3), C(4)],
    "1d": [C(2), C(3)],
    "3d, 2d": [C(2, 3, 4), C(2, 2)],
    "1d, 3d": [C(3), C(2, 2, 2)],
    "scalar, 1d": [C(), C(3)],
    "scalars": [C(), C()],
    "one side": [C(2, 2), N(2, 2)],
    "empty": [C(0, 3), C(2)],
    "transposed b, size-1 dims": [C(2, 3), T(1, 2)],
}


@pytest.mark.parametrize("name", list(KRON))
def test_kron_chain(name):
    check_chain(lambda L, a, b: L.kron(a, b), KRON[name])


def test_kron_promotes_like_mul():
    for L in (torch, ember):
        r = L.kron(L.ones(2, 2), L.arange(3))
        assert str(r.dtype).endswith("float32") and tuple(r.shape) == (2, 6)
    check_chain(lambda L, a, b: L.kron(a, b.long()), [C(2, 3), N(4)])


@pytest.mark.parametrize("fn, arrays", [
    (lambda x, y: x @ y, [(2, 1, 2, 3), (4, 3, 2)]),
    (lambda x, y: x @ y, [(2, 3), (5, 3, 4)]),
    (lambda x, y, z: ember.einsum("ij,jk,ik->i", x, y, z), [(2, 3), (3, 2), (2, 2)]),
    (lambda x: ember.einsum("iij->ij", x) ** 2, [(3, 3, 2)]),
    (lambda x, y: ember.tensordot(x, y, ([1, 0], [0, 1])), [(2, 3), (3, 2)]),
    (lambda x, y: ember.kron(x, y), [(2, 2), (3,)]),
])
def test_second_derivatives_numerically(fn, arrays):
    rng = np.random.default_rng(0)
    gradgradcheck(fn, *[rng.standard_normal(s) for s in arrays])


# ---------------------------------------------------------------- the ops the chains use

def test_reshape_records_torchs_node():
    """view for a contiguous input, _reshape_alias for a viewable non-contiguous one, clone and
    _unsafe_view otherwise."""
    for make in (lambda L, x: x.t().reshape(4, 3), lambda L, x: x.t().reshape(2, 2, 3),
                 lambda L, x: x.t().reshape(12), lambda L, x: x.reshape(12),
                 lambda L, x: x[:, ::2].reshape(3, 2, 1),
                 lambda L, x: x[:1].expand(4, 4).reshape(2, 2, 4),
                 lambda L, x: x.t().flatten()):
        got = []
        for L in (torch, ember):
            x = L.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
            y = make(L, x)
            (y * L.tensor(np.arange(float(y.numel())).reshape(tuple(y.shape)))).sum().backward()
            got.append((type(y.grad_fn).__name__, y._base is x, x.grad.tolist()))
        assert got[0] == got[1]


def test_expand_and_sum_strides_match_torch():
    """expand keeps the input's strides on the dims it does not expand (matmul's fold test
    reads them); a sum is written contiguous, whatever the input's layout."""
    for make in (lambda L: L.zeros(1, 1, 3).expand(3, 1, 3),
                 lambda L: L.zeros(2, 1).expand(4, 2, 3)):
        assert make(torch).stride() == make(ember).stride()
    for make in (lambda L: L.zeros(3, 4).t().sum(0, keepdim=True),
                 lambda L: L.zeros(2, 3, 4).permute(2, 0, 1).sum(1, keepdim=True),
                 lambda L: L.zeros(2, 3, 4).permute(2, 0, 1).sum((0, 2))):
        t, e = make(torch), make(ember)
        assert e.is_contiguous() and t.is_contiguous()
        assert [s for s, n in zip(t.stride(), t.shape) if n != 1] == \
            [s for s, n in zip(e.stride(), e.shape) if n != 1]
