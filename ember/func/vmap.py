"""torch.func.vmap and functional_call.

vmap runs the function once on BatchedTensors of a new level (each input's mapped dim moved to
the front of its value) and moves each output's batch dim to its out_dim: torch's semantics
(in_dims/out_dims as pytree prefixes, None, nesting, randomness, chunk_size, gradients
through it), with each op's batching rule carrying the batch dimension (Note [Batching] in
_batching.py; an op without a rule loops over the batch and warns once)."""
import functools

from ..random import get_rng_state
from ..ops.join import cat
from ..tensor import Tensor
from . import _batching, _tree

__all__ = ["vmap", "functional_call"]

RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap")


def _name(func):
    return getattr(func, "__name__", repr(func))


def _spec_str(spec):
    """torch's TreeSpec text for the structures in vmap's messages."""
    if spec is None:
        return "*"
    kind, extra, children = spec
    kname = "namedtuple" if kind == "nt" else kind.__name__
    inner = ",\n  ".join(_spec_str(c) for c in children)
    ctx = extra if kind is dict else None
    return f"TreeSpec({kname}, {ctx}, [{inner}])"


def _broadcast_dims(in_dims, args, func):
    """in_dims as one entry per leaf of args (an int or None prefix covers a subtree)."""
    if isinstance(in_dims, int) or in_dims is None:
        return [in_dims] * len(_tree.flatten(args)[0])
    if not isinstance(in_dims, tuple):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected "
                         f"`in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    if len(in_dims) != len(args):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is "
                         f"not compatible with the structure of `inputs`. in_dims has structure "
                         f"{_spec_str(_tree.flatten(in_dims)[1])} but inputs has structure "
                         f"{_spec_str(_tree.flatten(args)[1])}.")
    out = []
    for d, a in zip(in_dims, args):
        out += _match(d, a, in_dims, args, func)
    return out


def _match(d, a, in_dims, args, func):
    """The in_dim of each leaf of a, from d (a prefix of a's structure)."""
    if isinstance(d, int) or d is None:
        return [d] * len(_tree.flatten(a)[0])
    ok = isinstance(d, (tuple, list)) and isinstance(a, (tuple, list)) and len(d) == len(a) or \
        isinstance(d, dict) and isinstance(a, dict) and set(d) == set(a)
    if not ok:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is "
                         f"not compatible with the structure of `inputs`. in_dims has structure "
                         f"{_spec_str(_tree.flatten(in_dims)[1])} but inputs has structure "
                         f"{_spec_str(_tree.flatten(args)[1])}.")
    if isinstance(a, dict):
        return [x for k in a for x in _match(d[k], a[k], in_dims, args, func)]
    return [x for dd, aa in zip(d, a) for x in _match(dd, aa, in_dims, args, func)]


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if not args:
            raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot "
                             f"to add inputs, or you are trying to vmap over a function with no "
                             f"inputs. The latter is unsupported.")
        leaves, spec = _tree.flatten(args)
        dims = _broadcast_dims(in_dims, args, func)
        size = None
        sizes = []
        for x, d in zip(leaves, dims):
            if d is None:
                continue
            if not isinstance(x, Tensor):
                raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got "
                                 f"in_dim={d} for an input but the input is of type {type(x)}. "
                                 f"We cannot vmap over non-Tensor arguments, please use None as "
                                 f"the respective in_dim")
            n = x.dim()
            if not -n <= d < n:
                raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got "
                                 f"in_dim={d} for some input, but that input is a Tensor of "
                                 f"dimensionality {n} so expected in_dim to satisfy "
                                 f"-{n} <= in_dim < {n}.")
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least "
                             f"one input must be a Tensor mapped over (in_dim not None)")
        if len(set(sizes)) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        size = sizes[0]
        if size == 0:
            raise ValueError(f"vmap({_name(func)}, ...): the mapped dimension has size 0")
        if chunk_size is None or chunk_size >= size:
            return _run(func, leaves, dims, spec, kwargs, size, randomness, out_dims)
        parts = []
        for s in range(0, size, chunk_size):
            n = min(chunk_size, size - s)
            chunk = [x if d is None else x.narrow(d, s, n) for x, d in zip(leaves, dims)]
            parts.append(_run(func, chunk, dims, spec, kwargs, n, randomness, out_dims))
        flat = [_tree.flatten(p) for p in parts]
        ospec = flat[0][1]
        odims = _out_dims(out_dims, ospec, func)
        res = []
        for k, d in enumerate(odims):
            col = [f[0][k] for f in flat]
            res.append(col[0] if d is None else cat(col, d))
        return _tree.unflatten(res, ospec)
    return wrapped


def _run(func, leaves, dims, spec, kwargs, size, randomness, out_dims):
    """func once on BatchedTensors of a new level (Note [Batching] in _batching.py)."""
    _batching.enter()
    lv = _batching.push_level(size, randomness)
    try:
        sample = [x if d is None else _batching.wrap_input(x, d, lv)
                  for x, d in zip(leaves, dims)]
        before = get_rng_state() if randomness == "error" else None
        call = _batching.WRAP.get(func, func)      # vmap(ember.dot): the op's dispatcher
        out = call(*_tree.unflatten(sample, spec), **kwargs)
        if before is not None and not _same_state(before, get_rng_state()):
            raise RuntimeError(RANDOM_ERROR)
        outs, ospec = _tree.flatten(out)
        odims = _out_dims(out_dims, ospec, func)
        res = []
        for o, d in zip(outs, odims):
            if d is None:
                if isinstance(o, Tensor) and _batching.level_of(o) == lv:
                    raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not "
                                     f"return a BatchedTensor when out_dim is None")
                res.append(o)
                continue
            if not isinstance(o, Tensor):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return "
                                 f"Tensors, got type {type(o)}. Did you mean to set "
                                 f"out_dims= to None for output?")
            n = o.dim() + 1
            if not -n <= d < n:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-n}, {n - 1}], but got {d})")
            res.append(_batching.unwrap_output(o, d % n, lv, size))
        return _tree.unflatten(res, ospec)
    finally:
        _batching.pop_level(lv)
        _batching.leave()


def _same_state(a, b):
    return a.shape == b.shape and bool((a == b).all())


def _out_dims(out_dims, ospec, func):
    n = _tree.count(ospec)
    if isinstance(out_dims, int) or out_dims is None:
        return [out_dims] * n
    flat, _ = _tree.flatten(out_dims)
    if len(flat) != n:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims "
                         f"is not compatible with the structure of `outputs`. out_dims has "
                         f"structure {_spec_str(_tree.flatten(out_dims)[1])} but outputs has "
                         f"structure {_spec_str(ospec)}.")
    return flat


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with the named parameters and buffers replaced by the given
    tensors for the call (the module itself is left as it was)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = dict(parameter_and_buffer_dicts)
    else:
        values = {}
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                if k in values:
                    raise ValueError(f"{k} appeared in multiple dictionaries; behavior of "
                                     f"functional call is ambiguous")
                values[k] = v
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = kwargs or {}
    names = {}          # id of a registered tensor -> every name it is registered under
    known = set()
    for prefix, sub in module.named_modules(remove_duplicate=False):
        for store in ("_parameters", "_buffers"):
            for k, v in sub.__dict__[store].items():
                full = f"{prefix}.{k}" if prefix else k
                known.add(full)
                if v is not None:
                    names.setdefault(id(v), []).append(full)
    if strict:
        missing = sorted(known - set(values))
        unexpected = sorted(set(values) - known)
        if missing or unexpected:
            msg = ""
            if unexpected:
                msg += "Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + "."
            if missing:
                msg += ("\n" if msg else "") + "Missing key(s): " + \
                    ", ".join(f"'{k}'" for k in missing) + "."
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + msg)
    if tie_weights:
        for ids in names.values():
            given = [n for n in ids if n in values]
            if given:
                for n in ids:
                    if n not in values:
                        values[n] = values[given[0]]
                    elif values[n] is not values[given[0]]:
                        raise ValueError(f"functional_call got multiple values for keys "
                                         f"{sorted(ids)}, which are tied. Consider using "
                                         f"tie_weights=False")
    saved = []
    try:
        for full, v in values.items():
            prefix, _, attr = full.rpartition(".")
            sub = module.get_submodule(prefix) if prefix else module
            d = sub.__dict__
            for store in ("_parameters", "_buffers"):
                if attr in d[store]:
                    saved.append((d[store], attr, d[store][attr]))
                    d[store][attr] = v
                    break
            else:
                had = attr in d
                saved.append((d, attr, d[attr] if had else _MISSING))
                d[attr] = v
        return module(*args, **kwargs)
    finally:
        for store, attr, old in reversed(saved):
            if old is _MISSING:
                del store[attr]
            else:
                store[attr] = old


_MISSING = object()
