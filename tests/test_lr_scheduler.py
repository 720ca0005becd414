"""ember.optim.lr_scheduler against torch's: learning rates (and cycled momenta) over 100
steps, state dicts, warnings and errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error


def make_optimizer(lib, name="SGD", groups=2, **kw):
    """An optimizer over two parameter groups with different learning rates."""
    ps = [lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([3.0], requires_grad=True)]
    for p in ps:
        p.grad = lib.ones_like(p)
    params = [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.05}][:groups]
    if name == "SGD":
        kw.setdefault("momentum", 0.9)
    return getattr(lib.optim, name)(params, lr=0.1, **kw)


class Scale:
    """A callable object as lr_lambda / scale_fn: its fields go into the state dict."""

    def __init__(self, base):
        self.base = base

    def __call__(self, x):
        return self.base ** x


def _sched(lib, name, *args, **kw):
    return getattr(lib.optim.lr_scheduler, name)(*args, **kw)


# (id, optimizer name, builder(lib, opt) -> scheduler)
CASES = [
    ("lambda", "SGD", lambda L, o: _sched(L, "LambdaLR", o, lambda e: 0.95 ** e)),
    ("lambda-list", "SGD", lambda L, o: _sched(L, "LambdaLR", o, [lambda e: 1 / (e + 1),
                                                                     Scale(0.9)])),
    ("multiplicative", "SGD", lambda L, o: _sched(L, "MultiplicativeLR", o,
                                                    lambda e: 0.97)),
    ("step", "SGD", lambda L, o: _sched(L, "StepLR", o, 7, gamma=0.5)),
    ("multistep", "SGD", lambda L, o: _sched(L, "MultiStepLR", o, [10, 30, 30, 60], 0.3)),
    ("constant", "SGD", lambda L, o: _sched(L, "ConstantLR", o, 0.25, 20)),
    ("linear", "SGD", lambda L, o: _sched(L, "LinearLR", o, 0.1, 0.8, 37)),
    ("exponential", "SGD", lambda L, o: _sched(L, "ExponentialLR", o, 0.96)),
    ("polynomial", "SGD", lambda L, o: _sched(L, "PolynomialLR", o, 60, 2.5)),
    ("cosine", "SGD", lambda L, o: _sched(L, "CosineAnnealingLR", o, 17, eta_min=0.001)),
    ("warm-restarts", "SGD", lambda L, o: _sched(L, "CosineAnnealingWarmRestarts", o, 5)),
    ("warm-restarts-mult", "SGD", lambda L, o: _sched(L, "CosineAnnealingWarmRestarts", o, 3,
                                                        T_mult=2, eta_min=0.01)),
    ("cyclic", "SGD", lambda L, o: _sched(L, "CyclicLR", o, 0.01, 0.1, step_size_up=7)),
    ("cyclic-tri2", "SGD", lambda L, o: _sched(L, "CyclicLR", o, [0.01, 0.02], [0.1, 0.3],
                                                 step_size_up=5, step_size_down=9,
                                                 mode="triangular2")),
    ("cyclic-exp", "Adam", lambda L, o: _sched(L, "CyclicLR", o, 0.01, 0.1, step_size_up=6,
                                                 mode="exp_range", gamma=0.97)),
    ("cyclic-fn", "SGD", lambda L, o: _sched(L, "CyclicLR", o, 0.01, 0.1, step_size_up=4,
                                               scale_fn=Scale(0.8), scale_mode="iterations",
                                               base_momentum=0.7, max_momentum=0.95)),
    ("cyclic-nomom", "Adagrad", lambda L, o: _sched(L, "CyclicLR", o, 0.01, 0.1,
                                                      step_size_up=3, cycle_momentum=False)),
    ("onecycle", "SGD", lambda L, o: _sched(L, "OneCycleLR", o, 0.5, total_steps=101)),
    ("onecycle-linear", "Adam", lambda L, o: _sched(L, "OneCycleLR", o, [0.5, 1.0], epochs=10,
                                                      steps_per_epoch=11, pct_start=0.25,
                                                      anneal_strategy="linear")),
    ("onecycle-3phase", "SGD", lambda L, o: _sched(L, "OneCycleLR", o, 0.4, total_steps=120,
                                                     three_phase=True, div_factor=10.0,
                                                     final_div_factor=100.0,
                                                     base_momentum=0.8, max_momentum=0.9)),
    ("onecycle-nomom", "Adagrad", lambda L, o: _sched(L, "OneCycleLR", o, 0.4,
                                                        total_steps=110,
                                                        cycle_momentum=False)),
    ("sequential", "SGD", lambda L, o: _sched(L, "SequentialLR", o, [
        _sched(L, "LinearLR", o, 0.1, 1.0, 10), _sched(L, "ExponentialLR", o, 0.9),
        _sched(L, "CosineAnnealingLR", o, 20)], milestones=[10, 40])),
    ("sequential-mult", "SGD", lambda L, o: _sched(L, "SequentialLR", o, [
        _sched(L, "ConstantLR", o, 0.5, 10), _sched(L, "MultiplicativeLR", o,
                                                    lambda e: 0.9)], milestones=[5])),
    ("chained", "SGD", lambda L, o: _sched(L, "ChainedScheduler", [
        _sched(L, "ConstantLR", o, 0.1, 4), _sched(L, "ExponentialLR", o, 0.9),
        _sched(L, "StepLR", o, 10, 0.5)])),
    ("chained-opt", "SGD", lambda L, o: _sched(L, "ChainedScheduler", [
        _sched(L, "LinearLR", o, 0.5, 1.0, 8), _sched(L, "CosineAnnealingWarmRestarts", o,
                                                      6)], optimizer=o)),
]


def run_schedule(lib, opt_name, build, steps=100):
    opt = make_optimizer(lib, opt_name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sched = build(lib, opt)
        lrs, moms = [sched.get_last_lr()[:]], []
        for _ in range(steps):
            opt.step()
            sched.step()
            lrs.append(list(sched.get_last_lr()))
            moms.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return lrs, moms, sched, opt, [str(w.message) for w in caught]


def plain(obj):
    """A state dict with tensors and functions made comparable."""
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(plain(v) for v in obj)
    if isinstance(obj, (torch.Tensor, ember.Tensor)):
        return ("tensor", np.asarray(obj.detach()).tolist())
    if callable(obj):
        return "fn"
    return obj


def assert_same(a, b, what):
    if isinstance(a, dict):
        assert list(a) == list(b), f"{what}: keys {list(a)} vs {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{what}.{k}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), f"{what}: {a} vs {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{what}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15), \
            f"{what}: {a!r} vs {b!r}"
    else:
        assert type(a) is type(b) and a == b, f"{what}: {a!r} vs {b!r}"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_schedule_matches_torch(case):
    _, opt_name, build = case
    tl, tm, ts, to, tw = run_schedule(torch, opt_name, build)
    el, em, es, eo, ew = run_schedule(ember, opt_name, build)
    assert_same(tl, el, "lrs")
    assert_same(tm, em, "momenta")
    assert_same(plain(ts.state_dict()), plain(es.state_dict()), "state_dict")
    tg = [{k: v for k, v in g.items() if k != "params"} for g in to.param_groups]
    eg = [{k: v for k, v in g.items() if k != "params"} for g in eo.param_groups]
    assert_same(tg, eg, "param_groups")
    assert tw == ew


# Resuming (last_epoch >= 0 with 'initial_lr' in the groups) and stepping to given epochs
# (deprecated: the closed form is used where a scheduler has one).
RESUME = [
    ("StepLR", (7, 0.5)), ("MultiStepLR", ([3, 9, 9], 0.5)), ("ConstantLR", (0.5, 6)),
    ("LinearLR", (0.2, 0.9, 8)), ("ExponentialLR", (0.9,)), ("PolynomialLR", (12, 0.5)),
    ("CosineAnnealingLR", (6, 0.01)), ("CosineAnnealingWarmRestarts", (4, 2, 0.001)),
    ("LambdaLR", (lambda e: 0.9 ** e,)), ("MultiplicativeLR", (lambda e: 0.9,)),
    ("CyclicLR", (0.01, 0.1, 3)), ("OneCycleLR", (0.5, 40)),
]


def run_resumed(lib, name, args, last_epoch, epochs):
    opt = make_optimizer(lib)
    for g in opt.param_groups:
        g["initial_lr"] = g["lr"] * 2
        g["max_lr"], g["min_lr"] = g["lr"] * 3, g["lr"] / 10
        g["max_momentum"], g["base_momentum"] = 0.9, 0.8
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sched = getattr(lib.optim.lr_scheduler, name)(opt, *args, last_epoch=last_epoch)
        out = [sched.get_last_lr()[:]]
        for e in epochs:
            opt.step()
            sched.step(e)
            out.append(sched.get_last_lr()[:])
    return out, plain(sched.state_dict()), [str(w.message) for w in caught]


@pytest.mark.parametrize("name,args", RESUME, ids=[r[0] for r in RESUME])
def test_resume_and_epoch_argument(name, args):
    epochs = [None, None, 5, 6, None, 2, 0, 11, None, 3.5 if "Warm" in name else 3, None, 17]
    for last_epoch in (-1, 0, 4):
        t = run_resumed(torch, name, args, last_epoch, epochs)
        e = run_resumed(ember, name, args, last_epoch, epochs)
        assert_same(t, e, f"last_epoch={last_epoch}")


@pytest.mark.parametrize("name,args", RESUME[:8] + RESUME[9:10], ids=[r[0] for r in
                                                                       RESUME[:8] + RESUME[9:10]])
def test_get_lr_at_epoch_zero_after_the_initial_step(name, args):
    # torch tells the initial step apart from a later step at epoch 0 (SequentialLR's
    # switch, or last_epoch reset by hand): some formulas apply only to the latter
    def prog(lib):
        opt = make_optimizer(lib)
        sched = getattr(lib.optim.lr_scheduler, name)(opt, *args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt.step()
            sched.step()
            sched.step()
            sched.last_epoch = 0
            got = sched.get_lr()
            sched.last_epoch = -1
            sched.step()
        return got, sched.get_last_lr()
    assert_same(prog(torch), prog(ember), name)


def plateau_run(lib, metrics, **kw):
    opt = make_optimizer(lib)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
    out = []
    for m in metrics:
        opt.step()
        sched.step(m)
        out.append((sched.get_last_lr()[:], sched.num_bad_epochs, sched.cooldown_counter,
                    sched.best))
    return out, plain(sched.state_dict())


@pytest.mark.parametrize("kw", [
    {}, {"mode": "max", "patience": 2}, {"threshold_mode": "abs", "threshold": 0.05,
                                         "patience": 1, "cooldown": 2},
    {"mode": "max", "threshold_mode": "abs", "factor": 0.5, "patience": 0, "min_lr": 0.004},
    {"factor": 0.5, "patience": 1, "min_lr": [0.01, 0.002], "eps": 1e-3},
    {"factor": 0.7, "patience": 3, "cooldown": 1, "threshold": 0.1},
], ids=str)
def test_reduce_lr_on_plateau(kw):
    rng = np.random.default_rng(3)
    metrics = list(np.cumsum(rng.standard_normal(100) * 0.3) + np.linspace(5, 0, 100))
    metrics[10:20] = [metrics[10]] * 10            # a real plateau
    t = plateau_run(torch, metrics, **kw)
    e = plateau_run(ember, [ember.tensor(m) if i % 7 == 0 else m for i, m in
                            enumerate(metrics)], **kw)
    assert_same(t, e, "plateau")


def test_plateau_state_dict_round_trip_and_group_added():
    for lib in (torch, ember):
        opt = make_optimizer(lib, groups=1)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=0)
        sched.step(1.0)
        sd = sched.state_dict()
        other = lib.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(lib, groups=1))
        other.load_state_dict(sd)
        assert other.mode == "max" and other.mode_worse == -math.inf and other.best == 1.0
        opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)], "lr": 0.2})
        sched.step(0.5)                    # default min_lr: extended to the new group
        assert sched.min_lrs == [0, 0]
        assert sched.get_last_lr() == [0.010000000000000002, 0.020000000000000004]

    def grown(lib):
        opt = make_optimizer(lib, groups=1)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0])
        opt.add_param_group({"params": [lib.zeros(1, requires_grad=True)]})
        sched.step(1.0)
        sched.step(2.0)
    check_error(grown)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_state_dict_round_trip_continues_the_schedule(case):
    # a scheduler rebuilt on a reloaded optimizer and given the saved state continues as
    # torch's does (the rebuilt one's initial step still changes the group rates, in both)
    _, opt_name, build = case

    def prog(lib):
        opt = make_optimizer(lib, opt_name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sched = build(lib, opt)
            for _ in range(13):
                opt.step()
                sched.step()
            saved = sched.state_dict()
            opt2 = make_optimizer(lib, opt_name)
            opt2.load_state_dict(opt.state_dict())
            sched2 = build(lib, opt2)
            sched2.load_state_dict(saved)
            out = []
            for _ in range(20):
                sched.step()
                sched2.step()
                out.append((sched.get_last_lr()[:], sched2.get_last_lr()[:]))
        return out, plain(sched2.state_dict())
    assert_same(prog(torch), prog(ember), "continued")


def warnings_of(fn, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib)
    return [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("prog", [
    # scheduler.step() before any optimizer.step(): warned once
    lambda L: [L.optim.lr_scheduler.StepLR(o := make_optimizer(L), 2).step() for _ in "ab"],
    # the optimizer stepped before the scheduler existed: still warned
    lambda L: (o := make_optimizer(L), o.step(), L.optim.lr_scheduler.StepLR(o, 2).step()),
    # the right order: no warning
    lambda L: (o := make_optimizer(L), s := L.optim.lr_scheduler.ExponentialLR(o, 0.5),
               o.step(), s.step()),
    # optimizer.step replaced after the scheduler wrapped it
    lambda L: (o := make_optimizer(L), s := L.optim.lr_scheduler.StepLR(o, 2),
               setattr(o, "step", lambda: None), s.step()),
    # get_lr() called by the user
    lambda L: L.optim.lr_scheduler.StepLR(make_optimizer(L), 2).get_lr(),
    # epoch argument: deprecated
    lambda L: (o := make_optimizer(L), s := L.optim.lr_scheduler.StepLR(o, 2), o.step(),
               s.step(3)),
    lambda L: (o := make_optimizer(L), s := L.optim.lr_scheduler.ReduceLROnPlateau(o),
               s.step(1.0, 4)),
    # CosineAnnealingWarmRestarts takes (fractional) epochs without warnings
    lambda L: (o := make_optimizer(L),
               s := L.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 3), s.step(),
               s.step(2.5)),
    # SequentialLR switching schedulers: no deprecation warning
    lambda L: (o := make_optimizer(L), s := L.optim.lr_scheduler.SequentialLR(
        o, [L.optim.lr_scheduler.ConstantLR(o), L.optim.lr_scheduler.StepLR(o, 2)], [2]),
        o.step(), [s.step() for _ in range(4)]),
    # two schedulers on one optimizer share the wrapped step
    lambda L: (o := make_optimizer(L), a := L.optim.lr_scheduler.StepLR(o, 2), o.step(),
               b := L.optim.lr_scheduler.ExponentialLR(o, 0.9), a.step(), b.step()),
])
def test_warnings(prog):
    assert warnings_of(prog, torch) == warnings_of(prog, ember)


def _opt(L):
    return make_optimizer(L)


def _sch(name):
    return lambda L, *a, **k: getattr(L.optim.lr_scheduler, name)(*a, **k)


ERRORS = [
    lambda L: L.optim.lr_scheduler.StepLR(5, 2),
    lambda L: L.optim.lr_scheduler.StepLR(_opt(L), 2, last_epoch=3),
    lambda L: L.optim.lr_scheduler.LambdaLR(_opt(L), [lambda e: 1.0]),
    lambda L: L.optim.lr_scheduler.MultiplicativeLR(_opt(L), [lambda e: 1.0] * 3),
    lambda L: L.optim.lr_scheduler.ConstantLR(_opt(L), 1.5),
    lambda L: L.optim.lr_scheduler.ConstantLR(_opt(L), -0.1),
    lambda L: L.optim.lr_scheduler.LinearLR(_opt(L), 0.0),
    lambda L: L.optim.lr_scheduler.LinearLR(_opt(L), 0.5, 1.5),
    lambda L: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(L), 0),
    lambda L: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(L), 2.5),
    lambda L: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(L), 2, T_mult=0),
    lambda L: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(L), 2, eta_min="x"),
    lambda L: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(L), 2).step(-1),
    lambda L: L.optim.lr_scheduler.CyclicLR(_opt(L), 0.1, 1.0, mode="sawtooth"),
    lambda L: L.optim.lr_scheduler.CyclicLR(_opt(L), [0.1], 1.0),
    lambda L: L.optim.lr_scheduler.CyclicLR(_opt(L), 0.1, [1.0, 2.0, 3.0]),
    lambda L: L.optim.lr_scheduler.CyclicLR(make_optimizer(L, "Adagrad"), 0.1, 1.0),
    lambda L: L.optim.lr_scheduler.CyclicLR(_opt(L), 0.1, 1.0, base_momentum=[0.8]),
    lambda L: L.optim.lr_scheduler.OneCycleLR(_opt(L), 0.1),
    lambda L: L.optim.lr_scheduler.OneCycleLR(_opt(L), 0.1, total_steps=0),
    lambda L: L.optim.lr_scheduler.OneCycleLR(_opt(L), 0.1, total_steps=10.0),
    lambda L: L.optim.lr_scheduler.OneCycleLR(_opt(L), 0.1, epochs=0, steps_per_epoch=3),
    lambda L: L.optim.lr_scheduler.OneCycleLR(_opt(L), 0.1, epochs=2, steps_per_epoch=1.5),
    lambda L: L.optim.lr_scheduler.OneCycleLR(_opt(L), 0.1, total_steps=10, pct_start=1.5),
    lambda L: L.optim.lr_scheduler.OneCycleLR(_opt(L), 0.1, total_steps=10, pct_start=1),
    lambda L: L.optim.lr_scheduler.OneCycleLR(_opt(L), 0.1, total_steps=10,
                                              anneal_strategy="step"),
    lambda L: L.optim.lr_scheduler.OneCycleLR(make_optimizer(L, "Adagrad"), 0.1,
                                              total_steps=10),
    lambda L: [s := L.optim.lr_scheduler.OneCycleLR(_opt(L), 0.1, total_steps=3)] +
    [s.step() for _ in range(4)],
    lambda L: L.optim.lr_scheduler.SequentialLR(_opt(L), [], []),
    lambda L: L.optim.lr_scheduler.SequentialLR(o := _opt(L), [
        L.optim.lr_scheduler.StepLR(o, 2)], [3]),
    lambda L: L.optim.lr_scheduler.SequentialLR(_opt(L), [
        L.optim.lr_scheduler.StepLR(_opt(L), 2)], []),
    lambda L: L.optim.lr_scheduler.SequentialLR(o := _opt(L), [
        L.optim.lr_scheduler.ReduceLROnPlateau(o)], []),
    lambda L: L.optim.lr_scheduler.SequentialLR(_opt(L), [5], []),
    lambda L: L.optim.lr_scheduler.ChainedScheduler([]),
    lambda L: L.optim.lr_scheduler.ChainedScheduler([
        L.optim.lr_scheduler.StepLR(_opt(L), 2), L.optim.lr_scheduler.StepLR(_opt(L), 2)]),
    lambda L: L.optim.lr_scheduler.ChainedScheduler([
        L.optim.lr_scheduler.ReduceLROnPlateau(_opt(L))]),
    lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_opt(L), factor=1.0),
    lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_opt(L), mode="up"),
    lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_opt(L), threshold_mode="pct"),
    lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_opt(L), min_lr=[0.1]),
    lambda L: L.optim.lr_scheduler.ReduceLROnPlateau("opt"),
    lambda L: L.optim.lr_scheduler.ReduceLROnPlateau(_opt(L)).step("x"),
    lambda L: L.optim.lr_scheduler.LRScheduler(_opt(L)),
]


@pytest.mark.parametrize("prog", ERRORS)
def test_errors(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(prog)


def test_tensor_learning_rate_is_updated_in_place():
    def prog(lib):
        p = lib.ones(2, requires_grad=True)
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([p], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        p.grad = lib.ones(2)
        opt.step()
        sched.step()
        return opt.param_groups[0]["lr"] is lr, float(lr), p.detach().numpy().tolist()
    assert prog(torch) == prog(ember)


def test_custom_scheduler_subclasses():
    def prog(lib):
        L = lib.optim.lr_scheduler

        class Halving(L._LRScheduler):
            def get_lr(self):
                return [base / 2 ** self.last_epoch for base in self.base_lrs]

        opt = make_optimizer(lib)
        sched = Halving(opt)
        out = [sched.get_last_lr()]
        for _ in range(3):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out, sorted(sched.state_dict()), issubclass(Halving, L.LRScheduler)
    assert prog(torch) == prog(ember)
    assert set(ember.optim.lr_scheduler.__all__) <= set(dir(torch.optim.lr_scheduler))
