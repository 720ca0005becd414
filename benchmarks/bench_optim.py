"""Optimizer benchmarks, ember and torch side by side in one run, single-threaded.

    python benchmarks/bench_optim.py [--quick] [W11] [W12]

W11: one training step of the W3 MLP (784-512-512-10, batch 128, float32) written the ordinary
way: nn.Sequential of Linear and ReLU, nn.CrossEntropyLoss, optim.SGD(momentum=0.9),
zero_grad / forward / backward / step; the target is ember <= 1.05x torch.
W12: one Adam step over 200 parameters of 10,000 float32 elements each (gradients set, no
backward): ember against torch's default (single-tensor) implementation and against its
multi-tensor path (foreach=True); the target is ember <= 1.0x the faster of the two.

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
from workloads import W3_BATCH, W3_LR, W3_SIZES, _w3_data   # noqa: E402  (this folder)


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


def sgd_mlp_case(lib):
    """The W3 MLP as nn.Sequential with W3's seeded weights; returns (step, parameters)."""
    nn = lib.nn
    sizes = W3_SIZES
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    arrays, xa, ya = _w3_data()
    with lib.no_grad():
        for p, a in zip(model.parameters(), arrays):
            p.copy_(lib.from_numpy(a))
    x, y = lib.from_numpy(xa), lib.from_numpy(ya)
    loss_fn = nn.CrossEntropyLoss()
    opt = lib.optim.SGD(model.parameters(), lr=W3_LR, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()

    return step, list(model.parameters())


def w11(quick):
    repeats, inner = (3, 2) if quick else (15, 10)
    # correctness on fresh models over 5 steps: many more steps on one batch drive the loss to
    # ~0, where float32 rounding differences grow (ReLUs flip), so the timed run is not compared
    e_step, e_ps = sgd_mlp_case(ember)
    t_step, t_ps = sgd_mlp_case(torch)
    for _ in range(5):
        e_step()
        t_step()
    diff = max_rel_diff(e_ps, t_ps)
    assert diff < 1e-5, f"ember's training step disagrees with torch's ({diff:.1e})"
    e_step, e_ps = sgd_mlp_case(ember)
    t_step, t_ps = sgd_mlp_case(torch)
    med = measure({"ember": e_step, "torch": t_step}, repeats, inner)
    calls = 2 + repeats * inner
    ratio = med["ember"] / med["torch"]
    print(f"W11  MLP {'-'.join(map(str, W3_SIZES))} batch {W3_BATCH} float32: Sequential, "
          f"CrossEntropyLoss, SGD(momentum=0.9) ({calls} steps each)")
    print(f"     ember {med['ember'] * 1e3:8.2f} ms   torch {med['torch'] * 1e3:8.2f} ms   "
          f"ratio ember/torch {ratio:.3f}   target <= 1.05: {'PASS' if ratio <= 1.05 else 'FAIL'}")
    print(f"     parameters after 5 steps from the same weights agree to {diff:.1e} "
          f"(relative to each array's scale)")
    return ratio


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
    chosen = [a.upper() for a in sys.argv[1:] if not a.startswith("--")] or ["W11", "W12"]
    print(f"single-threaded; numpy {np.__version__}, torch {torch.__version__}")
    for name, f in (("W11", w11), ("W12", w12)):
        if name in chosen:
            f(quick)
