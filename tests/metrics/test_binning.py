"""The shared binning helper."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.metrics import bin_edges, bin_statistics
from bayescal.metrics.binning import assign_bins


def test_uniform_bins_are_right_closed():
    edges = bin_edges(np.array([0.5]), 4, "uniform")
    np.testing.assert_allclose(edges, [0, 0.25, 0.5, 0.75, 1.0])
    idx = assign_bins(np.array([0.0, 0.1, 0.25, 0.2500001, 0.5, 0.99, 1.0]), edges)
    assert idx.tolist() == [0, 0, 0, 1, 1, 3, 3]


def test_quantile_bins_hold_equal_counts():
    s = np.random.default_rng(0).beta(0.5, 3.0, size=1000)
    stats = bin_statistics(s, np.zeros_like(s), 5, "quantile")
    assert stats.edges[0] == 0.0 and stats.edges[-1] == 1.0
    assert stats.count.tolist() == [200] * 5


def test_ties_leave_empty_bins_reported():
    s = np.array([0.2] * 8 + [0.9, 0.95])
    stats = bin_statistics(s, np.ones_like(s), 5, "quantile")
    assert stats.count.sum() == 10
    assert (stats.count == 0).any()
    assert np.isnan(stats.mean_score[stats.count == 0]).all()


def test_statistics_by_hand():
    s = np.array([0.05, 0.15, 0.15, 0.95])
    o = np.array([0, 1, 0, 1])
    stats = bin_statistics(s, o, 10)
    assert stats.count.tolist() == [1, 2, 0, 0, 0, 0, 0, 0, 0, 1]
    assert stats.mean_score[1] == pytest.approx(0.15)
    assert stats.observed_rate[1] == pytest.approx(0.5)
    assert stats.positives.tolist() == [0, 1, 0, 0, 0, 0, 0, 0, 0, 1]
    # ECE: (1*0.05 + 2*0.35 + 0 + 1*0.05) / 4
    assert stats.expected_gap() == pytest.approx(0.8 / 4)
    assert stats.maximum_gap() == pytest.approx(0.35)


@pytest.mark.parametrize(
    ("n_bins", "strategy", "error", "match"),
    [
        (0, "uniform", ValueError, "`n_bins`"),
        (2.5, "uniform", TypeError, "`n_bins`"),
        (5, "equal", ValueError, "`strategy`"),
    ],
)
def test_bad_parameters(n_bins, strategy, error, match):
    with pytest.raises(error, match=match):
        bin_edges(np.array([0.5]), n_bins, strategy)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_nan_scores_are_rejected_not_binned(strategy):
    # Issue 11, defect 6: NaN used to land in bin 0 silently.
    s = np.array([0.1, np.nan, 0.7])
    with pytest.raises(ValueError, match="`scores` contains NaN"):
        bin_edges(s, 3, strategy)
    with pytest.raises(ValueError, match="`scores` contains NaN"):
        bin_statistics(s, np.array([0, 1, 1]), 3, strategy)
    with pytest.raises(ValueError, match="`outcomes` contains NaN"):
        bin_statistics(np.array([0.1, 0.2, 0.7]), np.array([0.0, np.nan, 1.0]), 3, strategy)


def test_span_bins_decision_values_over_their_range():
    d = np.array([-3.0, -1.0, 0.5, 2.0])
    edges = bin_edges(d, 2, "uniform", span=(-3.0, 2.0))
    np.testing.assert_allclose(edges, [-3.0, -0.5, 2.0])
    np.testing.assert_array_equal(assign_bins(d, edges), [0, 0, 1, 1])


@pytest.mark.parametrize("n_bins", [1, 3, 10, 33, 34, 100])
def test_compact_index_equals_the_searchsorted_index(n_bins):
    from bayescal.metrics.binning import assign_bins_compact

    rng = np.random.default_rng(n_bins)
    edges = bin_edges(rng.uniform(size=50), n_bins, "uniform")
    # scores on the edges themselves and at 0 and 1 test the right-closed rule
    s = np.concatenate([rng.uniform(size=2000), edges, [0.0, 1.0]])
    expected = np.searchsorted(edges[1:-1], s, side="left")
    compact = assign_bins_compact(s, edges)
    assert compact.dtype.itemsize <= np.dtype(np.intp).itemsize
    np.testing.assert_array_equal(compact, expected)
    np.testing.assert_array_equal(assign_bins(s, edges), expected)
    assert assign_bins(s, edges).dtype == np.int64
