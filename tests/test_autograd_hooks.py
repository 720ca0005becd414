"""Issue 12: node and tensor hooks, saved-tensor hooks, multi-grad hooks, anomaly mode,
inference mode and the .grad assignment checks, compared with torch (event logs, values,
error types and messages)."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error

X = np.array([0.5, -1.25, 2.0])


def logs(program):
    """program(L, log) appends events (strings, or arrays) to log; torch's and ember's logs
    must be equal."""
    out = {}
    for L in (torch, ember):
        log = []
        program(L, log)
        out[L] = [e.detach().numpy().round(10).tolist() if hasattr(e, "detach") else e
                  for e in log]
    assert out[torch] == out[ember], (out[torch], out[ember])
    return out[ember]


def test_hook_order_on_a_leaf_and_a_non_leaf():
    def program(L, log):
        x = L.tensor(X, requires_grad=True)
        y = x * 2
        z = (y * y).sum()
        x.register_hook(lambda g: log.append(("x tensor hook", g.tolist())))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("x post acc",
                                                                   t.grad.tolist())))
        y.register_hook(lambda g: log.append(("y tensor hook", g.tolist())) or g * 10)
        y.grad_fn.register_prehook(lambda go: log.append(("y prehook", go[0].tolist())))
        y.grad_fn.register_hook(lambda gi, go: log.append(("y posthook", gi[0].tolist(),
                                                           go[0].tolist())))
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: log.append(("acc prehook", go[0].tolist())))
        acc.register_hook(lambda gi, go: log.append(("acc posthook", len(gi),
                                                     go[0].tolist())))
        z.backward()
        log.append(x.grad)
    logs(program)


def test_hooks_replace_gradients_and_handles_remove():
    def program(L, log):
        x = L.tensor(X, requires_grad=True)
        y = x.exp()
        h = y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1,))
        y.sum().backward(retain_graph=True)
        log.append(x.grad)
        h.remove()
        x.grad = None
        y.sum().backward()
        log.append(x.grad)
    logs(program)


@pytest.mark.parametrize("bad", ["list", "count"])
def test_hook_result_errors(bad):
    def call(L):
        x = L.tensor(X, requires_grad=True)
        y = x.exp()
        y.grad_fn.register_prehook(lambda go: [go[0]] if bad == "list" else (go[0], go[0]))
        y.sum().backward()
    check_error(call, match_message=bad == "list")


def test_post_accumulate_grad_hook_errors():
    check_error(lambda L: L.ones(2).register_post_accumulate_grad_hook(lambda t: None))
    check_error(lambda L: (L.ones(2, requires_grad=True) * 2)
                .register_post_accumulate_grad_hook(lambda t: None))


def test_saved_tensors_hooks_pack_unpack_counts_and_values():
    def program(L, log):
        x = L.tensor(X, requires_grad=True)

        def pack(t):
            log.append(("pack", tuple(t.shape)))
            return t * 1

        def unpack(t):
            log.append("unpack")
            return t
        with L.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).exp()
            z = (y * x.sin()).sum()
        z.backward(retain_graph=True)
        log.append(x.grad)
        g, = L.autograd.grad(z, x, create_graph=True)
        g.sum().backward()
        log.append(x.grad)
    logs(program)


def test_save_on_cpu_and_disable_saved_tensors_hooks():
    def program(L, log):
        x = L.tensor(X, requires_grad=True)
        with L.autograd.graph.save_on_cpu():
            y = x.exp() * x
        y.sum().backward()
        log.append(x.grad)
    logs(program)

    def nested(L):
        with L.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with L.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    check_error(nested)


def test_saved_tensor_attributes_and_raw_saved():
    for L in (torch, ember):
        x = L.tensor(X, requires_grad=True)
        y = x.exp()
        assert isinstance(y.grad_fn, L.autograd.graph.Node)
        np.testing.assert_array_equal(y.grad_fn._saved_result.detach().numpy(),
                                      y.detach().numpy())
        raw = y.grad_fn._raw_saved_result
        raw.register_hooks(lambda t: t * 0 + 5, lambda t: t)
        y.sum().backward()
        assert x.grad.tolist() == [5.0, 5.0, 5.0]


def test_allow_mutation_on_saved_tensors():
    def program(L, log):
        x = L.tensor(X, requires_grad=True)
        with L.autograd.graph.allow_mutation_on_saved_tensors():
            a = x.clone()
            y = a * a
            a.mul_(100)
            y.sum().backward()
        log.append(x.grad)
    logs(program)


def test_multi_grad_hook_all_and_any():
    def program(L, log):
        a = L.tensor(X, requires_grad=True)
        b = L.tensor(X * 2, requires_grad=True)
        c = L.tensor(X * 3, requires_grad=True)
        L.autograd.graph.register_multi_grad_hook(
            (a, b, c), lambda gs: log.append(["all"] + [None if g is None else g.tolist()
                                                        for g in gs]))
        L.autograd.graph.register_multi_grad_hook(
            (a, b), lambda g: log.append(("any", g.tolist())), mode="any")
        (a * b).sum().backward()
        (a * c).sum().backward(inputs=[c])
    logs(program)


# ---------------------------------------------------------------- anomaly mode


def _anomaly_messages(L, fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn(L)
        except RuntimeError as e:
            err = str(e)
        else:
            err = None
    return err, [str(m.message).split(" (Triggered internally")[0] for m in w]


def test_detect_anomaly_nan_names_the_node_and_the_forward_line():
    def fn(L):
        with L.autograd.detect_anomaly():
            a = L.zeros(1, requires_grad=True)
            b = a / a
            b.backward()
    (te, tw), (ee, ew) = (_anomaly_messages(L, fn) for L in (torch, ember))
    assert te == ee == "Function 'DivBackward0' returned nan values in its 1th output."
    assert tw[0] == ew[0]           # "Anomaly Detection has been enabled..."
    # the traceback of the forward call: same last frame, which names this file and line
    assert tw[1].splitlines()[-2:] == ew[1].splitlines()[-2:]
    assert tw[1].splitlines()[0] == ew[1].splitlines()[0]
    assert not ember.is_anomaly_enabled()


def test_anomaly_flags_and_set_detect_anomaly():
    for L in (torch, ember):
        with L.autograd.set_detect_anomaly(True, check_nan=False):
            assert L.is_anomaly_enabled() and not L.is_anomaly_check_nan_enabled()
            a = L.zeros(1, requires_grad=True)
            (a / a).backward()          # NaN allowed when check_nan=False
        assert not L.is_anomaly_enabled() and L.is_anomaly_check_nan_enabled()


def test_inplace_error_in_anomaly_mode_names_the_write():
    def fn(L):
        with L.autograd.detect_anomaly():
            a = L.ones(2, requires_grad=True)
            b = a.exp()
            b.mul_(2)
            b.sum().backward()
    (te, tw), (ee, ew) = (_anomaly_messages(L, fn) for L in (torch, ember))
    assert ee.startswith(te)            # ember adds where the in-place write was
    assert "b.mul_(2)" in ee[len(te):]
    assert tw[1].splitlines()[:-1] == ew[1].splitlines()[:-1] or \
        tw[1].splitlines()[-1] == ew[1].splitlines()[-1]


# ---------------------------------------------------------------- grad modes


def test_inference_mode_tensors_and_errors():
    for L in (torch, ember):
        with L.inference_mode():
            z = L.ones(2)
            assert L.is_inference_mode_enabled() and not L.is_grad_enabled()
            with L.inference_mode(False):
                assert not L.is_inference_mode_enabled() and L.is_grad_enabled()
                n = L.ones(2)
            v = z.view(2)
        assert z.is_inference() and v.is_inference() and L.is_inference(z)
        assert not n.is_inference() and not L.is_inference_mode_enabled()

    def made(L):
        with L.inference_mode():
            return L.ones(2)
    check_error(lambda L: made(L).add_(1))
    check_error(lambda L: (L.ones(2, requires_grad=True) * made(L)).sum().backward())
    check_error(lambda L: made(L)._version)
    check_error(lambda L: made(L).requires_grad_())

    @ember.inference_mode()
    def f(x):
        return x * 2
    assert f(ember.ones(2)).is_inference()


def test_set_grad_enabled_function_and_context():
    for L in (torch, ember):
        L.set_grad_enabled(False)
        assert not L.is_grad_enabled()
        L.set_grad_enabled(True)
        with L.set_grad_enabled(False):
            assert not L.is_grad_enabled()
        assert L.is_grad_enabled()
    check_error(lambda L: L.set_grad_enabled(1))


# ---------------------------------------------------------------- fidelity


def test_grad_assignment_and_requires_grad_messages():
    check_error(lambda L: setattr(L.ones(2, requires_grad=True), "grad", L.ones(3)))
    check_error(lambda L: setattr(L.ones(2, requires_grad=True), "grad",
                                  L.ones(2, dtype=L.float64)))
    check_error(lambda L: L.tensor([1, 2]).requires_grad_())
    check_error(lambda L: L.autograd.grad((L.ones(2, requires_grad=True) * 2).sum(),
                                          [L.ones(2)]))


def test_set_anomaly_enabled_and_grad_mode_per_thread():
    import threading
    for L in (torch, ember):
        L.set_anomaly_enabled(True, check_nan=False)
        assert L.is_anomaly_enabled() and not L.is_anomaly_check_nan_enabled()
        L.set_anomaly_enabled(False)
        assert not L.is_anomaly_enabled() and L.is_anomaly_check_nan_enabled()
        seen = []
        with L.no_grad(), L.inference_mode():
            t = threading.Thread(target=lambda: seen.append(
                (L.is_grad_enabled(), L.is_inference_mode_enabled(),
                 (L.ones(1, requires_grad=True) * 2).requires_grad, L.ones(1).is_inference())))
            t.start()
            t.join()
        assert seen == [(True, False, True, False)]
    check_error(lambda L: L.set_anomaly_enabled(1))
