"""Oracle tests of the EP numerics (bayescal.probes.gp_ep)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.linalg import inv, slogdet
from scipy import integrate
from scipy.stats import norm

from bayescal.probes.gp_ep import (
    HyperPrior,
    ep_log_marginal_likelihood_gradient,
    ep_predict_latent,
    fit_ep_hyperparameters,
    probit_tilted_moments,
    rbf_kernel,
    run_ep,
)


def _problem(n=25, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(rng.uniform(size=n) < norm.cdf(2.0 * X[:, 0]), 1.0, -1.0)
    return X, y


@pytest.mark.parametrize(
    ("y", "mu", "var"), [(1.0, 0.3, 0.5), (-1.0, 1.2, 2.0), (1.0, -2.5, 0.3), (-1.0, -0.1, 9.0)]
)
def test_tilted_moments_match_numerical_integration(y, mu, var):
    def tilted(f, power):
        return f**power * norm.cdf(y * f) * norm.pdf(f, mu, np.sqrt(var))

    z0 = integrate.quad(tilted, -np.inf, np.inf, args=(0,))[0]
    m1 = integrate.quad(tilted, -np.inf, np.inf, args=(1,))[0] / z0
    m2 = integrate.quad(tilted, -np.inf, np.inf, args=(2,))[0] / z0
    log_z, mu_hat, var_hat = probit_tilted_moments(np.array([y]), np.array([mu]), np.array([var]))
    assert log_z[0] == pytest.approx(np.log(z0), rel=1e-7)
    assert mu_hat[0] == pytest.approx(m1, rel=1e-7, abs=1e-9)
    assert var_hat[0] == pytest.approx(m2 - m1**2, rel=1e-6)


def test_tilted_moments_stay_finite_far_in_the_tail():
    log_z, mu_hat, var_hat = probit_tilted_moments(
        np.array([1.0]), np.array([-40.0]), np.array([1.0])
    )
    assert np.isfinite(log_z).all() and np.isfinite(mu_hat).all() and (var_hat > 0).all()


def test_sequential_and_parallel_ep_reach_the_same_fixed_point():
    X, y = _problem()
    K = rbf_kernel(X, X, np.array([0.0, 0.3, 0.5]))
    seq = run_ep(K, y, mode="sequential", tol=1e-10)
    par = run_ep(K, y, mode="parallel", tol=1e-10)
    assert seq.converged and par.converged
    np.testing.assert_allclose(seq.tau, par.tau, atol=1e-8)
    np.testing.assert_allclose(seq.nu, par.nu, atol=1e-8)
    assert seq.log_marginal_likelihood == pytest.approx(par.log_marginal_likelihood, abs=1e-9)


def test_ep_fixed_point_matches_tilted_moments():
    # at convergence the EP marginal equals each site's tilted distribution's moments
    X, y = _problem(seed=1)
    K = rbf_kernel(X, X, np.array([0.2, 0.0, 0.4]))
    res = run_ep(K, y, tol=1e-11)
    tau_c = 1.0 / res.var - res.tau
    nu_c = res.mean / res.var - res.nu
    _, mu_hat, var_hat = probit_tilted_moments(y, nu_c / tau_c, 1.0 / tau_c)
    np.testing.assert_allclose(res.mean, mu_hat, atol=1e-8)
    np.testing.assert_allclose(res.var, var_hat, atol=1e-8)


def test_log_marginal_likelihood_matches_direct_eq_3_65():
    X, y = _problem(seed=2)
    K = rbf_kernel(X, X, np.array([0.1, -0.2, 0.3]))
    res = run_ep(K, y, tol=1e-11)
    tau, nu = res.tau, res.nu
    Sigma = inv(inv(K + 1e-12 * np.eye(len(y))) + np.diag(tau))
    mu = Sigma @ nu
    var_c = 1.0 / (1.0 / np.diag(Sigma) - tau)
    mu_c = var_c * (mu / np.diag(Sigma) - nu)
    mu_site, var_site = nu / tau, 1.0 / tau
    A = K + np.diag(var_site)
    direct = (
        -0.5 * slogdet(A)[1]
        - 0.5 * mu_site @ inv(A) @ mu_site
        + np.sum(norm.logcdf(y * mu_c / np.sqrt(1.0 + var_c)))
        + 0.5 * np.sum(np.log(var_c + var_site))
        + np.sum((mu_c - mu_site) ** 2 / (2.0 * (var_c + var_site)))
    )
    assert res.log_marginal_likelihood == pytest.approx(direct, rel=1e-7)


@pytest.mark.parametrize("theta", [np.array([0.0, 0.3, 0.5]), np.array([-0.5, 1.0, 1.2])])
def test_gradient_eq_5_27_matches_finite_differences(theta):
    X, y = _problem(seed=3)
    res = run_ep(rbf_kernel(X, X, theta), y, tol=1e-12, max_sweeps=2000)
    grad = ep_log_marginal_likelihood_gradient(X, theta, res)
    h = 1e-5
    fd = []
    for j in range(theta.size):
        e = np.zeros(theta.size)
        e[j] = h
        up = run_ep(rbf_kernel(X, X, theta + e), y, tol=1e-12, max_sweeps=2000)
        down = run_ep(rbf_kernel(X, X, theta - e), y, tol=1e-12, max_sweeps=2000)
        fd.append((up.log_marginal_likelihood - down.log_marginal_likelihood) / (2 * h))
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-6)


def test_predictions_match_dense_formulas():
    X, y = _problem(seed=4)
    theta = np.array([0.3, 0.1, 0.2])
    K = rbf_kernel(X, X, theta)
    res = run_ep(K, y, tol=1e-11)
    Xn = np.random.default_rng(9).normal(size=(7, 2))
    mean, var = ep_predict_latent(X, Xn, theta, res)
    Ks = rbf_kernel(X, Xn, theta)
    A = inv(K + np.diag(1.0 / res.tau))
    np.testing.assert_allclose(mean, Ks.T @ A @ (res.nu / res.tau), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(
        var, np.exp(2 * theta[-1]) - np.einsum("ij,ik,kj->j", Ks, A, Ks), rtol=1e-7
    )


def test_hyper_prior_gradient_matches_finite_differences():
    prior = HyperPrior(3.0, 2.0, 1.5)
    theta = np.array([0.2, -0.4, 0.7])
    _, grad = prior.logpdf(theta)
    h = 1e-6
    fd = [
        (prior.logpdf(theta + h * e)[0] - prior.logpdf(theta - h * e)[0]) / (2 * h)
        for e in np.eye(3)
    ]
    np.testing.assert_allclose(grad, fd, rtol=1e-6)


@pytest.mark.parametrize("ard", [True, False])
def test_type_ii_map_is_a_stationary_point(ard):
    X, y = _problem(n=40, seed=5)
    theta0 = np.zeros(3 if ard else 2)
    fit = fit_ep_hyperparameters(X, y, theta0, prior=HyperPrior(), ard=ard, tol=1e-9)
    start = fit_ep_hyperparameters(X, y, theta0, prior=HyperPrior(), ard=ard, optimize=False)
    assert fit.log_posterior > start.log_posterior
    assert fit.theta_full.size == 3

    def objective(theta):
        return fit_ep_hyperparameters(
            X, y, theta, prior=HyperPrior(), ard=ard, optimize=False, tol=1e-11
        ).log_posterior

    h = 1e-4
    for j in range(theta0.size):
        e = np.zeros(theta0.size)
        e[j] = h
        slope = (objective(fit.theta + e) - objective(fit.theta - e)) / (2 * h)
        assert abs(slope) < 1e-2


def test_fixed_hyper_parameters_are_not_moved():
    X, y = _problem(n=30, seed=6)
    theta0 = np.array([0.5, -0.5, 0.3])
    fit = fit_ep_hyperparameters(
        X, y, theta0, prior=HyperPrior(), fixed=np.array([True, False, True])
    )
    assert fit.theta[0] == 0.5 and fit.theta[2] == 0.3
    assert fit.theta[1] != -0.5


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.floats(-1.0, 1.0), st.floats(-1.0, 1.0))
def test_ep_marginals_are_valid_and_shrink_the_prior(seed, log_ls, log_amp):
    X, y = _problem(n=15, d=2, seed=seed)
    theta = np.array([log_ls, log_ls, log_amp])
    K = rbf_kernel(X, X, theta)
    res = run_ep(K, y)
    assert res.converged
    assert np.all(res.tau >= 0)
    assert np.all(res.var > 0) and np.all(res.var <= np.diag(K) + 1e-9)
    # the latent mean takes the side of the label at least as often as not
    assert np.mean(np.sign(res.mean) == y) >= 0.5


# ----------------------------------------------------------------------------- fast paths


def _reference_ep(K, y, tol=1e-12, max_sweeps=500):
    """R&W Algorithm 3.5 written out with dense inverses: the oracle of the fast paths."""
    n = y.size
    tau, nu = np.zeros(n), np.zeros(n)
    Sigma, mu = K.copy(), np.zeros(n)
    for _ in range(max_sweeps):
        old = np.concatenate([tau, nu])
        for i in range(n):
            tau_c = 1.0 / Sigma[i, i] - tau[i]
            nu_c = mu[i] / Sigma[i, i] - nu[i]
            m, v = nu_c / tau_c, 1.0 / tau_c
            z = y[i] * m / np.sqrt(1.0 + v)
            ratio = norm.pdf(z) / norm.cdf(z)
            mu_hat = m + y[i] * v * ratio / np.sqrt(1.0 + v)
            var_hat = v - v**2 * ratio / (1.0 + v) * (z + ratio)
            delta = max(1.0 / var_hat - tau_c - tau[i], -tau[i])
            tau[i] += delta
            nu[i] = mu_hat / var_hat - nu_c
            s = Sigma[:, i].copy()
            Sigma -= delta / (1.0 + delta * s[i]) * np.outer(s, s)
            mu = Sigma @ nu
        sw = np.sqrt(tau)
        Sigma = K - K @ np.diag(sw) @ inv(np.eye(n) + np.outer(sw, sw) * K) @ np.diag(sw) @ K
        mu = Sigma @ nu
        if np.max(np.abs(np.concatenate([tau, nu]) - old)) < tol:
            return tau, nu, mu, np.diag(Sigma)
    raise AssertionError("reference EP did not converge")


@pytest.mark.parametrize(("seed", "theta"), [(0, [0.0, 0.3, 0.5]), (1, [-0.7, 0.2, 2.0]),
                                             (2, [0.5, 0.5, -1.5])])
@pytest.mark.parametrize("anderson", [0, 5])
def test_parallel_ep_reaches_the_reference_fixed_point(seed, theta, anderson):
    X, y = _problem(n=40, seed=seed)
    K = rbf_kernel(X, X, np.array(theta))
    tau, nu, mu, var = _reference_ep(K, y)
    res = run_ep(K, y, tol=1e-11, anderson=anderson, max_sweeps=1000)
    assert res.converged
    np.testing.assert_allclose(res.tau, tau, atol=1e-8)
    np.testing.assert_allclose(res.nu, nu, atol=1e-8)
    np.testing.assert_allclose(res.mean, mu, atol=1e-8)
    np.testing.assert_allclose(res.var, var, rtol=1e-8)
    seq = run_ep(K, y, mode="sequential", tol=1e-11)
    assert res.log_marginal_likelihood == pytest.approx(seq.log_marginal_likelihood, abs=1e-9)


def test_anderson_needs_fewer_sweeps_than_plain_damping():
    X, y = _problem(n=120, seed=7)
    K = rbf_kernel(X, X, np.array([0.0, 0.0, 1.0]))
    plain = run_ep(K, y, tol=1e-8, anderson=0)
    fast = run_ep(K, y, tol=1e-8)
    assert plain.converged and fast.converged
    assert fast.n_sweeps < plain.n_sweeps
    np.testing.assert_allclose(fast.tau, plain.tau, atol=1e-6)


def test_posterior_with_zero_and_tiny_sites_matches_dense_formula():
    from bayescal.probes.gp_ep import _posterior

    X, y = _problem(n=30, seed=8)
    K = rbf_kernel(X, X, np.array([0.1, 0.2, 0.3]))
    rng = np.random.default_rng(0)
    tau = rng.uniform(0.1, 2.0, 30)
    tau[:4] = [0.0, 1e-12, 1e-8, 0.0]  # below FAST_VARIANCE_FLOOR: the column path
    nu = rng.normal(size=30)
    L, L_inv, mean, var = _posterior(K, tau, nu)
    sw = np.sqrt(tau)
    B = np.eye(30) + np.outer(sw, sw) * K
    Sigma = K - K @ np.diag(sw) @ inv(B) @ np.diag(sw) @ K
    np.testing.assert_allclose(var, np.diag(Sigma), rtol=1e-9)
    np.testing.assert_allclose(mean, Sigma @ nu, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(L @ L.T, B, atol=1e-12)
    np.testing.assert_allclose(L_inv @ L, np.eye(30), atol=1e-10)
    res = run_ep(K, y, tol=1e-10)
    np.testing.assert_allclose(res.B_inverse(), inv(np.eye(30) + np.outer(res.sqrt_tau,
                                                                         res.sqrt_tau) * K),
                               atol=1e-10)


def test_bad_warm_start_restarts_cold_and_reaches_the_same_fixed_point(monkeypatch):
    import bayescal.probes.gp_ep as gep

    X, y = _problem(n=40, seed=9)
    K = rbf_kernel(X, X, np.array([0.0, 0.0, 1.5]))
    cold = run_ep(K, y, tol=1e-10)
    monkeypatch.setattr(gep, "PARALLEL_PATIENCE", 3)  # give up on the warm start early
    far = (np.full(40, 50.0), -60.0 * y)  # sites of a very different kernel
    warm = run_ep(K, y, tol=1e-10, init=far, max_sweeps=500)
    assert warm.converged and warm.n_sweeps > 3
    np.testing.assert_allclose(warm.tau, cold.tau, atol=1e-7)
    assert warm.log_marginal_likelihood == pytest.approx(cold.log_marginal_likelihood, abs=1e-8)


def _reference_map(X, y, theta0, prior):
    """Type-II MAP by Nelder-Mead on the plain (unaccelerated, cold) EP objective."""
    from scipy.optimize import minimize as sp_minimize

    def neg(theta):
        full = np.append(np.full(X.shape[1], theta[0]), theta[-1])
        res = run_ep(rbf_kernel(X, X, full), y, tol=1e-11, anderson=0, max_sweeps=2000)
        return -(res.log_marginal_likelihood + prior.logpdf(theta)[0])

    return sp_minimize(neg, theta0, method="Nelder-Mead",
                       options={"xatol": 1e-7, "fatol": 1e-11, "maxiter": 4000}).x


def test_type_ii_map_and_predictions_match_a_derivative_free_reference():
    X, y = _problem(n=60, seed=10)
    prior = HyperPrior()
    theta0 = np.array([0.3, 0.0])
    fit = fit_ep_hyperparameters(X, y, theta0, prior=prior, ard=False, tol=1e-9)
    ref_theta = _reference_map(X, y, theta0, prior)
    np.testing.assert_allclose(fit.theta, ref_theta, atol=2e-3)
    Xn = np.random.default_rng(1).normal(size=(50, 2))
    full = np.append(np.full(2, ref_theta[0]), ref_theta[-1])
    ref = run_ep(rbf_kernel(X, X, full), y, tol=1e-11, anderson=0, max_sweeps=2000)
    m_ref, v_ref = ep_predict_latent(X, Xn, full, ref)
    m, v = ep_predict_latent(X, Xn, fit.theta_full, fit.result)
    p_ref, p = norm.cdf(m_ref / np.sqrt(1 + v_ref)), norm.cdf(m / np.sqrt(1 + v))
    np.testing.assert_allclose(p, p_ref, atol=1e-4)
    assert fit.result.log_marginal_likelihood == pytest.approx(ref.log_marginal_likelihood,
                                                               abs=1e-4)


def test_first_optimiser_trial_stays_near_the_start(monkeypatch):
    # the summed gradient grows with n: unscaled, L-BFGS-B's first trial went to the
    # corner of the box (length-scale 0.01, amplitude 100)
    import bayescal.probes.gp_ep as gep

    X, y = _problem(n=400, seed=11)
    seen = []
    real = gep.rbf_kernel
    monkeypatch.setattr(gep, "rbf_kernel", lambda a, b, t: (seen.append(t.copy()), real(a, b, t))[1])
    theta0 = np.array([1.5, -1.0])
    fit = fit_ep_hyperparameters(X, y, theta0, prior=HyperPrior(), ard=False)
    assert fit.optimizer_success
    steps = [np.max(np.abs(t[[0, -1]] - theta0)) for t in seen]
    assert steps[0] == 0.0 and steps[1] < 1.0
    assert fit.n_evaluations == len(seen)  # the final point reused its evaluation


def test_fit_warm_started_from_screened_sites_matches_a_cold_fit():
    # the EP fixed point does not depend on the starting sites, so a fit whose first EP
    # run starts from converged sites at theta0 reaches the cold fit's optimum, and its
    # first evaluation needs one sweep instead of a cold run's many
    X, y = _problem(n=80, seed=12)
    theta0 = np.array([0.2, 0.1])
    screened = fit_ep_hyperparameters(X, y, theta0, prior=HyperPrior(), ard=False,
                                      optimize=False, tol=1e-8)
    cold = fit_ep_hyperparameters(X, y, theta0, prior=HyperPrior(), ard=False, tol=1e-8)
    sites = (screened.result.tau, screened.result.nu)
    warm_once = fit_ep_hyperparameters(X, y, theta0, prior=HyperPrior(), ard=False,
                                       optimize=False, tol=1e-8, init=sites)
    warm = fit_ep_hyperparameters(X, y, theta0, prior=HyperPrior(), ard=False, tol=1e-8,
                                  init=sites)
    assert warm_once.result.n_sweeps == 1 < screened.result.n_sweeps
    assert warm_once.log_posterior == pytest.approx(screened.log_posterior, abs=1e-9)
    np.testing.assert_allclose(warm.theta, cold.theta, atol=2e-3)
    assert warm.log_posterior == pytest.approx(cold.log_posterior, abs=1e-5)


def test_log_posterior_tolerance_stops_lbfgs_earlier_near_the_same_optimum():
    X, y = _problem(n=80, seed=13)
    theta0 = np.array([0.8, -0.5])
    fits = {tol: fit_ep_hyperparameters(X, y, theta0, prior=HyperPrior(), ard=False, tol=1e-8,
                                        log_posterior_tol=tol) for tol in (1e-9, 1e-4, 1e-2)}
    tight = fits[1e-9]
    assert fits[1e-2].n_evaluations < tight.n_evaluations
    # the rule bounds the gain of the last L-BFGS step, so the stop lies within a few
    # tolerances of the optimum (never above it)
    for tol, fit in fits.items():
        assert tight.log_posterior - 5 * max(tol, 1e-9) <= fit.log_posterior
        assert fit.log_posterior <= tight.log_posterior + 1e-9
