"""Check an approximate posterior against the exact one: Pareto-smoothed importance sampling.

A Laplace or mean-field ADVI posterior is a Gaussian ``q`` in the model's
unconstrained space. Its draws ``theta_s`` are weighted by
``p(theta_s | data) / q(theta_s)`` with ``p`` the model's exact
(unnormalised) log density; Pareto smoothing of the largest weights
(Vehtari et al. 2024) gives both stabilised weights and the estimated
shape ``k`` of their tail. ``k <= 0.7`` (``DIAGNOSTIC_THRESHOLDS.pareto_k_max``)
means the importance-weighted draws estimate posterior expectations
reliably, and bayescal then resamples the draws by their weights so that
means and intervals are those of the posterior rather than the
approximation's; above it the approximation is too far from the posterior
and the fit is reported as not converged. EP's latent posterior is checked
the same way (:func:`bayescal.probes.gp_ep.ep_importance_log_ratios`): there
the prior cancels from the ratio, so the check costs ``O(n)`` per draw and
stays informative at the n of a GP fit, without a resample (EP predicts from
its Gaussian, not from the draws).

References
----------
Vehtari, A., Simpson, D., Gelman, A., Yao, Y. and Gabry, J. (2024).
Pareto smoothed importance sampling. *Journal of Machine Learning Research*
25(72), 1-58.

Yao, Y., Vehtari, A., Simpson, D. and Gelman, A. (2018). Yes, but did it
work?: Evaluating variational inference. *ICML*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayescal.inference.diagnostics import DIAGNOSTIC_THRESHOLDS

__all__ = ["MIN_DRAWS", "ImportanceCheck", "pareto_shape", "pareto_smoothed_check"]

#: Fewest draws whose Pareto tail can be fitted (ArviZ fits the largest
#: ``min(S / 5, 3 sqrt(S))`` weights and needs at least 5 of them).
MIN_DRAWS = 25


@dataclass(frozen=True)
class ImportanceCheck:
    """The outcome of :func:`pareto_smoothed_check`.

    Attributes
    ----------
    pareto_k : float
        Estimated Pareto shape of the importance weights' tail.
    log_weights : ndarray of shape (S,)
        Pareto-smoothed, normalised log weights.
    indices : ndarray of shape (S,)
        Draws to keep, in order: a weighted resample when ``pareto_k`` is
        acceptable, otherwise ``arange(S)`` (the approximation's own draws).
    resampled : bool
        Whether ``indices`` is a weighted resample.
    """

    pareto_k: float
    log_weights: np.ndarray
    indices: np.ndarray
    resampled: bool


def _psis_log_weights(log_ratio: np.ndarray) -> tuple[np.ndarray, float]:
    """ArviZ's PSIS (arviz_stats 1.x) on log importance ratios: smoothed log weights and k.

    ``arviz_stats.base.array_stats.psislw`` takes the *negated* log ratios
    (its leave-one-out convention: the pointwise log-likelihood, whose
    negation is the log weight) and returns the smoothed log weights.
    """
    from arviz_stats.base import array_stats

    if np.ptp(log_ratio) == 0.0:  # no tail to fit: equal weights (arviz raises here)
        return np.full(log_ratio.size, -np.log(log_ratio.size)), 0.0
    smoothed, khat = array_stats.psislw(-log_ratio)
    khat = float(khat)
    # a shape that could not be estimated fails the check rather than passing it
    return np.asarray(smoothed, dtype=float), khat if not np.isnan(khat) else float("inf")


def pareto_shape(log_density: np.ndarray, log_approx: np.ndarray) -> float:
    """The Pareto shape ``k`` of the importance weights alone (no resample).

    For approximations whose draws are kept as they are (EP's latent
    draws); see :func:`pareto_smoothed_check` for the conventions.
    """
    return pareto_smoothed_check(
        log_density, log_approx, np.random.default_rng(0), k_max=-np.inf
    ).pareto_k


def pareto_smoothed_check(
    log_density: np.ndarray,
    log_approx: np.ndarray,
    rng: np.random.Generator,
    *,
    k_max: float | None = None,
) -> ImportanceCheck:
    """Pareto-smoothed importance weights of draws from an approximation.

    Parameters
    ----------
    log_density : ndarray of shape (S,)
        The model's exact log density (any additive constant) at each draw.
    log_approx : ndarray of shape (S,)
        The approximation's log density (any additive constant) at each draw.
    rng : numpy.random.Generator
        For the weighted resample.
    k_max : float, optional
        Largest acceptable shape; default ``DIAGNOSTIC_THRESHOLDS.pareto_k_max``.

    Returns
    -------
    ImportanceCheck

    Notes
    -----
    A draw where the exact density is not finite (outside the support,
    an overflow) gets weight zero; if every draw does, or the shape cannot
    be estimated, ``pareto_k`` is infinite (the check fails). With fewer
    than :data:`MIN_DRAWS` draws there is no tail to fit: ``pareto_k`` is
    NaN (not checked) and the draws are kept. Equal ratios
    at every draw (the approximation is the density) have no tail and give
    ``pareto_k = 0``.
    """
    k_max = DIAGNOSTIC_THRESHOLDS.pareto_k_max if k_max is None else float(k_max)
    log_ratio = np.asarray(log_density, dtype=float) - np.asarray(log_approx, dtype=float)
    n = log_ratio.size
    if n < MIN_DRAWS:  # too few draws for a tail: not checked
        return ImportanceCheck(float("nan"), np.full(n, -np.log(max(n, 1))), np.arange(n), False)
    finite = np.isfinite(log_ratio)
    if not finite.any():
        return ImportanceCheck(float("inf"), np.full(n, -np.inf), np.arange(n), False)
    log_ratio = log_ratio - log_ratio[finite].max()
    # a draw outside the support gets a weight exp(-745) (zero in double precision)
    log_ratio = np.where(finite, log_ratio, log_ratio[finite].min() - 745.0)
    smoothed, khat = _psis_log_weights(log_ratio)
    smoothed = np.where(finite, smoothed, -np.inf)
    smoothed = smoothed - np.logaddexp.reduce(smoothed[finite])
    khat = float(khat)
    if np.isfinite(khat) and khat <= k_max:
        weights = np.exp(smoothed)
        indices = np.sort(rng.choice(n, size=n, replace=True, p=weights / weights.sum()))
        return ImportanceCheck(khat, smoothed, indices, True)
    return ImportanceCheck(khat, smoothed, np.arange(n), False)
