"""bayescal.assess and the Assessment object."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.integrate import quad

import bayescal
from bayescal.assessment import CalibrationDisplay, assess


def _data(n=600, power=2.0, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p**power).astype(int)
    return y, p


@pytest.fixture(scope="module")
def assessment():
    y, p = _data()
    return assess(y, p, name="over", n_bootstrap=30, corp_resamples=50,
                  random_state=0)


def test_top_level_lazy_export():
    assert bayescal.assess is assess
    assert "assess" in dir(bayescal)


def test_every_statistic_has_estimate_and_interval(assessment):
    d = json.loads(json.dumps(assessment.to_dict(), allow_nan=False))
    assert d["model"] == "over" and d["n"] == 600
    stats = d["statistics"]
    for name in ("observed_expected", "calibration_in_the_large", "intercept", "slope",
                 "ici_lowess", "e90_lowess", "emax_lowess", "ici_bayes", "slope_bayes",
                 "hosmer_lemeshow", "kuiper_cumulative", "c_statistic", "ece_width",
                 "ece_mass", "brier", "log_loss", "smooth_ece", "corp_mcb"):
        assert {"estimate", "interval"} <= set(stats[name]), name
    for name in ("slope", "ici_lowess", "ici_bayes", "slope_bayes", "c_statistic", "ece_mass"):
        lo, hi = stats[name]["interval"]
        assert lo <= stats[name]["estimate"] <= hi, name


def test_detects_overconfident_predictions(assessment):
    # y ~ Bernoulli(p^2): fewer events than predicted and a slope above 1.
    assert assessment["observed_expected"].interval[1] < 1
    assert assessment["slope"].interval[0] > 1
    assert assessment["slope_bayes"].interval[0] > 1
    assert assessment["hosmer_lemeshow"].p_value < 0.01
    assert assessment["ici_bayes"].interval[0] > 0.05
    # The true ICI of p -> p^2 on U(0.05, 0.95) is E|p - p^2| = 0.1825.
    truth = quad(lambda t: t - t * t, 0.05, 0.95)[0] / 0.9
    assert assessment["ici_bayes"].interval[0] < truth < assessment["ici_bayes"].interval[1]


def test_calibrated_predictions_pass():
    y, p = _data(power=1.0, seed=5)
    a = assess(y, p, bayesian=False, n_bootstrap=30, corp_resamples=50, random_state=1)
    assert a["slope"].interval[0] < 1 < a["slope"].interval[1]
    assert a["spiegelhalter_z"].p_value > 0.05


def test_frame_html_and_plot(assessment):
    frame = assessment.to_frame()
    assert list(frame.columns[:4]) == ["model", "group", "statistic", "label"]
    assert len(frame) == len(assessment.statistics)
    page = assessment._repr_html_()
    assert "<table" in page and "calibration slope" in page
    ax = assessment.plot()
    assert len(ax.lines) >= 3 and len(ax.collections) >= 1  # curves and the band


def test_display_in_sklearn_style():
    y, p = _data(n=300)
    disp = CalibrationDisplay.from_predictions(y, p, name="m", bayesian=False, n_bootstrap=10,
                                               corp_resamples=20)
    assert disp.ax_ is not None and disp.figure_ is disp.ax_.figure
    assert disp.prob_true.shape == disp.prob_pred.shape
    assert disp.band_lower is None


def test_multiclass_top_label_and_dirichlet():
    rng = np.random.default_rng(2)
    P = rng.dirichlet([1.0, 1.0, 1.0], 400)
    y = np.array([rng.choice(3, p=row) for row in P])
    a = assess(y, P, n_bootstrap=10, corp_resamples=20, random_state=0)
    assert a.kind == "top_label"
    assert a["ece_classwise"].estimate >= 0
    lo, hi = a["ici_top_label_dirichlet"].interval
    assert 0 <= lo <= hi < 0.2


@pytest.mark.parametrize(
    ("y", "p", "match"),
    [([0, 1] * 10, [0.5] * 19 + [np.nan], "NaN"),
     ([0, 1] * 10, [0.5] * 19 + [-0.1], ">= 0"),
     ([0, 1] * 3, [0.5] * 6, "at least 10"),
     ([0] * 20, [0.5] * 20, "class")],
)
def test_bad_input(y, p, match):
    with pytest.raises(ValueError, match=match):
        assess(y, p, bayesian=False)
