"""One cell's metrics: the registry's functions applied to the cell's predictions.

Each metric's name, direction, units, clipping and the function that computes
it are one entry of the registry (:data:`bayescal.cube.schema.METRICS`); this
module only applies them — :func:`label_metrics` and :func:`truth_metrics` in
the study's cells (:mod:`bayescal.study.cells`), :func:`probe_metrics` at
consolidation (:mod:`bayescal.cube.consolidate`). It keeps no list of metrics
of its own, so a metric is added by adding its registry entry.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from bayescal.cube.schema import METRICS, metric_names

__all__ = ["label_metrics", "probe_metrics", "truth_metrics"]


def label_metrics(y: np.ndarray, proba: np.ndarray, names: tuple[str, ...],
                  n_bins: int, clip: Mapping[str, float] | None = None) -> dict[str, float]:
    """The label-based metrics among ``names`` of one cell's test predictions.

    Parameters
    ----------
    y : ndarray of shape (n,)
        Test labels.
    proba : ndarray of shape (n, K)
        Predicted probabilities.
    names : tuple of str
        Metrics wanted; names that are not label metrics are left out of the
        result (the cells pass the spec's list, which may name truth or probe
        metrics too).
    n_bins : int
        Equal-width bins of the ECE (the spec's ``metrics.ece_bins``).
    clip : mapping of str to float, optional
        A metric name -> its probability clipping (the spec's
        ``metrics.clip``); metrics not in it use the registry's.

    Returns
    -------
    dict of str to float
    """
    clip = clip or {}
    out = {}
    for name in names:
        info = METRICS.get(name)
        if info is not None and info.needs == "labels":
            out[name] = float(info.compute(y, proba, n_bins, clip.get(name, info.clip)))
    return out


def truth_metrics(p_true: np.ndarray, proba: np.ndarray) -> dict[str, float]:
    """Every truth metric (``rmse_true``, ``mae_true``, ``mse_true``) of binary predictions.

    Parameters
    ----------
    p_true : ndarray of shape (n,)
        True probabilities of the positive class.
    proba : ndarray of shape (n, 2)
        Predicted probabilities.
    """
    return {name: float(METRICS[name].compute(p_true, proba)) for name in metric_names("truth")}


def probe_metrics(proba: np.ndarray, probe_proba: np.ndarray,
                  probe_interval: np.ndarray | None) -> dict[str, float]:
    """``probe_rmse`` and ``probe_coverage`` of one cell against the probe.

    Computed by :func:`bayescal.metrics.probe_distance` (``rmse`` and
    ``inside``); without credible intervals (a probe that has none, e.g. a
    non-Bayesian reference) only the RMSE is defined and the coverage is NaN.

    Parameters
    ----------
    proba, probe_proba : ndarray of shape (n, K)
        The cell's and the probe's predicted probabilities on the same rows.
    probe_interval : ndarray of shape (n, K, 2) or None
        The probe's credible intervals.
    """
    return {name: float(METRICS[name].compute(proba, probe_proba, probe_interval))
            for name in metric_names("probe")}
