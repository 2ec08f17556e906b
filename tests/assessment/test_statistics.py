"""The plain statistics of bayescal.assessment against references and closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import chi2, norm

from bayescal.assessment.calibration_tests import (
    brownian_range_sf,
    brownian_sup_abs_sf,
    cumulative_difference_tests,
    hosmer_lemeshow_test,
    spiegelhalter_test,
)
from bayescal.assessment.discrimination import concordance
from bayescal.assessment.logistic_calibration import logistic_calibration
from bayescal.assessment.lowess_curve import curve_errors, lowess


def _data(n=400, power=1.5, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.03, 0.97, n)
    y = (rng.random(n) < p**power).astype(int)
    return y, p


def test_logistic_calibration_matches_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    y, p = _data()
    z = np.log(p / (1 - p))
    fit = logistic_calibration(y, p, level=0.95)
    ref = sm.GLM(y, sm.add_constant(z), family=sm.families.Binomial()).fit()
    np.testing.assert_allclose([fit.intercept, fit.slope], ref.params, atol=1e-8)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.covariance)), ref.bse, rtol=1e-5)
    lo, hi = ref.conf_int(0.05)[1]
    assert fit.slope_interval == pytest.approx((lo, hi), rel=1e-5)
    offset = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial(), offset=z).fit()
    assert fit.calibration_in_the_large == pytest.approx(offset.params[0], abs=1e-8)
    assert fit.calibration_in_the_large_interval == pytest.approx(
        tuple(offset.conf_int(0.05)[0]), rel=1e-5)
    # U: likelihood ratio of (0, 1) against the fitted recalibration, 2 df.
    dev_given = -2 * np.sum(y * np.log(p) + (1 - y) * np.log1p(-p))
    assert fit.unreliability_chi2 == pytest.approx(dev_given - ref.deviance, rel=1e-8)
    assert fit.unreliability_p == pytest.approx(chi2.sf(dev_given - ref.deviance, 2), rel=1e-6)


def test_calibration_in_the_large_on_saturated_predictions_matches_statsmodels():
    # Naive-Bayes-like predictions: most log-odds near +-34.5, a few moderate. Newton steps
    # from 0 overshot until every expit(a + z) was exactly 0 or 1 and divided by a zero
    # information (ZeroDivisionError from `bayescal assess`); the root is finite and unique.
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(4)
    p = np.concatenate([np.full(60, 1e-15), np.full(60, 1 - 1e-15), rng.uniform(0.2, 0.8, 10)])
    y = np.concatenate([rng.random(60) < 0.3, rng.random(60) < 0.7,
                        rng.random(10) < 0.5]).astype(int)
    fit = logistic_calibration(y, p, level=0.95)
    z = np.log(p) - np.log1p(-p)
    offset = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial(), offset=z).fit()
    assert np.isfinite(fit.calibration_in_the_large)
    assert fit.calibration_in_the_large == pytest.approx(offset.params[0], abs=1e-6)
    # every kept row one outcome: no finite estimate, said in words
    with pytest.raises(ValueError, match="calibration-in-the-large have no finite estimate"):
        logistic_calibration(np.array([1] * 6 + [0] * 6), np.array([0.2, 0.4, 0.6] * 2 + [0.0] * 6))


def test_observed_expected_interval_is_poisson():
    y, p = _data()
    fit = logistic_calibration(y, p, level=0.9)
    o, e = y.sum(), p.sum()
    z = norm.ppf(0.95)
    assert fit.observed_expected == pytest.approx(o / e)
    assert fit.observed_expected_interval == pytest.approx(
        (o / e * np.exp(-z / np.sqrt(o)), o / e * np.exp(z / np.sqrt(o))))


def test_spiegelhalter_hand_computation():
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 0])
    p = np.array([0.2, 0.7, 0.9, 0.3, 0.6, 0.1, 0.4, 0.8, 0.7, 0.5])
    num = sum((yi - pi) * (1 - 2 * pi) for yi, pi in zip(y, p, strict=True))
    den = np.sqrt(sum((1 - 2 * pi) ** 2 * pi * (1 - pi) for pi in p))
    t = spiegelhalter_test(y, p)
    assert t.statistic == pytest.approx(num / den)
    assert t.p_value == pytest.approx(2 * norm.sf(abs(num / den)))


def test_hosmer_lemeshow_hand_computation():
    y, p = _data(n=203, seed=4)
    order = np.argsort(p, kind="stable")
    # Deciles of risk by rank: group j holds ranks [start_j, start_j + size_j).
    sizes = [21, 21, 21, 20, 20, 20, 20, 20, 20, 20]
    stat, start = 0.0, 0
    for size in sizes:
        idx = order[start:start + size]
        start += size
        o, e = y[idx].sum(), p[idx].sum()
        stat += (o - e) ** 2 / (e * (1 - e / size))
    t = hosmer_lemeshow_test(y, p, n_groups=10)
    assert t.statistic == pytest.approx(stat)
    assert t.df == 8
    assert t.p_value == pytest.approx(chi2.sf(stat, 8))


def test_brownian_distributions_closed_forms():
    # E sup|B| = sqrt(pi / 2), E range = 2 sqrt(2 / pi) (Feller 1951).
    assert quad(brownian_sup_abs_sf, 0, 12, limit=200)[0] == pytest.approx(np.sqrt(np.pi / 2),
                                                                           abs=1e-8)
    assert quad(brownian_range_sf, 0, 12, limit=200)[0] == pytest.approx(2 * np.sqrt(2 / np.pi),
                                                                         abs=1e-8)
    # The two series of sup|B| agree where they meet.
    assert brownian_sup_abs_sf(1.0 - 1e-12) == pytest.approx(brownian_sup_abs_sf(1.0), abs=1e-10)
    # Tail: P(sup|B| >= x) ~ 4 P(Z >= x) for large x; P(range >= x) ~ 8 P(Z >= x) ... minus
    # the k = 2 term.
    x = 4.0
    assert brownian_sup_abs_sf(x) == pytest.approx(4 * norm.sf(x) - 4 * norm.sf(3 * x), rel=1e-6)
    assert brownian_range_sf(x) == pytest.approx(8 * norm.sf(x) - 16 * norm.sf(2 * x), rel=1e-6)


def test_cumulative_statistics_hand_computation():
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1])
    p = np.array([0.9, 0.1, 0.4, 0.8, 0.3, 0.2, 0.6, 0.5, 0.7, 0.55, 0.35, 0.65])
    order = np.argsort(p)
    c = np.concatenate([[0], np.cumsum(y[order] - p[order])]) / len(y)
    sigma = np.sqrt(np.sum(p * (1 - p))) / len(y)
    ks, kuiper = cumulative_difference_tests(y, p)
    assert ks.statistic == pytest.approx(np.abs(c).max() / sigma)
    assert kuiper.statistic == pytest.approx((c.max() - c.min()) / sigma)
    assert ks.p_value == pytest.approx(brownian_sup_abs_sf(ks.statistic))


def test_cumulative_tests_hold_their_level_under_calibration():
    """Under calibration the p-values are (nearly) uniform: 10% level rejected about 10%."""
    rng = np.random.default_rng(11)
    rejected = np.zeros(2)
    reps = 300
    for _ in range(reps):
        p = rng.uniform(0.05, 0.95, 400)
        y = (rng.random(400) < p).astype(int)
        ks, kuiper = cumulative_difference_tests(y, p)
        rejected += [ks.p_value < 0.1, kuiper.p_value < 0.1]
    # Binomial(300, 0.1): sd 5.2 rejections; allow 3.5 sd (the limit is asymptotic).
    assert np.all(np.abs(rejected - 30) < 18), rejected


def test_concordance_and_delong_against_hand_computation():
    from sklearn.metrics import roc_auc_score

    y, p = _data(n=150, seed=2)
    p = np.round(p, 1)  # ties
    c = concordance(y, p, level=0.95)
    assert c.c == pytest.approx(roc_auc_score(y, p))
    pos, neg = p[y == 1], p[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    var = v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg)
    assert c.standard_error == pytest.approx(np.sqrt(var))
    assert c.dxy == pytest.approx(2 * c.c - 1)
    assert c.interval[0] < c.c < c.interval[1]


def test_lowess_is_exact_on_a_line_and_curve_errors():
    x = np.linspace(0, 1, 50)
    xs, fit = lowess(x, 0.2 + 0.5 * x)
    np.testing.assert_allclose(fit, 0.2 + 0.5 * xs, atol=1e-12)
    errors = curve_errors(xs, fit)
    err = np.abs(xs - fit)
    assert errors["ici"] == pytest.approx(err.mean())
    assert errors["e90"] == pytest.approx(np.quantile(err, 0.9))
    assert errors["emax"] == pytest.approx(err.max())


@pytest.mark.parametrize(
    ("y", "p", "match"),
    [
        ([0, 1] * 10, [0.5] * 19 + [np.nan], "NaN"),
        ([0, 1] * 10, [0.5] * 19 + [1.2], "<= 1"),
        ([1] * 20, [0.5] * 20, "class"),
        ([0, 1] * 3, [0.5] * 6, "at least 10"),
        ([0, 1] * 10, [0.5] * 21, "inconsistent"),
        ([0, 2] * 10, [0.5] * 20, "y"),
    ],
)
def test_bad_input_is_refused(y, p, match):
    for fn in (logistic_calibration, spiegelhalter_test, concordance, hosmer_lemeshow_test):
        with pytest.raises(ValueError, match=match):
            fn(y, p)


def test_bayesian_recalibration_uses_the_rows_the_wald_fit_uses():
    """Predictions of exactly 0 or 1 (naive Bayes, 18 of 1000 in the bundled example) are
    left out of both recalibration fits: the Bayesian slope agrees with the Wald slope
    (0.367 vs 0.366); with them clipped to log-odds of +-27.6 it was 0.27."""
    import warnings

    import pandas as pd

    from bayescal.assessment.bayesian_curve import bayesian_calibration_curve
    from bayescal.assessment.example import EXAMPLE_FILE

    frame = pd.read_csv(EXAMPLE_FILE)
    y, p = frame["target"].to_numpy(float), frame["p_nb"].to_numpy(float)
    assert ((p == 0) | (p == 1)).sum() > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wald = logistic_calibration(y, p)
        curve = bayesian_calibration_curve(y, p, random_state=0)
    slope, interval = curve.statistics["slope"]
    assert slope == pytest.approx(wald.slope, abs=0.03)
    assert interval[0] < wald.slope < interval[1]
