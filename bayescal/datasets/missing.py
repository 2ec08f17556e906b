"""Insert missing values into a feature matrix under MCAR, MAR or MNAR.

Used to study how calibration and uncertainty behave when features are missing
(Alasalmi 2020 §3.2 removes feature values completely at random from iris and
wine). The three mechanisms follow Rubin's (1976) taxonomy.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np

from bayescal.datasets._rng import as_generator
from bayescal.validation import check_choice, check_fraction, check_matrix

__all__ = ["MISSING_MECHANISMS", "add_missing"]

#: Mechanisms understood by :func:`add_missing`.
MISSING_MECHANISMS = ("mcar", "mar", "mnar")


def _check_columns(columns: Any, n_features: int) -> np.ndarray:
    if isinstance(columns, Integral | str) or not isinstance(columns, Sequence | np.ndarray):
        raise TypeError(f"`columns` must be a sequence of column indices; got {columns!r}.")
    cols = np.asarray(columns)
    if cols.size == 0:
        raise ValueError("`columns` is empty; name at least one column to receive NaN.")
    if cols.dtype.kind not in "iu":
        raise TypeError(f"`columns` must hold integer column indices; got {columns!r}.")
    if cols.ndim != 1 or (cols < 0).any() or (cols >= n_features).any():
        raise ValueError(
            f"`columns` must hold indices in 0..{n_features - 1}; got {cols.tolist()}."
        )
    if np.unique(cols).size != cols.size:
        raise ValueError(f"`columns` has repeated indices: {cols.tolist()}.")
    return np.sort(cols)


def _standardise(values: np.ndarray) -> np.ndarray:
    """z-scores of a column using its observed entries; missing entries get 0."""
    observed = ~np.isnan(values)
    z = np.zeros_like(values)
    if observed.sum() > 1:
        mean = values[observed].mean()
        sd = values[observed].std()
        if sd > 0:
            z[observed] = (values[observed] - mean) / sd
    return z


def _weighted_choice(
    candidates: np.ndarray, weights_log: np.ndarray, k: int, rng: np.random.Generator
) -> np.ndarray:
    """Draw ``k`` of ``candidates`` without replacement, probability ∝ exp(weights_log).

    Gumbel-top-k: adding independent Gumbel noise to the log-weights and keeping
    the ``k`` largest is the same as drawing one at a time, each with probability
    proportional to its weight among those left (Efraimidis & Spirakis 2006).
    """
    keys = weights_log + rng.gumbel(size=candidates.size)
    return candidates[np.argpartition(-keys, k - 1)[:k]] if k > 0 else candidates[:0]


def add_missing(
    X: Any,
    rate: float,
    mechanism: str = "mcar",
    random_state: Any = None,
    *,
    columns: Sequence[int] | None = None,
    strength: float = 2.0,
) -> np.ndarray:
    """Return a copy of ``X`` with a fraction ``rate`` of its cells set to NaN.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Features; existing NaN are kept and are not counted or chosen again.
    rate : float in [0, 1)
        Fraction of the *eligible* cells to remove: the observed (non-NaN) cells
        of the columns that may receive NaN.
    mechanism : {"mcar", "mar", "mnar"}, default="mcar"
        How cells are chosen (see Notes).
    random_state : None, int or numpy Generator, default=None
        Seed or generator.
    columns : sequence of int, optional
        Columns that may receive NaN. Default: every column for ``"mcar"`` and
        ``"mnar"``; every column but the first for ``"mar"`` (column 0 stays
        complete and drives the missingness of the others).
    strength : float, default=2.0
        For ``"mar"`` and ``"mnar"``: how strongly missingness depends on the
        driving value (``0`` makes both behave like MCAR within each column).

    Returns
    -------
    ndarray of shape (n_samples, n_features), float64
        A new array; ``X`` itself is never modified.

    Raises
    ------
    TypeError
        If ``columns`` or ``strength`` has the wrong type.
    ValueError
        If ``X`` is not a 2-D numeric array (or contains inf), ``rate`` is
        outside [0, 1), ``mechanism`` is unknown, ``columns`` holds bad indices,
        ``strength`` is negative, or ``"mar"`` has no complete column left to
        drive the missingness.

    Notes
    -----
    Let ``E_j`` be the observed cells of an eligible column ``j``.

    * **MCAR** (missing completely at random): exactly
      ``round(rate * sum_j |E_j|)`` cells are drawn uniformly without
      replacement from all eligible cells together.
    * **MAR** (missing at random): in each eligible column ``j`` exactly
      ``round(rate * |E_j|)`` cells are removed, drawn without replacement with
      probability proportional to ``exp(strength * z_i)``, where ``z`` is the
      standardised value of a *driver* column in the same row. Drivers are the
      columns outside ``columns`` (which receive no NaN), assigned in turn
      (eligible column number ``t`` uses driver ``t mod n_drivers``), so the
      missingness depends only on observed values. Rows with a large driver
      value lose more cells.
    * **MNAR** (missing not at random): as MAR, but ``z`` is the standardised
      value of the removed cell itself, so large values go missing more often
      and the observed mean of a column is biased downwards.

    The realised rate therefore equals ``rate`` up to rounding (one cell per
    column, or one cell overall for MCAR). Weighted sampling without
    replacement uses the Gumbel-top-k trick (Efraimidis & Spirakis 2006). Written
    by hand: scikit-learn has no missing-value injector.

    References
    ----------
    Rubin, D. B. (1976). Inference and missing data. Biometrika 63(3), 581-592.
    Efraimidis, P. S., & Spirakis, P. G. (2006). Weighted random sampling with a
    reservoir. Information Processing Letters 97(5), 181-185.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(40.0).reshape(10, 4)
    >>> Xm = add_missing(X, 0.5, random_state=0)
    >>> int(np.isnan(Xm).sum()), int(np.isnan(X).sum())
    (20, 0)
    >>> Xmar = add_missing(X, 0.3, "mar", random_state=0)
    >>> np.isnan(Xmar).sum(axis=0).tolist()
    [0, 3, 3, 3]
    """
    X = check_matrix(X, "X", allow_nan=True)
    rate = check_fraction(rate, "rate", inclusive_low=True)
    check_choice(mechanism, "mechanism", MISSING_MECHANISMS)
    if isinstance(strength, bool) or not isinstance(strength, Real):
        raise TypeError(f"`strength` must be a real number; got {strength!r}.")
    if not (np.isfinite(strength) and strength >= 0):
        raise ValueError(f"`strength` must be finite and >= 0; got {strength!r}.")
    n_features = X.shape[1]
    if columns is not None:
        cols = _check_columns(columns, n_features)
    elif mechanism == "mar":
        if n_features < 2:
            raise ValueError(
                "`mechanism`='mar' needs at least 2 columns (one stays complete and drives "
                f"the missingness of the others); `X` has {n_features}."
            )
        cols = np.arange(1, n_features)
    else:
        cols = np.arange(n_features)
    rng = as_generator(random_state)
    out = X.copy()
    if rate == 0.0:
        return out

    if mechanism == "mcar":
        eligible = ~np.isnan(X[:, cols])
        flat = np.flatnonzero(eligible)
        k = int(round(rate * flat.size))
        chosen = rng.choice(flat, size=k, replace=False)
        rows, sub = np.unravel_index(chosen, eligible.shape)
        out[rows, cols[sub]] = np.nan
        return out

    if mechanism == "mar":
        drivers = np.setdiff1d(np.arange(n_features), cols)
        if drivers.size == 0:
            raise ValueError(
                "`mechanism`='mar' needs a complete driver column outside `columns`; "
                f"`columns` covers all {n_features} columns."
            )
        driver_z = [_standardise(X[:, d]) for d in drivers]
    for t, j in enumerate(cols):
        observed = np.flatnonzero(~np.isnan(X[:, j]))
        k = int(round(rate * observed.size))
        if mechanism == "mar":
            z = driver_z[t % len(driver_z)][observed]
        else:
            z = _standardise(X[:, j])[observed]
        out[_weighted_choice(observed, strength * z, k, rng), j] = np.nan
    return out
