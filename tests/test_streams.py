"""torch.Stream, torch.Event, torch.get_device_module and torch.cpu on a CPU-only machine
(ember/streams.py, ember/cpu.py), against torch."""
import pytest
import torch

import ember


def _same(f):
    out = []
    for m in (torch, ember):
        try:
            r = f(m)
            out.append(("ok", r if isinstance(r, (bool, int, str, type(None), tuple)) else
                        repr(r)))
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    assert out[1] == out[0], out


@pytest.mark.parametrize("f", [
    lambda m: m.Stream(), lambda m: m.Stream("cpu"), lambda m: m.Stream("cpu:0"),
    lambda m: m.Stream(m.device("cpu")), lambda m: m.Stream("meta"),
    lambda m: m.Stream("cpu", priority=1), lambda m: m.Stream(device="cpu"),
    lambda m: m.Stream("cuda"), lambda m: m.Stream("mps"), lambda m: m.Stream(3),
    lambda m: m.Stream("foo"),
    lambda m: m.Stream().query(), lambda m: m.Stream().synchronize(),
    lambda m: (m.Stream().stream_id, m.Stream().device_index, m.Stream().device_type),
    lambda m: repr(m.Stream().device), lambda m: m.Stream() == m.Stream("cpu"),
    lambda m: m.Stream() == m.Stream("meta"), lambda m: m.Stream() == 3,
    lambda m: hash(m.Stream()) == hash(m.Stream()),
    lambda m: m.Stream().wait_event(m.Event()), lambda m: m.Stream().wait_stream(m.Stream()),
    lambda m: m.Stream().record_event(), lambda m: m.Stream().is_capturing(),
    lambda m: m.Stream().native_handle, lambda m: str(m.Stream()),
    lambda m: m.Stream().__enter__(), lambda m: m.Stream().__exit__(None, None, None),
    lambda m: m.Event(), lambda m: m.Event("cpu", enable_timing=True),
    lambda m: m.Event(m.device("cpu"), enable_timing=False, blocking=True, interprocess=True),
    lambda m: m.Event("cuda"), lambda m: m.Event("cpu", True),
    lambda m: m.Event().query(), lambda m: m.Event().record(), lambda m: m.Event().wait(),
    lambda m: m.Event().synchronize(), lambda m: (repr(m.Event().device), m.Event().event_id),
    lambda m: m.Event().elapsed_time(m.Event()),
    lambda m: m.Event(enable_timing=True).elapsed_time(m.Event()),
    lambda m: m.Event().ipc_handle(),
    lambda m: m.get_device_module("ve"), lambda m: m.get_device_module("meta"),
    lambda m: m.get_device_module("foo"), lambda m: m.get_device_module(3),
])
def test_streams_and_events_match_torch(f):
    _same(f)


def test_get_device_module():
    assert ember.get_device_module() is ember.cpu
    assert ember.get_device_module("cpu") is ember.cpu
    assert ember.get_device_module("cpu:0") is ember.cpu
    assert ember.get_device_module(ember.device("cpu")) is ember.cpu
    assert ember.get_device_module("cuda") is ember.cuda
    assert ember.get_device_module("cuda:1") is ember.cuda
    assert torch.get_device_module() is torch.cpu


def test_cpu_module():
    for m in (torch, ember):
        c = m.cpu
        assert (c.is_available(), c.is_initialized(), c.current_device(),
                c.device_count()) == (True, True, "cpu", 1)
        assert c.synchronize() is None and c.synchronize("cpu") is None
        assert c.set_device(3) is None
        s = c.current_stream()
        assert c.current_stream() is s and c.current_stream("cpu") is s
        assert type(s).__name__ == "Stream" and not hasattr(s, "query")
        assert (s.wait_stream(c.Stream()), s.record_event(), s.wait_event(None)) == \
            (None, None, None)
        e = c.Event()
        assert (e.query(), e.record(), e.wait(), e.synchronize()) == (True, None, None, None)
        new = c.Stream(priority=-1)
        ctx = c.stream(new)
        assert type(ctx).__name__ == "StreamContext"
        assert ctx.stream is new and ctx.prev_stream is s
        with ctx as r:
            assert r is None


@pytest.mark.parametrize("f", [
    lambda m: m.Stream("meta").device_type, lambda m: m.Stream("cpu", 3),
    lambda m: m.Stream(device="cpu", foo=1), lambda m: m.Event("meta"),
])
def test_stream_event_arguments(f):
    _same(f)
