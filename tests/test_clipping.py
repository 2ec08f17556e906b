"""Tests of the clip rule and the output floor (bayescal.clipping)."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.calibration import BetaCalibrator, LogisticGAMCalibrator, PlattCalibrator


def test_bounded_expit_keeps_sigmoid_outputs_off_zero_and_one():
    from scipy.special import expit

    from bayescal.clipping import OUTPUT_FLOOR, bounded_expit

    eta = np.array([-1e3, -40.0, -34.0, -3.0, 0.0, 3.0, 34.0, 40.0, 1e3])
    p = bounded_expit(eta)
    assert p.min() == OUTPUT_FLOOR and 1.0 - p.max() >= OUTPUT_FLOOR * 0.99
    assert np.all((p > 0.0) & (p < 1.0)) and np.all(np.diff(p) >= 0)
    inside = np.abs(eta) <= 34.0
    np.testing.assert_allclose(p[inside], expit(eta[inside]), rtol=1e-15)
    assert expit(40.0) == 1.0  # what the floor prevents


def test_bounded_softmax_keeps_every_class_off_zero_and_one():
    from scipy.special import softmax

    from bayescal.clipping import OUTPUT_FLOOR, bounded_softmax

    eta = np.array([[0.0, 40.0, -800.0], [1.0, 2.0, 3.0], [1e4, -1e4, 0.0], [5.0, 5.0, 5.0]])
    p = bounded_softmax(eta)
    assert softmax(eta).max() == 1.0 and softmax(eta).min() == 0.0  # what the floor prevents
    assert np.all((p >= OUTPUT_FLOOR) & (p <= 1.0 - 2 * OUTPUT_FLOOR * 0.99))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-15)
    # off the floor it is the softmax (the uniform mixture moves it by <= K * floor)
    np.testing.assert_allclose(p[1], softmax(eta[1]), rtol=1e-13)
    np.testing.assert_allclose(p[3], 1.0 / 3.0, rtol=1e-15)
    # any axis; order preserved along it
    q = bounded_softmax(eta.T, axis=0)
    np.testing.assert_allclose(q, p.T, rtol=1e-15)
    assert np.all(np.argsort(p, axis=1) == np.argsort(eta, axis=1))


@pytest.mark.parametrize("make", [
    lambda: BetaCalibrator(),
    lambda: PlattCalibrator(input="logit"),
    lambda: LogisticGAMCalibrator(input="logit", n_knots=5),
])
def test_steep_sigmoid_maps_on_exact_zero_one_scores_never_return_zero_or_one(make):
    # A confident classifier (a random forest's 0/1 votes) that is nearly always
    # right: the beta map's b coefficient is large, and before the output floor
    # 300 rows came out as exactly 1.0 (infinite log loss on a single error).
    rng = np.random.default_rng(0)
    s = rng.uniform(size=2000)
    s[:300], s[300:600] = 0.0, 1.0
    y = (s > 0.5).astype(int)
    y[rng.choice(2000, 20, replace=False)] ^= 1
    p = make().fit(s, y).predict_proba(s)
    assert np.all((p > 0.0) & (p < 1.0))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_clip_probabilities_counts_what_it_moves_and_is_strict_without_clip():
    from bayescal.clipping import DEFAULT_CLIP, clip_probabilities

    s = np.array([0.0, 1e-13, 0.3, 1.0 - 1e-13, 1.0])
    clipped, n = clip_probabilities(s, DEFAULT_CLIP)
    np.testing.assert_array_equal(clipped, [DEFAULT_CLIP, DEFAULT_CLIP, 0.3, 1 - DEFAULT_CLIP,
                                            1 - DEFAULT_CLIP])
    assert n == 4
    low_only, n_low = clip_probabilities(s, DEFAULT_CLIP, upper=False)  # for log p alone
    assert n_low == 2 and low_only[-1] == 1.0
    with pytest.raises(ValueError, match=r"`p` must lie strictly inside \(0, 1\) for Foo.*"
                                         r"2 entries.*exactly 0 or 1"):
        clip_probabilities(s[[0, 2, 4]], None, name="p", owner="Foo")
    unchanged, none = clip_probabilities(s[1:4], None)
    assert none == 0 and unchanged is not None and np.array_equal(unchanged, s[1:4])
