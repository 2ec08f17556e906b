"""Tests of PlattCalibrator: scikit-learn oracles, invariants and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.calibration import _sigmoid_calibration
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from bayescal.calibration import PlattCalibrator
from bayescal.calibration.platt import platt_targets

GRID = np.linspace(0.0, 1.0, 201)


def _data(seed: int = 0, n: int = 1500):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.001, 0.999, size=n)
    y = (rng.uniform(size=n) < s**2).astype(int)
    w = rng.uniform(0.2, 3.0, size=n)
    return s, y, w


@pytest.mark.parametrize("weighted", [False, True])
def test_smoothed_platt_matches_sklearn_sigmoid_calibration(weighted):
    # scikit-learn's sigmoid calibration uses Platt's smoothed targets (with
    # weighted counts N+, N-): it is PlattCalibrator(target_smoothing=True).
    s, y, w = _data()
    sw = w if weighted else None
    cal = PlattCalibrator(input="score", target_smoothing=True).fit(s, y, sample_weight=sw)
    a, b = _sigmoid_calibration(s, y, sample_weight=sw)
    expected = 1.0 / (1.0 + np.exp(a * GRID + b))
    np.testing.assert_allclose(cal.predict_proba(GRID)[:, 1], expected, atol=1e-6)
    np.testing.assert_allclose([cal.slope_, cal.intercept_], [-a, -b], rtol=1e-5)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("input", ["score", "logit"])
def test_plain_platt_matches_unpenalised_logistic_regression(weighted, input):
    s, y, w = _data(1)
    sw = w if weighted else None
    cal = PlattCalibrator(input=input, target_smoothing=False).fit(s, y, sample_weight=sw)
    feature = s if input == "score" else np.log(s / (1 - s))
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(feature[:, None], y, sw)
    grid = np.linspace(0.001, 0.999, 101)
    g = grid if input == "score" else np.log(grid / (1 - grid))
    np.testing.assert_allclose(
        cal.predict_proba(grid)[:, 1], lr.predict_proba(g[:, None])[:, 1], atol=1e-6
    )
    np.testing.assert_allclose(cal.slope_, lr.coef_[0, 0], rtol=1e-5)


def test_logit_input_recovers_known_coefficients():
    # Truth linear in the logit: logit p = 0.5 + 1.5 logit(s); a large sample
    # must recover the coefficients.
    rng = np.random.default_rng(3)
    s = rng.uniform(0.01, 0.99, size=200_000)
    p = 1 / (1 + np.exp(-(0.5 + 1.5 * np.log(s / (1 - s)))))
    y = (rng.uniform(size=s.size) < p).astype(int)
    cal = PlattCalibrator(input="logit", target_smoothing=False).fit(s, y)
    assert cal.intercept_ == pytest.approx(0.5, abs=0.03)
    assert cal.slope_ == pytest.approx(1.5, abs=0.03)


def test_platt_targets_hand_computed():
    t = platt_targets(np.array([1.0, 0.0, 0.0, 0.5]), np.array([1.0, 1.0, 2.0, 2.0]))
    # N+ = 1 + 1 = 2, N- = 1 + 2 + 1 = 4: t+ = 3/4, t- = 1/6
    np.testing.assert_allclose(t, [0.75, 1 / 6, 1 / 6, 0.5 * 0.75 + 0.5 / 6])


def test_fractional_targets_equal_duplicated_labels():
    # A target of 0.25 with weight 4 is one positive and three negatives at the same score.
    s = np.array([0.1, 0.4, 0.6, 0.9])
    frac = PlattCalibrator(target_smoothing=False).fit(s, [0.0, 0.25, 0.75, 1.0], [1, 4, 4, 1])
    s_dup = np.array([0.1] + [0.4] * 4 + [0.6] * 4 + [0.9])
    y_dup = np.array([0] + [1, 0, 0, 0] + [1, 1, 1, 0] + [1])
    dup = PlattCalibrator(target_smoothing=False).fit(s_dup, y_dup)
    np.testing.assert_allclose(frac.predict_proba(GRID), dup.predict_proba(GRID), atol=1e-9)


def test_separable_data_warns_without_smoothing():
    s = np.array([0.1, 0.2, 0.8, 0.9])
    y = np.array([0, 0, 1, 1])
    with pytest.warns(ConvergenceWarning, match="separable"):
        PlattCalibrator(target_smoothing=False, max_iter=30).fit(s, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PlattCalibrator(target_smoothing=True).fit(s, y)


def test_clip_makes_logit_input_accept_zero_and_one():
    s = np.array([0.0, 0.2, 0.5, 0.8, 1.0, 0.3])
    y = np.array([0, 0, 1, 1, 1, 0])
    cal = PlattCalibrator(input="logit", clip=1e-6).fit(s, y)
    p = cal.predict_proba([0.0, 1.0])[:, 1]
    assert np.all(np.isfinite(p)) and p[0] < p[1]


def _forest_votes(seed: int = 0, n: int = 300):
    """Random-forest-like votes in steps of 0.1: over 40 % exactly 0 or 1 (all right, as
    unanimous trees on easy rows), the rest in between."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.2, 0.2, n)
    y = (rng.uniform(size=n) < p).astype(int)
    s = np.round(np.clip(p + rng.normal(0.0, 0.1, n), 0.0, 1.0), 1)
    s[(s == 1.0) & (y == 0)] = 0.9
    s[(s == 0.0) & (y == 1)] = 0.1
    return s, y


def test_auto_target_smoothing_is_platt_on_scores_and_plain_on_logits():
    s, y, _ = _data(3, 400)
    for input, smoothed in (("score", True), ("decision", True), ("logit", False)):
        x = s - 0.5 if input == "decision" else s
        auto = PlattCalibrator(input=input).fit(x, y)
        explicit = PlattCalibrator(input=input, target_smoothing=smoothed).fit(x, y)
        assert auto.target_smoothing_ is smoothed
        assert (auto.intercept_, auto.slope_) == (explicit.intercept_, explicit.slope_)


def test_logit_of_exact_01_scores_default_is_plain_logistic_regression():
    # Oracle: scikit-learn's unpenalised logistic regression on the same clipped logits.
    s, y = _forest_votes()
    assert np.mean((s == 0) | (s == 1)) > 0.4
    c = np.clip(s, 1e-12, 1 - 1e-12)
    z = (np.log(c) - np.log1p(-c))[:, None]
    ref = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(z, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning by default
        ours = PlattCalibrator(input="logit").fit(s, y)
    assert ours.slope_ == pytest.approx(ref.coef_[0, 0], rel=1e-4)
    assert ours.intercept_ == pytest.approx(ref.intercept_[0], rel=1e-4, abs=1e-6)


def test_smoothed_targets_on_clipped_logits_warn_and_flatten_the_map():
    s, y = _forest_votes()
    with pytest.warns(UserWarning, match=r"exactly 0 or 1.*\+-27\.6.*target_smoothing=False"):
        smoothed = PlattCalibrator(input="logit", target_smoothing=True).fit(s, y)
    plain = PlattCalibrator(input="logit").fit(s, y)
    # the rows at logit +-27.6 asked for t+ < 1 and t- > 0 hold the slope down (0.80 vs 1.44)
    assert smoothed.slope_ < 0.6 * plain.slope_
    s_test, y_test = _forest_votes(1, 5000)

    def brier(cal):
        return np.mean((cal.predict_proba(s_test)[:, 1] - y_test) ** 2)

    assert brier(plain) < brier(smoothed)
    # no clipped score, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PlattCalibrator(input="logit", target_smoothing=True).fit(np.clip(s, 0.05, 0.95), y)


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, 30, elements=st.floats(0.0, 1.0)),
    st.integers(0, 2**31 - 1),
    st.sampled_from(["score", "logit"]),
)
def test_outputs_are_probabilities(scores, seed, input):
    y = np.random.default_rng(seed).integers(0, 2, size=30)
    y[:2] = [0, 1]
    cal = PlattCalibrator(input=input, clip=1e-9).fit(scores, y)
    proba = cal.predict_proba(GRID)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


BAD = [
    (dict(), [0.1, 0.2, 0.3], [1, 1, 1], ValueError, "single class"),
    (dict(), [0.1, np.nan, 0.3], [0, 1, 1], ValueError, "NaN"),
    (dict(), [0.1, 1.2, 0.3], [0, 1, 1], ValueError, "<= 1"),
    (dict(), [0.1, 0.2], [0, 1, 1], ValueError, "inconsistent"),
    (dict(), [0.1, 0.2, 0.3], [0, 2, 1], ValueError, "<= 1"),
    (dict(input="logit", clip=None), [0.0, 0.2, 0.3], [0, 1, 1], ValueError, "`clip`=None"),
    (dict(), [-0.5, 0.2, 0.3], [0, 1, 1], ValueError, "input='decision'"),
    (dict(input="probit"), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "input"),
    (dict(input="logit", clip=0.7), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "clip"),
    (dict(max_iter=0), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "max_iter"),
    (dict(target_smoothing="yes"), [0.1, 0.2, 0.3], [0, 1, 1], ValueError, "target_smoothing"),
]


@pytest.mark.parametrize(("params", "scores", "y", "error", "match"), BAD)
def test_bad_input(params, scores, y, error, match):
    with pytest.raises(error, match=match):
        PlattCalibrator(**params).fit(scores, y)


def test_logit_input_rejects_zero_score_at_predict():
    cal = PlattCalibrator(input="logit", clip=None).fit([0.1, 0.4, 0.6, 0.9], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="clip="):
        cal.predict_proba([0.0])
