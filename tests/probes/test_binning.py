"""Tests of the Bayesian binning calibrators (BBQ, SBB, ABB)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import betaln, logsumexp
from sklearn.exceptions import NotFittedError

from bayescal.probes.binning import (
    ABBCalibrator,
    BBQCalibrator,
    SBBCalibrator,
    abb_dynamic_programme,
    bbq_bin_range,
    beta_mixture_quantile,
    bin_log_marginal_likelihood,
    equal_frequency_starts,
    score_cells,
)

CALIBRATORS = [BBQCalibrator, SBBCalibrator, ABBCalibrator]


def _calibrated(n, seed):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return s, rng.binomial(1, s)


# ----------------------------------------------------------------- hand-checked scores


def test_marginal_likelihood_of_a_tiny_binning_by_hand():
    s = np.array([0.1, 0.2, 0.6, 0.9])
    y = np.array([0.0, 1.0, 1.0, 1.0])
    cells = score_cells(s, y, np.ones(4))
    np.testing.assert_allclose(cells.edges, [0.0, 0.15, 0.4, 0.75, 1.0])
    starts = equal_frequency_starts(np.cumsum(cells.positives + cells.negatives), 2)
    np.testing.assert_array_equal(starts, [0, 2])
    # bin 1 covers [0, 0.4): midpoint 0.2 -> Beta(0.4, 1.6); one positive, one negative
    # bin 2 covers [0.4, 1]: midpoint 0.7 -> Beta(1.4, 0.6); two positives
    by_hand = (betaln(1 + 0.4, 1 + 1.6) - betaln(0.4, 1.6)) + (
        betaln(2 + 1.4, 0 + 0.6) - betaln(1.4, 0.6)
    )
    got = bin_log_marginal_likelihood(
        np.array([1.0, 2.0]), np.array([1.0, 0.0]), np.array([0.0, 0.4]), np.array([0.4, 1.0])
    ).sum()
    assert got == pytest.approx(by_hand, rel=1e-12)


def test_bbq_model_weights_by_hand():
    # n = 10 -> BBQ averages over B in {1, 2} (bin range of the paper / authors' code)
    s = np.linspace(0.05, 0.95, 10)
    y = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 1])
    assert bbq_bin_range(10) == (1, 2)
    cal = BBQCalibrator(random_state=0).fit(s, y)
    log_b1 = betaln(5 + 1.0, 5 + 1.0) - betaln(1.0, 1.0)  # one bin over [0, 1]
    cut = 0.5 * (s[4] + s[5])
    p1, p2 = cut / 2, (cut + 1) / 2
    log_b2 = (betaln(1 + 2 * p1, 4 + 2 * (1 - p1)) - betaln(2 * p1, 2 * (1 - p1))) + (
        betaln(4 + 2 * p2, 1 + 2 * (1 - p2)) - betaln(2 * p2, 2 * (1 - p2))
    )
    np.testing.assert_allclose(cal.idata_["binnings"]["log_evidence"].values, [log_b1, log_b2])
    w = np.exp(np.array([log_b1, log_b2]) - logsumexp([log_b1, log_b2]))
    np.testing.assert_allclose(cal.idata_["binnings"]["weight"].values, w)
    mean_low = w[0] * 6 / 12 + w[1] * (1 + 2 * p1) / (5 + 2)
    assert cal.predict_proba([0.1])[0, 1] == pytest.approx(mean_low)


# ----------------------------------------------------------------- DP against brute force


def _brute_force(s, y, q, ess=2.0):
    cells = score_cells(s, y, np.ones_like(s))
    m = cells.n_cells
    results = []
    for gaps in itertools.product([0, 1], repeat=m - 1):
        starts = np.array([0] + [g + 1 for g in range(m - 1) if gaps[g]])
        ends = np.append(starts[1:], m)
        pos = np.array([cells.positives[a:b].sum() for a, b in zip(starts, ends, strict=True)])
        neg = np.array([cells.negatives[a:b].sum() for a, b in zip(starts, ends, strict=True)])
        lo, hi = cells.edges[starts], cells.edges[ends]
        a0 = ess * np.clip((lo + hi) / 2, 5e-3, 1 - 5e-3)
        b0 = ess - a0
        logml = np.sum(betaln(pos + a0, neg + b0) - betaln(a0, b0))
        logprior = sum(gaps) * np.log(q) + (m - 1 - sum(gaps)) * np.log1p(-q)
        cellmean = np.repeat((pos + a0) / (pos + neg + a0 + b0), ends - starts)
        results.append((logml + logprior, starts, cellmean))
    return cells, results


@pytest.mark.parametrize("q", [0.5, 0.2])
def test_dynamic_programme_matches_enumeration_of_all_binnings(q):
    rng = np.random.default_rng(3)
    s = np.round(rng.uniform(size=9), 2)
    s[3] = s[5]  # a tie: a distinct score is one cell
    y = rng.binomial(1, s).astype(float)
    y[:2] = [0, 1]
    cells, results = _brute_force(s, y, q)
    logs = np.array([r[0] for r in results])
    dp = abb_dynamic_programme(cells, cut_probability=q)
    assert dp.log_evidence == pytest.approx(logsumexp(logs), rel=1e-10)

    sbb = SBBCalibrator(cut_probability=q, random_state=0).fit(s, y)
    best = results[int(np.argmax(logs))][1]
    np.testing.assert_array_equal(sbb.posterior_.starts[0], best)
    assert sbb.diagnostics_["log_score_selected"] == pytest.approx(logs.max())

    abb = ABBCalibrator(cut_probability=q, n_binnings=20, random_state=0).fit(s, y)
    post = np.exp(logs - logsumexp(logs))
    exact_mean = sum(p * r[2] for p, r in zip(post, results, strict=True))
    np.testing.assert_allclose(abb.cell_mean_, exact_mean, rtol=1e-10)
    np.testing.assert_allclose(abb.predict_proba(cells.values)[:, 1], exact_mean, rtol=1e-10)


def test_sbb_selected_posterior_mass_matches_enumeration_and_flags_a_constant_map():
    # A weak trend on 9 rows: the one-bin binning is the most probable single binning
    # although the binnings with cuts hold most of the posterior mass together.
    s = np.array([0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85])
    y = np.array([0, 1, 0, 0, 1, 0, 1, 1, 0.0])
    cells, results = _brute_force(s, y, 0.2)
    logs = np.array([r[0] for r in results])
    best = int(np.argmax(logs))
    assert results[best][1].size == 1  # the enumeration itself selects one bin
    mass = float(np.exp(logs[best] - logsumexp(logs)))
    assert mass < 0.5
    with pytest.warns(UserWarning, match=r"constant map.*ABBCalibrator"):
        sbb = SBBCalibrator(cut_probability=0.2, method="exact", random_state=0).fit(s, y)
    assert sbb.diagnostics_.extra["selected_posterior_mass"] == pytest.approx(mass, rel=1e-10)
    assert sbb.diagnostics_.extra["constant_map"] is True
    assert not sbb.diagnostics_.converged
    assert f"{mass:.2f}" in sbb.diagnostics_.failures[0]
    assert np.ptp(sbb.predict_proba(np.linspace(0, 1, 11))[:, 1]) == 0.0


def test_sbb_that_uses_the_scores_is_not_flagged():
    import warnings

    s, y = _calibrated(300, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all
        sbb = SBBCalibrator(random_state=0, n_draws=10).fit(s, y)
    assert sbb.posterior_.starts[0].size > 1 and sbb.diagnostics_.converged
    assert "constant_map" not in sbb.diagnostics_.extra
    assert 0.0 < sbb.diagnostics_.extra["selected_posterior_mass"] <= 1.0


def test_bbq_flags_a_map_dominated_by_its_one_bin_binning():
    # A weak trend (0.15 -> 0.35) on 200 uniform scores, miscalibrated against the bins'
    # mid-score priors: the one-bin binning holds most of BBQ's posterior weight.
    rng = np.random.default_rng(3)
    s = rng.uniform(size=200)
    y = rng.binomial(1, 0.15 + 0.2 * s).astype(float)
    # oracle: the evidence of each equal-frequency binning from the per-bin formula
    cells = score_cells(s, y, np.ones_like(s))
    low, high = bbq_bin_range(200)
    cum = np.cumsum(cells.positives + cells.negatives)
    logs, one_bin = [], []
    for n_bins in range(low, high + 1):
        starts = equal_frequency_starts(cum, n_bins)
        ends = np.append(starts[1:], cells.n_cells)
        pos = np.array([cells.positives[i:j].sum() for i, j in zip(starts, ends, strict=True)])
        neg = np.array([cells.negatives[i:j].sum() for i, j in zip(starts, ends, strict=True)])
        logs.append(bin_log_marginal_likelihood(pos, neg, cells.edges[starts],
                                                cells.edges[ends]).sum())
        one_bin.append(starts.size == 1)
    weight = np.exp(np.array(logs) - logsumexp(logs))[np.array(one_bin)].sum()
    assert weight > 0.5
    with pytest.warns(UserWarning, match=r"near-constant map.*ABBCalibrator"):
        bbq = BBQCalibrator(n_draws=10, random_state=0).fit(s, y)
    assert bbq.diagnostics_.extra["one_bin_weight"] == pytest.approx(weight, rel=1e-9)
    assert bbq.diagnostics_.extra["near_constant_map"] is True
    assert not bbq.diagnostics_.converged
    assert f"{weight:.2f}" in bbq.diagnostics_.failures[0]
    assert np.ptp(bbq.cell_mean_) < 0.01


def test_bbq_that_uses_the_scores_is_not_flagged():
    import warnings

    s, y = _calibrated(300, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all
        bbq = BBQCalibrator(random_state=0, n_draws=10).fit(s, y)
    assert bbq.diagnostics_.converged and "near_constant_map" not in bbq.diagnostics_.extra
    assert bbq.diagnostics_.extra["one_bin_weight"] < 1e-6


def test_abb_samples_binnings_with_their_posterior_probability():
    rng = np.random.default_rng(5)
    s = np.round(rng.uniform(size=6), 3)
    y = np.array([0, 1, 0, 1, 1, 0.0])
    cells, results = _brute_force(s, y, 0.5)
    logs = np.array([r[0] for r in results])
    post = np.exp(logs - logsumexp(logs))
    abb = ABBCalibrator(cut_probability=0.5, n_binnings=4000, random_state=1).fit(s, y)
    keys = [tuple(r[1]) for r in results]
    counts = {k: 0 for k in keys}
    for st_ in abb.posterior_.starts:
        counts[tuple(st_)] += 1
    freq = np.array([counts[k] for k in keys]) / 4000
    # binomial standard error at most 0.008 per binning
    assert np.max(np.abs(freq - post)) < 0.035


# ----------------------------------------------------------------- calibrated scores


@pytest.mark.parametrize("cls", [BBQCalibrator, ABBCalibrator])
def test_calibrated_scores_give_a_near_diagonal_map_covered_by_the_band(cls):
    grid = np.linspace(0.02, 0.98, 49)
    coverage, rmse = [], []
    for seed in range(4):
        s, y = _calibrated(1000, seed)
        cal = cls(random_state=seed, n_draws=50).fit(s, y)
        p = cal.predict_proba(grid)[:, 1]
        band = cal.predict_interval(grid, prob=0.9)[:, 1]
        coverage.append(np.mean((band[:, 0] <= grid) & (grid <= band[:, 1])))
        rmse.append(np.sqrt(np.mean((p - grid) ** 2)))
    assert np.mean(rmse) < 0.06
    assert np.mean(coverage) > 0.7
    assert min(coverage) > 0.5


def test_sbb_map_is_near_the_diagonal():
    s, y = _calibrated(1000, 0)
    p = SBBCalibrator(random_state=0, n_draws=10).fit(s, y).predict_proba(np.linspace(0.02, 0.98, 49))
    assert np.sqrt(np.mean((p[:, 1] - np.linspace(0.02, 0.98, 49)) ** 2)) < 0.08


def test_bbq_recovers_a_miscalibrated_map():
    rng = np.random.default_rng(0)
    s = rng.uniform(size=3000)
    truth = s**3
    cal = BBQCalibrator(random_state=0, n_draws=10).fit(s, rng.binomial(1, truth))
    grid = np.linspace(0.05, 0.95, 19)
    assert np.max(np.abs(cal.predict_proba(grid)[:, 1] - grid**3)) < 0.12


# ----------------------------------------------------------------- posterior contract


@pytest.mark.parametrize("cls", CALIBRATORS)
def test_posterior_contract_and_reproducibility(cls):
    s, y = _calibrated(150, 1)
    a = cls(random_state=7, n_draws=30).fit(s, y)
    b = cls(random_state=7, n_draws=30).fit(s, y)
    np.testing.assert_array_equal(
        a.idata_["posterior"]["bin_frequency"].values, b.idata_["posterior"]["bin_frequency"].values
    )
    assert a.diagnostics_["sampler"] == "analytic"
    assert np.isnan(a.diagnostics_["rhat_max"])
    assert a.idata_["posterior"]["bin_frequency"].sizes["draw"] == 30
    np.testing.assert_allclose(a.idata_["binnings"]["weight"].sum(), 1.0)
    grid = np.linspace(0, 1, 11)
    proba = a.predict_proba(grid)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    draws = a._proba_draws(grid)
    assert draws.shape == (30, 11, 2)
    hdi = a.predict_interval(grid, kind="hdi")
    assert hdi.shape == (11, 2, 2)


def test_exact_mixture_quantiles_agree_with_draws():
    s, y = _calibrated(400, 2)
    cal = BBQCalibrator(random_state=0, n_draws=20000).fit(s, y)
    grid = np.linspace(0.05, 0.95, 10)
    exact = cal.predict_interval(grid, prob=0.8)[:, 1]
    draws = cal._proba_draws(grid)[:, :, 1]
    np.testing.assert_allclose(exact[:, 0], np.quantile(draws, 0.1, axis=0), atol=0.01)
    np.testing.assert_allclose(exact[:, 1], np.quantile(draws, 0.9, axis=0), atol=0.01)


def test_beta_mixture_quantile_of_one_component_is_scipy_ppf():
    from scipy.stats import beta

    a = np.array([[2.0], [0.5], [30.0]])
    b = np.array([[5.0], [0.7], [3.0]])
    got = beta_mixture_quantile(0.95, np.ones(1), a, b)
    np.testing.assert_allclose(got, beta.ppf(0.95, a[:, 0], b[:, 0]), atol=1e-8)


@pytest.mark.parametrize("cls", [SBBCalibrator, ABBCalibrator])
def test_integer_weights_equal_repeated_samples(cls):
    s, y = _calibrated(60, 4)
    w = np.full(60, 2.0)
    a = cls(cut_probability=0.1, random_state=0, n_draws=5).fit(s, y, sample_weight=w)
    b = cls(cut_probability=0.1, random_state=0, n_draws=5).fit(np.tile(s, 2), np.tile(y, 2))
    grid = np.linspace(0, 1, 21)
    np.testing.assert_allclose(a.predict_proba(grid), b.predict_proba(grid), rtol=1e-10)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=3, max_size=25),
    st.integers(0, 2**16),
    st.sampled_from(CALIBRATORS),
)
def test_maps_and_bands_are_probabilities(scores, seed, cls):
    s = np.array(scores)
    y = np.arange(s.size) % 2
    cal = cls(random_state=seed, n_draws=20, **({"n_binnings": 10} if cls is ABBCalibrator else {}))
    cal.fit(s, y)
    grid = np.linspace(0, 1, 7)
    p = cal.predict_proba(grid)[:, 1]
    band = cal.predict_interval(grid, prob=0.9)[:, 1]
    assert np.all((p > 0) & (p < 1))
    assert np.all(band[:, 0] <= band[:, 1] + 1e-9)
    assert np.all((band >= 0) & (band <= 1))
    narrow = cal.predict_interval(grid, prob=0.5)[:, 1]
    assert np.all(narrow[:, 1] - narrow[:, 0] <= band[:, 1] - band[:, 0] + 1e-7)


# ----------------------------------------------------------------- bad input

GOOD_S = np.linspace(0.1, 0.9, 20)
GOOD_Y = np.arange(20) % 2


@pytest.mark.parametrize(
    ("cls", "params", "scores", "y", "exc", "match"),
    [
        (BBQCalibrator, {}, np.r_[GOOD_S[:-1], np.nan], GOOD_Y, ValueError, "scores"),
        (BBQCalibrator, {}, np.r_[GOOD_S[:-1], 1.5], GOOD_Y, ValueError, "scores"),
        (SBBCalibrator, {}, GOOD_S, np.zeros(20), ValueError, "single class"),
        (ABBCalibrator, {}, GOOD_S, GOOD_Y[:-1], ValueError, "inconsistent"),
        (BBQCalibrator, {"prior_strength": 0.0}, GOOD_S, GOOD_Y, ValueError,
         "'prior_strength' parameter of BBQCalibrator must be a float in the range"),
        (BBQCalibrator, {"n_draws": 0}, GOOD_S, GOOD_Y, ValueError,
         "'n_draws' parameter.*Got 0 instead"),
        (BBQCalibrator, {"spread": 0.5}, GOOD_S, GOOD_Y, ValueError, "'spread' parameter"),
        (SBBCalibrator, {"cut_probability": 1.5}, GOOD_S, GOOD_Y, ValueError,
         "'cut_probability' parameter of SBBCalibrator"),
        (ABBCalibrator, {"n_binnings": 0}, GOOD_S, GOOD_Y, ValueError, "'n_binnings' parameter"),
        (ABBCalibrator, {"n_binnings": 2.5}, GOOD_S, GOOD_Y, TypeError,
         "'n_binnings' parameter of ABBCalibrator must be an int"),
        (SBBCalibrator, {}, np.c_[GOOD_S, GOOD_S], GOOD_Y, ValueError, "sum to 1"),
        (SBBCalibrator, {"method": "quick"}, GOOD_S, GOOD_Y, ValueError, "'method' parameter"),
        (ABBCalibrator, {"method": None}, GOOD_S, GOOD_Y, ValueError, "'method' parameter"),
        (SBBCalibrator, {"max_cut_points": 1}, GOOD_S, GOOD_Y, ValueError,
         "'max_cut_points' parameter"),
        (ABBCalibrator, {"max_cut_points": 2.5}, GOOD_S, GOOD_Y, TypeError,
         "'max_cut_points' parameter"),
        (BBQCalibrator, {"weight_tolerance": 1.0}, GOOD_S, GOOD_Y, ValueError,
         "'weight_tolerance' parameter"),
        (ABBCalibrator, {"input": "logit"}, GOOD_S, GOOD_Y, ValueError, "'input' parameter"),
        (SBBCalibrator, {"random_state": -1}, GOOD_S, GOOD_Y, ValueError,
         "'random_state' parameter"),
    ],
)
def test_bad_input(cls, params, scores, y, exc, match):
    with pytest.raises(exc, match=match):
        cls(**params).fit(scores, y)


@pytest.mark.parametrize("cls", CALIBRATORS)
def test_bad_prediction_input(cls):
    with pytest.raises(NotFittedError):
        cls().predict_proba(GOOD_S)
    with pytest.raises(NotFittedError):
        cls().predict_interval(GOOD_S)
    cal = cls(n_draws=5).fit(GOOD_S, GOOD_Y)
    with pytest.raises(ValueError, match="prob"):
        cal.predict_interval(GOOD_S, prob=1.5)
    with pytest.raises(ValueError, match="kind"):
        cal.predict_interval(GOOD_S, kind="box")
    with pytest.raises(ValueError, match="scores"):
        cal.predict_proba([0.2, np.inf])
