"""Module call overhead: a Linear called through Module.__call__ against F.linear on the same
tensors, ember and torch side by side in one run, single-threaded.

    python benchmarks/bench_nn_module.py [--number 20000] [--repeats 7]

For each library and case the best (minimum) per-call process CPU time over the repeats is
printed, with
the module's overhead over the functional call (target for ember: <= 1.5 us) and the ratio
ember/torch of each time. Cases: grad mode on (the parameters require grad, so each call
records a node), under no_grad, and a Sequential of three Linears against three F.linear
calls."""
import argparse
import os
import sys
import time
import timeit

for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = "1"

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402

torch.set_num_threads(1)


def cases(lib):
    """name -> (module call, functional call), on a 4x8 input."""
    F = lib.nn.functional
    x = lib.tensor(np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32))
    lin = lib.nn.Linear(8, 8)
    w, b = lin.weight, lin.bias
    seq = lib.nn.Sequential(lib.nn.Linear(8, 8), lib.nn.Linear(8, 8), lib.nn.Linear(8, 8))
    ws = [(m.weight, m.bias) for m in seq]

    def seq_f():
        h = x
        for wi, bi in ws:
            h = F.linear(h, wi, bi)
        return h

    def nograd(fn):
        def run():
            with lib.no_grad():
                return fn()
        return run
    return {
        "Linear, grad mode": (lambda: lin(x), lambda: F.linear(x, w, b)),
        "Linear, no_grad": (nograd(lambda: lin(x)), nograd(lambda: F.linear(x, w, b))),
        "Sequential(3 Linear)": (lambda: seq(x), seq_f),
    }


def best(fn, number, repeats):
    """Minimum per-call process CPU time in us (CPU time: other processes on a shared
    machine do not count; minimum: the least disturbed repeat)."""
    fn()
    timer = timeit.Timer(fn, timer=time.process_time)
    return min(timer.repeat(number=number, repeat=repeats)) / number * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--number", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    libs = {"ember": cases(ember), "torch": cases(torch)}
    print(f"{'case':24} {'lib':6} {'module us':>10} {'F us':>9} {'overhead us':>12}")
    res = {}
    for name in libs["ember"]:
        for lib in ("ember", "torch"):
            mod, fun = libs[lib][name]
            # alternate the two calls so that drift on a shared machine hits both
            tm = tf = float("inf")
            for _ in range(args.repeats):
                tm = min(tm, best(mod, args.number, 1))
                tf = min(tf, best(fun, args.number, 1))
            res[name, lib] = (tm, tf)
            print(f"{name:24} {lib:6} {tm:10.2f} {tf:9.2f} {tm - tf:12.2f}")
    print()
    print(f"{'case':24} {'module e/t':>11} {'F e/t':>7}")
    for name in libs["ember"]:
        (em, ef), (tm, tf) = res[name, "ember"], res[name, "torch"]
        print(f"{name:24} {em / tm:11.2f} {ef / tf:7.2f}")
    over = res["Linear, grad mode", "ember"][0] - res["Linear, grad mode", "ember"][1]
    print(f"\nember Module.__call__ overhead over F.linear (grad mode): {over:.2f} us "
          f"(target <= 1.5 us)")


if __name__ == "__main__":
    main()
