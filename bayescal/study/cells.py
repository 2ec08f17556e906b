"""Computing the cells of one task: a classifier on one fold, every scenario.

A *cell* is (dataset, classifier, scenario, repeat, fold). The unit of work
sent to a worker is a :class:`Task` — (dataset, classifier, repeat, fold)
plus the scenarios still to compute — so that the scenarios of a fold share
one classifier fit (:mod:`bayescal.study.sharing`). A task returns one
:class:`CellResult` per scenario; the runner writes each to the store at once.

A scenario that raises is recorded as a failed cell (NaN values, the error
text kept in the store and reported by the runner) instead of stopping the
study; failures are deterministic, so a resumed run does not retry them.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescal.contracts import has_credible_interval
from bayescal.cube.schema import DIAGNOSTICS, TIMINGS, metric_names
from bayescal.cube.scoring import label_metrics, truth_metrics
from bayescal.cube.store import CellResult
from bayescal.study.data import PreparedData
from bayescal.study.imports import build_estimator
from bayescal.study.posteriors import (
    diagnostic_record,
    diagnostic_sampler,
    find_fitted,
    kept_draws,
)
from bayescal.study.seeds import CLASSIFIER, SCENARIO, derive_seed
from bayescal.study.sharing import FitCache, SharedFitClassifier
from bayescal.study.spec import CALIBRATED_CLASSIFIER, ScenarioSpec, Spec

__all__ = ["Task", "build_model", "generation_scenario", "run_task"]


@dataclass(frozen=True)
class Task:
    """A classifier on one fold of one dataset, with the scenarios to compute."""

    dataset: int
    classifier: int
    repeat: int
    fold: int
    scenarios: tuple[int, ...]


def _with_seed(estimator: Any, seed: int, given: set[str]) -> Any:
    if "random_state" in estimator.get_params(deep=False) and "random_state" not in given:
        estimator.set_params(random_state=seed)
    return estimator


def _classifier(spec: Spec, task: Task, scenario: ScenarioSpec) -> Any:
    cspec = spec.classifiers[task.classifier].estimator
    params = dict(spec.datasets[task.dataset].override(spec.classifiers[task.classifier].name))
    params.update(scenario.classifier_params)
    est = build_estimator(cspec, spec.allow_modules, **params)
    seed = derive_seed(spec.seed, CLASSIFIER, task.dataset, task.classifier, task.repeat,
                       task.fold)
    return _with_seed(est, seed, {k for k, _ in cspec.params} | set(params))


#: Scenario parameters that do not change the data DG / DGG generate.
_NOT_GENERATION = frozenset({"group_size"})


def generation_scenario(spec: Spec, s: int) -> int:
    """The scenario whose index seeds scenario ``s`` (``s`` itself unless DG/DGG).

    DG and DGG scenarios with the same parameters apart from ``group_size``
    (and the same classifier parameters) generate the same calibration data
    from the same seed: the first of them in the spec lends its index.
    """
    scenario = spec.scenarios[s]
    if scenario.kind not in ("dg", "dgg"):
        return s

    def generation(sc: ScenarioSpec) -> tuple[Any, ...]:
        params = tuple((k, v) for k, v in sc.params if k not in _NOT_GENERATION)
        return (tuple(sorted(params, key=lambda kv: kv[0])), sc.classifier_params)

    mine = generation(scenario)
    return next(i for i, other in enumerate(spec.scenarios[:s + 1])
                if other.kind in ("dg", "dgg") and generation(other) == mine)


def build_model(spec: Spec, task: Task, s: int, cache: FitCache | None) -> Any:
    """The unfitted model of scenario ``s`` in ``task`` (raw: the classifier).

    The classifier's ``random_state`` (when it has one and the spec does not
    fix it) is derived from (dataset, classifier, repeat, fold) — the same for
    every scenario, which is what lets them share a fit; the scenario's own
    randomness (calibration split, DG/DGG resampling, calibrator) from
    (dataset, classifier, scenario, repeat, fold), where DG and DGG scenarios
    that generate alike take the first such scenario's index
    (:func:`generation_scenario`): they draw the same bootstrap samples, so
    DGG replays DG's fits (:mod:`bayescal.study.sharing`) and the two differ
    only by DGG's grouping (common random numbers in their comparison).
    """
    scenario = spec.scenarios[s]
    clf = _classifier(spec, task, scenario)
    if scenario.kind == "raw":
        return SharedFitClassifier(estimator=clf, cache=cache)
    seed = derive_seed(spec.seed, SCENARIO, task.dataset, task.classifier,
                       generation_scenario(spec, s), task.repeat, task.fold)
    shared = SharedFitClassifier(estimator=clf, cache=cache)
    if scenario.kind == "wrapper":
        assert scenario.wrapper is not None
        model = build_estimator(scenario.wrapper, spec.allow_modules, estimator=shared)
        return _with_seed(model, seed, {k for k, _ in scenario.wrapper.params})
    assert scenario.calibrator is not None or scenario.kind == "internal"
    from bayescal.study.imports import EstimatorSpec

    params: dict[str, Any] = {"estimator": shared, "scenario": scenario.kind}
    if scenario.calibrator is not None:
        over = dict(spec.datasets[task.dataset].override(scenario.name))
        cal = build_estimator(scenario.calibrator, spec.allow_modules, **over)
        params["calibrator"] = _with_seed(cal, seed,
                                          {k for k, _ in scenario.calibrator.params} | set(over))
    model = build_estimator(EstimatorSpec(CALIBRATED_CLASSIFIER, scenario.params),
                            spec.allow_modules, **params)
    return _with_seed(model, seed, {k for k, _ in scenario.params})


def _aligned(proba: np.ndarray, classes: np.ndarray, n_classes: int) -> np.ndarray:
    """Columns for codes ``0..K-1`` (zeros for a class absent from training)."""
    proba = np.asarray(proba, dtype=float)
    classes = np.asarray(classes)
    if proba.shape[1] == n_classes and np.array_equal(classes, np.arange(n_classes)):
        return proba
    out = np.zeros((proba.shape[0], n_classes))
    out[:, classes.astype(int)] = proba
    return out


def _one_cell(spec: Spec, task: Task, s: int, data: PreparedData, train: np.ndarray,
              test: np.ndarray, cache: FitCache) -> CellResult:
    """One scenario of ``task``, with its own wall and CPU time (``cell_seconds``)."""
    wall, cpu = time.perf_counter(), time.process_time()
    cell = _compute_cell(spec, task, s, data, train, test, cache)
    cell.values["cell_seconds"] = time.perf_counter() - wall
    cell.values["cell_cpu_seconds"] = time.process_time() - cpu
    return cell


def _compute_cell(spec: Spec, task: Task, s: int, data: PreparedData, train: np.ndarray,
                  test: np.ndarray, cache: FitCache) -> CellResult:
    key = (task.dataset, task.classifier, s, task.repeat, task.fold)
    K = data.n_classes
    values = {name: np.nan for name in (*TIMINGS, *DIAGNOSTICS)}
    try:
        model = build_model(spec, task, s, cache)
        cache.reset_borrowed()
        start = time.perf_counter()
        model.fit(data.X[train], data.y[train])
        values["fit_seconds"] = time.perf_counter() - start + cache.borrowed_seconds
        start = time.perf_counter()
        proba = _aligned(model.predict_proba(data.X[test]), model.classes_, K)
        interval = None
        inner = model.estimator_ if isinstance(model, SharedFitClassifier) else model
        if has_credible_interval(inner):
            interval = np.asarray(inner.predict_interval(data.X[test],
                                                         prob=spec.metrics.probe_interval))
        values["predict_seconds"] = time.perf_counter() - start
    except Exception as exc:  # recorded per cell, reported by the runner
        detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
        nan = np.full((len(test), K), np.nan)
        return CellResult(key, test, nan, None, values, error=detail,
                          traceback="".join(traceback.format_exception(exc)))
    converged, failures, draws, sampler = True, "", None, ""
    diag = find_fitted(model, "diagnostics_")
    if diag is not None:
        diag_values, converged, failures = diagnostic_record(diag)
        sampler = diagnostic_sampler(diag)
        values.update(diag_values)
        if spec.metrics.keep_posteriors:
            draws = kept_draws(find_fitted(model, "idata_"), spec.metrics.keep_posteriors) or None
    y_test = data.y[test]
    names = tuple(n for n in spec.metrics.names if n in metric_names("labels"))
    values.update(label_metrics(y_test, proba, names, spec.metrics.ece_bins,
                                dict(spec.metrics.clip)))
    if data.p_true is not None and K == 2:
        values.update(truth_metrics(data.p_true[test], proba))
    return CellResult(key, test, proba, interval, values, converged=converged,
                      diagnostic_failures=failures, posterior=draws, sampler=sampler)


def run_task(spec: Spec, task: Task, data: PreparedData, train: np.ndarray, test: np.ndarray,
             blas_threads: int | None = None) -> list[CellResult]:
    """Compute every requested scenario of ``task``.

    Parameters
    ----------
    spec : Spec
    task : Task
    data : PreparedData
        The task's dataset.
    train, test : ndarray of int
        The fold's row indices.
    blas_threads : int or None, default=None
        BLAS threads allowed in this task (1 in parallel workers, so that
        workers do not oversubscribe the cores); None leaves them alone.

    Returns
    -------
    list of CellResult
        One per scenario of ``task.scenarios``, in that order.
    """
    from bayescal.study.warnings_once import each_warning_once
    from bayescal.threads import limit_blas_threads

    cache = FitCache(data.X[train], data.y[train])
    # a warning repeated in every cell (calibrators' and metrics' too) is shown once
    with limit_blas_threads(blas_threads), each_warning_once():
        return [_one_cell(spec, task, s, data, train, test, cache) for s in task.scenarios]
