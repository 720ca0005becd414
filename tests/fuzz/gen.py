"""Random programs for the differential fuzzer. A program is a list of lines of Python, each
run under the name `L` (torch or ember) in one namespace; `Gen.line()` writes the next line
after reading the torch side's values, so that most lines fit their operands (shapes that
broadcast, dims in range) and some, on purpose, do not (the errors are compared too).

Randomness comes from a source with four draws (int, pick, coin, weighted): a hypothesis
`data` object in the suite (so failures shrink) or a seeded `random.Random` in the long run.

What the generator leaves out, and why (torch's documented nondeterminism or undefined
behaviour, where any answer is right):
- index_put_/setitem with repeated indices and accumulate=False: "undefined if indices
  contain duplicate elements" (torch.Tensor.index_put_ docs). Advanced indices that write
  are drawn without repeats.
- float -> integer conversion of NaN, infinities or out-of-range values: undefined behaviour
  in C++ (torch's result is whatever the CPU's conversion gives). Conversions to integer
  dtypes (and writes of float tensors into integer ones: setitem, copy_) are only drawn
  for values that are finite and small.
- sort/argsort/topk order among equal values: torch.sort documents that the order of
  equivalent elements is preserved only with stable=True; sort is drawn with stable=True.
- empty(): uninitialised memory.
- the strides of dims of size 0 or 1: they address no memory, and torch keeps whatever its
  view arithmetic produced (zeros(4, 1).t() has strides (1, 1)); only the strides of the
  other dims are compared (ember's are NumPy's, which agree with torch's there).
- median(dim)/nanmedian(dim) of a tensor with an expanded dim (a zero stride: an expand, or
  the gradient autograd.grad returns for a sum): torch 2.13 reads the wrong memory (values
  like 4.6e-41, or another row's median: tensor([-3., 2.])[:, None].expand(2, 3).median(-1)
  gives [2., 2.]), a torch bug; the generator takes max(dim) there instead.
- logsumexp(x, dim=()): torch 2.13 fails with an internal shape error ("output with shape []
  doesn't match the broadcast shape [1, 1, 1]") where dim=() means every dim for sum and
  amax; a torch bug, so the generator gives logsumexp a dim.
- in-place writes into a tensor whose elements share memory (an overlapping unfold) or that
  read a tensor overlapping the written one in a way torch does not check (strided or
  expanded): the Tensor.expand docs warn that in-place operations on such tensors "may
  result in incorrect behavior" (torch's values depend on its vectorisation); torch's
  refusals of the overlaps it does check are kept and compared.
- in-place integer division or remainder by a tensor holding a zero: torch raises its
  ZeroDivisionError from inside the kernel after writing part of the result, so what the
  tensor holds afterwards depends on torch's loop (the error itself is compared out of
  place)."""
import math
import re
import warnings

import numpy as np
import torch

TENSOR = torch.Tensor
BASE_NAMES = frozenset(["L", "F", "nan", "inf", "__builtins__"])

FLOATS = (0.0, 1.0, -1.0, 0.5, 2.0, -0.5, -2.0, 1.5, 3.0, -1.5, 0.25, -3.0, 4.0, 0.75)
SPECIAL = (float("nan"), float("inf"), float("-inf"), -0.0)
DTYPES = ("float32", "float64", "int64", "bool")

UNARY_FLOAT = ("exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "rsqrt",
               "reciprocal", "log1p", "expm1", "log2", "log10", "exp2", "asin", "acos", "atan",
               "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "logit",
               "deg2rad", "rad2deg", "trunc", "frac", "floor", "ceil", "round")
UNARY_ANY = ("abs", "neg", "sign", "sgn", "square", "relu", "positive")
UNARY_PRED = ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "logical_not")
UNARY_INPLACE = ("exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "rsqrt",
                 "reciprocal", "log1p", "expm1", "log2", "log10", "exp2", "asin", "acos",
                 "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv",
                 "logit", "deg2rad", "rad2deg", "trunc", "frac", "floor", "ceil", "round",
                 "abs", "neg", "sign", "sgn", "square", "relu", "nan_to_num", "logical_not",
                 "bitwise_not")

# binary ops: (spelling, kinds of dtype it takes: f float, i int, b bool)
BIN_OPS = ("+", "-", "*", "/", "//", "%", "**")
BIN_FUNCS = ("add", "sub", "mul", "div", "remainder", "fmod", "pow", "maximum", "minimum",
             "atan2", "hypot", "copysign", "xlogy", "fmax", "fmin", "float_power", "eq", "ne",
             "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and",
             "bitwise_or", "bitwise_xor", "floor_divide", "true_divide", "rsub")
CMP_OPS = ("==", "!=", "<", "<=", ">", ">=")
BIT_OPS = ("&", "|", "^")
BIN_INPLACE = ("add_", "sub_", "mul_", "div_", "pow_", "remainder_", "fmod_", "atan2_",
               "hypot_", "copysign_", "xlogy_", "floor_divide_", "float_power_", "lt_", "le_",
               "gt_", "ge_", "eq_", "ne_", "logical_and_", "logical_or_", "logical_xor_",
               "bitwise_and_", "bitwise_or_", "bitwise_xor_", "clamp_min_", "clamp_max_")
IOPS = ("+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=")

REDUCE_DIMS = ("sum", "mean", "amax", "amin", "std", "var", "logsumexp", "nansum", "nanmean",
               "count_nonzero", "any", "all", "norm")
REDUCE_ONE = ("max", "min", "argmax", "argmin", "prod", "median", "nanmedian", "cumsum",
              "cumprod", "logcumsumexp", "cummax", "cummin", "softmax", "log_softmax", "mode")


class Gen:
    """Writes one line at a time; `ns` is the torch side's namespace (read, never written)."""

    def __init__(self, src, ns):
        self.src = src
        self.ns = ns
        self.count = 0

    # ------------------------------------------------------------ draws
    def int(self, lo, hi):
        return self.src.int(lo, hi)

    def pick(self, seq):
        return self.src.pick(seq)

    def coin(self, p=0.5):
        return self.src.coin(p)

    def peek(self, expr):
        """The torch value of expr in the current scope (no grad recorded), or None if it
        raises or is not a tensor."""
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")     # (torch's deprecation warnings)
                v = eval(expr, dict(self.ns))
        except Exception:   # noqa: BLE001 - a line that raises: torch's error is compared
            return None
        return v if isinstance(v, TENSOR) else None

    def new_name(self):
        self.count += 1
        return f"t{self.count - 1}"

    # ------------------------------------------------------------ scope
    def operands(self, pred=None):
        if pred is not None:
            pred = _refusing(pred)
        out = []
        for k, v in self.ns.items():
            if k in BASE_NAMES:
                continue
            if isinstance(v, TENSOR):
                if pred is None or pred(v):
                    out.append((k, v))
            elif isinstance(v, (tuple, list)):
                for i, e in enumerate(v[:6]):
                    if isinstance(e, TENSOR) and (pred is None or pred(e)):
                        out.append((f"{k}[{i}]", e))
        return out

    def operand(self, pred=None):
        ops = self.operands(pred)
        if not ops:
            return None, None
        # favour recent values and those that carry history
        if self.coin(0.5):
            rec = [o for o in ops if o[1].requires_grad]
            if rec:
                ops = rec
        if self.coin(0.5):
            ops = ops[-3:]
        return self.pick(ops)

    # ------------------------------------------------------------ values
    def fval(self):
        r = self.src.weighted(((0, 70), (1, 20), (2, 6)))
        if r == 0:
            return self.pick(FLOATS)
        if r == 1:
            return self.int(-400, 400) / 100
        return self.pick(SPECIAL)

    def ival(self):
        return self.int(-4, 7)

    def value(self, dtype):
        if dtype.startswith("float"):
            return self.fval()
        if dtype == "bool":
            return self.coin()
        return self.ival()

    def shape(self, max_dims=3):
        nd = self.src.weighted(((1, 4), (2, 4), (0, 2), (3, 2), (4, 1)))
        nd = min(nd, max_dims)
        return tuple(self.src.weighted(((2, 4), (1, 3), (3, 3), (4, 1), (0, 1)))
                     for _ in range(nd))

    def dtype(self):
        return self.src.weighted((("float32", 5), ("float64", 2), ("int64", 2), ("bool", 1)))

    def literal(self, shape, dtype, rg=False, explicit=True):
        """Source of a tensor of this shape and dtype (a leaf)."""
        rgs = ", requires_grad=True" if rg else ""
        shape = list(shape)
        while math.prod(shape) > 32:            # keeps programs (and draws) short
            shape[shape.index(max(shape))] -= 1
        if 0 in shape:
            return f"L.zeros({tuple(shape)}, dtype=L.{dtype}{rgs})"
        n = math.prod(shape)
        vals = [self.value(dtype) for _ in range(n)]
        data = _nest([_fmt(v) for v in vals], shape)
        dt = f", dtype=L.{dtype}" if explicit or dtype == "float64" else ""
        return f"L.tensor({data}{dt}{rgs})"

    def scalar(self, kind=None):
        """A Python number, as source."""
        kind = kind or self.src.weighted((("int", 4), ("float", 5), ("bool", 1)))
        if kind == "int":
            return str(self.int(-3, 4))
        if kind == "bool":
            return self.pick(("True", "False"))
        return _fmt(self.fval())

    def like(self, shape, dtype=None, exact=False):
        """An operand expression whose shape broadcasts with `shape` (one in scope where one
        fits, else a literal); exact: it broadcasts *to* shape (an in-place op's other)."""
        want = self.bshape(shape, exact)

        def fits(t):
            try:
                b = torch.broadcast_shapes(tuple(t.shape), tuple(shape))
            except RuntimeError:
                return False
            return not exact or tuple(b) == tuple(shape)
        if self.coin(0.6):
            ops = self.operands(fits)
            if dtype is not None and self.coin(0.7):
                ops = [o for o in ops if str(o[1].dtype) == f"torch.{dtype}"] or ops
            if ops:
                return self.pick(ops)[0]
        return self.literal(want, dtype or self.dtype(), rg=self.coin(0.3) and (
            dtype or "float").startswith("float"))

    def bshape(self, shape, exact=False):
        shape = list(shape)
        if shape and self.coin(0.3):
            shape = shape[self.int(1, len(shape)):]
        out = [1 if self.coin(0.25) else s for s in shape]
        if not exact and self.coin(0.15):
            out = [self.pick((1, 2))] + out
        if self.coin(0.03):             # now and then a shape that does not broadcast
            out = out + [5]
        return tuple(out)

    def dim(self, t, allow_none=False):
        nd = t.dim()
        if self.coin(0.04):
            return self.pick((nd, -nd - 1, 3))
        lo, hi = (-1, 0) if nd == 0 else (-nd, nd - 1)
        return self.int(lo, hi)

    # ------------------------------------------------------------ lines
    def line(self, first=False):
        """The next line, and whether it only makes a new leaf."""
        if first or not self.operands() or self.coin(0.12):
            return self.leaf(), True
        for _ in range(20):
            kind = self.src.weighted(KINDS)
            out = kind(self)
            if out is not None:
                return out, False
        return self.leaf(), True

    def leaf(self):
        name = self.new_name()
        dtype = self.dtype()
        shape = self.shape()
        isf = dtype.startswith("float")
        rg = isf and self.coin(0.7)
        r = self.src.weighted((("lit", 10), ("factory", 2)))
        if r == "lit":
            return f"{name} = {self.literal(shape, dtype, rg, explicit=self.coin(0.8))}"
        rgs = ", requires_grad=True" if rg else ""
        f = self.pick(("zeros", "ones", "full", "arange"))
        if f == "full":
            return f"{name} = L.full({shape}, {_fmt(self.value(dtype))}, dtype=L.{dtype}{rgs})"
        if f == "arange":
            n = math.prod(shape)
            return f"{name} = L.arange({n}, dtype=L.{dtype}).reshape({shape})" + \
                (".requires_grad_()" if rg else "")
        return f"{name} = L.{f}({shape}, dtype=L.{dtype}{rgs})"


def _refusing(pred):
    """pred, false for a view whose history torch refuses to read (its grad_fn, is_leaf)."""
    def safe(t):
        try:
            return pred(t)
        except RuntimeError:
            return False
    return safe


def _fmt(v):
    if isinstance(v, bool):
        return repr(v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _nest(flat, shape):
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return "[" + ", ".join(flat) + "]"
    step = len(flat) // shape[0]
    return "[" + ", ".join(_nest(flat[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def _isf(t):
    return t.dtype.is_floating_point


def _kind(t):
    return "f" if t.dtype.is_floating_point else "b" if t.dtype == torch.bool else "i"


def _small_finite(t):
    """Whether t's values convert to integers without undefined behaviour."""
    if not t.dtype.is_floating_point:
        return True
    d = t.detach()
    return bool(torch.isfinite(d).all()) and bool((d.abs() < 2 ** 31).all())


# ---------------------------------------------------------------- the catalog

def arith(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    if g.coin(0.35):
        s = g.scalar()
        op = g.pick(BIN_OPS + CMP_OPS + BIT_OPS[:1])
        if g.coin(0.3) and op in BIN_OPS:
            return f"{name} = {s} {op} {e}"
        return f"{name} = {e} {op} {s}"
    o = g.like(t.shape, _dtype_of(t) if g.coin(0.6) else None)
    r = g.src.weighted((("op", 4), ("func", 5), ("cmp", 1), ("bit", 1)))
    if r == "op":
        return f"{name} = {e} {g.pick(BIN_OPS)} {o}"
    if r == "cmp":
        return f"{name} = {e} {g.pick(CMP_OPS)} {o}"
    if r == "bit":
        return f"{name} = {e} {g.pick(BIT_OPS)} {o}"
    f = g.pick(BIN_FUNCS)
    extra = ""
    if f in ("add", "sub") and g.coin(0.3):
        extra = f", alpha={g.scalar(g.pick(('int', 'float')))}"
    if f == "div" and g.coin(0.4):
        extra = f", rounding_mode={g.pick(('None', repr('floor'), repr('trunc')))}"
    if g.coin(0.5):
        return f"{name} = L.{f}({e}, {o}{extra})"
    if f == "rsub":
        return f"{name} = L.rsub({e}, {o}{extra})"
    return f"{name} = {e}.{f}({o}{extra})"


def ternary(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    f = g.pick(("lerp", "addcmul", "addcdiv", "where", "clamp", "clamp_t"))
    o = g.like(t.shape, _dtype_of(t))
    if f == "lerp":
        w = g.scalar("float") if g.coin() else g.like(t.shape, _dtype_of(t))
        return f"{name} = L.lerp({e}, {o}, {w})"
    if f in ("addcmul", "addcdiv"):
        o2 = g.like(t.shape, _dtype_of(t))
        v = f", value={g.scalar()}" if g.coin(0.4) else ""
        return f"{name} = L.{f}({e}, {o}, {o2}{v})"
    if f == "where":
        cond = g.pick((f"{e} > 0", f"{o} < 1", g.like(t.shape, "bool")))
        other = g.scalar() if g.coin(0.3) else o
        if g.coin(0.2):
            return f"{name} = {e}.where({cond}, {other})"
        return f"{name} = L.where({cond}, {e}, {other})"
    if f == "clamp":
        lo = g.scalar() if g.coin(0.8) else "None"
        hi = g.scalar() if g.coin(0.6) else "None"
        return f"{name} = {e}.clamp({lo}, {hi})" if g.coin() else \
            f"{name} = L.clamp({e}, min={lo}, max={hi})"
    lo = o if g.coin(0.7) else "None"
    hi = g.like(t.shape, _dtype_of(t)) if g.coin(0.5) else "None"
    return f"{name} = L.clamp({e}, {lo}, {hi})"


def unary(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    k = _kind(t)
    r = g.src.weighted((("float", 6), ("any", 3), ("pred", 1)))
    f = g.pick(UNARY_FLOAT if r == "float" else UNARY_ANY if r == "any" else UNARY_PRED)
    if f == "round" and g.coin(0.3) and k == "f":
        return f"{name} = {e}.round(decimals={g.int(-1, 2)})"
    if f == "logit" and g.coin(0.3):
        return f"{name} = {e}.logit({g.pick(('0.25', '0.0'))})"
    if g.coin(0.5):
        return f"{name} = L.{f}({e})"
    return f"{name} = {e}.{f}()"


def reduction(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    r = g.src.weighted((("dims", 3), ("one", 3), ("all", 2)))
    if r == "all":
        f = g.pick(("sum", "mean", "prod", "max", "min", "amax", "argmax", "argmin", "std",
                    "var", "norm", "all", "any", "count_nonzero", "median", "nansum"))
        return f"{name} = {e}.{f}()"
    kd = ", keepdim=True" if g.coin(0.4) else ""
    if r == "dims":
        f = g.pick(REDUCE_DIMS)
        if t.dim() >= 2 and g.coin(0.4):
            d = tuple(sorted({g.dim(t) for _ in range(2)}))
        else:
            d = g.dim(t)
        if f in ("count_nonzero",):
            kd = ""
        if f in ("std", "var") and g.coin(0.3):
            kd += f", correction={g.pick((0, 1, 2))}"
        if f == "norm":
            p = g.pick(("2", "1", "inf", "0", "3"))
            return f"{name} = {e}.norm({p}, dim={d}{kd})"
        return f"{name} = {e}.{f}({d}{kd})" if g.coin() else f"{name} = L.{f}({e}, {d}{kd})"
    f = g.pick(REDUCE_ONE)
    d = g.dim(t)
    if f in ("median", "nanmedian") and _expanded(t):
        f = "max"       # (torch reads the wrong memory: see the top)
    if f in ("cumsum", "cumprod", "logcumsumexp", "cummax", "cummin", "softmax",
             "log_softmax"):
        kd = ""
    if f in ("softmax", "log_softmax") and g.coin(0.3):
        return f"{name} = F.{f}({e}, dim={d})"
    return f"{name} = {e}.{f}({d}{kd})"


def matmul(g):
    e, t = g.operand(lambda t: 1 <= t.dim() <= 3)
    if e is None:
        return None
    name = g.new_name()
    s = tuple(t.shape)
    k = s[-1]
    f = g.pick(("@", "matmul", "mm", "mv", "dot", "outer", "bmm"))
    n = g.pick((1, 2, 3))
    dt = _dtype_of(t) if g.coin(0.85) else g.dtype()
    if f in ("dot", "outer") or (f == "mv" and t.dim() == 2):
        o = g.like((k,) if f != "outer" else (g.pick((1, 2, 3)),), dt, exact=True) \
            if f != "dot" else g.literal((k,), dt)
        return f"{name} = L.{f}({e}, {o})"
    if f == "bmm":
        o = g.literal((s[0], k, n) if t.dim() == 3 else (1, k, n), dt, rg=g.coin(0.3))
        return f"{name} = L.bmm({e}, {o})"
    oshape = g.pick(((k,), (k, n), (2, k, n), (1, k, n)))
    if f == "mm":
        oshape = (k, n)
    if g.coin(0.05):
        oshape = (k + 1, n)
    o = g.literal(oshape, dt, rg=g.coin(0.4) and dt.startswith("float"))
    if f == "@":
        return f"{name} = {e} @ {o}"
    return f"{name} = L.{f}({e}, {o})" if g.coin() else f"{name} = {e}.{f}({o})"


def view(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    return f"{name} = {e}{view_suffix(g, t, e)}"


def view_suffix(g, t, e):
    """A view (or reshape) of a tensor of t's shape, as a method-call suffix."""
    s = tuple(t.shape)
    nd = len(s)
    f = g.pick(("view", "reshape", "t", "transpose", "permute", "unsqueeze", "squeeze",
                "expand", "flatten", "narrow", "select", "diagonal", "T", "mT", "movedim",
                "unflatten", "contiguous", "detach", "view_as", "getitem", "getitem",
                "unfold", "split", "unbind", "chunk", "ravel", "squeeze_dims"))
    if f in ("view", "reshape"):
        return f".{f}({_reshape(g, s)})"
    if f == "t":
        return ".t()"
    if f == "transpose":
        return f".transpose({g.dim(t)}, {g.dim(t)})"
    if f == "permute":
        p = list(range(nd))
        for i in range(nd - 1, 0, -1):
            j = g.int(0, i)
            p[i], p[j] = p[j], p[i]
        return f".permute({', '.join(map(str, p))}{',' if nd == 1 else ''})" if nd else \
            ".permute(())"
    if f == "unsqueeze":
        return f".unsqueeze({g.int(-nd - 1, nd)})"
    if f == "squeeze":
        return ".squeeze()" if g.coin() else f".squeeze({g.dim(t)})"
    if f == "squeeze_dims":
        return f".squeeze({tuple(sorted({g.dim(t) for _ in range(2)}))})" if nd else \
            ".squeeze(0)"
    if f == "expand":
        new = [g.pick((2, 3)) if (d == 1 and g.coin(0.6)) else
               (-1 if g.coin(0.3) else d) for d in s]
        if g.coin(0.4):
            new = [g.pick((1, 2))] + new
        return f".expand({', '.join(map(str, new))})" if new else ".expand(())"
    if f == "flatten":
        return ".flatten()" if g.coin() or nd < 2 else f".flatten({g.dim(t)})"
    if f == "narrow" and nd:
        d = g.dim(t)
        n = s[d] if -nd <= d < nd else 1
        start = g.int(0, max(n - 1, 0))
        return f".narrow({d}, {start}, {g.int(0, n - start)})"
    if f == "select" and nd:
        d = g.dim(t)
        n = s[d] if -nd <= d < nd else 1
        return f".select({d}, {g.int(-n, max(n - 1, 0))})"
    if f == "diagonal" and nd >= 2:
        return f".diagonal({g.int(-1, 1)})" if g.coin() else \
            f".diagonal(0, {g.dim(t)}, {g.dim(t)})"
    if f == "T" and nd <= 2:
        return ".T"
    if f == "mT":
        return ".mT"
    if f == "movedim" and nd:
        return f".movedim({g.dim(t)}, {g.dim(t)})"
    if f == "unflatten" and nd:
        d = g.dim(t)
        n = s[d] if -nd <= d < nd else 1
        sizes = (n, 1) if g.coin() else (1, -1)
        return f".unflatten({d}, {sizes})"
    if f in ("contiguous", "detach", "ravel"):
        return f".{f}()"
    if f == "view_as":
        return f".view_as({g.literal(s, 'float32')})" if g.coin(0.3) else \
            f".view({_reshape(g, s)})"
    if f == "unfold" and nd:
        d = g.dim(t)
        n = s[d] if -nd <= d < nd else 1
        return f".unfold({d}, {g.int(1, max(n, 1))}, {g.int(1, 2)})"
    if f == "split" and nd:
        return f".split({g.int(1, 3)}, {g.dim(t)})"
    if f == "chunk" and nd:
        return f".chunk({g.int(1, 3)}, {g.dim(t)})"
    if f == "unbind" and nd:
        return f".unbind({g.dim(t)})"
    return index_suffix(g, t, e, write=False)


def _reshape(g, s):
    n = math.prod(s)
    dims = []
    m = n
    for p in (2, 3, 2):
        if m and m % p == 0 and g.coin(0.5):
            dims.append(p)
            m //= p
    dims.append(m)
    if g.coin(0.3):
        dims.insert(g.int(0, len(dims)), 1)
    if g.coin(0.3):
        dims[g.int(0, len(dims) - 1)] = -1
    if g.coin(0.03):
        dims.append(5)
    if n == 1 and g.coin(0.3):
        return "()"
    return ", ".join(map(str, dims))


def index_suffix(g, t, e, write):
    """An indexing expression `[...]` for t: basic (ints, slices, None, ...) or advanced
    (integer lists and tensors, boolean masks). write: no repeated indices."""
    s = tuple(t.shape)
    nd = len(s)
    r = g.src.weighted((("basic", 5), ("int_list", 2), ("mask", 2), ("int_tensor", 1)))
    if nd == 0 and r != "mask":
        return g.pick(("[...]", "[None]", "[()]", "[..., None]"))
    if r == "mask":
        if nd and g.coin(0.3):
            return f"[{g.literal(s[:1], 'bool')}]"
        return f"[{g.literal(s, 'bool')}]" if g.coin(0.5) else \
            g.pick(("[{} > 0]", "[{} != 0]")).format(e)
    if r in ("int_list", "int_tensor"):
        d = g.int(0, nd - 1)
        n = s[d]
        k = g.int(0 if not n else 1, max(n, 1))
        if write or g.coin(0.5):
            pool = list(range(-n, n)) if n else [0]
            idx = []
            for _ in range(k):
                i = g.pick(pool)
                if all((i - j) % n if n else i != j for j in idx):
                    idx.append(i)
        else:
            idx = [g.int(-n, max(n - 1, 0)) for _ in range(k)]
        lit = str(idx) if r == "int_list" else f"L.tensor({idx}, dtype=L.int64)"
        pre = ":, " * d
        if r == "int_list" and not idx:
            lit = "L.tensor([], dtype=L.int64)"
        return f"[{pre}{lit}]"
    parts = []
    for i in range(min(nd, g.int(1, max(nd, 1)))):
        n = s[i]
        k = g.src.weighted((("int", 3), ("slice", 4), ("none", 1), ("ell", 1)))
        if k == "int" and n:
            parts.append(str(g.int(-n, n - 1)))
        elif k == "none":
            parts.append("None")
        elif k == "ell" and "..." not in parts:
            parts.append("...")
        else:
            a = g.pick(("", "1", "-1", "0", "2"))
            b = g.pick(("", "", "2", "-1", "3"))
            step = g.pick(("", "", ":2", ":3"))
            parts.append(f"{a}:{b}{step}")
    return "[" + ", ".join(parts) + "]"


def getitem(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    sfx = index_suffix(g, t, e, write=False)
    return f"{name} = {e}{sfx}"


def setitem(g):
    e, t = g.operand()
    if e is None:
        return None
    sfx = index_suffix(g, t, e, write=True)
    sub = g.peek(f"({e}){sfx}")
    if g.coin(0.5) or sub is None:
        v = g.scalar(_scalar_kind(t))
    else:
        v = g.like(tuple(sub.shape), _dtype_of(t), exact=True)
    basic = not re.search(r"L\.tensor|\[\[|>|!=", sfx)
    if undefined_write(g, sub if basic else t, v) or _undefined_cast(g, t, v):
        return None
    return f"{e}{sfx} = {v}"


def _scalar_kind(t):
    k = _kind(t)
    if k == "f":
        return None
    if k == "b":
        return "bool"
    return "int"


def _dtype_of(t):
    return str(t.dtype).split(".")[1]


def join(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    s = tuple(t.shape)
    f = g.pick(("cat", "stack", "hstack", "vstack", "cat_list"))
    n = g.int(1, 3)
    dt = _dtype_of(t) if g.coin(0.8) else g.dtype()
    if f in ("stack",):
        others = [e if g.coin(0.3) else g.literal(s, dt, rg=g.coin(0.3) and
                                                   dt.startswith("float"))
                  for _ in range(n)]
        d = g.int(-len(s) - 1, len(s))
        return f"{name} = L.stack([{e}, {', '.join(others)}], {d})"
    d = g.dim(t) if s else 0
    others = []
    for _ in range(n):
        if g.coin(0.3):
            others.append(e)
            continue
        sh = list(s)
        if sh and -len(sh) <= d < len(sh):
            sh[d] = g.pick((0, 1, 2))
        if g.coin(0.05):
            sh = sh + [1]
        others.append(g.literal(tuple(sh), dt, rg=g.coin(0.3) and dt.startswith("float")))
    if f == "hstack":
        return f"{name} = L.hstack([{e}, {', '.join(others)}])"
    if f == "vstack":
        return f"{name} = L.vstack([{e}, {', '.join(others)}])"
    return f"{name} = L.cat([{e}, {', '.join(others)}], {d})" if f == "cat" else \
        f"{name} = L.cat(({', '.join(others)}, {e}), dim={d})"


def inplace(g):
    e, t = g.operand()
    if e is None:
        return None
    if g.coin(0.35):                 # through a view made on the spot
        sfx = view_suffix(g, t, e)
        if sfx.startswith((".split", ".unbind", ".chunk")):
            sfx = "[0]" if t.dim() else "[...]"
        target = f"{e}{sfx}"
        t = g.peek(target)
        if t is None:
            return None
    else:
        target = e
    line = _inplace_line(g, target, t)
    if line is None or undefined_write(g, t, line.replace(target, "", 1)):
        return None
    return line


def _expanded(t):
    """Whether t has an expanded dim (a zero stride on a dim of size > 1)."""
    return any(st == 0 and n > 1 for n, st in zip(t.shape, t.stride()))


def undefined_write(g, target, rest):
    """Whether torch's result for a write into `target` reading the scope tensors named in
    `rest` is undefined: the written-to tensor has elements sharing memory that torch does
    not refuse (an overlapping unfold), or an input overlaps it where torch cannot tell
    (a strided or expanded one). The Tensor.expand docs: in-place operations on such
    tensors "may result in incorrect behavior"."""
    if not isinstance(target, TENSOR) or target.numel() == 0:
        return False
    to = _offsets(target)
    if len(set(to.tolist())) < to.size and not any(
            st == 0 and n > 1 for n, st in zip(target.shape, target.stride())):
        return True
    try:
        ptr = target.untyped_storage().data_ptr()
    except RuntimeError:        # (the same torch error as below, for the target itself)
        return True
    names = set(re.findall(r"\bt\d+(?:\[\d+\])?", rest))
    for expr, o in g.operands():
        if expr not in names or o.numel() == 0:
            continue
        try:
            if o.untyped_storage().data_ptr() != ptr:
                continue
        except RuntimeError:    # (torch, rarely: "Attempted to access the data pointer on an
            return True         # invalid python storage": cannot tell, so not written)
        if o.data_ptr() == target.data_ptr() and o.shape == target.shape and \
                o.stride() == target.stride():
            continue
        if not set(_offsets(o).tolist()) & set(to.tolist()):
            continue
        if not (_dense(target) and _dense(o)):
            return True
    return False


def _dense(t):
    """torch's is_non_overlapping_and_dense: some order of the dims is contiguous."""
    expect = 1
    for st, n in sorted((st, n) for n, st in zip(t.shape, t.stride()) if n != 1):
        if st != expect:
            return False
        expect *= n
    return True


def _undefined_cast(g, t, o):
    """Whether writing operand source o into integer t converts a float that is NaN,
    infinite or out of range (undefined behaviour: see the module docstring)."""
    if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
        return False
    v = g.peek(o) if o[:1] in "Lt" else None
    return v is not None and not _small_finite(v)


def _int_by_zero(g, t, o):
    """Whether an in-place division of integer t by operand source o meets a zero (see the
    module docstring)."""
    if t.dtype.is_floating_point:
        return False
    v = g.peek(o) if o[:1] in "Lt" else None
    return v is not None and not v.dtype.is_floating_point and bool((v == 0).any())


def _offsets(t):
    off = np.full((), t.storage_offset(), np.int64)
    for n, st in zip(t.shape, t.stride()):
        off = off[..., None] + np.arange(n, dtype=np.int64) * st
    return off.reshape(-1)


def _inplace_line(g, target, t):
    e = target
    k = _kind(t)
    dt = _dtype_of(t)
    r = g.src.weighted((("bin", 5), ("unary", 4), ("iop", 2), ("fill", 2), ("copy", 1),
                        ("other", 3), ("shape", 1)))
    if r == "bin":
        f = g.pick(BIN_INPLACE)
        o = g.scalar(_scalar_kind(t)) if g.coin(0.4) else g.like(tuple(t.shape), dt if
                                                                   g.coin(0.7) else None,
                                                                   exact=True)
        if f in ("div_", "floor_divide_", "remainder_", "fmod_") and _int_by_zero(g, t, o):
            return None
        return f"{target}.{f}({o})"
    if r == "iop":
        o = g.scalar(_scalar_kind(t)) if g.coin(0.5) else g.like(tuple(t.shape), dt,
                                                                   exact=True)
        op = g.pick(IOPS)
        if op in ("/=", "//=", "%=") and _int_by_zero(g, t, o):
            return None
        if "." in target or "[" in target:
            return f"_ = {target}; _ {op} {o}"
        return f"{target} {op} {o}"
    if r == "unary":
        f = g.pick(UNARY_INPLACE)
        return f"{target}.{f}_()"
    if r == "fill":
        if g.coin(0.4):
            return f"{target}.zero_()"
        v = g.scalar(_scalar_kind(t)) if g.coin(0.7) else g.literal((), dt, rg=g.coin(0.4)
                                                                     and k == "f")
        return f"{target}.fill_({v})"
    if r == "copy":
        o = g.like(tuple(t.shape), dt if g.coin(0.7) else None, exact=True)
        return None if _undefined_cast(g, t, o) else f"{target}.copy_({o})"
    if r == "shape":
        f = g.pick(("t_", "unsqueeze_", "squeeze_", "transpose_", "requires_grad_", "detach_",
                    "retain_grad"))
        if f == "unsqueeze_":
            return f"{target}.unsqueeze_({g.int(-t.dim() - 1, t.dim())})"
        if f == "transpose_":
            return f"{target}.transpose_({g.dim(t)}, {g.dim(t)})"
        return f"{target}.{f}()"
    f = g.pick(("clamp_", "masked_fill_", "lerp_", "addcmul_", "addcdiv_", "index_fill_",
                "index_add_", "nan_to_num_", "tril_", "triu_", "cumsum_", "masked_scatter_",
                "scatter_", "index_copy_", "put_", "clamp_t", "requires_grad_False"))
    s = tuple(t.shape)
    if f == "clamp_":
        return f"{target}.clamp_({g.scalar()}, {g.scalar() if g.coin() else None})"
    if f == "clamp_t":
        return f"{target}.clamp_({g.like(s, dt, exact=True)})"
    if f == "masked_fill_":
        m = g.pick((f"{target} > 0", g.literal(g.bshape(s, True), "bool")))
        v = g.scalar(_scalar_kind(t)) if g.coin(0.7) else g.literal((), dt, rg=k == "f" and
                                                                     g.coin(0.5))
        return f"{target}.masked_fill_({m}, {v})"
    if f == "lerp_":
        return f"{target}.lerp_({g.like(s, dt, exact=True)}, {g.scalar('float')})"
    if f in ("addcmul_", "addcdiv_"):
        return f"{target}.{f}({g.like(s, dt, exact=True)}, {g.like(s, dt, exact=True)}, " \
               f"value={g.scalar()})"
    if f == "nan_to_num_":
        return f"{target}.nan_to_num_({g.scalar('float')}, {g.scalar('float')})"
    if f in ("tril_", "triu_"):
        return f"{target}.{f}({g.int(-1, 1)})"
    if f == "cumsum_":
        return f"{target}.cumsum_({g.dim(t)})"
    if f == "requires_grad_False":
        return f"{target}.requires_grad_(False)"
    if not s:
        return f"{target}.zero_()"
    d = g.dim(t)
    n = s[d] if -len(s) <= d < len(s) else 1
    idx = sorted({g.int(0, max(n - 1, 0)) for _ in range(g.int(1, 2))}) if n else []
    it = f"L.tensor({idx}, dtype=L.int64)"
    if f == "index_fill_":
        return f"{target}.index_fill_({d}, {it}, {g.scalar(_scalar_kind(t))})"
    if f in ("index_add_", "index_copy_"):
        sh = list(s)
        if -len(s) <= d < len(s):
            sh[d] = len(idx)
        return f"{target}.{f}({d}, {it}, {g.like(tuple(sh), dt, exact=True)})"
    if f == "masked_scatter_":
        return f"{target}.masked_scatter_({target} > 0, {g.literal(s, dt)})"
    if f == "scatter_":
        sh = list(s)
        if -len(s) <= d < len(s):
            sh[d] = 1
        ix = g.literal(tuple(sh), "int64").replace("L.tensor(", "L.tensor(").replace(
            "-", "")
        return f"{target}.scatter_({d}, ({ix}).clamp(0, {max(n - 1, 0)}), " \
               f"{g.scalar(_scalar_kind(t))})"
    if f == "put_":
        m = t.numel()
        ids = sorted({g.int(-m, m - 1) % m for _ in range(2)}) if m else []
        return f"{target}.put_(L.tensor({ids}, dtype=L.int64), " \
               f"{g.literal((len(ids),), dt)})"
    return None


def convert(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    to = g.pick(("float", "double", "long", "bool", "to64", "to32", "toi", "clone", "type",
                 "type_as", "int"))
    ints = to in ("long", "toi", "int")
    if ints and not _small_finite(t):
        to = "double"
    if to == "to64":
        return f"{name} = {e}.to(L.float64)"
    if to == "to32":
        return f"{name} = {e}.to(dtype=L.float32)"
    if to == "toi":
        return f"{name} = {e}.to(L.int64)"
    if to == "type":
        return f"{name} = {e}.type(L.float64)"
    if to == "type_as":
        o, _ = g.operand()
        return f"{name} = {e}.type_as({o})"
    if to == "clone":
        return f"{name} = {e}.clone()"
    return f"{name} = {e}.{to}()"


def query(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    q = g.pick(("item", "tolist", "shape", "size", "dim", "numel", "float", "int", "bool",
                "len", "is_contiguous", "stride", "eq_all"))
    if q in ("item", "float", "bool") and t.numel() != 1 and g.coin(0.8):
        q = "tolist"
    if q == "int" and not _small_finite(t):
        q = "tolist"
    if q == "item":
        return f"{name} = {e}.item()"
    if q in ("float", "int", "bool", "len"):
        return f"{name} = {q}({e})"
    if q == "size":
        return f"{name} = {e}.size({g.dim(t)})"
    if q == "eq_all":
        o, _ = g.operand()
        return f"{name} = L.equal({e}, {o})"
    if q == "shape":
        return f"{name} = {e}.shape"
    if q == "stride":       # (the strides of dims of size 0 or 1 address nothing: see top)
        return f"{name} = [s for s, n in zip({e}.stride(), {e}.shape) if n > 1]"
    return f"{name} = {e}.{q}()"


def grad_mode(g):
    e, t = g.operand()
    if e is None:
        return None
    name = g.new_name()
    mode = g.pick(("L.no_grad()", "L.enable_grad()", "L.set_grad_enabled(False)",
                   "L.inference_mode(False)"))
    r = g.src.weighted((("op", 2), ("inplace", 2), ("view", 1)))
    if r == "op":
        return f"with {mode}: {name} = {e} * {g.scalar()}"
    if r == "view":
        return f"with {mode}: {name} = {e}{view_suffix(g, t, e)}"
    line = inplace(g)
    if line is None or "_ = " in line or " = " in line and "[" not in line.split(" = ")[0]:
        return f"with {mode}: {e}.mul_({g.scalar(_scalar_kind(t))})"
    return f"with {mode}: {line}"


def backward(g):
    e, t = g.operand(lambda t: t.requires_grad and t.dtype.is_floating_point)
    if e is None:
        return None
    r = g.src.weighted((("grad", 3), ("sum", 3), ("plain", 2), ("autograd.grad", 2),
                        ("hook", 1)))
    rg = ", retain_graph=True" if g.coin(0.3) else ""
    if r == "grad":
        return f"{e}.backward({g.literal(tuple(t.shape), _dtype_of(t))}{rg})"
    if r == "sum":
        return f"({e} * {g.like(tuple(t.shape), _dtype_of(t))}).sum().backward({rg[2:]})"
    if r == "plain":
        return f"{e}.backward({rg[2:]})"
    if r == "hook":
        return f"_ = {e}.register_hook(lambda g: g * 2)"
    leaves = [k for k, v in g.operands(lambda t: t.requires_grad and t.is_leaf)]
    if not leaves:
        return f"{e}.sum().backward()"
    ls = sorted({g.pick(leaves) for _ in range(2)})
    name = g.new_name()
    au = ", allow_unused=True" if g.coin(0.8) else ""
    return f"{name} = L.autograd.grad({e}.sum(), [{', '.join(ls)}]{au}{rg})"


KINDS = ((arith, 12), (unary, 8), (ternary, 4), (reduction, 7), (matmul, 3), (view, 8),
         (getitem, 5), (setitem, 4), (join, 3), (inplace, 14), (convert, 3), (query, 2),
         (grad_mode, 2), (backward, 3))
