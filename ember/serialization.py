"""save/load in torch's own file format (the zip archive torch.save writes), so files move both
ways between ember and PyTorch.

An archive `<name>/` holds `data.pkl` (a protocol-2 pickle of the object, each tensor written
as a call to torch._utils._rebuild_tensor_v2 whose first argument is a persistent id
('storage', <torch.FloatStorage...>, key, location, numel)), one entry `data/<key>` per storage
with its raw bytes, and the records `.format_version` ("1"), `.storage_alignment` ("64"),
`byteorder` ("little": the byte order of the storage bytes, sys.byteorder of the writer),
`version` ("3\\n") and `.data/serialization_id`. Entries are stored uncompressed, each one's
data starting at a multiple of 64 bytes (the local header's extra field is padded).

Note [Safety]: load never runs code from the file and never unpickles arbitrary objects. The
pickle is executed by a small interpreter (_Unpickler) that only knows containers, numbers,
strings and the allow-list in _GLOBALS; every other global, opcode or call is refused with
pickle.UnpicklingError before anything happens. Sizes are checked against each other before
any allocation: a storage must be exactly as long as its pickle claims, the bytes come from
the archive (never more than its entry declares), and every tensor must fit in its storage.
"""
import collections
import io
import mmap as _mmap
import os
import pickle
import struct
import sys
import warnings
import zipfile
import zlib
from codecs import escape_decode

import numpy as np

from . import dtypes as D
from .tensor import Tensor, Size, device, wrap

__all__ = ["save", "load", "PyTorchFileReader", "PyTorchFileWriter"]

# torch's storage class for each dtype: the pickle names a storage's dtype through its class.
STORAGE_NAMES = {D.float32: "FloatStorage", D.float64: "DoubleStorage", D.float16: "HalfStorage",
                 D.complex64: "ComplexFloatStorage", D.complex128: "ComplexDoubleStorage",
                 D.int64: "LongStorage", D.int32: "IntStorage", D.int16: "ShortStorage",
                 D.int8: "CharStorage", D.uint8: "ByteStorage", D.bool_: "BoolStorage"}
# torch dtypes (and their storages) that ember does not have: named in the error.
MISSING_DTYPES = ("bfloat16", "complex32", "chalf", "uint16", "uint32", "uint64", "bits1x8",
                  "bits2x4", "bits4x2", "bits8", "bits16", "float8_e4m3fn", "float8_e5m2",
                  "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2",
                  "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "int1", "int2", "int3",
                  "int4", "int5", "int6", "int7", "uint1", "uint2", "uint3", "uint4", "uint5",
                  "uint6", "uint7")
MISSING_STORAGES = {"BFloat16Storage": "bfloat16", "ComplexHalfStorage": "complex32",
                    "QInt8Storage": "qint8", "QUInt8Storage": "quint8", "QInt32Storage": "qint32",
                    "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4"}

ALIGNMENT = 64                 # where each entry's data starts in torch's archives
ZIP64_LIMIT = 0xFFFFFFFF       # sizes and offsets from here on need zip64 fields
MARK32, MARK16 = 0xFFFFFFFF, 0xFFFF   # what a 32/16-bit field holds when zip64 has the value
VERSION_RECORD = b"3\n"        # the `version` record torch 2.x writes
MAX_VERSION = 10               # the newest `version` record this torch build reads
CHUNK = 1 << 24                # bytes per write/CRC step for big storages
DEFLATE_MAX_RATIO = 1100       # deflate cannot expand data by more (~1032:1); a bigger claim lies

CUDA_ERROR = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
              "is False. If you are running on a CPU-only machine, please use torch.load with "
              "map_location=torch.device('cpu') to map your storages to the CPU.")
CORRUPT = (" The checkpoint file is probably corrupted: it was not saved completely, was damaged "
           "in transfer, or was modified after saving.")
WO_PREFIX = ("Weights only load failed. ember.load unpickles only tensors, containers (dict, "
             "OrderedDict, list, tuple, set), numbers, strings, and torch dtypes, devices and "
             "sizes; it never runs code from the file (ember has no weights_only=False).\n\n"
             "WeightsUnpickler error: ")


def _parameter_class():
    """ember.nn.Parameter, or None while ember.nn has none.

    Looked up in sys.modules at call time rather than imported: ember.nn sits in a later
    layer than this module, and ember/__init__ has loaded it before any save or load runs."""
    return getattr(sys.modules.get("ember.nn"), "Parameter", None)


# ---------------------------------------------------------------------------------------------
# save: a protocol-2 pickler that writes exactly the opcodes Python's pickler writes for these
# types (the same bytes as torch's data.pkl), and a zip writer that streams storages.


class _Global:
    """A global the pickle names (module, name): written as GLOBAL, memoized like a class."""
    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name


class _PersistentId:
    """A storage reference, written as its id tuple and BINPERSID (torch's persistent_id)."""
    __slots__ = ("pid",)

    def __init__(self, pid):
        self.pid = pid


_G = {key: _Global(*key) for key in [
    ("collections", "OrderedDict"), ("collections", "Counter"), ("__builtin__", "set"),
    ("__builtin__", "complex"), ("__builtin__", "bytearray"), ("_codecs", "encode"),
    ("torch", "device"), ("torch", "Size"), ("torch._utils", "_rebuild_tensor_v2"),
    ("torch._utils", "_rebuild_parameter"), ("torch._utils", "_rebuild_parameter_with_state")]}
_G_DTYPE = {d: _Global("torch", d.name) for d in D.ALL}
_G_STORAGE = {d: _Global("torch", name) for d, name in STORAGE_NAMES.items()}
_STORAGE_TAG = "storage"       # one object, so the pickle memoizes it as torch's does
_CPU_TAG = "cpu"
_LATIN1 = "latin1"
BATCH = 1000                   # items per APPENDS/SETITEMS, as Python's pickler batches


class _Pickler:
    """Pickles the types torch.load(weights_only=True) reads back, at protocol 2."""

    def __init__(self):
        self.out = bytearray()
        self.memo = {}            # id(obj) -> (memo index, obj kept alive)
        self.roots = {}           # id(root array) -> [key, root, dtype]
        self.storages = []        # (key, uint8 array over the storage's bytes), in key order

    def dump(self, obj):
        self.out += b"\x80\x02"
        self.save(obj)
        self.out += b"."
        return bytes(self.out)

    def put(self, obj):
        i = len(self.memo)
        self.memo[id(obj)] = (i, obj)
        self.out += b"q" + bytes((i,)) if i < 256 else b"r" + struct.pack("<I", i)

    def save(self, obj):
        out = self.out
        t = type(obj)
        if obj is None:
            out += b"N"
        elif t is bool:
            out += b"\x88" if obj else b"\x89"
        elif t is int:
            self.save_int(obj)
        elif t is float:
            out += b"G" + struct.pack(">d", obj)
        else:
            m = self.memo.get(id(obj))
            if m is not None:
                i = m[0]
                out += b"h" + bytes((i,)) if i < 256 else b"j" + struct.pack("<I", i)
                return
            if t is str:
                b = obj.encode("utf-8", "surrogatepass")
                out += b"X" + struct.pack("<I", len(b)) + b
                self.put(obj)
            elif t is tuple:
                self.save_tuple(obj)
            elif t is list:
                out += b"]"
                self.put(obj)
                self.save_items(obj)
            elif t is dict:
                out += b"}"
                self.put(obj)
                self.save_pairs(obj)
            elif t is collections.OrderedDict:
                self.save_ordered_dict(obj)
            elif isinstance(obj, Tensor):
                self.save_tensor(obj)
            elif t is _PersistentId:
                self.save(obj.pid)
                out += b"Q"
            elif t is _Global:
                out += b"c" + obj.module.encode() + b"\n" + obj.name.encode() + b"\n"
                self.put(obj)
            elif t is D.dtype:
                self.save(_G_DTYPE[obj])
            elif t is device:
                # torch's device.type is a new string at each access, so its pickle spells the
                # type out instead of referring to an equal string written earlier
                kind = obj.type.encode().decode()
                self.save_reduce(_G[("torch", "device")],
                                 (kind,) if obj.index is None else (kind, obj.index), obj)
            elif t is Size:
                self.save_reduce(_G[("torch", "Size")], (tuple(obj),), obj)
            elif t is set:
                self.save_reduce(_G[("__builtin__", "set")], (list(obj),), obj)
            elif t is complex:
                self.save_reduce(_G[("__builtin__", "complex")], (obj.real, obj.imag), obj)
            elif t is bytes:
                # Protocol 2 has no bytes opcode: Python writes _codecs.encode(text, 'latin1')
                # (and bytes() for b'', which torch.load refuses; this form loads everywhere).
                self.save_reduce(_G[("_codecs", "encode")], (obj.decode(_LATIN1), _LATIN1), obj)
            elif t is bytearray:
                self.save_reduce(_G[("__builtin__", "bytearray")], (bytes(obj),), obj)
            elif t is collections.Counter:
                self.save_reduce(_G[("collections", "Counter")], (dict(obj),), obj)
            else:
                self.refuse(obj)

    def refuse(self, obj):
        hint = " (convert NumPy values with .item() or ember.from_numpy)" \
            if isinstance(obj, (np.ndarray, np.generic)) else ""
        raise pickle.PicklingError(
            f"ember.save cannot save an object of type {type(obj).__module__}."
            f"{type(obj).__qualname__}{hint}: ember writes only what ember.load and "
            "torch.load(weights_only=True) read back: tensors, dict, OrderedDict, Counter, "
            "list, tuple, set, None, bool, int, float, complex, str, bytes, bytearray, and ember "
            "dtypes, devices and sizes. Save a module's or optimizer's state_dict() instead of "
            "the object.")

    def save_int(self, v):
        out = self.out
        if 0 <= v < 256:
            out += b"K" + bytes((v,))
        elif 0 <= v < 65536:
            out += b"M" + struct.pack("<H", v)
        elif -0x80000000 <= v <= 0x7FFFFFFF:
            out += b"J" + struct.pack("<i", v)
        else:
            n = (v.bit_length() >> 3) + 1                  # two's complement, sign bit included
            b = v.to_bytes(n, "little", signed=True)
            if n > 1 and b[-1] == 0xFF and b[-2] & 0x80:    # shortest form, as Python writes
                b = b[:-1]
            out += (b"\x8a" + bytes((len(b),)) if len(b) < 256 else
                    b"\x8b" + struct.pack("<i", len(b))) + b

    def save_tuple(self, obj):
        n = len(obj)
        if n == 0:
            self.out += b")"
            return
        if n > 3:
            self.out += b"("
        for x in obj:
            self.save(x)
        self.out += b"t" if n > 3 else (b"\x85", b"\x86", b"\x87")[n - 1]
        self.put(obj)

    def save_items(self, items):
        """APPEND/APPENDS for the items of the list just written."""
        items = list(items)
        if len(items) == 1:
            self.save(items[0])
            self.out += b"a"
            return
        for i in range(0, len(items), BATCH):
            self.out += b"("
            for x in items[i:i + BATCH]:
                self.save(x)
            self.out += b"e"

    def save_pairs(self, d):
        """SETITEM/SETITEMS for the items of the dict just written."""
        items = list(d.items())
        if len(items) == 1:
            self.save(items[0][0])
            self.save(items[0][1])
            self.out += b"s"
            return
        for i in range(0, len(items), BATCH):
            self.out += b"("
            for k, v in items[i:i + BATCH]:
                self.save(k)
                self.save(v)
            self.out += b"u"

    def save_reduce(self, func, args, obj):
        self.save(func)
        self.save(args)
        self.out += b"R"
        if obj is not None:
            self.put(obj)

    def save_ordered_dict(self, obj):
        self.save_reduce(_G[("collections", "OrderedDict")], (), obj)
        self.save_pairs(obj)
        state = getattr(obj, "__dict__", None)    # e.g. nn.Module.state_dict()'s _metadata
        if state:
            self.save(state)
            self.out += b"b"

    def save_tensor(self, t):
        cls = _parameter_class()
        if cls is not None and isinstance(t, cls):
            state = getattr(t, "__dict__", None)
            data = wrap(t._data)
            hooks = collections.OrderedDict()
            if state:
                self.save_reduce(_G[("torch._utils", "_rebuild_parameter_with_state")],
                                 (data, t._requires_grad, hooks, dict(state)), t)
            else:
                self.save_reduce(_G[("torch._utils", "_rebuild_parameter")],
                                 (data, t._requires_grad, hooks), t)
            return
        arr = t._data
        dt = D.FROM_NP[arr.dtype]
        key, numel, offset, strides = self.storage_of(arr, dt)
        pid = _PersistentId((_STORAGE_TAG, _G_STORAGE[dt], key, _CPU_TAG, numel))
        self.save_reduce(_G[("torch._utils", "_rebuild_tensor_v2")],
                         (pid, offset, tuple(arr.shape), strides, t._requires_grad,
                          collections.OrderedDict()), t)

    def storage_of(self, arr, dt):
        """(key, numel, offset, strides) of arr within the storage it is saved in: the memory
        block of its root array when arr can be described as torch describes a view (so views
        and their bases share a storage, as in torch), else a contiguous copy of its own."""
        root = _root(arr)
        size = arr.dtype.itemsize
        if root is not None:
            offset, rem = divmod(_address(arr) - _address(root), size)
            strides = tuple(s // size for s in arr.strides)
            if (rem == 0 and offset >= 0 and root.nbytes % size == 0 and
                    all(s >= 0 and s % size == 0 for s in arr.strides) and
                    (arr.size == 0 or offset + sum((n - 1) * s for n, s in
                                                   zip(arr.shape, strides)) < root.nbytes // size)):
                entry = self.roots.get(id(root))
                if entry is None:
                    entry = self.roots[id(root)] = [str(len(self.storages)), root, dt]
                    self.storages.append((entry[0], _bytes_of(root)))
                elif entry[2] is not dt:
                    raise RuntimeError("Cannot save multiple tensors or storages that view the "
                                       "same data as different types")
                return entry[0], root.nbytes // size, offset, _strides(arr, strides)
        copy = arr.copy(order="C")
        key = str(len(self.storages))
        self.roots[id(copy)] = [key, copy, dt]
        self.storages.append((key, _bytes_of(copy)))
        return key, copy.size, 0, _strides(copy, tuple(s // size for s in copy.strides))


def _strides(arr, strides):
    """Element strides as torch records them: NumPy gives an empty array zero strides where
    torch gives an empty tensor contiguous ones (each the product of the later sizes, 0 as 1)."""
    if arr.size:
        return strides
    out, step = [], 1
    for n in reversed(arr.shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def _address(arr):
    return arr.__array_interface__["data"][0]


def _root(arr):
    """The array owning arr's memory as one contiguous block (following .base through views
    and NumPy's stride-trick wrappers), or None when there is no such array."""
    root, obj = arr, arr
    while True:
        base = getattr(obj, "base", None)
        if base is None:
            break
        if isinstance(base, np.ndarray):
            root = base
        obj = base
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    lo = _address(arr) + sum((n - 1) * s for n, s in zip(arr.shape, arr.strides) if s < 0)
    return root if _address(root) <= lo and (arr.size == 0 or lo + 1 <= _address(root) +
                                                 root.nbytes) else None


def _bytes_of(root):
    """A flat uint8 view of a contiguous array's memory block (no copy)."""
    flat = root.ravel(order="K")
    return flat.view(np.uint8) if flat.size else np.empty(0, np.uint8)


class _ZipWriter:
    """Writes an uncompressed zip archive sequentially, as torch lays it out: every entry's
    data 64-byte aligned, zip64 end records always, zip64 entry fields when sizes need them."""
    _CENTRAL_FLAGS, _MADE_BY = 0x800, 45       # (utf-8 names; the zip64 record's "made by")

    @staticmethod
    def _central_version(fields):
        return 45 if fields else 20

    def __init__(self, fp, prefix):
        self.fp, self.prefix, self.pos, self.entries = fp, prefix, 0, []

    def write(self, b):
        self.fp.write(b)
        self.pos += len(b)

    def add(self, name, data):
        """One entry; data: bytes or a flat uint8 array, streamed in CHUNK-sized pieces."""
        name = (self.prefix + name).encode("utf-8")
        size = len(data)
        crc = 0
        for i in range(0, size, CHUNK):
            crc = zlib.crc32(data[i:i + CHUNK], crc)
        big = size >= ZIP64_LIMIT
        extra = struct.pack("<HHQQ", 1, 16, size, size) if big else b""
        pad = -(self.pos + 30 + len(name) + len(extra) + 4) % ALIGNMENT
        extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad
        offset = self.pos
        sz32 = MARK32 if big else size
        self.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if big else 20, 0x800, 0, 0, 0,
                               crc, sz32, sz32, len(name), len(extra)) + name + extra)
        for i in range(0, size, CHUNK):
            self.write(data[i:i + CHUNK])
        self.entries.append((name, crc, size, offset))

    def finish(self):
        start = self.pos
        for name, crc, size, offset in self.entries:
            fields = ([size, size] if size >= ZIP64_LIMIT else []) + \
                ([offset] if offset >= ZIP64_LIMIT else [])
            extra = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields) \
                if fields else b""
            ver = self._central_version(fields)
            sz32 = MARK32 if size >= ZIP64_LIMIT else size
            self.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, ver, ver,
                                   self._CENTRAL_FLAGS, 0, 0, 0,
                                   crc, sz32, sz32, len(name), len(extra), 0, 0, 0, 0,
                                   MARK32 if offset >= ZIP64_LIMIT else offset) + name + extra)
        n, cd_size, end = len(self.entries), self.pos - start, self.pos
        self.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, self._MADE_BY, 45, 0, 0, n, n,
                               cd_size, start))
        self.write(struct.pack("<IIQI", 0x07064B50, 0, end, 1))
        n16 = MARK16 if n >= MARK16 else n
        self.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n16, n16,
                               MARK32 if cd_size >= ZIP64_LIMIT else cd_size,
                               MARK32 if start >= ZIP64_LIMIT else start, 0))


class _StreamZipWriter(_ZipWriter):
    """The layout torch's PyTorchFileWriter gives a record (miniz's streaming entries): a local
    header with flags 0x0808 and no CRC or sizes, the data at a multiple of `alignment`, then
    a data descriptor with them; central entries without extra fields; zip64 end records."""

    _CENTRAL_FLAGS, _MADE_BY = 0x808, 0x31E

    @staticmethod
    def _central_version(fields):
        return 0

    def __init__(self, fp, prefix, alignment, crc):
        super().__init__(fp, prefix)
        self.alignment, self.crc = alignment, crc

    def add(self, name, data):
        name = (self.prefix + name).encode("utf-8")
        size = len(data)
        crc = 0
        for i in range(0, size, CHUNK) if self.crc else ():
            crc = zlib.crc32(data[i:i + CHUNK], crc)
        pad = -(self.pos + 30 + len(name) + 4) % self.alignment
        extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        offset = self.pos
        self.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, 0x808, 0, 0, 0, 0, 0, 0,
                               len(name), len(extra)) + name + extra)
        for i in range(0, size, CHUNK):
            self.write(data[i:i + CHUNK])
        if size >= ZIP64_LIMIT:
            self.write(struct.pack("<IIQQ", 0x08074B50, crc, size, size))
        else:
            self.write(struct.pack("<IIII", 0x08074B50, crc, size, size))
        self.entries.append((name, crc, size, offset))


def _archive_name(f):
    """torch names the archive's folder after the file (its last suffix dropped); streams and
    names it cannot use get 'archive'."""
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fsdecode(f)))[0]
        if stem and stem.isascii() and stem.isprintable():
            return stem
    return "archive"


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    if pickle_module is not pickle:
        raise ValueError("ember.save writes its pickle itself (only what torch.load's "
                         "weights_only unpickler reads); pickle_module must be left as pickle")
    if pickle_protocol != 2:
        raise ValueError(f"ember.save writes pickle protocol 2 (torch.save's default), not "
                         f"{pickle_protocol}")
    if not _use_new_zipfile_serialization:
        raise ValueError("ember.save writes only torch's zip format "
                         "(_use_new_zipfile_serialization=True), not the legacy format")
    pickler = _Pickler()
    data = pickler.dump(obj)          # before opening f: an object we refuse leaves f untouched
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.path.abspath(os.fsdecode(f)))
        if not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        with open(f, "wb") as fp:
            _write_archive(fp, _archive_name(f), data, pickler.storages,
                           not _disable_byteorder_record)
    elif hasattr(f, "write"):
        _write_archive(f, "archive", data, pickler.storages, not _disable_byteorder_record)
    else:
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'write' attribute")


def _serialization_id():
    return str(int.from_bytes(os.urandom(17), "little") % 10 ** 40).zfill(40)


def _write_archive(fp, name, data, storages, byteorder):
    z = _ZipWriter(fp, name + "/")
    z.add("data.pkl", data)
    z.add(".format_version", b"1")
    z.add(".storage_alignment", str(ALIGNMENT).encode())
    if byteorder:
        z.add("byteorder", sys.byteorder.encode())
    for key, arr in storages:
        z.add("data/" + key, arr)
    z.add("version", VERSION_RECORD)
    z.add(".data/serialization_id", _serialization_id().encode())
    z.finish()


# ---------------------------------------------------------------------------------------------
# the archive as objects: torch.PyTorchFileWriter / torch.PyTorchFileReader (torch._C's
# zip-archive classes under torch.save/torch.load), on the same writer and on zipfile

_NOT_FOUND = ("PytorchStreamReader failed locating file {}: file not found. This is an "
              "internal miniz error. If you are seeing this error, there is a high likelihood "
              "that your checkpoint file is corrupted. This can happen if the checkpoint was "
              "not saved properly, was transferred incorrectly, or the file was modified "
              "after saving.")
_NOT_ZIP = _NOT_FOUND.replace("failed locating file {}: file not found",
                              "failed reading zip archive: not a ZIP archive")


def _str_arg(cls, fn, v, ret):
    if not isinstance(v, str):
        raise TypeError(f"{fn}(): incompatible function arguments. The following argument "
                        f"types are supported:\n    1. (self: torch._C.{cls}, arg0: str) -> "
                        f"{ret}\n")


class PyTorchFileWriter:
    """Writes a torch zip archive record by record (a path or a writable binary stream);
    write_end_of_file adds the version, byteorder and serialization id records and the
    central directory, as torch's writer does (also when the writer is dropped unfinished)."""

    def __init__(self, file_name, compute_crc32=True, storage_alignment=64):
        self._own = isinstance(file_name, (str, os.PathLike))
        if self._own:
            parent = os.path.dirname(os.path.abspath(os.fsdecode(file_name)))
            if not os.path.isdir(parent):
                raise RuntimeError(f"Parent directory {parent} does not exist.")
            fp = open(file_name, "wb")
        elif hasattr(file_name, "write"):
            fp = file_name
        else:
            raise TypeError("PyTorchFileWriter(): expected a file name or a buffer with a "
                            "'write' method")
        self._name = _archive_name(file_name)
        self._zip = _StreamZipWriter(fp, self._name + "/", int(storage_alignment),
                                     bool(compute_crc32))
        self._written = set()
        self._version = 3
        self._id = ""
        self._finalized = False

    def archive_name(self):
        return self._name

    def serialization_id(self):
        return self._id

    def get_all_written_records(self):
        return set(self._written)

    def set_min_version(self, version):
        self._version = max(self._version, int(version))

    def _check_open(self, name=None):
        if self._finalized:
            raise RuntimeError("!finalized_ INTERNAL ASSERT FAILED: the archive is finished "
                               "(write_end_of_file)")
        if name in self._written:
            raise RuntimeError(f"false INTERNAL ASSERT FAILED: Tried to serialize file twice: "
                               f"{name}")

    def write_record(self, name, data, size):
        """Writes data's first `size` bytes (bytes, str as UTF-8, or a uint8-viewable
        array/storage) as the record `name`."""
        _str_arg("PyTorchFileWriter", "write_record", name, "None")
        self._check_open(name)
        if isinstance(data, str):
            data = data.encode("utf-8")
        elif not isinstance(data, (bytes, bytearray, memoryview)):
            arr = getattr(data, "_data", data)
            data = _bytes_of(np.ascontiguousarray(arr)) if isinstance(arr, np.ndarray) \
                else bytes(data)
        self._zip.add(name, data[:int(size)])
        self._written.add(name)

    def write_record_metadata(self, name, size):
        """A record of `size` zero bytes whose CRC is not computed (torch reserves the entry
        this way and fills it later)."""
        _str_arg("PyTorchFileWriter", "write_record_metadata", name, "None")
        self._check_open(name)
        crc, self._zip.crc = self._zip.crc, False
        try:
            self._zip.add(name, bytes(int(size)))
        finally:
            self._zip.crc = crc
        self._written.add(name)

    def write_end_of_file(self):
        self._check_open()
        version = (".data/version" if self._version >= 6 else "version")
        if "version" not in self._written and ".data/version" not in self._written:
            self._zip.add(version, f"{self._version}\n".encode())
            self._written.add(version)
        if "byteorder" not in self._written:
            self._zip.add("byteorder", sys.byteorder.encode())
            self._written.add("byteorder")
        self._id = _serialization_id()
        self._zip.add(".data/serialization_id", self._id.encode())
        self._written.add(".data/serialization_id")
        self._zip.finish()
        self._finalized = True
        if self._own:
            self._zip.fp.close()

    def __del__(self):
        if getattr(self, "_finalized", True) is False:
            try:
                self.write_end_of_file()
            except Exception:       # noqa: BLE001 - a destructor must not raise
                pass


class PyTorchFileReader:
    """Reads the records of a torch zip archive (a path or a readable binary stream)."""

    def __init__(self, file):
        if isinstance(file, (str, os.PathLike)):
            try:
                fp = open(file, "rb")
            except OSError as e:
                raise RuntimeError(f"open file failed because of errno {e.errno} on fopen: "
                                   f"{e.strerror}, file path: {os.fsdecode(file)}") from None
        else:
            file.tell                       # torch's first use of a stream (AttributeError)
            fp = file
        try:
            self._zf = zipfile.ZipFile(fp)
        except zipfile.BadZipFile:
            raise RuntimeError(_NOT_ZIP) from None
        self._fp = fp
        infos = self._zf.infolist()
        self._prefix = infos[0].filename.split("/", 1)[0] + "/" if infos else ""
        self._infos = {i.filename[len(self._prefix):]: i for i in infos
                       if i.filename.startswith(self._prefix)}

    def _info(self, name, fn, ret):
        _str_arg("PyTorchFileReader", fn, name, ret)
        info = self._infos.get(name)
        if info is None:
            raise RuntimeError(_NOT_FOUND.format(name))
        return info

    def get_all_records(self):
        return list(self._infos)

    def has_record(self, name):
        _str_arg("PyTorchFileReader", "has_record", name, "bool")
        return name in self._infos

    def get_record(self, name):
        """The record's bytes, read as stored (torch checks no CRC: records written with
        compute_crc32=False or by write_record_metadata carry none)."""
        info = self._info(name, "get_record", "bytes")
        if info.compress_type != zipfile.ZIP_STORED:
            return self._zf.read(info)
        self._fp.seek(self.get_record_offset(name))
        return self._fp.read(info.file_size)

    def get_record_size(self, name):
        return self._info(name, "get_record_size", "int").file_size

    def get_record_header_offset(self, name):
        return self._info(name, "get_record_header_offset", "int").header_offset

    def get_record_offset(self, name):
        """Where the record's data starts in the file (after its local header)."""
        info = self._info(name, "get_record_offset", "int")
        self._fp.seek(info.header_offset)
        head = self._fp.read(30)
        n, m = struct.unpack("<HH", head[26:30])
        return info.header_offset + 30 + n + m

    def serialization_id(self):
        has = ".data/serialization_id" in self._infos
        return self.get_record(".data/serialization_id").decode() if has else ""


# ---------------------------------------------------------------------------------------------
# load


class UntypedStorage:
    """A storage as load hands it to a map_location callable: raw bytes on the CPU."""
    __slots__ = ("_array",)

    def __init__(self, array):
        self._array = array

    @property
    def device(self):
        return device("cpu")

    def nbytes(self):
        return self._array.size

    def size(self):
        return self._array.size

    __len__ = size

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        raise RuntimeError(CUDA_ERROR)

    def __repr__(self):
        return f"<UntypedStorage on cpu, {self._array.size} bytes>"


class _Storage:
    """A storage as the pickle references it: its raw bytes (shared by every reference to the
    same key) and the dtype this reference gives them."""
    __slots__ = ("raw", "dtype", "typed")

    def __init__(self, raw, dtype):
        self.raw, self.dtype = raw, dtype
        self.typed = raw.view(dtype.np)


class _StorageType:
    """A storage class named in a persistent id (torch.FloatStorage, ...): it gives the dtype;
    `dtype` None is torch.storage.UntypedStorage (bytes; the dtype comes with the tensor)."""
    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype


def _refused(what):
    return pickle.UnpicklingError(WO_PREFIX + what)


def _ints(v, what):
    """A tuple of Python ints from a pickled size/stride (tuple, list or torch.Size)."""
    if type(v) not in (tuple, list, Size) or any(type(x) is not int for x in v):
        raise _refused(f"{what} must be a tuple of ints, got {v!r:.200}")
    return tuple(v)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    return _rebuild(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                    None, metadata)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    if type(dtype) is not D.dtype:
        raise _refused(f"_rebuild_tensor_v3 expects a dtype, got {dtype!r:.200}")
    return _rebuild(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                    dtype, metadata)


def _rebuild(storage, offset, size, stride, requires_grad, hooks, dtype, metadata):
    """A tensor viewing `storage` at `offset` with `size` and `stride` (elements), after every
    check torch's view would make: the result shares memory with all views of that storage."""
    if type(storage) is not _Storage:
        raise _refused(f"a tensor's storage must be a persistent storage id, got "
                       f"{type(storage).__name__}")
    if dtype is not None and dtype is not storage.dtype:
        if storage.raw.size % dtype.itemsize:
            raise RuntimeError(f"a storage of {storage.raw.size} bytes cannot be viewed as "
                               f"{dtype}")
        storage = _Storage(storage.raw, dtype)
    size, stride = _ints(size, "a tensor's size"), _ints(stride, "a tensor's stride")
    if type(offset) is not int:
        raise _refused(f"a tensor's storage offset must be an int, got {offset!r:.200}")
    if type(requires_grad) is not bool:
        raise _refused(f"requires_grad must be a bool, got {requires_grad!r:.200}")
    if not isinstance(hooks, dict) or hooks:
        raise _refused("backward hooks cannot be loaded (they are code)")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if len(size) != len(stride):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length "
                           f"({len(stride)})")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(size)}: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    typed = storage.typed
    item = typed.itemsize
    numel = item
    for n in size:                    # stop early: a long size tuple must not build a bigint
        numel *= n
        if numel > 0x7FFFFFFFFFFFFFFF or len(size) > 64:
            raise RuntimeError("numel: integer multiplication overflow")
    numel //= item
    if numel == 0:
        arr = np.empty(size, typed.dtype)
    else:
        need = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
        if need > typed.size:
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, "
                               f"storage offset {offset}, and itemsize {item} requiring a "
                               f"storage size of {need * item} are out of bounds for storage "
                               f"of size {typed.size * item}")
        arr = np.ndarray(size, typed.dtype, typed, offset * item, tuple(s * item for s in stride))
    if metadata is not None:
        if not isinstance(metadata, dict) or not set(metadata) <= {"conj", "neg"}:
            raise _refused(f"unsupported tensor metadata {metadata!r:.200}")
        # torch's lazy conjugate/negative bits: the stored values are the un-negated ones.
        if metadata.get("conj"):
            arr = np.conj(arr)
        if metadata.get("neg"):
            arr = np.negative(arr)
    t = wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return _rebuild_parameter_with_state(data, requires_grad, backward_hooks, None)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    if type(data) is not Tensor or type(requires_grad) is not bool:
        raise _refused("a parameter needs a tensor and a bool requires_grad")
    if not isinstance(backward_hooks, dict) or backward_hooks:
        raise _refused("backward hooks cannot be loaded (they are code)")
    if state is not None and not isinstance(state, dict):
        raise _refused(f"a parameter's state must be a dict, got {type(state).__name__}")
    cls = _parameter_class()
    if cls is None:                 # no ember.nn.Parameter yet: a leaf with torch's flag
        if state:
            raise RuntimeError("this file holds a Parameter with attributes, which needs "
                               "ember.nn.Parameter")
        if requires_grad:
            data.requires_grad_(True)
        return data
    p = cls(data, requires_grad)
    for k, v in (state or {}).items():
        _set_attribute(p, k, v)
    return p


def _set_attribute(obj, name, value):
    """setattr for BUILD-style state: plain attribute names only, never a class attribute."""
    if type(name) is not str or not name.isidentifier() or name.startswith("__") or \
            hasattr(type(obj), name):
        raise _refused(f"cannot set attribute {name!r:.100} on {type(obj).__name__}")
    try:
        setattr(obj, name, value)
    except AttributeError:
        raise _refused(f"cannot set attribute {name!r:.100} on {type(obj).__name__}") from None


def _container(cls, kinds, args):
    """cls() or cls(x) for one x of the given types, its items checked by cls itself."""
    if args and (len(args) > 1 or type(args[0]) not in kinds):
        raise _refused(f"{cls.__name__} takes nothing or one of "
                       f"{', '.join(k.__name__ for k in kinds)}")
    try:
        return cls(*args)
    except (TypeError, ValueError) as e:          # unhashable items, pairs that are not pairs
        raise _refused(f"bad items for {cls.__name__} ({e})") from None


def _ordered_dict(*args):
    return _container(collections.OrderedDict, (list, dict, collections.OrderedDict), args)


def _counter(*args):
    return _container(collections.Counter, (dict, collections.OrderedDict), args)


def _set(*args):
    return _container(set, (list,), args)


def _complex(*args):
    if len(args) > 2 or any(type(a) not in (int, float) for a in args):
        raise _refused("complex takes up to two real numbers")
    return complex(*args)


def _bytearray(*args):
    if args and (len(args) > 1 or type(args[0]) is not bytes):
        raise _refused("bytearray takes nothing or one bytes object")
    return bytearray(*args)


def _encode(text, encoding="utf-8"):
    # Protocol 2 writes bytes as _codecs.encode(text, 'latin1'); any other codec is refused
    # (some, like zlib or hex, would turn the call into a decompressor or parser).
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise _refused("_codecs.encode is allowed only as encode(str, 'latin1')")
    return text.encode("latin1")


def _device(*args):
    if not 1 <= len(args) <= 2 or type(args[0]) is not str or \
            (len(args) == 2 and type(args[1]) is not int):
        raise _refused(f"torch.device takes a string and an index, got {args!r:.200}")
    return device(*args)


def _size(*args):
    if len(args) != 1:
        raise _refused("torch.Size takes one tuple")
    return Size(_ints(args[0], "torch.Size"))


# The allow-list: every global a file may name, as (module, name) -> what it stands for.
# Calls (REDUCE, NEWOBJ) are allowed only to the functions in _CALLABLE.
_CALLABLE = {
    ("collections", "OrderedDict"): _ordered_dict, ("collections", "Counter"): _counter,
    ("builtins", "set"): _set, ("builtins", "complex"): _complex,
    ("builtins", "bytearray"): _bytearray, ("_codecs", "encode"): _encode,
    ("torch", "device"): _device, ("torch", "Size"): _size,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
}
_GLOBALS = dict(_CALLABLE)
_GLOBALS.update({("torch", name): _StorageType(name, d) for d, name in STORAGE_NAMES.items()})
_GLOBALS[("torch.storage", "UntypedStorage")] = _StorageType("UntypedStorage", None)
_GLOBALS.update({("torch", d.name): d for d in D.ALL})
_GLOBALS.update({("torch", alias): d for alias, d in (
    ("half", D.float16), ("float", D.float32), ("double", D.float64), ("short", D.int16),
    ("int", D.int32), ("long", D.int64), ("cfloat", D.complex64), ("cdouble", D.complex128))})
_CALLS = {id(f) for f in _CALLABLE.values()}
_ARITY = {_ordered_dict: 1, _counter: 1, _set: 1, _complex: 2, _bytearray: 1, _encode: 2,
          _device: 2, _size: 1, _rebuild_tensor_v2: 7, _rebuild_tensor_v3: 8,
          _rebuild_parameter: 3, _rebuild_parameter_with_state: 4}
_MIN_ARITY = {_rebuild_tensor_v2: 6, _rebuild_tensor_v3: 7, _rebuild_parameter: 3,
              _rebuild_parameter_with_state: 4, _encode: 1, _device: 1, _size: 1}


def _find_global(module, name):
    obj = _GLOBALS.get(("builtins" if module == "__builtin__" else module, name))
    if obj is not None:
        return obj
    if module == "torch" and (name in MISSING_DTYPES or name in MISSING_STORAGES):
        dt = MISSING_STORAGES.get(name, name)
        raise RuntimeError(f"ember.load: this file holds data of dtype torch.{dt}, which ember "
                           "does not have")
    shown = name if module in ("builtins", "__builtin__") else f"{module}.{name}"
    raise _refused(f"Unsupported global: GLOBAL {shown} was not an allowed global by default.")


class _Passthrough(Exception):
    """Carries an exception raised by user code (a map_location callable) through the
    interpreter, which would otherwise report it as a malformed pickle."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


class _Unpickler:
    """A pickle interpreter for protocols 0-5 that builds only allowed objects (Note
    [Safety]). Opcodes are dispatched through _OPS; every stack or memo fault, truncation or
    malformed argument becomes pickle.UnpicklingError."""

    def __init__(self, data, persistent_load, encoding="ASCII"):
        self.data, self.pos = data, 0
        self.persistent_load, self.encoding = persistent_load, encoding
        self.stack, self.marks, self.memo = [], [], {}

    def load(self):
        data, ops = self.data, _OPS
        try:
            while True:
                op = data[self.pos]
                self.pos += 1
                fn = ops.get(op)
                if fn is None:
                    raise _refused(f"Unsupported operand {op} ({bytes((op,))!r})")
                if fn(self):
                    return self.stack.pop()
        except _Passthrough as p:
            raise p.error from None
        except (IndexError, KeyError, struct.error, OverflowError, UnicodeDecodeError,
                ValueError) as e:
            if isinstance(e, pickle.UnpicklingError):
                raise
            raise _refused(f"malformed or truncated pickle ({type(e).__name__}: {e})") from None

    # -- reading arguments
    def read(self, n):
        p = self.pos
        if n < 0 or p + n > len(self.data):
            raise _refused(f"pickle data was truncated (wanted {n} bytes at offset {p})")
        self.pos = p + n
        return self.data[p:p + n]

    def unpack(self, fmt, n):
        return struct.unpack(fmt, self.read(n))[0]

    def readline(self):
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise _refused("pickle data was truncated (no end of line)")
        line = self.data[self.pos:end]
        self.pos = end + 1
        return line

    def pop_mark(self):
        items = self.stack
        self.stack = self.marks.pop()
        return items

    def push(self, x):
        self.stack.append(x)

    # -- the opcodes
    def op_proto(self):
        if self.read(1)[0] > 5:
            raise _refused("unsupported pickle protocol")

    def op_frame(self):
        self.read(8)

    def op_stop(self):
        return True

    def op_mark(self):
        self.marks.append(self.stack)
        self.stack = []

    def op_pop(self):
        if self.stack:
            self.stack.pop()
        else:
            self.pop_mark()

    def op_pop_mark(self):
        self.pop_mark()

    def op_dup(self):
        self.push(self.stack[-1])

    def op_none(self):
        self.push(None)

    def op_true(self):
        self.push(True)

    def op_false(self):
        self.push(False)

    def op_int(self):
        line = self.readline()
        self.push(False if line == b"00" else True if line == b"01" else int(line))

    def op_binint(self):
        self.push(self.unpack("<i", 4))

    def op_binint1(self):
        self.push(self.read(1)[0])

    def op_binint2(self):
        self.push(self.unpack("<H", 2))

    def op_long(self):
        line = self.readline()
        self.push(int(line[:-1] if line.endswith(b"L") else line))

    def op_long1(self):
        self.push(int.from_bytes(self.read(self.read(1)[0]), "little", signed=True))

    def op_long4(self):
        self.push(int.from_bytes(self.read(self.unpack("<i", 4)), "little", signed=True))

    def op_float(self):
        self.push(float(self.readline()))

    def op_binfloat(self):
        self.push(self.unpack(">d", 8))

    def op_string(self):
        line = self.readline().rstrip()
        if len(line) < 2 or line[0] != line[-1] or line[:1] not in (b"'", b'"'):
            raise _refused("the STRING opcode argument must be quoted")
        self.push_str(escape_decode(line[1:-1])[0])

    def op_binstring(self):
        self.push_str(self.read(self.unpack("<i", 4)))

    def op_short_binstring(self):
        self.push_str(self.read(self.read(1)[0]))

    def push_str(self, b):
        # Python 2 str: decoded with load's `encoding` (bytes when it is 'bytes'), as pickle does.
        self.push(b if self.encoding == "bytes" else b.decode(self.encoding))

    def op_unicode(self):
        self.push(self.readline().decode("raw-unicode-escape"))

    def op_binunicode(self):
        self.push(str(self.read(self.unpack("<I", 4)), "utf-8", "surrogatepass"))

    def op_short_binunicode(self):
        self.push(str(self.read(self.read(1)[0]), "utf-8", "surrogatepass"))

    def op_binunicode8(self):
        self.push(str(self.read(self.unpack("<Q", 8)), "utf-8", "surrogatepass"))

    def op_binbytes(self):
        self.push(bytes(self.read(self.unpack("<I", 4))))

    def op_short_binbytes(self):
        self.push(bytes(self.read(self.read(1)[0])))

    def op_binbytes8(self):
        self.push(bytes(self.read(self.unpack("<Q", 8))))

    def op_bytearray8(self):
        self.push(bytearray(self.read(self.unpack("<Q", 8))))

    def op_empty_tuple(self):
        self.push(())

    def op_tuple(self):
        self.push(tuple(self.pop_mark()))

    def op_tuple1(self):
        self.stack[-1] = (self.stack[-1],)

    def op_tuple2(self):
        s = self.stack
        s[-2:] = [(s[-2], s[-1])]

    def op_tuple3(self):
        s = self.stack
        s[-3:] = [(s[-3], s[-2], s[-1])]

    def op_empty_list(self):
        self.push([])

    def op_list(self):
        self.push(self.pop_mark())

    def op_append(self):
        x = self.stack.pop()
        self.target(list).append(x)

    def op_appends(self):
        items = self.pop_mark()
        self.target(list).extend(items)

    def op_empty_dict(self):
        self.push({})

    def op_dict(self):
        items = self.pop_mark()
        d = {}
        self.setitems(d, items)
        self.push(d)

    def op_setitem(self):
        s = self.stack
        k, v = s[-2], s[-1]
        del s[-2:]
        self.setitems(self.target(dict), (k, v))

    def op_setitems(self):
        items = self.pop_mark()
        self.setitems(self.target(dict), items)

    def op_empty_set(self):
        self.push(set())

    def op_additems(self):
        items = self.pop_mark()
        s = self.target(set)
        try:
            s.update(items)
        except TypeError as e:
            raise _refused(f"bad set item ({e})") from None

    def op_frozenset(self):
        items = self.pop_mark()
        try:
            self.push(frozenset(items))
        except TypeError as e:
            raise _refused(f"bad set item ({e})") from None

    def target(self, kind):
        obj = self.stack[-1]
        if not isinstance(obj, kind):
            raise _refused(f"cannot add items to {type(obj).__name__}")
        return obj

    def setitems(self, d, items):
        if len(items) % 2:
            raise _refused("odd number of items for SETITEMS")
        try:
            for i in range(0, len(items), 2):
                d[items[i]] = items[i + 1]
        except TypeError as e:
            raise _refused(f"bad dict key ({e})") from None

    def op_put(self):
        self.memo[int(self.readline())] = self.stack[-1]

    def op_binput(self):
        self.memo[self.read(1)[0]] = self.stack[-1]

    def op_long_binput(self):
        self.memo[self.unpack("<I", 4)] = self.stack[-1]

    def op_memoize(self):
        self.memo[len(self.memo)] = self.stack[-1]

    def op_get(self):
        self.push(self.memo[int(self.readline())])

    def op_binget(self):
        self.push(self.memo[self.read(1)[0]])

    def op_long_binget(self):
        self.push(self.memo[self.unpack("<I", 4)])

    def op_global(self):
        module = self.readline().decode("utf-8")
        name = self.readline().decode("utf-8")
        self.push(_find_global(module, name))

    def op_stack_global(self):
        s = self.stack
        module, name = s[-2], s[-1]
        if type(module) is not str or type(name) is not str:
            raise _refused("STACK_GLOBAL requires str")
        del s[-2:]
        self.push(_find_global(module, name))

    def op_reduce(self):
        s = self.stack
        func, args = s[-2], s[-1]
        del s[-1]
        s[-1] = _call(func, args)

    def op_newobj(self):
        self.op_reduce()

    def op_newobj_ex(self):
        s = self.stack
        if s[-1]:
            raise _refused("NEWOBJ_EX with keyword arguments")
        del s[-1]
        self.op_reduce()

    def op_build(self):
        s = self.stack
        state = s.pop()
        inst = s[-1]
        if type(state) is tuple and len(state) == 2 and state[1] is None:
            state = state[0]
        if type(inst) not in (collections.OrderedDict, collections.Counter) or \
                not isinstance(state, dict):
            raise _refused(f"cannot set the state of {type(inst).__name__} (BUILD)")
        for k, v in state.items():
            _set_attribute(inst, k, v)

    def op_binpersid(self):
        s = self.stack
        s[-1] = self.persistent_load(s[-1])

    def refuse(self):
        raise _refused("the pickle uses an opcode that can run code or needs objects from "
                       "outside the file (INST, OBJ, EXT, PERSID or out-of-band buffers)")


def _call(func, args):
    """REDUCE/NEWOBJ: a call to an allowed function with a tuple of arguments."""
    if id(func) not in _CALLS:
        raise _refused(f"cannot call {type(func).__name__} {func!r:.100}")
    if type(args) is not tuple or not _MIN_ARITY.get(func, 0) <= len(args) <= _ARITY[func]:
        raise _refused(f"wrong arguments for {func.__name__.lstrip('_')}: {args!r:.200}")
    return func(*args)


_OPS = {ord(code): fn for code, fn in [
    (b"\x80", _Unpickler.op_proto), (b"\x95", _Unpickler.op_frame), (b".", _Unpickler.op_stop),
    (b"(", _Unpickler.op_mark), (b"0", _Unpickler.op_pop), (b"1", _Unpickler.op_pop_mark),
    (b"2", _Unpickler.op_dup), (b"N", _Unpickler.op_none), (b"\x88", _Unpickler.op_true),
    (b"\x89", _Unpickler.op_false), (b"I", _Unpickler.op_int), (b"J", _Unpickler.op_binint),
    (b"K", _Unpickler.op_binint1), (b"M", _Unpickler.op_binint2), (b"L", _Unpickler.op_long),
    (b"\x8a", _Unpickler.op_long1), (b"\x8b", _Unpickler.op_long4),
    (b"F", _Unpickler.op_float), (b"G", _Unpickler.op_binfloat), (b"S", _Unpickler.op_string),
    (b"T", _Unpickler.op_binstring), (b"U", _Unpickler.op_short_binstring),
    (b"V", _Unpickler.op_unicode), (b"X", _Unpickler.op_binunicode),
    (b"\x8c", _Unpickler.op_short_binunicode), (b"\x8d", _Unpickler.op_binunicode8),
    (b"B", _Unpickler.op_binbytes), (b"C", _Unpickler.op_short_binbytes),
    (b"\x8e", _Unpickler.op_binbytes8), (b"\x96", _Unpickler.op_bytearray8),
    (b")", _Unpickler.op_empty_tuple), (b"t", _Unpickler.op_tuple),
    (b"\x85", _Unpickler.op_tuple1), (b"\x86", _Unpickler.op_tuple2),
    (b"\x87", _Unpickler.op_tuple3), (b"]", _Unpickler.op_empty_list),
    (b"l", _Unpickler.op_list), (b"a", _Unpickler.op_append), (b"e", _Unpickler.op_appends),
    (b"}", _Unpickler.op_empty_dict), (b"d", _Unpickler.op_dict),
    (b"s", _Unpickler.op_setitem), (b"u", _Unpickler.op_setitems),
    (b"\x8f", _Unpickler.op_empty_set), (b"\x90", _Unpickler.op_additems),
    (b"\x91", _Unpickler.op_frozenset), (b"p", _Unpickler.op_put),
    (b"q", _Unpickler.op_binput), (b"r", _Unpickler.op_long_binput),
    (b"\x94", _Unpickler.op_memoize), (b"g", _Unpickler.op_get),
    (b"h", _Unpickler.op_binget), (b"j", _Unpickler.op_long_binget),
    (b"c", _Unpickler.op_global), (b"\x93", _Unpickler.op_stack_global),
    (b"R", _Unpickler.op_reduce), (b"\x81", _Unpickler.op_newobj),
    (b"\x92", _Unpickler.op_newobj_ex), (b"b", _Unpickler.op_build),
    (b"Q", _Unpickler.op_binpersid),
    # i INST, o OBJ, \x82-\x84 EXT1/2/4, P PERSID, \x97 NEXT_BUFFER, \x98 READONLY_BUFFER
    (b"i", _Unpickler.refuse), (b"o", _Unpickler.refuse), (b"\x82", _Unpickler.refuse),
    (b"\x83", _Unpickler.refuse), (b"\x84", _Unpickler.refuse), (b"P", _Unpickler.refuse),
    (b"\x97", _Unpickler.refuse), (b"\x98", _Unpickler.refuse)]}


class _Reader:
    """The archive side of load: finds the records, reads storages (bounded, CRC-checked, or
    mapped copy-on-write with mmap=True), applies map_location."""

    def __init__(self, fp, map_location, mmap_obj):
        self.fp, self.map_location, self.mm = fp, map_location, mmap_obj
        self.swap = False           # storages in the other byte order than this machine's
        fp.seek(0, io.SEEK_END)
        self.length = fp.tell()
        try:
            self.zf = zipfile.ZipFile(fp)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error,
                NotImplementedError) as e:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: failed "
                               f"finding central directory ({e})." + CORRUPT) from None
        pkl = [n for n in self.zf.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pkl:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not "
                               "found." + CORRUPT)
        self.prefix = pkl[0][:-len("data.pkl")]
        self.raws = {}              # key -> uint8 array of that storage's bytes
        self.storages = {}          # (key, dtype) -> _Storage, so references share one array

    def info(self, name):
        try:
            return self.zf.getinfo(self.prefix + name)
        except KeyError:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not "
                               "found." + CORRUPT) from None

    def has(self, name):
        return self.prefix + name in self.zf.NameToInfo

    def record(self, name, limit=None):
        """A whole record as bytes (for data.pkl and the small records)."""
        zi = self.info(name)
        if limit is not None and zi.file_size > limit:
            raise RuntimeError(f"record {name} is {zi.file_size} bytes, more than expected")
        return bytes(self.read(zi, check_crc=True))

    def read(self, zi, check_crc=False):
        """The bytes of one entry as a writable uint8 array: never more than its directory
        entry declares, and that size must fit the archive (Note [Safety]). CRCs of stored
        storages are not checked (nor does torch check them): at ~3 GB/s the check would cost
        about half of a load from the page cache, and sizes are validated regardless."""
        size = zi.file_size
        if zi.flag_bits & 0x61:          # encrypted, patched or strongly encrypted data
            raise RuntimeError(f"PytorchStreamReader failed reading file {zi.filename}: "
                               "encrypted or patched entries are not supported." + CORRUPT)
        if zi.compress_type == zipfile.ZIP_STORED:
            start = self.data_offset(zi)
            if zi.compress_size != size or start + size > self.length:
                raise RuntimeError(f"PytorchStreamReader failed reading file {zi.filename}: "
                                   f"the entry claims {size} bytes beyond the end of the "
                                   "archive." + CORRUPT)
            if self.mm is not None:
                return np.frombuffer(self.mm, np.uint8, size, start)
            out = np.empty(size, np.uint8)
            self.fp.seek(start)
            got = _readinto(self.fp, out)
            if got != size:
                raise RuntimeError(f"PytorchStreamReader failed reading file {zi.filename}: "
                                   f"read {got} of {size} bytes." + CORRUPT)
            if check_crc and zlib.crc32(out) != zi.CRC:
                raise RuntimeError(f"PytorchStreamReader failed reading file {zi.filename}: "
                                   "CRC-32 mismatch." + CORRUPT)
            return out
        if self.mm is not None:
            raise RuntimeError(f"mmap=True needs uncompressed records, but {zi.filename} is "
                               "compressed")
        if zi.compress_type != zipfile.ZIP_DEFLATED:
            raise RuntimeError(f"PytorchStreamReader failed reading file {zi.filename}: "
                               f"unsupported compression method {zi.compress_type}")
        if size > DEFLATE_MAX_RATIO * zi.compress_size + ALIGNMENT or \
                zi.header_offset + zi.compress_size > self.length:
            raise RuntimeError(f"PytorchStreamReader failed reading file {zi.filename}: the "
                               f"entry claims {size} bytes from {zi.compress_size} compressed "
                               "bytes, more than deflate can produce." + CORRUPT)
        out = np.empty(size, np.uint8)
        try:
            with self.zf.open(zi) as src:      # inflates at most `size` bytes, checks the CRC
                got = _readinto(src, out)
                if got != size or src.read(1):
                    raise zipfile.BadZipFile(f"inflated size differs from the declared {size}")
        except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, OSError,
                ValueError) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading file {zi.filename}: "
                               f"{e}." + CORRUPT) from None
        return out

    def data_offset(self, zi):
        if not 0 <= zi.header_offset <= self.length - 30:
            raise RuntimeError(f"PytorchStreamReader failed reading file {zi.filename}: its "
                               "local header lies outside the archive." + CORRUPT)
        self.fp.seek(zi.header_offset)
        head = self.fp.read(30)
        if len(head) != 30 or head[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading file {zi.filename}: bad "
                               "local header." + CORRUPT)
        n, m = struct.unpack("<HH", head[26:30])
        return zi.header_offset + 30 + n + m

    def storage(self, pid):
        """persistent_load: ('storage', storage type, key, location, numel) -> _Storage."""
        if type(pid) is not tuple or len(pid) != 5 or pid[0] != "storage":
            raise _refused(f"unsupported persistent id {pid!r:.200}")
        _, stype, key, location, numel = pid
        if type(stype) is not _StorageType or type(key) is not str or \
                type(location) is not str or type(numel) is not int or numel < 0:
            raise _refused(f"malformed storage id {pid!r:.200}")
        dt = stype.dtype
        if dt is None and self.swap:
            raise RuntimeError("untyped storages in a big-endian file cannot be byte-swapped")
        item = 1 if dt is None else dt.itemsize
        raw = self.raws.get(key)
        if raw is None:
            zi = self.info("data/" + key)
            if zi.file_size != numel * item:
                raise RuntimeError(f"record size ({zi.file_size} bytes) does not match expected "
                                   f"size ({numel * item} bytes = {numel * item} elements * 1 "
                                   "bytes/element) for dtype Byte")
            raw = self.restore(self.read(zi), location)
            if self.swap and dt is not None and item > 1:
                raw.view(dt.np).byteswap(inplace=True)
            self.raws[key] = raw
        dt = dt or D.uint8
        st = self.storages.get((key, dt))
        if st is None:
            if raw.size % dt.itemsize:
                raise RuntimeError(f"storage {key} ({raw.size} bytes) cannot be viewed as "
                                   f"{dt}")
            if self.swap and dt.itemsize > 1 and any(k == key for k, _ in self.storages):
                raise RuntimeError("a big-endian file viewing one storage as several dtypes")
            st = self.storages[(key, dt)] = _Storage(raw, dt)
            if dt is D.bool_:       # bytes other than 0/1 read as True, as torch reads them
                np.not_equal(raw, 0, out=st.typed)
        return st

    def restore(self, raw, location):
        """map_location applied to one storage: its bytes on the CPU, or torch's error."""
        ml = self.map_location
        if ml is None:
            loc = location
        elif isinstance(ml, str):
            loc = ml
        elif isinstance(ml, device):
            loc = str(ml)
        elif isinstance(ml, dict):
            loc = ml.get(location, location)
            if not isinstance(loc, str):
                raise TypeError(f"expected string or bytes-like object, got "
                                f"'{type(loc).__name__}'")
        else:
            try:
                out = ml(UntypedStorage(raw), location)
            except Exception as e:      # noqa: BLE001 - the user's error, passed on unchanged
                raise _Passthrough(e) from None
            if out is None:
                loc = location
            elif type(out) is UntypedStorage:
                return out._array
            else:
                raise TypeError("map_location must return a storage (or None), got "
                                f"{type(out).__name__}")
        if loc == "cpu" or loc.startswith("cpu:"):
            return raw
        if loc == "cuda" or loc.startswith("cuda:"):
            raise RuntimeError(CUDA_ERROR)
        raise RuntimeError("don't know how to restore data location of "
                           f"torch.storage.UntypedStorage (tagged with {loc})")


def _readinto(src, out):
    """Fill the uint8 array `out` from a binary stream; returns the bytes read."""
    view = memoryview(out)
    got = 0
    readinto = getattr(src, "readinto", None)
    while got < len(view):
        if readinto is not None:
            n = readinto(view[got:got + CHUNK])
        else:
            b = src.read(min(CHUNK, len(view) - got))
            n = len(b)
            view[got:got + n] = b
        if not n:
            break
        got += n
    return got


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    if pickle_module is not None:
        if weights_only:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                               "specified")
        weights_only = False
    if weights_only is False:
        raise ValueError(
            "ember.load supports only weights_only=True: ember never unpickles arbitrary "
            "Python objects, because unpickling such a file can run any code it contains. "
            "Files holding tensors, state dicts, optimizer state and containers of them with "
            "numbers and strings load with weights_only=True (the default). To read anything "
            "else, load the file with torch and save what you need.")
    if pickle_load_args:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", UserWarning,
                      stacklevel=2)
        for k in pickle_load_args:
            if k not in ("encoding", "errors", "fix_imports"):
                raise TypeError(f"Unpickler.__init__() got an unexpected keyword argument "
                                f"'{k}'")
    if not (map_location is None or callable(map_location) or
            isinstance(map_location, (str, device, dict))):
        raise TypeError(f"'{type(map_location).__name__}' object is not callable")
    encoding = pickle_load_args.get("encoding", "ASCII")
    is_path = isinstance(f, (str, os.PathLike))
    if mmap and not is_path:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if is_path:
        with open(f, "rb") as fp:
            mm = None
            if mmap and os.fstat(fp.fileno()).st_size:
                # copy-on-write: writes to loaded tensors never reach the file (torch's default)
                mm = _mmap.mmap(fp.fileno(), 0, access=_mmap.ACCESS_COPY)
            return _load(fp, map_location, mm, encoding)
    if not hasattr(f, "read"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a "
                             "'read' attribute")
    if not (hasattr(f, "seek") and getattr(f, "seekable", lambda: True)()):
        f = io.BytesIO(f.read())
    return _load(f, map_location, None, encoding)


def _load(fp, map_location, mm, encoding):
    start = fp.tell()
    magic = fp.read(4)
    fp.seek(start)
    if not magic:
        raise EOFError("Ran out of input")
    if magic != b"PK\x03\x04":
        raise RuntimeError("ember.load reads torch's zip format (what torch.save has written "
                           "by default since PyTorch 1.6), and this is not a zip archive: it is "
                           "corrupted, or in the legacy format (saved with "
                           "_use_new_zipfile_serialization=False or by PyTorch before 1.6), "
                           "which ember does not read.")
    r = _Reader(fp, map_location, mm)
    if not r.has("version"):
        raise RuntimeError('Expected hasRecord("version") to be true, but got false.')
    version = r.record("version", 64).strip()
    if not version.isdigit() or not 1 <= int(version) <= MAX_VERSION:
        raise RuntimeError(f"Attempted to read a PyTorch file with version "
                           f"{version.decode('ascii', 'replace')}, but the maximum supported "
                           f"version for reading is {MAX_VERSION}.")
    order = r.record("byteorder", 64).decode("ascii", "replace") if r.has("byteorder") else \
        "little"
    if order not in ("little", "big"):
        raise RuntimeError(f"Unknown endianness type: {order}")
    r.swap = order != sys.byteorder
    try:
        return _checked(_Unpickler(r.record("data.pkl"), r.storage, encoding).load())
    finally:
        r.zf.close()              # (a file object passed in stays open, as with torch.load)


_VALUE_TYPES = (type(None), bool, int, float, complex, str, bytes, bytearray, D.dtype, device)
_CONTAINER_TYPES = (tuple, list, dict, collections.OrderedDict, collections.Counter, set,
                    frozenset, Size)


def _checked(result):
    """The loaded object, once every object reachable from it is a value load may return: an
    allowed global left uncalled (a rebuild function, a storage class) or a bare storage is
    refused instead of being handed to the user."""
    stack, seen = [result], set()
    while stack:
        obj = stack.pop()
        t = type(obj)
        if t in _VALUE_TYPES or isinstance(obj, Tensor):
            continue
        if t not in _CONTAINER_TYPES:
            what = "a bare storage (ember has tensors only)" if t is _Storage else \
                f"the uncalled global {getattr(obj, '__name__', getattr(obj, 'name', t))}"
            raise _refused(f"the file's object holds {what}")
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
            stack.extend(getattr(obj, "__dict__", {}).values())
        else:
            stack.extend(obj)
    return result
