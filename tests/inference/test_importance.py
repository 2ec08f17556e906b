"""Tests of the Pareto-smoothed importance-sampling check of approximate posteriors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayescal.cube.schema import DIAGNOSTICS
from bayescal.inference.diagnostics import (
    DIAGNOSTIC_THRESHOLDS,
    PosteriorDiagnosticsWarning,
    diagnostic_failures,
)
from bayescal.inference.importance import pareto_smoothed_check
from bayescal.inference.laplace_glm import laplace_glm_draws, newton_mode
from bayescal.probes.calibration_maps import BayesianBetaCalibrator, calibration_map_model
from bayescal.probes.logistic import BayesianLogisticRegression
from bayescal.study.posteriors import diagnostic_record


@pytest.mark.parametrize(("k", "fails"), [(0.2, False), (1.0, True)])
def test_pareto_k_of_weights_with_a_known_tail(k, fails):
    # importance ratios w = 1 + Pareto(1/k): a generalised Pareto tail of shape k
    rng = np.random.default_rng(0)
    log_ratio = np.log1p(rng.pareto(1.0 / k, size=4000))
    check = pareto_smoothed_check(log_ratio, np.zeros(4000), rng)
    assert abs(check.pareto_k - k) < 0.2
    assert (check.pareto_k > DIAGNOSTIC_THRESHOLDS.pareto_k_max) is fails
    assert check.resampled is not fails
    assert np.logaddexp.reduce(check.log_weights) == pytest.approx(0.0, abs=1e-9)


def test_exact_approximation_has_no_tail_and_draws_outside_the_support_weigh_nothing():
    rng = np.random.default_rng(0)
    check = pareto_smoothed_check(np.full(500, 3.0), np.zeros(500), rng)
    assert check.pareto_k == 0.0 and check.resampled
    log_density = rng.normal(size=500) * 0.1
    log_density[:10] = -np.inf
    check = pareto_smoothed_check(log_density, np.zeros(500), rng)
    assert np.all(check.log_weights[:10] == -np.inf) and not np.isin(np.arange(10),
                                                                      check.indices).any()


def test_resampled_laplace_draws_have_the_exact_posterior_quantiles():
    # Bayesian Platt map on 40 rows: a skewed 2-D posterior, quantiles by quadrature on a grid
    rng = np.random.default_rng(3)
    z = rng.normal(size=40)
    t = (rng.random(40) < 1 / (1 + np.exp(-(0.5 + 1.5 * z)))).astype(float)
    problem = calibration_map_model.glm_problem(
        {"F": z[:, None], "t": t, "w": np.ones(40)}, coef_prior="real", prior_scale=2.5,
        intercept_scale=10.0, prior_df=1.0, smoothness_scale=1.0)
    glm = problem.glm
    a, b = np.meshgrid(np.linspace(-6, 8, 281), np.linspace(-2, 14, 321), indexing="ij")
    log_p = glm.log_density_many(np.column_stack([a.ravel(), b.ravel()])).reshape(a.shape)
    marginal = np.exp(log_p - log_p.max()).sum(axis=0)
    exact = np.interp([0.05, 0.5, 0.95], np.cumsum(marginal) / marginal.sum(), b[0])
    mode, neg_hessian, _ = newton_mode(glm.value_grad_hess, glm.start())
    gaussian = mode[1] + np.array([-1.645, 0.0, 1.645]) * np.sqrt(np.linalg.inv(neg_hessian)[1, 1])
    idata, _, khat = laplace_glm_draws(problem, n_draws=4000, seed=0)
    resampled = np.quantile(idata["posterior"]["coef"].values.ravel(), [0.05, 0.5, 0.95])
    assert khat <= 0.7
    assert np.all(np.abs(resampled - exact) < 0.15)  # Monte Carlo error of 4000 draws
    assert np.all(np.abs(gaussian - exact) > 0.35)  # the raw Laplace quantiles are off


def test_well_conditioned_large_logistic_problem_passes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5000, 5))
    y = (X @ np.array([1.0, -1.0, 0.5, 0.0, 0.3]) + rng.logistic(size=5000) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PosteriorDiagnosticsWarning)
        blr = BayesianLogisticRegression(inference="laplace", draws=1000, random_state=0)
        blr.fit(X, y)
    assert blr.diagnostics_.pareto_k < 0.7 and blr.diagnostics_.converged


def test_issue_27_beta_map_on_a_small_naive_bayes_set_is_flagged(shared_data_dir):
    # the issue's failing case: BayesianBetaCalibrator(inference="laplace") on 50
    # GaussianNB calibration scores (spambase), Brier 0.161 against the frequentist
    # beta map's 0.131, and converged=True without a word before the check
    import pandas as pd
    from sklearn.metrics import brier_score_loss
    from sklearn.naive_bayes import GaussianNB

    from bayescal.calibration.beta import BetaCalibrator

    frame = pd.read_csv(shared_data_dir / "spambase.tsv.gz", sep="\t")
    y = (frame.pop("target").to_numpy() == 1).astype(int)
    X = frame.to_numpy(float)
    rows = np.random.default_rng(0).permutation(len(y))
    half = len(y) // 2
    train, calib, test = rows[:half], rows[half : half + 50], rows[half + 50 :]
    nb = GaussianNB().fit(X[train], y[train])
    score = lambda r: nb.predict_proba(X[r])[:, 1]  # noqa: E731
    with pytest.warns(PosteriorDiagnosticsWarning, match=r"Pareto k .* Switch to MCMC \(inference='nuts'"):
        cal = BayesianBetaCalibrator(inference="laplace", draws=1000, random_state=0)
        cal.fit(score(calib), y[calib])
    assert cal.diagnostics_.pareto_k > 0.7 and not cal.diagnostics_.converged
    frequentist = BetaCalibrator().fit(score(calib), y[calib]).predict_proba(score(test))
    worse = brier_score_loss(y[test], cal.predict_proba(score(test))[:, 1])
    assert worse > brier_score_loss(y[test], frequentist[:, 1]) + 0.01  # a real failure


def test_the_cube_records_pareto_k():
    assert "pareto_k" in DIAGNOSTICS
    assert diagnostic_failures({"pareto_k": 0.71}) and not diagnostic_failures({"pareto_k": 0.5})
    assert not diagnostic_failures({"pareto_k": float("nan")})  # NUTS, EP: not applicable
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] + rng.logistic(size=300) > 0).astype(int)
    blr = BayesianLogisticRegression(inference="laplace", draws=200, random_state=0).fit(X, y)
    values, converged, _ = diagnostic_record(blr.diagnostics_)
    assert values["pareto_k"] == blr.diagnostics_.pareto_k and np.isfinite(values["pareto_k"])
    assert converged is (values["pareto_k"] <= 0.7)
