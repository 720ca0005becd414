"""Optimizer benchmarks, ember and torch side by side in one run, single-threaded.

    python benchmarks/bench_optim.py [--quick]

W12: one Adam step over 200 parameters of 10,000 float32 elements each (gradients set, no
backward): ember against torch's default (single-tensor) implementation and against its
multi-tensor path (foreach=True); the target is ember <= 1.0x the faster of the two.
(W11, the W3 MLP step written with nn.Sequential, nn.CrossEntropyLoss and optim.SGD, joins
this file once ember.nn has those modules.)

Times are process CPU time (the runs are single-threaded, and CPU time is less disturbed by
other load on a shared machine than wall time), median of repeats, the implementations
measured in alternation. Each workload also checks that ember's and torch's parameters
agree after the timed steps: a fast wrong answer fails."""
import os
import sys

if __name__ == "__main__":     # before NumPy and torch load their thread pools
    for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_v] = "1"

import statistics   # noqa: E402
import time         # noqa: E402

import numpy as np  # noqa: E402
import torch        # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ember        # noqa: E402


def adam_case(lib, n, size, **kw):
    """n parameters of `size` elements with fixed gradients; returns (step, parameters)."""
    rng = np.random.default_rng(0)
    ps = []
    for _ in range(n):
        p = lib.tensor(rng.standard_normal(size).astype(np.float32), requires_grad=True)
        p.grad = lib.tensor(rng.standard_normal(size).astype(np.float32))
        ps.append(p)
    opt = lib.optim.Adam(ps, lr=1e-3, **kw)
    return opt.step, ps


def measure(steps, repeats, inner):
    """Median CPU seconds per call of each step function, measured in alternation."""
    for f in steps.values():
        for _ in range(2):
            f()
    times = {k: [] for k in steps}
    for _ in range(repeats):
        for k, f in steps.items():
            t = time.process_time()
            for _ in range(inner):
                f()
            times[k].append((time.process_time() - t) / inner)
    return {k: statistics.median(v) for k, v in times.items()}


def max_rel_diff(ember_ps, torch_ps):
    worst = 0.0
    for e, t in zip(ember_ps, torch_ps):
        a, b = e.detach().numpy(), t.detach().numpy()
        worst = max(worst, float(np.max(np.abs(a - b)) / (np.max(np.abs(b)) + 1e-30)))
    return worst


def w12(quick):
    n, size = (20, 1000) if quick else (200, 10_000)
    repeats = 3 if quick else 15
    e_step, e_ps = adam_case(ember, n, size)
    t_step, t_ps = adam_case(torch, n, size)
    f_step, f_ps = adam_case(torch, n, size, foreach=True)
    med = measure({"ember": e_step, "torch": t_step, "torch foreach": f_step}, repeats, 2)
    calls = 2 + repeats * 2
    diff = max(max_rel_diff(e_ps, t_ps), max_rel_diff(e_ps, f_ps))
    best = min(med["torch"], med["torch foreach"])
    print(f"W12  Adam step, {n} x {size:,} float32 ({calls} steps each)")
    print(f"     ember {med['ember'] * 1e3:8.2f} ms   torch {med['torch'] * 1e3:8.2f} ms   "
          f"torch foreach {med['torch foreach'] * 1e3:8.2f} ms")
    print(f"     ratio ember/torch {med['ember'] / med['torch']:.3f}   ember/torch foreach "
          f"{med['ember'] / med['torch foreach']:.3f}   target <= 1.0 of the faster: "
          f"{'PASS' if med['ember'] <= best else 'FAIL'}")
    print(f"     parameters after the run agree to {diff:.1e} (relative to each array's scale)")
    assert diff < 1e-5, "ember's Adam disagrees with torch's"
    return med["ember"] / best


if __name__ == "__main__":
    torch.set_num_threads(1)
    quick = "--quick" in sys.argv[1:]
    print(f"single-threaded; numpy {np.__version__}, torch {torch.__version__}")
    w12(quick)
