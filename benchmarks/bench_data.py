"""W13: one epoch of DataLoader(TensorDataset(60,000 x 784 float32, int64 labels),
batch_size=128, shuffle=True), ember and torch side by side in one process, single-threaded.
Target: ember <= 0.5x torch.

    python benchmarks/bench_data.py [--repeats N]

Each library runs N epochs, alternating (torch, ember, torch, ...); an epoch's time is its
minimum over the repeats, in wall-clock time and in process CPU time (the CPU time is the
steadier on a shared machine). Before timing, the first epoch's batches are checked to have
the same count, shapes and dtypes in both."""
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ember  # noqa: E402

N, D, BATCH = 60_000, 784, 128


def make_loader(lib, x, y):
    ds = lib.utils.data.TensorDataset(lib.from_numpy(x), lib.from_numpy(y))
    return lib.utils.data.DataLoader(ds, batch_size=BATCH, shuffle=True,
                                     generator=lib.Generator().manual_seed(0))


def epoch(loader):
    n = 0
    for xb, yb in loader:
        n += 1
    return n


def describe(loader):
    return [(tuple(xb.shape), str(xb.dtype), tuple(yb.shape), str(yb.dtype))
            for xb, yb in loader]


def main():
    repeats = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else 5
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, D), dtype=np.float32)
    y = rng.integers(0, 10, N).astype(np.int64)
    loaders = {"torch": make_loader(torch, x, y), "ember": make_loader(ember, x, y)}
    assert describe(loaders["torch"]) == describe(loaders["ember"]), "batches differ"
    wall = {k: float("inf") for k in loaders}
    cpu = dict(wall)
    for _ in range(repeats):
        for name, loader in loaders.items():
            t, c = time.perf_counter(), time.process_time()
            batches = epoch(loader)
            wall[name] = min(wall[name], time.perf_counter() - t)
            cpu[name] = min(cpu[name], time.process_time() - c)
            assert batches == (N + BATCH - 1) // BATCH
    print(f"W13 DataLoader epoch, {N}x{D} float32 + int64 labels, batch {BATCH}, shuffle "
          f"(single-threaded, min of {repeats})")
    print(f"  torch  wall {wall['torch'] * 1e3:8.1f} ms   cpu {cpu['torch'] * 1e3:8.1f} ms")
    print(f"  ember  wall {wall['ember'] * 1e3:8.1f} ms   cpu {cpu['ember'] * 1e3:8.1f} ms")
    ratio_wall = wall["ember"] / wall["torch"]
    ratio_cpu = cpu["ember"] / cpu["torch"]
    verdict = "pass" if ratio_cpu <= 0.5 else "FAIL"
    print(f"  ember/torch: wall {ratio_wall:.3f}x   cpu {ratio_cpu:.3f}x   "
          f"(target <= 0.5x: {verdict})")


if __name__ == "__main__":
    main()
