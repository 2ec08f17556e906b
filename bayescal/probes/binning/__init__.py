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

Modules: :mod:`~bayescal.probes.binning.cells` (cells and the bin score),
:mod:`~bayescal.probes.binning.posterior` (mixtures of Beta posteriors),
:mod:`~bayescal.probes.binning.exact_dp` (exact O(m^2) dynamic programmes),
:mod:`~bayescal.probes.binning.estimator` (shared estimator machinery),
:mod:`~bayescal.probes.binning.bbq` and :mod:`~bayescal.probes.binning.all_binnings`
(the estimators).
"""

from __future__ import annotations

from bayescal.probes.binning.all_binnings import ABBCalibrator, SBBCalibrator
from bayescal.probes.binning.bbq import BBQCalibrator, bbq_bin_range, equal_frequency_starts
from bayescal.probes.binning.cells import (
    PRIOR_MEAN_CLIP,
    ScoreCells,
    bin_log_marginal_likelihood,
    score_cells,
)
from bayescal.probes.binning.exact_dp import DynamicProgramme, abb_dynamic_programme
from bayescal.probes.binning.posterior import BinningPosterior, beta_mixture_quantile

__all__ = [
    "ABBCalibrator",
    "BBQCalibrator",
    "BinningPosterior",
    "DynamicProgramme",
    "PRIOR_MEAN_CLIP",
    "SBBCalibrator",
    "ScoreCells",
    "abb_dynamic_programme",
    "bbq_bin_range",
    "beta_mixture_quantile",
    "bin_log_marginal_likelihood",
    "equal_frequency_starts",
    "score_cells",
]

