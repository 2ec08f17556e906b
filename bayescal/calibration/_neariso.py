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
def _heap_push(heap_t, heap_g, heap_v, size, t, g, v):
    i = size
    heap_t[i] = t
    heap_g[i] = g
    heap_v[i] = v
    while i > 0:
        parent = (i - 1) >> 1
        if heap_t[parent] <= heap_t[i]:
            break
        heap_t[parent], heap_t[i] = heap_t[i], heap_t[parent]
        heap_g[parent], heap_g[i] = heap_g[i], heap_g[parent]
        heap_v[parent], heap_v[i] = heap_v[i], heap_v[parent]
        i = parent
    return size + 1


@njit(cache=True, inline="always")
def _heap_pop(heap_t, heap_g, heap_v, size):
    size -= 1
    heap_t[0] = heap_t[size]
    heap_g[0] = heap_g[size]
    heap_v[0] = heap_v[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        right = left + 1
        if right < size and heap_t[right] < heap_t[left]:
            child = right
        if heap_t[i] <= heap_t[child]:
            break
        heap_t[child], heap_t[i] = heap_t[i], heap_t[child]
        heap_g[child], heap_g[i] = heap_g[i], heap_g[child]
        heap_v[child], heap_v[i] = heap_v[i], heap_v[child]
        i = child
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
    max_nodes = 2 * m
    start = np.empty(max_nodes, np.int64)
    stop = np.empty(max_nodes, np.int64)
    node_w = np.empty(max_nodes)
    node_p = np.empty(max_nodes)
    slope = np.zeros(max_nodes)
    s_left = np.zeros(max_nodes)
    s_right = np.zeros(max_nodes)
    birth = np.zeros(max_nodes, np.int64)
    death = np.zeros(max_nodes, np.int64)
    parent = np.full(max_nodes, -1, np.int64)
    prev = np.full(max_nodes, -1, np.int64)
    nxt = np.full(max_nodes, -1, np.int64)
    version = np.zeros(max_nodes, np.int64)
    alive = np.zeros(max_nodes, np.bool_)

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
        start[n_nodes] = i
        stop[n_nodes] = j
        node_w[n_nodes] = w
        node_p[n_nodes] = p
        alive[n_nodes] = True
        n_nodes += 1
        i = j
    n_start = n_nodes
    # rounding tolerance for "two groups have met" (values are O(range of ybar))
    tol = 1e-10 * (np.max(ybar) - np.min(ybar) + 1e-300)
    for g in range(n_start):
        prev[g] = g - 1
        nxt[g] = g + 1 if g + 1 < n_start else -1
    means = np.empty(max_nodes)
    for g in range(n_start):
        means[g] = node_p[g] / node_w[g]
    for g in range(n_start):
        # runs of equal targets are fused, so neighbouring means differ strictly
        if g > 0 and means[g - 1] > means[g]:
            s_left[g] = 1.0
        if g + 1 < n_start and means[g] > means[g + 1]:
            s_right[g] = 1.0
        slope[g] = (s_left[g] - s_right[g]) / node_w[g]

    upper = 0.0
    for g in range(n_start):
        upper += _entropy_term(node_p[g], node_w[g])

    cap = 3 * m + 4
    heap_t = np.empty(cap)
    heap_g = np.empty(cap, np.int64)
    heap_v = np.empty(cap, np.int64)
    size = 0
    for g in range(n_start - 1):
        t = _collision(0.0, means[g], slope[g], means[g + 1], slope[g + 1], tol)
        if t < np.inf:
            size = _heap_push(heap_t, heap_g, heap_v, size, t, g, version[g])

    event_lambda = np.zeros(n_start)
    upper_ll = np.zeros(n_start)
    upper_ll[0] = upper
    n_events = 0
    lam = 0.0
    while size > 0:
        t = heap_t[0]
        g = heap_g[0]
        v = heap_v[0]
        size = _heap_pop(heap_t, heap_g, heap_v, size)
        if not alive[g] or version[g] != v:
            continue
        h = nxt[g]
        if t > lam:
            lam = t
        n_events += 1
        q = n_nodes
        n_nodes += 1
        start[q] = start[g]
        stop[q] = stop[h]
        node_w[q] = node_w[g] + node_w[h]
        node_p[q] = node_p[g] + node_p[h]
        means[q] = node_p[q] / node_w[q]
        birth[q] = n_events
        death[g] = n_events
        death[h] = n_events
        parent[g] = q
        parent[h] = q
        alive[g] = False
        alive[h] = False
        alive[q] = True
        a = prev[g]
        b = nxt[h]
        prev[q] = a
        nxt[q] = b
        if a >= 0:
            nxt[a] = q
        if b >= 0:
            prev[b] = q
        # The fused group keeps the outer boundary signs of its two parts (the
        # inner ones cancel), so beta_q(lam) = mean_q + slope_q * lam continues
        # the path exactly; comparing values instead would be ambiguous when
        # several groups collide at the same lambda.
        s_left[q] = s_left[g]
        s_right[q] = s_right[h]
        slope[q] = (s_left[q] - s_right[q]) / node_w[q]
        upper += (
            _entropy_term(node_p[q], node_w[q])
            - _entropy_term(node_p[g], node_w[g])
            - _entropy_term(node_p[h], node_w[h])
        )
        event_lambda[n_events] = lam
        upper_ll[n_events] = upper
        if a >= 0:
            version[a] += 1
            t2 = _collision(lam, means[a], slope[a], means[q], slope[q], tol)
            if t2 < np.inf:
                size = _heap_push(heap_t, heap_g, heap_v, size, max(t2, lam), a, version[a])
        if b >= 0:
            t2 = _collision(lam, means[q], slope[q], means[b], slope[b], tol)
            if t2 < np.inf:
                size = _heap_push(heap_t, heap_g, heap_v, size, max(t2, lam), q, version[q])
    for g in range(n_nodes):
        if alive[g]:
            death[g] = n_events + 1
    return (
        start[:n_nodes],
        stop[:n_nodes],
        node_w[:n_nodes],
        node_p[:n_nodes],
        slope[:n_nodes],
        birth[:n_nodes],
        death[:n_nodes],
        parent[:n_nodes],
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
