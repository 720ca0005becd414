"""Tensor printing: reproduces the text of torch's repr/str for dense CPU tensors."""
import math

import numpy as np

from . import dtypes

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}

_OPTS = dict(_PROFILES["default"], sci_mode=None)

_PREFIX = "tensor("


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set printing options; a profile is applied first, then explicit overrides."""
    if profile in _PROFILES:  # torch silently ignores unknown profile names
        _OPTS.update(_PROFILES[profile])
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _OPTS[key] = value
    # torch assigns sci_mode unconditionally, so any call without it resets it to automatic.
    _OPTS["sci_mode"] = sci_mode


def get_printoptions():
    """Return a copy of the current printing options."""
    return dict(_OPTS)


class _Formatter:
    """Chooses the notation and column width for one real-valued (or int/bool) array."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        self.precision = _OPTS["precision"]
        if not floating:
            if values.size:
                self.width = max(self.width, int(np.char.str_len(_plain_strs(values)).max()))
            return
        shown = values[np.isfinite(values) & (values != 0)]
        if shown.size == 0:
            # Only zeros/nan/inf: torch keeps int mode, width 1, and ignores a forced sci_mode.
            return
        mags = np.abs(shown)
        lo, hi = float(mags.min()), float(mags.max())
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        if _OPTS["sci_mode"] is not None:
            self.sci_mode = bool(_OPTS["sci_mode"])
        # Width comes from the nonzero finite values only; nan/inf may overflow it.
        self.width = max(self.width, int(np.char.str_len(self._raw(shown)).max()))

    def _raw(self, values):
        """Unpadded strings for a float array in the chosen notation."""
        if self.sci_mode:
            return np.char.mod(f"%.{self.precision}e", values)
        if self.int_mode:
            strs = np.char.mod("%.0f", values)
            # Integral values get a trailing '.'; nan and inf do not.
            return np.where(np.isfinite(values), np.char.add(strs, "."), strs)
        return np.char.mod(f"%.{self.precision}f", values)

    def format(self, values):
        """Right-aligned strings for an array of values (any shape)."""
        strs = self._raw(values) if self.floating else _plain_strs(values)
        return np.char.rjust(strs, self.width)


def _plain_strs(values):
    """str() of each int/bool element, as Python would print it."""
    return np.array([str(v) for v in values.ravel().tolist()], dtype=str).reshape(values.shape)


def _summarize(data, edge):
    """Keep only the first and last `edge` entries along every axis longer than 2*edge."""
    index, cut = [], []
    for n in data.shape:
        if n > 2 * edge:
            index.append(np.r_[0:edge, n - edge:n])
            cut.append(True)
        else:
            index.append(np.arange(n))
            cut.append(False)
    return data[np.ix_(*index)] if data.ndim else data, cut


def _element_strings(data, dtype):
    """Formatted element strings (same shape as data) and the width of one element."""
    if dtype.is_complex:
        re, im = data.real.astype(np.float64), data.imag.astype(np.float64)
        real_f, imag_f = _Formatter(re.ravel(), True), _Formatter(im.ravel(), True)
        # The imaginary part is not column-aligned: torch strips its padding before the 'j'.
        imag = np.char.lstrip(np.char.add(imag_f.format(im), "j"))
        # A leading '-' already separates the parts; otherwise an explicit '+' is needed.
        signed = np.char.startswith(imag, "-")
        strs = np.char.add(real_f.format(re), np.where(signed, imag, np.char.add("+", imag)))
        return np.asarray(strs), real_f.width + imag_f.width + 3
    floating = dtype.is_floating_point
    values = data.astype(np.float64) if floating else data
    fmt = _Formatter(values.ravel(), floating)
    return np.asarray(fmt.format(values)), fmt.width + 2


def _nest(strs, cut, indent, per_line, edge):
    """Nested bracket text for an array of element strings (ndim >= 1)."""
    if strs.ndim == 1:
        items = strs.tolist()
        if cut[0]:
            items = items[:edge] + [" ..."] + items[edge:]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = [_nest(sub, cut[1:], indent + 1, per_line, edge) for sub in strs]
    if cut[0]:
        parts = parts[:edge] + ["..."] + parts[edge:]
    # Blocks of a k-dim tensor are separated by k-1 newlines (blank lines beyond 2-D).
    return "[" + ("," + "\n" * (strs.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _body(data, dtype, indent):
    """The bracketed contents (or scalar text) of a non-empty tensor."""
    edge = _OPTS["edgeitems"]
    summarize = data.size > _OPTS["threshold"]
    if summarize and not edge and data.ndim:
        return "[...]"
    if summarize:
        shown, cut = _summarize(data, edge)
    else:
        shown, cut = data, [False] * data.ndim
    strs, elem_len = _element_strings(shown, dtype)
    if data.ndim == 0:
        return str(strs[()])
    vec_indent = indent + data.ndim - 1
    per_line = max(1, (_OPTS["linewidth"] - vec_indent) // elem_len)
    return _nest(strs, cut, indent, per_line, edge)


def _add_suffixes(text, suffixes, indent):
    """Append ', suffix' items, moving one to a new line when it would pass the linewidth."""
    out = [text]
    # torch counts the open last line as 2 longer than it is; keep that for identical wrapping.
    last_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_len + len(suffix) + 2 > _OPTS["linewidth"]:
            out.append(",\n" + " " * indent + suffix)
            last_len = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(data, dtype, grad_fn_name=None, requires_grad=False, tangent=None):
    """Full text torch prints for a tensor holding `data` with ember dtype `dtype` (tangent:
    the text of a dual tensor's tangent)."""
    data = np.asarray(data)
    indent = len(_PREFIX)
    default = dtypes.get_default_dtype()
    suffixes = []
    if data.size == 0:
        # Match NumPy: the shape is spelled out unless it is (0,); the dtype can't be inferred.
        if data.ndim != 1:
            suffixes.append("size=" + str(tuple(data.shape)))
        if dtype is not default:
            suffixes.append("dtype=" + repr(dtype))
        body = "[]"
    else:
        if not _OPTS["edgeitems"]:
            suffixes.append("size=" + str(tuple(data.shape)))
        if dtype not in (default, default.to_complex(), dtypes.int64, dtypes.bool_):
            suffixes.append("dtype=" + repr(dtype))
        body = _body(data, dtype, indent)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append("tangent=" + tangent)
    return _add_suffixes(_PREFIX + body, suffixes, indent)
