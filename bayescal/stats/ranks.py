"""Ranks of methods across datasets (Demšar 2006, Section 3.2.2).

The across-dataset tests of :mod:`bayescal.stats.friedman` and
:mod:`bayescal.stats.posthoc` start from one score per dataset and method (the
mean over the folds) arranged as an ``(n_datasets, n_methods)`` matrix. This
module validates such a matrix once and ranks the methods within each dataset:
rank 1 is the best method, ties share the average of the ranks they span.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.validation import describe_bad_values
from bayescal.validation.arrays import _as_float_array

__all__ = ["check_score_matrix", "mean_ranks", "rank_methods"]


def check_score_matrix(
    scores: Any, name: str = "scores", *, min_datasets: int = 2, min_methods: int = 2
) -> np.ndarray:
    """Validate an ``(n_datasets, n_methods)`` matrix of finite scores.

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One score per dataset (row) and method (column).
    name : str, default="scores"
        Argument name used in error messages.
    min_datasets, min_methods : int, default=2
        Fewest rows and columns accepted.

    Returns
    -------
    ndarray of shape (n_datasets, n_methods), float64

    Raises
    ------
    ValueError
        If the matrix is not 2-D, too small, or holds NaN/inf (a comparison
        across datasets needs every method scored on every dataset; nothing is
        dropped silently).
    TypeError
        If the entries are not numbers.
    """
    arr = _as_float_array(scores, name)
    if arr.ndim != 2:
        raise ValueError(
            f"`{name}` must be 2-D (n_datasets, n_methods); got an array of shape {arr.shape}."
        )
    n_datasets, n_methods = arr.shape
    if n_datasets < min_datasets:
        raise ValueError(
            f"`{name}` has {n_datasets} dataset(s) (rows) but a comparison across datasets "
            f"needs at least {min_datasets}; add datasets to the study."
        )
    if n_methods < min_methods:
        raise ValueError(
            f"`{name}` has {n_methods} method(s) (columns) but a comparison needs at least "
            f"{min_methods}."
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(
            f"`{name}` contains NaN or inf: {describe_bad_values(arr, bad)}. Every method "
            "must be scored on every dataset; drop the dataset or the method explicitly."
        )
    return arr


def rank_methods(scores: Any, *, lower_is_better: bool = True) -> np.ndarray:
    """Rank the methods within each dataset (1 = best, ties averaged).

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One score per dataset and method, finite.
    lower_is_better : bool, default=True
        Direction of the metric (True for losses such as the Brier score,
        False for accuracy).

    Returns
    -------
    ndarray of shape (n_datasets, n_methods)
        Rank of each method on each dataset; each row sums to
        ``k (k + 1) / 2``.

    Raises
    ------
    ValueError
        As :func:`check_score_matrix` (one dataset is enough here).

    Notes
    -----
    Tied scores receive the mean of the ranks they occupy (Demšar 2006,
    Section 3.2.2), as ``scipy.stats.rankdata(method="average")``.

    References
    ----------
    J. Demšar, "Statistical comparisons of classifiers over multiple data
    sets", JMLR 7:1-30, 2006.

    Examples
    --------
    >>> rank_methods([[0.10, 0.20, 0.10], [0.30, 0.20, 0.25]])
    array([[1.5, 3. , 1.5],
           [3. , 1. , 2. ]])
    """
    from scipy.stats import rankdata

    if not isinstance(lower_is_better, (bool, np.bool_)):
        raise TypeError(f"`lower_is_better` must be a bool; got {lower_is_better!r}.")
    arr = check_score_matrix(scores, min_datasets=1)
    oriented = arr if lower_is_better else -arr
    return rankdata(oriented, method="average", axis=1)


def mean_ranks(scores: Any, *, lower_is_better: bool = True) -> np.ndarray:
    """Average rank of each method across datasets (Demšar 2006, R_j).

    Parameters
    ----------
    scores : array-like of shape (n_datasets, n_methods)
        One score per dataset and method, finite.
    lower_is_better : bool, default=True
        Direction of the metric.

    Returns
    -------
    ndarray of shape (n_methods,)

    Examples
    --------
    >>> mean_ranks([[0.10, 0.20], [0.30, 0.20]])
    array([1.5, 1.5])
    """
    return rank_methods(scores, lower_is_better=lower_is_better).mean(axis=0)
