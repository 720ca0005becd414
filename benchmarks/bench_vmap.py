"""vmap benchmark: per-sample gradients of a small MLP over a batch of 256, single-threaded.

    python benchmarks/bench_vmap.py [--quick]

The MLP is 64-128-10 (Linear, tanh, Linear, cross-entropy), float32; the per-sample gradients
are vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y), computed three ways:
- ember loop: one grad call per sample, stacked (what ember's vmap did before batching rules,
  and what its fallback does for an op without a rule);
- ember rules: ember.func.vmap, the batch dimension carried through each op;
- torch: torch.func.vmap.
Then jacrev of the MLP's logits (10 x 64) at one sample: ember.func.jacrev (one forward, the
basis as one batch of grad outputs), the same rows as vmap over a vjp, and torch.func.jacrev.
Times are process CPU time, median of repeats, measured in alternation; the results are
checked against torch's (a fast wrong answer fails)."""
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

BATCH, SIZES = 256, (64, 128, 10)


def case(lib):
    rng = np.random.default_rng(0)
    d, h, c = SIZES
    params = tuple(lib.tensor((rng.standard_normal(s) * 0.1).astype(np.float32))
                   for s in [(h, d), (h,), (c, h), (c,)])
    x = lib.tensor(rng.standard_normal((BATCH, d)).astype(np.float32))
    y = lib.tensor(rng.integers(0, c, BATCH))
    F = lib.nn.functional

    def loss(p, xi, yi):
        hid = lib.tanh(F.linear(xi, p[0], p[1]))
        return F.cross_entropy(F.linear(hid, p[2], p[3]).unsqueeze(0), yi.unsqueeze(0))
    return loss, params, x, y


def run_rules(lib):
    loss, params, x, y = case(lib)
    return lambda: lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)


def run_loop(lib):
    loss, params, x, y = case(lib)
    g = lib.func.grad(loss)

    def go():
        rows = [g(params, x[i], y[i]) for i in range(BATCH)]
        return tuple(lib.stack([r[k] for r in rows]) for k in range(len(params)))
    return go


def jac_case(lib):
    """jacrev of the MLP's logits with respect to its input (10 x 64), and the same rows as
    vmap over a vjp (what ember's jacrev did before it used is_grads_batched)."""
    loss, params, x, y = case(lib)
    F = lib.nn.functional

    def logits(xi):
        return F.linear(lib.tanh(F.linear(xi, params[0], params[1])), params[2], params[3])
    xi = x[0]

    def via_vmap():
        out, fn = lib.func.vjp(logits, xi)
        return lib.func.vmap(fn)(lib.eye(out.numel(), dtype=out.dtype))[0]
    return (lambda: lib.func.jacrev(logits)(xi)), via_vmap


def cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def main(quick=False):
    torch.set_num_threads(1)
    fns = {"ember loop": run_loop(ember), "ember rules": run_rules(ember),
           "torch.func.vmap": run_rules(torch)}
    times = {k: [] for k in fns}
    outs = {}
    for _ in range(1 if quick else 5):
        for k, f in fns.items():
            dt, outs[k] = cpu(f)
            times[k].append(dt)
    ref = outs["torch.func.vmap"]
    for k in ("ember loop", "ember rules"):
        for a, b in zip(outs[k], ref):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"per-sample grads, MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, float32, "
          f"1 thread (CPU s, median of {len(times['torch.func.vmap'])})")
    for k, v in med.items():
        print(f"  {k:16s} {v * 1e3:9.2f} ms")
    print(f"  loop / rules   {med['ember loop'] / med['ember rules']:9.1f}x")
    print(f"  rules / torch  {med['ember rules'] / med['torch.func.vmap']:9.1f}x")
    print(f"  loop / torch   {med['ember loop'] / med['torch.func.vmap']:9.1f}x")
    print("results agree with torch.func.vmap: ok")
    jac = {"ember jacrev": jac_case(ember)[0], "ember vmap(vjp)": jac_case(ember)[1],
           "torch.func.jacrev": jac_case(torch)[0]}
    times = {k: [] for k in jac}
    for _ in range(1 if quick else 20):
        for k, f in jac.items():
            dt, outs[k] = cpu(f)
            times[k].append(dt)
    for k in ("ember jacrev", "ember vmap(vjp)"):
        np.testing.assert_allclose(outs[k].numpy(), outs["torch.func.jacrev"].numpy(),
                                   rtol=1e-4, atol=1e-6)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"jacrev of the MLP's logits (10 x 64) at one sample (CPU s, median of "
          f"{len(times['ember jacrev'])})")
    for k, v in med.items():
        print(f"  {k:18s} {v * 1e3:9.3f} ms")
    print("results agree with torch.func.jacrev: ok")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
