"""Where the cells of a study run: in this process, local processes or Dask.

Each executor is a context manager that yields a function mapping a
:class:`~bayescal.study.schedule.TaskQueue` to an iterator of results (one
list of :class:`~bayescal.cube.CellResult` per task, in completion order);
every executor takes the largest task first:

* :func:`sequential` — in the calling process (``n_jobs=1``);
* :func:`local_processes` — the calling process (on a thread) and ``n - 1``
  warm worker processes (:mod:`bayescal.study.workers`: one process and one
  pipe each, standard library only), started once per run, one BLAS thread
  each; tasks are handed out one at a time, the largest left first, to
  whichever is free, and a model that compiles on its first fit stays on the
  processes that have compiled it;
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
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from bayescal.cube.store import CellResult
from bayescal.study.cells import run_task
from bayescal.study.data import PreparedData
from bayescal.study.schedule import QueuedTask, TaskQueue, default_workers, worker_warmup
from bayescal.study.workers import SINGLE_THREAD_ENV

__all__ = ["SCHEDULER_TIMEOUT", "SINGLE_THREAD_ENV", "SchedulerUnreachableError",
           "StudyTerminated", "WorkerProcessError", "dask", "local_processes", "sequential",
           "terminate_on_signals"]

#: Seconds allowed to reach a remote Dask scheduler.
SCHEDULER_TIMEOUT = 5

Executor = Callable[[Any, TaskQueue, list[PreparedData]], Iterator[list[CellResult]]]


class SchedulerUnreachableError(ConnectionError):
    """The Dask scheduler given to the runner cannot be reached."""


class WorkerProcessError(RuntimeError):
    """A local worker process ended in the middle of a task (killed, out of memory)."""


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


LOCAL = "local"  # the calling process's worker, as TaskQueue.take knows it


class _LocalWorker:
    """Tasks computed in the calling process, on a thread, beside the worker processes.

    The thread takes its next task from the queue (:meth:`TaskQueue.take`)
    whenever it is free, as the worker processes do, records the finished
    one's seconds, and reports each finished task (or the exception that
    stopped it) through ``events``; ``None`` says it has stopped. When the
    queue has nothing for it (the waiting tasks need a model compiled in
    another process) it waits for the others. The calling process has
    already imported the runner and holds the data, so ``-j N`` starts only
    ``N - 1`` processes: one warm-up fewer than ``N`` fresh workers.
    """

    def __init__(self, spec: Any, queue: TaskQueue, datasets: list[PreparedData],
                 cond: threading.Condition, events: Any) -> None:
        self._args = (spec, queue, datasets, cond, events)
        self.stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="bayescal-local-worker",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _next(self, finished: QueuedTask | None, seconds: float) -> QueuedTask | None:
        _, queue, _, cond, _ = self._args
        with cond:
            if finished is not None:  # done and the next take in one step: never seen idle
                queue.record(finished, seconds)
                queue.done(LOCAL)
            while not self.stop.is_set() and len(queue):
                item = queue.take(LOCAL)
                if item is not None:
                    cond.notify_all()
                    return item
                cond.wait(timeout=1.0)  # woken when another worker finishes; or stopped
            cond.notify_all()
            return None

    def _loop(self) -> None:
        spec, _, datasets, _, events = self._args
        finished, seconds = None, 0.0
        try:
            while (item := self._next(finished, seconds)) is not None:
                try:
                    cells = run_task(spec, item.task, datasets[item.task.dataset], item.train,
                                     item.test, blas_threads=None)
                except BaseException as exc:  # handed to the calling thread, which raises it
                    events.put((LOCAL, item, exc))
                    break
                events.put((LOCAL, item, cells))
                finished, seconds = item, _seconds(cells)
        finally:
            events.put(None)


def _result(spec: Any, item: QueuedTask, future: Any) -> list[CellResult]:
    """A worker process's cells; its death raised as :class:`WorkerProcessError`."""
    from concurrent.futures import BrokenExecutor

    try:
        return future.result()
    except BrokenExecutor as exc:
        t = item.task
        detail = " ".join(str(exc).split())[:300]
        raise WorkerProcessError(
            f"a worker process ended while computing classifier "
            f"{spec.classifiers[t.classifier].name!r} on dataset "
            f"{spec.datasets[t.dataset].name!r} (repeat {t.repeat}, fold {t.fold}): {detail}. "
            "The system may have stopped it for lack of memory. The cells finished so far "
            "are kept: continue the study with --resume (resume=True), with fewer workers "
            "(-j) if memory is short") from None


def _parallel(spec: Any, queue: TaskQueue, datasets: list[PreparedData],
              processes: list[Any], local: list[_LocalWorker]) -> Iterator[list[CellResult]]:
    """Run the queue on this process's thread and ``processes``; yield each task's cells."""
    import pickle

    payload = pickle.dumps((spec, datasets), protocol=pickle.HIGHEST_PROTOCOL)  # once for all
    yield from _run_queue(spec, queue, datasets, processes, local, payload)


def _run_queue(spec: Any, queue: TaskQueue, datasets: list[PreparedData],
               processes: list[Any], local: list[_LocalWorker], payload: bytes
               ) -> Iterator[list[CellResult]]:
    from queue import SimpleQueue

    cond = threading.Condition()
    events: SimpleQueue[Any] = SimpleQueue()
    running: dict[Any, tuple[Any, QueuedTask]] = {}
    idle = list(processes)

    def hand_out() -> None:  # under ``cond``
        for proc in list(idle):
            item = queue.take(proc)
            if item is None:
                continue
            idle.remove(proc)
            future = proc.submit(item.task, item.train, item.test)
            running[future] = (proc, item)
            future.add_done_callback(lambda f: events.put(("pool", f, None)))
        cond.notify_all()

    here = _LocalWorker(spec, queue, datasets, cond, events)
    local.append(here)
    here.start()  # takes the largest task while the processes finish starting
    for proc in processes:  # each keeps the spec and data; read at once, beside its warm-up
        proc.load(payload)
    with cond:
        hand_out()
    local_running = True
    while local_running or running:
        event = events.get()
        if event is None:
            local_running = False
            with cond:
                hand_out()
            continue
        source, first, second = event
        if source == LOCAL:  # already recorded by the thread
            cells = second
            if isinstance(cells, BaseException):
                raise cells
            with cond:
                hand_out()
        else:
            proc, item = running.pop(first)
            cells = _result(spec, item, first)
            with cond:  # done and the next take in one step: never seen idle
                queue.record(item, _seconds(cells))
                queue.done(proc)
                idle.insert(0, proc)  # asked first: never seen idle by the others
                hand_out()
        yield cells
    local.remove(here)


@contextlib.contextmanager
def local_processes(n_jobs: int | None) -> Iterator[Executor]:
    """Run tasks in this process and on warm local worker processes, largest first.

    ``n_jobs`` workers (None: :func:`bayescal.study.schedule.default_workers`,
    which runs a small study in this process alone): the calling process
    computes tasks on a thread and ``n_jobs - 1``
    :class:`~bayescal.study.workers.WorkerProcess` processes do too. With
    ``n_jobs`` given they are started (or adopted from
    :func:`bayescal.study.workers.prestarted`) when the context is entered,
    so that their imports overlap the data preparation; the spec and the
    prepared datasets are pickled once and sent to each through its pipe
    (:meth:`~bayescal.study.workers.WorkerProcess.load`), and then each task
    travels as its fold's row indices only. Workers start with one
    BLAS/OpenMP thread (the calling process limits its own for the run) and
    keep their imports and compiled models between tasks; none is ever
    replaced. Tasks are handed out one at a time, when a worker is free (none
    waits in a busy worker's pipe), by
    :meth:`~bayescal.study.schedule.TaskQueue.take`: the largest left,
    re-priced by the measured seconds of finished tasks, and a model that
    compiles on its first fit kept on the workers that have compiled it.
    A cell computed in this process measures its ``cell_cpu_seconds`` with
    the process's clock, so it also counts what the calling thread spends
    writing other cells meanwhile (a few per cent). At the end the processes
    exit while the cube is written; if the run is interrupted they are
    killed, and the calling process's thread takes no new task.
    """
    from bayescal.study import workers as worker_processes

    processes: list[Any] = worker_processes.start_processes(
        worker_processes.processes_for(n_jobs))
    local: list[_LocalWorker] = []
    finished = False

    def execute(spec: Any, queue: TaskQueue, datasets: list[PreparedData]
                ) -> Iterator[list[CellResult]]:
        nonlocal finished
        from bayescal.threads import limit_blas_threads

        workers = (default_workers(queue, warmup=worker_warmup(spec)) if n_jobs is None
                   else min(n_jobs, len(queue)))
        if n_jobs is None and workers > 1:
            processes.extend(worker_processes.start_processes(workers - 1))
        while len(processes) > max(workers - 1, 0):  # more than the tasks can use
            processes.pop().shutdown()
        if workers <= 1:
            yield from _sequential(spec, queue, datasets)
        else:
            with limit_blas_threads(1):
                yield from _parallel(spec, queue, datasets, processes, local)
        finished = True

    try:
        yield execute
    finally:
        for here in local:  # interrupted: the thread ends after its current task
            here.stop.set()
        for proc in processes:  # done: they exit while the cube is written; else killed
            proc.shutdown(kill=not finished)


def _dask_result(future: Any, scheduler: str) -> list[CellResult]:
    """A Dask task's cells; a lost worker or cluster raised as :class:`WorkerProcessError`.

    A cell's own errors never reach here (:func:`~bayescal.study.cells.run_task`
    keeps them in the cell); what does is the cluster's: a worker killed
    (``KilledWorker``), its tasks cancelled (``FutureCancelledError``, a
    ``CancelledError``), or the connection closed (``CommClosedError``).
    """
    from concurrent.futures import CancelledError

    from distributed.comm.core import CommClosedError
    from distributed.scheduler import KilledWorker

    try:
        return future.result()
    except (KilledWorker, CancelledError, CommClosedError) as exc:
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise WorkerProcessError(
            f"the Dask cluster {scheduler!r} lost the task {future.key!r} "
            f"({type(exc).__name__}: {detail}); a worker may have died or been stopped. "
            "The cells finished so far are kept: continue the study with --resume "
            "(resume=True)") from None


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
                processes=True, host="127.0.0.1", dashboard_address=None,
                silence_logs=logging.CRITICAL))  # a lost worker: our one line, not its logs
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
                    yield _dask_result(future, scheduler)
                    future.release()
            finally:
                client.cancel(futures)

        yield execute
