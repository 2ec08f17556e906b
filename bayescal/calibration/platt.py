"""Platt scaling: a logistic regression of the outcome on the score or its logit."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from bayescal.calibration._logistic import (
    check_clip,
    fit_logistic,
    intercept_design,
    open_unit_scores,
)
from bayescal.calibration.base import BinaryCalibrator
from bayescal.validation import check_choice, check_positive_int

__all__ = ["PlattCalibrator", "platt_targets", "score_feature"]

#: Values accepted by the ``input`` parameter of the logistic-family calibrators.
FEATURE_INPUTS = ("score", "logit")


def score_feature(scores: np.ndarray, input: str, clip: float | None, owner: str) -> np.ndarray:
    """The covariate a logistic-family calibrator regresses on.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Validated scores in [0, 1].
    input : {"score", "logit"}
        ``"score"``: the score itself; ``"logit"``: ``log(s / (1 - s))``.
    clip : float or None
        See :func:`bayescal.calibration._logistic.open_unit_scores`.
    owner : str
        Calibrator name for error messages.

    Returns
    -------
    ndarray of shape (n,)
    """
    if input == "score":
        return scores
    s = open_unit_scores(scores, clip, owner)
    return np.log(s) - np.log1p(-s)


def platt_targets(targets: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Platt's (1999) smoothed targets, extended to fractional targets.

    A positive becomes ``t+ = (N+ + 1) / (N+ + 2)`` and a negative
    ``t- = 1 / (N- + 2)``, with ``N+ = sum_i w_i t_i`` and
    ``N- = sum_i w_i (1 - t_i)`` (weighted counts, as scikit-learn's
    ``_sigmoid_calibration``). A fractional target ``t`` becomes the mixture
    ``t t+ + (1 - t) t-``, which reduces to the above for 0/1 labels.

    Parameters
    ----------
    targets : ndarray of shape (n,)
        Targets in [0, 1].
    weights : ndarray of shape (n,)
        Sample weights.

    Returns
    -------
    ndarray of shape (n,)
    """
    n_pos = float(np.dot(weights, targets))
    n_neg = float(np.dot(weights, 1.0 - targets))
    t_pos = (n_pos + 1.0) / (n_pos + 2.0)
    t_neg = 1.0 / (n_neg + 2.0)
    return t_neg + targets * (t_pos - t_neg)


class _ScoreFeatureCalibrator(BinaryCalibrator):
    """A calibrator that regresses on :func:`score_feature` of probability scores.

    Subclasses have the parameters ``input`` (``"score"`` or ``"logit"``) and
    ``clip``, call ``_check_feature_params()`` first in ``_fit`` and use
    ``_feature(scores)`` as their covariate.
    """

    def _input_kind(self) -> str:
        # Scores are probabilities for both settings of ``input``.
        return "score"

    def _check_feature_params(self) -> None:
        check_choice(self.input, "input", FEATURE_INPUTS)
        check_clip(self.clip)

    def _feature(self, scores: np.ndarray) -> np.ndarray:
        return score_feature(scores, self.input, self.clip, type(self).__name__)


class PlattCalibrator(_ScoreFeatureCalibrator):
    """Platt scaling (logistic calibration), on the score or on its logit.

    Parameters
    ----------
    input : {"score", "logit"}, default="score"
        Covariate of the logistic regression: the score ``s`` itself
        (traditional Platt scaling) or ``log(s / (1 - s))`` ("Platt with
        logit", seed ``004``; identical to beta calibration with ``a = b``).
        Scores are always probabilities in [0, 1].
    target_smoothing : bool, default=True
        Use Platt's (1999) smoothed targets ``t+ = (N+ + 1)/(N+ + 2)``,
        ``t- = 1/(N- + 2)`` (as scikit-learn's sigmoid calibration does), or
        the plain 0/1 (or fractional) targets when False (plain logistic
        regression, the variant of seed ``004``).
    clip : float or None, default=None
        Only for ``input="logit"``. ``None``: a score of exactly 0 or 1 (whose
        logit is infinite) raises a ``ValueError`` in ``fit`` and
        ``predict_proba``. A float ``eps`` in (0, 0.5): scores are clipped to
        ``[eps, 1 - eps]`` before the logit is taken.
    max_iter : int, default=100
        Most Newton iterations.

    Attributes
    ----------
    slope_ : float
        Fitted coefficient ``beta_1`` of the covariate.
    intercept_ : float
        Fitted intercept ``beta_0``.
    n_iter_ : int
        Newton iterations used.
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.

    Raises
    ------
    ValueError
        From ``fit``: single-class targets, bad scores, mismatched lengths; a
        score of 0 or 1 with ``input="logit"`` and ``clip=None``.

    Notes
    -----
    The calibration map is (seed ``004``, Eq. 2-3)

    .. math:: \\hat p = \\sigma(\\beta_0 + \\beta_1 x), \\qquad
              x = s \\text{ or } \\log\\frac{s}{1-s},

    with ``(beta_0, beta_1)`` minimising the weighted log-loss
    ``-sum_i w_i [t_i log p_i + (1 - t_i) log(1 - p_i)]``. Sample weights
    multiply each term; fractional targets enter the loss directly (and are
    mixed between ``t+`` and ``t-`` under smoothing, see :func:`platt_targets`).
    The fit is a damped Newton iteration on the exact Hessian (Lin, Lin & Weng
    2007), started at Platt's initial point; it converges to machine
    precision. Perfectly separable data has no finite optimum without target
    smoothing: the fit stops after ``max_iter`` with a ``ConvergenceWarning``.

    With a perfect base model after undersampling the true map is linear in the
    logit (seed ``004``, Eq. 4), so ``input="logit"`` is exact there while
    ``input="score"`` cannot be (its Theorem 1).

    References
    ----------
    Platt, J. (1999). Probabilistic outputs for support vector machines and
    comparisons to regularized likelihood methods. *Advances in Large Margin
    Classifiers*, 61-74.

    Lin, H.-T., Lin, C.-J. & Weng, R. C. (2007). A note on Platt's probabilistic
    outputs for support vector machines. *Machine Learning*, 68(3), 267-276.

    Phelps, N., Lizotte, D. J. & Woolford, D. G. (2024). Using Platt's scaling
    for calibration after undersampling (seed ``004``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=500)
    >>> y = (rng.uniform(size=500) < s).astype(int)
    >>> cal = PlattCalibrator(input="logit").fit(s, y)
    >>> cal.predict_proba([0.2, 0.8]).shape
    (2, 2)
    """

    def __init__(
        self,
        *,
        input: str = "score",
        target_smoothing: bool = True,
        clip: float | None = None,
        max_iter: int = 100,
    ) -> None:
        self.input = input
        self.target_smoothing = target_smoothing
        self.clip = clip
        self.max_iter = max_iter

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        self._check_feature_params()
        check_choice(self.target_smoothing, "target_smoothing", (True, False))
        check_positive_int(self.max_iter, "max_iter")
        x = self._feature(scores)
        t = platt_targets(targets, weights) if self.target_smoothing else targets
        design = intercept_design(x)
        n_pos = float(np.dot(weights, targets))
        n_neg = float(np.sum(weights)) - n_pos
        start = np.array([np.log((n_pos + 1.0) / (n_neg + 1.0)), 0.0])
        fit = fit_logistic(design, t, weights, coef_init=start, max_iter=self.max_iter)
        self.intercept_ = float(fit.coef[0])
        self.slope_ = float(fit.coef[1])
        self.n_iter_ = fit.n_iter

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        return expit(self.intercept_ + self.slope_ * self._feature(scores))
