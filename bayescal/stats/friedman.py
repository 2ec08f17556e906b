"""The Friedman test of k methods over N datasets, with the Iman–Davenport F.

Demšar (2006, Section 3.2.2): rank the methods within each dataset, average
the ranks per method (R_j) and compare the spread of the R_j with what equal
methods would give. The post-hoc tests that follow a rejection live in
:mod:`bayescal.stats.posthoc`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from bayescal.stats.ranks import check_score_matrix, rank_methods

__all__ = ["FriedmanResult", "friedman_test"]


class FriedmanResult(NamedTuple):
    """Result of :func:`friedman_test`.

    Attributes
    ----------
    statistic : float
        Friedman's chi-square (tie-corrected), ``k - 1`` degrees of freedom.
    p_value : float
        Upper tail of chi-square(k - 1) at ``statistic``.
    f_statistic : float
        Iman–Davenport F (``inf`` when every dataset ranks the methods alike).
    f_p_value : float
        Upper tail of F(k - 1, (k - 1)(N - 1)) at ``f_statistic``.
    mean_ranks : ndarray of shape (k,)
        Average rank of each method (1 = best).
    n_datasets : int
        N.
    n_methods : int
        k.
    """

    statistic: float
    p_value: float
    f_statistic: float
    f_p_value: float
    mean_ranks: np.ndarray
    n_datasets: int
    n_methods: int


def friedman_test(scores: Any, *, lower_is_better: bool = True) -> FriedmanResult:
    """Friedman's rank test that k methods perform equally over N datasets.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One score per dataset and method (usually the mean over folds);
        finite, at least 2 datasets and 2 methods.
    lower_is_better : bool, default=True
        Direction of the metric. The statistic does not depend on it; the
        reported mean ranks do (rank 1 = best).

    Returns
    -------
    FriedmanResult

    Raises
    ------
    ValueError
        For fewer than 2 datasets or methods, or NaN/inf scores.

    Notes
    -----
    With R_j the mean rank of method j over N datasets,

    .. math::

        \\chi^2_F = \\frac{12 N}{k (k + 1)}
            \\Big[\\sum_j R_j^2 - \\frac{k (k + 1)^2}{4}\\Big],

    divided by the tie correction :math:`1 - \\sum (t^3 - t) / (N k (k^2 - 1))`
    over the groups of t tied scores within a dataset (as in
    ``scipy.stats.friedmanchisquare``; it is 1 without ties, Demšar's
    formula). Iman and Davenport's less conservative statistic is

    .. math::

        F_F = \\frac{(N - 1) \\chi^2_F}{N (k - 1) - \\chi^2_F}
            \\sim F(k - 1, (k - 1)(N - 1)).

    References
    ----------
    J. Demšar, "Statistical comparisons of classifiers over multiple data
    sets", JMLR 7:1-30, 2006 (Eqs. in Section 3.2.2).
    R. L. Iman and J. M. Davenport, "Approximations of the critical region of
    the Friedman statistic", Communications in Statistics 9:571-595, 1980.

    Examples
    --------
    >>> scores = [[0.10, 0.12, 0.15], [0.20, 0.21, 0.25], [0.05, 0.07, 0.06],
    ...           [0.30, 0.33, 0.35]]
    >>> result = friedman_test(scores)
    >>> round(result.statistic, 3), result.mean_ranks.tolist()
    (6.5, [1.0, 2.25, 2.75])
    """
    from scipy import stats

    arr = check_score_matrix(scores)
    n, k = arr.shape
    ranks = rank_methods(arr, lower_is_better=lower_is_better)
    mean = ranks.mean(axis=0)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(mean**2) - k * (k + 1) ** 2 / 4.0)
    ties = 0.0
    for row in arr:
        _, counts = np.unique(row, return_counts=True)
        ties += float(np.sum(counts.astype(float) ** 3 - counts))
    correction = 1.0 - ties / (n * k * (k * k - 1))
    if correction <= 0:
        raise ValueError(
            "`scores` ties every method on every dataset; the Friedman test is undefined "
            "(there is nothing to compare)."
        )
    chi2 = float(chi2 / correction)
    p = float(stats.chi2.sf(chi2, k - 1))
    denominator = n * (k - 1) - chi2
    if denominator <= 1e-12 * n * k:
        f_stat, f_p = float("inf"), 0.0
    else:
        f_stat = float((n - 1) * chi2 / denominator)
        f_p = float(stats.f.sf(f_stat, k - 1, (k - 1) * (n - 1)))
    return FriedmanResult(chi2, p, f_stat, f_p, mean, n, k)
