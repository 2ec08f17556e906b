"""Piecewise-linear calibration maps evaluated like ``np.interp``, fast for many scores.

:func:`interp` returns exactly ``np.interp(x, xp, fp)``; from
:data:`TABLE_MIN_QUERIES` queries on at least two knots it runs the table
look-up kernel of :mod:`bayescal.calibration._interp_kernel` (numba, imported
on first use so that ``import bayescal`` stays light), below that NumPy's own.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TABLE_MIN_QUERIES", "interp", "interp_proba"]

#: From this many queries the table look-up kernel replaces ``np.interp``.
TABLE_MIN_QUERIES = 50_000


def interp(
    x: np.ndarray, xp: np.ndarray, fp: np.ndarray, *, kernel: bool | None = None
) -> np.ndarray:
    """``np.interp(x, xp, fp)`` for finite ``x`` and strictly increasing knots ``xp``.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Finite queries (validated scores).
    xp, fp : ndarray of shape (k,)
        Strictly increasing knots and their values.
    kernel : bool, optional
        Force (True) or forbid (False) the table kernel; by default it runs
        from :data:`TABLE_MIN_QUERIES` queries.

    Returns
    -------
    ndarray of shape (n,)
        Bit-for-bit ``np.interp(x, xp, fp)``.
    """
    if not _use_kernel(x, xp, kernel):
        return np.interp(x, xp, fp)
    return _table_interp(x, xp, fp, np.empty((x.shape[0], 1)))[:, 0]


def interp_proba(
    x: np.ndarray, xp: np.ndarray, fp: np.ndarray, *, kernel: bool | None = None
) -> np.ndarray:
    """Probability rows ``[1 - p, p]`` with ``p = np.interp(x, xp, fp)``, shape ``(n, 2)``.

    The kernel writes both columns in one pass; otherwise the columns are
    stacked (the same values). Arguments as :func:`interp`.
    """
    if not _use_kernel(x, xp, kernel):
        p = np.interp(x, xp, fp)
        return np.column_stack([1.0 - p, p])
    return _table_interp(x, xp, fp, np.empty((x.shape[0], 2)))


def _use_kernel(x: np.ndarray, xp: np.ndarray, kernel: bool | None) -> bool:
    if xp.shape[0] < 2:
        return False
    return x.shape[0] >= TABLE_MIN_QUERIES if kernel is None else bool(kernel)


def _table_interp(x: np.ndarray, xp: np.ndarray, fp: np.ndarray, out: np.ndarray) -> np.ndarray:
    from bayescal.calibration._interp_kernel import (
        interp_slopes,
        interp_table,
        interp_with_table,
    )

    xp = np.ascontiguousarray(xp, dtype=np.float64)
    fp = np.ascontiguousarray(fp, dtype=np.float64)
    x = np.ascontiguousarray(x, dtype=np.float64)
    scale, table = interp_table(xp)
    return interp_with_table(x, xp, fp, interp_slopes(xp, fp), scale, table, out)
