"""Discrimination: the c-statistic (AUC) with DeLong's variance.

``C = P(p_i > p_j) + P(p_i = p_j) / 2`` over pairs of a positive ``i`` and a
negative ``j`` (ties count one half, as ``rms``' ``C`` and scikit-learn's
``roc_auc_score``); Somers' ``Dxy = 2 (C - 1/2)``. DeLong, DeLong &
Clarke-Pearson's (1988) variance comes from the structural components
``V10_i`` (share of negatives below positive ``i``) and ``V01_j`` (share of
positives above negative ``j``), computed from mid-ranks in ``O(n log n)``
(Sun & Xu 2014). The interval is the Wald interval on the logit scale
(``logit C +/- z se / (C (1 - C))``), which stays inside (0, 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit, logit
from scipy.stats import norm, rankdata

from bayescal.assessment._inputs import check_outcomes
from bayescal.validation import check_fraction

__all__ = ["ConcordanceStatistic", "concordance"]


@dataclass(frozen=True)
class ConcordanceStatistic:
    """The c-statistic with its DeLong standard error and interval.

    Attributes
    ----------
    c : float
        Area under the ROC curve.
    dxy : float
        Somers' rank correlation ``2 (c - 1/2)``.
    standard_error : float
        DeLong's standard error of ``c``.
    interval : (float, float)
        Wald interval on the logit scale at ``level``.
    level : float
    """

    c: float
    dxy: float
    standard_error: float
    interval: tuple[float, float]
    level: float


def concordance(y: Any, p: Any, *, level: float = 0.9) -> ConcordanceStatistic:
    """The c-statistic (AUC) of ``p`` for ``y`` with DeLong's interval.

    Parameters
    ----------
    y : array-like of shape (n,)
        Outcomes coded 0/1; both must occur.
    p : array-like of shape (n,) or (n, 2)
        Predicted probabilities (any score whose order matters).
    level : float, default=0.9
        Confidence level.

    Returns
    -------
    ConcordanceStatistic

    References
    ----------
    .. [1] DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the
       areas under two or more correlated receiver operating characteristic curves:
       a nonparametric approach. Biometrics 44(3), 837-845.
    .. [2] Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for
       comparing the areas under correlated receiver operating characteristic
       curves. IEEE Signal Processing Letters 21(11), 1389-1393.

    Examples
    --------
    >>> round(concordance([0, 0, 1, 1, 0, 1, 0, 1, 1, 0],
    ...                   [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.3, 0.6, 0.7, 0.5]).c, 4)
    0.92
    """
    labels, proba = check_outcomes(y, p)
    level = check_fraction(level, "level")
    pos, neg = proba[labels == 1], proba[labels == 0]
    m, n = pos.shape[0], neg.shape[0]
    ranks_all = rankdata(np.concatenate([pos, neg]))
    ranks_pos, ranks_neg = rankdata(pos), rankdata(neg)
    v10 = (ranks_all[:m] - ranks_pos) / n
    v01 = 1.0 - (ranks_all[m:] - ranks_neg) / m
    c = float(v10.mean())
    var = (np.var(v10, ddof=1) if m > 1 else 0.0) / m + (np.var(v01, ddof=1) if n > 1 else 0.0) / n
    se = float(np.sqrt(var))
    z = float(norm.ppf(0.5 + level / 2.0))
    if 0.0 < c < 1.0:
        half = z * se / (c * (1.0 - c))
        interval = (float(expit(logit(c) - half)), float(expit(logit(c) + half)))
    else:
        interval = (c, c)
    return ConcordanceStatistic(c=c, dxy=2.0 * c - 1.0, standard_error=se,
                                interval=interval, level=level)
