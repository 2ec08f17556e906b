"""Tests of the spline map's Laplace approximation with its smoothness scale on a grid."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from bayescal.probes.calibration_maps import BayesianSplineCalibrator, calibration_map_model

DATA_DIR = Path(os.environ.get("BAYESCAL_DATA", "/work/shared/data"))


def titanic_forest_scores():
    """Held-out random-forest probabilities on titanic: 13 distinct values, five exactly 1."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.model_selection import train_test_split

    from bayescal.datasets import load_dataset

    data = load_dataset("titanic", DATA_DIR)
    X = SimpleImputer().fit_transform(data.X)
    Xtr, Xte, ytr, yte = train_test_split(X, data.y, test_size=0.5, random_state=0,
                                          stratify=data.y)
    forest = RandomForestClassifier(100, random_state=0).fit(Xtr, ytr)
    return forest.predict_proba(Xte)[:, 1], yte


needs_titanic = pytest.mark.skipif(not (DATA_DIR / "titanic.tsv.gz").is_file()
                                   and not any(DATA_DIR.glob("titanic*")),
                                   reason="the shared data folder (BAYESCAL_DATA) has no titanic")


def bent(n=300, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.02, 0.98, n)
    return s, (rng.random(n) < s**2).astype(int)


def test_numpy_log_density_is_the_pymc_models():
    """The grid's exact log density of (log tau, beta) is calibration_map_model's, up to a
    constant, once the non-centring Jacobian ``d u_k / d e_k = tau^(a_k(tau))`` is added,
    ``a_k(tau) = 1 / (1 + tau^2 d_k)``."""
    s, y = bent()
    cal = BayesianSplineCalibrator(inference="laplace", draws=50, random_state=0)
    cal._prepare(s, y.astype(float), np.ones(s.size))
    problem = cal.__dict__.pop("_log_posterior")
    data = {**cal._design(s), **cal._model_data(), "t": y.astype(float), "w": np.ones(s.size)}
    model = calibration_map_model(data, **cal._hyper())
    logp = model.compile_logp()
    rng = np.random.default_rng(1)
    diffs = []
    for _ in range(5):
        log_tau = rng.normal(0.0, 1.0)
        beta = rng.normal(0.0, 0.5, problem.X.shape[1])
        u = beta[2:]
        a = 1.0 / (1.0 + np.exp(2 * log_tau) * cal.basis_information_)
        point = {"intercept": beta[0], "coef": beta[1:2], "tau_log__": log_tau,
                 "innovations": u / np.exp(log_tau) ** a}
        exact = float(logp(point))
        ours = float(problem.joint(np.array([log_tau]), beta[None])[0])
        diffs.append(exact - (ours + np.sum(a) * log_tau))
    assert np.ptp(diffs) < 1e-8


def test_conditional_mode_is_stationary_and_hessian_matches_differences():
    s, y = bent(seed=2)
    cal = BayesianSplineCalibrator(inference="laplace", draws=50, random_state=0)
    cal._prepare(s, y.astype(float), np.ones(s.size))
    problem = cal.__dict__.pop("_log_posterior")
    beta, _, exact, _ = problem.mode(0.7, np.zeros(problem.X.shape[1]))
    grad = problem.conditional(beta, 0.7)[1]
    assert np.max(np.abs(grad)) < 1e-6
    h = 1e-5
    numeric = np.array([(problem.conditional(beta + h * e, 0.7)[1]
                         - problem.conditional(beta - h * e, 0.7)[1]) / (2 * h)
                        for e in np.eye(beta.size)])
    np.testing.assert_allclose(-numeric, exact, rtol=1e-4, atol=1e-6)


def test_grid_weights_are_a_distribution_over_the_mass_of_log_tau():
    s, y = bent(seed=3)
    cal = BayesianSplineCalibrator(inference="laplace", draws=50, random_state=0).fit(s, y)
    grid = cal.smoothness_grid_
    weight = np.exp(grid.log_weight)
    assert weight.sum() == pytest.approx(1.0)
    # the fine grid spans the mass: both end cells carry almost nothing
    assert weight[0] < 1e-4 and weight[-1] < 1e-4
    assert np.all(np.diff(grid.log_tau) == pytest.approx(grid.step))


@needs_titanic
def test_issue_27_laplace_passes_its_check_on_tied_forest_scores():
    """Random-forest scores (13 distinct, five exactly 1): the joint Laplace fit of
    (log tau, innovations) had Pareto k 0.71-0.99 here; with tau on a grid it passes and
    its draws agree with the grid posterior of tau."""
    p, y = titanic_forest_scores()
    cal = BayesianSplineCalibrator(inference="laplace", random_state=0).fit(p, y)
    assert cal.diagnostics_.pareto_k < 0.7 and not cal.diagnostics_.failures
    tau = np.asarray(cal.idata_["posterior"]["tau"]).ravel()
    grid = cal.smoothness_grid_
    assert np.median(tau) == pytest.approx(grid.tau_quantile(0.5), rel=0.25)


def test_noncentring_powers_follow_tau_on_well_specified_scores():
    """The powers a_k(tau) = 1 / (1 + tau^2 d_k): fixed at the posterior median of tau (0.74
    here) they centred the informed coefficients at small tau and NUTS gave 53 divergences
    and R-hat 1.07 on these identity-calibrated scores."""
    rng = np.random.default_rng(1)
    s = rng.uniform(0.02, 0.98, 300)
    y = (rng.random(300) < s).astype(int)
    cal = BayesianSplineCalibrator(draws=500, tune=500, random_state=1).fit(s, y)
    diag = cal.diagnostics_
    assert diag.divergences == 0 and diag.rhat_max <= 1.015 and diag.ess_bulk_min >= 200
