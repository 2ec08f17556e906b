"""Checks of an estimator's data: the feature matrix (with ``n_features_in_``) and ``(X, y)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.validation.arrays import check_consistent_length, check_matrix
from bayescal.validation.labels import encode_labels

__all__ = [
    "check_classification_data",
    "check_features",
]


def check_features(
    estimator: Any,
    X: Any,
    name: str = "X",
    *,
    reset: bool,
    allow_nan: bool = False,
    min_samples: int = 1,
) -> np.ndarray:
    """Validate an estimator's feature matrix and keep its feature count in step.

    :func:`check_matrix` checks the values (with bayescal's messages);
    scikit-learn's ``validate_data`` (``skip_check_array=True``) then records
    ``n_features_in_`` and, for a DataFrame, ``feature_names_in_`` when
    ``reset`` is True (in ``fit``), or checks ``X`` against them when False
    (in ``predict`` and friends), with scikit-learn's wording.

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator being fitted or used.
    X : array-like of shape (n, d)
        The features.
    name : str, default="X"
        Argument name used in error messages.
    reset : bool
        True in ``fit`` (record the features), False afterwards (compare).
    allow_nan : bool, default=False
        Whether NaN marks a missing entry (inf never is allowed).
    min_samples : int, default=1
        Fewest rows accepted.

    Returns
    -------
    ndarray of shape (n, d), float64

    Raises
    ------
    ValueError
        As :func:`check_matrix`; and, with ``reset=False``, when ``X`` has a
        different number of features (or other column names) than in ``fit``.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> est = BaseEstimator()
    >>> check_features(est, [[0.0, 1.0], [2.0, 3.0]], reset=True).shape, est.n_features_in_
    ((2, 2), 2)
    """
    from sklearn.utils.validation import validate_data

    arr = check_matrix(X, name, allow_nan=allow_nan, min_samples=min_samples)
    try:
        validate_data(estimator, X, reset=reset, skip_check_array=True)
    except ValueError as exc:
        raise ValueError(
            f"{exc} Pass `{name}` with the columns {type(estimator).__name__} was fitted on."
        ) from None
    return arr


def check_classification_data(
    estimator: Any,
    X: Any,
    y: Any,
    *,
    allow_nan: bool = False,
    min_samples: int = 1,
    minimum_classes: int = 2,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a classifier's ``fit(X, y)`` input in one call.

    ``X`` through :func:`check_features` (``reset=True``: records
    ``n_features_in_``), their lengths against each other, then ``y`` through
    :func:`encode_labels`.

    Parameters
    ----------
    estimator : BaseEstimator
        The classifier being fitted.
    X : array-like of shape (n, d)
        Features.
    y : array-like of shape (n,)
        Class labels of any sortable kind.
    allow_nan, min_samples
        As :func:`check_features`.
    minimum_classes : int, default=2
        As :func:`encode_labels`.

    Returns
    -------
    X : ndarray of shape (n, d), float64
    classes : ndarray of shape (K,)
        The sorted distinct labels (the classifier's ``classes_``).
    codes : ndarray of shape (n,), int64
        Index of each label in ``classes``.

    Examples
    --------
    >>> from sklearn.base import BaseEstimator
    >>> X, classes, codes = check_classification_data(
    ...     BaseEstimator(), [[0.0], [1.0], [2.0]], ["b", "a", "b"])
    >>> classes.tolist(), codes.tolist()
    (['a', 'b'], [1, 0, 1])
    """
    arr = check_features(
        estimator, X, "X", reset=True, allow_nan=allow_nan, min_samples=min_samples
    )
    y_arr = None if y is None else np.asarray(y)
    if y_arr is not None and y_arr.ndim >= 1:  # None, scalars: encode_labels says what is wrong
        check_consistent_length(X=arr, y=y_arr)
    classes, codes = encode_labels(y_arr, "y", minimum_classes=minimum_classes)
    return arr, classes, codes
