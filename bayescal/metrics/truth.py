"""Errors against known true probabilities (synthetic data only).

When data are simulated, the true class probabilities ``p_true`` are known and
an estimate can be scored against them directly instead of against 0/1 labels
(Phelps et al. 2024, simulation study: RMSE and MAE).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.validation import check_probability_pair, check_sample_weight

__all__ = ["mae_true", "rmse_true"]


def _weighted_differences(
    p_true: Any, proba: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``proba - p_true`` of shape (n, K) and the sample weights."""
    T, P = check_probability_pair(p_true, proba, "p_true", "proba")
    return P - T, check_sample_weight(sample_weight, T.shape[0])


def rmse_true(p_true: Any, proba: Any, *, sample_weight: Any = None) -> float:
    """Root mean squared error of estimated against true probabilities.

    Parameters
    ----------
    p_true : array-like of shape (n, K) or (n,)
        True class probabilities (1-D: binary positive-class probability).
    proba : array-like of shape (n, K) or (n,)
        Estimated probabilities, same shape as ``p_true``.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights of the mean over samples.

    Returns
    -------
    float
        In ``[0, 1]``; lower is better.

    Raises
    ------
    ValueError
        On NaN/inf, values outside [0, 1], rows not summing to 1, different
        shapes or empty input.

    Notes
    -----
    .. math:: \\mathrm{RMSE} = \\sqrt{\\frac{1}{nK} \\sum_{i=1}^n \\sum_{k=1}^K
              (\\hat p_{ik} - p_{ik})^2}

    For a binary problem both columns have the same squared error, so this is
    the RMSE of the positive-class probability used in Phelps et al. (2024).

    Examples
    --------
    >>> round(rmse_true([0.2, 0.8], [0.3, 0.6]), 6)
    0.158114
    """
    D, w = _weighted_differences(p_true, proba, sample_weight)
    return float(np.sqrt(np.average(np.mean(D**2, axis=1), weights=w)))


def mae_true(p_true: Any, proba: Any, *, sample_weight: Any = None) -> float:
    """Mean absolute error of estimated against true probabilities.

    Parameters
    ----------
    p_true, proba, sample_weight
        As in :func:`rmse_true`.

    Returns
    -------
    float
        In ``[0, 1]``; lower is better.

    Raises
    ------
    ValueError
        As :func:`rmse_true`.

    Notes
    -----
    .. math:: \\mathrm{MAE} = \\frac{1}{nK} \\sum_{i=1}^n \\sum_{k=1}^K
              |\\hat p_{ik} - p_{ik}|

    equal, for a binary problem, to the MAE of the positive-class probability
    (Phelps et al. 2024).

    Examples
    --------
    >>> round(mae_true([0.2, 0.8], [0.3, 0.6]), 6)
    0.15
    """
    D, w = _weighted_differences(p_true, proba, sample_weight)
    return float(np.average(np.mean(np.abs(D), axis=1), weights=w))
