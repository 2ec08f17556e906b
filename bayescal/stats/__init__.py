"""bayescal.stats: significance tests and their application to result cubes.

- :mod:`bayescal.stats.significance`: the tests as NumPy functions on per-fold
  scores (5×2 CV t-test, combined 5×2 CV F-test, McNemar, CV t-test,
  corrected resampled t-test);
- :mod:`bayescal.stats.compare`: the tests along the fold dimension of a cube;
- :mod:`bayescal.stats.tables`: paper-style summary tables;
- across datasets: :mod:`~bayescal.stats.ranks`, :mod:`~bayescal.stats.friedman`,
  :mod:`~bayescal.stats.posthoc` (Nemenyi, Holm-Wilcoxon),
  :mod:`~bayescal.stats.bayesian_tests` (correlated t, signed-rank),
  :mod:`~bayescal.stats.hierarchical` (PyMC and scikit-learn: import
  ``HierarchicalComparison`` from there) and, on cubes,
  :mod:`~bayescal.stats.methods` (:func:`compare_methods`).
"""

from bayescal.stats.bayesian_tests import correlated_ttest, signed_rank_test
from bayescal.stats.compare import compare
from bayescal.stats.friedman import friedman_test
from bayescal.stats.methods import compare_methods
from bayescal.stats.posthoc import critical_difference, nemenyi_test, wilcoxon_holm_test
from bayescal.stats.ranks import mean_ranks, rank_methods
from bayescal.stats.significance import (
    SignificanceResult,
    combined_ftest_5x2cv,
    corrected_resampled_ttest,
    cv_ttest,
    mcnemar,
    mcnemar_table,
    paired_ttest_5x2cv,
)
from bayescal.stats.tables import summary_table

__all__ = [
    "SignificanceResult",
    "combined_ftest_5x2cv",
    "compare",
    "compare_methods",
    "correlated_ttest",
    "critical_difference",
    "friedman_test",
    "mean_ranks",
    "nemenyi_test",
    "rank_methods",
    "signed_rank_test",
    "wilcoxon_holm_test",
    "corrected_resampled_ttest",
    "cv_ttest",
    "mcnemar",
    "mcnemar_table",
    "paired_ttest_5x2cv",
    "summary_table",
]
