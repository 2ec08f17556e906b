"""``sampler="nutpie-glm"``: nutpie's NUTS on the NumPy log posterior of the GLM probes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayescal.inference.diagnostics import PosteriorDiagnosticsWarning
from bayescal.inference.laplace_glm import LogisticGLM
from bayescal.inference.sampling import sample_posterior
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
    from bayescal.probes.calibration_maps import BayesianBetaCalibrator

    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    eta = 0.3 + X @ np.array([1.0, -0.5, 0.0])
    y = (rng.random(200) < 1.0 / (1.0 + np.exp(-eta))).astype(np.int64)
    scores = np.clip(1.0 / (1.0 + np.exp(-eta)), 1e-3, 1 - 1e-3)
    cases = [(BayesianLogisticRegression, (X, y), ("intercept", "beta")),
             (BayesianBetaCalibrator, (scores, y), ("intercept", "coef"))]
    for cls, args, names in cases:
        fits = {}
        for sampler, seed in (("nutpie", 21), ("nutpie-glm", 22)):
            est = cls(sampler=sampler, draws=400, tune=400, chains=2, random_state=seed)
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
    draws = [BayesianLogisticRegression(sampler="nutpie-glm", draws=100, tune=100, chains=2,
                                        random_state=7).fit(X, y).idata_["posterior"]["beta"]
             for _ in range(2)]
    assert draws[0].shape == (2, 100, 3, 1)
    np.testing.assert_array_equal(draws[0].values, draws[1].values)


@pytest.mark.slow
def test_a_model_without_a_numpy_density_runs_on_nutpie():
    import pymc as pm

    def normal_mean(data, *, scale):
        with pm.Model() as model:
            y = pm.Data("y", data["y"])
            mu = pm.Normal("mu", 0.0, scale)
            pm.Normal("obs", mu, 1.0, observed=y)
        return model

    fit = sample_posterior(normal_mean, {"y": np.ones(20)}, hyper={"scale": 10.0},
                           sampler="nutpie-glm", draws=200, tune=200, random_state=0)
    assert fit.sampler == "nutpie"
    assert float(fit.idata["posterior"]["mu"].mean()) == pytest.approx(1.0, abs=0.1)
