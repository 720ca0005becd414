"""Issue 14: every public Tensor method/attribute and every public `torch.*` callable exists in
ember, unless it is on the written exclusion list below, each entry with its reason. Entries
marked "not yet" are work still to do: when a name lands, test_exclusions_are_not_stale fails
until the entry is removed."""
import re

import torch

import ember

CUDA = "CUDA/ROCm/accelerator-only (ember computes on the CPU with NumPy)"
SPARSE = "sparse layouts (ember's tensors are dense)"
QUANT = "quantization (ember has no quantized dtypes)"
JIT = "TorchScript/JIT/compiler internals (no graph compiler in ember)"
DTYPES = "needs a bfloat16 or complex32 (chalf) dtype, which NumPy does not have"
MKLDNN = ("oneDNN (mkldnn) layouts and kernels, and nested (jagged) tensors' padding: "
          "ember's tensors are dense strided")
HASH = ("torch's content hash for its compiler caches: its result is a uint64 tensor, a dtype "
        "ember does not have")
ISSUE12 = ("not yet: issue 12 (vmap, per-tensor gradient dtype: the forward-mode/vmap "
           "helper's part)")

# (regular expression matched against the whole name, reason)
TENSOR_EXCLUDED = [
    (r"bfloat16|chalf", DTYPES),
    (r"ccol_indices|col_indices|crow_indices|row_indices|coalesce|is_coalesced|indices|values|"
     r"resize_as_sparse_|smm|sparse_mask|sparse_resize_|sparse_resize_and_clear_|sspaddmm|"
     r"to_sparse(_\w+)?", SPARSE),
    (r"dequantize|int_repr|q_per_channel_\w+|q_scale|q_zero_point|qscheme", QUANT),
    (r"to_mkldnn|to_padded_tensor", MKLDNN),
    (r"index", "functorch's first-class dimensions (Tensor.index binds Dim objects)"),
    (r"hash_tensor", HASH),
]

TORCH_EXCLUDED = [
    # ---- not yet
    # ---- outside a CPU, dense, float/int library
    (r"cudnn_(?!is_acceptable)\w+|miopen_\w+|profiler_allow_cudagraph_cupti_lazy_reinit_cuda12",
     CUDA),
    (r"batch_norm_(backward_elemt|backward_reduce|elemt|gather_stats|gather_stats_with_counts|"
     r"stats)", "SyncBatchNorm's multi-process kernels: torch has no CPU kernel for them "
                "(NotImplementedError on CPU tensors)"),
    (r"mkldnn_\w+", MKLDNN),
    (r"sparse_\w+_tensor|sparse_compressed_tensor|hsmm|hspmm|saddmm|smm|dsmm|spmm|sspaddmm|"
     r"resize_as_sparse_|\w+_indices_copy|values_copy|indices_copy", SPARSE),
    (r"quantize_\w+|quantized_\w+|fake_quantize_\w+|fused_moving_avg_obs_fake_quant|"
     r"choose_qparams_optimized|empty_quantized|dequantize|int_repr|q_per_channel_\w+|"
     r"q_scale|q_zero_point|qscheme|fbgemm_\w+|QInt8Storage|QInt32Storage|QUInt8Storage|"
     r"QUInt4x2Storage|QUInt2x4Storage", QUANT),
    (r"BFloat16Storage|BFloat16Tensor", DTYPES),
    (r"compile|fork|wait|parse_ir|parse_schema|parse_type_comment|"
     r"merge_type_from_type_comment|unify_type_list|import_ir_module(_from_buffer)?|"
     r"Sym\w+|"
     r"AggregationType|AliasDb|AnyType|Argument|ArgumentSpec|AwaitType|BenchmarkConfig|"
     r"BenchmarkExecutionStats|Block|BoolType|CallStack|Capsule|ClassType|Code|"
     r"CompilationUnit|CompleteArgumentSpec|ComplexType|ConcreteModuleType(Builder)?|"
     r"DeepCopyMemoTable|DeserializationStorageContext|DeviceObjType|DictType|"
     r"DispatchKey(Set)?|EnumType|ErrorReport|"
     r"ExcludeDispatchKeyGuard|ExecutionPlan|FatalError|FileCheck|FloatType|FunctionSchema|"
     r"Future|FutureType|Gradient|Graph|GraphExecutorState|IODescriptor|InferredType|IntType|"
     r"InterfaceType|JITException|ListType|LiteScriptModule|LockingLogger|LoggerBase|Node|"
     r"NoneType|NoopLogger|NumberType|OperatorInfo|OptionalType|PyObjectType|"
     r"RRefType|Script\w+|SerializationStorageContext|"
     r"StaticModule|StreamObjType|StringType|Tag|TensorType|ThroughputBenchmark|"
     r"TracingState|TupleType|Type|UnionType|Use|Value|"
     r"BufferDict|ModuleDict|ParameterDict", JIT),
    (r"hash_tensor", HASH),
    (r"native_norm", "torch has no CPU kernel for it (NotImplementedError on CPU tensors)"),
]


def _reason(name, rules):
    for pattern, reason in rules:
        if re.fullmatch(pattern, name):
            return reason
    return None


def _tensor_names():
    return sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))


def _torch_callables():
    out = []
    for n in dir(torch):
        if n.startswith("_"):
            continue
        obj = getattr(torch, n)
        if callable(obj) and not isinstance(obj, type(torch)):
            out.append(n)
    return sorted(out)


def test_every_public_tensor_name():
    missing = [n for n in _tensor_names()
               if not hasattr(ember.Tensor, n) and _reason(n, TENSOR_EXCLUDED) is None]
    assert not missing, f"Tensor names missing from ember: {missing}"


def test_every_public_torch_callable():
    missing = [n for n in _torch_callables()
               if not hasattr(ember, n) and _reason(n, TORCH_EXCLUDED) is None]
    assert not missing, f"torch callables missing from ember: {missing}"


def test_exclusions_are_not_stale():
    """An excluded name that ember now has (a pending branch landed) must leave the list."""
    stale = [n for n in _tensor_names()
             if hasattr(ember.Tensor, n) and _reason(n, TENSOR_EXCLUDED) is not None]
    stale += [n for n in _torch_callables()
              if hasattr(ember, n) and _reason(n, TORCH_EXCLUDED) is not None]
    assert not stale, f"excluded but present (remove from the exclusion list): {stale}"


def test_exclusion_list_stays_short():
    excluded = [n for n in _torch_callables() if not hasattr(ember, n)]
    excluded += [n for n in _tensor_names() if not hasattr(ember.Tensor, n)]
    reasons = {_reason(n, TENSOR_EXCLUDED + TORCH_EXCLUDED) for n in excluded}
    # every exclusion is one of a few written reasons (the pending ones leave as branches land)
    assert len(reasons) <= 22, reasons


# torch.linalg names ember does not have yet, with the reason
LINALG_EXCLUDED = {}      # (none left: ldl_factor/_ex and ldl_solve landed, tests/test_linalg_ldl.py)


def test_namespaces_exist():
    for mod in ("cuda", "backends", "accelerator", "special", "fft", "testing", "linalg",
                "autograd", "storage"):
        assert hasattr(ember, mod), mod
    for name in ("is_available", "device_count", "manual_seed", "manual_seed_all",
                 "synchronize", "empty_cache", "current_device"):
        assert hasattr(ember.cuda, name), name
    for name in dir(torch.fft):
        if not name.startswith("_") and callable(getattr(torch.fft, name)) and name != "Tensor":
            assert hasattr(ember.fft, name), name
    for name in dir(torch.special):
        if not name.startswith("_") and callable(getattr(torch.special, name)) and \
                name != "Tensor":
            assert hasattr(ember.special, name), name
    for name in dir(torch.linalg):
        if not name.startswith("_") and callable(getattr(torch.linalg, name)) and \
                name not in LINALG_EXCLUDED:
            assert hasattr(ember.linalg, name), name
    for name in LINALG_EXCLUDED:
        assert not hasattr(ember.linalg, name), f"{name} exists now: drop its exclusion"
    for name in ("assert_close", "make_tensor", "assert_allclose"):
        assert hasattr(ember.testing, name), name


# ---- torch.nn.functional and torch.nn's module classes (fft, special, linalg: above)

TYPING = "a typing/enum name torch.nn.functional imports for its annotations, not a function"
OVERRIDES = ("the __torch_function__ override protocol (ember tensors have no subclass "
             "dispatch)")
F_EXCLUDED = {
    "Callable": TYPING, "DType": TYPING, "Optional": TYPING,
    "ScalingType": CUDA + ": scaled_mm's float8 scaling recipes",
    "SwizzleType": CUDA + ": scaled_mm's float8 swizzles",
    "scaled_mm": CUDA + " (float8 matmul)", "scaled_grouped_mm": CUDA + " (float8 matmul)",
    "grouped_mm": CUDA + " (bfloat16 grouped GEMM; ember has no bfloat16)",
    "handle_torch_function": OVERRIDES, "has_torch_function": OVERRIDES,
    "has_torch_function_unary": OVERRIDES, "has_torch_function_variadic": OVERRIDES,
    "boolean_dispatch": "torch._jit_internal's helper that builds F's max_pool functions "
                        "(TorchScript)",
}
NN_EXCLUDED = {}      # (none left: DataParallel and SyncBatchNorm, tests/test_parallel.py)


def _public(mod, pred):
    return sorted(n for n in dir(mod) if not n.startswith("_") and pred(getattr(mod, n)))


def _f_names():
    import inspect
    return _public(torch.nn.functional,
                   lambda v: callable(v) and not inspect.ismodule(v))


def _nn_classes():
    import inspect
    return _public(torch.nn, inspect.isclass)


def test_every_public_functional():
    missing = [n for n in _f_names() if not hasattr(ember.nn.functional, n) and
               n not in F_EXCLUDED]
    assert not missing, missing


def test_every_public_nn_class():
    missing = [n for n in _nn_classes() if not hasattr(ember.nn, n) and n not in NN_EXCLUDED]
    assert not missing, missing


def test_nn_exclusions_are_not_stale():
    for table, mod, names in ((F_EXCLUDED, ember.nn.functional, _f_names()),
                              (NN_EXCLUDED, ember.nn, _nn_classes())):
        for name in table:
            assert name in names, f"{name} is no longer in torch: drop its exclusion"
            assert not hasattr(mod, name), f"{name} exists now: drop its exclusion"
