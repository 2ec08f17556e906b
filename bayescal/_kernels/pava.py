"""Weighted pool-adjacent-violators on pooled points, returning the knots (numba).

Input: distinct scores ``x`` (increasing) with summed weights ``w`` and summed
``weight * target`` ``wt`` (from :mod:`bayescal._kernels.sorting`).
PAV keeps a stack of blocks (first point, summed weight, summed weighted
target); each new point is pushed and merged with the block below while the
two violate the order (mean below >= mean above for an increasing fit), so
the surviving blocks have strictly monotone means. The fitted map is constant
on a block, so linear interpolation needs only a block's first and last
score: the kernel returns those knots directly, never the per-point fit.
A block's mean is its exact ratio ``sum(wt) / sum(w)`` (for 0/1 targets and
unit weights both sums are integers), the same weighted least-squares
solution as :func:`scipy.optimize.isotonic_regression` up to rounding.
"""

from __future__ import annotations

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

from bayescal._kernels.sorting import key_at  # noqa: E402

__all__ = ["pava_knots", "pava_knots_binary_keys"]


@njit(cache=True, inline="always")
def _push(first_x, last_x, block_w, block_wt, size, x, cw, ct, increasing):
    """Push the point ``(x, cw, ct)`` and merge violating blocks; new stack size.

    Block means are compared by cross-multiplication (``pt * cw`` against
    ``ct * pw``; weights are positive), exact for integer counts.
    """
    start_x = x
    while size > 0:
        pw = block_w[size - 1]
        pt = block_wt[size - 1]
        left = pt * cw
        right = ct * pw
        if (left < right) if increasing else (left > right):
            break
        cw += pw
        ct += pt
        start_x = first_x[size - 1]
        size -= 1
    first_x[size] = start_x
    last_x[size] = x
    block_w[size] = cw
    block_wt[size] = ct
    return size + 1


@njit(cache=True)
def _knots(first_x, last_x, block_w, block_wt, size):
    thresholds = np.empty(2 * size)
    values = np.empty(2 * size)
    k = 0
    for b in range(size):
        value = min(max(block_wt[b] / block_w[b], 0.0), 1.0)
        thresholds[k] = first_x[b]
        values[k] = value
        k += 1
        if last_x[b] != first_x[b]:
            thresholds[k] = last_x[b]
            values[k] = value
            k += 1
    return thresholds[:k].copy(), values[:k].copy()


@njit(cache=True)
def pava_knots(x, w, wt, increasing):
    """Knots ``(thresholds, values)`` of the weighted isotonic fit of ``wt / w`` on ``x``.

    Parameters
    ----------
    x : ndarray of shape (m,)
        Distinct scores, increasing.
    w : ndarray of shape (m,)
        Positive summed weights.
    wt : ndarray of shape (m,)
        Summed ``weight * target``.
    increasing : bool
        Direction of the fit.

    Returns
    -------
    thresholds : ndarray of shape (k,)
        First and last score of every block (one score for a one-point block).
    values : ndarray of shape (k,)
        The block's mean at each threshold, clipped to [0, 1].
    """
    m = x.shape[0]
    first_x = np.empty(m)
    last_x = np.empty(m)
    block_w = np.empty(m)
    block_wt = np.empty(m)
    size = 0
    for i in range(m):
        size = _push(first_x, last_x, block_w, block_wt, size, x[i], w[i], wt[i], increasing)
    return _knots(first_x, last_x, block_w, block_wt, size)


@njit(cache=True)
def pava_knots_binary_keys(keys, n_neg, increasing):
    """:func:`pava_knots` straight from sorted 0/1-label keys (unit weights).

    ``keys, n_neg`` come from
    :func:`bayescal._kernels.sorting.sorted_binary_keys`; tied scores
    are pooled and pushed in one pass, so no per-score array is ever written.
    """
    n = keys.shape[0]
    first_x = np.empty(n)
    last_x = np.empty(n)
    block_w = np.empty(n)
    block_wt = np.empty(n)
    bits_buffer = np.empty(1, np.uint64)
    float_buffer = bits_buffer.view(np.float64)  # reads the score of the bits
    size = 0
    run_start = 0
    positives = 0
    previous = np.uint64(0)
    bits = np.uint64(0)
    label = 0
    for k in range(n + 1):
        if k < n:
            bits, label = key_at(keys, n_neg, k)
        if k == n or (k > 0 and bits != previous):
            bits_buffer[0] = previous
            size = _push(
                first_x,
                last_x,
                block_w,
                block_wt,
                size,
                float_buffer[0],
                np.float64(k - run_start),
                np.float64(positives),
                increasing,
            )
            run_start = k
            positives = 0
        if k < n:
            previous = bits
            positives += label
    return _knots(first_x, last_x, block_w, block_wt, size)
