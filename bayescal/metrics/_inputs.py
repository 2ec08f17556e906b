"""Validation of the ``(y, proba)`` pair that every metric takes.

One function reads labels and probabilities together so that every metric
rejects the same bad input with the same message (DESIGN.md, "Bad input").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.validation import (
    check_consistent_length,
    check_labels,
    check_probability_matrix,
    check_sample_weight,
)


def check_labels_and_proba(
    y: Any, proba: Any, *, y_name: str = "y", proba_name: str = "proba"
) -> tuple[np.ndarray, np.ndarray]:
    """Validate class labels and an ``(n, K)`` (or binary 1-D) probability array.

    Parameters
    ----------
    y : array-like of shape (n,)
        Class codes ``0 .. K-1``.
    proba : array-like of shape (n, K) or (n,)
        Class probabilities; a 1-D array is the positive-class probability of a
        binary problem.
    y_name, proba_name : str
        Argument names used in error messages.

    Returns
    -------
    labels : ndarray of shape (n,), int64
    P : ndarray of shape (n, K), float64
    """
    P = check_probability_matrix(proba, proba_name)
    labels = check_labels(y, y_name, n_classes=P.shape[1])
    check_consistent_length(**{y_name: labels, proba_name: P})
    return labels, P


def check_weighted_labels_and_proba(
    y: Any, proba: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`check_labels_and_proba` plus the ``sample_weight`` of a weighted metric.

    Returns
    -------
    labels : ndarray of shape (n,), int64
    P : ndarray of shape (n, K), float64
    weights : ndarray of shape (n,)
        Non-negative weights; ones when ``sample_weight`` is None.
    """
    labels, P = check_labels_and_proba(y, proba)
    return labels, P, check_sample_weight(sample_weight, labels.shape[0])
