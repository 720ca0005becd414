"""Issue 10 part 4: ember.save / ember.load in torch's zip format, checked against real torch in
both directions (values, dtypes, strides, storage offsets, sharing), and hostile files."""
import collections
import io
import os
import pathlib
import pickle
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest
import torch

import ember
import ember.serialization as S

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]


def sample(name, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(name if name != "bool" else np.bool_)
    if dt.kind == "b":
        a = rng.random(shape) > 0.5
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    elif dt.kind == "c":
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    else:
        a = rng.standard_normal(shape).astype(dt)
    return np.asarray(a)


def t_np(t):
    return t.detach().numpy()


def same_storage_torch(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def offset_ember(t, base):
    """Element offset of ember tensor t from the start of `base`'s memory."""
    return (t.data_ptr() - base.data_ptr()) // t.element_size()


def to_bytes(save_fn, obj):
    b = io.BytesIO()
    save_fn(obj, b)
    return b.getvalue()


def load_torch(raw, **kw):
    kw.setdefault("weights_only", True)
    return torch.load(io.BytesIO(raw), **kw)


def load_ember(raw, **kw):
    return ember.load(io.BytesIO(raw), **kw)


# ---------------------------------------------------------------- hand-made pickles and zips

def s_(text):
    b = text.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def i_(v):
    if -2 ** 31 <= v < 2 ** 31:
        return b"J" + struct.pack("<i", v)
    b = v.to_bytes(16, "little", signed=True)
    return b"\x8a" + bytes((16,)) + b


def tup_(xs):
    return b"(" + b"".join(i_(x) for x in xs) + b"t"


def tensor_pkl(storage="FloatStorage", key="0", loc="cpu", numel=4, offset=0, size=(4,),
               stride=(1,)):
    """A protocol-2 pickle of one tensor, written by hand (torch's layout, no memo)."""
    return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((" + s_("storage") +
            b"ctorch\n" + storage.encode() + b"\n" + s_(key) + s_(loc) + i_(numel) + b"tQ" +
            i_(offset) + tup_(size) + tup_(stride) + b"\x89ccollections\nOrderedDict\n)RtR.")


def archive(pkl, records=None, prefix="archive", version=b"3\n", compress=zipfile.ZIP_STORED,
            byteorder=b"little"):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", compress) as z:
        z.writestr(prefix + "/data.pkl", pkl)
        if byteorder is not None:
            z.writestr(prefix + "/byteorder", byteorder)
        for k, v in (records or {}).items():
            z.writestr(prefix + "/data/" + k, v)
        if version is not None:
            z.writestr(prefix + "/version", version)
    return b.getvalue()


def both_raise(raw, exc, match=None, same_message=False, **kw):
    """torch.load and ember.load both refuse `raw` with `exc`; return (torch, ember) errors."""
    errs = []
    for fn in (load_torch, load_ember):
        with pytest.raises(exc) as info:
            fn(raw, **kw)
        errs.append(info.value)
    if match is not None:
        assert match in str(errs[1]), str(errs[1])
    if same_message:
        assert str(errs[1]).split(".")[0] == str(errs[0]).split(".")[0], (errs[0], errs[1])
    return errs


# ---------------------------------------------------------------- tensors, every dtype

@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_both_ways(name):
    arrs = {"x": sample(name), "zero_d": sample(name, ()), "empty": sample(name, (0, 3)),
            "noncontig": sample(name, (4, 6))[::2, 1::2], "transposed": sample(name, (2, 5)).T}
    for shape_name, a in arrs.items():
        te = ember.from_numpy(a)
        # ember -> torch
        got = load_torch(to_bytes(ember.save, te))
        assert str(got.dtype) == f"torch.{name}" and tuple(got.shape) == a.shape, shape_name
        np.testing.assert_array_equal(t_np(got), a)
        if a.size:
            assert got.stride() == te.stride(), shape_name
        # torch -> ember
        got = load_ember(to_bytes(torch.save, torch.from_numpy(a.copy())))
        assert got.dtype is getattr(ember, name) and tuple(got.shape) == a.shape
        np.testing.assert_array_equal(got._data, a)
        assert got._data.flags.writeable
        # torch's own strided layout survives into ember
        src = torch.from_numpy(sample(name, (4, 6)))[::2, 1::2]
        got = load_ember(to_bytes(torch.save, src))
        assert got.stride() == src.stride()
        np.testing.assert_array_equal(got._data, t_np(src))


def test_file_layout_matches_torch():
    sd = collections.OrderedDict(w=ember.ones(2, 3), b=ember.zeros(3))
    raw = to_bytes(ember.save, sd)
    z = zipfile.ZipFile(io.BytesIO(raw))
    assert z.namelist() == ["archive/data.pkl", "archive/.format_version",
                            "archive/.storage_alignment", "archive/byteorder", "archive/data/0",
                            "archive/data/1", "archive/version", "archive/.data/serialization_id"]
    assert z.read("archive/byteorder") == b"little"        # the machine's order, little here
    assert z.read("archive/version") == b"3\n" and z.read("archive/.format_version") == b"1"
    assert z.read("archive/.storage_alignment") == b"64"
    assert z.testzip() is None                                 # every CRC right
    for zi in z.infolist():                                    # data 64-byte aligned, stored
        n, m = struct.unpack("<HH", raw[zi.header_offset + 26:zi.header_offset + 30])
        assert (zi.header_offset + 30 + n + m) % 64 == 0 and zi.compress_type == 0
    tz = zipfile.ZipFile(io.BytesIO(to_bytes(torch.save, collections.OrderedDict(
        w=torch.ones(2, 3), b=torch.zeros(3)))))
    assert [n for n in tz.namelist()] == z.namelist()


def test_pickle_is_byte_identical_to_torchs():
    """For the same objects (shared storages, views, requires_grad, nesting, every scalar type
    torch.load accepts), ember writes exactly torch's data.pkl."""
    def build(lib):
        base = lib.arange(24, dtype=lib.float32).reshape(4, 6)
        grad = lib.ones(3, dtype=lib.float64).requires_grad_()
        label = "shared"
        return collections.OrderedDict([
            ("base", base), ("view", base[1:, 2::2]), ("again", base), ("grad", grad),
            ("int", lib.tensor([1, 2], dtype=lib.int64)), ("zero_d", lib.tensor(2.5)),
            ("empty", lib.zeros(0, 3)),
            ("opt", {"state": {0: {"step": lib.tensor(3.0), "exp_avg": lib.zeros(2)}},
                     "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8,
                                       "params": [0, 1], "amsgrad": False, "foreach": None,
                                       "name": label, "other": label}]}),
            ("numbers", [0, 255, 256, 65535, 65536, -1, -2 ** 31, 2 ** 31, 2 ** 64, -2 ** 70,
                         1.5, float("inf"), True, None, "é", (), (1,), (1, 2, 3, 4)]),
            ("misc", [lib.float16, lib.device("cpu"), lib.Size([2, 3]), {1, 2}, 1 + 2j,
                      b"ab\xff", bytearray(b"xy"), collections.Counter("aab")]),
        ])
    raw_t = to_bytes(torch.save, build(torch))
    raw_e = to_bytes(ember.save, build(ember))
    pk = lambda raw: zipfile.ZipFile(io.BytesIO(raw)).read("archive/data.pkl")  # noqa: E731
    assert pk(raw_e) == pk(raw_t)
    back = load_ember(raw_t)
    assert back["misc"][:3] == [ember.float16, ember.device("cpu"), ember.Size([2, 3])]
    assert back["misc"][3:] == [{1, 2}, 1 + 2j, b"ab\xff", bytearray(b"xy"),
                                collections.Counter("aab")]
    assert back["numbers"][:9] == [0, 255, 256, 65535, 65536, -1, -2 ** 31, 2 ** 31, 2 ** 64]
    assert load_torch(raw_e)["misc"][1] == torch.device("cpu")


# ---------------------------------------------------------------- sharing

def test_views_share_storage_ember_to_torch():
    base = ember.arange(20, dtype=ember.float64).reshape(4, 5)
    sd = {"base": base, "row": base[2], "cols": base[:, 1::2], "t": base.t(),
          "expanded": base[0:1, :].expand(3, 5), "alone": ember.ones(3)}
    got = load_torch(to_bytes(ember.save, sd))
    for k in ("row", "cols", "t", "expanded"):
        assert same_storage_torch(got[k], got["base"]), k
        assert got[k].stride() == sd[k].stride(), k
        assert got[k].storage_offset() == offset_ember(sd[k], base), k
        np.testing.assert_array_equal(t_np(got[k]), sd[k]._data)
    assert not same_storage_torch(got["alone"], got["base"])
    got["base"][2, 0] = -7.0                    # the loaded view sees a write to its base
    assert got["row"][0].item() == -7.0


def test_views_share_memory_torch_to_ember():
    base = torch.arange(30, dtype=torch.float32).reshape(5, 6)
    sd = {"base": base, "a": base[1:3, ::2], "b": base[3:].t(), "c": base.view(-1)[7:20],
          "e": base[0].expand(2, 6)}
    got = load_ember(to_bytes(torch.save, sd))
    for k in ("a", "b", "c", "e"):
        assert np.shares_memory(got[k]._data, got["base"]._data), k
        assert got[k].stride() == sd[k].stride(), k
        assert offset_ember(got[k], got["base"]) == sd[k].storage_offset(), k
        np.testing.assert_array_equal(got[k]._data, t_np(sd[k]))
    got["base"].add_(1)                           # in place on the base: views follow
    np.testing.assert_array_equal(got["a"]._data, t_np(sd["a"]) + 1)


def test_two_views_without_their_base_keep_sharing_and_offsets():
    for lib, other, load in ((ember, torch, load_torch), (torch, ember, load_ember)):
        base = lib.arange(12, dtype=lib.float32)
        a, b = base[2:6], base[4:]
        got = load(to_bytes(lib.save, [a, b]))
        ga, gb = got
        if other is torch:
            assert same_storage_torch(ga, gb)
            assert (ga.storage_offset(), gb.storage_offset()) == (2, 4)
            assert ga.untyped_storage().nbytes() == 48     # the whole storage, as torch saves
        else:
            assert np.shares_memory(ga._data, gb._data)
            assert offset_ember(gb, ga) == 2
        ga[3] = 100.0
        assert gb[1].item() == 100.0


def test_same_tensor_twice_loads_as_one_object():
    for lib, load in ((ember, load_ember), (ember, load_torch), (torch, load_ember)):
        x = lib.ones(3)
        got = load(to_bytes(lib.save, {"a": x, "b": x, "l": [x]}))
        assert got["a"] is got["b"] and got["l"][0] is got["a"]


def test_views_as_different_dtypes_are_refused_like_torch():
    a = np.zeros(4, np.float32)
    with pytest.raises(RuntimeError) as te:
        torch.save([torch.from_numpy(a), torch.from_numpy(a).view(torch.int32)], io.BytesIO())
    with pytest.raises(RuntimeError) as ee:
        ember.save([ember.from_numpy(a), ember.from_numpy(a.view(np.int32))], io.BytesIO())
    assert str(ee.value) == str(te.value)
    # one view alone takes its storage in its own dtype: the real part of a complex tensor
    c = ember.tensor([1 + 2j, 3 - 4j], dtype=ember.complex64)
    got = load_torch(to_bytes(ember.save, c.real))
    assert got.tolist() == [1.0, 3.0] and got.stride() == (2,)
    assert got.untyped_storage().nbytes() == 16


def test_layouts_torch_cannot_express_are_saved_as_copies():
    a = np.arange(12.0).reshape(3, 4)
    flipped = ember.from_numpy(a[::-1, ::-2])                  # negative strides
    odd = ember.from_numpy(np.frombuffer(bytes(17), np.uint8)[1:].view(np.float64))  # unaligned
    got = load_torch(to_bytes(ember.save, [flipped, odd, ember.from_numpy(a)]))
    np.testing.assert_array_equal(t_np(got[0]), a[::-1, ::-2])
    assert got[0].is_contiguous()
    np.testing.assert_array_equal(t_np(got[1]), np.zeros(2))
    assert not same_storage_torch(got[0], got[2])


# ---------------------------------------------------------------- state dicts, parameters

def adam_state_dict(model):
    """An optimizer state dict in torch.optim.Adam's layout after one step, built by hand
    (constructing torch.optim.Adam imports torch._dynamo: seconds per test run)."""
    params = list(model.parameters())
    return {"state": {i: {"step": torch.tensor(1.0), "exp_avg": p.detach() * 0.1,
                          "exp_avg_sq": p.detach() ** 2 * 0.001} for i, p in enumerate(params)},
            "param_groups": [{"lr": 0.01, "betas": (0.9, 0.999), "eps": 1e-08,
                              "weight_decay": 0, "amsgrad": False, "maximize": False,
                              "foreach": None, "capturable": False, "differentiable": False,
                              "fused": None, "decoupled_weight_decay": False,
                              "params": list(range(len(params)))}]}


def test_state_dict_torch_to_ember_and_back():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    ck = {"model": model.state_dict(), "optim": adam_state_dict(model), "epoch": 3,
          "loss": 0.25}
    got = load_ember(to_bytes(torch.save, ck))
    assert list(got["model"]) == list(ck["model"]) and type(got["model"]) is type(ck["model"])
    assert got["model"]._metadata == ck["model"]._metadata      # BUILD on the OrderedDict
    for k, v in ck["model"].items():
        np.testing.assert_array_equal(got["model"][k]._data, t_np(v))
    st, gst = ck["optim"]["state"], got["optim"]["state"]
    assert sorted(gst) == sorted(st)
    for i in st:
        for k, v in st[i].items():
            assert gst[i][k].dtype is getattr(ember, str(v.dtype)[6:])
            np.testing.assert_array_equal(gst[i][k]._data, t_np(v))
    assert got["optim"]["param_groups"] == ck["optim"]["param_groups"]
    assert got["epoch"] == 3 and got["loss"] == 0.25
    # ... and ember writes it back so that torch reads the same
    again = load_torch(to_bytes(ember.save, got))
    model.load_state_dict(again["model"])
    assert again["model"]._metadata == ck["model"]._metadata
    assert again["optim"]["param_groups"] == ck["optim"]["param_groups"]
    for i in st:
        for k, v in st[i].items():
            assert torch.equal(again["optim"]["state"][i][k], v)


class FakeParameter(ember.Tensor):
    """Stands in for ember.nn.Parameter while ember.nn has none: a Tensor subclass built as
    torch's is, Parameter(data, requires_grad)."""

    def __new__(cls, data, requires_grad=True):
        p = object.__new__(cls)
        p._data, p._grad_fn, p._grad, p._acc, p._x = data._data, None, None, None, None
        p._requires_grad = requires_grad
        return p

    def __init__(self, *args, **kwargs):
        pass


@pytest.fixture
def Parameter(monkeypatch):
    cls = getattr(ember.nn, "Parameter", None)
    if cls is None:
        monkeypatch.setattr(ember.nn, "Parameter", FakeParameter, raising=False)
        cls = FakeParameter
    return cls


def test_parameters_both_ways(Parameter):
    tp = torch.nn.Parameter(torch.arange(4.0))
    frozen = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    got = load_ember(to_bytes(torch.save, {"p": tp, "f": frozen}))
    assert type(got["p"]) is Parameter and got["p"].requires_grad and got["p"].is_leaf
    assert type(got["f"]) is Parameter and not got["f"].requires_grad
    np.testing.assert_array_equal(got["p"]._data, np.arange(4.0, dtype=np.float32))
    ep = Parameter(ember.arange(3.0), True)
    back = load_torch(to_bytes(ember.save, {"p": ep, "plain": ember.ones(2, requires_grad=True)}))
    assert type(back["p"]) is torch.nn.Parameter and back["p"].requires_grad
    assert type(back["plain"]) is torch.Tensor and back["plain"].requires_grad
    assert back["p"].tolist() == [0.0, 1.0, 2.0]
    # a Parameter's pickle is torch's
    pk = lambda raw: zipfile.ZipFile(io.BytesIO(raw)).read("archive/data.pkl")  # noqa: E731
    assert pk(to_bytes(ember.save, ep)) == pk(to_bytes(torch.save, torch.nn.Parameter(
        torch.arange(3.0))))


def test_parameter_with_attributes_both_ways(Parameter):
    tp = torch.nn.Parameter(torch.ones(2))
    tp.tag = "encoder"
    got = load_ember(to_bytes(torch.save, tp))
    assert type(got) is Parameter and got.tag == "encoder"
    ep = Parameter(ember.ones(2), True)
    ep.tag = "decoder"
    back = load_torch(to_bytes(ember.save, ep))
    assert type(back) is torch.nn.Parameter and back.tag == "decoder"


def test_parameter_without_ember_parameter_loads_as_leaf(monkeypatch):
    monkeypatch.setattr(S, "_parameter_class", lambda: None)
    got = load_ember(to_bytes(torch.save, torch.nn.Parameter(torch.ones(2))))
    assert type(got) is ember.Tensor and got.requires_grad and got.is_leaf


def test_requires_grad_of_plain_and_non_leaf_tensors():
    x = torch.ones(2, requires_grad=True)
    got = load_ember(to_bytes(torch.save, {"leaf": x, "nonleaf": x * 2}))
    assert got["leaf"].requires_grad and got["nonleaf"].requires_grad
    assert got["nonleaf"].is_leaf and got["nonleaf"].grad_fn is None
    y = ember.ones(2, requires_grad=True)
    back = load_torch(to_bytes(ember.save, {"nonleaf": y * 3}))
    assert back["nonleaf"].requires_grad and back["nonleaf"].is_leaf
    assert back["nonleaf"].tolist() == [3.0, 3.0]


def test_conj_and_neg_bits_from_torch_are_applied():
    c = torch.tensor([1 + 2j, 3 - 1j])
    got = load_ember(to_bytes(torch.save, c.conj()))
    np.testing.assert_array_equal(got._data, np.array([1 - 2j, 3 + 1j], np.complex64))
    got = load_ember(to_bytes(torch.save, c.conj().imag))          # a negative view
    np.testing.assert_array_equal(got._data, np.array([-2.0, 1.0], np.float32))


# ---------------------------------------------------------------- files, streams, options

def test_paths_streams_and_file_objects(tmp_path):
    x = ember.arange(5.0)
    for f in (str(tmp_path / "a.pt"), tmp_path / "b.pth"):
        ember.save(x, f)
        assert ember.load(f).tolist() == torch.load(f, weights_only=True).tolist()
    assert zipfile.ZipFile(tmp_path / "b.pth").namelist()[0] == "b/data.pkl"   # torch's name
    with open(tmp_path / "c.pt", "wb") as fh:
        ember.save(x, fh)
    with open(tmp_path / "c.pt", "rb") as fh:
        assert ember.load(fh).tolist() == list(range(5))

    class WriteOnly:                        # a pipe-like stream: no seek, no tell
        def __init__(self):
            self.parts = []

        def write(self, b):
            self.parts.append(bytes(b))
            return len(b)

    class ReadOnly:
        def __init__(self, raw):
            self.raw = io.BytesIO(raw)

        def read(self, n=-1):
            return self.raw.read(n)

    w = WriteOnly()
    ember.save({"x": x}, w)
    raw = b"".join(w.parts)
    assert load_torch(raw)["x"].tolist() == list(range(5))
    assert ember.load(ReadOnly(raw))["x"].tolist() == list(range(5))


def test_archive_after_other_bytes_in_a_stream():
    b = io.BytesIO()
    b.write(b"header!")
    torch.save(torch.ones(2), b)
    b.seek(7)
    assert ember.load(b).tolist() == [1.0, 1.0]


def test_mmap(tmp_path):
    f = tmp_path / "m.pt"
    base = torch.arange(6.0)
    torch.save({"a": base, "v": base[2:]}, f)
    got = ember.load(f, mmap=True)
    np.testing.assert_array_equal(got["v"]._data, [2, 3, 4, 5])
    assert np.shares_memory(got["a"]._data, got["v"]._data)
    got["a"].mul_(0)                                 # copy-on-write: the file keeps its data
    assert got["v"].tolist() == [0, 0, 0, 0]
    assert torch.load(f, weights_only=True)["a"].tolist() == list(range(6))
    ember.save({"a": ember.ones(3)}, tmp_path / "e.pt")
    assert torch.load(tmp_path / "e.pt", mmap=True, weights_only=True)["a"].tolist() == [1] * 3
    e = [None, None]
    for i, lib in enumerate((torch, ember)):
        with pytest.raises(ValueError) as info:
            lib.load(io.BytesIO(f.read_bytes()), mmap=True)
        e[i] = str(info.value)
    assert e[0] == e[1]


def test_map_location():
    raw = to_bytes(torch.save, {"x": torch.arange(3.0)})
    seen = []

    def hook(storage, location):
        seen.append((location, storage.nbytes(), str(storage.device)))
        return storage

    for ml in (None, "cpu", ember.device("cpu"), {"cuda:0": "cpu"}, hook,
               lambda s, loc: None, lambda s, loc: s.cpu()):
        assert load_ember(raw, map_location=ml)["x"].tolist() == [0.0, 1.0, 2.0]
    assert seen == [("cpu", 12, "cpu")]
    # a storage saved on a GPU loads onto the CPU only when mapped there
    gpu = archive(tensor_pkl(loc="cuda:0"), {"0": bytes(16)})
    for ml in ("cpu", {"cuda:0": "cpu"}, lambda s, loc: s):
        assert load_ember(gpu, map_location=ml).tolist() == [0.0] * 4
        assert load_torch(gpu, map_location=ml).tolist() == [0.0] * 4
    for raw_, ml in ((gpu, None), (raw, "cuda"), (raw, "cuda:1"), (raw, {"cpu": "cuda:0"})):
        t, e = both_raise(raw_, RuntimeError, map_location=ml)
        assert str(t) == str(e)
    with pytest.raises(RuntimeError, match="CUDA"):
        load_ember(raw, map_location=lambda s, loc: s.cuda())
    t, e = both_raise(raw, RuntimeError, map_location="bogus")
    assert str(t) == str(e)
    t, e = both_raise(raw, TypeError, map_location=3)
    assert str(t) == str(e)
    t, e = both_raise(raw, TypeError, map_location={"cpu": torch.device("cpu")})
    with pytest.raises(TypeError, match="storage"):
        load_ember(raw, map_location=lambda s, loc: 3)

    def broken(storage, location):
        raise ValueError("my own bug")
    with pytest.raises(ValueError, match="my own bug"):       # the user's error, as raised
        load_ember(raw, map_location=broken)


def test_weights_only_false_and_pickle_module_are_refused():
    raw = to_bytes(ember.save, ember.ones(1))
    with pytest.raises(ValueError, match="arbitrary"):
        load_ember(raw, weights_only=False)
    with pytest.raises(ValueError, match="weights_only=True"):
        load_ember(raw, pickle_module=pickle)
    t, e = both_raise(raw, RuntimeError, pickle_module=pickle, weights_only=True)
    assert str(t) == str(e)
    with pytest.warns(UserWarning, match="pickle_load_args"):
        assert load_ember(raw, encoding="latin1").tolist() == [1.0]
    with pytest.raises(ValueError):
        ember.save(ember.ones(1), io.BytesIO(), pickle_protocol=4)
    with pytest.raises(ValueError):
        ember.save(ember.ones(1), io.BytesIO(), _use_new_zipfile_serialization=False)


def test_save_errors_like_torch(tmp_path):
    for target in (3, str(tmp_path / "missing" / "x.pt")):
        errs = []
        for lib in (torch, ember):
            with pytest.raises(Exception) as info:
                lib.save(lib.ones(1), target)
            errs.append(info.value)
        assert type(errs[0]) is type(errs[1]) and str(errs[0]) == str(errs[1])
    # what neither ember.load nor torch.load(weights_only=True) could read is refused up
    # front, and the file is not created
    for bad in (np.ones(2), np.float64(1.0), object(), frozenset([1]), [1, {"k": slice(1)}],
                collections.defaultdict(list)):
        with pytest.raises(pickle.PicklingError, match="cannot save"):
            ember.save(bad, tmp_path / "bad.pt")
        assert not (tmp_path / "bad.pt").exists()


def test_big_endian_files_are_byte_swapped_like_torch():
    t = torch.tensor([1.5, -2.25], dtype=torch.float64)
    b = io.BytesIO()
    torch.save({"f": t, "i": torch.tensor([1, 256], dtype=torch.int32),
                "c": torch.tensor([1 + 2j])}, b)
    z = zipfile.ZipFile(io.BytesIO(b.getvalue()))
    recs = {n.split("/", 1)[1]: z.read(n) for n in z.namelist()}
    swapped = {k[5:]: v for k, v in recs.items() if k.startswith("data/")}
    swapped = {k: np.frombuffer(v, {"0": ">f8", "1": ">i4", "2": ">c8"}[k]).astype(
        {"0": "<f8", "1": "<i4", "2": "<c8"}[k]).view(np.uint8).byteswap().tobytes()
        for k, v in swapped.items()}
    raw = archive(recs["data.pkl"], swapped, byteorder=b"big")
    tt, ee = load_torch(raw), load_ember(raw)
    for k in tt:
        np.testing.assert_array_equal(ee[k]._data, t_np(tt[k]))
    assert ee["f"].tolist() == [1.5, -2.25] and ee["i"].tolist() == [1, 256]


def test_zip64_records(monkeypatch):
    monkeypatch.setattr(S, "ZIP64_LIMIT", 40)         # every size/offset past 40 is zip64
    x = ember.arange(30.0)
    raw = to_bytes(ember.save, {"x": x, "y": ember.ones(3)})
    z = zipfile.ZipFile(io.BytesIO(raw))
    assert z.testzip() is None
    assert load_torch(raw)["x"].tolist() == x.tolist()
    monkeypatch.setattr(S, "ZIP64_LIMIT", 0xFFFFFFFF)
    assert load_ember(raw)["x"].tolist() == x.tolist()


@pytest.mark.parametrize("protocol", range(6))
def test_other_pickle_protocols_load(protocol):
    obj = {"a": [1, -2, 2.5, "x", None, True, (1, 2), 2 ** 70], "b": {"c": "d"},
           "s": {3, 4}, "o": collections.OrderedDict(z=1), "by": b"\x00\xff"}
    if protocol >= 2:
        obj["c"] = 1 + 2j
    raw = archive(pickle.dumps(obj, protocol))
    assert load_ember(raw) == obj
    if protocol == 2:       # torch's own unpickler reads protocol 2 only (ember reads 0 to 5)
        assert load_torch(raw) == obj
    # torch.save at that protocol (at 0 the storage ids are text, refused by both)
    raw = to_bytes(lambda o, f: torch.save(o, f, pickle_protocol=protocol),
                   {"t": torch.arange(3), "n": 1})
    if protocol == 0:
        with pytest.raises(pickle.UnpicklingError, match="PERSID"):
            load_ember(raw)
    else:
        got = load_ember(raw)
        assert got["t"].tolist() == [0, 1, 2] and got["n"] == 1


def test_deflated_archives_load():
    raw = to_bytes(torch.save, {"x": torch.arange(100.0)})
    z = zipfile.ZipFile(io.BytesIO(raw))
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as out:
        for n in z.namelist():
            out.writestr(n, z.read(n))
    assert load_ember(b.getvalue())["x"].tolist() == list(range(100))
    assert load_torch(b.getvalue())["x"].tolist() == list(range(100))


# ---------------------------------------------------------------- hostile files

def test_code_in_the_pickle_is_never_run(tmp_path):
    marker = tmp_path / "pwned"
    cmd = f"touch {marker}"
    for module, name in (("posix", "system"), ("os", "system"), ("builtins", "eval"),
                         ("__builtin__", "exec"), ("subprocess", "call")):
        pkl = (b"\x80\x02c" + module.encode() + b"\n" + name.encode() + b"\n" + s_(cmd) +
               b"\x85R.")
        t, e = both_raise(archive(pkl), pickle.UnpicklingError)
        shown = name if module in ("builtins", "__builtin__") else f"{module}.{name}"
        assert f"GLOBAL {shown} was not an allowed global" in str(e)
        assert "never runs code" in str(e)
    # an object whose __reduce__ calls os.system, pickled by Python itself
    class Evil:
        def __reduce__(self):
            return (os.system, (cmd,))
    both_raise(archive(pickle.dumps({"x": Evil()}, 2)), pickle.UnpicklingError)
    # INST / OBJ opcodes, which import and call a class themselves
    both_raise(archive(b"(ios\nsystem\n" + b"S'" + cmd.encode() + b"'\n" + b"."),
               pickle.UnpicklingError)
    both_raise(archive(b"\x80\x02(cos\nsystem\n" + s_(cmd) + b"o."), pickle.UnpicklingError)
    assert not marker.exists()


@pytest.mark.parametrize("glob", ["collections deque", "builtins getattr", "__builtin__ slice",
                                  "numpy.core.multiarray _reconstruct", "torch.nn Linear",
                                  "__builtin__ open", "copyreg _reconstructor",
                                  "__builtin__ frozenset"])
def test_unknown_globals_are_refused(glob):
    module, name = glob.split()
    pkl = b"\x80\x02c" + module.encode() + b"\n" + name.encode() + b"\n)R."
    t, e = both_raise(archive(pkl), pickle.UnpicklingError)
    assert "Unsupported global" in str(e) and name in str(e)


def test_disallowed_state_and_calls_are_refused():
    od = b"\x80\x02ccollections\nOrderedDict\n)R"
    # BUILD may add attributes (torch's _metadata) but not shadow the class's methods
    assert load_ember(archive(od + b"}" + s_("_metadata") + b"Nsb."))._metadata is None
    with pytest.raises(pickle.UnpicklingError, match="attribute"):
        load_ember(archive(od + b"}" + s_("items") + b"Nsb."))
    with pytest.raises(pickle.UnpicklingError, match="BUILD"):
        load_ember(archive(tensor_pkl()[:-1] + b"}" + s_("_data") + b"Nsb.", {"0": bytes(16)}))
    # a dtype is allowed as a value but is not callable; _codecs.encode only with latin1
    with pytest.raises(pickle.UnpicklingError, match="call"):
        load_ember(archive(b"\x80\x02ctorch\nfloat32\n)R."))
    with pytest.raises(pickle.UnpicklingError, match="latin1"):
        load_ember(archive(b"\x80\x02c_codecs\nencode\n" + s_("x") + s_("zlib") + b"\x86R."))
    # an allowed global left uncalled, or a bare storage, is not handed out
    with pytest.raises(pickle.UnpicklingError, match="uncalled global"):
        load_ember(archive(b"\x80\x02]ctorch._utils\n_rebuild_tensor_v2\na."))
    with pytest.raises(pickle.UnpicklingError, match="bare storage"):
        load_ember(archive(b"\x80\x02](" + s_("storage") + b"ctorch\nFloatStorage\n" + s_("0") +
                           s_("cpu") + i_(4) + b"tQa.", {"0": bytes(16)}))
    # containers get what their pickles give them, or a refusal
    with pytest.raises(pickle.UnpicklingError, match="bad items"):
        load_ember(archive(b"\x80\x02c__builtin__\nset\n]]a\x85R."))          # set([[]])
    with pytest.raises(pickle.UnpicklingError, match="bad items"):
        load_ember(archive(b"\x80\x02ccollections\nOrderedDict\n]K\x01a\x85R."))   # ([1])
    # a bytearray of a claimed size, and backward hooks, are refused
    with pytest.raises(pickle.UnpicklingError):
        load_ember(archive(b"\x80\x02c__builtin__\nbytearray\nJ\x00\x00\x00\x40\x85R."))
    with pytest.raises(pickle.UnpicklingError, match="hooks"):
        load_ember(archive(tensor_pkl().replace(b"OrderedDict\n)R", b"OrderedDict\n)R" + s_("k")
                                                + b"Ns"), {"0": bytes(16)}))


def test_truncated_and_non_zip_files():
    raw = to_bytes(torch.save, {"x": torch.arange(1000.0)})
    for cut in (raw[: len(raw) // 2], raw[:-10], raw[:100]):
        with pytest.raises((RuntimeError, ValueError)):     # (torch: some, a negative seek)
            load_torch(cut)
        with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading zip archive"):
            load_ember(cut)
    with pytest.raises(EOFError):
        load_ember(b"")
    with pytest.raises(RuntimeError, match="not a zip archive"):
        load_ember(b"garbage that is not an archive")
    with pytest.raises(RuntimeError, match="legacy"):
        load_ember(to_bytes(lambda o, f: torch.save(o, f, _use_new_zipfile_serialization=False),
                            torch.ones(2)))
    # a truncated pickle inside a sound archive
    with pytest.raises(pickle.UnpicklingError, match="truncated"):
        load_ember(archive(tensor_pkl()[:40], {"0": bytes(16)}))
    with pytest.raises(pickle.UnpicklingError, match="truncated"):
        load_ember(archive(b"\x80\x04\x8d" + struct.pack("<Q", 2 ** 60) + b"abc."))


def bounded(fn, limit=16 << 20):
    """Run fn under tracemalloc (NumPy's allocations included): return its peak in bytes and
    fail if it exceeds `limit`."""
    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < limit, f"peak {peak} bytes"
    return peak


def patch_central(raw, name, usize, csize=None):
    """The archive with the central-directory sizes of entry `name` replaced (as zip64
    fields), everything else (data, CRCs, local headers) kept: a file that lies about a size."""
    z = zipfile.ZipFile(io.BytesIO(raw))
    infos = z.infolist()
    out = io.BytesIO()
    out.write(raw[:raw.index(b"PK\x01\x02", max(zi.header_offset for zi in infos))])
    start = out.tell()
    for zi in infos:
        n = zi.filename.encode()
        u, c = (usize, zi.compress_size if csize is None else csize) if zi.filename == name \
            else (zi.file_size, zi.compress_size)
        extra = struct.pack("<HHQQ", 1, 16, u, c)
        out.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, zi.compress_type, 0,
                              0, zi.CRC, 0xFFFFFFFF, 0xFFFFFFFF, len(n), len(extra), 0, 0, 0, 0,
                              zi.header_offset) + n + extra)
    end = out.tell()
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(infos), len(infos), end - start,
                          start, 0))
    return out.getvalue()


def test_enormous_claims_fail_before_allocating():
    # a pickle claiming a 4 PB storage over a 16-byte record: torch's message, no allocation
    raw = archive(tensor_pkl(numel=10 ** 15), {"0": bytes(16)})
    both_raise(raw, RuntimeError, same_message=True)
    with pytest.raises(RuntimeError, match="record size"):
        bounded(lambda: load_ember(raw))
    # a stored entry whose directory claims 4 TiB, as the pickle does, in a tiny archive
    raw = patch_central(archive(tensor_pkl(numel=2 ** 40), {"0": bytes(16)}),
                        "archive/data/0", 4 * 2 ** 40, 4 * 2 ** 40)
    with pytest.raises(RuntimeError, match="beyond the end"):
        bounded(lambda: load_ember(raw))


def test_zip_bombs_are_refused_with_bounded_memory():
    # 1) 8 MB of zeros deflated to ~8 kB, its directory entry declaring 16 bytes (what the
    #    pickle needs): at most 16 bytes are inflated, then the CRC exposes the lie
    raw = archive(tensor_pkl(numel=4), {"0": bytes(8 << 20)}, compress=zipfile.ZIP_DEFLATED)
    lying = patch_central(raw, "archive/data/0", 16)
    with pytest.raises(RuntimeError, match="CRC"):
        bounded(lambda: load_ember(lying), limit=1 << 20)
    # 2) an entry claiming 1 TiB (as its pickle does) from 64 kB of compressed bytes: more
    #    than deflate can produce, refused before anything is allocated
    raw = archive(tensor_pkl(numel=2 ** 38), {"0": bytes(1 << 16)}, compress=zipfile.ZIP_DEFLATED)
    claim = patch_central(raw, "archive/data/0", 2 ** 40)
    with pytest.raises(RuntimeError, match="more than deflate"):
        bounded(lambda: load_ember(claim), limit=1 << 20)
    # 3) an honest compressed storage of 8 MB loads (memory: the tensor itself)
    raw = archive(tensor_pkl(numel=2 << 20, size=(2 << 20,)), {"0": bytes(8 << 20)},
                  compress=zipfile.ZIP_DEFLATED)
    assert load_ember(raw).shape == (2 << 20,)


@pytest.mark.parametrize("case, same_message", [
    (dict(size=(5,)), False),                         # needs more than the storage holds
    (dict(size=(2, 3), stride=(3, 1)), False),        # ditto, 2-d
    (dict(offset=3, size=(2,)), False),               # the offset pushes it past the end
    (dict(size=(-1,)), False),                        # a negative size
    (dict(size=(2,), stride=(-1,), offset=3), True),  # a negative stride
    (dict(offset=-1), True),                          # a negative offset
    (dict(size=(2, 2), stride=(1,)), True),           # size and stride of different lengths
    (dict(size=(2 ** 40, 2 ** 40), stride=(0, 0)), True),   # numel overflows
])
def test_bad_sizes_strides_offsets(case, same_message):
    """Both refuse with RuntimeError; where torch's message names the fault, ember's is the
    same (torch says 'not resizable' or 'overflow' for the others; ember names the bounds)."""
    t, e = both_raise(archive(tensor_pkl(**case), {"0": bytes(16)}), RuntimeError)
    if same_message:
        assert str(e) == str(t)
    else:
        assert "out of bounds" in str(e) or "negative dimension" in str(e)


def test_storage_records_of_the_wrong_size_or_missing():
    for rec in (bytes(8), bytes(24)):
        both_raise(archive(tensor_pkl(), {"0": rec}), RuntimeError, same_message=True)
    t, e = both_raise(archive(tensor_pkl(), {}), RuntimeError)
    assert str(e).startswith("PytorchStreamReader failed locating file data/0: file not found")
    with pytest.raises(RuntimeError, match="bfloat16"):
        load_ember(archive(tensor_pkl(storage="BFloat16Storage", numel=8), {"0": bytes(16)}))
    with pytest.raises(RuntimeError, match="version"):
        load_ember(archive(tensor_pkl(), {"0": bytes(16)}, version=None))
    both_raise(archive(tensor_pkl(), {"0": bytes(16)}, version=b"99\n"), RuntimeError)


def test_random_corruption_gives_clean_errors():
    """Bytes of a real data.pkl flipped at random: the load either succeeds or raises one of
    the documented error types, never an internal one."""
    sd = {"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(3), "meta": {"k": [1, 2.5]}}
    z = zipfile.ZipFile(io.BytesIO(to_bytes(torch.save, sd)))
    recs = {n.split("/", 1)[1]: z.read(n) for n in z.namelist()}
    pkl = recs.pop("data.pkl")
    stores = {k[5:]: v for k, v in recs.items() if k.startswith("data/")}
    rng = np.random.default_rng(0)
    for _ in range(300):
        b = bytearray(pkl)
        for pos in rng.integers(0, len(b), rng.integers(1, 4)):
            b[pos] = rng.integers(0, 256)
        try:
            load_ember(archive(bytes(b), stores))
        except (pickle.UnpicklingError, RuntimeError):
            pass


def test_bool_storage_bytes_are_normalised():
    raw = archive(tensor_pkl(storage="BoolStorage", numel=4), {"0": b"\x00\x02\x01\xff"})
    got = load_ember(raw)
    assert got.tolist() == [False, True, True, True]
    assert got._data.view(np.uint8).tolist() == [0, 1, 1, 1]


def test_rebuild_tensor_v3_with_untyped_storage():
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v3\n((" + s_("storage") +
           b"ctorch.storage\nUntypedStorage\n" + s_("0") + s_("cpu") + i_(8) + b"tQ" + i_(0) +
           tup_((2,)) + tup_((1,)) + b"\x89ccollections\nOrderedDict\n)Rctorch\nint32\ntR.")
    raw = archive(pkl, {"0": np.array([5, -6], np.int32).tobytes()})
    assert load_ember(raw).tolist() == [5, -6] == load_torch(raw).tolist()
    assert load_ember(raw).dtype is ember.int32


def test_torch_only_dtypes_are_named():
    for dt in (torch.bfloat16, torch.uint16, torch.float8_e4m3fn):
        with pytest.raises(RuntimeError, match=str(dt)[6:]):
            load_ember(to_bytes(torch.save, torch.zeros(2, dtype=dt)))


def test_path_loading_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        ember.load(tmp_path / "nope.pt")
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(EOFError):
        ember.load(tmp_path / "empty.pt", mmap=True)
    with pytest.raises(EOFError):
        ember.load(pathlib.Path(tmp_path / "empty.pt"))
