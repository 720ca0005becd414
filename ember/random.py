"""Random sampling bit-identical to torch's CPU generator: Generator, seeding and state
(torch's byte layout), fork_rng, every sampling algorithm, the random factories and the
in-place samplers.

Note [Stream]: torch's CPU generator is the 32-bit Mersenne Twister with the standard
(init_genrand) seeding; NumPy's MT19937 with legacy seeding produces the same 32-bit words,
and random_raw gives them in bulk. Every rule below was found by experiment against torch
2.13 (draw, compare, bisect on sizes and dtypes); tests/test_random.py checks each one.
- 64-bit draw: two words, the first is the high half. 53-bit double uniform: the low 53 bits
  of a 64-bit draw times 2**-53. float/half uniform: the low 24 bits of one word * 2**-24.
- uniform_(a, b): fma(u, b - a, a) in the dtype's compute type (float for float and half,
  with b - a computed in float; double for double); a result equal to b becomes a.
- normal, scalar path (fewer than 16 elements, or a non-contiguous target): Box-Muller on
  pairs of double uniforms (u1, u2): r = sqrt(-2 log1p(-u2)), theta = 2 pi u1; the element
  is fma(r cos theta, std, mean) and r sin theta is cached in the generator for the next
  scalar normal (normal_, log_normal_ and randn share it).
- normal, vector path (16 or more elements, contiguous): fill with uniforms of the dtype
  (double: 53-bit; float and half: 24-bit, half draws only 16 * (n // 16) of them), then per
  block of 16: u1 = 1 - x[0:8], u2 = x[8:16], x[0:8] = fma(r cos, std, mean), x[8:16] =
  fma(r sin, std, mean); when n % 16 != 0 the last 16 elements are recomputed from 16 fresh
  uniforms. Double uses libm (NumPy's log/cos/sin give the same bits); float and half use
  torch's AVX2 kernel: Cephes' single-precision log and sincos polynomials with the
  multiply-adds that the compiler fuses (emulated exactly below). The cache is untouched.
- random_ and randint: (a word, or a 64-bit draw when the range is at least 2**28) modulo
  the range, plus from. random_() with no bounds: modulo 2**24 + 1 (float), 2**53 + 1
  (double, 64-bit draw), 2**11 + 1 (half), 2**63 (int64, 64-bit draw), max + 1 (others).
  For float dtypes, a `to` whose `to - 1` rounds up to `to` or beyond in the dtype moves down
  to one spacing below that rounding (and `from` likewise up), before the range is taken.
- bernoulli_(p float), exponential_, geometric_, cauchy_: one double uniform per element
  (exponential -1/lambda log1p(-u), geometric ceil(log u / log1p(-p)), cauchy
  fma(sigma, tan(pi (u - 0.5)), median)); bernoulli_(p tensor): one uniform of p's dtype
  per element, u < p. Results go double -> float -> half for half tensors.
- log_normal_: exp of a scalar-path normal, element by element.
- normal(mean, std) with tensors: normal_(0, 1) on the output (or normal_(0, std) for a
  float std), then * std and + mean in the output dtype; complex dtypes draw their real view
  with std / sqrt(2).
- randperm(n): forward Fisher-Yates, swap(i, i + draw % (n - i)) for i < n - 1, one word per
  step (a 64-bit draw once n reaches _RANDPERM_64).
- multinomial: without replacement (or one sample): argmax / topk of p / q with q an
  exponential_(1) tensor laid out like p; with replacement: per row, the cumulative sum
  (sequential, in p's dtype, float for half) divided by its last element, searched with one
  double uniform per sample (first index whose cumulative value is >= u).
- poisson: per element, Knuth's product of double uniforms below 10, Hormann's PTRS at 10
  and above (data-dependent consumption, so it runs element by element).
- binomial: per element (of the broadcast, in C order), with double uniforms: inversion by
  sums of geometric draws below count * min(p, 1 - p) = 10, Hormann's BTRS from there, the
  count minus the sample for p > 1/2 (the details at _binomial_run).
- Elements are drawn in memory order (torch's TensorIterator sorts dimensions by stride),
  so a transposed target or a *_like of a transposed input gets its draws in that order."""
import math
import os
import struct
import warnings

import numpy as np

from . import _libm, dtypes as D
from .ops._args import no_memory, not_tensor, wrong_type, check_args, invalid_args, OMITTED
from .ops._args import format_rank
from .autograd.grad_mode import STATE
from .autograd.graph import Node, NotImplementedBackward, link
from .tensor import contiguous_format, preserve_format
from .tensor import Tensor, device as _device, wrap
# Core helpers this module needs beyond Tensor/wrap/Node/link/STATE, in one place so that
# they are easy to re-point: in-place bookkeeping and torch's type names, size parsing.
from .dtypes import type_name
from .ops._args import _public_caller, out_grad_error
from .ops._views import inplace, inplace_source, mark_written
from .ops.shape import size_args

_F32, _F64, _U64 = np.float32, np.float64, np.uint64
_TWO_PI = 2.0 * math.pi
_DEFAULT_SEED = 67280421310721          # torch.Generator()'s initial seed
_STATE_SIZE = 5056                      # bytes of torch's CPU generator state
# randperm(n) draws 64 bits per step from this n on (bisected against torch: n = 174482718
# draws 32 bits, n = 174483046 draws 64; the n between were not resolved)
_RANDPERM_64 = 174483046
_RANDPERM_K = 64.0                      # randperm's block: sqrt(K * steps left) steps
_CHUNK = 1 << 17                        # elements per block of the vectorised transforms
_NORMAL_ROWS = 1 << 12                  # rows of 16 per block of the float normal transform
_POISSON_AHEAD = 1.0                    # poisson's uniforms drawn ahead per unit of rate


# ---------------------------------------------------------------- exact float arithmetic

def _fma64(a, b, c):
    """Correctly rounded a*b + c in double (what torch's fused multiply-add gives): the
    exact product as a pair (Dekker/Veltkamp), the exact sum with c, the low parts added
    with round-to-odd, then one rounding (Boldo and Melquiond's emulation)."""
    a, b, c = np.asarray(a, _F64), np.asarray(b, _F64), np.asarray(c, _F64)
    p = a * b
    s = 134217729.0 * a                 # 2**27 + 1: split a and b into 26-bit halves
    ah = s - (s - a)
    al = a - ah
    s = 134217729.0 * b
    bh = s - (s - b)
    bl = b - bh
    pe = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    th = c + p                          # TwoSum(c, p)
    bp = th - c
    tl = (c - (th - bp)) + (p - bp)
    v = tl + pe                         # TwoSum(tl, pe), then round to odd
    bp = v - tl
    w = (tl - (v - bp)) + (pe - bp)
    odd = (w != 0) & ((v.view(np.int64) & 1) == 0)
    if odd.any():
        v = np.where(odd, np.nextafter(v, np.where(w > 0, np.inf, -np.inf)), v)
    return th + v


def _fma32(a, b, c):
    """Correctly rounded a*b + c in float for float32 operands: the product is exact in
    double, the sum rounds once, and the rounding to float is then exact unless that double
    sits exactly on a float midpoint (its low 29 bits are 1 then 28 zeros), which is
    settled from the sign of the sum's rounding error."""
    p = np.multiply(a, b, dtype=_F64)
    s = p + c
    r = s.astype(_F32)
    tie = (s.view(_U64) & 0x1FFFFFFF) == 0x10000000
    if tie.any():
        idx = np.flatnonzero(tie)
        pi, si = p.reshape(-1)[idx], s.reshape(-1)[idx]
        ci = np.broadcast_to(np.asarray(c, _F64), p.shape).reshape(-1)[idx]
        bp = si - pi
        err = (pi - (si - bp)) + (ci - bp)          # exact sum = si + err
        ri = r.reshape(-1)[idx]
        other = np.nextafter(ri, np.where(si > ri, _F32(np.inf), _F32(-np.inf)))
        up = other > ri
        pick = (err != 0) & ((err > 0) == up)
        r.reshape(-1)[idx] = np.where(pick, other, ri)
    return r


class _FastFma32:
    """fma for float32 operands as float64 arithmetic (elementwise arrays of one length),
    noting the elements whose sum sits exactly on a float midpoint (see _fma32): the caller
    recomputes those few elements with _fma32. Costs a third of _fma32's passes."""

    def __init__(self):
        self.ties = []

    def __call__(self, a, b, c):
        s = a.astype(_F64)
        s *= b
        s += c
        tie = (s.view(np.int64) & 0x1FFFFFFF) == 0x10000000
        if tie.any():
            self.ties.append(np.flatnonzero(tie))
        return s.astype(_F32)


# Cephes single-precision log and sin/cos (Moshier), as vectorised for AVX in avx_mathfun,
# which torch's AVX2 normal kernel calls. The compiler fuses each multiply feeding an add
# into one fma (which pairs it fuses was found by experiment); a fused step whose product is
# exact in float (a power of two, or few-bit constants times small integers) is written as a
# float multiply and add, which round the same way.
#
# Note [Exact fma without checks]: each fma(a, b, c) of float operands below is computed as
# float64 a * b (exact: 48 bits) + c, then rounded to float. That is the fused result unless
# the float64 sum was itself rounded and landed on a float midpoint (see _fma32). The inputs
# here are the uniforms torch draws, k * 2**-24, so log and sincos each see exactly 2**24
# possible inputs; on all of them this evaluation equals the exact one (checked exhaustively
# by tests/test_random_normal_f32.py with EMBER_EXHAUSTIVE=1; a sample runs by default).
# One operand of each product is kept in float64 once (m, z, x) so that each fused step is
# three NumPy passes: multiply float by double, add the constant, round to float.
_LOG_P = tuple(float(_F32(c)) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LOG_Q1, _LOG_Q2 = _F32(-2.12194440e-4), _F32(0.693359375)
_DP1, _DP2 = _F32(-0.78515625), _F32(-2.4187564849853515625e-4)
_DP3 = float(_F32(-3.77489497744594108e-8))
_COS_P = tuple(float(_F32(c)) for c in (2.443315711809948e-5, -1.388731625493765e-3,
                                           4.166664568298827e-2))
_SIN_P = tuple(float(_F32(c)) for c in (-1.9515295891e-4, 8.3321608736e-3,
                                           -1.6666654611e-1))


class _Scratch:
    """Work buffers of one size for the float normal kernel, made once per call and reused
    block after block: every temporary of _log_ps, _sincos_ps and _bm16_f32 is written into
    them (out=). At glibc's default thresholds (mmap and heap trim, 128 KiB), which only
    some allocation histories raise, a freed temporary of a block's size goes back to the
    OS and the next block page-faults it in again: with per-block temporaries randn(10M)
    float32 took 300-320 ms instead of 135 in such a process (ember imported from an
    installed copy, torch not imported; both thresholds set high: fast again)."""

    def __init__(self, n):
        self.n = n
        self.f = [np.empty(n, _F32) for _ in range(8)]
        self.d = [np.empty(n, _F64) for _ in range(2)]
        self.i = [np.empty(n, np.int32) for _ in range(3)]
        self.u = [np.empty(n, np.uint32) for _ in range(2)]
        self.b = np.empty(n, np.bool_)

    def cut(self, n):
        """The buffers' first n elements, as a scratch of size n."""
        if n == self.n:
            return self
        s = _Scratch.__new__(_Scratch)
        s.n = n
        s.f, s.d = [a[:n] for a in self.f], [a[:n] for a in self.d]
        s.i, s.u, s.b = [a[:n] for a in self.i], [a[:n] for a in self.u], self.b[:n]
        return s


def _log_ps(x, s=None):
    """Cephes logf of float32 values k * 2**-24 in (0, 1] (Note [Exact fma without
    checks]); x is overwritten; the result is in s.f[0] (s: a _Scratch of x's size, whose
    f[0:3], d[0:2], i[0] and b it uses)."""
    s = s or _Scratch(x.size)
    bits = x.view(np.int32)
    e, t, z, y = s.f[1], s.f[2], s.f[3], s.f[0]
    m64, acc = s.d
    np.right_shift(bits, 23, out=s.i[0])
    np.copyto(e, s.i[0], casting="unsafe")
    e -= _F32(0x7E)
    bits &= 0x007FFFFF
    bits |= 0x3F000000
    m = x                                                       # mantissa in [0.5, 1)
    small = s.b
    np.less(m, _F32(0.707106781186547524), out=small)
    e -= small
    np.multiply(m, small, out=t)
    m -= _F32(1)
    m += t                                                      # 2m - 1 or m - 1 (exact)
    np.multiply(m, m, out=z)
    np.copyto(m64, m)
    np.multiply(m64, _LOG_P[0], out=acc)
    acc += _LOG_P[1]
    np.copyto(y, acc, casting="unsafe")
    for coef in _LOG_P[2:]:
        np.multiply(y, m64, out=acc)
        np.add(acc, coef, out=y, casting="unsafe")
    y *= m
    np.copyto(m64, z)
    np.multiply(y, m64, out=acc)                                # fma(y m, z, e q1)
    np.multiply(e, _LOG_Q1, out=t)
    np.add(acc, t, out=y, casting="unsafe")
    z *= _F32(0.5)
    y -= z
    y += m
    e *= _LOG_Q2
    y += e
    return y


def _sincos_ps(x, s=None):
    """Cephes sinf and cosf of float32 values 2 pi k 2**-24 (rounded to float) in
    [0, 2 pi) (Note [Exact fma without checks]); x is overwritten; the results are in
    s.f[4] and s.f[5] (s: a _Scratch of x's size, whose f[4:8], d[0:2] and i[1:3] it
    uses)."""
    s = s or _Scratch(x.size)
    y, t, z, c, sn = s.f[6], s.f[7], s.f[1], s.f[5], s.f[4]
    j, d = s.i[1], s.i[2]
    acc, z64 = s.d
    np.multiply(x, _F32(1.27323954473516), out=t)               # 4 / pi
    np.copyto(j, t, casting="unsafe")
    j += 1
    j &= ~1
    np.copyto(y, j, casting="unsafe")
    np.multiply(y, _DP1, out=t)                                 # x - j pi/4 in three parts;
    x += t                                                      # the third sum is exact
    np.multiply(y, _DP2, out=t)                                 # in double
    x += t
    np.copyto(acc, y)
    acc *= _DP3
    np.add(acc, x, out=x, casting="unsafe")
    np.multiply(x, x, out=z)
    np.copyto(z64, z)
    np.multiply(z64, _COS_P[0], out=acc)
    acc += _COS_P[1]
    np.copyto(c, acc, casting="unsafe")
    np.multiply(c, z64, out=acc)
    np.add(acc, _COS_P[2], out=c, casting="unsafe")
    c *= z
    np.multiply(c, z64, out=acc)
    np.multiply(z, _F32(-0.5), out=y)
    np.add(acc, y, out=c, casting="unsafe")
    c += _F32(1)
    np.multiply(z64, _SIN_P[0], out=acc)
    acc += _SIN_P[1]
    np.copyto(sn, acc, casting="unsafe")
    np.multiply(sn, z64, out=acc)
    np.add(acc, _SIN_P[2], out=sn, casting="unsafe")
    sn *= z
    x64 = z64
    np.copyto(x64, x)
    np.multiply(sn, x64, out=acc)
    np.add(acc, x64, out=sn, casting="unsafe")
    # swap sin and cos where j & 2, negate sin where j & 4 and cos where (j - 2) & 4 == 0,
    # on the bits (NumPy's where costs several times these integer passes)
    si, ci = sn.view(np.int32), c.view(np.int32)
    np.bitwise_xor(si, ci, out=d)
    np.right_shift(j, 1, out=s.i[0])
    s.i[0] &= 1
    np.negative(s.i[0], out=s.i[0])
    d &= s.i[0]
    si ^= d
    ci ^= d
    np.bitwise_and(j, 4, out=d)
    d <<= 29
    si ^= d
    j -= 2
    np.invert(j, out=j)
    j &= 4
    j <<= 29
    ci ^= j
    return sn, c


def _bm16_f32(w, mean, std, out, s=None):
    """The float vector path's Box-Muller on rows of 16 words (uint32, k x 16): each row's
    uniforms u1 = x[0:8], u2 = x[8:16] give out[0:8] = r cos, out[8:16] = r sin (then
    mean and std) in out (k x 16, float32 or float16, C-contiguous). s: a _Scratch of at
    least 8 k elements (made here when not given)."""
    n = 8 * w.shape[0]
    s = s.cut(n) if s is not None else _Scratch(n)
    rec = np.dtype((np.void, 32))                # each row as two records of 8 words, so
    src = w.view(rec)                           # that the halves copy as k records
    w1, w2 = s.u
    np.copyto(w1.view(rec), src[:, 0])
    np.copyto(w2.view(rec), src[:, 1])
    w1 &= 0xFFFFFF
    x = s.f[6]
    np.copyto(x, w1, casting="unsafe")
    x *= _F32(-2.0 ** -24)
    x += _F32(1)                                                # 1 - u1 (exact)
    r = _log_ps(x, s)
    r *= _F32(-2)
    np.sqrt(r, out=r)
    w2 &= 0xFFFFFF
    th = s.f[2]
    np.copyto(th, w2, casting="unsafe")
    th *= _F32(2.0 ** -24)
    th *= _F32(_TWO_PI)
    sin, cos = _sincos_ps(th, s)
    cos *= r
    sin *= r
    if std == 1:
        cos += _F32(mean)               # (+ 0.0 turns -0.0 into +0.0, as the fma does)
        sin += _F32(mean)
    elif mean == 0:
        cos *= _F32(std)
        sin *= _F32(std)
        cos += _F32(0)
        sin += _F32(0)
    else:
        sd, mn = float(_F32(std)), float(_F32(mean))
        fast = _FastFma32()
        a, b = fast(cos, sd, mn), fast(sin, sd, mn)
        if fast.ties:                   # a float midpoint: the exact fma for this block
            a, b = _fma32(cos, _F32(std), _F32(mean)), _fma32(sin, _F32(std), _F32(mean))
        cos, sin = a, b
    if out.dtype != _F32:
        cos, sin = cos.astype(out.dtype), sin.astype(out.dtype)
    rec = np.dtype((np.void, 8 * out.itemsize))
    dst = out.view(rec)
    dst[:, 0] = cos.view(rec)
    dst[:, 1] = sin.view(rec)



# ---------------------------------------------------------------- Generator

_SEED_KEYS = {}         # recent seeds' Mersenne Twister keys (when NumPy lacks legacy seeding)


def _init_genrand(seed32):
    """The standard MT19937 seeding of a 32-bit seed (the key NumPy's legacy seeding makes)."""
    key = _SEED_KEYS.get(seed32)
    if key is None:
        mt = [seed32]
        for i in range(1, 624):
            prev = mt[-1]
            mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
        key = np.array(mt, np.uint32)
        if len(_SEED_KEYS) > 16:
            _SEED_KEYS.clear()
        _SEED_KEYS[seed32] = key
    return key


def _check_device(device):
    if device is not None:
        _device(device)


def _seed_arg(seed):
    """A seed as torch's unsigned 64-bit value (negative seeds wrap)."""
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError("Overflow when unpacking long long")
    return seed & ((1 << 64) - 1)


class Generator:
    """torch.Generator for the CPU: the Mersenne Twister (a NumPy MT19937 for bulk draws)
    plus the bookkeeping of torch's state: the initial seed, torch's position counters and
    the cached normal values."""

    __slots__ = ("_seed", "_bg", "_np", "_pos", "_idle_next", "_limit", "_normal", "_fnormal",
                 "__weakref__")

    def __init__(self, device="cpu"):
        _check_device(device)
        self._bg = self._np = None
        self._reset(_DEFAULT_SEED)

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"

    def _reset(self, seed):
        self._seed = seed
        self._pos = 624             # the NumPy position: 624 = twist before the next draw
        self._idle_next = 0         # torch's `next` while no draw followed a seed/set_state
        self._limit = None          # draws left before torch twists early (crafted states)
        self._normal = None         # cached double normal (torch's normal_y)
        self._fnormal = None        # torch's cached float normal (4 bytes; kept, not used)
        if self._bg is not None:
            self._seed_mt()

    def _seed_mt(self):
        bg, s = self._bg, self._seed & 0xFFFFFFFF
        if hasattr(bg, "_legacy_seeding"):
            bg._legacy_seeding(s)
        else:
            bg.state = {"bit_generator": "MT19937",
                        "state": {"key": _init_genrand(s), "pos": 624}}

    def _mt(self):
        """The NumPy bit generator, made at the first draw: numpy.random costs ~20 ms to
        import, which a program that never samples should not pay."""
        if self._bg is None:
            self._bg = np.random.MT19937(0)
            self._seed_mt()
        return self._bg

    def _raw(self, n):
        """n consecutive 32-bit words of the stream (as uint64)."""
        if n <= 0:
            return np.empty(0, _U64)
        bg = self._bg if self._bg is not None else self._mt()
        self._idle_next = None
        if self._limit is not None:
            return self._raw_limited(n)
        p = self._pos + n
        self._pos = p if p <= 624 else (p - 1) % 624 + 1
        return bg.random_raw(n)

    def _raw32(self, n):
        """n consecutive 32-bit words as uint32: NumPy's full-range uint32 integers return
        the bit generator's words unchanged, one each, a quarter faster than random_raw
        and at half its memory."""
        if n <= 0 or self._limit is not None:
            return self._raw(n).astype(np.uint32)
        if self._np is None:
            self._np = np.random.Generator(self._mt())
        self._idle_next = None
        p = self._pos + n
        self._pos = p if p <= 624 else (p - 1) % 624 + 1
        return self._np.integers(0, 0xFFFFFFFF, n, np.uint32, endpoint=True)

    def _raw_limited(self, n):
        """Draws from a state whose `left` counter makes torch twist before the end of
        the key (only crafted states have one)."""
        k = min(n, self._limit)
        head = self._bg.random_raw(k)
        self._pos += k
        self._limit -= k
        if self._limit:
            return head
        self._limit = None
        nxt = self._pos
        st = self._bg.state
        st["state"]["pos"] = self._pos = 624
        self._bg.state = st
        self._idle_next = nxt
        if n == k:
            return head
        return np.concatenate([head, self._raw(n - k)])

    # torch's public API
    @property
    def device(self):
        return _device("cpu")

    def manual_seed(self, seed):
        if isinstance(seed, np.integer):
            raise TypeError("an integer is required")
        if not isinstance(seed, int) or isinstance(seed, bool):
            k = type(seed)
            name = k.__name__ if k.__module__ == "builtins" or isinstance(seed, Tensor) \
                else f"{k.__module__}.{k.__qualname__}"
            raise RuntimeError(f"manual_seed expected a long, but got {name}")
        self._reset(_seed_arg(seed))
        return self

    def seed(self):
        s = int.from_bytes(os.urandom(8), "little")
        self._reset(s)
        return s

    def initial_seed(self):
        return self._seed

    def _torch_pos(self):
        """torch's (left, next) counters for the current position."""
        if self._limit is not None:
            return self._limit + 1, self._pos
        if self._pos == 624:
            return 1, 624 if self._idle_next is None else self._idle_next
        return 625 - self._pos, self._pos

    def get_state(self):
        buf = np.zeros(_STATE_SIZE, np.uint8)
        left, nxt = self._torch_pos()
        buf[0:8].view("<u8")[0] = self._seed
        buf[8:12].view("<i4")[0] = left
        buf[12:16].view("<i4")[0] = 1                       # seeded
        buf[16:24].view("<u8")[0] = nxt
        buf[24:5016].view("<u8")[:] = self._mt().state["state"]["key"]
        if self._normal is not None:
            buf[5024:5032].view("<f8")[0] = self._normal    # normal_y (x and rho stay 0)
            buf[5040:5044].view("<i4")[0] = 1
        if self._fnormal is not None:
            buf[5048:5052] = self._fnormal
            buf[5052] = 1
        return wrap(buf)

    def set_state(self, new_state):
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        b = new_state._data
        if not b.flags.c_contiguous:
            raise RuntimeError("RNG state must be contiguous")
        b = b.reshape(-1)
        if b.size != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but "
                               f"found the input RNG state size to be {b.size}")
        seed = int(b[0:8].view("<u8")[0])
        left = int(b[8:12].view("<i4")[0])
        seeded = int(b[12:16].view("<i4")[0])
        nxt = int(b[16:24].view("<u8")[0])
        # torch also accepts left + next > 625, where its next draws read past the end of
        # its 624-word key; ember refuses those crafted states (tests/test_random.py).
        if not 1 <= left <= 624 or not seeded or nxt > 624 or (left > 1 and left + nxt > 625):
            raise RuntimeError("Invalid mt19937 state")
        key = (b[24:5016].view("<u8") & 0xFFFFFFFF).astype(np.uint32)
        bg = self._mt()
        self._seed = seed
        self._idle_next = None
        if left == 1:
            pos, self._limit, self._idle_next = 624, None, nxt
        else:
            pos = nxt
            self._limit = left - 1 if left + nxt < 625 else None
        bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._pos = pos
        self._normal = float(b[5024:5032].view("<f8")[0]) if b[5040:5044].any() else None
        self._fnormal = b[5048:5052].copy() if b[5052] else None
        return self

    def clone_state(self):
        g = Generator()
        g.set_state(self.get_state())
        return g

    def get_offset(self):
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset):
        raise RuntimeError("CPU Generator does not use offset")

    def graphsafe_get_state(self):
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state):
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def __reduce__(self):
        return _rebuild_generator, (self.get_state()._data.tobytes(),)

    def __deepcopy__(self, memo):
        return self.clone_state()


def _rebuild_generator(state):
    g = Generator()
    return g.set_state(wrap(np.frombuffer(state, np.uint8).copy()))


def _new_default():
    g = Generator()
    g._reset(int.from_bytes(os.urandom(8), "little"))    # torch seeds it at start-up
    return g


default_generator = _new_default()


def manual_seed(seed):
    return default_generator.manual_seed(int(seed))


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


class fork_rng:
    """Context manager and decorator: the default generator's state is restored on exit."""

    def __init__(self, devices=None, enabled=True, _caller="fork_rng",
                 _devices_kw="devices", device_type="cuda"):
        self.enabled = enabled
        self._saved = []

    def __enter__(self):
        if self.enabled:
            self._saved.append(default_generator.get_state())

    def __exit__(self, *exc):
        if self.enabled:
            default_generator.set_state(self._saved.pop())
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with fork_rng(enabled=self.enabled):
                return fn(*args, **kwargs)
        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        return wrapper


def _gen(generator):
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise wrong_type(generator, "torch.Generator", TypeError(
            f"expected a torch.Generator, but got {type(generator).__name__}"))
    return generator


# ---------------------------------------------------------------- draws

def _u64(g, n):
    """n 64-bit draws (two words each, the first word high)."""
    r = g._raw(2 * n)
    return (r[0::2] << _U64(32)) | r[1::2]


def _uniform53(g, n):
    """n double uniforms in [0, 1): the low 53 bits of 64-bit draws times 2**-53."""
    r = g._raw(2 * n)
    out = (r[0::2] & 0x1FFFFF).astype(_F64)
    out *= 4294967296.0
    out += r[1::2]
    out *= 2.0 ** -53
    return out


def _uniform24(g, n):
    """n float uniforms in [0, 1): the low 24 bits of words times 2**-24."""
    r = g._raw32(n)
    r &= 0xFFFFFF
    out = r.astype(_F32)
    out *= _F32(2.0 ** -24)
    return out


def _chunked(n, dtype, make):
    """make(count) called on consecutive chunks (the stream is consumed in order), the
    results concatenated into one array of n elements."""
    if n <= _CHUNK:
        return make(n).astype(dtype, copy=False)
    try:
        out = np.empty(n, dtype)
    except MemoryError:
        raise no_memory((n,), dtype) from None
    for s in range(0, n, _CHUNK):
        out[s:s + _CHUNK] = make(min(_CHUNK, n - s))
    return out


def _scaled(x, std, mean, fma):
    """fma(x, std, mean) as torch computes it (a fused multiply-add), with the cheap exact
    forms for std == 1 or mean == 0 (adding 0.0 turns -0.0 into +0.0, as the fma does)."""
    if std == 1:
        return x + x.dtype.type(mean)
    if mean == 0:
        x = x * x.dtype.type(std)
        x += 0.0
        return x
    return fma(x, x.dtype.type(std), x.dtype.type(mean))


# ---------------------------------------------------------------- sampling algorithms
# Each takes a Generator and returns a flat NumPy array in draw (memory) order.

def sample_uniform(g, n, np_dtype, low=0.0, high=1.0):
    """uniform_(low, high): see Note [Stream]."""
    if np_dtype == _F64:
        def make(k):
            x = _uniform53(g, k)
            if low == 0.0 and high == 1.0:
                return x
            v = _fma64(x, high - low, low)
            v[v == high] = low
            return v
        return _chunked(n, _F64, make)
    lo, hi = _F32(low), _F32(high)

    def make32(k):
        x = _uniform24(g, k)
        if low == 0.0 and high == 1.0:
            v = x
        else:
            fast = _FastFma32()
            v = fast(x, float(hi - lo), float(lo))
            if fast.ties:
                i = np.concatenate(fast.ties)
                v[i] = _fma32(x[i], hi - lo, lo)
        if np_dtype != _F32:
            v = v.astype(np_dtype)
        v[v == np_dtype.type(hi)] = np_dtype.type(lo)
        return v
    return _chunked(n, np_dtype, make32)


def _bm16_f64(u, mean, std):
    """The double vector path's Box-Muller on rows of 16 double uniforms (libm)."""
    r = np.sqrt(-2.0 * _libm.log(1.0 - u[:, :8]))
    th = _TWO_PI * u[:, 8:]
    out = np.empty(u.shape, _F64)
    out[:, :8] = _scaled(r * _libm.cos(th), std, mean, _fma64)
    out[:, 8:] = _scaled(r * _libm.sin(th), std, mean, _fma64)
    return out


def _normal_vector(g, n, np_dtype, mean, std):
    """normal_ on a contiguous tensor of n >= 16 elements (see Note [Stream])."""
    k = n // 16
    try:
        out = np.empty(n, np_dtype)
    except MemoryError:
        raise no_memory((n,), np_dtype) from None
    if np_dtype == _F64:
        body = out[:16 * k]
        for s in range(0, 16 * k, _CHUNK):
            m = min(_CHUNK, 16 * k - s)
            body[s:s + m] = _bm16_f64(_uniform53(g, m).reshape(-1, 16), mean, std).reshape(-1)
        if n % 16:
            g._raw(2 * (n % 16))                                # drawn, then overwritten
            out[n - 16:] = _bm16_f64(_uniform53(g, 16).reshape(1, 16), mean, std).reshape(-1)
        return out
    body = out[:16 * k].reshape(k, 16)
    scratch = _Scratch(8 * min(k, _NORMAL_ROWS))
    for s in range(0, k, _NORMAL_ROWS):                         # cache-sized blocks of rows
        rows = body[s:s + _NORMAL_ROWS]
        _bm16_f32(g._raw32(16 * rows.shape[0]).reshape(-1, 16), mean, std, rows, scratch)
    if n % 16:
        if np_dtype != _F16:
            g._raw(n % 16)                                      # drawn, then overwritten
        _bm16_f32(g._raw32(16).reshape(1, 16), mean, std, out[n - 16:].reshape(1, 16),
                  scratch)
    return out


_F16 = np.dtype(np.float16)


def _fma1(x, std, mean):
    """fma(x, std, mean) for Python floats: _fma64's steps without NumPy's per-call cost."""
    if std == 1:
        return x + mean
    if mean == 0:
        return x * std + 0.0
    p = x * std
    s = 134217729.0 * x
    ah = s - (s - x)
    al = x - ah
    s = 134217729.0 * std
    bh = s - (s - std)
    bl = std - bh
    pe = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    th = mean + p
    bp = th - mean
    tl = (mean - (th - bp)) + (p - bp)
    v = tl + pe
    bp = v - tl
    w = (tl - (v - bp)) + (pe - bp)
    if w and not struct.unpack("<q", struct.pack("<d", v))[0] & 1:
        v = math.nextafter(v, math.inf if w > 0 else -math.inf)
    return th + v


def _normal_scalar(g, n, mean=0.0, std=1.0):
    """n scalar-path normals in double, using and refilling the generator's cache."""
    out = np.empty(n, _F64)
    i = 0
    if n and g._normal is not None:
        out[0] = _fma1(g._normal, std, mean)
        g._normal = None
        i = 1
    m = n - i
    if not m:
        return out
    pairs = (m + 1) // 2
    if pairs <= 8:                  # a few pairs: Python floats cost less than NumPy calls
        w = g._raw(4 * pairs).tolist()
        z = []
        for k in range(0, 4 * pairs, 4):
            u1 = ((w[k] & 0x1FFFFF) * 4294967296 + w[k + 1]) * 2.0 ** -53
            u2 = ((w[k + 2] & 0x1FFFFF) * 4294967296 + w[k + 3]) * 2.0 ** -53
            r, th = math.sqrt(-2.0 * math.log1p(-u2)), _TWO_PI * u1
            z += (r * math.cos(th), r * math.sin(th))
        if m % 2:
            g._normal = z[-1]
        out[i:] = [_fma1(v, std, mean) for v in z[:m]]
        return out
    u = _uniform53(g, 2 * pairs)
    r = np.sqrt(-2.0 * _libm.log1p(-u[1::2]))
    th = _TWO_PI * u[0::2]
    z = np.empty(2 * pairs, _F64)
    z[0::2] = r * _libm.cos(th)
    z[1::2] = r * _libm.sin(th)
    if m % 2:
        g._normal = float(z[-1])
    out[i:] = _scaled(z[:m], std, mean, _fma64)
    return out


def _to_dtype(x, np_dtype):
    """A double result in the target dtype: half goes through float, as torch's
    conversions do."""
    if np_dtype == _F16:
        return x.astype(_F32).astype(_F16)
    return x.astype(np_dtype, copy=False)


def sample_normal(g, n, np_dtype, mean=0.0, std=1.0, contiguous=True):
    """normal_(mean, std): the vector path for contiguous targets of 16 or more elements,
    else the scalar path (see Note [Stream])."""
    if contiguous and n >= 16:
        return _normal_vector(g, n, np_dtype, mean, std)
    return _to_dtype(_normal_scalar(g, n, mean, std), np_dtype)


def sample_log_normal(g, n, np_dtype, mean=1.0, std=2.0):
    return _to_dtype(_libm.exp(_normal_scalar(g, n, mean, std)), np_dtype)


def sample_exponential(g, n, np_dtype, lambd=1.0):
    c = -1.0 / lambd
    return _chunked(n, np_dtype, lambda k: _to_dtype(c * _libm.log1p(-_uniform53(g, k)),
                                                      np_dtype))


def sample_geometric(g, n, np_dtype, p):
    c = math.log1p(-p)

    def make(k):
        return _to_dtype(np.ceil(_libm.log(_uniform53(g, k)) / c), np_dtype)
    return _chunked(n, np_dtype, make)


def sample_cauchy(g, n, np_dtype, median=0.0, sigma=1.0):
    def make(k):
        t = _libm.tan(math.pi * (_uniform53(g, k) - 0.5))
        return _to_dtype(_fma64(sigma, t, median), np_dtype)
    return _chunked(n, np_dtype, make)


def sample_bernoulli(g, n, np_dtype, p):
    """bernoulli_(p) for a float p: u < p with one double uniform each, compared exactly as
    53-bit integers (u < p  <=>  u * 2**53 < ceil(p * 2**53))."""
    t = _U64(math.ceil(p * 2.0 ** 53))

    def make(k):
        r = g._raw(2 * k)
        x = ((r[0::2] & 0x1FFFFF) << _U64(32)) | r[1::2]
        return x < t
    return _chunked(n, np_dtype, make)


def sample_bernoulli_tensor(g, p):
    """bernoulli_(p) for a tensor p (flat, in draw order): one uniform of p's dtype each
    (a double for double p, else a float), u < p."""
    if p.dtype == _F64:
        uni = _uniform53
    else:
        uni, p = _uniform24, p.astype(_F32, copy=False)
    out = np.empty(p.size, np.bool_)
    for s in range(0, p.size, _CHUNK):
        q = p[s:s + _CHUNK]
        out[s:s + _CHUNK] = uni(g, q.size) < q
    return out


def sample_random(g, n, np_dtype, low, span):
    """random_(low, low + span) and randint: a draw modulo span, plus low; 64-bit draws when
    span is 2**28 or more; span 2**64 (the whole int64 range): the raw 64-bit draw."""
    if span == 1 << 64:
        return _chunked(n, np_dtype, lambda k: _u64(g, k).view(np.int64))
    wide = span >= 1 << 28
    lo = _U64(low & ((1 << 64) - 1))

    def make(k):
        x = _u64(g, k) if wide else g._raw(k)
        x %= _U64(span)
        x += lo                                     # modulo 2**64: the int64 bits of x + low
        return x.view(np.int64).astype(np_dtype)
    return _chunked(n, np_dtype, make)


_FULL = {np.dtype(np.float32): (1 << 24) + 1, np.dtype(np.float64): (1 << 53) + 1,
         np.dtype(np.float16): (1 << 11) + 1, np.dtype(np.int64): 1 << 63,
         np.dtype(np.int32): 1 << 31, np.dtype(np.int16): 1 << 15, np.dtype(np.int8): 1 << 7,
         np.dtype(np.uint8): 1 << 8, np.dtype(np.bool_): 2}


def sample_random_full(g, n, np_dtype):
    """random_() with no bounds: modulo the dtype's span (a 64-bit draw for int64 and
    double)."""
    span = _U64(_FULL[np_dtype])
    wide = np_dtype in (np.dtype(np.int64), _F64)

    def make(k):
        x = _u64(g, k) if wide else g._raw(k)
        x %= span
        return x.astype(np_dtype)
    return _chunked(n, np_dtype, make)


def sample_randperm(g, n):
    """randperm(n) as int64: forward Fisher-Yates, step i swapping i with
    j_i = i + draw % (n - i). The swaps run block by block: the steps of a block that share
    no position with another step of the block commute with all of them and are applied at
    once; the few others run one by one in order, as do the last steps (where the ranges are
    small and nearly every step shares a position). Values live in int32 (half the cache
    footprint of the random accesses), positions in intp (NumPy's native index type)."""
    it = np.int32 if n < 1 << 31 else np.int64
    r = np.arange(n, dtype=it)
    if n < 2:
        return r.astype(np.int64)
    if n >= _RANDPERM_64:
        x = _chunked(n - 1, _U64, lambda k: _u64(g, k))
        x %= np.arange(n, 1, -1, dtype=_U64)
    else:
        x = g._raw32(n - 1)
        x %= np.arange(n, 1, -1, dtype=np.uint32)
    j = x.astype(np.intp)
    j += np.arange(n - 1, dtype=np.intp)
    end = n - 1 - 1024 if n > 1025 else 0
    s = 0
    if end:
        steps = np.arange(end, dtype=it)
        stamp = np.full(n, -1, it)
    while s < end:
        e = min(end, s + max(64, int(math.sqrt(_RANDPERM_K * (n - s)))))
        js, ar = j[s:e], steps[s:e]
        stamp[js] = ar                          # one writer per target position survives
        bad = stamp[js] != ar                   # steps whose target another step also has,
        lost = np.flatnonzero(bad)
        bad[stamp[js[lost]] - s] = True         # and the steps that survived them
        inb = np.flatnonzero(js < e)            # targets inside the block: the step there
        inb = inb[js[inb] != inb + s]           # (unless it is the step's own position)
        bad[inb] = True
        bad[js[inb] - s] = True
        if bad.any():
            good = ~bad
            seg = r[s:e]
            jg = js[good]
            vi = seg[good]
            seg[good] = r[jg]
            r[jg] = vi
            # the others touch only positions no good step touches: swap them in order on
            # a dict of those positions' values
            t = np.flatnonzero(bad)
            ii, jj = t + s, js[t]
            where = np.concatenate((ii, jj))
            vals = dict(zip(where.tolist(), r[where].tolist()))
            for i, k in zip(ii.tolist(), jj.tolist()):
                vals[i], vals[k] = vals[k], vals[i]
            r[np.fromiter(vals.keys(), np.intp, len(vals))] = list(vals.values())
        else:
            vi = r[s:e].copy()
            r[s:e] = r[js]
            r[js] = vi
        s = e
    tail = r[s:].tolist()                       # the last steps only touch positions >= s
    for i, k in enumerate((j[s:] - s).tolist()):
        tail[i], tail[k] = tail[k], tail[i]
    r[s:] = tail
    return r.astype(np.int64)


def sample_multinomial(g, probs, n_sample, replacement, order):
    """multinomial on a 2-D probability array (rows x categories, p's dtype) whose layout
    (axis order, outermost first) is `order`; int64 (rows x n_sample)."""
    rows, cats = probs.shape
    if not replacement or n_sample == 1:
        q = _placed(probs.shape, order,
                    sample_exponential(g, probs.size, probs.dtype, 1.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = probs / q
        if n_sample == 1:
            return ratio.argmax(-1)[:, None].astype(np.int64)
        return np.argsort(-ratio, axis=-1, kind="stable")[:, :n_sample].astype(np.int64)
    acc = _F32 if probs.dtype == _F16 else probs.dtype
    out = np.empty((rows, n_sample), np.int64)
    for i in range(rows):
        cum = np.cumsum(probs[i], dtype=acc)
        cum /= cum[-1]
        out[i] = np.searchsorted(cum.astype(_F64), _uniform53(g, n_sample), side="left")
    return out


def sample_poisson(g, rates):
    """poisson on a flat array of rates (double); see _sequential."""
    return np.array(_sequential(g, rates.tolist(), _poisson_run,
                                lambda chunk: int(_POISSON_AHEAD * sum(min(lam, 12.0)
                                                                       for lam in chunk)
                                                  + 1.5 * len(chunk))), _F64)


def _sequential(g, items, run, need):
    """Samplers whose elements draw a data-dependent number of double uniforms (poisson,
    binomial): where one element's draws end (and the next one's begin) is known only once it
    is done, so the elements run one after another, in plain Python over uniforms drawn
    ahead in bulk (need(chunk) of them for a chunk of 4096 items, doubled when they run
    out); the generator then advances by exactly the number used. run(chunk, iterator):
    (values, uniforms used), or None when the iterator ran out."""
    bg = g._mt()
    saved = (bg.state, g._pos, g._idle_next, g._limit)
    out = []
    spare = []                                  # drawn ahead, not yet used
    used = 0
    for c in range(0, len(items), 4096):
        chunk = items[c:c + 4096]
        want = need(chunk)
        while True:
            if len(spare) < want:
                spare.extend(_uniform53(g, want - len(spare)).tolist())
            res = run(chunk, iter(spare))
            if res is not None:
                break
            want *= 2                           # ran out of uniforms: redo with more
        vals, k = res
        out.extend(vals)
        used += k
        del spare[:k]
    state, g._pos, g._idle_next, g._limit = saved
    bg.state = state
    g._raw(2 * used)
    return out


def _poisson_run(lams, u):
    """Poisson samples for the rates `lams` from the uniforms of iterator u: (values,
    number of uniforms used), or None when u runs out."""
    log, exp, sqrt, floor, lgamma = math.log, math.exp, math.sqrt, math.floor, math.lgamma
    vals = []
    used = 0
    try:
        for lam in lams:
            if lam >= 10.0:                     # Hormann's transformed rejection (PTRS)
                slam, loglam = sqrt(lam), log(lam)
                b = 0.931 + 2.53 * slam
                a = -0.059 + 0.02483 * b
                invalpha = 1.1239 + 1.1328 / (b - 3.4)
                vr = 0.9277 - 3.6224 / (b - 2)
                while True:
                    U = next(u) - 0.5
                    V = next(u)
                    used += 2
                    us = 0.5 - abs(U)
                    k = (2 * a / us + b) * U + lam + 0.43
                    # torch converts to int64: NaN and out-of-range values become its minimum
                    k = floor(k) if -2.0 ** 63 <= k < 2.0 ** 63 else -(1 << 63)
                    if us >= 0.07 and V <= vr:
                        break
                    if k < 0 or (us < 0.013 and V > us):
                        continue
                    if log(V) + log(invalpha) - log(a / (us * us) + b) <= \
                            -lam + k * loglam - lgamma(k + 1):
                        break
                vals.append(k)
            elif lam == 0:
                vals.append(0)
            else:                               # Knuth: multiply uniforms until <= e^-lam
                enlam, x, prod = exp(-lam), 0, 1.0
                for U in u:
                    prod *= U
                    if prod <= enlam:
                        break
                    x += 1
                else:
                    return None
                vals.append(x)
                used += x + 1
    except StopIteration:
        return None
    return vals, used


# Stirling's series tail log k! - (log sqrt(2 pi) + (k + 1/2) log(k + 1) - (k + 1)): a table
# for k <= 9, the series beyond (the constants torch's binomial uses)
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_run(pairs, u, f32):
    """binomial samples for (count, prob) pairs from the double uniforms of iterator u:
    (values, number of uniforms used), or None when u runs out. torch's rule (found by
    experiment, tests/test_random.py): 0 for count <= 0 or prob <= 0, count for prob >= 1,
    NaN for a NaN prob; otherwise with q = min(prob, 1 - prob) (1 - prob in the tensor's
    dtype), the sample for q (count minus it when prob > 0.5): by inversion when count q
    < 10 (add ceil(log U / log1p(-q)) per uniform until the sum exceeds count; the number
    of terms before that), else by Hormann's BTRS (a pair of uniforms per try), as below.
    For float tensors count and prob are floats and the products and differences of them
    round to float (f32: round a double to float), the rest is double."""
    F = (lambda x: float(_F32(x))) if f32 else float
    log, floor = math.log, math.floor
    vals = []
    used = 0
    try:
        for count, prob in pairs:
            if count <= 0.0 or prob <= 0.0:
                vals.append(0.0)
                continue
            if prob >= 1.0:
                vals.append(count)
                continue
            if prob <= 0.5:
                flip, q = False, prob
            elif prob > 0.5:
                flip, q = True, F(1.0 - prob)
            else:
                vals.append(math.nan)
                continue
            cq = F(count * q)
            if cq >= 10.0:                      # BTRS
                stddev = F(math.sqrt(F(cq * F(1 - q))))
                b = 1.15 + 2.53 * stddev
                a = -0.0873 + 0.0248 * b + 0.01 * q
                c = cq + 0.5
                v_r = 0.92 - 4.2 / b
                r = F(q / F(1 - q))
                alpha = (2.83 + 5.1 / b) * stddev
                m = floor(F(F(count + 1) * q))
                while True:
                    U = next(u) - 0.5
                    V = next(u)
                    used += 2
                    us = 0.5 - abs(U)
                    k = F(floor((2 * a / us + b) * U + c))
                    if k < 0 or k > count:
                        continue
                    if us >= 0.07 and V <= v_r:
                        break
                    V = log(V * alpha / (a / (us * us) + b))
                    nk1 = F(F(count - k) + 1)
                    bound = ((m + 0.5) * log((m + 1) / (r * (count - m + 1)))
                             + (count + 1) * log((count - m + 1) / nk1)
                             + (k + 0.5) * log(r * nk1 / F(k + 1))
                             + _stirling_tail(m) + _stirling_tail(count - m)
                             - _stirling_tail(k) - _stirling_tail(F(count - k)))
                    if V <= bound:
                        break
            else:                               # inversion
                logq = F(math.log1p(-q))
                total, k = 0.0, 0.0
                while True:
                    total += math.ceil(log(next(u)) / logq)
                    used += 1
                    if total > count:
                        break
                    k += 1
            vals.append(F(count - k) if flip else k)
    except StopIteration:
        return None
    return vals, used


def sample_binomial(g, counts, probs, f32):
    """binomial on flat arrays of counts and probs (double, in draw order)."""
    def need(chunk):                            # about 2 uniforms per unit of count q
        return int(sum(2.0 + 2.0 * min(max(c * min(p, 1 - p), 0.0), 10.0) for c, p in chunk
                       if abs(c) < math.inf and not math.isnan(p))) + 16
    return np.array(_sequential(g, list(zip(counts.tolist(), probs.tolist())),
                                lambda chunk, u: _binomial_run(chunk, u, f32), need), _F64)


# ---------------------------------------------------------------- layouts
# torch draws in memory order (its TensorIterator sorts dimensions by stride), and a *_like
# output keeps its input's layout (preserve_format). A layout here is the axis order from
# outermost to innermost; size-1 axes do not matter and keep their place.

def _layout(arr):
    """Axis order of arr in memory, outermost first (stable: equal strides keep order)."""
    st = arr.strides
    big = [d for d in range(arr.ndim) if arr.shape[d] > 1]
    big.sort(key=lambda d: -abs(st[d]))
    order, it = [], iter(big)
    for d in range(arr.ndim):
        order.append(next(it) if arr.shape[d] > 1 else d)
    return tuple(order)


def _is_c_order(order):
    return all(a < b for a, b in zip(order, order[1:]))


def _placed(shape, order, flat):
    """An array of `shape` whose elements read in memory order `order` are `flat` (a view
    with that layout, strided as torch's tensor would be)."""
    if _is_c_order(order):
        return flat.reshape(shape)
    base = flat.reshape([shape[d] for d in order])
    return base.transpose(np.argsort(order))


# ---------------------------------------------------------------- autograd
# torch's random ops have zero derivatives (nothing is reparameterised): each gets a node of
# torch's name that sends zeros back, so that a sampled result keeps its place in the graph.

class _ZeroBackward(Node):
    __slots__ = ()

    def apply(self, grad):
        z = wrap(np.zeros_like(grad._data))        # summed back to each input's shape
        return tuple(None if e[0] is None else z for e in self.next_functions)


class UniformBackward0(_ZeroBackward):       # uniform_
    __slots__ = ()


class NormalBackward0(_ZeroBackward):        # normal_
    __slots__ = ()


class NormalBackward1(_ZeroBackward):        # normal(Tensor mean, float std)
    __slots__ = ()


class NormalBackward2(_ZeroBackward):        # normal(float mean, Tensor std)
    __slots__ = ()


class NormalBackward3(_ZeroBackward):        # normal(Tensor mean, Tensor std)
    __slots__ = ()


class RandomBackward0(_ZeroBackward):        # random_(from, to)
    __slots__ = ()


class RandomBackward1(_ZeroBackward):        # random_(to)
    __slots__ = ()


class RandomBackward2(_ZeroBackward):        # random_()
    __slots__ = ()


class ExponentialBackward0(_ZeroBackward):
    __slots__ = ()


class GeometricBackward0(_ZeroBackward):
    __slots__ = ()


class LogNormalBackward0(_ZeroBackward):
    __slots__ = ()


class CauchyBackward0(_ZeroBackward):
    __slots__ = ()


class BernoulliBackward0(_ZeroBackward):     # bernoulli(input)
    __slots__ = ()


class BernoulliBackward1(_ZeroBackward):     # bernoulli_(Tensor p)
    __slots__ = ()


class BernoulliBackward2(_ZeroBackward):     # bernoulli_(float p)
    __slots__ = ()


class PoissonBackward0(_ZeroBackward):
    __slots__ = ()


def _bernoulli_not_implemented():
    """torch's node for bernoulli(input, p) with an input that requires grad."""
    node = NotImplementedBackward()
    node._op = "bernoulli"
    return node


def _result(arr, node_cls, *inputs):
    """A sampled tensor; linked to a zero-gradient node when an input requires grad."""
    out = wrap(arr)
    if STATE.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in inputs):
        link(out, node_cls(), *[t if isinstance(t, Tensor) else None for t in inputs])
    return out


def _fill_inplace(self, arr, node_cls=None, *others):
    """Write sampled values `arr` (self's shape) into self. In grad mode a leaf that requires
    grad refuses, as torch does; a tensor with history gets node_cls (zero gradients) as its
    grad_fn, with edges to self's old history and to `others`."""
    if not self._data.flags.writeable:      # an expanded tensor: several elements share memory
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if STATE.enabled and (self._requires_grad or
                          any(o is not None and o._requires_grad for o in others)):
        if self._requires_grad and self._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        res = wrap(np.asarray(arr).astype(self._data.dtype, copy=False))
        link(res, node_cls(), inplace_source(self), *others)
        return inplace(self, res)
    np.copyto(self._data, arr, casting="unsafe")
    mark_written(self)
    return self


# ---------------------------------------------------------------- argument checks

_CPP = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
        "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
        "bool": "bool"}
_DIGITS = {"float32": 24, "float64": 53, "float16": 11}
_LIMIT_NAME = {"float32": "Float", "float64": "Double", "float16": "Half"}


def _g(x):
    """A number as C++ streams print it (torch's messages)."""
    return f"{x:g}" if isinstance(x, float) else str(x)


def _floating(np_dtype, kernel):
    if np_dtype.kind not in "fc":
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{type_name(np_dtype)}'")


def _continuous(np_dtype, name, cpp=False):
    if np_dtype.kind != "f":
        what = _CPP.get(np_dtype.name) if cpp else type_name(np_dtype)
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {what}")


def _check_uniform(np_dtype, low, high):
    _floating(np_dtype, "check_uniform_bounds")
    if np_dtype.kind == "c":
        np_dtype = np.dtype(np.float32 if np_dtype == np.complex64 else np.float64)
    fi = np.finfo(np_dtype)
    cpp = _CPP[np_dtype.name]
    if not -float(fi.max) <= low <= float(fi.max):
        raise RuntimeError(f"from is out of bounds for {cpp}")
    if not -float(fi.max) <= high <= float(fi.max):
        raise RuntimeError(f"to is out of bounds for {cpp}")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_g(low)} > to={_g(high)}")
    if high - low > float(fi.max):
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<"
                           f"{_LIMIT_NAME[np_dtype.name]}>::max(), but found to={_g(high)} "
                           f"and from={_g(low)} which result in to-from to exceed the limit")


def _check_std(std):
    if not std >= 0:        # (NaN too)
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")


def _int_arg(v, name, what):
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"{what}")
    v = int(v)
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    return v


def _random_span(np_dtype, low, high):
    """(low, span) for random_(low, high) on np_dtype (high None: up to the dtype's top),
    with torch's checks and precision warnings."""
    if np_dtype.kind == "c":
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    name = np_dtype.name
    cpp = _CPP[name]
    if np_dtype.kind == "f":
        lo_lim, hi_lim = -float(np.finfo(np_dtype).max), float(np.finfo(np_dtype).max)
        top = 1 << _DIGITS[name]
    elif np_dtype.kind == "b":
        lo_lim, hi_lim, top = 0, 1, 1
    else:
        info = np.iinfo(np_dtype)
        lo_lim, hi_lim, top = int(info.min), int(info.max), int(info.max)
    if high is None:
        if not lo_lim <= low <= hi_lim:
            raise RuntimeError(f"from is out of bounds for {cpp}")
        _precision_warning(np_dtype, "from", low)
        if np_dtype == np.int64 and low == lo_lim:
            return low, 1 << 64
        span = top - low + 1
        if span <= 0:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or "
                               f"equal to 'to_inc' casted to dtype, but got from={low} > "
                               f"to_inc={top}")
        return low, span
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}")
    if not lo_lim <= low <= hi_lim:
        raise RuntimeError(f"from is out of bounds for {cpp}")
    if not lo_lim <= high - 1 <= hi_lim:
        raise RuntimeError(f"to - 1 is out of bounds for {cpp}")
    _precision_warning(np_dtype, "from", low)
    _precision_warning(np_dtype, "to - 1", high - 1)
    if np_dtype.kind == "f":
        low, high = _float_from(np_dtype, low), _float_to(np_dtype, high)
    return low, high - low


def _gap(v, np_dtype):
    """The spacing of np_dtype's values near the integer v (2**(bit length - digits))."""
    return 1 << max(abs(v).bit_length() - _DIGITS[np_dtype.name], 0)


def _float_from(np_dtype, low):
    """Bounds beyond a float dtype's mantissa: where from + 1 rounds below from in the dtype,
    torch moves from up to the next representable value above that rounding."""
    up = int(np_dtype.type(low + 1))
    return up + _gap(low + 1, np_dtype) if up < low else low


def _float_to(np_dtype, high):
    """... and where to - 1 rounds to to or above, to moves down one spacing below it."""
    down = int(np_dtype.type(high - 1))
    return down - _gap(high - 1, np_dtype) if down >= high else high


def _precision_warning(np_dtype, what, v):
    d = _DIGITS.get(np_dtype.name)
    if d is not None and not -(1 << d) <= v <= 1 << d:
        import warnings   # (only on this rare path)
        warnings.warn(f"{what} is out of bounds [-(2^{d}), 2^{d}]. Due to precision "
                      f"limitations {_CPP[np_dtype.name]} can support discrete uniform "
                      f"distribution only within this range. This warning will become an "
                      f"error in version 1.7 release, please fix the code in advance",
                      UserWarning, stacklevel=4)


# ---------------------------------------------------------------- sampling into tensors

def _real_view_fill(shape, order, np_dtype, sample, contiguous=None):
    """Values for a tensor of `shape` and layout `order`: sample(n, dtype, contiguous)
    gives the draws in memory order (contiguous: whether the target is; by default, whether
    the layout is C order, as for a new dense tensor); complex dtypes draw their real and
    imaginary parts as a real tensor with a trailing axis of 2 (torch's view_as_real)."""
    n = math.prod(shape)
    if contiguous is None:
        contiguous = _is_c_order(order)
    if np_dtype.kind != "c":
        return _placed(shape, order, sample(n, np_dtype, contiguous))
    real = np.dtype(np.float32 if np_dtype == np.complex64 else np.float64)
    flat = sample(2 * n, real, contiguous).reshape(-1, 2)
    vals = (flat[:, 0] + 1j * flat[:, 1]).astype(np_dtype)
    return _placed(shape, order, vals)


def _draw_into(self, generator, sample, node_cls, *others):
    """Fill tensor self in place with draws in its memory order."""
    d = self._data
    vals = _real_view_fill(d.shape, _layout(d), d.dtype, sample, d.flags.c_contiguous)
    return _fill_inplace(self, vals, node_cls, *others)


def _uniform_sampler(g, low, high):
    return lambda n, dt, contiguous: sample_uniform(g, n, dt, low, high)


def _normal_sampler(g, mean, std):
    def sample(n, dt, contiguous):
        return sample_normal(g, n, dt, mean, std, contiguous)
    return sample


def uniform_(self, from_=0, to=1, *, generator=None, **kwargs):
    from_ = kwargs.pop("from", from_)
    if kwargs:                          # (**kwargs only for the keyword `from`)
        raise TypeError(f"uniform_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    try:
        low, high = float(from_), float(to)
    except (TypeError, ValueError):
        raise wrong_type(to if isinstance(from_, (int, float)) else from_, "float") from None
    g = _gen(generator)
    _check_uniform(self._data.dtype, low, high)
    return _draw_into(self, g, _uniform_sampler(g, low, high), UniformBackward0)


def normal_(self, mean=0, std=1, *, generator=None):
    g = _gen(generator)
    try:
        mean, std = float(mean), float(std)
    except (TypeError, ValueError):
        raise wrong_type(mean if not isinstance(mean, (int, float)) else std, "float") from None
    _check_std(std)
    dt = self._data.dtype
    _floating(dt, "normal_kernel_cpu")
    if dt.kind == "c":
        std = std / math.sqrt(2.0)
    return _draw_into(self, g, _normal_sampler(g, mean, std), NormalBackward0)


_UNSET = object()


def random_(self, from_=_UNSET, to=_UNSET, *, generator=None, **kwargs):
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    if kwargs:                          # (**kwargs only for the keyword `from`)
        raise invalid_args("random_", (), kwargs)
    g = _gen(generator)
    dt = self._data.dtype
    if from_ is _UNSET and to in (_UNSET, None):
        if dt.kind == "c":
            raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for "
                                      f"'{type_name(dt)}'")

        def sample(n, np_dtype, contiguous):
            return sample_random_full(g, n, np_dtype)
        return _draw_into(self, g, sample, RandomBackward2)
    if to is _UNSET or from_ is _UNSET:         # random_(to)
        high = _int_arg(from_ if to is _UNSET else to, "random_", "(int)")
        low, span = _random_span(dt, 0, high)
        node = RandomBackward1
    else:
        low = _int_arg(from_, "random_", f"({type(from_).__name__}, ...)")
        high = None if to is None else _int_arg(to, "random_", f"(..., {type(to).__name__})")
        low, span = _random_span(dt, low, high)
        node = RandomBackward0

    def sample(n, np_dtype, contiguous):
        return sample_random(g, n, np_dtype, low, span)
    return _draw_into(self, g, sample, node)


def exponential_(self, lambd=1, *, generator=None):
    g = _gen(generator)
    _continuous(self._data.dtype, "Exponential")
    try:
        lambd = float(lambd)
    except (TypeError, ValueError):
        raise wrong_type(lambd, "float") from None
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    return _draw_into(self, g, lambda n, dt, c: sample_exponential(g, n, dt, lambd),
                      ExponentialBackward0)


def geometric_(self, p, *, generator=None):
    g = _gen(generator)
    if self._data.dtype.kind in "bc" and self._data.size:
        raise NotImplementedError(f"\"geometric_cpu\" not implemented for "
                                  f"'{type_name(self._data.dtype)}'")
    try:
        p = float(p)
    except (TypeError, ValueError):
        raise wrong_type(p, "float") from None
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    return _draw_into(self, g, lambda n, dt, c: sample_geometric(g, n, dt, p),
                      GeometricBackward0)


def log_normal_(self, mean=1, std=2, *, generator=None):
    g = _gen(generator)
    _floating(self._data.dtype, "log_normal_cpu")
    try:
        mean, std = float(mean), float(std)
    except (TypeError, ValueError):
        raise wrong_type(mean if not isinstance(mean, (int, float)) else std, "float") from None
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    return _draw_into(self, g, lambda n, dt, c: sample_log_normal(g, n, dt, mean, std),
                      LogNormalBackward0)


def cauchy_(self, median=0, sigma=1, *, generator=None):
    g = _gen(generator)
    _continuous(self._data.dtype, "Cauchy", cpp=True)
    try:
        median, sigma = float(median), float(sigma)
    except (TypeError, ValueError):
        bad = median if not isinstance(median, (int, float)) else sigma
        raise wrong_type(bad, "float") from None
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")
    return _draw_into(self, g, lambda n, dt, c: sample_cauchy(g, n, dt, median, sigma),
                      CauchyBackward0)


def bernoulli_(self, p=0.5, *, generator=None):
    g = _gen(generator)
    dt = self._data.dtype
    if isinstance(p, Tensor):
        pd = p._data
        if pd.dtype.kind != "f":
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                                      f"'{type_name(pd.dtype)}'")
        pd = _expand(pd, self._data.shape)
        if pd.size and not ((pd >= 0) & (pd <= 1)).all():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        if dt.kind == "c":
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_self_\" not implemented for "
                                      f"'{type_name(dt)}'")
        order = _layout(self._data)
        flat_p = pd.transpose(order).reshape(-1)     # p in self's memory order
        vals = _placed(self._data.shape, order, sample_bernoulli_tensor(g, flat_p))
        return _fill_inplace(self, vals, BernoulliBackward1, p)
    try:
        p = float(p)
    except (TypeError, ValueError):
        raise wrong_type(p, "float") from None
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    if dt.kind == "c":
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for "
                                  f"'{type_name(dt)}'")
    return _draw_into(self, g, lambda n, d, c: sample_bernoulli(g, n, d, p),
                      BernoulliBackward2)


def _expand(arr, shape):
    """arr broadcast to shape with torch's in-place message when it cannot be."""
    try:
        if np.broadcast_shapes(arr.shape, shape) != tuple(shape):
            raise ValueError
    except ValueError:
        bad = next(i for i in range(1, max(len(shape), arr.ndim) + 1)
                   if i > arr.ndim or (arr.shape[-i] != 1 and
                                       (i > len(shape) or arr.shape[-i] != shape[-i])))
        dim = len(shape) - bad
        have = arr.shape[-bad] if bad <= arr.ndim else 1
        want = shape[-bad] if bad <= len(shape) else 1
        raise RuntimeError(f"The expanded size of the tensor ({want}) must match the "
                           f"existing size ({have}) at non-singleton dimension {dim}.  "
                           f"Target sizes: {list(shape)}.  Tensor sizes: "
                           f"{list(arr.shape)}") from None
    return np.broadcast_to(arr, shape)


# ---------------------------------------------------------------- factories

def _shape(size, name):
    shape = size_args(size, name)
    for d in shape:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: "
                               f"{list(shape)}")
    return shape


def _new(shape, np_dtype, sample, requires_grad, out, order=None):
    """A new tensor of `shape` filled by sample (draws in memory order), or the same draws
    written into `out` (resized to `shape` first when it differs, as torch resizes)."""
    if out is not None:
        if out._data.shape != tuple(shape):
            out._data = np.empty(shape, out._data.dtype)
        d = out._data
        np.copyto(d, _real_view_fill(d.shape, _layout(d), d.dtype, sample,
                                     d.flags.c_contiguous), casting="unsafe")
        mark_written(out)
        return out
    arr = _real_view_fill(shape, order or tuple(range(len(shape))), np_dtype, sample)
    t = wrap(arr)
    if requires_grad:
        if np_dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


def _out_dtype(dtype, out):
    if out is not None:
        return out._data.dtype
    return (D.as_dtype(dtype, "rand") or D.get_default_dtype()).np


def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    _check_device(device)
    g = _gen(generator)
    shape = _shape(sizes if size is None else (size,), "rand")
    dt = _out_dtype(dtype, out)
    _floating(dt, "check_uniform_bounds")
    return _new(shape, dt, _uniform_sampler(g, 0.0, 1.0), requires_grad, out)


def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    _check_device(device)
    g = _gen(generator)
    shape = _shape(sizes if size is None else (size,), "randn")
    dt = _out_dtype(dtype, out)
    _floating(dt, "normal_kernel_cpu")
    std = 1.0 / math.sqrt(2.0) if dt.kind == "c" else 1.0
    return _new(shape, dt, _normal_sampler(g, 0.0, std), requires_grad, out)


def _randint_args(name, low, high, size, what):
    if high is None and size is None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got {what}, "
                        f"but expected one of:")
    if size is None:
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    return low, high, size


def _types(*args):
    return "(" + ", ".join(type(a).__name__ for a in args if a is not None) + ")"


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None,
            layout=None, device=None, requires_grad=False, pin_memory=False):
    _check_device(device)
    what = _types(low, high, size)
    if size is None:        # randint(high, size): one overload, whose arguments torch names
        check_args("randint", ("high", 1, "int", low), ("size", 2, "tuple of ints", high, True))
    low, high, size = _randint_args("randint", low, high, size, what)
    low = _int_arg(low, "randint", what)
    high = _int_arg(high, "randint", what)
    g = _gen(generator)
    shape = _shape((size,) if not isinstance(size, (tuple, list)) else size, "randint")
    dt = out._data.dtype if out is not None else (D.as_dtype(dtype, "randint") or D.int64).np
    low, span = _random_span(dt, low, high)
    return _new(shape, dt, lambda n, d, c: sample_random(g, n, d, low, span), requires_grad,
                out)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    _check_device(device)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer, Tensor)) or \
            isinstance(n, Tensor) and (n._data.ndim or n._data.dtype.kind not in "iu"):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    n = _int_arg(n, "randperm", _types(n))
    g = _gen(generator)
    dt = out._data.dtype if out is not None else (D.as_dtype(dtype, "randperm") or D.int64).np
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dt.kind == "b" or dt.kind == "c":
        raise NotImplementedError(f"\"randperm\" not implemented for '{type_name(dt)}'")
    if dt.kind == "f":
        top = (1 << _DIGITS[dt.name]) + 1
        if n > top:
            raise RuntimeError(f"n cannot be greater than {top} for "
                               f"{_LIMIT_NAME[dt.name]} type.")
    elif n - 1 > np.iinfo(dt).max:
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
    return _new((n,), dt, lambda k, d, c: sample_randperm(g, k).astype(d), requires_grad,
                out)


def _with_out(res, out):
    if out is None:
        return res
    if not isinstance(out, Tensor):
        raise wrong_type(out, "Tensor")
    if STATE.enabled and (res._requires_grad or out._requires_grad):
        raise out_grad_error(_public_caller())
    if out._data.shape != res._data.shape:
        out._data = np.empty(res._data.shape, out._data.dtype)
    np.copyto(out._data, res._data, casting="unsafe")
    mark_written(out)
    return out


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    g = _gen(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    factory = {k: v for k, v in (("dtype", dtype), ("layout", layout), ("device", device),
                                 ("requires_grad", requires_grad or None)) if v is not None}
    if (mt or st) and factory:          # the tensor overloads take no factory keywords
        raise invalid_args("normal", (mean,) if not st and std == 1.0 else (mean, std), factory)
    if not (mt or st):
        if size is None:
            raise TypeError(f"normal() received an invalid combination of arguments - got "
                            f"{_types(mean, std)}, but expected one of:")
        _check_device(device)
        try:
            mean, std = float(mean), float(std)
        except (TypeError, ValueError):
            raise wrong_type(mean if not isinstance(mean, (int, float)) else std, "float") from None
        _check_std(std)
        dt = _out_dtype(dtype, out)
        _floating(dt, "normal_kernel_cpu")
        shape = _shape((size,) if not isinstance(size, (tuple, list)) else size, "normal")
        return _new(shape, dt, _normal_sampler(g, mean, std), requires_grad, out)
    ref = mean if mt else std
    dt = ref._data.dtype
    _floating(dt, "normal_kernel_cpu")
    if st:
        if std._data.size and not (std._data >= 0).all():
            raise RuntimeError("normal expects all elements of std >= 0.0")
        s = std._data
    else:
        try:
            std = float(std)
        except (TypeError, ValueError):
            raise wrong_type(std, "float") from None
        _check_std(std)
    m = mean._data if mt else float(mean)
    if mt and st:
        try:
            shape = np.broadcast_shapes(mean._data.shape, std._data.shape)
        except ValueError:
            raise _broadcast_error(mean._data.shape, std._data.shape) from None
    else:
        shape = ref._data.shape
    n = math.prod(shape)
    if mt and not st:                           # normal_(0, std), then + mean
        z = sample_normal(g, n, dt, 0.0, std).reshape(shape)
        arr = (z + m).astype(dt, copy=False)
        res = _result(arr, NormalBackward1, mean)
    else:                                       # normal_(0, 1), then * std + mean
        z = sample_normal(g, n, dt, 0.0, 1.0).reshape(shape)
        arr = (z * s).astype(dt, copy=False)
        arr = (arr + m).astype(dt, copy=False)
        res = _result(arr, NormalBackward3, mean, std) if mt else \
            _result(arr, NormalBackward2, std)
    return _with_out(res, out)


def _broadcast_error(a, b):
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            return RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                                f"({y}) at non-singleton dimension {max(len(a), len(b)) - i}")
    return RuntimeError(f"shapes {list(a)} and {list(b)} cannot be broadcast")


def bernoulli(input, p=OMITTED, *, generator=None, out=None):
    if p is None:
        raise invalid_args("bernoulli", (input, p))
    p = None if p is OMITTED else p
    g = _gen(generator)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if p is None:
        if x.dtype.kind != "f":
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                                      f"'{type_name(x.dtype)}'")
        if x.size and not ((x >= 0) & (x <= 1)).all():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report "
                               "an enhancement request to PyTorch.)")
        vals = sample_bernoulli_tensor(g, np.ascontiguousarray(x).reshape(-1))
        res = _result(vals.reshape(x.shape).astype(x.dtype), BernoulliBackward0, input)
        return _with_out(res, out)
    try:
        p = float(p)
    except (TypeError, ValueError):
        raise wrong_type(p, "float") from None
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    if x.dtype.kind == "c":
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for "
                                  f"'{type_name(x.dtype)}'")
    vals = sample_bernoulli(g, x.size, x.dtype, p).reshape(x.shape)
    res = _result(vals, _bernoulli_not_implemented, input)
    return _with_out(res, out)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    check_args("multinomial", ("num_samples", 2, "int", num_samples),
               ("replacement", 3, "bool", replacement))
    g = _gen(generator)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if x.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{type_name(x.dtype)}")
    num_samples = _int_arg(num_samples, "multinomial", _types(input, num_samples))
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    cats = x.shape[-1]
    if not replacement and num_samples > cats:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if cats > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    probs = x if x.ndim == 2 else x[None]
    if probs.size and not (np.isfinite(probs) & (probs >= 0)).all():
        if replacement and num_samples > 1:
            # torch's path for several draws with replacement checks entry by entry
            bad = probs.reshape(-1)[~(np.isfinite(probs) & (probs >= 0)).reshape(-1)][0]
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)" if not bad >= 0 else "invalid multinomial "
                               "distribution (encountering probability entry = infinity or NaN)")
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if not (probs.sum(-1, dtype=np.float64) > 0).all():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    order = _layout(probs) if x.ndim == 2 else (0, 1)
    res = sample_multinomial(g, probs, num_samples, replacement, order)
    return _with_out(wrap(res if x.ndim == 2 else res[0]), out)


def poisson(input, generator=None):
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"poisson(): argument 'generator' (position 2) must be "
                        f"torch.Generator, not {type(generator).__name__}")
    g = _gen(generator)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for "
                                  f"'{type_name(x.dtype)}'")
    rates = np.ascontiguousarray(x, _F64).reshape(-1)
    if rates.size and not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    vals = sample_poisson(g, rates).reshape(x.shape)
    return _result(_to_dtype(vals, x.dtype), PoissonBackward0, input)


def binomial(count, prob, generator=None):
    """torch.binomial: one sample per element of the broadcast of count and prob (both
    float or double tensors of one dtype), drawn in the output's C order (sample_binomial).
    Not differentiable: an input that requires grad gives torch's NotImplemented node."""
    for name, pos, v in (("count", 1, count), ("prob", 2, prob)):
        if not isinstance(v, Tensor):
            raise TypeError(f"binomial(): argument '{name}' (position {pos}) must be Tensor, "
                            f"not {type(v).__name__}")
    g = _gen(generator)
    c, p = count._data, prob._data
    for name, x in (("count", c), ("prob", p)):
        if x.dtype.kind != "f":
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, "
                             f"got: {type_name(x.dtype)}")
    if p.dtype != c.dtype:
        raise RuntimeError(f"Found dtype {type_name(p.dtype)} but expected "
                           f"{type_name(c.dtype)}")
    if c.dtype == _F16:
        raise NotImplementedError("\"binomial_cpu\" not implemented for 'Half'")
    try:
        shape = np.broadcast_shapes(c.shape, p.shape)
    except ValueError:
        raise _broadcast_error(c.shape, p.shape) from None
    if shape != c.shape:
        warnings.warn(f"An output with one or more elements was resized since it had shape "
                      f"{list(c.shape)}, which does not match the required output shape "
                      f"{list(shape)}. This behavior is deprecated, and in a future PyTorch "
                      "release outputs will not be resized unless they have zero elements. "
                      "You can explicitly reuse an out tensor t by resizing it, inplace, to "
                      "zero elements with t.resize_(0).", UserWarning, stacklevel=2)
    counts = np.broadcast_to(c, shape).astype(_F64).reshape(-1)
    probs = np.broadcast_to(p, shape).astype(_F64).reshape(-1)
    if not np.isfinite(counts[(probs > 0) & (probs < 1)]).all() and \
            (np.isnan(counts) | (counts == math.inf))[(probs > 0) & (probs < 1)].any():
        # torch's sampler loops forever there (its sum of geometric draws never exceeds
        # the count); ember refuses instead
        raise RuntimeError("binomial: count must be finite where 0 < prob < 1 (torch's CPU "
                           "sampler does not return for a NaN or infinite count)")
    vals = sample_binomial(g, counts, probs, c.dtype == _F32).reshape(shape).astype(c.dtype)
    out = wrap(vals)
    if STATE.enabled and (count._requires_grad or prob._requires_grad):
        node = NotImplementedBackward()
        node._op = "binomial"
        link(out, node, *[t for t in (count, prob) if t._requires_grad])  # (torch's edges)
    return out


# ---------------------------------------------------------------- *_like

def _like_args(input, dtype, device, memory_format=None):
    _check_device(device)
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if memory_format is None or memory_format is preserve_format:
        order = _layout(x)
    elif memory_format is contiguous_format:
        order = tuple(range(x.ndim))
    else:                       # a channels-last format: draws in N, spatial..., C order
        n = format_rank(memory_format, x.ndim)
        order = (0,) + tuple(range(2, n)) + (1,)
    return x.shape, (D.as_dtype(dtype, "like").np if dtype is not None else x.dtype), order


def _like_options(name, input, layout, requires_grad, memory_format):
    """torch's invalid-combination TypeError for a bad keyword of rand_like/randn_like."""
    bad = {k: v for k, v, ok in (
        ("layout", layout, layout is None or type(layout).__name__ == "layout"),
        ("requires_grad", requires_grad, isinstance(requires_grad, bool)),
        ("memory_format", memory_format,
         memory_format is None or type(memory_format).__name__ == "memory_format")) if not ok}
    if bad:
        raise invalid_args(name, (input,), bad)


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              requires_grad=False, memory_format=None):
    _like_options("rand_like", input, layout, requires_grad, memory_format)
    shape, dt, order = _like_args(input, dtype, device, memory_format)
    g = _gen(generator)
    _floating(dt, "check_uniform_bounds")
    return _new(shape, dt, _uniform_sampler(g, 0.0, 1.0), requires_grad, None, order)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               requires_grad=False, memory_format=None):
    _like_options("randn_like", input, layout, requires_grad, memory_format)
    shape, dt, order = _like_args(input, dtype, device, memory_format)
    g = _gen(generator)
    _floating(dt, "normal_kernel_cpu")
    std = 1.0 / math.sqrt(2.0) if dt.kind == "c" else 1.0
    return _new(shape, dt, _normal_sampler(g, 0.0, std), requires_grad, None, order)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None):
    shape, dt, order = _like_args(input, dtype, device, memory_format)
    given = (input, low) if high is None else (input, low, high)
    what = "(" + ", ".join(type(a).__name__ for a in given) + ")"
    if high is None:
        low, high = 0, low
    low, high = _int_arg(low, "randint_like", what), _int_arg(high, "randint_like", what)
    g = _gen(generator)
    low, span = _random_span(dt, low, high)
    return _new(shape, dt, lambda n, d, c: sample_random(g, n, d, low, span), requires_grad,
                None, order)


# ---------------------------------------------------------------- Tensor methods

def _bernoulli_method(self, p=OMITTED, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)

