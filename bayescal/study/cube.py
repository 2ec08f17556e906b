"""The result cube: an ``xarray.DataTree`` consolidated from a store's cells.

``/metrics`` — a Dataset with dims ``dataset x classifier x scenario x fold``
(``repeat`` before ``fold`` when the protocol repeats): one float variable per
metric of the spec, ``rmse_true``/``mae_true`` when a dataset has true
probabilities, ``probe_rmse``/``probe_coverage`` when the spec names a probe,
``fit_seconds``/``predict_seconds``, the posterior diagnostics ``rhat_max``,
``ess_bulk_min``, ``divergences`` (NaN where not Bayesian), and booleans
``done`` (cell computed), ``failed`` (cell raised; the message is in the root
attribute ``errors``) and ``applicable`` (classifier x scenario: whether the
scenario runs for the classifier at all). A cell not yet computed is NaN with
``done = False``.

``/predictions/<dataset>`` — ``proba`` (``[repeat x] sample x classifier x
scenario x class``), ``y``, ``fold`` (the test fold of each sample per repeat,
-1 where it was in no test set, as in Monte-Carlo CV), ``p_true`` where known
and ``interval`` (``... x bound``) where a classifier gives credible intervals.

Root attributes: ``study``, ``spec`` (its text), ``spec_hash``, ``seed``,
``versions`` (JSON of package versions), ``started``, ``finished`` (empty until
the run completes), ``cells_done``/``cells_total`` and ``errors`` (JSON).

Probe metrics are computed here rather than in the cells, from the stored
predictions: a cell's probe distance needs the probe's cell on the same fold,
which may be computed by another worker or in another run.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from bayescal.study.cells import DIAGNOSTICS, TIMINGS
from bayescal.study.scoring import probe_metrics
from bayescal.study.store import CellStore, StoreLayout

__all__ = ["consolidate", "metric_variables", "open_results"]


def metric_variables(layout: StoreLayout, has_truth: bool) -> tuple[str, ...]:
    """The float variables of ``/metrics``, in order."""
    names = list(layout.metric_names)
    if has_truth:
        names += [m for m in ("rmse_true", "mae_true") if m not in names]
    if layout.probe is not None:
        names += [m for m in ("probe_rmse", "probe_coverage") if m not in names]
    else:
        names = [m for m in names if not m.startswith("probe_")]
    if not has_truth:
        names = [m for m in names if not m.endswith("_true")]
    return (*names, *TIMINGS, *DIAGNOSTICS)


def _index(layout: StoreLayout, key: tuple[int, int, int, int, int]) -> tuple[int, ...]:
    d, c, s, r, f = key
    return (d, c, s, r, f) if layout.has_repeat_dim else (d, c, s, f)


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
    errors: dict[str, str] = {}
    proba = {n: np.full((R, len(data[n]["y"]), nc, ns, len(data[n]["class_names"])), np.nan)
             for n in layout.datasets}
    interval: dict[str, np.ndarray] = {}
    cells = {key: store.read_cell(layout, key) for key in sorted(store.done_cells(layout))}
    for key, cell in cells.items():
        d, c, s, r, f = key
        idx = _index(layout, key)
        done[idx] = True
        if cell.error:
            failed[idx] = True
            errors["/".join((layout.datasets[d], layout.classifiers[c], layout.scenarios[s],
                             f"r{r}", f"f{f}"))] = cell.error
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
    metrics["applicable"] = (("classifier", "scenario"), np.asarray(layout.applicable, bool))
    for v in metrics.data_vars:
        metrics[v].attrs["description"] = _DESCRIPTIONS.get(str(v), "metric (lower is better)")

    tree: dict[str, Any] = {"/metrics": metrics}
    for name in layout.datasets:
        tree[f"/predictions/{name}"] = _predictions(layout, data[name], proba[name],
                                                    interval.get(name))
    root = xr.Dataset(attrs={
        "study": layout.name, "spec": layout.spec_text, "spec_hash": layout.spec_hash,
        "seed": layout.seed, "versions": json.dumps(meta.get("versions", {}), sort_keys=True),
        "started": meta.get("started", ""), "finished": finished,
        "cells_done": int(done.sum()), "cells_total": sum(1 for _ in layout.cells()),
        "errors": json.dumps(errors, sort_keys=True),
    })
    tree["/"] = root
    return xr.DataTree.from_dict(tree)


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


_DESCRIPTIONS = {
    "brier": "Brier score (sum over classes, mean over samples)",
    "log_loss": "log loss (true-class probability clipped at 1e-15)",
    "ece": "expected calibration error (binary or top-label)",
    "accuracy": "accuracy (higher is better)",
    "mcb": "CORP miscalibration of the Brier score (mcb - dsc + unc = brier)",
    "dsc": "CORP discrimination of the Brier score (higher is better)",
    "unc": "CORP uncertainty of the Brier score (of the test labels alone)",
    "smooth_ece": "smooth ECE, fixed-point bandwidth (binary or top-label)",
    "rmse_true": "RMSE against the true probabilities",
    "mae_true": "MAE against the true probabilities",
    "probe_rmse": "RMSE against the reference probe's probabilities",
    "probe_coverage": "share of probabilities inside the probe's credible interval",
    "fit_seconds": "wall time of the fit (shared fits counted in every scenario using them)",
    "predict_seconds": "wall time of predicting the test fold",
    "rhat_max": "max R-hat of the posterior (NaN where not Bayesian)",
    "ess_bulk_min": "min bulk ESS of the posterior (NaN where not Bayesian)",
    "divergences": "divergent transitions (NaN where not Bayesian)",
    "done": "cell computed",
    "failed": "cell raised an error (see the root attribute 'errors')",
    "applicable": "scenario runs for this classifier",
}


def open_results(store: str | Any) -> Any:
    """Open the result cube of a store.

    Parameters
    ----------
    store : str or Path
        A store written by :func:`bayescal.study.run`.

    Returns
    -------
    xarray.DataTree
        Loaded into memory. If the run has not finished (no consolidated
        cube yet), the cube is built from the cells present, with
        ``done = False`` and NaN for the others.

    Raises
    ------
    ValueError
        If ``store`` is not a study store.
    """
    import xarray as xr

    cells = CellStore(store)
    if not cells.exists():
        raise ValueError(f"{str(store)!r} is not a bayescal study store (no study.json)")
    if cells.cube_path.is_dir():
        with xr.open_datatree(cells.cube_path, engine="zarr", consolidated=False) as tree:
            return tree.load()
    return consolidate(cells)
