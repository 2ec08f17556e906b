"""Checks of class labels and calibration targets; labels of any kind encoded as codes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.validation.arrays import (
    _check_finite,
    _complex_message,
    check_array_1d,
    describe_bad_values,
)

__all__ = [
    "check_labels",
    "check_n_classes_present",
    "check_targets",
    "encode_labels",
]


def check_labels(values: Any, name: str = "y", *, n_classes: int | None = None) -> np.ndarray:
    """Validate integer class labels coded 0 to K-1.

    Parameters
    ----------
    values : array-like of shape (n,)
        Labels. Floats are accepted only when they are whole numbers.
    name : str, default="y"
        Argument name used in error messages.
    n_classes : int, optional
        K; labels must lie in ``0 .. n_classes-1``.

    Returns
    -------
    ndarray of shape (n,), int64
    """
    if values is None:
        raise ValueError(
            f"`{name}` is None: this estimator requires y to be passed, but the target y is None."
        )
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D; got an array of shape {arr.shape}.")
    if arr.shape[0] == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is required.")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iuf":
        raise TypeError(
            f"`{name}` must hold integer class codes 0..K-1; got dtype {arr.dtype}. "
            "Encode string labels first, e.g. with sklearn.preprocessing.LabelEncoder."
        )
    if arr.dtype.kind == "f":
        _check_finite(arr, name)
        frac = arr != np.round(arr)
        if frac.any():
            raise ValueError(
                f"Unknown label type: continuous. `{name}` must hold whole-number class "
                f"codes; {describe_bad_values(arr, frac)} are fractional. Fractional targets "
                "are accepted only by calibrators."
            )
    labels = arr.astype(np.int64)
    neg = labels < 0
    if neg.any():
        raise ValueError(
            f"`{name}` must hold class codes 0..K-1; {describe_bad_values(labels, neg)} are negative."
        )
    if n_classes is not None:
        high = labels >= n_classes
        if high.any():
            raise ValueError(
                f"`{name}` must hold class codes 0..{n_classes - 1} for {n_classes} classes; "
                f"{describe_bad_values(labels, high)} are out of range."
            )
    return labels


def check_targets(values: Any, name: str = "y") -> np.ndarray:
    """Validate binary calibration targets: labels in {0, 1} or fractions in [0, 1].

    Fractional targets arise from grouped calibration data (DGG) and from Platt's
    smoothed targets.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    arr = np.asarray(values)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.float64)
    if arr.dtype.kind in "US" or arr.dtype == object:
        raise TypeError(
            f"`{name}` must hold 0/1 labels or fractions in [0, 1]; got dtype {arr.dtype}."
        )
    return check_array_1d(arr, name, low=0.0, high=1.0)


def check_n_classes_present(labels: np.ndarray, name: str = "y", minimum: int = 2) -> None:
    """Raise when fewer than ``minimum`` distinct classes are present.

    For fractional targets, "two classes" means the targets are not all equal.
    """
    distinct = np.unique(labels)
    if distinct.size < minimum:
        raise ValueError(
            f"`{name}` contains a single class ({distinct[0]!r}; 1 class) but at least "
            f"{minimum} are needed to fit; check the data split (a stratified split keeps "
            "every class)."
        )


def encode_labels(
    values: Any, name: str = "y", *, minimum_classes: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Class labels of any sortable kind (ints, strings, bools) as codes ``0..K-1``.

    The one place where classifiers turn ``y`` into ``classes_`` and codes.

    Parameters
    ----------
    values : array-like of shape (n,)
        Labels.
    name : str, default="y"
        Argument name used in error messages.
    minimum_classes : int, default=2
        Fewest distinct classes accepted.

    Returns
    -------
    classes : ndarray of shape (K,)
        The sorted distinct labels (``np.unique``).
    codes : ndarray of shape (n,), int64
        Index of each label in ``classes``.

    Raises
    ------
    ValueError
        For a ``y`` that is None, not 1-D, empty, complex, holds NaN/inf or
        continuous values (worded "Unknown label type: continuous" as
        scikit-learn's checks expect), or has fewer than ``minimum_classes``
        classes.
    TypeError
        For labels of mixed types that cannot be sorted.

    Examples
    --------
    >>> classes, codes = encode_labels(["b", "a", "b"])
    >>> classes.tolist(), codes.tolist()
    (['a', 'b'], [1, 0, 1])
    """
    if values is None:
        raise ValueError(
            f"`{name}` is None: this estimator requires y to be passed, but the target y is "
            "None. Pass one class label per row of X."
        )
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(
            f"`{name}` must be 1-D (one label per sample); got an array of shape {arr.shape}. "
            "Use y.ravel() for a single column."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is required.")
    if arr.dtype.kind in "fc":
        if arr.dtype.kind == "c":
            raise ValueError(_complex_message(name, arr.dtype))
        _check_finite(arr, name)
        fractional = arr != np.round(arr)
        if fractional.any():
            raise ValueError(
                f"Unknown label type: continuous. `{name}` must hold class labels; "
                f"{describe_bad_values(arr, fractional)} are not whole numbers. Bin a "
                "continuous target into classes first, or use a regressor."
            )
    try:
        classes, codes = np.unique(arr, return_inverse=True)
    except TypeError as exc:
        raise TypeError(
            f"`{name}` holds labels of mixed types that cannot be sorted ({exc}); use one "
            "type for every label, e.g. y.astype(str)."
        ) from None
    check_n_classes_present(codes, name, minimum_classes)
    return classes, codes.astype(np.int64)
