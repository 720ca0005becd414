"""torch.nn.utils.rnn: PackedSequence and the functions that pack, pad and unpad sequences.
Packing is one op with its own node (PackPaddedSequenceBackward0, ember/ops/rnn.py); padding
is composed of ember ops (a filled tensor written slice by slice: CopySlices), as in torch."""
from collections import namedtuple
from collections.abc import Iterable
from types import SimpleNamespace

import numpy as np

from ... import dtypes as D
from ...creation import arange, as_tensor, full, tensor
from ...ops._args import broadcast_error
from ...ops.rnn import _pack_padded_sequence
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


class PackedSequence(namedtuple("PackedSequence_",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Variable-length sequences packed step by step: `data` holds step 0 of every sequence,
    then step 1 of those still running, ...; `batch_sizes` how many run at each step."""
    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should "
                    "never be created manually. They should be instantiated by functions like "
                    "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                    "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        if not (isinstance(data, (list, tuple)) and len(data) == 2):
            raise AssertionError
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          _bind(self.sorted_indices, "pin_memory"),
                          _bind(self.unsorted_indices, "pin_memory"))

    def cuda(self, *args, **kwargs):
        return self.to(*args, device="cuda", **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device="cpu", **kwargs)

    def double(self):
        return self.to(dtype=D.float64)

    def float(self):
        return self.to(dtype=D.float32)

    def half(self):
        return self.to(dtype=D.float16)

    def long(self):
        return self.to(dtype=D.int64)

    def int(self):
        return self.to(dtype=D.int32)

    def short(self):
        return self.to(dtype=D.int16)

    def char(self):
        return self.to(dtype=D.int8)

    def byte(self):
        return self.to(dtype=D.uint8)

    def to(self, *args, **kwargs):
        """data.to(*args, **kwargs); the indices follow to the same device (not dtype)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        sorted_indices = _bind(self.sorted_indices, "to", data.device, **kwargs)
        unsorted_indices = _bind(self.unsorted_indices, "to", data.device, **kwargs)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _bind(t, method, *args, **kwargs):
    return None if t is None else getattr(t, method)(*args, **kwargs)


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    inv = np.empty_like(permutation._data)
    inv[permutation._data] = np.arange(permutation._data.shape[0], dtype=inv.dtype)
    return tensor(inv)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if not isinstance(lengths, Tensor):
        lengths = as_tensor(lengths, dtype=D.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=D.int64)
    sorted_indices = None
    if not enforce_sorted:
        # a stable descending sort (equal lengths keep their order, as torch's CPU sort does)
        order = np.argsort(-lengths._data, kind="stable")
        sorted_indices = tensor(order)
        lengths = tensor(lengths._data[order])
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    """torch._pad_packed_sequence: the steps of `data` written into a (T, B, *) tensor filled
    with padding_value, one copy per run of steps with the same batch size."""
    sizes = batch_sizes._data
    B = int(sizes[0])
    out = full((total_length, B) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    feat = tuple(data.shape[1:])
    t = offset = 0
    n = sizes.shape[0]
    while t < n:
        bs = int(sizes[t])
        run = t
        while run < n and sizes[run] == bs:
            run += 1
        steps = run - t
        out[t:run, :bs] = data[offset:offset + steps * bs].view((steps, bs) + feat)
        offset += steps * bs
        t = run
    # lengths[b] = number of steps with more than b sequences running
    lengths = (sizes[None, :] > np.arange(B)[:, None]).sum(1).astype(np.int64)
    if batch_first:
        out = out.transpose(0, 1)
    return out, tensor(lengths)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first,
                                  padding_value, max_seq_length)
    unsorted = sequence.unsorted_indices
    if unsorted is not None:
        batch_dim = 0 if batch_first else 1
        return padded.index_select(batch_dim, unsorted), lengths[unsorted]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    if first.dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    T = max(s.size(0) for s in sequences)
    trailing = tuple(first.shape[1:])
    shape = (len(sequences), T) + trailing if batch_first else (T, len(sequences)) + trailing
    out = full(shape, padding_value, dtype=first.dtype)
    for i, s in enumerate(sequences):
        n = s.size(0)
        _check_copy((n,) + trailing, tuple(s.shape))
        rows = slice(0, n) if padding_side == "right" else slice(T - n, T)
        if batch_first:
            out[i, rows] = s
        else:
            out[rows, i] = s
    return out


def _check_copy(dst, src):
    """torch's errors for copying a sequence into its (broadcast-compatible) slot."""
    try:
        shape = np.broadcast_shapes(dst, src)
    except ValueError:
        raise broadcast_error(SimpleNamespace(shape=dst), SimpleNamespace(shape=src)) from None
    if shape != dst:
        raise RuntimeError(f"output with shape {list(dst)} doesn't match the broadcast shape "
                           f"{list(shape)}")


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences.transpose_(0, 1)      # (torch's function transposes its argument)
    max_length = padded_sequences.shape[1]
    idx = arange(max_length, device=lengths.device)
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
