"""Short-time Fourier transforms, torch.stft / torch.istft, composed as torch composes them
(so their gradients are their parts'): stft pads (center, pad_mode), frames the signal with
as_strided, multiplies by the window and takes _fft_r2c / _fft_c2c per frame; istft inverts
each frame (_fft_c2r / _fft_c2c), windows it and overlap-adds the frames with unfold_backward
(ops/shape.py; node UnfoldBackwardBackward0, whose derivative is Tensor.unfold), divided by the
overlap-added squared window."""
__all__ = ["istft", "stft"]

import warnings

import numpy as np

from ..tensor import wrap
from ._args import wrong_type
from .complex import view_as_real
from .fft import fft_c2c, fft_c2r, fft_r2c
from .pad import pad as _pad
from .shape import unfold_backward

_TYPE = {"float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
         "complex128": "ComplexDouble", "float16": "Half", "int64": "Long", "int32": "Int",
         "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _flag(v):
    return "None" if v is None else str(int(v))


def _window_desc(window):
    if window is None:
        return "None"
    return f"torch.{_TYPE[str(window._data.dtype)]}Tensor{{{list(window._data.shape)}}}"


def _full_window(window, win_length, n_fft, dtype):
    """The window zero-padded (centred) to n_fft; None when no window and win_length = n_fft
    (then no multiplication, as torch)."""
    if window is None:
        if win_length == n_fft:
            return None
        window = wrap(np.ones(win_length, dtype))
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _pad(window, (left, n_fft - win_length - left))
    return window


# ---------------------------------------------------------------- stft

def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    if hop_length is None:
        hop_length = n_fft // 4             # (torch computes it first: a bad n_fft's TypeError)
    x = input._data
    complex_in = x.dtype.kind == "c" or window is not None and window._data.dtype.kind == "c"
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        return_complex = True
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.\nNote: you can still call "
                      "torch.view_as_real on the complex output to recover the old return "
                      "format.", UserWarning, stacklevel=2)
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        shape = (1,) * (3 - x.ndim) + x.shape if x.ndim < 3 else x.shape
        p = n_fft // 2
        input = _pad(input.view(shape), (p, p), pad_mode).view(input.shape[:-1] + (-1,))
        x = input._data
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(msg):
        return RuntimeError(
            f"stft(torch.{_TYPE.get(str(x.dtype), str(x.dtype))}Tensor{list(x.shape)}, "
            f"n_fft={n_fft}, hop_length={hop}, win_length={win}, window={_window_desc(window)}, "
            f"normalized={_flag(normalized)}, onesided={_flag(onesided)}, return_complex="
            f"{_flag(return_complex)}, align_to_window={_flag(align_to_window)}) : {msg}")
    if x.ndim not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    if x.dtype.kind not in "fc":
        raise fail("expected a tensor of floating point or complex values")
    if x.dtype == np.float16:       # (torch's CPU FFT has no Half kernel)
        raise RuntimeError("MKL FFT doesn't support tensors of type: Half")
    length = x.shape[-1]
    if not 0 < n_fft <= length:     # (torch names the window's length when aligning to it)
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft="
                   f"{win if align_to_window else n_fft}")
    if hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window._data.ndim != 1 or window._data.shape[0] != win):
        raise fail(f"expected a 1D window tensor of size equal to win_length={win}, but got "
                   f"window with size {list(window._data.shape)}")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which "
                      "is known to cause spectral leakage. Other windows such as "
                      "torch.hann_window or torch.hamming_window are recommended to reduce "
                      "spectral leakage.To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                      UserWarning, stacklevel=2)
    one = x.ndim == 1
    if one:
        input = input.unsqueeze(0)
    b = input.shape[0]
    frames = 1 + (length - n_fft) // hop
    if align_to_window:
        # frames step with the window (its length, not n_fft's, sets their number): the
        # signal is zero-padded by the window's offset inside a frame, (n_fft - win) // 2, on
        # both sides, and frame f starts that far before f * hop. An odd n_fft - win leaves
        # the last frame one short of the padded signal: torch's storage error, as torch.
        frames = 1 + (length - win) // hop
        left = (n_fft - win) // 2
        if left:
            input = _pad(input, (left, left))
        size = length + 2 * left
        need = (b - 1) * size + (frames - 1) * hop + n_fft
        if need > b * size:
            item = x.dtype.itemsize
            raise RuntimeError(f"setStorage: sizes [{b}, {frames}, {n_fft}], strides [{size}, "
                               f"{hop}, 1], storage offset 0, and itemsize {item} requiring a "
                               f"storage size of {need * item} are out of bounds for storage "
                               f"of size {b * size * item}")
    strides = input.stride()
    framed = input.as_strided((b, frames, n_fft), (strides[0], hop * strides[1], strides[1]),
                              input.storage_offset())
    w = _full_window(window, win, n_fft, x.dtype)
    if w is not None:
        framed = framed * w
    norm = "ortho" if normalized else "backward"
    if complex_in:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = fft_c2c(framed, (2,), norm, True)
    else:
        out = fft_r2c(framed, (2,), norm, onesided is None or bool(onesided))
    out.transpose_(1, 2)
    if one:
        out.squeeze_(0)
    if not return_complex:
        return view_as_real(out)
    return out


# ---------------------------------------------------------------- istft

def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    if isinstance(n_fft, bool) or not isinstance(n_fft, int):
        raise wrong_type(n_fft, "int")
    x = input._data
    if x.dtype.kind != "c":
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(msg, sep=" : "):
        return RuntimeError(
            f"istft(CPU{_TYPE[str(x.dtype)]}Type{list(x.shape)}, n_fft={n_fft}, hop_length="
            f"{hop}, win_length={win}, window={_window_desc(window)}, center={_flag(center)}, "
            f"normalized={_flag(normalized)}, onesided={_flag(onesided)}, length="
            f"{'None' if length is None else length}, return_complex={_flag(return_complex)})"
            f"{sep}{msg}")
    if x.ndim not in (2, 3):
        raise fail(f"expected a tensor with a 3rd dimension of size 2 (complex) or a complex "
                   f"tensor with 2 or 3 dimensions, but got {x.ndim}")
    n_frames, fft_size = x.shape[-1], x.shape[-2]
    expected_len = n_fft + hop * (n_frames - 1)
    if not 0 < hop <= win:
        raise fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise fail("expected 0 < win_length <= n_fft")
    if window is not None and (window._data.ndim != 1 or window._data.shape[0] != win):
        raise fail("Invalid window shape. window has to be 1D and length of `win_length`")
    side = fft_size != n_fft if onesided is None else bool(onesided)
    if side and n_fft // 2 + 1 != fft_size:
        raise fail(f"expected the frequency dimension (3rd to the last) of the input tensor to "
                   f"match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not side and n_fft != fft_size:
        raise fail(f"expected the frequency dimension (3rd to the last) of the input tensor to "
                   f"match n_fft when onesided=False, but got {fft_size}")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please "
                      "provide the same window used by stft to make the inversion lossless.To "
                      "suppress this warning and use a rectangular window, explicitly set "
                      "`window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=2)
    one = x.ndim == 2
    if one:
        input = input.unsqueeze(0)
    rdt = np.float32 if x.dtype == np.complex64 else np.float64
    w = _full_window(window, win, n_fft, rdt)
    spec = input.transpose(1, 2)                  # (B, frames, freq)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if side:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = fft_c2c(spec, (2,), norm, False)
    else:
        if window is not None and window._data.dtype.kind == "c":
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not side:
            spec = spec[..., :n_fft // 2 + 1]
        frames = fft_c2r(spec, (2,), norm, n_fft)
    if w is None:
        w = wrap(np.ones(n_fft, rdt))
    frames = frames * w
    b = frames.shape[0]
    y = unfold_backward(frames, (b, expected_len), 1, n_fft, hop)
    env = unfold_backward((w * w).expand(1, n_frames, n_fft), (1, expected_len), 1, n_fft, hop)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else -(n_fft // 2) if center else expected_len
    y = y[:, start:end]
    env = env[:, start:end]
    if env._data.size and np.abs(env._data).min() < 1e-11:
        # (torch prints the failed check, a bool tensor: 1)
        raise fail("window overlap add min: 1\n[ CPUBoolType{} ]", " ")
    y = y / env
    if one:
        y = y.squeeze(0)
    if end > expected_len:
        warnings.warn("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.", UserWarning, stacklevel=2)
        y = _pad(y, (0, end - expected_len))
    return y
