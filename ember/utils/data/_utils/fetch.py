"""Fetchers: turn what the index sampler yields (a key, a list of keys, or for an iterable
dataset a placeholder) into a batch, in the main process or in a worker."""
import numpy as np

from ember.tensor import Tensor, wrap
from ..dataset import Subset, TensorDataset
from .collate import default_collate


class _DatasetKind:
    Map = 0
    Iterable = 1


def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
    if kind == _DatasetKind.Map:
        return _MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
    return _IterableDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)


class _BaseDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    """The next sample, or batch of len(index) samples, from one iterator of the dataset."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    """dataset[key] for each key (or dataset.__getitems__(keys)), then collate_fn."""

    def fetch(self, possibly_batched_index):
        if self.auto_collation:
            if self.collate_fn is default_collate:
                batch = _tensor_batch(self.dataset, possibly_batched_index)
                if batch is not None:
                    return batch
            getitems = getattr(self.dataset, "__getitems__", None)
            if getitems:
                data = getitems(possibly_batched_index)
            else:
                data = [self.dataset[i] for i in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)


def _tensor_batch(dataset, keys):
    """The default-collated batch of a TensorDataset at keys by one fancy index, or None."""
    # Equal to stacking dataset[k] for each key (values, dtypes, shapes, C-contiguous, no
    # grad_fn) for exact TensorDatasets and Subsets of them, in-range Python int keys and
    # tensors not requiring grad. Anything else returns None: the caller then takes the
    # ordinary path, which gives torch's result or raises torch's error.
    try:
        while type(dataset) is Subset:
            indices = dataset.indices
            keys = [indices[k] for k in keys]
            dataset = dataset.dataset
    except Exception:                   # noqa: BLE001 - the ordinary path raises it again
        return None
    if type(dataset) is not TensorDataset or not keys or set(map(type, keys)) != {int}:
        return None
    tensors = dataset.tensors
    if not tensors or any(not isinstance(t, Tensor) or t.requires_grad or t.dim() == 0
                          for t in tensors):
        return None
    n = len(dataset)
    if any(t.size(0) != n for t in tensors):
        return None
    try:
        idx = np.array(keys, dtype=np.int64)
    except OverflowError:
        return None
    if idx.min() < -n or idx.max() >= n:
        return None
    out = []
    for t in tensors:
        arr = t.numpy()[idx]
        out.append(wrap(arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)))
    return out
