"""Tests of the NumPy Laplace path (bayescal.inference.laplace_glm) against the PyMC models."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from bayescal.inference import sampling
from bayescal.inference.laplace_glm import newton_mode
from bayescal.probes.calibration_maps import BayesianPlattCalibrator, calibration_map_model
from bayescal.probes.logistic import BayesianLogisticRegression, blr_model

BLR_HYPER = dict(prior_scale=2.5, intercept_scale=10.0, prior_df=1.0, n_outputs=1,
                 likelihood="bernoulli")
MAP_HYPER = dict(prior_scale=2.5, intercept_scale=10.0, prior_df=1.0, smoothness_scale=1.0)


def _blr_case():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X @ np.array([1.0, -0.5, 0.0, 2.0]) + rng.logistic(size=300) > 0).astype(np.int64)
    return blr_model, {"X": X, "y": y}, BLR_HYPER


def _beta_case():
    rng = np.random.default_rng(1)
    s = np.clip(rng.beta(2.0, 2.0, size=80), 1e-6, 1 - 1e-6)
    t = (rng.random(80) < s).astype(float)
    F = np.column_stack([np.log(s), -np.log1p(-s)])
    data = {"F": F, "t": t, "w": rng.uniform(0.5, 2.0, 80), "centre": F.mean(axis=0)}
    return calibration_map_model, data, {**MAP_HYPER, "coef_prior": "positive"}


def _platt_case():
    rng = np.random.default_rng(2)
    z = rng.normal(size=60)
    t = np.clip(1 / (1 + np.exp(-(0.3 + 1.2 * z))) + rng.normal(0, 0.05, 60), 0, 1)
    return calibration_map_model, {"F": z[:, None], "t": t, "w": np.ones(60)}, {
        **MAP_HYPER, "coef_prior": "real"}


CASES = {"blr": _blr_case, "beta": _beta_case, "platt": _platt_case}


def _pymc_program(builder, data, hyper):
    """PyMC's compiled log density (with Jacobian) and gradient, in our parameter order."""
    import pymc as pm

    program = sampling._laplace_program(builder, data, hyper)
    pm.set_data(data, model=program.model)
    names = [v.name for v in program.value_vars]
    # our order: intercept (or the centred intercept) first, then the coefficients
    first = next(i for i, n in enumerate(names) if n.startswith("intercept"))
    point = program.model.initial_point()
    shapes = {n: np.shape(point[n]) for n in names}

    def split(theta):
        parts = {names[first]: theta[:1].reshape(shapes[names[first]])}
        other = [n for n in names if n != names[first]][0]
        parts[other] = theta[1:].reshape(shapes[other])
        return [parts[n] for n in names]

    def value_grad(theta):
        res = program.fn(*split(np.asarray(theta, dtype=float)))
        grads = {n: np.ravel(g) for n, g in zip(names, res[1 : 1 + len(names)], strict=True)}
        other = [n for n in names if n != names[first]][0]
        return float(res[0]), np.concatenate([grads[names[first]], grads[other]])

    return value_grad


@pytest.mark.parametrize("case", sorted(CASES))
def test_log_density_and_gradient_equal_pymc(case):
    builder, data, hyper = CASES[case]()
    glm = builder.glm_problem(data, **hyper).glm
    pymc_value_grad = _pymc_program(builder, data, hyper)
    rng = np.random.default_rng(5)
    for theta in rng.normal(0.0, 1.0, size=(4, glm.n_params)):
        value, grad, _ = glm.value_grad_hess(theta)
        ref_value, ref_grad = pymc_value_grad(theta)
        assert value == pytest.approx(ref_value, abs=1e-6)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-8, atol=1e-8)
        assert glm.log_density_many(theta[None])[0] == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("case", sorted(CASES))
def test_newton_mode_and_hessian_equal_pymc_to_1e6(case):
    builder, data, hyper = CASES[case]()
    glm = builder.glm_problem(data, **hyper).glm
    pymc_value_grad = _pymc_program(builder, data, hyper)
    mode, neg_hessian, _ = newton_mode(glm.value_grad_hess, glm.start())
    # the reference: PyMC's own log density, maximised to a tight tolerance, and a
    # central-difference Hessian of PyMC's gradient (the former Laplace path's Hessian)
    ref = minimize(lambda x: tuple(-v for v in pymc_value_grad(x)), glm.start(), jac=True,
                   method="BFGS", options={"gtol": 1e-10, "maxiter": 10_000})
    np.testing.assert_allclose(mode, ref.x, atol=1e-6)
    ref_hessian = sampling._numerical_hessian(lambda x: -pymc_value_grad(x)[1], mode)
    np.testing.assert_allclose(neg_hessian, ref_hessian, rtol=1e-6, atol=1e-6)
    # and the former path itself (L-BFGS at scipy's default tolerance) agrees closely
    _, old_mode, _ = sampling._sample_laplace_compiled(builder, data, hyper, n_draws=50, seed=0)
    new_mode = builder.glm_problem(data, **hyper).outputs(mode[None])
    for name, (values, _) in new_mode.items():
        np.testing.assert_allclose(np.ravel(values[0]), np.ravel(old_mode[name]), atol=1e-4)


def test_newton_converges_where_the_cauchy_posterior_is_not_concave():
    # two points, a Cauchy prior: far from the mode the Hessian is indefinite
    data = {"X": np.array([[1.0], [-1.0]]), "y": np.array([1, 0])}
    glm = blr_model.glm_problem(data, **BLR_HYPER).glm
    start = np.array([0.0, 40.0])
    assert np.linalg.eigvalsh(-glm.value_grad_hess(start)[2]).min() < 0
    mode, neg_hessian, _ = newton_mode(glm.value_grad_hess, start)
    assert np.abs(glm.value_grad_hess(mode)[1]).max() < 1e-8
    assert np.linalg.eigvalsh(neg_hessian).min() > 0


def test_binary_blr_and_platt_laplace_build_no_pymc_graph(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the compiled PyMC path was used")

    monkeypatch.setattr(sampling, "_laplace_program", refuse)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + rng.logistic(size=200) > 0).astype(int)
    blr = BayesianLogisticRegression(inference="laplace", draws=100, random_state=0).fit(X, y)
    assert blr.diagnostics_.sampler == "laplace" and np.isfinite(blr.diagnostics_.pareto_k)
    assert blr.idata_["posterior"]["beta"].dims == ("chain", "draw", "feature", "output")
    s = rng.uniform(0.05, 0.95, 200)
    cal = BayesianPlattCalibrator(inference="laplace", draws=100, random_state=0).fit(
        s, (rng.random(200) < s).astype(int))
    assert cal.predict_proba(s).shape == (200, 2)
