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
    equal_frequency_starts,
    score_cells,
)
from bayescal.probes.binning.conflict import CONFLICT_BAYES_FACTOR, prior_conflict_check
from bayescal.probes.binning.estimator import merge_check

CALIBRATORS = [BBQCalibrator, SBBCalibrator, ABBCalibrator]


def _overconfident(n, seed):
    """Scores far more extreme than the truth (naive-Bayes-like): p = expit(z), s = expit(8 z)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    return expit(8.0 * z), rng.binomial(1, expit(z)).astype(float)


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


def test_bbq_conflict_bayes_factor_matches_enumeration_of_its_binnings():
    s, y = _overconfident(250, 2)
    cells = score_cells(s, y, np.ones_like(s))
    low, high = bbq_bin_range(s.size)
    cum = np.cumsum(cells.positives + cells.negatives)
    centred, neutral = [], []
    for n_bins in range(low, high + 1):
        counts = _bin_counts(cells, equal_frequency_starts(cum, n_bins))
        centred.append(_log_ml(*counts, centred=True))
        neutral.append(_log_ml(*counts, centred=False))
    expected = logsumexp(neutral) - logsumexp(centred)
    assert expected > np.log(CONFLICT_BAYES_FACTOR)  # the case is a conflict
    with pytest.warns(UserWarning, match="prior-data conflict"):
        bbq = BBQCalibrator(n_draws=5, random_state=0).fit(s, y)
    assert bbq.diagnostics_.extra["prior_conflict_log_bayes_factor"] == pytest.approx(
        expected, rel=1e-10)


@pytest.mark.parametrize("estimator", CALIBRATORS)
@pytest.mark.parametrize("seed", [0, 1])
def test_overconfident_scores_are_flagged_as_a_prior_data_conflict(estimator, seed):
    s, y = _overconfident(400, seed)
    with pytest.warns(UserWarning, match=r"prior-data conflict.*Bayes factor.*IsotonicCalibrator"):
        fitted = estimator(n_draws=5, random_state=0).fit(s, y)
    extra = fitted.diagnostics_.extra
    assert extra["prior_conflict"] is True and not fitted.diagnostics_.converged
    assert extra["prior_conflict_log_bayes_factor"] > np.log(CONFLICT_BAYES_FACTOR)
    bf = f"{np.exp(extra['prior_conflict_log_bayes_factor']):.3g}"
    assert any(bf in failure for failure in fitted.diagnostics_.failures)


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


def test_the_threshold_is_a_bayes_factor_of_ten():
    edge = np.log(CONFLICT_BAYES_FACTOR)
    assert "failure" not in prior_conflict_check(0.0, edge - 1e-9, "x")
    flagged = prior_conflict_check(-1.0, edge - 1.0 + 1e-9, "the binnings x")
    assert flagged["prior_conflict"] is True and "the binnings x" in flagged["failure"]
    assert flagged["prior_conflict_log_bayes_factor"] == pytest.approx(edge + 1e-9)


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
