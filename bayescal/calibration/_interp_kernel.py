"""``np.interp`` for many queries on fixed knots, by table look-up (numba).

``np.interp`` finds each query's interval by a binary search whose branches
mispredict about half the time; at 10^6 queries on a few thousand knots that
costs several ``np.sort``s. Calibration maps query the same knots again and
again, so :func:`interp_table` splits the knots' range once into equal cells
and records, per cell edge, the last knot at or below it; a query then
computes its cell by arithmetic and searches only between the knots of its
cell (usually none or one). The interval found is checked against the knots
themselves, so the table only speeds the search up and never changes it.

The value is computed by the same formulas as NumPy's ``arr_interp``
(``slope * (x - xp[j]) + fp[j]`` with the slope ``(fp[j+1] - fp[j]) /
(xp[j+1] - xp[j])``; ``fp[j]`` when ``x == xp[j]``; ``fp[0]`` / ``fp[-1]``
outside the knots), so results are bit-for-bit those of ``np.interp``.
"""

from __future__ import annotations

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = ["interp_slopes", "interp_table", "interp_with_table"]

#: Cells per knot of the look-up table (most cells then hold no knot, and a
#: query's interval is read off the table without a search) ...
CELLS_PER_KNOT = 8
#: ... up to this many cells (8 MiB of table) for maps with very many knots.
MAX_CELLS = 1 << 20


@njit(cache=True)
def interp_table(xp):
    """Look-up table of strictly increasing knots ``xp`` (at least two).

    Returns ``(scale, table)``: a query ``x`` falls in cell
    ``floor((x - xp[0]) * scale)`` and ``table[c]`` is the last knot index
    ``j`` with ``xp[j] <= xp[0] + c / scale`` (``table`` has one entry more
    than there are cells).
    """
    k = xp.shape[0]
    n_cells = min(CELLS_PER_KNOT * k, MAX_CELLS)
    span = xp[k - 1] - xp[0]
    scale = n_cells / span if span > 0.0 else 0.0
    table = np.empty(n_cells + 1, np.int64)
    j = 0
    for c in range(n_cells + 1):
        edge = xp[0] + c / scale if scale > 0.0 else xp[0]
        while j + 1 < k and xp[j + 1] <= edge:
            j += 1
        table[c] = j
    return scale, table


@njit(cache=True)
def interp_slopes(xp, fp):
    """``(fp[j+1] - fp[j]) / (xp[j+1] - xp[j])``, as NumPy precomputes them."""
    k = xp.shape[0]
    slopes = np.empty(k - 1)
    for j in range(k - 1):
        slopes[j] = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    return slopes


@njit(cache=True, inline="always")
def _store(out, i, value, two, last):
    if two:
        out[i, 0] = 1.0 - value
    out[i, last] = value


@njit(cache=True)
def interp_with_table(x, xp, fp, slopes, scale, table, out):
    """``out[:, -1] = np.interp(x, xp, fp)`` using the table of :func:`interp_table`.

    ``out`` has shape ``(n, 1)`` or ``(n, 2)``; with two columns the first
    receives ``1 - value`` (probability rows, written in the same pass).
    ``slopes`` from :func:`interp_slopes` (NumPy precomputes the same
    quotients whenever there are no more knots than queries; otherwise it
    computes each one as needed, with the same result).
    """
    two = out.shape[1] == 2
    last = out.shape[1] - 1
    k = xp.shape[0]
    x0 = xp[0]
    x_last = xp[k - 1]
    n_cells = table.shape[0] - 1
    for i in range(x.shape[0]):
        v = x[i]
        if v < x0:
            value = fp[0]
            _store(out, i, value, two, last)
            continue
        if v >= x_last:
            value = fp[k - 1]
            _store(out, i, value, two, last)
            continue
        c = int((v - x0) * scale)
        if c >= n_cells:
            c = n_cells - 1
        lo = table[c]
        hi = table[c + 1] + 1
        # the table is a hint: make sure xp[lo] <= v < xp[hi] before searching
        while lo > 0 and xp[lo] > v:
            lo -= 1
        if hi > k - 1:
            hi = k - 1
        while hi < k - 1 and xp[hi] <= v:
            hi += 1
        while hi - lo > 1:
            mid = (lo + hi) >> 1
            if xp[mid] <= v:
                lo = mid
            else:
                hi = mid
        if xp[lo] == v:
            value = fp[lo]
        else:
            slope = slopes[lo]
            res = slope * (v - xp[lo]) + fp[lo]
            if np.isnan(res):
                res = slope * (v - xp[lo + 1]) + fp[lo + 1]
                if np.isnan(res) and fp[lo] == fp[lo + 1]:
                    res = fp[lo]
            value = res
        _store(out, i, value, two, last)
    return out
