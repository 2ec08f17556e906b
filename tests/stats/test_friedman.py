"""Friedman test against scipy.stats.friedmanchisquare and the Iman-Davenport formula."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayescal.stats.friedman import friedman_test


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("ties", [False, True])
def test_matches_scipy(seed, ties):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(12, 5)) + np.linspace(0, 0.8, 5)
    if ties:
        scores = np.round(scores, 0)  # many tied scores within a dataset
    result = friedman_test(scores)
    expected = stats.friedmanchisquare(*scores.T)
    assert result.statistic == pytest.approx(expected.statistic, abs=1e-10, rel=1e-10)
    assert result.p_value == pytest.approx(expected.pvalue, abs=1e-10, rel=1e-10)


def test_iman_davenport_closed_form():
    # Demšar (2006), Section 3.2.2 worked example: N = 14, k = 4, chi2_F = 9.28
    # gives F_F = 3.69 on (3, 39) degrees of freedom.
    n, k, chi2 = 14, 4, 9.28
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert round(f, 2) == 3.69
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(14, 4)) + [0, 0.3, 0.6, 0.9]
    result = friedman_test(scores)
    expected_f = (n - 1) * result.statistic / (n * (k - 1) - result.statistic)
    assert result.f_statistic == pytest.approx(expected_f, rel=1e-12)
    assert result.f_p_value == pytest.approx(stats.f.sf(expected_f, 3, 39), rel=1e-12)


def test_mean_ranks_follow_direction_statistic_does_not():
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(8, 3))
    low = friedman_test(scores, lower_is_better=True)
    high = friedman_test(scores, lower_is_better=False)
    assert low.statistic == pytest.approx(high.statistic)
    np.testing.assert_allclose(low.mean_ranks + high.mean_ranks, 4.0)


def test_identical_rankings_give_infinite_f():
    scores = np.tile([0.1, 0.2, 0.3], (6, 1))
    result = friedman_test(scores)
    assert result.statistic == pytest.approx(12.0)  # N (k - 1)
    assert result.f_statistic == np.inf and result.f_p_value == 0.0


@pytest.mark.parametrize(
    ("scores", "match"),
    [
        ([[0.1, 0.2, 0.3]], "at least 2"),
        ([[0.1, 0.1], [0.2, 0.2]], "ties every method"),
        ([[0.1, 0.2], [np.nan, 0.2]], "NaN"),
    ],
)
def test_bad_input(scores, match):
    with pytest.raises(ValueError, match=match):
        friedman_test(scores)
