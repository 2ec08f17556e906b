"""Tests of the NumPy Laplace path (bayescal.inference.laplace_glm) against the PyMC models."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from bayescal.inference import sampling
from bayescal.inference.laplace_glm import LogisticGLM, gaussian_draws_at_mode, newton_mode
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


def _former_value_grad_hess(glm, theta):
    """The former implementation (before issue 26's fast check): ``logaddexp``, ``expit`` and
    ``G^T diag(d) G`` -- kept here as the reference the fast path must reproduce."""
    from scipy.special import expit

    value, gprior, hprior, coef = glm._prior(theta)
    G = glm._centred
    eta = theta[0] + G @ coef
    value += float(glm.weights @ (glm.targets * eta - np.logaddexp(0.0, eta)))
    p = expit(eta)
    r = glm.weights * (glm.targets - p)
    d = glm.weights * p * (1.0 - p)
    grad = gprior.copy()
    grad[0] += r.sum()
    grad[1:] += G.T @ r
    dG = G * d[:, None]
    hess = hprior.copy()
    hess[0, 0] -= d.sum()
    col = dG.sum(axis=0)
    hess[0, 1:] -= col
    hess[1:, 0] -= col
    hess[1:, 1:] -= G.T @ dG
    if glm.positive:
        jac = np.concatenate([[1.0], coef])
        curvature = np.concatenate([[0.0], grad[1:] * coef])
        hess = hess * np.outer(jac, jac) + np.diag(curvature)
        grad = grad * jac
        grad[1:] += 1.0
    return value, grad, hess


def _large_blr_problem(n=10_000, d=20, seed=0, positives=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if positives is None:
        beta = rng.normal(0.0, 1.0 / np.sqrt(d), size=d)
        y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(X @ beta - 0.5)))).astype(np.int64)
    else:  # rare events: a skewed posterior that Laplace approximates badly
        y = np.zeros(n, dtype=np.int64)
        y[rng.choice(n, positives, replace=False)] = 1
    X = (X - X.mean(axis=0)) / (2.0 * X.std(axis=0))
    return blr_model.glm_problem({"X": X, "y": y}, **BLR_HYPER)


@pytest.mark.parametrize("case", [*sorted(CASES), "large"])
def test_fast_mode_and_hessian_equal_the_former_implementation_to_1e6(case):
    if case == "large":
        glm = _large_blr_problem().glm
    else:
        builder, data, hyper = CASES[case]()
        glm = builder.glm_problem(data, **hyper).glm
    rng = np.random.default_rng(3)
    for theta in rng.normal(0.0, 0.5, size=(3, glm.n_params)):
        new, old = glm.value_grad_hess(theta), _former_value_grad_hess(glm, theta)
        assert new[0] == pytest.approx(old[0], rel=1e-12, abs=1e-9)
        np.testing.assert_allclose(new[1], old[1], rtol=1e-10, atol=1e-9)
        np.testing.assert_allclose(new[2], old[2], rtol=1e-10, atol=1e-9)
    mode, neg_hessian, _ = newton_mode(glm.value_grad_hess, glm.start())
    old_mode, old_neg_hessian, _ = newton_mode(lambda t: _former_value_grad_hess(glm, t),
                                               glm.start())
    np.testing.assert_allclose(mode, old_mode, atol=1e-6)
    np.testing.assert_allclose(neg_hessian, old_neg_hessian, rtol=1e-6, atol=1e-9)
    # the Hessian is the one at the returned mode
    np.testing.assert_allclose(neg_hessian, -_former_value_grad_hess(glm, mode)[2], rtol=1e-6)


def _reference_log_density(glm, thetas):
    """Double-precision log density per draw: scipy's Student-t and ``np.logaddexp``."""
    from scipy import stats

    out = []
    for theta in np.atleast_2d(thetas):
        c, coef = glm.coefficients(theta)
        eta = theta[0] + glm._centred @ coef
        value = float(glm.weights @ (glm.targets * eta - np.logaddexp(0.0, eta)))
        value += stats.t.logpdf(c, glm.prior_df, scale=glm.intercept_scale)
        value += stats.t.logpdf(coef, glm.prior_df, scale=glm.prior_scale).sum()
        if glm.positive:
            value += coef.size * np.log(2.0) + theta[1:].sum()
        out.append(value)
    return np.array(out)


@pytest.mark.parametrize("case", sorted(CASES))
def test_log_density_of_many_draws_equals_the_logaddexp_reference(case):
    # 300 draws: several blocks of rows, the product path (equal weights: blr, platt)
    # and the log1p path (unequal weights: beta)
    builder, data, hyper = CASES[case]()
    glm = builder.glm_problem(data, **hyper).glm
    thetas = np.random.default_rng(4).normal(0.0, 1.0, size=(300, glm.n_params))
    reference = _reference_log_density(glm, thetas)
    np.testing.assert_allclose(glm.log_density_many(thetas), reference, rtol=1e-12, atol=1e-9)
    single = glm.log_density_many(thetas, single=True)
    assert np.abs(single - reference).max() < 1e-3


def test_single_precision_log_density_is_exact_enough_for_importance_weights():
    # n = 50,000 rows, draws of the Laplace approximation (as the check uses it), a tenth
    # of the rows with |eta| of 20-200 (exp(-|eta|) far below single precision's epsilon):
    # against the double-precision reference the error stays far below what moves an
    # importance weight (1e-3: 0.1 %)
    rng = np.random.default_rng(5)
    n = 50_000
    F = rng.normal(size=(n, 3))
    F[: n // 10, 1] = rng.choice([-1.0, 1.0], n // 10) * rng.uniform(20.0, 200.0, n // 10)
    t = (rng.random(n) < 1.0 / (1.0 + np.exp(-(F @ np.array([0.5, 1.0, -0.3]) - 1.0))))
    glm = LogisticGLM(design=F, targets=t.astype(float), weights=np.ones(n), prior_scale=2.5,
                      intercept_scale=10.0, prior_df=1.0)
    mode, neg_hessian, _ = newton_mode(glm.value_grad_hess, glm.start())
    thetas = gaussian_draws_at_mode(mode, neg_hessian, 64, 0)[2]
    assert np.abs(glm._centred @ thetas[:, 1:].T + thetas[:, 0]).max() > 100.0
    reference = _reference_log_density(glm, thetas)
    np.testing.assert_allclose(glm.log_density_many(thetas), reference, rtol=1e-12, atol=1e-8)
    error = glm.log_density_many(thetas, single=True) - reference
    assert np.abs(error).max() < 1e-3
    # the element-wise identity behind it, against float64 log1p: log1pexp(eta) =
    # max(eta, 0) + log1p(exp(-|eta|)), exact to rounding for tiny exp(-|eta|) too
    eta = np.array([-800.0, -40.0, -1e-3, 0.0, 1e-3, 40.0, 800.0])
    fast = np.maximum(eta, 0.0) + np.log1p(np.exp(-np.abs(eta)))
    np.testing.assert_allclose(fast, np.logaddexp(0.0, eta), rtol=1e-15)


def test_equal_and_unequal_weights_give_the_same_density():
    # a row split into two rows of half weight: the same posterior, through the
    # product-of-(1 + e) path (equal weights) and the log1p path (unequal weights)
    _, data, hyper = _blr_case()
    glm = blr_model.glm_problem(data, **hyper).glm
    split = LogisticGLM(
        design=np.vstack([glm.design, glm.design[:1]]),
        targets=np.concatenate([glm.targets, glm.targets[:1]]),
        weights=np.concatenate([[0.5], np.ones(glm.design.shape[0] - 1), [0.5]]),
        prior_scale=glm.prior_scale, intercept_scale=glm.intercept_scale,
        prior_df=glm.prior_df)
    thetas = np.random.default_rng(6).normal(0.0, 1.0, size=(50, glm.n_params))
    for single in (False, True):
        np.testing.assert_allclose(split.log_density_many(thetas, single=single),
                                   glm.log_density_many(thetas, single=single),
                                   rtol=1e-9 if not single else 1e-6)


def test_single_precision_first_newton_steps_end_at_the_double_precision_mode():
    # from 20,000 rows the first Newton steps run in single precision; the last ones
    # (double precision) give the same mode and Hessian as double precision throughout
    from bayescal.inference.laplace_glm import _SINGLE_NEWTON_ROWS, laplace_glm_draws

    problem = _large_blr_problem(n=_SINGLE_NEWTON_ROWS)
    glm = problem.glm
    value32, grad32, hess32 = glm.value_grad_hess(glm.start(), single=True)
    value64, grad64, hess64 = glm.value_grad_hess(glm.start())
    assert value32 == pytest.approx(value64, rel=1e-6)
    np.testing.assert_allclose(grad32, grad64, rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(hess32, hess64, rtol=1e-4, atol=1e-2)
    mode, _, _ = newton_mode(glm.value_grad_hess, glm.start())
    _, at_mode, _ = laplace_glm_draws(problem, n_draws=300, seed=0)
    np.testing.assert_allclose(np.ravel(at_mode["intercept"]), mode[:1], atol=1e-8)
    np.testing.assert_allclose(np.ravel(at_mode["beta"]), mode[1:], atol=1e-8)


def test_two_precision_mode_and_hessian_equal_double_precision_newton():
    # single-precision Newton steps, one chord step in double precision and the exact
    # Hessian at its end: the mode and the Hessian of double-precision Newton throughout
    from bayescal.inference.laplace_glm import _SINGLE_NEWTON_ROWS, _posterior_mode

    for positives in (None, 40):  # a well-conditioned and a rare-event (skewed) posterior
        glm = _large_blr_problem(n=2 * _SINGLE_NEWTON_ROWS, positives=positives).glm
        mode, neg_hessian = _posterior_mode(glm)
        ref_mode, ref_neg_hessian, _ = newton_mode(glm.value_grad_hess, glm.start())
        np.testing.assert_allclose(mode, ref_mode, atol=1e-8)
        np.testing.assert_allclose(neg_hessian, ref_neg_hessian, rtol=1e-8)
        # the Hessian is the exact double-precision one at the returned mode, or at the
        # point one unevaluated Newton step before it (decrement below 1e-12)
        at_mode = -_former_value_grad_hess(glm, mode)[2]
        np.testing.assert_allclose(neg_hessian, at_mode, atol=1e-8 * np.abs(at_mode).max())
        assert np.abs(glm.value_grad_hess(mode)[1]).max() < 1e-6


def test_compiled_products_of_one_plus_exp_equal_double_precision():
    # the numba kernel's single-precision exp (range reduction, degree-7 polynomial,
    # exponent bits) and its products over groups of rows, against float64
    from bayescal._kernels.softplus import exp_plus_one_products

    rng = np.random.default_rng(7)
    z = -np.abs(rng.normal(0.0, 3.0, size=(250, 33)))  # 250 rows: a short last group
    z[:, 0] = np.linspace(-200.0, 5.0, 250)  # far below -87 (factor 1) to sign flips
    z[[5, 125, 245], 1] = [30.0, 45.0, 60.0]  # one large factor per group (no overflow)
    offset = rng.normal(0.0, 1.0, 250)
    sign = rng.choice([-1.0, 1.0], 250)
    shift = rng.normal(0.0, 0.1, 33)
    b = (z - offset[:, None]) / sign[:, None] - shift  # so that offset + sign (b + shift) = z
    f32 = np.float32
    out = np.empty((3, 33), dtype=f32)
    exp_plus_one_products(b.astype(f32), offset.astype(f32), sign.astype(f32),
                          shift.astype(f32), 120, out)
    exact = offset[:, None] + sign[:, None] * (b.astype(f32).astype(float) + shift.astype(f32))
    groups = np.split(np.log1p(np.exp(exact)), [120, 240])
    reference = np.array([g.sum(axis=0) for g in groups])
    np.testing.assert_allclose(np.log(out.astype(float)), reference, rtol=1e-5, atol=2e-5)
    # a factor beyond single precision's range makes its group's product infinite
    b[130, 2] = (100.0 - offset[130]) / sign[130] - shift[2]
    exp_plus_one_products(b.astype(f32), offset.astype(f32), sign.astype(f32),
                          shift.astype(f32), 120, out)
    assert np.isinf(out[1, 2]) and np.all(np.isfinite(np.delete(out, 2, axis=1)))


@pytest.mark.parametrize("far", [False, True])
def test_compiled_and_numpy_single_precision_log_density_agree(monkeypatch, far):
    # the two single-precision paths of log_density_many (numba kernel and NumPy), and
    # draws far from their mean (a product overflows: that block in double precision)
    import bayescal.inference.laplace_glm as laplace_glm

    glm = _large_blr_problem(n=3000).glm
    mode, neg_hessian, _ = newton_mode(glm.value_grad_hess, glm.start())
    thetas = gaussian_draws_at_mode(mode, neg_hessian, 300, 0)[2]
    if far:
        thetas[5] = -60.0 * mode  # opposite signs to the mean's: some -zeta beyond 88
        eta = glm._centred @ thetas[:, 1:].T + thetas[:, 0]
        assert np.abs(eta).max() > 100.0
    reference = _reference_log_density(glm, thetas)
    results = {}
    for compiled, threshold in (("numba", 0), ("numpy", 10**12)):
        monkeypatch.setattr(laplace_glm, "_COMPILED_MIN_ELEMENTS", threshold)
        results[compiled] = glm.log_density_many(thetas, single=True)
        assert np.abs(results[compiled] - reference).max() < 1e-3 * (1 + far * 10)
    np.testing.assert_allclose(results["numba"], results["numpy"], atol=1e-3 * (1 + far * 10))


def test_single_precision_steps_see_the_exact_value_near_a_rare_event_mode():
    # 40 positives in 10,000 rows: intercept about -5.5. Rounding it (or the linear
    # predictors) to single precision would move the value by about 1e-3, more than a
    # Newton step gains near the mode, and stall the line search for hundreds of
    # evaluations; the single-precision evaluation keeps the value exact
    from bayescal.inference.laplace_glm import _posterior_mode

    glm = _large_blr_problem(n=10_000, seed=1, positives=40).glm
    mode, neg_hessian, _ = newton_mode(glm.value_grad_hess, glm.start())
    assert mode[0] < -5.0
    for theta in (mode, mode + 1e-3):
        value32, grad32, _ = glm.value_grad_hess(theta, single=True)
        value64, grad64, _ = glm.value_grad_hess(theta)
        assert value32 == pytest.approx(value64, rel=1e-14, abs=1e-10)
        np.testing.assert_allclose(grad32, grad64, atol=1e-3)
    calls = []
    evaluate = glm.value_grad_hess
    object.__setattr__(glm, "value_grad_hess",
                       lambda theta, **kw: calls.append(kw) or evaluate(theta, **kw))
    found, found_hessian = _posterior_mode(glm)
    assert len(calls) < 20
    np.testing.assert_allclose(found, mode, atol=1e-6)
    np.testing.assert_allclose(found_hessian, neg_hessian, atol=1e-6 * np.abs(neg_hessian).max())
