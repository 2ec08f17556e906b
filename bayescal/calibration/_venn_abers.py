"""The Venn-ABERS sweep: isotonic values at a test point for every insertion position (numba).

For sorted distinct calibration scores with cumulative weights ``W_0 = 0 <
W_1 < ... < W_k`` and cumulative label sums ``Y_0 = 0, ..., Y_k`` (the
cumulative-sum diagram, CSD, of Barlow et al. 1972, points ``P_j = (W_j,
Y_j)``), a test object of weight 1 and label 1 that shares the score of block
``t`` changes the CSD to ``{P_0, ..., P_{t-1}} ∪ {P_t + d, ..., P_k + d}`` with
``d = (1, 1)``. Its isotonic fitted value is the slope of the greatest convex
minorant (GCM) on the test's segment, which is the slope of the common lower
tangent (the bridge) of the two parts:

.. math:: F_1(t) = \\max_{a < t} \\min_{b \\ge t}
          \\frac{Y_b + 1 - Y_a}{W_b + 1 - W_a}.

:func:`venn_abers_sweep` computes ``F_1(t)`` for every ``t = 1..k`` in O(k)
after the scores are sorted, by the idea of Vovk, Petej & Fedorova (2015,
Section 2, Algorithms 1-2): the lower convex hulls of all suffixes are kept as
one tree of "next corner" pointers, built right to left with a stack
(their corner stack); the sweep keeps the current bridge line (its left
contact ``P_c`` and slope ``g``) and

* when the new left point ``P_{t-1}`` lies on or above the line, the line
  still supports both parts and touches both, so ``F_1(t) = g``;
* when it lies strictly below, it is the new left contact, and the new right
  contact is found by walking forward along the suffix hull from the old one
  (points before the old contact lie above the old line and so cannot be the
  tangent point from a point below it). The right contact therefore only
  moves forward, and the whole sweep is linear.

Slopes are compared by cross-multiplication (exact for unit weights). The
label-0 values follow by reflection (scores negated, labels ``1 - y``):
``F_0 = 1 - F_1`` of the reflected problem.
"""

from __future__ import annotations

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = ["venn_abers_sweep"]


@njit(cache=True)
def venn_abers_sweep(W: np.ndarray, Y: np.ndarray) -> np.ndarray:  # pragma: no cover - numba
    """Isotonic value of a label-1 test object merged with block ``t``, for ``t = 1..k``.

    Parameters
    ----------
    W, Y : ndarray of shape (k + 1,)
        Cumulative weights and label sums with ``W[0] = Y[0] = 0`` and ``W``
        strictly increasing.

    Returns
    -------
    ndarray of shape (k,)
        ``out[t - 1] = F_1(t)``.
    """
    k = W.shape[0] - 1
    out = np.empty(k)
    # nxt[j]: the corner after P_j on the lower hull of {P_j, ..., P_k} (-1 at the end).
    nxt = np.full(k + 1, -1, dtype=np.int64)
    stack = np.empty(k + 1, dtype=np.int64)
    top = 0
    stack[0] = k
    for j in range(k - 1, 0, -1):
        while top >= 1:
            b = stack[top]
            c = stack[top - 1]
            # pop b unless slope(P_j, P_b) < slope(P_b, P_c)
            if (Y[b] - Y[j]) * (W[c] - W[b]) >= (Y[c] - Y[b]) * (W[b] - W[j]):
                top -= 1
            else:
                break
        nxt[j] = stack[top]
        top += 1
        stack[top] = j
    # the sweep; right points are shifted by d = (1, 1)
    corner = 0
    b = 1
    qx, qy = W[0], Y[0]
    while nxt[b] != -1:
        n_ = nxt[b]
        if (Y[n_] + 1.0 - qy) * (W[b] + 1.0 - qx) <= (Y[b] + 1.0 - qy) * (W[n_] + 1.0 - qx):
            b = n_
        else:
            break
    gx, gy = W[b] + 1.0 - qx, Y[b] + 1.0 - qy  # slope g = gy / gx
    out[0] = gy / gx
    for t in range(2, k + 1):
        qx, qy = W[t - 1], Y[t - 1]
        cx, cy = W[corner], Y[corner]
        below = (qy - cy) * gx < (qx - cx) * gy
        if below or b < t:
            corner = t - 1
            if b < t:
                b = t
            while nxt[b] != -1:
                n_ = nxt[b]
                lhs = (Y[n_] + 1.0 - qy) * (W[b] + 1.0 - qx)
                if lhs <= (Y[b] + 1.0 - qy) * (W[n_] + 1.0 - qx):
                    b = n_
                else:
                    break
            gx, gy = W[b] + 1.0 - qx, Y[b] + 1.0 - qy
        out[t - 1] = gy / gx
    return out
