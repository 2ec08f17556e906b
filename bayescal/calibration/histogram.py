"""Histogram binning calibration: a bin's value is its positive fraction."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real
from typing import Any

import numpy as np

from bayescal._compat.param_validation import Interval, StrOptions, validate_params
from bayescal.calibration.base import BinaryCalibrator
from bayescal.contracts import input_constraint
from bayescal.metrics.binning import BINNING_STRATEGIES, assign_bins_compact, bin_edges
from bayescal.validation import in_unit_interval

__all__ = [
    "EMPTY_BIN_RULES",
    "HistogramBinningCalibrator",
    "histogram_bin_sums",
    "histogram_bin_proba",
]

#: Named rules for the value of a bin that holds no calibration sample.
EMPTY_BIN_RULES = ("interpolate", "prior", "center")

#: From this many scores, equal-width bins are counted and looked up by the
#: one-pass numba kernels of :mod:`bayescal.metrics._binning_kernel` (the
#: same bins and sums as the NumPy path below).
KERNEL_MIN_SCORES = 50_000


def _use_kernel(n: int, strategy: str, kernel: bool | None) -> bool:
    if strategy != "uniform":
        return False
    return n >= KERNEL_MIN_SCORES if kernel is None else bool(kernel)


def histogram_bin_sums(
    scores: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray,
    edges: np.ndarray,
    *,
    unit: bool,
    uniform: bool,
    kernel: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-bin summed weight and summed ``weight * target`` (right-closed bins).

    Parameters
    ----------
    scores, targets, weights : ndarray of shape (n,)
        Validated samples; ``targets`` float64 or int64 (0/1 labels, counted
        as they are: no float copy), ``weights`` may be None when ``unit``.
    edges : ndarray of shape (M + 1,)
        Non-decreasing bin edges (:func:`bayescal.metrics.binning.bin_edges`).
    unit : bool
        All weights are one (plain counts).
    uniform : bool
        The edges are equal-width (allows the one-pass kernel).
    kernel : bool, optional
        Force (True) or forbid (False) the numba kernel for uniform edges; by
        default it runs from :data:`KERNEL_MIN_SCORES` scores.

    Returns
    -------
    w_bin, wt_bin : ndarray of shape (M,)
        Identical on both paths (the kernel adds in input order, as
        ``np.bincount``).
    """
    n_bins = edges.shape[0] - 1
    if _use_kernel(scores.shape[0], "uniform" if uniform else "quantile", kernel):
        from bayescal.metrics._binning_kernel import bin_scale, histogram_sums

        if targets.dtype != np.int64:
            targets = np.ascontiguousarray(targets, dtype=np.float64)
        return histogram_sums(
            np.ascontiguousarray(scores, dtype=np.float64),
            np.ascontiguousarray(targets),
            np.empty(0) if unit else np.ascontiguousarray(weights, dtype=np.float64),
            bool(unit),
            edges,
            bin_scale(edges),
        )
    idx = assign_bins_compact(scores, edges)
    if unit:  # plain counts: one pass less than weighted sums
        w_bin = np.bincount(idx, minlength=n_bins).astype(np.float64)
        wt_bin = np.bincount(idx, weights=targets, minlength=n_bins)
    else:
        w_bin = np.bincount(idx, weights=weights, minlength=n_bins)
        wt_bin = np.bincount(idx, weights=weights * targets, minlength=n_bins)
    return w_bin, wt_bin


def histogram_bin_proba(
    scores: np.ndarray,
    edges: np.ndarray,
    values: np.ndarray,
    *,
    uniform: bool,
    kernel: bool | None = None,
) -> np.ndarray:
    """Rows ``[1 - v, v]`` with ``v = values[bin of each score]``, shape ``(n, 2)``.

    See :func:`histogram_bin_sums` for the arguments; the kernel writes both
    columns in one pass, the NumPy path stacks them (identical values).
    """
    if _use_kernel(scores.shape[0], "uniform" if uniform else "quantile", kernel):
        from bayescal.metrics._binning_kernel import bin_scale, histogram_lookup

        scores = np.ascontiguousarray(scores, dtype=np.float64)
        out = np.empty((scores.shape[0], 2))
        return histogram_lookup(scores, edges, bin_scale(edges), values, out)
    p = values[assign_bins_compact(scores, edges)]
    return np.column_stack([1.0 - p, p])


class HistogramBinningCalibrator(BinaryCalibrator):
    """Histogram binning (Zadrozny & Elkan 2001).

    Parameters
    ----------
    input : {"score", "decision"}, default="score"
        What the scores are: probabilities in [0, 1], binned over [0, 1]
        (``"score"``), or any real numbers such as an SVM's
        ``decision_function`` (``"decision"``), binned over the observed range
        of the calibration scores (a new score beyond it gets the value of the
        first or last bin).
    n_bins : int, default=10
        Number of bins ``M``.
    strategy : {"uniform", "quantile"}, default="uniform"
        ``"uniform"``: equal-width bins ``((m-1)/M, m/M]`` (Anonymous, TMLR submission,
        Section 3.1). ``"quantile"``: inner edges at the ``m/M`` quantiles of
        the calibration scores with positive weight (the quantiles themselves
        are unweighted, so integer weights are not equivalent to repeated rows
        for this strategy), outer edges 0 and 1. Bin edges
        come from :func:`bayescal.metrics.binning.bin_edges`, the same helper
        behind ECE and reliability curves.
    empty_bin : {"interpolate", "prior", "center"} or float, default="interpolate"
        Value of a bin with no calibration weight (a uniform bin nobody's score
        fell into, or a zero-width quantile bin from tied scores):
        ``"interpolate"``: linear interpolation, in bin centres, between the
        nearest non-empty bins on either side (the nearest one's value beyond
        the first or last non-empty bin), which keeps the map monotone whenever
        the non-empty bins are; ``"prior"``: the weighted positive fraction of
        all calibration data; ``"center"``: the bin's centre (the uncalibrated
        score is trusted; not for ``input="decision"``, whose centres are no
        probabilities); a float in [0, 1]: that value.

    Attributes
    ----------
    bin_edges_ : ndarray of shape (M + 1,)
        Bin edges, ``bin_edges_[0] = 0`` and ``bin_edges_[-1] = 1`` (the
        smallest and largest calibration score for ``input="decision"``).
    bin_weights_ : ndarray of shape (M,)
        Summed sample weight per bin (the count for unit weights).
    bin_values_ : ndarray of shape (M,)
        Calibrated probability of each bin.
    empty_bins_ : ndarray of shape (M,), bool
        Bins whose value came from the ``empty_bin`` rule.
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.

    Raises
    ------
    ValueError
        Single-class targets, bad scores or lengths, a bad ``empty_bin``.

    Notes
    -----
    Bins are closed on the right, ``B_m = (a_m, a_{m+1}]`` (the first also
    holds 0). The value of bin ``m`` minimises ``sum_{i in B_m} w_i (theta_m -
    t_i)^2`` (Anonymous, TMLR submission, Eq. 2), so by its Theorem 1 it is the bin's
    positive fraction,

    .. math:: \\theta_m = \\frac{\\sum_{i \\in B_m} w_i t_i}{\\sum_{i \\in B_m} w_i},

    here its **weighted** positive fraction; a fractional target ``t_i``
    counts as ``t_i`` of a positive. A new score gets the value of its bin.

    References
    ----------
    Zadrozny, B. & Elkan, C. (2001). Obtaining calibrated probability estimates
    from decision trees and naive Bayesian classifiers. *ICML*, 609-616.

    Examples
    --------
    >>> cal = HistogramBinningCalibrator(n_bins=2).fit([0.1, 0.2, 0.7, 0.9], [0, 1, 1, 1])
    >>> cal.predict_proba([0.3, 0.6])[:, 1].tolist()
    [0.5, 1.0]
    """


    # scores are only read (bins, sums, look-ups), never written or kept
    _copy_scores = False

    _parameter_constraints: dict = {
        "input": input_constraint("score", "decision"),
        "n_bins": [Interval(Integral, 1, None, closed="left")],
        "strategy": [StrOptions(set(BINNING_STRATEGIES))],
        "empty_bin": [StrOptions(set(EMPTY_BIN_RULES)), Interval(Real, 0, 1, closed="both")],
    }

    def __init__(
        self,
        *,
        input: str = "score",
        n_bins: int = 10,
        strategy: str = "uniform",
        empty_bin: str | float = "interpolate",
    ) -> None:
        self.input = input
        self.n_bins = n_bins
        self.strategy = strategy
        self.empty_bin = empty_bin

    def fit(self, scores: Any, y: Any, sample_weight: Any = None) -> HistogramBinningCalibrator:
        """Fit the bins; parameters and checks as :meth:`BinaryCalibrator.fit`.

        Large float64 or int64 arrays with unit weights and uniform bins on
        ``input="score"`` take a shorter route to the same fit: the checks by
        reductions (no copies, no unit-weight array), then one counting pass.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 2)
            Uncalibrated scores.
        y : array-like of shape (n,)
            0/1 labels or fractional targets in [0, 1].
        sample_weight : array-like of shape (n,), optional
            Non-negative weights.

        Returns
        -------
        self
        """
        if sample_weight is None and self._fit_large_unit(scores, y):
            return self
        return super().fit(scores, y, sample_weight)

    def _fit_large_unit(self, scores: Any, y: Any) -> bool:
        """The fit for large unit-weight arrays; False where it does not apply.

        Accepts exactly what :meth:`BinaryCalibrator.fit` accepts, checked in
        the same order; anything else (other types, lengths, bad or
        single-class targets) returns False before fitting, and the full
        path runs and words the error.
        """
        if not (
            isinstance(scores, np.ndarray)
            and isinstance(y, np.ndarray)
            and scores.ndim == 1
            and scores.shape == y.shape
            and scores.shape[0] >= KERNEL_MIN_SCORES
            and y.dtype in (np.float64, np.int64)
        ):
            return False
        validate_params(self)
        if self.strategy != "uniform" or self._input_kind() != "score":
            return False
        s = self._validate_scores(scores)
        n = y.shape[0]
        if y.dtype == np.int64:
            # 0/1 labels: one reduction (a negative label wraps to a huge unsigned)
            if y.view(np.uint64).max() > 1:
                return False
        elif not (in_unit_interval(y) and y.min() < y.max()):
            return False
        # uniform edges do not read the scores (whose NaN check is done)
        edges = bin_edges(s[:0], int(self.n_bins), "uniform")
        w_bin, wt_bin = histogram_bin_sums(s, y, None, edges, unit=True, uniform=True, kernel=True)
        if y.dtype == np.int64 and wt_bin.sum() in (0.0, float(n)):  # a single class
            return False
        # (the prior as the full path computes it: unit weights, float targets)
        self._set_bins(
            edges, w_bin, wt_bin, lambda: float(np.dot(np.ones(n), y.astype(np.float64)) / n)
        )
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 1
        return True

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        n_bins = int(self.n_bins)
        rule = self.empty_bin if isinstance(self.empty_bin, str) else float(self.empty_bin)
        unit = bool(np.all(weights == 1.0))
        support = scores if unit else scores[weights > 0]
        span = (0.0, 1.0)
        if self.input == "decision":
            if rule == "center":
                raise ValueError(
                    "`empty_bin`='center' gives an empty bin the centre of its scores, which "
                    "is no probability for input='decision'; use empty_bin='interpolate', "
                    "'prior' or a probability."
                )
            span = (float(support.min()), float(support.max()))
        edges = bin_edges(support, n_bins, self.strategy, span=span)
        w_bin, wt_bin = histogram_bin_sums(
            scores, targets, weights, edges, unit=unit, uniform=self.strategy == "uniform"
        )
        self._set_bins(
            edges, w_bin, wt_bin, lambda: float(np.dot(weights, targets) / np.sum(weights))
        )

    def _set_bins(
        self,
        edges: np.ndarray,
        w_bin: np.ndarray,
        wt_bin: np.ndarray,
        prior: Callable[[], float],
    ) -> None:
        """Bin values from the per-bin sums, the ``empty_bin`` rule for empty bins.

        ``prior`` gives the weighted positive fraction of all the data (called
        only for ``empty_bin="prior"`` with an empty bin).
        """
        n_bins = w_bin.shape[0]
        rule = self.empty_bin if isinstance(self.empty_bin, str) else float(self.empty_bin)
        empty = w_bin <= 0
        values = np.divide(wt_bin, w_bin, out=np.zeros(n_bins), where=~empty)
        if empty.any():
            centers = 0.5 * (edges[:-1] + edges[1:])
            if rule == "interpolate":
                values[empty] = np.interp(centers[empty], centers[~empty], values[~empty])
            elif rule == "prior":
                values[empty] = prior()
            elif rule == "center":
                values[empty] = centers[empty]
            else:
                values[empty] = rule
        self.bin_edges_ = edges
        self.bin_weights_ = w_bin
        self.bin_values_ = values
        self.empty_bins_ = empty

    def _proba_of_valid_scores(self, scores: np.ndarray) -> np.ndarray:
        return histogram_bin_proba(
            scores, self.bin_edges_, self.bin_values_, uniform=self.strategy == "uniform"
        )

    def _predict_positive(self, scores: np.ndarray) -> np.ndarray:
        return self._proba_of_valid_scores(scores)[:, 1]
