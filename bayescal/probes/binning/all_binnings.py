"""SBB and ABB: selection over, and averaging over, all binnings of the scores."""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescal.probes.binning.cells import ScoreCells, _beta_posterior, _cumulative_counts
from bayescal.probes.binning.estimator import _BayesianBinning
from bayescal.probes.binning.exact_dp import (
    _abb_cell_mean,
    _cut_probability,
    _sample_binnings,
    _sbb_starts,
    abb_dynamic_programme,
)
from bayescal.probes.binning.posterior import BinningPosterior
from bayescal.validation import check_positive_int

__all__ = ["ABBCalibrator", "SBBCalibrator"]


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
    diagnostics_ : dict
        ``sampler="analytic"``, ``log_evidence`` of all binnings,
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
    diagnostics_ : dict
        ``sampler="analytic"``, ``log_evidence`` (log of the sum over all
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
