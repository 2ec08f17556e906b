"""Isotonic calibration: the pool-adjacent-violators fit of a monotone map."""

from __future__ import annotations

import numpy as np

from bayescal._compat.param_validation import StrOptions
from bayescal._kernels.isotonic import pooled_isotonic_fit
from bayescal.calibration._interp import interp, interp_proba
from bayescal.calibration.base import BinaryCalibrator
from bayescal.contracts import input_constraint
from bayescal.validation import describe_bad_values

__all__ = ["IsotonicCalibrator"]


class IsotonicCalibrator(BinaryCalibrator):
    """Isotonic-regression calibration (Zadrozny & Elkan 2002), fitted by PAV.

    Parameters
    ----------
    input : {"score", "decision"}, default="score"
        What the scores are: probabilities in [0, 1] (``"score"``) or any real
        numbers such as an SVM's ``decision_function`` (``"decision"``). The
        map only uses the order of the scores, so both are fitted alike.
    increasing : bool, default=True
        Fit a non-decreasing map (False: non-increasing).
    out_of_bounds : {"clip", "raise"}, default="clip"
        What ``predict_proba`` does with a score outside the range of the
        calibration scores: ``"clip"`` returns the value at the nearest end
        (the map is constant beyond its range), ``"raise"`` raises a
        ``ValueError``.
    interpolation : {"linear", "step"}, default="linear"
        Between fitted points: ``"linear"`` interpolates linearly (as
        scikit-learn's ``IsotonicRegression``); ``"step"`` returns the value of
        the largest calibration score not above the score (a right-continuous
        step function, the form used in Phelps et al. (2024), Section 3.1.3).

    Attributes
    ----------
    thresholds_ : ndarray of shape (m,)
        Sorted calibration scores that define the map.
    values_ : ndarray of shape (m,)
        Fitted probabilities at ``thresholds_`` (monotone).
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.

    Raises
    ------
    ValueError
        Single-class targets, bad scores or lengths (from ``fit``); a score out
        of the calibration range with ``out_of_bounds="raise"``.

    Notes
    -----
    The map minimises ``sum_i w_i (t_i - f(s_i))^2`` over non-decreasing ``f``
    (Phelps et al. 2024, Section 2.1.2), solved by the pool-adjacent-violators
    algorithm (Ayer et al. 1955) in :func:`pooled_isotonic_fit`. **Ties**: all
    samples with the same score are pooled into one point (summed weight,
    weighted mean target) before PAV, so tied scores always receive one value.
    **Weights and fractional targets** enter the weighted least-squares
    objective directly (weighted PAV). With ``interpolation="linear"`` and
    ``out_of_bounds="clip"`` the map equals scikit-learn's
    ``IsotonicRegression(out_of_bounds="clip")``, which
    ``CalibratedClassifierCV(method="isotonic")`` uses.

    References
    ----------
    Zadrozny, B. & Elkan, C. (2002). Transforming classifier scores into
    accurate multiclass probability estimates. *KDD*, 694-699.

    Ayer, M., Brunk, H. D., Ewing, G. M., Reid, W. T. & Silverman, E. (1955).
    An empirical distribution function for sampling with incomplete
    information. *Ann. Math. Statist.*, 26(4), 641-647.

    Examples
    --------
    >>> import numpy as np
    >>> cal = IsotonicCalibrator().fit([0.1, 0.3, 0.5, 0.7], [0, 1, 0, 1])
    >>> cal.predict_proba([0.1, 0.4, 0.9])[:, 1].round(3).tolist()
    [0.0, 0.5, 1.0]
    """

    # scores are only read (sorted into new arrays, interpolated), never
    # written or kept
    _copy_scores = False

    _parameter_constraints: dict = {
        "input": input_constraint("score", "decision"),
        "increasing": ["boolean"],
        "out_of_bounds": [StrOptions({"clip", "raise"})],
        "interpolation": [StrOptions({"linear", "step"})],
    }

    def __init__(
        self,
        *,
        input: str = "score",
        increasing: bool = True,
        out_of_bounds: str = "clip",
        interpolation: str = "linear",
    ) -> None:
        self.input = input
        self.increasing = increasing
        self.out_of_bounds = out_of_bounds
        self.interpolation = interpolation

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        self.thresholds_, self.values_ = pooled_isotonic_fit(
            scores, targets, weights, increasing=bool(self.increasing)
        )

    def _proba_of_valid_scores(self, scores: np.ndarray) -> np.ndarray:
        if self.interpolation == "linear" and self.out_of_bounds == "clip":
            return interp_proba(scores, self.thresholds_, self.values_)
        return super()._proba_of_valid_scores(scores)

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        x, y = self.thresholds_, self.values_
        if self.out_of_bounds == "raise":
            bad = (scores < x[0]) | (scores > x[-1])
            if bad.any():
                raise ValueError(
                    f"`scores` must lie in the calibration range [{x[0]!r}, {x[-1]!r}] when "
                    f"out_of_bounds='raise'; {describe_bad_values(scores, bad)} lie outside. "
                    "Use out_of_bounds='clip' to extend the map as a constant."
                )
        if self.interpolation == "linear":
            return interp(scores, x, y)
        idx = np.searchsorted(x, scores, side="right") - 1
        return y[np.maximum(idx, 0)]
