"""Tests of the Bayesian calibration maps (Platt, beta, penalised spline)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from bayescal.inference.diagnostics import posterior_diagnostics
from bayescal.inference.posterior import PosteriorDiagnosticsWarning
from bayescal.probes.calibration_maps import (  # noqa: E402
    BayesianBetaCalibrator,
    BayesianPlattCalibrator,
    BayesianSplineCalibrator,
    calibration_map_model,
    undersampling_correction,
)

GRID = np.linspace(0.02, 0.98, 49)
FAST = dict(inference="laplace", draws=400, random_state=0)


def undersampled(n_population, pi0, seed):
    """Scores of a perfect base model on undersampled data: s = gamma(x)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.6, 4.0, size=n_population)
    y = rng.random(p.size) < p
    keep = y | (rng.random(p.size) < pi0)
    gamma = p / (p + pi0 * (1.0 - p))
    return gamma[keep], y[keep].astype(int)


def calibrated(n, seed):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.02, 0.98, n)
    return s, (rng.random(n) < s).astype(int)


def test_undersampling_correction_closed_form():
    g = np.array([0.0, 0.5, 1.0, 0.2])
    np.testing.assert_allclose(undersampling_correction(g, 0.25), [0.0, 0.2, 1.0, 0.05 / 0.85])
    np.testing.assert_allclose(undersampling_correction(g, 1.0), g)


@pytest.mark.parametrize(
    ("cls", "tolerance"),
    # Platt on the logit is exact here (seed 004, Eq. 4); the spline is
    # flexible and its Laplace posterior mean drifts up in the sparse top end.
    [(BayesianPlattCalibrator, 0.035), (BayesianSplineCalibrator, 0.06)],
)
def test_pi0_recovers_analytical_correction_for_perfect_base_model(cls, tolerance):
    pi0 = 0.1
    s, y = undersampled(20000, pi0, 0)
    corrected = cls(pi0=pi0, **FAST).fit(s, y)
    plain = cls(**FAST).fit(s, y)
    # Without pi0 the map is the identity (the base model is perfect for the
    # undersampled data); with pi0 it is kappa of seed 004, Eq. 1.
    # Compared where the data lie (1st to 99th percentile of the scores).
    grid = np.linspace(*np.quantile(s, [0.01, 0.99]), 40)
    assert np.abs(plain.calibration_map(grid) - grid).max() < 0.05
    mean, lower, upper = corrected.map_band(grid)
    kappa = undersampling_correction(grid, pi0)
    # kappa is steep near 1 (slope up to 1/pi0), amplifying the map's error
    # in sparse tails, so the error is judged in the bulk of the scores.
    bulk = (grid >= np.quantile(s, 0.05)) & (grid <= np.quantile(s, 0.95))
    assert np.abs(mean - kappa)[bulk].max() < tolerance
    assert np.mean((lower <= kappa) & (kappa <= upper)) > 0.8


@pytest.mark.parametrize("cls", [BayesianPlattCalibrator, BayesianBetaCalibrator])
def test_band_narrows_as_n_grows(cls):
    widths = []
    for n in (100, 3000):
        s, y = calibrated(n, 1)
        _, lower, upper = cls(**FAST).fit(s, y).map_band(GRID, prob=0.9)
        widths.append(np.mean(upper - lower))
    # sqrt(30) ~ 5.5 times narrower in theory; ask for at least 2.5.
    assert widths[1] < widths[0] / 2.5


def test_platt_posterior_mean_matches_logistic_regression_on_logit():
    s, y = calibrated(3000, 2)
    z = np.log(s / (1 - s))[:, None]
    ml = LogisticRegression(C=1e6).fit(z, y)
    cal = BayesianPlattCalibrator(**FAST).fit(s, y)
    zg = np.log(GRID / (1 - GRID))[:, None]
    assert np.abs(cal.calibration_map(GRID) - ml.predict_proba(zg)[:, 1]).max() < 0.01


@pytest.mark.parametrize("cls", [BayesianPlattCalibrator, BayesianBetaCalibrator])
def test_integer_weights_equal_repeated_samples(cls):
    s, y = calibrated(200, 3)
    w = np.random.default_rng(4).integers(1, 4, size=s.size)
    weighted = cls(**FAST).fit(s, y, sample_weight=w)
    repeated = cls(**FAST).fit(np.repeat(s, w), np.repeat(y, w))
    np.testing.assert_allclose(
        weighted.predict_proba(GRID), repeated.predict_proba(GRID), atol=2e-3
    )


def test_fractional_targets_equal_split_labels():
    # A target of 0.25 with weight 4 carries the likelihood of one 1 and three 0s.
    rng = np.random.default_rng(5)
    s = rng.uniform(0.05, 0.95, 100)
    frac = rng.integers(0, 5, size=100) / 4.0
    a = BayesianPlattCalibrator(**FAST).fit(s, frac, sample_weight=np.full(100, 4.0))
    ones = np.round(frac * 4).astype(int)
    s_rep = np.concatenate([np.repeat(s, ones), np.repeat(s, 4 - ones)])
    y_rep = np.concatenate([np.ones(ones.sum()), np.zeros((4 - ones).sum())])
    b = BayesianPlattCalibrator(**FAST).fit(s_rep, y_rep)
    np.testing.assert_allclose(a.calibration_map(GRID), b.calibration_map(GRID), atol=2e-3)


def test_spline_follows_a_nonlinear_map_that_platt_misses():
    rng = np.random.default_rng(6)
    s = rng.uniform(0.02, 0.98, 3000)
    truth = lambda x: 0.5 + 0.4 * np.sin(2 * np.pi * x) * x  # noqa: E731
    y = (rng.random(s.size) < truth(s)).astype(int)
    spline = BayesianSplineCalibrator(**FAST).fit(s, y)
    platt = BayesianPlattCalibrator(**FAST).fit(s, y)
    rmse = lambda cal: np.sqrt(np.mean((cal.calibration_map(GRID) - truth(GRID)) ** 2))  # noqa: E731
    assert rmse(spline) < 0.04
    assert rmse(spline) < 0.5 * rmse(platt)


def test_posterior_contract():
    s, y = calibrated(200, 7)
    cal = BayesianBetaCalibrator(**FAST).fit(s, y)
    proba = cal.predict_proba(s[:10])
    assert proba.shape == (10, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    interval = cal.predict_interval(s[:10], prob=0.9)
    assert interval.shape == (10, 2, 2)
    assert np.all(interval[:, 1, 0] <= proba[:, 1]) and np.all(proba[:, 1] <= interval[:, 1, 1])
    mean, lower, upper = cal.map_band(GRID, prob=0.5)
    _, lower9, upper9 = cal.map_band(GRID, prob=0.9)
    assert np.all(lower9 <= lower) and np.all(upper <= upper9)
    assert np.all((lower <= mean) & (mean <= upper))
    assert np.isnan(cal.diagnostics_["rhat_max"]) and cal.diagnostics_["sampler"] == "laplace"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::bayescal.inference.posterior.PosteriorDiagnosticsWarning")
def test_nuts_same_random_state_same_draws():
    s, y = calibrated(150, 8)
    kwargs = dict(draws=200, tune=300, chains=2, random_state=3)
    a = BayesianPlattCalibrator(**kwargs).fit(s, y)
    b = BayesianPlattCalibrator(**kwargs).fit(s, y)
    np.testing.assert_array_equal(
        np.asarray(a.idata_["posterior"]["coef"]), np.asarray(b.idata_["posterior"]["coef"])
    )
    assert a.diagnostics_["sampler"] == "nutpie" and a.diagnostics_["n_chains"] == 2
    assert np.abs(a.calibration_map(GRID) - GRID).max() < 0.2


S_OK, Y_OK = np.array([0.1, 0.4, 0.6, 0.9]), np.array([0, 1, 0, 1])


@pytest.mark.parametrize(
    ("cls", "params", "scores", "y", "error", "match"),
    [
        (BayesianPlattCalibrator, {}, [0.1, np.nan, 0.5, 0.9], Y_OK, ValueError, "scores"),
        (BayesianPlattCalibrator, {}, [0.1, 1.2, 0.5, 0.9], Y_OK, ValueError, "scores"),
        (BayesianPlattCalibrator, {}, S_OK, [1, 1, 1, 1], ValueError, "single class"),
        (BayesianPlattCalibrator, {}, S_OK, [0, 1, 1], ValueError, "inconsistent"),
        (BayesianPlattCalibrator, {"pi0": 0.0}, S_OK, Y_OK, ValueError,
         "'pi0' parameter of BayesianPlattCalibrator must be a float in the range"),
        (BayesianBetaCalibrator, {"pi0": 1.5}, S_OK, Y_OK, ValueError,
         "'pi0' parameter.*Got 1.5 instead"),
        (BayesianPlattCalibrator, {"input": "rank"}, S_OK, Y_OK, ValueError,
         "'input' parameter of BayesianPlattCalibrator must be a str among"),
        (BayesianPlattCalibrator, {"clip": None}, [0.0, 0.2, 0.5, 0.9], Y_OK, ValueError,
         "`clip`=None"),
        (BayesianSplineCalibrator, {"clip": 0.7}, S_OK, Y_OK, ValueError,
         "'clip' parameter"),
        (BayesianSplineCalibrator, {"input": "score"}, S_OK, Y_OK, ValueError,
         "'input' parameter of BayesianSplineCalibrator"),
        (BayesianBetaCalibrator, {}, [-1.0, 0.2, 0.5, 2.0], Y_OK, ValueError,
         "BayesianPlattCalibrator\\(input='decision'\\)"),
        (BayesianBetaCalibrator, {"prior_scale": 0}, S_OK, Y_OK, ValueError,
         "'prior_scale' parameter of BayesianBetaCalibrator"),
        (BayesianBetaCalibrator, {"input": "logit"}, S_OK, Y_OK, TypeError, "unexpected keyword"),
        (BayesianSplineCalibrator, {"n_basis": 2}, S_OK, Y_OK, ValueError,
         "'n_basis' parameter.*range \\[4, inf\\).*Got 2 instead"),
        (BayesianSplineCalibrator, {"smoothness_scale": -1.0}, S_OK, Y_OK, ValueError,
         "'smoothness_scale' parameter"),
        (BayesianSplineCalibrator, {"target_accept": 1.0}, S_OK, Y_OK, ValueError,
         "'target_accept' parameter"),
        (BayesianPlattCalibrator, {"tune": -1}, S_OK, Y_OK, ValueError, "'tune' parameter"),
        (BayesianSplineCalibrator, {"inference": "ep"}, S_OK, Y_OK, ValueError,
         "'inference' parameter"),
    ],
)
def test_bad_input(cls, params, scores, y, error, match):
    with pytest.raises(error, match=match):
        cls(**params).fit(scores, y)


def test_predict_before_fit_and_bad_scores_after_fit():
    with pytest.raises(NotFittedError):
        BayesianPlattCalibrator().predict_proba([0.5])
    cal = BayesianPlattCalibrator(**FAST).fit(*calibrated(100, 9))
    with pytest.raises(ValueError, match="scores"):
        cal.predict_proba([0.5, -0.1])
    with pytest.raises(ValueError, match="scores"):
        cal.map_band([np.inf])


@pytest.mark.parametrize("cls", [BayesianPlattCalibrator, BayesianBetaCalibrator,
                                 BayesianSplineCalibrator])
def test_one_clip_rule_counts_clipped_scores(cls):
    # Issue 11, defect 5: no hidden SCORE_EPS; the clip is a parameter and counted.
    s, y = calibrated(120, 4)
    s[:3] = [0.0, 1.0, 1e-13]
    cal = cls(**FAST).fit(s, y)
    assert cal.n_clipped_ == 3
    proba = cal.predict_proba(s)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize("cls", [BayesianPlattCalibrator])
def test_decision_values_equal_logit_of_probabilities(cls):
    from scipy.special import logit

    s, y = calibrated(150, 5)
    a = cls(**FAST).fit(s, y).predict_proba(s)
    b = cls(input="decision", **FAST).fit(logit(s), y).predict_proba(logit(s))
    np.testing.assert_allclose(a, b, atol=1e-8)


# --------------------------------------------------------------------------- spline basis


def test_issue_11_spline_fits_uniform_scores_and_separable_data_with_laplace():
    # Before the fix: scipy "ValueError: Out of bounds" from BSpline.design_matrix (rounding
    # put the largest training logit past the last base knot) for seed 0 here.
    rng = np.random.default_rng(0)
    s = rng.uniform(0.01, 0.99, 200)
    y = (rng.random(200) < s).astype(int)
    cal = BayesianSplineCalibrator(**FAST).fit(s, y)
    assert np.all(np.isfinite(cal.predict_proba(s)))
    separable = np.r_[np.linspace(0.01, 0.4, 100), np.linspace(0.6, 0.99, 100)]
    cal = BayesianSplineCalibrator(**FAST).fit(separable, (separable > 0.5).astype(int))
    proba = cal.predict_proba(separable)
    assert np.all(np.isfinite(proba)) and proba[0, 1] < 0.5 < proba[-1, 1]


SWEEP_SCORES = {
    "uniform": np.random.default_rng(1).uniform(0.01, 0.99, 60),
    "exact 0 and 1": np.r_[0.0, 1.0, np.random.default_rng(2).uniform(size=58)],
    "narrow": 0.5 + 1e-6 * np.random.default_rng(3).uniform(size=60),
    "near 1": 1.0 - 10.0 ** -np.random.default_rng(4).uniform(3, 9, 60),
}


@pytest.mark.parametrize("n_basis", [4, 10])
@pytest.mark.parametrize("name", list(SWEEP_SCORES))
def test_spline_fits_and_predicts_on_every_valid_input(name, n_basis):
    s = SWEEP_SCORES[name]
    y = (np.random.default_rng(5).random(s.size) < 0.5).astype(int)
    y[:2] = [0, 1]
    cal = BayesianSplineCalibrator(n_basis=n_basis, inference="laplace", draws=50,
                                   random_state=0).fit(s, y)
    # the training range's ends, beyond them (extrapolation) and the exact ends of [0, 1]
    grid = np.r_[s.min(), s.max(), 0.0, 1.0, np.nextafter(s.min(), 0), 0.5, s]
    proba = cal.predict_proba(grid)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_spline_basis_is_orthogonal_to_the_fixed_effects_on_the_training_scores():
    s, y = calibrated(300, 11)
    cal = BayesianSplineCalibrator(intercept_scale=1e8, **FAST).fit(s, y)
    design = cal._design(s)
    fixed = np.column_stack([np.ones(s.size), design["F"]])
    # Fisher weights p (1 - p) of the pilot Platt fit, whose ridge on the slope is
    # 1 / prior_scale^2: scikit-learn's L2 fit with C = prior_scale^2 (intercept free)
    info = cal._fisher_weights(fixed, y.astype(float), np.ones(s.size))
    lr = LogisticRegression(C=2.5**2, tol=1e-12, max_iter=1000).fit(design["F"], y)
    p = lr.predict_proba(design["F"])[:, 1]
    np.testing.assert_allclose(info, p * (1 - p), rtol=1e-6)
    # orthogonal to [1, z~] in the Fisher inner product of the basis' second pass: the
    # weights w p (1 - p) of the spline's own conditional mode at the grid's median tau;
    # Demmler-Reinsch: diagonal information
    info = cal.basis_weights_
    assert np.all((info > 0) & (info <= 0.25))
    np.testing.assert_allclose(fixed.T @ (info[:, None] * design["B"]), 0.0, atol=1e-8)
    gram = design["B"].T @ (info[:, None] * design["B"])
    np.testing.assert_allclose(gram, np.diag(cal.basis_information_), atol=1e-8)
    assert np.all(cal.basis_information_ >= 0)
    # the rotation is orthogonal, so the prior u ~ N(0, tau^2 I) is unchanged by it
    np.testing.assert_allclose(cal.basis_rotation_.T @ cal.basis_rotation_, np.eye(8), atol=1e-12)
    np.testing.assert_allclose(design["F"].mean(), 0.0, atol=1e-12)
    np.testing.assert_allclose(design["F"].std(), 1.0)
    # outside the training range the map continues linearly in z = logit(s)
    z = np.array([8.0, 9.0, 10.0])
    eta = cal._linear_predictor_draws(1.0 / (1.0 + np.exp(-z))).mean(axis=0)
    np.testing.assert_allclose(np.diff(eta, n=2), 0.0, atol=1e-9)


@pytest.mark.slow
def test_spline_nuts_mixes_on_well_specified_scores():
    # Issue 11: with the plain basis, default NUTS gave min bulk ESS 14-168 of 2 x 1000 draws
    # and 14-113 divergences on these data (benchmarks/spline_map.py, seeds 0-2); with the
    # unweighted orthogonal basis, fully non-centred, 345-864 over seeds 0-5 (tau the
    # bottleneck). In the Demmler-Reinsch basis, partially non-centred: 516-991 over seeds
    # 0-5, no divergences, R-hat <= 1.01. This is seed 5, the worst: with the current stack
    # (arviz-stats 1.x's ESS estimator, nutpie 0.16) its min bulk ESS is 399.9, at the
    # diagnostics' threshold of 400 (so the fit itself warns); an ESS estimate of 2000
    # draws carries a Monte-Carlo error of several per cent, so the test asked for 95 % of it.
    # Issue 27 gave the smoothness scale tau a half-Student-t(3) prior (heavier-tailed, so
    # that bent maps are not held linear): benchmarks/spline_map.py then measured 329-1209
    # over seeds 0-5 (median 648), no divergences, R-hat <= 1.008; seed 5 is still the worst,
    # 329 (the fit warns, below 400), hence 300 here, with 95 % of it for the Monte-Carlo error.
    s, y = calibrated(1000, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
        cal = BayesianSplineCalibrator(random_state=5).fit(s, y)
    diag = cal.diagnostics_
    assert diag.sampler == "nutpie" and (diag.n_chains, diag.n_draws) == (2, 1000)
    assert diag.divergences == 0
    assert diag.rhat_max <= 1.01
    assert diag.ess_bulk_min >= 0.95 * 300
    # the innovations too, as benchmarks/spline_map.py counts them
    full = posterior_diagnostics(cal.idata_, sampler="nutpie", seconds=0.0,
                                 var_names=["intercept", "coef", "tau", "innovations"])
    assert full.rhat_max <= 1.01 and full.ess_bulk_min >= 0.95 * 300


def narrow_scores(n=300):
    """``benchmarks/sampler_choice.py``'s n = 300 map data: all scores in [0.495, 0.506]."""
    rng = np.random.default_rng(300_001)
    x = rng.normal(size=(n, 1))
    s = 1.0 / (1.0 + np.exp(-(x @ rng.normal(scale=2.0, size=1))))
    return s, rng.binomial(1, s)


class _UncentredBeta(BayesianBetaCalibrator):
    """The beta map as it was sampled before: the intercept ``c`` itself."""

    _centre_features = False


def test_beta_map_centring_keeps_the_posterior_density():
    # the centred model samples c0 = c + m^T (a, b): a shear with unit Jacobian, so its
    # log density at (c0, log a, log b) must equal the original's at (c, log a, log b) --
    # the same prior on c, a, b and the same likelihood, with no constant between them
    s, y = calibrated(50, 3)
    cal = BayesianBetaCalibrator(**FAST).fit(s, y)
    F = cal._features(s)
    data = {"F": F, "t": y.astype(float), "w": np.ones(s.size)}
    hyper = cal._hyper()
    original = calibration_map_model(data, **hyper)
    centred = calibration_map_model({**data, "centre": cal.feature_centre_}, **hyper)
    np.testing.assert_allclose(cal.feature_centre_, F.mean(axis=0))
    logp_o, logp_c = original.compile_logp(), centred.compile_logp()
    rng = np.random.default_rng(0)
    for _ in range(5):
        c, log_ab = rng.normal(scale=3.0), rng.normal(scale=1.5, size=2)
        c0 = c + cal.feature_centre_ @ np.exp(log_ab)
        lo = logp_o({"intercept": c, "coef_log__": log_ab})
        lc = logp_c({"intercept_centred": c0, "coef_log__": log_ab})
        np.testing.assert_allclose(lc, lo, rtol=1e-10)


def test_beta_map_warns_when_the_posterior_fails():
    s, y = narrow_scores()
    with pytest.warns(PosteriorDiagnosticsWarning,
                      match=r"BayesianBetaCalibrator posterior failed.*ESS.*Increase `tune`"):
        cal = BayesianBetaCalibrator(draws=20, tune=50, random_state=0).fit(s, y)
    assert not cal.diagnostics_.converged


@pytest.mark.slow
def test_beta_map_mixes_on_narrow_scores():
    # sampler_choice's n = 300 set (scores in [0.495, 0.506]): c is pinned only with
    # a - b, a curved ridge in (c, log a, log b). Sampling c itself gave R-hat 1.08-1.65,
    # bulk ESS 3-22 and 8-20 divergences with the defaults (benchmarks/beta_map_mixing.py)
    s, y = narrow_scores()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
        cal = BayesianBetaCalibrator(draws=300, tune=500, random_state=0).fit(s, y)
    diag = cal.diagnostics_
    assert diag.divergences == 0
    assert diag.rhat_max <= 1.01
    assert diag.ess_bulk_min >= 200


@pytest.mark.slow
def test_beta_map_centred_agrees_with_the_original_where_it_converged():
    rng = np.random.default_rng(5)  # benchmarks/beta_map_mixing.py synthetic n = 2000, seed 5
    x = rng.normal(size=(2000, 1))
    s = 1.0 / (1.0 + np.exp(-(x @ rng.normal(scale=2.0, size=1))))
    y = rng.binomial(1, s)
    grid = np.linspace(0.01, 0.99, 25)
    means, ses = [], []
    # the original as the benchmark ran it (defaults, target_accept 0.8: converged on this
    # set), the centred map with 2 x 500 draws (R-hat within about 0.01 of 1 by chance)
    for cal in (_UncentredBeta(target_accept=0.8, random_state=0),
                BayesianBetaCalibrator(draws=500, tune=500, random_state=0)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PosteriorDiagnosticsWarning)
            cal.fit(s, y)
        assert cal.diagnostics_.divergences == 0 and cal.diagnostics_.rhat_max <= 1.02
        draws = cal._proba_draws(grid)[..., 1]
        means.append(draws.mean(axis=0))
        ses.append(draws.std(axis=0) / np.sqrt(cal.diagnostics_.ess_bulk_min))
    assert np.all(np.abs(means[1] - means[0]) <= 4.0 * np.hypot(*ses))


def test_beta_map_on_saturated_scores_is_not_converged_and_says_why():
    """Issue 27: the Laplace beta map on spambase naive-Bayes scores depends on the clip
    convention (Brier 0.009-0.016 apart between clips 1e-12 and 1e-16); it
    was reported converged without a warning."""
    from tests.calibration._saturated_scores import HAVE_SPAMBASE, spambase_naive_bayes_scores

    if not HAVE_SPAMBASE:
        pytest.skip("the shared data folder (BAYESCAL_DATA) has no spambase")
    s, y = spambase_naive_bayes_scores()
    cal = BayesianBetaCalibrator(inference="laplace", draws=100, random_state=0)
    with pytest.warns(UserWarning, match="set by the clip convention") as record:
        cal.fit(s, y)
    assert not cal.diagnostics_.converged
    assert any("clip convention" in f for f in cal.diagnostics_.failures)
    assert cal.clip_sensitivity_ > 0.02
    assert any("IsotonicCalibrator" in str(w.message) for w in record)
    # well inside (0, 1): no such failure
    rng = np.random.default_rng(0)
    u = rng.uniform(0.05, 0.95, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its Laplace check may fail; not the point here
        fine = BayesianBetaCalibrator(inference="laplace", draws=100, random_state=0).fit(
            u, (rng.random(300) < u).astype(int))
    assert fine.clip_sensitivity_ == 0.0
    assert not any("clip" in f for f in fine.diagnostics_.failures)
