"""Consolidation: the result cube (an ``xarray.DataTree``) built from a store's cells.

``/metrics`` — a Dataset with dims ``dataset x classifier x scenario x fold``
(``repeat`` before ``fold`` when the protocol repeats): one float variable per
metric of the spec, ``rmse_true``/``mae_true`` when a dataset has true
probabilities, ``probe_rmse``/``probe_coverage`` when the spec names a probe
(NaN for the probe's own cells: a probe is not scored against itself), the
timings and posterior diagnostics of :mod:`bayescal.cube.schema` (NaN where not
Bayesian), and booleans ``done`` (cell computed), ``failed`` (cell raised; the
message is in the root attribute ``errors``), ``converged`` (False where the
cell's posterior failed its diagnostics, True elsewhere; the failed
diagnostics are in the root attribute ``unconverged``) and ``applicable``
(classifier x scenario: whether the scenario runs for the classifier at all).
A cell not yet computed is NaN with ``done = False``.

``/predictions/<dataset>`` — ``proba`` (``[repeat x] sample x classifier x
scenario x class``), ``y``, ``fold`` (the test fold of each sample per repeat,
-1 where it was in no test set, as in Monte-Carlo CV), ``p_true`` where known
and ``interval`` (``... x bound``) where a classifier gives credible intervals.

``/posteriors/<dataset>/<classifier>/<scenario>/r<repeat>_f<fold>/posterior``
— where the spec asks for them (``metrics.keep_posteriors``), the thinned
posterior draws of each Bayesian cell, an ArviZ-style group (``chain x draw
x ...``).

Root attributes: ``study``, ``spec`` (its text), ``spec_hash``, ``layout``
(the parsed spec as readers need it, JSON; see :func:`bayescal.cube.cube_layout`),
``seed``, ``versions`` (JSON of package versions), ``started``, ``finished``
(empty until the run completes), ``cells_done``/``cells_total``, ``errors``,
``unconverged`` and ``damaged`` (JSON: cell label -> message), ``samplers``
(JSON: ``dataset/classifier/scenario`` -> the inference its posteriors came
from, as the estimators' ``diagnostics_`` name it, ``+``-joined when folds
differ; Bayesian cells only).

Probe metrics are computed here rather than in the cells, from the stored
predictions: a cell's probe distance needs the probe's cell on the same fold,
which may be computed by another worker or in another run.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from bayescal.cube.schema import DIAGNOSTICS, TIMINGS, metric_names, variable_description
from bayescal.cube.scoring import probe_metrics
from bayescal.cube.store import CellStore, DamagedCellError, StoredCell, StoreLayout

__all__ = ["consolidate", "consolidate_store", "metric_variables"]


def metric_variables(layout: StoreLayout, has_truth: bool) -> tuple[str, ...]:
    """The float variables of ``/metrics``, in order (the spec's metrics first)."""
    names = list(layout.metric_names)
    if has_truth:
        names += [m for m in metric_names("truth") if m not in names]
    if layout.probe is not None:
        names += [m for m in metric_names("probe") if m not in names]
    else:
        names = [m for m in names if m not in metric_names("probe")]
    if not has_truth:
        names = [m for m in names if m not in metric_names("truth")]
    return (*names, *TIMINGS, *DIAGNOSTICS)


def _index(layout: StoreLayout, key: tuple[int, int, int, int, int]) -> tuple[int, ...]:
    d, c, s, r, f = key
    return (d, c, s, r, f) if layout.has_repeat_dim else (d, c, s, f)


def _read_cells(store: CellStore, layout: StoreLayout,
                damaged: dict[str, str]) -> dict[tuple[int, int, int, int, int], StoredCell]:
    cells = {}
    for key in sorted(store.present_cells(layout)):
        try:
            cells[key] = store.read_cell(layout, key)
        except DamagedCellError as exc:  # left out: resume quarantines and recomputes it
            damaged[layout.label(key)] = str(exc)
        except FileNotFoundError:  # moved to quarantine by a writer meanwhile
            continue
    return cells


def consolidate(store: CellStore | str, *, finished: str = "") -> Any:
    """Build the cube from the cells present in a store.

    Parameters
    ----------
    store : CellStore or path
        A store with a study record (cells may be missing: they stay NaN
        with ``done = False``).
    finished : str, default=""
        End time recorded in the attributes (empty for a partial cube).

    Returns
    -------
    xarray.DataTree
        A damaged cell file is left out (``done = False``) and named in the
        root attribute ``damaged``; it never stops consolidation.
    """
    import xarray as xr

    store = store if isinstance(store, CellStore) else CellStore(store)
    meta = store.read_meta()
    layout = StoreLayout.from_json(meta["layout"])
    data = {name: store.read_data(name) for name in layout.datasets}
    has_truth = any("p_true" in v for v in data.values())
    variables = metric_variables(layout, has_truth)
    nd, nc, ns = len(layout.datasets), len(layout.classifiers), len(layout.scenarios)
    R, F = layout.repeats, layout.folds
    shape = (nd, nc, ns, R, F) if layout.has_repeat_dim else (nd, nc, ns, F)
    values = {v: np.full(shape, np.nan) for v in variables}
    done = np.zeros(shape, dtype=bool)
    failed = np.zeros(shape, dtype=bool)
    converged = np.ones(shape, dtype=bool)
    errors: dict[str, str] = {}
    unconverged: dict[str, str] = {}
    damaged: dict[str, str] = {}
    samplers: dict[str, set[str]] = {}
    proba = {n: np.full((R, len(data[n]["y"]), nc, ns, len(data[n]["class_names"])), np.nan)
             for n in layout.datasets}
    interval: dict[str, np.ndarray] = {}
    cells = _read_cells(store, layout, damaged)
    for key, cell in cells.items():
        d, c, s, r, f = key
        idx = _index(layout, key)
        done[idx] = True
        if cell.error:
            failed[idx] = True
            errors[layout.label(key)] = cell.error
        if not cell.converged:
            converged[idx] = False
            unconverged[layout.label(key)] = cell.diagnostic_failures
        if cell.sampler:
            group = f"{layout.datasets[d]}/{layout.classifiers[c]}/{layout.scenarios[s]}"
            samplers.setdefault(group, set()).add(cell.sampler)
        for name, v in cell.values.items():
            if name in values:
                values[name][idx] = v
        name = layout.datasets[d]
        proba[name][r, cell.test_index, c, s] = cell.proba
        if cell.interval is not None:
            if name not in interval:
                interval[name] = np.full((*proba[name].shape, 2), np.nan)
            interval[name][r, cell.test_index, c, s] = cell.interval
    if layout.probe is not None:
        for key, cell in cells.items():
            d, c, s, r, f = key
            if (c, s) == (layout.probe, layout.probe_scenario):
                continue  # the probe is not scored against itself: NaN
            probe = cells.get((d, layout.probe, layout.probe_scenario, r, f))
            if cell.error or probe is None or probe.error:
                continue
            for m, v in probe_metrics(cell.proba, probe.proba, probe.interval).items():
                values[m][_index(layout, key)] = v

    dims = ("dataset", "classifier", "scenario", "repeat", "fold")
    if not layout.has_repeat_dim:
        dims = ("dataset", "classifier", "scenario", "fold")
    coords: dict[str, Any] = {
        "dataset": list(layout.datasets), "classifier": list(layout.classifiers),
        "scenario": list(layout.scenarios), "fold": np.arange(F),
        "scenario_kind": ("scenario", list(layout.scenario_kinds)),
    }
    if layout.has_repeat_dim:
        coords["repeat"] = np.arange(R)
    metrics = xr.Dataset({v: (dims, a) for v, a in values.items()}, coords=coords)
    metrics["done"] = (dims, done)
    metrics["failed"] = (dims, failed)
    metrics["converged"] = (dims, converged)
    metrics["applicable"] = (("classifier", "scenario"), np.asarray(layout.applicable, bool))
    for v in metrics.data_vars:
        metrics[v].attrs["description"] = variable_description(str(v))

    tree: dict[str, Any] = {"/metrics": metrics}
    for name in layout.datasets:
        tree[f"/predictions/{name}"] = _predictions(layout, data[name], proba[name],
                                                    interval.get(name))
    for key, cell in cells.items():
        if cell.posterior:
            tree[f"/posteriors/{_posterior_path(layout, key)}/posterior"] = _posterior(cell)
    root = xr.Dataset(attrs={
        "study": layout.name, "spec": layout.spec_text, "spec_hash": layout.spec_hash,
        "layout": layout.to_json(),
        "seed": layout.seed, "versions": json.dumps(meta.get("versions", {}), sort_keys=True),
        "started": meta.get("started", ""), "finished": finished,
        "cells_done": int(done.sum()), "cells_total": sum(1 for _ in layout.cells()),
        "errors": json.dumps(errors, sort_keys=True),
        "unconverged": json.dumps(unconverged, sort_keys=True),
        "damaged": json.dumps(damaged, sort_keys=True),
        "samplers": json.dumps({k: "+".join(sorted(v)) for k, v in samplers.items()},
                               sort_keys=True),
    })
    tree["/"] = root
    return xr.DataTree.from_dict(tree)


def _posterior_path(layout: StoreLayout, key: tuple[int, int, int, int, int]) -> str:
    d, c, s, r, f = key
    return "/".join((layout.datasets[d], layout.classifiers[c], layout.scenarios[s],
                     f"r{r}_f{f}"))


def _posterior(cell: StoredCell) -> Any:
    import xarray as xr

    assert cell.posterior is not None
    ds = xr.Dataset()
    for name, draws in cell.posterior.items():
        extra = tuple(f"{name}_dim_{i}" for i in range(draws.ndim - 2))
        ds[name] = (("chain", "draw", *extra), draws)
    return ds.assign_coords({d: np.arange(n) for d, n in ds.sizes.items()})


def consolidate_store(store: str | Any, *, timeout: float | None = None) -> Any:
    """Consolidate a store's cells and write ``results.zarr``, as one writer.

    Waits for the store's writer lock (a run in progress holds it until it
    has consolidated), so that any number of processes may call this at
    once: each writes a complete cube in turn, none fails and no temporary
    file is left behind.

    Parameters
    ----------
    store : path or CellStore
    timeout : float, optional
        Give up waiting for the writer lock after this many seconds.

    Returns
    -------
    xarray.DataTree
        The cube written.

    Raises
    ------
    ValueError
        If ``store`` is not a study store.
    bayescal.cube.StoreBusyError
        If ``timeout`` passes while another process writes the store.
    """
    from bayescal.cube.lock import StoreLock

    store = store if isinstance(store, CellStore) else CellStore(store)
    if not store.exists():
        raise ValueError(f"{str(store.root)!r} is not a bayescal study store (no study.json)")
    with StoreLock(store.writer_lock_path, wait=True, timeout=timeout):
        finished = str(store.read_meta().get("finished", ""))
        tree = consolidate(store, finished=finished)
        store.write_cube(tree)
    return tree


def _predictions(layout: StoreLayout, data: dict[str, Any], proba: np.ndarray,
                 interval: np.ndarray | None) -> Any:
    import xarray as xr

    n = len(data["y"])
    coords = {"sample": np.arange(n), "classifier": list(layout.classifiers),
              "scenario": list(layout.scenarios), "class": data["class_names"].tolist()}
    if layout.has_repeat_dim:
        coords["repeat"] = np.arange(layout.repeats)
        lead: tuple[str, ...] = ("repeat",)
        fold = data["fold"]
    else:
        lead = ()
        proba = proba[0]
        interval = None if interval is None else interval[0]
        fold = data["fold"][0]
    ds = xr.Dataset(coords=coords)
    ds["proba"] = ((*lead, "sample", "classifier", "scenario", "class"), proba)
    ds["y"] = ("sample", data["y"])
    ds["fold"] = ((*lead, "sample"), fold)
    if "p_true" in data:
        ds["p_true"] = ("sample", data["p_true"])
    if interval is not None:
        ds = ds.assign_coords(bound=["lower", "upper"])
        ds["interval"] = ((*lead, "sample", "classifier", "scenario", "class", "bound"), interval)
    return ds
