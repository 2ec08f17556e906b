"""The grid runner: every cell of a spec, in parallel, resumable.

:func:`run` prepares the datasets and splits in the calling process, sends
tasks — (dataset, classifier, repeat, fold) with the scenarios still missing —
to an executor (:mod:`bayescal.study.executors`: this process, local worker
processes or Dask), and writes every cell the moment its task returns
(:mod:`bayescal.cube.store`), holding the store's writer lock
(:mod:`bayescal.cube.lock`) throughout.

Only the calling process touches the store, so workers (local or remote)
need no access to it. Every task runs with one BLAS thread whatever the
executor, so that floating-point results do not depend on the executor.
Seeds come from the cell's position in the spec (:mod:`bayescal.study.seeds`),
so the cube is the same for any executor, any number of workers and any
number of interruptions; only the timing variables (``fit_seconds``,
``predict_seconds``) and the start/end times differ.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from bayescal.cube.consolidate import consolidate
from bayescal.cube.lock import StoreLock
from bayescal.cube.store import CellStore, DamagedCellError, StoreLayout
from bayescal.study import executors
from bayescal.study.cells import Task
from bayescal.study.data import PreparedData, prepare_dataset
from bayescal.study.protocol import make_splits
from bayescal.study.schedule import (
    TaskQueue,
    available_cores,
    estimate_task_cost,
    task_warmups,
)
from bayescal.study.seeds import DATASET, derive_seed
from bayescal.study.spec import Spec, load_spec

__all__ = ["StudyCellWarning", "package_versions", "run"]

#: Files of a store that may exist before its study record (locks).
_LOCK_FILES = frozenset({"writer.lock", "cube.lock"})

_VERSIONED = ("bayescal", "numpy", "scipy", "scikit-learn", "pandas", "xarray", "zarr", "pymc",
              "arviz", "nutpie", "dask", "distributed", "joblib")


#: Revision of how a cell's numbers are computed from the same spec and seed. A
#: store records the revision it was started with, and a resume under another
#: revision is refused, so one cube never mixes cells of two computations.
#: 1: until 2026-11-23; 2: DG and DGG of a fold share their bootstrap draws
#: (DGG replays DG's fits), which changes DGG's random numbers; 3: exact EP-GPC
#: converges by Anderson-accelerated parallel sweeps from the best evaluation
#: (2026-11-24), which moves its predictions by up to ~5e-5, and the Bayesian beta
#: map samples a centred intercept with target_accept 0.95 (other draws, same model).
RESULTS_REVISION = 3

#: What changed at the current revision, for the refusal message.
_REVISION_CHANGE = ("exact EP-GPC now converges by accelerated sweeps and the Bayesian beta "
                    "map samples a centred intercept")


class StudyCellWarning(UserWarning):
    """Some cells of a study failed (their error is kept in the cube)."""


def package_versions() -> dict[str, str]:
    """Installed versions of the packages a cube's numbers depend on."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in _VERSIONED:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _prepare(spec: Spec) -> tuple[list[PreparedData], list[list[Any]], list[np.ndarray]]:
    """Datasets, their splits and the fold of each row per repeat (in memory)."""
    datasets, splits, folds = [], [], []
    for d, dspec in enumerate(spec.datasets):
        data = prepare_dataset(dspec, data_dir=spec.data_dir, allowed=spec.allow_modules,
                               random_state=derive_seed(spec.seed, DATASET, d))
        sp = make_splits(spec.protocol, data.y, seed=spec.seed, dataset_index=d)
        fold = np.full((spec.protocol.repeats, len(data.y)), -1, dtype=np.int64)
        for r, f, _, test in sp:
            fold[r, test] = f
        datasets.append(data)
        splits.append(sp)
        folds.append(fold)
    return datasets, splits, folds


def _record_data(spec: Spec, store: CellStore, datasets: list[PreparedData],
                 folds: list[np.ndarray], log: Callable[[str], None]) -> None:
    """Write each dataset's labels and folds; on resume, check them (a damaged
    file is quarantined and written again: it holds nothing the spec cannot remake)."""
    for dspec, data, fold in zip(spec.datasets, datasets, folds, strict=True):
        path = store.data_path(dspec.name)
        if path.is_file():
            try:
                _check_same_data(store, dspec.name, data, fold)
                continue
            except DamagedCellError as exc:
                moved = store.quarantine(path)
                log(f"damaged data file quarantined and written again: "
                    f"{str(exc).split(': ', 1)[-1]} -> {moved.relative_to(store.root)}")
        store.write_data(dspec.name, y=data.y, fold=fold, p_true=data.p_true,
                         class_names=data.class_names)


def _check_same_data(store: CellStore, name: str, data: PreparedData, fold: np.ndarray) -> None:
    """On resume, the dataset and its folds must be those the study started with."""
    old = store.read_data(name)
    same = (np.array_equal(old["y"], data.y) and np.array_equal(old["fold"], fold)
            and old["class_names"].tolist() == list(data.class_names)
            and ("p_true" in old) == (data.p_true is not None)
            and (data.p_true is None or np.array_equal(old["p_true"], data.p_true)))
    if not same:
        raise ValueError(
            f"dataset {name!r} differs from the one the study in {str(store.root)!r} started "
            "with (its file or generator changed); resuming would mix results — start a new "
            "store"
        )


def _tasks(spec: Spec, layout: StoreLayout, splits: list[list[Any]],
           done: set[tuple[int, int, int, int, int]]) -> list[tuple[Task, Any, Any]]:
    out = []
    for d in range(len(spec.datasets)):
        for r, f, train, test in splits[d]:
            for c in range(len(spec.classifiers)):
                todo = tuple(s for s in range(len(spec.scenarios))
                             if layout.applicable[c][s] and (d, c, s, r, f) not in done)
                if todo:
                    out.append((Task(d, c, r, f, todo), train, test))
    return out




def _check_target(store: CellStore, layout: StoreLayout, resume: bool) -> None:
    """Before locking: refuse a foreign directory or an existing store without resume."""
    if store.exists():
        if not resume:
            raise FileExistsError(
                f"the store {str(store.root)!r} already holds a study; pass resume=True "
                "(--resume) to continue it, or choose another store"
            )
        recorded = store.read_meta()
        recorded_hash = recorded.get("layout", {}).get("spec_hash", "")
        if recorded_hash != layout.spec_hash:
            raise ValueError(
                f"the store {str(store.root)!r} was started with a different spec "
                f"(hash {recorded_hash[:12]}, this spec {layout.spec_hash[:12]}); resume it "
                "with the same spec or use another store"
            )
        store.layout()  # a store of an older format is refused here
        revision = recorded.get("results_revision", 1)
        if revision != RESULTS_REVISION:
            raise ValueError(
                f"the store {str(store.root)!r} was started by a bayescal whose cells are "
                f"computed differently (results revision {revision}, this one "
                f"{RESULTS_REVISION}: {_REVISION_CHANGE}); resuming "
                "would mix the two in one cube. Run the study again into a new store."
            )
    elif store.root.exists() and (not store.root.is_dir() or any(
            p.name not in _LOCK_FILES for p in store.root.iterdir())):
        raise FileExistsError(f"{str(store.root)!r} exists and is not a study store; "
                              "choose an empty or new directory")


def _heal(store: CellStore, layout: StoreLayout, log: Callable[[str], None]) -> int:
    """On resume: remove partial files and quarantine damaged cells; return how many."""
    store.remove_partial_files()
    moved = store.verify_cells(layout)
    for path, why in moved:
        log(f"damaged cell quarantined and recomputed: {why.split(': ', 1)[-1]} -> "
            f"{path.relative_to(store.root)}")
    return len(moved)


def _undo_fresh_store(store: CellStore, created_root: bool) -> None:
    """Remove what a run that failed before its first cell wrote to a new store."""
    store.meta_path.unlink(missing_ok=True)
    for sub in ("data", "cells", "tracebacks"):
        shutil.rmtree(store.root / sub, ignore_errors=True)
    for name in _LOCK_FILES:  # a lock on an unlinked file is re-taken (bayescal.cube.lock)
        (store.root / name).unlink(missing_ok=True)
    if created_root:
        with contextlib.suppress(OSError):
            store.root.rmdir()


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _executor(scheduler: str | None, n_jobs: int | None) -> Any:
    if scheduler is not None:
        return executors.dask(scheduler, n_jobs)
    if n_jobs == 1:
        return executors.sequential()
    # None: the schedule chooses (one process for a small study); -1: every core
    return executors.local_processes(available_cores() if n_jobs == -1 else n_jobs)


def task_queue(spec: Spec, tasks: list[tuple[Task, Any, Any]],
               datasets: list[PreparedData]) -> TaskQueue:
    """The tasks in a :class:`TaskQueue`, priced by :func:`estimate_task_cost`.

    Each task carries its process warm-ups (:func:`~bayescal.study.schedule.task_warmups`).
    """
    estimates = [estimate_task_cost(spec, t, len(train), datasets[t.dataset].X.shape[1])
                 for t, train, _ in tasks]
    return TaskQueue(tasks, estimates, [task_warmups(spec, t) for t, _, _ in tasks])


def run(spec: Spec | str | os.PathLike[str], store: str | os.PathLike[str], *,
        resume: bool = False, scheduler: str | None = None, n_jobs: int | None = None,
        progress: bool = True, log: Callable[[str], None] | None = None) -> Any:
    """Run every cell of a study and return its result cube.

    Parameters
    ----------
    spec : Spec or path
        A spec from :func:`bayescal.study.load_spec`, or the path of one.
    store : path
        Directory of the result store (created; see :mod:`bayescal.cube.store`).
    resume : bool, default=False
        Continue a study already started in ``store`` (same spec): damaged
        cell files are quarantined and only the cells without an intact file
        are computed (a store that does not exist yet is simply started).
        Without it an existing store is an error (nothing is overwritten).
    scheduler : str, optional
        Run the cells on Dask: ``"local"`` starts a ``LocalCluster`` on
        127.0.0.1 with ``n_jobs`` single-threaded worker processes; any
        other string is the address of a running scheduler.
    n_jobs : int, optional
        Local workers, this process included: 1 runs every task in this
        process; ``n > 1`` computes in this process (on a thread) and in
        ``n - 1`` worker processes; -1 means one per core. Default: one per
        core, or this process alone when the study is small
        (:func:`bayescal.study.schedule.default_workers`). Tasks go largest
        first, to whichever worker is free (:mod:`bayescal.study.schedule`).
    progress : bool, default=True
        Show a progress bar (cells done / total, time left) on stderr.
    log : callable, optional
        Receives one-line notices (a quarantined cell); default: stderr.

    Returns
    -------
    xarray.DataTree
        The cube (see :mod:`bayescal.cube.consolidate`), also written to
        ``<store>/results.zarr``.

    Raises
    ------
    SpecError
        If the spec is wrong (before any work starts).
    FileExistsError
        If ``store`` holds a study and ``resume`` is False.
    bayescal.cube.StoreBusyError
        If another process is writing ``store`` (raised at once).
    SchedulerUnreachableError
        If the Dask scheduler cannot be reached.
    WorkerProcessError
        If a local worker process ended mid-task (the cells finished so far
        are kept; ``resume=True`` continues).
    ValueError
        If ``resume`` meets a store of another spec, or a dataset cannot be
        prepared.

    Warns
    -----
    StudyCellWarning
        When cells failed; their errors are in the cube's ``errors`` attribute
        and their tracebacks under ``<store>/tracebacks/``.

    Notes
    -----
    The store's writer lock (:mod:`bayescal.cube.lock`) is held from before
    the store is touched until the cube is written. A failure before the
    first cell (a dataset that cannot be read, an unreachable scheduler)
    removes what this run wrote to a new store, so that the same command can
    simply be run again. SIGINT and SIGTERM end the run and its workers.

    Examples
    --------
    >>> from importlib.resources import files
    >>> import tempfile, pathlib
    >>> spec = files("bayescal.study") / "specs" / "quickstart.toml"
    >>> tree = run(spec, pathlib.Path(tempfile.mkdtemp()) / "qs", n_jobs=1,
    ...            progress=False)  # doctest: +SKIP
    """
    if not isinstance(spec, Spec):
        spec = load_spec(spec)
    if n_jobs is not None and (n_jobs == 0 or n_jobs < -1):
        raise ValueError(f"`n_jobs` must be a positive integer or -1, got {n_jobs}")
    log = log or _stderr
    cells = CellStore(store)
    layout = StoreLayout.from_spec(spec)
    _check_target(cells, layout, resume)
    created_root = not cells.root.exists()
    cells.root.mkdir(parents=True, exist_ok=True)
    with executors.terminate_on_signals(), StoreLock(cells.writer_lock_path):
        fresh = not cells.exists()
        started = False
        try:
            _check_target(cells, layout, resume)  # again, now that we hold the lock
            if not fresh:
                _heal(cells, layout, log)
            # the executor first: local worker processes import while the data are prepared
            with _executor(scheduler, n_jobs) as execute:
                datasets, splits, folds = _prepare(spec)
                if fresh:
                    from dataclasses import asdict

                    cells.write_meta({"layout": asdict(layout), "started": _now(),
                                      "results_revision": RESULTS_REVISION,
                                      "versions": package_versions()})
                _record_data(spec, cells, datasets, folds, log)
                if not fresh:  # the cube is outdated by the cells to come
                    cells.write_meta({**cells.read_meta(), "finished": ""})
                    cells.remove_cube()
                done = cells.done_cells(layout)
                tasks = _tasks(spec, layout, splits, done)
                started = True
                _compute(spec, cells, layout, execute, tasks, datasets, len(done), progress)
        except BaseException:
            if fresh and not started:
                _undo_fresh_store(cells, created_root)
            raise
        finished = _now()
        tree = consolidate(cells, finished=finished)
        cells.write_cube(tree)
        cells.write_meta({**cells.read_meta(), "finished": finished})
    n_failed = int(tree["metrics"]["failed"].sum())
    if n_failed:
        errors = tree.attrs["errors"]
        warnings.warn(f"{n_failed} cell(s) of study {spec.name!r} failed; see the cube's "
                      f"'errors' attribute and {str(cells.root / 'tracebacks')!r}, e.g. "
                      f"{errors[:300]}", StudyCellWarning, stacklevel=2)
    return tree


def _compute(spec: Spec, cells: CellStore, layout: StoreLayout, execute: Any,
             tasks: list[tuple[Task, Any, Any]], datasets: list[PreparedData], n_done: int,
             progress: bool) -> None:
    from tqdm.auto import tqdm

    total = sum(1 for _ in layout.cells())
    with tqdm(total=total, initial=n_done, unit="cell", desc=spec.name,
              disable=not progress, dynamic_ncols=True) as bar:
        if not tasks:
            return
        for cell_results in execute(spec, task_queue(spec, tasks, datasets), datasets):
            for cell in cell_results:
                cells.write_cell(layout, cell)
            bar.update(len(cell_results))
