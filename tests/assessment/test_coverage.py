"""Coverage of the assessment's 90% intervals on simulated predictions with a known curve.

200 replications of n = 500 (``bayescal.assessment.coverage``): the truth is the
logistic-linear curve ``logit g(p) = -0.3 + 0.8 logit p``, so the true intercept,
slope and ICI are known. Each interval must cover the truth in 85-95 % of the
replications (nominal 90 %; the binomial standard error at 200 replications is
2.1 points). Measured (seed 0): Wald intercept 0.915 and slope 0.925, bootstrap ICI
0.915, posterior intercept 0.91, slope 0.905, ICI 0.88; the Bayesian curve's
pointwise band 0.953 over 21 points (conservative: the smoothing prior shrinks the
spline towards the true, linear-in-logit curve).
"""

from __future__ import annotations

import pytest

from bayescal.assessment.coverage import coverage_study


@pytest.mark.slow
def test_intervals_cover_the_truth_at_their_level():
    result = coverage_study(200, n=500, level=0.9, seed=0)
    coverage = result["coverage"]
    assert set(coverage) == {"intercept_wald", "slope_wald", "ici_bootstrap",
                             "intercept_posterior", "slope_posterior", "ici_posterior"}
    for name, share in coverage.items():
        assert 0.85 <= share <= 0.95, (name, share)
    assert 0.85 <= result["band_coverage"] <= 0.97


def test_a_sabotaged_interval_fails_the_coverage_check():
    """Intervals of a third of the width cover far less often: the check can fail."""
    from bayescal.assessment import coverage as cov

    result = cov.coverage_study(40, n=300, level=0.9 / 3, bayesian=False, n_bootstrap=50, seed=1)
    assert result["coverage"]["slope_wald"] < 0.85


@pytest.mark.slow
def test_bayesian_band_covers_a_curved_truth_at_its_level():
    """The band's rate on a curve the smoothness prior does not favour: below nominal.

    Measured (seed 0, 200 x 500 rows, 90 % band) for ``logit p + 0.5 sin(2 logit p)``:
    0.799, mean width 0.118, 1 % of fits flagged. Before issue 27 it was 0.909 with a
    width of 0.146, but 68 % of those fits had failed their Pareto-smoothed check: the
    joint Laplace approximation put ``tau`` too high (median 2.9 against NUTS's 1.2) and
    its band was a quarter wider than the posterior's. The Laplace fit with ``tau`` on a
    grid agrees with NUTS replication by replication (width within 0.004, the same
    coverage on 3 of 4 replications checked), so 0.80 is the posterior's own rate on
    this curve: the smoothness prior shrinks the sine towards the linear map. On the
    logistic-linear curve (the penalty's null space) the band over-covers (0.95-0.96
    before issue 27), as Nychka (1988) describes for such curves.
    """
    from bayescal.assessment.coverage import band_coverage_study

    result = band_coverage_study("wiggle", 200, n=500, level=0.9, seed=0)
    assert result["flagged"] <= 0.05, result
    assert 0.75 <= result["band_coverage"] <= 0.85, result
