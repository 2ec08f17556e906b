"""Goodness-of-fit tests of calibration: Spiegelhalter, Hosmer-Lemeshow, cumulative differences.

* Spiegelhalter's (1986) ``Z`` standardises ``sum (y - p)(1 - 2p)`` (the Brier
  score's departure from its expectation under calibration) by its standard
  deviation under calibration; two-sided normal p-value, as ``rms::val.prob``.
* Hosmer & Lemeshow's (1980) ``C``-hat: the rows sorted by ``p`` are split into
  ``g`` groups of (nearly) equal size; ``sum_g (O_g - E_g)^2 / (E_g (1 - E_g / n_g))``
  against chi-square with ``g - 2`` degrees of freedom.
* Tygert's cumulative differences (Tygert 2021; Arrieta-Ibarra et al. 2022): with
  the rows sorted by ``p``, ``C_k = (1/n) sum_{j <= k} (y_j - p_j)`` (``C_0 = 0``) is a
  random walk under calibration whose scale is ``sigma = sqrt(sum p (1 - p)) / n``.
  The Kolmogorov-Smirnov statistic ``max |C_k| / sigma`` and the Kuiper statistic
  ``(max C_k - min C_k) / sigma`` are referred to the supremum of the absolute
  value and to the range of a standard Brownian motion on [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import chi2, norm

from bayescal.assessment._inputs import check_outcomes
from bayescal.validation import check_positive_int

__all__ = [
    "CalibrationTest",
    "brownian_range_sf",
    "brownian_sup_abs_sf",
    "cumulative_difference_tests",
    "hosmer_lemeshow_test",
    "spiegelhalter_test",
]

#: Terms of the series of the Brownian distributions (far more than double precision needs).
_TERMS = 200


@dataclass(frozen=True)
class CalibrationTest:
    """A test of the hypothesis that the predictions are calibrated.

    Attributes
    ----------
    name : str
        The test.
    statistic : float
        Its statistic.
    p_value : float
        Its p-value.
    df : float or None
        Degrees of freedom, where a chi-square reference applies.
    details : dict
        Settings (``g`` for Hosmer-Lemeshow).
    """

    name: str
    statistic: float
    p_value: float
    df: float | None = None
    details: dict | None = None


def spiegelhalter_test(y: Any, p: Any) -> CalibrationTest:
    """Spiegelhalter's z-test of calibration.

    Parameters
    ----------
    y : array-like of shape (n,)
        Outcomes coded 0/1.
    p : array-like of shape (n,) or (n, 2)
        Predicted probabilities of outcome 1.

    Returns
    -------
    CalibrationTest
        ``statistic`` is ``Z = sum (y - p)(1 - 2p) / sqrt(sum (1 - 2p)^2 p (1 - p))``,
        ``p_value`` two-sided.

    References
    ----------
    .. [1] Spiegelhalter, D. J. (1986). Probabilistic prediction in patient management
       and clinical trials. Statistics in Medicine 5(5), 421-433.

    Examples
    --------
    >>> t = spiegelhalter_test([0, 1, 1, 0, 1, 0, 0, 1, 1, 0], [0.2, 0.7, 0.9, 0.3, 0.6,
    ...                                                          0.1, 0.4, 0.8, 0.7, 0.5])
    >>> round(t.statistic, 4)
    -1.5542
    """
    labels, proba = check_outcomes(y, p)
    u = 1.0 - 2.0 * proba
    z = float(np.sum((labels - proba) * u) / np.sqrt(np.sum(u * u * proba * (1.0 - proba))))
    return CalibrationTest("spiegelhalter", z, float(2.0 * norm.sf(abs(z))))


def hosmer_lemeshow_test(y: Any, p: Any, *, n_groups: int = 10) -> CalibrationTest:
    """Hosmer-Lemeshow goodness-of-fit test on ``n_groups`` groups of equal size.

    Parameters
    ----------
    y : array-like of shape (n,)
        Outcomes coded 0/1.
    p : array-like of shape (n,) or (n, 2)
        Predicted probabilities of outcome 1.
    n_groups : int, default=10
        Number of groups ``g`` (deciles of risk by default); at least 3.

    Returns
    -------
    CalibrationTest
        ``df = g - 2``; ``details = {"g": g}``.

    Notes
    -----
    The rows are sorted by ``p`` (stably) and cut into ``g`` consecutive groups
    whose sizes differ by at most one (``numpy.array_split``), so tied
    predictions may fall into neighbouring groups. A group with expected count
    ``E_g`` of 0 or ``n_g`` has zero variance; it is refused.

    References
    ----------
    .. [1] Hosmer, D. W. & Lemeshow, S. (1980). Goodness of fit tests for the multiple
       logistic regression model. Communications in Statistics A 9(10), 1035-1050.
    """
    labels, proba = check_outcomes(y, p)
    g = check_positive_int(n_groups, "n_groups", minimum=3)
    if g > labels.shape[0]:
        raise ValueError(f"`n_groups`={g} exceeds the number of rows ({labels.shape[0]}).")
    order = np.argsort(proba, kind="stable")
    stat = 0.0
    for idx in np.array_split(order, g):
        n_g = idx.shape[0]
        o_g, e_g = labels[idx].sum(), proba[idx].sum()
        var = e_g * (1.0 - e_g / n_g)
        if var <= 0.0:
            raise ValueError(
                "a Hosmer-Lemeshow group has all predictions 0 or all 1 (zero variance); "
                "use fewer groups (`n_groups`)."
            )
        stat += (o_g - e_g) ** 2 / var
    return CalibrationTest("hosmer_lemeshow", float(stat), float(chi2.sf(stat, g - 2)),
                           df=float(g - 2), details={"g": g})


def brownian_sup_abs_sf(x: float) -> float:
    """``P(sup_{0 <= t <= 1} |B(t)| >= x)`` for a standard Brownian motion ``B``.

    Parameters
    ----------
    x : float
        Non-negative threshold.

    Returns
    -------
    float

    Notes
    -----
    For ``x >= 1`` the reflection series ``1 - sum_k (-1)^k [Phi((2k+1)x) -
    Phi((2k-1)x)]``; below, the eigenfunction series ``1 - (4/pi) sum_{k >= 0}
    (-1)^k / (2k+1) exp(-(2k+1)^2 pi^2 / (8 x^2))`` (Feller 1971, X.5), both
    converging fast in their range.
    """
    if x <= 0.0:
        return 1.0
    if x >= 1.0:
        k = np.arange(-_TERMS, _TERMS + 1)
        inside = np.sum((-1.0) ** np.abs(k) * (norm.cdf((2 * k + 1) * x) - norm.cdf((2 * k - 1) * x)))
        return float(min(1.0, max(0.0, 1.0 - inside)))
    k = np.arange(_TERMS)
    inside = 4.0 / np.pi * np.sum(
        (-1.0) ** k / (2 * k + 1) * np.exp(-((2 * k + 1) ** 2) * np.pi**2 / (8.0 * x * x))
    )
    return float(min(1.0, max(0.0, 1.0 - inside)))


def brownian_range_sf(x: float) -> float:
    """``P(max B - min B >= x)`` over ``[0, 1]`` for a standard Brownian motion ``B``.

    Parameters
    ----------
    x : float
        Non-negative threshold.

    Returns
    -------
    float

    Notes
    -----
    Feller's (1951) density of the range, ``f(r) = 8 sum_{k >= 1} (-1)^(k-1) k^2
    phi(k r)``, integrates to ``8 sum_k (-1)^(k-1) k (1 - Phi(k x))``. Its terms
    vanish once ``k x`` exceeds about 16, so ``4 * _TERMS`` terms serve every
    ``x >= 0.02``; below that the range is smaller than ``x`` with a probability
    far under double precision and 1 is returned.

    References
    ----------
    .. [1] Feller, W. (1951). The asymptotic distribution of the range of sums of
       independent random variables. Annals of Mathematical Statistics 22, 427-432.
    """
    if x < 0.02:
        return 1.0
    k = np.arange(1, 4 * _TERMS + 1)
    terms = (-1.0) ** (k - 1) * k * norm.sf(k * x)
    return float(min(1.0, max(0.0, 8.0 * np.sum(terms))))


def cumulative_difference_tests(y: Any, p: Any) -> tuple[CalibrationTest, CalibrationTest]:
    """Tygert's Kolmogorov-Smirnov and Kuiper tests on cumulative differences.

    Parameters
    ----------
    y : array-like of shape (n,)
        Outcomes coded 0/1.
    p : array-like of shape (n,) or (n, 2)
        Predicted probabilities of outcome 1.

    Returns
    -------
    ks, kuiper : CalibrationTest
        Statistics already divided by ``sigma`` (see the module docstring); the
        raw ECCE values ``max |C_k|`` and ``max C - min C`` are in ``details``.

    References
    ----------
    .. [1] Tygert, M. (2021). Cumulative deviation of a subpopulation from the full
       population. Journal of Big Data 8, 117.
    .. [2] Arrieta-Ibarra, I., Gujral, P., Tannen, J., Tygert, M. & Xu, C. (2022).
       Metrics of calibration for probabilistic predictions. Journal of Machine
       Learning Research 23(351), 1-54.
    """
    labels, proba = check_outcomes(y, p)
    n = labels.shape[0]
    order = np.argsort(proba, kind="stable")
    c = np.concatenate([[0.0], np.cumsum(labels[order] - proba[order]) / n])
    sigma = float(np.sqrt(np.sum(proba * (1.0 - proba)))) / n
    if sigma <= 0.0:
        raise ValueError("`p` is all 0 or 1; the cumulative-difference tests need variance.")
    ks_raw = float(np.max(np.abs(c)))
    kuiper_raw = float(c.max() - c.min())
    ks = CalibrationTest("kolmogorov_smirnov", ks_raw / sigma,
                         brownian_sup_abs_sf(ks_raw / sigma), details={"ecce_mad": ks_raw})
    kuiper = CalibrationTest("kuiper", kuiper_raw / sigma,
                             brownian_range_sf(kuiper_raw / sigma), details={"ecce_r": kuiper_raw})
    return ks, kuiper
