"""Batching rules for the ops test_vmap_sweep.py's LOOPS used to list (issue 12 item 4),
differential against torch.func.vmap: values, dtypes and shapes for in_dims 0 / 1 / None,
out_dims, nested vmap and per-sample gradients, with no fallback warning (each op runs once on
the batch); the ops torch's vmap refuses raise torch's error; and the two surface fixes found on
the way (adaptive_avg_pool2d's mean path, searchsorted's binary search), against torch."""
import warnings

import numpy as np
import pytest
import torch

import ember

SLOW = "There is a performance drop"
B = 3


def _arr(shape, seed, kind="f"):
    rng = np.random.default_rng(seed)
    if kind == "i":
        return rng.integers(0, 3, shape).astype(np.int64)
    if kind == "sorted":
        return np.sort(rng.standard_normal(shape), -1)
    if kind == "pos":
        return rng.random(shape) + 0.5
    if kind == "sign":
        return np.where(rng.random(shape) > 0.5, 1.0, -1.0)
    if kind == "prob":
        return rng.random(shape)
    if kind == "spd":
        a = rng.standard_normal(shape)
        return a @ np.swapaxes(a, -1, -2) + 3 * np.eye(shape[-1])
    return rng.standard_normal(shape)


def _same(a, b, tol):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y, tol)
        return
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (a.dtype, b.dtype)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)


def _vmap_both(fn, arrays, nest=None, **kw):
    outs = []
    for lib in (torch, ember):
        xs = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
        f = lib.func.vmap(lambda *a, _lib=lib: fn(_lib, *a), **kw)
        if nest is not None:        # an outer vmap over a second batch (in_dims `nest`)
            f = lib.func.vmap(f, in_dims=nest)
        outs.append(f(*xs))
    return outs


def check(fn, arrays, tol=1e-9, nest=False, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        want, got = _vmap_both(fn, arrays, nest, **kw)
    _same(want, got, tol)
    slow = [str(x.message) for x in w if SLOW in str(x.message) and "aten::" in str(x.message)]
    # (torch's own fallback warns for some of these; ember's rules must not)
    assert not [m for m in slow if "vmap15" not in m and _ember_warned(fn, arrays, nest, kw)]


def _ember_warned(fn, arrays, nest, kw):
    ember.func._batching._WARNED.clear()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        xs = [ember.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
        f = ember.func.vmap(lambda *a: fn(ember, *a), **kw)
        (f if nest is None else ember.func.vmap(f, in_dims=nest))(*xs)
    return any(SLOW in str(x.message) for x in w)


F = lambda lib: lib.nn.functional      # noqa: E731
# name -> (fn(lib, *samples), per-sample shapes, kinds, extra vmap kwargs)
CASES = {
    "tensordot2": (lambda L, a, b: L.tensordot(a, b), [(3, 3), (3, 3)], "ff", {}),
    "tensordot_lists": (lambda L, a, b: L.tensordot(a, b, dims=([1, 0], [0, 2])),
                        [(2, 4, 3), (4, 3, 2)], "ff", {"in_dims": (1, None)}),
    "tensordot_size1": (lambda L, a, b: L.tensordot(a, b, dims=([1], [0])),
                        [(3, 1), (4, 2)], "ff", {"in_dims": (0, 1)}),
    "kron": (lambda L, a, b: L.kron(a, b), [(2, 3), (3,)], "ff", {"in_dims": (0, None)}),
    "kron_int": (lambda L, a, b: a.kron(b), [(2, 2), (2, 2)], "ii", {}),
    "block_diag": (lambda L, a, b, c: L.block_diag(a, b, c), [(2, 3), (4,), ()], "fif",
                   {"in_dims": (0, None, 0)}),
    "cross_default": (lambda L, a, b: L.cross(a, b), [(3, 4), (3, 4)], "ff",
                      {"in_dims": (1, None)}),
    "cartesian_prod": (lambda L, a, b: L.cartesian_prod(a, b), [(3,), (2,)], "ff",
                       {"in_dims": (0, None)}),
    "meshgrid_xy": (lambda L, a, b, c: L.meshgrid(a, b, c, indexing="xy"), [(3,), (2,), ()],
                    "fff", {}),
    "meshgrid_ij": (lambda L, a, b: L.meshgrid([a, b], indexing="ij"), [(3,), (2,)], "ff",
                    {"in_dims": (None, 0)}),
    "combinations": (lambda L, a: L.combinations(a, 3), [(4,)], "f", {}),
    "combinations_rep": (lambda L, a: L.combinations(a, with_replacement=True), [(3,)], "f", {}),
    "embedding_table": (lambda L, w, i: L.embedding(w, i), [(5, 3), (2, 4)], "fi",
                        {"in_dims": (0, None)}),
    "embedding_both": (lambda L, w, i: L.embedding(w, i, 1), [(5, 3), (4,)], "fi", {}),
    "repeat_interleave": (lambda L, a: L.repeat_interleave(a, 2, dim=1), [(2, 3)], "f", {}),
    "repeat_interleave_t": (lambda L, a, r: a.repeat_interleave(r, dim=0), [(3, 2), (3,)],
                            "fi", {"in_dims": (0, None)}),
    "repeat_interleave_flat": (lambda L, a: L.repeat_interleave(a, 3), [(2, 2)], "f", {}),
    "searchsorted": (lambda L, s, v: L.searchsorted(s, v), [(5,), (2, 3)], ("sorted", "f"),
                     {}),
    "searchsorted_rows": (lambda L, s, v: L.searchsorted(s, v, right=True), [(2, 5), (2, 3)],
                          ("sorted", "f"), {"in_dims": (0, None)}),
    "bucketize": (lambda L, v, s: L.bucketize(v, s, right=True), [(2, 3), (4,)],
                  ("f", "sorted"), {"in_dims": (None, 0)}),
    "isin": (lambda L, e, t: L.isin(e, t), [(3, 2), (4,)], "ii", {}),
    "isin_invert": (lambda L, e, t: L.isin(e, t, invert=True), [(5,), (2, 2)], "ii",
                    {"in_dims": (None, 0)}),
    "bce_logits": (lambda L, x, y, pw: F(L).binary_cross_entropy_with_logits(x, y,
                                                                            pos_weight=pw),
                   [(2, 3), (2, 3), (3,)], ("f", "prob", "pos"), {}),
    "bce_logits_aten": (lambda L, x, y: L.binary_cross_entropy_with_logits(x, y, None, None, 2),
                        [(4,), (4,)], ("f", "prob"), {"in_dims": (0, None)}),
    "hinge": (lambda L, x, y: F(L).hinge_embedding_loss(x, y), [(2, 3), (2, 3)], ("f", "sign"),
              {}),
    "hinge_aten": (lambda L, x, y: L.hinge_embedding_loss(x, y, 0.5, 0), [(3,), (3,)],
                   ("f", "sign"), {}),
    "margin_ranking": (lambda L, a, b, y: F(L).margin_ranking_loss(a, b, y, 0.1, reduction="sum"),
                       [(4,), (4,), (4,)], ("f", "f", "sign"), {"in_dims": (0, 0, None)}),
    "margin_ranking_aten": (lambda L, a, b, y: L.margin_ranking_loss(a, b, y, 0.0, 1),
                            [(4,), (4,), (4,)], ("f", "f", "sign"), {}),
    "triplet": (lambda L, a, p, n: F(L).triplet_margin_loss(a, p, n, swap=True),
                [(2, 4), (2, 4), (2, 4)], "fff", {}),
    "triplet_aten": (lambda L, a, p, n: L.triplet_margin_loss(a, p, n, 1.0, 1.0, 1e-6, False,
                                                              0),
                     [(4,), (4,), (4,)], "fff", {"in_dims": (0, None, 0)}),
    "triplet_distance": (lambda L, a, p, n: F(L).triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda x, y: (x - y).abs().sum(-1), reduction="none"),
        [(2, 4), (2, 4), (2, 4)], "fff", {}),
    "kl_div_aten": (lambda L, x, y: L.kl_div(x, y, 2, log_target=True), [(2, 3), (2, 3)], "ff",
                    {}),
    "multi_margin": (lambda L, x, t: F(L).multi_margin_loss(x, t, p=2, margin=0.5),
                     [(4, 3), (4,)], "fi", {}),
    "multi_margin_1d": (lambda L, x, t: F(L).multi_margin_loss(x, t, reduction="none"),
                        [(3,), ()], "fi", {}),
    "multilabel_soft_margin": (lambda L, x, y: F(L).multilabel_soft_margin_loss(x, y),
                               [(2, 3), (2, 3)], ("f", "prob"), {"in_dims": (0, None)}),
    "poisson_nll": (lambda L, x, y: F(L).poisson_nll_loss(x, y, full=True), [(2, 3), (2, 3)],
                    ("f", "pos"), {}),
    "linear_cross_entropy": (lambda L, x, w, t: F(L).linear_cross_entropy(x, w, t),
                             [(2, 3), (4, 3), (2,)], "ffi", {"in_dims": (0, None, 0)}),
    "pdist": (lambda L, x: L.pdist(x), [(4, 3)], "f", {}),
    "pdist_p1": (lambda L, x: F(L).pdist(x, 1), [(3, 2)], "f", {}),
    "cov": (lambda L, x: L.cov(x), [(3, 5)], "f", {}),
    "cov_int": (lambda L, x: x.cov(correction=0), [(2, 4)], "i", {}),
    "corrcoef": (lambda L, x: L.corrcoef(x), [(3, 5)], "f", {}),
    "vander": (lambda L, x: L.vander(x, 4, True), [(3,)], "f", {}),
    "trapezoid": (lambda L, y, x: L.trapezoid(y, x), [(2, 4), (4,)], "ff",
                  {"in_dims": (0, None)}),
    "trapz_dx": (lambda L, y: L.trapz(y, dx=0.5, dim=0), [(3, 2)], "f", {}),
    "cumulative_trapezoid": (lambda L, y: L.cumulative_trapezoid(y), [(2, 4)], "f", {}),
    "gradient": (lambda L, y: L.gradient(y, spacing=2.0), [(3, 4)], "f", {}),
    "slice_scatter": (lambda L, x, s: L.slice_scatter(x, s, 1, 0, 4, 2), [(2, 4), (2, 2)], "ff",
                      {"in_dims": (None, 0)}),
    "diagonal_scatter": (lambda L, x, s: L.diagonal_scatter(x, s, 1), [(3, 3), (2,)], "ff",
                         {"in_dims": (1, 0)}),
    "copy_variants": (lambda L, x: (L.t_copy(x), L.transpose_copy(x, 0, 1), L.select_copy(x, 1, 0),
                                    L.slice_copy(x, 1, 1), L.diagonal_copy(x), L.alias_copy(x),
                                    L.unsqueeze_copy(x, 0), L.squeeze_copy(x), L.detach_copy(x),
                                    *L.unbind_copy(x, 1)), [(2, 3)], "f", {}),
    "addmm_": (lambda L, x, a, b: x.clone().addmm_(a, b, beta=0.5, alpha=2), [(2, 2), (2, 3),
                                                                                (3, 2)],
               "fff", {"in_dims": (0, None, 0)}),
    "fill_diagonal_": (lambda L, x: x.clone().fill_diagonal_(2.5), [(3, 3, 3)], "f", {}),
    "linalg_norm": (lambda L, x: (L.linalg.norm(x), L.linalg.norm(x, 1), L.linalg.norm(x, "nuc"),
                                  L.linalg.norm(x, dim=1), L.linalg.norm(x, 3, dim=(0,)),
                                  L.linalg.norm(x, dim=(0, 1), keepdim=True)), [(3, 3)], "f", {}),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b), [(4, 3), (4, 2)], "ff",
              {"in_dims": (0, None)}),
    "tensorinv": (lambda L, a: L.linalg.tensorinv(a, 1), [(4, 2, 2)], "f", {}),
    "cholesky_solve": (lambda L, b, a: L.cholesky_solve(b, L.linalg.cholesky(a)), [(3, 2), (3, 3)],
                       ("f", "spd"), {"in_dims": (None, 0)}),
    "triangular_solve": (lambda L, b, a: L.triangular_solve(b, a, upper=False),
                         [(3, 2), (3, 3)], ("f", "spd"), {}),
    "norms": (lambda L, x: (L.nuclear_norm(x), L.frobenius_norm(x, (0, 1))), [(3, 3)], "f", {}),
    "pixel_unshuffle": (lambda L, x: F(L).pixel_unshuffle(x, 2), [(2, 4, 4)], "f", {}),
    "ldl_factor": (lambda L, a: L.linalg.ldl_factor_ex(a + a.mT), [(3, 3)], "f", {}),
    "histc_range": (lambda L, a: L.histc(a, 4, -1, 1), [(3, 5)], "f", {}),
    "histc_own_range": (lambda L, a: a.histc(3), [(6,)], "f", {"in_dims": 1}),
    "histogram": (lambda L, a, w: L.histogram(a, 4, weight=w, density=True), [(2, 5), (2, 5)],
                  "ff", {"in_dims": (0, None)}),
    "histogram_range": (lambda L, a, w: a.histogram(3, range=(-1.0, 1.0), weight=w),
                        [(6,), (6,)], ("f", "prob"), {}),
    "bincount": (lambda L, a, w: L.bincount(a, w, minlength=4), [(5,), (5,)], "if", {}),
    "adaptive_avg_pool2d_2d": (lambda L, x: F(L).adaptive_avg_pool2d(x, 1), [(3, 4)], "f", {}),
}


def _arrays(shapes, kinds, kw, seed):
    dims = kw.get("in_dims", 0)
    dims = (dims,) * len(shapes) if not isinstance(dims, tuple) else dims
    out = []
    for i, (s, k, d) in enumerate(zip(shapes, kinds, dims)):
        k = {"f": "f", "i": "i"}.get(k, k)
        if d is None:
            out.append(_arr(s, seed + i, k))
        else:
            a = _arr((B,) + s, seed + i, k)
            out.append(np.moveaxis(a, 0, d))
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_equals_torch_vmap(name):
    fn, shapes, kinds, kw = CASES[name]
    arrays = _arrays(shapes, kinds, kw, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = _vmap_both(fn, arrays, **kw)
    _same(want, got, 1e-9)
    assert not _ember_warned(fn, arrays, None, kw), name


@pytest.mark.parametrize("name", ["tensordot2", "kron", "block_diag", "cross_default",
                                  "embedding_both", "searchsorted", "isin", "bce_logits",
                                  "margin_ranking", "multi_margin", "pdist", "cov",
                                  "slice_scatter", "diagonal_scatter", "linalg_norm", "lstsq",
                                  "copy_variants", "fill_diagonal_", "triplet"])
def test_nested_vmap_and_out_dims(name):
    fn, shapes, kinds, kw = CASES[name]
    dims = kw.get("in_dims", 0)
    dims = dims if isinstance(dims, tuple) else (dims,) * len(shapes)
    outer = tuple(None if d is None else 0 for d in dims)
    arrays = [a if d is None else np.stack([a, a * 0.5 + 1] if a.dtype.kind == "f" else [a, a])
              for a, d in zip(_arrays(shapes, kinds, kw, 11), dims)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = _vmap_both(fn, arrays, nest=outer, **kw)
    _same(want, got, 1e-9)
    assert not _ember_warned(fn, arrays, outer, kw), name
    if name == "lstsq":
        return      # (torch's out_dims=-1 gives garbage sizes for lstsq's empty outputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = _vmap_both(fn, _arrays(shapes, kinds, CASES[name][3], 5),
                               out_dims=-1, **CASES[name][3])
    _same(want, got, 1e-9)


GRAD_CASES = {
    "tensordot": (lambda L, a, b: L.tensordot(a, b, dims=1).sum(), [(3, 2), (2, 3)]),
    "kron": (lambda L, a, b: (L.kron(a, b) ** 2).sum(), [(2, 2), (2,)]),
    "block_diag": (lambda L, a, b: (L.block_diag(a, b) * 3).exp().sum(), [(2, 1), (2,)]),
    "margin_ranking": (lambda L, a, b: F(L).margin_ranking_loss(a, b, L.ones(4) * -1, 0.3),
                       [(4,), (4,)]),
    "multi_margin": (lambda L, a, b: F(L).multi_margin_loss(a * b, L.tensor([0, 2])),
                     [(2, 3), (2, 3)]),
    "triplet": (lambda L, a, b: F(L).triplet_margin_loss(a, b, b * 2), [(2, 3), (2, 3)]),
    "pdist": (lambda L, a, b: L.pdist(a + b).sum(), [(3, 2), (3, 2)]),
    "cov": (lambda L, a, b: L.corrcoef(a * b).sum(), [(2, 4), (2, 4)]),
    "embedding": (lambda L, w, b: L.embedding(w * b, L.tensor([0, 2, 2]), 2).sum(),
                  [(3, 2), (3, 2)]),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a @ a.mT + L.eye(3) * 3, b).solution.sum(),
              [(3, 3), (3, 2)]),
    "slice_scatter": (lambda L, a, b: (L.slice_scatter(a, b[:1], 0, 1, 2) ** 2).sum(),
                      [(3, 2), (3, 2)]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_per_sample_gradients(name):
    """vmap(grad(f)) over a batch: each sample's gradient (the rules' ops record autograd on
    the batch, grad differentiates them per sample), against torch.func."""
    fn, shapes = GRAD_CASES[name]
    arrays = [_arr((B,) + s, 3 + i) for i, s in enumerate(shapes)]
    outs = []
    for lib in (torch, ember):
        g = lib.func.grad(lambda a, b, _lib=lib: fn(_lib, a, b), argnums=(0, 1))
        outs.append(lib.func.vmap(g)(*[lib.tensor(a) for a in arrays]))
    _same(outs[0], outs[1], 1e-8)


@pytest.mark.parametrize("fn", [
    lambda L, a: L.chain_matmul(a, a),
    lambda L, a: L.split_copy(a, 2),
    lambda L, a: L.slice_inverse(a, a, 0),
    lambda L, a: a.slice_inverse(a, 0),
    lambda L, a: L.histogramdd(a, 2),
    lambda L, a: L.histogramdd(a, [2, 2, 2]),
    lambda L, a: L.histogramdd(a, [L.tensor([0.0, 1.0])] * 3),
])
def test_ops_torch_refuses_raise_its_error(fn):
    errs = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as e:
            lib.func.vmap(lambda a, _lib=lib: fn(_lib, a))(lib.tensor(_arr((B, 3, 3), 1)))
        errs.append(str(e.value))
    assert errs[0] == errs[1]


def test_histc_and_bincount_edge_cases():
    """histc of a sample of one value (the range widened by 1 each way), float32; bincount whose
    samples' lengths differ: torch's loop stacks them and fails, and so does ember's; a NaN
    sample's histc range error."""
    x = np.array([[1.0, 1.0, 1.0], [0.0, 2.0, 5.0]], np.float32)
    want = torch.func.vmap(lambda a: torch.histc(a, 5))(torch.tensor(x))
    got = ember.func.vmap(lambda a: ember.histc(a, 5))(ember.tensor(x))
    _same(want, got, 0)
    errs = []
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for a in ([[0, 1], [0, 2]], [[1.0, float("nan")], [0.0, 1.0]]):
                f = lib.bincount if isinstance(a[0][0], int) else lambda t, _l=lib: _l.histc(t)
                with pytest.raises(RuntimeError) as e:
                    lib.func.vmap(f)(lib.tensor(a))
                errs.append(str(e.value))
    assert errs[:2] == errs[2:]


@pytest.mark.parametrize("shape,out", [((3, 3), 1), ((3, 3), (1, 1)), ((3, 3), 2), ((3,), 1),
                                       ((3,), (1, 1)), ((2, 2, 2, 3, 3), (1, 1)),
                                       ((2, 0, 3), 1), ((3, 3), (1, 1, 1)), ((2, 3, 3), (None, 1)),
                                       ((2, 2, 2, 3, 3), 2)])
@pytest.mark.parametrize("pool", ["adaptive_avg_pool2d", "adaptive_avg_pool3d"])
def test_adaptive_avg_pool_takes_the_mean_path_at_any_rank(shape, out, pool):
    """torch's adaptive average pool of output 1 (all 1s) is a mean over the last dims at any
    rank (a 2-d input to the 2-d pool), and a tuple output_size wants more dims than it has
    entries (ValueError) before any other check."""
    res = []
    for lib in (torch, ember):
        x = lib.tensor(_arr(shape, 2), requires_grad=True)
        try:
            y = getattr(lib.nn.functional, pool)(x, out)
            y.sum().backward()
            res.append((tuple(y.shape), y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__))
        except Exception as e:      # noqa: BLE001
            res.append((type(e), str(e)))
    if len(res[0]) == 2:
        assert res[0] == res[1]
    else:
        assert res[0][0] == res[1][0] and res[0][3] == res[1][3]
        np.testing.assert_allclose(res[1][1], res[0][1], equal_nan=True)
        np.testing.assert_allclose(res[1][2], res[0][2], equal_nan=True)


def test_searchsorted_follows_torchs_binary_search_on_any_boundaries():
    """Row-wise boundaries that are unsorted or hold NaN (undefined, but torch answers): ember
    gives torch's answer (1-d boundaries keep numpy's search, which differs on those: sorted ones
    without NaN are checked here), and vmap over sorted 1-d boundaries equals each sample's
    search."""
    rng = np.random.default_rng(4)
    for t in range(120):
        n, k = int(rng.integers(0, 8)), int(rng.integers(1, 5))
        b = rng.standard_normal((3, n) if t % 2 else (n,))
        if t % 3 == 0 or b.ndim == 1:
            b = np.sort(b, -1)
        if t % 5 == 0 and b.size and b.ndim == 2:
            b.flat[0] = np.nan
        v = np.round(rng.standard_normal((3, k)) * 2) / 2
        if t % 7 == 0:
            v.flat[0] = np.nan
        for right in (False, True):
            want = torch.searchsorted(torch.tensor(b), torch.tensor(v), right=right)
            got = ember.searchsorted(ember.tensor(b), ember.tensor(v), right=right)
            assert got.tolist() == want.tolist(), (b, v, right)
        if b.ndim == 2:
            s = np.sort(np.nan_to_num(b), -1)
            got = ember.func.vmap(ember.searchsorted)(ember.tensor(s), ember.tensor(v))
            each = [ember.searchsorted(ember.tensor(s[i]), ember.tensor(v[i])) for i in range(3)]
            assert got.tolist() == [e.tolist() for e in each]


GRAD_OF_VMAP = {
    "kron": (lambda L, a: L.kron(a, a.t()), (3, 2, 2)),
    "corrcoef": (lambda L, a: L.corrcoef(a), (3, 2, 4)),
    "pdist": (lambda L, a: L.pdist(a), (3, 4, 2)),
    "tensordot": (lambda L, a: L.tensordot(a, a, 1), (3, 2, 2)),
    "margin_ranking": (lambda L, a: L.nn.functional.margin_ranking_loss(a[0], a[1], L.ones(2)),
                       (3, 2, 2)),
    "bce_logits": (lambda L, a: L.nn.functional.binary_cross_entropy_with_logits(a, a.sigmoid()),
                   (3, 2, 2)),
    "lstsq": (lambda L, a: L.linalg.lstsq(a + 3 * L.eye(2), a).solution, (3, 2, 2)),
    "block_diag": (lambda L, a: L.block_diag(a, a[0]), (3, 2, 2)),
    "diagonal_scatter": (lambda L, a: L.diagonal_scatter(a, a[0] * 2), (3, 2, 2)),
    "nuclear_norm": (lambda L, a: L.linalg.norm(a, "nuc"), (3, 2, 2)),
    "multi_margin": (lambda L, a: L.nn.functional.multi_margin_loss(a, L.tensor([1, 0])),
                     (3, 2, 2)),
    "gradient": (lambda L, a: L.gradient(a)[1], (3, 2, 3)),
}


@pytest.mark.parametrize("name", sorted(GRAD_OF_VMAP))
def test_grad_of_vmap(name):
    """backward through vmap's output: the rules' ops recorded on the batch, against torch."""
    f, shape = GRAD_OF_VMAP[name]
    x = _arr(shape, 9)
    grads = []
    for lib in (torch, ember):
        t = lib.tensor(x, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = lib.func.vmap(lambda a, _lib=lib: f(_lib, a))(t)
        (y * y).sum().backward()
        grads.append(t.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-7, atol=1e-9)
