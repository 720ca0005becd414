"""Datasets (torch.utils.data.dataset): the map-style Dataset (`__getitem__`, `__len__`), the
IterableDataset (`__iter__`), and the ways to build one from others: TensorDataset,
StackDataset, ConcatDataset, ChainDataset, Subset, random_split."""
import bisect
import itertools
import math
import warnings
from typing import Generic, Iterable, TypeVar

import ember

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


class Dataset(Generic[T_co]):
    """A map from keys to samples: subclasses define __getitem__ (and usually __len__)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A stream of samples: subclasses define __iter__."""

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample i is (t[i] for each tensor t); the tensors share their first dimension."""

    def __init__(self, *tensors):
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), \
            "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Sample i gathers sample i of each dataset: a tuple (positional) or a dict (keywords)."""

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                                 "``kwargs``) like input/output, but both types are given.")
            datasets = args
        elif kwargs:
            datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")
        parts = list(datasets.values()) if isinstance(datasets, dict) else datasets
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = datasets

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        named = isinstance(self.datasets, dict)
        keys = list(self.datasets) if named else range(len(self.datasets))
        samples = [{} if named else [None] * len(keys) for _ in indices]
        for key in keys:
            d = self.datasets[key]
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. Expected "
                                     f"{len(indices)}, got {len(items)}")
            else:
                items = [d[i] for i in indices]
            for sample, item in zip(samples, items):
                sample[key] = item
        return samples if named else [tuple(s) for s in samples]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """The samples of several map-style datasets, one after another."""

    @staticmethod
    def cumsum(sequence):
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), \
                "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self):
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """The streams of several iterable datasets, one after another (chained lazily)."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split dataset into non-overlapping Subsets of the given lengths (or fractions of its
    length) by one randperm of its length from `generator` (the default generator if None)."""
    n = len(dataset)
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(n * frac)))
        for i in range(n - sum(sizes)):          # the rounding remainder, one each, in turn
            sizes[i % len(sizes)] += 1
        lengths = sizes
        for i, size in enumerate(lengths):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", stacklevel=2)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = ember.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - size:end])
            for end, size in zip(itertools.accumulate(lengths), lengths)]
