"""``sampler="nutpie-glm"``: nutpie's NUTS on the NumPy log posterior of the GLM probes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayescal.inference.diagnostics import PosteriorDiagnosticsWarning
from bayescal.inference.laplace_glm import LogisticGLM
from bayescal.inference.sampling import (
    GLM_SAMPLER_MIN_ROWS,
    resolve_nuts_sampler,
    sample_posterior,
)
from bayescal.probes.logistic import BayesianLogisticRegression


@pytest.mark.parametrize("positive", [False, True])
def test_value_and_grad_equal_the_newton_density_and_a_finite_difference(positive):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    glm = LogisticGLM(
        design=X, targets=rng.random(400), weights=rng.random(400) + 0.5, prior_scale=2.5,
        intercept_scale=10.0, prior_df=1.0, positive=positive,
        centre=X.mean(axis=0) if positive else None,
    )
    # a point far out in the tails too (beyond the Newton start, where eta is large)
    far = np.array([3.0, -2.0, 2.5, 1.0]) if positive else np.array([30.0, -25.0, 40.0, 3.0])
    for theta in (rng.normal(size=4) * 0.5, far):
        value, grad, _ = glm.value_grad_hess(theta)
        fast_value, fast_grad = glm.value_and_grad(theta)
        assert fast_value == pytest.approx(value, rel=1e-12, abs=1e-9)
        np.testing.assert_allclose(fast_grad, grad, rtol=1e-10, atol=1e-9)
        step = 1e-6
        numeric = [(glm.value_and_grad(theta + step * e)[0]
                    - glm.value_and_grad(theta - step * e)[0]) / (2 * step)
                   for e in np.eye(4)]
        np.testing.assert_allclose(fast_grad, numeric, rtol=1e-5, atol=1e-5)


def _means_and_mcse(idata, names):
    import arviz as az

    posterior = idata["posterior"].to_dataset()[list(names)]
    mcse = az.mcse(posterior)
    return (np.concatenate([np.ravel(posterior[v].mean(("chain", "draw"))) for v in names]),
            np.concatenate([np.ravel(mcse[v]) for v in names]))


@pytest.mark.slow
def test_nutpie_glm_agrees_with_nutpie_within_monte_carlo_error():
    # Different fixed seeds: the NumPy density and the PyMC graph are one posterior, so the
    # posterior means differ by no more than a few Monte Carlo standard errors.
    # Four models on three data sets: binary BLR, the beta map (half-Student-t slopes on
    # their logarithms), the Platt map on a miscalibrated classifier's scores, and a
    # one-vs-rest BLR (three binary posteriors).
    from bayescal.probes.calibration_maps import BayesianBetaCalibrator, BayesianPlattCalibrator

    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    eta = 0.3 + X @ np.array([1.0, -0.5, 0.0])
    y = (rng.random(200) < 1.0 / (1.0 + np.exp(-eta))).astype(np.int64)
    scores = np.clip(1.0 / (1.0 + np.exp(-eta)), 1e-3, 1 - 1e-3)
    logit = rng.normal(0.0, 2.0, size=300)
    y_platt = (rng.random(300) < 1.0 / (1.0 + np.exp(-(0.5 + 0.6 * logit)))).astype(np.int64)
    X3 = rng.normal(size=(240, 3))
    y3 = np.digitize(X3 @ np.array([1.5, -1.0, 0.5]) + rng.logistic(size=240), [-1.0, 1.0])
    cases = [(BayesianLogisticRegression, (X, y), ("intercept", "beta"), {}),
             (BayesianBetaCalibrator, (scores, y), ("intercept", "coef"), {}),
             (BayesianPlattCalibrator, (1.0 / (1.0 + np.exp(-logit)), y_platt),
              ("intercept", "coef"), {}),
             (BayesianLogisticRegression, (X3, y3), ("intercept", "beta"),
              {"multi_class": "ovr"})]
    for cls, args, names, params in cases:
        fits = {}
        for sampler, seed in (("nutpie", 21), ("nutpie-glm", 22)):
            est = cls(sampler=sampler, draws=400, tune=400, chains=2, random_state=seed,
                      **params)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
                fits[sampler] = est.fit(*args)
        glm_fit = fits["nutpie-glm"]
        assert glm_fit.diagnostics_.sampler == "nutpie-glm"
        assert glm_fit.diagnostics_.divergences == 0
        assert glm_fit.diagnostics_.ess_bulk_min > 100
        assert glm_fit.idata_["posterior"].sizes["chain"] == 2
        ref_mean, ref_mcse = _means_and_mcse(fits["nutpie"].idata_, names)
        mean, mcse = _means_and_mcse(glm_fit.idata_, names)
        gaps = np.abs(mean - ref_mean) / np.hypot(mcse, ref_mcse)
        assert np.all(gaps < 4.0), (cls.__name__, gaps)
    # reproducible at a fixed seed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
        draws = [BayesianLogisticRegression(sampler="nutpie-glm", draws=100, tune=100, chains=2,
                                            random_state=7).fit(X, y).idata_["posterior"]["beta"]
                 for _ in range(2)]
    assert draws[0].shape == (2, 100, 3, 1)
    np.testing.assert_array_equal(draws[0].values, draws[1].values)


def _normal_mean(data, *, scale):
    import pymc as pm

    with pm.Model() as model:
        y = pm.Data("y", data["y"])
        mu = pm.Normal("mu", 0.0, scale)
        pm.Normal("obs", mu, 1.0, observed=y)
    return model


def _blr_data(n, d=2, seed=0):
    rng = np.random.default_rng(seed)
    return {"X": rng.normal(size=(n, d)), "y": (rng.random(n) < 0.4).astype(np.int64)}


def test_auto_picks_nutpie_glm_for_glm_models_from_the_row_threshold():
    from bayescal.probes.calibration_maps import calibration_map_model
    from bayescal.probes.logistic import blr_model

    binary = {"prior_scale": 2.5, "intercept_scale": 10.0, "prior_df": 1.0, "n_outputs": 1,
              "likelihood": "bernoulli"}
    big, small = _blr_data(GLM_SAMPLER_MIN_ROWS), _blr_data(GLM_SAMPLER_MIN_ROWS - 1)
    assert resolve_nuts_sampler(blr_model, big, binary, "auto") == "nutpie-glm"
    assert resolve_nuts_sampler(blr_model, small, binary, "auto") == "nutpie"
    assert resolve_nuts_sampler(blr_model, small, binary, "nutpie-glm") == "nutpie-glm"
    for name in ("nutpie", "nutpie-c", "pymc", "numpyro"):  # explicit choices stay
        assert resolve_nuts_sampler(blr_model, big, binary, name) == name
    multinomial = {**binary, "n_outputs": 2, "likelihood": "categorical"}
    assert resolve_nuts_sampler(blr_model, big, multinomial, "auto") == "nutpie"
    # the Platt map has a NumPy density; the spline map (a smoothing variance) has none
    rows = GLM_SAMPLER_MIN_ROWS
    rng = np.random.default_rng(1)
    platt = {"F": rng.normal(size=(rows, 1)), "t": (rng.random(rows) < 0.5).astype(float),
             "w": np.ones(rows)}
    map_hyper = {"coef_prior": "real", "prior_scale": 2.5, "intercept_scale": 10.0,
                 "prior_df": 1.0, "smoothness_scale": 1.0}
    assert resolve_nuts_sampler(calibration_map_model, platt, map_hyper, "auto") == "nutpie-glm"
    spline = {**platt, "B": rng.normal(size=(rows, 4)), "a": np.full(4, 0.5)}
    assert resolve_nuts_sampler(calibration_map_model, spline, map_hyper, "auto") == "nutpie"
    assert resolve_nuts_sampler(_normal_mean, {"y": np.ones(rows)}, {"scale": 1.0},
                                "auto") == "nutpie"


def test_nutpie_glm_on_a_model_without_a_numpy_density_raises():
    with pytest.raises(ValueError, match="sampler`='nutpie-glm' needs a model with a NumPy"):
        sample_posterior(_normal_mean, {"y": np.ones(20)}, hyper={"scale": 10.0},
                         sampler="nutpie-glm", draws=20, tune=20, random_state=0)
    X, y = np.random.default_rng(0).normal(size=(30, 2)), np.arange(30) % 3
    with pytest.raises(ValueError, match="use sampler='auto'"):
        BayesianLogisticRegression(sampler="nutpie-glm", draws=20, tune=20).fit(X, y)
    with pytest.raises(ValueError, match="sampler"):
        resolve_nuts_sampler(_normal_mean, {"y": np.ones(3)}, {"scale": 1.0}, "stan")


def test_default_sampler_on_a_large_binary_and_one_vs_rest_blr():
    # From GLM_SAMPLER_MIN_ROWS rows the default runs nutpie-glm (no compilation: cheap
    # here): the diagnostics name it and are those of the draws, and a seed fixes them.
    import arviz as az

    rng = np.random.default_rng(3)
    n = GLM_SAMPLER_MIN_ROWS
    X = rng.normal(size=(n, 2))
    eta = X @ np.array([1.0, -1.0])
    y3 = np.digitize(eta + rng.logistic(size=n), [-1.0, 1.0])
    fits = {}
    for name, y, multi in (("binary", (y3 == 2).astype(int), "multinomial"),
                           ("ovr", y3, "ovr"), ("again", (y3 == 2).astype(int), "multinomial")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
            fits[name] = BayesianLogisticRegression(
                multi_class=multi, draws=150, tune=150, chains=2, random_state=11
            ).fit(X, y)
    for name in ("binary", "ovr"):
        est = fits[name]
        diag = est.diagnostics_
        assert diag.sampler == "nutpie-glm"
        posterior = est.idata_["posterior"].to_dataset()[["intercept", "beta"]]
        rhat = az.rhat(posterior)
        assert diag.rhat_max == pytest.approx(max(float(rhat[v].max()) for v in rhat))
        ess = az.ess(posterior, method="bulk")
        assert diag.ess_bulk_min == pytest.approx(min(float(ess[v].min()) for v in ess))
        diverging = est.idata_["sample_stats"]["diverging"]
        assert diag.divergences == int(diverging.sum())
        assert diag.rhat_max < 1.05 and diag.divergences == 0
    assert fits["ovr"].idata_["posterior"].sizes["output"] == 3
    np.testing.assert_array_equal(fits["binary"].idata_["posterior"]["beta"].values,
                                  fits["again"].idata_["posterior"]["beta"].values)
    # the posterior means recover the slopes' signs (the one-vs-rest class 2 too)
    assert fits["binary"].coef_[0, 0] > 0.5 and fits["binary"].coef_[0, 1] < -0.5
    assert fits["ovr"].coef_[2, 0] > 0.5 and fits["ovr"].coef_[0, 0] < -0.5
