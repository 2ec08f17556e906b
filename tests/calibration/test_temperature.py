"""Tests of TemperatureScaling: stationarity, recovery of T, scikit-learn oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import softmax
from sklearn.calibration import _TemperatureScaling
from sklearn.exceptions import NotFittedError

from bayescal.calibration import TemperatureScaling
from bayescal.calibration.temperature import temperature_nll


def _draw(seed, n=4000, k=4, temperature=1.0, scale=2.0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * scale
    p = softmax(z / temperature, axis=1)
    y = (p.cumsum(axis=1) > rng.uniform(size=(n, 1))).argmax(axis=1)
    return z, y


@pytest.mark.parametrize("true_t", [0.5, 1.0, 3.0])
def test_optimum_is_stationary_and_matches_sklearn(true_t):
    z, y = _draw(0, temperature=true_t)
    ts = TemperatureScaling(input="decision").fit(z, y)
    w = np.ones(len(y))
    _, grad, _ = temperature_nll(z, y, w, 1 / ts.temperature_)
    assert abs(grad) < 1e-8 * len(y)
    nll_at = lambda t: temperature_nll(z, y, w, 1 / t)[0]  # noqa: E731
    assert nll_at(ts.temperature_) <= min(
        nll_at(ts.temperature_ * 1.01), nll_at(ts.temperature_ / 1.01)
    )
    ref = _TemperatureScaling().fit(z, y)
    assert ts.temperature_ == pytest.approx(1 / float(ref.beta_), rel=1e-6)


def test_recovers_temperature_one_on_softmax_data():
    z, y = _draw(1, n=20_000, temperature=1.0)
    assert TemperatureScaling(input="decision").fit(z, y).temperature_ == pytest.approx(1.0, abs=0.05)
    z, y = _draw(2, n=20_000, temperature=2.0)
    assert TemperatureScaling(input="decision").fit(z, y).temperature_ == pytest.approx(2.0, rel=0.05)


def test_probability_input_equals_log_probability_logits():
    z, y = _draw(3, temperature=1.5)
    p = softmax(z, axis=1)
    a = TemperatureScaling(input="score").fit(p, y)
    b = TemperatureScaling(input="decision").fit(np.log(p), y)
    assert a.temperature_ == pytest.approx(b.temperature_, rel=1e-10)
    np.testing.assert_allclose(a.predict_proba(p), b.predict_proba(np.log(p)), atol=1e-12)


def test_zero_probability_is_floored_at_clip_and_counted():
    # Issue 11, defect 4: zeros (also of the true class, row 3) no longer raise
    # and are not kept as exact zeros; the floor is `clip` (default 1e-12).
    p = np.array([[0.7, 0.3, 0.0], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.6, 0.0, 0.4]])
    ts = TemperatureScaling(input="score").fit(p, [0, 1, 2, 1])
    assert ts.n_clipped_ == 2
    out = ts.predict_proba(p)
    assert np.all((out > 0.0) & (out < 1.0))
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    floored = TemperatureScaling(input="decision").fit(np.log(np.maximum(p, 1e-12)), [0, 1, 2, 1])
    assert ts.temperature_ == pytest.approx(floored.temperature_, rel=1e-12)


def test_weights_equal_duplication():
    z, y = _draw(4, n=300)
    w = np.random.default_rng(0).integers(1, 4, size=300)
    a = TemperatureScaling(input="decision").fit(z, y, sample_weight=w)
    b = TemperatureScaling(input="decision").fit(np.repeat(z, w, axis=0), np.repeat(y, w))
    assert a.temperature_ == pytest.approx(b.temperature_, rel=1e-10)


def test_uninformative_scores_give_infinite_temperature():
    z = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    with pytest.warns(UserWarning, match="infinite temperature"):
        ts = TemperatureScaling(input="decision").fit(z, [1, 1, 0, 0])
    assert np.isinf(ts.temperature_)
    np.testing.assert_allclose(ts.predict_proba(z), 0.5)


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, (20, 3), elements=st.floats(-20, 20)), st.integers(0, 2**31 - 1))
def test_rows_are_distributions(z, seed):
    y = np.random.default_rng(seed).integers(0, 3, size=20)
    y[:3] = [0, 1, 2]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts = TemperatureScaling(input="decision").fit(z, y)
    p = ts.predict_proba(z)
    assert np.all((p >= 0) & (p <= 1))
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(ts.predict(z), p.argmax(axis=1))


_DEC = dict(input="decision")

BAD = [
    (_DEC, [[0.1, 0.2], [0.3, 0.1]], [0, 0], ValueError, "single class"),
    (_DEC, [[0.1, 0.2], [0.3, 0.1]], [0, 2], ValueError, "0..1"),
    (_DEC, [[0.1, np.nan], [0.3, 0.1]], [0, 1], ValueError, "NaN"),
    (_DEC, [[[0.1, 0.3]]], [0, 1], ValueError, "2-D"),
    (_DEC, [[0.1], [0.3]], [0, 1], ValueError, "2 columns"),
    (_DEC, [[0.1, 0.2], [0.3, 0.1]], [0, 1, 1], ValueError, "inconsistent"),
    (dict(), [[0.1, 0.2], [0.3, 0.1]], [0, 1], ValueError, "input='decision'"),
    (dict(input="score"), [[0.5, 0.6], [0.3, 0.7]], [0, 1], ValueError, "sum to 1"),
    (dict(clip=None), [[1.0, 0.0], [0.3, 0.7]], [1, 0], ValueError, "`clip`=None"),
    (dict(clip=0.7), [[1.0, 0.0], [0.3, 0.7]], [1, 0], ValueError, "clip"),
    (dict(input="softmax"), [[0.1, 0.2], [0.3, 0.1]], [0, 1], ValueError, "input"),
    (dict(input="logit"), [[0.1, 0.9], [0.3, 0.7]], [0, 1], ValueError, "input"),
    (dict(max_iter=0), [[0.1, 0.2], [0.3, 0.1]], [0, 1], ValueError, "max_iter"),
]


@pytest.mark.parametrize(("params", "X", "y", "error", "match"), BAD)
def test_bad_input(params, X, y, error, match):
    with pytest.raises(error, match=match):
        TemperatureScaling(**params).fit(X, y)


def test_predict_checks_fitted_and_columns():
    with pytest.raises(NotFittedError):
        TemperatureScaling(input="decision").predict_proba([[0.0, 1.0]])
    with pytest.raises(NotFittedError):
        TemperatureScaling(input="decision").predict([[0.0, 1.0]])
    ts = TemperatureScaling(input="decision").fit([[0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [1.0, 1.5]], [1, 0, 1, 0])
    with pytest.raises(ValueError, match="expecting 2 features"):
        ts.predict_proba([[0.0, 1.0, 2.0]])


def _forest_like_probabilities(seed, n=600, k=3):
    """Probabilities with many exact zeros, also for the true class (as RF and NB give)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 2.0
    p = softmax(z, axis=1)
    y = (p.cumsum(axis=1) > rng.uniform(size=(n, 1))).argmax(axis=1)
    p = np.round(p * 10) / 10  # votes of 10 trees: zeros everywhere
    p[p.sum(axis=1) == 0] = 1.0 / k
    return p / p.sum(axis=1, keepdims=True), y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_probabilities_with_zeros_match_sklearn_temperature(seed):
    # Issue 11, defect 4: a zero probability of the true class used to raise.
    p, y = _forest_like_probabilities(seed)
    assert np.any(p[np.arange(len(y)), y] == 0.0)
    ts = TemperatureScaling().fit(p, y)
    assert ts.n_clipped_ == int(np.sum(p < 1e-12))
    # The calibrator scikit-learn 1.9's CalibratedClassifierCV(method="temperature")
    # fits on predict_proba output: logits log(p + 1e-12).
    ref = _TemperatureScaling().fit(p, y)
    assert ts.temperature_ == pytest.approx(1 / float(ref.beta_), abs=1e-4)
    out = ts.predict_proba(p)
    assert np.all((out > 0.0) & (out < 1.0))
    np.testing.assert_allclose(out, ref.predict(p), atol=1e-6)


@pytest.mark.parametrize("beta", [0.0, 0.37, 1.0, 4.0])
def test_fused_nll_pass_equals_the_numpy_nll(beta):
    from bayescal.calibration._temperature_kernel import temperature_nll_fused
    from bayescal.calibration.temperature import temperature_nll

    rng = np.random.default_rng(4)
    z = rng.normal(size=(2000, 5)) * 3.0
    labels = rng.integers(0, 5, size=2000)
    z[rng.uniform(size=z.shape) < 0.05] = -np.inf  # zero probabilities ...
    z[np.arange(2000), labels] = np.abs(z[np.arange(2000), labels])  # ... never the true class
    w = rng.uniform(0.2, 2.0, size=2000)
    fused = temperature_nll_fused(z, labels, w, beta)
    np.testing.assert_allclose(fused, temperature_nll(z, labels, w, beta), rtol=1e-11)


def test_fit_with_the_fused_pass_equals_the_numpy_fit(monkeypatch):
    from bayescal.calibration import temperature

    rng = np.random.default_rng(5)
    z = rng.normal(size=(3000, 4)) * 2.0
    y = (np.cumsum(np.exp(z / 1.5), axis=1) / np.exp(z / 1.5).sum(axis=1, keepdims=True)
         > rng.uniform(size=(3000, 1))).argmax(axis=1)
    monkeypatch.setattr(temperature, "FUSED_MIN_LOGITS", z.size + 1)
    numpy_fit = TemperatureScaling(input="decision").fit(z, y)
    monkeypatch.setattr(temperature, "FUSED_MIN_LOGITS", 1)
    fused_fit = TemperatureScaling(input="decision").fit(z, y)
    assert fused_fit.temperature_ == pytest.approx(numpy_fit.temperature_, rel=1e-10)
    np.testing.assert_allclose(fused_fit.predict_proba(z), numpy_fit.predict_proba(z),
                               rtol=1e-9)
