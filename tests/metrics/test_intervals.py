"""Wilson score interval: the seed's worked examples and coverage."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from bayescal.metrics import wilson_interval
from bayescal.metrics.intervals import normal_quantile


@pytest.mark.parametrize(
    ("successes", "n", "expected"),
    [(750, 1000, (0.732, 0.767)), (75, 100, (0.691, 0.801))],
)
def test_seed_001_examples(successes, n, expected):
    lo, hi = wilson_interval(successes, n, confidence=0.8)
    assert (round(lo, 3), round(hi, 3)) == expected


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.95, 0.99])
@pytest.mark.parametrize(("k", "n"), [(0, 7), (3, 7), (7, 7), (40, 130)])
def test_matches_scipy_wilson(k, n, confidence):
    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    lo, hi = wilson_interval(k, n, confidence)
    assert lo == pytest.approx(ci.low, abs=1e-12)
    assert hi == pytest.approx(ci.high, abs=1e-12)


def test_vectorised_and_edges():
    lo, hi = wilson_interval(np.array([0, 5, 10]), 10, 0.95)
    assert lo.shape == (3,)
    assert lo[0] == 0.0 and hi[2] == 1.0
    assert np.all(lo <= np.array([0, 0.5, 1.0])) and np.all(hi >= np.array([0, 0.5, 1.0]))


def test_normal_quantile():
    assert normal_quantile(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert normal_quantile(0.8) == pytest.approx(1.281552, abs=1e-6)


def test_coverage_close_to_nominal():
    rng = np.random.default_rng(0)
    n, p = 60, 0.3
    k = rng.binomial(n, p, size=4000)
    lo, hi = wilson_interval(k, n, 0.9)
    coverage = np.mean((lo <= p) & (p <= hi))
    assert 0.86 <= coverage <= 0.94


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10_000), st.floats(0.0, 1.0), st.floats(0.01, 0.999))
def test_interval_contains_rate_and_is_ordered(n, frac, confidence):
    k = int(round(frac * n))
    lo, hi = wilson_interval(k, n, confidence)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


@pytest.mark.parametrize(
    ("successes", "n", "confidence", "match"),
    [
        (5, 0, 0.9, "`n` must be > 0"),
        (-1, 10, 0.9, "`successes` must lie in"),
        (11, 10, 0.9, "`successes` must lie in"),
        (np.nan, 10, 0.9, "`successes` contains NaN"),
        (5, np.inf, 0.9, "`n` contains NaN or inf"),
        (5, 10, 1.0, "`confidence`"),
        (5, 10, 0.0, "`confidence`"),
        ([1, 2], [3, 4, 5], 0.9, "cannot be broadcast"),
        ([], 3, 0.9, "`successes` is empty"),
    ],
)
def test_bad_input(successes, n, confidence, match):
    with pytest.raises(ValueError, match=match):
        wilson_interval(successes, n, confidence)
