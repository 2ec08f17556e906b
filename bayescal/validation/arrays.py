"""Checks of numeric arrays: type, shape, finiteness, bounds, lengths, weights.

The building blocks of every input check in :mod:`bayescal.validation`: an
array is read as ``float64`` (never modified), and a bad entry is named in the
error with its index and value (:func:`describe_bad_values`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "check_array_1d",
    "check_consistent_length",
    "check_matrix",
    "check_min_samples",
    "check_sample_weight",
    "describe_bad_values",
    "in_unit_interval",
]


def describe_bad_values(values: np.ndarray, mask: np.ndarray, limit: int = 3) -> str:
    """Describe the first offending entries of ``values`` selected by ``mask``.

    Parameters
    ----------
    values : ndarray
        The array that was checked.
    mask : ndarray of bool
        Same shape as ``values``; True where an entry is bad.
    limit : int, default=3
        How many entries to show.

    Returns
    -------
    str
        For example ``"2 entries, first at index (4,): nan"``.
    """
    idx = np.argwhere(mask)
    count = len(idx)
    shown = ", ".join(
        f"index {tuple(int(i) for i in row)}: {values[tuple(row)]!r}" for row in idx[:limit]
    )
    more = "" if count <= limit else f", and {count - limit} more"
    noun = "entry" if count == 1 else "entries"
    return f"{count} {noun} ({shown}{more})"


def _as_float_array(values: Any, name: str, copy: bool = True) -> np.ndarray:
    if values is None:
        raise ValueError(f"`{name}` is None; expected an array of numbers.")
    if type(values).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"`{name}` is a sparse matrix, which is not supported here; pass a dense array "
            f"({name}.toarray())."
        )
    try:
        arr = np.asarray(values)
    except Exception as exc:  # ragged lists and similar
        raise ValueError(f"`{name}` could not be read as an array: {exc}") from exc
    if arr.dtype == object or arr.dtype.kind in "USV":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"`{name}` must hold numbers; got values of dtype {arr.dtype} "
                f"that cannot be read as floats ({exc})."
            ) from exc
    if arr.dtype.kind == "c":
        raise ValueError(_complex_message(name, arr.dtype))
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"`{name}` must hold numbers; got dtype {arr.dtype}.")
    # copy=False: an input that is already float64 comes back as it is (a view)
    return arr.astype(np.float64, copy=copy)


def _complex_message(name: str, dtype: Any) -> str:
    # "Complex data not supported" is scikit-learn's phrase, which its checks look for.
    return (
        f"`{name}` holds complex numbers (dtype {dtype}): Complex data not supported. "
        f"Pass real values, e.g. {name}.real or np.abs({name}) if that is what you mean."
    )


def _check_finite(arr: np.ndarray, name: str, allow_nan: bool = False) -> None:
    bad = ~np.isfinite(arr)
    if allow_nan:
        bad &= ~np.isnan(arr)
    if bad.any():
        what = "inf" if allow_nan else "NaN or inf"
        raise ValueError(
            f"`{name}` contains {what}: {describe_bad_values(arr, bad)}. "
            "bayescal does not drop or impute silently; remove or impute these entries first."
        )


def _finite_within(arr: np.ndarray, low: float | None, high: float | None) -> bool:
    """True when every entry is finite and in ``[low, high]``: two reductions.

    A fast accept for large valid inputs (``min``/``max`` propagate NaN and
    need no boolean temporaries); on False the detailed checks run and word
    the error.
    """
    if arr.size == 0:
        return False
    if low == 0.0 and high == 1.0 and arr.dtype == np.float64 and in_unit_interval(arr):
        return True
    lo, hi = arr.min(), arr.max()
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return False
    return (low is None or lo >= low) and (high is None or hi <= high)


#: IEEE-754 bits of 1.0 read as an unsigned integer.
_ONE_BITS = np.float64(1.0).view(np.uint64)


def in_unit_interval(arr: np.ndarray) -> bool:
    """True when every entry of a float64 array lies in [+0.0, 1.0]: one reduction.

    Read as unsigned integers, the bits of the doubles +0.0 ... 1.0 are the
    integers 0 ... bits(1.0) in the same order, and every other double
    (negative, -0.0, above 1, inf, NaN) has larger bits; so one ``max`` over
    the bits accepts exactly [+0.0, 1.0]. False is no verdict on -0.0 (a
    valid 0): callers then run their full checks.

    Parameters
    ----------
    arr : ndarray of float64

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> in_unit_interval(np.array([0.0, 0.5, 1.0])), in_unit_interval(np.array([0.5, np.nan]))
    (True, False)
    """
    return arr.size > 0 and bool(arr.view(np.uint64).max() <= _ONE_BITS)


def _check_not_empty(arr: np.ndarray, name: str) -> None:
    if arr.shape[0] == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is required.")


def check_array_1d(
    values: Any,
    name: str,
    *,
    allow_nan: bool = False,
    low: float | None = None,
    high: float | None = None,
) -> np.ndarray:
    """Validate a 1-D array of finite real numbers.

    Parameters
    ----------
    values : array-like of shape (n,)
        The values.
    name : str
        Argument name used in error messages.
    allow_nan : bool, default=False
        Whether NaN entries are allowed (inf never is).
    low, high : float, optional
        Inclusive bounds every (non-NaN) value must respect.

    Returns
    -------
    ndarray of shape (n,), float64

    Raises
    ------
    ValueError
        If the array is not 1-D, empty, non-finite or out of bounds.
    """
    arr = _as_float_array(values, name)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D; got an array of shape {arr.shape}.")
    if _finite_within(arr, low, high):
        return arr
    _check_not_empty(arr, name)
    _check_finite(arr, name, allow_nan=allow_nan)
    _check_bounds(arr, name, low, high)
    return arr


def _check_bounds(arr: np.ndarray, name: str, low: float | None, high: float | None) -> None:
    with np.errstate(invalid="ignore"):
        if low is not None:
            bad = arr < low
            if bad.any():
                raise ValueError(
                    f"`{name}` must be >= {low}; {describe_bad_values(arr, bad)} fall below."
                )
        if high is not None:
            bad = arr > high
            if bad.any():
                raise ValueError(
                    f"`{name}` must be <= {high}; {describe_bad_values(arr, bad)} lie above."
                )


def check_matrix(
    values: Any,
    name: str = "X",
    *,
    allow_nan: bool = False,
    min_samples: int = 1,
) -> np.ndarray:
    """Validate a 2-D feature matrix of real numbers.

    Parameters
    ----------
    values : array-like of shape (n, d)
        The matrix. A 1-D array is rejected with a remedy (reshape).
    name : str, default="X"
        Argument name used in error messages.
    allow_nan : bool, default=False
        Whether NaN marks missing entries (inf is never allowed).
    min_samples : int, default=1
        Fewest rows accepted.

    Returns
    -------
    ndarray of shape (n, d), float64
    """
    if hasattr(values, "toarray") and hasattr(values, "nnz"):
        raise TypeError(
            f"`{name}` is a sparse matrix, which is not supported: pass a dense array "
            f"({name}.toarray())."
        )
    arr = _as_float_array(values, name)
    if arr.ndim == 1:
        raise ValueError(
            f"`{name}` must be 2-D (n_samples, n_features); got a 1-D array of length "
            f"{arr.shape[0]}. Reshape your data with X.reshape(-1, 1) for a single feature."
        )
    if arr.ndim != 2:
        raise ValueError(f"`{name}` must be 2-D; got an array of shape {arr.shape}.")
    _check_not_empty(arr, name)
    if arr.shape[1] == 0:
        raise ValueError(
            f"`{name}` has no features: 0 feature(s) (shape={arr.shape}) while a minimum of 1 "
            "is required."
        )
    _check_finite(arr, name, allow_nan=allow_nan)
    check_min_samples(arr.shape[0], min_samples, name)
    return arr


def check_consistent_length(**arrays: Any) -> int:
    """Check that all named arrays have the same number of samples.

    Parameters
    ----------
    **arrays
        Name to array; ``None`` values are ignored.

    Returns
    -------
    int
        The common length.
    """
    lengths = {name: len(a) for name, a in arrays.items() if a is not None}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"`{k}` has {v}" for k, v in lengths.items())
        raise ValueError(f"inconsistent numbers of samples: {desc}.")
    return next(iter(lengths.values()), 0)


def check_sample_weight(sample_weight: Any, n_samples: int, name: str = "sample_weight") -> np.ndarray:
    """Validate non-negative sample weights; ``None`` gives unit weights."""
    if sample_weight is None:
        return np.ones(n_samples)
    w = check_array_1d(sample_weight, name, low=0.0)
    if w.shape[0] != n_samples:
        raise ValueError(f"`{name}` has {w.shape[0]} entries but there are {n_samples} samples.")
    if not np.any(w > 0):
        raise ValueError(f"`{name}` is all zero; at least one sample needs positive weight.")
    return w


def check_min_samples(n_samples: int, minimum: int, name: str, method: str | None = None) -> None:
    """Raise when ``n_samples`` is below what a method needs."""
    if n_samples < minimum:
        who = f" {method}" if method else ""
        raise ValueError(
            f"`{name}` has {n_samples} samples but{who} needs at least {minimum}."
        )
