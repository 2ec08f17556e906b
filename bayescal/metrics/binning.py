"""Binning of scores: the one helper behind ECE, MCE and reliability curves.

Scores in [0, 1] are grouped into bins; each bin reports its count, mean score
(confidence) and observed rate of the outcome. :func:`bin_statistics` is the
only place in bayescal where calibration bins are formed, so ECE, MCE and the
reliability curve always agree on which sample lies in which bin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescal.validation import check_choice, check_positive_int, describe_bad_values

__all__ = ["BinStatistics", "BINNING_STRATEGIES", "bin_edges", "bin_statistics", "assign_bins",
           "assign_bins_compact", "binary_bin_statistics"]

#: Names accepted by ``strategy``.
BINNING_STRATEGIES = ("uniform", "quantile")

#: From this many scores, equal-width bins are formed and summed in one numba
#: pass (:mod:`bayescal.metrics._binning_kernel`; the same bins and sums as the
#: NumPy path, which imports no compiler for small inputs).
KERNEL_MIN_SCORES = 20_000


def bin_edges(
    scores: np.ndarray,
    n_bins: int = 10,
    strategy: str = "uniform",
    *,
    span: tuple[float, float] = (0.0, 1.0),
) -> np.ndarray:
    """Edges of ``n_bins`` bins covering ``span`` ([0, 1] by default).

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Validated scores in [0, 1] (used only by ``strategy="quantile"``); NaN
        is rejected.
    n_bins : int, default=10
        Number of bins ``M``.
    strategy : {"uniform", "quantile"}, default="uniform"
        ``"uniform"``: equal width ``1/M`` (Anonymous, TMLR submission, Section 3.1).
        ``"quantile"``: inner edges at the ``m/M`` quantiles of ``scores`` so
        that bins hold (about) equal numbers of samples; the outer edges are 0
        and 1. Tied scores can make inner edges coincide; the resulting
        zero-width bins are empty and reported as such, never merged silently.
    span : (float, float), default=(0.0, 1.0)
        Outer edges; decision values (any real number) are binned over their
        observed range ``(scores.min(), scores.max())``.

    Returns
    -------
    ndarray of shape (n_bins + 1,)
        Non-decreasing edges with ``edges[0] = span[0]`` and ``edges[-1] = span[1]``.

    Raises
    ------
    ValueError
        If ``scores`` contains NaN (it would land in a bin silently).
    """
    n_bins = check_positive_int(n_bins, "n_bins")
    check_choice(strategy, "strategy", BINNING_STRATEGIES)
    _reject_nan(scores, "scores")
    low, high = float(span[0]), float(span[1])
    if strategy == "uniform":
        return np.linspace(low, high, n_bins + 1)
    inner = np.quantile(scores, np.arange(1, n_bins) / n_bins)
    return np.concatenate([[low], inner, [high]])


def _reject_nan(values: np.ndarray, name: str) -> None:
    values = np.asarray(values)
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise ValueError(
            f"`{name}` contains NaN: {describe_bad_values(values, np.isnan(values))}. "
            "A NaN score has no bin; remove or impute these entries first."
        )


#: Up to this many inner edges, :func:`assign_bins` counts edges instead of searching.
_COUNTING_MAX_EDGES = 32


def assign_bins(scores: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Index of the bin of each score.

    Bins are closed on the right, ``B_m = (a_m, a_{m+1}]``, as in Anonymous (TMLR submission)
    (Section 3.1); the first bin also holds a score of exactly 0.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Scores in [0, 1].
    edges : ndarray of shape (M + 1,)
        Bin edges from :func:`bin_edges`.

    Returns
    -------
    ndarray of shape (n,), int64
        Bin indices in ``0 .. M-1``.
    """
    return assign_bins_compact(scores, edges).astype(np.int64, copy=False)


def assign_bins_compact(scores: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """:func:`assign_bins` in the narrowest integer type (``uint8`` for <= 32 edges).

    For hot paths that only count (``np.bincount``) or look up
    (``values[index]``) with the index: at 10^6 scores the one-byte index is
    written many times faster than an ``int64`` one.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Scores in [0, 1].
    edges : ndarray of shape (M + 1,)
        Bin edges from :func:`bin_edges`.

    Returns
    -------
    ndarray of shape (n,), uint8 or intp
        Bin indices in ``0 .. M-1``, equal to :func:`assign_bins`'.
    """
    inner = edges[1:-1]
    if inner.size > _COUNTING_MAX_EDGES:
        return np.searchsorted(inner, scores, side="left")
    # The index of a right-closed bin is the number of inner edges strictly below
    # the score; counting them pass by pass in one byte per score is many times
    # faster than a binary search or an int64 counter for the usual handful of
    # bins (identical result).
    index = np.zeros(scores.shape, dtype=np.uint8)
    for edge in inner:
        index += scores > edge
    return index


@dataclass(frozen=True)
class BinStatistics:
    """Per-bin summary of scores and binary outcomes.

    Attributes
    ----------
    edges : ndarray of shape (M + 1,)
        Bin edges.
    count : ndarray of shape (M,)
        Number of samples per bin (0 for an empty bin).
    positives : ndarray of shape (M,)
        Sum of outcomes per bin (successes).
    mean_score : ndarray of shape (M,)
        Mean score (confidence) per bin; NaN for an empty bin.
    observed_rate : ndarray of shape (M,)
        Fraction of positive outcomes per bin; NaN for an empty bin.
    """

    edges: np.ndarray
    count: np.ndarray
    positives: np.ndarray
    mean_score: np.ndarray
    observed_rate: np.ndarray

    @property
    def n_samples(self) -> int:
        """Total number of binned samples."""
        return int(self.count.sum())

    @property
    def nonempty(self) -> np.ndarray:
        """Boolean mask of bins holding at least one sample."""
        return self.count > 0

    @property
    def gaps(self) -> np.ndarray:
        """``|observed_rate - mean_score|`` per bin; NaN for empty bins."""
        return np.abs(self.observed_rate - self.mean_score)

    def expected_gap(self) -> float:
        """Count-weighted mean gap ``sum_m (n_m / n) |pos_m - conf_m|`` (ECE)."""
        ne = self.nonempty
        return float(np.sum(self.count[ne] * self.gaps[ne]) / self.n_samples)

    def maximum_gap(self) -> float:
        """Largest gap over the non-empty bins (MCE)."""
        return float(np.max(self.gaps[self.nonempty]))


def bin_statistics(
    scores: np.ndarray, outcomes: np.ndarray, n_bins: int = 10, strategy: str = "uniform"
) -> BinStatistics:
    """Bin validated scores and summarise the outcomes in each bin.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Scores (probabilities of the event) in [0, 1], already validated.
    outcomes : ndarray of shape (n,)
        0/1 indicator of the event, same length.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        See :func:`bin_edges`.

    Returns
    -------
    BinStatistics
    """
    _reject_nan(outcomes, "outcomes")
    edges = bin_edges(scores, n_bins, strategy)
    if strategy == "uniform" and scores.shape[0] >= KERNEL_MIN_SCORES:
        from bayescal.metrics._binning_kernel import bin_scale, score_bin_sums

        count, score_sum, positives = score_bin_sums(
            np.ascontiguousarray(scores, dtype=np.float64),
            np.ascontiguousarray(outcomes, dtype=np.float64),
            edges,
            bin_scale(edges),
        )
        return _from_sums(edges, count, score_sum, positives)
    idx = assign_bins_compact(scores, edges)
    m = edges.shape[0] - 1
    count = np.bincount(idx, minlength=m).astype(np.int64)
    score_sum = np.bincount(idx, weights=scores, minlength=m)
    positives = np.bincount(idx, weights=outcomes.astype(np.float64), minlength=m)
    return _from_sums(edges, count, score_sum, positives)


def binary_bin_statistics(y: Any, proba: Any, n_bins: int = 10) -> BinStatistics | None:
    """:func:`bin_statistics` of a binary ``(y, proba)`` pair read in one pass, or None.

    The fast path of the binned metrics on large binary inputs: equal-width
    bins of the positive-class probability ``proba`` (1-D float64) against
    ``y == 1`` (1-D integer or boolean labels), the checks and the sums in one
    numba pass. The result is the one :func:`bin_statistics` gives (the same
    bins, the sums added in the same order).

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels.
    proba : array-like of shape (n,)
        Positive-class probabilities.
    n_bins : int, default=10
        Number of bins.

    Returns
    -------
    BinStatistics or None
        None when the pair is not of that form (other dtypes or shapes, fewer
        than :data:`KERNEL_MIN_SCORES` rows) or fails a check (a probability
        outside [0, 1] or NaN, a label other than 0/1): the caller then takes
        the general path, whose checks word the error.
    """
    if not (isinstance(y, np.ndarray) and isinstance(proba, np.ndarray)):
        return None
    if (
        proba.ndim != 1
        or y.ndim != 1
        or proba.dtype != np.float64
        or y.dtype.kind not in "biu"
        or proba.shape[0] != y.shape[0]
        or proba.shape[0] < KERNEL_MIN_SCORES
    ):
        return None
    from bayescal.metrics._binning_kernel import bin_scale, binary_bin_sums

    edges = bin_edges(proba, n_bins, "uniform")
    valid, count, score_sum, positives = binary_bin_sums(
        np.ascontiguousarray(proba), np.ascontiguousarray(y), edges, bin_scale(edges)
    )
    if not valid:
        return None
    return _from_sums(edges, count, score_sum, positives)


def _from_sums(
    edges: np.ndarray, count: np.ndarray, score_sum: np.ndarray, positives: np.ndarray
) -> BinStatistics:
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = np.where(count > 0, score_sum / count, np.nan)
        observed_rate = np.where(count > 0, positives / count, np.nan)
    return BinStatistics(
        edges=edges,
        count=count,
        positives=positives,
        mean_score=mean_score,
        observed_rate=observed_rate,
    )
