"""dtype objects and PyTorch's type-promotion rule (one table, one function)."""
import numpy as np

# Category order used by torch's promotion: bool < integer < floating < complex.
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    __slots__ = ("name", "np", "category", "itemsize", "is_floating_point", "is_complex",
                 "is_signed")

    def __init__(self, name, np_dtype, category):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize
        self.is_floating_point = category == FLOAT
        self.is_complex = category == COMPLEX
        self.is_signed = name not in ("bool", "uint8")

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return self.name

    def to_real(self):
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self):
        return {float64: complex128, float32: complex64, float16: complex64}.get(self, self)


bool_ = dtype("bool", np.bool_, BOOL)
uint8 = dtype("uint8", np.uint8, INT)
int8 = dtype("int8", np.int8, INT)
int16 = dtype("int16", np.int16, INT)
int32 = dtype("int32", np.int32, INT)
int64 = dtype("int64", np.int64, INT)
float16 = dtype("float16", np.float16, FLOAT)
float32 = dtype("float32", np.float32, FLOAT)
float64 = dtype("float64", np.float64, FLOAT)
complex64 = dtype("complex64", np.complex64, COMPLEX)
complex128 = dtype("complex128", np.complex128, COMPLEX)

# torch's aliases
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
FROM_NP = {d.np: d for d in ALL}


def from_numpy_dtype(np_dtype):
    try:
        return FROM_NP[np_dtype]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np_dtype}. The only supported types "
                        "are: float64, float32, float16, complex64, complex128, int64, int32, "
                        "int16, int8, uint8, and bool.") from None


def _promote(a, b):
    """torch.promote_types for two dtypes."""
    if a is b:
        return a
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        if hi.category == COMPLEX and lo is float64:
            return complex128
        return hi
    return FROM_NP[np.promote_types(a.np, b.np)]


PROMOTE = {(a, b): _promote(a, b) for a in ALL for b in ALL}


def promote_types(type1, type2):
    for pos, (name, v) in enumerate((("type1", type1), ("type2", type2)), 1):
        if not isinstance(v, dtype):
            kind = "Tensor" if hasattr(v, "_data") else type(v).__name__
            raise TypeError(f"promote_types(): argument '{name}' (position {pos}) must be "
                            f"torch.dtype, not {kind}")
    return PROMOTE[(type1, type2)]


class _Defaults:
    __slots__ = ("float", "complex")


DEFAULT = _Defaults()
DEFAULT.float = float32
DEFAULT.complex = complex64


def set_default_dtype(d):
    if d not in (float32, float64, float16):
        raise TypeError("only floating-point types are supported as the default type")
    DEFAULT.float = d
    DEFAULT.complex = complex128 if d is float64 else complex64


def get_default_dtype():
    return DEFAULT.float


def scalar_category(value):
    """Category of a Python number (bool is checked first: it is an int subclass)."""
    t = type(value)
    if t is bool or t is np.bool_:
        return BOOL
    if t is complex:
        return COMPLEX
    if isinstance(value, (builtins_float, np.floating)):
        return FLOAT
    if isinstance(value, (builtins_complex, np.complexfloating)):
        return COMPLEX
    if isinstance(value, (builtins_int, np.integer)) or value is None:
        return INT
    # not a number where a scalar or a tensor was due: the op's TypeError (Note [Bad arguments])
    from .ops._args import not_tensor   # (error path only: ops sit above dtypes)
    raise not_tensor(AttributeError(name="_data", obj=value))


import builtins as _b  # noqa: E402  (the module shadows float/int/complex above)
builtins_float, builtins_complex, builtins_int = _b.float, _b.complex, _b.int


def default_for_category(category):
    return (bool_, int64, DEFAULT.float, DEFAULT.complex)[category]


def result_type(*args):
    """torch.result_type over tensors and Python scalars.

    Three priority groups: dimensioned tensors, 0-dim tensors, Python scalars (which stand
    for their category's default dtype). A lower group only matters when it raises the
    category."""
    dim_t = zero_t = None
    scalar_cat = -1
    for a in args:
        d = getattr(a, "dtype", None)
        if d is None or isinstance(a, np.generic):      # NumPy scalars count as Python ones
            scalar_cat = max(scalar_cat, scalar_category(a))
        elif a.ndim:
            dim_t = d if dim_t is None else PROMOTE[(dim_t, d)]
        else:
            zero_t = d if zero_t is None else PROMOTE[(zero_t, d)]
    wrapped = default_for_category(scalar_cat) if scalar_cat >= 0 else None
    return _combine(dim_t, _combine(zero_t, wrapped))


def _combine(higher, lower):
    """Merge a higher-priority group's dtype with a lower one's (None: group absent)."""
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return PROMOTE[(higher, lower)]
    return higher


_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
          "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
          "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def type_name(np_dtype):
    """torch's C++ scalar type name (Float, Long, ...) used in error messages."""
    return _NAMES[np_dtype.name]


# C++ names of the scalar types, as torch's error messages print them
C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
           "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
           "bool": "bool", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}
SCALAR_NAMES = dict(C_NAMES, int64="int64_t", int32="int", int16="int16_t", int8="int8_t",
                    uint8="uint8_t")


_PYTHON_TYPES = {_b.float: float64, _b.int: int64, _b.bool: bool_, _b.complex: complex128}


def as_dtype(value, fn):
    """A dtype argument as a dtype: ember's, or a Python type (float -> float64, int -> int64,
    bool, complex -> complex128) as torch reads one; None stays None. fn names the function
    in torch's TypeError for anything else."""
    if value is None or isinstance(value, dtype):
        return value
    found = _PYTHON_TYPES.get(value) if isinstance(value, type) else None
    if found is None:
        raise TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not "
                        f"{type(value).__name__}")
    return found


def cast(a, np_dtype, copy=True):
    """a.astype(np_dtype) as torch converts values: float64 to float16 goes through float32
    (c10::Half is built from a float, so a float64 just above a float16 tie becomes the
    tie and rounds to even, where NumPy rounds it up): Note [Scalar operands]."""
    if np_dtype == np.float16 and a.dtype == np.float64:
        a = a.astype(np.float32)
    return a.astype(np_dtype, copy=copy)
