"""Equal-width histogram binning in one pass per call (numba).

The bin of a score among ``M`` equal-width, right-closed bins ``(a_m,
a_{m+1}]`` is found by arithmetic, ``floor((s - a_0) * M / (a_M - a_0))``,
then checked against the edges themselves and moved by one where rounding put
it on the wrong side of an edge; up to 16 bins it is instead the number of
inner edges strictly below the score (a short loop of comparisons without
branches, cheaper than the guess and its checks). The index is therefore exactly
:func:`bayescal.metrics.binning.assign_bins`' (the number of inner edges
strictly below the score) whatever the rounding of the guess, and no binary
search or per-edge pass over the scores is needed. :func:`histogram_sums`
accumulates the per-bin weight and weighted target in input order, as
``np.bincount`` does (the same sums, bit for bit); :func:`histogram_lookup`
reads each score's bin value. :func:`score_bin_sums` adds the per-bin summed
score (the sums behind ECE, MCE and the reliability curve), and
:func:`binary_bin_sums` does so while it checks a binary ``(y, proba)`` pair,
so that a metric reads a valid input once.
"""

from __future__ import annotations

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = ["bin_scale", "binary_bin_sums", "histogram_lookup", "histogram_sums", "score_bin_sums"]

#: Up to this many bins a score's bin is the count of inner edges below it
#: (a fixed, branch-free loop of comparisons); beyond, the arithmetic guess.
_COUNT_MAX_BINS = 16


def bin_scale(edges: np.ndarray) -> float:
    """``M / (a_M - a_0)`` for the arithmetic guess (0 for a zero-width span)."""
    width = float(edges[-1] - edges[0])
    return (edges.shape[0] - 1) / width if width > 0.0 else 0.0


@njit(cache=True, inline="always")
def _bin_of(v, edges, scale):
    m = edges.shape[0] - 1
    guess = (v - edges[0]) * scale
    if guess <= 0.0:
        k = 0
    elif guess >= m - 1:
        k = m - 1
    else:
        k = int(guess)
    # the guess is within one bin; the edges decide: edges[k] < v <= edges[k + 1]
    while k > 0 and v <= edges[k]:
        k -= 1
    while k < m - 1 and v > edges[k + 1]:
        k += 1
    return k


@njit(cache=True, inline="always")
def _bin_by_count(v, edges):
    # number of inner edges strictly below v: assign_bins' index, for v in [a_0, a_M]
    k = 0
    for j in range(1, edges.shape[0] - 1):
        k += v > edges[j]
    return k


@njit(cache=True, inline="always")
def _bin(v, edges, scale, by_count):
    return _bin_by_count(v, edges) if by_count else _bin_of(v, edges, scale)


@njit(cache=True)
def histogram_sums(scores, targets, weights, unit, edges, scale):
    """Per-bin summed weight and summed ``weight * target``.

    ``weights`` is ignored when ``unit`` is True (counts and target sums).
    The adds run in input order with one accumulator per bin, as in
    ``np.bincount``, so the sums are the same bit for bit.
    """
    m = edges.shape[0] - 1
    by_count = m <= _COUNT_MAX_BINS
    w_bin = np.zeros(m)
    wt_bin = np.zeros(m)
    for i in range(scores.shape[0]):
        k = _bin(scores[i], edges, scale, by_count)
        if unit:
            w_bin[k] += 1.0
            wt_bin[k] += targets[i]
        else:
            w = weights[i]
            w_bin[k] += w
            wt_bin[k] += w * targets[i]
    return w_bin, wt_bin


@njit(cache=True)
def histogram_lookup(scores, edges, scale, values, out):
    """``out[i] = [1 - v, v]`` with ``v = values[bin of scores[i]]``; ``out`` is (n, 2)."""
    by_count = edges.shape[0] - 1 <= _COUNT_MAX_BINS
    for i in range(scores.shape[0]):
        v = values[_bin(scores[i], edges, scale, by_count)]
        out[i, 0] = 1.0 - v
        out[i, 1] = v
    return out


@njit(cache=True)
def score_bin_sums(scores, outcomes, edges, scale):
    """Per-bin count, summed score and summed outcome of validated scores.

    The adds run in input order with one accumulator per bin, as
    ``np.bincount(index, weights=...)`` does: the same sums bit for bit.
    """
    m = edges.shape[0] - 1
    by_count = m <= _COUNT_MAX_BINS
    count = np.zeros(m, dtype=np.int64)
    score_sum = np.zeros(m)
    outcome_sum = np.zeros(m)
    for i in range(scores.shape[0]):
        v = scores[i]
        k = _bin(v, edges, scale, by_count)
        count[k] += 1
        score_sum[k] += v
        outcome_sum[k] += outcomes[i]
    return count, score_sum, outcome_sum


@njit(cache=True)
def binary_bin_sums(proba, labels, edges, scale):
    """:func:`score_bin_sums` of ``proba`` against ``labels == 1``, checking as it goes.

    ``valid`` is False as soon as a probability lies outside [0, 1] (NaN
    included) or a label is neither 0 nor 1; the caller then runs the full
    checks, which word the error. The sums are those of :func:`score_bin_sums`.
    """
    m = edges.shape[0] - 1
    by_count = m <= _COUNT_MAX_BINS
    count = np.zeros(m, dtype=np.int64)
    score_sum = np.zeros(m)
    outcome_sum = np.zeros(m)
    for i in range(proba.shape[0]):
        v = proba[i]
        label = labels[i]
        if not (v >= 0.0 and v <= 1.0) or (label != 0 and label != 1):
            return False, count, score_sum, outcome_sum
        k = _bin(v, edges, scale, by_count)
        count[k] += 1
        score_sum[k] += v
        outcome_sum[k] += 1.0 if label == 1 else 0.0
    return True, count, score_sum, outcome_sum
