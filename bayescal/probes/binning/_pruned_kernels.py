"""numba kernels of the pruned SBB/ABB dynamic programmes (see ``pruned_dp``).

Every kernel works on *candidate start positions* ``starts`` (cell indices,
increasing, ``starts[0] == 0``, with the sentinel ``starts[K] == m``): a bin
``I..J`` of candidates covers cells ``starts[I] .. starts[J + 1] - 1``. Its log
score is exactly the exact programme's ``S_ij`` for those cells
(:func:`bayescal.probes.binning.cells.bin_log_marginal_likelihood` plus the
structure prior), evaluated here with ``math.lgamma``.
"""

from __future__ import annotations

import math

import numpy as np

from bayescal._numba_cache import configure_numba_cache

configure_numba_cache()  # before numba compiles: caches go to the user's cache dir

from numba import njit  # noqa: E402

__all__ = ["pruned_backward", "pruned_forward", "sample_binnings_pruned"]


@njit(cache=True, inline="always")
def _score(cum_pos, cum_neg, edges, starts, first, last, ess, clip, lgamma_ess, log_cut,
           log_no_cut):
    lo = starts[first]
    hi = starts[last + 1]
    pos = cum_pos[hi] - cum_pos[lo]
    neg = cum_neg[hi] - cum_neg[lo]
    mean = 0.5 * (edges[lo] + edges[hi])
    if mean < clip:
        mean = clip
    elif mean > 1.0 - clip:
        mean = 1.0 - clip
    a = ess * mean
    b = ess * (1.0 - mean)
    loglik = (math.lgamma(pos + a) + math.lgamma(neg + b) - math.lgamma(pos + neg + a + b)
              - math.lgamma(a) - math.lgamma(b) + lgamma_ess)
    return loglik + log_cut + (hi - 1 - lo) * log_no_cut


@njit(cache=True)
def pruned_forward(cum_pos, cum_neg, edges, starts, ess, clip, log_cut, log_no_cut, margin):
    """Forward sum- and max-product recursions with pruning of dead starts.

    Returns ``forward``, ``best``, ``best_start`` (all of length ``K + 1``) and
    the number of bin scores evaluated.
    """
    n_cand = starts.shape[0] - 1
    lgamma_ess = math.lgamma(ess)
    forward = np.full(n_cand + 1, -np.inf)
    best = np.full(n_cand + 1, -np.inf)
    best_start = np.zeros(n_cand + 1, dtype=np.int64)
    forward[0] = 0.0
    best[0] = 0.0
    alive = np.empty(n_cand, dtype=np.int64)
    row = np.empty(n_cand)
    n_alive = 0
    n_scores = 0
    for j in range(n_cand):
        alive[n_alive] = j
        n_alive += 1
        n_scores += n_alive
        top_sum = -np.inf
        top_max = -np.inf
        arg = 0
        for t in range(n_alive):
            i = alive[t]
            s = _score(cum_pos, cum_neg, edges, starts, i, j, ess, clip, lgamma_ess, log_cut,
                       log_no_cut)
            row[t] = s
            if forward[i] + s > top_sum:
                top_sum = forward[i] + s
            if best[i] + s > top_max:  # strict: the smallest maximising start, as np.argmax
                top_max = best[i] + s
                arg = i
        acc = 0.0
        for t in range(n_alive):
            acc += math.exp(forward[alive[t]] + row[t] - top_sum)
        forward[j + 1] = top_sum + math.log(acc)
        best[j + 1] = top_max
        best_start[j + 1] = arg
        floor_sum = forward[j + 1] - margin
        floor_max = best[j + 1] - margin
        kept = 0
        for t in range(n_alive):
            i = alive[t]
            if forward[i] + row[t] >= floor_sum or best[i] + row[t] >= floor_max:
                alive[kept] = i
                kept += 1
        n_alive = kept
    return forward, best, best_start, n_scores


@njit(cache=True)
def pruned_backward(cum_pos, cum_neg, edges, starts, ess, clip, log_cut, log_no_cut, margin,
                    forward):
    """Backward sum-product recursion and the exact-up-to-pruning posterior mean.

    Returns ``backward`` (length ``K + 1``) and the posterior-mean frequency of
    every cell (length ``m``), accumulated from the posterior probability
    ``exp(F_I + S_IJ + G_{J+1} - F_K)`` and Beta posterior mean of every live
    bin.
    """
    n_cand = starts.shape[0] - 1
    n_cells = starts[n_cand]
    lgamma_ess = math.lgamma(ess)
    backward = np.full(n_cand + 1, -np.inf)
    backward[n_cand] = 0.0
    diff = np.zeros(n_cells + 1)
    alive = np.empty(n_cand, dtype=np.int64)
    row = np.empty(n_cand)
    n_alive = 0
    log_total = forward[n_cand]
    for i in range(n_cand - 1, -1, -1):
        alive[n_alive] = i
        n_alive += 1
        top = -np.inf
        for t in range(n_alive):
            j = alive[t]
            s = _score(cum_pos, cum_neg, edges, starts, i, j, ess, clip, lgamma_ess, log_cut,
                       log_no_cut)
            row[t] = s
            if s + backward[j + 1] > top:
                top = s + backward[j + 1]
        acc = 0.0
        for t in range(n_alive):
            acc += math.exp(row[t] + backward[alive[t] + 1] - top)
        backward[i] = top + math.log(acc)
        floor = backward[i] - margin
        kept = 0
        lo = starts[i]
        for t in range(n_alive):
            j = alive[t]
            hi = starts[j + 1]
            prob = math.exp(forward[i] + row[t] + backward[j + 1] - log_total)
            if prob > 0.0:
                pos = cum_pos[hi] - cum_pos[lo]
                neg = cum_neg[hi] - cum_neg[lo]
                mean = 0.5 * (edges[lo] + edges[hi])
                if mean < clip:
                    mean = clip
                elif mean > 1.0 - clip:
                    mean = 1.0 - clip
                value = prob * (pos + ess * mean) / (pos + neg + ess)
                diff[lo] += value
                diff[hi] -= value
            if row[t] + backward[j + 1] >= floor:
                alive[kept] = j
                kept += 1
        n_alive = kept
    return backward, np.cumsum(diff)[:n_cells]


@njit(cache=True)
def sample_binnings_pruned(cum_pos, cum_neg, edges, starts, ess, clip, log_cut, log_no_cut,
                           backward, n_draws, rng):
    """Backward sampling of binnings, all draws advanced together.

    The bin opened at candidate ``I`` ends at ``J`` with probability
    ``exp(S_IJ + G_{J+1} - G_I)``. Every candidate row is scanned at most
    once, up to the largest end any draw waiting there needs. Returns the
    start cells of all bins (draw after draw) and the number of bins of each
    draw; ``rng`` is a NumPy ``Generator`` (numba draws from it directly).
    """
    n_cand = starts.shape[0] - 1
    lgamma_ess = math.lgamma(ess)
    position = np.zeros(n_draws, dtype=np.int64)
    uniform = np.empty(n_draws)
    for b in range(n_draws):
        uniform[b] = rng.random()
    bin_draw = np.empty(16 * n_draws, dtype=np.int64)
    bin_start = np.empty(16 * n_draws, dtype=np.int64)
    n_out = 0
    waiting = np.empty(n_draws, dtype=np.int64)
    while True:
        current = n_cand
        for b in range(n_draws):
            if position[b] < current:
                current = position[b]
        if current >= n_cand:
            break
        n_wait = 0
        for b in range(n_draws):
            if position[b] == current:
                waiting[n_wait] = b
                n_wait += 1
        cdf = 0.0
        j = current
        assigned = 0
        while assigned < n_wait:
            s = _score(cum_pos, cum_neg, edges, starts, current, j, ess, clip, lgamma_ess,
                       log_cut, log_no_cut)
            cdf += math.exp(s + backward[j + 1] - backward[current])
            for t in range(n_wait):
                b = waiting[t]
                if position[b] == current and (uniform[b] < cdf or j == n_cand - 1):
                    if n_out == bin_draw.shape[0]:
                        bin_draw = np.concatenate((bin_draw, np.empty_like(bin_draw)))
                        bin_start = np.concatenate((bin_start, np.empty_like(bin_start)))
                    bin_draw[n_out] = b
                    bin_start[n_out] = starts[current]
                    n_out += 1
                    position[b] = j + 1
                    uniform[b] = rng.random()
                    assigned += 1
            j += 1
    return bin_draw[:n_out], bin_start[:n_out]
