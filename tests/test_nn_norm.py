"""ember.nn.functional normalization against torch: batch_norm (training and eval, running
statistics, momentum), layer_norm, group_norm, instance_norm, rms_norm, local_response_norm,
normalize: values, grad_fn names and chains, input and parameter gradients, buffers, double
backward, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import chain, check, check_error, gradcheck, gradgradcheck

R = np.random.default_rng(5)


def randn(*shape, dtype=np.float64):
    return R.standard_normal(shape).astype(dtype)


def pos(*shape):
    return np.abs(randn(*shape)) + 0.5


def F(lib):
    return lib.nn.functional


def _bn(training, momentum=0.1, eps=1e-5):
    """batch_norm with running statistics: returns the output and both updated buffers."""
    def fn(L, x, w, b, rm, rv):
        rm, rv = rm.detach().clone(), rv.detach().clone()
        out = F(L).batch_norm(x, rm, rv, w, b, training, momentum, eps)
        return out, rm, rv
    return fn


# name -> (fn(lib, *tensors), inputs)
CASES = {
    "bn_train_2d": (_bn(True), [randn(6, 3), randn(3), randn(3), randn(3), pos(3)]),
    "bn_train_3d": (_bn(True), [randn(4, 3, 5), randn(3), randn(3), randn(3), pos(3)]),
    "bn_train_4d": (_bn(True, 0.3), [randn(2, 3, 4, 3), randn(3), randn(3), randn(3), pos(3)]),
    "bn_train_5d": (_bn(True), [randn(2, 2, 3, 2, 2), randn(2), randn(2), randn(2), pos(2)]),
    "bn_eval_3d": (_bn(False), [randn(4, 3, 5), randn(3), randn(3), randn(3), pos(3)]),
    "bn_eval_4d": (_bn(False, eps=1e-3), [randn(2, 3, 2, 2), randn(3), randn(3), randn(3),
                                          pos(3)]),
    "bn_train_no_stats": (lambda L, x, w, b: F(L).batch_norm(x, None, None, w, b, True),
                          [randn(4, 3, 5), randn(3), randn(3)]),
    "bn_train_no_affine": (lambda L, x: F(L).batch_norm(x, None, None, training=True),
                           [randn(4, 3, 5)]),
    "bn_weight_only": (lambda L, x, w: F(L).batch_norm(x, None, None, w, training=True),
                       [randn(4, 3), randn(3)]),
    "bn_eval_no_affine": (lambda L, x, rm, rv: F(L).batch_norm(x, rm, rv),
                          [randn(4, 3, 5), randn(3), pos(3)]),
    "bn_train_large_mean": (_bn(True), [randn(4, 3, 5) + 1000, randn(3), randn(3), randn(3),
                                        pos(3)]),
    "ln_last": (lambda L, x, w, b: F(L).layer_norm(x, (5,), w, b), [randn(4, 3, 5), randn(5),
                                                                   randn(5)]),
    "ln_two": (lambda L, x, w, b: F(L).layer_norm(x, (3, 5), w, b), [randn(4, 3, 5),
                                                                    randn(3, 5), randn(3, 5)]),
    "ln_all": (lambda L, x: F(L).layer_norm(x, [4, 3, 5]), [randn(4, 3, 5)]),
    "ln_no_bias": (lambda L, x, w: F(L).layer_norm(x, (5,), w), [randn(4, 3, 5), randn(5)]),
    "ln_bias_only": (lambda L, x, b: F(L).layer_norm(x, (5,), None, b), [randn(4, 3, 5),
                                                                        randn(5)]),
    "ln_eps": (lambda L, x: F(L).layer_norm(x, (5,), eps=0.1), [randn(2, 5)]),
    "ln_1d": (lambda L, x, w, b: F(L).layer_norm(x, (5,), w, b), [randn(5), randn(5),
                                                                 randn(5)]),
    "gn": (lambda L, x, w, b: F(L).group_norm(x, 3, w, b), [randn(4, 6, 5), randn(6),
                                                           randn(6)]),
    "gn_one_group": (lambda L, x: F(L).group_norm(x, 1), [randn(4, 6, 2, 3)]),
    "gn_2d": (lambda L, x, w, b: F(L).group_norm(x, 2, w, b), [randn(3, 6), randn(6),
                                                              randn(6)]),
    "gn_per_channel": (lambda L, x, w: F(L).group_norm(x, 4, w, eps=1e-3),
                       [randn(2, 4, 3, 2), randn(4)]),
    "in": (lambda L, x, w, b: F(L).instance_norm(x, weight=w, bias=b),
           [randn(4, 3, 5), randn(3), randn(3)]),
    "in_no_affine_4d": (lambda L, x: F(L).instance_norm(x), [randn(2, 3, 4, 3)]),
    "rms": (lambda L, x, w: F(L).rms_norm(x, (5,), w), [randn(4, 3, 5), randn(5)]),
    "rms_no_weight": (lambda L, x: F(L).rms_norm(x, (3, 5)), [randn(4, 3, 5)]),
    "rms_eps": (lambda L, x: F(L).rms_norm(x, [5], eps=1e-2), [randn(4, 5)]),
    "lrn_3d": (lambda L, x: F(L).local_response_norm(x, 3), [randn(2, 5, 4)]),
    "lrn_4d": (lambda L, x: F(L).local_response_norm(x, 2, 1e-2, 0.5, 2.0),
               [randn(2, 4, 3, 3)]),
    "lrn_5d": (lambda L, x: F(L).local_response_norm(x, 4, 0.1), [randn(2, 5, 2, 2, 2)]),
    "lrn_size1": (lambda L, x: F(L).local_response_norm(x, 1), [randn(2, 3, 4)]),
    "normalize": (lambda L, x: F(L).normalize(x), [randn(4, 3, 5)]),
    "normalize_p1_dim0": (lambda L, x: F(L).normalize(x, 1.0, 0), [randn(4, 3)]),
    "normalize_zero_row": (lambda L, x: F(L).normalize(x * L.tensor([[0.0], [1.0]])),
                           [randn(2, 3)]),
    "normalize_1d": (lambda L, x: F(L).normalize(x, dim=0), [randn(4)]),
}


def _instance_stats(L, x, rm, rv):
    rm, rv = rm.detach().clone(), rv.detach().clone()
    out = F(L).instance_norm(x, rm, rv, use_input_stats=True, momentum=0.2)
    return out, rm, rv


CASES["in_running_stats"] = (_instance_stats, [randn(4, 3, 5), randn(3), pos(3)])
CASES["in_eval_stats"] = (lambda L, x, rm, rv: F(L).instance_norm(x, rm, rv,
                                                                  use_input_stats=False),
                          [randn(4, 3, 5), randn(3), pos(3)])


def _cast(inputs, dtype):
    return [a.astype(dtype) for a in inputs]


# inputs that are statistics (no gradient: torch refuses running stats that require grad)
STATS = {"bn_eval_no_affine": 1, "in_eval_stats": 1}


def _grad_inputs(name, inputs):
    return list(range(STATS[name])) if name in STATS else None


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_backward(name, dtype):
    fn, inputs = CASES[name]
    # a mean of 1000 in float32 leaves ~1e-4 of the normalised values to rounding: torch's own
    # result is 5e-5 from the exactly rounded one
    atol = 2e-4 if name == "bn_train_large_mean" and dtype == np.float32 else None
    check(fn, *_cast(inputs, dtype), grad_inputs=_grad_inputs(name, inputs), atol=atol)


def _chain(fn):
    return chain(fn, 9)


# chains with avg_pool inside (torch's local_response_norm) are compared in
# test_local_response_norm_chain
@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith("lrn")))
def test_grad_fn_chain(name):
    fn, inputs = CASES[name]
    got = []
    n = STATS.get(name, len(inputs))
    for lib in (torch, ember):
        ts = [lib.tensor(a, requires_grad=i < n) for i, a in enumerate(inputs)]
        out = fn(lib, *ts)
        got.append(_chain((out[0] if isinstance(out, tuple) else out).grad_fn))
    assert got[0] == got[1]


def _n_diff(name, inputs):
    """How many leading inputs are differentiated (the rest are running statistics)."""
    if name in STATS:
        return STATS[name]
    if name.startswith(("bn_train_", "bn_eval_", "in_running")) and \
            name not in ("bn_train_no_stats", "bn_train_no_affine"):
        return 3 if name.startswith("bn") else 1
    return len(inputs)


# numerical checks (float64) on small inputs, one or two per op
SMALL = {
    "bn_train_3d": [randn(3, 2, 2), randn(2), randn(2), randn(2), pos(2)],
    "bn_eval_3d": [randn(3, 2, 2), randn(2), randn(2), randn(2), pos(2)],
    "bn_train_no_affine": [randn(3, 2, 2)],
    "bn_weight_only": [randn(4, 2), randn(2)],
    "ln_two": [randn(2, 3, 5), randn(3, 5), randn(3, 5)],
    "ln_no_bias": [randn(2, 2, 5), randn(5)],
    "gn": [randn(2, 6, 2), randn(6), randn(6)],
    "gn_one_group": [randn(2, 2, 2, 2)],
    "in": [randn(2, 2, 3), randn(2), randn(2)],
    "in_running_stats": [randn(2, 2, 3), randn(2), pos(2)],
    "rms": [randn(2, 2, 5), randn(5)],
    "rms_no_weight": [randn(2, 3, 5)],
    "lrn_3d": [randn(2, 4, 2)],
    "lrn_4d": [randn(1, 3, 2, 2)],
    "normalize": [randn(2, 3, 2)],
    "normalize_p1_dim0": [randn(3, 2)],
}


def _numeric_fn(name):
    fn, inputs = CASES[name]
    small = SMALL[name]
    n = _n_diff(name, small)
    consts = [ember.tensor(a) for a in small[n:]]

    def f(*ts):
        out = fn(ember, *ts, *consts)
        return out[0] if isinstance(out, tuple) else out
    return f, small[:n]


@pytest.mark.parametrize("name", sorted(SMALL))
def test_gradcheck(name):
    f, arrays = _numeric_fn(name)
    gradcheck(f, *arrays)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_gradgradcheck(name):
    f, arrays = _numeric_fn(name)
    gradgradcheck(f, *arrays)


@pytest.mark.parametrize("name", ["bn_train_3d", "bn_eval_3d", "ln_two", "gn", "in", "rms",
                                  "lrn_4d", "normalize"])
def test_double_backward_vs_torch(name):
    fn, inputs = CASES[name]

    def second(L, *ts):
        out = fn(L, *ts)
        out = out[0] if isinstance(out, tuple) else out
        w = L.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        diff = [t for t in ts if t.requires_grad]
        gs = L.autograd.grad((out * w).sum(), diff, create_graph=True)
        return sum((g * g).sum() for g in gs)

    check(second, *inputs, grad_inputs=list(range(_n_diff(name, inputs))))


def test_batch_norm_momentum_none_and_cumulative():
    """momentum as the module passes it for momentum=None: 1 / num_batches_tracked."""
    xs = [randn(4, 3, 2, dtype=np.float32) for _ in range(3)]
    stats = []
    for lib in (torch, ember):
        rm, rv = lib.zeros(3), lib.ones(3)
        for k, x in enumerate(xs):
            F(lib).batch_norm(lib.tensor(x), rm, rv, training=True, momentum=1.0 / (k + 1))
        stats.append((rm.numpy().copy(), rv.numpy().copy()))
    np.testing.assert_allclose(stats[1][0], stats[0][0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(stats[1][1], stats[0][1], rtol=1e-6)


def test_batch_norm_running_stats_float32_in_place():
    """The running statistics are written into the given tensors (same objects, version
    bumped), under no autograd."""
    x = randn(8, 3, 4, dtype=np.float32)
    for lib in (torch, ember):
        rm, rv = lib.zeros(3), lib.ones(3)
        rm0 = rm
        F(lib).batch_norm(lib.tensor(x, requires_grad=True), rm, rv, training=True)
        assert rm is rm0 and not rm.requires_grad and rm.grad_fn is None
    got = [None, None]
    for i, lib in enumerate((torch, ember)):
        rm, rv = lib.zeros(3), lib.ones(3)
        F(lib).batch_norm(lib.tensor(x), rm, rv, training=True)
        got[i] = np.concatenate([rm.numpy(), rv.numpy()])
    np.testing.assert_allclose(got[1], got[0], rtol=1e-6)


def test_saved_statistics():
    """NativeBatchNormBackward0 / NativeLayerNormBackward0 / NativeGroupNormBackward0 save the
    mean and 1/std (result1, result2) as torch does."""
    x, w = randn(4, 6, 5), randn(6)
    for make in (lambda L, x, w: F(L).batch_norm(x, None, None, w, training=True),
                 lambda L, x, w: F(L).layer_norm(x.transpose(1, 2), (6,), w),
                 lambda L, x, w: F(L).group_norm(x, 3, w)):
        saved = []
        for lib in (torch, ember):
            out = make(lib, lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True))
            saved.append([out.grad_fn._saved_result1.detach().numpy(),
                          out.grad_fn._saved_result2.detach().numpy()])
        for a, b in zip(*saved):
            np.testing.assert_allclose(b, a, rtol=1e-10)


def test_local_response_norm_chain():
    """torch pads and average-pools the squares (ConstantPadNd, AvgPool2D/3D); ember sums
    shifted slices of the padded squares. The ends of the chains agree."""
    for shape in [(2, 5, 4), (2, 4, 3, 3)]:
        got = []
        for lib in (torch, ember):
            x = lib.tensor(randn(*shape), requires_grad=True)
            fn = F(lib).local_response_norm(x, 3).grad_fn
            got.append([type(fn).__name__] + [type(n).__name__ for n, _ in fn.next_functions
                                              if n is not None])
        assert got[0][:2] == got[1][:2]


X3 = randn(4, 3, 5)
ERRORS = {
    "bn_eval_no_stats": lambda L: F(L).batch_norm(L.tensor(X3), None, None, training=False),
    "bn_one_value": lambda L: F(L).batch_norm(L.randn(1, 3), None, None, training=True),
    "bn_one_value_3d": lambda L: F(L).batch_norm(L.randn(1, 3, 1), None, None, training=True),
    "bn_running_size": lambda L: F(L).batch_norm(L.tensor(X3), L.zeros(4), L.ones(4),
                                                 training=True),
    "bn_weight_size": lambda L: F(L).batch_norm(L.tensor(X3), L.zeros(3, dtype=L.float64),
                                                L.ones(3, dtype=L.float64),
                                                L.ones(4, dtype=L.float64), training=True),
    "bn_1d": lambda L: F(L).batch_norm(L.randn(3), None, None, training=True),
    "bn_int": lambda L: F(L).batch_norm(L.tensor([[1, 2], [3, 4]]), None, None,
                                        training=True),
    "bn_running_dtype": lambda L: F(L).batch_norm(L.randn(4, 3), L.zeros(3, dtype=L.float64),
                                                  L.ones(3, dtype=L.float64), training=True),
    "bn_weight_dtype": lambda L: F(L).batch_norm(L.randn(4, 3), None, None,
                                                 L.ones(3, dtype=L.float64), training=True),
    "bn_all_float_double_input": lambda L: F(L).batch_norm(
        L.randn(4, 3, dtype=L.float64), L.zeros(3), L.ones(3), L.ones(3), training=True),
    "bn_running_requires_grad": lambda L: F(L).batch_norm(
        L.randn(4, 3), L.zeros(3, requires_grad=True), L.ones(3), training=True),
    "ln_shape": lambda L: F(L).layer_norm(L.tensor(X3), (6,)),
    "ln_weight_shape": lambda L: F(L).layer_norm(L.tensor(X3), (5,), L.ones(4,
                                                                            dtype=L.float64)),
    "ln_int": lambda L: F(L).layer_norm(L.tensor([[1, 2]]), (2,)),
    "ln_empty_shape": lambda L: F(L).layer_norm(L.tensor(X3), ()),
    "ln_int_shape": lambda L: F(L).layer_norm(L.tensor(X3), 5),
    "gn_divisible": lambda L: F(L).group_norm(L.tensor(X3), 2),
    "gn_weight": lambda L: F(L).group_norm(L.tensor(X3), 3, L.ones(4, dtype=L.float64)),
    "gn_1d": lambda L: F(L).group_norm(L.randn(3), 1),
    "gn_one_value": lambda L: F(L).group_norm(L.randn(1, 3), 3),
    "in_spatial": lambda L: F(L).instance_norm(L.randn(4, 3, 1)),
    "in_2d": lambda L: F(L).instance_norm(L.randn(4, 3)),
    "in_eval_no_stats": lambda L: F(L).instance_norm(L.tensor(X3), use_input_stats=False),
    "lrn_2d": lambda L: F(L).local_response_norm(L.randn(4, 3), 2),
    "rms_shape": lambda L: F(L).rms_norm(L.tensor(X3), (6,)),
    "rms_weight": lambda L: F(L).rms_norm(L.tensor(X3), (5,), L.ones(4, dtype=L.float64)),
    "normalize_int": lambda L: F(L).normalize(L.tensor([[1, 2]])),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    check_error(ERRORS[name])


def test_empty_inputs():
    check(lambda L, x: F(L).local_response_norm(x, 2), np.zeros((0, 3, 4)))
    check(lambda L, x: F(L).layer_norm(x, (4,)), np.zeros((0, 4)))
    check(lambda L, x: F(L).normalize(x), np.zeros((0, 4)))


# ---------------------------------------------------------------- modules

from nn_module_check import check_module, make_pair  # noqa: E402

NORM_MODULES = {
    "BatchNorm1d_2d": (lambda L: L.nn.BatchNorm1d(3), (6, 3)),
    "BatchNorm1d_3d": (lambda L: L.nn.BatchNorm1d(3, momentum=0.3), (4, 3, 5)),
    "BatchNorm1d_cumulative": (lambda L: L.nn.BatchNorm1d(3, momentum=None), (4, 3, 5)),
    "BatchNorm1d_no_affine": (lambda L: L.nn.BatchNorm1d(3, affine=False), (4, 3)),
    "BatchNorm1d_no_bias": (lambda L: L.nn.BatchNorm1d(3, bias=False), (4, 3)),
    "BatchNorm1d_untracked": (lambda L: L.nn.BatchNorm1d(3, track_running_stats=False),
                              (4, 3, 2)),
    "BatchNorm2d": (lambda L: L.nn.BatchNorm2d(3, eps=1e-3), (2, 3, 4, 3)),
    "BatchNorm3d": (lambda L: L.nn.BatchNorm3d(2), (2, 2, 3, 2, 2)),
    "LayerNorm": (lambda L: L.nn.LayerNorm(5), (4, 3, 5)),
    "LayerNorm_two": (lambda L: L.nn.LayerNorm([3, 5], eps=1e-3), (4, 3, 5)),
    "LayerNorm_no_affine": (lambda L: L.nn.LayerNorm(5, elementwise_affine=False), (4, 5)),
    "LayerNorm_no_bias": (lambda L: L.nn.LayerNorm(5, bias=False), (4, 5)),
    "GroupNorm": (lambda L: L.nn.GroupNorm(2, 4), (3, 4, 5)),
    "GroupNorm_no_affine": (lambda L: L.nn.GroupNorm(1, 4, affine=False), (3, 4, 2, 2)),
    "GroupNorm_no_bias": (lambda L: L.nn.GroupNorm(4, 4, bias=False), (3, 4, 6)),
    "InstanceNorm1d": (lambda L: L.nn.InstanceNorm1d(3), (4, 3, 5)),
    "InstanceNorm1d_unbatched": (lambda L: L.nn.InstanceNorm1d(3, affine=True), (3, 5)),
    "InstanceNorm2d_stats": (lambda L: L.nn.InstanceNorm2d(3, affine=True,
                                                           track_running_stats=True),
                             (2, 3, 4, 3)),
    "InstanceNorm3d": (lambda L: L.nn.InstanceNorm3d(2, momentum=None,
                                                     track_running_stats=True),
                       (2, 2, 2, 3, 2)),
    "LocalResponseNorm": (lambda L: L.nn.LocalResponseNorm(3), (2, 5, 4)),
    "LocalResponseNorm_args": (lambda L: L.nn.LocalResponseNorm(2, 1e-2, 0.5, 2.0),
                               (2, 4, 3, 3)),
    "RMSNorm": (lambda L: L.nn.RMSNorm(5), (4, 3, 5)),
    "RMSNorm_args": (lambda L: L.nn.RMSNorm([3, 5], eps=1e-4, elementwise_affine=False),
                     (4, 3, 5)),
}


def _perturbed(L, ctor):
    """ctor's module with its affine parameters moved off ones and zeros."""
    m = ctor(L)
    with L.no_grad():
        for p in m.parameters():
            p.mul_(1.5).add_(0.25)
    return m


@pytest.mark.parametrize("name", sorted(NORM_MODULES))
def test_module(name):
    """repr, state (weights, running statistics, num_batches_tracked) after several training
    steps and in eval mode, outputs, input and parameter gradients."""
    ctor, shape = NORM_MODULES[name]
    x = randn(*shape) * 2 + 0.5
    check_module(lambda L: _perturbed(L, ctor), [x.astype(np.float32)], steps=3,
                 modes=("train", "eval"))
    check_module(lambda L: _perturbed(L, ctor), [x], dtype="double", steps=2,
                 modes=("train", "eval"))


def test_batchnorm_defaults_and_state():
    for lib in (torch, ember):
        m = lib.nn.BatchNorm2d(3)
        sd = m.state_dict()
        assert list(sd) == ["weight", "bias", "running_mean", "running_var",
                            "num_batches_tracked"]
        assert sd["num_batches_tracked"].dtype == lib.int64 and sd["num_batches_tracked"].dim() == 0
        assert m.weight.tolist() == [1.0] * 3 and m.bias.tolist() == [0.0] * 3
        m(lib.randn(2, 3, 2, 2))
        m(lib.randn(2, 3, 2, 2))
        assert m.num_batches_tracked.item() == 2
        m.eval()
        m(lib.randn(2, 3, 2, 2))
        assert m.num_batches_tracked.item() == 2
        m.reset_running_stats()
        assert m.num_batches_tracked.item() == 0 and m.running_var.tolist() == [1.0] * 3


def test_batchnorm_eval_without_running_stats_uses_batch_stats():
    tm, em = make_pair(lambda L: L.nn.BatchNorm1d(3, track_running_stats=False))
    tm.eval()
    em.eval()
    x = randn(5, 3).astype(np.float32)
    np.testing.assert_allclose(em(ember.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


NORM_MODULE_ERRORS = {
    "bn1d_dims": lambda L: L.nn.BatchNorm1d(3)(L.randn(2, 3, 4, 5)),
    "bn2d_dims": lambda L: L.nn.BatchNorm2d(3)(L.randn(2, 3)),
    "bn3d_dims": lambda L: L.nn.BatchNorm3d(3)(L.randn(2, 3, 4, 5)),
    "bn_one_value": lambda L: L.nn.BatchNorm1d(3)(L.randn(1, 3)),
    "bn_channels": lambda L: L.nn.BatchNorm1d(3)(L.randn(4, 5)),
    "in_dims": lambda L: L.nn.InstanceNorm2d(3)(L.randn(2, 3)),
    "in_features_affine": lambda L: L.nn.InstanceNorm1d(3, affine=True)(L.randn(2, 4, 5)),
    "gn_divisible": lambda L: L.nn.GroupNorm(2, 3),
    "gn_channels": lambda L: L.nn.GroupNorm(2, 4)(L.randn(2, 6, 3)),
    "ln_shape": lambda L: L.nn.LayerNorm(3)(L.randn(2, 4)),
    "rms_shape": lambda L: L.nn.RMSNorm(3)(L.randn(2, 4)),
    "lrn_dims": lambda L: L.nn.LocalResponseNorm(2)(L.randn(2, 4)),
}


@pytest.mark.parametrize("name", sorted(NORM_MODULE_ERRORS))
def test_module_errors(name):
    check_error(NORM_MODULE_ERRORS[name])


def test_instance_norm_feature_warning():
    msgs = []
    for lib in (torch, ember):
        with pytest.warns(UserWarning) as rec:
            lib.nn.InstanceNorm1d(3)(lib.randn(2, 4, 5))
        msgs.append(str(rec[0].message))
    assert msgs[0] == msgs[1]
