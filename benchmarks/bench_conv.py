"""W9: one LeNet-5 training step (conv 6@5x5 -> relu -> max_pool 2 -> conv 16@5x5 -> relu ->
max_pool 2 -> flatten -> linear 120 -> relu -> linear 84 -> relu -> linear 10; batch 64 of
1x28x28 float32; cross-entropy; backward), ember against torch, single-threaded, with a
hand-written NumPy floor.

    python benchmarks/bench_conv.py [--rounds N] [--steps N] [--no-torch] [--only KINDS]

(--only functional,numpy: leave out the other kinds; kinds: functional, modules, numpy)

Every implementation runs in a fresh process of its own (so that the ember processes never
load torch, and each one's peak memory is its own): `functional` (the F API), `modules` (the
60-minute blitz's Net: nn.Conv2d and nn.Linear layers, F.relu and F.max_pool2d in forward)
and `numpy` (the same math written out in NumPy, forward and backward). The processes of one
round run one after the other; the rounds repeat that (default 3), and each implementation
keeps its best median step time over the rounds (the machine may be shared: the least
disturbed round is the best estimate), both in process CPU time (time.process_time: what the
step itself costs, the better measure on a loaded machine) and wall time. Single-threaded: OMP_NUM_THREADS, OPENBLAS_NUM_THREADS
and MKL_NUM_THREADS are 1 in every process and torch.set_num_threads(1).

Peak memory is each process's peak resident set size (getrusage ru_maxrss, Linux: KiB), read
at its end: interpreter, imported libraries, data and the step's arrays. The gradients of
every implementation are compared with torch's functional ones (or ember's, with --no-torch):
a fast wrong answer fails."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
BATCH = 64
TARGET_TIME = 1.5      # ember / torch
TARGET_MEMORY = 0.5    # ember process peak RSS / torch process peak RSS


def data():
    """Input, labels and LeNet-5 weights (float32), the same in every process."""
    rng = np.random.default_rng(0)

    def u(*shape, fan_in):
        b = 1.0 / np.sqrt(fan_in)
        return rng.uniform(-b, b, shape).astype(np.float32)
    params = {"conv1.weight": u(6, 1, 5, 5, fan_in=25), "conv1.bias": u(6, fan_in=25),
              "conv2.weight": u(16, 6, 5, 5, fan_in=150), "conv2.bias": u(16, fan_in=150),
              "fc1.weight": u(120, 256, fan_in=256), "fc1.bias": u(120, fan_in=256),
              "fc2.weight": u(84, 120, fan_in=120), "fc2.bias": u(84, fan_in=120),
              "fc3.weight": u(10, 84, fan_in=84), "fc3.bias": u(10, fan_in=84)}
    x = rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, BATCH)
    return x, y, params


# ------------------------------------------------------------------ the steps

def lib_functional(lib):
    """The step with the functional API of lib (torch or ember)."""
    F = lib.nn.functional
    x, y, params = data()
    x, y = lib.tensor(x), lib.tensor(y)
    p = {k: lib.tensor(v, requires_grad=True) for k, v in params.items()}

    def step():
        h = F.max_pool2d(F.relu(F.conv2d(x, p["conv1.weight"], p["conv1.bias"])), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, p["conv2.weight"], p["conv2.bias"])), 2)
        h = h.flatten(1)
        h = F.relu(F.linear(h, p["fc1.weight"], p["fc1.bias"]))
        h = F.relu(F.linear(h, p["fc2.weight"], p["fc2.bias"]))
        loss = F.cross_entropy(F.linear(h, p["fc3.weight"], p["fc3.bias"]), y)
        for t in p.values():
            t.grad = None
        loss.backward()
        return loss
    return step, lambda: {k: t.grad.numpy() for k, t in p.items()}


def lib_modules(lib):
    """The step through nn modules: the 60-minute blitz's Net (LeNet-5)."""
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 4 * 4, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = lib.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    x, y, params = data()
    net = Net()
    net.load_state_dict({k: lib.tensor(v) for k, v in params.items()})
    x, y = lib.tensor(x), lib.tensor(y)

    def step():
        loss = F.cross_entropy(net(x), y)
        net.zero_grad()
        loss.backward()
        return loss
    return step, lambda: {k: t.grad.numpy() for k, t in net.named_parameters()}


def numpy_floor(_):
    """The same step in plain NumPy: im2col by strided views + one matmul per convolution,
    pooling by strided slices, the backward written out."""
    from numpy.lib.stride_tricks import as_strided
    x, y, p = data()
    n = x.shape[0]
    grads = {}

    def im2col(a, k):          # a (C, H, W, N) -> (C*k*k, OH*OW*N)
        c, h, w, b = a.shape
        s = a.strides
        v = as_strided(a, (c, k, k, h - k + 1, w - k + 1, b), (s[0], s[1], s[2], s[1], s[2],
                                                              s[3]))
        return v.reshape(c * k * k, -1)

    def conv(a, wt, bias):     # a (N, C, H, W) -> (N, O, OH, OW), and the batch-last input
        at = np.ascontiguousarray(a.transpose(1, 2, 3, 0))
        o, k = wt.shape[0], wt.shape[-1]
        out = wt.reshape(o, -1) @ im2col(at, k)
        out = out.reshape(o, a.shape[2] - k + 1, a.shape[3] - k + 1, n)
        out += bias[:, None, None, None]
        return np.ascontiguousarray(out.transpose(3, 0, 1, 2)), at

    def conv_backward(g, at, wt, need_input):
        o, c, k = wt.shape[0], wt.shape[1], wt.shape[-1]
        gt = np.ascontiguousarray(g.transpose(1, 2, 3, 0)).reshape(o, -1)
        gw = (gt @ im2col(at, k).T).reshape(wt.shape)
        gb = gt.sum(1)
        if not need_input:
            return None, gw, gb
        cols = (wt.reshape(o, -1).T @ gt).reshape(c, k, k, g.shape[2], g.shape[3], n)
        gx = np.zeros(at.shape, g.dtype)
        for i in range(k):
            for j in range(k):
                gx[:, i:i + g.shape[2], j:j + g.shape[3]] += cols[:, i, j]
        return np.ascontiguousarray(gx.transpose(3, 0, 1, 2)), gw, gb

    def pool(a):               # 2x2 max pool: the max and which of the 4 held it
        v = [a[:, :, i::2, j::2] for i in (0, 1) for j in (0, 1)]
        m = np.maximum(np.maximum(v[0], v[1]), np.maximum(v[2], v[3]))
        arg = np.full(m.shape, 3, np.int8)
        for i in (2, 1, 0):
            arg = np.where(v[i] == m, np.int8(i), arg)
        return m, arg

    def pool_backward(g, arg, shape):
        out = np.empty(shape, g.dtype)
        for i in range(4):
            out[:, :, i // 2::2, i % 2::2] = np.where(arg == i, g, 0)
        return out

    def step():
        a1, x1 = conv(x, p["conv1.weight"], p["conv1.bias"])
        r1 = np.maximum(a1, 0)
        p1, arg1 = pool(r1)
        a2, x2 = conv(p1, p["conv2.weight"], p["conv2.bias"])
        r2 = np.maximum(a2, 0)
        p2, arg2 = pool(r2)
        h0 = p2.reshape(n, -1)
        z1 = h0 @ p["fc1.weight"].T + p["fc1.bias"]
        h1 = np.maximum(z1, 0)
        z2 = h1 @ p["fc2.weight"].T + p["fc2.bias"]
        h2 = np.maximum(z2, 0)
        z3 = h2 @ p["fc3.weight"].T + p["fc3.bias"]
        e = np.exp(z3 - z3.max(1, keepdims=True))
        prob = e / e.sum(1, keepdims=True)
        loss = -np.log(prob[np.arange(n), y]).mean()
        g = prob
        g[np.arange(n), y] -= 1
        g /= n
        grads["fc3.weight"], grads["fc3.bias"] = g.T @ h2, g.sum(0)
        g = (g @ p["fc3.weight"]) * (z2 > 0)
        grads["fc2.weight"], grads["fc2.bias"] = g.T @ h1, g.sum(0)
        g = (g @ p["fc2.weight"]) * (z1 > 0)
        grads["fc1.weight"], grads["fc1.bias"] = g.T @ h0, g.sum(0)
        g = (g @ p["fc1.weight"]).reshape(p2.shape)
        g = pool_backward(g, arg2, r2.shape) * (a2 > 0)
        g, grads["conv2.weight"], grads["conv2.bias"] = conv_backward(g, x2,
                                                                      p["conv2.weight"], True)
        g = pool_backward(g, arg1, r1.shape) * (a1 > 0)
        _, grads["conv1.weight"], grads["conv1.bias"] = conv_backward(g, x1,
                                                                      p["conv1.weight"], False)
        return loss
    return step, lambda: dict(grads)


# ------------------------------------------------------------------ one process

def child(impl, steps, grads_file):
    import resource
    import time
    libname, kind = impl.split(":")
    if libname == "torch":
        import torch as lib
        lib.set_num_threads(1)
    elif libname == "ember":
        import ember as lib
    else:
        lib = None
    make = {"functional": lib_functional, "modules": lib_modules, "numpy": numpy_floor}[kind]
    step, grads = make(lib)
    for _ in range(5):
        step()
    wall, cpu = [], []
    for _ in range(steps):
        t, c = time.perf_counter(), time.process_time()
        step()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - t)
    np.savez(grads_file, **grads())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"cpu_ms": float(np.median(cpu)) * 1e3,
                      "median_ms": float(np.median(wall)) * 1e3,
                      "min_ms": float(np.min(wall)) * 1e3, "peak_rss_mib": peak / 1024}))


def run(impl, steps, grads_file):
    env = dict(os.environ)
    for v in THREAD_VARS:
        env[v] = "1"
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, "--child", impl, str(steps), grads_file],
                         capture_output=True, text=True, env=env)
    if out.returncode:
        raise SystemExit(f"{impl} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    args = sys.argv[1:]
    if args and args[0] == "--child":
        return child(args[1], int(args[2]), args[3])
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 3
    steps = int(args[args.index("--steps") + 1]) if "--steps" in args else 30
    kinds = args[args.index("--only") + 1].split(",") if "--only" in args else \
        ["functional", "modules", "numpy"]
    impls = [f"ember:{k}" for k in kinds if k != "numpy"] + \
        (["numpy:floor"] if "numpy" in kinds else [])
    if "--no-torch" not in args:
        impls = [f"torch:{k}" for k in kinds if k != "numpy"] + impls
    best = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = {i: os.path.join(tmp, i.replace(":", "_") + ".npz") for i in impls}
        for _ in range(rounds):
            for impl in impls:
                r = run(impl.replace("floor", "numpy"), steps, files[impl])
                b = best.setdefault(impl, r)
                b["cpu_ms"] = min(b["cpu_ms"], r["cpu_ms"])
                b["median_ms"] = min(b["median_ms"], r["median_ms"])
                b["min_ms"] = min(b["min_ms"], r["min_ms"])
                b["peak_rss_mib"] = max(b["peak_rss_mib"], r["peak_rss_mib"])
        ref = np.load(files[impls[0]])
        for impl in impls:
            got = np.load(files[impl])
            err = max(float(np.max(np.abs(got[k] - ref[k]) / (np.abs(ref[k]).max() + 1e-12)))
                      for k in ref.files)
            best[impl]["grad_err"] = err
            if err > 1e-4:
                raise SystemExit(f"{impl}: gradients differ from {impls[0]}'s (max relative "
                                 f"error {err:.2e})")
    print(f"W9 LeNet-5 training step, batch {BATCH}, float32, single-threaded "
          f"({rounds} rounds x {steps} steps; best median per implementation)")
    print(f"{'implementation':20s} {'CPU ms':>8s} {'wall ms':>8s} {'min ms':>8s} "
          f"{'peak RSS MiB':>13s} {'grad err':>9s}")
    for impl in impls:
        b = best[impl]
        print(f"{impl:20s} {b['cpu_ms']:8.2f} {b['median_ms']:8.2f} {b['min_ms']:8.2f} "
              f"{b['peak_rss_mib']:13.1f} {b['grad_err']:9.1e}")
    if "torch:functional" in best:
        for kind in [k for k in kinds if k != "numpy"]:
            e, t = best[f"ember:{kind}"], best[f"torch:{kind}"]
            cr = e["cpu_ms"] / t["cpu_ms"]
            wr = e["median_ms"] / t["median_ms"]
            mr = e["peak_rss_mib"] / t["peak_rss_mib"]
            print(f"ember/torch ({kind}): CPU time {cr:.2f}, wall time {wr:.2f} (target <= "
                  f"{TARGET_TIME}), peak RSS {mr:.2f} (target <= {TARGET_MEMORY})")
        if "numpy:floor" in best:
            fl = best["numpy:floor"]["cpu_ms"] / best["torch:functional"]["cpu_ms"]
            print(f"numpy floor / torch (functional): CPU time {fl:.2f}")


if __name__ == "__main__":
    main()
