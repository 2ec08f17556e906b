"""Tests of HistogramBinningCalibrator: hand-computed table, empty bins, invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bayescal.calibration import HistogramBinningCalibrator

# Hand-computed table, 4 uniform bins (0, .25], (.25, .5], (.5, .75], (.75, 1]:
#   bin 1: 0.0, 0.1, 0.25 -> labels 0, 1, 0      -> 1/3
#   bin 2: 0.3, 0.5       -> labels 1, 1         -> 1
#   bin 3: (none)                                -> empty
#   bin 4: 0.8, 0.9, 1.0  -> labels 0, 1, 0      -> 1/3
# Overall positive fraction (the "prior" rule): 4/8.
SCORES = np.array([0.0, 0.1, 0.25, 0.3, 0.5, 0.8, 0.9, 1.0])
LABELS = np.array([0, 1, 0, 1, 1, 0, 1, 0])


@pytest.mark.parametrize(
    ("empty_bin", "third"),
    [("interpolate", (1 + 1 / 3) / 2), ("prior", 0.5), ("center", 0.625), (0.4, 0.4)],
)
def test_hand_computed_table(empty_bin, third):
    cal = HistogramBinningCalibrator(n_bins=4, empty_bin=empty_bin).fit(SCORES, LABELS)
    np.testing.assert_allclose(cal.bin_edges_, [0, 0.25, 0.5, 0.75, 1])
    np.testing.assert_allclose(cal.bin_weights_, [3, 2, 0, 3])
    np.testing.assert_allclose(cal.bin_values_, [1 / 3, 1, third, 1 / 3])
    np.testing.assert_array_equal(cal.empty_bins_, [False, False, True, False])
    got = cal.predict_proba([0.0, 0.25, 0.2500001, 0.6, 0.75, 0.76, 1.0])[:, 1]
    np.testing.assert_allclose(got, [1 / 3, 1 / 3, 1, third, third, 1 / 3, 1 / 3])


def test_weighted_and_fractional_positive_fraction():
    # bin 1 holds (t=1, w=3), (t=0.5, w=1): (3 + 0.5) / 4; bin 2 holds (t=0, w=2), (t=1, w=2).
    cal = HistogramBinningCalibrator(n_bins=2).fit(
        [0.1, 0.2, 0.7, 0.9], [1.0, 0.5, 0.0, 1.0], sample_weight=[3, 1, 2, 2]
    )
    np.testing.assert_allclose(cal.bin_values_, [3.5 / 4, 0.5])


def test_quantile_bins_follow_the_metrics_binning():
    rng = np.random.default_rng(0)
    s = rng.beta(2, 5, size=1000)
    y = (rng.uniform(size=1000) < s).astype(int)
    cal = HistogramBinningCalibrator(n_bins=5, strategy="quantile").fit(s, y)
    np.testing.assert_allclose(cal.bin_edges_[1:-1], np.quantile(s, [0.2, 0.4, 0.6, 0.8]))
    np.testing.assert_allclose(cal.bin_weights_, 200)


@settings(max_examples=50, deadline=None)
@given(
    arrays(np.float64, 40, elements=st.floats(0.0, 1.0)),
    st.floats(0.05, 0.95),
    st.integers(1, 15),
    st.sampled_from(["uniform", "quantile"]),
)
def test_monotone_targets_give_a_monotone_map(scores, threshold, n_bins, strategy):
    # Targets non-decreasing in the score -> bin fractions (and interpolated
    # empty bins) are non-decreasing, and every value is a probability.
    targets = (scores > threshold).astype(float)
    targets[:2] = [0.0, 1.0]
    scores[:2] = [min(threshold, scores[0]), max(threshold + 0.01, scores[1])]
    cal = HistogramBinningCalibrator(n_bins=n_bins, strategy=strategy).fit(scores, targets)
    p = cal.calibration_map(np.linspace(0, 1, 301))
    assert np.all((p >= 0) & (p <= 1))
    assert np.all(np.diff(p) >= -1e-12)


BAD = [
    (dict(), [0.1, 0.2, 0.3], [1, 1, 1], ValueError, "single class"),
    (dict(), [0.1, np.nan, 0.3], [0, 1, 1], ValueError, "NaN"),
    (dict(), [0.1, 0.2, 1.3], [0, 1, 1], ValueError, "<= 1"),
    (dict(n_bins=0), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "n_bins"),
    (dict(n_bins=2.5), [0.1, 0.2, 0.3], [0, 1, 1], TypeError, "n_bins"),
    (dict(strategy="kmeans"), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "strategy"),
    (dict(empty_bin="zero"), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "empty_bin"),
    (dict(empty_bin=1.5), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "empty_bin"),
]


@pytest.mark.parametrize(("params", "scores", "y", "error", "match"), BAD)
def test_bad_input(params, scores, y, error, match):
    with pytest.raises(error, match=match):
        HistogramBinningCalibrator(**params).fit(scores, y)
