"""Tests of EP's check against the exact latent posterior (importance ratios, Pareto k)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import cholesky, solve_triangular
from scipy.special import log_ndtr
from scipy.stats import multivariate_normal

from bayescal.inference.importance import pareto_shape
from bayescal.probes import BayesianGPClassifier
from bayescal.probes.gp_ep import ep_importance_log_ratios, rbf_kernel, run_ep


def _problem(n=200, amplitude=3.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    K = rbf_kernel(X, X, np.log([1.0, 1.0, amplitude])) + 1e-8 * np.eye(n)
    return K, y


def _ep_draws(K, result, n_draws, rng):
    sw = np.sqrt(result.tau)
    V = solve_triangular(result.L, sw[:, None] * K, lower=True)
    sigma = K - V.T @ V + 1e-10 * np.eye(K.shape[0])
    return result.mean + rng.standard_normal((n_draws, K.shape[0])) @ cholesky(sigma, lower=True).T, sigma


def test_log_ratios_equal_exact_minus_gaussian_log_density_up_to_a_constant():
    K, y = _problem(n=6)
    result = run_ep(K, y)
    f, sigma = _ep_draws(K, result, 50, np.random.default_rng(0))
    exact = multivariate_normal(np.zeros(6), K).logpdf(f) + log_ndtr(y * f).sum(axis=1)
    gaussian = multivariate_normal(result.mean, sigma).logpdf(f)
    difference = ep_importance_log_ratios(f, y, result.tau, result.nu) - (exact - gaussian)
    np.testing.assert_allclose(difference, difference[0], atol=1e-6)


def test_converged_ep_passes_and_ep_stopped_early_fails():
    K, y = _problem()
    rng = np.random.default_rng(1)
    good, stopped = run_ep(K, y), run_ep(K, y, max_sweeps=1)
    assert good.converged and not stopped.converged
    k_good = pareto_shape(ep_importance_log_ratios(_ep_draws(K, good, 2000, rng)[0], y,
                                                   good.tau, good.nu), np.zeros(2000))
    k_bad = pareto_shape(ep_importance_log_ratios(_ep_draws(K, stopped, 2000, rng)[0], y,
                                                  stopped.tau, stopped.nu), np.zeros(2000))
    assert k_good < 0.7 < k_bad


def test_classifier_records_the_ep_check():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=150) > 0).astype(int)
    for inference in ("ep", "sparse"):
        gp = BayesianGPClassifier(inference=inference, random_state=0).fit(X, y)
        assert 0.0 < gp.diagnostics_.pareto_k < 0.7 and gp.diagnostics_.converged
        assert gp.diagnostics_.to_dict()["pareto_k"] == gp.diagnostics_.pareto_k
