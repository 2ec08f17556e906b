"""Tests of near-isotonic regression and the ENIR calibrator."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import xlogy
from sklearn.isotonic import IsotonicRegression

from bayescal.calibration.enir import (
    ENIRCalibrator,
    ensemble_fit,
    ensemble_weights,
    near_isotonic_path,
)


def _near_isotonic_by_dual_qp(y, w, lam):
    """Independent oracle: near-isotonic fit at fixed ``lam`` from its dual QP.

    Primal: min_b 0.5 sum w (y - b)^2 + lam sum (b_i - b_{i+1})_+.  Writing
    (x)_+ = max_{0<=u<=1} u x gives the box-constrained dual
    min_{0<=u<=lam} 0.5 (D'u)' W^-1 (D'u) - u' D y with b = y - W^-1 D'u,
    solved here by L-BFGS-B.
    """
    m = len(y)
    D = np.zeros((m - 1, m))
    D[np.arange(m - 1), np.arange(m - 1)] = 1.0
    D[np.arange(m - 1), np.arange(1, m)] = -1.0
    Winv = 1.0 / w

    def fun(u):
        v = D.T @ u
        return 0.5 * v @ (Winv * v) - u @ (D @ y), D @ (Winv * v) - D @ y

    res = minimize(
        fun,
        np.full(m - 1, lam / 2),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, lam)] * (m - 1),
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000},
    )
    return y - Winv * (D.T @ res.x)


def _primal(y, w, lam, b):
    return 0.5 * np.sum(w * (y - b) ** 2) + lam * np.sum(np.maximum(b[:-1] - b[1:], 0.0))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("lam", [0.05, 0.3, 1.0, 4.0])
def test_path_matches_convex_solver(seed, lam):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=25)
    w = rng.uniform(0.5, 2.0, size=25)
    fit = near_isotonic_path(y, w).fitted(lam)
    oracle = _near_isotonic_by_dual_qp(y, w, lam)
    np.testing.assert_allclose(fit, oracle, atol=1e-5)
    assert _primal(y, w, lam, fit) <= _primal(y, w, lam, oracle) + 1e-9


def test_path_with_ties_and_simultaneous_fusions_matches_solver():
    # integer data make several groups collide at the same penalty
    y = np.array([2.0, 0, 1, 2, 3, 1, 0, 2, 2, 2, 0, 1, 3, 0, 1, 0])
    w = np.ones_like(y)
    path = near_isotonic_path(y)
    for lam in [0.5, 1.0, 1.8, 2.5, 7.0]:
        np.testing.assert_allclose(
            path.fitted(lam), _near_isotonic_by_dual_qp(y, w, lam), atol=1e-5
        )


def test_path_ends_and_doc_example():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, size=200).astype(float)
    w = rng.uniform(0.1, 3.0, size=200)
    path = near_isotonic_path(y, w)
    np.testing.assert_allclose(path.fitted(0.0), y)
    iso = IsotonicRegression().fit_transform(np.arange(200), y, sample_weight=w)
    np.testing.assert_allclose(path.fitted(path.event_lambda[-1] * 2 + 1), iso, atol=1e-9)
    # groups only fuse (one fewer per event) and end as the PAV blocks
    runs = 1 + np.count_nonzero(np.abs(np.diff(iso)) > 1e-9)
    assert path.n_start_groups - path.n_events == runs
    assert np.all(np.diff(path.event_lambda) >= 0)
    np.testing.assert_allclose(
        near_isotonic_path([0.0, 1.0, 0.5, 2.0]).fitted(10.0), [0, 0.75, 0.75, 2]
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=40), st.floats(0.0, 20.0))
def test_path_values_stay_in_data_range_and_end_isotonic(values, lam):
    y = np.asarray(values, dtype=float)
    path = near_isotonic_path(y)
    fit = path.fitted(lam)
    assert fit.min() >= y.min() - 1e-9 and fit.max() <= y.max() + 1e-9
    end = path.fitted(path.event_lambda[-1] + 1.0)
    np.testing.assert_allclose(
        end, IsotonicRegression().fit_transform(np.arange(y.size), y), atol=1e-9
    )


def _brute_force_ensemble(path, penalty):
    """All models k >= 1 (last at each distinct lambda), BIC weights, dense sum."""
    lam = path.event_lambda
    ks = [
        k
        for k in range(1, path.n_events + 1)
        if k == path.n_events or lam[k + 1] > lam[k] * (1 + 1e-9) + 1e-12
    ]
    if not ks:
        ks = [0]
    crit = []
    fits = []
    y_start = np.repeat(path.mean[path.birth == 0], (path.stop - path.start)[path.birth == 0])
    w_start = np.repeat(
        path.weight[path.birth == 0] / (path.stop - path.start)[path.birth == 0],
        (path.stop - path.start)[path.birth == 0],
    )
    for k in ks:
        f = path.fitted(lam[k])
        ll = np.sum(w_start * (xlogy(y_start, f) + xlogy(1 - y_start, 1 - f)))
        # df = number of runs of equal fitted values (Naeini & Cooper's R code)
        crit.append(-2 * ll + penalty * (1 + np.count_nonzero(np.abs(np.diff(f)) > 1e-12)))
        fits.append(f)
    crit = np.array(crit)
    wts = np.exp(-(crit - crit.min()) / 2)
    wts /= wts.sum()
    return wts @ np.array(fits)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_ensemble_equals_dense_sum_over_all_models(seed):
    rng = np.random.default_rng(seed)
    s = np.sort(rng.uniform(size=300))
    y = (rng.uniform(size=300) < 0.2 + 0.6 * s).astype(float)
    path = near_isotonic_path(y)
    models, _, weights = ensemble_weights(path, np.log(300))
    np.testing.assert_allclose(
        ensemble_fit(path, models, weights), _brute_force_ensemble(path, np.log(300)), atol=1e-12
    )


def test_calibrator_matches_hand_built_ensemble_and_interpolates():
    rng = np.random.default_rng(5)
    s = rng.uniform(size=400)
    y = (rng.uniform(size=400) < s).astype(int)
    cal = ENIRCalibrator().fit(s, y)
    order = np.argsort(s)
    expected = _brute_force_ensemble(near_isotonic_path(y[order].astype(float)), np.log(400))
    np.testing.assert_allclose(cal.predict_proba(s[order])[:, 1], expected, atol=1e-12)
    # linear between neighbouring thresholds, constant outside
    a, b = cal.thresholds_[10], cal.thresholds_[11]
    pa, pb = cal.fitted_values_[10], cal.fitted_values_[11]
    mid = cal.predict_proba([0.25 * a + 0.75 * b])[0, 1]
    assert mid == pytest.approx(0.25 * pa + 0.75 * pb)
    assert cal.predict_proba([0.0])[0, 1] == pytest.approx(cal.fitted_values_[0])
    assert cal.predict_proba([1.0])[0, 1] == pytest.approx(cal.fitted_values_[-1])
    assert cal.model_weights_.sum() == pytest.approx(1.0)
    assert 1 <= cal.model_weights_.size <= cal.n_models_ <= 400
    assert cal.lambdas_.shape == cal.model_weights_.shape == cal.criterion_values_.shape


def test_ties_are_pooled_and_fractional_targets_equal_weighted_labels():
    rng = np.random.default_rng(6)
    s = np.round(rng.uniform(size=300), 2)  # many tied scores
    t = rng.uniform(size=300)  # fractional targets (as DGG makes)
    w = rng.uniform(0.5, 2.0, size=300)
    frac = ENIRCalibrator().fit(s, t, sample_weight=w)
    # each fractional row = a positive with weight w t plus a negative with weight w (1 - t)
    s2 = np.concatenate([s, s])
    y2 = np.concatenate([np.ones(300), np.zeros(300)])
    w2 = np.concatenate([w * t, w * (1 - t)])
    split = ENIRCalibrator().fit(s2, y2, sample_weight=w2)
    grid = np.linspace(0, 1, 101)
    np.testing.assert_allclose(frac.predict_proba(grid), split.predict_proba(grid), atol=1e-10)


def test_integer_weights_equal_repetition():
    rng = np.random.default_rng(7)
    s = rng.uniform(size=150)
    y = (rng.uniform(size=150) < s).astype(int)
    reps = rng.integers(1, 4, size=150)
    a = ENIRCalibrator().fit(s, y, sample_weight=reps)
    b = ENIRCalibrator().fit(np.repeat(s, reps), np.repeat(y, reps))
    grid = np.linspace(0, 1, 57)
    np.testing.assert_allclose(a.predict_proba(grid), b.predict_proba(grid), atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1)), min_size=2, max_size=60),
    st.sampled_from(["bic", "aic"]),
)
def test_outputs_are_probabilities(rows, criterion):
    s = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    if np.unique(y).size < 2:
        y[0] = 1 - y[0]
    proba = ENIRCalibrator(criterion=criterion).fit(s, y).predict_proba(np.linspace(-0.0, 1, 33))
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize(
    ("truth", "monotone"),
    [(lambda s: s**2, True), (lambda s: 0.5 + 0.35 * np.sin(2 * np.pi * s), False)],
)
def test_error_to_true_map_against_isotonic(truth, monotone):
    # monotone truth: ENIR's BIC weight sits near the isotonic end, so it is as
    # good as isotonic; a non-monotone truth is what ENIR exists for.
    rng = np.random.default_rng(8)
    grid = np.linspace(0.01, 0.99, 99)
    errs_enir, errs_iso = [], []
    for _ in range(5):
        s = rng.uniform(size=2000)
        y = (rng.uniform(size=2000) < truth(s)).astype(int)
        p_enir = ENIRCalibrator().fit(s, y).predict_proba(grid)[:, 1]
        p_iso = IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(grid)
        errs_enir.append(np.sqrt(np.mean((p_enir - truth(grid)) ** 2)))
        errs_iso.append(np.sqrt(np.mean((p_iso - truth(grid)) ** 2)))
    if monotone:
        assert np.mean(errs_enir) < 0.045
        assert np.mean(errs_enir) < 1.05 * np.mean(errs_iso)
    else:
        assert np.mean(errs_enir) < 0.6 * np.mean(errs_iso)


def test_single_unique_score_gives_the_mean():
    cal = ENIRCalibrator().fit(np.full(10, 0.3), [0, 1] * 5)
    np.testing.assert_allclose(cal.predict_proba([0.1, 0.9])[:, 1], 0.5)


@pytest.mark.parametrize(
    ("kwargs", "scores", "y", "error", "match"),
    [
        ({"criterion": "mdl"}, [0.1, 0.9], [0, 1], ValueError, "criterion"),
        ({}, [0.1, np.nan], [0, 1], ValueError, "scores"),
        ({}, [0.1, 1.5], [0, 1], ValueError, "scores"),
        ({}, [0.1, 0.9], [1, 1], ValueError, "single class"),
        ({}, [0.1, 0.9, 0.5], [0, 1], ValueError, "inconsistent"),
        ({}, [0.1, 0.9], [0, 2], ValueError, "y"),
        ({}, [[0.1, 0.2], [0.3, 0.4]], [0, 1], ValueError, "sum to 1"),
    ],
)
def test_bad_input(kwargs, scores, y, error, match):
    with pytest.raises(error, match=match):
        ENIRCalibrator(**kwargs).fit(scores, y)


def test_predict_before_fit_and_bad_lambda():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        ENIRCalibrator().predict_proba([0.5])
    with pytest.raises(ValueError, match="lam"):
        near_isotonic_path([0.0, 1.0]).fitted(-1.0)
    with pytest.raises(ValueError, match="sample_weight"):
        near_isotonic_path([0.0, 1.0], [1.0, 0.0])


@pytest.mark.parametrize("weighted", [False, True])
def test_pooling_by_one_sort_equals_pooling_by_unique(weighted):
    # fast path (one unstable sort, runs of equal scores) == previous pooling
    # (stable sort + np.unique): same thresholds, same fitted map
    rng = np.random.default_rng(8)
    s = np.round(rng.uniform(size=3000), 3)  # many ties
    y = rng.binomial(1, 0.5 + 0.35 * np.sin(2 * np.pi * s)).astype(float)
    w = rng.uniform(0.5, 2.0, size=s.size) if weighted else np.ones(s.size)
    cal = ENIRCalibrator().fit(s, y, sample_weight=w if weighted else None)
    order = np.argsort(s, kind="stable")
    thresholds, first = np.unique(s[order], return_index=True)
    pooled_w = np.add.reduceat(w[order], first)
    pooled_t = np.add.reduceat((w * y)[order], first) / pooled_w
    np.testing.assert_array_equal(cal.thresholds_, thresholds)
    ref = ENIRCalibrator().fit(thresholds, pooled_t, sample_weight=pooled_w)
    np.testing.assert_allclose(cal.fitted_values_, ref.fitted_values_, rtol=1e-10, atol=1e-12)


def test_interpolation_knots_give_the_same_map_as_every_threshold():
    rng = np.random.default_rng(9)
    s = rng.uniform(size=4000)
    y = rng.binomial(1, s**2)
    cal = ENIRCalibrator().fit(s, y)
    assert cal.knots_[0].size < cal.thresholds_.size  # runs were shortened
    grid = np.concatenate([np.linspace(-0.1, 1.1, 3001), cal.thresholds_, s])
    np.testing.assert_array_equal(
        np.interp(grid, *cal.knots_), np.interp(grid, cal.thresholds_, cal.fitted_values_)
    )
