"""The fused numba Newton pass gives the NumPy path's fit (fast path == previous path)."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.calibration import _logistic
from bayescal.calibration._logistic import (
    _newton_fused,
    _newton_numpy,
    fit_logistic,
    intercept_design,
    logistic_loss,
)
from bayescal.calibration._logistic_kernel import logistic_newton_terms


def _problem(n, seed, fractional=False, weighted=False):
    rng = np.random.default_rng(seed)
    s = np.clip(rng.beta(2.0, 3.0, size=n), 1e-6, 1 - 1e-6)
    t = (rng.uniform(size=n) < s**1.5).astype(float)
    if fractional:
        t = np.clip(t * 0.9 + 0.05, 0, 1)
    w = rng.uniform(0.0, 3.0, size=n) if weighted else np.ones(n)
    return intercept_design(np.log(s), -np.log1p(-s)), t, w


@pytest.mark.parametrize("fractional", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_one_pass_terms_equal_the_numpy_formulas(fractional, weighted):
    design, t, w = _problem(3000, 1, fractional, weighted)
    coef = np.array([0.3, 1.2, -0.7])
    loss, grad, hess, eta = logistic_newton_terms(np.ascontiguousarray(design), coef, t, w)
    ref_eta = design @ coef
    p = 1.0 / (1.0 + np.exp(-ref_eta))
    np.testing.assert_allclose(eta, ref_eta, rtol=1e-14)
    assert loss == pytest.approx(logistic_loss(ref_eta, t, w), rel=1e-12)
    np.testing.assert_allclose(grad, design.T @ (w * (p - t)), rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(hess, design.T @ (design * (w * p * (1 - p))[:, None]),
                               rtol=1e-10)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("penalised", [False, True])
def test_fused_newton_reaches_the_numpy_newton_fit(seed, penalised):
    design, t, w = _problem(4000, seed, fractional=seed == 1, weighted=seed == 2)
    penalty = np.diag([0.0, 2.0, 2.0]) if penalised else None
    ref = _newton_numpy(design, t, w, penalty, None, 100, 1e-10)
    fused = _newton_fused(design, t, w, penalty, None, 100, 1e-10)
    np.testing.assert_allclose(fused[0], ref[0], rtol=1e-9, atol=1e-10)  # coefficients
    assert fused[1] == pytest.approx(ref[1], rel=1e-12)  # loss
    np.testing.assert_allclose(fused[2], ref[2], rtol=1e-8)  # Hessian
    assert fused[5] and ref[5]  # both converged


def test_fit_logistic_switches_to_the_fused_pass_by_size(monkeypatch):
    design, t, w = _problem(500, 3)
    small = fit_logistic(design, t, w)
    monkeypatch.setattr(_logistic, "FUSED_MIN_SAMPLES", 100)
    fused = fit_logistic(design, t, w)
    np.testing.assert_allclose(fused.coef, small.coef, rtol=1e-9)
    assert fused.n_iter == small.n_iter
