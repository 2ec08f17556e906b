"""Tests of BetaCalibrator against the ``betacal`` package and its own algorithm."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from betacal import BetaCalibration
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.linear_model import LogisticRegression

from bayescal.calibration import BetaCalibrator
from bayescal.calibration._logistic import logistic_loss

GRID = np.linspace(0.001, 0.999, 500)


def _data(seed, n=3000, a=2.0, b=0.5, c=0.3):
    rng = np.random.default_rng(seed)
    s = rng.beta(2, 3, size=n)
    p = 1 / (1 + np.exp(-(a * np.log(s) - b * np.log1p(-s) + c)))
    y = (rng.uniform(size=n) < p).astype(int)
    return s, y


def _betacal(parameters, s, y):
    with warnings.catch_warnings():  # betacal sets a global "ignore" filter itself
        warnings.simplefilter("ignore")
        return BetaCalibration(parameters=parameters).fit(s, y)


def _features(parameters, s):
    if parameters == "abm":
        return np.column_stack([np.log(s), -np.log1p(-s)]), True
    if parameters == "am":
        return np.log(s / (1 - s))[:, None], True
    return np.column_stack([np.log(2 * s), np.log(2 * (1 - s))]), False


@pytest.mark.parametrize("parameters", ["abm", "am", "ab"])
@pytest.mark.parametrize("seed", [0, 1])
def test_agrees_with_betacal(parameters, seed):
    s, y = _data(seed)
    ours = BetaCalibrator(parameters=parameters).fit(s, y)
    ref = _betacal(parameters, s, y)
    # betacal fits with LogisticRegression(C=1e11) at scikit-learn's default
    # tolerance (1e-4), so it stops short of the optimum by ~1e-3 in probability.
    np.testing.assert_allclose(ours.predict_proba(GRID)[:, 1], ref.predict(GRID), atol=3e-3)
    np.testing.assert_allclose([ours.a_, ours.b_], ref.calibrator_.map_[:2], atol=2e-2)
    # ... and ours is the better optimum of the same likelihood.
    eta = lambda p: np.log(p / (1 - p))  # noqa: E731
    ours_loss = logistic_loss(eta(ours.predict_proba(s)[:, 1]), y, np.ones(s.size))
    ref_loss = logistic_loss(eta(np.clip(ref.predict(s), 1e-15, 1 - 1e-15)), y, np.ones(s.size))
    assert ours_loss <= ref_loss + 1e-9


@pytest.mark.parametrize("parameters", ["abm", "am", "ab"])
def test_agrees_with_betacal_algorithm_at_tight_tolerance(parameters):
    # betacal's algorithm (logistic regression on its features) with an exact
    # solver: agreement to 1e-6.
    s, y = _data(2)
    X, intercept = _features(parameters, s)
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000, fit_intercept=intercept)
    lr.fit(X, y)
    ours = BetaCalibrator(parameters=parameters).fit(s, y)
    Xg, _ = _features(parameters, GRID)
    np.testing.assert_allclose(
        ours.predict_proba(GRID)[:, 1], lr.predict_proba(Xg)[:, 1], atol=1e-6
    )


def test_negative_coefficient_is_refitted_at_zero():
    # Truth with b < 0 (map decreasing near 1): abm refits with b = 0, as betacal.
    s, y = _data(3, a=1.5, b=-1.0, c=0.0)
    ours = BetaCalibrator().fit(s, y)
    ref = _betacal("abm", s, y)
    assert ours.b_ == 0.0 and ref.calibrator_.map_[1] == 0
    assert ours.a_ > 0
    np.testing.assert_allclose(ours.predict_proba(GRID)[:, 1], ref.predict(GRID), atol=3e-3)
    # Here the map stays below 1/2 on (0, 1): betacal's bounded search returns
    # the boundary m ~ 1, ours reports that no midpoint exists.
    assert ref.calibrator_.map_[2] > 0.999
    assert np.isnan(ours.m_)
    assert ours.predict_proba([1 - 1e-12])[0, 1] < 0.5


def test_midpoint_maps_to_one_half():
    s, y = _data(4)
    cal = BetaCalibrator().fit(s, y)
    assert cal.predict_proba([cal.m_])[0, 1] == pytest.approx(0.5, abs=1e-9)


def test_weights_equal_duplication():
    s, y = _data(5, n=300)
    w = np.random.default_rng(0).integers(1, 4, size=300)
    weighted = BetaCalibrator().fit(s, y, sample_weight=w)
    dup = BetaCalibrator().fit(np.repeat(s, w), np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict_proba(GRID), dup.predict_proba(GRID), atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, 30, elements=st.floats(1e-6, 1 - 1e-6)),
    st.integers(0, 2**31 - 1),
    st.sampled_from(["abm", "am", "ab"]),
)
def test_outputs_are_probabilities_and_abm_is_monotone(scores, seed, parameters):
    y = np.random.default_rng(seed).integers(0, 2, size=30)
    y[:2] = [0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # separable draws warn; not under test here
        cal = BetaCalibrator(parameters=parameters).fit(scores, y)
    p = cal.calibration_map(GRID)
    assert np.all((p >= 0) & (p <= 1))
    if parameters == "abm":
        assert cal.a_ >= 0 and cal.b_ >= 0
        assert np.all(np.diff(p) >= -1e-12)


BAD = [
    (dict(), [0.1, 0.2, 0.3], [1, 1, 1], "single class"),
    (dict(clip=None), [0.0, 0.2, 0.3], [0, 1, 1], "strictly inside"),
    (dict(clip=None), [0.1, 0.2, 1.0], [0, 1, 1], "clip="),
    (dict(), [-1.5, 0.2, 2.0], [0, 1, 1], "PlattCalibrator\\(input='decision'\\)"),
    (dict(), [0.1, np.nan, 0.3], [0, 1, 1], "NaN"),
    (dict(parameters="abc"), [0.1, 0.2, 0.3], [0, 1, 1], "parameters"),
    (dict(clip=-1.0), [0.1, 0.2, 0.3], [0, 1, 1], "clip"),
]


@pytest.mark.parametrize(("params", "scores", "y", "match"), BAD)
def test_bad_input(params, scores, y, match):
    with pytest.raises(ValueError, match=match):
        BetaCalibrator(**params).fit(scores, y)


def test_clip_accepts_zero_and_one():
    cal = BetaCalibrator(clip=1e-12).fit([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], [0, 0, 1, 0, 1, 1])
    assert np.all(np.isfinite(cal.predict_proba([0.0, 1.0])))


# ---- issue 27: a fit that depends on the clip convention says so ----------------------


def test_clip_sensitivity_measures_the_change_between_the_two_conventions():
    from bayescal.calibration.clip_sensitivity import alternative_clip, clip_sensitivity

    eps = np.finfo(float).eps
    assert alternative_clip(1e-12) == eps and alternative_clip(eps) == 1e-12
    s = np.array([0.0, 1e-14, 0.3, 0.7, 1.0])
    w = np.array([1.0, 1.0, 1.0, 1.0, 4.0])

    def fit_predict(clip):  # a stand-in map whose output moves by 0.1 at clip=eps
        return np.full(s.size, 0.5) + (0.1 if clip == eps else 0.0) * (s != 0.3)

    result = clip_sensitivity(fit_predict, s, w, 1e-12)
    # weighted mean of |change| = (0.1 + 0.1 + 0 + 0.1 + 4 * 0.1) / 8
    assert result.mean_change == pytest.approx(0.7 / 8) and result.max_change == pytest.approx(0.1)
    assert (result.n_saturated, result.n_exact, result.n) == (3, 2, 5) and result.material
    assert clip_sensitivity(fit_predict, s, w, None) is None  # strict: nothing clipped
    assert clip_sensitivity(fit_predict, np.array([0.2, 0.8]), np.ones(2), 1e-12) is None


def test_unsaturated_scores_are_not_clip_sensitive():
    s, y = _data(3, n=400)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all
        cal = BetaCalibrator().fit(s, y)
    assert cal.clip_sensitivity_ == 0.0


def _spambase():
    from tests.calibration._saturated_scores import HAVE_SPAMBASE, spambase_naive_bayes_scores

    if not HAVE_SPAMBASE:
        pytest.skip("the shared data folder (BAYESCAL_DATA) has no spambase")
    return spambase_naive_bayes_scores()


def test_saturated_naive_bayes_scores_warn_that_the_fit_depends_on_the_clip():
    """Issue 27: on spambase naive-Bayes scores (68 % exactly 0 or 1) the beta map at
    bayescal's clip and at betacal's differ by 0.03 on average; the old code was silent."""
    from bayescal.calibration.clip_sensitivity import ClipSensitivityWarning

    s, y = _spambase()
    with pytest.warns(ClipSensitivityWarning, match=r"clip=2\.2e-16 instead of clip=1e-12"):
        cal = BetaCalibrator().fit(s, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other = BetaCalibrator(clip=np.finfo(float).eps).fit(s, y)
        betacal = _betacal("abm", s[:, None], y).predict(s[:, None])
    change = np.abs(cal.predict_proba(s)[:, 1] - other.predict_proba(s)[:, 1])
    assert cal.clip_sensitivity_ == pytest.approx(change.mean(), rel=1e-9)
    assert cal.clip_sensitivity_ > 0.02
    # the other convention is betacal's: that fit reproduces the package
    np.testing.assert_allclose(other.predict_proba(s)[:, 1], betacal, atol=2e-3)
