"""torch.fft's out= against torch: the output's kind (complex / real) checked with torch's
message, autograd's refusal named after the primitive that writes out (_fft_r2c, _fft_c2c,
_fft_c2r; aten::conj_physical for a real input's ifft/ihfft into an out that requires grad),
the NotImplemented node torch leaves on a real input's ifft/ihfft out= when the input requires
grad, and fftfreq/rfftfreq's out= (dtype from out, torch's checks)."""
import warnings

import pytest
import torch

import ember

NAMES = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
         "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]


def _outcome(fn):
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = fn()
        return ("ok", type(r.grad_fn).__name__, r.requires_grad, str(r.dtype),
                tuple(r.shape), r.detach().tolist(), [str(m.message)[:60] for m in w])
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("x_kind", ["real", "complex"])
@pytest.mark.parametrize("grad", ["input", "out", "both", "none"])
@pytest.mark.parametrize("out_kind", ["same", "other"])
def test_fft_out(name, x_kind, grad, out_kind):
    def run(L):
        xd = L.float32 if x_kind == "real" else L.complex64
        x = L.ones(4, 3, dtype=xd) + (L.arange(12.).view(4, 3) / 7).to(xd)
        ref = getattr(L.fft, name)(x)
        od = ref.dtype if out_kind == "same" else \
            (L.float32 if ref.dtype.is_complex else L.complex64)
        x.requires_grad_(grad in ("input", "both"))
        out = L.empty(0, dtype=od, requires_grad=grad in ("out", "both"))
        return _outcome(lambda: getattr(L.fft, name)(x, out=out))
    try:
        torch_res = run(torch)
    except RuntimeError:        # (no such transform of this input kind)
        with pytest.raises(RuntimeError):
            run(ember)
        return
    assert _outcome_close(run(ember), torch_res)


def _outcome_close(a, b):
    if a[0] != "ok" or b[0] != "ok":
        return a == b
    import numpy as np
    return a[:5] == b[:5] and a[6] == b[6] and np.allclose(np.array(a[5]), np.array(b[5]),
                                                           rtol=1e-5, atol=1e-5)


def test_real_inverse_not_implemented_node():
    """torch conjugates a real input's ifft in place on out: out requires grad through a
    NotImplemented node whose backward fails with torch's message."""
    for L in (torch, ember):
        r = L.fft.ifft(L.ones(4, requires_grad=True), out=L.empty(0, dtype=L.complex64))
        assert type(r.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::conj_physical is not "
                                               "implemented"):
            r.abs().sum().backward()


def test_resize_warning():
    def run(L):
        return _outcome(lambda: L.fft.fft(L.ones(4), out=L.empty(2, dtype=L.complex64)))
    assert run(ember) == run(torch)


FREQ = {
    "long dtype": lambda L, f: f(4, dtype=L.long),
    "complex dtype": lambda L, f: f(4, dtype=L.complex64),
    "out": lambda L, f: f(4, out=L.empty(0)),
    "out float64 d": lambda L, f: f(5, 0.5, out=L.empty(0, dtype=L.float64)),
    "out requires_grad=True": lambda L, f: f(4, out=L.empty(0), requires_grad=True),
    "out requiring grad": lambda L, f: f(4, out=L.empty(0, requires_grad=True)),
    "long out": lambda L, f: f(4, out=L.empty(0, dtype=L.long)),
    "complex out": lambda L, f: f(4, out=L.empty(0, dtype=L.complex64)),
    "dtype mismatch": lambda L, f: f(4, out=L.empty(0, dtype=L.float64), dtype=L.float32),
    "dtype match": lambda L, f: f(4, out=L.empty(0, dtype=L.float64), dtype=L.float64),
    "negative out": lambda L, f: f(-1, out=L.empty(0)),
    "negative": lambda L, f: f(-1),
    "negative 4": lambda L, f: f(-4),
    "nonempty out": lambda L, f: f(4, out=L.empty(3)),
    "out of the same size": lambda L, f: f(6, out=L.empty(2, 2)),
}


@pytest.mark.parametrize("fn", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("case", list(FREQ))
def test_freq_out(fn, case):
    def run(L):
        return _outcome(lambda: FREQ[case](L, getattr(L.fft, fn)))
    assert run(ember) == run(torch)
