"""Tests of IsotonicCalibrator: scikit-learn oracle, ties, bounds, invariants, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.isotonic import IsotonicRegression

from bayescal.calibration import IsotonicCalibrator

GRID = np.linspace(0.0, 1.0, 401)


def _data(seed=0, n=2000, decimals=None):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.05, 0.95, size=n)
    if decimals is not None:
        s = np.round(s, decimals)  # many ties
    y = (rng.uniform(size=n) < s**2).astype(float)
    w = rng.uniform(0.0, 2.0, size=n)
    w[:20] = 0.0
    return s, y, w


@pytest.mark.parametrize("increasing", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("decimals", [None, 2])
def test_matches_sklearn_isotonic_regression(increasing, weighted, decimals):
    s, y, w = _data(decimals=decimals)
    sw = w if weighted else None
    cal = IsotonicCalibrator(increasing=increasing).fit(s, y, sample_weight=sw)
    ref = IsotonicRegression(out_of_bounds="clip", increasing=increasing).fit(
        s, y, sample_weight=sw
    )
    np.testing.assert_allclose(cal.predict_proba(GRID)[:, 1], ref.predict(GRID), atol=1e-6)


def test_fractional_targets_match_sklearn():
    rng = np.random.default_rng(5)
    s = rng.uniform(size=500)
    t = np.clip(s + rng.normal(scale=0.3, size=500), 0, 1)
    cal = IsotonicCalibrator().fit(s, t)
    ref = IsotonicRegression(out_of_bounds="clip").fit(s, t)
    np.testing.assert_allclose(cal.predict_proba(GRID)[:, 1], ref.predict(GRID), atol=1e-6)


def test_hand_worked_pav_with_ties():
    # Scores 0.2 (tied, targets 1 and 0 -> pooled 0.5), 0.4 -> 0, 0.6 -> 1.
    # PAV pools (0.2: 0.5 weight 2) with (0.4: 0 weight 1) -> 1/3 on both.
    cal = IsotonicCalibrator().fit([0.2, 0.2, 0.4, 0.6], [1, 0, 0, 1])
    np.testing.assert_allclose(cal.thresholds_, [0.2, 0.4, 0.6])
    np.testing.assert_allclose(cal.values_, [1 / 3, 1 / 3, 1.0])
    np.testing.assert_allclose(
        cal.predict_proba([0.0, 0.3, 0.5, 1.0])[:, 1], [1 / 3, 1 / 3, 2 / 3, 1]
    )


def test_step_interpolation_and_out_of_bounds():
    cal = IsotonicCalibrator(interpolation="step").fit([0.2, 0.4, 0.6, 0.8], [0, 0.5, 0.5, 1])
    np.testing.assert_allclose(
        cal.predict_proba([0.1, 0.2, 0.3, 0.59, 0.6, 0.9])[:, 1], [0, 0, 0, 0.5, 0.5, 1]
    )
    strict = IsotonicCalibrator(out_of_bounds="raise").fit([0.2, 0.4, 0.6], [0, 1, 1])
    with pytest.raises(ValueError, match="calibration range"):
        strict.predict_proba([0.1])
    assert strict.predict_proba([0.3])[0, 1] == pytest.approx(0.5)


@settings(max_examples=50, deadline=None)
@given(
    arrays(np.float64, 25, elements=st.floats(0.0, 1.0)),
    arrays(np.float64, 25, elements=st.floats(0.0, 1.0)),
    st.sampled_from(["linear", "step"]),
)
def test_map_is_monotone_and_in_unit_interval(scores, targets, interpolation):
    targets[:2] = [0.0, 1.0]
    cal = IsotonicCalibrator(interpolation=interpolation).fit(scores, targets)
    p = cal.calibration_map(GRID)
    assert np.all((p >= 0) & (p <= 1))
    assert np.all(np.diff(p) >= -1e-12)


BAD = [
    (dict(), [0.1, 0.2, 0.3], [0, 0, 0], "single class"),
    (dict(), [0.1, np.inf, 0.3], [0, 1, 1], "inf"),
    (dict(), [-0.1, 0.2, 0.3], [0, 1, 1], ">= 0"),
    (dict(), [0.1, 0.2, 0.3], [0, 1], "inconsistent"),
    (dict(out_of_bounds="nan"), [0.1, 0.2, 0.3], [0, 1, 1], "out_of_bounds"),
    (dict(interpolation="cubic"), [0.1, 0.2, 0.3], [0, 1, 1], "interpolation"),
    (dict(increasing="auto"), [0.1, 0.2, 0.3], [0, 1, 1], "increasing"),
]


@pytest.mark.parametrize(("params", "scores", "y", "match"), BAD)
def test_bad_input(params, scores, y, match):
    with pytest.raises(ValueError, match=match):
        IsotonicCalibrator(**params).fit(scores, y)


def test_all_zero_weights_rejected():
    with pytest.raises(ValueError, match="sample_weight"):
        IsotonicCalibrator().fit([0.1, 0.2], [0, 1], sample_weight=[0, 0])
