"""Tests of LogisticGAMCalibrator: reduction to the linear fit, criteria, extrapolation."""

from __future__ import annotations

from pathlib import Path

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
DATA_DIR = Path("/work/shared/data")


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


@pytest.mark.parametrize("target_smoothing", [True, False])
def test_infinite_smoothing_is_exactly_the_platt_fit(target_smoothing):
    s, y = _linear_truth(2)
    gam = LogisticGAMCalibrator(criterion="ubre", target_smoothing=target_smoothing).fit(s, y)
    assert np.isinf(gam.smoothing_) and gam.edf_ == 2.0
    linear = PlattCalibrator(target_smoothing=target_smoothing).fit(s, y)
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


def _independent_fits(s, y, knots, lambdas):
    """Per smoothing parameter: a penalised logistic P-spline fitted with scipy.optimize
    (BFGS), as ``(beta, lam, deviance, edf, H + lam S, S)``."""
    X = pspline_basis(s, knots, 3)
    D = np.diff(np.eye(X.shape[1]), n=2, axis=0)
    S = D.T @ D
    out = []
    beta = np.zeros(X.shape[1])
    for lam in lambdas:

        def f(b, lam=lam):
            eta = X @ b
            return np.sum(np.logaddexp(0, eta) - y * eta) + 0.5 * lam * b @ S @ b

        def g(b, lam=lam):
            return X.T @ (expit(X @ b) - y) + lam * S @ b

        beta = minimize(f, beta, jac=g, method="BFGS", options={"gtol": 1e-10}).x
        p = expit(X @ beta)
        H = X.T @ (X * (p * (1 - p))[:, None])
        edf = np.trace(np.linalg.solve(H + lam * S, H))
        dev = -2 * np.sum(xlogy(y, p) + xlogy(1 - y, 1 - p))
        out.append((beta, lam, dev, edf, H + lam * S, S))
    return out


def _independent_ubre(s, y, knots, log_lams):
    """UBRE of the independent fits at ``exp(log_lams)``."""
    fits = _independent_fits(s, y, knots, np.exp(log_lams))
    return np.array([dev / len(y) + 2 * edf / len(y) - 1 for _, _, dev, edf, _, _ in fits])


def test_selected_smoothing_minimises_ubre():
    rng = np.random.default_rng(2)
    s = rng.uniform(size=3000)
    y = (rng.uniform(size=s.size) < 0.1 + 0.8 * np.sin(np.pi * s) ** 2).astype(int)
    gam = LogisticGAMCalibrator(criterion="ubre", target_smoothing=False).fit(s, y)
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
    st.sampled_from(["ubre", "gcv", "reml", "reml-average"]),
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


def _small_real_set():
    """38 naive-Bayes calibration scores of heart_disease_cleveland, the issue-27 case."""
    from sklearn.impute import SimpleImputer
    from sklearn.model_selection import StratifiedKFold
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline

    from bayescal.datasets import load_dataset

    data = load_dataset("heart_disease_cleveland", DATA_DIR)
    X, y = data.X, (data.y == np.unique(data.y)[0]).astype(int)
    keep = np.random.default_rng(0).choice(y.size, size=120, replace=False)
    X, y = X[keep], y[keep]
    train, test = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))[3]
    cal, fit = train[:38], train[38:]
    model = make_pipeline(SimpleImputer(), GaussianNB()).fit(X[fit], y[fit])
    return (model.predict_proba(X[cal])[:, 1], y[cal],
            model.predict_proba(X[test])[:, 1], y[test])


@pytest.mark.skipif(not DATA_DIR.is_dir(), reason=f"the shared data folder {DATA_DIR} is absent")
@pytest.mark.parametrize("criterion", ["ubre", "gcv", "reml", "reml-average"])
def test_small_real_calibration_set_is_not_interpolated(criterion):
    s_cal, y_cal, s_test, y_test = _small_real_set()
    import warnings

    from sklearn.metrics import log_loss

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = LogisticGAMCalibrator(  # the behaviour before issue 27
            criterion=criterion, min_events_per_edf=None, target_smoothing=False
        ).fit(s_cal, y_cal)
    platt = PlattCalibrator().fit(s_cal, y_cal)
    platt_loss = log_loss(y_test, platt.predict_proba(s_test))
    # Without the floor every criterion chooses a tiny lambda and a spline through the labels
    assert free.smoothing_ < 1e-4 and free.edf_ > 4.0
    assert log_loss(y_test, free.predict_proba(s_test)) > 5 * platt_loss
    gam = LogisticGAMCalibrator(criterion=criterion).fit(s_cal, y_cal)
    # 38 rows, at most 19 in the smaller class: only the linear fit is allowed
    assert gam.max_edf_ == 2.0 and gam.edf_bound_active_
    assert np.isinf(gam.smoothing_) and gam.edf_ == 2.0
    assert log_loss(y_test, gam.predict_proba(s_test)) == pytest.approx(platt_loss, rel=1e-6)


@pytest.mark.parametrize("n", [60, 150, 400])
def test_edf_never_exceeds_the_events_per_parameter_bound(n):
    rng = np.random.default_rng(n)
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < 0.1 + 0.8 * np.sin(np.pi * s) ** 2).astype(int)
    gam = LogisticGAMCalibrator(min_events_per_edf=10).fit(s, y)
    events = min(y.sum(), n - y.sum())
    assert gam.max_edf_ == pytest.approx(max(2.0, events / 10))
    assert gam.edf_ <= gam.max_edf_ * (1 + 1e-6)
    average = LogisticGAMCalibrator(criterion="reml-average", min_events_per_edf=10).fit(s, y)
    assert average.edf_ <= average.max_edf_ * (1 + 1e-6)  # every node is admissible
    free = LogisticGAMCalibrator(min_events_per_edf=None).fit(s, y)
    assert np.isinf(free.max_edf_) and not free.edf_bound_active_
    if free.edf_ > gam.max_edf_ * (1 + 1e-3):
        # the bound binds: the fit sits on it (boundary found by bisection)
        assert gam.edf_bound_active_
        assert gam.edf_ == pytest.approx(gam.max_edf_, abs=0.05) or np.isinf(gam.smoothing_)
    else:
        assert gam.edf_ == pytest.approx(free.edf_, rel=1e-6)


def test_separable_small_set_stays_finite_with_target_smoothing():
    s = np.linspace(0.05, 0.95, 30)
    y = (s > 0.5).astype(int)
    gam = LogisticGAMCalibrator().fit(s, y)
    p = gam.predict_proba(s)[:, 1]
    assert p.min() > 1e-3 and p.max() < 1 - 1e-3  # Platt's targets bound the fit away from 0/1
    np.testing.assert_allclose(p, PlattCalibrator().fit(s, y).predict_proba(s)[:, 1], atol=1e-6)


BAD = [
    (dict(), [0.1, 0.2, 0.3], [0, 0, 0], ValueError, "single class"),
    (dict(), [0.3, 0.3, 0.3], [0, 1, 1], ValueError, "two distinct"),
    (dict(input="logit", clip=None), [0.0, 0.3, 0.5], [0, 1, 1], ValueError, "strictly inside"),
    (dict(criterion="aic"), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "criterion"),
    (dict(n_knots=2), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "n_knots"),
    (dict(degree=0), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "degree"),
    (dict(n_knots=5.0), [0.1, 0.2, 0.3], [0, 1, 1], TypeError, "n_knots"),
    (dict(min_events_per_edf=0), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "min_events_per_edf"),
    (dict(target_smoothing="yes"), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "target_smoothing"),
    (dict(), [0.1, 0.2, np.nan], [0, 1, 1], ValueError, "NaN"),
]


@pytest.mark.parametrize(("params", "scores", "y", "error", "match"), BAD)
def test_bad_input(params, scores, y, error, match):
    with pytest.raises(error, match=match):
        LogisticGAMCalibrator(**params).fit(scores, y)


# ---- criterion="reml-average": the fits over the smoothing parameter, averaged --------


def _independent_reml_nodes(s, y, knots, lambdas):
    """Per lambda (inf: the linear limit, at ``lambdas[1] * e``): coefficients, edf and the
    REML criterion of the independent fits."""
    fitted = [lambdas[1] * np.e if np.isinf(lam) else lam for lam in lambdas]
    out = []
    for lam, (beta, lam_fit, dev, edf, penalised, S) in zip(
            lambdas, _independent_fits(s, y, knots, fitted), strict=True):
        reml = (0.5 * dev + 0.5 * lam_fit * beta @ S @ beta
                + 0.5 * np.linalg.slogdet(penalised)[1] - 0.5 * (S.shape[0] - 2) * np.log(lam_fit))
        out.append((beta, 2.0 if np.isinf(lam) else edf, reml))
    return out


def test_reml_average_is_the_hand_computed_weighted_average():
    # a mild nonlinearity on 400 rows: REML's criterion is flat over several lambdas
    rng = np.random.default_rng(5)
    s = rng.uniform(size=400)
    y = (rng.uniform(size=s.size) < expit(-2 + 3 * s + 1.5 * np.sin(3 * s))).astype(int)
    gam = LogisticGAMCalibrator(criterion="reml-average", n_knots=5,
                                target_smoothing=False).fit(s, y)
    lambdas, w = gam.smoothing_grid_, gam.smoothing_weights_
    assert np.isinf(lambdas[0]) and np.all(np.diff(np.log(lambdas[1:])) < 0)
    assert w.sum() == pytest.approx(1.0) and w.max() < 0.5  # an average, not a pick
    nodes = _independent_reml_nodes(s, y, gam.knots_, lambdas)
    beta = np.array([n[0] for n in nodes])
    edf = np.array([n[1] for n in nodes])
    reml = np.array([n[2] for n in nodes])
    # flat prior on the edf: trapezoid widths in the edf times exp(-REML)
    width = np.zeros(edf.size)
    width[:-1] += 0.5 * np.abs(np.diff(edf))
    width[1:] += 0.5 * np.abs(np.diff(edf))
    expected = width * np.exp(-(reml - reml.min()))
    expected /= expected.sum()
    np.testing.assert_allclose(w, expected, atol=2e-4)
    # the linear node is the exact unpenalised fit, not the top of the grid
    linear = PlattCalibrator(target_smoothing=False).fit(s, y)
    greville = np.array([gam.knots_[j + 1 : j + 4].mean() for j in range(beta.shape[1])])
    beta[0] = linear.intercept_ + linear.slope_ * greville
    np.testing.assert_allclose(gam.coef_, w @ beta, atol=2e-4)
    assert gam.edf_ == pytest.approx(w @ edf, abs=2e-3)
    # what predict returns is the spline with the averaged coefficients
    np.testing.assert_allclose(
        logit(gam.predict_proba(GRID)[:, 1]), pspline_basis(GRID, gam.knots_, 3) @ gam.coef_,
        atol=1e-9)
    order = np.argsort(lambdas)
    median = lambdas[order][np.searchsorted(np.cumsum(w[order]), 0.5)]
    assert gam.smoothing_ == median


def _mushroom_like(rng, n):
    """Naive-Bayes-like scores: a third near 0, 58 % piled in [0.99, 1], few between, and
    a calibration map that jumps from 0.2 to 0.73 inside the last knot interval."""
    part = rng.choice(4, size=n, p=[0.32, 0.06, 0.04, 0.58])
    lo, hi = np.array([0.0, 0.25, 0.9, 0.99]), np.array([0.25, 0.9, 0.99, 1.0])
    s = lo[part] + (hi[part] - lo[part]) * rng.uniform(size=n)
    p = np.array([0.1, 0.3, 0.2, 0.73])[part]
    return s, p, (rng.uniform(size=n) < p).astype(int)


def test_reml_average_beats_remls_linear_pick_on_mushroom_like_scores():
    errors, linear_picks = [], 0
    for seed in range(8):
        rng = np.random.default_rng(seed)
        s, _, y = _mushroom_like(rng, 334)
        s_test, p_test, _ = _mushroom_like(rng, 20_000)
        reml = LogisticGAMCalibrator(n_knots=5, criterion="reml").fit(s, y)
        average = LogisticGAMCalibrator(n_knots=5, criterion="reml-average").fit(s, y)
        mse = [np.mean((m.predict_proba(s_test)[:, 1] - p_test) ** 2) for m in (reml, average)]
        errors.append(mse)
        if np.isinf(reml.smoothing_):  # REML chose the linear fit, as on mushroom's fold
            linear_picks += 1
            assert average.edf_ > 2.5 and mse[1] < 0.9 * mse[0]
    errors = np.array(errors)
    assert linear_picks >= 2
    assert errors[:, 1].mean() < 0.9 * errors[:, 0].mean()


@pytest.mark.parametrize("input", ["score", "logit"])
def test_reml_average_stays_near_the_linear_fit_when_truth_is_linear(input):
    # edf_ is the posterior mean edf (about 3 here, the flat prior on the edf weighs the
    # plateau of the criterion near the linear fit), yet the map stays close to linear
    gaps = []
    for seed in range(8):
        s, y = _linear_truth(seed, input=input)
        gam = LogisticGAMCalibrator(input=input, criterion="reml-average").fit(s, y)
        linear = PlattCalibrator(input=input, target_smoothing=False).fit(s, y)
        gaps.append(np.abs(gam.predict_proba(GRID) - linear.predict_proba(GRID)).max())
        assert 2.0 < gam.edf_ < 4.5
    assert max(gaps) < 0.03


def test_reml_average_on_a_small_set_is_the_linear_fit_only():
    rng = np.random.default_rng(7)
    s = rng.uniform(size=38)
    y = (rng.uniform(size=38) < s).astype(int)
    gam = LogisticGAMCalibrator(criterion="reml-average").fit(s, y)
    assert gam.max_edf_ == 2.0 and gam.edf_bound_active_
    assert gam.smoothing_weights_.tolist() == [1.0] and np.isinf(gam.smoothing_)
    np.testing.assert_allclose(gam.predict_proba(GRID), PlattCalibrator().fit(s, y)
                               .predict_proba(GRID), atol=1e-6)


def test_selection_criteria_report_a_single_node():
    s, y = _linear_truth(3, n=500)
    gam = LogisticGAMCalibrator(criterion="reml").fit(s, y)
    assert gam.smoothing_grid_.tolist() == [gam.smoothing_]
    assert gam.smoothing_weights_.tolist() == [1.0]
