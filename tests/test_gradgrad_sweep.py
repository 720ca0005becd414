"""Issue 12: ONE sweep over every differentiable op of the library. Each entry of the op
tables (pointwise, reductions, shape, indexing, linalg, the nn ops of test_forward_ad and the
nn layers/losses of test_nn_double_backward) passes torch.autograd.gradcheck AND
gradgradcheck in float64 (fast mode, as torch's own op tests run them), and the second-order
graph's root names (the grad_fn of each create_graph gradient) equal torch's for the entries
written against either library. The last test enumerates every Node class in ember.ops: a
backward formula that no entry reaches fails it, unless EXCLUDED says why."""
import importlib
import inspect
import pkgutil
import warnings
import zlib

import numpy as np
import pytest
import test_forward_ad as FW
import test_index as IX
import test_linalg as LA
import test_nn_double_backward as NB
import test_pointwise as P
import test_reduce as RD
import test_shape as SH
import torch
from oracle import check, check_error

import ember
from ember.autograd.graph import Node


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def _pointwise():
    out = {}
    for name, (fn, dom, _) in P.UNARY.items():
        out["unary:" + name] = (fn, [P._dom(dom, (2, 3), _rng(name))])
    for name, (fn, doms, _) in P.BINARY.items():
        rng = _rng(name)
        out["binary:" + name] = (fn, [P._dom(d, (2, 3), rng) for d in doms])
    return out


def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _u(lo, hi, *shape, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def _spd(n, seed=0):
    a = _r(n, n, seed=seed)
    return a @ a.T + n * np.eye(n)


def _ip(method, *args, **kwargs):
    """The in-place form on a copy (a non-leaf), as fn(L, x)."""
    return lambda L, x: getattr(x * 1, method)(*args, **kwargs)


def _lower(x):
    return (x.tril(-1) * 0.3) + (x.diagonal().abs() + 1).diag_embed()


def _F(L):
    return L.nn.functional


# ops the shared tables do not reach (found by test_every_backward_formula_is_swept):
# name -> (fn(L, *tensors), input arrays)
EXTRA = {
    # the layer ops added after the sweep (grid sampling, 3-d pools, conv_tbc)
    "grid_sample2d": (lambda L, x, g: L.nn.functional.grid_sample(x, g, align_corners=False),
                      [_r(1, 2, 3, 3), _u(-0.9, 0.9, 1, 2, 2, 2, seed=1)]),
    "grid_sample3d": (lambda L, x, g: L.nn.functional.grid_sample(x, g, align_corners=True),
                      [_r(1, 1, 2, 3, 3), _u(-0.9, 0.9, 1, 1, 2, 2, 3, seed=2)]),
    "affine_grid": (lambda L, t: L.nn.functional.affine_grid(t, [1, 1, 3, 2],
                                                             align_corners=False),
                    [_r(1, 2, 3)]),
    "avg_pool3d": (lambda L, x: L.nn.functional.avg_pool3d(x, 2), [_r(1, 1, 2, 4, 4)]),
    "max_pool3d": (lambda L, x: L.nn.functional.max_pool3d(x, 2), [_r(1, 1, 2, 4, 4)]),
    "adaptive_max_pool3d": (lambda L, x: L.nn.functional.adaptive_max_pool3d(x, (1, 2, 2)),
                            [_r(1, 1, 2, 3, 4)]),
    "fractional_max_pool2d": (lambda L, x: L.nn.functional.fractional_max_pool2d(
        x, 2, 3, _random_samples=L.tensor([[[0.3, 0.8]]], dtype=x.dtype)), [_r(1, 1, 6, 5)]),
    "fractional_max_pool3d": (lambda L, x: L.nn.functional.fractional_max_pool3d(
        x, 2, 2, _random_samples=L.tensor([[[0.3, 0.8, 0.5]]], dtype=x.dtype)),
        [_r(1, 1, 4, 4, 4)]),
    "max_unpool3d": (lambda L, x: L.nn.functional.max_unpool3d(
        *L.nn.functional.max_pool3d(x, 2, return_indices=True), 2), [_r(1, 1, 2, 4, 4)]),
    "conv_tbc": (lambda L, x, w, b: L.conv_tbc(x, w, b, 1),
                 [_r(4, 2, 3), _r(3, 3, 2, seed=1), _r(2, seed=2)]),
    "acosh_": (_ip("acosh_"), [_u(1.2, 3, 2, 3)]),
    "asinh_": (_ip("asinh_"), [_r(2, 3)]),
    "atanh_": (_ip("atanh_"), [_u(-0.9, 0.9, 2, 3)]),
    "adaptive_avg_pool3d": (lambda L, x: _F(L).adaptive_avg_pool3d(x, (1, 2, 1)),
                            [_r(1, 2, 2, 3, 2)]),
    "as_strided": (lambda L, x: x.as_strided((2, 2), (1, 2), 1), [_r(2, 3)]),
    "as_strided_scatter": (lambda L, x, s: L.as_strided_scatter(x, s, (2, 2), (1, 2), 1),
                           [_r(2, 3), _r(2, 2, seed=1)]),
    "cdist": (lambda L, x, y: L.cdist(x, y), [_r(3, 2), _r(4, 2, seed=1)]),
    "cdist_mm": (lambda L, x, y: L.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
                 [_r(3, 2), _r(4, 2, seed=1)]),
    "celu_": (lambda L, x: _F(L).celu(x * 1, inplace=True), [_r(2, 3)]),
    "elu_": (lambda L, x: _F(L).elu(x * 1, inplace=True), [_r(2, 3)]),
    "leaky_relu_": (lambda L, x: _F(L).leaky_relu(x * 1, 0.2, inplace=True), [_r(2, 3)]),
    "rrelu_eval_": (lambda L, x: _F(L).rrelu(x * 1, training=False, inplace=True), [_r(2, 3)]),
    "threshold_": (lambda L, x: _F(L).threshold(x * 1, 0.1, 2.0, inplace=True), [_r(2, 3)]),
    "channel_shuffle": (lambda L, x: L.channel_shuffle(x, 2), [_r(1, 4, 2)]),
    "cholesky": (lambda L, x: L.cholesky((x + x.mT) / 2), [_spd(3)]),
    "cholesky_inverse": (lambda L, x: L.cholesky_inverse(_lower(x)), [_r(3, 3)]),
    "cholesky_solve": (lambda L, b, x: L.cholesky_solve(b, _lower(x)),
                       [_r(3, 2), _r(3, 3, seed=1)]),
    "triangular_solve": (lambda L, b, x: L.triangular_solve(b, _lower(x)).solution,
                         [_r(3, 2), _r(3, 3, seed=1)]),
    "lu_unpack": (lambda L, x: L.lu_unpack(*L.linalg.lu_factor(x))[1:],
                  [_r(3, 3) + 3 * np.eye(3)]),
    "complex_polar": (lambda L, a, b: (L.complex(a, b), L.polar(a.abs() + 0.5, b)),
                      [_r(2, 3), _r(2, 3, seed=1)]),
    "conj_physical": (lambda L, a, b: L.conj_physical(L.complex(a, b)) * (1 + 2j),
                      [_r(2, 3), _r(2, 3, seed=1)]),
    "view_as_complex": (lambda L, x: L.view_as_complex(x * 1), [_r(3, 2)]),
    "copy_": (lambda L, x, y: (x * 1).copy_(y), [_r(2, 3), _r(3, seed=1)]),
    "fill": (lambda L, x, v: (L.fill(x, 2.5), L.fill(x, v), (x * 1).fill_(1.5),
                              (x * 1).fill_(v), (x * 1).zero_()), [_r(2, 3), np.array(0.7)]),
    "compare_": (lambda L, x, y: ((x * 1).eq_(y), (x * 1).ne_(0.5), (x * 1).lt_(y),
                                  (x * 1).le_(0.1), (x * 1).gt_(y), (x * 1).ge_(0.2),
                                  (x * 1).eq_(0.3), (x * 1).ne_(y), (x * 1).lt_(0.0),
                                  (x * 1).le_(y), (x * 1).gt_(0.1), (x * 1).ge_(y)),
                 [_r(2, 3), _r(2, 3, seed=1)]),
    "ctc_loss": (lambda L, x: _F(L).ctc_loss(x.log_softmax(2), L.tensor([[1, 2]]),
                                             L.tensor([4]), L.tensor([2])), [_r(4, 1, 3)]),
    "multi_margin": (lambda L, x: _F(L).multi_margin_loss(x, L.tensor([2, 0])), [_r(2, 3)]),
    "multilabel_margin": (lambda L, x: _F(L).multilabel_margin_loss(
        x, L.tensor([[2, -1, 0], [1, 0, -1]])), [_r(2, 3)]),
    "native_dropout": (lambda L, x: L.native_dropout(x, 0.0, True)[0], [_r(2, 3)]),
    "pdist": (lambda L, x: _F(L).pdist(x), [_r(4, 3)]),
    "pad3d": (lambda L, x: (_F(L).pad(x, (1, 1, 1, 0, 0, 1), mode="reflect"),
                            _F(L).pad(x, (1, 0, 0, 1, 1, 1), mode="replicate")),
              [_r(1, 1, 2, 3, 2)]),
    "renorm": (lambda L, x: L.renorm(x, 2, 0, 1.0), [_r(3, 4)]),
    "sort_stable": (lambda L, x: L.sort(x, stable=True, dim=1)[0], [_r(2, 4)]),
    "inplace_views": (lambda L, x: ((x * 1).squeeze_(), (x * 1).squeeze_(0),
                                    (x * 1).squeeze_((0, 2)), (x * 1).unsqueeze_(1),
                                    (x[0, :, 0] * 1).unsqueeze(0).t_()), [_r(1, 3, 1)]),
    "unfold2": (lambda L, x: x.unfold(1, 2, 1), [_r(2, 4)]),
    "norm": (lambda L, x: (L.norm(x), x.norm(3), x.norm(1.5)), [_r(2, 3)]),
    "upsample": (lambda L, x1, x2, x3: (
        _F(L).interpolate(x1, scale_factor=2, mode="nearest"),
        _F(L).interpolate(x1, size=5, mode="nearest-exact"),
        _F(L).interpolate(x2, size=(3, 5), mode="nearest-exact"),
        _F(L).interpolate(x2, scale_factor=2, mode="bicubic"),
        _F(L).interpolate(x3, scale_factor=2, mode="nearest"),
        _F(L).interpolate(x3, size=(3, 3, 2), mode="nearest-exact"),
        _F(L).interpolate(x3, scale_factor=2, mode="trilinear")),
                 [_r(1, 1, 3), _r(1, 1, 2, 3, seed=1), _r(1, 1, 2, 2, 1, seed=2)]),
    "fft": (lambda L, x: (L.fft.fft(x), L.fft.ifft(L.fft.fft(x) * 2), L.fft.rfft(x),
                          L.fft.irfft(L.fft.rfft(x) * (1 + 1j))), [_r(2, 4)]),
    "special": (lambda L, x: (L.digamma(x), L.lgamma(x), L.i0(x), L.special.i0e(x),
                              L.special.i1(x), L.special.i1e(x), L.special.entr(x),
                              L.special.erfcx(x), L.special.log_ndtr(x), L.sinc(x),
                              L.polygamma(1, x), L.mvlgamma(x + 2, 2)), [_u(0.3, 2, 2, 3)]),
    "polygamma_": (_ip("polygamma_", 2), [_u(0.3, 2, 2, 3)]),
    "ndtri": (lambda L, x: L.special.ndtri(x), [_u(0.1, 0.9, 2, 3)]),
    "igamma": (lambda L, y: (L.igamma(L.tensor(1.5, dtype=L.float64), y),
                             L.igammac(L.tensor(0.7, dtype=L.float64), y)), [_u(0.3, 2, 2, 3)]),
    "special_binary": (lambda L, x, y: (L.special.xlog1py(x, y),
                                        L.logaddexp(x, y),
                                        L.logaddexp2(x, y), L.ldexp(x, L.tensor([1, 2, 0])),
                                        L.nextafter(x, y)),
                       [_u(0.3, 2, 2, 3), _u(0.3, 2, 2, 3, seed=1)]),
    "frexp": (lambda L, x: L.frexp(x)[0], [_u(0.3, 2, 2, 3)]),
    "lstm": (lambda L, x: _seeded(L, lambda: L.nn.LSTM(3, 2).double())(x)[0], [_r(2, 1, 3)]),
    "norm_except_dim": (lambda L, x: L.norm_except_dim(x, 2, -1), [_r(2, 3)]),
    "zeta_q": (lambda L, y: (L.special.zeta(L.tensor(2.5, dtype=L.float64), y),
                             L.special.zeta(3.5, y)), [_u(0.3, 2, 2, 3)]),
    "zeta_x": (lambda L, x: L.special.zeta(x + 2, 1.5), [_u(0.3, 2, 2, 3)]),
    "unique": (lambda L, x: (L.unique(x), L.unique_consecutive(x),
                             L.unique(x.view(3, 2), dim=0)), [_r(6)]),
    "geqrf": (lambda L, x: L.geqrf(x)[0], [_r(3, 2)]),
    "copy_variants": (lambda L, x: (
        L.alias_copy(x), L.as_strided_copy(x, (2, 2), (1, 2), 1), L.expand_copy(x[:1], (2, 3, 4)),
        L.permute_copy(x, (1, 0)), L.select_copy(x, 1, -1), L.slice_copy(x, 1, 1, None, 2),
        *L.split_copy(x, 2, 1), *L.split_with_sizes_copy(x, [1, 2]), L.squeeze_copy(x[:1]),
        L.squeeze_copy(x[:1], 0), L.squeeze_copy(x[:1, :1], (0, 1)), L.t_copy(x),
        L.transpose_copy(x, 0, 1), *L.unbind_copy(x, 1), L.unfold_copy(x, 1, 2, 1),
        L.unsqueeze_copy(x, 0), L.view_copy(x, (12,)), L.diagonal_copy(x, 1),
        L.view_as_real_copy(L.view_as_complex(x.reshape(6, 2)))), [_r(3, 4)]),
    "slice_inverse": (lambda L, x, y: L.slice_inverse(x[:, 1:3], y, 1, 1, 3) * 1,
                      [_r(3, 4), _r(3, 4, seed=1)]),
    "segment_reduce": (lambda L, x: tuple(L.segment_reduce(x, r, lengths=L.tensor([2, 1, 3]))
                                          for r in ("sum", "mean", "max", "min", "prod")),
                       [_u(0.5, 2, 6)]),
}


def _seeded(L, make):
    L.manual_seed(0)
    return make()


def _entries():
    """name -> (fn, arrays, lib_generic): fn(L, *tensors) when lib_generic, else
    fn(*ember tensors)."""
    out = {k: (fn, ins, True) for k, (fn, ins) in _pointwise().items()}
    for name, fn, ins, ok, _ in RD.CASES:
        if ok and not name.startswith("c_"):
            out["reduce:" + name] = (fn, list(ins), True)
    for name, i in SH.GG:
        fn, inputs, _ = SH.OPS[name]
        out[f"shape:{name}-{i}"] = (fn, list(inputs[i]), True)
    for name, (fn, ins) in IX.OPS.items():
        out["index:" + name] = (fn, list(ins), True)
    for k, (shape, fn) in enumerate(IX.GETITEM):
        out[f"getitem:{k}"] = (fn, [IX.arr(shape, seed=k)], True)
    for k, (fn, ins) in enumerate(IX.GRADCHECK + IX.REDUCE_GRADCHECK):
        out[f"index_gc:{k}"] = (fn, list(ins), False)
    for name, (fn, ins) in FW.NN.items():
        out["nn:" + name] = (fn, list(ins), True)
    for name, (fn, ins) in {**LA.GRADCHECK, **LA.GRADCHECK_ONCE, **LA.GRADGRAD_MORE}.items():
        out["linalg:" + name] = (fn, list(ins), False)
    for name, (fn, ins) in LA.OPS.items():
        out["linalg_ops:" + name] = (fn, list(ins), True)
    for name, (fn, ins) in NB.CASES.items():
        out["nn_layer:" + name] = (fn, list(ins), False)
    for name, (fn, ins) in EXTRA.items():
        out["extra:" + name] = (fn, list(ins), True)
    return out



ENTRIES = _entries()

# Entries whose gradcheck or gradgradcheck fails in torch too, for the reason given: the
# test checks that torch's verdicts (pass / GradcheckError / the exception's type) and
# ember's agree, and that at least one check fails in torch (so that the reason holds).
TORCH_FAILS_TOO = {
    "index:index_put": "repeated indices without accumulate: torch's backward passes the "
                       "gradient to every duplicate, the finite differences to the last one",
    "index:index_put_": "as index_put",
    "index:put": "as index_put",
    "index:put_": "as index_put",
    "index:scatter_reduce_amax_ties": "ties: amax is not differentiable there",
    "linalg_ops:cholesky": "an unsymmetric input: the derivative is taken as if symmetric",
    "linalg_ops:cholesky_up": "as cholesky",
    "linalg_ops:eigvalsh": "an unsymmetric input: the derivative is taken as if symmetric",
    "linalg_ops:mnorm_dtype": "a float32 result: rounding defeats float64 finite differences",
    "nn:hardswish_sigmoid": "torch: derivative for aten::hardsigmoid_backward is not "
                            "implemented",
    "unary:nan_to_num_nonfinite": "infinite inputs: no finite differences",
    "extra:acosh_": "torch: the derivative for 'inplace version of acosh' is not implemented",
    "extra:asinh_": "torch: the derivative for 'inplace version of asinh' is not implemented",
    "extra:atanh_": "torch: the derivative for 'inplace version of atanh' is not implemented",
    "extra:cdist": "torch: the derivative for '_cdist_backward' is not implemented",
    "extra:pdist": "torch: the derivative for '_pdist_backward' is not implemented",
    "extra:ctc_loss": "torch: derivative for aten::_ctc_loss_backward is not implemented",
    "extra:multi_margin": "torch: derivative for aten::multi_margin_loss_backward is not "
                          "implemented",
    "extra:multilabel_margin": "torch: derivative for aten::multilabel_margin_loss_backward "
                               "is not implemented",
    "extra:unique": "torch: the derivative for '_unique2' is not implemented",
    "extra:geqrf": "torch: the derivative for 'geqrf' is not implemented",
    "extra:segment_reduce": "torch: derivative for aten::_segment_reduce_backward is not "
                            "implemented",
    "extra:slice_inverse": "the output reads input's memory in src's geometry, while the "
                           "formula assumes input is src's slice (functionalization's case): "
                           "finite differences see input alone",
    "extra:zeta_x": "torch: the derivative for 'zeta' is not implemented (in x)",
}

# Node classes of ember.ops that no entry reaches, with the reason (private base classes
# that other node classes subclass are left out by the test itself)
EXCLUDED = {
    "_RefusedView": "not a formula: the grad_fn a refused view shows, raising torch's error "
                    "wherever it is used (tests/test_inplace_views.py)",
    "MkldnnRnnLayerBackward0": "made by float32 LSTMs only (torch's CPU path); its create_graph "
                               "formula is checked against its NumPy one in float64 by "
                               "tests/test_nn_rnn.py::test_lstm_layer_node_passes_agree",
}


def _tensors(L, arrays):
    res = []
    for a in arrays:
        if isinstance(a, (np.ndarray, np.generic, float)) and np.asarray(a).dtype.kind == "f":
            res.append(L.tensor(np.asarray(a, np.float64), requires_grad=True))
        elif isinstance(a, (np.ndarray, np.generic, list, int, bool)):
            res.append(L.tensor(a))
        else:
            res.append(a)
    return res


def _call(name, L, xs):
    fn, _, generic = ENTRIES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(L, *xs) if generic else fn(*xs)


def _flat_outputs(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat_outputs(o)]
    return [out] if isinstance(out, (ember.Tensor, torch.Tensor)) else []


def _differentiable(name, xs):
    outs = _flat_outputs(_call(name, ember, xs))
    return any(o.requires_grad and (o.dtype.is_floating_point or o.dtype.is_complex)
               for o in outs)


def _float_outputs(name):
    """The entry as a function of its float inputs returning its float outputs."""
    _, arrays, _ = ENTRIES[name]

    def fn(*args):
        return tuple(o for o in _flat_outputs(_call(name, ember, args))
                     if o.dtype.is_floating_point or o.dtype.is_complex)
    return fn, _tensors(ember, arrays)


@pytest.mark.parametrize("name", sorted(n for n in ENTRIES if n not in TORCH_FAILS_TOO))
def test_gradcheck_and_gradgradcheck(name):
    fn, xs = _float_outputs(name)
    if not _differentiable(name, xs):
        # an op with no differentiable output (isnan, nonzero, ...): so it is in torch
        txs = _tensors(torch, ENTRIES[name][1])
        touts = _flat_outputs(_call(name, torch, txs))
        assert not any(o.requires_grad for o in touts), f"{name} is differentiable in torch"
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ember.autograd.gradcheck(fn, xs, fast_mode=True, atol=1e-5, rtol=1e-3)
        assert ember.autograd.gradgradcheck(fn, xs, fast_mode=True, atol=1e-5, rtol=1e-3)


def _verdicts(L, name):
    fn, arrays, generic = ENTRIES[name]
    xs = _tensors(L, arrays)

    def f(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(L, *args) if generic else fn(*args)
        return tuple(o for o in _flat_outputs(out)
                     if o.dtype.is_floating_point or o.dtype.is_complex)
    res = []
    for checker in (L.autograd.gradcheck, L.autograd.gradgradcheck):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res.append(checker(f, xs, raise_exception=False))
        except Exception as e:      # noqa: BLE001 (compared by type)
            res.append(type(e).__name__)
    return res


@pytest.mark.parametrize("name", sorted(TORCH_FAILS_TOO))
def test_same_verdicts_where_torch_fails_too(name):
    t, e = _verdicts(torch, name), _verdicts(ember, name)
    assert t == e
    assert t != [True, True], f"torch passes {name}: its entry in TORCH_FAILS_TOO is stale"


def _walk(roots, seen):
    stack = [t.grad_fn for t in roots if t.grad_fn is not None]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen[id(n)] = type(n).__name__
        stack.extend(f for f, _ in getattr(n, "next_functions", ()) if f is not None)


def _reached(name):
    """The names of the node classes an entry's graph holds, first order and second."""
    fn, xs = _float_outputs(name)
    seen = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            outs = [o for o in fn(*xs) if o.requires_grad]
        except Exception:       # noqa: BLE001 (the entry's own test reports it)
            return set()
        _walk(outs, seen)
        diff = [x for x in xs if isinstance(x, ember.Tensor) and x.requires_grad]
        if outs and diff:
            gos = [ember.ones_like(o).requires_grad_() for o in outs]
            try:
                gs = ember.autograd.grad(outs, diff, gos, create_graph=True, allow_unused=True)
            except Exception:   # noqa: BLE001 (the entry's own test reports it)
                gs = ()
            _walk([g for g in gs if g is not None], seen)
    return set(seen.values())


def _ember_nodes():
    """Every Node class defined in ember.ops, by name."""
    from ember import ops
    found = {}
    for m in pkgutil.iter_modules(ops.__path__):
        mod = importlib.import_module("ember.ops." + m.name)
        for n, c in vars(mod).items():
            if inspect.isclass(c) and issubclass(c, Node) and c.__module__ == mod.__name__:
                found[n] = c
    return found


def test_every_backward_formula_is_swept():
    reached = set()
    for name in ENTRIES:
        reached |= _reached(name)
    nodes = _ember_nodes()
    bases = {b.__name__ for c in nodes.values() for b in c.__mro__[1:]}
    bases = {n for n in bases if n.startswith("_")}
    missing = {n: c.__module__ for n, c in nodes.items()
               if n not in reached and n not in EXCLUDED and n not in bases}
    assert not missing, f"node classes no sweep entry reaches: {sorted(missing.items())}"
    stale = sorted(n for n in EXCLUDED if n in reached)
    assert not stale, f"EXCLUDED names that the sweep now reaches: {stale}"



def test_zeta_is_differentiable_in_q():
    # torch differentiates zeta(x, q) in q only: -x zeta(x + 1, q); nodes 0/1/2 by which
    # argument is a Python scalar
    def fn(L, x, q):
        a = L.special.zeta(x.detach(), q)
        b = L.special.zeta(2.5, q)
        g, = L.autograd.grad((a * b).sum(), q, create_graph=True)
        return a, b, g, g.sum()
    check(fn, _u(1.5, 3, 4), _u(0.3, 2, 4, seed=1))
    check_error(lambda L: L.special.zeta(L.tensor([2.5, 3.0], requires_grad=True), 2.0)
                .sum().backward())
    check_error(lambda L: L.special.zeta(L.tensor([2.5, 3.0], requires_grad=True),
                                         L.tensor([1.0, 2.0], requires_grad=True))
                .sum().backward())


def _second_order_names(L, name):
    """The grad_fn names of the create_graph gradients of the entry's float outputs (with
    grad outputs of ones that require grad), per differentiable input."""
    _, arrays, _ = ENTRIES[name]
    xs = _tensors(L, arrays)
    outs = [o for o in _flat_outputs(_call(name, L, xs))
            if o.requires_grad and (o.dtype.is_floating_point or o.dtype.is_complex)]
    diff = [x for x in xs if isinstance(x, (ember.Tensor, torch.Tensor)) and x.requires_grad]
    if not outs or not diff:
        return None
    gos = [L.ones_like(o).requires_grad_() for o in outs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gs = L.autograd.grad(outs, diff, gos, create_graph=True, allow_unused=True)
    return [None if g is None else g.grad_fn and type(g.grad_fn).__name__ for g in gs]


# Entries whose create_graph gradient's grad_fn name differs from torch's today, with the
# reason. The values and the second derivatives are right (gradgradcheck above); the test
# checks that each still differs, so that a fixed entry leaves this table.
_FUSED = ("torch's double backward of this op is one fused node ({}); ember differentiates "
          "its composed first-derivative formula")
_COPY_SLICES = ("torch's backward formula writes into slices of a zeros tensor in place "
                "(CopySlices nodes); ember's assembles the same values out of place ({})")
SECOND_ORDER_NAMES_DIFFER = {
    "extra:as_strided": "torch's as_strided_backward works on the input's storage geometry "
                        "(an as_strided view written in place: AsStridedBackward0 over "
                        "CopySlices); ember scatters into the flat input (IndexPutBackward0) "
                        "and views it back",
    "extra:as_strided_scatter": "as extra:as_strided (AsStridedBackward0 in torch; index_fill "
                                "and indexing of the flat input in ember)",
    "extra:conv_tbc": _COPY_SLICES.format("ConvTbcBackward0, ConstantPadNdBackward0"),
    "index:index_reduce_amin_ni": "ember takes index_reduce's derivative as scatter_reduce's "
                                  "with the index spread over source's shape (ScatterBackward1,"
                                  " GatherBackward0); torch's index form uses index_fill and "
                                  "index_select (IndexFillBackward0, IndexSelectBackward0)",
    "index:index_reduce_mean_ni": "as index:index_reduce_amin_ni",
    "nn:batch_norm": _FUSED.format("NativeBatchNormBackwardBackward0"),
    "nn:layer_norm": _FUSED.format("NativeLayerNormBackwardBackward0"),
    "reduce:cumprod_zeros_gg": _COPY_SLICES.format("CatBackward0"),
    "unary:sgn": "torch's input buffer adds sgn's zero gradient of a real input to x * 0's "
                 "(AddBackward0); ember's engine passes that zero on as its ZERO marker without "
                 "an op (Note [Zero gradients] in engine.py)",
}


GENERIC = sorted(n for n, (_, _, generic) in ENTRIES.items()
                 if generic and n not in TORCH_FAILS_TOO)


def test_second_order_exceptions_name_entries():
    assert set(SECOND_ORDER_NAMES_DIFFER) <= set(GENERIC)
    assert all(SECOND_ORDER_NAMES_DIFFER.values())


@pytest.mark.parametrize("name", GENERIC)
def test_second_order_grad_fn_names(name):
    same = _second_order_names(ember, name) == _second_order_names(torch, name)
    what = "now matches torch: drop it from" if same else "differs from torch: see"
    assert same != (name in SECOND_ORDER_NAMES_DIFFER), f"{name} {what} SECOND_ORDER_NAMES_DIFFER"


def test_grad_of_several_outputs_of_one_node():
    # two roots on one multi-output node (chunk's pieces): the engine counts the node's
    # edges once (each of its input nodes then waits for one gradient, not two)
    def fn(L, x):
        outs = x.chunk(2)
        leaves = [L.ones_like(o).requires_grad_() for o in outs]
        g, = L.autograd.grad(outs, x, [w * 2 for w in leaves], create_graph=True)
        h, = L.autograd.grad(list(x.unbind())[::-1], x, [L.tensor(1.0)] * 5)
        return g, h, L.autograd.grad((g * g).sum(), leaves, retain_graph=True)
    check(fn, _r(5))


def _third_order(L, fn, x):
    """Values, second-order node names and saved attributes through three orders of fn."""
    x = L.tensor(x, requires_grad=True)
    y = fn(L, x)
    go = L.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)), requires_grad=True)
    g, = L.autograd.grad(y, x, go, create_graph=True)
    node = g.grad_fn
    saved = sorted(a for a in dir(node) if a.startswith("_saved_"))
    w = L.tensor(np.linspace(0.5, 2, g.numel()).reshape(tuple(g.shape)))
    gx, ggo = L.autograd.grad((g * w).sum(), (x, go), create_graph=True)
    g3, = L.autograd.grad((gx * gx).sum() + (ggo * ggo).sum(), x)
    return type(node).__name__, saved, g, gx, ggo, g3


@pytest.mark.parametrize("op", ["sigmoid", "tanh", "glu", "glu0", "sigmoid_c", "tanh_c"])
def test_dedicated_backward_backward_nodes(op):
    # SigmoidBackwardBackward0, TanhBackwardBackward0, GluBackwardBackward0: torch's nodes for
    # the first derivative as an op; their own derivatives checked against torch's to order 3
    fns = {"sigmoid": lambda L, x: x.sigmoid(), "tanh": lambda L, x: x.tanh(),
           "glu": lambda L, x: L.nn.functional.glu(x), "glu0": lambda L, x:
           L.nn.functional.glu(x, 0),
           "sigmoid_c": lambda L, x: L.view_as_real(L.view_as_complex(x).sigmoid()),
           "tanh_c": lambda L, x: L.view_as_real(L.view_as_complex(x).tanh())}
    x = _r(4, 2, seed=3) * 0.8
    t, e = _third_order(torch, fns[op], x), _third_order(ember, fns[op], x)
    if op.endswith("_c"):       # (the view_as_real root: compare values only)
        t, e = t[2:], e[2:]
    else:
        assert t[:2] == e[:2]
        t, e = t[2:], e[2:]
    for a, b in zip(t, e):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_embedding_dense_backward_backward():
    # EmbeddingDenseBackwardBackward0: the weight gradient's derivative in grad (index_select
    # of the rows, the padding index's rows zero), against torch's
    def fn(L, w):
        i = L.tensor([[1, 2, 2], [0, 3, 1]])
        o = L.nn.functional.embedding(i, w, padding_idx=2)
        go = L.tensor(np.linspace(-1, 1, o.numel()).reshape(tuple(o.shape)), requires_grad=True)
        g, = L.autograd.grad(o, w, go, create_graph=True)
        h, = L.autograd.grad((g * g).sum(), go, retain_graph=True)
        return g, h, type(g.grad_fn).__name__, g.grad_fn._saved_padding_idx
    check(fn, _r(4, 2))
