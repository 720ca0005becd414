"""Normalization, activations, dropout, losses and distances: ember and torch side by side in
one process, single-threaded, forward + backward per step; prints each workload's time per
step in both and the ratio ember / torch (lower is better), plus W3's training step (it uses
cross_entropy) as a regression check.

    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        .venv/bin/python benchmarks/bench_normloss.py [--quick]

Times are process CPU time, the minimum over repeats of a batch of steps."""
import os
import sys
import time

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import ember  # noqa: E402
import workloads  # noqa: E402

torch.set_num_threads(1)
R = np.random.default_rng(0)


def _a(*shape):
    return R.standard_normal(shape).astype(np.float32)


def fwd_bwd(fn, *arrays, grad=(0,)):
    """A workload: fn(lib, *tensors) forward, then backward of its sum (or of itself)."""
    def make(lib):
        ts = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
        for i in grad:
            ts[i].requires_grad_()

        def step():
            for i in grad:
                ts[i].grad = None
            out = fn(lib, *ts)
            (out if out.dim() == 0 else out.sum()).backward()
        return step
    return make


def F(lib):
    return lib.nn.functional


def _bn(lib, x, w, b):
    return F(lib).batch_norm(x, None, None, w, b, training=True)


X1M = _a(1000, 1000)
LOGITS = _a(128, 10)
LABELS = R.integers(0, 10, 128)
CT = np.log(R.dirichlet(np.ones(20), (50, 16))).astype(np.float32)
CTT = R.integers(1, 20, (16, 10))

WORKLOADS = {
    "cross_entropy 128x10": fwd_bwd(lambda L, x, t: F(L).cross_entropy(x, t), LOGITS, LABELS),
    "cross_entropy smoothing": fwd_bwd(lambda L, x, t: F(L).cross_entropy(
        x, t, label_smoothing=0.1), LOGITS, LABELS),
    "batch_norm 32x16x16x16": fwd_bwd(_bn, _a(32, 16, 16, 16), _a(16), _a(16), grad=(0, 1, 2)),
    "layer_norm 32x64x256": fwd_bwd(lambda L, x, w, b: F(L).layer_norm(x, (256,), w, b),
                                    _a(32, 64, 256), _a(256), _a(256), grad=(0, 1, 2)),
    "group_norm 32x32x16x16/8": fwd_bwd(lambda L, x, w, b: F(L).group_norm(x, 8, w, b),
                                        _a(32, 32, 16, 16), _a(32), _a(32), grad=(0, 1, 2)),
    "gelu 1M": fwd_bwd(lambda L, x: F(L).gelu(x), X1M),
    "gelu tanh 1M": fwd_bwd(lambda L, x: F(L).gelu(x, approximate="tanh"), X1M),
    "silu 1M": fwd_bwd(lambda L, x: F(L).silu(x), X1M),
    "elu 1M": fwd_bwd(lambda L, x: F(L).elu(x), X1M),
    "leaky_relu 1M": fwd_bwd(lambda L, x: F(L).leaky_relu(x, 0.1), X1M),
    "softplus 1M": fwd_bwd(lambda L, x: F(L).softplus(x), X1M),
    "hardswish 1M": fwd_bwd(lambda L, x: F(L).hardswish(x), X1M),
    "dropout 1M (train)": fwd_bwd(lambda L, x: F(L).dropout(x, 0.3), X1M),
    "mse_loss 1M": fwd_bwd(lambda L, x, y: F(L).mse_loss(x, y), X1M, _a(1000, 1000)),
    "smooth_l1_loss 1M": fwd_bwd(lambda L, x, y: F(L).smooth_l1_loss(x, y), X1M,
                                 _a(1000, 1000)),
    "bce_with_logits 1M": fwd_bwd(lambda L, x, y: F(L).binary_cross_entropy_with_logits(x, y),
                                  X1M, np.abs(_a(1000, 1000)) % 1),
    "ctc_loss T50 N16 C20 S10": fwd_bwd(lambda L, x, t: F(L).ctc_loss(
        x, t, [50] * 16, [10] * 16), CT, CTT),
    "cdist 256x64 / 300x64": fwd_bwd(lambda L, a, b: L.cdist(a, b), _a(256, 64), _a(300, 64),
                                     grad=(0, 1)),
    "cosine_similarity 512x256": fwd_bwd(lambda L, a, b: F(L).cosine_similarity(a, b),
                                         _a(512, 256), _a(512, 256), grad=(0, 1)),
}


def best_time(step, n, repeats):
    step()
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        for _ in range(n):
            step()
        best = min(best, (time.process_time() - t) / n)
    return best


def main():
    quick = "--quick" in sys.argv
    repeats = 2 if quick else 5
    print(f"{'workload':30s} {'ember':>11s} {'torch':>11s} {'ratio':>7s}")
    rows = list(WORKLOADS.items()) + [("W3 MLP step (cross_entropy)", None)]
    for name, make in rows:
        times = []
        for lib in (ember, torch):
            if make is None:
                step, _ = workloads.w3(lib)
            else:
                step = make(lib)
            t0 = time.process_time()
            step()
            once = time.process_time() - t0
            n = max(1, min(200, int(0.2 / max(once, 1e-6))))
            times.append(best_time(step, 1 if quick else n, repeats))
        e, t = times
        print(f"{name:30s} {e * 1e3:9.3f}ms {t * 1e3:9.3f}ms {e / t:7.2f}")


if __name__ == "__main__":
    main()
