"""Views of a tensor whose requires_grad changes after they were made, and views whose family
is written after their base (or an intermediate view) started requiring grad: what torch 2.13
reports for each (requires_grad, is_leaf, grad_fn, _version), where backward sends the gradient
and which writes it refuses. Each program runs under torch and ember and must give the same
record."""
import warnings

import torch

import ember


def state(t):
    """A tensor's autograd state as torch reports it (an error read as its type and text)."""
    out = [t.requires_grad, t._version]
    for read in (lambda: t.is_leaf, lambda: t.grad_fn):
        try:
            r = read()
        except RuntimeError as e:
            r = "error: " + str(e)[:80]
        out.append(r if r is None or isinstance(r, (bool, str)) else type(r).__name__)
    return out


def attempt(f):
    """f()'s result as plain data, or its exception's type and message."""
    try:
        r = f()
    except (RuntimeError, TypeError) as e:
        return type(e).__name__, str(e)[:100]
    if isinstance(r, (tuple, list)):
        return [None if g is None else g.tolist() for g in r]
    return None if r is None else repr(r)


def grad(t):
    return None if t.grad is None else t.grad.tolist()


def same(program):
    assert program(ember) == program(torch)


def test_a_view_made_before_its_base_requires_grad_then_requires_grad_without_history():
    def program(L):
        x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        v, t, d = x[0], x.t(), x.detach()
        vv, dv = v[1:], d[0]
        e = x[1].expand(2, 3)
        out = [state(v)]
        x.requires_grad_()
        out += [state(a) for a in (x, v, vv, t, d, dv, e)]
        # ops on such a view record, but its gradient goes nowhere
        y = v * 2
        out.append(state(y))
        out.append(attempt(lambda: y.sum().backward()))
        out.append(attempt(lambda: (e + x[0]).sum().backward()))
        out.append(grad(x))
        w = v[1:]           # a view of it made now records its op
        out.append(state(w))
        out.append(attempt(lambda: L.autograd.grad((v * 3).sum(), x)))
        out.append(attempt(lambda: L.autograd.grad((v * 3).sum(), v)))
        out.append(attempt(lambda: L.autograd.grad((v * 3).sum(), x, allow_unused=True)))
        out.append(attempt(lambda: v.backward(L.ones(3))))
        return out
    same(program)


def test_a_view_follows_its_bases_requires_grad_flag_until_it_has_a_history():
    def program(L):
        out = []
        x = L.ones(2, 3)
        v = x[0]
        x.requires_grad = True
        out.append(state(v))
        x.requires_grad_(False)
        out.append(state(v))
        x.requires_grad_()
        with L.no_grad():
            x.add_(1)       # the family's version changes: v reads its base anew
        out.append(state(v))
        x.requires_grad_(False)
        out.append(state(v))
        with L.no_grad():
            x.add_(1)       # v has a history: it reads its base anew, a gradient lost
        out.append(state(v))
        out.append(attempt(lambda: v.sum().backward()))
        out.append(grad(x))
        return out
    same(program)


def test_requires_grad_of_a_view_is_its_own_flag_or_its_bases():
    def program(L):
        out = []
        x = L.ones(2, 3)
        v = x[0]
        x.requires_grad_()
        out.append(v.requires_grad_(False).requires_grad)      # the base's flag still
        out.append(v.requires_grad_(True).requires_grad)       # its own: a real leaf now
        out.append(attempt(lambda: L.autograd.grad((v * 3).sum(), v)))
        (v * 3).sum().backward()
        out += [grad(v), grad(x)]
        x = L.ones(2, 3, requires_grad=True)
        with L.no_grad():
            ng = x[0]
        out.append(ng.requires_grad_(False).requires_grad)
        out.append(ng.requires_grad_(True).requires_grad)
        (ng * 2).sum().backward()
        out += [grad(ng), grad(x)]
        return out
    same(program)


def test_a_view_of_a_base_that_started_requiring_grad_refuses_in_place_writes():
    def program(L):
        out = []
        x = L.ones(2, 3)
        v = x[0]
        with L.no_grad():
            ng = x[1]
        x.requires_grad_()
        out.append(attempt(lambda: v.add_(1)))
        out.append(attempt(lambda: ng.mul_(2)))
        out += [state(v), state(ng)]
        out.append(attempt(lambda: v.retain_grad()))
        out.append(v.retains_grad)
        out.append(attempt(lambda: v.detach_()))
        out.append(attempt(lambda: (ng * 2).sum().backward()))
        out.append(grad(x))
        return out
    same(program)


def test_views_made_in_no_grad_mode_of_a_base_that_later_requires_grad():
    def program(L):
        out = []
        x = L.ones(2, 3)
        with L.no_grad():
            ng = x[1]
            ngv = ng.view(3, 1)
        out.append(state(ng))
        x.requires_grad_()
        out += [state(ng), state(ngv)]
        with L.no_grad():
            x.add_(1)       # torch refuses the no_grad views' history now
        out += [state(ng), state(ngv)]
        out.append(attempt(lambda: ng.backward(L.ones(3))))
        # the same when the base comes to require grad through a recorded write
        w = L.ones(3, requires_grad=True)
        t = L.ones(2, 3) * 1
        with L.no_grad():
            ng = t[0]
        t[1].add_(w)
        out.append(state(ng))
        return out
    same(program)


def test_a_no_grad_view_of_a_leaf_that_requires_grad_is_refused_at_backward_after_a_write():
    def program(L):
        x = L.tensor([-0.5], dtype=L.float64, requires_grad=True)
        with L.set_grad_enabled(False):
            v = x.narrow(0, 0, 1)
        with L.no_grad():
            v.squeeze().le_(L.tensor(-1.5))
        return [state(v), attempt(lambda: v.backward())]
    same(program)


def test_views_of_a_view_that_requires_grad_itself_read_the_root_base_after_a_write():
    def program(L):
        out = []
        # the leaf is a view (of arange's result) made to require grad itself: views of it
        # are views of arange's result, which requires no grad
        t0 = L.arange(3, dtype=L.float32).reshape((1, 3)).requires_grad_()
        t2 = t0.view(3)
        t0.logical_not_()
        out.append(state(t2))
        out.append(attempt(lambda: t2.sum().backward()))
        out.append(grad(t0))
        a = L.arange(6, dtype=L.float32)
        t0 = a.reshape(2, 3).requires_grad_()
        w, p = t0[0], t0[1]
        ww = w[1:]
        q, r = t0.unbind()
        with L.no_grad():
            a.mul_(2)
        out += [state(t0), state(w), state(ww), state(p), state(q)]
        out.append(attempt(lambda: (w.sum() + ww.sum()).backward()))
        out.append(grad(t0))
        # views made before the intermediate view required grad do not follow it
        a = L.arange(3, dtype=L.float32)
        t0 = a.reshape((1, 3))
        t1 = t0[0]
        t0.requires_grad_()
        out += [state(t1), state(t0[0])]
        # an in-place reshape (no_grad) of a view of such a leaf
        t0 = L.arange(1, dtype=L.float32).reshape(()).requires_grad_()
        t1 = t0[...]
        with L.no_grad():
            t1.reshape(()).transpose_(0, -1)
        out.append(state(t1))
        t0 = L.arange(2, dtype=L.float32).reshape((2, 1)).requires_grad_()
        t2 = t0[None, 0]
        t2.logical_not_()
        out.append(state(t2))
        return out
    same(program)


def test_the_root_base_requiring_grad_late_reaches_views_of_views():
    def program(L):
        a = L.arange(3, dtype=L.float32)
        t0 = a.reshape((1, 3))
        t1 = t0[0]
        with L.no_grad():
            t2 = t1[1:]
        a.requires_grad_()
        out = [state(t0), state(t1), state(t2)]
        with L.no_grad():
            a.add_(1)
        out += [state(t0), state(t1), state(t2)]
        out.append(attempt(lambda: (t0.sum() + t1.sum()).backward()))
        out.append(grad(a))
        return out
    same(program)


# ---------------------------------------------------------------- gradients returned as views

def view_state(r):
    b = r._base
    return [r._is_view(), None if b is None else list(b.shape), list(r.stride()), r._version,
            r.requires_grad]


def test_autograd_grad_returns_views_where_torchs_formulas_make_them():
    def program(L):
        out = []
        makers = [lambda x: x.sum(), lambda x: x.sum(0), lambda x: x.mean(), lambda x: x + 1,
                  lambda x: x.t(), lambda x: x.view(6), lambda x: x[..., None],
                  lambda x: x.expand(2, 2, 3), lambda x: x[0], lambda x: x.permute(1, 0),
                  lambda x: x.sum(1, keepdim=True), lambda x: x + L.ones(2, 2, 3),
                  lambda x: x.relu(), lambda x: x.unbind()[1], lambda x: x.cumsum(1),
                  lambda x: L.cat([x, x * 2]), lambda x: x.chunk(3, 1)[1]]
        for f in makers:
            x = L.tensor([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]], requires_grad=True)
            y = f(x)
            r = L.autograd.grad(y.sum(), x)[0]
            g = L.ones(y.shape)
            r2 = L.autograd.grad(f(x), x, g)[0]
            out.append((view_state(r), view_state(r2), r2 is g, r2.tolist()))
        return out
    same(program)


def test_a_returned_gradient_view_shares_its_bases_version_and_refuses_detach_():
    def program(L):
        out = []
        t0 = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        r = L.autograd.grad(t0[..., None].sum(), [t0], allow_unused=True)[0]
        out.append(attempt(lambda: r.detach_()))
        # two gradients viewing the one implicit gradient of a sum: a write shows in both
        a = L.ones(2, requires_grad=True)
        b = L.ones(3, requires_grad=True)
        ra, rb = L.autograd.grad(a.sum() + b.sum(), [a, b])
        out.append(attempt(lambda: ra.mul_(5)))         # expanded: refused
        out.append(attempt(lambda: ra.zero_()))
        out += [ra.tolist(), rb.tolist(), ra._version, rb._version, ra._base is rb._base]
        # a view of the grad_output given: writes into it show in the other
        x = L.ones(2, 3, requires_grad=True)
        g = L.ones(3, 2)
        r = L.autograd.grad(x.t(), x, g)[0]
        out.append(r._base is g)
        g.add_(1)
        out += [r._version, r.tolist()]
        r.mul_(3)
        out += [g._version, g.tolist()]
        w = L.ones(3, 2, requires_grad=True)
        out.append(attempt(lambda: r.add_(w.t())))      # a no_grad view: a recorded write
        g.add_(w)
        out += [state(g), state(r)]
        # passed through unchanged: the grad_output itself
        g = L.ones(2, 3)
        r = L.autograd.grad(x + 1, x, g)[0]
        out.append(r is g)
        return out
    same(program)


def test_grad_versions_follow_torchs_accumulation():
    def program(L):
        out = []
        x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        for f, gout in ((lambda x: x.sum(), None), (lambda x: x.t(), (3, 2)),
                        (lambda x: x * 2, (2, 3)), (lambda x: x + 1, (2, 3)),
                        (lambda x: x.mean(), None), (lambda x: x.sum(0), (3,)),
                        (lambda x: x.expand(2, 2, 3), (2, 2, 3)), (lambda x: x.view(6), (6,)),
                        (lambda x: x[0], (3,)), (lambda x: L.cat([x, x]), (4, 3))):
            x.grad = None
            y = f(x)
            y.backward(None if gout is None else L.ones(gout))
            out.append((x.grad._version, list(x.grad.stride()), x.grad.tolist()))
        x.grad = None
        x.sum().backward()
        x.sum().backward()
        out.append(x.grad._version)
        x.grad = None
        (x * 2).sum().backward()
        x.t().backward(L.ones(3, 2))
        out.append(x.grad._version)
        x.grad = None
        h = x.register_hook(lambda g: g)
        x.sum().backward()
        x.sum().backward()
        out.append(x.grad._version)
        h.remove()
        return out
    same(program)


def test_a_grad_made_while_building_a_graph_is_a_recorded_copy():
    def program(L):
        x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        (x ** 2).sum().backward(create_graph=True)
        out = [x.grad._version, x.grad.grad_fn.name().rsplit("::", 1)[-1]]
        (x ** 2).sum().backward(create_graph=True)
        out += [x.grad._version, x.grad.grad_fn.name(), x.grad.tolist()]
        x.grad = None
        x.sum().backward(create_graph=True)
        out += [x.grad._version, x.grad.grad_fn]
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # (torch's and ember's create_graph cycle warning)
        same(program)


def test_views_of_a_detached_alias_regenerate_after_a_write_through_any_alias():
    def program(L):
        out = []
        x = L.ones(2, 3, requires_grad=True)
        t = x * 1
        v = t[0]
        d = t.detach()
        d.requires_grad_()
        e = d[1]
        d.detach().add_(1)
        out += [state(v), state(t), state(d), state(e)]
        t = x * 1
        d = t.detach()
        e = d[1]
        d.requires_grad_()
        out.append(state(e))
        d.requires_grad_(False)
        out.append(state(e))
        x = L.ones(2, 3)
        d = x.detach()
        e = d[1]
        with L.no_grad():
            f = d[0]
        d.requires_grad_()
        out += [state(e), state(f)]
        with L.no_grad():
            x.add_(1)
        out += [state(e), state(f)]
        a = L.arange(6, dtype=L.float32)
        t0 = a.reshape(2, 3).requires_grad_()
        v = t0[0]
        t0.detach().add_(1)
        out.append(state(v))
        return out
    same(program)


def test_a_view_written_before_its_base_requires_grad_reads_the_base_then():
    """torch regenerates a view's grad_fn when its version changed since it was made: a view
    of a family written (by any alias, recorded or not) before its base came to require grad
    gets AsStridedBackward0 of the base and sends its gradient there; an unwritten one stays a
    leaf whose gradient goes nowhere; a no_grad or multi-output view is refused."""
    programs = (
        "v = b[None]; b.fill_(-0.5)",
        "v = b[None]; v.fill_(-0.5)",
        "v = b[None]; w = b[:1]; w.fill_(-0.5)",
        "v = b[None]; b.mul_(2)",
        "v = b[None]\nwith L.no_grad(): b.fill_(1)",
        "v = b[None][:, :1]; b.fill_(1)",
        "v = b[None]; b.fill_(1); v.fill_(2)",
        "v = b[None]; b.detach().fill_(1)",
        "b.fill_(1); v = b[None]",                           # made after the write: a leaf
        "v = b[None]",
        "with L.no_grad(): v = b[None]\nb.fill_(1)",          # refused
        "with L.no_grad(): v = b[None]\nwith L.no_grad(): b.fill_(1)",
        "b.fill_(3)\nwith L.no_grad(): v = b[None]",          # no_grad, made after: a leaf
        "b.fill_(3)\nwith L.no_grad(): v = b[None]\nb.fill_(3)",
        "w = b[:]\nwith L.no_grad(): v = w[None]\nb.fill_(3)",
        "v = b.unbind(0)[0]; b.fill_(3)",                     # multi-output: refused
        "v = b.unbind(0)[0]",
        "with L.no_grad(): v = b.unbind(0)[0]\nb.fill_(3)",   # the no_grad message
        "v = b.reshape(-1); v *= L.tensor(3.2, dtype=L.float64)",
    )

    def program(L, src):
        ns = {"L": L, "b": L.tensor([[1.0, 2.0]], dtype=L.float64)}
        exec(src, ns)
        b, v = ns["b"], ns["v"]
        b.requires_grad_()
        out = [state(v), state(b)]
        out.append(attempt(lambda: (v * 2).sum().backward()))
        out.append(grad(b))
        return out

    for src in programs:
        assert program(ember, src) == program(torch, src), src


def test_an_empty_tensor_view_then_requires_grad():
    def program(L):
        t = L.zeros((0, 3), dtype=L.float64)
        v = t.reshape(0)
        v *= L.tensor(3.2, dtype=L.float64)
        t.requires_grad_()
        return [state(v), state(t), attempt(lambda: v.sum().backward()), grad(t)]
    same(program)


def test_in_place_view_ops_in_no_grad_mode_regenerate_the_view_itself():
    """t_()/squeeze_()/unsqueeze_()/transpose_() on a view in no_grad mode: the view's own
    grad_fn becomes AsStridedBackward0 of its new geometry (torch regenerates it as its version
    changed), or is refused for a no_grad or multi-output view; a non-view keeps its grad_fn."""
    sources = {
        "view": "y = x * 1; t = y.unsqueeze(1)",
        "view of leaf": "t = x.unsqueeze(1)",
        "no_grad view": "with L.no_grad(): t = x.unsqueeze(1)",
        "no_grad view of non-leaf": "y = x * 1\nwith L.no_grad(): t = y.unsqueeze(1)",
        "multi-output": "y = x * 1; t = y.unsqueeze(1).unbind(1)[0].unsqueeze(1)",
        "no_grad multi-output": "y = x * 1\nwith L.no_grad(): t = y.unsqueeze(1).unbind(1)[0]"
                                ".unsqueeze(1)",
        "non-leaf": "t = (x * 1).unsqueeze(1).clone()",
        "view of a view": "y = x * 1; t = y.unsqueeze(1)[:, :]",
        "detached": "y = x * 1; t = y.detach().unsqueeze(1)",
        "plain view": "t = L.ones(3, 1)[:]",
    }
    ops = ("squeeze_()", "t_()", "unsqueeze_(0)", "transpose_(0, 1)", "squeeze_(1)",
           "swapdims_(0, 1)")

    def program(L, src, op):
        x = L.tensor([-0.5, 1.0, 1.61], requires_grad=True)
        ns = {"L": L, "x": x}
        exec(src, ns)
        t = ns["t"]
        with L.no_grad():
            exec("t." + op, {"t": t})
        out = [state(t), tuple(t.shape)]
        w = L.arange(3.0).reshape(t.shape)
        out.append(attempt(lambda: (t * w).sum().backward()))
        out.append(grad(x))
        y = ns.get("y")
        if y is not None:           # a later untracked write to the base
            with L.no_grad():
                y.mul_(2)
            out.append(state(t))
        return out

    for name, src in sources.items():
        for op in ops:
            assert program(ember, src, op) == program(torch, src, op), (name, op)


def test_an_op_with_no_outputs_still_refuses_a_refused_view():
    """unbind of an empty dim of a view torch refuses (a split output whose base was written)
    raises its refusal, as torch reads the input's grad_fn whatever the op returns."""
    def program(L, shape, ng):
        t0 = L.zeros(shape, dtype=L.float64, requires_grad=True)
        t1 = L.where(t0 > 0, t0, 4)
        t3 = t1.split(3, -3)
        t1.squeeze((-1, 0)).fill_(0)
        if ng:
            with L.no_grad():
                return attempt(lambda: len(t3[0].unbind(-3)))
        return attempt(lambda: len(t3[0].unbind(-3)))

    for shape in ((0, 2, 2), (1, 2, 2)):
        for ng in (False, True):
            assert program(ember, shape, ng) == program(torch, shape, ng), (shape, ng)


def test_no_grad_views_stop_requiring_grad_when_their_base_is_detached_in_place():
    """(fuzz seed 8000) a view made in no_grad mode follows its base's requires_grad, through
    detach_() too (requires_grad_(False) already did)."""
    def run(L):
        out = []
        t0 = L.ones(2, 3, requires_grad=True)
        with L.no_grad():
            t1 = t0.T
        t0.detach_()
        out.append((t1.requires_grad, t1.is_leaf))
        t0.requires_grad_()
        out.append(t1.requires_grad)
        a = L.ones(2, 3, requires_grad=True) * 1
        with L.no_grad():
            b = a.squeeze((-2, -1))
        a.detach_()
        out.append((b.requires_grad, a.requires_grad))
        return out
    assert run(ember) == run(torch)
