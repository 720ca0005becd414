"""Helpers shared by the op families: operand preparation with torch's promotion, in-place
writes, dim normalisation. Kept small: every op's hot path calls into here at most once."""

import functools
import sys
import warnings

import numpy as np

from .. import dtypes as D
from ..autograd.forward import LEVELS, dual, set_tangent
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, array_strides, channels_last, channels_last_3d, wrap

_FLOAT_KINDS = "fc"
_INT_RANGE = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max)
              for t in (np.uint8, np.int8, np.int16, np.int32, np.int64)}


# Note [Elementwise layout]: torch lays out an elementwise result as its TensorIterator does.
# When every operand has the result's shape: contiguous if all are contiguous, else the
# operands' strides if all share them and are non-overlapping and dense. Otherwise the dims are
# ordered fastest-first by an insertion sort that starts from the reversed dim order and asks,
# for a pair of dims, each operand in turn (a broadcast dim, stride 0, abstains): a smaller
# stride goes first, a larger one after; on equal strides the smaller size goes first, or, when
# it is not larger, the next operand is asked; if none decides, the pair stays. The result is
# dense in that order (size-1 dims included). NumPy's K order agrees except where size-1
# dims, equal strides or non-contiguous operands meet; then the result is copied into torch's
# layout (a later reshape is a view, or a copy, exactly where torch's is: test_chains).
# The hot paths of add and mul (floating tensors of one dtype; a floating tensor and a Python
# number) check only for broadcasting, one shape comparison: a same-shape pair with a
# non-contiguous operand, or a number with a tensor whose size-1 dims have unusual strides,
# keeps NumPy's layout there (checking the layouts cost W1/W2 2-3%; test_pointwise's
# test_elementwise_layout_hot_path_gaps shows both).
# Ops of one tensor (unary ops, conversions, clone and *_like with preserve_format) get the
# same rule; NumPy's K order already gives it for plain ufuncs, so only the results NumPy
# builds otherwise (np.where chains, C-ordered kernels, copies) pass through torch_layout.
# Some torch kernels allocate C order whatever the input (pow of a number, masked_fill,
# logsigmoid, rrelu, complex angle); so do those ops here. Known gaps (xfail in
# test_unary_layout_gaps): the strides of size-1 dims, and converting an expanded tensor.

def torch_layout(r, *operands):
    """r, NumPy's result of an elementwise op on `operands` (arrays, or Python numbers), in
    torch's layout (Note [Elementwise layout]); r itself when it already is."""
    shape = r.shape
    nd = len(shape)
    if nd < 2 or not r.size:
        return r if nd < 2 else _empty_layout(r, operands)
    arrays = [a for a in operands if type(a) is np.ndarray and a.ndim]
    if all(a.flags.c_contiguous for a in arrays) and (
            1 not in shape or len(arrays) == len(operands)
            and all(a.shape == shape for a in arrays)):
        return r        # C-contiguous operands: NumPy's K order is torch's here
    target = None
    if len(arrays) == len(operands) and all(a.shape == shape for a in arrays):
        strides = [_elem_strides(a) for a in arrays]
        if all(_is_contiguous(shape, st) for st in strides):
            target = _dense_strides(shape, range(nd - 1, -1, -1))
        elif all(st == strides[0] for st in strides) and \
                _non_overlapping_dense(shape, strides[0]):
            target = strides[0]
    if target is None:
        target = _dense_strides(shape, _iteration_order(
            shape, arrays, lambda a: [s // a.itemsize for s in a.strides]))
    size = r.itemsize
    if tuple(s * size for s in target) == r.strides:
        return r
    out = np.ndarray(shape, r.dtype, np.empty(r.size, r.dtype),
                     strides=tuple(s * size for s in target))
    np.copyto(out, r)
    return out


# Note [Channels last]: a 4-d (5-d) tensor is channels last when its strides order the dims
# C fastest, then W, H (D), N: NHWC in memory. torch keeps that layout through elementwise ops
# (Note [Elementwise layout] gives it) and through the convolution, pooling, batch norm and
# upsampling kernels, whose outputs (and input gradients) are channels last when an input
# "suggests" it: walking C, W, H, (D), N, each stride is at least the one before times that
# dim's size (size-1 dims do not multiply), C's stride is not 0, no size is 0, and N's stride
# differs from C's when everything before it collapsed to C's. contiguous(), clone(), to(),
# empty() and the *_like factories take the format by name (memory_format=); other ranks raise
# "required rank 4 tensor to use channels_last format".

def channels_last_format(x):
    """The channels-last memory_format array x suggests (torch's suggest_memory_format), or
    None."""
    nd = x.ndim
    if nd != 4 and nd != 5 or x.flags.c_contiguous and 1 not in x.shape[1:]:
        return None     # (C-contiguous without size-1 dims after N: never channels last)
    shape, size = x.shape, x.itemsize
    st = [s // size for s in x.strides]
    if st[1] == 0:
        return None
    low = 0
    for d in (1, 3, 2, 0) if nd == 4 else (1, 4, 3, 2, 0):
        if shape[d] == 0 or st[d] < low or d == 0 and low == st[1]:
            return None
        low = st[d] * shape[d] if shape[d] > 1 else st[d]
    return channels_last if nd == 4 else channels_last_3d


def format_rank(fmt, ndim):
    """The rank a channels-last memory_format needs (4 or 5), with torch's error when ndim is
    not it."""
    n = 4 if fmt is channels_last else 5
    if ndim != n:
        name = "channels_last" if n == 4 else "channels_last_3d"
        raise RuntimeError(f"required rank {n} tensor to use {name} format")
    return n


def in_format(r, fmt):
    """A copy of array r laid out in memory_format fmt (contiguous_format or a channels-last
    one), with torch's error for a channels-last format of the wrong rank."""
    if fmt is channels_last or fmt is channels_last_3d:
        n = format_rank(fmt, r.ndim)
        perm = (0,) + tuple(range(2, n)) + (1,)
        return r.transpose(perm).copy().transpose(np.argsort(perm))
    return np.array(r, order="C", copy=True)


def channels_last_result(fn=None, grads=True, when=None):
    """Decorator for an op whose torch kernel keeps a channels-last input channels last
    (pooling, upsampling, padding, batch and group norm): its tensor results of the input's
    rank are laid out so when the input suggests it (Note [Channels last]), else
    C-contiguous (those kernels' other layout), and, where
    grads(input, args, kwargs) (or grads is True), so is the input's gradient: a post hook on the
    op's node, so only such nodes take the engine's hooked path. when(args, kwargs): whether
    the call keeps the layout at all (None: always)."""
    if fn is None:
        return functools.partial(channels_last_result, grads=grads, when=when)

    @functools.wraps(fn)
    def op(input, *args, **kwargs):
        res = fn(input, *args, **kwargs)
        x = getattr(input, "_data", None)
        if x is None or x.ndim < 4 or x.ndim > 5 or when is not None and not when(args, kwargs):
            return res
        fmt = channels_last_format(x)
        if fmt is None and x.flags.c_contiguous:
            return res
        node = None
        for t in res if isinstance(res, tuple) else (res,):
            if isinstance(t, Tensor) and t._data.ndim == x.ndim and t is not input:
                if fmt is not None:
                    t._data = in_format(t._data, fmt)
                    node = node or t._grad_fn
                elif not t._data.flags.c_contiguous:    # (the kernels' other layout)
                    t._data = np.ascontiguousarray(t._data)
        if node is not None and (grads is True or grads and grads(input, args, kwargs)):
            node.register_hook(_grad_in_format(fmt))
        return res
    return op


def _grad_in_format(fmt):
    def channels_last_grad(grad_inputs, grad_outputs):
        g = grad_inputs[0]
        if g is None or g._data.ndim != (4 if fmt is channels_last else 5):
            return None
        return (g.contiguous(memory_format=fmt),) + tuple(grad_inputs[1:])
    return channels_last_grad


def like_format(r, *inputs):
    """r (a fresh C-contiguous result of a convolution/pooling/normalisation kernel) in
    channels-last layout when one of the input arrays suggests it (Note [Channels last])."""
    for x in inputs:
        if x is not None and x.ndim == r.ndim:
            fmt = channels_last_format(x)
            if fmt is not None:
                return in_format(r, fmt)
    return r


# Note [Size-1 strides]: a dim of size 1 addresses no memory, yet torch compares every stride
# where it tells whether two tensors overlap fully or partly (an in-place op, a setitem: Note
# [In-place writes]), so ember's size-1 strides follow torch's where NumPy's differ: a fresh
# contiguous result (an index, cummax) has the contiguous strides (NumPy keeps the order it
# computed in); unsqueeze's new dim has stride size*stride of the dim it goes before (1 at
# the end), the others kept; a view's strides follow torch's chunks of memory (view_strides).

def c_strides(a):
    """a, C-contiguous to NumPy (which ignores size-1 dims), with torch's contiguous strides
    on its size-1 dims too (Note [Size-1 strides]); a itself where it has them."""
    shape = a.shape
    if a.ndim < 2 or 1 not in shape or not a.size or not a.flags.c_contiguous:
        return a
    acc = a.itemsize
    want = []
    for n in reversed(shape):
        want.append(acc)
        acc *= n
    if a.strides == tuple(reversed(want)):
        return a
    return a.reshape(-1).reshape(shape)      # (NumPy lays out a fresh shape contiguously)


def view_strides(shape, strides, new):
    """torch's strides (in elements or bytes, as given) for viewing a tensor of `shape` and
    `strides` as `new` (Note [Size-1 strides]): the dims split into chunks that are
    contiguous in memory (size-1 dims joining either side), each new dim strided within its
    chunk from the chunk's innermost stride; None where torch cannot view (not called for
    empty or 0-d tensors)."""
    out = [0] * len(new)
    vd = len(new) - 1
    base = strides[-1]
    tn = vn = 1
    for td in range(len(shape) - 1, -1, -1):
        tn *= shape[td]
        if td == 0 or shape[td - 1] != 1 and strides[td - 1] != tn * base:
            while vd >= 0 and (vn < tn or new[vd] == 1):
                out[vd] = vn * base
                vn *= new[vd]
                vd -= 1
            if vn != tn:
                return None
            if td:
                base = strides[td - 1]
                tn = vn = 1
    return tuple(out) if vd == -1 else None


def torch_view(x, r):
    """r (NumPy's reshape of x, a view) with torch's strides for its size-1 dims (Note
    [Size-1 strides])."""
    shape = r.shape
    if 1 not in shape or not r.size or not x.ndim:
        return r
    st = view_strides(x.shape, x.strides, shape)
    if st is None or st == r.strides:
        return r
    return np.lib.stride_tricks.as_strided(x, shape, st)


# Note [Empty strides]: an empty result addresses no memory, yet torch gives it strides that
# follow its TensorIterator: operands all of the result's shape give the contiguous ones;
# otherwise the dims are ordered as for any result (Note [Elementwise layout]) and, where
# that order is not the natural one, strided densely in it with sizes of 0 counted as they
# are (zeros(4, 0, 1) * 2 has strides (0, 1, 0)). clone, conversions and isinf keep an empty
# input's strides (preserve_format). NumPy gives a fresh empty array zero strides, which
# Tensor.stride() reads as the contiguous ones; only the others are made here. Gaps: the hot
# paths of a floating tensor and a Python number (add, mul, ...: Note [Elementwise layout])
# keep NumPy's zeros, and so do views of an empty tensor with zero strides (zeros(3, 0).t()
# reads (3, 1) where torch's is (1, 1)).


def _empty_strided(shape, dtype, strides):
    """An empty array of `shape` with the given strides (in elements)."""
    size = dtype.itemsize
    return np.ndarray(shape, dtype, np.empty(0, dtype),
                      strides=tuple(s * size for s in strides))


def _empty_layout(r, operands):
    """torch_layout for an empty result r (Note [Empty strides])."""
    shape = r.shape
    nd = len(shape)
    arrays = [a for a in operands if type(a) is np.ndarray and a.ndim]
    if len(arrays) == len(operands) and all(a.shape == shape for a in arrays):
        return r
    perm = _iteration_order(shape, arrays, array_strides)
    if perm == list(range(nd - 1, -1, -1)):
        return r
    return _empty_strided(shape, r.dtype, _dense_strides(shape, perm))


def keep_strides(r, x):
    """r, a copy of x (same shape, laid out by NumPy's K order or torch_layout), with x's
    strides exactly where torch's preserve_format copies them (clone, conversions, *_like of
    a non-overlapping and dense x): NumPy's differ only on size-1 dims there (Note [Size-1
    strides]), which address no memory (a fresh array as torch_layout makes, not a view)."""
    if not r.size:
        return keep_empty_strides(r, x)
    if 1 not in r.shape or r.shape != x.shape:
        return r
    size = x.itemsize
    xs = tuple(s // size for s in x.strides)
    rs = tuple(s // r.itemsize for s in r.strides)
    if rs == xs or not _non_overlapping_dense(r.shape, xs) or any(
            a != b for n, a, b in zip(r.shape, rs, xs) if n != 1):
        return r
    out = np.ndarray(r.shape, r.dtype, np.empty(r.size, r.dtype),
                     strides=tuple(s * r.itemsize for s in xs))
    np.copyto(out, r)
    return out


def keep_empty_strides(r, x):
    """r, an empty result of x's shape made from x, with x's strides (Note [Empty strides]:
    torch's preserve_format); r itself otherwise."""
    if r.size or r.ndim < 2 or not any(x.strides) or r.shape != x.shape:
        return r
    return _empty_strided(r.shape, r.dtype, array_strides(x))


def layout2(r, input, other):
    """torch_layout for an op on two arguments, Tensors or numbers (their own layouts count,
    not those of casted copies)."""
    return torch_layout(r, input._data if isinstance(input, Tensor) else input,
                        other._data if isinstance(other, Tensor) else other)


def _iteration_order(shape, arrays, strides_of):
    """The dims of an elementwise result of `shape`, fastest first, as TensorIterator orders
    them (Note [Elementwise layout]): an insertion sort from the reversed dim order, asking
    each operand (strides_of(array): its strides in elements; a broadcast dim abstains)."""
    nd = len(shape)
    bst = []
    for a in arrays:
        pad = nd - a.ndim
        st = [0] * pad
        for i, (n, s) in enumerate(zip(a.shape, strides_of(a))):
            st.append(0 if n == 1 and shape[pad + i] != 1 else s)
        bst.append(st)
    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = _order(perm[d0], perm[d1], bst, shape)
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _order(d0, d1, bst, shape):
    """Whether dim d0 goes after dim d1 (1), before it (-1), or undecided (0)."""
    for st in bst:
        s0, s1 = st[d0], st[d1]
        if s0 == 0 or s1 == 0:
            continue
        if s0 < s1:
            return -1
        if s0 > s1:
            return 1
        if shape[d0] > shape[d1]:
            return 1
    return 0


def _elem_strides(a):
    size = a.itemsize
    return tuple(s // size for s in a.strides)


def _dense_strides(shape, perm):
    """Strides of a dense tensor whose dims, fastest first, are `perm`."""
    out = [0] * len(shape)
    acc = 1
    for d in perm:
        out[d] = acc
        acc *= shape[d]
    return tuple(out)


def _is_contiguous(shape, strides):
    acc = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != acc:
                return False
            acc *= n
    return True


def _non_overlapping_dense(shape, strides):
    acc = 1
    for d in sorted(range(len(shape)), key=lambda d: (strides[d], shape[d])):
        if shape[d] != 1:
            if strides[d] != acc:
                return False
            acc *= shape[d]
    return True


def operands(input, other):
    """NumPy operands of a binary op, cast to torch's result dtype (Python scalars stay
    weak: NumPy 2 keeps the array's dtype for them, as torch does)."""
    try:
        x = input._data
    except AttributeError as e:
        raise not_tensor(e) from None
    if isinstance(other, Tensor):
        y = other._data
        if x.dtype is not y.dtype and x.dtype != y.dtype:
            rt = D.result_type(input, other).np
            if x.dtype != rt:
                x = D.cast(x, rt)
            if y.dtype != rt:
                y = D.cast(y, rt)
        return x, y
    k = type(other)
    if k is float:
        if x.dtype.kind in _FLOAT_KINDS:
            return x, (other if x.dtype.char != "e" else half_scalar(other))
    elif k is int:
        kind = x.dtype.kind
        if kind in _FLOAT_KINDS:
            if not _I64_MIN <= other < _U64_END:
                raise int_overflow(other)
            return x, other
        if kind != "b":
            lo, hi = _INT_RANGE[x.dtype]
            # torch wraps an out-of-range Python int into the tensor's dtype; NumPy raises
            return x, (other if lo <= other <= hi else wrap_int(other, x.dtype))
        if not _I64_MIN <= other < _I64_END:
            raise big_int_error(other, x.dtype)
    elif k is bool:
        return x, other
    elif isinstance(other, np.generic):
        return operands(input, other.item())
    elif isinstance(other, np.ndarray):
        return operands(input, wrap(other))
    elif not isinstance(other, (int, float, complex)):
        raise not_tensor(AttributeError(name="_data", obj=other))
    rt = D.result_type(input, other).np
    return (x if x.dtype == rt else x.astype(rt)), other


# Note [Scalar operands]: how torch reads a Python number next to a tensor, found by running
# torch 2.13 (tests/test_scalar_operands.py compares every case):
# - an int is parsed as an int64 Scalar, or as a uint64 one in [2**63, 2**64); beyond that the
#   parser raises OverflowError ("can't convert negative int to unsigned" below, "int too big
#   to convert" above), whatever the op and the tensor's dtype. An integral tensor's kernels
#   convert it to their dtype as C does (wrapping: uint8 + 300 is uint8 + 44); a bool tensor
#   refuses to promote with a uint64 Scalar; a floating one reads its value.
# - with a float16 tensor a float is converted through float32 (c10::Half is built from a
#   float: 1 + 2**-11 + 2**-30 becomes 1.0, not NumPy's direct 1.0009765625). mul and div with
#   a scalar second operand (a Python number or a 0-dim tensor) instead compute in float32
#   ("opmath") with the scalar's own value as a float32 and round once: half_opmath.
# - add/sub with alpha, lerp with a number weight and addcmul run one fused multiply-add in
#   torch's kernels (creation.fused), float16 in float32; addcdiv is input + (value *
#   tensor1) / tensor2. float16 alpha only: the last n % 32 elements of each chunk take the
#   kernel's scalar loop in float16 arithmetic (x + y * alpha, the product rounded first);
#   ember splits as one chunk, as torch does below its parallel grain (32768 elements).
#   Known gap: with a 0-dim or number `other` and alpha, torch's scalar tail loop multiplies
#   alpha * other first in every dtype (a few last-bit differences per thousand elements).
# These checks sit off the hot paths: in operands() after its range test, and at
# scalar_array's cache misses; float16 leaves the hot paths of mul/div through their dtype
# test (`char in "fd"`).

_I64_MIN, _I64_END, _U64_END = -(1 << 63), 1 << 63, 1 << 64


def int_overflow(v):
    """torch's argument parser's OverflowError for a Python int outside [-2**63, 2**64)."""
    return OverflowError("can't convert negative int to unsigned" if v < 0 else
                         "int too big to convert")


def big_int_error(v, dtype):
    """The error for a Python int outside int64 next to a bool tensor (dtype: NumPy's)."""
    if not _I64_MIN <= v < _U64_END:
        return int_overflow(v)
    return RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                        f"attempted to promote {D.type_name(dtype)} and UInt64")


def wrap_int(v, dtype):
    """A Python int outside `dtype`'s range as torch's integral kernels read it: wrapped C-style
    (a 0-dim array of dtype); OverflowError outside [-2**63, 2**64)."""
    if not _I64_MIN <= v < _U64_END:
        raise int_overflow(v)
    return np.asarray(v & (_U64_END - 1), np.uint64).astype(dtype)


def half_scalar(v):
    """A Python float as torch converts it to float16: through float32 (Note [Scalar
    operands])."""
    with np.errstate(over="ignore"):
        return np.float16(np.float32(v))


def checked_half(v):
    """A Python number where torch's kernel converts it to float16 with its overflow check
    (pow's exponent, clamp's bounds, fill values, alpha): a finite value beyond float16's
    range is refused."""
    if -65504 <= v <= 65504 or v != v or v in (_INF, -_INF):
        return half_scalar(v)
    raise RuntimeError("value cannot be converted to type c10::Half without overflow")


_INF = float("inf")


def check_int_scalar(v, dtype):
    """torch's errors for a Python int outside int64 beside a tensor of NumPy dtype `dtype`
    (Note [Scalar operands]), for ops that take the number as it is."""
    if not _I64_MIN <= v < _I64_END and (dtype.kind == "b" or not _I64_MIN <= v < _U64_END):
        raise big_int_error(v, dtype)


def half_opmath(ufunc, x, v):
    """ufunc(x, v) for a float16 array x and a scalar second operand v (a number or a 0-dim
    array) as torch's float16 mul/div kernels compute it: in float32 with v's own value as a
    float32, rounded to float16 once."""
    with np.errstate(all="ignore"):
        return ufunc(x.astype(np.float32), np.float32(v)).astype(np.float16)


def expand_scalar(a, shape):
    """A read-only broadcast view of a 0-dim (or 1-element) array: np.broadcast_to's result
    built directly (its Python layer costs ~8x the view itself)."""
    a = np.asarray(a)
    if a.size != 1:
        return np.broadcast_to(a, shape)
    v = np.ndarray(shape, a.dtype, a if a.flags.c_contiguous else a.copy(), 0,
                   (0,) * len(shape))
    v.flags.writeable = False
    return v


def fill_scalar(a, shape):
    """A fresh array of `shape` holding the one value of `a` (np.empty + fill: cheaper than
    np.full's Python layer)."""
    out = np.empty(shape, a.dtype)
    out.fill(a)
    return out


_SCALARS = {}


def scalar_array(v, dtype):
    """A Python number as a 0-dim array of `dtype`, cached. NumPy converts a Python number
    to the array's dtype before computing anyway, but its path for Python scalars costs
    ~0.4 us more per op than a 0-dim operand. Zeros are not cached: 0.0 == -0.0."""
    key = (v, dtype)
    a = _SCALARS.get(key)
    if a is None:
        if type(v) is int and not _I64_MIN <= v < _U64_END:
            raise int_overflow(v)
        a = np.array(half_scalar(v) if dtype.char == "e" else v, dtype)
        if v:
            if len(_SCALARS) > 512:
                _SCALARS.clear()
            _SCALARS[key] = a
    return a


def plain_operand(v, g):
    """v as a NumPy operand for arithmetic with array g that gives exactly what the ember op
    would (a number as a 0-dim array of g's dtype, or an array of g's real floating dtype);
    None otherwise."""
    if type(v) is float or type(v) is int:
        c = g.dtype.char
        if c in "fd":
            return scalar_array(v, g.dtype)
        return None if c == "e" else v     # (float16: the op's own rule, half_opmath)
    if isinstance(v, Tensor):
        d = v._data
        if d.dtype is g.dtype and g.dtype.kind == "f":
            return d
    return None


def needs(node, i):
    """Whether input i of node receives a gradient (torch's output_mask)."""
    return node.next_functions[i][0] is not None


def requires(*ts):
    """Whether an op on these arguments must record a node (or give its output a tangent:
    Note [Forward AD])."""
    if STATE.enabled:
        for t in ts:
            if isinstance(t, Tensor) and t._requires_grad:
                return True
    return bool(LEVELS) and dual(*ts)


def can_cast(src, dst):
    """torch's in-place rule: the result's category may not exceed the output's."""
    cat = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    return cat[src.kind] <= cat[dst.kind]


def wrap_dim(dim, ndim):
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    try:
        inside = lo <= dim <= hi
    except TypeError:               # not a number: torch's parser names the argument
        raise wrong_type(dim, "int") from None
    if not inside:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim + ndim if dim < 0 else dim


def wrap_dims(dim, ndim):
    """A tuple of normalised dims from an int, a list/tuple, or None (all dims)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        return (wrap_dim(int(dim), ndim),)
    try:
        out = tuple(wrap_dim(int(d), ndim) for d in dim)
    except (TypeError, ValueError):
        raise wrong_type(dim, "tuple of ints") from None
    if len(set(out)) != len(out):
        d = next(d for d in out if out.count(d) > 1)
        raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def broadcast_error(a, b):
    """torch's message for shapes that do not broadcast."""
    sa = getattr(a, "shape", ())
    sb = getattr(b, "shape", ())
    for i in range(1, max(len(sa), len(sb)) + 1):
        x = sa[-i] if i <= len(sa) else 1
        y = sb[-i] if i <= len(sb) else 1
        if x != y and x != 1 and y != 1:
            return RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                                f"({y}) at non-singleton dimension {max(len(sa), len(sb)) - i}")
    return RuntimeError(f"shapes {list(sa)} and {list(sb)} cannot be broadcast")


def saved_output(node, saved, nr=0):
    """Saved output `nr` of `node`: plain when not recording, else reconnected to the node
    that made it (an output is saved detached so that it does not keep its own node alive in
    a cycle), so that double backward sees its dependence on the input."""
    if not STATE.enabled or saved is None:
        return saved
    t = wrap(saved._data)
    t._requires_grad = True
    t._grad_fn = node
    t._output_nr = nr
    x = saved._x
    if x and "fw" in x:             # its tangents (forward-over-reverse; forward.py)
        for lv, tan in x["fw"].items():
            set_tangent(t, lv, tan)
    return t


def conj_if_complex(t):
    """Complex formulas use the conjugate (torch's convention); real ones are unchanged."""
    if isinstance(t, Tensor):
        return t.conj() if t._data.dtype.kind == "c" else t
    return t.conjugate() if isinstance(t, complex) else t


def floating(x):
    """Integer and bool inputs of float-valued ops compute in the default float dtype."""
    return x if x.dtype.kind in "fc" else x.astype(D.get_default_dtype().np)


def scalar_tensor(value, like=None):
    """A Python scalar argument as a 0-dim tensor of its own default dtype (an int outside
    int64 as torch reads it beside tensor `like`: Note [Scalar operands])."""
    if type(value) is int and not _I64_MIN <= value < _I64_END:
        d = like._data.dtype if isinstance(like, Tensor) else None
        if d is None or d.kind == "b" or not _I64_MIN <= value < _U64_END:
            raise big_int_error(value, d if d is not None else np.dtype(np.uint64))
        if d.kind in "iu":
            value -= _U64_END               # the uint64 Scalar wraps into int64
        else:
            value = float(value)
    return wrap(np.asarray(value, dtype=D.result_type(value).np))


def write_out(res, out, name=None):
    """Support for the out= argument: copy the result into `out` (resizing if empty). name:
    the op's name in torch's error message, when it is not the calling function's name."""
    if out is None:
        return res
    try:
        out_requires_grad = out._requires_grad
    except AttributeError:
        raise wrong_type(out, "Tensor") from None
    if STATE.enabled and (res._requires_grad or out_requires_grad):
        name = name or _public_caller()
        if not res._requires_grad:          # (only out requires grad)
            name = _OUT_ONLY_NAMES.get(name, name)
        raise out_grad_error(name)
    if not can_cast(res._data.dtype, out._data.dtype):
        raise RuntimeError(f"result type {D.type_name(res._data.dtype)} can't be cast to the "
                           f"desired output type {D.type_name(out._data.dtype)}")
    if out._data.shape != res._data.shape:
        if out._data.size:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output "
                          f"shape {list(res._data.shape)}. This behavior is deprecated, and in a "
                          f"future PyTorch release outputs will not be resized unless they have "
                          f"zero elements. You can explicitly reuse an out tensor t by resizing "
                          f"it, inplace, to zero elements with t.resize_(0).", stacklevel=3)
        out._data = np.empty(res._data.shape, out._data.dtype)
    np.copyto(out._data, res._data, casting="unsafe")
    from ._views import mark_written       # (a write: out's version counter counts it, and
    mark_written(out)                       # a node that saved out then refuses to run)
    return out


# torch's name for these ops in autograd's refusal when only the out tensor requires grad (found
# by running torch: these composite ops are refused one level down, by aten's own out= op)
_OUT_ONLY_NAMES = {n: "aten::" + n for n in ("conj_physical", "floor_divide", "heaviside",
                                             "histogram", "log_softmax", "slice_scatter",
                                             "softmax")}
_OUT_ONLY_NAMES.update(diag="aten::diagonal_copy", eigvals="aten::linalg_eigvals")


_HELPERS = frozenset(("op", "write_pair", "write_out", "<genexpr>", "<lambda>", "<listcomp>",
                      "wrapper", "inner", "fn"))


def _public_caller():
    """The name of the nearest public ember function on the stack (the op the user called:
    `acos` through its `_float_unary` helper), for an error message."""
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_name
        if not name.startswith("_") and name not in _HELPERS:
            return name
        f = f.f_back
    return "out"


def out_grad_error(name):
    """torch's refusal of out= under autograd; name: the op's (aten) name."""
    return RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad.")


def _tensor_args(name, input, other, first="input", second="other"):
    """torch's TypeError unless both arguments of the two-tensor op `name` (parameters named
    first and second) are Tensors."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument '{first}' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument '{second}' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")


# Note [Bad arguments]
# An op reads its tensor arguments' `_data` without checking their type: an isinstance test per
# argument would cost every call, and Python 3.11's try/except costs nothing until it raises.
# So the first read of an op's tensors sits in `try: ... except AttributeError as e: raise
# not_tensor(e) from None`, and not_tensor, on the error path only, builds torch's TypeError
# ("exp(): argument 'input' (position 1) must be Tensor, not str") from the AttributeError's
# `obj` and the frames above it: the op's name and the parameter that holds the value. An
# AttributeError whose object is no argument is a bug and propagates unchanged. Scalar
# arguments do the same with wrong_type around their int()/float() conversion, and NumPy's
# MemoryError becomes torch's allocator error through no_memory/memory_error. The sweep in
# tests/test_bad_input.py calls every public callable with bad values to keep it so.


def not_tensor(err):
    """torch's TypeError for a non-Tensor where a Tensor is expected, built only on the error
    path (Note [Bad arguments]): `err` is the AttributeError from reading `._data` (or another
    Tensor attribute); the op's name, the argument's name and position come from the outermost
    public ember frame that received the offending value as a named parameter, or inside a
    list/tuple parameter (the op the user called, not the helpers it calls)."""
    obj = getattr(err, "obj", err)
    if not isinstance(err, AttributeError) or isinstance(obj, Tensor):
        return err
    return wrong_type(obj, "Tensor", err, sys._getframe(1))


def wrong_type(obj, what, err=None, frame=None):
    """torch's TypeError for `obj` where `what` ("Tensor", "int", "float", "tuple of ints")
    was due, named after the op and parameter found as in not_tensor; `err` (or a TypeError
    without the op's name) where no parameter holds obj."""
    frame = frame or sys._getframe(1)
    found = inner = None
    frame_params = given = ()
    while frame is not None and frame.f_globals.get("__name__", "").startswith("ember"):
        code = frame.f_code
        hit = _find_arg(code, frame.f_locals, obj)
        if hit:
            name = code.co_name
            if code.co_freevars:                # an op made by a factory: the name it is bound to
                name = _bound_name(frame, code) or name
            if not name.startswith("_") and name not in _HELPERS:
                found = (name,) + hit
                frame_params = code.co_varnames[:1]
                nargs = code.co_argcount + code.co_kwonlyargcount
                if code.co_flags & 4 and hit[0] == code.co_varnames[nargs]:     # *args
                    given = list(frame.f_locals[hit[0]])
                elif hit[1]:
                    given = [frame.f_locals.get(p) for p in code.co_varnames[:hit[1]]]
            elif inner is None or not found:
                inner = (name.strip("_").removesuffix("_legacy"),) + hit
        frame = frame.f_back
    del frame
    found = found or inner      # a private function bound under a public name (svd)
    kind = type(obj).__name__
    if found is None:           # not an argument's fault: an internal error stays one
        return err if err is not None else TypeError(f"expected {what}, but got {kind}")
    name, param, pos, element = found
    # several overloads take two or more arguments; with one, torch names it
    if name in OVERLOADED and len(given) > 1:
        if param != "self" and "self" in frame_params:
            given = given[1:]           # a method: torch lists its arguments without self
        return invalid_args(name, given)
    if what == "tuple of ints" and element is None and isinstance(obj, (list, tuple)):
        bad = [(i, e) for i, e in enumerate(obj) if not _is_int(e)]
        if bad:
            element, kind = bad[0][0], type_name(bad[0][1])
    if element is not None and what == "Tensor":
        return TypeError(f"expected Tensor as element {element} in argument {pos - 1}, but got "
                         f"{kind}")
    if pos and param != "self" and "self" in frame_params:
        pos -= 1                        # a method: torch counts its arguments without self
    where = f" (position {pos})" if pos else ""
    if element is not None:
        return TypeError(f"{name}(): argument '{param}'{where} must be {what}, but found "
                         f"element of type {kind} at pos {element}")
    param = "input" if param == "self" else param       # torch's name in the function form
    return TypeError(f"{name}(): argument '{param}'{where} must be {what}, not {kind}")


def _bound_name(frame, code):
    """The public name under which the closure running in `frame` is bound in its module or in
    ember's namespace (the function object whose code and cells are the frame's)."""
    cells = [frame.f_locals.get(v) for v in code.co_freevars]
    for space in (frame.f_globals, vars(sys.modules["ember"])):
        for key, f in space.items():
            if getattr(f, "__code__", None) is code and not key.startswith("_") and \
                    all(c.cell_contents is v for c, v in zip(f.__closure__, cells)):
                return key
    return None


def _find_arg(code, local, obj):
    """(parameter name, position or None for keyword-only, element index or None) of the
    parameter of `code` holding `obj`, itself or as an item of a list/tuple (*args included)."""
    n = code.co_argcount + code.co_kwonlyargcount
    params = code.co_varnames[:n + bool(code.co_flags & 4)]
    for i, p in enumerate(params):
        v = local.get(p, _find_arg)
        pos = i + 1 if i < code.co_argcount or i == n else None
        if v is obj:
            return p, pos, None
        if isinstance(v, (list, tuple)):
            for k, item in enumerate(v):
                if item is obj:
                    return p, pos, k
    return None


# ember functions with public names that only serve ops: a bad argument is reported under the
# op that called them
_HELPERS = frozenset({"inplace_source", "operands", "wrap_out", "link", "write_out", "apply",
                      "forward"})


def no_memory(shape, dtype):
    """torch's RuntimeError for an allocation of `shape` and `dtype` that cannot be had: the
    size overflows int64, or the allocator refuses it."""
    n = np.dtype(dtype).itemsize
    for d in shape:
        n *= int(d)
    if n > 2**63 - 1:
        return RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    return RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: "
                        f"can't allocate memory: you tried to allocate {n} bytes. Error code 12 "
                        f"(Cannot allocate memory)")


def memory_error(err):
    """torch's RuntimeError for NumPy's MemoryError (which names the shape and dtype it
    wanted); another MemoryError stays as it is."""
    shape, dtype = getattr(err, "shape", None), getattr(err, "dtype", None)
    return err if shape is None or dtype is None else no_memory(shape, dtype)


# Note [Argument types]: torch's parser checks every non-tensor argument's type before the op
# looks at any value, so a bad `dim`, `upper` or `groups` is a TypeError even where the tensor
# has the wrong shape too. Ops off the hot path call check_args first; the hot ones check on
# their error path. With several overloads torch names no argument ("received an invalid
# combination of arguments"); invalid_args builds that message's first line.

def _is_int(v):
    if isinstance(v, (int, np.integer)):
        return not isinstance(v, (bool, np.bool_))
    return isinstance(v, Tensor) and v._data.ndim == 0 and v._data.dtype.kind in "iu"


def _is_number(v):
    if isinstance(v, Tensor):
        return v._data.ndim == 0
    return isinstance(v, (int, float, complex, np.number, np.bool_))


def _is_int_list(v):
    return _is_int(v) or isinstance(v, (tuple, list)) and all(_is_int(e) for e in v)


ARG_TYPES = {"int": _is_int, "bool": lambda v: isinstance(v, bool),
             "float": lambda v: isinstance(v, (int, float, np.integer, np.floating))
             and not isinstance(v, (bool, np.bool_)),
             "Number": _is_number, "str": lambda v: isinstance(v, str),
             "Tensor": lambda v: isinstance(v, Tensor), "tuple of ints": _is_int_list,
             "Tensor or Number": lambda v: isinstance(v, Tensor) or _is_number(v)}


def type_name(v):
    """A value's type as torch's parser names it."""
    if isinstance(v, Tensor):
        return "Tensor"
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def arg_type_error(op, param, pos, want, value):
    """torch's "op(): argument 'param' (position pos) must be want, not type" (pos None: a
    keyword-only argument, no position)."""
    where = f" (position {pos})" if pos else ""
    if want == "tuple of ints" and isinstance(value, (tuple, list)):
        i, e = next((i, e) for i, e in enumerate(value) if not _is_int(e))
        return TypeError(f"{op}(): argument '{param}'{where} must be tuple of ints, but found "
                         f"element of type {type_name(e)} at pos {i}")
    return TypeError(f"{op}(): argument '{param}'{where} must be {want}, not {type_name(value)}")


def check_args(op, *specs):
    """Each spec is (param, pos, want, value), or (param, pos, want, value, optional) where a
    None value is allowed: raise torch's TypeError for the first value of the wrong type."""
    for spec in specs:
        value = spec[3]
        if value is None and len(spec) > 4 and spec[4]:
            continue
        if not ARG_TYPES[spec[2]](value):
            raise arg_type_error(op, *spec[:4])


def invalid_args(op, args, kwargs=None):
    """torch's TypeError when no overload of op takes these arguments (its first line)."""
    parts = [type_name(a) for a in args] + [f"{k}={type_name(v)}"
                                            for k, v in (kwargs or {}).items()]
    got = ", ".join(parts) + (", " if kwargs and not args else "")
    return TypeError(f"{op}() received an invalid combination of arguments - got ({got}), but "
                     f"expected one of:")


# torch ops with several overloads (Tensor or Scalar other, int or tuple dim, ...), whose parser
# reports a bad argument as "received an invalid combination of arguments" (found by running
# torch 2.13 with a bad second argument)
OVERLOADED = frozenset((
    "all", "any", "argsort", "bernoulli", "bitwise_and", "bitwise_left_shift", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "bucketize", "clamp", "clamp_", "clamp_max",
    "clamp_max_", "clamp_min", "clamp_min_", "clip", "clip_", "copysign", "count_nonzero", "eq",
    "fill", "fill_", "float_power", "floor_divide", "fmod", "ge", "gradient", "gt", "hsplit",
    "index_fill", "le", "lerp", "lt", "masked_fill", "max", "mean", "min", "moveaxis", "movedim",
    "narrow", "ne", "normal", "pow", "prod", "rand", "randn", "remainder", "repeat_interleave",
    "round", "rsub", "scatter", "sort", "squeeze", "std", "std_mean", "sum", "tensor_split",
    "var", "var_mean", "vsplit", "where", "xlogy", "xlogy_"))


def args_fit(*pairs):
    """True if every (want, value) pair has the type torch's parser wants (None: optional)."""
    return all(v is None or ARG_TYPES[w](v) for w, v in pairs)


def check_operands(op, *args):
    """torch's invalid-combination TypeError unless each argument is a Tensor or a number."""
    if not all(ARG_TYPES["Tensor or Number"](a) for a in args):
        raise invalid_args(op, args)


class _Omitted:
    """The default of an optional argument that torch's parser does not take as None (max's
    dim, bernoulli's p): ember can then refuse an explicit None as torch does."""
    __slots__ = ()

    def __repr__(self):
        return "<omitted>"


OMITTED = _Omitted()


def out_tuple(out, n):
    """out= of an op returning n tensors: torch's TypeError unless it is a sequence."""
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{_public_caller()}(): argument 'out' must be tuple of Tensors, not "
                        f"{type(out).__name__}")
    return out
