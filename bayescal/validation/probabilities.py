"""Checks of probabilities and scores: binary scores, ``(n, K)`` class probabilities, pairs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.contracts import SCORE_INPUTS
from bayescal.validation.arrays import (
    _as_float_array,
    _check_bounds,
    _check_finite,
    _check_not_empty,
    _finite_within,
    describe_bad_values,
)

__all__ = [
    "ROW_SUM_TOLERANCE",
    "check_binary_scores",
    "check_probability_matrix",
    "check_probability_pair",
]


#: Rows of a probability matrix may deviate from summing to one by this much.
ROW_SUM_TOLERANCE = 1e-6


def check_binary_scores(
    values: Any, name: str = "scores", *, input: str = "score", copy: bool = True
) -> np.ndarray:
    """Validate binary classifier scores and return them as a 1-D array.

    Parameters
    ----------
    values : array-like of shape (n,) or (n, 2)
        Scores of the positive class, or a two-column probability array whose
        second column is taken (its rows must sum to one).
    name : str, default="scores"
        Argument name used in error messages.
    input : {"score", "logit", "decision"}, default="score"
        See :data:`bayescal.contracts.SCORE_INPUTS`. ``"score"`` and ``"logit"``: probabilities,
        values must lie in [0, 1]; ``"decision"``: any finite real.
    copy : bool, default=True
        Return a copy. With ``copy=False`` a valid float64 array comes back
        without one (the same memory, or a view of the column of an ``(n,
        2)`` array): for callers that never write to the scores, which saves
        a pass over large inputs. The checks are the same.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    if input not in SCORE_INPUTS:
        raise ValueError(f"`input` must be one of {list(SCORE_INPUTS)!r}; got {input!r}.")
    probabilities = input != "decision"
    arr = _as_float_array(values, name, copy=copy)
    if arr.ndim == 2 and arr.shape[1] == 2 and probabilities:
        return check_probability_matrix(arr, name, n_classes=2)[:, 1]
    if arr.ndim == 2 and arr.shape[1] == 1:
        raise ValueError(
            f"`{name}` has shape {arr.shape}; pass a 1-D array of scores (use .ravel()) "
            "or an (n, 2) probability array."
        )
    if arr.ndim != 1:
        raise ValueError(
            f"`{name}` must be a 1-D array of scores or an (n, 2) probability array; "
            f"got shape {arr.shape}."
        )
    if _finite_within(arr, 0.0 if probabilities else None, 1.0 if probabilities else None):
        return arr
    _check_not_empty(arr, name)
    _check_finite(arr, name)
    if probabilities:
        _check_bounds(arr, name, 0.0, 1.0)
    return arr


def check_probability_matrix(
    values: Any,
    name: str = "proba",
    *,
    n_classes: int | None = None,
    atol: float = ROW_SUM_TOLERANCE,
) -> np.ndarray:
    """Validate an ``(n, K)`` matrix of class probabilities.

    A 1-D array is read as the positive-class probability of a binary problem and
    returned as the two-column matrix ``[1 - p, p]``.

    Parameters
    ----------
    values : array-like of shape (n, K) or (n,)
        Probabilities.
    name : str, default="proba"
        Argument name used in error messages.
    n_classes : int, optional
        Required number of columns.
    atol : float, default=1e-6
        Allowed deviation of each row sum from one.

    Returns
    -------
    ndarray of shape (n, K), float64
    """
    arr = _as_float_array(values, name)
    if arr.ndim == 1:
        _check_not_empty(arr, name)
        _check_finite(arr, name)
        _check_bounds(arr, name, 0.0, 1.0)
        arr = np.column_stack([1.0 - arr, arr])
    elif arr.ndim != 2:
        raise ValueError(f"`{name}` must be 1-D or 2-D; got an array of shape {arr.shape}.")
    _check_not_empty(arr, name)
    if arr.shape[1] < 2:
        raise ValueError(
            f"`{name}` must have at least 2 columns (one per class): {arr.shape[1]} feature(s) "
            f"(shape={arr.shape}) while a minimum of 2 is required."
        )
    if n_classes is not None and arr.shape[1] != n_classes:
        raise ValueError(
            f"`{name}` has {arr.shape[1]} columns but {n_classes} classes were expected."
        )
    _check_finite(arr, name)
    _check_bounds(arr, name, 0.0, 1.0)
    sums = arr.sum(axis=1)
    bad = np.abs(sums - 1.0) > atol
    if bad.any():
        raise ValueError(
            f"rows of `{name}` must sum to 1 (tolerance {atol}); row sums are off at "
            f"{describe_bad_values(sums, bad)}. Normalise with proba / proba.sum(axis=1, keepdims=True) "
            "if that is what you intend."
        )
    return arr


def check_probability_pair(
    first: Any, second: Any, first_name: str, second_name: str
) -> tuple[np.ndarray, np.ndarray]:
    """Validate two probability arrays that must describe the same samples and classes.

    Parameters
    ----------
    first, second : array-like of shape (n, K) or (n,)
        Class probabilities (see :func:`check_probability_matrix`; 1-D means
        the positive-class probability of a binary problem).
    first_name, second_name : str
        Argument names used in error messages.

    Returns
    -------
    first, second : ndarray of shape (n, K)

    Raises
    ------
    ValueError
        As :func:`check_probability_matrix`, or when the two shapes differ.
    """
    A = check_probability_matrix(first, first_name)
    B = check_probability_matrix(second, second_name)
    if A.shape != B.shape:
        raise ValueError(
            f"`{first_name}` has shape {A.shape} but `{second_name}` has shape {B.shape}; "
            "both must describe the same samples and classes (1-D arrays mean binary)."
        )
    return A, B
