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
and the fit is reported as not converged. The exact log density costs
``O(n)`` per draw, so on large data :func:`staged_check` evaluates the first
256-400 draws and every draw only when those do not clearly pass (its Notes
say why that keeps the check as strict). EP's latent posterior is checked
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

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bayescal.inference.diagnostics import DIAGNOSTIC_THRESHOLDS

__all__ = [
    "CHECK_ELEMENTS",
    "MIN_CHECK_DRAWS",
    "MIN_DRAWS",
    "STAGE_ONE_K_MAX",
    "ImportanceCheck",
    "first_stage_draws",
    "pareto_k_threshold",
    "pareto_shape",
    "pareto_smoothed_check",
    "staged_check",
]

#: Fewest draws whose Pareto tail can be fitted (ArviZ fits the largest
#: ``min(S / 5, 3 sqrt(S))`` weights and needs at least 5 of them).
MIN_DRAWS = 25

#: Fewest draws of a first-stage check: a tail of 3 sqrt(256) = 48 weights for
#: the Pareto fit, and a sample-size threshold 1 - 1/log10(256) = 0.58.
MIN_CHECK_DRAWS = 256

#: Largest Pareto shape a first-stage check accepts without evaluating every draw.
#: Chosen by simulation (``python benchmarks/laplace.py --simulate-check``: importance
#: ratios with a Pareto tail of known shape, 2000 draws, a first stage of 256, 400
#: replicates): with 0.4 a staged check accepts a fit whose true shape is
#: 0.8 / 0.9 / 1.0 / 1.2 in 0.31 / 0.16 / 0.06 / 0.01 of replicates, against
#: 0.29 / 0.14 / 0.05 / 0.01 for the check on all 2000 draws; with the sample-size
#: threshold 1 - 1/log10(256) = 0.58 instead it accepted 0.43 / 0.26 / 0.14 / 0.04.
STAGE_ONE_K_MAX = 0.4

#: Rows x draws of exact log-density evaluations a first-stage check may spend
#: before it stops at :data:`MIN_CHECK_DRAWS` draws: every draw is checked up to
#: n = 2000 rows at 2000 draws (the small calibration sets where Laplace fails).
CHECK_ELEMENTS = 4_000_000


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
    n_out: int | None = None,
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
    n_out : int, optional
        Size of the weighted resample (with replacement) when the shape is
        acceptable; default ``S``.

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
        size = n if n_out is None else int(n_out)
        indices = np.sort(rng.choice(n, size=size, replace=True, p=weights / weights.sum()))
        return ImportanceCheck(khat, smoothed, indices, True)
    return ImportanceCheck(khat, smoothed, np.arange(n), False)


def pareto_k_threshold(n_draws: int) -> float:
    """Largest Pareto shape at which ``n_draws`` importance draws give reliable estimates.

    ``min(1 - 1 / log10(S), pareto_k_max)`` (Vehtari et al. 2024, Sec. 3.2.4:
    the relative error of an importance-sampling estimate falls with ``S``
    only once ``S > 10^(1 / (1 - k))``): 0.57 at 200 draws, 0.62 at 400,
    0.67 at 1000, and ``DIAGNOSTIC_THRESHOLDS.pareto_k_max`` (0.7) from 2154.
    """
    limit = DIAGNOSTIC_THRESHOLDS.pareto_k_max
    return float(min(1.0 - 1.0 / np.log10(max(n_draws, 11)), limit))


def first_stage_draws(n_draws: int, n_rows: int) -> int:
    """How many of ``n_draws`` draws the first stage of :func:`staged_check` evaluates.

    All of them when the exact log density costs at most
    :data:`CHECK_ELEMENTS` row-draw evaluations; otherwise
    ``max(CHECK_ELEMENTS / n_rows, MIN_CHECK_DRAWS)`` (400 draws from
    n = 10^4 rows on).
    """
    budget = -(-CHECK_ELEMENTS // max(int(n_rows), 1))
    return int(min(n_draws, max(budget, MIN_CHECK_DRAWS)))


def staged_check(
    log_density: Callable[[slice], np.ndarray],
    log_approx: np.ndarray,
    rng: np.random.Generator,
    *,
    n_rows: int,
) -> tuple[ImportanceCheck, int]:
    """The importance check of ``S`` approximate draws, on fewer draws where that suffices.

    Parameters
    ----------
    log_density : callable
        ``draws (a slice of range(S)) -> exact log density at those draws``.
    log_approx : ndarray of shape (S,)
        The approximation's log density at every draw.
    rng : numpy.random.Generator
        For the weighted resample.
    n_rows : int
        Rows of the data: the exact log density costs ``O(n_rows)`` per draw.

    Returns
    -------
    check : ImportanceCheck
        ``indices`` has ``S`` entries into the checked draws (the first
        ``n_checked``): a weighted resample when the shape is acceptable,
        ``arange(S)`` otherwise.
    n_checked : int
        Draws whose exact log density was evaluated.

    Notes
    -----
    Why fewer draws than the user asked for. The check costs ``O(n S p)``
    (every draw's linear predictor at every row), against ``O(n p^2)`` per
    Newton step for the mode: at n = 10^4 rows, d = 20, checking 2000 draws
    costs five times the mode and Hessian. The Pareto shape ``k`` is a property of the
    approximation and the posterior, not of ``S``; ``S`` sets how well it is
    estimated (the generalised Pareto fit uses the largest ``3 sqrt(S)``
    weights: 48 at 256 draws, 134 at 2000) and how large a ``k`` the
    importance-sampling estimates tolerate, ``k < 1 - 1/log10(S)``
    (:func:`pareto_k_threshold`; Vehtari et al. 2024). So the check runs in
    two stages:

    1. the first ``S1`` draws (:func:`first_stage_draws`: all of them on
       small data, where Laplace fails and the check is cheap; 400 at
       n = 10^4 rows, 256 from n = 15,625 on, where it costs about as much
       as the mode);
    2. if ``S1 < S`` and their ``k`` exceeds :data:`STAGE_ONE_K_MAX` (0.4),
       every draw is evaluated and ``k`` of all ``S`` draws is judged against
       ``DIAGNOSTIC_THRESHOLDS.pareto_k_max`` (0.7), as without stages.

    The first stage accepts only a shape well inside the acceptable range, so
    that its larger estimation noise (about 0.25 at 48 tail weights, against
    0.15 at 134) does not let through fits the full check would reject: in
    simulation its false acceptances exceed the one-stage check's by at most
    0.03 (:data:`STAGE_ONE_K_MAX`). A borderline or failing fit is always
    judged on every draw; a well-approximated posterior (Laplace at
    n >= 10^4, ``k`` about 0.1) escalates in under 7 % of fits. When the first
    stage is accepted, the ``S`` returned draws are a weighted resample of
    the ``S1`` checked draws (sampling-importance resampling): means and
    intervals are the posterior's, with the Monte Carlo error of ``S1``
    weighted draws (at most ``S1`` distinct values) rather than ``S``.
    """
    total = int(np.asarray(log_approx).size)
    first = first_stage_draws(total, n_rows)
    values = np.asarray(log_density(slice(0, first)), dtype=float)
    if first < total:
        k_max = min(STAGE_ONE_K_MAX, pareto_k_threshold(first))
        check = pareto_smoothed_check(values, log_approx[:first], rng, k_max=k_max, n_out=total)
        if check.resampled:
            return check, first
        values = np.concatenate([values, log_density(slice(first, total))])
    return pareto_smoothed_check(values, log_approx, rng), total
