"""Bayesian reference probes: everything in bayescal that has a posterior.

Each probe keeps the posterior contract (:mod:`bayescal.probes.posterior`):
``idata_`` (an ArviZ ``xarray.DataTree``), ``predict_proba`` (posterior mean),
``predict_interval(X, prob=0.9)`` and ``diagnostics_``, with a
:class:`PosteriorDiagnosticsWarning` when a posterior fails its diagnostics.
PyMC, PyTensor and nutpie are imported only when a model is built.

Classifiers
    :class:`BayesianLogisticRegression` (Student-t/Cauchy priors, Gelman et al.
    2008), :class:`BayesianGPClassifier` (EP, MCMC, HSGP).
Calibration maps
    :class:`BBQCalibrator`, :class:`SBBCalibrator`, :class:`ABBCalibrator`
    (Bayesian binning), :class:`BayesianPlattCalibrator`,
    :class:`BayesianBetaCalibrator`, :class:`BayesianSplineCalibrator`,
    :class:`BayesianDirichletCalibrator` (multi-class).
"""

from bayescal.probes.binning import ABBCalibrator, BBQCalibrator, SBBCalibrator
from bayescal.probes.calibration_maps import (
    BayesianBetaCalibrator,
    BayesianPlattCalibrator,
    BayesianSplineCalibrator,
)
from bayescal.probes.dirichlet_map import BayesianDirichletCalibrator
from bayescal.probes.gp_classifier import BayesianGPClassifier
from bayescal.probes.logistic import BayesianLogisticRegression
from bayescal.probes.posterior import (
    DIAGNOSTIC_THRESHOLDS,
    PosteriorDiagnostics,
    PosteriorDiagnosticsWarning,
    credible_interval,
    summarize_diagnostics,
)
from bayescal.probes.sampling import PosteriorFit, sample_posterior

__all__ = [
    "DIAGNOSTIC_THRESHOLDS",
    "ABBCalibrator",
    "BBQCalibrator",
    "BayesianBetaCalibrator",
    "BayesianDirichletCalibrator",
    "BayesianGPClassifier",
    "BayesianLogisticRegression",
    "BayesianPlattCalibrator",
    "BayesianSplineCalibrator",
    "PosteriorDiagnostics",
    "PosteriorDiagnosticsWarning",
    "PosteriorFit",
    "SBBCalibrator",
    "credible_interval",
    "sample_posterior",
    "summarize_diagnostics",
]
