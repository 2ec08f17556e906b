"""Percentile bootstrap intervals of assessment statistics (rows resampled with replacement)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from bayescal.validation import check_fraction, check_positive_int

__all__ = ["bootstrap_intervals"]


def bootstrap_intervals(
    statistics: Callable[[np.ndarray, np.ndarray], dict[str, float]],
    y: np.ndarray,
    p: np.ndarray,
    *,
    n_resamples: int = 200,
    level: float = 0.9,
    random_state: Any = None,
) -> dict[str, tuple[float, float]]:
    """Percentile intervals of every statistic that ``statistics(y, p)`` returns.

    Parameters
    ----------
    statistics : callable
        ``(y, p) -> {name: value}`` on a resample.
    y, p : ndarray of shape (n,)
        Validated outcomes and predictions.
    n_resamples : int, default=200
        Number of bootstrap resamples ``B``.
    level : float, default=0.9
        Coverage of the equal-tailed percentile interval.
    random_state : None, int or numpy Generator
        Seed of the resampling.

    Returns
    -------
    dict of str to (float, float)
        The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of each statistic
        over the resamples. A resample with one class only is redrawn (the
        statistics need both outcomes). Each resample reaches ``statistics``
        sorted by ``p`` (the statistics here do not depend on the row order).

    References
    ----------
    .. [1] Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap,
       Chapman & Hall, ch. 13.
    """
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    level = check_fraction(level, "level")
    rng = np.random.default_rng(random_state)
    n = y.shape[0]
    order = np.argsort(p, kind="stable")
    y, p = y[order], p[order]
    rows = np.arange(n)
    values: dict[str, list[float]] = {}
    drawn = 0
    while drawn < n_resamples:
        # n draws with replacement, as multinomial counts over the rows sorted by p:
        # the same resample as a multiset, delivered sorted by p (a statistic that
        # sorts by p then sorts already-sorted data).
        idx = np.repeat(rows, np.bincount(rng.integers(0, n, n), minlength=n))
        yb = y[idx]
        if yb.min() == yb.max():
            continue
        for name, value in statistics(yb, p[idx]).items():
            values.setdefault(name, []).append(float(value))
        drawn += 1
    tail = (1.0 - level) / 2.0
    return {name: _percentiles(np.asarray(v), tail) for name, v in values.items()}


def _percentiles(values: np.ndarray, tail: float) -> tuple[float, float]:
    """Equal-tailed percentiles; with infinite values (a log loss of a certain wrong
    prediction) the order statistics themselves, as interpolation is undefined there."""
    method = "linear" if np.all(np.isfinite(values)) else "inverted_cdf"
    lo, hi = np.quantile(values, [tail, 1.0 - tail], method=method)
    return float(lo), float(hi)
