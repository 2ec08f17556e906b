"""CORP reliability: the PAV-recalibrated curve, consistency bands, score decomposition.

CORP (Consistent, Optimally binned, Reproducible, PAV-based; Dimitriadis, Gneiting &
Jordan, 2021) replaces the binned reliability diagram by the isotonic (pool-adjacent-
violators) regression of the binary outcome on the forecast probability. The PAV fit
is the optimal monotone recalibration for every proper scoring rule at once, which
gives the exact decomposition of the mean score

.. math:: \\bar S(x) = \\mathrm{MCB} - \\mathrm{DSC} + \\mathrm{UNC},

with :math:`\\mathrm{MCB} = \\bar S(x) - \\bar S(\\hat x)` (miscalibration),
:math:`\\mathrm{DSC} = \\bar S(\\bar y) - \\bar S(\\hat x)` (discrimination) and
:math:`\\mathrm{UNC} = \\bar S(\\bar y)` (uncertainty), where :math:`\\hat x` is the
PAV-recalibrated forecast and :math:`\\bar y` the event rate (the climatological
forecast).

The isotonic fit is bayescal's own
(:func:`bayescal._kernels.isotonic.pooled_isotonic_fit`): tied forecasts are pooled,
as CORP requires.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import xlogy

from bayescal.validation import (
    check_binary_scores,
    check_choice,
    check_consistent_length,
    check_fraction,
    check_labels,
    check_n_classes_present,
    check_positive_int,
)

__all__ = [
    "CORP_SCORES",
    "CORPReliability",
    "MiscalibrationTest",
    "ScoreDecomposition",
    "corp_recalibrate",
    "corp_reliability",
    "miscalibration_test",
    "score_decomposition",
]

#: Scoring rules the decomposition accepts.
CORP_SCORES = ("brier", "log")

#: Methods for the consistency bands.
BAND_METHODS = ("resampling", "asymptotic")


@dataclass(frozen=True)
class ScoreDecomposition:
    """The CORP decomposition ``mean score = MCB - DSC + UNC`` of one scoring rule.

    Attributes
    ----------
    score : str
        The scoring rule: ``"brier"`` (squared error of the positive-class
        probability, scikit-learn's ``brier_score_loss``) or ``"log"`` (negative
        log-likelihood, natural logarithm).
    mean_score : float
        Mean score of the forecasts.
    mcb : float
        Miscalibration: mean score of the forecasts minus that of their
        PAV recalibration (>= 0; zero exactly when the forecasts equal their
        recalibration).
    dsc : float
        Discrimination: mean score of the event rate minus that of the PAV
        recalibration (>= 0).
    unc : float
        Uncertainty: mean score of the constant forecast equal to the event rate.
    """

    score: str
    mean_score: float
    mcb: float
    dsc: float
    unc: float


@dataclass(frozen=True)
class CORPReliability:
    """A CORP reliability curve with consistency bands and the score decomposition.

    The curve is a step function: the recalibrated probability is constant between
    consecutive distinct forecast values.

    Attributes
    ----------
    forecast : ndarray of shape (m,)
        Distinct forecast values, sorted.
    recalibrated : ndarray of shape (m,)
        PAV-recalibrated (conditional event) probability at each forecast value.
    count : ndarray of shape (m,)
        Number of cases with each forecast value.
    band_lower, band_upper : ndarray of shape (m,)
        Pointwise consistency band at ``level``: where the recalibrated curve of a
        calibrated forecast with these forecast values falls with probability
        ``level``.
    level : float
        Pointwise level of the bands.
    band_method : str
        ``"resampling"`` or ``"asymptotic"``.
    n_resamples : int
        Resamples behind the bands (0 for ``"asymptotic"``).
    decomposition : ScoreDecomposition
        The decomposition of the mean score (the ``score`` asked for).
    """

    forecast: np.ndarray
    recalibrated: np.ndarray
    count: np.ndarray
    band_lower: np.ndarray
    band_upper: np.ndarray
    level: float
    band_method: str
    n_resamples: int
    decomposition: ScoreDecomposition


@dataclass(frozen=True)
class MiscalibrationTest:
    """Result of the CORP miscalibration test.

    Attributes
    ----------
    score : str
        Scoring rule whose MCB is the statistic.
    statistic : float
        MCB of the forecasts.
    p_value : float
        Resampling p-value ``(1 + #{MCB* >= MCB}) / (B + 1)`` under the hypothesis
        that the forecasts are calibrated.
    n_resamples : int
        Number of resamples ``B``.
    """

    score: str
    statistic: float
    p_value: float
    n_resamples: int


def _check_forecasts(y: Any, proba: Any) -> tuple[np.ndarray, np.ndarray]:
    """Binary outcomes (0/1 floats) and positive-class forecast probabilities.

    ``proba`` is 1-D (positive-class probability) or ``(n, 2)``; both classes must
    be present in ``y``.
    """
    x = check_binary_scores(proba, "proba")
    labels = check_labels(y, "y", n_classes=2)
    check_consistent_length(y=labels, proba=x)
    check_n_classes_present(labels, "y")
    return labels.astype(np.float64), x


def _pav(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """PAV recalibration of outcomes ``y`` on forecasts ``x``, one value per case."""
    from bayescal._kernels.isotonic import pooled_isotonic_fit

    thresholds, values = pooled_isotonic_fit(x, y, np.ones_like(x))
    # The fit keeps the first and last forecast of every constant block, so
    # interpolation returns the block's value at every observed forecast.
    return np.interp(x, thresholds, values)


def _pointwise_score(x: np.ndarray, y: np.ndarray, score: str) -> np.ndarray:
    """Score of forecast probabilities ``x`` for outcomes ``y`` (0 log 0 = 0)."""
    if score == "brier":
        return (x - y) ** 2
    with np.errstate(divide="ignore"):
        return -(xlogy(y, x) + xlogy(1.0 - y, 1.0 - x))


def _decompose(x: np.ndarray, y: np.ndarray, recal: np.ndarray, score: str) -> ScoreDecomposition:
    s_forecast = float(np.mean(_pointwise_score(x, y, score)))
    s_recal = float(np.mean(_pointwise_score(recal, y, score)))
    rate = np.full_like(x, np.mean(y))
    s_climate = float(np.mean(_pointwise_score(rate, y, score)))
    return ScoreDecomposition(
        score=score,
        mean_score=s_forecast,
        mcb=s_forecast - s_recal,
        dsc=s_climate - s_recal,
        unc=s_climate,
    )


def corp_recalibrate(y: Any, proba: Any) -> np.ndarray:
    """PAV-recalibrated probabilities of binary forecasts (the CORP curve at each case).

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcomes coded 0/1; both must occur.
    proba : array-like of shape (n,) or (n, 2)
        Forecast probabilities of class 1 (or a two-column probability array).

    Returns
    -------
    ndarray of shape (n,)
        The isotonic regression of ``y`` on ``proba`` evaluated at each case; cases
        with equal forecasts get equal values.

    Raises
    ------
    ValueError
        If ``y`` is not 0/1 or holds one class, ``proba`` has NaN/inf or values
        outside [0, 1], or the lengths differ.

    See Also
    --------
    corp_reliability : the curve with consistency bands.

    Notes
    -----
    The recalibrated value is
    :math:`\\hat x = \\arg\\min_{g \\text{ non-decreasing}} \\sum_i (g(x_i) - y_i)^2`,
    computed by pool-adjacent-violators with ties pooled (Dimitriadis et al., 2021).

    References
    ----------
    .. [1] Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable reliability
       diagrams for probabilistic classifiers. PNAS 118(8), e2016191118.

    Examples
    --------
    >>> corp_recalibrate([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.9]).tolist()
    [0.0, 0.5, 0.5, 1.0]
    """
    labels, x = _check_forecasts(y, proba)
    return _pav(x, labels)


def score_decomposition(y: Any, proba: Any, *, score: str = "brier") -> ScoreDecomposition:
    """CORP decomposition of the mean Brier or log score into MCB, DSC and UNC.

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcomes coded 0/1; both must occur.
    proba : array-like of shape (n,) or (n, 2)
        Forecast probabilities of class 1.
    score : {"brier", "log"}, default="brier"
        The scoring rule.

    Returns
    -------
    ScoreDecomposition
        ``mean_score``, ``mcb``, ``dsc`` and ``unc`` with
        ``mean_score == mcb - dsc + unc`` up to rounding.

    Raises
    ------
    ValueError
        On bad ``y``/``proba`` (see :func:`corp_recalibrate`) or an unknown ``score``.

    Notes
    -----
    With :math:`\\hat x_i` the PAV recalibration of the forecasts and
    :math:`\\bar y` the event rate,

    .. math::

        \\mathrm{MCB} = \\bar S(x) - \\bar S(\\hat x), \\quad
        \\mathrm{DSC} = \\bar S(\\bar y) - \\bar S(\\hat x), \\quad
        \\mathrm{UNC} = \\bar S(\\bar y),

    where :math:`\\bar S(f) = n^{-1} \\sum_i S(f_i, y_i)`. PAV minimises the mean of
    every proper scoring rule among non-decreasing recalibrations, so MCB and DSC are
    non-negative for both scores. Brier: :math:`S(p, y) = (p - y)^2`; log:
    :math:`S(p, y) = -y \\log p - (1 - y) \\log(1 - p)` with :math:`0 \\log 0 = 0`
    (a forecast of exactly 0 or 1 that misses gives an infinite log score and MCB).

    References
    ----------
    .. [1] Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable reliability
       diagrams for probabilistic classifiers. PNAS 118(8), e2016191118.

    Examples
    --------
    >>> d = score_decomposition([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.9])
    >>> round(d.mcb - d.dsc + d.unc, 12) == round(d.mean_score, 12)
    True
    >>> round(d.unc, 4)
    0.25
    """
    check_choice(score, "score", CORP_SCORES)
    labels, x = _check_forecasts(y, proba)
    return _decompose(x, labels, _pav(x, labels), score)


def _resampled_curves(x: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """PAV curves of outcomes drawn under calibration, ``y* ~ Bernoulli(x)``; (B, n)."""
    out = np.empty((n_resamples, x.shape[0]))
    for b in range(n_resamples):
        y_star = (rng.random(x.shape[0]) < x).astype(np.float64)
        out[b] = _pav(x, y_star)
    return out


def corp_reliability(
    y: Any,
    proba: Any,
    *,
    level: float = 0.9,
    band_method: str = "resampling",
    n_resamples: int = 1000,
    score: str = "brier",
    random_state: int | np.random.Generator | None = None,
) -> CORPReliability:
    """The CORP reliability curve with pointwise consistency bands.

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcomes coded 0/1; both must occur.
    proba : array-like of shape (n,) or (n, 2)
        Forecast probabilities of class 1.
    level : float, default=0.9
        Pointwise level of the consistency bands, in (0, 1).
    band_method : {"resampling", "asymptotic"}, default="resampling"
        ``"resampling"``: draw ``y* ~ Bernoulli(x)`` for the observed forecasts
        ``n_resamples`` times, recompute the PAV curve and take the pointwise
        ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles at every forecast
        value. ``"asymptotic"``: the normal approximation for discrete forecasts,
        :math:`x \\pm z \\sqrt{x (1 - x) / n_x}` with :math:`n_x` the number of cases
        sharing the forecast value, cut to [0, 1] (valid when every value is shared
        by many cases; for continuous forecasts use resampling).
    n_resamples : int, default=1000
        Number of resamples (``"resampling"`` only).
    score : {"brier", "log"}, default="brier"
        Scoring rule of the attached decomposition.
    random_state : int, numpy Generator or None, default=None
        Seed of the resampling.

    Returns
    -------
    CORPReliability

    Raises
    ------
    ValueError
        On bad ``y``/``proba`` (see :func:`corp_recalibrate`), ``level`` outside
        (0, 1), an unknown ``band_method`` or ``score``, or ``n_resamples < 1``.

    Notes
    -----
    The consistency band answers: where would the CORP curve lie if these forecasts
    were calibrated? A curve leaving the band at a forecast value is evidence of
    miscalibration there (pointwise, not simultaneous). The bands are those of the
    ``reliabilitydiag`` R package's resampling method with ``region.position =
    "diagonal"``.

    References
    ----------
    .. [1] Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable reliability
       diagrams for probabilistic classifiers. PNAS 118(8), e2016191118.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=300)
    >>> y = (rng.uniform(size=300) < p).astype(int)
    >>> curve = corp_reliability(y, p, n_resamples=200, random_state=1)
    >>> bool(np.all(curve.band_lower <= curve.band_upper))
    True
    """
    level = check_fraction(level, "level")
    check_choice(band_method, "band_method", BAND_METHODS)
    check_choice(score, "score", CORP_SCORES)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    labels, x = _check_forecasts(y, proba)
    recal = _pav(x, labels)
    forecast, first, count = np.unique(x, return_index=True, return_counts=True)
    alpha = (1.0 - level) / 2.0
    if band_method == "resampling":
        rng = np.random.default_rng(random_state)
        curves = _resampled_curves(x, n_resamples, rng)[:, first]
        lower, upper = np.quantile(curves, [alpha, 1.0 - alpha], axis=0)
        used = n_resamples
    else:
        from scipy.stats import norm

        half = norm.ppf(1.0 - alpha) * np.sqrt(forecast * (1.0 - forecast) / count)
        lower = np.maximum(forecast - half, 0.0)
        upper = np.minimum(forecast + half, 1.0)
        used = 0
    return CORPReliability(
        forecast=forecast,
        recalibrated=recal[first],
        count=count,
        band_lower=lower,
        band_upper=upper,
        level=level,
        band_method=band_method,
        n_resamples=used,
        decomposition=_decompose(x, labels, recal, score),
    )


def miscalibration_test(
    y: Any,
    proba: Any,
    *,
    score: str = "brier",
    n_resamples: int = 1000,
    random_state: int | np.random.Generator | None = None,
) -> MiscalibrationTest:
    """CORP test of calibration: MCB against its distribution under calibration.

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary outcomes coded 0/1; both must occur.
    proba : array-like of shape (n,) or (n, 2)
        Forecast probabilities of class 1.
    score : {"brier", "log"}, default="brier"
        Scoring rule whose MCB is the test statistic.
    n_resamples : int, default=1000
        Number of outcome vectors drawn under the hypothesis.
    random_state : int, numpy Generator or None, default=None
        Seed of the resampling.

    Returns
    -------
    MiscalibrationTest

    Raises
    ------
    ValueError
        On bad ``y``/``proba`` (see :func:`corp_recalibrate`), an unknown ``score`` or
        ``n_resamples < 1``.

    Notes
    -----
    Under the hypothesis of calibration, :math:`P(Y = 1 \\mid x) = x`, outcomes
    :math:`y^*_i \\sim \\mathrm{Bernoulli}(x_i)` are drawn ``B`` times and the MCB of
    each is computed; the p-value is :math:`(1 + \\#\\{b : \\mathrm{MCB}^*_b \\ge
    \\mathrm{MCB}\\}) / (B + 1)` (Dimitriadis et al., 2021, the score-decomposition
    test). Resampled outcome vectors with one class are kept: their PAV fit is the
    constant outcome and their MCB is well defined.

    References
    ----------
    .. [1] Dimitriadis, T., Gneiting, T. & Jordan, A. I. (2021). Stable reliability
       diagrams for probabilistic classifiers. PNAS 118(8), e2016191118.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=400)
    >>> y = (rng.uniform(size=400) < p ** 3).astype(int)  # over-confident forecasts
    >>> miscalibration_test(y, p, n_resamples=200, random_state=1).p_value < 0.01
    True
    """
    check_choice(score, "score", CORP_SCORES)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    labels, x = _check_forecasts(y, proba)
    observed = _decompose(x, labels, _pav(x, labels), score).mcb
    rng = np.random.default_rng(random_state)
    exceed = 0
    for _ in range(n_resamples):
        y_star = (rng.random(x.shape[0]) < x).astype(np.float64)
        mcb_star = _decompose(x, y_star, _pav(x, y_star), score).mcb
        exceed += int(mcb_star >= observed)
    return MiscalibrationTest(
        score=score,
        statistic=observed,
        p_value=(1 + exceed) / (n_resamples + 1),
        n_resamples=n_resamples,
    )
