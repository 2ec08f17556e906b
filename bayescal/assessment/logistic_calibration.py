"""Mean and weak calibration: O/E, calibration-in-the-large, logistic recalibration.

The levels of the calibration hierarchy of Van Calster et al. (2016) that a
logistic model of the outcome on the prediction's log-odds measures:

* *mean calibration*: the observed/expected ratio ``O/E = sum y / sum p`` and the
  calibration-in-the-large ``a`` of ``logit P(y=1) = a + logit p`` (the offset
  model, slope fixed at 1);
* *weak calibration*: intercept ``alpha`` and slope ``beta`` of
  ``logit P(y=1) = alpha + beta logit p`` (Cox 1958), ideally 0 and 1, and the
  likelihood-ratio test of ``alpha = 0, beta = 1`` -- the unreliability index
  ``U`` of Harrell's ``rms::val.prob``, with the discrimination index ``D`` and
  the quality index ``Q = D - U``.

All fits are maximum likelihood by Newton's method
(:func:`bayescal.calibration._logistic.fit_logistic`); intervals are Wald
intervals from the observed information. Predictions of exactly 0 or 1 have an
infinite log-odds: as ``rms::val.prob`` does, they are left out of the logistic
fits (and counted in ``n_excluded``); every other statistic keeps them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, logit
from scipy.stats import chi2, norm

from bayescal.assessment._inputs import check_outcomes
from bayescal.calibration._logistic import fit_logistic, intercept_design, logistic_loss
from bayescal.validation import check_fraction

__all__ = ["LogisticCalibration", "finite_logits", "logistic_calibration"]


@dataclass(frozen=True)
class LogisticCalibration:
    """Mean and weak calibration of binary predictions (see the module docstring).

    Attributes
    ----------
    observed_expected, observed_expected_interval : float, (float, float)
        ``sum y / sum p`` and its interval ``exp(log(O/E) -/+ z / sqrt(O))``
        (Poisson approximation for the observed count ``O``).
    calibration_in_the_large, calibration_in_the_large_interval : float, (float, float)
        Intercept of the offset model ``logit P = a + logit p`` and its Wald interval.
    intercept, intercept_interval, slope, slope_interval : float, (float, float)
        ``alpha`` and ``beta`` of ``logit P = alpha + beta logit p`` (jointly
        estimated, as ``rms::val.prob`` reports them) and their Wald intervals.
    covariance : ndarray of shape (2, 2)
        Inverse observed information of ``(alpha, beta)``.
    unreliability_chi2, unreliability_p, unreliability : float
        Likelihood-ratio statistic of ``alpha = 0, beta = 1`` (2 degrees of
        freedom), its p-value and Harrell's index ``U = (chi2 - 2) / n``.
    discrimination_chi2, discrimination : float
        Likelihood ratio of the predictions against the event rate and
        ``D = (chi2 - 1) / n``.
    quality : float
        ``Q = D - U``.
    r2 : float
        Nagelkerke's R^2 of the predictions as given (``rms``' ``R2``).
    level : float
        Confidence level of the intervals.
    n_excluded : int
        Predictions of exactly 0 or 1 left out of the logistic fits.
    """

    observed_expected: float
    observed_expected_interval: tuple[float, float]
    calibration_in_the_large: float
    calibration_in_the_large_interval: tuple[float, float]
    intercept: float
    intercept_interval: tuple[float, float]
    slope: float
    slope_interval: tuple[float, float]
    covariance: np.ndarray
    unreliability_chi2: float
    unreliability_p: float
    unreliability: float
    discrimination_chi2: float
    discrimination: float
    quality: float
    r2: float
    level: float
    n_excluded: int


def finite_logits(p: np.ndarray, *, stacklevel: int = 3) -> tuple[np.ndarray, int]:
    """Mask of predictions with a finite log-odds; warns with the count of the others."""
    keep = (p > 0.0) & (p < 1.0)
    excluded = int(keep.size - keep.sum())
    if excluded:
        warnings.warn(
            f"{excluded} predictions of exactly 0 or 1 have infinite log-odds and are "
            "left out of the logistic recalibration (as rms::val.prob does).",
            UserWarning,
            stacklevel=stacklevel,
        )
    return keep, excluded


def _wald(estimate: float, variance: float, z: float) -> tuple[float, float]:
    half = z * float(np.sqrt(max(variance, 0.0)))
    return (estimate - half, estimate + half)


def _offset_intercept(z: np.ndarray, t: np.ndarray) -> float:
    """Calibration-in-the-large: the maximum-likelihood ``a`` of ``logit P = a + z``.

    The score ``sum(t - expit(a + z))`` falls strictly from ``sum t`` to ``sum t - n`` as
    ``a`` grows, so its root is bracketed by doubling and found by Brent's method
    (:func:`scipy.optimize.brentq`). Plain Newton steps diverge on saturated predictions
    (log-odds near +-37, as naive Bayes gives): a first step overshoots until every
    ``expit(a + z)`` is exactly 0 or 1 and the information is zero.
    """
    def score(a: float) -> float:
        return float(np.sum(t - expit(a + z)))

    lo, hi = -1.0, 1.0
    while score(lo) <= 0.0:
        lo *= 2.0
    while score(hi) >= 0.0:
        hi *= 2.0
    return float(brentq(score, lo, hi, xtol=1e-14, rtol=1e-15))


def logistic_calibration(y: Any, p: Any, *, level: float = 0.9) -> LogisticCalibration:
    """Observed/expected ratio, calibration-in-the-large, calibration intercept and slope.

    Parameters
    ----------
    y : array-like of shape (n,)
        Outcomes coded 0/1; both must occur.
    p : array-like of shape (n,) or (n, 2)
        Predicted probabilities of outcome 1.
    level : float, default=0.9
        Confidence level of the Wald intervals.

    Returns
    -------
    LogisticCalibration

    Raises
    ------
    ValueError
        On bad ``y``/``p`` (see :func:`bayescal.assessment._inputs.check_outcomes`),
        ``level`` outside (0, 1), or fewer than two predictions strictly inside (0, 1).

    Notes
    -----
    With ``z = logit p`` over the rows with finite ``z``: ``L01 = -2 log L(0, 1)``
    is the deviance of the predictions as given, ``L0`` that of the event rate
    and ``L(alpha, beta)`` that of the recalibrated predictions. Then
    ``chi2_D = L0 - L01``, ``D = (chi2_D - 1) / n``, ``chi2_U = L01 - L(alpha, beta)``,
    ``U = (chi2_U - 2) / n``, ``Q = D - U`` and ``R^2 = (1 - exp(-chi2_D / n)) /
    (1 - exp(-L0 / n))`` (Harrell 2015, Sec. 10.9; ``rms::val.prob``).

    References
    ----------
    .. [1] Van Calster, B., Nieboer, D., Vergouwe, Y., De Cock, B., Pencina, M. J. &
       Steyerberg, E. W. (2016). A calibration hierarchy for risk models was defined:
       from utopia to empirical data. Journal of Clinical Epidemiology 74, 167-176.
    .. [2] Cox, D. R. (1958). Two further applications of a model for binary
       regression. Biometrika 45(3/4), 562-565.
    .. [3] Harrell, F. E. (2015). Regression Modeling Strategies, 2nd ed. Springer.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 2000)
    >>> y = (rng.random(2000) < p).astype(int)
    >>> fit = logistic_calibration(y, p)
    >>> bool(fit.slope_interval[0] < 1 < fit.slope_interval[1])
    True
    """
    labels, proba = check_outcomes(y, p)
    level = check_fraction(level, "level")
    z_crit = float(norm.ppf(0.5 + level / 2.0))
    observed, expected = float(labels.sum()), float(proba.sum())
    oe = observed / expected
    half = z_crit / np.sqrt(observed)
    oe_interval = (oe * float(np.exp(-half)), oe * float(np.exp(half)))

    keep, excluded = finite_logits(proba, stacklevel=3)
    if keep.sum() < 2:
        raise ValueError(
            "`p` has fewer than two predictions strictly between 0 and 1; the logistic "
            "recalibration needs finite log-odds."
        )
    t, z = labels[keep], logit(proba[keep])
    if t.min() == t.max():
        outcome = "events" if t[0] else "non-events"
        raise ValueError(
            f"every row with a prediction strictly between 0 and 1 is one of the {outcome}; "
            "the logistic recalibration and calibration-in-the-large have no finite "
            "estimate. Check `y` and `p` (are they aligned?), or assess on data with both "
            "outcomes among such rows."
        )
    n = t.shape[0]
    ones = np.ones(n)
    recal = fit_logistic(intercept_design(z), t, ones, warn=False)
    cov = np.linalg.inv(recal.hessian)
    a = _offset_intercept(z, t)
    q = expit(a + z)
    citl_var = 1.0 / float(np.sum(q * (1.0 - q)))

    deviance_given = 2.0 * logistic_loss(z, t, ones)
    deviance_recal = 2.0 * recal.loss
    rate = t.mean()
    deviance_null = -2.0 * float(np.sum(t * np.log(rate) + (1 - t) * np.log1p(-rate)))
    chi2_d = deviance_null - deviance_given
    chi2_u = deviance_given - deviance_recal
    d_index = (chi2_d - 1.0) / n
    u_index = (chi2_u - 2.0) / n
    r2 = (1.0 - np.exp(-chi2_d / n)) / (1.0 - np.exp(-deviance_null / n))
    alpha, beta = (float(c) for c in recal.coef)
    return LogisticCalibration(
        observed_expected=oe,
        observed_expected_interval=oe_interval,
        calibration_in_the_large=a,
        calibration_in_the_large_interval=_wald(a, citl_var, z_crit),
        intercept=alpha,
        intercept_interval=_wald(alpha, cov[0, 0], z_crit),
        slope=beta,
        slope_interval=_wald(beta, cov[1, 1], z_crit),
        covariance=cov,
        unreliability_chi2=float(chi2_u),
        unreliability_p=float(chi2.sf(chi2_u, 2)),
        unreliability=float(u_index),
        discrimination_chi2=float(chi2_d),
        discrimination=float(d_index),
        quality=float(d_index - u_index),
        r2=float(r2),
        level=level,
        n_excluded=excluded,
    )
