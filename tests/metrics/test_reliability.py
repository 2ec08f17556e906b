"""Reliability curve: agreement with ECE, Wilson intervals, empty bins."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.metrics import expected_calibration_error, reliability_curve, wilson_interval


def test_curve_numbers_by_hand():
    y = np.array([0, 1, 0, 1, 1])
    p = np.array([0.1, 0.15, 0.3, 0.9, 0.95])
    curve = reliability_curve(y, p, n_bins=4, confidence=0.9)
    assert curve.count.tolist() == [2, 1, 0, 2]
    np.testing.assert_allclose(curve.mean_score[[0, 1, 3]], [0.125, 0.3, 0.925])
    np.testing.assert_allclose(curve.observed_rate[[0, 1, 3]], [0.5, 0.0, 1.0])
    lo, hi = wilson_interval(1, 2, 0.9)
    assert (curve.ci_lower[0], curve.ci_upper[0]) == pytest.approx((lo, hi))
    # the empty bin is reported, not dropped
    assert curve.n_bins == 4
    assert curve.nonempty.tolist() == [True, True, False, True]
    assert np.isnan([curve.mean_score[2], curve.observed_rate[2], curve.ci_lower[2]]).all()
    np.testing.assert_allclose(curve.bin_lower, [0, 0.25, 0.5, 0.75])
    np.testing.assert_allclose(curve.bin_upper, [0.25, 0.5, 0.75, 1.0])


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("kind", ["binary", "top_label"])
def test_weighted_gap_equals_ece(strategy, kind):
    rng = np.random.default_rng(2)
    P = rng.dirichlet([1, 1], size=500)
    y = rng.integers(0, 2, size=500)
    curve = reliability_curve(y, P, 8, strategy, kind=kind)
    ne = curve.nonempty
    gap = np.sum(curve.count[ne] * np.abs(curve.observed_rate[ne] - curve.mean_score[ne]))
    assert gap / 500 == pytest.approx(expected_calibration_error(y, P, 8, strategy, kind))
    assert curve.count.sum() == 500


def test_intervals_cover_rates_and_frame():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=400)
    y = rng.binomial(1, p)
    curve = reliability_curve(y, p, 10, "quantile", 0.95)
    ne = curve.nonempty
    assert np.all(curve.ci_lower[ne] <= curve.observed_rate[ne])
    assert np.all(curve.observed_rate[ne] <= curve.ci_upper[ne])
    frame = curve.to_frame()
    assert list(frame.columns) == [
        "bin_lower",
        "bin_upper",
        "count",
        "mean_score",
        "observed_rate",
        "ci_lower",
        "ci_upper",
    ]
    assert len(frame) == 10


def test_top_label_on_multiclass():
    P = np.array([[0.7, 0.2, 0.1], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    curve = reliability_curve([0, 1, 2], P, 2, kind="top_label")
    assert curve.count.tolist() == [1, 2]
    assert curve.observed_rate.tolist() == [0.0, 1.0]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"kind": "classwise"}, ValueError, "`kind`"),
        ({"confidence": 1.5}, ValueError, "`confidence`"),
        ({"n_bins": 0}, ValueError, "`n_bins`"),
        ({"strategy": "kmeans"}, ValueError, "`strategy`"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        reliability_curve([0, 1], [0.2, 0.8], **kwargs)
