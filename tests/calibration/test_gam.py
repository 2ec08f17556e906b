"""Tests of LogisticGAMCalibrator: reduction to the linear fit, criteria, extrapolation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize
from scipy.special import expit, logit, xlogy

from bayescal.calibration import LogisticGAMCalibrator, PlattCalibrator
from bayescal.calibration.gam import pspline_basis

GRID = np.linspace(0.02, 0.98, 97)


def _linear_truth(seed, n=4000, input="score"):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.02, 0.98, size=n)
    x = s if input == "score" else logit(s)
    y = (rng.uniform(size=n) < expit(-1.0 + (3.0 if input == "score" else 1.2) * x)).astype(int)
    return s, y


@pytest.mark.parametrize("criterion", ["ubre", "gcv", "reml"])
@pytest.mark.parametrize("input", ["score", "logit"])
def test_reduces_to_the_linear_fit_when_truth_is_linear(criterion, input):
    s, y = _linear_truth(2, input=input)
    gam = LogisticGAMCalibrator(input=input, criterion=criterion).fit(s, y)
    linear = PlattCalibrator(input=input, target_smoothing=False).fit(s, y)
    # The selected penalty drives the spline into its null space (linear functions).
    assert gam.edf_ < 2.5
    np.testing.assert_allclose(
        gam.predict_proba(GRID)[:, 1], linear.predict_proba(GRID)[:, 1], atol=5e-3
    )


@pytest.mark.parametrize("input", ["score", "logit"])
def test_reml_reduces_to_linear_in_most_samples(input):
    # UBRE and GCV (AIC-like) occasionally under-smooth; REML rarely does
    # (Reiss & Ogden 2009), which is why it is the default.
    edfs, gaps = [], []
    for seed in range(8):
        s, y = _linear_truth(seed, input=input)
        gam = LogisticGAMCalibrator(input=input, criterion="reml").fit(s, y)
        linear = PlattCalibrator(input=input, target_smoothing=False).fit(s, y)
        edfs.append(gam.edf_)
        gaps.append(np.abs(gam.predict_proba(GRID) - linear.predict_proba(GRID)).max())
    assert sum(e < 2.5 for e in edfs) >= 6
    assert max(gaps) < 0.03


def test_infinite_smoothing_is_exactly_the_platt_fit():
    s, y = _linear_truth(2)
    gam = LogisticGAMCalibrator(criterion="ubre").fit(s, y)
    assert np.isinf(gam.smoothing_) and gam.edf_ == 2.0
    linear = PlattCalibrator(target_smoothing=False).fit(s, y)
    wide = np.linspace(0.0, 1.0, 101)  # also beyond the calibration range (linear extension)
    np.testing.assert_allclose(
        gam.predict_proba(wide)[:, 1], linear.predict_proba(wide)[:, 1], atol=1e-6
    )


def test_nonlinear_truth_is_fitted_better_than_platt():
    rng = np.random.default_rng(1)
    s = rng.uniform(size=20_000)
    p = 0.05 + 0.9 * s**3
    y = (rng.uniform(size=s.size) < p).astype(int)
    gam = LogisticGAMCalibrator().fit(s, y)
    platt = PlattCalibrator(target_smoothing=False).fit(s, y)
    truth = 0.05 + 0.9 * GRID**3
    gam_err = np.sqrt(np.mean((gam.predict_proba(GRID)[:, 1] - truth) ** 2))
    platt_err = np.sqrt(np.mean((platt.predict_proba(GRID)[:, 1] - truth) ** 2))
    assert gam.edf_ > 3.0
    assert gam_err < 0.5 * platt_err
    assert gam_err < 0.015


def _independent_ubre(s, y, knots, log_lams):
    """UBRE of a penalised logistic spline, fitted with scipy.optimize (BFGS)."""
    X = pspline_basis(s, knots, 3)
    D = np.diff(np.eye(X.shape[1]), n=2, axis=0)
    S = D.T @ D
    out = []
    beta = np.zeros(X.shape[1])
    for rho in log_lams:
        lam = np.exp(rho)

        def f(b, lam=lam):
            eta = X @ b
            return np.sum(np.logaddexp(0, eta) - y * eta) + 0.5 * lam * b @ S @ b

        def g(b, lam=lam):
            return X.T @ (expit(X @ b) - y) + lam * S @ b

        beta = minimize(f, beta, jac=g, method="BFGS", options={"gtol": 1e-9}).x
        p = expit(X @ beta)
        H = X.T @ (X * (p * (1 - p))[:, None])
        edf = np.trace(np.linalg.solve(H + lam * S, H))
        dev = -2 * np.sum(xlogy(y, p) + xlogy(1 - y, 1 - p))
        out.append(dev / len(y) + 2 * edf / len(y) - 1)
    return np.array(out)


def test_selected_smoothing_minimises_ubre():
    rng = np.random.default_rng(2)
    s = rng.uniform(size=3000)
    y = (rng.uniform(size=s.size) < 0.1 + 0.8 * np.sin(np.pi * s) ** 2).astype(int)
    gam = LogisticGAMCalibrator(criterion="ubre").fit(s, y)
    rho = np.log(gam.smoothing_)
    grid = rho + np.array([-1.0, -0.3, 0.0, 0.3, 1.0])
    ubre = _independent_ubre(s, y, gam.knots_, grid)
    assert ubre[2] == pytest.approx(gam.criterion_value_, abs=1e-7)
    assert ubre[2] <= ubre.min() + 1e-7


def test_linear_extrapolation_beyond_the_calibration_range():
    rng = np.random.default_rng(3)
    s = rng.uniform(0.2, 0.8, size=3000)
    y = (rng.uniform(size=s.size) < s**2).astype(int)
    gam = LogisticGAMCalibrator().fit(s, y)
    outside = np.array([0.0, 0.05, 0.1, 0.15])
    eta = logit(gam.predict_proba(outside)[:, 1])
    np.testing.assert_allclose(np.diff(eta, n=2), 0.0, atol=1e-9)


def test_weights_equal_duplication():
    rng = np.random.default_rng(4)
    s = rng.uniform(size=400)
    y = (rng.uniform(size=400) < s).astype(int)
    w = rng.integers(1, 4, size=400)
    a = LogisticGAMCalibrator().fit(s, y, sample_weight=w)
    b = LogisticGAMCalibrator().fit(np.repeat(s, w), np.repeat(y, w))
    np.testing.assert_allclose(a.predict_proba(GRID), b.predict_proba(GRID), atol=1e-6)


@settings(max_examples=20, deadline=None)
@given(
    arrays(np.float64, 40, elements=st.floats(0.01, 0.99)),
    st.integers(0, 2**31 - 1),
    st.sampled_from(["ubre", "gcv", "reml"]),
)
def test_outputs_are_probabilities(scores, seed, criterion):
    y = np.random.default_rng(seed).integers(0, 2, size=40)
    y[:2] = [0, 1]
    scores[:2] = [0.2, 0.7]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # separable draws warn; not under test here
        gam = LogisticGAMCalibrator(criterion=criterion).fit(scores, y)
    p = gam.calibration_map(np.linspace(0, 1, 101))
    assert np.all((p >= 0) & (p <= 1))


BAD = [
    (dict(), [0.1, 0.2, 0.3], [0, 0, 0], ValueError, "single class"),
    (dict(), [0.3, 0.3, 0.3], [0, 1, 1], ValueError, "two distinct"),
    (dict(input="logit", clip=None), [0.0, 0.3, 0.5], [0, 1, 1], ValueError, "strictly inside"),
    (dict(criterion="aic"), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "criterion"),
    (dict(n_knots=2), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "n_knots"),
    (dict(degree=0), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "degree"),
    (dict(n_knots=5.0), [0.1, 0.2, 0.3], [0, 1, 1], TypeError, "n_knots"),
    (dict(), [0.1, 0.2, np.nan], [0, 1, 1], ValueError, "NaN"),
]


@pytest.mark.parametrize(("params", "scores", "y", "error", "match"), BAD)
def test_bad_input(params, scores, y, error, match):
    with pytest.raises(error, match=match):
        LogisticGAMCalibrator(**params).fit(scores, y)
