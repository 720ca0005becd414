"""The benchmark workloads. Each one is written once against the torch API and runs unchanged
with `lib` = ember or torch (ember is a drop-in replacement), plus a hand-written NumPy
version with no autograd (the floor). Every workload function takes the library and returns
`(step, grads)`: `step()` runs one timed iteration, `grads()` returns {name: ndarray} from the
last iteration, compared across implementations by run.py so that a fast wrong answer fails.

All data is float32 and comes from NumPy's seeded generator, identical in every process."""
import numpy as np

F32 = np.float32


def _rng():
    return np.random.default_rng(1234)


def _grad(t):
    return t.grad.detach().numpy().copy()


# ---------------------------------------------------------------- W1 seed graph

def w1(lib):
    box = {}

    def step():
        x = lib.ones(2, 2, requires_grad=True)
        y = x + 2
        z = y * y * 3
        out = z.mean()
        out.backward()
        box["x"] = x

    return step, lambda: {"x.grad": _grad(box["x"])}


def w1_numpy():
    box = {}

    def step():
        x = np.ones((2, 2), F32)
        y = x + F32(2)
        z = y * y * F32(3)
        z.mean()
        # backward by hand: d mean / dz = 1/n, dz/dy = 6y
        g = np.full((2, 2), F32(1.0 / 4), F32)
        box["x.grad"] = g * F32(6) * y

    return step, lambda: dict(box)


# ---------------------------------------------------------------- W2 small-op chain

W2_OPS = 200          # elementwise ops per iteration (40 rounds of add, mul, tanh, exp, sub)


def _w2_input():
    return _rng().standard_normal(16).astype(F32)


def w2(lib):
    x = lib.tensor(_w2_input(), requires_grad=True)

    def step():
        x.grad = None
        y = x
        for _ in range(W2_OPS // 5):
            y = y + 0.1
            y = y * 0.5
            y = y.tanh()
            y = y.exp()
            y = y - 1.0
        y.sum().backward()

    return step, lambda: {"x.grad": _grad(x)}


def w2_numpy():
    x = _w2_input()
    box = {}

    def step():
        y = x
        saved = []
        for _ in range(W2_OPS // 5):
            y = y + F32(0.1)
            y = y * F32(0.5)
            t = np.tanh(y)
            y = np.exp(t)
            saved.append((t, y))
            y = y - F32(1.0)
        g = np.ones_like(y)
        for t, e in reversed(saved):
            g = g * e
            g = g * (F32(1) - t * t)
            g = g * F32(0.5)
        box["x.grad"] = g

    return step, lambda: dict(box)


# ---------------------------------------------------------------- W3 MLP training step

W3_SIZES = (784, 512, 512, 10)
W3_BATCH = 128
W3_LR = 0.01


def _w3_data():
    rng = _rng()
    params = []
    for fan_in, fan_out in zip(W3_SIZES[:-1], W3_SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(F32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(F32))
    x = rng.standard_normal((W3_BATCH, W3_SIZES[0])).astype(F32)
    y = rng.integers(0, W3_SIZES[-1], W3_BATCH)
    return params, x, y


def w3(lib):
    F = lib.nn.functional
    arrays, xa, ya = _w3_data()
    params = [lib.tensor(a, requires_grad=True) for a in arrays]
    x, target = lib.tensor(xa), lib.tensor(ya)
    box = {}

    def step():
        w1, b1, w2, b2, w3_, b3 = params
        for p in params:
            p.grad = None
        h = F.relu(F.linear(x, w1, b1))
        h = F.relu(F.linear(h, w2, b2))
        loss = F.cross_entropy(F.linear(h, w3_, b3), target)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= W3_LR * p.grad
        if "grads" not in box:     # gradients of the first step (from the seeded weights)
            box["grads"] = {f"p{i}.grad": _grad(p) for i, p in enumerate(params)}

    return step, lambda: box["grads"]


def w3_numpy():
    params, x, y = _w3_data()
    n = x.shape[0]
    box = {}

    def step():
        w1, b1, w2, b2, w3_, b3 = params
        a1 = x @ w1.T + b1
        h1 = np.maximum(a1, 0)
        a2 = h1 @ w2.T + b2
        h2 = np.maximum(a2, 0)
        z = h2 @ w3_.T + b3
        m = z.max(axis=1, keepdims=True)
        e = np.exp(z - m)
        s = e.sum(axis=1, keepdims=True)
        # loss = mean(log s + m - z[y]); gradient: (softmax - onehot) / n
        g = e / s
        g[np.arange(n), y] -= 1
        g /= n
        gw3, gb3 = g.T @ h2, g.sum(0)
        g = (g @ w3_) * (a2 > 0)
        gw2, gb2 = g.T @ h1, g.sum(0)
        g = (g @ w2) * (a1 > 0)
        gw1, gb1 = g.T @ x, g.sum(0)
        grads = [gw1, gb1, gw2, gb2, gw3, gb3]
        if "grads" not in box:
            box["grads"] = {f"p{i}.grad": gr.copy() for i, gr in enumerate(grads)}
        for p, gr in zip(params, grads):
            p -= F32(W3_LR) * gr

    return step, lambda: box["grads"]


# ---------------------------------------------------------------- W4 deep chain

W4_OPS = 100_000
W4_LEN = W4_OPS // 2  # iterations of y = y*1.0001 + 0.0001 (two ops each)


def w4(lib, length=W4_LEN):
    box = {}

    def step():
        x = lib.ones(16, requires_grad=True)
        y = x
        for _ in range(length):
            y = y * 1.0001 + 0.0001
        y.sum().backward()
        box["x"] = x

    return step, lambda: {"x.grad": _grad(box["x"])}


def w4_numpy(length=W4_LEN):
    box = {}

    def step():
        x = np.ones(16, F32)
        y = x
        for _ in range(length):
            y = y * F32(1.0001) + F32(0.0001)
        g = np.ones(16, F32)
        for _ in range(length):
            g = g * F32(1.0001)
        box["x.grad"] = g

    return step, lambda: dict(box)


# ---------------------------------------------------------------- W5 large elementwise

W5_SHAPE = (2048, 2048)   # 4M elements


def _w5_data():
    rng = _rng()
    return [rng.standard_normal(W5_SHAPE, dtype=F32) for _ in range(3)]


def w5(lib):
    xa, wa, ba = _w5_data()
    x = lib.tensor(xa)
    w = lib.tensor(wa, requires_grad=True)
    b = lib.tensor(ba, requires_grad=True)

    def step():
        w.grad = None
        b.grad = None
        lib.tanh(x * w + b).sum().backward()

    return step, lambda: {"w.grad": _grad(w), "b.grad": _grad(b)}


def w5_numpy():
    x, w, b = _w5_data()
    box = {}

    def step():
        t = np.tanh(x * w + b)
        t.sum()
        gb = F32(1) - t * t          # d sum / d b = 1 - tanh^2
        box["b.grad"] = gb
        box["w.grad"] = gb * x

    return step, lambda: dict(box)


# ---------------------------------------------------------------- W6 matmul

W6_N = 1024


def _w6_data():
    rng = _rng()
    return [rng.standard_normal((W6_N, W6_N), dtype=F32) for _ in range(2)]


def w6(lib):
    aa, ba = _w6_data()
    a = lib.tensor(aa, requires_grad=True)
    b = lib.tensor(ba, requires_grad=True)
    ga = lib.tensor(_rng().standard_normal((W6_N, W6_N), dtype=F32))

    def step():
        a.grad = None
        b.grad = None
        (a @ b).backward(ga)

    return step, lambda: {"a.grad": _grad(a), "b.grad": _grad(b)}


def w6_numpy():
    a, b = _w6_data()
    box = {}

    def step():
        box["c"] = a @ b          # the floor: NumPy's plain matmul, forward only

    return step, lambda: {}


W6_FLOP_FWD_BWD = 3 * 2 * W6_N ** 3     # forward + two backward products
W6_FLOP_FWD = 2 * W6_N ** 3
