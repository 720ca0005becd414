"""Random sampling, ember against torch side by side in one process, single-threaded.

    python benchmarks/bench_random.py [--repeats N] [--quick] [--only TEXT]

Each case runs alternately in ember and torch (same seed, so the results must be equal: a
fast wrong answer is reported as WRONG), N times each. Times are the process's CPU time
(time.process_time: both libraries run single-threaded in this one process, and on a shared
machine CPU time is far less disturbed by other jobs than wall time); the minimum of the
repeats is kept and the ratio ember / torch printed, with the wall-time ratio beside it.
Targets from issue 11: every ratio <= 1.5. --quick: small sizes, one repeat; --only: the
cases whose name contains TEXT."""
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


def main():
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
