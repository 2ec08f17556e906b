"""Reliability curves: per-bin mean score, observed rate, count and Wilson interval."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescal.metrics._inputs import check_labels_and_proba
from bayescal.metrics.binning import bin_statistics
from bayescal.metrics.calibration_error import event_scores
from bayescal.metrics.intervals import wilson_interval
from bayescal.validation import check_choice, check_fraction

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ReliabilityCurve", "reliability_curve"]


@dataclass(frozen=True)
class ReliabilityCurve:
    """A binned reliability curve with Wilson intervals of the observed rates.

    Every bin is reported, empty ones included (``count == 0``, and NaN in
    ``mean_score``, ``observed_rate``, ``ci_lower`` and ``ci_upper``); use
    :attr:`nonempty` to select the filled bins.

    Attributes
    ----------
    bin_lower, bin_upper : ndarray of shape (M,)
        Bin limits; bin ``m`` is ``(bin_lower[m], bin_upper[m]]`` (the first bin
        also holds 0).
    count : ndarray of shape (M,)
        Samples per bin.
    mean_score : ndarray of shape (M,)
        Mean predicted probability per bin (the x coordinate of the curve).
    observed_rate : ndarray of shape (M,)
        Fraction of events per bin (the y coordinate).
    ci_lower, ci_upper : ndarray of shape (M,)
        Wilson score interval of ``observed_rate`` at ``confidence``.
    confidence : float
        Two-sided confidence level of the intervals.
    strategy : str
        Binning strategy (``"uniform"`` or ``"quantile"``).
    kind : str
        ``"binary"`` or ``"top_label"``.
    """

    bin_lower: np.ndarray
    bin_upper: np.ndarray
    count: np.ndarray
    mean_score: np.ndarray
    observed_rate: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    confidence: float
    strategy: str
    kind: str

    @property
    def n_bins(self) -> int:
        """Number of bins, empty ones included."""
        return int(self.count.shape[0])

    @property
    def nonempty(self) -> np.ndarray:
        """Boolean mask of the bins that hold at least one sample."""
        return self.count > 0

    def to_frame(self) -> pd.DataFrame:
        """The curve as a pandas DataFrame with one row per bin (empty bins included)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "bin_lower": self.bin_lower,
                "bin_upper": self.bin_upper,
                "count": self.count,
                "mean_score": self.mean_score,
                "observed_rate": self.observed_rate,
                "ci_lower": self.ci_lower,
                "ci_upper": self.ci_upper,
            }
        )


def reliability_curve(
    y: Any,
    proba: Any,
    n_bins: int = 10,
    strategy: str = "uniform",
    confidence: float = 0.95,
    *,
    kind: str = "binary",
) -> ReliabilityCurve:
    """Binned reliability curve with a Wilson interval for every observed rate.

    Parameters
    ----------
    y : array-like of shape (n,)
        True class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Predicted probabilities; 1-D means binary positive-class probability.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-count bins (the same bins as
        :func:`expected_calibration_error`).
    confidence : float, default=0.95
        Confidence level of the Wilson intervals, in (0, 1).
    kind : {"binary", "top_label"}, default="binary"
        ``"binary"``: positive-class probability against ``y == 1``.
        ``"top_label"``: probability of the predicted class against correctness.
        (For one class of a multi-class problem, pass ``y == k`` and
        ``proba[:, k]``.)

    Returns
    -------
    ReliabilityCurve
        One entry per bin; empty bins are kept with count 0 and NaN values.

    Raises
    ------
    ValueError
        On bad ``y``/``proba`` (see :func:`expected_calibration_error`), bad
        ``n_bins``/``strategy``/``kind`` or ``confidence`` outside (0, 1).

    Notes
    -----
    The curve plots, for bin :math:`B_m`, the mean score
    :math:`\\mathrm{conf}_m` against the observed rate :math:`\\mathrm{pos}_m`
    (a calibration plot, Alasalmi (2020) Section 2.4, Fig. 5).
    The interval of :math:`\\mathrm{pos}_m` is the Wilson score interval of
    :math:`n_m \\mathrm{pos}_m` successes in :math:`n_m` trials (Sigg 2022). The count-weighted mean of
    :math:`|\\mathrm{pos}_m - \\mathrm{conf}_m|` over the same bins is the ECE.

    Examples
    --------
    >>> curve = reliability_curve([0, 0, 1, 1], [0.1, 0.3, 0.7, 0.75], n_bins=2)
    >>> curve.count.tolist(), curve.observed_rate.tolist()
    ([2, 2], [0.0, 1.0])
    """
    check_choice(kind, "kind", ("binary", "top_label"))
    confidence = check_fraction(confidence, "confidence")
    labels, P = check_labels_and_proba(y, proba)
    ((scores, outcomes),) = event_scores(labels, P, kind)
    stats = bin_statistics(scores, outcomes, n_bins, strategy)
    ci_lower = np.full(stats.count.shape, np.nan)
    ci_upper = np.full(stats.count.shape, np.nan)
    ne = stats.nonempty
    ci_lower[ne], ci_upper[ne] = wilson_interval(stats.positives[ne], stats.count[ne], confidence)
    return ReliabilityCurve(
        bin_lower=stats.edges[:-1].copy(),
        bin_upper=stats.edges[1:].copy(),
        count=stats.count,
        mean_score=stats.mean_score,
        observed_rate=stats.observed_rate,
        ci_lower=ci_lower,
        ci_upper=ci_upper,
        confidence=confidence,
        strategy=strategy,
        kind=kind,
    )
