"""Solution path of weighted near-isotonic regression (numba kernel).

Near-isotonic regression (Tibshirani, Hoefling & Tibshirani 2011) solves, for a
penalty ``lam >= 0``,

.. math::

    \\hat\\beta(\\lambda) = \\arg\\min_\\beta \\tfrac12 \\sum_i W_i (\\bar y_i - \\beta_i)^2
        + \\lambda \\sum_{i=1}^{m-1} (\\beta_i - \\beta_{i+1})_+ ,

whose solution is the data at ``lam = 0`` and the isotonic (PAV) fit for ``lam``
large enough. Along the path, adjacent coordinates fuse into groups that never
split again (their Lemma 1); between two fusion events a group ``g`` with total
weight ``W_g`` and weighted mean target ``ybar_g`` moves linearly,

.. math::

    \\beta_g(\\lambda) = \\bar y_g + \\lambda \\, (s_{g,\\mathrm{left}} - s_{g,\\mathrm{right}}) / W_g ,

where ``s_left = 1`` when the left neighbour lies above the group (a violation
pushing it up) and ``s_right = 1`` when the group lies above its right
neighbour. The slope of a group changes only when it fuses, so every group of
the path is one straight line over its lifetime. The next event is the
smallest collision time of two adjacent groups; a binary heap with lazy
deletion keeps the pending collision times, so the whole path costs
O(m log m) for m starting groups ("modified PAV", their Section 3).

Written by hand: no maintained Python library computes this path (scikit-learn
has only the isotonic end point; netcal recomputes every model in O(m) per
event, which is quadratic). The weighted form generalises the paper's unit
weights in the obvious way (each squared error weighted, the penalty not).
"""

from __future__ import annotations

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = ["near_isotonic_path_arrays", "sum_down_tree"]


@njit(cache=True, inline="always")
def _heap_push(heap_t, heap_p, size, t, payload):
    # sift the hole up from the end, then drop the entry in (no swaps)
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if heap_t[parent] <= t:
            break
        heap_t[i] = heap_t[parent]
        heap_p[i] = heap_p[parent]
        i = parent
    heap_t[i] = t
    heap_p[i] = payload
    return size + 1


@njit(cache=True, inline="always")
def _heap_pop(heap_t, heap_p, size):
    # move the last entry into the root's hole and sift the hole down
    size -= 1
    t = heap_t[size]
    payload = heap_p[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        right = child + 1
        if right < size and heap_t[right] < heap_t[child]:
            child = right
        if t <= heap_t[child]:
            break
        heap_t[i] = heap_t[child]
        heap_p[i] = heap_p[child]
        i = child
    heap_t[i] = t
    heap_p[i] = payload
    return size


@njit(cache=True, inline="always")
def _collision(lam, mean_g, slope_g, mean_h, slope_h, tol):
    """Time at which group g and its right neighbour h meet (inf if never).

    Groups whose values agree to ``tol`` at ``lam`` fuse at once: exactly equal
    neighbours stay fused (Lemma 1), and several groups colliding at one
    lambda differ only by rounding.
    """
    gap = (mean_h + slope_h * lam) - (mean_g + slope_g * lam)
    if abs(gap) <= tol:
        return lam
    closing = slope_g - slope_h  # d(gap)/d(lam) = -closing
    if closing == 0.0:
        return np.inf
    dt = gap / closing
    if dt < 0.0:
        return np.inf
    return lam + dt


@njit(cache=True)
def _entropy_term(p, w):
    # p log(p / w) + (w - p) log((w - p) / w) with 0 log 0 = 0 (best log-likelihood of a group)
    q = w - p
    out = 0.0
    if p > 0.0:
        out += p * np.log(p / w)
    if q > 0.0:
        out += q * np.log(q / w)
    return out


# Columns of the per-node records of :func:`near_isotonic_path_arrays`.
_W, _P, _MEAN, _SLOPE, _LEFT, _RIGHT = 0, 1, 2, 3, 4, 5
_N_FLOAT = 6
_START, _STOP, _BIRTH, _DEATH, _PARENT, _PREV, _NEXT, _VERSION = 0, 1, 2, 3, 4, 5, 6, 7
_N_INT = 8


@njit(cache=True)
def near_isotonic_path_arrays(ybar, weight):
    """Run the modified-PAV path on pooled data.

    Parameters
    ----------
    ybar : ndarray of shape (m,)
        Targets in the order of the penalty (already sorted by score).
    weight : ndarray of shape (m,)
        Positive weights.

    Returns
    -------
    tuple of ndarrays
        ``start, stop`` (node covers ``ybar[start:stop]``), ``node_weight``,
        ``node_positive`` (sum of weight * target), ``slope``, ``birth`` (event
        index creating the node, 0 for starting groups), ``death`` (event index
        fusing it, ``n_events + 1`` if it survives), ``parent`` (-1 if none),
        ``event_lambda`` (length ``n_events + 1``, entry 0 is 0) and
        ``upper_loglik`` (per model: the log-likelihood each group would reach at
        its own mean, an upper bound of the model's log-likelihood). Starting
        groups are maximal runs of equal targets (fused at ``lam = 0``).
    """
    m = ybar.shape[0]
    # every node is a starting group or a fusion of two: size the arrays by the
    # starting groups, often far fewer than m (and page faults on untouched
    # memory cost more than the path itself)
    n_runs = 1 if m > 0 else 0
    for i in range(1, m):
        if ybar[i] != ybar[i - 1]:
            n_runs += 1
    max_nodes = 2 * n_runs
    # one record per node (a float row and an int row), written in full when the
    # node is created: an event touches four scattered nodes, one cache line each
    fr = np.empty((max_nodes, _N_FLOAT))
    ir = np.empty((max_nodes, _N_INT), np.int64)

    # starting groups: runs of equal targets (Lemma 1: equal neighbours stay fused)
    n_nodes = 0
    i = 0
    while i < m:
        j = i + 1
        w = weight[i]
        p = weight[i] * ybar[i]
        while j < m and ybar[j] == ybar[i]:
            w += weight[j]
            p += weight[j] * ybar[j]
            j += 1
        ir[n_nodes, _START] = i
        ir[n_nodes, _STOP] = j
        ir[n_nodes, _BIRTH] = 0
        ir[n_nodes, _DEATH] = 0  # 0 while alive
        ir[n_nodes, _PARENT] = -1
        ir[n_nodes, _VERSION] = 0
        fr[n_nodes, _W] = w
        fr[n_nodes, _P] = p
        fr[n_nodes, _MEAN] = p / w
        n_nodes += 1
        i = j
    n_start = n_nodes
    # rounding tolerance for "two groups have met" (values are O(range of ybar))
    tol = 1e-10 * (np.max(ybar) - np.min(ybar) + 1e-300)
    for g in range(n_start):
        ir[g, _PREV] = g - 1
        ir[g, _NEXT] = g + 1 if g + 1 < n_start else -1
        # runs of equal targets are fused, so neighbouring means differ strictly
        left = 1.0 if g > 0 and fr[g - 1, _MEAN] > fr[g, _MEAN] else 0.0
        right = 1.0 if g + 1 < n_start and fr[g, _MEAN] > fr[g + 1, _MEAN] else 0.0
        fr[g, _LEFT] = left
        fr[g, _RIGHT] = right
        fr[g, _SLOPE] = (left - right) / fr[g, _W]

    upper = 0.0
    for g in range(n_start):
        upper += _entropy_term(fr[g, _P], fr[g, _W])

    cap = 3 * n_runs + 4
    heap_t = np.empty(cap)
    # a heap entry's payload packs the node id above its version (one int64
    # per entry, not two): a version counts fusions, so it stays below n_runs + 1
    version_bits = 1
    while (1 << version_bits) <= n_runs + 1:
        version_bits += 1
    version_mask = (1 << version_bits) - 1
    heap_p = np.empty(cap, np.int64)
    size = 0
    for g in range(n_start - 1):
        t = _collision(0.0, fr[g, _MEAN], fr[g, _SLOPE], fr[g + 1, _MEAN], fr[g + 1, _SLOPE], tol)
        if t < np.inf:
            size = _heap_push(heap_t, heap_p, size, t, g << version_bits)

    event_lambda = np.zeros(n_start)
    upper_ll = np.zeros(n_start)
    upper_ll[0] = upper
    n_events = 0
    lam = 0.0
    while size > 0:
        t = heap_t[0]
        g = heap_p[0] >> version_bits
        v = heap_p[0] & version_mask
        size = _heap_pop(heap_t, heap_p, size)
        if ir[g, _DEATH] != 0 or ir[g, _VERSION] != v:
            continue
        h = ir[g, _NEXT]
        if t > lam:
            lam = t
        n_events += 1
        q = n_nodes
        n_nodes += 1
        a = ir[g, _PREV]
        b = ir[h, _NEXT]
        ir[q, _START] = ir[g, _START]
        ir[q, _STOP] = ir[h, _STOP]
        ir[q, _BIRTH] = n_events
        ir[q, _DEATH] = 0
        ir[q, _PARENT] = -1
        ir[q, _PREV] = a
        ir[q, _NEXT] = b
        ir[q, _VERSION] = 0
        ir[g, _DEATH] = n_events
        ir[h, _DEATH] = n_events
        ir[g, _PARENT] = q
        ir[h, _PARENT] = q
        if a >= 0:
            ir[a, _NEXT] = q
        if b >= 0:
            ir[b, _PREV] = q
        w_g = fr[g, _W]
        w_h = fr[h, _W]
        p_g = fr[g, _P]
        p_h = fr[h, _P]
        w_q = w_g + w_h
        p_q = p_g + p_h
        mean_q = p_q / w_q
        # The fused group keeps the outer boundary signs of its two parts (the
        # inner ones cancel), so beta_q(lam) = mean_q + slope_q * lam continues
        # the path exactly; comparing values instead would be ambiguous when
        # several groups collide at the same lambda.
        left = fr[g, _LEFT]
        right = fr[h, _RIGHT]
        slope_q = (left - right) / w_q
        fr[q, _W] = w_q
        fr[q, _P] = p_q
        fr[q, _MEAN] = mean_q
        fr[q, _SLOPE] = slope_q
        fr[q, _LEFT] = left
        fr[q, _RIGHT] = right
        upper += _entropy_term(p_q, w_q) - _entropy_term(p_g, w_g) - _entropy_term(p_h, w_h)
        event_lambda[n_events] = lam
        upper_ll[n_events] = upper
        if a >= 0:
            ir[a, _VERSION] += 1
            t2 = _collision(lam, fr[a, _MEAN], fr[a, _SLOPE], mean_q, slope_q, tol)
            if t2 < np.inf:
                payload = (a << version_bits) | ir[a, _VERSION]
                size = _heap_push(heap_t, heap_p, size, max(t2, lam), payload)
        if b >= 0:
            t2 = _collision(lam, mean_q, slope_q, fr[b, _MEAN], fr[b, _SLOPE], tol)
            if t2 < np.inf:
                payload = q << version_bits  # q's version is 0
                size = _heap_push(heap_t, heap_p, size, max(t2, lam), payload)
    death = ir[:n_nodes, _DEATH].copy()
    for g in range(n_nodes):
        if death[g] == 0:
            death[g] = n_events + 1
    return (
        ir[:n_nodes, _START].copy(),
        ir[:n_nodes, _STOP].copy(),
        fr[:n_nodes, _W].copy(),
        fr[:n_nodes, _P].copy(),
        fr[:n_nodes, _SLOPE].copy(),
        ir[:n_nodes, _BIRTH].copy(),
        death,
        ir[:n_nodes, _PARENT].copy(),
        event_lambda[: n_events + 1],
        upper_ll[: n_events + 1],
    )


@njit(cache=True)
def sum_down_tree(parent, contribution):
    """Sum of ``contribution`` along each node's path to its root.

    A parent is always created after its children, so one backward sweep
    suffices.
    """
    total = contribution.copy()
    for q in range(total.shape[0] - 1, -1, -1):
        if parent[q] >= 0:
            total[q] += total[parent[q]]
    return total
