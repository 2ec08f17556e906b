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
smallest collision time of two adjacent groups; an indexed 4-ary heap holds
one pending collision per pair of adjacent groups (updated in place when a
neighbour fuses, never stale), so the whole path costs O(m log m) for m
starting groups ("modified PAV", their Section 3).

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

__all__ = ["moving_node_logliks", "near_isotonic_path_arrays", "sum_down_tree"]


#: Children per heap node (a d-ary heap: shallower than a binary one, and the
#: children of a node share one or two cache lines).
_ARITY = 4


@njit(cache=True, inline="always")
def _precedes(t, s, heap, j):
    """Entry ``(t, s)`` comes before heap entry ``j``: earlier time, or the same
    time and a pair further left (slots are positions, so ties fuse left to right)."""
    tj = heap[j, 0]
    return (t < tj) | ((t == tj) & (s < heap[j, 1]))


@njit(cache=True, inline="always")
def _first_child(heap, size, i):
    """Index of the earliest child of heap node ``i`` (-1 for a leaf)."""
    c = _ARITY * i + 1
    if c >= size:
        return -1
    best = c
    for j in range(c + 1, min(c + _ARITY, size)):
        if _precedes(heap[j, 0], heap[j, 1], heap, best):
            best = j
    return best


@njit(cache=True, inline="always")
def _move(heap, pos, dst, src):
    heap[dst, 0] = heap[src, 0]
    heap[dst, 1] = heap[src, 1]
    pos[np.int64(heap[dst, 1])] = dst


@njit(cache=True, inline="always")
def _place(heap, pos, i, t, s):
    heap[i, 0] = t
    heap[i, 1] = s
    pos[np.int64(s)] = i


@njit(cache=True, inline="always")
def _sift_up(heap, pos, i, t, s):
    # move the hole at ``i`` up past later entries, then drop (t, s) in
    while i > 0:
        parent = (i - 1) // _ARITY
        if not _precedes(t, s, heap, parent):
            break
        _move(heap, pos, i, parent)
        i = parent
    _place(heap, pos, i, t, s)


@njit(cache=True, inline="always")
def _sift_down(heap, pos, size, i, t, s):
    # move the hole at ``i`` down past earlier entries, then drop (t, s) in
    while True:
        child = _first_child(heap, size, i)
        if child < 0 or _precedes(t, s, heap, child):
            break
        _move(heap, pos, i, child)
        i = child
    _place(heap, pos, i, t, s)


@njit(cache=True, inline="always")
def _heap_set(heap, pos, size, i, t, s):
    """Give heap entry ``i`` the key ``(t, s)`` (sifting it either way)."""
    if i > 0 and _precedes(t, s, heap, (i - 1) // _ARITY):
        _sift_up(heap, pos, i, t, s)
    else:
        _sift_down(heap, pos, size, i, t, s)


@njit(cache=True, inline="always")
def _heap_remove(heap, pos, size, i):
    """Remove heap entry ``i``; returns the new size."""
    pos[np.int64(heap[i, 1])] = -1
    size -= 1
    if i < size:
        _heap_set(heap, pos, size, i, heap[size, 0], heap[size, 1])
    return size


@njit(cache=True, inline="always")
def _heap_pop(heap, pos, size):
    """Remove the root; returns the new size.

    Bottom-up: the hole left by the root descends along the earliest children
    to a leaf, and the last entry (usually a late one) rises from there, so
    each level costs one choice among the children instead of two.
    """
    pos[np.int64(heap[0, 1])] = -1
    size -= 1
    if size == 0:
        return 0
    t = heap[size, 0]
    s = heap[size, 1]
    i = 0
    while True:
        child = _first_child(heap, size, i)
        if child < 0:
            break
        _move(heap, pos, i, child)
        i = child
    _sift_up(heap, pos, i, t, s)
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


# Columns of the per-group working records of :func:`near_isotonic_path_arrays`
# (one 64-byte row per live group: an event touches four scattered groups).
_W, _P, _MEAN, _SLOPE, _LEFT, _RIGHT, _PREV, _NEXT = 0, 1, 2, 3, 4, 5, 6, 7
_N_COLS = 8


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
        groups are maximal runs of equal targets (fused at ``lam = 0``); node
        ``n_start + k - 1`` is the one created by event ``k``.

    Notes
    -----
    The pending collisions live in an indexed 4-ary heap, one entry per pair of
    adjacent live groups with a finite collision time, keyed by the pair's left
    group; a fusion updates its neighbours' entries in place instead of pushing
    new ones and leaving stale ones behind, so the heap never holds more than
    the live pairs. A fused group reuses the working row ("slot") of its left
    part, so slots keep the groups' left-to-right order, and simultaneous
    collisions fuse left to right (ties in time are broken by slot): the path
    is a deterministic function of the data.
    """
    m = ybar.shape[0]
    # starting groups: runs of equal targets (Lemma 1: equal neighbours stay fused)
    n_start = 1 if m > 0 else 0
    for i in range(1, m):
        if ybar[i] != ybar[i - 1]:
            n_start += 1
    max_nodes = max(2 * n_start - 1, 0)
    start = np.empty(max_nodes, np.int64)
    stop = np.empty(max_nodes, np.int64)
    node_w = np.empty(max_nodes)
    node_p = np.empty(max_nodes)
    node_slope = np.empty(max_nodes)
    # children of node n_start + k - 1 (event k), for parent/death afterwards
    child_left = np.empty(max(n_start - 1, 0), np.int64)
    child_right = np.empty(max(n_start - 1, 0), np.int64)
    rec = np.empty((n_start, _N_COLS))
    node_of = np.empty(n_start, np.int64)  # current node of each slot
    g = 0
    i = 0
    while i < m:
        j = i + 1
        w = weight[i]
        p = weight[i] * ybar[i]
        while j < m and ybar[j] == ybar[i]:
            w += weight[j]
            p += weight[j] * ybar[j]
            j += 1
        start[g] = i
        stop[g] = j
        node_w[g] = w
        node_p[g] = p
        rec[g, _W] = w
        rec[g, _P] = p
        rec[g, _MEAN] = p / w
        node_of[g] = g
        g += 1
        i = j
    # rounding tolerance for "two groups have met" (values are O(range of ybar))
    tol = 1e-10 * (np.max(ybar) - np.min(ybar) + 1e-300) if m > 0 else 0.0
    upper = 0.0
    for g in range(n_start):
        rec[g, _PREV] = g - 1
        rec[g, _NEXT] = g + 1 if g + 1 < n_start else -1
        # runs of equal targets are fused, so neighbouring means differ strictly
        left = 1.0 if g > 0 and rec[g - 1, _MEAN] > rec[g, _MEAN] else 0.0
        right = 1.0 if g + 1 < n_start and rec[g, _MEAN] > rec[g + 1, _MEAN] else 0.0
        rec[g, _LEFT] = left
        rec[g, _RIGHT] = right
        slope = (left - right) / rec[g, _W]
        rec[g, _SLOPE] = slope
        node_slope[g] = slope
        upper += _entropy_term(rec[g, _P], rec[g, _W])

    # heap entries (time, slot of the pair's left group); pos[slot] = index or -1
    heap = np.empty((max(n_start - 1, 1), 2))
    pos = np.full(n_start, -1, np.int64)
    size = 0
    for g in range(n_start - 1):
        t = _collision(
            0.0, rec[g, _MEAN], rec[g, _SLOPE], rec[g + 1, _MEAN], rec[g + 1, _SLOPE], tol
        )
        if t < np.inf:
            heap[size, 0] = t
            heap[size, 1] = g
            pos[g] = size
            size += 1
    for i in range((size - 2) // _ARITY, -1, -1):  # Floyd's heap construction
        _sift_down(heap, pos, size, i, heap[i, 0], heap[i, 1])

    event_lambda = np.zeros(n_start)
    upper_ll = np.zeros(n_start)
    if n_start > 0:
        upper_ll[0] = upper
    n_events = 0
    lam = 0.0
    while size > 0:
        t = heap[0, 0]
        g = np.int64(heap[0, 1])  # the left group's slot; it becomes the fused group's
        h = np.int64(rec[g, _NEXT])
        a = np.int64(rec[g, _PREV])
        b = np.int64(rec[h, _NEXT])
        if t > lam:
            lam = t
        q = n_start + n_events
        n_events += 1
        child_left[n_events - 1] = node_of[g]
        child_right[n_events - 1] = node_of[h]
        node_of[g] = q
        w_g = rec[g, _W]
        w_h = rec[h, _W]
        p_g = rec[g, _P]
        p_h = rec[h, _P]
        w_q = w_g + w_h
        p_q = p_g + p_h
        mean_q = p_q / w_q
        # The fused group keeps the outer boundary signs of its two parts (the
        # inner ones cancel), so beta_q(lam) = mean_q + slope_q * lam continues
        # the path exactly; comparing values instead would be ambiguous when
        # several groups collide at the same lambda.
        left = rec[g, _LEFT]
        right = rec[h, _RIGHT]
        slope_q = (left - right) / w_q
        upper += _entropy_term(p_q, w_q) - _entropy_term(p_g, w_g) - _entropy_term(p_h, w_h)
        rec[g, _W] = w_q
        rec[g, _P] = p_q
        rec[g, _MEAN] = mean_q
        rec[g, _SLOPE] = slope_q
        rec[g, _RIGHT] = right
        rec[g, _NEXT] = b
        node_w[q] = w_q
        node_p[q] = p_q
        node_slope[q] = slope_q
        event_lambda[n_events] = lam
        upper_ll[n_events] = upper
        # the pair (g, h) leaves the heap; (q, b) takes over h's entry, keyed by g
        size = _heap_pop(heap, pos, size)
        if b >= 0:
            rec[b, _PREV] = g
            t2 = _collision(lam, mean_q, slope_q, rec[b, _MEAN], rec[b, _SLOPE], tol)
            k = pos[h]
            if t2 < np.inf:
                pos[h] = -1
                t2 = max(t2, lam)
                if k >= 0:
                    _heap_set(heap, pos, size, k, t2, g)
                else:
                    size += 1
                    _sift_up(heap, pos, size - 1, t2, g)
            elif k >= 0:
                size = _heap_remove(heap, pos, size, k)
        if a >= 0:
            t2 = _collision(lam, rec[a, _MEAN], rec[a, _SLOPE], mean_q, slope_q, tol)
            k = pos[a]
            if t2 < np.inf:
                t2 = max(t2, lam)
                if k >= 0:
                    _heap_set(heap, pos, size, k, t2, a)
                else:
                    size += 1
                    _sift_up(heap, pos, size - 1, t2, a)
            elif k >= 0:
                size = _heap_remove(heap, pos, size, k)

    n_nodes = n_start + n_events
    birth = np.zeros(n_nodes, np.int64)
    death = np.full(n_nodes, n_events + 1, np.int64)
    parent = np.full(n_nodes, -1, np.int64)
    for e in range(1, n_events + 1):
        q = n_start + e - 1
        c = child_left[e - 1]
        d = child_right[e - 1]
        birth[q] = e
        start[q] = start[c]
        stop[q] = stop[d]
        death[c] = e
        death[d] = e
        parent[c] = q
        parent[d] = q
    return (
        start[:n_nodes],
        stop[:n_nodes],
        node_w[:n_nodes],
        node_p[:n_nodes],
        node_slope[:n_nodes],
        birth,
        death,
        parent,
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


@njit(cache=True)
def moving_node_logliks(
    nodes, birth, death, weight, positive, slope, event_lambda, models, n_models
):
    """Summed Bernoulli log-likelihood of moving groups at the requested models.

    Parameters
    ----------
    nodes : ndarray of int
        Moving nodes (non-zero slope), increasing.
    birth, death, weight, positive, slope : ndarray
        Path arrays (:func:`near_isotonic_path_arrays`).
    event_lambda : ndarray
        Penalties of the events.
    models : ndarray of int
        Requested models (event indices), increasing.
    n_models : int
        Number of models on the path (``n_events + 1``).

    Returns
    -------
    ndarray of shape (len(models),)
        For requested model ``j``: the sum over the moving nodes alive at it
        (``birth <= models[j] < death``) of ``P ln v + (W - P) ln(1 - v)``
        with ``v = clip(P / W + slope * lam, 0, 1)`` (0 ln 0 = 0), added node
        by node in increasing node order (the order of ``np.bincount`` over
        the flattened (node, model) pairs).
    """
    # rank[k] = number of requested models below event k (searchsorted, left)
    rank = np.empty(n_models + 2, np.int64)
    j = 0
    for k in range(n_models + 2):
        while j < models.shape[0] and models[j] < k:
            j += 1
        rank[k] = j
    out = np.zeros(models.shape[0])
    for i in range(nodes.shape[0]):
        g = nodes[i]
        lo = rank[birth[g]]
        hi = rank[death[g]]
        if hi <= lo:
            continue
        p = positive[g]
        w = weight[g]
        q = w - p
        mean = p / w
        for j in range(lo, hi):
            v = mean + slope[g] * event_lambda[models[j]]
            v = min(max(v, 0.0), 1.0)
            ll = p * np.log(v) if p != 0.0 else 0.0
            ll += q * np.log(1.0 - v) if q != 0.0 else 0.0
            out[j] += ll
    return out
