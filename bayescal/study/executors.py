"""Where the cells of a study run: in this process, local processes or Dask.

Each executor is a context manager that yields a function mapping a
:class:`~bayescal.study.schedule.TaskQueue` to an iterator of results (one
list of :class:`~bayescal.cube.CellResult` per task, in completion order);
every executor takes the largest task first:

* :func:`sequential` — in the calling process (``n_jobs=1``);
* :func:`local_processes` — the calling process (on a thread) and ``n - 1``
  warm loky worker processes, started once per run with the spec and the
  datasets, one BLAS thread each; tasks are handed out one at a time, the
  largest left first, to whichever is free;
* :func:`dask` — an existing scheduler's address, or ``"local"`` to start a
  :class:`dask.distributed.LocalCluster` listening on 127.0.0.1 only (tasks
  submitted with priorities, the largest first). The
  scheduler is reached (within :data:`SCHEDULER_TIMEOUT` seconds) when the
  context is entered, before the runner touches the store.

:func:`terminate_on_signals` turns SIGTERM into an exception while a study
runs, so that SIGTERM, like SIGINT (``KeyboardInterrupt``), unwinds the
executor's context: the local pool kills its workers, Dask closes its
client and local cluster. No worker outlives the main process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from bayescal.cube.store import CellResult
from bayescal.study.cells import Task, run_task
from bayescal.study.data import PreparedData
from bayescal.study.schedule import QueuedTask, TaskQueue, default_workers, worker_warmup

__all__ = ["SCHEDULER_TIMEOUT", "SINGLE_THREAD_ENV", "SchedulerUnreachableError",
           "StudyTerminated", "dask", "local_processes", "sequential", "terminate_on_signals"]

#: Seconds allowed to reach a remote Dask scheduler.
SCHEDULER_TIMEOUT = 5

Executor = Callable[[Any, TaskQueue, list[PreparedData]], Iterator[list[CellResult]]]


class SchedulerUnreachableError(ConnectionError):
    """The Dask scheduler given to the runner cannot be reached."""


class StudyTerminated(SystemExit):
    """Raised in the main thread when the study receives SIGTERM."""


@contextlib.contextmanager
def terminate_on_signals() -> Iterator[None]:
    """While active, SIGTERM raises :class:`StudyTerminated` (exit status 143).

    Only installed from the main thread (signal handlers can only be set
    there); elsewhere it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise StudyTerminated(128 + signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _seconds(cells: list[CellResult]) -> float:
    """Measured seconds of a task: the sum of its cells' ``cell_seconds``."""
    return float(sum(c.values.get("cell_seconds", 0.0) for c in cells))


def _sequential(spec: Any, queue: TaskQueue, datasets: list[PreparedData]
                ) -> Iterator[list[CellResult]]:
    from bayescal.threads import limit_blas_threads

    # one BLAS limit for the whole loop (setting it per task costs a library scan)
    with limit_blas_threads(1):
        for item in queue.drain():
            cells = run_task(spec, item.task, datasets[item.task.dataset], item.train,
                             item.test, blas_threads=None)
            queue.record(item, _seconds(cells))
            yield cells


@contextlib.contextmanager
def sequential() -> Iterator[Executor]:
    """Run every task in the calling process, largest first."""
    yield _sequential


#: Environment of local workers: every BLAS/OpenMP pool starts with one thread,
#: so that no library has to be scanned and limited per task.
SINGLE_THREAD_ENV = {name: "1" for name in (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}

#: What a warm worker keeps between tasks: the spec and the prepared datasets
#: (sent once, when the worker starts), and its process's imports, numba and
#: PyTensor compilations and caches.
_WORKER_STATE: dict[str, Any] = {}


def _init_worker(spec: Any, datasets: list[PreparedData]) -> None:
    """Loky initializer: keep the study's spec and data, one BLAS thread for life."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    _WORKER_STATE["spec"] = spec
    _WORKER_STATE["datasets"] = datasets


def _worker_task(task: Task, train: Any, test: Any) -> list[CellResult]:
    """Run ``task`` in a warm worker on the data its initializer received."""
    spec, datasets = _WORKER_STATE["spec"], _WORKER_STATE["datasets"]
    return run_task(spec, task, datasets[task.dataset], train, test, blas_threads=None)


class _LocalWorker:
    """Tasks computed in the calling process, on a thread, beside the worker processes.

    The thread takes the largest waiting task whenever it is free, as the
    worker processes do, and reports each finished task (or the exception
    that stopped it) through ``events``; ``None`` says it has stopped. The
    calling process has already imported the runner and holds the data, so
    ``-j N`` starts only ``N - 1`` processes: one warm-up fewer than ``N``
    fresh workers, and no core left to a process that only writes cells.
    """

    def __init__(self, spec: Any, queue: TaskQueue, datasets: list[PreparedData],
                 lock: threading.Lock, events: Any) -> None:
        self._args = (spec, queue, datasets, lock, events)
        self.stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bayescal-local-worker",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _loop(self) -> None:
        spec, queue, datasets, lock, events = self._args
        try:
            while not self.stop.is_set():
                with lock:
                    if not queue:
                        break
                    item = queue.pop()
                try:
                    cells = run_task(spec, item.task, datasets[item.task.dataset], item.train,
                                     item.test, blas_threads=None)
                except BaseException as exc:  # handed to the calling thread, which raises it
                    events.put(("local", item, exc))
                    break
                events.put(("local", item, cells))
        finally:
            events.put(None)


@contextlib.contextmanager
def local_processes(n_jobs: int | None) -> Iterator[Executor]:
    """Run tasks in this process and on warm local worker processes, largest first.

    ``n_jobs`` workers (None: :func:`bayescal.study.schedule.default_workers`,
    which runs a small study in this process alone): the calling process
    computes tasks on a thread and ``n_jobs - 1`` processes are started once
    per run by a loky process pool whose initializer hands each the spec and
    the prepared datasets; each task then travels as its fold's row indices
    only. Workers start with one BLAS/OpenMP thread
    (:data:`SINGLE_THREAD_ENV`; the calling process limits its own for the
    run) and keep their imports and compiled models between tasks. Tasks are
    handed out one at a time, when a worker is free (none waits in a busy
    worker's pipe), always the largest left
    (:class:`~bayescal.study.schedule.TaskQueue`, re-priced by the measured
    seconds of finished tasks). A cell computed in this process measures its
    ``cell_cpu_seconds`` with the process's clock, so it also counts what
    the calling thread spends writing other cells meanwhile (a few per cent).
    The pool's workers are killed, and the calling process's
    thread takes no new task, if the run is interrupted.
    """
    pools: list[Any] = []
    local: list[_LocalWorker] = []

    def execute(spec: Any, queue: TaskQueue, datasets: list[PreparedData]
                ) -> Iterator[list[CellResult]]:
        from queue import SimpleQueue

        from joblib.externals.loky import ProcessPoolExecutor

        from bayescal.threads import limit_blas_threads

        workers = (default_workers(queue, warmup=worker_warmup(spec)) if n_jobs is None
                   else min(n_jobs, len(queue)))
        if workers <= 1:
            yield from _sequential(spec, queue, datasets)
            return
        lock = threading.Lock()
        events: SimpleQueue[Any] = SimpleQueue()
        with limit_blas_threads(1):
            here = _LocalWorker(spec, queue, datasets, lock, events)
            local.append(here)
            here.start()  # takes the largest task while the pool starts
            pool = ProcessPoolExecutor(max_workers=workers - 1, initializer=_init_worker,
                                       initargs=(spec, datasets), env=SINGLE_THREAD_ENV)
            pools.append(pool)
            running: dict[Any, QueuedTask] = {}

            def submit() -> None:
                with lock:
                    if not queue:
                        return
                    item = queue.pop()
                future = pool.submit(_worker_task, item.task, item.train, item.test)
                running[future] = item
                future.add_done_callback(lambda f: events.put(("pool", f, None)))

            # one task per worker process, the next handed out when it finishes: a task
            # waiting in a busy process's pipe could not go to this process's thread,
            # which would then run out of work before the processes do (the tail)
            for _ in range(workers - 1):
                submit()
            local_running = True
            while local_running or running:
                event = events.get()
                if event is None:
                    local_running = False
                    continue
                source, first, second = event
                if source == "local":
                    item, cells = first, second
                    if isinstance(cells, BaseException):
                        raise cells
                else:
                    item = running.pop(first)
                    cells = first.result()
                    submit()
                with lock:
                    queue.record(item, _seconds(cells))
                yield cells
            local.remove(here)
            pools.remove(pool)
            pool.shutdown(wait=True)

    try:
        yield execute
    finally:
        for here in local:  # interrupted: the thread ends after its current task
            here.stop.set()
        for pool in pools:  # left by an interruption or a failure: no worker outlives it
            pool.shutdown(wait=False, kill_workers=True)


@contextlib.contextmanager
def dask(scheduler: str, n_jobs: int | None) -> Iterator[Executor]:
    """Run tasks on Dask: ``"local"`` (a LocalCluster on 127.0.0.1) or an address.

    Raises
    ------
    SchedulerUnreachableError
        If a remote scheduler does not answer within :data:`SCHEDULER_TIMEOUT`
        seconds.
    """
    from dask.distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler == "local":
            cluster = stack.enter_context(LocalCluster(
                n_workers=n_jobs or os.cpu_count() or 1, threads_per_worker=1,
                processes=True, host="127.0.0.1", dashboard_address=None))
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as exc:
                detail = " ".join(str(exc).split()) or type(exc).__name__
                raise SchedulerUnreachableError(
                    f"cannot reach the Dask scheduler {scheduler!r} within "
                    f"{SCHEDULER_TIMEOUT} s ({detail}); check the address and that the "
                    "scheduler runs, or leave out --scheduler to run locally") from None
            stack.enter_context(client)

        def execute(spec: Any, queue: TaskQueue, datasets: list[PreparedData]
                    ) -> Iterator[list[CellResult]]:
            from dask.distributed import as_completed

            items = list(queue.drain())  # largest first; Dask runs higher priority first
            shared = {d: client.scatter(datasets[d], broadcast=True)
                      for d in sorted({i.task.dataset for i in items})}
            futures = [client.submit(run_task, spec, i.task, shared[i.task.dataset], i.train,
                                     i.test, 1, pure=False, priority=len(items) - rank)
                       for rank, i in enumerate(items)]
            try:
                for future in as_completed(futures):
                    yield future.result()
                    future.release()
            finally:
                client.cancel(futures)

        yield execute
