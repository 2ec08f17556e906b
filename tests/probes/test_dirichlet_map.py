"""Tests of BayesianDirichletCalibrator: MAP oracle, posterior contract, bad input.

The Laplace posterior is Gaussian around the MAP with covariance the inverse
Hessian of the negative log-posterior; the MAP is computed here independently
by scipy from :func:`bayescal.calibration.dirichlet.dirichlet_objective` plus
the Gaussian prior, and the posterior draws must centre on it.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import softmax
from sklearn.base import clone

from bayescal.calibration import DirichletCalibrator
from bayescal.calibration.dirichlet import (
    dirichlet_logits,
    dirichlet_objective,
    identity_parameters,
)
from bayescal.inference.posterior import stack_draws
from bayescal.probes import BayesianDirichletCalibrator
from bayescal.probes.dirichlet_map import dirichlet_map_model


def _data(n=250, k=3, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.ones(k), size=n)
    p = q**1.8 / (q**1.8).sum(axis=1, keepdims=True)
    y = (rng.uniform(size=(n, 1)) > np.cumsum(p, axis=1)).sum(axis=1)
    return q, y


def _map(q, y, matrix, prior_scale, intercept_scale):
    """MAP of the same model: n * mean NLL + Gaussian prior terms, minimised by scipy."""
    n, k = q.shape
    log_q = np.log(q)
    centre = identity_parameters(k, matrix, reference_row=False)  # K x K and K intercepts
    n_w = k if matrix == "diagonal" else k * k
    scales = np.r_[np.full(n_w, prior_scale), np.full(k, intercept_scale)]

    def f(theta):
        v, g = dirichlet_objective(theta, log_q, y, np.ones(n), matrix)
        d = (theta - centre) / scales**2
        return n * v + 0.5 * np.sum((theta - centre) * d), n * g + d

    return minimize(f, centre, jac=True, method="L-BFGS-B", options={"gtol": 1e-9, "ftol": 1e-15, "maxiter": 5000}).x


def _centred(theta, k, matrix):
    """The map's parameters with every column of ``[W, b]`` summed to zero over the classes
    (the identified part; the prior alone sets the rest, at its own mean)."""
    n_w = k if matrix == "diagonal" else k * k
    w, b = theta[:n_w], theta[n_w:]
    if matrix != "diagonal":
        w = (w.reshape(k, k) - w.reshape(k, k).mean(axis=0)).ravel()
    return np.r_[w, b - b.mean()]


@pytest.mark.parametrize("matrix", ["diagonal", "full"])
def test_laplace_posterior_centres_on_the_scipy_map(matrix):
    q, y = _data()
    cal = BayesianDirichletCalibrator(
        matrix=matrix, prior_scale=0.7, intercept_scale=1.5, draws=500, random_state=1
    ).fit(q, y)
    theta_map = _centred(_map(q, y, matrix, 0.7, 1.5), 3, matrix)
    k = 3
    weights = stack_draws(cal.idata_, "weights").reshape(1000, -1)
    draws = np.column_stack([weights, stack_draws(cal.idata_, "intercept")])
    sd = draws.std(axis=0)
    # the Laplace draws are importance-resampled to the posterior (its Pareto k is
    # fine here), whose mean lies a fraction of a posterior sd from the mode
    assert cal.diagnostics_.pareto_k <= 0.7
    assert np.all(np.abs(draws.mean(axis=0) - theta_map) < 0.3 * sd)
    # the posterior mean probability is near the plug-in MAP map (a narrow posterior)
    p_map = softmax(dirichlet_logits(np.log(q), theta_map, matrix), axis=1)
    assert np.abs(cal.predict_proba(q) - p_map).mean() < 0.01
    assert cal.diagnostics_["sampler"] == "laplace"
    assert cal.n_features_in_ == k


def test_flat_prior_map_equals_the_frequentist_fit():
    q, y = _data(seed=3)
    theta_map = _map(q, y, "full", 1e4, 1e4)
    freq = DirichletCalibrator(reg_lambda=0.0, reg_mu=0.0).fit(q, y)
    p_map = softmax(dirichlet_logits(np.log(q), theta_map, "full"), axis=1)
    np.testing.assert_allclose(p_map, freq.predict_proba(q), atol=1e-5)


def test_posterior_contract_shapes_intervals_and_rows():
    q, y = _data(seed=4)
    cal = BayesianDirichletCalibrator(matrix="diagonal", draws=200, random_state=0).fit(q, y)
    proba = cal.predict_proba(q[:20])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    iv = cal.predict_interval(q[:20], prob=0.9)
    assert iv.shape == (20, 3, 2)
    assert np.all((iv[..., 0] <= proba + 1e-12) & (proba <= iv[..., 1] + 1e-12))
    narrow = cal.predict_interval(q[:20], prob=0.5)
    assert np.all(narrow[..., 1] - narrow[..., 0] <= iv[..., 1] - iv[..., 0] + 1e-12)
    for key in ("rhat_max", "ess_bulk_min", "divergences", "seconds", "converged"):
        assert key in cal.diagnostics_
    same = clone(cal).fit(q, y)
    np.testing.assert_array_equal(same.predict_proba(q[:20]), proba)  # seeded


def test_confident_scores_never_give_an_exact_zero_or_one():
    # issue 27: a steep map on near-certain scores rounded to exact 0/1 under softmax
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=300)
    q = np.full((300, 3), 1e-12)
    q[np.arange(300), y] = 1.0 - 2e-12  # a classifier that is (almost) always sure and right
    q[:5] = np.full((5, 3), 1.0 / 3.0)
    q /= q.sum(axis=1, keepdims=True)
    cal = BayesianDirichletCalibrator(matrix="diagonal", draws=50, random_state=0).fit(q, y)
    proba = cal.predict_proba(q)
    draws = cal._proba_draws(q)
    assert np.all((draws > 0.0) & (draws < 1.0))
    assert np.all((proba > 0.0) & (proba < 1.0))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_model_is_a_pure_builder_with_named_dims():
    q, y = _data(n=30)
    model = dirichlet_map_model(
        {"L": np.log(q), "Y": np.eye(3)[y], "w": np.ones(30)},
        matrix="full",
        prior_scale=1.0,
        intercept_scale=2.0,
    )
    assert set(model.coords) == {"class", "input_class"}
    assert model.named_vars_to_dims["weights"] == ("class", "input_class")
    assert model.named_vars_to_dims["intercept"] == ("class",)


@pytest.mark.parametrize("matrix", ["full", "diagonal"])
def test_probabilities_do_not_depend_on_the_order_of_the_classes(matrix):
    # the prior treats every class alike; with the last row fixed to zero and priors on
    # the others, reordering three classes moved the posterior mean by 0.11 on 30 rows
    # (Monte-Carlo error 0.008): here the MAP maps, which carry no Monte-Carlo error, and
    # the posterior (each column of [W, b] sums to zero over the classes: the part of the
    # full model's posterior the likelihood sees, with the prior's projection)
    q, y = _data(n=30, seed=7)
    perm = np.array([2, 0, 1])  # new class j is old class perm[j]
    y_perm = np.argsort(perm)[y]
    theta = _map(q, y, matrix, 0.7, 1.5)
    theta_perm = _map(q[:, perm], y_perm, matrix, 0.7, 1.5)
    p = softmax(dirichlet_logits(np.log(q), theta, matrix), axis=1)
    p_perm = softmax(dirichlet_logits(np.log(q[:, perm]), theta_perm, matrix), axis=1)
    np.testing.assert_allclose(p[:, perm], p_perm, atol=1e-6)
    kw = {"matrix": matrix, "prior_scale": 0.7, "intercept_scale": 1.5, "draws": 4000,
          "random_state": 0}
    a = BayesianDirichletCalibrator(**kw).fit(q, y).predict_proba(q)
    b = BayesianDirichletCalibrator(**kw).fit(q[:, perm], y_perm).predict_proba(q[:, perm])
    assert np.abs(a[:, perm] - b).max() < 0.02  # Monte-Carlo error only
    np.testing.assert_allclose(a, p, atol=0.05)  # and the posterior sits on the MAP map


@pytest.mark.parametrize(
    ("scores", "y", "kwargs", "match"),
    [
        ([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]], [1, 1, 1], {}, "single class"),
        ([[0.2, 0.8], [np.nan, 0.4], [0.5, 0.5]], [0, 1, 1], {}, "NaN"),
        ([[0.2, 0.7], [0.6, 0.4], [0.5, 0.5]], [0, 1, 1], {}, "sum to 1"),
        ([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]], [0, 1, 1], {"prior_scale": 0.0}, "prior_scale"),
        ([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]], [0, 1, 1], {"inference": "mcmc"}, "inference"),
    ],
)
def test_bad_input_table(scores, y, kwargs, match):
    with pytest.raises(ValueError, match=match):
        BayesianDirichletCalibrator(**kwargs).fit(scores, y)


def test_class_count_mismatch_between_fit_and_predict():
    q, y = _data(n=60, seed=5)
    cal = BayesianDirichletCalibrator(matrix="diagonal", draws=200, random_state=0).fit(q, y)
    with pytest.raises(ValueError, match="4 columns but 3 classes were expected"):
        cal.predict_proba(np.full((2, 4), 0.25))


@pytest.mark.slow
def test_nuts_agrees_with_laplace():
    q, y = _data(n=300, seed=6)
    kw = {"matrix": "diagonal", "prior_scale": 1.0, "intercept_scale": 2.0, "random_state": 0}
    nuts = BayesianDirichletCalibrator(inference="nuts", draws=300, tune=300, **kw).fit(q, y)
    laplace = BayesianDirichletCalibrator(draws=300, **kw).fit(q, y)
    assert nuts.diagnostics_["sampler"] in ("nutpie", "pymc")
    assert nuts.diagnostics_["divergences"] == 0
    np.testing.assert_allclose(nuts.predict_proba(q), laplace.predict_proba(q), atol=0.03)
