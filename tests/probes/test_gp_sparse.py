"""Tests of FITC sparse EP (bayescal.probes.gp_sparse) and inference='sparse'/'auto'."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.probes import gp_classifier
from bayescal.probes.gp_classifier import BayesianGPClassifier
from bayescal.probes.gp_ep import ep_predict_latent, rbf_kernel, run_ep
from bayescal.probes.gp_sparse import (
    choose_inducing_inputs,
    run_sparse_ep,
    sparse_ep_draws,
    sparse_ep_predict_latent,
)


def _problem(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(np.sin(2 * X[:, 0]) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("theta", [np.log([0.8, 1.2, 2.0]), np.log([2.0, 0.5, 0.7])])
def test_inducing_inputs_at_the_data_give_exact_ep(theta):
    # FITC with Z = X is the exact prior (Lambda = 0): the fixed point, log Z and the
    # predictions equal exact EP's (up to the K_mm jitter)
    X, y = _problem()
    exact = run_ep(rbf_kernel(X, X, theta), y, tol=1e-10, max_sweeps=2000)
    sparse = run_sparse_ep(X, y, theta, X, tol=1e-10, max_sweeps=2000)
    assert sparse.converged
    np.testing.assert_allclose(sparse.mean, exact.mean, atol=2e-5)
    np.testing.assert_allclose(sparse.var, exact.var, atol=2e-5)
    np.testing.assert_allclose(sparse.tau, exact.tau, rtol=1e-3, atol=1e-5)
    assert sparse.log_marginal_likelihood == pytest.approx(exact.log_marginal_likelihood, abs=1e-4)
    Xn = np.random.default_rng(5).normal(size=(9, 2))
    for a, b in zip(sparse_ep_predict_latent(Xn, theta, sparse),
                    ep_predict_latent(X, Xn, theta, exact), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-4)  # the K_mm jitter (1e-6) shows here


def test_fitc_fixed_point_matches_tilted_moments():
    # at convergence the marginal q(f_i) has the moments of the tilted distribution
    from bayescal.probes.gp_ep import probit_tilted_moments

    X, y = _problem(n=150, seed=1)
    theta = np.log([0.7, 1.0, 1.5])
    res = run_sparse_ep(X, y, theta, choose_inducing_inputs(X, 15, seed=0), tol=1e-10,
                        max_sweeps=3000)
    tau_c = 1.0 / res.var - res.tau
    nu_c = res.mean / res.var - res.nu
    _, mu_hat, var_hat = probit_tilted_moments(y, nu_c / tau_c, 1.0 / tau_c)
    np.testing.assert_allclose(res.mean, mu_hat, atol=1e-7)
    np.testing.assert_allclose(res.var, var_hat, atol=1e-7)


def test_fitc_draws_have_the_posterior_marginals():
    X, y = _problem(n=60, seed=2)
    theta = np.log([0.8, 1.0, 1.5])
    res = run_sparse_ep(X, y, theta, choose_inducing_inputs(X, 12, seed=0))
    f = sparse_ep_draws(X, theta, res, 20000, np.random.default_rng(0))
    np.testing.assert_allclose(f.mean(axis=0), res.mean, atol=0.05)
    np.testing.assert_allclose(f.var(axis=0) / res.var, 1.0, atol=0.06)


def test_inducing_inputs_are_kmeans_centres_inside_the_data():
    X, _ = _problem(n=300, seed=3)
    Z = choose_inducing_inputs(X, 20, seed=0)
    assert Z.shape == (20, 2)
    assert np.all(Z.min(axis=0) >= X.min(axis=0)) and np.all(Z.max(axis=0) <= X.max(axis=0))
    np.testing.assert_array_equal(choose_inducing_inputs(X, 20, seed=0), Z)
    np.testing.assert_array_equal(choose_inducing_inputs(X[:10], 20, seed=0), X[:10])


def test_sparse_classifier_with_all_rows_inducing_matches_exact(monkeypatch):
    # inference="sparse" with m = n inducing inputs and the hyper-parameter subsample
    # covering every row reproduces inference="ep" (same restarts: the same L-BFGS path)
    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 2))
    y = (X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=70) > 0).astype(int)
    kw = {"random_state": 0, "draws": 10, "chains": 1, "ep_tol": 1e-8, "n_restarts": 1}
    exact = BayesianGPClassifier(inference="ep", **kw).fit(X, y)
    sparse = BayesianGPClassifier(inference="sparse", n_inducing=70, **kw).fit(X, y)
    assert sparse.inference_ == "sparse" and exact.inference_ == "ep"
    np.testing.assert_allclose(sparse.theta_, exact.theta_, atol=1e-6)
    np.testing.assert_allclose(sparse.predict_proba(X), exact.predict_proba(X), atol=1e-4)
    band = sparse.predict_interval(X[:5])
    assert band.shape == (5, 2, 2) and np.all(band[..., 0] <= band[..., 1])
    assert sparse.idata_["posterior"]["f"].shape == (1, 10, 1, 70)


def test_auto_switches_to_sparse_above_the_threshold(monkeypatch):
    monkeypatch.setattr(gp_classifier, "AUTO_EXACT_MAX_ROWS", 50)
    monkeypatch.setattr(gp_classifier, "SPARSE_HYPER_ROWS", 40)
    X, y = _problem(n=120, seed=5)
    labels = (y > 0).astype(int)
    clf = BayesianGPClassifier(n_inducing=20, random_state=0, draws=5, chains=1).fit(X, labels)
    assert clf.inference_ == "sparse" and clf.inducing_inputs_.shape == (20, 2)
    assert "FITC" in clf.diagnostics_["kernel_choice"]
    assert np.mean(clf.predict(X) == labels) > 0.8
    small = BayesianGPClassifier(random_state=0, draws=5, chains=1).fit(X[:50], labels[:50])
    assert small.inference_ == "ep"


def test_auto_restarts_are_fewer_for_sparse(monkeypatch):
    # n_restarts="auto": exact EP restarts by the screened modes ("auto" passed on),
    # sparse EP's subsample search none; an integer is passed through unchanged
    seen = []
    real = gp_classifier.select_kernel

    def spy(*args, **kwargs):
        seen.append(kwargs["n_restarts"])
        return real(*args, **kwargs)

    monkeypatch.setattr(gp_classifier, "select_kernel", spy)
    X, y = _problem(n=40, seed=7)
    labels = (y > 0).astype(int)
    kw = {"random_state": 0, "draws": 5, "chains": 1, "n_inducing": 10, "ard": False}
    BayesianGPClassifier(inference="ep", **kw).fit(X, labels)
    BayesianGPClassifier(inference="sparse", **kw).fit(X, labels)
    BayesianGPClassifier(inference="sparse", n_restarts=2, **kw).fit(X, labels)
    assert seen == [gp_classifier.EXACT_N_RESTARTS, gp_classifier.SPARSE_N_RESTARTS, 2]
    assert gp_classifier.EXACT_N_RESTARTS == "auto" and gp_classifier.SPARSE_N_RESTARTS == 0


def test_sparse_defaults_stay_close_to_exact_ep():
    # the default sparse fit (no restart, m = 60 < n inducing inputs) predicts within
    # a few hundredths of the default exact-EP fit (restarts by the screened modes) at small n
    rng = np.random.default_rng(8)
    X = rng.normal(size=(300, 2))
    p_true = 1.0 / (1.0 + np.exp(-(2.0 * np.sin(1.5 * X[:, 0]) + X[:, 1])))
    y = (rng.random(300) < p_true).astype(int)
    kw = {"random_state": 0, "draws": 5, "chains": 1}
    exact = BayesianGPClassifier(inference="ep", **kw).fit(X, y)
    sparse = BayesianGPClassifier(inference="sparse", n_inducing=60, **kw).fit(X, y)
    Xn = rng.normal(size=(200, 2))
    p_exact, p_sparse = exact.predict_proba(Xn)[:, 1], sparse.predict_proba(Xn)[:, 1]
    assert np.max(np.abs(p_sparse - p_exact)) < 0.05
    np.testing.assert_allclose(sparse.theta_, exact.theta_, atol=1e-3)  # same subsample search


@pytest.mark.parametrize(
    ("params", "match"),
    [({"n_inducing": 0}, "n_inducing"), ({"inference": "fitc"}, "inference"),
     ({"n_restarts": "many"}, "n_restarts"),
     ({"inference": "sparse", "likelihood": "logit"}, "probit")],
)
def test_bad_sparse_input(params, match):
    X, y = _problem(n=20, seed=6)
    with pytest.raises(ValueError, match=match):
        BayesianGPClassifier(**params).fit(X, (y > 0).astype(int))
