"""The prior-data conflict check of the Bayesian binning calibrators (BBQ, SBB, ABB)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy.special import betaln, expit, logsumexp

from bayescal.probes.binning import (
    ABBCalibrator,
    BBQCalibrator,
    SBBCalibrator,
    bbq_bin_range,
    conflict,
    equal_frequency_starts,
    score_cells,
)
from bayescal.probes.binning.conflict import (
    CONFLICT_BAYES_FACTOR,
    CONFLICT_MAP_RMS,
    map_difference,
    prior_conflict_check,
)
from bayescal.probes.binning.estimator import merge_check

CALIBRATORS = [BBQCalibrator, SBBCalibrator, ABBCalibrator]


def _overconfident(n, seed, sharpness=8.0):
    """Scores far more extreme than the truth (naive-Bayes-like): p = expit(z), s = expit(k z)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    return expit(sharpness * z), rng.binomial(1, expit(z)).astype(float)


def _calibrated(n, seed):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return s, rng.binomial(1, s).astype(float)


def _bin_counts(cells, starts):
    ends = np.append(starts[1:], cells.n_cells)
    pos = np.array([cells.positives[a:b].sum() for a, b in zip(starts, ends, strict=True)])
    neg = np.array([cells.negatives[a:b].sum() for a, b in zip(starts, ends, strict=True)])
    return pos, neg, cells.edges[starts], cells.edges[ends]


def _log_ml(pos, neg, lo, hi, centred, ess=2.0):
    """Per-binning log marginal likelihood, written out: score-centred or neutral priors."""
    a0 = ess * np.clip((lo + hi) / 2, 5e-3, 1 - 5e-3) if centred else np.full(pos.size, ess / 2)
    b0 = ess - a0
    return float(np.sum(betaln(pos + a0, neg + b0) - betaln(a0, b0)))


def _neutral_cell_map(cells, starts, ess=2.0):
    """Beta posterior mean of each cell's bin under neutral priors, Beta(ess/2, ess/2)."""
    pos, neg, _, _ = _bin_counts(cells, starts)
    sizes = np.diff(np.append(starts, cells.n_cells))
    return np.repeat((pos + ess / 2) / (pos + neg + ess), sizes)


def _rms_over_rows(fitted_map, neutral_map, cells):
    w = cells.positives + cells.negatives
    return float(np.sqrt(np.sum(w * (fitted_map - neutral_map) ** 2) / np.sum(w)))


@pytest.fixture
def every_factor_is_a_conflict(monkeypatch):
    """Compute the map difference whatever the Bayes factor (the flag needs both)."""
    monkeypatch.setattr(conflict, "CONFLICT_BAYES_FACTOR", 1e-300)


@pytest.mark.parametrize(("estimator", "method"), [(ABBCalibrator, "exact"),
                                                   (ABBCalibrator, "fast"),
                                                   (SBBCalibrator, "exact")])
def test_conflict_bayes_factor_matches_enumeration_of_all_binnings(estimator, method):
    s, y = _overconfident(30, 1)
    s = np.sort(s)[::3]  # 10 distinct scores: 512 binnings
    y = y[::3]
    q = 0.3
    cells = score_cells(s, y, np.ones_like(s))
    m = cells.n_cells
    centred, neutral = [], []
    for gaps in itertools.product([0, 1], repeat=m - 1):
        starts = np.array([0] + [g + 1 for g in range(m - 1) if gaps[g]])
        counts = _bin_counts(cells, starts)
        prior = sum(gaps) * np.log(q) + (m - 1 - sum(gaps)) * np.log1p(-q)
        centred.append(_log_ml(*counts, centred=True) + prior)
        neutral.append(_log_ml(*counts, centred=False) + prior)
    expected = logsumexp(neutral) - logsumexp(centred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = estimator(cut_probability=q, method=method, n_draws=5, random_state=0).fit(s, y)
    got = fitted.diagnostics_.extra["prior_conflict_log_bayes_factor"]
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_sbb_neutral_map_is_the_neutral_selection_by_enumeration(every_factor_is_a_conflict):
    s, y = _overconfident(30, 1)
    s, y = np.sort(s)[::3], y[::3]
    q = 0.3
    cells = score_cells(s, y, np.ones_like(s))
    m = cells.n_cells
    best, best_starts = -np.inf, None
    for gaps in itertools.product([0, 1], repeat=m - 1):
        starts = np.array([0] + [g + 1 for g in range(m - 1) if gaps[g]])
        score = (_log_ml(*_bin_counts(cells, starts), centred=False)
                 + sum(gaps) * np.log(q) + (m - 1 - sum(gaps)) * np.log1p(-q))
        if score > best:
            best, best_starts = score, starts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sbb = SBBCalibrator(cut_probability=q, method="exact", n_draws=5, random_state=0).fit(s, y)
    expected = _rms_over_rows(sbb.cell_mean_, _neutral_cell_map(cells, best_starts), cells)
    assert expected > 0.01  # the neutral priors select another map here
    assert sbb.diagnostics_.extra["prior_conflict_map_rms"] == pytest.approx(expected, rel=1e-10)


def test_bbq_conflict_matches_enumeration_of_its_binnings():
    s, y = _overconfident(250, 2)
    cells = score_cells(s, y, np.ones_like(s))
    low, high = bbq_bin_range(s.size)
    cum = np.cumsum(cells.positives + cells.negatives)
    centred, neutral, neutral_maps = [], [], []
    for n_bins in range(low, high + 1):
        starts = equal_frequency_starts(cum, n_bins)
        counts = _bin_counts(cells, starts)
        centred.append(_log_ml(*counts, centred=True))
        neutral.append(_log_ml(*counts, centred=False))
        neutral_maps.append(_neutral_cell_map(cells, starts))
    expected = logsumexp(neutral) - logsumexp(centred)
    assert expected > np.log(CONFLICT_BAYES_FACTOR)  # the case is a conflict
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bbq = BBQCalibrator(n_draws=5, random_state=0).fit(s, y)
    extra = bbq.diagnostics_.extra
    assert extra["prior_conflict_log_bayes_factor"] == pytest.approx(expected, rel=1e-10)
    # the neutral map: the same binnings averaged with their neutral-prior weights
    weights = np.exp(np.array(neutral) - logsumexp(neutral))
    neutral_map = weights @ np.array(neutral_maps)
    rms = _rms_over_rows(bbq.cell_mean_, neutral_map, cells)
    assert extra["prior_conflict_map_rms"] == pytest.approx(rms, rel=1e-8)
    assert extra["prior_conflict_map_max"] == pytest.approx(
        np.max(np.abs(bbq.cell_mean_ - neutral_map)), rel=1e-8)
    assert extra.get("prior_conflict", False) == (rms > CONFLICT_MAP_RMS)


@pytest.mark.parametrize(("estimator", "n", "sharpness", "seed"), [
    (BBQCalibrator, 60, 20.0, 2), (BBQCalibrator, 60, 20.0, 3),
    (SBBCalibrator, 400, 8.0, 0), (SBBCalibrator, 400, 8.0, 1),
])
def test_a_contradicted_prior_that_moves_the_map_is_flagged(estimator, n, sharpness, seed):
    s, y = _overconfident(n, seed, sharpness)
    with pytest.warns(UserWarning, match=r"prior-data conflict.*Bayes factor.*root-mean-square"
                                         r".*IsotonicCalibrator"):
        fitted = estimator(n_draws=5, random_state=0).fit(s, y)
    extra = fitted.diagnostics_.extra
    assert extra["prior_conflict"] is True and not fitted.diagnostics_.converged
    assert extra["prior_conflict_log_bayes_factor"] > np.log(CONFLICT_BAYES_FACTOR)
    assert extra["prior_conflict_map_rms"] > CONFLICT_MAP_RMS
    assert extra["prior_conflict_map_max"] >= extra["prior_conflict_map_rms"]
    bf = f"{np.exp(extra['prior_conflict_log_bayes_factor']):.3g}"
    rms = f"{extra['prior_conflict_map_rms']:.3g}"
    assert any(bf in f and rms in f for f in fitted.diagnostics_.failures)


@pytest.mark.parametrize("estimator", [BBQCalibrator, SBBCalibrator])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_contradicted_prior_that_leaves_the_map_is_not_flagged(estimator, seed):
    # 20,000 over-confident rows: the evidence against the score-centred priors is
    # overwhelming, but the bins are full and the map hardly depends on the prior
    s, y = _overconfident(20_000, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all
        fitted = estimator(n_draws=5, random_state=0).fit(s, y)
    extra = fitted.diagnostics_.extra
    assert extra["prior_conflict_log_bayes_factor"] > np.log(1e6)
    assert extra["prior_conflict_map_rms"] < CONFLICT_MAP_RMS / 2
    assert fitted.diagnostics_.converged and "prior_conflict" not in extra


def test_abb_records_the_bayes_factor_and_never_flags_it():
    s, y = _overconfident(2000, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        abb = ABBCalibrator(n_binnings=5, n_draws=5, random_state=0).fit(s, y)
    extra = abb.diagnostics_.extra
    assert extra["prior_conflict_log_bayes_factor"] > np.log(CONFLICT_BAYES_FACTOR)
    assert abb.diagnostics_.converged and "prior_conflict" not in extra
    assert "prior_conflict_map_rms" not in extra  # no neutral map is computed


@pytest.mark.parametrize("estimator", CALIBRATORS)
@pytest.mark.parametrize("seed", [0, 1])
def test_calibrated_scores_are_not_flagged(estimator, seed):
    s, y = _calibrated(400, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all
        fitted = estimator(n_draws=5, random_state=0).fit(s, y)
    assert fitted.diagnostics_.converged and "prior_conflict" not in fitted.diagnostics_.extra
    # the score-centred priors are the better explanation of calibrated scores
    assert fitted.diagnostics_.extra["prior_conflict_log_bayes_factor"] < 0.0
    assert "prior_conflict_map_rms" not in fitted.diagnostics_.extra


def _check(log_bf, rms):
    """The check on two cells of equal weight whose neutral map is ``rms`` away."""
    return prior_conflict_check(0.0, log_bf, "the binnings x", centred_map=np.array([0.3, 0.6]),
                                neutral_map=lambda: np.array([0.3 + rms, 0.6 - rms]),
                                cell_weights=np.array([2.0, 2.0]))


def test_the_flag_needs_a_bayes_factor_of_ten_and_a_map_moved_by_the_threshold():
    edge = np.log(CONFLICT_BAYES_FACTOR)

    def never():
        raise AssertionError("the neutral map is computed only for a conflict")

    below = prior_conflict_check(0.0, edge - 1e-9, "x", centred_map=np.zeros(2),
                                 neutral_map=never, cell_weights=np.ones(2))
    assert below == {"prior_conflict_log_bayes_factor": pytest.approx(edge - 1e-9)}
    near_map = _check(edge + 1e-9, CONFLICT_MAP_RMS - 1e-6)
    assert "failure" not in near_map and "prior_conflict" not in near_map
    assert near_map["prior_conflict_map_rms"] == pytest.approx(CONFLICT_MAP_RMS - 1e-6)
    flagged = _check(edge + 1e-9, CONFLICT_MAP_RMS + 1e-6)
    assert flagged["prior_conflict"] is True and "the binnings x" in flagged["failure"]
    assert flagged["prior_conflict_log_bayes_factor"] == pytest.approx(edge + 1e-9)
    assert "IsotonicCalibrator" in flagged["remedy"]
    # without a map (ABB) only the factor is recorded, however large
    assert prior_conflict_check(0.0, 50.0, "x") == {"prior_conflict_log_bayes_factor": 50.0}


def test_the_map_difference_is_weighted_by_the_calibration_rows():
    centred = np.array([0.1, 0.5, 0.9])
    neutral = np.array([0.4, 0.5, 0.8])
    rms, largest = map_difference(centred, neutral, np.array([1.0, 6.0, 3.0]))
    assert rms == pytest.approx(np.sqrt((1 * 0.09 + 3 * 0.01) / 10))
    assert largest == pytest.approx(0.3)
    # a cell without rows counts for neither
    assert map_difference(centred, neutral, np.array([0.0, 1.0, 1.0])) == pytest.approx(
        (np.sqrt(0.01 / 2), 0.1))


def test_the_threshold_is_a_brier_change_of_the_peer_sweep_tolerance():
    # replacing a calibrated map p by p + d adds E[d^2] to the expected Brier score
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, size=400_000)
    y = rng.binomial(1, p)
    d = np.where(rng.uniform(size=p.size) < 0.5, CONFLICT_MAP_RMS, -CONFLICT_MAP_RMS)
    extra = np.mean((p + d - y) ** 2) - np.mean((p - y) ** 2)
    assert extra == pytest.approx(0.01, abs=1e-3)
    assert CONFLICT_MAP_RMS ** 2 == pytest.approx(0.01)


def test_failed_checks_of_one_fit_share_its_warning():
    extra: dict = {"n_models": 3}
    merge_check(extra, {"a": 1})
    assert extra == {"n_models": 3, "a": 1}  # a passed check adds its entries only
    merge_check(extra, {"b": True, "failure": "first", "remedy": "Use X."})
    merge_check(extra, {"c": True, "failure": "second", "remedy": "Use Y."})
    merge_check(extra, {"failure": "third", "remedy": "Use X."})
    assert extra["failures"] == ["first", "second", "third"]
    assert extra["remedy"] == "Use X. Use Y."
    assert extra["b"] is True and extra["c"] is True and "failure" not in extra
