"""Exact sum- and max-product dynamic programmes over all binnings (O(m^2))."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from bayescal.probes.binning.cells import (
    ScoreCells,
    _cumulative_counts,
    _prior_parameters,
    bin_log_marginal_likelihood,
)
from bayescal.validation import check_fraction

__all__ = ["DynamicProgramme", "abb_dynamic_programme"]


@dataclass
class DynamicProgramme:
    """Forward/backward quantities of the sum- and max-product recursions.

    ``rows[i]`` (when kept) holds the log scores ``S_ij`` of the bins
    ``i..j``, ``j >= i``, prior terms included.
    """

    forward: np.ndarray  # log sum over binnings of cells 0..j-1 (length m + 1)
    backward: np.ndarray  # log sum over binnings of cells i..m-1 (length m + 1)
    best: np.ndarray  # max-product forward values
    best_start: np.ndarray  # argmax start of the last bin ending at j - 1
    log_evidence: float  # log sum over all binnings of prior x likelihood
    log_cut: float
    log_no_cut: float
    rows: list[np.ndarray] | None


#: Keep the O(m^2) table of bin scores in memory up to this many entries.
MAX_CACHED_SCORES = 20_000_000


class _BinScorer:
    """Log scores of the bins ``i..j`` (marginal likelihood and prior terms)."""

    def __init__(self, cells: ScoreCells, prior_strength: float, log_cut: float,
                 log_no_cut: float) -> None:
        self.cells = cells
        self.ess = prior_strength
        self.log_cut = log_cut
        self.log_no_cut = log_no_cut
        self.cum_pos, self.cum_neg = _cumulative_counts(cells)

    def _score(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        pos = self.cum_pos[j + 1] - self.cum_pos[i]
        neg = self.cum_neg[j + 1] - self.cum_neg[i]
        ll = bin_log_marginal_likelihood(
            pos, neg, self.cells.edges[i], self.cells.edges[j + 1], prior_strength=self.ess
        )
        return ll + self.log_cut + (j - i) * self.log_no_cut

    def ending_at(self, j: int) -> np.ndarray:
        i = np.arange(j + 1)
        return self._score(i, np.full(j + 1, j))

    def starting_at(self, i: int) -> np.ndarray:
        j = np.arange(i, self.cells.n_cells)
        return self._score(np.full(j.size, i), j)

    def posterior_mean_starting_at(self, i: int) -> np.ndarray:
        j = np.arange(i, self.cells.n_cells)
        pos = self.cum_pos[j + 1] - self.cum_pos[i]
        neg = self.cum_neg[j + 1] - self.cum_neg[i]
        a0, b0 = _prior_parameters(np.full(j.size, self.cells.edges[i]), self.cells.edges[j + 1],
                                   self.ess)
        return (pos + a0) / (pos + neg + a0 + b0)


def abb_dynamic_programme(
    cells: ScoreCells, *, cut_probability: float = 0.5, prior_strength: float = 2.0
) -> DynamicProgramme:
    """Sum- and max-product recursions over all binnings of the cells.

    Every one of the ``m - 1`` gaps between neighbouring distinct scores is a
    bin boundary with prior probability ``q = cut_probability``, independently
    (``q = 0.5``: all ``2^{m-1}`` binnings equally likely a priori). The score of
    a binning is prior times the product of per-bin marginal likelihoods
    (:func:`bin_log_marginal_likelihood`), which factorises over bins, so

    .. math::

        F_{j+1} = \\log \\sum_{i \\le j} \\exp(F_i + S_{ij}), \\qquad
        G_i = \\log \\sum_{j \\ge i} \\exp(S_{ij} + G_{j+1}),

    with ``S_ij`` the log score of bin ``i..j`` (its marginal likelihood, one
    ``log q`` for the cut that opens it and ``(j - i) log(1 - q)`` for the gaps
    it keeps closed), ``F_0 = 0`` and ``G_m = 0``. The evidence is
    ``F_m - log q`` (the first bin opens no cut). The max-product recursion
    gives SBB's most probable binning. Time ``O(m^2)``; the score table is kept
    (``O(m^2)`` memory) while it has at most ``MAX_CACHED_SCORES`` entries.
    """
    m = cells.n_cells
    log_cut = float(np.log(cut_probability))
    log_no_cut = float(np.log1p(-cut_probability))
    scorer = _BinScorer(cells, prior_strength, log_cut, log_no_cut)
    forward = np.full(m + 1, -np.inf)
    best = np.full(m + 1, -np.inf)
    best_start = np.zeros(m + 1, dtype=np.int64)
    forward[0] = best[0] = 0.0
    for j in range(m):
        s = scorer.ending_at(j)
        forward[j + 1] = logsumexp(forward[: j + 1] + s)
        cand = best[: j + 1] + s
        k = int(np.argmax(cand))
        best[j + 1] = cand[k]
        best_start[j + 1] = k
    keep = m * (m + 1) // 2 <= MAX_CACHED_SCORES
    rows: list[np.ndarray] = [np.empty(0)] * m
    backward = np.full(m + 1, -np.inf)
    backward[m] = 0.0
    for i in range(m - 1, -1, -1):
        s = scorer.starting_at(i)
        if keep:
            rows[i] = s
        backward[i] = logsumexp(s + backward[i + 1 :])
    return DynamicProgramme(
        forward, backward, best, best_start, float(forward[m] - log_cut), log_cut, log_no_cut,
        rows if keep else None,
    )


def _row(dp: DynamicProgramme, scorer: _BinScorer, i: int) -> np.ndarray:
    return dp.rows[i] if dp.rows is not None else scorer.starting_at(i)


def _cut_probability(value: float | None, n_samples: int, n_cells: int) -> float:
    if value is not None:
        return check_fraction(value, "cut_probability")
    if n_cells < 2:
        return 0.5
    return float(np.clip((n_samples ** (1.0 / 3.0) - 1.0) / (n_cells - 1), 1e-12, 0.5))


def _sbb_starts(dp: DynamicProgramme) -> np.ndarray:
    starts = []
    j = dp.best.shape[0] - 1
    while j > 0:
        i = int(dp.best_start[j])
        starts.append(i)
        j = i
    return np.array(starts[::-1], dtype=np.int64)


def _sample_binnings(cells: ScoreCells, dp: DynamicProgramme, prior_strength: float,
                     n_binnings: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Draw binnings from the exact ABB posterior (backward sampling).

    Given the backward sums ``G``, the bin opened at cell ``i`` ends at ``j``
    with probability ``exp(S_ij + G_{j+1} - G_i)``.
    """
    scorer = _BinScorer(cells, prior_strength, dp.log_cut, dp.log_no_cut)
    m = cells.n_cells
    cdf_cache: dict[int, np.ndarray] = {}
    out = []
    for _ in range(n_binnings):
        starts = []
        i = 0
        while i < m:
            starts.append(i)
            cdf = cdf_cache.get(i)
            if cdf is None:
                p = np.exp(_row(dp, scorer, i) + dp.backward[i + 1 :] - dp.backward[i])
                cdf = np.cumsum(p)
                cdf /= cdf[-1]
                cdf_cache[i] = cdf
            i = i + int(np.searchsorted(cdf, rng.uniform(), side="right")) + 1
            i = min(i, m)
        out.append(np.array(starts, dtype=np.int64))
    return out


def _abb_cell_mean(cells: ScoreCells, dp: DynamicProgramme, prior_strength: float) -> np.ndarray:
    """Exact posterior-mean frequency of each cell under ABB (O(m^2))."""
    m = cells.n_cells
    scorer = _BinScorer(cells, prior_strength, dp.log_cut, dp.log_no_cut)
    diff = np.zeros(m + 1)
    for i in range(m):
        j = np.arange(i, m)
        prob = np.exp(dp.forward[i] + _row(dp, scorer, i) + dp.backward[j + 1] - dp.forward[m])
        value = prob * scorer.posterior_mean_starting_at(i)
        diff[i] += value.sum()
        diff[j + 1] -= value
    return np.cumsum(diff)[:m]
