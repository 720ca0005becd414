"""Issue 12 item 9: grad_fn._saved_<name> / _raw_saved_<name> exactly where torch exposes them.
For every generic entry of the gradgrad sweep (tests/test_gradgrad_sweep.py), the first-order
graph of ember and of torch are walked side by side (while the node names agree) and each
node's set of _saved_* / _raw_saved_* attribute names and the saved values are compared
(tensors: shape, dtype and values; numbers, tuples, strings, None and bools: equal)."""
import warnings

import numpy as np
import pytest
import test_gradgrad_sweep as S
import torch

import ember


def _attrs(node):
    """The _saved_* / _raw_saved_* attributes the node has (hasattr: an unset slot is none)."""
    return {a for a in dir(node) if a.startswith(("_saved_", "_raw_saved_")) and hasattr(node, a)}


def _value(v):
    if isinstance(v, (torch.Tensor, ember.Tensor)):
        a = v.detach().numpy() if not v.is_conj() else v.detach().resolve_conj().numpy()
        return ("tensor", tuple(v.shape), str(v.dtype), a)
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_value(x) for x in v))
    if isinstance(v, (torch.dtype, ember.dtype)):
        return ("dtype", str(v))
    if v is None or isinstance(v, (bool, int, float, complex, str)):
        return (type(v).__name__, v)
    return ("other", type(v).__name__)


def _same(a, b):
    """a (ember's) equals b (torch's). (A negative int64 argument, a dim or an index, torch
    reads back as unsigned, 2**64 - 1 for -1: ember's must read the same.)"""
    if a[0] != b[0]:
        return False
    if a[0] == "tensor":
        return a[1:3] == b[1:3] and np.allclose(a[3], b[3], rtol=1e-6, atol=1e-9,
                                                 equal_nan=True)
    if a[0] in ("list", "tuple"):
        return len(a[1]) == len(b[1]) and all(_same(x, y) for x, y in zip(a[1], b[1]))
    return a == b or (a[0] == "float" and a[1] != a[1] and b[1] != b[1])


def _compare(en, tn, seen, found):
    """Walk both graphs from en / tn while the node names agree; add (node name, attribute,
    kind) for each difference: 'ember only', 'torch only' or 'value'."""
    stack = [(en, tn)]
    while stack:
        en, tn = stack.pop()
        if en is None or tn is None or id(tn) in seen or type(en).__name__ != type(tn).__name__:
            continue
        seen.add(id(tn))
        name = type(tn).__name__
        ea, ta = _attrs(en), _attrs(tn)
        found |= {(name, a, "ember only") for a in ea - ta}
        found |= {(name, a, "torch only") for a in ta - ea}
        for a in sorted(ea & ta):
            if a.startswith("_raw_saved_"):
                continue
            if not _same(_value(getattr(en, a)), _value(getattr(tn, a))):
                found.add((name, a, "value"))
        ef, tf = getattr(en, "next_functions", ()), getattr(tn, "next_functions", ())
        if len(ef) == len(tf):
            stack.extend((e, t) for (e, _), (t, _) in zip(ef, tf))


def _differences(name):
    roots = {}
    for L in (ember, torch):
        _, arrays, _ = S.ENTRIES[name]
        xs = S._tensors(L, arrays)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = S._flat_outputs(S._call(name, L, xs))
        roots[L] = [o.grad_fn for o in outs if o.requires_grad]
    found = set()
    seen = set()
    for en, tn in zip(roots[ember], roots[torch]):
        _compare(en, tn, seen, found)
    return found


# ember's class attribute listing a node's saved slots (engine bookkeeping): torch's nodes have
# no such attribute. (Renaming it out of the _saved_ namespace touches every node class; left
# for after the concurrent clean-ups of ember/ops land.)
INTERNAL = {"_saved_names"}

_LU = "ember's backward solves with A again instead of saving the LU factors and pivots"
_SVD_SIGNS = "the singular vectors' signs are LAPACK's choice (both valid); the values agree"
_UNINITIALIZED = "torch's eval-mode rrelu noise buffer is uninitialized memory"
_CHAIN_ORDER = "ember multiplies the matrix chain in another order (same product)"
_INV_LAYOUT = ("torch's linalg.inv returns its matrix column-major (LAPACK's layout, strides "
               "(1, n)), ember's is row-major: the strides torch saves for an inverse differ")

KNOWN = {
    ('LinalgDetBackward0', '_raw_saved_LU', 'torch only'): _LU,
    ('LinalgDetBackward0', '_raw_saved_pivots', 'torch only'): _LU,
    ('LinalgDetBackward0', '_saved_LU', 'torch only'): _LU,
    ('LinalgDetBackward0', '_saved_pivots', 'torch only'): _LU,
    ('LinalgSlogdetBackward0', '_raw_saved_LU', 'torch only'): _LU,
    ('LinalgSlogdetBackward0', '_raw_saved_pivots', 'torch only'): _LU,
    ('LinalgSlogdetBackward0', '_saved_LU', 'torch only'): _LU,
    ('LinalgSlogdetBackward0', '_saved_pivots', 'torch only'): _LU,
    ('LinalgSolveExBackward0', '_raw_saved_LU', 'torch only'): _LU,
    ('LinalgSolveExBackward0', '_raw_saved_pivots', 'torch only'): _LU,
    ('LinalgSolveExBackward0', '_saved_LU', 'torch only'): _LU,
    ('LinalgSolveExBackward0', '_saved_pivots', 'torch only'): _LU,
    ('LinalgSvdBackward0', '_saved_U', 'value'): _SVD_SIGNS,
    ('LinalgSvdBackward0', '_saved_Vh', 'value'): _SVD_SIGNS,
    ('MmBackward0', '_saved_mat2', 'value'): _CHAIN_ORDER,
    ('MmBackward0', '_saved_self', 'value'): _CHAIN_ORDER,
    ('MmBackward0', '_saved_mat2_sym_sizes', 'value'): _CHAIN_ORDER,
    ('MmBackward0', '_saved_mat2_sym_strides', 'value'): _INV_LAYOUT,
    ('MmBackward0', '_saved_self_sym_sizes', 'value'): _CHAIN_ORDER,
    ('MmBackward0', '_saved_self_sym_strides', 'value'): _CHAIN_ORDER,
    ('RreluWithNoiseBackward1', '_saved_noise', 'value'): _UNINITIALIZED,
}


@pytest.mark.parametrize("name", S.GENERIC)
def test_saved_attributes_match_torch(name):
    found = {k for k in _differences(name) if k[1] not in INTERNAL}
    unexplained = sorted(k for k in found if k not in KNOWN)
    assert not unexplained, f"{name}: saved attributes differ from torch's: {unexplained}"


def test_known_differences_are_still_there():
    seen = set()
    for name in S.GENERIC:
        seen |= _differences(name)
    stale = sorted(set(KNOWN) - seen)
    assert not stale, f"these now match torch: drop them from KNOWN: {stale}"


def test_saved_number_operand_is_a_tensor():
    # x * 2, x / 0.7, x - y * True: the number is saved as the 0-dim tensor torch wraps it into
    # (read lazily: the slot keeps the number), with its _raw_saved_ form
    def saved(L):
        x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
        y = L.tensor([3.0, 4.0], dtype=L.float64)
        nodes = [(x * 2).grad_fn, (x / 0.7).grad_fn, (x * True).grad_fn, (2.5 * x).grad_fn,
                 L.div(x, y, rounding_mode="floor").grad_fn, L.div(x, 3).grad_fn,
                 (x * y).grad_fn]
        out = []
        for n in nodes:
            o = n._saved_other
            out.append((type(n).__name__, n._saved_self is None, str(o.dtype), o.tolist(),
                        type(n._raw_saved_other).__name__))
        return out
    assert saved(ember) == saved(torch)


def test_saved_indices_are_the_indices_output():
    for L in (torch, ember):
        x = L.tensor([[3.0, 1.0, 2.0]], requires_grad=True)
        v, i = x.sort(1)
        node = v.grad_fn
        assert node._saved_indices.tolist() == i.tolist() == [[1, 2, 0]]
        assert str(node._saved_indices.dtype).endswith("int64")
        node._raw_saved_indices.register_hooks(lambda t: t, lambda t: t)
        v.sum().backward()
        assert x.grad.tolist() == [[1.0, 1.0, 1.0]]


def test_fft_normalization_is_torchs_enum():
    # 0 none, 1 by_root_n, 2 by_n: which one depends on the norm name and the direction
    def saved(L):
        x = L.tensor([1.0, 2.0, 3.0, 4.0], dtype=L.float64, requires_grad=True)
        out = []
        for norm in (None, "backward", "ortho", "forward"):
            for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
                n = getattr(L.fft, name)(x, norm=norm).grad_fn
                while not hasattr(n, "_saved_normalization"):       # (past ConjBackward0)
                    n = n.next_functions[0][0]
                out.append((name, norm, type(n).__name__, n._saved_normalization))
        return out
    assert saved(ember) == saved(torch)


def _read(node, attr):
    """What reading node.<attr> gives, as far as this test compares it: the error's type and
    message, or 'read' (the values themselves are compared before backward, above)."""
    try:
        getattr(node, attr)
    except Exception as e:      # noqa: BLE001 (the error itself is what is compared)
        return type(e).__name__, str(e)
    return "read"


def _after_backward(L, name):
    """For each node of the entry's first-order graph (in walking order) the attributes read
    after a backward pass without retain_graph: a list of (node name, attribute, outcome),
    and the node pairs walked (for the caller to align ember's with torch's)."""
    _, arrays, _ = S.ENTRIES[name]
    xs = S._tensors(L, arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = [o for o in S._flat_outputs(S._call(name, L, xs)) if o.requires_grad and
                (o.dtype.is_floating_point or o.dtype.is_complex)]
    diff = [x for x in xs if isinstance(x, (ember.Tensor, torch.Tensor)) and x.requires_grad]
    if not outs or not diff:
        return None
    nodes = []
    for o in outs:
        nodes.append(o.grad_fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        L.autograd.grad(outs, diff, [L.ones_like(o) for o in outs], allow_unused=True)
    return nodes


def _freed_differences(name):
    roots = {L: _after_backward(L, name) for L in (ember, torch)}
    if roots[torch] is None:
        return set()
    found = set()
    seen = set()
    stack = list(zip(roots[ember], roots[torch]))
    while stack:
        en, tn = stack.pop()
        if en is None or tn is None or id(tn) in seen or type(en).__name__ != type(tn).__name__:
            continue
        seen.add(id(tn))
        # (dir lists the attributes without reading them; hasattr would read a freed one)
        names = {a for a in dir(tn) if a.startswith("_saved_")} & \
            {a for a in dir(en) if a.startswith("_saved_")}
        for a in names:
            e, t = _read(en, a), _read(tn, a)
            if e != t and not (e[0] == t[0] == "AttributeError"):
                found.add((type(tn).__name__, a, str(e)[:60], str(t)[:60]))
        ef, tf = getattr(en, "next_functions", ()), getattr(tn, "next_functions", ())
        if len(ef) == len(tf):
            stack.extend((e, t) for (e, _), (t, _) in zip(ef, tf))
    return found


@pytest.mark.parametrize("name", S.GENERIC)
def test_saved_attributes_after_backward_as_torchs(name):
    # Note [Freed reads] in graph.py: a saved tensor read after a backward pass without
    # retain_graph raises torch's "backward through the graph a second time" error; a slot
    # that saved nothing and the non-tensor arguments (dims, sizes) stay readable
    found = _freed_differences(name)
    assert not found, f"{name}: after backward, reads differ from torch's: {sorted(found)}"


def test_negative_arguments_read_as_torch_reads_them():
    # torch reads a saved int64 argument back as unsigned (2**64 - 1 for -1), in the form its
    # caller passed it (dims as given, a dim list as a tuple, getitem's open end as 2**63 - 1)
    def saved(L):
        x = L.rand(2, 3, 4, requires_grad=True)
        return [(type(n).__name__, getattr(n, a)) for n, a in (
            (x.sum(-1).grad_fn, "_saved_dim"), (x.sum([0, -1]).grad_fn, "_saved_dim"),
            (x.sum(dim=None, keepdim=True).grad_fn, "_saved_dim"),
            (x.amax().grad_fn, "_saved_dim"), (x.unsqueeze(-1).grad_fn, "_saved_dim"),
            (x.transpose(-1, 0).grad_fn, "_saved_dim0"), (x.softmax(-1).grad_fn, "_saved_dim"),
            (x.var(-1).grad_fn, "_saved_dim"), (x.var().grad_fn, "_saved_correction"),
            (x[:, -2:].grad_fn, "_saved_start"), (x[:, -2:].grad_fn, "_saved_end"),
            (x.narrow(-1, -2, 1).grad_fn, "_saved_dim"), (x.select(-1, -2).grad_fn, "_saved_index"),
            (x.tril(-1).grad_fn, "_saved_diagonal"), (x.roll(-1, -1).grad_fn, "_saved_shifts"),
            (x.permute(-1, 0, 1).grad_fn, "_saved_dims"), (x.chunk(2, -1)[0].grad_fn, "_saved_dim"),
            (L.cat([x, x], -1).grad_fn, "_saved_dim"), (x.cumsum(-2).grad_fn, "_saved_dim"),
            (x.sort(-1)[0].grad_fn, "_saved_dim"),
            (x.gather(-1, L.zeros(2, 3, 1, dtype=L.long)).grad_fn, "_saved_dim"),
            (L.linalg.vector_norm(x, 2, -1).grad_fn, "_saved_ord"),
            (L.nn.functional.nll_loss(x[:, :, 0], L.tensor([0, 1])).grad_fn,
             "_saved_ignore_index"))]
    assert saved(ember) == saved(torch)


def test_view_arguments_saved_as_given():
    # the *_scatter ops, as_strided and slice_copy save their view's arguments as the caller
    # gave them (negative ones unsigned, None kept); a view regenerated after an in-place
    # write to its base is an AsStridedBackward0 whose geometry counts elements of the base's
    # memory
    def saved(L):
        x = L.rand(3, 4, requires_grad=True)

        def r(*shape):
            return L.rand(*shape, requires_grad=True)
        nodes = [L.select_scatter(x, r(4), 0, -1), L.select_scatter(x, r(3), -1, 2),
                 L.slice_scatter(x, r(1, 4), 0, -1), L.slice_scatter(x, r(3, 2), 1, 0, 4, 2),
                 L.slice_scatter(x, r(3, 2), 1, None, 10, 2), L.slice_scatter(x, r(3, 4)),
                 L.slice_scatter(x, r(3, 2), -1, -2), L.diagonal_scatter(x, r(3)),
                 L.diagonal_scatter(x, r(1), 2, -1, 0), L.as_strided(x, (2, 2), (1, 2)),
                 L.as_strided(x, [2, 2], [1, 2], 1), L.as_strided(x[1:], [2, 2], [1, 2]),
                 L.as_strided(x, L.Size([2, 2]), L.Size([1, 2]), L.tensor(1)),
                 L.as_strided_copy(x, (2, 2), (1, 2), 1),
                 L.as_strided_scatter(x, r(2, 2), (2, 2), (1, 2)),
                 L.as_strided_scatter(x, r(2, 2), [2, 2], [1, 2], 3),
                 L.as_strided_scatter(x[1:], r(2, 2), [2, 2], [1, 2]),
                 L.slice_copy(x, 1, 1, None, 2), L.slice_copy(x, 0), L.slice_copy(x, 1, -3, -1),
                 L.slice_copy(x, 1, None, 100), L.slice_copy(x, 1, 5, 10)]
        b = x.clone()
        v, w, u = b[1:, ::2], b.t(), b[1][1:]
        b.mul_(2)
        nodes += [v, w, u]
        out = []
        for n in nodes:
            n = n.grad_fn
            out.append((type(n).__name__, sorted((a, getattr(n, a)) for a in dir(n)
                                                 if a.startswith("_saved_") and a not in INTERNAL)))
        return out
    assert saved(ember) == saved(torch)


def _rand(*shape):
    return lambda L: L.rand(*shape, dtype=L.float64)


def _long(v):
    return lambda L: L.tensor(v)


def _bool(v):
    return lambda L: L.tensor(v)


def _setitem(z, i, v):
    z[i] = v
    return z


def _triangular(upper):
    def make(L):
        t = L.rand(3, 3, dtype=L.float64, generator=L.Generator().manual_seed(1))
        return (t.triu() if upper else t.tril()) + 2 * L.eye(3, dtype=L.float64)
    return make


# Ops whose node keeps an input only because torch's does (its formula reads another form of
# it): (name, fn(L, *inputs), input makers). Each input that can be differentiated is tried
# with and without requires_grad.
SAVED_FOR_TORCH = [
    ("complex", lambda L, a, b: L.complex(a, b), [_rand(2, 3), _rand(3)]),
    ("nextafter", lambda L, a, b: L.nextafter(a, b), [_rand(3), _rand(3)]),
    ("cholesky_solve", lambda L, b, u: L.cholesky_solve(b, u), [_rand(3, 2), _triangular(False)]),
    ("cholesky_solve_upper", lambda L, b, u: L.cholesky_solve(b, u, upper=True),
     [_rand(3, 2), _triangular(True)]),
    ("triangular_solve", lambda L, b, a: L.triangular_solve(b, a), [_rand(3, 2), _triangular(True)]),
    ("triangular_solve_t", lambda L, b, a: L.triangular_solve(b, a, False, True),
     [_rand(3, 2), _triangular(False)]),
    ("rfft", lambda L, a: L.fft.rfft(a), [_rand(4)]),
    ("rfft_pad", lambda L, a: L.fft.rfft(a, n=6), [_rand(4)]),
    ("rfft_trim", lambda L, a: L.fft.rfft(a, n=3), [_rand(4)]),
    ("rfftn_t", lambda L, a: L.fft.rfftn(a.t()), [_rand(3, 4)]),
    ("fft_real", lambda L, a: L.fft.fft(a), [_rand(4)]),
    ("getitem", lambda L, x, i: x[i], [_rand(3, 4), _long([0, 2])]),
    ("getitem_pair", lambda L, x, i, j: x[i, j], [_rand(3, 4), _long([0, 2]), _long([1, 1])]),
    ("getitem_slice", lambda L, x, j: x[1:, j], [_rand(3, 4), _long([1, 3])]),
    ("getitem_ellipsis", lambda L, x, j: x[None, ..., j], [_rand(2, 3, 4), _long([1, 3])]),
    ("getitem_mask", lambda L, x, m: x[m], [_rand(3, 4), _bool([True, False, True])]),
    ("getitem_int32", lambda L, x, i: x[i.int()], [_rand(3, 4), _long([0, 2])]),
    ("getitem_list", lambda L, x: x[[0, 2]], [_rand(3, 4)]),
    ("index_put", lambda L, x, i, v: L.index_put(x, (i,), v),
     [_rand(3, 4), _long([0, 2]), _rand(2, 4)]),
    ("index_put_acc", lambda L, x, i, j, v: L.index_put(x, (i, j), v, accumulate=True),
     [_rand(3, 4), _long([0, 0]), _long([1, 1]), _rand(2)]),
    ("index_put_mask", lambda L, x, m, v: x.index_put((m,), v),
     [_rand(3, 4), _bool([True, False, True]), _rand(4)]),
    ("setitem", lambda L, x, i, v: _setitem(x.clone(), i, v),
     [_rand(3, 4), _long([0, 2]), _rand(2, 4)]),
    ("index_reduce_amax", lambda L, x, i, s: x.index_reduce(-1, i, s, "amax", include_self=False),
     [_rand(3, 4), _long([1, 1]), _rand(3, 2)]),
    ("index_reduce_mean", lambda L, x, i, s: x.index_reduce(0, i.int(), s, "mean"),
     [_rand(3, 4), _long([2, 0]), _rand(2, 4)]),
]


def _outcome(f):
    try:
        f()
    except Exception as e:      # noqa: BLE001 (the error itself is what is compared)
        return f"{type(e).__name__}: {e}"
    return "ok"


def _saved_and_versions(L, fn, makers):
    """For each subset of the inputs requiring grad: the node's _saved_* values, then whether
    backward runs after an in-place write (under no_grad) to each input, with its error."""
    import itertools
    report = []
    for mask in itertools.product((False, True), repeat=len(makers)):
        if not any(mask) or any(m and not make(L).is_floating_point()
                                for m, make in zip(mask, makers)):
            continue

        def build():
            xs = []
            for m, make in zip(mask, makers):
                L.manual_seed(0)
                x = make(L)
                xs.append(x.detach().requires_grad_() * 1 if m else x)
            outs = fn(L, *xs)
            outs = [o for o in (outs if isinstance(outs, (tuple, list)) else (outs,))
                    if isinstance(o, L.Tensor) and o.requires_grad]
            return xs, outs

        def back(xs, outs):
            leaves = [x for x in xs if x.requires_grad]
            L.autograd.grad([(o.abs() if o.is_complex() else o).sum() for o in outs], leaves,
                            allow_unused=True)
        xs, outs = build()
        node = outs[0].grad_fn
        report.append((mask, type(node).__name__, sorted(
            (a, _value(getattr(node, a))) for a in dir(node)
            if a.startswith("_saved_") and a not in INTERNAL), _outcome(lambda: back(*build()))))
        for i in range(len(makers)):
            def write(i=i):
                xs, outs = build()
                with L.no_grad():
                    xs[i].copy_(xs[i].clone())
                back(xs, outs)
            report.append((mask, i, _outcome(write)))
    return report


def _same_report(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if len(x) != len(y):
            return False
        if len(x) == 4:
            if x[:2] != y[:2] or x[3] != y[3] or [k for k, _ in x[2]] != [k for k, _ in y[2]] \
                    or not all(_same(u, v) for (_, u), (_, v) in zip(x[2], y[2])):
                return False
        elif x != y:
            return False
    return True


@pytest.mark.parametrize("case", SAVED_FOR_TORCH, ids=[c[0] for c in SAVED_FOR_TORCH])
def test_saved_for_torch_with_its_version_errors(case):
    # the values torch saves, and an in-place write to a saved input fails backward with
    # torch's error exactly where torch's does (and nowhere else)
    _, fn, makers = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e, t = _saved_and_versions(ember, fn, makers), _saved_and_versions(torch, fn, makers)
    assert _same_report(e, t), (e, t)


def test_slogdet_saves_its_sign_output():
    # torch saves the sign output: writing it in place fails backward (an output of the node,
    # named as such), writing logabsdet does not; complex types print under their legacy name
    def run(L):
        out = []
        for dt in (L.float64, L.complex128):
            for write in (None, 0, 1):
                A = L.rand(3, 3, dtype=dt, generator=L.Generator().manual_seed(0))
                A = (A + L.eye(3, dtype=dt)).requires_grad_()
                s, la = L.linalg.slogdet(A)
                n = la.grad_fn
                out.append(_value(n._saved_sign))
                if write is not None:
                    with L.no_grad():
                        (s, la)[write].mul_(1)
                out.append(_outcome(lambda: la.sum().backward()))
                if write is None:
                    # (after a write, torch's read raises the version error too; ember's
                    # slots are read as they are: not compared)
                    out.append(_outcome(lambda: n._saved_sign))
        return out
    e, t = run(ember), run(torch)
    assert len(e) == len(t) and all(_same(a, b) if isinstance(a, tuple) else a == b
                                    for a, b in zip(e, t)), (e, t)


def test_version_error_names_types_as_torch():
    # torch prints a tensor type by its legacy name in the version error (torch.LongTensor,
    # CPUBoolType, CPUComplexFloatType)
    def run(L):
        out = []
        for dt in (L.float16, L.float64, L.complex64, L.complex128):
            x = L.rand(3, dtype=dt).requires_grad_()
            y = x.exp()
            y.mul_(1)
            out.append(_outcome(lambda: y.abs().sum().backward()))
        for dt in (L.bool, L.uint8, L.int8, L.int16, L.int32, L.int64, L.float32):
            x = L.rand(3, dtype=L.float64, requires_grad=True)
            y = L.ones(3, dtype=dt)
            z = x * y
            y.zero_()
            out.append(_outcome(lambda: z.sum().backward()))
        return out
    assert run(ember) == run(torch)


def test_batch_norm_running_stats_saved_with_their_version():
    # torch saves running_mean / running_var (in both modes); its kernel updates them without
    # counting a version, so a second forward leaves the first graph runnable, while a write
    # by the user fails its backward
    def run(L):
        F = L.nn.functional
        out = []
        for training in (True, False):
            for case in ("plain", "second_forward", "write_mean", "write_var"):
                x = L.rand(4, 3, dtype=L.float64, requires_grad=True)
                rm, rv = L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64)
                y = F.batch_norm(x, rm, rv, training=training)
                n = y.grad_fn
                out.append((n._raw_saved_running_mean is not None, rm._version, rv._version))
                if case == "second_forward":
                    F.batch_norm(x * 2, rm, rv, training=training)
                elif case == "write_mean":
                    rm.add_(1)
                elif case == "write_var":
                    rv.add_(1)
                out.append(_outcome(lambda: y.sum().backward()))
                if case == "plain":
                    out.append(_outcome(lambda: n._saved_running_var))
        x = L.rand(4, 3, 5)
        rm, rv = L.zeros(3), L.ones(3)
        L.batch_norm_update_stats(x, rm, rv, 0.1)
        L.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)
        out.append((rm._version, rv._version))
        F.instance_norm(x, rm, rv, use_input_stats=True)
        out.append((rm._version, rv._version))
        m = L.nn.BatchNorm1d(3)
        m(x)
        m(x)
        out.append((m.running_mean._version, m.num_batches_tracked._version))
        return out
    assert run(ember) == run(torch)


def test_matrix_product_geometry_as_torch():
    # mm / addmm / addbmm / svd: the sizes torch saves, and the strides of the matrices whose
    # gradient is needed (() for the others), also after backward (they are not tensors)
    def run(L):
        out = []

        def note(y):
            n = y.grad_fn
            names = sorted(a for a in dir(n) if a.startswith("_saved_") and "_sym_" in a)
            out.append((type(n).__name__, [(a, getattr(n, a)) for a in names]))
            y.abs().sum().backward()
            out.append([(a, getattr(n, a)) for a in names])
        for ra, rb in ((True, True), (True, False), (False, True)):
            for layout in ("plain", "t", "sliced"):
                a = L.rand(3, 4, dtype=L.float64, requires_grad=ra)
                b = L.rand(4, 10, dtype=L.float64, requires_grad=rb)
                if layout == "t":
                    a = a.t().contiguous().t() if ra else a
                    b = L.rand(10, 4, dtype=L.float64, requires_grad=rb).t()
                b = b[:, ::2] if layout == "sliced" else b[:, :5]
                note(L.mm(a, b))
                note(a @ b)
                note(L.addmm(L.rand(5, dtype=L.float64, requires_grad=True), a, b, alpha=2))
                note(L.addbmm(L.rand(3, 5, dtype=L.float64), a.expand(2, 3, 4),
                              b.expand(2, 4, 5)))
        note(L.nn.functional.linear(L.rand(3, 4, requires_grad=True),
                                    L.rand(5, 4, requires_grad=True), L.rand(5)))
        note(L.nn.functional.linear(L.rand(2, 3, 4, requires_grad=True),
                                    L.rand(5, 4, requires_grad=True)))
        note(L.linalg.svdvals(L.rand(3, 4, dtype=L.float64, requires_grad=True)))
        return out
    assert run(ember) == run(torch)


_VAR_FORMS = ["x.{op}()", "x.{op}(None)", "x.{op}(dim=None)", "x.{op}(correction=None)",
              "x.{op}(0)", "x.{op}(0, correction=None)", "x.{op}(dim=None, correction=None)",
              "x.{op}(unbiased=True)", "x.{op}(True)", "x.{op}(False)", "x.{op}(0, True)",
              "x.{op}(keepdim=True)", "x.{op}(dim=None, keepdim=True)", "x.{op}(correction=0)",
              "x.{op}(None, correction=2)", "x.{op}(dim=None, unbiased=False)",
              "x.{op}([0, 1])", "x.{op}(correction=1.5)", "x.{op}(axis=None)", "x.{op}(axis=0)",
              "L.{op}(x, None, True, True)", "x.{op}(None, None)", "x.{op}(0, unbiased=None)",
              "x.{op}(unbiased=True, correction=1)"]


@pytest.mark.parametrize("op", ["var", "std", "var_mean", "std_mean"])
def test_var_saved_correction_follows_the_overload(op):
    # torch picks its overload by what was given: correction= (even None) saves the correction
    # as given, a dim (even None) or unbiased saves unbiased's 1 / 0, neither saves None;
    # unbiased=None matches no overload
    def run(L):
        x = L.rand(3, 4, requires_grad=True)
        out = []
        for form in _VAR_FORMS:
            call = form.format(op=op)
            if op.endswith("_mean"):
                call = call.replace(f"x.{op}(", f"L.{op}(x, ").replace(", )", ")")
            try:
                y = eval(call, {"L": L, "x": x})
            except TypeError as e:
                out.append((call, str(e).split(" - got")[0]))
                continue
            n = (y[0] if isinstance(y, tuple) else y).grad_fn
            out.append((call, n._saved_correction, n._saved_dim))
        return out
    assert run(ember) == run(torch)
