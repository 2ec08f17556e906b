"""Warm worker processes of a local parallel study, startable before anything is imported.

A :class:`WorkerProcess` is one process and one pipe to it, on the standard
library's public API alone (:mod:`multiprocessing` with the ``spawn`` start
method, a :func:`~multiprocessing.Pipe`). The process runs one call at a time
and keeps its imports, the study's spec and data, and every model it has
compiled between tasks. One process per object lets the scheduler know which
process runs which task, so that a model compiled in one process gets its
later tasks there (:meth:`bayescal.study.schedule.TaskQueue.take`); and
nothing ever replaces a process behind the scheduler's back (a pool that
restarts a worker grown by its compiled models would make it pay every
compilation again).

A process starts importing what every task needs (scikit-learn, bayescal's
calibrators and runner) as soon as it is created, on a thread, while its main
thread already reads the pipe. So the command line can start the processes
first thing (:func:`prestarted`), and their imports run on the other cores
while the calling process imports the runner and prepares the data; the spec
and the prepared datasets reach each process once, through its pipe
(:meth:`WorkerProcess.load`), and then each task travels as its fold's row
indices only. Nothing is written to disk.

This module imports only the standard library at load time, so that
``bayescal run -j N`` can start its workers before the heavy imports.

Nothing outlives the run
------------------------
A worker watches its parent (:func:`_watch_parent`): when the calling process
is gone -- ``kill -9`` included, which no handler in it can see -- the worker
exits within :data:`PARENT_POLL_SECONDS`, in the middle of a task or not
(between tasks the closed pipe ends it at once); multiprocessing's resource
tracker then sees its pipe close and exits too. Workers ignore SIGINT from
their first instruction on: Ctrl-C reaches every process of the terminal's
process group, and the calling process, which holds the store, decides (it
kills its workers when interrupted).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import BrokenExecutor, Future
from typing import Any

__all__ = ["SINGLE_THREAD_ENV", "WorkerDied", "WorkerProcess", "available_cores",
           "prestarted", "processes_for", "start_processes"]

#: Environment of local workers: every BLAS/OpenMP pool starts with one thread,
#: so that no library has to be scanned and limited per task.
SINGLE_THREAD_ENV = {name: "1" for name in (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}

#: Seconds between a worker's checks that its parent process still lives.
PARENT_POLL_SECONDS = 0.5

#: What a warm worker keeps between tasks: the spec and the prepared datasets
#: (:func:`_load`), besides its imports and compiled models.
_STATE: dict[str, Any] = {}


class WorkerDied(BrokenExecutor):
    """A worker process ended while a call was waiting for it (killed, out of memory)."""


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


# --------------------------------------------------------------------------- #
# In the worker process
# --------------------------------------------------------------------------- #


def _watch_parent(poll: float = PARENT_POLL_SECONDS) -> threading.Thread:
    """Start a daemon thread that ends this process when its parent is gone.

    The parent's death shows as a change of ``os.getppid()`` (the orphan is
    adopted by init or a subreaper); portable, unlike Linux's
    ``PR_SET_PDEATHSIG``, which fires when the parent *thread* that started the
    process ends.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    thread = threading.Thread(target=watch, name="bayescal-parent-watch", daemon=True)
    thread.start()
    return thread


def _warm_up() -> None:
    """Import what every task needs, and start numba.

    Besides the runner's imports (scikit-learn, bayescal's calibrators), numba
    and its CPU target are initialised here: a process's first numba kernel
    (bayescal's calibrators load theirs from the disk cache) otherwise pays
    about 0.45 CPU-s for them inside its first task (measured: the quick-start's
    first forest task took 2.44 CPU-s, the same task again 1.78; with this
    warm-up 1.86 and 1.83). It runs while the calling process is still
    importing and preparing the data. numba's target has no public start
    (:func:`bayescal._compat.numba.start_cpu_target`): if that fails, the first
    kernel pays as before.
    """
    import bayescal.study.cells  # noqa: F401  (scikit-learn, calibrators, the runner's cells)
    from bayescal._compat.numba import start_cpu_target
    from bayescal._numba_cache import configure_numba_cache

    configure_numba_cache()  # before numba is imported (see bayescal._numba_cache)
    start_cpu_target()


def _load(payload: bytes) -> None:
    """Keep the run's spec and prepared datasets (pickled once by the calling process)."""
    try:
        _STATE["spec"], _STATE["datasets"] = pickle.loads(payload)
    except BaseException as exc:  # told again with each task (:func:`_run`)
        _STATE["load_error"] = f"{type(exc).__name__}: {exc}"
        raise


def _run(task: Any, train: Any, test: Any) -> list[Any]:
    """Run ``task`` on the fold (``train``, ``test``) with the spec and data :func:`_load` kept."""
    from bayescal.study.cells import run_task

    if "spec" not in _STATE:
        raise RuntimeError("a worker process could not read the study's spec and data: "
                           f"{_STATE.get('load_error', 'none was sent')}")
    spec, datasets = _STATE["spec"], _STATE["datasets"]
    return run_task(spec, task, datasets[task.dataset], train, test, blas_threads=None)


def _answer(message: bytes) -> bytes:
    """Run the call pickled in ``message``; its pickled ``("ok", result)`` or ``("error", exc)``.

    A call that cannot be unpickled here answers its error; an exception or
    result that cannot be pickled (or rebuilt) is answered as a
    ``RuntimeError`` with its text and traceback.
    """
    name = "a call"
    try:
        call, args = pickle.loads(message)
        name = repr(getattr(call, "__name__", call))
        answer: tuple[str, Any] = ("ok", call(*args))
    except BaseException as exc:  # handed to the calling process, which raises it
        answer = ("error", exc)
    try:
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)  # an exception class that cannot be rebuilt there fails here
        return data
    except Exception as exc:
        import traceback

        value = answer[1]
        text = "".join(traceback.format_exception(value)) if answer[0] == "error" else ""
        problem = RuntimeError(f"a worker process could not send back the {answer[0]} "
                               f"{type(value).__name__} of {name} "
                               f"({type(exc).__name__}: {exc}).\n{text}")
        return pickle.dumps(("error", problem), protocol=pickle.HIGHEST_PROTOCOL)


def _serve(conn: Any) -> None:
    """A worker's life: answer the calls that come through ``conn`` until told to stop.

    Its main thread reads each message as bytes as soon as it arrives (so the
    calling process never waits to hand over the data), the warm-up runs on
    another thread meanwhile, and a message is unpickled and run only once the
    warm-up is done (two threads importing one package at once can deadlock).
    An empty message or a closed pipe ends the process.
    """
    os.environ.update(SINGLE_THREAD_ENV)  # before the warm-up loads BLAS and OpenMP
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the calling process decides
    if hasattr(signal, "pthread_sigmask"):  # blocked since its start (WorkerProcess)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _watch_parent()
    warm_up = threading.Thread(target=_warm_up, name="bayescal-warm-up", daemon=True)
    warm_up.start()
    limited = False
    while True:
        try:
            message = conn.recv_bytes()
        except (EOFError, OSError):  # the calling process is gone
            break
        if not message:
            break
        if not limited:
            warm_up.join()
            from threadpoolctl import threadpool_limits

            threadpool_limits(limits=1)  # what was loaded before the environment was set
            limited = True
        try:
            conn.send_bytes(_answer(message))
        except OSError:  # the calling process is gone
            break
    for stream in (sys.stdout, sys.stderr):  # nothing else to finalise: end at once
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


# --------------------------------------------------------------------------- #
# In the calling process
# --------------------------------------------------------------------------- #


@contextlib.contextmanager
def _main_module_not_rerun() -> Iterator[None]:
    """Start a spawned process without it running the caller's ``__main__`` again.

    The "spawn" start method re-imports the parent's main script (or ``-m``
    module) in the child, as ``__mp_main__``, so that functions defined there
    can be unpickled; a script or notebook without an ``if __name__ ==
    "__main__":`` guard would then run its study again inside the worker
    (which fails on the store's lock). A worker needs nothing from the main
    module -- it runs bayescal's module-level functions on pickled data --
    so while its process starts, ``__main__`` shows neither a file nor a
    spec, and the child skips that import (the rule of
    :mod:`multiprocessing`'s "Safe importing of main module" no longer binds
    bayescal's users).
    """
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    missing = object()
    saved_file = main.__dict__.pop("__file__", missing)
    saved_spec = main.__dict__.get("__spec__", missing)
    main.__spec__ = None
    try:
        yield
    finally:
        if saved_file is not missing:
            main.__file__ = saved_file
        if saved_spec is missing:
            main.__dict__.pop("__spec__", None)
        else:
            main.__spec__ = saved_spec


class WorkerProcess:
    """One warm worker process for one study run.

    Created, it starts its process, and the process its imports, at once.
    :meth:`load` hands it the run's spec and data, :meth:`submit` a task;
    calls run one after another, in order. Call :meth:`shutdown` when the
    run ends (``kill=True`` when it is interrupted).
    """

    def __init__(self) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # a fresh interpreter: no forked locks
        self._conn, child = context.Pipe(duplex=True)
        self._process = context.Process(target=_serve, args=(child,), name="bayescal-worker")
        # SIGINT blocked from the start (the mask survives exec) until _serve ignores it: a
        # Ctrl-C while the new interpreter starts and imports neither kills it nor prints
        # a traceback; here, one that arrives meanwhile waits the few milliseconds
        masked = hasattr(signal, "pthread_sigmask")
        if masked:
            previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            with _main_module_not_rerun():
                self._process.start()
        finally:
            if masked:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        child.close()
        self._lock = threading.Lock()
        self._pending: deque[Future[Any]] = deque()
        self._ended = False
        self._reader = threading.Thread(target=self._read, name="bayescal-worker-reader",
                                        daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        """The process id of the worker."""
        assert self._process.pid is not None
        return self._process.pid

    def call(self, function: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run ``function(*args)`` in the worker after the calls before it; return its future.

        ``function`` must be importable by name there (a module-level function).
        The future's exception is the call's own, or :class:`WorkerDied` if the
        process ends first.
        """
        message = pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL)
        future: Future[Any] = Future()
        future.set_running_or_notify_cancel()
        with self._lock:
            if self._ended:
                future.set_exception(self._died())
                return future
            self._pending.append(future)
            try:
                self._conn.send_bytes(message)
            except OSError:  # gone: the reader fails what is pending
                pass
        return future

    def load(self, payload: bytes) -> Future[Any]:
        """Hand the worker the run's ``pickle.dumps((spec, datasets))``, before its tasks."""
        return self.call(_load, payload)

    def submit(self, task: Any, train: Any, test: Any) -> Future[Any]:
        """Run ``task`` on the fold (``train``, ``test``) there; return its future."""
        return self.call(_run, task, train, test)

    def _read(self) -> None:
        """Resolve the pending futures in order as the answers come; fail them at the end."""
        while True:
            try:
                status, value = pickle.loads(self._conn.recv_bytes())
            except (EOFError, OSError):
                break
            except Exception as exc:  # an answer this process cannot unpickle
                status, value = "error", RuntimeError(
                    f"the answer of a worker process could not be read: "
                    f"{type(exc).__name__}: {exc}")
            with self._lock:
                future = self._pending.popleft()
            if status == "ok":
                future.set_result(value)
            else:
                future.set_exception(value)
        self._process.join(timeout=5.0)  # reap it; its exit code for the message
        with self._lock:
            self._ended = True
            pending = list(self._pending)
            self._pending.clear()
        for future in pending:
            future.set_exception(self._died())
        self._conn.close()

    def _died(self) -> WorkerDied:
        code = self._process.exitcode
        how = ("still running" if code is None
               else f"killed by signal {signal.Signals(-code).name}" if code < 0
               else f"exit status {code}")
        return WorkerDied(f"worker process {self._process.pid} ended ({how})")

    def shutdown(self, kill: bool = False) -> None:
        """End the process without waiting for it (``kill``: at once, mid-task).

        Without ``kill`` the process exits after the calls already handed to
        it; with ``kill`` it is killed (SIGKILL) and pending calls fail with
        :class:`WorkerDied`.
        """
        if kill:
            with contextlib.suppress(OSError, ValueError):
                self._process.kill()
            return
        with self._lock, contextlib.suppress(OSError):
            if not self._ended:
                self._conn.send_bytes(b"")

    def join(self, timeout: float | None = None) -> bool:
        """Wait until the process has ended and its answers are read; True if it has."""
        self._reader.join(timeout)
        return not self._reader.is_alive()


#: Processes started by :func:`prestarted`, waiting for a run to adopt them.
_PRESTARTED: list[WorkerProcess] = []


def start_processes(n: int) -> list[WorkerProcess]:
    """``n`` worker processes: those :func:`prestarted` first, new ones for the rest."""
    n = max(n, 0)
    adopted = _PRESTARTED[:n]
    del _PRESTARTED[:n]
    return adopted + [WorkerProcess() for _ in range(n - len(adopted))]


def processes_for(n_jobs: int | None, scheduler: str | None = None) -> int:
    """Worker processes a local run with ``n_jobs`` starts (0 if it cannot be known yet).

    ``n_jobs`` counts the calling process: ``-j 2`` starts one process, ``-j -1``
    one per core but one. Dask runs (``scheduler``) and the default
    (``None``: decided from the tasks, after the data are prepared) start none
    here.
    """
    if scheduler is not None or n_jobs is None:
        return 0
    return max((available_cores() if n_jobs == -1 else n_jobs) - 1, 0)


@contextlib.contextmanager
def prestarted(n: int) -> Iterator[None]:
    """Start ``n`` worker processes now, for the next local run in this process.

    The run adopts them (:func:`start_processes`); any not adopted when the
    context ends (the run failed before its tasks, or needed fewer) are killed.

    Examples
    --------
    >>> with prestarted(0):  # the command line: ``bayescal run -j 2`` starts 1
    ...     pass
    """
    mine = [WorkerProcess() for _ in range(n)]
    _PRESTARTED.extend(mine)
    try:
        yield
    finally:
        for proc in mine:
            if proc in _PRESTARTED:
                _PRESTARTED.remove(proc)
                proc.shutdown(kill=True)
