"""What runs in a DataLoader worker process: seeding, worker_init_fn, then a loop that fetches
the batches it is sent and puts them, pickled, on the shared result queue. Also what crosses
back: ExceptionWrapper (an error, re-raised in the main process with torch's message) and the
markers for an exhausted iterable dataset and a persistent worker's new epoch."""
import pickle
import sys

import numpy as np

import ember
from .fetch import _DatasetKind, create_fetcher

# How often an idle worker checks whether it should exit (done event set, parent gone), in
# case the None that tells it to cannot arrive (seconds).
MP_STATUS_CHECK_INTERVAL = 1.0


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a read-only WorkerInfo (dataclasses' error of that name)."""


class WorkerInfo:
    """What get_worker_info() returns inside a worker process: read-only fields."""
    # torch's is a frozen dataclass; written out here to keep `dataclasses` out of `import
    # ember` (the import-size budget)
    __slots__ = ("id", "num_workers", "seed", "dataset", "rng", "worker_method")

    def __init__(self, id, num_workers, seed, dataset, rng=None,
                 worker_method="multiprocessing"):
        for name, value in zip(self.__slots__,
                               (id, num_workers, seed, dataset, rng, worker_method)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _fields(self):
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"WorkerInfo({fields})"


_worker_info = None


def get_worker_info():
    """This worker's WorkerInfo inside a DataLoader worker process; None in the main process."""
    return _worker_info


class KeyErrorMessage(str):
    """A KeyError's message that prints as it is (str(KeyError(s)) would print repr(s))."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception caught in a worker: its type and formatted traceback, picklable."""

    def __init__(self, exc_info=None, where="in background"):
        # imported here, where an error is being reported (in a worker): at the top of this
        # module it would add to every `import ember`
        import traceback
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the exception again in this process, with the original traceback as text."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:               # noqa: BLE001 - a type that takes other arguments
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            # no cycle exception -> traceback -> this frame -> exception, which would keep
            # the iterator (and its worker processes) alive until a garbage collection
            del exception


class _IterableDatasetStopIteration:
    """Sent by a worker whose iterable dataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Sent to (and echoed by) a persistent worker at the start of a new epoch."""


def _seed_worker(base_seed, worker_id):
    """Seed Python's, ember's and NumPy's global generators as torch seeds a worker's."""
    import random       # (imported in the worker process only: see _worker_loop)
    # found by experiment: random and torch get base_seed + worker_id, NumPy's legacy global
    # state gets SeedSequence([worker_id, base_seed]).generate_state(4)
    seed = base_seed + worker_id
    random.seed(seed)
    ember.manual_seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
    return seed


def _dumps(data, where):
    """data pickled, or the error pickling it raised, pickled."""
    # pickled here, not in the queue's feeder thread: there an unpicklable batch would be
    # lost (with a message on stderr) and the main process would wait for it forever
    try:
        return pickle.dumps(data, pickle.HIGHEST_PROTOCOL)
    except Exception:                   # noqa: BLE001
        return pickle.dumps(ExceptionWrapper(where=where), pickle.HIGHEST_PROTOCOL)


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers):
    """Worker process worker_id: answer tasks (idx, keys) with (idx, pickled batch)."""
    # imported here, in the worker process (which has multiprocessing loaded already): at the
    # top of this module they would add to every `import ember`'s time and memory
    import multiprocessing
    import queue
    global _worker_info
    parent = multiprocessing.parent_process()
    try:
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        where = f"in DataLoader worker process {worker_id}"
        fetcher = error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                     drop_last)
        except Exception:               # noqa: BLE001 - the answer to every task
            error = ExceptionWrapper(where=where)
        iteration_end = False
        while True:
            try:
                task = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if done_event.is_set() or (parent is not None and not parent.is_alive()):
                    break
                continue
            if isinstance(task, _ResumeIteration):
                data_queue.put((task, None))
                iteration_end = False
                if dataset_kind == _DatasetKind.Iterable and fetcher is not None:
                    try:                # a fresh iterator of the dataset for the new epoch
                        fetcher = create_fetcher(dataset_kind, dataset, auto_collation,
                                                 collate_fn, drop_last)
                    except Exception:   # noqa: BLE001 - reported with the next task
                        fetcher, error = None, ExceptionWrapper(where=where)
                continue
            if task is None:
                break
            if done_event.is_set() or iteration_end:
                continue                # tasks after the end of an iterable dataset
            idx, keys = task
            if fetcher is None:         # worker_init_fn or iter(dataset) failed
                data = error
            else:
                try:
                    data = fetcher.fetch(keys)
                except StopIteration:
                    if dataset_kind != _DatasetKind.Iterable:
                        data = ExceptionWrapper(where=where)
                    else:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                except Exception:       # noqa: BLE001 - everything goes to the main process
                    data = ExceptionWrapper(where=where)
            data_queue.put((idx, _dumps(data, where)))
            del data, task, keys
    except KeyboardInterrupt:
        pass                            # the main process handles the interrupt
    if done_event.is_set():
        data_queue.cancel_join_thread()     # exit without waiting to flush unread results
        data_queue.close()
