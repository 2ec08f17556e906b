"""The grid runner: every cell of a spec, in parallel, resumable.

:func:`run` prepares the datasets and splits in the calling process, sends
tasks — (dataset, classifier, repeat, fold) with the scenarios still missing —
to an executor, and writes every cell the moment its task returns
(:mod:`bayescal.study.store`). Executors:

* sequential, in the calling process (``n_jobs=1``);
* local processes (default): joblib's ``loky`` backend, one BLAS thread per
  worker (:func:`bayescal.threads.limit_blas_threads`);
* Dask (``scheduler=``): an existing scheduler's address, or ``"local"`` to
  start a :class:`dask.distributed.LocalCluster` listening on 127.0.0.1 only.

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
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import numpy as np

from bayescal.study.cells import CellResult, Task, run_task
from bayescal.study.cube import consolidate
from bayescal.study.data import PreparedData, prepare_dataset
from bayescal.study.protocol import make_splits
from bayescal.study.seeds import DATASET, derive_seed
from bayescal.study.spec import Spec, load_spec
from bayescal.study.store import CellStore, StoreLayout

__all__ = ["StudyCellWarning", "package_versions", "run"]

_VERSIONED = ("bayescal", "numpy", "scipy", "scikit-learn", "pandas", "xarray", "zarr", "pymc",
              "arviz", "nutpie", "dask", "distributed", "joblib")


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


def _prepare(spec: Spec, store: CellStore) -> tuple[list[PreparedData], list[list[Any]]]:
    datasets, splits = [], []
    for d, dspec in enumerate(spec.datasets):
        data = prepare_dataset(dspec, data_dir=spec.data_dir, allowed=spec.allow_modules,
                               random_state=derive_seed(spec.seed, DATASET, d))
        sp = make_splits(spec.protocol, data.y, seed=spec.seed, dataset_index=d)
        fold = np.full((spec.protocol.repeats, len(data.y)), -1, dtype=np.int64)
        for r, f, _, test in sp:
            fold[r, test] = f
        if store.data_path(dspec.name).is_file():
            _check_same_data(store, dspec.name, data, fold)
        else:
            store.write_data(dspec.name, y=data.y, fold=fold, p_true=data.p_true,
                             class_names=data.class_names)
        datasets.append(data)
        splits.append(sp)
    return datasets, splits


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


def _sequential(spec: Spec, tasks: list[tuple[Task, Any, Any]],
                datasets: list[PreparedData]) -> Iterator[list[CellResult]]:
    from bayescal.threads import limit_blas_threads

    # one BLAS limit for the whole loop (setting it per task costs a library scan)
    with limit_blas_threads(1):
        for task, train, test in tasks:
            yield run_task(spec, task, datasets[task.dataset], train, test, blas_threads=None)


def _local(spec: Spec, tasks: list[tuple[Task, Any, Any]], datasets: list[PreparedData],
           n_jobs: int) -> Iterator[list[CellResult]]:
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered")
    yield from parallel(delayed(run_task)(spec, task, datasets[task.dataset], train, test, 1)
                        for task, train, test in tasks)


@contextlib.contextmanager
def _dask_client(scheduler: str, n_jobs: int | None) -> Iterator[Any]:
    from dask.distributed import Client, LocalCluster

    if scheduler == "local":
        with LocalCluster(n_workers=n_jobs or os.cpu_count() or 1, threads_per_worker=1,
                          processes=True, host="127.0.0.1", dashboard_address=None) as cluster:
            with Client(cluster) as client:
                yield client
    else:
        with Client(scheduler) as client:
            yield client


def _dask(spec: Spec, tasks: list[tuple[Task, Any, Any]], datasets: list[PreparedData],
          scheduler: str, n_jobs: int | None) -> Iterator[list[CellResult]]:
    from dask.distributed import as_completed

    with _dask_client(scheduler, n_jobs) as client:
        shared = {d: client.scatter(datasets[d], broadcast=True)
                  for d in sorted({t.dataset for t, _, _ in tasks})}
        futures = [client.submit(run_task, spec, task, shared[task.dataset], train, test, 1,
                                 pure=False) for task, train, test in tasks]
        for future in as_completed(futures):
            yield future.result()
            future.release()


def _open_store(spec: Spec, store: CellStore, layout: StoreLayout, resume: bool) -> None:
    if store.exists():
        if not resume:
            raise FileExistsError(
                f"the store {str(store.root)!r} already holds a study; pass resume=True "
                "(--resume) to continue it, or choose another store"
            )
        recorded = store.read_meta()
        if recorded["layout"]["spec_hash"] != layout.spec_hash:
            raise ValueError(
                f"the store {str(store.root)!r} was started with a different spec "
                f"(hash {recorded['layout']['spec_hash'][:12]}, this spec "
                f"{layout.spec_hash[:12]}); resume it with the same spec or use another store"
            )
        store.remove_partial_files()
        return
    if store.root.exists() and any(store.root.iterdir()):
        raise FileExistsError(f"{str(store.root)!r} exists and is not a study store; "
                              "choose an empty or new directory")
    store.root.mkdir(parents=True, exist_ok=True)
    from dataclasses import asdict

    store.write_meta({"layout": asdict(layout), "started": _now(),
                      "versions": package_versions()})


def run(spec: Spec | str | os.PathLike[str], store: str | os.PathLike[str], *,
        resume: bool = False, scheduler: str | None = None, n_jobs: int | None = None,
        progress: bool = True) -> Any:
    """Run every cell of a study and return its result cube.

    Parameters
    ----------
    spec : Spec or path
        A spec from :func:`bayescal.study.load_spec`, or the path of one.
    store : path
        Directory of the result store (created; see
        :mod:`bayescal.study.store`).
    resume : bool, default=False
        Continue a study already started in ``store`` (same spec): only the
        cells without a file are computed (a store that does not exist yet
        is simply started). Without it an existing store is an error
        (nothing is overwritten).
    scheduler : str, optional
        Run the cells on Dask: ``"local"`` starts a ``LocalCluster`` on
        127.0.0.1 with ``n_jobs`` single-threaded worker processes; any
        other string is the address of a running scheduler.
    n_jobs : int, optional
        Local worker processes (default: every core; 1 runs in this process;
        -1 means every core).
    progress : bool, default=True
        Show a progress bar (cells done / total, time left) on stderr.

    Returns
    -------
    xarray.DataTree
        The cube (see :mod:`bayescal.study.cube`), also written to
        ``<store>/results.zarr``.

    Raises
    ------
    SpecError
        If the spec is wrong (before any work starts).
    FileExistsError
        If ``store`` holds a study and ``resume`` is False.
    ValueError
        If ``resume`` meets a store of another spec, or a dataset cannot be
        prepared.

    Warns
    -----
    StudyCellWarning
        When cells failed; their errors are in the cube's ``errors`` attribute.

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
    cells = CellStore(store)
    layout = StoreLayout.from_spec(spec)
    _open_store(spec, cells, layout, resume)
    datasets, splits = _prepare(spec, cells)
    done = cells.done_cells(layout)
    tasks = _tasks(spec, layout, splits, done)
    workers = (os.cpu_count() or 1) if n_jobs in (None, -1) else n_jobs
    if scheduler is not None:
        results = _dask(spec, tasks, datasets, scheduler, n_jobs)
    elif workers == 1 or len(tasks) <= 1:
        results = _sequential(spec, tasks, datasets)
    else:
        results = _local(spec, tasks, datasets, min(workers, len(tasks)))
    from tqdm.auto import tqdm

    total = sum(1 for _ in layout.cells())
    with tqdm(total=total, initial=len(done), unit="cell", desc=spec.name,
              disable=not progress, dynamic_ncols=True) as bar:
        for cell_results in results:
            for cell in cell_results:
                cells.write_cell(layout, cell)
            bar.update(len(cell_results))
    tree = consolidate(cells, finished=_now())
    cells.write_cube(tree)
    errors = tree.attrs["errors"]
    if errors != "{}":
        n = int(tree["metrics"]["failed"].sum())
        warnings.warn(f"{n} cell(s) of study {spec.name!r} failed; see the cube's 'errors' "
                      f"attribute, e.g. {errors[:300]}", StudyCellWarning, stacklevel=2)
    return tree
