"""Beta calibration (Kull, Silva Filho & Flach 2017)."""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

from bayescal._compat.param_validation import Interval, StrOptions
from bayescal.calibration._logistic import fit_logistic, intercept_design
from bayescal.calibration.base import BinaryCalibrator
from bayescal.calibration.clip_sensitivity import (
    ClipSensitivity,
    ClipSensitivityWarning,
    clip_sensitivity,
)
from bayescal.clipping import DEFAULT_CLIP, bounded_expit, clip_constraint, clip_probabilities

__all__ = ["BetaCalibrator", "BETA_PARAMETERS", "beta_clip_sensitivity"]

#: Values accepted by ``parameters``.
BETA_PARAMETERS = ("abm", "am", "ab")


def _midpoint(a: float, b: float, c: float) -> float:
    """Score ``m`` where the map crosses 1/2: ``a ln m - b ln(1 - m) + c = 0``."""

    def g(z: float) -> float:  # on the logit scale of m, for a well-bracketed root
        return a * -np.logaddexp(0.0, -z) - b * -np.logaddexp(0.0, z) + c

    lo, hi = -745.0, 745.0
    glo, ghi = g(lo), g(hi)
    if not (np.isfinite(glo) and np.isfinite(ghi)) or glo * ghi > 0:
        return float("nan")
    return float(expit(brentq(g, lo, hi, xtol=1e-14, rtol=1e-15)))


def _beta_features(scores: np.ndarray, clip: float | None) -> tuple[np.ndarray, np.ndarray, int]:
    """``(ln s, -ln(1 - s), n_clipped)`` after bayescal's one clip rule."""
    s, n_clipped = clip_probabilities(scores, clip, owner="BetaCalibrator")
    return np.log(s), -np.log1p(-s), n_clipped


def _fit_beta_map(
    scores: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray,
    parameters: str,
    clip: float | None,
    max_iter: int,
) -> tuple[tuple[float, float, float], int]:
    """Maximum-likelihood ``(a, b, c)`` of the beta map (see :class:`BetaCalibrator`)."""
    log_s, neg_log_1ms, n_clipped = _beta_features(scores, clip)

    def fit(*columns: np.ndarray, intercept: bool = True) -> np.ndarray:
        design = intercept_design(*columns)
        if not intercept:
            design = design[:, 1:]
        return fit_logistic(design, targets, weights, max_iter=max_iter).coef

    if parameters == "abm":
        c, a, b = fit(log_s, neg_log_1ms)
        if a < 0:
            c, b = fit(neg_log_1ms)
            a = 0.0
        elif b < 0:
            c, a = fit(log_s)
            b = 0.0
        if a < 0 or b < 0:  # the intercept-only model: the base rate
            rate = float(np.dot(weights, targets) / np.sum(weights))
            c = float(np.log(rate) - np.log1p(-rate))
            a = b = 0.0
    elif parameters == "am":
        c, a = fit(log_s + neg_log_1ms)
        b = a
    else:  # "ab": logit = a ln(2s) - b ln(2(1 - s)), no intercept (betacal)
        a, b = fit(log_s + np.log(2.0), neg_log_1ms - np.log(2.0), intercept=False)
        c = np.log(2.0) * (a - b)
    return (float(a), float(b), float(c)), n_clipped


def _beta_proba(
    scores: np.ndarray, coef: tuple[float, float, float], clip: float | None
) -> np.ndarray:
    """Class-1 probabilities ``sigma(a ln s - b ln(1 - s) + c)`` of the beta map."""
    a, b, c = coef
    log_s, neg_log_1ms, _ = _beta_features(scores, clip)
    return bounded_expit(a * log_s + b * neg_log_1ms + c)


def beta_clip_sensitivity(
    scores: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray,
    clip: float | None,
    parameters: str = "abm",
    max_iter: int = 100,
    coef: tuple[float, float, float] | None = None,
) -> ClipSensitivity | None:
    """How far the maximum-likelihood beta map moves when only ``clip`` changes.

    The beta map's features ``ln s`` and ``-ln(1 - s)`` of a score clipped to
    ``clip`` or ``1 - clip`` are set by the clip; when many calibration
    scores are clipped the fit is too. The map is refitted at
    :func:`~bayescal.calibration.clip_sensitivity.alternative_clip` and the two
    fits' probabilities on the calibration scores are compared
    (:func:`~bayescal.calibration.clip_sensitivity.clip_sensitivity`). Used by
    :class:`BetaCalibrator` and the Bayesian beta map (whose likelihood is the
    same).

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Validated calibration scores in [0, 1].
    targets, weights : ndarray of shape (n,)
        Targets in [0, 1] and non-negative weights.
    clip : float or None
        The fit's clip (None: nothing clipped, returns None).
    parameters : {"abm", "am", "ab"}, default="abm"
    max_iter : int, default=100
    coef : tuple of float, optional
        ``(a, b, c)`` of the caller's own fit at ``clip`` (then only the map at the
        other clip is fitted); default: fitted here.

    Returns
    -------
    ClipSensitivity or None
    """

    def fit_predict(value: float) -> np.ndarray:
        fitted, _ = _fit_beta_map(scores, targets, weights, parameters, value, max_iter)
        return _beta_proba(scores, fitted, value)

    own = None if coef is None or clip is None else _beta_proba(scores, coef, clip)
    return clip_sensitivity(fit_predict, scores, weights, clip, fitted=own)



class BetaCalibrator(BinaryCalibrator):
    """Beta calibration: logistic regression on ``ln s`` and ``-ln(1 - s)``.

    Parameters
    ----------
    parameters : {"abm", "am", "ab"}, default="abm"
        ``"abm"``: the full three-parameter family; ``"am"``: ``a = b`` (a
        logistic fit on ``logit(s)``, i.e. Platt with logit); ``"ab"``: the
        midpoint fixed at ``m = 1/2``.
    clip : float or None, default=1e-12
        bayescal's one clip rule (:func:`bayescal.clipping.clip_probabilities`):
        a float ``eps`` in (0, 0.5) clips scores to ``[eps, 1 - eps]`` before
        the logs (``n_clipped_`` counts them; the ``betacal`` package always
        clips at machine epsilon); ``None`` is strict, a score of exactly 0 or
        1 (whose log is infinite) raises a ``ValueError`` in ``fit`` and
        ``predict_proba``. Beta calibration models probabilities (its map is a
        family of ratios of beta densities on (0, 1)): decision values
        (``SVC.decision_function``) are rejected with a ``ValueError``;
        calibrate them with ``PlattCalibrator(input="decision")``.
    max_iter : int, default=100
        Most Newton iterations per logistic fit.

    Attributes
    ----------
    a_, b_ : float
        Shape parameters (``a_ = b_`` for ``"am"``); both are >= 0 for
        ``"abm"``.
    c_ : float
        Intercept of the linear predictor.
    m_ : float
        Midpoint: the score mapped to 1/2 (always 1/2 for ``"ab"``; NaN when
        the map never crosses 1/2, e.g. a constant map with ``a_ = b_ = 0``).
    n_clipped_ : int
        Calibration scores moved by ``clip``.
    clip_sensitivity_ : float
        Mean absolute change of the calibrated probabilities on the
        calibration scores when the map is refitted with the other clip
        convention (see Notes); 0 when no score is near 0 or 1.
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.

    Raises
    ------
    ValueError
        Single-class targets, bad scores or lengths, scores outside [0, 1]
        (decision values); a score of 0 or 1 with ``clip=None``.

    Warns
    -----
    ClipSensitivityWarning
        When the fit depends materially on the clip convention
        (``clip_sensitivity_`` above
        :data:`~bayescal.calibration.clip_sensitivity.CLIP_SENSITIVITY_MAX`).

    Notes
    -----
    The map (Kull et al. 2017, Eq. 5) is

    .. math:: \\mu(s; a, b, c) = \\sigma\\left(a \\ln s - b \\ln(1 - s) + c\\right),
              \\qquad c = b \\ln(1 - m) - a \\ln m,

    fitted as a weighted logistic regression on the features ``ln s`` and
    ``-ln(1 - s)`` (``"abm"``); ``"am"`` regresses on ``ln(s / (1 - s))``
    with an intercept, ``"ab"`` on ``ln 2s`` and ``ln 2(1 - s)`` without one
    (as the authors' ``betacal`` package). Weights and fractional targets enter
    the weighted log-loss directly. The fit is the exact maximum-likelihood
    estimate by Newton's method (``betacal`` uses scikit-learn's
    ``LogisticRegression`` with ``C=1e11`` and its default tolerance).

    **Constraint** (``"abm"``, Section 3.3 of the paper): the map is monotone
    non-decreasing only if ``a, b >= 0``. If the fit gives ``a < 0`` it is
    refitted on ``-ln(1 - s)`` alone with ``a = 0``; else if ``b < 0`` on
    ``ln s`` alone with ``b = 0``. If that single remaining coefficient is
    negative too, the intercept-only model is used (``a = b = 0``, the map is
    the base rate); ``betacal`` would keep the negative coefficient.

    **Saturated scores.** A score of exactly 0 or 1 has an infinite log, so
    it enters the fit at the clip, ``ln(clip)``; the clip is a convention
    (bayescal ``1e-12``, ``betacal`` machine epsilon ``2.2e-16``). Naive Bayes
    on many features returns exact 0 and 1 for most rows, and then the fit
    depends on that convention: on 333 calibration rows of spambase (92 %
    saturated) the two clips gave test Brier scores 0.016 apart, in the one
    direction there and in the other on random-forest scores of other data
    sets. ``fit`` therefore refits the map at the other convention
    (:func:`beta_clip_sensitivity`), records the mean change of the
    calibrated probabilities in ``clip_sensitivity_``, and warns when it is
    material -- the map's probabilities are then uncertain by that much for a
    reason no amount of fitting removes.

    References
    ----------
    Kull, M., Silva Filho, T. & Flach, P. (2017). Beta calibration: a
    well-founded and easily implemented improvement on logistic calibration
    for binary classifiers. *AISTATS*, PMLR 54, 623-631.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> s = rng.uniform(0.01, 0.99, size=400)
    >>> y = (rng.uniform(size=400) < s).astype(int)
    >>> cal = BetaCalibrator().fit(s, y)
    >>> bool(cal.a_ >= 0 and cal.b_ >= 0)
    True
    """

    _parameter_constraints: dict = {
        "parameters": [StrOptions(set(BETA_PARAMETERS))],
        "clip": clip_constraint(),
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    _decision_remedy = (
        "Beta calibration needs probabilities (it takes log s and log(1 - s)); for "
        "decision values use PlattCalibrator(input='decision') or another calibrator "
        "that accepts input='decision', or give the classifier predict_proba."
    )

    def __init__(
        self, *, parameters: str = "abm", clip: float | None = DEFAULT_CLIP, max_iter: int = 100
    ) -> None:
        self.parameters = parameters
        self.clip = clip
        self.max_iter = max_iter

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        (self.a_, self.b_, self.c_), self.n_clipped_ = _fit_beta_map(
            scores, targets, weights, self.parameters, self.clip, int(self.max_iter)
        )
        self.m_ = 0.5 if self.parameters == "ab" else _midpoint(self.a_, self.b_, self.c_)
        sensitivity = beta_clip_sensitivity(
            scores, targets, weights, self.clip, self.parameters, int(self.max_iter),
            coef=(self.a_, self.b_, self.c_),
        )
        self.clip_sensitivity_ = 0.0 if sensitivity is None else sensitivity.mean_change
        if sensitivity is not None and sensitivity.material:
            warnings.warn(
                f"{sensitivity.describe('BetaCalibrator')}. {sensitivity.remedy}",
                ClipSensitivityWarning,
                stacklevel=3,
            )

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        return _beta_proba(scores, (self.a_, self.b_, self.c_), self.clip)
