"""Post-hoc tests after a Friedman test (Demšar 2006, Section 3.2.2).

- :func:`nemenyi_test`: all pairs of methods, with the critical difference
  of :func:`critical_difference` (the one a CD diagram draws);
- :func:`wilcoxon_holm_test`: every method against a control by the Wilcoxon
  signed-rank test, with Holm's step-down correction (:func:`holm_adjust`).
"""

from __future__ import annotations

from numbers import Integral
from typing import Any, NamedTuple

import numpy as np

from bayescal.stats.ranks import check_score_matrix, rank_methods
from bayescal.validation import check_array_1d, check_fraction

__all__ = [
    "NemenyiResult",
    "WilcoxonHolmResult",
    "critical_difference",
    "holm_adjust",
    "nemenyi_test",
    "studentized_range_quantile",
    "wilcoxon_holm_test",
]


class NemenyiResult(NamedTuple):
    """Result of :func:`nemenyi_test`.

    Attributes
    ----------
    p_values : ndarray of shape (k, k)
        Pairwise p-values (1 on the diagonal, symmetric).
    mean_ranks : ndarray of shape (k,)
        Average rank of each method (1 = best).
    critical_difference : float
        Smallest mean-rank gap that is significant at ``alpha``.
    alpha : float
        Significance level of ``critical_difference``.
    """

    p_values: np.ndarray
    mean_ranks: np.ndarray
    critical_difference: float
    alpha: float


class WilcoxonHolmResult(NamedTuple):
    """Result of :func:`wilcoxon_holm_test`.

    Attributes
    ----------
    statistic : ndarray of shape (k,)
        Wilcoxon's T (the smaller signed-rank sum) of each method against the
        control; NaN for the control itself.
    p_values : ndarray of shape (k,)
        Two-sided, uncorrected; NaN for the control.
    p_adjusted : ndarray of shape (k,)
        Holm-adjusted; NaN for the control.
    control : int
        Column of the control method.
    """

    statistic: np.ndarray
    p_values: np.ndarray
    p_adjusted: np.ndarray
    control: int


def _check_alpha(alpha: Any) -> float:
    return check_fraction(alpha, "alpha")


def studentized_range_quantile(n_methods: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical value q_alpha for ``n_methods`` methods.

    Parameters
    ----------
    n_methods : int
        k >= 2.
    alpha : float, default=0.05
        Significance level in (0, 1).

    Returns
    -------
    float
        The upper ``alpha`` quantile of the studentized range of k
        independent standard normals (infinite degrees of freedom), divided
        by :math:`\\sqrt 2`.

    Notes
    -----
    Demšar (2006, Table 5a) lists these values for k = 2...10; here they come
    from ``scipy.stats.studentized_range`` for any k.

    Examples
    --------
    >>> round(studentized_range_quantile(2), 3), round(studentized_range_quantile(10), 3)
    (1.96, 3.164)
    """
    from scipy.stats import studentized_range

    if isinstance(n_methods, bool) or not isinstance(n_methods, Integral):
        raise TypeError(f"`n_methods` must be an integer; got {n_methods!r}.")
    if n_methods < 2:
        raise ValueError(f"`n_methods` must be >= 2 to compare methods; got {n_methods}.")
    alpha = _check_alpha(alpha)
    return float(studentized_range.ppf(1.0 - alpha, int(n_methods), np.inf) / np.sqrt(2.0))


def critical_difference(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of mean ranks (Demšar 2006).

    Parameters
    ----------
    n_methods : int
        k >= 2.
    n_datasets : int
        N >= 1.
    alpha : float, default=0.05
        Significance level.

    Returns
    -------
    float
        :math:`CD = q_\\alpha \\sqrt{k (k + 1) / (6 N)}`.

    References
    ----------
    J. Demšar, "Statistical comparisons of classifiers over multiple data
    sets", JMLR 7:1-30, 2006.

    Examples
    --------
    >>> round(critical_difference(4, 14), 3)
    1.254
    """
    q = studentized_range_quantile(n_methods, alpha)
    if isinstance(n_datasets, bool) or not isinstance(n_datasets, Integral) or n_datasets < 1:
        raise ValueError(f"`n_datasets` must be a positive integer; got {n_datasets!r}.")
    return float(q * np.sqrt(n_methods * (n_methods + 1) / (6.0 * n_datasets)))


def nemenyi_test(
    scores: Any, *, lower_is_better: bool = True, alpha: float = 0.05
) -> NemenyiResult:
    """Nemenyi's all-pairs post-hoc test on mean ranks.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One score per dataset and method, finite; at least 2 of each.
    lower_is_better : bool, default=True
        Direction of the metric.
    alpha : float, default=0.05
        Level of the reported critical difference.

    Returns
    -------
    NemenyiResult

    Notes
    -----
    Two methods differ when their mean ranks differ by more than the CD.
    The p-value of a pair is :math:`P(Q_k > \\sqrt 2 |R_i - R_j| / SE)` with
    :math:`SE = \\sqrt{k (k + 1) / (6 N)}` and :math:`Q_k` the studentized
    range of k normals (infinite degrees of freedom).

    References
    ----------
    P. Nemenyi, "Distribution-free multiple comparisons", PhD thesis,
    Princeton University, 1963; Demšar (2006), Section 3.2.2.

    Examples
    --------
    >>> result = nemenyi_test([[1, 2, 3], [1, 2, 3], [1, 3, 2], [1, 2, 3]])
    >>> round(float(result.p_values[0, 2]), 3)
    0.036
    """
    from scipy.stats import studentized_range

    arr = check_score_matrix(scores)
    alpha = _check_alpha(alpha)
    n, k = arr.shape
    ranks = rank_methods(arr, lower_is_better=lower_is_better).mean(axis=0)
    se = np.sqrt(k * (k + 1) / (6.0 * n))
    gaps = np.abs(ranks[:, None] - ranks[None, :]) / se
    p = studentized_range.sf(gaps * np.sqrt(2.0), k, np.inf)
    p = np.clip(p, 0.0, 1.0)
    np.fill_diagonal(p, 1.0)
    return NemenyiResult(p, ranks, critical_difference(k, n, alpha), alpha)


def holm_adjust(p_values: Any) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values.

    Parameters
    ----------
    p_values : array-like of shape (m,)
        Uncorrected p-values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order: the i-th smallest becomes
        :math:`\\max_{j \\le i} \\min(1, (m - j + 1) p_{(j)})`.

    References
    ----------
    S. Holm, "A simple sequentially rejective multiple test procedure",
    Scandinavian Journal of Statistics 6:65-70, 1979.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03])
    array([0.03, 0.06, 0.06])
    """
    p = check_array_1d(p_values, "p_values", low=0.0, high=1.0)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted


def wilcoxon_holm_test(
    scores: Any, control: int = 0, *, zero_method: str = "wilcox"
) -> WilcoxonHolmResult:
    """Wilcoxon signed-rank tests of every method against a control, Holm-corrected.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One score per dataset and method, finite.
    control : int, default=0
        Column of the control method.
    zero_method : {"wilcox", "pratt", "zsplit"}, default="wilcox"
        Treatment of zero differences, as in ``scipy.stats.wilcoxon``.

    Returns
    -------
    WilcoxonHolmResult

    Raises
    ------
    ValueError
        For a bad matrix or control index, or when a method's differences
        to the control are all zero (the test is undefined; the methods are
        identical on these datasets).

    Notes
    -----
    Demšar (2006, Section 3.1.3) recommends the Wilcoxon signed-rank test
    over the paired t-test for two methods on many datasets; against a
    control the k - 1 p-values are corrected by Holm's procedure (Section
    3.2.2). The p-values are two-sided, so the direction of the metric does
    not matter.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.normal(size=(12, 3)) + [0.0, 0.5, 0.0]
    >>> result = wilcoxon_holm_test(scores, control=0)
    >>> bool(np.isnan(result.p_values[0]))
    True
    """
    from scipy.stats import wilcoxon

    arr = check_score_matrix(scores)
    k = arr.shape[1]
    if isinstance(control, bool) or not isinstance(control, Integral) or not 0 <= control < k:
        raise ValueError(f"`control` must be a column index in [0, {k}); got {control!r}.")
    stats = np.full(k, np.nan)
    p = np.full(k, np.nan)
    others = [j for j in range(k) if j != control]
    for j in others:
        diff = arr[:, j] - arr[:, control]
        if not np.any(diff):
            raise ValueError(
                f"`scores` column {j} equals the control column {control} on every dataset; "
                "the Wilcoxon test is undefined for identical methods. Leave one out."
            )
        res = wilcoxon(diff, zero_method=zero_method)
        stats[j], p[j] = float(res.statistic), float(res.pvalue)
    adjusted = np.full(k, np.nan)
    adjusted[others] = holm_adjust(p[others])
    return WilcoxonHolmResult(stats, p, adjusted, int(control))

