"""Validation of the ``(y, p)`` pair every assessment statistic takes."""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.validation import (
    check_binary_scores,
    check_consistent_length,
    check_labels,
    check_min_samples,
    check_n_classes_present,
)

__all__ = ["MIN_SAMPLES", "check_outcomes"]

#: Fewest rows any assessment accepts (a logistic recalibration with two
#: parameters and a smoother over 2/3 of the rows need a handful of each class).
MIN_SAMPLES = 10


def check_outcomes(
    y: Any, p: Any, *, minimum: int = MIN_SAMPLES
) -> tuple[np.ndarray, np.ndarray]:
    """Validate binary outcomes and positive-class probabilities.

    Parameters
    ----------
    y : array-like of shape (n,)
        Outcomes coded 0/1; both must occur.
    p : array-like of shape (n,) or (n, 2)
        Predicted probabilities of outcome 1, in [0, 1].
    minimum : int, default=MIN_SAMPLES
        Fewest rows accepted.

    Returns
    -------
    y : ndarray of shape (n,), float64
    p : ndarray of shape (n,), float64

    Raises
    ------
    ValueError
        On NaN/inf or values outside [0, 1] in ``p``, labels other than 0/1,
        one class only, mismatched lengths or fewer than ``minimum`` rows.
    """
    proba = check_binary_scores(p, "p")
    labels = check_labels(y, "y", n_classes=2)
    check_consistent_length(y=labels, p=proba)
    check_min_samples(labels.shape[0], minimum, "y", "a calibration assessment")
    check_n_classes_present(labels, "y")
    return labels.astype(np.float64), proba
