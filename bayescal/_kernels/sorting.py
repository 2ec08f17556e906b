"""Sorting scores and pooling ties in about the time of one ``np.sort`` (numba).

Isotonic regression and ENIR start by sorting the calibration scores and pooling
tied scores (summed weight, weighted mean target). ``np.argsort`` of float64
has no SIMD path in NumPy here, while ``np.sort`` of 64-bit integers has
(x86-simd-sort): an argsort of 10^6 scores costs several sorts, and gathering
targets in the sorted order costs as much again. This module sorts integer
*keys* that carry what pooling needs:

* **0/1 targets, unit weights** (:func:`binary_class_keys`): the IEEE-754 bits
  of ``|score|`` (below ``2^63`` and ordered like the floats) shifted left by
  one, with the label in the lowest bit; negative scores go to a second array
  read backwards. Nothing is lost, no index is carried, and one sequential
  pass over the sorted keys pools ties and counts positives
  (:func:`pool_binary_keys`).
* **any targets and weights** (:func:`packed_sort_keys`): the order-preserving
  bits of the score (sign bit set for non-negative floats, every bit flipped
  for negative ones) with the lowest ``b`` bits replaced by the sample index
  (``2^b >= n``). Sorted, the keys are ordered by the truncated score, and
  within one truncated value by index; one pass reads the index back,
  gathers the exact scores, re-sorts each run of equal truncated values by
  the exact score (exact ties, or scores within a relative ``2^(b - 52)`` of
  each other: short runs; a long run falls back to an argsort of that run
  only) and pools ties (:func:`pool_sorted_keys`).

Both give the exact sorted order of the scores (ties in any order, which
pooling makes irrelevant): the same pooled points as ``np.argsort`` followed
by :func:`numpy.add.reduceat`, up to the summation order inside a tie.
"""

from __future__ import annotations

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = [
    "binary_class_keys",
    "index_bits",
    "key_at",
    "packed_sort_keys",
    "pool_binary_keys",
    "pool_sorted_keys",
    "sort_and_pool",
    "sorted_binary_keys",
]

#: Runs of equal truncated keys longer than this are re-sorted by an argsort.
_INSERTION_MAX = 32


def index_bits(n: int) -> int:
    """Number of low key bits that hold a sample index of ``n`` samples."""
    return max(1, int(n - 1).bit_length())


@njit(cache=True)
def packed_sort_keys(scores, shift):
    """``uint64`` keys: order-preserving score bits, lowest ``shift`` bits = index."""
    n = scores.shape[0]
    bits = scores.view(np.uint64)
    keys = np.empty(n, np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    ushift = np.uint64(shift)
    for i in range(n):
        b = bits[i]
        if scores[i] == 0.0:  # -0.0 and +0.0 are one value
            b = sign
        elif b & sign:
            b = ~b
        else:
            b = b | sign
        keys[i] = ((b >> ushift) << ushift) | np.uint64(i)
    return keys


@njit(cache=True)
def _resort_run(values, index, lo, hi):
    """Sort ``values[lo:hi]`` (and ``index`` alike) by value, in place."""
    ordered = True
    for k in range(lo + 1, hi):
        if values[k] < values[k - 1]:
            ordered = False
            break
    if ordered:
        return
    if hi - lo <= _INSERTION_MAX:
        for k in range(lo + 1, hi):
            v = values[k]
            j = index[k]
            p = k - 1
            while p >= lo and values[p] > v:
                values[p + 1] = values[p]
                index[p + 1] = index[p]
                p -= 1
            values[p + 1] = v
            index[p + 1] = j
        return
    order = np.argsort(values[lo:hi])
    v_run = values[lo:hi][order]
    i_run = index[lo:hi][order]
    values[lo:hi] = v_run
    index[lo:hi] = i_run


@njit(cache=True)
def pool_sorted_keys(keys, scores, targets, weights, unit, shift):
    """Exact sort from sorted packed keys, then pool tied scores.

    Parameters
    ----------
    keys : ndarray of uint64
        ``np.sort(packed_sort_keys(scores, shift))``.
    scores, targets, weights : ndarray of shape (n,)
        The samples; ``weights`` is ignored when ``unit`` is True.
    unit : bool
        All weights are one.
    shift : int
        Index bits of the keys.

    Returns
    -------
    thresholds : ndarray of shape (m,)
        Distinct scores with positive total weight, increasing.
    weight_sum : ndarray of shape (m,)
        Summed weight of each distinct score (a count for unit weights).
    target_sum : ndarray of shape (m,)
        Summed ``weight * target`` of each distinct score.
    """
    n = keys.shape[0]
    mask = (np.uint64(1) << np.uint64(shift)) - np.uint64(1)
    ushift = np.uint64(shift)
    index = np.empty(n, np.int64)
    values = np.empty(n)
    for k in range(n):
        j = np.int64(keys[k] & mask)
        index[k] = j
        values[k] = scores[j]
    lo = 0
    while lo < n:
        top = keys[lo] >> ushift
        hi = lo + 1
        while hi < n and (keys[hi] >> ushift) == top:
            hi += 1
        if hi - lo > 1:
            _resort_run(values, index, lo, hi)
        lo = hi
    thresholds = np.empty(n)
    weight_sum = np.empty(n)
    target_sum = np.empty(n)
    m = 0
    k = 0
    while k < n:
        v = values[k]
        w_total = 0.0
        t_total = 0.0
        while k < n and values[k] == v:
            j = index[k]
            if unit:
                w_total += 1.0
                t_total += targets[j]
            else:
                w = weights[j]
                w_total += w
                t_total += w * targets[j]
            k += 1
        if w_total > 0.0:
            thresholds[m] = v
            weight_sum[m] = w_total
            target_sum[m] = t_total
            m += 1
    return thresholds[:m].copy(), weight_sum[:m].copy(), target_sum[:m].copy()


@njit(cache=True)
def binary_class_keys(scores, targets, keys):
    """Fill ``keys`` with sort keys that carry a 0/1 label: ``(|score| bits << 1) | label``.

    The bits of a non-negative finite float64 are below ``2^63`` and ordered
    like the floats, so shifting them left by one leaves the lowest bit for
    the label without losing any bit of the score. Keys of non-negative
    scores fill ``keys`` from the front, keys of negative scores (the same
    key of their absolute value) from the back. Branch-free: both ends are
    written at every step (the slot not taken is free and written again
    later) and the sign decides which end advances. Sort ``keys[:n - n_neg]``
    and ``keys[n - n_neg:]`` separately, then read them with :func:`key_at`.

    Returns
    -------
    n_neg : int
        Number of negative scores.
    ok : bool
        False when a target is neither 0 nor 1 (the keys are then meaningless).
    """
    n = scores.shape[0]
    bits = scores.view(np.uint64)
    magnitude = np.uint64(0x7FFFFFFFFFFFFFFF)
    one = np.uint64(1)
    n_neg = 0
    n_nonneg = 0
    bad = False
    for i in range(n):
        t = targets[i]
        bad |= (t != 0.0) & (t != 1.0)
        label = np.uint64(t == 1.0)
        key = ((bits[i] & magnitude) << one) | label  # |s|; -0.0 becomes +0.0
        is_neg = scores[i] < 0.0
        keys[n_nonneg] = key
        keys[n - 1 - n_neg] = key
        n_neg += is_neg
        n_nonneg += 1 - is_neg
    return n_neg, not bad


@njit(cache=True, inline="always")
def key_at(keys, n_neg, k):
    """``(float64 bits of the score, label)`` of the ``k``-th smallest label key.

    ``keys`` as left by :func:`binary_class_keys` with both parts sorted: the
    negative part (at the back, ascending in ``|score|``) is read backwards
    from the end, then the non-negative part from the front, so ``k = 0, 1,
    ...`` visits the scores in increasing order.
    """
    one = np.uint64(1)
    if k < n_neg:
        key = keys[keys.shape[0] - 1 - k]
        bits = (key >> one) | (one << np.uint64(63))
    else:
        key = keys[k - n_neg]
        bits = key >> one
    return bits, np.int64(key & one)


@njit(cache=True)
def pool_binary_keys(keys, n_neg):
    """Distinct scores, counts and positive counts from sorted label keys.

    ``keys`` as returned by :func:`sorted_binary_keys`, visited in score order
    by :func:`key_at`; each run of equal scores is pooled. The outputs are
    views of ``n``-long buffers (exact-size copies would cost more than the
    pass).
    """
    n = keys.shape[0]
    threshold_bits = np.empty(n, np.uint64)
    weight_sum = np.empty(n)
    target_sum = np.empty(n)
    m = 0
    run_start = 0
    positives = 0
    previous = np.uint64(0)
    for k in range(n):
        bits, label = key_at(keys, n_neg, k)
        if k == 0 or bits != previous:
            if k > 0:
                weight_sum[m] = k - run_start
                target_sum[m] = positives
                m += 1
            threshold_bits[m] = bits
            run_start = k
            positives = 0
            previous = bits
        positives += label
    weight_sum[m] = n - run_start
    target_sum[m] = positives
    m += 1
    return threshold_bits[:m].view(np.float64), weight_sum[:m], target_sum[:m]


def sorted_binary_keys(scores: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, int] | None:
    """Label keys of :func:`binary_class_keys`, both parts sorted; None for non-0/1 targets.

    The key buffer is allocated by NumPy (which asks the kernel for huge
    pages for large arrays; numba's allocator does not, and first-touch page
    faults then cost more than the sort).
    """
    keys = np.empty(scores.shape[0], dtype=np.uint64)
    n_neg, binary = binary_class_keys(scores, targets, keys)
    if not binary:
        return None
    n_nonneg = scores.shape[0] - n_neg
    keys[:n_nonneg].sort()
    keys[n_nonneg:].sort()
    return keys, int(n_neg)


def sort_and_pool(
    scores: np.ndarray, targets: np.ndarray, weights: np.ndarray, unit: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct scores with their summed weight and weighted target sum.

    Parameters
    ----------
    scores, targets, weights : ndarray of shape (n,), float64
        Validated samples (finite scores, targets in [0, 1], weights >= 0).
    unit : bool
        All weights are one (counts instead of weight sums).

    Returns
    -------
    thresholds, weight_sum, target_sum : ndarray of shape (m,)
        See :func:`pool_sorted_keys`; scores whose samples all have weight
        zero are dropped.
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    targets = np.ascontiguousarray(targets, dtype=np.float64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if unit:  # 0/1 targets: the label rides in the key, no index to carry
        sorted_keys = sorted_binary_keys(scores, targets)
        if sorted_keys is not None:
            return pool_binary_keys(*sorted_keys)
    shift = index_bits(scores.shape[0])
    keys = np.sort(packed_sort_keys(scores, shift))
    return pool_sorted_keys(keys, scores, targets, weights, bool(unit), shift)
