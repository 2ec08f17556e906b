"""Significance tests checked against mlxtend and scipy on the same numbers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from mlxtend.evaluate import combined_ftest_5x2cv as mlxtend_ftest
from mlxtend.evaluate import mcnemar as mlxtend_mcnemar
from mlxtend.evaluate import mcnemar_table as mlxtend_mcnemar_table
from mlxtend.evaluate import paired_ttest_5x2cv as mlxtend_ttest
from mlxtend.evaluate import paired_ttest_kfold_cv as mlxtend_kfold
from scipy import stats
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, train_test_split
from sklearn.tree import DecisionTreeClassifier

from bayescal.stats import (
    combined_ftest_5x2cv,
    corrected_resampled_ttest,
    cv_ttest,
    mcnemar,
    mcnemar_table,
    paired_ttest_5x2cv,
)

TOL = 1e-8


@pytest.fixture(scope="module")
def problem():
    X, y = make_classification(n_samples=160, n_features=6, n_informative=3, random_state=0)
    return X, y, LogisticRegression(max_iter=500), DecisionTreeClassifier(max_depth=2, random_state=0)


def scores_5x2(problem, seed):
    """Per-fold accuracies exactly as mlxtend's 5x2 functions split and score."""
    X, y, est1, est2 = problem
    rng = np.random.RandomState(seed)
    a, b = np.empty((5, 2)), np.empty((5, 2))
    for i in range(5):
        randint = rng.randint(low=0, high=32767)
        X1, X2, y1, y2 = train_test_split(X, y, test_size=0.5, random_state=randint)
        for j, (Xtr, ytr, Xte, yte) in enumerate([(X1, y1, X2, y2), (X2, y2, X1, y1)]):
            a[i, j] = clone(est1).fit(Xtr, ytr).score(Xte, yte)
            b[i, j] = clone(est2).fit(Xtr, ytr).score(Xte, yte)
    return a, b


@pytest.mark.parametrize("seed", [1, 7])
def test_paired_ttest_5x2cv_matches_mlxtend(problem, seed):
    X, y, est1, est2 = problem
    t_ref, p_ref = mlxtend_ttest(est1, est2, X, y, random_seed=seed)
    a, b = scores_5x2(problem, seed)
    r = paired_ttest_5x2cv(a, b)
    assert abs(r.statistic - t_ref) < TOL and abs(r.p_value - p_ref) < TOL
    assert r.dof == 5 and abs(r.mean_difference - np.mean(a - b)) < 1e-15
    same = paired_ttest_5x2cv(a - b)
    assert same == r


@pytest.mark.parametrize("seed", [1, 7])
def test_combined_ftest_5x2cv_matches_mlxtend(problem, seed):
    X, y, est1, est2 = problem
    f_ref, p_ref = mlxtend_ftest(est1, est2, X, y, random_seed=seed)
    a, b = scores_5x2(problem, seed)
    r = combined_ftest_5x2cv(a, b)
    assert abs(r.statistic - f_ref) < TOL and abs(r.p_value - p_ref) < TOL


def test_cv_ttest_matches_mlxtend_kfold_and_scipy(problem):
    X, y, est1, est2 = problem
    t_ref, p_ref = mlxtend_kfold(est1, est2, X, y, cv=8)
    a, b = [], []
    for train, test in KFold(n_splits=8).split(X):
        a.append(clone(est1).fit(X[train], y[train]).score(X[test], y[test]))
        b.append(clone(est2).fit(X[train], y[train]).score(X[test], y[test]))
    r = cv_ttest(a, b)
    assert abs(r.statistic - t_ref) < TOL and abs(r.p_value - p_ref) < TOL
    ref = stats.ttest_rel(a, b)
    assert abs(r.statistic - ref.statistic) < TOL and abs(r.p_value - ref.pvalue) < TOL
    assert r.dof == 7


def test_cv_ttest_batch_matches_scipy_per_row():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 3, 10)), rng.normal(0.3, 1, size=(4, 3, 10))
    r = cv_ttest(a, b)
    ref = stats.ttest_rel(a, b, axis=-1)
    np.testing.assert_allclose(r.statistic, ref.statistic, rtol=0, atol=TOL)
    np.testing.assert_allclose(r.p_value, ref.pvalue, rtol=0, atol=TOL)
    np.testing.assert_allclose(r.mean_difference, (a - b).mean(-1))
    assert r.p_value.shape == (4, 3)


def test_corrected_resampled_ttest_relation_to_cv_ttest():
    d = np.array([0.02, -0.01, 0.03, 0.015, 0.0, 0.025, 0.01, 0.02, -0.005, 0.03])
    k = len(d)
    plain = cv_ttest(d)
    for ratio in (1 / 9, 0.25, 1.0):
        r = corrected_resampled_ttest(d, test_train_ratio=ratio)
        expected_t = plain.statistic * np.sqrt((1 / k) / (1 / k + ratio))
        assert abs(r.statistic - expected_t) < 1e-12
        assert abs(r.p_value - 2 * stats.t.sf(abs(expected_t), k - 1)) < 1e-12
        assert r.p_value > plain.p_value  # the correction is conservative
    tiny = corrected_resampled_ttest(d, test_train_ratio=1e-12)
    assert abs(tiny.statistic - plain.statistic) < 1e-6


@pytest.mark.parametrize(
    "table", [[[101, 121], [59, 33]], [[59, 6], [16, 19]], [[10, 3], [3, 10]], [[5, 0], [9, 1]]]
)
def test_mcnemar_matches_mlxtend_and_binomtest(table):
    table = np.array(table)
    for corrected in (True, False):
        chi2, p = mlxtend_mcnemar(table, corrected=corrected)
        r = mcnemar(table, correction=corrected)
        assert abs(r.statistic - chi2) < TOL and abs(r.p_value - p) < TOL and r.dof == 1
    _, p_exact = mlxtend_mcnemar(table, exact=True)
    r = mcnemar(table, exact=True)
    b, c = table[0, 1], table[1, 0]
    assert abs(r.p_value - p_exact) < TOL
    assert abs(r.p_value - stats.binomtest(int(b), int(b + c), 0.5).pvalue) < TOL
    assert r.statistic == min(b, c) and np.isnan(r.dof)
    assert r.mean_difference == pytest.approx((b - c) / table.sum())


def test_mcnemar_table_matches_mlxtend():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 50)
    pa = np.where(rng.uniform(size=50) < 0.7, y, (y + 1) % 3)
    pb = np.where(rng.uniform(size=50) < 0.6, y, (y + 2) % 3)
    np.testing.assert_array_equal(mcnemar_table(y, pa, pb), mlxtend_mcnemar_table(y, pa, pb))


def test_zero_variance_conventions():
    zero = cv_ttest(np.zeros(5))
    assert zero.statistic == 0.0 and zero.p_value == 1.0
    constant = cv_ttest(np.full(5, -0.1))
    assert constant.statistic == -np.inf and constant.p_value == 0.0
    assert paired_ttest_5x2cv(np.zeros((5, 2))).p_value == 1.0
    assert combined_ftest_5x2cv(np.full((5, 2), 0.1)).statistic == np.inf
    assert mcnemar([[10, 0], [0, 5]]).p_value == 1.0
    assert mcnemar([[10, 0], [0, 5]], exact=True).p_value == 1.0


def test_5x2_t_uses_first_fold_of_first_repetition_only():
    d = np.array([[0.05, 0.0], [0.01, 0.02], [0.0, 0.01], [0.02, 0.01], [0.03, 0.0]])
    s2 = ((d - d.mean(1, keepdims=True)) ** 2).sum(1)
    assert paired_ttest_5x2cv(d).statistic == pytest.approx(0.05 / np.sqrt(s2.mean()), rel=1e-12)
    swapped = d.copy()
    swapped[0] = d[0, ::-1]
    assert paired_ttest_5x2cv(swapped).statistic == 0.0
    assert combined_ftest_5x2cv(swapped).statistic == combined_ftest_5x2cv(d).statistic


# --- invariants --------------------------------------------------------------

finite = st.floats(-1, 1, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(arrays(float, (2, 5, 2), elements=finite))
def test_swapping_models(x):
    a, b = x
    for test, antisymmetric in [
        (paired_ttest_5x2cv, True),
        (combined_ftest_5x2cv, False),
        (cv_ttest, True),
        (lambda u, v: corrected_resampled_ttest(u, v, test_train_ratio=0.2), True),
    ]:
        u, v = (a, b) if test in (paired_ttest_5x2cv, combined_ftest_5x2cv) else (a.ravel(), b.ravel())
        r, s = test(u, v), test(v, u)
        assert 0.0 <= r.p_value <= 1.0
        assert r.p_value == pytest.approx(s.p_value, abs=1e-12)
        expected = -s.statistic if antisymmetric else s.statistic
        if np.isfinite(r.statistic):
            assert r.statistic == pytest.approx(expected, abs=1e-9)
        else:
            assert r.statistic == expected
        assert r.mean_difference == pytest.approx(-s.mean_difference, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(arrays(np.int64, (2, 2), elements=st.integers(0, 60)), st.booleans(), st.booleans())
def test_mcnemar_p_in_unit_interval_and_symmetric(table, exact, correction):
    r = mcnemar(table, exact=exact, correction=correction)
    s = mcnemar(table.T, exact=exact, correction=correction)
    assert 0.0 <= r.p_value <= 1.0
    assert r.p_value == pytest.approx(s.p_value, abs=1e-12)
    assert r.statistic == pytest.approx(s.statistic)
    assert r.mean_difference == pytest.approx(-s.mean_difference)


# --- bad input ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: cv_ttest([0.1]), ValueError, "at least 2 folds"),
        (lambda: cv_ttest(0.1), ValueError, "at least 2 folds"),
        (lambda: cv_ttest([0.1, np.nan, 0.2]), ValueError, "NaN"),
        (lambda: cv_ttest([0.1, 0.2], [0.1, 0.2, 0.3]), ValueError, "same shape"),
        (lambda: cv_ttest(["a", "b"]), TypeError, "`a` must hold numbers"),
        (lambda: corrected_resampled_ttest([0.1, 0.2], test_train_ratio=0), ValueError,
         "test_train_ratio"),
        (lambda: corrected_resampled_ttest([0.1, 0.2], test_train_ratio="1/9"), TypeError,
         "test_train_ratio"),
        (lambda: corrected_resampled_ttest([0.1, 0.2]), TypeError, "test_train_ratio"),
        (lambda: paired_ttest_5x2cv(np.zeros(10)), ValueError, r"\(\.\.\., 5, 2\)"),
        (lambda: combined_ftest_5x2cv(np.zeros((2, 5))), ValueError, r"\(\.\.\., 5, 2\)"),
        (lambda: paired_ttest_5x2cv(np.zeros((5, 2)), np.zeros((5, 3))), ValueError, "same shape"),
        (lambda: mcnemar([[1, 2, 3]]), ValueError, "2x2"),
        (lambda: mcnemar([[1, -2], [3, 4]]), ValueError, "non-negative whole"),
        (lambda: mcnemar([[1, 2.5], [3, 4]]), ValueError, "non-negative whole"),
        (lambda: mcnemar_table([0, 1], [0, 1], [0]), ValueError, "inconsistent"),
        (lambda: mcnemar_table([], [], []), ValueError, "non-empty"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
