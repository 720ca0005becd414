"""Tensor's op methods and operators, in one table: each name and the function it calls.

Plain class attributes, assigned once at import: calling `x.exp()` costs what calling
`ember.ops.unary.exp(x)` costs (no wrapper layer). A family's formulas may call ops of a family
above their own as Tensor methods, since this table is filled before any op runs. The Tensor's
own state and conversions (requires_grad, grad, shape, item, numpy, ...) are defined on the
class in ember/tensor.py; its autograd methods are bound at the end of this table."""
from . import creation, legacy, random, storage
from .autograd import graph, tensor_backward
from .tensor import is_inference
from .ops import (_views, activation, arith, binary, complex, convert, decomp, einsum, index,
                  join, logical, matmul, matrix, reduce, scan, scatter, shape, solve, sort,
                  spectral, special, stats, unary)
from .tensor import Tensor as T
# ---- arithmetic (ops/arith.py)
T.__add__ = T.__radd__ = T.add = arith.add
T.__iadd__ = T.add_ = arith.add_
T.__sub__ = T.sub = T.subtract = arith.sub
T.__rsub__ = arith._rsub
T.__isub__ = T.sub_ = T.subtract_ = arith.sub_
T.__mul__ = T.__rmul__ = T.mul = T.multiply = arith.mul
T.__imul__ = T.mul_ = T.multiply_ = arith.mul_
T.__truediv__ = T.div = T.divide = T.true_divide = arith.div
T.__rtruediv__ = arith._rdiv
T.__itruediv__ = T.div_ = T.divide_ = T.true_divide_ = arith.div_
T.__floordiv__ = T.floor_divide = arith.floor_divide
T.__rfloordiv__ = arith._rfloordiv
T.__ifloordiv__ = T.floor_divide_ = arith.floor_divide_
T.__pow__ = T.pow = arith.pow
T.__rpow__ = arith._rpow
T.__ipow__ = T.pow_ = arith.pow_
T.__neg__ = T.neg = T.negative = arith.neg
T.neg_ = T.negative_ = arith.neg_
T.reciprocal = arith.reciprocal
T.reciprocal_ = arith.reciprocal_
T.__mod__ = T.remainder = arith.remainder
T.__rmod__ = arith._rmod
T.__imod__ = T.remainder_ = arith.remainder_
T.fmod = arith.fmod
T.float_power = arith.float_power
T.fmod_ = arith.fmod_
T.float_power_ = arith.float_power_

# ---- unary math (ops/unary.py)
T.exp = unary.exp
T.exp_ = unary.exp_
T.log = unary.log
T.log_ = unary.log_
T.sqrt = unary.sqrt
T.sqrt_ = unary.sqrt_
T.__abs__ = T.abs = T.absolute = unary.abs
T.abs_ = T.absolute_ = unary.abs_
T.__pos__ = T.positive = unary.positive
T.sign = unary.sign
T.sign_ = unary.sign_
T.sgn = unary.sgn
T.sgn_ = unary.sgn_
T.rsqrt = unary.rsqrt
T.rsqrt_ = unary.rsqrt_
T.square = unary.square
T.square_ = unary.square_
T.exp2 = unary.exp2
T.exp2_ = unary.exp2_
T.expm1 = unary.expm1
T.expm1_ = unary.expm1_
T.log2 = unary.log2
T.log2_ = unary.log2_
T.log10 = unary.log10
T.log10_ = unary.log10_
T.log1p = unary.log1p
T.log1p_ = unary.log1p_
T.sin = unary.sin
T.sin_ = unary.sin_
T.cos = unary.cos
T.cos_ = unary.cos_
T.tan = unary.tan
T.tan_ = unary.tan_
T.asin = unary.asin
T.asin_ = unary.asin_
T.acos = unary.acos
T.acos_ = unary.acos_
T.atan = unary.atan
T.atan_ = unary.atan_
T.sinh = unary.sinh
T.sinh_ = unary.sinh_
T.cosh = unary.cosh
T.cosh_ = unary.cosh_
T.tanh = unary.tanh
T.tanh_ = unary.tanh_
T.asinh = unary.asinh
T.asinh_ = unary.asinh_
T.acosh = unary.acosh
T.acosh_ = unary.acosh_
T.atanh = unary.atanh
T.atanh_ = unary.atanh_
T.arcsin = unary.arcsin
T.arcsin_ = unary.arcsin_
T.arccos = unary.arccos
T.arccos_ = unary.arccos_
T.arctan = unary.arctan
T.arctan_ = unary.arctan_
T.arcsinh = unary.arcsinh
T.arcsinh_ = unary.arcsinh_
T.arccosh = unary.arccosh
T.arccosh_ = unary.arccosh_
T.arctanh = unary.arctanh
T.arctanh_ = unary.arctanh_
T.sigmoid = unary.sigmoid
T.sigmoid_ = unary.sigmoid_
T.logit = unary.logit
T.logit_ = unary.logit_
T.relu = unary.relu
T.relu_ = unary.relu_
T.floor = unary.floor
T.floor_ = unary.floor_
T.ceil = unary.ceil
T.ceil_ = unary.ceil_
T.round = unary.round
T.round_ = unary.round_
T.trunc = unary.trunc
T.trunc_ = unary.trunc_
T.fix = unary.fix
T.fix_ = unary.fix_
T.frac = unary.frac
T.frac_ = unary.frac_
T.clamp = T.clip = unary.clamp
T.clamp_ = T.clip_ = unary.clamp_
T.clamp_min = unary.clamp_min
T.clamp_min_ = unary.clamp_min_
T.clamp_max = unary.clamp_max
T.clamp_max_ = unary.clamp_max_
T.nan_to_num = unary.nan_to_num
T.nan_to_num_ = unary.nan_to_num_
T.deg2rad = unary.deg2rad
T.deg2rad_ = unary.deg2rad_
T.rad2deg = unary.rad2deg
T.rad2deg_ = unary.rad2deg_

# ---- comparisons, bitwise, logical, predicates (ops/logical.py)
T.__eq__ = logical._eq_op
T.__ne__ = logical._ne_op
T.__lt__ = T.lt = T.less = logical.lt
T.__le__ = T.le = T.less_equal = logical.le
T.__gt__ = T.gt = T.greater = logical.gt
T.__ge__ = T.ge = T.greater_equal = logical.ge
T.eq = logical.eq
T.ne = T.not_equal = logical.ne
T.eq_ = logical.eq_
T.ne_ = T.not_equal_ = logical.ne_
T.lt_ = T.less_ = logical.lt_
T.le_ = T.less_equal_ = logical.le_
T.gt_ = T.greater_ = logical.gt_
T.ge_ = T.greater_equal_ = logical.ge_
T.where = logical._where_method
T.__and__ = T.__rand__ = T.bitwise_and = logical.bitwise_and
T.__or__ = T.__ror__ = T.bitwise_or = logical.bitwise_or
T.__xor__ = T.__rxor__ = T.bitwise_xor = logical.bitwise_xor
T.__invert__ = logical._invert
T.bitwise_not = logical.bitwise_not
T.logical_and = logical.logical_and
T.logical_or = logical.logical_or
T.logical_xor = logical.logical_xor
T.logical_not = logical.logical_not
T.__lshift__ = T.bitwise_left_shift = logical.bitwise_left_shift
T.__rshift__ = T.bitwise_right_shift = logical.bitwise_right_shift
T.__rlshift__ = logical._rlshift
T.__rrshift__ = logical._rrshift
T.__ilshift__ = T.bitwise_left_shift_ = logical.bitwise_left_shift_
T.__irshift__ = T.bitwise_right_shift_ = logical.bitwise_right_shift_
T.__iand__ = T.bitwise_and_ = logical.bitwise_and_
T.__ior__ = T.bitwise_or_ = logical.bitwise_or_
T.__ixor__ = T.bitwise_xor_ = logical.bitwise_xor_
T.bitwise_not_ = logical.bitwise_not_
T.logical_and_ = logical.logical_and_
T.logical_or_ = logical.logical_or_
T.logical_xor_ = logical.logical_xor_
T.logical_not_ = logical.logical_not_
T.isnan = logical.isnan
T.isinf = logical.isinf
T.isposinf = logical.isposinf
T.isneginf = logical.isneginf
T.isfinite = logical.isfinite
T.signbit = logical.signbit
T.isclose = logical.isclose
T.allclose = logical.allclose
T.equal = logical.equal
T.isreal = logical.isreal

# ---- complex numbers (ops/complex.py)
T.conj = complex.conj
T.angle = complex.angle
T.real = property(complex.real)
T.imag = property(complex.imag)
T.conj_physical = complex.conj_physical
T.resolve_conj = complex.resolve_conj
T.resolve_neg = complex.resolve_neg
T.conj_physical_ = complex.conj_physical_

# ---- binary float ops (ops/binary.py)
T.atan2 = binary.atan2
T.arctan2 = binary.arctan2
T.hypot = binary.hypot
T.copysign = binary.copysign
T.xlogy = binary.xlogy
T.maximum = binary.maximum
T.minimum = binary.minimum
T.fmax = binary.fmax
T.fmin = binary.fmin
T.lerp = binary.lerp
T.lerp_ = binary.lerp_
T.addcmul = binary.addcmul
T.addcmul_ = binary.addcmul_
T.addcdiv = binary.addcdiv
T.addcdiv_ = binary.addcdiv_
T.atan2_ = binary.atan2_
T.arctan2_ = binary.arctan2_
T.hypot_ = binary.hypot_
T.copysign_ = binary.copysign_
T.xlogy_ = binary.xlogy_

# ---- reductions (ops/reduce.py)
T.sum = reduce.sum
T.mean = reduce.mean
T.all = reduce.all
T.any = reduce.any
T.nansum = reduce.nansum
T.nanmean = reduce.nanmean
T.prod = reduce.prod
T.max = reduce.max
T.min = reduce.min
T.amax = reduce.amax
T.amin = reduce.amin
T.aminmax = reduce.aminmax
T.argmax = reduce.argmax
T.argmin = reduce.argmin
T.logsumexp = reduce.logsumexp
T.softmax = reduce.softmax
T.log_softmax = reduce.log_softmax
T.count_nonzero = reduce.count_nonzero
T.dist = reduce.dist

# ---- statistics (ops/stats.py)
T.var = stats.var
T.std = stats.std

# ---- scans (ops/scan.py)
T.cumsum = scan.cumsum
T.cumprod = scan.cumprod
T.cummax = scan.cummax
T.cummin = scan.cummin
T.logcumsumexp = scan.logcumsumexp
T.cumsum_ = scan.cumsum_
T.cumprod_ = scan.cumprod_

# ---- sorting and selection (ops/sort.py)
T.median = sort.median
T.nanmedian = sort.nanmedian
T.mode = sort.mode
T.kthvalue = sort.kthvalue
T.sort = sort.sort
T.argsort = sort.argsort
T.msort = sort.msort
T.topk = sort.topk

# ---- products (ops/matmul.py, ops/einsum.py)
T.matmul = matmul.matmul
T.__matmul__ = matmul._matmul_op
T.__rmatmul__ = matmul._rmatmul
T.mm = matmul.mm
T.bmm = matmul.bmm
T.mv = matmul.mv
T.dot = matmul.dot
T.vdot = matmul.vdot
T.outer = matmul.outer
T.ger = matmul.ger
T.addmm = matmul.addmm
T.addmv = matmul.addmv
T.baddbmm = matmul.baddbmm
T.addbmm = matmul.addbmm
T.addr = matmul.addr
T.addmm_ = matmul.addmm_
T.addmv_ = matmul.addmv_
T.baddbmm_ = matmul.baddbmm_
T.addbmm_ = matmul.addbmm_
T.addr_ = matmul.addr_
T.cross = matmul.cross
T.inner = einsum.inner
T.kron = einsum.kron
T.stft = spectral.stft
T.istft = spectral.istft

# ---- linear algebra (ops/solve.py, ops/decomp.py, ops/matrix.py)
T.norm = matrix.norm
T.det = matrix.det
T.logdet = matrix.logdet
T.slogdet = matrix.slogdet
T.pinverse = matrix.pinverse
T.matrix_power = matrix.matrix_power
T.matrix_exp = matrix.matrix_exp
T.lu_solve = matrix._lu_solve_legacy
T.eig = matrix._eig_removed
T.inverse = solve.inverse
T.cholesky_solve = solve.cholesky_solve
T.cholesky_inverse = solve.cholesky_inverse
T.triangular_solve = solve.triangular_solve
T.svd = decomp._svd_legacy
T.qr = decomp._qr_legacy
T.cholesky = decomp.cholesky
T.lu = decomp._lu_legacy

# ---- indexing (ops/index.py)
T.__getitem__ = index._getitem
T.__setitem__ = index._setitem
T.index_select = index.index_select
T.take = index.take
T.index_put = index.index_put
T.index_put_ = index.index_put_
T.masked_select = index.masked_select
T.nonzero = index.nonzero
T.argwhere = index.argwhere

# ---- scatter-style index ops (ops/scatter.py)
T.gather = scatter.gather
T.take_along_dim = scatter.take_along_dim
T.scatter = scatter.scatter
T.scatter_ = scatter.scatter_
T.scatter_add = scatter.scatter_add
T.scatter_add_ = scatter.scatter_add_
T.scatter_reduce = scatter.scatter_reduce
T.scatter_reduce_ = scatter.scatter_reduce_
T.index_add = scatter.index_add
T.index_add_ = scatter.index_add_
T.index_reduce = scatter.index_reduce
T.index_reduce_ = scatter.index_reduce_
T.index_copy = scatter.index_copy
T.index_copy_ = scatter.index_copy_
T.index_fill = scatter.index_fill
T.index_fill_ = scatter.index_fill_
T.masked_fill = scatter.masked_fill
T.masked_fill_ = scatter.masked_fill_
T.masked_scatter = scatter.masked_scatter
T.masked_scatter_ = scatter.masked_scatter_
T.put = scatter.put
T.put_ = scatter.put_

# ---- joins, splits and slices (ops/join.py)
T.narrow = join.narrow
T.split = join.split
T.split_with_sizes = join.split_with_sizes
T.chunk = join.chunk
T.tensor_split = join.tensor_split
T.hsplit = join.hsplit
T.vsplit = join.vsplit
T.dsplit = join.dsplit
T.narrow_copy = join.narrow_copy
T.slice_scatter = join.slice_scatter
T.unsafe_split = join.unsafe_split
T.unsafe_split_with_sizes = join.unsafe_split_with_sizes
T.unsafe_chunk = join.unsafe_chunk

# ---- special functions (ops/special.py)
T.erf = special.erf
T.erf_ = special.erf_
T.erfc = special.erfc
T.erfc_ = special.erfc_
T.erfinv = special.erfinv
T.erfinv_ = special.erfinv_

# ---- copies and dtype conversion (ops/convert.py)
T.clone = convert.clone
T.copy_ = convert.copy_
T.fill_ = convert.fill_
T.zero_ = convert.zero_
T.contiguous = convert.contiguous
T.to = convert.to
T.float = convert.float_
T.double = convert.double
T.half = convert.half
T.long = convert.long
T.int = convert.int_
T.short = convert.short
T.char = convert.char
T.byte = convert.byte
T.bool = convert.bool_
T.cfloat = convert.cfloat
T.cdouble = convert.cdouble
T.type_as = convert.type_as

# ---- creation from a tensor (creation.py)
T.new_zeros = creation.new_zeros
T.new_ones = creation.new_ones
T.new_empty = creation.new_empty
T.new_full = creation._new_full
T.new_tensor = creation._new_tensor

# ---- views and shape ops (ops/shape.py)
T._base = property(shape._base)
T._is_view = shape._is_view
T.t_ = shape.t_
T.transpose_ = T.swapaxes_ = T.swapdims_ = shape.transpose_
T.unsqueeze_ = shape.unsqueeze_
T.squeeze_ = shape.squeeze_
T.view = shape.view
T.view_as = shape.view_as
T.reshape = shape.reshape
T.reshape_as = shape.reshape_as
T.flatten = shape.flatten
T.unflatten = shape.unflatten
T.ravel = shape.ravel
T.expand = shape.expand
T.expand_as = shape.expand_as
T.broadcast_to = shape._broadcast_to_method
T.unsqueeze = shape.unsqueeze
T.squeeze = shape.squeeze
T.unbind = shape.unbind
T.select = shape.select
T._reshape_copy = shape._reshape_copy
T.permute = shape.permute
T.transpose = T.swapaxes = T.swapdims = shape.transpose
T.t = shape.t
T.T = property(shape._T)
T.mT = property(shape._mT)
T.H = property(shape._H)
T.mH = property(shape._mH)
T.adjoint = shape.adjoint
T.movedim = T.moveaxis = shape.movedim
T.repeat = shape.repeat
T.tile = shape.tile
T.repeat_interleave = index.repeat_interleave
T.flip = shape.flip
T.fliplr = shape.fliplr
T.flipud = shape.flipud
T.roll = shape.roll
T.rot90 = shape.rot90
T.tril = shape.tril
T.triu = shape.triu
T.tril_ = shape.tril_
T.triu_ = shape.triu_
T.diag = shape.diag
T.diag_embed = shape.diag_embed
T.diagflat = shape.diagflat
T.diagonal = shape.diagonal
T.trace = shape.trace
T.unfold = shape.unfold
T.select_scatter = shape.select_scatter
T.diagonal_scatter = shape.diagonal_scatter

# ---- random sampling in place (random.py)
T.uniform_ = random.uniform_
T.normal_ = random.normal_
T.random_ = random.random_
T.exponential_ = random.exponential_
T.geometric_ = random.geometric_
T.log_normal_ = random.log_normal_
T.cauchy_ = random.cauchy_
T.bernoulli_ = random.bernoulli_
T.bernoulli = random._bernoulli_method
T.multinomial = random._multinomial_method

# ---- autograd (autograd/__init__.py, autograd/graph.py)
T.backward = tensor_backward
T.detach = _views.make_alias
T.detach_ = _views.detach_
T._reread = _views._reread      # (tensor.py's _views_follow: a stale view reads its base)
T._version = property(graph.version)
T.register_hook = graph.register_tensor_hook
T.register_post_accumulate_grad_hook = graph.register_post_accumulate_grad_hook
T.is_inference = is_inference

# ---- legacy API (legacy.py): torch.Tensor(...), Tensor.new(...), Tensor.type(...)
T.__new__ = staticmethod(legacy.tensor_new)
T.__init__ = legacy.tensor_init
T.new = legacy.new
T.type = legacy.type_


# ---- the everyday surface (issue 14): ops added to the families, storages, legacy forms
T.gcd = binary.gcd
T.gcd_ = binary.gcd_
T.lcm = binary.lcm
T.lcm_ = binary.lcm_
T.heaviside = binary.heaviside
T.heaviside_ = binary.heaviside_
T.nextafter = binary.nextafter
T.nextafter_ = binary.nextafter_
T.ldexp = binary.ldexp
T.ldexp_ = binary.ldexp_
T.logaddexp = binary.logaddexp
T.logaddexp2 = binary.logaddexp2
T.frexp = unary.frexp
T.lgamma = special.lgamma
T.lgamma_ = special.lgamma_
T.digamma = special.digamma
T.digamma_ = special.digamma_
T.polygamma = special._polygamma_method
T.polygamma_ = special.polygamma_
T.mvlgamma = special.mvlgamma
T.mvlgamma_ = special.mvlgamma_
T.i0 = special.i0
T.i0_ = special.i0_
T.sinc = special.sinc
T.sinc_ = special.sinc_
T.igamma = special.igamma
T.igamma_ = special.igamma_
T.igammac = special.igammac
T.igammac_ = special.igammac_
T.diff = scan.diff
T.histc = stats.histc
T.histogram = stats.histogram
T.bincount = stats.bincount
T.quantile = stats.quantile
T.nanquantile = stats.nanquantile
T.cov = stats.cov
T.corrcoef = stats.corrcoef
T.unique = sort.unique
T.unique_consecutive = sort.unique_consecutive
T.lstsq = matrix._lstsq_removed
T.symeig = matrix._symeig_removed
T.solve = matrix._solve_removed
T.renorm = reduce.renorm
T.renorm_ = reduce.renorm_
T.sum_to_size = reduce.sum_to_size
T.as_strided = shape.as_strided
T.as_strided_ = shape.as_strided_
T.as_strided_scatter = shape.as_strided_scatter
T.fill_diagonal_ = scatter.fill_diagonal_
T.apply_ = convert.apply_
T.map_ = convert.map_
T.map2_ = convert.map2_
T.new_empty_strided = creation._new_empty_strided
T.as_subclass = legacy.as_subclass
T.untyped_storage = storage.untyped_storage
T.storage = storage.storage
T.storage_type = storage.storage_type
T.storage_offset = storage.storage_offset
T.set_ = storage.set_
T.resize_ = storage.resize_
T.resize_as_ = storage.resize_as_
T.resize = storage.resize
T.resize_as = storage.resize_as
T.is_set_to = storage.is_set_to


def _slice_inverse(self, src, dim=0, start=None, end=None, step=1):
    from .ops.copy_variants import slice_inverse      # (lazy: Note [Copy variants])
    return slice_inverse(self, src, dim, start, end, step)


T.slice_inverse = _slice_inverse
T.share_memory_ = storage.share_memory_
T.is_shared = storage.is_shared
T.nonzero_static = index.nonzero_static
T.geqrf = decomp.geqrf
T.orgqr = decomp.orgqr
T.ormqr = decomp.ormqr
T.prelu = activation.prelu
T.hardshrink = activation.hardshrink
T.module_load = convert.module_load
