"""Quick A/B timing of the overhead-bound workloads (W1, W2) while optimising: the same
step functions as run.py, timed in process CPU time, minimum of repeats (min, not median:
for comparing two versions of the code on a shared machine, the least disturbed repeat is
the best estimate of each). Not the judged benchmark: that is run.py.

    OMP_NUM_THREADS=1 python benchmarks/minibench.py [ember|torch] [--procs N]

--procs N runs N fresh processes and keeps the minimum of each (default 3)."""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(libname):
    sys.path.insert(0, HERE)
    import workloads
    lib = __import__(libname)
    out = {}
    for name, fn, n, per in (("W1", workloads.w1, 3000, 1), ("W2", workloads.w2, 60,
                                                               workloads.W2_OPS)):
        step, _ = fn(lib)
        step()
        best = float("inf")
        for _ in range(7):
            t = time.process_time()
            for _ in range(n):
                step()
            best = min(best, (time.process_time() - t) / n / per)
        out[name] = best * 1e6
    return out


def main():
    args = sys.argv[1:]
    if "--child" in args:
        r = measure(args[0])
        print(r["W1"], r["W2"])
        return
    lib = args[0] if args and not args[0].startswith("-") else "ember"
    procs = int(args[args.index("--procs") + 1]) if "--procs" in args else 3
    w1 = w2 = float("inf")
    for _ in range(procs):
        p = subprocess.run([sys.executable, __file__, lib, "--child"], capture_output=True,
                           text=True, check=True)
        a, b = map(float, p.stdout.split())
        w1, w2 = min(w1, a), min(w2, b)
    print(f"{lib}: W1 {w1:.1f} us/iter   W2 {w2:.2f} us/op   (min of {procs} processes)")


if __name__ == "__main__":
    main()
