"""ember.save / ember.load against torch.save / torch.load, side by side in one run.

    python benchmarks/bench_serialization.py [--mb 100] [--tensors 50] [--repeats 5] [--dir D]

A state dict of `--tensors` float32 tensors totalling `--mb` MB is saved to a file and loaded
back (weights_only=True) by each library, alternating, single-threaded; the median time of
each is printed with the ratio ember/torch (target: <= 1.5). Peak memory is measured for each
library in a fresh child process that imports only that library: after the state dict is built
(save) or before loading (load), the process's peak RSS is reset (Linux: "5" written to
/proc/self/clear_refs); the peak RSS (VmHWM) during the call minus the RSS before it is
printed, in MB and as a multiple of the data size (target: <= 2.0; for load it includes the
loaded tensors themselves, 1.0x). Every file is checked: ember reads torch's, torch reads
ember's."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = "1"

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402


def state_dict(lib, mb, n):
    rng = np.random.default_rng(0)
    per = mb * 1_000_000 // 4 // n
    return {f"layer{i}.weight": lib.from_numpy(rng.standard_normal(per, dtype=np.float32))
            for i in range(n)}


def status_mb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1e3
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(which, op, path, mb, n):
    """One save or load in this fresh process; prints its peak RSS growth in MB."""
    if which == "ember":
        import ember as lib
    else:
        import torch as lib
        lib.set_num_threads(1)
    sd = state_dict(lib, mb, n) if op == "save" else None
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")                                    # VmHWM := current RSS
    base = status_mb("VmRSS")
    if op == "save":
        lib.save(sd, path)
    else:
        sd = lib.load(path, weights_only=True)
    print(status_mb("VmHWM") - base)


def peak_extra(which, op, path, mb, n):
    out = subprocess.run([sys.executable, __file__, "--child", which, op, path, str(mb), str(n)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--tensors", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dir", default=None, help="folder for the files (default: a temp dir)")
    a = ap.parse_args()
    import torch
    import ember
    torch.set_num_threads(1)
    libs = {"torch": torch, "ember": ember}
    sds = {k: state_dict(lib, a.mb, a.tensors) for k, lib in libs.items()}
    times = {(k, op): [] for k in libs for op in ("save", "load")}
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        paths = {k: os.path.join(d, f"{k}.pt") for k in libs}
        for r in range(a.repeats + 1):                     # the first round warms up
            for k in (("torch", "ember") if r % 2 else ("ember", "torch")):
                lib = libs[k]
                t0 = time.perf_counter()
                lib.save(sds[k], paths[k])
                t1 = time.perf_counter()
                out = lib.load(paths[k], weights_only=True)
                t2 = time.perf_counter()
                del out
                if r:
                    times[(k, "save")].append(t1 - t0)
                    times[(k, "load")].append(t2 - t1)
        # each library reads the other's file, values equal
        e_from_t = ember.load(paths["torch"])
        t_from_e = torch.load(paths["ember"], weights_only=True)
        for k, v in sds["torch"].items():
            assert np.array_equal(e_from_t[k]._data, v.numpy())
            assert np.array_equal(t_from_e[k].numpy(), sds["ember"][k]._data)
        mem = {(k, op): peak_extra(k, op, paths[k], a.mb, a.tensors)
               for k in libs for op in ("save", "load")}
    print(f"state dict: {a.tensors} float32 tensors, {a.mb} MB; single-threaded; "
          f"median of {a.repeats}; file in {a.dir or tempfile.gettempdir()}")
    print(f"{'':6} {'torch s':>9} {'ember s':>9} {'ratio':>7}   {'peak extra MB torch':>20} "
          f"{'ember':>7} {'ember/data':>11}")
    for op in ("save", "load"):
        tt = statistics.median(times[("torch", op)])
        te = statistics.median(times[("ember", op)])
        print(f"{op:6} {tt:9.4f} {te:9.4f} {te / tt:7.2f}   {mem[('torch', op)]:20.1f} "
              f"{mem[('ember', op)]:7.1f} {mem[('ember', op)] / a.mb:11.2f}")


if __name__ == "__main__":
    main()
