"""Input checks shared by every part of bayescal.

Every public function and estimator validates its input here, so that the same
bad input gets the same clear error everywhere (DESIGN.md, "Bad input"): a
``ValueError`` (or ``TypeError`` for a wrong type) whose message names the
argument, shows the offending value, says what was expected and, where one
exists, the remedy. Nothing is clipped, dropped or coerced silently.

The checks return validated NumPy arrays (``float64`` for scores and
probabilities, ``int64`` for labels) and never modify their input.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = [
    "encode_labels",
    "check_array_1d",
    "check_binary_scores",
    "check_consistent_length",
    "check_fraction",
    "check_labels",
    "check_matrix",
    "check_min_samples",
    "check_n_classes_present",
    "check_positive_int",
    "check_probability_matrix",
    "check_sample_weight",
    "check_targets",
    "describe_bad_values",
    "in_unit_interval",
]

#: Rows of a probability matrix may deviate from summing to one by this much.
ROW_SUM_TOLERANCE = 1e-6


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
        See :data:`SCORE_INPUTS`. ``"score"`` and ``"logit"``: probabilities,
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


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Validate an integer parameter ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"`{name}` must be an integer; got {value!r} of type {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}; got {value}.")
    return int(value)


def check_fraction(
    value: Any, name: str, *, inclusive_low: bool = False, inclusive_high: bool = False
) -> float:
    """Validate a real number in (0, 1) (bounds optionally inclusive)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"`{name}` must be a real number; got {value!r}.")
    v = float(value)
    lo_ok = v >= 0 if inclusive_low else v > 0
    hi_ok = v <= 1 if inclusive_high else v < 1
    if not (np.isfinite(v) and lo_ok and hi_ok):
        lo = "[" if inclusive_low else "("
        hi = "]" if inclusive_high else ")"
        raise ValueError(f"`{name}` must lie in {lo}0, 1{hi}; got {value!r}.")
    return v


def check_choice(value: Any, name: str, choices: Sequence[Any]) -> Any:
    """Validate that ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"`{name}` must be one of {list(choices)!r}; got {value!r}.")
    return value


__all__.append("check_choice")


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


__all__ += ["check_indicator_matrix", "check_probability_columns"]


def check_positive_number(value: Any, name: str) -> float:
    """Validate a positive, finite real number (a prior scale, a tolerance).

    Parameters
    ----------
    value : int or float
        The number; ``bool`` is rejected.
    name : str
        Argument name used in error messages.

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is not finite or not above zero.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"`{name}` must be a positive number; got {value!r}.")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"`{name}` must be a positive finite number; got {value!r}.")
    return float(value)


__all__.append("check_positive_number")


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


__all__.append("check_probability_pair")


# ---------------------------------------------------------------- score input and clipping
#: What a calibrator's scores are (the one ``input`` vocabulary of bayescal):
#: ``"score"``, a probability in [0, 1] read as it is; ``"logit"``, a probability
#: in [0, 1] read on the log-odds scale ``log(s / (1 - s))``; ``"decision"``, any
#: finite real number (a decision function, a margin, a logit) read as it is.
SCORE_INPUTS = ("score", "logit", "decision")

#: The one clip rule: a calibrator that takes logs of probabilities clips them to
#: ``[clip, 1 - clip]`` with this default ``clip`` (the ``eps`` scikit-learn's
#: temperature scaling adds before its log), counts the clipped scores in
#: ``n_clipped_``, and with ``clip=None`` raises on a score of exactly 0 or 1.
DEFAULT_CLIP = 1e-12


def input_constraint(*values: str) -> list[Any]:
    """The ``_parameter_constraints`` entry of ``input``: the one declaration of its values.

    A calibrator declares the members of :data:`SCORE_INPUTS` its method reads
    here and nowhere else; :func:`accepted_inputs` reads them back (for
    :func:`bayescal.calibration.calibrator_for`, the error remedies and the
    conformance test).

    Parameters
    ----------
    *values : str
        Members of :data:`SCORE_INPUTS`.

    Returns
    -------
    list

    Raises
    ------
    ValueError
        If a value is not in :data:`SCORE_INPUTS` (a programming error in a class).
    """
    from sklearn.utils._param_validation import StrOptions

    unknown = [v for v in values if v not in SCORE_INPUTS]
    if not values or unknown:
        raise ValueError(
            f"`values` must be members of {list(SCORE_INPUTS)!r}; got {list(values)!r}."
        )
    return [StrOptions(set(values))]


def accepted_inputs(estimator: Any) -> tuple[str, ...]:
    """The ``input`` values an estimator (or class) accepts, in :data:`SCORE_INPUTS` order.

    Read from the ``"input"`` entry of its ``_parameter_constraints`` (declared
    with :func:`input_constraint`); an estimator without an ``input``
    parameter reads probabilities only: ``("score",)``.

    Parameters
    ----------
    estimator : estimator instance or class

    Returns
    -------
    tuple of str
    """
    entry = getattr(estimator, "_parameter_constraints", {}).get("input")
    if entry is None:
        return ("score",)
    options: set[str] = set()
    for constraint in entry:
        options |= set(getattr(constraint, "options", ()))
    return tuple(v for v in SCORE_INPUTS if v in options)


def clip_constraint() -> list[Any]:
    """The ``_parameter_constraints`` entry of ``clip``: None or a float in (0, 0.5)."""
    from sklearn.utils._param_validation import Interval

    return [Interval(Real, 0.0, 0.5, closed="neither"), None]


def check_score_input(value: Any, allowed: Sequence[str], owner: str, remedy: str = "") -> str:
    """Validate an ``input`` parameter against the inputs a calibrator supports.

    Parameters
    ----------
    value : object
        The ``input`` parameter.
    allowed : sequence of str
        The members of :data:`SCORE_INPUTS` the calibrator accepts.
    owner : str
        Calibrator name for the message.
    remedy : str, optional
        What to do instead when ``value`` is a valid input the method cannot use
        (e.g. beta calibration needs probabilities).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``value`` is not in ``allowed``.
    """
    if value in allowed:
        return value
    if value in SCORE_INPUTS:
        raise ValueError(
            f"`input`={value!r} is not supported by {owner}, which accepts "
            f"{list(allowed)!r}. {remedy}".rstrip()
        )
    raise ValueError(
        f"The 'input' parameter of {owner} must be a str among {list(allowed)!r}; "
        f"got {value!r}. 'score': probabilities in [0, 1]; 'logit': probabilities read "
        "on the log-odds scale; 'decision': any real number (e.g. decision_function)."
    )


def clip_probabilities(
    values: np.ndarray,
    clip: float | None,
    *,
    name: str = "scores",
    owner: str = "this calibrator",
    upper: bool = True,
) -> tuple[np.ndarray, int]:
    """Apply bayescal's one clip rule before a log or logit of probabilities.

    Parameters
    ----------
    values : ndarray
        Validated probabilities in [0, 1].
    clip : float or None
        A float ``eps`` in (0, 0.5): values are clipped to ``[eps, 1 - eps]``
        (to ``[eps, 1]`` when ``upper`` is False, for ``log p`` alone).
        ``None``: strict, a value that would be clipped raises.
    name : str, default="scores"
        Argument name for the message.
    owner : str
        Calibrator name for the message.
    upper : bool, default=True
        Whether values near 1 are clipped too (a logit or ``log(1 - s)``).

    Returns
    -------
    clipped : ndarray
    n_clipped : int
        How many entries were moved.

    Raises
    ------
    ValueError
        If ``clip`` is None and a value is exactly 0 (or 1, with ``upper``).
    """
    if clip is None:
        bad = values <= 0.0
        if upper:
            bad |= values >= 1.0
        if bad.any():
            what = "exactly 0 or 1" if upper else "exactly 0"
            raise ValueError(
                f"`{name}` must lie strictly inside (0, 1) for {owner}, which takes logs, "
                f"because `clip`=None is strict; {describe_bad_values(values, bad)} are "
                f"{what}. Pass clip={DEFAULT_CLIP:g} (the default) or another eps in (0, 0.5) "
                "to clip scores to [eps, 1 - eps]; the count is recorded in n_clipped_."
            )
        return values, 0
    high = 1.0 - clip if upper else 1.0
    moved = (values < clip) | (values > high)
    return np.clip(values, clip, high), int(np.count_nonzero(moved))


#: The output floor of every map that ends in a sigmoid (Platt, beta, the
#: logistic GAM, the Bayesian maps, BLR): its probabilities lie in
#: ``[OUTPUT_FLOOR, 1 - OUTPUT_FLOOR]``, so a steep map on a clipped score never
#: returns an exact 0 or 1 (infinite log loss) by float64 rounding. 1e-15 is
#: the smallest floor whose complement ``1 - 1e-15`` float64 still tells from 1
#: with room to spare (its spacing below 1 is 1.1e-16).
OUTPUT_FLOOR = 1e-15
_LOGIT_BOUND = float(np.log1p(-OUTPUT_FLOOR) - np.log(OUTPUT_FLOOR))


def bounded_expit(eta: Any) -> np.ndarray:
    """The logistic function with bayescal's output floor, ``expit`` kept off 0 and 1.

    Parameters
    ----------
    eta : array-like
        Log-odds (any real numbers, e.g. a fitted map's linear predictor).

    Returns
    -------
    ndarray
        ``expit(eta)`` within ``[OUTPUT_FLOOR, 1 - OUTPUT_FLOOR]``: log-odds
        beyond ``±logit(1 - OUTPUT_FLOOR)`` (about ±34.5) give the floor.
        This is a property of the map's output, not a change of its input:
        the map itself (its coefficients, ``n_clipped_``) is untouched.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import expit
    >>> p = bounded_expit(np.array([-800.0, 0.0, 40.0]))
    >>> float(p[0]) == OUTPUT_FLOOR, float(p[1]), bool(p[2] < 1.0), bool(expit(40.0) == 1.0)
    (True, 0.5, True, True)
    """
    from scipy.special import expit

    p = expit(np.clip(eta, -_LOGIT_BOUND, _LOGIT_BOUND))
    return np.clip(p, OUTPUT_FLOOR, 1.0 - OUTPUT_FLOOR)


def has_credible_interval(estimator: Any) -> bool:
    """Whether ``estimator.predict_interval(X, prob)`` gives an interval of mass ``prob``.

    True for the Bayesian estimators (credible intervals); False for an
    estimator without ``predict_interval`` and for one whose interval has no
    nominal coverage and so refuses ``prob`` (the Venn-ABERS pair, which sets
    ``_interval_has_coverage = False``). Callers that pass ``prob`` (the study
    runner, the calibration-map plot) ask this first.
    """
    return hasattr(estimator, "predict_interval") and getattr(
        estimator, "_interval_has_coverage", True
    )


def bounded_softmax(eta: Any, axis: int = -1) -> np.ndarray:
    """The softmax with bayescal's output floor: no class probability is exactly 0 or 1.

    Parameters
    ----------
    eta : array-like
        Logits (any real numbers); ``axis`` indexes the ``K >= 2`` classes.
    axis : int, default=-1
        The class axis.

    Returns
    -------
    ndarray
        ``OUTPUT_FLOOR + (1 - K OUTPUT_FLOOR) softmax(eta)``: the softmax,
        computed in log space (``exp(log_softmax(eta))``, no overflow for any
        logits), mixed with the uniform distribution at weight
        ``K OUTPUT_FLOOR``. Every entry lies in
        ``[OUTPUT_FLOOR, 1 - (K - 1) OUTPUT_FLOOR]`` and rows still sum to 1.
        Where ``softmax`` itself is above the floor it moves by at most
        ``K OUTPUT_FLOOR``; the plain softmax rounds to exactly 0 once two
        logits differ by more than about 745 and to exactly 1 once the others
        are below ``1.1e-16`` of the largest (a difference of about 37).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import softmax
    >>> eta = np.array([[0.0, 40.0, -800.0]])
    >>> p = bounded_softmax(eta)
    >>> bool(softmax(eta).max() == 1.0), bool(p.max() < 1.0), bool(p.min() >= OUTPUT_FLOOR)
    (True, True, True)
    """
    from scipy.special import log_softmax

    eta = np.asarray(eta, dtype=float)
    n_classes = eta.shape[axis]
    return OUTPUT_FLOOR + (1.0 - n_classes * OUTPUT_FLOOR) * np.exp(log_softmax(eta, axis=axis))


__all__ += ["DEFAULT_CLIP", "OUTPUT_FLOOR", "SCORE_INPUTS", "accepted_inputs", "bounded_expit",
            "bounded_softmax", "check_score_input", "clip_constraint", "clip_probabilities",
            "has_credible_interval", "input_constraint"]


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


__all__ += ["check_classification_data", "check_features"]
