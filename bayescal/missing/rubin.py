"""Rubin's rules and the total classification uncertainty of multiply imputed data.

Two pieces, one idea (Alasalmi 2020 §2.2.2 and §3.2):

* :func:`pool_rubin` pools an estimate over ``m`` imputed data sets with
  Rubin's (1987) rules, Eqs. 4–7: the pooled estimate ``Q̄`` is the mean of the
  ``m`` estimates, the within variance ``Ū`` the mean of their variances, the
  between variance ``B`` their sample variance, and the total variance
  ``T = Ū + (1 + 1/m) B``.
* :func:`total_uncertainty` applies the same rule to classification: the
  within term is the mean of the per-imputation uncertainty (Alasalmi 2020 Eq. 9), the
  between term the 0/1-loss variance of the predicted class around the majority
  vote, ``B = 1/(m-1) Σ 1{Q̂_l ≠ Q̄}``. ``T`` lies in ``[0, (2m+1)/m]`` and is
  returned scaled to ``[0, 1]`` by default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescal.validation import check_positive_int, check_probability_matrix

__all__ = ["RubinPooled", "majority_vote", "pool_rubin", "total_uncertainty"]


@dataclass(frozen=True)
class RubinPooled:
    """Result of :func:`pool_rubin`.

    Attributes
    ----------
    estimate : ndarray
        Pooled estimate ``Q̄`` (Eq. 4).
    within : ndarray
        Within-imputation variance ``Ū`` (Eq. 5).
    between : ndarray
        Between-imputation variance ``B`` (Eq. 6).
    total : ndarray
        Total variance ``T = Ū + (1 + 1/m) B`` (Eq. 7).
    dof : ndarray
        Rubin's (1987) degrees of freedom ``(m-1) (1 + Ū / ((1+1/m) B))²``
        (inf where ``B = 0``).
    n_imputations : int
        ``m``.
    """

    estimate: np.ndarray
    within: np.ndarray
    between: np.ndarray
    total: np.ndarray
    dof: np.ndarray
    n_imputations: int

    @property
    def standard_error(self) -> np.ndarray:
        """Square root of the total variance."""
        return np.sqrt(self.total)


def pool_rubin(estimates: Any, variances: Any) -> RubinPooled:
    """Pool estimates from ``m`` imputed data sets with Rubin's rules.

    Parameters
    ----------
    estimates : array-like of shape (m,) or (m, p)
        The estimate ``Q̂_l`` from each imputed data set (one scalar or a
        vector of ``p`` estimands each).
    variances : array-like of the same shape
        The variance ``U_l`` of each estimate (squared standard errors).

    Returns
    -------
    RubinPooled

    Raises
    ------
    ValueError
        If fewer than two imputations are given, shapes differ, values are not
        finite, or a variance is negative.

    Notes
    -----
    Eqs. 4–7 of Alasalmi (2020), after Rubin (1987) and van Buuren (2012)::

        Q̄ = mean_l Q̂_l,  Ū = mean_l U_l,
        B = 1/(m-1) Σ_l (Q̂_l − Q̄)²,  T = Ū + (1 + 1/m) B.

    Examples
    --------
    >>> pooled = pool_rubin([1.0, 1.2, 0.8], [0.04, 0.05, 0.03])
    >>> round(float(pooled.total), 4)
    0.0933
    """
    q = np.asarray(estimates, dtype=float)
    u = np.asarray(variances, dtype=float)
    if q.shape != u.shape:
        raise ValueError(
            f"`estimates` has shape {q.shape} but `variances` has shape {u.shape}; "
            "give one variance per estimate."
        )
    if q.ndim not in (1, 2):
        raise ValueError(f"`estimates` must be 1-D (m,) or 2-D (m, p); got shape {q.shape}.")
    m = q.shape[0]
    if m < 2:
        raise ValueError(f"`estimates` holds {m} imputation(s); Rubin's rules need at least 2.")
    for name, arr in (("estimates", q), ("variances", u)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"`{name}` contains NaN or inf.")
    if np.any(u < 0):
        raise ValueError("`variances` must be non-negative.")
    q_bar = q.mean(axis=0)
    u_bar = u.mean(axis=0)
    b = q.var(axis=0, ddof=1)
    total = u_bar + (1.0 + 1.0 / m) * b
    with np.errstate(divide="ignore"):
        ratio = np.where(b > 0, u_bar / ((1.0 + 1.0 / m) * np.where(b > 0, b, 1.0)), np.inf)
    dof = (m - 1) * (1.0 + ratio) ** 2
    return RubinPooled(q_bar, u_bar, b, total, dof, m)


def majority_vote(predictions: np.ndarray, proba_mean: np.ndarray) -> np.ndarray:
    """Mode of ``m`` predicted class codes per sample.

    Parameters
    ----------
    predictions : ndarray of shape (m, n), int
        Predicted class codes from each imputation.
    proba_mean : ndarray of shape (n, K)
        Pooled probabilities, used to break ties: among the tied classes the
        one with the largest pooled probability wins.

    Returns
    -------
    ndarray of shape (n,), int
    """
    n_classes = proba_mean.shape[1]
    counts = np.zeros((predictions.shape[1], n_classes))
    for k in range(n_classes):
        counts[:, k] = (predictions == k).sum(axis=0)
    # The pooled probability (< 1) only ever decides between equal vote counts.
    return np.argmax(counts + 0.5 * proba_mean, axis=1)


def total_uncertainty(proba: Any, *, scaled: bool = True) -> dict[str, np.ndarray]:
    """Total classification uncertainty ``T`` of predictions on ``m`` imputations.

    Parameters
    ----------
    proba : array-like of shape (m, n, K)
        Class probabilities of each of the ``n`` samples under each of the
        ``m`` imputations (rows sum to one).
    scaled : bool, default=True
        Divide ``T`` by its maximum ``(2m+1)/m`` so that it lies in [0, 1]
        (Alasalmi 2020 §3.2) and does not depend on ``m``.

    Returns
    -------
    dict
        ``total`` (T), ``within`` (Ū), ``between`` (B), ``prediction`` (the
        majority vote Q̄) and ``proba`` (pooled mean probabilities).

    Notes
    -----
    ``Ū = 1/m Σ_l u(p_l)`` with ``u`` the uncertainty of Alasalmi (2020) Eq. 9,
    ``B = 1/(m-1) Σ_l 1{Q̂_l ≠ Q̄}`` (the 0/1-loss proxy of the between
    variance), ``T = Ū + (1 + 1/m) B``.
    """
    from bayescal.metrics import uncertainty

    p = np.asarray(proba, dtype=float)
    if p.ndim != 3:
        raise ValueError(
            f"`proba` must have shape (m, n, K) (imputations, samples, classes); got {p.shape}."
        )
    m = check_positive_int(p.shape[0], "number of imputations (proba.shape[0])", minimum=2)
    for layer in p:
        check_probability_matrix(layer, "proba")
    within = np.mean([uncertainty(layer) for layer in p], axis=0)
    pooled = p.mean(axis=0)
    predictions = np.argmax(p, axis=2)
    vote = majority_vote(predictions, pooled)
    between = (predictions != vote[None, :]).sum(axis=0) / (m - 1)
    total = within + (1.0 + 1.0 / m) * between
    if scaled:
        total = total * m / (2.0 * m + 1.0)
    return {"total": total, "within": within, "between": between, "prediction": vote, "proba": pooled}
