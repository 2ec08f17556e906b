"""Distinct-score cells and the Bayesian score of a bin (shared by BBQ, SBB, ABB).

A bin is a run of neighbouring cells; its marginal likelihood is a Beta-function
ratio (Naeini, Cooper & Hauskrecht 2015), computed here once for every estimator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import betaln

__all__ = [
    "PRIOR_MEAN_CLIP",
    "ScoreCells",
    "bin_log_marginal_likelihood",
    "score_cells",
]

#: Bin prior means are clipped to this distance from 0 and 1 (authors' code).
PRIOR_MEAN_CLIP = 5e-3


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


def _prior_parameters(low: np.ndarray, high: np.ndarray, ess: float,
                      clip: float = PRIOR_MEAN_CLIP) -> tuple[np.ndarray, np.ndarray]:
    """Beta prior of bins covering ``[low, high)``: mean the midpoint clipped to
    ``[clip, 1 - clip]`` (``clip=0.5``: every mean 1/2), ``ess`` pseudo-samples."""
    mean = np.clip(0.5 * (low + high), clip, 1.0 - clip)
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


def _beta_posterior(cells: ScoreCells, starts: np.ndarray, prior_strength: float,
                    cumulative: tuple[np.ndarray, np.ndarray] | None = None, *,
                    prior_mean_clip: float = PRIOR_MEAN_CLIP):
    """Beta posterior parameters of the bins opening at ``starts``, and the log evidence.

    ``prior_mean_clip`` as in :func:`_prior_parameters` (0.5: the neutral priors
    of the prior-data conflict check, :mod:`~bayescal.probes.binning.conflict`).
    """
    cum_pos, cum_neg = cumulative if cumulative is not None else _cumulative_counts(cells)
    ends = np.append(starts[1:], cells.n_cells)
    pos = cum_pos[ends] - cum_pos[starts]
    neg = cum_neg[ends] - cum_neg[starts]
    a0, b0 = _prior_parameters(cells.edges[starts], cells.edges[ends], prior_strength,
                               prior_mean_clip)
    loglik = float(np.sum(betaln(pos + a0, neg + b0) - betaln(a0, b0)))
    return pos + a0, neg + b0, loglik


def _cumulative_counts(cells: ScoreCells) -> tuple[np.ndarray, np.ndarray]:
    return (np.concatenate([[0.0], np.cumsum(cells.positives)]),
            np.concatenate([[0.0], np.cumsum(cells.negatives)]))
