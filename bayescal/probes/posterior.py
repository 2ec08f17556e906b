"""The posterior contract shared by every Bayesian estimator in bayescal.

Every probe keeps its posterior as ArviZ data (``idata_``, an
``xarray.DataTree`` as PyMC returns it), exposes ``predict_proba`` (posterior
mean probability), ``predict_interval(X, prob=0.9)`` (equal-tailed or HDI
credible interval of the probability) and ``diagnostics_`` (max R-hat, min bulk
and tail ESS, divergences, sampler, seconds). A posterior that fails its
diagnostics is never silent: :func:`warn_if_unconverged` issues a
:class:`PosteriorDiagnosticsWarning` naming the failure.

This module holds the pieces once: the diagnostics summary, the warning,
credible intervals of probability draws, and :class:`PosteriorPredictiveMixin`
which turns a ``_proba_draws`` method into ``predict_proba`` and
``predict_interval``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescal.validation import check_choice, check_fraction

__all__ = [
    "DiagnosticThresholds",
    "PosteriorDiagnosticsWarning",
    "PosteriorPredictiveMixin",
    "credible_interval",
    "diagnostic_failures",
    "record_diagnostics",
    "stack_draws",
    "summarize_diagnostics",
    "warn_if_unconverged",
]


class PosteriorDiagnosticsWarning(UserWarning):
    """A posterior failed a convergence diagnostic (R-hat, ESS or divergences)."""


@dataclass(frozen=True)
class DiagnosticThresholds:
    """Limits a posterior must meet to count as converged.

    Parameters
    ----------
    rhat_max : float, default=1.01
        Largest acceptable rank-normalised split R-hat (Vehtari et al. 2021).
    ess_min_per_chain : float, default=100
        Smallest acceptable bulk and tail ESS, per chain.
    divergences_max : int, default=0
        Largest acceptable number of divergent transitions.
    """

    rhat_max: float = 1.01
    ess_min_per_chain: float = 100.0
    divergences_max: int = 0


def _min_over(dataset: Any) -> float:
    values = [float(np.nanmin(np.asarray(v))) for v in dataset.data_vars.values() if v.size]
    return float(np.nanmin(values)) if values else float("nan")


def _max_over(dataset: Any) -> float:
    values = [float(np.nanmax(np.asarray(v))) for v in dataset.data_vars.values() if v.size]
    return float(np.nanmax(values)) if values else float("nan")


def summarize_diagnostics(
    idata: Any,
    *,
    sampler: str,
    seconds: float,
    var_names: list[str] | None = None,
) -> dict[str, Any]:
    """Summarise convergence of an MCMC posterior.

    Parameters
    ----------
    idata : xarray.DataTree
        Posterior as returned by ``pm.sample`` or nutpie (a ``posterior`` group
        with ``chain`` and ``draw`` dims; ``sample_stats`` optional).
    sampler : str
        Name of the sampler (``"nutpie"``, ``"pymc"``, ``"ep"``, ...).
    seconds : float
        Wall time of the fit.
    var_names : list of str, optional
        Variables to diagnose; default all posterior variables.

    Returns
    -------
    dict
        ``rhat_max``, ``ess_bulk_min``, ``ess_tail_min``, ``divergences``,
        ``n_chains``, ``n_draws``, ``sampler``, ``seconds``. R-hat and ESS are
        NaN for posteriors that are not sampled (analytic or approximate ones).
    """
    import arviz as az

    posterior = (
        idata["posterior"].to_dataset()
        if hasattr(idata["posterior"], "to_dataset")
        else idata["posterior"]
    )
    if var_names is not None:
        posterior = posterior[var_names]
    n_chains = int(posterior.sizes.get("chain", 1))
    n_draws = int(posterior.sizes.get("draw", 0))
    rhat_max = ess_bulk = ess_tail = float("nan")
    if n_draws >= 4:
        ess_bulk = _min_over(az.ess(posterior, method="bulk"))
        ess_tail = _min_over(az.ess(posterior, method="tail"))
        if n_chains >= 2:
            rhat_max = _max_over(az.rhat(posterior))
    divergences = 0
    if "sample_stats" in idata.children and "diverging" in idata["sample_stats"].data_vars:
        divergences = int(np.asarray(idata["sample_stats"]["diverging"]).sum())
    return {
        "rhat_max": rhat_max,
        "ess_bulk_min": ess_bulk,
        "ess_tail_min": ess_tail,
        "divergences": divergences,
        "n_chains": n_chains,
        "n_draws": n_draws,
        "sampler": sampler,
        "seconds": float(seconds),
    }


def diagnostic_failures(
    diagnostics: dict[str, Any], thresholds: DiagnosticThresholds | None = None
) -> list[str]:
    """List the diagnostics that fail ``thresholds`` (empty when converged).

    NaN values (not applicable) never fail.
    """
    th = thresholds or DiagnosticThresholds()
    failures = []
    rhat = diagnostics.get("rhat_max", float("nan"))
    if np.isfinite(rhat) and rhat > th.rhat_max:
        failures.append(f"max R-hat {rhat:.3f} > {th.rhat_max}")
    ess_needed = th.ess_min_per_chain * max(int(diagnostics.get("n_chains", 1)), 1)
    for key, label in (("ess_bulk_min", "bulk"), ("ess_tail_min", "tail")):
        ess = diagnostics.get(key, float("nan"))
        if np.isfinite(ess) and ess < ess_needed:
            failures.append(f"min {label} ESS {ess:.0f} < {ess_needed:.0f}")
    div = int(diagnostics.get("divergences", 0) or 0)
    if div > th.divergences_max:
        failures.append(f"{div} divergent transitions")
    return failures


def warn_if_unconverged(
    diagnostics: dict[str, Any],
    *,
    model: str,
    thresholds: DiagnosticThresholds | None = None,
    stacklevel: int = 3,
) -> list[str]:
    """Warn with :class:`PosteriorDiagnosticsWarning` when diagnostics fail.

    Also records the failures in ``diagnostics["failures"]`` and the verdict in
    ``diagnostics["converged"]``, so the result cube can keep them.

    Returns
    -------
    list of str
        The failures (empty when the posterior passes).
    """
    failures = diagnostic_failures(diagnostics, thresholds)
    diagnostics["failures"] = failures
    diagnostics["converged"] = not failures
    if failures:
        warnings.warn(
            f"{model} posterior failed its diagnostics: {'; '.join(failures)}. "
            "Increase `tune`/`draws`, check the priors, or inspect `idata_` with ArviZ.",
            PosteriorDiagnosticsWarning,
            stacklevel=stacklevel,
        )
    return failures


def record_diagnostics(
    estimator: Any,
    idata: Any,
    *,
    sampler: str,
    seconds: float,
    var_names: list[str] | None = None,
    stacklevel: int = 4,
) -> dict[str, Any]:
    """Set ``estimator.diagnostics_`` from its posterior and warn if it fails.

    :func:`summarize_diagnostics` followed by :func:`warn_if_unconverged`
    (with the estimator's class name), the two steps every Bayesian
    estimator takes at the end of ``fit``.

    Parameters
    ----------
    estimator : object
        Receives the ``diagnostics_`` attribute.
    idata : xarray.DataTree
        The posterior.
    sampler, seconds, var_names
        As in :func:`summarize_diagnostics`.
    stacklevel : int, default=4
        Of the warning, counted from this function (4: the caller of the
        estimator's ``fit`` when ``fit`` calls this directly).

    Returns
    -------
    dict
        The diagnostics (also stored on the estimator).
    """
    diagnostics = summarize_diagnostics(
        idata, sampler=sampler, seconds=seconds, var_names=var_names
    )
    estimator.diagnostics_ = diagnostics
    warn_if_unconverged(diagnostics, model=type(estimator).__name__, stacklevel=stacklevel)
    return diagnostics


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


class PosteriorPredictiveMixin:
    """``predict_proba``, ``predict`` and ``predict_interval`` from probability draws.

    A probe implements ``_proba_draws(X) -> ndarray of shape (n_draws, n, K)``:
    the class probabilities under each posterior draw (or under each draw of an
    approximate posterior). This mixin averages them for ``predict_proba`` and
    takes their quantiles for ``predict_interval``.
    """

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior-mean class probabilities, shape ``(n, K)``; rows sum to 1."""
        draws = self._proba_draws(X)
        proba = draws.mean(axis=0)
        return proba / proba.sum(axis=1, keepdims=True)

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
