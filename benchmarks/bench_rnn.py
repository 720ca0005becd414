"""Recurrent layers, ember vs torch side by side in one process, single-threaded.

W10 (the judged one): a 2-layer LSTM, input 32, hidden 128, sequence 50, batch 32, float32,
forward + backward; target ember <= 2x torch. Beside it, for information: the same LSTM in
inference (no_grad), and a GRU of the same size (torch composes it step by step; so does
ember). Times are process CPU time per step, the minimum over repeats, ember and torch
interleaved so that both see the same machine state.

    python benchmarks/bench_rnn.py [--repeats N]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import sys          # noqa: E402  (the thread limits must be set before NumPy loads)
import time         # noqa: E402

import numpy as np  # noqa: E402
import torch        # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ember        # noqa: E402

torch.set_num_threads(1)

T, B, I, H, L = 50, 32, 32, 128, 2


def build(lib, cls, state):
    m = getattr(lib.nn, cls)(I, H, num_layers=L)
    m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    return m


def workloads():
    """name -> (make(lib) -> step function, target ratio or None)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((T, B, I)).astype(np.float32)
    states = {}
    for cls in ("LSTM", "GRU"):
        torch.manual_seed(0)
        states[cls] = {k: v.detach().numpy().copy()
                       for k, v in getattr(torch.nn, cls)(I, H, num_layers=L).state_dict().items()}

    def train(cls):
        def make(lib):
            m = build(lib, cls, states[cls])
            xt = lib.tensor(x, requires_grad=True)

            def step():
                m.zero_grad()
                xt.grad = None
                out, _ = m(xt)
                out.sum().backward()
                return out
            return step
        return make

    def infer(lib):
        m = build(lib, "LSTM", states["LSTM"])
        xt = lib.tensor(x)

        def step():
            with lib.no_grad():
                return m(xt)[0]
        return step

    return {"W10 LSTM 2x128 fwd+bwd": (train("LSTM"), 2.0),
            "LSTM 2x128 inference": (infer, None),
            "GRU 2x128 fwd+bwd": (train("GRU"), None)}


def time_step(step, n):
    t = time.process_time()
    for _ in range(n):
        step()
    return (time.process_time() - t) / n


def main():
    repeats = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else 5
    print(f"single-threaded; T={T} B={B} input={I} hidden={H} layers={L}; CPU time per step, "
          f"min of {repeats} repeats")
    print(f"{'workload':28s} {'ember ms':>10s} {'torch ms':>10s} {'ratio':>7s}  target")
    ok = True
    for name, (make, target) in workloads().items():
        steps = {lib: make(lib) for lib in (ember, torch)}
        outs = {lib: steps[lib]() for lib in (ember, torch)}        # warm-up + check
        np.testing.assert_allclose(outs[ember].detach().numpy(), outs[torch].detach().numpy(),
                                   rtol=1e-4, atol=1e-5)
        best = {ember: float("inf"), torch: float("inf")}
        for _ in range(repeats):
            for lib in (ember, torch):
                best[lib] = min(best[lib], time_step(steps[lib], 2))
        ratio = best[ember] / best[torch]
        verdict = "" if target is None else (f"<= {target}: " +
                                             ("pass" if ratio <= target else "FAIL"))
        ok = ok and (target is None or ratio <= target)
        print(f"{name:28s} {best[ember] * 1e3:10.1f} {best[torch] * 1e3:10.1f} {ratio:7.2f}  "
              f"{verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
