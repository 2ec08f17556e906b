"""CORP reliability: PAV recalibration, score decomposition, consistency bands, test."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression

from bayescal.metrics.corp import (
    corp_recalibrate,
    corp_reliability,
    miscalibration_test,
    score_decomposition,
)


def _calibrated(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    x = rng.uniform(size=n)
    return (rng.uniform(size=n) < x).astype(int), x


def test_recalibration_equals_scikit_learn_isotonic_regression():
    rng = np.random.default_rng(0)
    y, x = _calibrated(300, rng)
    x = np.round(x, 2)  # ties, which both pool
    expected = IsotonicRegression(y_min=0, y_max=1).fit(x, y).predict(x)
    np.testing.assert_allclose(corp_recalibrate(y, x), expected, atol=1e-12)


@pytest.mark.parametrize("score", ["brier", "log"])
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 200), decimals=st.sampled_from([1, 2, 8]))
def test_decomposition_sums_to_the_mean_score(score, seed, n, decimals):
    rng = np.random.default_rng(seed)
    x = np.clip(np.round(rng.uniform(size=n), decimals), 0.01, 0.99)  # log score finite
    y = (rng.uniform(size=n) < rng.uniform(size=n)).astype(int)
    y[0], y[-1] = 0, 1
    d = score_decomposition(y, x, score=score)
    assert abs(d.mcb - d.dsc + d.unc - d.mean_score) <= 1e-12
    assert d.mcb >= -1e-12 and d.dsc >= -1e-12


def test_decomposition_terms_against_closed_forms():
    rng = np.random.default_rng(1)
    y, x = _calibrated(500, rng)
    rate = y.mean()
    brier = score_decomposition(y, x, score="brier")
    log = score_decomposition(y, x, score="log")
    assert brier.mean_score == pytest.approx(np.mean((x - y) ** 2), abs=1e-14)
    assert brier.unc == pytest.approx(rate * (1 - rate), abs=1e-14)
    assert log.mean_score == pytest.approx(
        -np.mean(y * np.log(x) + (1 - y) * np.log(1 - x)), abs=1e-13
    )
    assert log.unc == pytest.approx(-(rate * np.log(rate) + (1 - rate) * np.log(1 - rate)))
    recal = IsotonicRegression(y_min=0, y_max=1).fit(x, y).predict(x)
    assert brier.mcb == pytest.approx(np.mean((x - y) ** 2) - np.mean((recal - y) ** 2))


@pytest.mark.parametrize("score", ["brier", "log"])
def test_mcb_is_zero_for_pav_calibrated_forecasts(score):
    rng = np.random.default_rng(2)
    y, x = _calibrated(400, rng)
    recalibrated = corp_recalibrate(y, x)
    d = score_decomposition(y, recalibrated, score=score)
    assert abs(d.mcb) <= 1e-12
    assert d.mean_score == pytest.approx(d.unc - d.dsc, abs=1e-12)


def test_constant_forecast_at_the_event_rate_has_no_mcb_nor_dsc():
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    d = score_decomposition(y, np.full(8, 0.5))
    assert (d.mcb, d.dsc, d.unc) == pytest.approx((0.0, 0.0, 0.25), abs=1e-15)


def test_log_score_of_a_missed_certain_forecast_is_infinite():
    d = score_decomposition([0, 1, 1], [0.0, 0.0, 1.0], score="log")
    assert np.isinf(d.mean_score) and np.isinf(d.mcb)


@pytest.mark.slow
def test_consistency_bands_hold_calibrated_curves_at_the_nominal_rate():
    """Pointwise coverage of the 90 % bands on perfectly calibrated simulations.

    Under calibration the observed CORP curve and the B resampled curves are
    exchangeable, so the curve lies in the band with probability ``level`` (up to the
    ties of PAV values, which can only raise it slightly). 100 replications of n = 200
    give a Monte-Carlo standard error of about 0.007 for the pooled rate (measured 0.908
    +- 0.007); the test allows 5 standard errors, computed from the replications.
    """
    rng = np.random.default_rng(3)
    rates = []
    for _ in range(100):
        y, x = _calibrated(200, rng)
        curve = corp_reliability(y, x, level=0.9, n_resamples=200, random_state=rng)
        inside = (curve.band_lower <= curve.recalibrated) & (
            curve.recalibrated <= curve.band_upper
        )
        rates.append(inside.mean())
    rates = np.asarray(rates)
    se = rates.std(ddof=1) / np.sqrt(rates.size)
    assert abs(rates.mean() - 0.9) < 5 * se, (rates.mean(), se)
    # the same check fails on miscalibrated forecasts: the bands are not vacuous
    y = (rng.uniform(size=200) < x**2).astype(int)
    curve = corp_reliability(y, x, level=0.9, n_resamples=200, random_state=rng)
    inside = (curve.band_lower <= curve.recalibrated) & (curve.recalibrated <= curve.band_upper)
    assert inside.mean() < 0.7


def test_asymptotic_bands_for_discrete_forecasts():
    rng = np.random.default_rng(4)
    x = rng.choice(np.linspace(0.1, 0.9, 9), size=4000)
    y = (rng.uniform(size=x.size) < x).astype(int)
    curve = corp_reliability(y, x, band_method="asymptotic", level=0.95)
    assert curve.forecast.tolist() == pytest.approx(np.linspace(0.1, 0.9, 9).tolist())
    half = 1.959963984540054 * np.sqrt(curve.forecast * (1 - curve.forecast) / curve.count)
    np.testing.assert_allclose(curve.band_upper - curve.forecast, half, rtol=1e-12)
    resampled = corp_reliability(y, x, level=0.95, n_resamples=400, random_state=0)
    np.testing.assert_allclose(resampled.band_lower, curve.band_lower, atol=0.02)
    np.testing.assert_allclose(resampled.band_upper, curve.band_upper, atol=0.02)


def test_bands_are_reproducible_with_a_seed():
    y, x = _calibrated(100, np.random.default_rng(5))
    a = corp_reliability(y, x, n_resamples=50, random_state=7)
    b = corp_reliability(y, x, n_resamples=50, random_state=7)
    np.testing.assert_array_equal(a.band_lower, b.band_lower)
    assert a.decomposition == b.decomposition


def test_miscalibration_test_separates_calibrated_from_overconfident():
    rng = np.random.default_rng(6)
    y, x = _calibrated(400, rng)
    calibrated = miscalibration_test(y, x, n_resamples=300, random_state=1)
    assert calibrated.p_value > 0.05
    assert calibrated.statistic == pytest.approx(score_decomposition(y, x).mcb)
    y_bad = (rng.uniform(size=400) < x**3).astype(int)
    bad = miscalibration_test(y_bad, x, score="log", n_resamples=300, random_state=1)
    assert bad.p_value == pytest.approx(1 / 301)


@pytest.mark.parametrize(
    ("y", "proba", "kwargs", "match"),
    [
        ([0, 1, 1], [0.2, np.nan, 0.9], {}, r"`proba`.*(NaN|finite)"),
        ([0, 1, 1], [0.2, 1.5, 0.9], {}, r"`proba` must be <= 1"),
        ([0, 1, 1], [-0.2, 0.5, 0.9], {}, r"`proba` must be >= 0"),
        ([1, 1, 1], [0.2, 0.5, 0.9], {}, r"`y` contains a single class"),
        ([0, 2, 1], [0.2, 0.5, 0.9], {}, r"`y` must hold class codes 0..1"),
        ([0, 1], [0.2, 0.5, 0.9], {}, r"inconsistent numbers of samples"),
        ([0, 1, 1], [0.2, 0.5, 0.9], {"score": "crps"}, r"`score` must be one of"),
    ],
)
def test_bad_input(y, proba, kwargs, match):
    with pytest.raises(ValueError, match=match):
        score_decomposition(y, proba, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"level": 1.0}, ValueError, r"`level` must lie in \(0, 1\)"),
        ({"band_method": "bootstrap"}, ValueError, r"`band_method` must be one of"),
        ({"n_resamples": 0}, ValueError, r"`n_resamples` must be >= 1"),
        ({"n_resamples": 2.5}, TypeError, r"`n_resamples` must be an integer"),
    ],
)
def test_bad_band_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        corp_reliability([0, 1, 1, 0], [0.1, 0.6, 0.8, 0.3], **kwargs)
