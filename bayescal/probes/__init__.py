"""Bayesian reference probes: everything in bayescal that has a posterior.

Each probe keeps the posterior contract (:mod:`bayescal.inference.posterior`):
``idata_`` (an ArviZ ``xarray.DataTree``), ``predict_proba`` (posterior mean),
``predict_interval(X, prob=0.9)`` and ``diagnostics_``, with a
:class:`~bayescal.inference.PosteriorDiagnosticsWarning` when a posterior fails its diagnostics.
The sampling, approximations and diagnostics they share live in
:mod:`bayescal.inference`. PyMC, PyTensor and nutpie are imported only when a
model is built.

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

__all__ = [
    "ABBCalibrator",
    "BBQCalibrator",
    "BayesianBetaCalibrator",
    "BayesianDirichletCalibrator",
    "BayesianGPClassifier",
    "BayesianLogisticRegression",
    "BayesianPlattCalibrator",
    "BayesianSplineCalibrator",
    "SBBCalibrator",
]
