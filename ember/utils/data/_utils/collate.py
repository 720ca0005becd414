"""default_collate and default_convert: how the DataLoader turns the samples of a batch into
tensors. `collate` walks the structure of the first sample; the handlers for leaf types come
from a table (`collate_fn_map`, exact type first, then the first isinstance match in table
order), so a user can extend the table as in torch."""
import collections.abc
import copy
import re

import numpy as np

import ember
from ember.tensor import Tensor

_NP_STR_OBJ = re.compile(r"[SaUO]")      # dtype.str of string, bytes and object arrays
_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                  "lists; found {}")


def _rebuild_mapping(elem, items):
    """items in a mapping of elem's type (an updated copy of a mutable one), else a dict."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(items)
            return clone
        return type(elem)(items)
    except TypeError:
        return items


def _rebuild_sequence(elem, items):
    """A sequence of elem's type holding items (tuples give lists, as in torch)."""
    if isinstance(elem, tuple):
        return items
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(elem)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map=None):
    """Collate a list of samples: leaves through collate_fn_map, containers element-wise."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for leaf_type, fn in collate_fn_map.items():
            if isinstance(elem, leaf_type):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        items = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                 for key in elem}
        return _rebuild_mapping(elem, items)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):        # namedtuple
        return elem_type(*(collate(list(s), collate_fn_map=collate_fn_map)
                           for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        items = [collate(list(s), collate_fn_map=collate_fn_map) for s in zip(*batch)]
        return _rebuild_sequence(elem, items)
    raise TypeError(_COLLATE_ERROR.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return ember.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if _NP_STR_OBJ.search(elem.dtype.str) is not None:
        raise TypeError(_COLLATE_ERROR.format(elem.dtype))
    return collate([ember.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    if all(type(b) is type(batch[0]) for b in batch):
        # scalars of one type keep it exactly (ember.as_tensor widens int32 to int64 today)
        return ember.from_numpy(np.asarray(batch))
    return ember.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    try:
        # through NumPy: ember.tensor(floats, dtype=float64) rounds them to float32 first today
        arr = np.array(batch, dtype=np.float64)
    except (TypeError, ValueError):
        return ember.tensor(batch, dtype=ember.float64)    # raises ember's error for the data
    return ember.from_numpy(arr)


def collate_int_fn(batch, *, collate_fn_map=None):
    return ember.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


# Order matters for the isinstance pass: NumPy scalars (np.float64 is a float) before float,
# bool (an int) is collated by the int handler into a bool tensor.
default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    (np.ndarray, np.memmap): collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch: tensors, NumPy arrays and numbers become tensors
    with a new leading dimension; dicts, namedtuples and sequences are collated per field."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """Convert one sample (no batching): NumPy arrays and scalars become tensors, containers
    are converted element-wise; anything else is returned as it is."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    # torch converts only NumPy's own types (a masked array, from numpy.ma, stays as it is)
    if elem_type.__module__ == "numpy" and not isinstance(data, (str, bytes)):
        if isinstance(data, np.ndarray) and _NP_STR_OBJ.search(data.dtype.str) is not None:
            return data
        return ember.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):        # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data
