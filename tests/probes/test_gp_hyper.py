"""Tests of the EP-GPC hyper-parameter search (bayescal.probes.gp_hyper)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chi2, invgamma

from bayescal.probes.gp_ep import HyperPrior, rbf_kernel, run_ep
from bayescal.probes.gp_hyper import (
    ARD_MAX_RATIO,
    COLLAPSE_LOGIT_SPREAD,
    ard_penalty,
    collapse_failures,
    constant_model_log_likelihood,
    constant_model_loo_log_likelihood,
    dimension_scaled_prior,
    fit_with_restarts,
    initial_lengthscale,
    loo_probabilities,
    screened_modes,
    select_kernel,
)


@pytest.mark.parametrize("d", [1, 4, 60])
def test_dimension_scaled_prior_is_the_prior_of_l_over_sqrt_d(d):
    prior = dimension_scaled_prior(HyperPrior(3.0, 3.0, 2.0), d)
    assert prior.ls_beta == pytest.approx(3.0 * np.sqrt(d)) and prior.amp_sigma == 2.0
    ls = np.array([0.5, 2.0, 9.0, 30.0])
    # log density of log(l) when l / sqrt(d) ~ InverseGamma(3, 3): scipy plus the Jacobian
    expected = invgamma(3.0, scale=3.0 * np.sqrt(d)).logpdf(ls) + np.log(ls)
    got = [prior.logpdf(np.array([np.log(v), 0.0]))[0] for v in ls]
    np.testing.assert_allclose(np.diff(got), np.diff(expected), rtol=1e-10)


@pytest.mark.parametrize("d", [2, 10, 57])
def test_initial_lengthscale_is_sqrt_d_on_white_inputs(d):
    # x - x' ~ N(0, 2 I): |x - x'|^2 / 2 ~ chi2(d), median about d for large d
    X = np.random.default_rng(0).normal(size=(400, d))
    assert initial_lengthscale(X) == pytest.approx(np.sqrt(chi2(d).median()), rel=0.05)
    # scale-equivariant, and a constant input falls back to sqrt(D)
    assert initial_lengthscale(3.0 * X) == pytest.approx(3.0 * initial_lengthscale(X))
    assert initial_lengthscale(np.ones((10, d))) == pytest.approx(np.sqrt(d))


def test_constant_model_log_likelihood_closed_form():
    y = np.array([1.0] * 3 + [-1.0] * 7)
    assert constant_model_log_likelihood(y) == pytest.approx(3 * np.log(0.3) + 7 * np.log(0.7))
    assert constant_model_log_likelihood(np.ones(5)) == 0.0


def test_uncorrelated_prior_is_reported_collapsed():
    # K = s I: no row informs another, EP's log Z = n log Phi(0) = n log 0.5, below the
    # constant model of 30/70 labels, and every leave-one-out probability is exactly 0.5
    y = np.r_[np.ones(30), -np.ones(70)]
    res = run_ep(2.0 * np.eye(100), y)
    assert res.log_marginal_likelihood == pytest.approx(100 * np.log(0.5), rel=1e-6)
    np.testing.assert_allclose(loo_probabilities(res), 0.5, atol=1e-9)
    failures = collapse_failures(y, res)
    assert len(failures) == 2 and all(f.startswith("collapsed") for f in failures)
    assert str(COLLAPSE_LOGIT_SPREAD) in failures[0]
    assert f"{100 * np.log(0.5):.2f}" in failures[1]  # every held-out row predicted at 0.5
    assert collapse_failures(np.ones(100), res) == []  # constant labels: nothing to explain
    named = collapse_failures(y, res, label="tableware")
    assert all(f.startswith("class 'tableware' (30 of 100 rows) against the rest: collapsed")
               for f in named)


def test_constant_model_loo_log_likelihood_by_hand():
    y = np.r_[np.ones(3), -np.ones(5)]
    by_hand = 0.0
    for i in range(y.size):
        rest = np.delete(y, i)
        p1 = (np.sum(rest > 0) + 1) / (rest.size + 2)  # one pseudo-count per class
        by_hand += np.log(p1 if y[i] > 0 else 1 - p1)
    assert constant_model_loo_log_likelihood(y) == pytest.approx(by_hand, rel=1e-12)


def test_rare_class_that_is_discriminated_is_not_collapsed():
    # A class of 5 rows in 150: its held-out predictions beat the class frequency
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 2))
    y = np.where(X[:, 0] > 2.0, 1.0, -1.0)
    assert np.sum(y > 0) == 5
    res = run_ep(rbf_kernel(X, X, np.log([1.0, 1.0, 2.0])), y)
    assert collapse_failures(y, res, label=3) == []
    # 5 labels scattered at random and a short length-scale: the fit chases noise and
    # predicts held-out rows worse than the class frequency
    y_noise = np.where(np.isin(np.arange(150), rng.choice(150, 5, replace=False)), 1.0, -1.0)
    res = run_ep(rbf_kernel(X, X, np.log([0.5, 0.5, 2.0])), y_noise)
    failures = collapse_failures(y_noise, res, label=3)
    assert failures and all(f.startswith("class 3 (5 of 150 rows)") for f in failures)


def test_informative_fit_is_not_collapsed():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=80) > 0, 1.0, -1.0)
    res = run_ep(rbf_kernel(X, X, np.log([1.0, 1.0, 2.0])), y)
    assert collapse_failures(y, res) == []
    # the cavity probabilities agree with the labels most of the time
    assert np.mean((loo_probabilities(res) > 0.5) == (y > 0)) > 0.8


def test_restarts_never_do_worse_than_one_start():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    y = np.where(np.sin(2 * X[:, 0]) + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    prior = dimension_scaled_prior(HyperPrior(), 3)
    one, n1 = fit_with_restarts(X, y, prior=prior, ard=False, n_restarts=0)
    three, n3 = fit_with_restarts(X, y, prior=prior, ard=False, n_restarts=2)
    assert three.log_posterior >= one.log_posterior - 1e-8
    assert n3 > n1


def test_ard_is_kept_when_one_input_matters_and_dropped_on_wide_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = np.where(np.sin(2.5 * X[:, 0]) + 0.2 * rng.normal(size=300) > 0, 1.0, -1.0)
    prior = dimension_scaled_prior(HyperPrior(), 4)
    choice = select_kernel(X, y, prior=prior, ard="auto", n_restarts=0)
    assert choice.ard and "kept" in choice.notes[0]
    ls = np.exp(choice.fit.theta_full[:-1])
    assert ls[0] < ls[1:].min()  # the relevant input gets the shortest length-scale
    assert choice.log_ml_ard - choice.log_ml_shared > 1.5 * np.log(300)
    # wide: D / n above ARD_MAX_RATIO -> ARD is not tried
    Xw = rng.normal(size=(40, 10))
    assert 10 / 40 > ARD_MAX_RATIO
    yw = np.where(Xw[:, 0] > 0, 1.0, -1.0)
    wide = select_kernel(Xw, yw, prior=dimension_scaled_prior(HyperPrior(), 10), ard="auto",
                         n_restarts=0)
    assert not wide.ard and "not tried" in wide.notes[0] and np.isnan(wide.log_ml_ard)


def test_screened_modes_are_the_local_maxima_best_first():
    assert screened_modes([-5.0, -3.0, -2.0, -4.0, -6.0]) == [2]  # one hill
    assert screened_modes([-5.0, -3.0, -4.0, -2.0, -6.0]) == [3, 1]  # two hills, best first
    assert screened_modes([-1.0, -2.0, -3.0, -2.5, -0.5]) == [4, 0]  # maxima at both ends
    assert screened_modes([-1.0, -1.0, -1.0]) == [0]  # flat: the first best point
    assert screened_modes([]) == []


def test_auto_restarts_optimise_once_per_screened_mode(monkeypatch):
    import bayescal.probes.gp_hyper as gh

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    y = np.where(np.sin(2 * X[:, 0]) + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    prior = dimension_scaled_prior(HyperPrior(), 3)
    calls = []
    real_fit = gh.fit_ep_hyperparameters

    def spy(*args, **kwargs):
        calls.append(kwargs.get("optimize", True))
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(gh, "fit_ep_hyperparameters", spy)
    modes = []
    real_modes = gh.screened_modes
    monkeypatch.setattr(gh, "screened_modes", lambda v: modes.append(real_modes(v)) or modes[-1])
    single, _ = fit_with_restarts(X, y, prior=prior, ard=False, n_restarts=0)
    n_single = calls.count(True)
    calls.clear()
    auto, _ = fit_with_restarts(X, y, prior=prior, ard=False, n_restarts="auto")
    assert calls.count(False) == 5  # the screened grid
    assert calls.count(True) == len(modes[-1])  # one L-BFGS run per mode of the profile
    assert n_single == 1 and auto.log_posterior >= single.log_posterior - 1e-8
    # two modes -> two L-BFGS runs, the better optimum kept
    calls.clear()
    monkeypatch.setattr(gh, "screened_modes", lambda v: [int(np.argmax(v)), int(np.argmin(v))])
    two, _ = fit_with_restarts(X, y, prior=prior, ard=False, n_restarts="auto")
    assert calls.count(True) == 2 and two.log_posterior >= single.log_posterior - 1e-6


def test_warm_started_screening_gives_the_cold_screened_values(monkeypatch):
    # the screened log posteriors (which rank the starts) are those of cold EP runs
    import bayescal.probes.gp_hyper as gh

    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=80) > 0, 1.0, -1.0)
    prior = dimension_scaled_prior(HyperPrior(), 2)
    seen = []
    real_fit = gh.fit_ep_hyperparameters

    def spy(X_, y_, theta, **kwargs):
        fit = real_fit(X_, y_, theta, **kwargs)
        if kwargs.get("optimize") is False:
            cold = real_fit(X_, y_, theta, **{**kwargs, "init": None})
            seen.append((fit.log_posterior, cold.log_posterior, kwargs["init"] is not None,
                         fit.result.n_sweeps, cold.result.n_sweeps))
        return fit

    monkeypatch.setattr(gh, "fit_ep_hyperparameters", spy)
    fit_with_restarts(X, y, prior=prior, ard=False, n_restarts=0, tol=1e-8)
    assert len(seen) == 5 and sum(s[2] for s in seen) == 4  # all but the first warm-started
    for warm, cold, _, _, _ in seen:
        assert warm == pytest.approx(cold, abs=1e-6)
    assert sum(s[3] for s in seen) < sum(s[4] for s in seen)  # fewer sweeps in all


def test_ard_kept_by_akaike_penalty_where_bic_would_drop_it_and_it_is_closer_to_truth():
    # y depends strongly on x0, weakly and non-linearly on x1, not on x2: the EP evidence
    # gain of ARD (3.2 nats) is above Akaike's D - 1 = 2 and below Schwarz's
    # (D - 1) log(n) / 2 = 5.3, and ARD's probabilities are closer to the true ones
    from scipy.special import ndtr

    from bayescal.probes import BayesianGPClassifier

    def sample(rng, n):
        X = rng.normal(size=(n, 3))
        f = 1.5 * X[:, 0] + 0.6 * np.sin(1.5 * X[:, 1])
        return X, (f + 0.8 * rng.normal(size=n) > 0).astype(int), ndtr(f / 0.8)

    X, y, _ = sample(np.random.default_rng(1), 200)
    X_test, _, p_test = sample(np.random.default_rng(99), 2000)
    fits = {ard: BayesianGPClassifier(ard=ard, random_state=0, draws=10, chains=1).fit(X, y)
            for ard in ("auto", False)}
    lz = fits["auto"].idata_["ep"]["log_marginal_likelihood"].item()
    lz_shared = fits[False].idata_["ep"]["log_marginal_likelihood"].item()
    assert ard_penalty(3) == 2.0
    assert ard_penalty(3) < lz - lz_shared < 0.5 * 2 * np.log(200)
    assert fits["auto"].ard_[0] and "AIC" in fits["auto"].diagnostics_.extra["kernel_choice"]
    rmse = {k: np.sqrt(np.mean((m.predict_proba(X_test)[:, 1] - p_test) ** 2))
            for k, m in fits.items()}
    assert rmse["auto"] < rmse[False] - 0.005
