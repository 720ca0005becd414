"""Random sampling, ember against torch side by side in one process, single-threaded.

    python benchmarks/bench_random.py [--repeats N] [--quick] [--only TEXT]

Each case runs alternately in ember and torch (same seed, so the results must be equal: a
fast wrong answer is reported as WRONG), N times each. Times are the process's CPU time
(time.process_time: both libraries run single-threaded in this one process, and on a shared
machine CPU time is far less disturbed by other jobs than wall time); the minimum of the
repeats is kept and the ratio ember / torch printed, with the wall-time ratio beside it.
Targets from issue 11: every ratio <= 1.5. --quick: small sizes, one repeat; --only: the
cases whose name contains TEXT; --floor: the parts that bound the two cases that miss the
target (randn, randperm) from below, each timed alone, beside torch's whole call."""
import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ember  # noqa: E402

torch.set_num_threads(1)


def cases(big):
    n, m = (10_000_000, 1_000_000) if big else (100_000, 10_000)
    return [
        (f"rand({n:_}) float32", lambda L: L.rand(n)),
        (f"randn({n:_}) float32", lambda L: L.randn(n)),
        (f"randperm({m:_})", lambda L: L.randperm(m)),
        (f"bernoulli_(0.5) mask of {n:_}", lambda L: L.empty(n).bernoulli_(0.5)),
    ]


def run(fn, lib, seed):
    lib.manual_seed(seed)
    w, c = time.perf_counter(), time.process_time()
    out = fn(lib)
    return time.process_time() - c, time.perf_counter() - w, out


def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        c = time.process_time()
        fn()
        best = min(best, time.process_time() - c)
    return best * 1e3


def floor(repeats):
    """What an exact NumPy randn(10M) float32 and randperm(1M) cannot avoid, timed alone."""
    from ember import random as R
    g = R.default_generator
    n, m = 10_000_000, 1_000_000
    print(f"min of {repeats}, CPU ms")
    tr = _best(lambda: torch.randn(n), repeats)
    rows = R._NORMAL_ROWS
    blocks = n / (16 * rows)
    s = R._Scratch(8 * rows)
    w = g._raw32(16 * rows).reshape(-1, 16)
    out = np.empty((rows, 16), np.float32)
    y, (m64, acc), a, b = s.f[0], s.d, s.f[1], s.f[2]

    def fused():                        # the kernel's fused multiply-add step, 8 times
        for coef in R._LOG_P[1:]:
            np.multiply(y, m64, out=acc)
            np.add(acc, coef, out=y, casting="unsafe")
    draws = _best(lambda: g._raw32(n), repeats)
    kernel = blocks * _best(lambda: R._bm16_f32(w, 0.0, 1.0, out, s), repeats)
    step = blocks * _best(fused, repeats) / 8
    f32 = blocks * _best(lambda: np.add(a, b, out=a), repeats)
    print(f"randn({n:_}) float32: torch {tr:.1f}; target (1.5x) {1.5 * tr:.1f}")
    print(f"  ember: 10M words from the Mersenne Twister {draws:.1f}, Box-Muller kernel "
          f"{kernel:.1f} (17 fused multiply-adds on 5M values at {step:.2f} each = "
          f"{17 * step:.1f}; one float32 pass on 5M values {f32:.2f})")
    print(f"  floor with every fused step free: {draws + kernel - 17 * step:.1f}")
    tp = _best(lambda: torch.randperm(m), repeats)
    x = g._raw32(m - 1)
    d = np.arange(m, 1, -1, dtype=np.uint32)
    key = np.random.default_rng(0).integers(0, 1 << 40, m - 1)
    perm = np.random.default_rng(0).permutation(m - 1)
    vals = np.arange(m - 1)
    print(f"randperm({m:_}): torch {tp:.1f}; target (1.5x) {1.5 * tp:.1f}")
    print(f"  ember: {m:_} words {_best(lambda: g._raw32(m - 1), repeats):.1f}, modulo "
          f"{_best(lambda: x % d, repeats):.1f}, one random gather "
          f"{_best(lambda: vals[perm], repeats):.1f}, sort of packed (target, step) keys "
          f"{_best(lambda: np.sort(key), repeats):.1f}")


def main():
    if "--floor" in sys.argv:
        return floor(5)
    quick = "--quick" in sys.argv
    repeats = 1 if quick else 5
    if "--repeats" in sys.argv:
        repeats = int(sys.argv[sys.argv.index("--repeats") + 1])
    print(f"numpy {np.__version__}, torch {torch.__version__}, single-threaded, "
          f"min of {repeats}")
    print(f"| {'case':34} | {'ember CPU ms':>12} | {'torch CPU ms':>12} | ratio | wall ratio "
          f"| target |")
    print(f"|{'-' * 36}|{'-' * 14}|{'-' * 14}|-------|------------|--------|")
    worst = 0.0
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    for name, fn in cases(not quick):
        if only not in name:
            continue
        cpu = {ember: float("inf"), torch: float("inf")}
        wall = dict(cpu)
        same = True
        for r in range(repeats):
            for lib in (ember, torch):
                c, w, out = run(fn, lib, r)
                cpu[lib], wall[lib] = min(cpu[lib], c), min(wall[lib], w)
                if lib is ember:
                    e = np.asarray(out._data)
                else:
                    same = same and np.array_equal(e, out.numpy())
                del out
        ratio = cpu[ember] / cpu[torch]
        worst = max(worst, ratio)
        verdict = "ok" if ratio <= 1.5 else "SLOW"
        print(f"| {name:34} | {cpu[ember] * 1e3:12.1f} | {cpu[torch] * 1e3:12.1f} | "
              f"{ratio:5.2f} | {wall[ember] / wall[torch]:10.2f} | "
              f"{verdict if same else 'WRONG':6} |")
    print(f"worst ratio {worst:.2f}")


if __name__ == "__main__":
    main()
