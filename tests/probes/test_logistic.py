"""Tests of Bayesian logistic regression with Cauchy priors.

Compilation dominates the cost, so the tests share few model structures:
binary BLR with three features (Laplace program and nutpie model) and one
three-class multinomial Laplace program.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, stats
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from bayescal.inference.posterior import PosteriorDiagnosticsWarning  # noqa: E402
from bayescal.probes.logistic import BayesianLogisticRegression, scale_inputs  # noqa: E402

TRUE_INTERCEPT = -0.5
TRUE_COEF = np.array([1.0, -0.8, 0.0])


def simulate(n, seed):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.normal(1.0, 2.0, size=n), rng.integers(0, 2, n)])
    p = 1.0 / (1.0 + np.exp(-(TRUE_INTERCEPT + X @ TRUE_COEF)))
    return X, (rng.random(n) < p).astype(int)


def separable(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] > 0).astype(int)


def test_scale_inputs_follow_gelman_et_al():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(5, 3, 200), rng.choice([2.0, 7.0], 200), np.full(200, 4.0)])
    center, scale = scale_inputs(X)
    Z = (X - center) / scale
    np.testing.assert_allclose(Z[:, 0].mean(), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z[:, 0].std(), 0.5)
    np.testing.assert_allclose(np.ptp(Z[:, 1]), 1.0)  # binary: unit difference
    np.testing.assert_allclose(Z[:, 1].mean(), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z[:, 2], 0.0)  # constant: centred only


def test_scale_inputs_count_levels_beyond_the_first_rows():
    # a column with two levels in its first 64 rows and a third later is continuous;
    # the result equals the definition by np.unique
    rng = np.random.default_rng(2)
    late = np.r_[rng.choice([0.0, 1.0], 100), 0.5, rng.choice([0.0, 1.0], 99)]
    X = np.column_stack([late, rng.choice([-3.0, 4.0], 200), np.full(200, 1.0), rng.normal(size=200)])
    center, scale = scale_inputs(X)
    for j in range(X.shape[1]):
        levels = np.unique(X[:, j])
        expected = (levels[1] - levels[0] if levels.size == 2
                    else 2.0 * X[:, j].std() if levels.size > 2 else 1.0)
        assert scale[j] == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(center, X.mean(axis=0))


def numpy_neg_log_posterior(theta, Xs, y, prior_scale=2.5, intercept_scale=10.0, df=1.0):
    """The same log-posterior written independently in NumPy/SciPy."""
    alpha, beta = theta[0], theta[1:]
    eta = alpha + Xs @ beta
    loglik = np.sum(y * eta - np.logaddexp(0.0, eta))
    logprior = stats.t.logpdf(alpha, df, scale=intercept_scale) + np.sum(
        stats.t.logpdf(beta, df, scale=prior_scale)
    )
    return -(loglik + logprior)


@pytest.mark.parametrize("data", ["simulated", "separable"])
def test_posterior_mode_agrees_with_scipy(data):
    X, y = simulate(120, 3) if data == "simulated" else separable()
    blr = BayesianLogisticRegression(inference="laplace", draws=200, random_state=0).fit(X, y)
    Xs = (X - blr.x_center_) / blr.x_scale_
    res = optimize.minimize(
        numpy_neg_log_posterior, np.zeros(4), args=(Xs, y), method="BFGS", options={"gtol": 1e-8}
    )
    ours = np.concatenate([blr.posterior_mode_["intercept"], blr.posterior_mode_["beta"][:, 0]])
    np.testing.assert_allclose(ours, res.x, rtol=1e-3, atol=1e-3)


def test_separation_stays_finite_where_maximum_likelihood_diverges():
    X, y = separable()
    # Maximum likelihood has no finite optimum: the weaker the penalty, the
    # larger the coefficients and the closer the probabilities get to 0/1.
    weak = LogisticRegression(C=1e3, max_iter=100000, tol=1e-10).fit(X, y)
    mle = LogisticRegression(C=1e12, max_iter=100000, tol=1e-10).fit(X, y)
    p_mle = mle.predict_proba(X)[:, 1]
    assert np.abs(mle.coef_).max() > 1.5 * np.abs(weak.coef_).max()
    assert np.mean((p_mle < 1e-6) | (p_mle > 1 - 1e-6)) > 0.5
    blr = BayesianLogisticRegression(inference="laplace", draws=500, random_state=0).fit(X, y)
    p = blr.predict_proba(X)[:, 1]
    assert np.all(np.isfinite(blr.coef_)) and np.abs(blr.coef_).max() < np.abs(mle.coef_).max() / 3
    assert 0.01 < p.min() and p.max() < 0.99
    # The predictions still separate the classes.
    assert np.all(p[y == 1] > 0.5) and np.all(p[y == 0] < 0.5)


def test_nuts_on_separable_data_is_finite_and_reproducible():
    X, y = separable()
    kwargs = dict(draws=150, tune=300, chains=2, random_state=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
        a = BayesianLogisticRegression(**kwargs).fit(X, y)
        b = BayesianLogisticRegression(**kwargs).fit(X, y)
    beta_a = np.asarray(a.idata_["posterior"]["beta"])
    np.testing.assert_array_equal(beta_a, np.asarray(b.idata_["posterior"]["beta"]))
    assert beta_a.shape == (2, 150, 3, 1)
    assert np.all(np.isfinite(beta_a))
    p = a.predict_proba(X)[:, 1]
    assert np.all((p > 0.0) & (p < 1.0))
    np.testing.assert_array_equal(p, b.predict_proba(X)[:, 1])
    assert a.diagnostics_["sampler"] == "nutpie"


def test_bad_sampler_setting_warns_and_reports_bad_numbers():
    X, y = simulate(100, 5)
    # nutpie needs tune >= 1 (tune=0 is refused, see test_sampling); two tuning
    # steps and ten draws are hopeless on purpose.
    blr = BayesianLogisticRegression(draws=10, tune=2, chains=2, random_state=0)
    with pytest.warns(PosteriorDiagnosticsWarning, match="failed its diagnostics"):
        blr.fit(X, y)
    diag = blr.diagnostics_
    assert diag["converged"] is False and diag["failures"]
    assert diag["ess_bulk_min"] < 200 or diag["rhat_max"] > 1.01
    assert diag["n_draws"] == 10 and diag["n_chains"] == 2


@pytest.mark.slow
def test_coefficient_intervals_cover_truth_at_nominal_rate():
    hits = []
    for rep in range(30):
        X, y = simulate(250, 100 + rep)
        blr = BayesianLogisticRegression(inference="laplace", draws=1000, random_state=rep)
        blr.fit(X, y)
        intercepts, coefs = blr.original_scale_draws()
        draws = np.column_stack([intercepts[:, 0], coefs[:, 0, :]])
        lo, hi = np.quantile(draws, [0.05, 0.95], axis=0)
        truth = np.concatenate([[TRUE_INTERCEPT], TRUE_COEF])
        hits.extend((lo <= truth) & (truth <= hi))
    coverage = np.mean(hits)  # 120 intervals; binomial sd at 0.9 is 0.027
    assert 0.8 <= coverage <= 0.97, coverage


def test_multinomial_agrees_with_weakly_penalised_maximum_likelihood():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 3))
    W = np.array([[0.0, 1.0, -1.0], [0.0, -1.0, -0.5], [0.0, 0.5, 0.0]])
    logits = X @ W
    P = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(3, p=row) for row in P])
    blr = BayesianLogisticRegression(inference="laplace", draws=500, random_state=0).fit(X, y)
    proba = blr.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert blr.idata_["posterior"]["beta"].sizes["output"] == 2
    mle = LogisticRegression(C=1e6, max_iter=10000).fit(X, y)
    assert np.abs(proba - mle.predict_proba(X)).max() < 0.05
    interval = blr.predict_interval(X[:5], prob=0.9)
    assert interval.shape == (5, 3, 2) and np.all(interval[..., 0] <= interval[..., 1])
    # One-vs-rest normalises K binary models (sharing the binary structure).
    ovr = BayesianLogisticRegression(
        inference="laplace", multi_class="ovr", draws=500, random_state=0
    ).fit(X, y)
    p_ovr = ovr.predict_proba(X)
    np.testing.assert_allclose(p_ovr.sum(axis=1), 1.0)
    assert ovr.idata_["posterior"]["beta"].sizes["output"] == 3
    assert np.mean(ovr.predict(X) == blr.predict(X)) > 0.9


def test_string_labels_and_predict():
    X, y = simulate(120, 3)
    labels = np.where(y == 1, "yes", "no")
    blr = BayesianLogisticRegression(inference="laplace", draws=200, random_state=0)
    blr.fit(X, labels)
    assert list(blr.classes_) == ["no", "yes"]
    assert set(blr.predict(X)) <= {"no", "yes"}


@pytest.mark.parametrize(
    ("params", "X", "y", "error", "match"),
    [
        ({}, [[np.nan, 1.0, 0.0], [1.0, 2.0, 1.0]], [0, 1], ValueError, "impute"),
        ({}, [1.0, 2.0, 3.0], [0, 1, 0], ValueError, "2-D"),
        ({}, [[1.0, 2.0, 0.0], [2.0, 1.0, 1.0]], [1, 1], ValueError, "single class"),
        ({}, [[1.0, 2.0, 0.0], [2.0, 1.0, 1.0]], [0, 1, 1], ValueError, "inconsistent"),
        ({}, [[1.0, 2.0, 0.0], [2.0, 1.0, 1.0]], [0.0, np.nan], ValueError, "`y`"),
        ({"prior_scale": -1.0}, [[1.0], [2.0]], [0, 1], ValueError,
         "'prior_scale' parameter of BayesianLogisticRegression must be a float in the range"),
        ({"prior_scale": np.inf}, [[1.0], [2.0]], [0, 1], ValueError, "'prior_scale' parameter"),
        ({"intercept_scale": np.nan}, [[1.0], [2.0]], [0, 1], ValueError,
         "'intercept_scale' parameter"),
        ({"prior_df": "one"}, [[1.0], [2.0]], [0, 1], TypeError, "'prior_df' parameter.*Got 'one'"),
        ({"multi_class": "ovo"}, [[1.0], [2.0]], [0, 1], ValueError,
         "'multi_class' parameter of BayesianLogisticRegression must be a str among"),
        ({"inference": "vi"}, [[1.0], [2.0]], [0, 1], ValueError, "'inference' parameter"),
        ({"sampler": "stan"}, [[1.0], [2.0]], [0, 1], ValueError, "'sampler' parameter"),
        ({"draws": 0}, [[1.0], [2.0]], [0, 1], ValueError, "'draws' parameter.*Got 0 instead"),
        ({"chains": 1.5}, [[1.0], [2.0]], [0, 1], ValueError, "'chains' parameter"),
        ({"random_state": "seed"}, [[1.0], [2.0]], [0, 1], ValueError, "'random_state' parameter"),
    ],
)
def test_bad_input(params, X, y, error, match):
    with pytest.raises(error, match=match):
        BayesianLogisticRegression(**params).fit(X, y)


def test_predict_before_fit_and_wrong_width():
    with pytest.raises(NotFittedError):
        BayesianLogisticRegression().predict_proba(np.zeros((2, 3)))
    X, y = simulate(60, 9)
    blr = BayesianLogisticRegression(inference="laplace", draws=100, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="3"):
        blr.predict_proba(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="impute"):
        blr.predict_proba(np.full((2, 3), np.nan))


def test_posterior_median_lies_inside_its_interval_and_mean_is_the_draws_mean():
    # issue 27: on wide data the posterior mean of p(x) can leave its own 90 % interval
    # (a bimodal posterior near 0 and 1); the median never does
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 15))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)  # separable, 15 inputs on 40 rows
    X_new = rng.normal(size=(200, 15))
    kw = dict(inference="laplace", draws=400, random_state=0)
    mean_fit = BayesianLogisticRegression(**kw).fit(X, y)
    median_fit = BayesianLogisticRegression(point_estimate="median", **kw).fit(X, y)
    draws = mean_fit._proba_draws(X_new)[..., 1]
    iv = mean_fit.predict_interval(X_new, prob=0.9)[:, 1]
    np.testing.assert_allclose(mean_fit.predict_proba(X_new)[:, 1], draws.mean(axis=0))
    median = median_fit.predict_proba(X_new)[:, 1]
    np.testing.assert_allclose(median, np.median(draws, axis=0))
    assert np.all((iv[:, 0] <= median) & (median <= iv[:, 1]))
    np.testing.assert_allclose(median_fit.predict_interval(X_new, prob=0.9)[:, 1], iv)
    with pytest.raises(ValueError, match="point_estimate"):
        BayesianLogisticRegression(point_estimate="mode", **kw).fit(X, y)
