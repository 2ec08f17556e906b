"""The posterior contract shared by every Bayesian estimator in bayescal.

Every probe keeps its posterior as ArviZ data (``idata_``, an
``xarray.DataTree`` as PyMC returns it), exposes ``predict_proba`` (posterior
mean probability), ``predict_interval(X, prob=0.9)`` (equal-tailed or HDI
credible interval of the probability) and ``diagnostics_`` (max R-hat, min bulk
and tail ESS, divergences, sampler, seconds). A posterior that fails its
diagnostics is never silent: :func:`record_diagnostics` issues a
:class:`PosteriorDiagnosticsWarning` naming the failure.

This module holds the pieces once: credible intervals of probability draws
and :class:`PosteriorPredictiveMixin`, which turns a ``_proba_draws`` method
into ``predict_proba`` and ``predict_interval``. The diagnostics record
(:class:`PosteriorDiagnostics`), its builder, the thresholds and the warning
live in :mod:`bayescal.inference.diagnostics` and are re-exported here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.inference.diagnostics import (
    DIAGNOSTIC_THRESHOLDS,
    DiagnosticThresholds,
    PosteriorDiagnostics,
    PosteriorDiagnosticsWarning,
    diagnostic_failures,
    posterior_diagnostics,
    record_diagnostics,
    warn_if_unconverged,
)
from bayescal.validation import check_choice, check_fraction

#: The former name of :func:`posterior_diagnostics`.
summarize_diagnostics = posterior_diagnostics

__all__ = [
    "DIAGNOSTIC_THRESHOLDS",
    "DiagnosticThresholds",
    "PosteriorDiagnostics",
    "PosteriorDiagnosticsWarning",
    "PosteriorPredictiveMixin",
    "POINT_ESTIMATES",
    "credible_interval",
    "point_estimate_of_draws",
    "diagnostic_failures",
    "posterior_diagnostics",
    "record_diagnostics",
    "stack_draws",
    "summarize_diagnostics",
    "warn_if_unconverged",
]


def stack_draws(idata: Any, name: str) -> np.ndarray:
    """Posterior draws of ``name`` with chain and draw flattened into axis 0.

    Parameters
    ----------
    idata : xarray.DataTree
        Has a ``posterior`` group with dims ``chain`` and ``draw``.
    name : str
        The variable.

    Returns
    -------
    ndarray of shape (chains * draws, ...)
        Chain-major order; the variable's other dims follow in their order.
    """
    arr = np.asarray(idata["posterior"][name].transpose("chain", "draw", ...))
    return arr.reshape((-1, *arr.shape[2:]))


def credible_interval(
    draws: np.ndarray, prob: float = 0.9, *, kind: str = "eti", axis: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Credible interval of posterior draws along ``axis``.

    Parameters
    ----------
    draws : ndarray
        Posterior draws; ``axis`` indexes the draws.
    prob : float, default=0.9
        Probability mass inside the interval.
    kind : {"eti", "hdi"}, default="eti"
        Equal-tailed interval (quantiles) or highest-density interval (the
        narrowest window holding ``prob`` of the sorted draws; unimodal
        posteriors).
    axis : int, default=0
        The draws axis.

    Returns
    -------
    lower, upper : ndarray
        Arrays with ``axis`` removed.
    """
    prob = check_fraction(prob, "prob")
    check_choice(kind, "kind", ("eti", "hdi"))
    draws = np.moveaxis(np.asarray(draws, dtype=float), axis, 0)
    if kind == "eti":
        alpha = (1.0 - prob) / 2.0
        lower, upper = np.quantile(draws, [alpha, 1.0 - alpha], axis=0)
        return lower, upper
    n = draws.shape[0]
    sorted_draws = np.sort(draws, axis=0)
    width_count = max(int(np.floor(prob * n)), 1)
    if width_count >= n:
        return sorted_draws[0], sorted_draws[-1]
    widths = sorted_draws[width_count:] - sorted_draws[: n - width_count]
    start = np.argmin(widths, axis=0)
    lower = np.take_along_axis(sorted_draws, start[None], axis=0)[0]
    upper = np.take_along_axis(sorted_draws, (start + width_count)[None], axis=0)[0]
    return lower, upper


#: The posterior point summaries of a probability ``predict_proba`` can return.
POINT_ESTIMATES = ("mean", "median")


def point_estimate_of_draws(draws: np.ndarray, point_estimate: str = "mean") -> np.ndarray:
    """Posterior mean or median of class-probability draws, rows summing to 1.

    Parameters
    ----------
    draws : ndarray of shape (S, n, K)
        Class probabilities under each of ``S`` posterior draws.
    point_estimate : {"mean", "median"}, default="mean"
        ``"mean"``: the posterior predictive probability ``P(y = k | x, data)
        = E[p_k(x)]``, the one that minimises the expected Brier score and log
        loss, but for a skewed posterior of ``p_k(x)`` possibly outside its
        own equal-tailed interval (a tail holding under ``(1 - prob) / 2`` of
        the draws can carry the mean beyond the interval's end). ``"median"``:
        the posterior median of ``p_k(x)``, inside every equal-tailed interval
        by construction. With two classes the median of ``p_1`` is taken and
        ``p_0 = 1 - p_1`` (also the median of ``p_0``); with ``K > 2`` the
        per-class medians are divided by their sum, so they are the medians
        only up to that normalisation.

    Returns
    -------
    ndarray of shape (n, K)
    """
    check_choice(point_estimate, "point_estimate", POINT_ESTIMATES)
    if point_estimate == "mean":
        proba = draws.mean(axis=0)
        return proba / proba.sum(axis=1, keepdims=True)
    if draws.shape[-1] == 2:
        p1 = np.median(draws[..., 1], axis=0)
        return np.stack([1.0 - p1, p1], axis=-1)
    proba = np.median(draws, axis=0)
    return proba / proba.sum(axis=1, keepdims=True)


class PosteriorPredictiveMixin:
    """``predict_proba``, ``predict`` and ``predict_interval`` from probability draws.

    A probe implements ``_proba_draws(X) -> ndarray of shape (n_draws, n, K)``:
    the class probabilities under each posterior draw (or under each draw of an
    approximate posterior). This mixin averages them for ``predict_proba`` and
    takes their quantiles for ``predict_interval``; an estimator with a
    ``point_estimate`` parameter can return the posterior median instead.
    """

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior-mean class probabilities, shape ``(n, K)``; rows sum to 1.

        The posterior median instead where the estimator has
        ``point_estimate="median"`` (see :func:`point_estimate_of_draws`).
        """
        draws = self._proba_draws(X)
        return point_estimate_of_draws(draws, getattr(self, "point_estimate", "mean"))

    def predict(self, X: Any) -> np.ndarray:
        """Class with the largest posterior-mean probability."""
        proba = self.predict_proba(X)
        classes = getattr(self, "classes_", np.arange(proba.shape[1]))
        return np.asarray(classes)[np.argmax(proba, axis=1)]

    def predict_interval(self, X: Any, prob: float = 0.9, *, kind: str = "eti") -> np.ndarray:
        """Credible interval of each class probability.

        Parameters
        ----------
        X : array-like
            Inputs (features for probes, scores for calibration maps).
        prob : float, default=0.9
            Credible mass.
        kind : {"eti", "hdi"}, default="eti"
            Equal-tailed or highest-density interval.

        Returns
        -------
        ndarray of shape (n, K, 2)
            ``[..., 0]`` the lower and ``[..., 1]`` the upper bound.
        """
        draws = self._proba_draws(X)
        lower, upper = credible_interval(draws, prob, kind=kind, axis=0)
        return np.stack([lower, upper], axis=-1)
