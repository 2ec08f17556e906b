"""ECE and MCE: hand-computed values, kinds and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayescal.metrics import expected_calibration_error, maximum_calibration_error


def test_hand_computed_binary_ece():
    # 5 bins of width 0.2; bins hold {0.1, 0.15}, {0.3}, {}, {0.7, 0.75, 0.8}, {0.9}
    y = np.array([0, 1, 0, 1, 1, 0, 1])
    p = np.array([0.1, 0.15, 0.3, 0.7, 0.75, 0.8, 0.9])
    # bin 0: conf 0.125, pos 0.5 -> 0.375 * 2
    # bin 1: conf 0.3,   pos 0   -> 0.3 * 1
    # bin 3: conf 0.75,  pos 2/3 -> (0.75 - 2/3) * 3
    # bin 4: conf 0.9,   pos 1   -> 0.1 * 1
    expected = (0.375 * 2 + 0.3 + (0.75 - 2 / 3) * 3 + 0.1) / 7
    assert expected_calibration_error(y, p, n_bins=5) == pytest.approx(expected)
    assert maximum_calibration_error(y, p, n_bins=5) == pytest.approx(0.375)


def test_hand_computed_top_label_and_classwise():
    y = np.array([0, 1, 2, 2])
    P = np.array([[0.8, 0.1, 0.1], [0.2, 0.6, 0.2], [0.5, 0.2, 0.3], [0.1, 0.1, 0.8]])
    # top-label: confidences 0.8, 0.6, 0.5, 0.8; correct 1, 1, 0, 1; 2 bins (0,.5], (.5,1]
    # bin 0: {0.5} conf .5 acc 0 -> .5; bin 1: {.8,.6,.8} conf 2.2/3 acc 1 -> 0.8/3
    expected_top = (0.5 * 1 + (1 - 2.2 / 3) * 3) / 4
    assert expected_calibration_error(y, P, 2, kind="top_label") == pytest.approx(expected_top)
    # classwise with 2 bins: class 0 scores .8,.2,.5,.1 outcomes 1,0,0,0
    #   bin0 {.2,.5,.1} conf .8/3 pos 0 -> .8/3*3 ; bin1 {.8} pos 1 -> .2 ; ECE0 = (.8 + .2)/4
    # class 1 scores .1,.6,.2,.1 outcomes 0,1,0,0: bin0 {.1,.2,.1} -> .4 ; bin1 {.6}: .4 ; ECE1 = .8/4
    # class 2 scores .1,.2,.3,.8 outcomes 0,0,1,1: bin0 {.1,.2,.3} conf .2 pos 1/3 -> (1/3-.2)*3=.4 ; bin1 {.8}: .2 ; ECE2=.6/4
    expected_cw = np.mean([1.0 / 4, 0.8 / 4, 0.6 / 4])
    assert expected_calibration_error(y, P, 2, kind="classwise") == pytest.approx(expected_cw)
    # largest per-bin gap: class 1, bin 1 (score 0.6, observed 1)
    assert maximum_calibration_error(y, P, 2, kind="classwise") == pytest.approx(0.4)


def test_binary_kind_refuses_multiclass():
    P = np.full((3, 3), 1 / 3)
    with pytest.raises(ValueError, match="kind='top_label'"):
        expected_calibration_error([0, 1, 2], P, kind="binary")


def test_one_and_two_column_binary_inputs_agree():
    rng = np.random.default_rng(4)
    p = rng.uniform(size=300)
    y = rng.integers(0, 2, size=300)
    a = expected_calibration_error(y, p, 10, "quantile")
    b = expected_calibration_error(y, np.column_stack([1 - p, p]), 10, "quantile")
    assert a == b


def test_matches_sklearn_calibration_curve_weighted_gap():
    # scikit-learn's calibration_curve bins the same way when no score lies on an edge.
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(5)
    p = rng.uniform(size=2000)
    y = rng.binomial(1, p**1.5)
    rate, conf = calibration_curve(y, p, n_bins=10)
    counts = np.histogram(p, bins=np.linspace(0, 1, 11))[0]
    counts = counts[counts > 0]
    expected = np.sum(counts * np.abs(rate - conf)) / p.size
    assert expected_calibration_error(y, p, 10) == pytest.approx(expected)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_perfectly_calibrated_draws_converge_to_zero(strategy):
    rng = np.random.default_rng(0)
    eces = []
    for n in (200, 2000, 20000, 200000):
        p = rng.uniform(size=n)
        y = rng.binomial(1, p)
        eces.append(expected_calibration_error(y, p, 10, strategy))
    assert eces[-1] < 0.01
    assert eces[-1] < eces[0]


def test_miscalibrated_draws_do_not_converge_to_zero():
    rng = np.random.default_rng(1)
    p = rng.uniform(size=100000)
    y = rng.binomial(1, p**2)
    # E|p - p^2| over uniform p is 1/6; binning at width 0.1 barely changes it
    assert expected_calibration_error(y, p, 10) == pytest.approx(1 / 6, abs=0.01)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=60),
    st.integers(1, 20),
    st.sampled_from(["uniform", "quantile"]),
    st.integers(0, 2**32 - 1),
)
def test_bounds_and_order_invariance(rows, n_bins, strategy, seed):
    p = np.array([r[0] for r in rows])
    y = np.array([int(r[1]) for r in rows])
    ece = expected_calibration_error(y, p, n_bins, strategy)
    mce = maximum_calibration_error(y, p, n_bins, strategy)
    assert 0.0 <= ece <= mce + 1e-12 <= 1.0 + 1e-12
    perm = np.random.default_rng(seed).permutation(p.size)
    assert expected_calibration_error(y[perm], p[perm], n_bins, strategy) == pytest.approx(ece)
    assert maximum_calibration_error(y[perm], p[perm], n_bins, strategy) == pytest.approx(mce)


@settings(max_examples=20, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 20),
    st.sampled_from(["uniform", "quantile"]),
    st.floats(0.3, 5.0),
    st.floats(0.3, 5.0),
)
def test_calibrated_draws_have_ece_within_sampling_noise(seed, n_bins, strategy, a, b):
    # Scores from any Beta(a, b) with labels drawn at those probabilities: each bin's
    # observed rate is an unbiased estimate of its mean score, so ECE is pure sampling
    # noise of order sqrt(M / n) and shrinks as n grows.
    rng = np.random.default_rng(seed)
    for n in (1_000, 20_000):
        p = rng.beta(a, b, size=n)
        y = rng.binomial(1, p)
        assert expected_calibration_error(y, p, n_bins, strategy) < 2.0 * np.sqrt(n_bins / n)


# -- the one-pass path of large binary inputs (regression guard) ------------


def _large_binary(n=30_000, seed=11):
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 3.0, size=n)
    p[:50] = np.linspace(0.0, 1.0, 50)  # edge values 0.1, 0.2, ... land on bin edges
    y = (rng.uniform(size=n) < p**1.3).astype(np.int64)
    return y, p


def _ece_by_bincount(y, p, n_bins):
    # independent reference: the NumPy bins of bayescal.metrics.binning, by hand
    from bayescal.metrics.binning import assign_bins, bin_edges

    idx = assign_bins(p, bin_edges(p, n_bins))
    count = np.bincount(idx, minlength=n_bins)
    gap = np.abs(np.bincount(idx, weights=(y == 1).astype(float), minlength=n_bins)
                 - np.bincount(idx, weights=p, minlength=n_bins))
    return float(np.sum(gap[count > 0]) / y.size), float(np.max((gap / np.maximum(count, 1))[count > 0]))


@pytest.mark.parametrize("n_bins", [1, 10, 15, 40])
def test_regression_guard_one_pass_binary_ece_equals_the_general_path(monkeypatch, n_bins):
    from bayescal.metrics import binning

    y, p = _large_binary()
    fast = (expected_calibration_error(y, p, n_bins), maximum_calibration_error(y, p, n_bins))
    assert binning.binary_bin_statistics(y, p, n_bins) is not None  # the fast path ran
    monkeypatch.setattr(binning, "KERNEL_MIN_SCORES", 10**9)  # NumPy bins, full checks
    assert binning.binary_bin_statistics(y, p, n_bins) is None
    general = (expected_calibration_error(y, p, n_bins), maximum_calibration_error(y, p, n_bins))
    assert fast == general  # bit for bit: same bins, sums added in the same order
    assert fast == pytest.approx(_ece_by_bincount(y, p, n_bins), rel=1e-12)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint32, np.int64])
def test_one_pass_path_reads_every_integer_label_dtype(dtype):
    y, p = _large_binary()
    assert expected_calibration_error(y.astype(dtype), p) == expected_calibration_error(
        y.astype(float), p  # float labels take the general path
    )


@pytest.mark.parametrize(
    "spoil, match",
    [
        (lambda y, p: p.__setitem__(7, np.nan), "NaN"),
        (lambda y, p: p.__setitem__(29_999, 1.5), r"must be <= 1"),
        (lambda y, p: p.__setitem__(0, -0.25), r"must be >= 0"),
        (lambda y, p: y.__setitem__(12_345, 2), "out of range"),
        (lambda y, p: y.__setitem__(3, -1), "negative"),
    ],
)
def test_one_pass_path_rejects_bad_input_with_the_general_message(spoil, match):
    y, p = _large_binary()
    spoil(y, p)
    for metric in (expected_calibration_error, maximum_calibration_error):
        with pytest.raises(ValueError, match=match):
            metric(y, p)
