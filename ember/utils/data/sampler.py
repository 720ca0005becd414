"""Samplers (torch.utils.data.sampler): iterables of dataset keys, and BatchSampler, which groups
them into lists. The random ones draw from ember's generators with the calls torch makes, in
torch's order (found by experiment: see tests/test_data.py), so that once ember's random
streams equal torch's the orders are identical."""
import itertools
from typing import Generic, TypeVar

import numpy as np

import ember

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]

_T_co = TypeVar("_T_co", covariant=True)


# ---------------------------------------------------------------- random draws

def _seed_from(generator):
    """An int64 seed drawn as torch draws one: empty((), dtype=int64).random_(generator=g)."""
    return int(ember.empty((), dtype=ember.int64).random_(generator=generator).item())


# ---------------------------------------------------------------- samplers

class Sampler(Generic[_T_co]):
    """Base class: an iterable of dataset keys (subclasses define __iter__, maybe __len__)."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices (randperm per pass over the data), or num_samples
    indices drawn with replacement (randint in chunks of 32). Without a generator each
    iteration seeds a private Generator with an int64 drawn from the default one."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = ember.Generator()
            generator.manual_seed(_seed_from(None))
        if self.replacement:
            # torch draws 32 at a time, then the remainder (a 0-sized draw included)
            for _ in range(self.num_samples // 32):
                yield from ember.randint(high=n, size=(32,), dtype=ember.int64,
                                         generator=generator).tolist()
            yield from ember.randint(high=n, size=(self.num_samples % 32,), dtype=ember.int64,
                                     generator=generator).tolist()
        else:
            # one permutation per full pass, then one more cut to the remainder (drawn even
            # when the remainder is 0: torch's stream advances by it)
            for _ in range(self.num_samples // n):
                yield from ember.randperm(n, generator=generator).tolist()
            yield from ember.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (one randperm of their count)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        # indexed by 0-d tensors, as torch does (a tensor of indices yields 0-d tensors)
        for i in ember.randperm(len(self.indices), generator=self.generator):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probabilities proportional to weights (one multinomial)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        if isinstance(weights, (list, tuple)):
            # through NumPy: ember.as_tensor(floats, dtype=double) rounds them to float32 today
            try:
                weights = np.array(weights, dtype=np.float64)
            except (TypeError, ValueError):
                pass                    # ember.as_tensor raises its error for the data
        weights = ember.as_tensor(weights, dtype=ember.double)
        if weights.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from ember.multinomial(self.weights, self.num_samples, self.replacement,
                                     generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of batch_size keys from sampler; the last one shorter, or dropped if drop_last."""

    def __init__(self, sampler, batch_size, drop_last):
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        keys = iter(self.sampler)
        size = self.batch_size
        while True:
            batch = list(itertools.islice(keys, size))
            if not batch or (self.drop_last and len(batch) < size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
