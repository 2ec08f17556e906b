"""Isotonic calibration: the pool-adjacent-violators fit of a monotone map."""

from __future__ import annotations

import numpy as np
from scipy.optimize import isotonic_regression
from sklearn.utils._param_validation import StrOptions

from bayescal.calibration._interp import interp, interp_proba
from bayescal.calibration.base import BinaryCalibrator
from bayescal.validation import describe_bad_values, input_constraint

__all__ = ["IsotonicCalibrator", "pool_tied_scores", "pooled_isotonic_fit"]


#: From this many scores :func:`pooled_isotonic_fit` sorts, pools and runs PAV in
#: numba kernels (:mod:`bayescal.calibration._sort_kernel`,
#: :mod:`bayescal.calibration._pava_kernel`); below, in NumPy and SciPy.
KERNEL_MIN_SCORES = 50_000


def pool_tied_scores(
    scores: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray,
    *,
    kernel: bool | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct scores with their summed weight and summed ``weight * target``.

    Parameters
    ----------
    scores, targets, weights : ndarray of shape (n,)
        Validated scores, targets in [0, 1] and non-negative weights.
    kernel : bool, optional
        Force (True) or forbid (False) the numba kernel
        (:func:`bayescal.calibration._sort_kernel.sort_and_pool`); by default
        it runs from :data:`KERNEL_MIN_SCORES` scores. Otherwise
        ``np.argsort`` and :func:`numpy.add.reduceat`.

    Returns
    -------
    thresholds : ndarray of shape (m,)
        Distinct scores with positive total weight, increasing.
    weight_sum, target_sum : ndarray of shape (m,)
        Their summed weights (counts for unit weights) and weighted targets;
        equal on both paths up to the order of the adds inside a tie.
    """
    if kernel is None:
        kernel = scores.shape[0] >= KERNEL_MIN_SCORES
    unit = bool(np.all(weights == 1.0))
    if kernel:
        from bayescal.calibration._sort_kernel import sort_and_pool

        return sort_and_pool(scores, targets, weights, unit)
    keep = weights > 0
    if not keep.all():
        scores, targets, weights = scores[keep], targets[keep], weights[keep]
    order = np.argsort(scores)  # ties are pooled, so stability is not needed
    s = scores[order]
    starts = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    if unit:  # unit weights: group sizes instead of weight sums
        w_sum = np.diff(np.append(starts, s.shape[0])).astype(np.float64)
        wt = targets[order]
    else:
        w = weights[order]
        w_sum = np.add.reduceat(w, starts)
        wt = w * targets[order]
    return s[starts], w_sum, np.add.reduceat(wt, starts)


def pooled_isotonic_fit(
    scores: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray,
    *,
    increasing: bool = True,
    kernel: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted isotonic regression of ``targets`` on ``scores`` with tied scores pooled.

    Parameters
    ----------
    scores, targets, weights : ndarray of shape (n,)
        Validated scores, targets in [0, 1] and non-negative weights.
    increasing : bool, default=True
        Direction of the monotone constraint.
    kernel : bool, optional
        Force (True) or forbid (False) the numba kernels; by default they run
        from :data:`KERNEL_MIN_SCORES` scores. Both give the same map (up to
        rounding in the last bits of the block means).

    Returns
    -------
    thresholds : ndarray of shape (m,)
        Sorted distinct scores at which the fitted value changes, together
        with the first and last score of every constant block (interior points
        of a block are dropped: they do not change the interpolant).
    values : ndarray of shape (m,)
        Fitted values at ``thresholds``.

    Notes
    -----
    Tied scores are pooled first into one point with their summed weight and
    weighted mean target (scikit-learn's ``IsotonicRegression`` does the same);
    samples of zero weight are dropped. The pooled points are then fitted by
    weighted PAV (:func:`scipy.optimize.isotonic_regression`).

    The kernels avoid ``np.argsort``, which costs several sorts of
    float64 here: for 0/1 targets and unit weights each label is packed into
    the lowest bit of an order-preserving integer key of the score, the keys
    are sorted by ``np.sort`` and one pass pools ties and runs PAV; otherwise
    the sample index is packed into the keys instead
    (:func:`bayescal.calibration._sort_kernel.sort_and_pool`).
    """
    if kernel is None:
        kernel = scores.shape[0] >= KERNEL_MIN_SCORES
    if kernel:
        return _kernel_isotonic_fit(scores, targets, weights, increasing)
    x, w_sum, wt_sum = pool_tied_scores(scores, targets, weights, kernel=False)
    y_mean = wt_sum / w_sum
    fitted = isotonic_regression(y_mean, weights=w_sum, increasing=increasing).x
    if fitted.shape[0] > 2:
        inner = (fitted[1:-1] != fitted[:-2]) | (fitted[1:-1] != fitted[2:])
        mask = np.concatenate([[True], inner, [True]])
        x, fitted = x[mask], fitted[mask]
    return x, np.clip(fitted, 0.0, 1.0)


def _kernel_isotonic_fit(
    scores: np.ndarray, targets: np.ndarray, weights: np.ndarray, increasing: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The numba path of :func:`pooled_isotonic_fit` (imported on first use)."""
    from bayescal.calibration._pava_kernel import pava_knots, pava_knots_binary_keys
    from bayescal.calibration._sort_kernel import sort_and_pool, sorted_binary_keys

    scores = np.ascontiguousarray(scores, dtype=np.float64)
    targets = np.ascontiguousarray(targets, dtype=np.float64)
    unit = bool(np.all(weights == 1.0))
    if unit:
        sorted_keys = sorted_binary_keys(scores, targets)
        if sorted_keys is not None:
            return pava_knots_binary_keys(*sorted_keys, bool(increasing))
    x, w_sum, wt_sum = sort_and_pool(scores, targets, weights, unit)
    return pava_knots(x, w_sum, wt_sum, bool(increasing))


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
        step function, the form used in seed ``004``, Section 3.1.3).

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
    (seed ``004``, Section 2.1.2), solved by the pool-adjacent-violators
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
