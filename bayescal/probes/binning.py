"""Bayesian binning calibrators: BBQ, SBB and ABB (Naeini, Cooper & Hauskrecht).

A *binning* partitions the sorted distinct calibration scores into contiguous
bins; inside each bin the positive frequency ``theta_b`` has a Beta prior and
the labels are Bernoulli(``theta_b``), so each bin's marginal likelihood is a
ratio of Beta functions and the binning's marginal likelihood is their product
(the BDeu-style score of Naeini, Cooper & Hauskrecht 2015). Three ways of using
binnings are provided:

* :class:`BBQCalibrator` -- Bayesian model averaging over *equal-frequency*
  binnings with ``B`` bins, ``B`` in the paper's range (AAAI 2015).
* :class:`SBBCalibrator` -- selection of the single most probable binning among
  *all* binnings of the sorted scores, by dynamic programming (max-product).
* :class:`ABBCalibrator` -- averaging over *all* binnings, by dynamic programming
  (sum-product, forward/backward), exact in the posterior mean.

All three keep a posterior over the bin frequencies: ``predict_interval`` gives
quantiles of the (mixture of) Beta posteriors and ``idata_`` stores draws of
the bin frequencies and the model weights.

The dynamic programmes and the posterior bookkeeping are written by hand: no
Python library implements SBB/ABB, and netcal's ``BBQ`` replaces the paper's
Bayesian score by BIC/AIC (``benchmarks/bbq.py`` compares speed with it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import betainc, betaln, logsumexp

from bayescal.calibration.base import BinaryCalibrator
from bayescal.probes.posterior import PosteriorPredictiveMixin, record_diagnostics
from bayescal.validation import check_fraction, check_positive_int

__all__ = [
    "ABBCalibrator",
    "BBQCalibrator",
    "BinningPosterior",
    "SBBCalibrator",
    "abb_dynamic_programme",
    "bbq_bin_range",
    "beta_mixture_quantile",
    "bin_log_marginal_likelihood",
    "equal_frequency_starts",
    "score_cells",
]

#: Bin prior means are clipped to this distance from 0 and 1 (authors' code).
PRIOR_MEAN_CLIP = 5e-3


# --------------------------------------------------------------------------- cells


@dataclass(frozen=True)
class ScoreCells:
    """Sufficient statistics of calibration data on its distinct scores.

    Attributes
    ----------
    values : ndarray of shape (m,)
        Sorted distinct scores.
    edges : ndarray of shape (m + 1,)
        Cell boundaries: 0, the midpoints between neighbouring distinct
        scores, and 1. A bin made of cells ``i..j`` covers
        ``[edges[i], edges[j + 1])``.
    positives, negatives : ndarray of shape (m,)
        Weighted counts of positive and negative targets per distinct score
        (fractional targets count fractionally).
    """

    values: np.ndarray
    edges: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray

    @property
    def n_cells(self) -> int:
        return int(self.values.shape[0])


def score_cells(scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> ScoreCells:
    """Group calibration data by distinct score (validated 1-D inputs).

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Scores in [0, 1].
    targets : ndarray of shape (n,)
        Labels or fractions in [0, 1].
    weights : ndarray of shape (n,)
        Non-negative sample weights.

    Returns
    -------
    ScoreCells
    """
    values, inverse = np.unique(scores, return_inverse=True)
    positives = np.bincount(inverse, weights=weights * targets, minlength=values.size)
    negatives = np.bincount(inverse, weights=weights * (1.0 - targets), minlength=values.size)
    mids = 0.5 * (values[1:] + values[:-1])
    edges = np.concatenate([[0.0], mids, [1.0]])
    return ScoreCells(values, edges, positives, negatives)


# --------------------------------------------------------------------------- scores


def _prior_parameters(low: np.ndarray, high: np.ndarray, ess: float) -> tuple[np.ndarray, np.ndarray]:
    mean = np.clip(0.5 * (low + high), PRIOR_MEAN_CLIP, 1.0 - PRIOR_MEAN_CLIP)
    return ess * mean, ess * (1.0 - mean)


def bin_log_marginal_likelihood(
    positives: np.ndarray,
    negatives: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    *,
    prior_strength: float = 2.0,
) -> np.ndarray:
    """Log marginal likelihood of each bin (Beta-Bernoulli, BDeu-style prior).

    Parameters
    ----------
    positives, negatives : ndarray
        (Weighted) counts of positive and negative targets in each bin.
    low, high : ndarray
        Score interval ``[low, high)`` each bin covers.
    prior_strength : float, default=2.0
        Prior equivalent sample size per bin.

    Returns
    -------
    ndarray
        ``log B(m + a, n - m + b) - log B(a, b)`` per bin.

    Notes
    -----
    The Bayesian (BDeu-style) score of a binning model in Naeini, Cooper &
    Hauskrecht (2015):

    .. math::

        P(D \\mid M) = \\prod_{b=1}^{B}
        \\frac{\\Gamma(N'/B)}{\\Gamma(N_b + N'/B)}
        \\frac{\\Gamma(m_b + \\alpha_b)}{\\Gamma(\\alpha_b)}
        \\frac{\\Gamma(n_b + \\beta_b)}{\\Gamma(\\beta_b)},
        \\quad \\alpha_b = \\tfrac{N'}{B} p_b,\\ \\beta_b = \\tfrac{N'}{B}(1 - p_b),

    with ``p_b`` the midpoint of the bin's score interval. The paper's setting
    (and the authors' code, "BDeu2") takes ``N' = 2B``: two prior pseudo-samples
    in every bin, so ``alpha_b + beta_b = 2`` whatever ``B`` is; ``p_b`` is
    clipped to ``[0.005, 0.995]`` as in the authors' code. The per-bin factor is
    a Beta-function ratio, ``B(m_b + a_b, n_b + b_b) / B(a_b, b_b)``.
    """
    a, b = _prior_parameters(low, high, prior_strength)
    return betaln(positives + a, negatives + b) - betaln(a, b)


def bbq_bin_range(n_samples: int, spread: float = 10.0) -> tuple[int, int]:
    """Range of bin counts BBQ averages over.

    Naeini et al. (2015): ``B`` from ``N^{1/3} / C`` to ``C N^{1/3}`` with
    ``C = 10``; the authors' code rounds down/up and caps ``B`` at
    ``ceil(N / 5)`` (at least five samples per bin), which is used here.

    Returns
    -------
    (int, int)
        Smallest and largest bin count (inclusive).
    """
    root = n_samples ** (1.0 / 3.0)
    low = max(1, int(np.floor(root / spread)))
    high = max(low, int(min(np.ceil(n_samples / 5.0), np.ceil(spread * root))))
    return low, high


def equal_frequency_starts(cumulative_weight: np.ndarray, n_bins: int) -> np.ndarray:
    """First cell of each bin of an equal-frequency binning.

    Parameters
    ----------
    cumulative_weight : ndarray of shape (m,)
        Cumulative sample weight over the sorted distinct scores.
    n_bins : int
        Requested number of bins. Ties are never split (a distinct score is one
        cell), so fewer bins may result.

    Returns
    -------
    ndarray of int
        Strictly increasing start cells, beginning with 0.
    """
    total = cumulative_weight[-1]
    targets = total * np.arange(1, n_bins) / n_bins
    last_cells = np.searchsorted(cumulative_weight, targets * (1 - 1e-12), side="left")
    starts = np.unique(np.concatenate([[0], last_cells + 1]))
    return starts[starts < cumulative_weight.shape[0]]


# --------------------------------------------------------------------------- posterior


@dataclass
class BinningPosterior:
    """A finite mixture of binnings with Beta posteriors per bin.

    Attributes
    ----------
    weights : ndarray of shape (M,)
        Posterior weight of each binning (sums to one).
    starts : list of ndarray
        Start cell of each bin, per binning.
    alpha, beta : list of ndarray
        Beta posterior parameters of each bin, per binning.
    log_evidence : ndarray of shape (M,)
        Log marginal likelihood (plus log prior) of each binning.
    """

    weights: np.ndarray
    starts: list[np.ndarray]
    alpha: list[np.ndarray]
    beta: list[np.ndarray]
    log_evidence: np.ndarray

    def cell_mean(self, n_cells: int) -> np.ndarray:
        """Posterior-mean frequency on every cell (mixture over binnings)."""
        out = np.zeros(n_cells)
        for w, st, a, b in zip(self.weights, self.starts, self.alpha, self.beta, strict=True):
            sizes = np.diff(np.append(st, n_cells))
            out += w * np.repeat(a / (a + b), sizes)
        return out

    def bin_index(self, cells: np.ndarray) -> np.ndarray:
        """Bin of each cell under each binning, shape ``(M, n)``."""
        return np.stack([np.searchsorted(st, cells, side="right") - 1 for st in self.starts])

    def component_parameters(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Beta parameters of the component covering each cell, shape ``(n, M)``."""
        idx = self.bin_index(cells)
        a = np.stack([self.alpha[k][idx[k]] for k in range(idx.shape[0])], axis=1)
        b = np.stack([self.beta[k][idx[k]] for k in range(idx.shape[0])], axis=1)
        return a, b


def beta_mixture_quantile(
    q: float,
    weights: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    *,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> np.ndarray:
    """Quantile of mixtures of Beta distributions, one mixture per row.

    Parameters
    ----------
    q : float
        Probability level in (0, 1).
    weights : ndarray of shape (M,)
        Mixture weights (shared by the rows), summing to one.
    alpha, beta : ndarray of shape (n, M)
        Beta parameters of each row's components.

    Returns
    -------
    ndarray of shape (n,)
        ``x`` with ``sum_k w_k I_x(alpha_k, beta_k) = q`` (vectorised bisection
        on the mixture CDF, accurate to ``tol``).
    """
    lo = np.zeros(alpha.shape[0])
    hi = np.ones(alpha.shape[0])
    for _ in range(max_iter):
        mid = 0.5 * (lo + hi)
        cdf = betainc(alpha, beta, mid[:, None]) @ weights
        below = cdf < q
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        if np.max(hi - lo) < tol:
            break
    return 0.5 * (lo + hi)


# --------------------------------------------------------------------------- ABB / SBB


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


def _beta_posterior(cells: ScoreCells, starts: np.ndarray, prior_strength: float,
                    cumulative: tuple[np.ndarray, np.ndarray] | None = None):
    """Beta posterior parameters of the bins opening at ``starts``, and the log evidence."""
    cum_pos, cum_neg = cumulative if cumulative is not None else _cumulative_counts(cells)
    ends = np.append(starts[1:], cells.n_cells)
    pos = cum_pos[ends] - cum_pos[starts]
    neg = cum_neg[ends] - cum_neg[starts]
    a0, b0 = _prior_parameters(cells.edges[starts], cells.edges[ends], prior_strength)
    loglik = float(np.sum(betaln(pos + a0, neg + b0) - betaln(a0, b0)))
    return pos + a0, neg + b0, loglik


def _cumulative_counts(cells: ScoreCells) -> tuple[np.ndarray, np.ndarray]:
    return (np.concatenate([[0.0], np.cumsum(cells.positives)]),
            np.concatenate([[0.0], np.cumsum(cells.negatives)]))


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


# --------------------------------------------------------------------------- estimators


class _BayesianBinning(PosteriorPredictiveMixin, BinaryCalibrator):
    """Shared machinery of BBQ/SBB/ABB (not used directly)."""

    _model_name = "BayesianBinning"

    def _check_common(self) -> None:
        if isinstance(self.prior_strength, bool) or not np.isfinite(float(self.prior_strength)) \
                or float(self.prior_strength) <= 0:
            raise ValueError(
                f"`prior_strength` must be a positive number; got {self.prior_strength!r}."
            )
        check_positive_int(self.n_draws, "n_draws", minimum=1)

    def _fit(self, scores: np.ndarray, targets: np.ndarray, weights: np.ndarray) -> None:
        start = time.perf_counter()
        self._check_common()
        cells = score_cells(scores, targets, weights)
        posterior, extra = self._fit_posterior(cells, scores.shape[0])
        self.cell_edges_ = cells.edges
        self.cell_mean_ = extra.get("cell_mean", posterior.cell_mean(cells.n_cells))
        self.posterior_ = posterior
        self.idata_ = _binning_datatree(posterior, cells, self.n_draws, self.random_state)
        record_diagnostics(
            self,
            self.idata_,
            sampler="analytic",
            seconds=time.perf_counter() - start,
            extra={
                "n_models": int(posterior.weights.size),
                **{k: v for k, v in extra.items() if k != "cell_mean"},
            },
            stacklevel=5,
        )

    def _cells_of(self, s: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.cell_edges_[1:-1], s, side="right")

    def _predict_positive(self, s: np.ndarray) -> np.ndarray:
        return self.cell_mean_[self._cells_of(s)]

    def predict_proba(self, scores: Any) -> np.ndarray:
        """Posterior-mean calibrated probabilities (exact), shape ``(n, 2)``."""
        return BinaryCalibrator.predict_proba(self, scores)

    def predict(self, scores: Any) -> np.ndarray:
        """Class 1 where the posterior-mean probability exceeds 0.5."""
        return BinaryCalibrator.predict(self, scores)

    def _proba_draws(self, scores: Any) -> np.ndarray:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "idata_")
        s = self._validate_scores(scores)
        post = self.idata_["posterior"]
        model = np.asarray(post["model"]).reshape(-1)
        freq = np.asarray(post["bin_frequency"]).reshape(model.size, -1)
        idx = self.posterior_.bin_index(self._cells_of(s))  # (M, n)
        p = freq[np.arange(model.size)[:, None], idx[model]]
        return np.stack([1.0 - p, p], axis=-1)

    def predict_interval(self, scores: Any, prob: float = 0.9, *, kind: str = "eti") -> np.ndarray:
        """Credible interval of the calibrated probability, shape ``(n, 2, 2)``.

        ``kind="eti"`` gives exact quantiles of the posterior of the bin
        frequency (a Beta distribution, or a mixture of Beta distributions over
        binnings); ``kind="hdi"`` uses the stored posterior draws.
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "idata_")
        prob = check_fraction(prob, "prob")
        if kind == "hdi":
            return super().predict_interval(scores, prob, kind=kind)
        if kind != "eti":
            raise ValueError(f"`kind` must be one of ['eti', 'hdi']; got {kind!r}.")
        s = self._validate_scores(scores)
        cells, inverse = np.unique(self._cells_of(s), return_inverse=True)
        a, b = self.posterior_.component_parameters(cells)
        w = self.posterior_.weights
        tail = (1.0 - prob) / 2.0
        lower = beta_mixture_quantile(tail, w, a, b)[inverse]
        upper = beta_mixture_quantile(1.0 - tail, w, a, b)[inverse]
        pos = np.stack([lower, upper], axis=-1)
        neg = np.stack([1.0 - upper, 1.0 - lower], axis=-1)
        return np.stack([neg, pos], axis=1)


def _binning_datatree(posterior: BinningPosterior, cells: ScoreCells, n_draws: int,
                      random_state: Any):
    """``idata_``: draws of the bin frequencies and the binnings' weights."""
    import xarray as xr

    rng = np.random.default_rng(random_state)
    n_models = posterior.weights.size
    max_bins = max(st.size for st in posterior.starts)
    pad = np.full((n_models, max_bins), np.nan)
    alpha, beta, cuts = pad.copy(), pad.copy(), pad.copy()
    for k in range(n_models):
        nb = posterior.starts[k].size
        alpha[k, :nb] = posterior.alpha[k]
        beta[k, :nb] = posterior.beta[k]
        cuts[k, :nb] = cells.edges[posterior.starts[k]]
    model = rng.choice(n_models, size=n_draws, p=posterior.weights)
    a = np.nan_to_num(alpha[model], nan=1.0)
    b = np.nan_to_num(beta[model], nan=1.0)
    freq = rng.beta(a, b)
    freq[np.isnan(alpha[model])] = np.nan
    posterior_ds = xr.Dataset(
        {
            "model": (("chain", "draw"), model[None]),
            "bin_frequency": (("chain", "draw", "bin"), freq[None]),
        },
        coords={"chain": [0], "draw": np.arange(n_draws), "bin": np.arange(max_bins)},
    )
    models_ds = xr.Dataset(
        {
            "weight": ("model", posterior.weights),
            "log_evidence": ("model", posterior.log_evidence),
            "n_bins": ("model", np.array([st.size for st in posterior.starts])),
            "bin_lower_edge": (("model", "bin"), cuts),
            "alpha_posterior": (("model", "bin"), alpha),
            "beta_posterior": (("model", "bin"), beta),
        },
        coords={"model": np.arange(n_models), "bin": np.arange(max_bins)},
    )
    data_ds = xr.Dataset(
        {
            "score": ("cell", cells.values),
            "positives": ("cell", cells.positives),
            "negatives": ("cell", cells.negatives),
        }
    )
    return xr.DataTree.from_dict(
        {"posterior": posterior_ds, "binnings": models_ds, "observed_data": data_ds}
    )


class BBQCalibrator(_BayesianBinning):
    """Bayesian Binning into Quantiles (Naeini, Cooper & Hauskrecht 2015).

    Bayesian model averaging over equal-frequency binnings of the calibration
    scores with ``B`` bins, ``B`` in :func:`bbq_bin_range`, each weighted by its
    marginal likelihood (uniform prior over ``B``).

    Parameters
    ----------
    spread : float, default=10.0
        ``C`` of the bin range ``N^{1/3}/C .. C N^{1/3}``.
    prior_strength : float, default=2.0
        Prior pseudo-samples per bin (``alpha_b + beta_b``); the paper's value.
    n_draws : int, default=1000
        Posterior draws kept in ``idata_`` (used by ``kind="hdi"`` intervals).
    random_state : int, Generator or None, default=None
        Seed of the posterior draws (same seed, same draws).
    weight_tolerance : float, default=1e-12
        Binnings whose posterior weight is below this are dropped (their total
        contribution to any probability is below ``n_models * tolerance``).

    Attributes
    ----------
    posterior_ : BinningPosterior
        Kept binnings, their weights and Beta posteriors.
    cell_mean_ : ndarray
        Posterior-mean map on the cells between ``cell_edges_``.
    idata_ : xarray.DataTree
        ``posterior`` (``model`` index and ``bin_frequency`` draws, padded with
        NaN beyond a model's bins), ``binnings`` (weights, log evidence, bin
        edges and Beta posteriors) and ``observed_data`` (counts per score).
    diagnostics_ : PosteriorDiagnostics
        ``sampler="analytic"`` (exact posterior; R-hat/ESS NaN), ``seconds``;
        ``extra`` holds ``n_models`` and ``bin_range``.

    Notes
    -----
    The score of binning ``M`` is ``P(M) P(D | M)`` with ``P(D | M)`` from
    :func:`bin_log_marginal_likelihood` (prior ``Beta(2 p_b, 2 (1 - p_b))``
    per bin, ``p_b`` the bin's interval midpoint), and the calibrated
    probability is

    .. math::

        P(z = 1 \\mid s) = \\sum_M \\frac{\\mathrm{Score}(M)}{\\sum_{M'} \\mathrm{Score}(M')}
        \\; E[\\theta_{b(s)} \\mid M, D],

    the bin's Beta posterior mean. The authors' code additionally prunes
    models with an "elbow" heuristic; plain model averaging is used here (the
    pruned models carry negligible weight). Interval bin boundaries are the
    midpoints between neighbouring scores, with 0 and 1 at the ends.
    ``sample_weight`` and fractional targets enter the counts.

    References
    ----------
    Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining well
    calibrated probabilities using Bayesian binning. AAAI, 2901-2907.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=500); y = rng.binomial(1, s)
    >>> cal = BBQCalibrator(random_state=0).fit(s, y)
    >>> cal.predict_proba([0.2, 0.8]).shape
    (2, 2)
    """

    _model_name = "BBQCalibrator"

    def __init__(self, *, spread: float = 10.0, prior_strength: float = 2.0,
                 n_draws: int = 1000, random_state: Any = None,
                 weight_tolerance: float = 1e-12) -> None:
        self.spread = spread
        self.prior_strength = prior_strength
        self.n_draws = n_draws
        self.random_state = random_state
        self.weight_tolerance = weight_tolerance

    def _fit_posterior(self, cells: ScoreCells, n_samples: int):
        if isinstance(self.spread, bool) or not float(self.spread) >= 1.0:
            raise ValueError(f"`spread` must be a number >= 1; got {self.spread!r}.")
        check_fraction(self.weight_tolerance, "weight_tolerance")
        ess = float(self.prior_strength)
        low, high = bbq_bin_range(n_samples, float(self.spread))
        cum_w = np.cumsum(cells.positives + cells.negatives)
        cumulative = _cumulative_counts(cells)
        starts_all, alpha_all, beta_all, logev = [], [], [], []
        for n_bins in range(low, high + 1):
            st = equal_frequency_starts(cum_w, n_bins)
            a, b, ll = _beta_posterior(cells, st, ess, cumulative)
            starts_all.append(st)
            alpha_all.append(a)
            beta_all.append(b)
            logev.append(ll)
        logev = np.asarray(logev)
        w = np.exp(logev - logsumexp(logev))
        keep = np.flatnonzero(w >= self.weight_tolerance * w.max())
        w = w[keep] / w[keep].sum()
        posterior = BinningPosterior(
            w, [starts_all[k] for k in keep], [alpha_all[k] for k in keep],
            [beta_all[k] for k in keep], logev[keep],
        )
        return posterior, {"bin_range": (low, high), "n_models_scored": int(logev.size)}


class SBBCalibrator(_BayesianBinning):
    """Selection over Bayesian Binnings (Naeini, Cooper & Hauskrecht).

    The single most probable binning among *all* ``2^{m-1}`` binnings of the
    ``m`` sorted distinct calibration scores, found exactly by dynamic
    programming (:func:`abb_dynamic_programme`, max-product); the calibrated
    probability is the Beta posterior mean of the bin a score falls in.

    Parameters
    ----------
    cut_probability : float or None, default=None
        Prior probability that a gap between neighbouring distinct scores is
        a bin boundary (independent gaps; 0.5 makes all binnings equally
        likely a priori). ``None``: ``(N^{1/3} - 1) / (m - 1)`` (at most 0.5),
        so that ``N^{1/3}`` bins are expected a priori -- the centre of BBQ's
        range of bin counts.
    prior_strength : float, default=2.0
        Prior pseudo-samples per bin (``alpha_b + beta_b``).
    n_draws : int, default=1000
        Posterior draws of the bin frequencies kept in ``idata_``.
    random_state : int, Generator or None, default=None
        Seed of the posterior draws.

    Attributes
    ----------
    posterior_ : BinningPosterior
        The selected binning (weight one) and its Beta posteriors.
    idata_ : xarray.DataTree
        As for :class:`BBQCalibrator`.
    diagnostics_ : PosteriorDiagnostics
        ``sampler="analytic"``; ``extra`` holds ``log_evidence`` of all binnings,
        ``log_score_selected``.

    Notes
    -----
    Per-bin score as in BBQ (:func:`bin_log_marginal_likelihood`); the prior
    over binnings puts ``log q`` on each cut and ``log(1 - q)`` on each gap
    kept closed, so the score factorises over bins and the maximising binning
    is found in ``O(m^2)`` time. This independent-cut structure prior (and its
    default ``q``) is bayescal's choice, documented here; it keeps the score
    decomposable, which the dynamic programme needs. Intervals are the Beta posterior quantiles
    of the selected bin (uncertainty about the binning itself is ignored by
    selection; use :class:`ABBCalibrator` to average over it).

    References
    ----------
    Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Binary classifier
    calibration using a Bayesian non-parametric approach. SIAM SDM, 208-216.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=200); y = rng.binomial(1, s)
    >>> SBBCalibrator(random_state=0).fit(s, y).predict_proba([0.5]).shape
    (1, 2)
    """

    _model_name = "SBBCalibrator"

    def __init__(self, *, cut_probability: float | None = None, prior_strength: float = 2.0,
                 n_draws: int = 1000, random_state: Any = None) -> None:
        self.cut_probability = cut_probability
        self.prior_strength = prior_strength
        self.n_draws = n_draws
        self.random_state = random_state

    def _fit_posterior(self, cells: ScoreCells, n_samples: int):
        q = _cut_probability(self.cut_probability, n_samples, cells.n_cells)
        ess = float(self.prior_strength)
        dp = abb_dynamic_programme(cells, cut_probability=q, prior_strength=ess)
        st = _sbb_starts(dp)
        a, b, _ = _beta_posterior(cells, st, ess)
        log_score = float(dp.best[-1] - dp.log_cut)
        posterior = BinningPosterior(np.ones(1), [st], [a], [b], np.array([log_score]))
        return posterior, {"log_evidence": dp.log_evidence, "log_score_selected": log_score}


class ABBCalibrator(_BayesianBinning):
    """Averaging over Bayesian Binnings (Naeini, Cooper & Hauskrecht).

    Bayesian model averaging over *all* ``2^{m-1}`` binnings of the ``m``
    sorted distinct calibration scores. The posterior-mean map is exact
    (forward/backward dynamic programming, :func:`abb_dynamic_programme`,
    ``O(m^2)``); credible intervals mix the Beta posteriors of ``n_binnings``
    binnings drawn exactly from the posterior over binnings (backward
    sampling), with each bin's frequency integrated exactly.

    Parameters
    ----------
    cut_probability : float or None, default=None
        Prior probability that a gap between neighbouring distinct scores is
        a bin boundary (independent gaps; 0.5 makes all binnings equally
        likely a priori). ``None``: ``(N^{1/3} - 1) / (m - 1)`` (at most 0.5),
        so that ``N^{1/3}`` bins are expected a priori -- the centre of BBQ's
        range of bin counts.
    prior_strength : float, default=2.0
        Prior pseudo-samples per bin.
    n_binnings : int, default=200
        Binnings drawn from the posterior for intervals and ``idata_``.
    n_draws : int, default=1000
        Posterior draws of the bin frequencies kept in ``idata_``.
    random_state : int, Generator or None, default=None
        Seed of the sampled binnings and draws.

    Attributes
    ----------
    posterior_ : BinningPosterior
        The sampled binnings (equal weights) and their Beta posteriors.
    cell_mean_ : ndarray
        Exact posterior-mean frequency per cell.
    idata_ : xarray.DataTree
        As for :class:`BBQCalibrator`.
    diagnostics_ : PosteriorDiagnostics
        ``sampler="analytic"``; ``extra`` holds ``log_evidence`` (log of the sum over all
        binnings).

    Notes
    -----
    With ``S_ij`` the log score of a bin spanning cells ``i..j``, the posterior
    probability that ``i..j`` is a bin is
    ``exp(F_i + S_ij + G_{j+1} - F_m)`` and the calibrated probability of a
    score in cell ``k`` is the sum over bins covering ``k`` of that
    probability times the bin's Beta posterior mean.

    References
    ----------
    Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Binary classifier
    calibration using a Bayesian non-parametric approach. SIAM SDM, 208-216.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(size=200); y = rng.binomial(1, s)
    >>> ABBCalibrator(random_state=0).fit(s, y).predict_proba([0.5]).shape
    (1, 2)
    """

    _model_name = "ABBCalibrator"

    def __init__(self, *, cut_probability: float | None = None, prior_strength: float = 2.0,
                 n_binnings: int = 200, n_draws: int = 1000, random_state: Any = None) -> None:
        self.cut_probability = cut_probability
        self.prior_strength = prior_strength
        self.n_binnings = n_binnings
        self.n_draws = n_draws
        self.random_state = random_state

    def _fit_posterior(self, cells: ScoreCells, n_samples: int):
        q = _cut_probability(self.cut_probability, n_samples, cells.n_cells)
        n_binnings = check_positive_int(self.n_binnings, "n_binnings")
        ess = float(self.prior_strength)
        dp = abb_dynamic_programme(cells, cut_probability=q, prior_strength=ess)
        rng = np.random.default_rng(self.random_state)
        starts, alpha, beta, logev = [], [], [], []
        cumulative = _cumulative_counts(cells)
        for st in _sample_binnings(cells, dp, ess, n_binnings, rng):
            a, b, ll = _beta_posterior(cells, st, ess, cumulative)
            starts.append(st)
            alpha.append(a)
            beta.append(b)
            logev.append(ll + (st.size - 1) * dp.log_cut + (cells.n_cells - st.size) * dp.log_no_cut)
        posterior = BinningPosterior(
            np.full(n_binnings, 1.0 / n_binnings), starts, alpha, beta, np.asarray(logev)
        )
        return posterior, {
            "cell_mean": _abb_cell_mean(cells, dp, ess),
            "log_evidence": dp.log_evidence,
        }
