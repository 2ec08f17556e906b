"""Posterior inference: sampling, approximations and diagnostics for every Bayesian model.

The machinery under both :mod:`bayescal.probes` (the Bayesian estimators) and
:mod:`bayescal.stats` (the hierarchical model of score differences). It holds
no estimator: a model enters as a pure PyMC builder or a log density, a
posterior leaves as ArviZ data with its :class:`PosteriorDiagnostics`.

Modules
    :mod:`~bayescal.inference.sampling` (one entry point, :func:`sample_posterior`:
    NUTS by nutpie, PyMC, numpyro or blackjax, ADVI, Laplace; compiled models
    cached per structure), :mod:`~bayescal.inference.laplace_glm` (Newton's
    method on the Student-t-prior logistic log posterior, in NumPy),
    :mod:`~bayescal.inference.nutpie_glm`, :mod:`~bayescal.inference.nutpie_c`
    and :mod:`~bayescal.inference.jax_nuts` (the other NUTS back ends),
    :mod:`~bayescal.inference.importance` (the Pareto-smoothed importance
    sampling check of an approximate posterior, Vehtari et al. 2024),
    :mod:`~bayescal.inference.diagnostics` (one typed record and one set of
    thresholds) and :mod:`~bayescal.inference.posterior` (credible intervals and
    the posterior-predictive mixin every Bayesian estimator uses).

PyMC, PyTensor, nutpie and JAX are imported only when a model is sampled.
"""

from bayescal.inference.posterior import (
    DIAGNOSTIC_THRESHOLDS,
    PosteriorDiagnostics,
    PosteriorDiagnosticsWarning,
    credible_interval,
    summarize_diagnostics,
)
from bayescal.inference.sampling import PosteriorFit, sample_posterior

__all__ = [
    "DIAGNOSTIC_THRESHOLDS",
    "PosteriorDiagnostics",
    "PosteriorDiagnosticsWarning",
    "PosteriorFit",
    "credible_interval",
    "sample_posterior",
    "summarize_diagnostics",
]
