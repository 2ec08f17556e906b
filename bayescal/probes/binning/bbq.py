"""Bayesian Binning into Quantiles (BBQ): averaging over equal-frequency binnings."""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from scipy.special import logsumexp

from bayescal._compat.param_validation import Interval
from bayescal.probes.binning.cells import ScoreCells, _beta_posterior, _cumulative_counts
from bayescal.probes.binning.conflict import NEUTRAL_PRIOR_MEAN_CLIP, prior_conflict_check
from bayescal.probes.binning.estimator import BINNING_CONSTRAINTS, _BayesianBinning, merge_check
from bayescal.probes.binning.posterior import BinningPosterior

__all__ = ["BBQCalibrator", "bbq_bin_range", "equal_frequency_starts"]


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
    input : {"score", "decision"}, default="score"
        What the scores are: probabilities in [0, 1], or decision values (any
        real number, e.g. ``SVC.decision_function``), which are read through
        the logistic function ``1 / (1 + exp(-d))`` first: the binnings only
        use the order of the scores, and the bins' prior means (the mid-points
        of their scores) stay probabilities.

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
        ``sampler="analytic"`` (exact posterior; R-hat/ESS NaN), ``seconds``,
        ``n_models``, ``bin_range``, ``one_bin_weight`` (posterior weight of
        the one-bin binning) and, when that exceeds one half,
        ``near_constant_map=True``; ``prior_conflict_log_bayes_factor``, and
        above ``log 10`` ``prior_conflict_map_rms`` and ``prior_conflict_map_max``
        (the map's difference from the one under neutral priors) and, when
        the RMS difference exceeds 0.1, ``prior_conflict=True``.

    Warns
    -----
    PosteriorDiagnosticsWarning
        When the one-bin binning holds more than half of the posterior weight,
        or when the calibration data contradict the bins' score-centred priors
        (a Bayes factor above 10 for neutral priors) *and* the map under
        neutral priors differs by more than 0.1 RMS over the calibration
        scores; ``diagnostics_.converged`` is then False. See Notes.

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

    **Near-constant maps.** On small calibration sets the one-bin binning
    (``B = 1`` is in the range while ``N^{1/3} < 20``, N up to about 8000) can
    hold most of the posterior weight although the scores are informative:
    each further bin must pay for its prior, centred on the bin's mid-score,
    which miscalibrated scores contradict. The map is then nearly constant.
    In the test suite's peer sweep (300-row data sets, 200 calibration rows)
    the one-bin weight exceeded one half in 4 of 48 fits, with maps spanning
    0.015-0.086, up to 0.015 Brier worse than isotonic regression (random
    forest on the blood transfusion data), while ABB on the same scores was
    within 0.005. As for SBB's constant maps, this is never silent: a warning
    gives the weight and the span, and ``diagnostics_.converged`` is False.

    **Prior-data conflict.** Each bin's Beta prior is centred on its
    mid-score, as if the scores were already probabilities. Where they are
    far from it -- over-confident scores piled near 0 and 1 with errors among
    them -- every bin with a mid-score near 0 or 1 and mixed labels pays for
    the conflict (a ``Beta(1.99, 0.01)`` prior against 10 % negatives costs
    several nats), so the evidence favours the few coarse binnings whose bins
    have mid-scores near 1/2, not the ones the labels support. BBQ therefore
    also sums the evidence of its equal-frequency binnings under *neutral*
    bin priors (the same strength, mean 1/2). When these explain the labels
    better by a Bayes factor above 10 ("strong" on Jeffreys' scale), it
    averages the same binnings under the neutral priors too, and flags the
    fit (a warning with the factor and the difference,
    ``diagnostics_.converged`` False) only if that map differs from its own
    by more than 0.1 root-mean-square over the calibration scores -- a Brier
    change of 0.01 (:mod:`~bayescal.probes.binning.conflict`). The factor
    grows with the calibration set while the prior's hold on the map fades:
    on 20,000 over-confident synthetic rows (the tests') the factor is about
    ``e^34`` but the maps differ by 0.03 RMS. In the peer sweep at 500 rows (333 calibration rows,
    eleven data sets, four classifiers, 3 folds) this flagged BBQ on naive
    Bayes scores of mushroom (0.056 worse than the best of isotonic
    regression and 10-bin histograms on the fold flagged); at 2000 rows it
    flagged nothing, where the factor alone had flagged 6 cells within 0.01
    of those peers. Two naive Bayes cells at 500 rows that the factor alone
    flagged are not flagged: spambase (0.0155 worse pooled; the neutral
    priors move the map by 0.03 RMS and recover 0.002-0.007 of it) and
    mammographic mass (0.0165; of its two folds 0.025 worse, one is flagged,
    the other's maps are 0.054 apart). On such
    scores isotonic regression, or a parametric map such as
    :class:`~bayescal.calibration.BetaCalibrator`, is the better choice
    whether or not the flag fires; :class:`ABBCalibrator` was within 0.01
    on both.

    Not flagged: by chance the evidence can also put most of the weight on one
    fine binning (QSAR random forest scores, one fold of 333 rows: 0.69 on a
    52-bin binning, 0.037 worse than isotonic regression on that fold, 0.014
    pooled; German credit SVM decision values, 200 rows: 0.89 on a 24-bin
    binning). No self-diagnostic measured separates these from fine fits;
    :class:`ABBCalibrator` was within 0.002 on both.

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
    _parameter_constraints: dict = {
        **BINNING_CONSTRAINTS,
        "spread": [Interval(Real, 1, None, closed="left")],
        "weight_tolerance": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(self, *, spread: float = 10.0, prior_strength: float = 2.0,
                 n_draws: int = 1000, random_state: Any = None,
                 weight_tolerance: float = 1e-12, input: str = "score") -> None:
        self.input = input
        self.spread = spread
        self.prior_strength = prior_strength
        self.n_draws = n_draws
        self.random_state = random_state
        self.weight_tolerance = weight_tolerance

    def _fit_posterior(self, cells: ScoreCells, n_samples: int):
        ess = float(self.prior_strength)
        low, high = bbq_bin_range(n_samples, float(self.spread))
        cum_w = np.cumsum(cells.positives + cells.negatives)
        cumulative = _cumulative_counts(cells)
        starts_all, alpha_all, beta_all, logev, neutral = [], [], [], [], []
        for n_bins in range(low, high + 1):
            st = equal_frequency_starts(cum_w, n_bins)
            a, b, ll = _beta_posterior(cells, st, ess, cumulative)
            starts_all.append(st)
            alpha_all.append(a)
            beta_all.append(b)
            logev.append(ll)
            neutral.append(_beta_posterior(cells, st, ess, cumulative,
                                           prior_mean_clip=NEUTRAL_PRIOR_MEAN_CLIP))
        logev = np.asarray(logev)
        logev_neutral = np.array([ll for *_, ll in neutral])
        w = np.exp(logev - logsumexp(logev))
        keep = np.flatnonzero(w >= self.weight_tolerance * w.max())
        w = w[keep] / w[keep].sum()
        posterior = BinningPosterior(
            w, [starts_all[k] for k in keep], [alpha_all[k] for k in keep],
            [beta_all[k] for k in keep], logev[keep],
        )
        cell_mean = posterior.cell_mean(cells.n_cells)
        extra = {"bin_range": (low, high), "n_models_scored": int(logev.size),
                 "cell_mean": cell_mean}
        one_bin = np.array([starts_all[k].size == 1 for k in keep])
        extra["one_bin_weight"] = float(w[one_bin].sum())
        if extra["one_bin_weight"] > ONE_BIN_WEIGHT_LIMIT:
            merge_check(extra, _near_constant_check(extra["one_bin_weight"], cell_mean))

        def neutral_map() -> np.ndarray:
            # the same average over the same binnings, every bin prior's mean 1/2
            weights = np.exp(logev_neutral - logsumexp(logev_neutral))
            return BinningPosterior(weights, starts_all, [a for a, _, _ in neutral],
                                    [b for _, b, _ in neutral],
                                    logev_neutral).cell_mean(cells.n_cells)

        # the uniform prior over the bin counts is common to both sums and cancels
        merge_check(extra, prior_conflict_check(
            float(logsumexp(logev)), float(logsumexp(logev_neutral)),
            "the equal-frequency binnings BBQ averages", centred_map=cell_mean,
            neutral_map=neutral_map, cell_weights=cells.positives + cells.negatives))
        return posterior, extra


#: Posterior weight of the one-bin binning above which BBQ's map is called near-constant.
ONE_BIN_WEIGHT_LIMIT = 0.5


def _near_constant_check(one_bin_weight: float, cell_mean: np.ndarray) -> dict:
    """The failure of a BBQ map dominated by its one-bin binning (see Notes of BBQCalibrator)."""
    return {
        "near_constant_map": True,
        "failure": (
            f"near-constant map: the one-bin binning holds {one_bin_weight:.2f} of the posterior "
            f"weight, so the map spans only {np.ptp(cell_mean):.3g} over the scores (from "
            f"{cell_mean.min():.4g} to {cell_mean.max():.4g}); the binnings with several bins "
            "are not credible under BBQ's prior (Beta priors centred on each bin's mid-score) "
            "on these few rows, although the scores may well be informative"
        ),
        "remedy": ("Use ABBCalibrator (averages over all binnings) or IsotonicCalibrator, or "
                   "more calibration data."),
    }
