"""Smooth ECE: relplot oracle, the continuous definition, bandwidth rule, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from bayescal.metrics import expected_calibration_error
from bayescal.metrics.smooth_ece import smooth_ece, smoothed_reliability


def _forecasts(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    f = rng.uniform(size=n) ** rng.uniform(0.3, 3.0)
    truth = np.clip(f + rng.normal(0.0, 0.3) * f * (1 - f), 0.0, 1.0)
    return (rng.uniform(size=n) < truth).astype(int), f


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(5, 2000), rounded=st.booleans())
def test_equals_relplot_smece(seed, n, rounded):
    import relplot  # the authors' package, in the test extra

    y, f = _forecasts(seed, n)
    if rounded:
        f = np.round(f, 1)  # ties and forecasts of exactly 0 and 1
    expected, width = relplot.smECE(f, y, return_width=True)
    assert smooth_ece(y, f) == pytest.approx(expected, abs=1e-6)
    assert smoothed_reliability(y, f).bandwidth == width


@pytest.mark.parametrize("sigma", [0.01, 0.05, 0.3, 1.0])
def test_equals_relplot_at_a_fixed_bandwidth(sigma):
    import relplot

    y, f = _forecasts(0, 700)
    assert smooth_ece(y, f, bandwidth=sigma) == pytest.approx(
        relplot.smECE_sigma(f, y, sigma), abs=1e-6
    )


def _continuous_smece(y: np.ndarray, f: np.ndarray, sigma: float) -> float:
    """The paper's integral with the reflected kernel, by the trapezoid rule on 4001 points."""
    t = np.linspace(0.0, 1.0, 4001)
    kernel = sum(
        norm.pdf(t[:, None] - (2 * k + f)[None], scale=sigma)
        + norm.pdf(t[:, None] - (2 * k - f)[None], scale=sigma)
        for k in (-1, 0, 1)
    )
    return float(np.trapezoid(np.abs(kernel @ (f - y)), t) / f.size)


@pytest.mark.parametrize("sigma", [0.02, 0.05, 0.1, 0.2])
def test_matches_the_continuous_definition(sigma):
    """The discretisation (200+ evaluation points, Riemann sum) is within 1 % of the integral.

    Measured relative differences: 0.1 %, 0.4 %, 0.3 %, 0.08 % for these bandwidths; the
    error is of the order of the evaluation spacing (1/200) times the curve's slope.
    """
    y, f = _forecasts(1, 300)
    assert smooth_ece(y, f, bandwidth=sigma) == pytest.approx(
        _continuous_smece(y, f, sigma), rel=1e-2
    )


def test_bandwidth_is_the_fixed_point():
    y, f = _forecasts(2, 1000)
    r = smoothed_reliability(y, f)
    assert r.bandwidth == pytest.approx(r.smooth_ece, abs=2**-10)
    # smECE_sigma does not increase with sigma, so sigma* separates the two regimes
    assert smooth_ece(y, f, bandwidth=r.bandwidth / 2) > r.bandwidth / 2
    assert smooth_ece(y, f, bandwidth=min(2 * r.bandwidth, 1.0)) < min(2 * r.bandwidth, 1.0)


def test_calibrated_forecasts_score_low_and_miscalibrated_high():
    rng = np.random.default_rng(3)
    f = rng.uniform(size=5000)
    y = (rng.uniform(size=5000) < f).astype(int)
    assert smooth_ece(y, f) < 0.03
    y_bad = (rng.uniform(size=5000) < f**3).astype(int)
    # close to the binned ECE of a clearly miscalibrated forecast
    assert smooth_ece(y_bad, f) == pytest.approx(
        expected_calibration_error(y_bad, f, n_bins=15), rel=0.25
    )


def test_curve_and_density():
    y, f = _forecasts(4, 2000)
    r = smoothed_reliability(y, f, bandwidth=0.05)
    assert r.t[0] == 0.0 and r.t[-1] == 1.0 and r.t.size == 200
    assert np.trapezoid(r.density, r.t) == pytest.approx(1.0, abs=0.02)
    area = np.sum(np.abs(r.t - r.curve) * (r.density + 1e-4 / f.size)) / np.sum(
        r.density + 1e-4 / f.size
    )
    assert area == pytest.approx(r.smooth_ece, rel=1e-12)


def test_top_label_of_multiclass_probabilities():
    rng = np.random.default_rng(5)
    P = rng.dirichlet(np.ones(3), size=500)
    y = np.array([rng.choice(3, p=p) for p in P])
    conf = P.max(axis=1)
    correct = (P.argmax(axis=1) == y).astype(int)
    assert smooth_ece(y, P, kind="top_label") == smooth_ece(correct, conf)


@pytest.mark.parametrize(
    ("y", "proba", "kwargs", "error", "match"),
    [
        ([0, 1, 1], [0.2, np.nan, 0.9], {}, ValueError, r"`proba`.*(NaN|finite)"),
        ([0, 1, 1], [0.2, 1.5, 0.9], {}, ValueError, r"`proba` must be <= 1"),
        ([0, 1], [0.2, 0.5, 0.9], {}, ValueError, r"inconsistent numbers of samples"),
        ([0, 1, 2], np.full((3, 3), 1 / 3), {}, ValueError, r"kind='binary' needs two classes"),
        ([0, 1, 1], [0.2, 0.5, 0.9], {"kind": "classwise"}, ValueError, r"`kind` must be one of"),
        (
            [0, 1, 1],
            [0.2, 0.5, 0.9],
            {"bandwidth": 0.0},
            ValueError,
            r"`bandwidth` must be a positive",
        ),
        (
            [0, 1, 1],
            [0.2, 0.5, 0.9],
            {"bandwidth": 2.0},
            ValueError,
            r"`bandwidth` must lie in \(0, 1\]",
        ),
        (
            [0, 1, 1],
            [0.2, 0.5, 0.9],
            {"bandwidth": "0.1"},
            TypeError,
            r"`bandwidth` must be a positive",
        ),
    ],
)
def test_bad_input(y, proba, kwargs, error, match):
    with pytest.raises(error, match=match):
        smooth_ece(y, proba, **kwargs)
