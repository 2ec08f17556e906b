"""bayescal.stats: significance tests and their application to result cubes.

- :mod:`bayescal.stats.significance`: the tests as NumPy functions on per-fold
  scores (5×2 CV t-test, combined 5×2 CV F-test, McNemar, CV t-test,
  corrected resampled t-test);
- :mod:`bayescal.stats.compare`: the tests along the fold dimension of a cube;
- :mod:`bayescal.stats.tables`: paper-style summary tables.
"""

from bayescal.stats.compare import compare
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
    "corrected_resampled_ttest",
    "cv_ttest",
    "mcnemar",
    "mcnemar_table",
    "paired_ttest_5x2cv",
    "summary_table",
]
