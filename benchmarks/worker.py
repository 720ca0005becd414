"""One benchmark measurement in a fresh process: `worker.py IMPL WORKLOAD [--quick] [--single]
[--grads FILE]`. IMPL is ember, torch or numpy. Prints one JSON line: the median time per call,
the number of calls timed and the process's peak RSS. Thread counts come from the environment
(run.py sets OMP/OPENBLAS/MKL_NUM_THREADS=1 for single-threaded runs); --single also calls
torch.set_num_threads(1)."""
import json
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# the folder holding the ember package under test: this checkout unless run.py --src says
sys.path.insert(1, os.environ.get("EMBER_BENCH_SRC") or os.path.dirname(HERE))

# (calls per sample, samples, warm-up calls) for full runs; --quick runs one call
PLAN = {"W1": (200, 15, 50), "W2": (10, 15, 5), "W3": (1, 30, 5), "W4": (1, 5, 1),
        "W4M": (1, 1, 0), "W5": (1, 15, 2), "W6": (1, 11, 2)}
QUICK_LEN = {"W4": 1000, "W4M": 10_000}     # iterations (two ops each)


def peak_rss_mb():
    """This process's peak resident set (VmHWM: unlike ru_maxrss, it does not carry over the
    parent's peak across fork + exec)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def import_lib(impl, single):
    if impl == "ember":
        import ember
        return ember
    if impl == "torch":
        import torch
        if single:
            torch.set_num_threads(1)
        return torch
    return None


def measure_import(impl, clock):
    t0 = clock()
    __import__(impl)
    return clock() - t0


def main():
    args = sys.argv[1:]
    impl, name = args[0], args[1]
    quick, single = "--quick" in args, "--single" in args
    grads_file = args[args.index("--grads") + 1] if "--grads" in args else None
    # single-threaded: CPU time of this process (robust to other load on a shared machine);
    # library defaults: wall-clock time (several threads may work at once)
    clock = time.process_time if single else time.perf_counter
    if name == "W8":
        secs = measure_import(impl, clock)
        print(json.dumps({"time": secs, "calls": 1, "rss_mb": peak_rss_mb()}))
        return
    lib = import_lib(impl, single)
    import workloads as W
    key = "w4" if name == "W4M" else name.lower()
    kwargs = {}
    if name in ("W4", "W4M"):
        kwargs["length"] = QUICK_LEN[name] if quick else (500_000 if name == "W4M"
                                                          else W.W4_LEN)
    if impl == "numpy":
        step, grads = getattr(W, key + "_numpy")(**kwargs)
    else:
        step, grads = getattr(W, key)(lib, **kwargs)
    per, samples, warm = (1, 1, 0) if quick else PLAN[name]
    step()                                   # first call: also the gradient sample
    g = grads()
    if grads_file:
        import numpy as np
        np.savez(grads_file, **g)
    for _ in range(warm):
        step()
    times = []
    for _ in range(samples):
        t0 = clock()
        for _ in range(per):
            step()
        times.append((clock() - t0) / per)
    times.sort()
    med = times[len(times) // 2] if len(times) % 2 else \
        (times[len(times) // 2 - 1] + times[len(times) // 2]) / 2
    print(json.dumps({"time": med, "calls": per * samples, "rss_mb": peak_rss_mb(),
                      "length": kwargs.get("length")}))


if __name__ == "__main__":
    main()
