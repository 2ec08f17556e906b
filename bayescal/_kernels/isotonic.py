"""The pool-adjacent-violators fit with tied scores pooled: bayescal's one PAV.

A low-level kernel module (NumPy, SciPy and bayescal's numba kernels only), in
a package whose ``__init__`` imports nothing, so that
:class:`~bayescal.calibration.IsotonicCalibrator`, ENIR (its tie pooling) and the
CORP reliability diagram (:mod:`bayescal.metrics.corp`) use it without the metrics
layer importing the calibration package.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import isotonic_regression

__all__ = ["KERNEL_MIN_SCORES", "pool_tied_scores", "pooled_isotonic_fit"]


#: From this many scores :func:`pooled_isotonic_fit` sorts, pools and runs PAV in
#: numba kernels (:mod:`bayescal._kernels.sorting`,
#: :mod:`bayescal._kernels.pava`); below, in NumPy and SciPy.
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
        (:func:`bayescal._kernels.sorting.sort_and_pool`); by default
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
        from bayescal._kernels.sorting import sort_and_pool

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
    (:func:`bayescal._kernels.sorting.sort_and_pool`).
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
    from bayescal._kernels.pava import pava_knots, pava_knots_binary_keys
    from bayescal._kernels.sorting import sort_and_pool, sorted_binary_keys

    scores = np.ascontiguousarray(scores, dtype=np.float64)
    targets = np.ascontiguousarray(targets, dtype=np.float64)
    unit = bool(np.all(weights == 1.0))
    if unit:
        sorted_keys = sorted_binary_keys(scores, targets)
        if sorted_keys is not None:
            return pava_knots_binary_keys(*sorted_keys, bool(increasing))
    x, w_sum, wt_sum = sort_and_pool(scores, targets, weights, unit)
    return pava_knots(x, w_sum, wt_sum, bool(increasing))
