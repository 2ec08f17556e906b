"""Warm worker processes of a local parallel study, startable before anything is imported.

A :class:`WorkerProcess` is one process (a loky executor of one worker) that
keeps its imports, the study's spec and data, and every model it has compiled
between tasks. One process per executor lets the scheduler know which process
runs which task, so that a model compiled in one process gets its later tasks
there (:meth:`bayescal.study.schedule.TaskQueue.take`).

A process starts importing what every task needs (scikit-learn, bayescal's
calibrators and runner) as soon as it is created; the spec and the prepared
datasets reach it later, through a private temporary file it reads with its
first task (:func:`payload_file`). So the command line can start the
processes first thing (:func:`prestarted`), and their imports run on the other
cores while the calling process imports the runner and prepares the data.

This module imports only the standard library at load time, so that
``bayescal run -j N`` can start its workers before the heavy imports.

Nothing outlives the run
------------------------
A worker watches its parent (:func:`_watch_parent`): when the calling process
is gone — killed with ``kill -9`` included, which no handler in it can see —
the worker removes the run's payload file and exits within
:data:`PARENT_POLL_SECONDS`; loky's and multiprocessing's resource trackers
then see their pipes close and exit too. A payload file left by a run killed
before any worker had read it is removed by the next run
(:func:`payload_file`: its name carries the process id of its run).

Why loky's memory-leak guard is switched off
--------------------------------------------
loky replaces a worker whose resident memory has grown by more than 300 MB
since its first task. A worker that has compiled PyMC models (nutpie, PyTensor)
grows that much by design: it is warm, not leaking. Replaced, the new process
paid every import and compilation again (seen as a second worker process, 8.8
CPU-s of recompilation and the run's tail, in ``benchmarks/thesis_small.toml``
with ``-j 2``). :func:`_init_process` therefore switches the guard off in its
workers, through :func:`bayescal._compat.loky.disable_memory_leak_guard` (a
private loky setting behind an adapter; should it fail, loky's default
applies, which costs time, never results).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["SINGLE_THREAD_ENV", "WorkerProcess", "available_cores", "payload_file",
           "prestarted", "processes_for", "start_processes"]

#: Environment of local workers: every BLAS/OpenMP pool starts with one thread,
#: so that no library has to be scanned and limited per task.
SINGLE_THREAD_ENV = {name: "1" for name in (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}

#: Seconds between a worker's checks that its parent process still lives.
PARENT_POLL_SECONDS = 0.5

_PAYLOAD_PREFIX = "bayescal-study-"

#: What a warm worker keeps between tasks: the spec and the prepared datasets
#: (read with its first task), besides its imports and compiled models.
_STATE: dict[str, Any] = {}


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _watch_parent(poll: float = PARENT_POLL_SECONDS) -> threading.Thread:
    """Start a daemon thread that ends this process when its parent is gone.

    The parent's death shows as a change of ``os.getppid()`` (the orphan is
    adopted by init or a subreaper); portable, unlike Linux's
    ``PR_SET_PDEATHSIG``, which fires when the parent *thread* that started the
    process ends (loky starts workers from its manager thread too). Before
    exiting, the thread removes the payload files of its parent's runs (read
    yet or not: their names carry the parent's process id).
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        for path in _payloads_of(parent):
            with contextlib.suppress(OSError):
                path.unlink()
        os._exit(1)

    thread = threading.Thread(target=watch, name="bayescal-parent-watch", daemon=True)
    thread.start()
    return thread


def _init_process(pid_path: str | None = None) -> None:
    """In each worker: die with the parent; its pid to ``pid_path``; one BLAS thread; no
    replacement when warm."""
    _watch_parent()
    from threadpoolctl import threadpool_limits

    from bayescal._compat.loky import disable_memory_leak_guard

    if pid_path is not None:  # the parent's kill path reads it (no private attribute)
        with open(pid_path, "w") as fh:
            fh.write(str(os.getpid()))
    threadpool_limits(limits=1)
    disable_memory_leak_guard()


def _warm_up() -> int:
    """Import what every task needs, and start numba; return the process id.

    Besides the runner's imports (scikit-learn, bayescal's calibrators), numba
    and its CPU target are initialised here: a process's first numba kernel
    (bayescal's calibrators load theirs from the disk cache) otherwise pays
    about 0.45 CPU-s for them inside its first task (measured: the quick-start's
    first forest task took 2.44 CPU-s, the same task again 1.78; with this
    warm-up 1.86 and 1.83). It runs while the calling process is still
    importing and preparing the data. numba's target refresh is an internal
    API: if it is missing, the first kernel pays as before.
    """
    import bayescal.study.cells  # noqa: F401  (scikit-learn, calibrators, the runner's cells)
    from bayescal._numba_cache import configure_numba_cache

    configure_numba_cache()  # before numba is imported (see bayescal._numba_cache)
    with contextlib.suppress(Exception):
        from numba.core.registry import cpu_target

        cpu_target.target_context.refresh()
    return os.getpid()


def _run(task: Any, train: Any, test: Any, payload: str) -> list[Any]:
    """Run ``task`` in this worker on the spec and data pickled in the file ``payload``."""
    from bayescal.study.cells import run_task

    if _STATE.get("payload") != payload:  # the first task of this run in this process
        with open(payload, "rb") as fh:
            _STATE["spec"], _STATE["datasets"] = pickle.load(fh)
        _STATE["payload"] = payload
    spec, datasets = _STATE["spec"], _STATE["datasets"]
    return run_task(spec, task, datasets[task.dataset], train, test, blas_threads=None)


@contextlib.contextmanager
def payload_file(spec: Any, datasets: Any) -> Iterator[str]:
    """A private temporary file holding ``(spec, datasets)`` for the workers of one run.

    Each worker process reads it once, with its first task; a file rather
    than the first task's arguments, so that a worker replaced by loky (a
    crash) reads it again instead of failing. Removed when the context ends,
    and by the workers when this process is killed (:func:`_watch_parent`);
    files of earlier runs whose process is gone are removed first.
    """
    _remove_orphaned_payloads()
    fd, path = tempfile.mkstemp(prefix=f"{_PAYLOAD_PREFIX}{os.getpid()}-", suffix=".pickle")
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump((spec, datasets), fh, protocol=pickle.HIGHEST_PROTOCOL)
        yield path
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _payloads_of(pid: int | None = None) -> list[Any]:
    """Payload files in the temporary directory (of the run in process ``pid``)."""
    from pathlib import Path

    pattern = f"{_PAYLOAD_PREFIX}{'*' if pid is None else pid}-*.pickle"
    return sorted(Path(tempfile.gettempdir()).glob(pattern))


def _remove_orphaned_payloads() -> int:
    """Remove payload files whose run's process no longer exists; return how many."""
    removed = 0
    for path in _payloads_of():
        pid_text = path.name[len(_PAYLOAD_PREFIX):].split("-", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


class WorkerProcess:
    """One warm worker process for one study run.

    Created, it starts its process and its imports at once. Its tasks name
    the run's :func:`payload_file`, which it reads with the first. Call
    :meth:`shutdown` when the run ends (``kill=True`` when it is interrupted).
    """

    def __init__(self) -> None:
        from joblib.externals.loky import ProcessPoolExecutor

        fd, self._pid_path = tempfile.mkstemp(prefix="bayescal-worker-", suffix=".pid")
        os.close(fd)
        self._pool = ProcessPoolExecutor(max_workers=1, initializer=_init_process,
                                         initargs=(self._pid_path,), env=SINGLE_THREAD_ENV)
        self._pid = self._pool.submit(_warm_up)  # the process starts now

    def submit(self, task: Any, train: Any, test: Any, payload: str) -> Any:
        """Run ``task`` on the fold (``train``, ``test``) there; return its future.

        ``payload``: the run's :func:`payload_file`.
        """
        return self._pool.submit(_run, task, train, test, payload)

    def shutdown(self, kill: bool = False) -> None:
        """End the process without waiting for it (``kill``: at once, mid-task).

        A kill signals the process itself and then shuts the executor down,
        rather than through loky's ``kill_workers``, whose manager thread
        can then fail with a ``KeyError`` on a task handed over but not yet
        sent (seen 2 times in 20 in a loop of kills; 0 in 20 this way). The
        process is known from the file its initializer writes first thing
        (and from the warm-up's answer once it has come); if neither is
        there yet, loky kills.
        """
        pids = self._known_pids() if kill else set()
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        self._pool.shutdown(wait=False, kill_workers=kill and not pids)
        with contextlib.suppress(OSError):
            os.unlink(self._pid_path)

    def _known_pids(self) -> set[int]:
        """The worker's process id, from its pid file or its warm-up's answer."""
        pids: set[int] = set()
        with contextlib.suppress(OSError, ValueError), open(self._pid_path) as fh:
            pids.add(int(fh.read()))
        if self._pid.done() and not self._pid.cancelled() and not self._pid.exception():
            pids.add(self._pid.result())
        return pids


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
