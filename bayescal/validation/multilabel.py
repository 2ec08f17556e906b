"""Checks of multi-label data: 0/1 indicator matrices and per-label probabilities.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.validation.arrays import (
    _as_float_array,
    _check_bounds,
    _check_finite,
    _check_not_empty,
    describe_bad_values,
)

__all__ = [
    "check_indicator_matrix",
    "check_probability_columns",
]


def _label_columns(values: Any, name: str) -> np.ndarray:
    """A finite, non-empty (n, L) float matrix with one column per label (1-D: one label)."""
    arr = _as_float_array(values, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"`{name}` must be 1-D or 2-D (n, n_labels); got shape {arr.shape}.")
    _check_not_empty(arr, name)
    if arr.shape[1] == 0:
        raise ValueError(
            f"`{name}` has no label columns: 0 feature(s) (shape={arr.shape}) while a minimum "
            "of 1 is required (one column per label)."
        )
    _check_finite(arr, name)
    return arr


def check_indicator_matrix(values: Any, name: str = "Y") -> np.ndarray:
    """Validate a multi-label indicator matrix of 0/1 entries.

    Parameters
    ----------
    values : array-like of shape (n, L) or (n,)
        Indicators (bool, integers or whole floats); a 1-D array is one label.
    name : str, default="Y"
        Argument name used in error messages.

    Returns
    -------
    ndarray of shape (n, L), float64 holding only 0.0 and 1.0
    """
    arr = _label_columns(values, name)
    bad = (arr != 0.0) & (arr != 1.0)
    if bad.any():
        raise ValueError(
            f"`{name}` must hold 0/1 label indicators; {describe_bad_values(arr, bad)} are not 0 or 1."
        )
    return arr


def check_probability_columns(values: Any, name: str = "P") -> np.ndarray:
    """Validate per-label (multi-label) probabilities: each entry in [0, 1], rows free.

    Parameters
    ----------
    values : array-like of shape (n, L) or (n,)
        Independent probabilities, one column per label (rows need not sum to 1);
        a 1-D array is one label.
    name : str, default="P"
        Argument name used in error messages.

    Returns
    -------
    ndarray of shape (n, L), float64
    """
    arr = _label_columns(values, name)
    _check_bounds(arr, name, 0.0, 1.0)
    return arr
