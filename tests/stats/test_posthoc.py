"""Nemenyi and Holm-Wilcoxon post-hoc tests against scikit-posthocs, Demšar's table and scipy."""

from __future__ import annotations

import numpy as np
import pytest
import scikit_posthocs
from scipy import stats
from statsmodels.stats.multitest import multipletests

from bayescal.stats.posthoc import (
    critical_difference,
    holm_adjust,
    nemenyi_test,
    studentized_range_quantile,
    wilcoxon_holm_test,
)

# Demšar (2006), Table 5(a): critical values q_0.05 of the two-tailed Nemenyi test.
DEMSAR_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031,
              9: 3.102, 10: 3.164}
# Table 5(a), q_0.10.
DEMSAR_Q10 = {2: 1.645, 3: 2.052, 4: 2.291, 5: 2.459, 6: 2.589, 7: 2.693, 8: 2.780,
              9: 2.855, 10: 2.920}


@pytest.mark.parametrize("k", range(2, 11))
def test_q_alpha_matches_demsar_table_5(k):
    # scipy's studentized range agrees with the printed table to its 3 decimals
    # (the table's last digit is off by one unit for k = 3 and k = 7 at 0.05:
    # 2.3437 and 2.9483 printed as 2.343 and 2.949).
    assert abs(studentized_range_quantile(k, 0.05) - DEMSAR_Q05[k]) <= 1e-3
    assert abs(studentized_range_quantile(k, 0.10) - DEMSAR_Q10[k]) <= 1e-3


@pytest.mark.parametrize("k", range(2, 11))
@pytest.mark.parametrize("n", [5, 14, 30])
def test_critical_difference_formula(k, n):
    expected = DEMSAR_Q05[k] * np.sqrt(k * (k + 1) / (6 * n))
    assert critical_difference(k, n) == pytest.approx(expected, abs=1e-3)


def test_demsar_worked_example_cd():
    # Demšar (2006), Section 3.2.2: four methods on 14 datasets, CD = 2.569 * sqrt(4*5/(6*14))
    assert round(critical_difference(4, 14), 2) == 1.25


def test_cd_beyond_the_table():
    # no table limit: k = 20 works and the CD grows with k
    assert critical_difference(20, 10) > critical_difference(10, 10) > 0


@pytest.mark.parametrize("seed", range(4))
def test_nemenyi_matches_scikit_posthocs(seed):
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=(15, 5)) + np.linspace(0, 1.5, 5), 1)
    ours = nemenyi_test(scores)
    theirs = scikit_posthocs.posthoc_nemenyi_friedman(scores).to_numpy()
    np.testing.assert_allclose(ours.p_values, theirs, atol=1e-6)
    assert ours.critical_difference == pytest.approx(critical_difference(5, 15))


def test_nemenyi_significance_agrees_with_cd():
    rng = np.random.default_rng(7)
    scores = rng.normal(size=(20, 4)) + [0.0, 0.1, 0.9, 1.5]
    result = nemenyi_test(scores)
    gaps = np.abs(result.mean_ranks[:, None] - result.mean_ranks[None, :])
    off = ~np.eye(4, dtype=bool)
    np.testing.assert_array_equal((result.p_values < 0.05)[off],
                                  (gaps > result.critical_difference)[off])


@pytest.mark.parametrize("seed", range(3))
def test_holm_matches_statsmodels(seed):
    p = np.random.default_rng(seed).uniform(0, 0.2, size=7)
    np.testing.assert_allclose(holm_adjust(p), multipletests(p, method="holm")[1], atol=1e-12)


def test_wilcoxon_holm_matches_scipy():
    rng = np.random.default_rng(5)
    scores = rng.normal(size=(16, 4)) + [0.0, 0.4, -0.2, 0.8]
    result = wilcoxon_holm_test(scores, control=0)
    for j in (1, 2, 3):
        expected = stats.wilcoxon(scores[:, j] - scores[:, 0])
        assert result.p_values[j] == pytest.approx(expected.pvalue, abs=1e-12)
        assert result.statistic[j] == pytest.approx(expected.statistic)
    np.testing.assert_allclose(result.p_adjusted[1:],
                               multipletests(result.p_values[1:], method="holm")[1])
    assert np.isnan(result.p_values[0]) and np.isnan(result.p_adjusted[0])


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: studentized_range_quantile(1), ValueError, "n_methods.*>= 2"),
        (lambda: studentized_range_quantile(2.5), TypeError, "n_methods.*integer"),
        (lambda: critical_difference(3, 0), ValueError, "n_datasets"),
        (lambda: nemenyi_test([[1, 2], [2, 1]], alpha=1.5), ValueError, "alpha"),
        (lambda: nemenyi_test([[1, 2]]), ValueError, "at least 2"),
        (lambda: holm_adjust([0.1, 1.2]), ValueError, "p_values.*<= 1"),
        (lambda: wilcoxon_holm_test([[1, 2], [2, 3]], control=2), ValueError, "control"),
        (lambda: wilcoxon_holm_test([[1, 1], [2, 2]], control=0), ValueError, "identical"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
