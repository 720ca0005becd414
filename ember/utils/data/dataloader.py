"""DataLoader (torch.utils.data.dataloader): batches from a dataset through a sampler and a
collate function, in this process or in worker processes (results in order).

Random draws per iterator, as torch makes them: an int64 base seed from `generator` (or the
default generator) when the iterator is made, then whatever the sampler draws as it is
iterated. Workers are seeded from the base seed (see _utils/worker.py)."""
import itertools
import math
import os
import pickle
import time
import warnings

from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _seed_from
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import _DatasetKind, create_fetcher
from ._utils.worker import (ExceptionWrapper, _IterableDatasetStopIteration, _ResumeIteration,
                            _worker_loop, get_worker_info)

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

# How often the main process, waiting for a batch, checks that its workers are alive (s).
_LIVENESS_INTERVAL = 0.1
# How long shutdown waits for a worker to exit before terminating it (s).
_JOIN_TIMEOUT = 5.0


def _mp():
    """The multiprocessing module, imported on first use."""
    # (~10-35 ms and ~0.5 MB at import that programs which never start a worker should not
    # pay; multiprocessing.queues brings the queue module, whose Empty the iterator catches)
    import multiprocessing.queues
    return multiprocessing


class _InfiniteConstantSampler(Sampler):
    """The index sampler of an iterable dataset: None forever (the dataset decides the end)."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterates over a dataset in batches: see torch.utils.data.DataLoader."""

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            mp = _mp()
            if isinstance(multiprocessing_context, str):
                methods = mp.get_all_start_methods()
                if multiprocessing_context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid "
                                     f"start method in {methods!r}, but got "
                                     f"multiprocessing_context={multiprocessing_context!r}")
                multiprocessing_context = mp.get_context(multiprocessing_context)
            if not isinstance(multiprocessing_context, mp.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context "
                                "object or a string specifying the start method, but got "
                                f"multiprocessing_context={multiprocessing_context}")
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler",
                                           "drop_last", "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        # persistent workers: one iterator (and one set of processes) for every epoch
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            # the dataset's own length, remembered to warn if more batches than this arrive
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warn (as torch does) when asked for more workers than this process may use CPUs."""
        if not self.num_workers:
            return
        suggest, cpuset_checked = None, False
        if hasattr(os, "sched_getaffinity"):
            try:
                suggest, cpuset_checked = len(os.sched_getaffinity(0)), True
            except Exception:           # noqa: BLE001 - fall back to the CPU count
                pass
        if suggest is None:
            suggest = os.cpu_count()
        head = f"This DataLoader will create {self.num_workers} worker processes in total. "
        tail = ("Please be aware that excessive worker creation might get DataLoader running "
                "slow or even freeze, lower the worker number to avoid potential slowness/freeze "
                "if necessary.")
        if suggest is None:
            warnings.warn(head + "DataLoader is not able to compute a suggested max number of "
                          "worker in current system. " + tail, stacklevel=3)
        elif self.num_workers > suggest:
            cpuset = "" if cpuset_checked else " (`cpuset` is not taken into account)"
            warnings.warn(head + f"Our suggested max number of worker in current system is "
                          f"{suggest}{cpuset}, which is smaller than what this DataLoader is "
                          "going to create. " + tail, stacklevel=3)


class _BaseDataLoaderIter:
    """What both iterators share: the sampler pass, the base seed, counting and warnings."""

    def __init__(self, loader):
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._pin_memory = False
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        # torch makes the sampler's iterator before drawing the base seed (a sampler that
        # draws eagerly in __iter__ draws first)
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = _seed_from(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable
                and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                   f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                   f"{self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly "
                        "configuring the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data."
                        "IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", type(self).__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Fetches each batch in this process when it is asked for."""

    def __init__(self, loader):
        super().__init__(loader)
        assert self._timeout == 0, "_SingleProcessDataLoaderIter requires timeout == 0"
        assert self._num_workers == 0
        self._dataset_fetcher = create_fetcher(self._dataset_kind, self._dataset,
                                               self._auto_collation, self._collate_fn,
                                               self._drop_last)

    def _next_data(self):
        index = self._next_index()            # StopIteration at the sampler's end
        return self._dataset_fetcher.fetch(index)   # or at an iterable dataset's end


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Fetches batches in worker processes, prefetch_factor tasks ahead per worker."""
    # Note [Task order] (torch's, found by experiment): task i goes to the next worker in turn
    # that is still active; batches are yielded in task order (as they arrive if in_order is
    # False). A worker whose iterable dataset ends reports it and stops being active; the
    # tasks it held are skipped. Each yielded batch sends one more task.

    def __init__(self, loader):
        super().__init__(loader)
        self._in_order = loader.in_order
        self._worker_init_fn = loader.worker_init_fn
        mp = _mp()
        ctx = loader.multiprocessing_context or mp
        self._queue_empty = mp.queues.Empty
        self._owner_pid = os.getpid()
        self._shutdown = True           # until the workers exist
        self._worker_result_queue = ctx.Queue()
        self._workers_done_event = ctx.Event()
        self._index_queues, self._workers = [], []
        for worker_id in range(self._num_workers):
            index_queue = ctx.Queue()
            index_queue.cancel_join_thread()   # never block this process's exit on it
            w = ctx.Process(
                target=_worker_loop,
                args=(self._dataset_kind, self._dataset, index_queue,
                      self._worker_result_queue, self._workers_done_event,
                      self._auto_collation, self._collate_fn, self._drop_last,
                      self._base_seed, self._worker_init_fn, worker_id, self._num_workers),
                daemon=True)
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
            self._shutdown = False
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0              # the next task's number
        self._rcvd_idx = 0              # the next task to yield
        self._task_info = {}            # task -> (worker,) or (worker, data) once arrived
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:              # persistent workers: wait until all have resumed
            for index_queue in self._index_queues:
                index_queue.put(_ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return                      # no active worker left
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._send_idx += 1

    def _try_get_data(self, timeout):
        try:
            return True, self._worker_result_queue.get(timeout=timeout)
        except self._queue_empty:
            failed = [w for worker_id, w in enumerate(self._workers)
                      if self._workers_status[worker_id] and not w.is_alive()]
            if failed:
                pids = ", ".join(str(w.pid) for w in failed)
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited "
                                   "unexpectedly") from None
            return False, None

    def _get_data(self):
        """The next (task, payload) from any worker; checks worker liveness while waiting."""
        if self._timeout > 0:
            deadline = time.monotonic() + self._timeout
            while (left := deadline - time.monotonic()) > 0:
                ok, data = self._try_get_data(min(_LIVENESS_INTERVAL, left))
                if ok:
                    return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            ok, data = self._try_get_data(_LIVENESS_INTERVAL)
            if ok:
                return data

    def _next_data(self):
        while True:
            # skip tasks already yielded (out of order) or held by a worker that has ended
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                data = self._task_info.pop(self._rcvd_idx)[1]
                self._rcvd_idx += 1
                return self._process_data(data)
            idx, payload = self._get_data()
            data = pickle.loads(payload)
            if isinstance(data, _IterableDatasetStopIteration):
                self._mark_worker_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx == self._rcvd_idx:
                del self._task_info[idx]
                self._rcvd_idx += 1
                return self._process_data(data)
            if not self._in_order:
                del self._task_info[idx]
                return self._process_data(data)
            self._task_info[idx] += (data,)

    def _process_data(self, data):
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_unavailable(self, worker_id):
        """A worker whose iterable dataset ended: it waits for the next epoch or exits."""
        self._workers_status[worker_id] = False
        if not self._persistent_workers:
            self._index_queues[worker_id].put(None)

    def _shutdown_workers(self):
        """Tell every worker to exit, wait for them (terminate the stuck), close the queues."""
        # (only the process that made the workers: a forked child holding a copy does not)
        if self._shutdown or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for index_queue in self._index_queues:
                index_queue.put(None)
            for w in self._workers:
                w.join(timeout=_JOIN_TIMEOUT)
        # (when a garbage collection finalizes the iterator after its queues' pipes, the None
        # is lost: the workers then exit on seeing the done event, within a second)
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join()
            for index_queue in self._index_queues:
                index_queue.close()
            self._worker_result_queue.cancel_join_thread()
            self._worker_result_queue.close()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:               # noqa: BLE001 - interpreter shutdown, half-made iterator
            pass
