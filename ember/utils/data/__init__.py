"""torch.utils.data: datasets, samplers and the DataLoader."""
from .dataset import (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset,
                      ChainDataset, Subset, random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,
                      WeightedRandomSampler, BatchSampler)
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from . import _utils, dataset, sampler, dataloader  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
           "DataLoader", "default_collate", "default_convert", "get_worker_info"]
