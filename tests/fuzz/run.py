"""Runs fuzz programs through torch and ember line by line and compares, after every line,
everything in scope: each tensor's values (NaN and infinity positions included), dtype,
shape, requires_grad, is_leaf, grad_fn name, _version and .grad; Python values; and, when a
line raises, the exception's type (ember must raise where torch does, and only then).

    python tests/fuzz/run.py [N] [SEED]      # N random programs from SEED, divergences shrunk

The long profile (EMBER_FUZZ=long in the suite, or this script) draws from random.Random, so
that it can go on past a divergence and count them; each divergence is shrunk by deleting
lines and printed as a runnable program."""
import math
import os
import random
import re
import sys
import time
import warnings

import numpy as np
import torch

if __package__ in (None, ""):            # run as a script: make `fuzz` and `ember` importable
    sys.path[:0] = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]
    __package__ = "fuzz"

import ember  # noqa: E402

from .gen import BASE_NAMES, Gen, backward  # noqa: E402

# Tolerances for floating values: relative, plus an absolute part scaled by the largest
# finite magnitude in the tensor (a sum of terms that cancel keeps the terms' rounding).
# float32 results of the transcendental functions differ from NumPy's in the last digit or
# two (torch uses its own vectorised implementations); float64 ones agree far closer. The
# tolerance follows the precision a value was computed in, not only its dtype: a float64
# value that is a float32 one converted (t.double()) or that was computed from float32
# values (promotion: a float32 tensor times a float64 one, a float64 gradient summed from
# float32 terms) carries float32's last-digit differences, so float64 values are compared
# with float32's tolerance once the program holds a float32 tensor (Runner.saw32).
TOL = {np.dtype(np.float32): (2e-5, 2e-6), np.dtype(np.float64): (1e-9, 1e-12),
       np.dtype(np.float16): (2e-3, 2e-3)}
# Last digits. A float value that agrees within TOL after a line calling one of NAN_SIGN_OPS
# (the libm functions, pow, the reductions and products, backward) takes torch's bits in
# ember's array (_take_last_digits), as its NaN signs do: each later line then compares
# ember's op with torch's on the same operands, and a last-digit difference is not amplified
# into a large one by what follows (tan near a pole, %, frac, floor, a reciprocal of a
# variance near 0). What those differences are, found by experiment (ATEN_CPU_CAPABILITY=avx2,
# float32; tests/test_fuzz_regressions.py holds the bit-for-bit ones):
# - libm: over 100,000 values in [-10, 10], torch's vectorised float32 tan is within 0.93 units
#   in the last place (ulp) of the exact value, NumPy's within 2.86, and they differ on 27.5%
#   of values (cos 18.7%, sin 15.7%, expm1 11.7%, exp 39.3%, log 10.2%); neither is correctly
#   rounded (tan(-1.5): exact -14.10141995, torch -14.101419 at 0.52 ulp, NumPy -14.10142 at
#   0.48), so no formula matches torch, and tan's condition number near a pole (about 780 at
#   tan(-1.5)) makes one ulp of its operand 27.962074 against 27.962824 in tan(tan(-1.5));
# - the order of float32 sums: torch adds a short row with four scalar accumulators and longer
#   ones in eight vector lanes, NumPy pairwise: they differ on about half of random vectors,
#   so a float32 mean (and a variance taken from it) can be an ulp apart; matmul follows BLAS;
# - remainder (fmod, then the divisor added where the signs differ), frac (x - trunc(x)),
#   pow by 3, -2, -0.5, two float32 tensors' pow and var's two passes are torch's arithmetic
#   bit for bit, and a float32 pow by a number is on 98.5% of values (arith.py); they amplify
#   their operand's last-digit difference only.

# NaN sign bits (seen through signbit, copysign, a NaN's repr never shows them) are compared
# after every line, except where the line calls one of NAN_SIGN_OPS: there ember's NaNs are
# given torch's sign bits (written into ember's arrays, so that a later signbit or copysign
# reads the same operand) and the difference is excused. Why these ops: torch's kernels and
# NumPy's give a NaN its sign by different rules, found by experiment for every float op of
# the generator (float32 and float64, invalid and NaN operands of both signs):
# - an invalid operand: log/log2/log10/sqrt/pow(x, 0.5) of a negative number are +NaN in torch
#   (its vectorised kernels), -NaN in NumPy (the x86 default NaN); log1p, erfinv, logit,
#   acos differ the other way or per dtype; pow/atan2/fmod/remainder/xlogy/hypot per element;
# - a NaN operand: NumPy's float32 SIMD loops of exp/log/sin/cos/tan/tanh/erfc drop its sign,
#   torch keeps it; torch's sigmoid flips it; softmax, log_softmax, logsumexp, amax and the
#   float64 tanh/acos loops differ too;
# - two NaNs of opposite signs: which one +, -, *, //, %, maximum/minimum, fmax/fmin, clamp
#   keep depends on each library's operand order;
# - sums of +inf and -inf (sum, mean, var, std, matmul, the gradients autograd sums) and the
#   NaN a reduction or a derivative formula makes or passes on: the order of the terms.
# Matching torch would need a NaN test of every result (np.isnan(r).any() costs 1-4 us on a
# 16-element float32 tensor, about as much as ember's whole log() at ~6 us and twice exp()'s
# ~2.5 us; timeit, OMP_NUM_THREADS=1, on the shared 2-core machine), on the hot path of every
# such op, so it is not done. Views, indexing, setitem, copies, cat/stack, where, masked_fill,
# neg, abs, flip, the in-place fills and the rest of what moves values keep NaN signs
# exactly, and are compared on every line that calls none of these.
NAN_SIGN_OPS = re.compile(
    r"\b(exp|exp2|expm1|log|sqrt|sin|cos|tan|sinh|cosh|tanh|asinh|sigmoid|log1p|log2|log10|erf|"
    r"erfc|erfinv|logit|acos|asin|acosh|atanh|pow|square|float_power|atan2|hypot|xlogy|fmod|"
    r"remainder|maximum|minimum|fmax|fmin|clamp|clip|clamp_min|clamp_max|softmax|log_softmax|"
    r"logsumexp|amax|amin|max|min|sum|nansum|mean|nanmean|var|std|prod|norm|cumsum|cumprod|"
    r"logcumsumexp|cummax|cummin|median|nanmedian|mode|kthvalue|matmul|mm|bmm|mv|dot|outer|"
    r"addmm|lerp|addcmul|addcdiv|add|sub|mul|div|true_divide|floor_divide|rsub|relu|"
    r"grad|backward)_?\(|F\.|[-+*/%@]=|\*\*|//|[\w)\]] [-+*/%@] ")

# Messages that come from ember's internals or NumPy, never from torch.
INTERNAL = re.compile(r"object has no attribute|operands could not be broadcast|negative "
                      r"dimensions are not allowed|is out of bounds for axis|ufunc|numpy|"
                      r"object is not subscriptable|unhashable type|NoneType|_data|"
                      r"object cannot be interpreted|setting an array element|zero-size array|"
                      r"axis \d+ is out of bounds|cannot reshape array|not supported between "
                      r"instances|invalid literal|takes \d+ positional argument|unexpected "
                      r"keyword argument|missing \d+ required")

MAX_NUMEL = 4096

# torch's own bugs: a program reaching one is abandoned, not counted as a divergence.
# - "ZeroTensors are immutable": the gradient of sgn/sign of a real tensor is torch's
#   efficient zero tensor, and a later backward that accumulates into that .grad fails
#   (the ZeroTensor-mutation family of pytorch/pytorch#69855 and #123996).
# - "Autograd not support dtype" / "isDifferentiableType": an in-place comparison of an
#   integral or bool tensor with an operand that requires grad makes it require grad, with a
#   history (as ember does), and torch then fails on that history (reading a view's grad_fn,
#   or backward) with an internal assert: a state torch itself calls unsupported.
# - "INTERNAL ASSERT FAILED": torch's own internal assertion, which asks to be reported as a
#   bug to PyTorch (False ** t, a bool base, fails so in its backward: "unknown ivalue tag").
TORCH_BUGS = ("ZeroTensors are immutable", "Autograd not support dtype", "isDifferentiableType",
              "INTERNAL ASSERT FAILED")


class TorchBug(Exception):
    """The program reached a known torch bug (TORCH_BUGS)."""


class Divergence(Exception):
    """ember and torch disagree; kind names the comparison that failed (for shrinking)."""

    def __init__(self, kind, message, lines):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.lines = list(lines)

    def program(self):
        return format_program(self.lines, self.message)


def format_program(lines, message=""):
    head = ["import torch as L  # or: import ember as L",
            "F = L.nn.functional",
            "nan, inf = float('nan'), float('inf')"]
    out = "\n".join(head + list(lines))
    return out + ("\n# divergence: " + message.replace("\n", "\n# ") if message else "")


def namespace(lib):
    return {"L": lib, "F": lib.nn.functional, "nan": math.nan, "inf": math.inf}


def _builtin_class(e):
    for c in type(e).__mro__:
        if c.__module__ == "builtins":
            return c
    return Exception


class Runner:
    """One program in progress: a namespace per library and the lines run so far."""

    def __init__(self):
        self.nt = namespace(torch)
        self.ne = namespace(ember)
        self.lines = []
        self.versions = {}      # id(torch tensor) -> (it, its _version, ember's, its _version)
        self.saw32 = False      # a float32 tensor has been in scope (see TOL)
        self.nan_signs = False  # this line's NaN signs are excused (NAN_SIGN_OPS)

    def fail(self, kind, message):
        raise Divergence(kind, message, self.lines)

    def step(self, line):
        self.lines.append(line)
        self.nan_signs = NAN_SIGN_OPS.search(line) is not None
        code = compile(line, "<fuzz>", "exec")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            et = _run(code, self.nt)
        with warnings.catch_warnings(record=True) as caught:
            ee = _run(code, self.ne)
        for w in caught:
            if issubclass(w.category, RuntimeWarning):
                self.fail("warning", f"ember let a RuntimeWarning out: {w.message} "
                          f"({w.filename}:{w.lineno})")
        if et is not None and any(b in str(et) for b in TORCH_BUGS):
            raise TorchBug(str(et))
        if et is None and ee is not None:
            self.fail("ember raised", f"ember raised {type(ee).__name__}: {ee}; torch ran")
        if et is not None:
            if ee is None:
                self.fail("torch raised", f"torch raised {type(et).__name__}: {et}; ember ran")
            tc, ec = _builtin_class(et), _builtin_class(ee)
            if not issubclass(ec, tc):
                self.fail("exception type", f"torch raised {type(et).__name__}: {et}\nember "
                          f"raised {type(ee).__name__}: {ee}")
            if str(ee) != str(et) and (isinstance(ee, (AttributeError, KeyError)) or
                                       INTERNAL.search(str(ee))):    # (torch's own: fine)
                self.fail("internal error", f"ember's error looks internal: "
                          f"{type(ee).__name__}: {ee}\ntorch: {type(et).__name__}: {et}")
        self.compare_scope()

    def compare_scope(self):
        nt, ne = self.nt, self.ne
        if not self.saw32:
            self.saw32 = any(_holds32(v) for k, v in nt.items() if k not in BASE_NAMES)
        for k, tv in nt.items():
            if k in BASE_NAMES or k.startswith("__"):
                continue
            if k not in ne:
                self.fail("missing", f"{k} is not defined in ember")
            self.compare(tv, ne[k], k)
        for k in ne:
            if k not in nt and k not in BASE_NAMES and not k.startswith("__"):
                self.fail("missing", f"{k} is defined in ember only")

    def compare(self, tv, ev, what):
        if isinstance(tv, torch.Tensor):
            if not isinstance(ev, ember.Tensor):
                self.fail("type", f"{what}: torch Tensor, ember {type(ev).__name__}")
            self.compare_tensor(tv, ev, what)
        elif isinstance(tv, (tuple, list)):
            if not isinstance(ev, (tuple, list)) or isinstance(tv, list) != isinstance(ev, list):
                self.fail("type", f"{what}: torch {type(tv).__name__}, ember "
                          f"{type(ev).__name__}")
            if len(tv) != len(ev):
                self.fail("length", f"{what}: torch {len(tv)} items, ember {len(ev)}")
            for i, (a, b) in enumerate(zip(tv, ev)):
                self.compare(a, b, f"{what}[{i}]")
        elif isinstance(tv, (bool, int, float, complex)) or tv is None:
            if type(tv) is not type(ev):
                self.fail("type", f"{what}: torch {type(tv).__name__} {tv!r}, ember "
                          f"{type(ev).__name__} {ev!r}")
            if isinstance(tv, float):
                if not _close_scalar(tv, ev):
                    self.fail("value", f"{what}: torch {tv!r}, ember {ev!r}")
            elif tv != ev:
                self.fail("value", f"{what}: torch {tv!r}, ember {ev!r}")
        elif isinstance(tv, torch.dtype):
            if str(tv) != str(ev):
                self.fail("value", f"{what}: torch {tv}, ember {ev}")
        # other objects (hook handles) are not compared

    def compare_tensor(self, t, e, what):
        try:
            t.grad_fn
        except RuntimeError as err:     # torch refuses to use this view any more
            try:
                e.grad_fn
            except RuntimeError:
                return
            self.fail("refused view", f"{what}: torch refuses its grad_fn ({err}); ember "
                      "gives it")
        try:
            e.grad_fn
        except RuntimeError as err:
            self.fail("refused view", f"{what}: ember refuses its grad_fn ({err}); torch "
                      "gives it")
        if tuple(t.shape) != tuple(e.shape):
            self.fail("shape", f"{what}: shape torch {tuple(t.shape)}, ember {tuple(e.shape)}")
        if str(t.dtype) != str(e.dtype):
            self.fail("dtype", f"{what}: dtype torch {t.dtype}, ember {e.dtype}")
        if t.requires_grad != e.requires_grad:
            self.fail("requires_grad", f"{what}: requires_grad torch {t.requires_grad}, "
                      f"ember {e.requires_grad}")
        if t.is_leaf != e.is_leaf:
            self.fail("is_leaf", f"{what}: is_leaf torch {t.is_leaf}, ember {e.is_leaf}")
        tn, en = _fn_name(t), _fn_name(e)
        if tn != en:
            self.fail("grad_fn", f"{what}: grad_fn torch {tn}, ember {en}")
        # A fresh result's _version counts the writes of torch's own kernels (out= variants:
        # a 1-d @ 2-d product, index gradients): only what the program's writes add to it
        # since the tensor first appeared is compared.
        vt, ve = self.versions.setdefault(id(t), (t, t._version, e, e._version))[1::2]
        if t._version - vt != e._version - ve:
            self.fail("version", f"{what}: _version torch {t._version} (from {vt}), ember "
                      f"{e._version} (from {ve})")
        # The sign of a zero is not compared: torch's own kernels disagree with each other
        # on it (amax() of [-0., 0.] is -0., max() is 0.; a product with K = 1 keeps -0.
        # where BLAS gives 0.), so it follows their loop order, not a rule.
        a = _np(t)
        msg = _values_differ(a, e._data, signed_zeros=False, mixed=self.saw32)
        if msg:
            self.fail("value", f"{what}: {msg}")
        self.compare_nan_signs(a, e._data, what)
        if self.nan_signs:
            _take_last_digits(a, e._data)
        if t.is_leaf or t.retains_grad:
            tg, eg = t.grad, e._grad
            if (tg is None) != (eg is None):
                self.fail("grad", f"{what}.grad: torch {tg}, ember {eg}")
            if tg is not None:
                if tuple(tg.shape) != tuple(eg.shape) or str(tg.dtype) != str(eg.dtype):
                    self.fail("grad", f"{what}.grad: torch {tuple(tg.shape)} {tg.dtype}, "
                              f"ember {tuple(eg.shape)} {eg.dtype}")
                msg = _values_differ(_np(tg), eg._data, signed_zeros=False,
                                     mixed=self.saw32)
                if msg:
                    self.fail("grad", f"{what}.grad: {msg}")


    def compare_nan_signs(self, a, b, what):
        """NaN sign bits (see NAN_SIGN_OPS): a (torch's values) and b (ember's array) hold
        NaNs at the same places; their signs must agree unless this line excuses them, and
        then b takes a's."""
        if a.dtype.kind != "f" or a.shape != b.shape or not a.size:
            return
        m = np.isnan(a)
        if not m.any():
            return
        d = m & (np.signbit(a) != np.signbit(b))
        if not d.any():
            return
        if not self.nan_signs:
            self.fail("nan sign", f"{what}: NaN sign bits differ: torch "
                      f"{np.signbit(a).tolist()} ember {np.signbit(b).tolist()}")
        b = _writable(b)
        if b is not None:
            b[d] = np.copysign(b[d], a[d])


def _take_last_digits(a, b):
    """After a line calling one of NAN_SIGN_OPS whose values agreed within TOL: ember's array
    b takes torch's bits a where they differ (see TOL: so that a later line that amplifies a
    last-digit difference compares ember's op with torch's on the same operands)."""
    if a.dtype.kind != "f" or a.shape != b.shape or not a.size or a.dtype != b.dtype:
        return
    d = (a != b) & ~np.isnan(a)
    if d.any():
        b = _writable(b)
        if b is not None:
            b[d] = a[d]


def _writable(arr):
    """arr, or a writable alias of it where it is a read-only view of writable memory (an
    expanded tensor, the gradient autograd.grad returns for a sum, written by an in-place op
    since: its excused NaN signs are copied too); None where its memory is read-only."""
    if arr.flags.writeable:
        return arr
    mem = arr
    while isinstance(mem.base, np.ndarray):
        mem = mem.base
    if not mem.flags.writeable:
        return None
    off = arr.__array_interface__["data"][0] - mem.__array_interface__["data"][0]
    try:
        return np.ndarray(arr.shape, arr.dtype, buffer=mem, offset=off, strides=arr.strides)
    except (TypeError, ValueError):     # (memory that is not one plain buffer)
        return None


def _run(code, ns):
    try:
        exec(code, ns)
    except Exception as e:  # noqa: BLE001 - every error is compared with the other side's
        return e
    return None


def _fn_name(t):
    fn = t.grad_fn
    return None if fn is None else type(fn).__name__


def _np(t):
    t = t.detach()
    if t._is_zerotensor():
        return np.zeros(tuple(t.shape), str(t.dtype).split(".")[1])
    return t.resolve_conj().resolve_neg().numpy()


def _close_scalar(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-5 * abs(a) + 1e-6


def _holds32(v):
    """Whether v is (or holds) a float32 tensor."""
    if isinstance(v, torch.Tensor):
        return v.dtype == torch.float32
    if isinstance(v, (tuple, list)):
        return any(_holds32(x) for x in v)
    return False


def _values_differ(a, b, signed_zeros=True, mixed=False):
    """None if arrays a (torch) and b (ember) agree, else a description of where they don't.
    mixed: float32 values took part in the program (float64 ones get float32's tolerance)."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return f"value shape {a.shape} vs {b.shape}"
    if a.size == 0:
        return None
    if a.dtype.kind in "biu":
        if np.array_equal(a, b):
            return None
        bad = np.argwhere(a != b)[0]
        return f"torch {a.tolist()} ember {b.tolist()} (first at {tuple(bad)})"
    an, bn = np.isnan(a), np.isnan(b)
    if not np.array_equal(an, bn):
        return f"NaN positions differ: torch {a.tolist()} ember {b.tolist()}"
    ai, bi = np.isinf(a), np.isinf(b)
    if not np.array_equal(ai, bi) or not np.array_equal(a[ai], b[bi]):
        return f"infinities differ: torch {a.tolist()} ember {b.tolist()}"
    fin = ~(an | ai)
    af, bf = a[fin].astype(np.float64), b[fin].astype(np.float64)
    rtol, atol = TOL.get(a.dtype, (1e-5, 1e-6))
    with np.errstate(over="ignore"):        # (a float64 beyond float32's range: not one)
        as32 = a.dtype == np.float64 and af.size and np.array_equal(af.astype(np.float32), af)
    if as32 or mixed and a.dtype == np.float64:
        # every value is a float32 one: computed in float32 and converted (t.double()), or
        # the program mixes in float32 values: float32's last-digit differences (see TOL)
        rtol, atol = TOL[np.dtype(np.float32)]
    scale = max(1.0, float(np.abs(af).max())) if af.size else 1.0
    err = np.abs(af - bf)
    if (err > atol * scale + rtol * np.abs(af)).any():
        i = int(np.argmax(err - rtol * np.abs(af)))
        return f"torch {a.tolist()} ember {b.tolist()} (worst {af[i]!r} vs {bf[i]!r})"
    if signed_zeros:        # (off: see Runner.compare_tensor)
        za = fin & (a == 0)
        if za.any() and not np.array_equal(np.signbit(a[za]), np.signbit(b[za])):
            return f"signs of zeros differ: torch {a.tolist()} ember {b.tolist()}"
    return None


# ---------------------------------------------------------------- sources of randomness

class RandomSource:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def int(self, lo, hi):
        return self.r.randint(lo, hi)

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def coin(self, p):
        return self.r.random() < p

    def weighted(self, pairs):
        x = self.r.random() * sum(w for _, w in pairs)
        for v, w in pairs:
            x -= w
            if x < 0:
                return v
        return pairs[-1][0]


# ---------------------------------------------------------------- programs

def run_generated(src, max_ops=8):
    """Generate and run one program (2..max_ops ops, leaves not counted); raises Divergence."""
    r = Runner()
    g = Gen(src, r.nt)
    n = src.int(2, max_ops)
    ops = 0
    while ops < n and len(r.lines) < 2 * max_ops:
        line, is_leaf = g.line(first=not r.lines)
        ops += not is_leaf
        r.step(line)
        if _too_big(r.nt):
            return r.lines
    if src.coin(0.6):
        line = backward(g)
        if line is not None:
            r.step(line)
    return r.lines


def _too_big(ns):
    for k, v in ns.items():
        if isinstance(v, torch.Tensor) and v.numel() > MAX_NUMEL:
            return True
    return False


def replay(lines):
    """Run fixed lines; the Divergence, or None."""
    r = Runner()
    try:
        for line in lines:
            r.step(line)
    except Divergence as d:
        return d
    except TorchBug:
        return None
    return None


def shrink(div, budget=60.0):
    """A shorter program with a divergence of the same kind: delete lines while it lasts, for
    at most `budget` seconds (then the shortest found so far: still runnable, still divergent)."""
    lines = list(div.lines)
    best = div
    changed = True
    end = time.monotonic() + budget
    while changed and time.monotonic() < end:
        changed = False
        for i in range(len(lines) - 1, -1, -1):
            if time.monotonic() >= end:
                break
            trial = lines[:i] + lines[i + 1:]
            d = replay(trial)
            if d is not None and d.kind == best.kind:
                lines, best, changed = d.lines, d, True
                break
    return best


def run_many(n, seed=0, report=None, progress=0, budget=60.0):
    """n random programs from seed; returns (programs run, [(program id, shrunk Divergence),
    ...], programs abandoned at torch bugs). budget: seconds of shrinking per divergence."""
    found = []
    bugs = 0
    t0 = time.time()
    for i in range(n):
        pid = seed * 1_000_003 + i          # the program's own seed: replay it alone
        try:
            run_generated(RandomSource(pid))
        except TorchBug:
            bugs += 1
        except Divergence as d:
            s = shrink(d, budget)
            found.append((pid, s))
            if report:
                report(f"--- program {pid}: {s.kind}\n{s.program()}\n")
        if progress and (i + 1) % progress == 0 and report:
            report(f"[{i + 1}/{n} programs, {len(found)} divergent, {bugs} at torch bugs, "
                   f"{time.time() - t0:.0f} s]\n")
    return n, found, bugs


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 1000
    seed = int(argv[2]) if len(argv) > 2 else 0

    def report(s):
        sys.stdout.write(s)
        sys.stdout.flush()
    t0 = time.time()
    ran, found, bugs = run_many(n, seed, report, progress=max(n // 20, 1))
    print(f"{ran} programs, {len(found)} divergent, {bugs} abandoned at known torch bugs, "
          f"{time.time() - t0:.1f} s")


if __name__ == "__main__":
    main(sys.argv)
