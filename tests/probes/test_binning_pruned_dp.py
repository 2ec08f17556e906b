"""The near-linear SBB/ABB programme equals the exact one where it claims to."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from bayescal.probes.binning import (
    ABBCalibrator,
    SBBCalibrator,
    abb_dynamic_programme,
    score_cells,
)
from bayescal.probes.binning.cells import ScoreCells
from bayescal.probes.binning.exact_dp import _abb_cell_mean, _cut_probability, _sbb_starts
from bayescal.probes.binning.pruned_dp import candidate_starts, pruned_dynamic_programme


def _uniform(n, seed, decimals=None):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    if decimals is not None:
        s = np.round(s, decimals)  # ties: many samples share a distinct score
    return s, rng.binomial(1, s)


def _naive_bayes(n, seed):
    x, y = make_classification(n_samples=2 * n, n_features=8, n_informative=4,
                               random_state=seed)
    model = GaussianNB().fit(x[:n], y[:n])
    return model.predict_proba(x[n:])[:, 1], y[n:]


def _breast_cancer_logistic(seed):
    x, y = load_breast_cancer(return_X_y=True)
    order = np.random.default_rng(seed).permutation(y.size)
    x, y = x[order] / x.std(axis=0), y[order]
    half = y.size // 2
    model = LogisticRegression(C=0.05, max_iter=2000).fit(x[:half], y[:half])
    return model.predict_proba(x[half:])[:, 1], y[half:]


CASES = {
    "uniform-300": lambda: _uniform(300, 0),
    "uniform-2000": lambda: _uniform(2000, 1),
    "uniform-5000": lambda: _uniform(5000, 2),
    "ties-2dp-3000": lambda: _uniform(3000, 3, decimals=2),
    "ties-3dp-3000": lambda: _uniform(3000, 4, decimals=3),
    "naive-bayes-2500": lambda: _naive_bayes(2500, 5),
    "naive-bayes-rounded-3000": lambda: (np.round(_naive_bayes(3000, 6)[0], 3),
                                         _naive_bayes(3000, 6)[1]),
    "breast-cancer-logistic": lambda: _breast_cancer_logistic(7),
}


def _exact(s, y):
    cells = score_cells(s, y.astype(float), np.ones(s.size))
    q = _cut_probability(None, s.size, cells.n_cells)
    return cells, q, abb_dynamic_programme(cells, cut_probability=q)


def _log_score(cells: ScoreCells, starts, q):
    from bayescal.probes.binning.cells import _beta_posterior

    ll = _beta_posterior(cells, starts, 2.0)[2]
    return ll + (starts.size - 1) * np.log(q) + (cells.n_cells - starts.size) * np.log1p(-q)


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_sbb_selects_the_exact_optimum(case):
    s, y = CASES[case]()
    cells, q, dp = _exact(s, y)
    exact_score = float(dp.best[-1] - dp.log_cut)
    fast = SBBCalibrator(random_state=0).fit(s, y)
    assert fast.diagnostics_["n_cut_points"] < cells.n_cells - 1  # the fast path did restrict
    selected = fast.posterior_.starts[0]
    # the reported score is the score of the binning it returns ...
    assert fast.diagnostics_["log_score_selected"] == pytest.approx(
        _log_score(cells, selected, q), rel=1e-12)
    # ... and it is the exact optimum's
    assert fast.diagnostics_["log_score_selected"] == pytest.approx(exact_score, rel=1e-6)
    exact = SBBCalibrator(method="exact", random_state=0).fit(s, y)
    assert exact.diagnostics_["log_score_selected"] == pytest.approx(exact_score, rel=1e-12)
    np.testing.assert_array_equal(_sbb_starts(dp), exact.posterior_.starts[0])


@pytest.mark.parametrize("case", ["uniform-2000", "ties-2dp-3000", "naive-bayes-2500",
                                  "breast-cancer-logistic"])
def test_fast_abb_is_the_exact_average_up_to_max_cut_points(case):
    s, y = CASES[case]()
    cells, _, dp = _exact(s, y)
    fast = ABBCalibrator(n_binnings=50, random_state=0).fit(s, y)
    assert fast.diagnostics_["n_cut_points"] == cells.n_cells - 1
    assert fast.diagnostics_["log_evidence"] == pytest.approx(dp.log_evidence, rel=1e-10)
    exact_map = _abb_cell_mean(cells, dp, 2.0)
    np.testing.assert_allclose(fast.cell_mean_, exact_map, atol=1e-10)
    np.testing.assert_allclose(fast.predict_proba(cells.values)[:, 1], exact_map, atol=1e-10)


def test_pruning_alone_reproduces_the_exact_max_and_sum_programmes():
    s, y = _uniform(1500, 11)
    cells, q, dp = _exact(s, y)
    pruned = pruned_dynamic_programme(cells, cut_probability=q, boundary_points=False,
                                      max_cut_points=None, backward=True)
    np.testing.assert_allclose(pruned.forward, dp.forward, rtol=1e-12)
    np.testing.assert_allclose(pruned.backward, dp.backward, rtol=1e-12)
    np.testing.assert_array_equal(pruned.selected_starts(), _sbb_starts(dp))
    no_pruning = pruned_dynamic_programme(cells, cut_probability=q, boundary_points=False,
                                          max_cut_points=None, margin=np.inf)
    assert no_pruning.n_scores == cells.n_cells * (cells.n_cells + 1) // 2
    assert pruned.n_scores < no_pruning.n_scores


def test_thinned_abb_is_a_coarser_average_close_to_the_exact_map():
    s, y = _uniform(3000, 12)
    cells, _, dp = _exact(s, y)
    thinned = ABBCalibrator(n_binnings=20, max_cut_points=400, random_state=0).fit(s, y)
    assert thinned.diagnostics_["n_cut_points"] <= 399
    # a sum over a subset of the binnings, each scored exactly
    assert thinned.diagnostics_["log_evidence"] < dp.log_evidence
    exact_map = _abb_cell_mean(cells, dp, 2.0)
    gap = np.abs(thinned.cell_mean_ - exact_map)
    # edges quantised to blocks of ~7 scores: small on average, larger on steep parts
    assert np.mean(gap) < 0.01
    assert np.max(gap) < 0.1


def test_candidate_starts_keep_runs_of_one_label_whole():
    values = np.arange(8) / 8 + 0.01
    pos = np.array([1, 2, 0, 0, 1, 1, 0, 3.0])
    neg = np.array([0, 0, 1, 2, 1, 0, 0, 0.0])  # cell 6 holds no weight
    edges = np.concatenate([[0.0], 0.5 * (values[1:] + values[:-1]), [1.0]])
    cells = ScoreCells(values, edges, pos, neg)
    # 0-1 pure positive run, 2-3 pure negative run, 4 mixed, 5 pure, 6 empty, 7 pure
    np.testing.assert_array_equal(candidate_starts(cells), [0, 2, 4, 5, 6, 7, 8])
    np.testing.assert_array_equal(candidate_starts(cells, boundary_points=False), np.arange(9))
    thinned = candidate_starts(cells, 3, boundary_points=False)
    assert thinned[0] == 0 and thinned[-1] == 8 and thinned.size <= 4
