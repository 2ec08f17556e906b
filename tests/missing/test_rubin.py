"""Tests of Rubin's rules and the total classification uncertainty."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from bayescal.missing import pool_rubin, total_uncertainty


def test_pool_rubin_textbook_numbers():
    q = np.array([[1.0, 2.0], [1.2, 2.5], [0.8, 1.5]])
    u = np.array([[0.04, 0.10], [0.05, 0.12], [0.03, 0.08]])
    pooled = pool_rubin(q, u)
    m = 3
    for j in range(2):
        q_bar = sum(q[:, j]) / m
        u_bar = sum(u[:, j]) / m
        b = sum((q[i, j] - q_bar) ** 2 for i in range(m)) / (m - 1)
        assert pooled.estimate[j] == pytest.approx(q_bar)
        assert pooled.within[j] == pytest.approx(u_bar)
        assert pooled.between[j] == pytest.approx(b)
        assert pooled.total[j] == pytest.approx(u_bar + (1 + 1 / m) * b)
        assert pooled.dof[j] == pytest.approx((m - 1) * (1 + u_bar / ((1 + 1 / m) * b)) ** 2)


def test_identical_imputations_give_within_variance_only():
    pooled = pool_rubin([2.0, 2.0, 2.0], [0.5, 0.5, 0.5])
    assert pooled.between == 0.0
    assert pooled.total == pytest.approx(0.5)
    assert np.isinf(pooled.dof)


def _impute_normal_mean(y_obs, n_mis, rng):
    """One proper Bayesian imputation of a normal sample's missing values."""
    n_obs = y_obs.size
    sigma2 = (n_obs - 1) * y_obs.var(ddof=1) / rng.chisquare(n_obs - 1)
    mu = rng.normal(y_obs.mean(), np.sqrt(sigma2 / n_obs))
    return rng.normal(mu, np.sqrt(sigma2), n_mis)


def test_rubin_intervals_cover_nominally_and_single_imputation_does_not():
    """The pooled variance of a mean under proper MI gives ~95 % coverage."""
    rng = np.random.default_rng(0)
    n, m, reps, truth = 40, 10, 400, 1.0
    covered_mi = covered_single = 0
    for _ in range(reps):
        y = rng.normal(truth, 1.0, n)
        missing = rng.random(n) < 0.5
        y_obs = y[~missing]
        estimates, variances = [], []
        for _ in range(m):
            y_l = y.copy()
            y_l[missing] = _impute_normal_mean(y_obs, missing.sum(), rng)
            estimates.append(y_l.mean())
            variances.append(y_l.var(ddof=1) / n)
        pooled = pool_rubin(estimates, variances)
        half = stats.t.ppf(0.975, pooled.dof) * pooled.standard_error
        covered_mi += abs(pooled.estimate - truth) <= half
        # single imputation: treat the first imputed set as complete data
        half_single = stats.t.ppf(0.975, n - 1) * np.sqrt(variances[0])
        covered_single += abs(estimates[0] - truth) <= half_single
    assert 0.92 <= covered_mi / reps <= 0.985
    assert covered_single / reps < 0.90


def test_total_uncertainty_hand_example():
    # m = 3 imputations, one sample, K = 2
    p = np.array([[[0.9, 0.1]], [[0.8, 0.2]], [[0.3, 0.7]]])
    result = total_uncertainty(p, scaled=False)
    # Eq. 9 for K=2: 1 - (max p - 1/2) / (1/2)
    u = [1 - (0.9 - 0.5) / 0.5, 1 - (0.8 - 0.5) / 0.5, 1 - (0.7 - 0.5) / 0.5]
    within = np.mean(u)
    between = 1 / 2  # one of three predictions differs from the vote (class 0)
    assert result["prediction"][0] == 0
    assert result["within"][0] == pytest.approx(within)
    assert result["between"][0] == pytest.approx(between)
    assert result["total"][0] == pytest.approx(within + (1 + 1 / 3) * between)
    scaled = total_uncertainty(p)["total"][0]
    assert scaled == pytest.approx((within + 4 / 3 * between) * 3 / 7)


def test_total_uncertainty_reaches_its_maximum():
    m = 3
    # every imputation predicts a different class with uniform-ish probabilities
    eps = 1e-9
    layers = []
    for k in range(3):
        row = np.full(3, (1 - eps) / 3)
        row[k] += eps
        row /= row.sum()
        layers.append(row[None])
    result = total_uncertainty(np.stack(layers), scaled=False)
    assert result["total"][0] == pytest.approx((2 * m + 1) / m, abs=1e-6)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 8), st.integers(1, 20), st.integers(2, 5), st.integers(0, 2**16))
def test_total_uncertainty_range(m, n, k, seed):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k) * 0.5, size=(m, n))
    raw = total_uncertainty(p, scaled=False)["total"]
    assert np.all(raw >= -1e-12) and np.all(raw <= (2 * m + 1) / m + 1e-12)
    scaled = total_uncertainty(p)["total"]
    assert np.all(scaled >= -1e-12) and np.all(scaled <= 1 + 1e-12)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"estimates": [1.0], "variances": [1.0]}, "at least 2"),
        ({"estimates": [1.0, 2.0], "variances": [1.0]}, "shape"),
        ({"estimates": [1.0, np.nan], "variances": [1.0, 1.0]}, "NaN"),
        ({"estimates": [1.0, 2.0], "variances": [1.0, -1.0]}, "non-negative"),
    ],
)
def test_pool_rubin_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pool_rubin(**kwargs)


def test_total_uncertainty_bad_input():
    with pytest.raises(ValueError, match=r"shape \(m, n, K\)"):
        total_uncertainty(np.ones((3, 2)))
    with pytest.raises(ValueError, match="must be >= 2"):
        total_uncertainty(np.full((1, 2, 2), 0.5))
    with pytest.raises(ValueError, match="sum to 1"):
        total_uncertainty(np.full((2, 2, 2), 0.7))
