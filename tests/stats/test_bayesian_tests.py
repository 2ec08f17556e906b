"""Bayesian correlated t-test and signed-rank test against baycomp (same numbers, same seed)."""

from __future__ import annotations

import baycomp
import numpy as np
import pytest
from baycomp.multiple import SignedRankTest

from bayescal.stats.bayesian_tests import (
    _signed_rank_samples,
    correlated_ttest,
    posterior_winner_probabilities,
    signed_rank_test,
)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("rope", [0.0, 0.005, 0.02])
def test_correlated_ttest_matches_baycomp(seed, rope):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.8, 0.02, 10)
    b = a + rng.normal(0.006, 0.01, 10)
    ours = correlated_ttest(a, b, rope=rope)
    theirs = baycomp.two_on_single(a, b, rope=rope)
    if rope == 0:
        assert (ours.p_left, ours.p_right) == pytest.approx(theirs, abs=1e-12)
        assert ours.p_rope == 0.0
    else:
        assert (ours.p_left, ours.p_rope, ours.p_right) == pytest.approx(theirs, abs=1e-12)


def test_correlated_ttest_rho_of_repeated_cv_matches_baycomp_runs():
    rng = np.random.default_rng(9)
    a = rng.normal(0.8, 0.02, 30)  # 3 runs of 10-fold CV
    b = a + rng.normal(0.004, 0.01, 30)
    ours = correlated_ttest(a, b, rope=0.005, rho=1 / 10)
    theirs = baycomp.two_on_single(a, b, rope=0.005, runs=3)
    assert (ours.p_left, ours.p_rope, ours.p_right) == pytest.approx(theirs, abs=1e-12)


def test_correlated_ttest_differences_only_and_constant_differences():
    d = np.full(10, 0.25)
    result = correlated_ttest(d, rope=0.01)
    assert (result.p_left, result.p_rope, result.p_right) == pytest.approx((0, 0, 1), abs=1e-12)
    inside = correlated_ttest(np.full(5, 0.001), rope=0.01)
    assert inside.p_rope == 1.0


def test_correlated_ttest_symmetry():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=10), rng.normal(size=10)
    fwd, back = correlated_ttest(a, b, rope=0.1), correlated_ttest(b, a, rope=0.1)
    assert fwd.p_left == pytest.approx(back.p_right) and fwd.p_rope == pytest.approx(back.p_rope)


@pytest.mark.parametrize("rope", [0.0, 0.01])
def test_signed_rank_kernel_equals_baycomp_on_the_same_dirichlet_draws(rope):
    rng = np.random.default_rng(4)
    x = rng.normal(0.2, 0.05, 15)
    y = x + rng.normal(0.004, 0.01, 15)
    theirs = SignedRankTest.sample(x, y, rope=rope, nsamples=500, random_state=11)
    alpha = np.ones(16)
    alpha[0] = 0.5
    weights = np.random.RandomState(11).dirichlet(alpha, 500)
    ours = _signed_rank_samples(y - x, weights, rope)
    np.testing.assert_allclose(ours, theirs, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_signed_rank_probabilities_match_baycomp_within_monte_carlo_error(seed):
    # baycomp draws with the legacy RandomState, bayescal with a Generator: the
    # probabilities agree within Monte-Carlo error (4 standard errors of 50000 draws
    # from each side).
    rng = np.random.default_rng(seed)
    x = rng.normal(0.2, 0.05, 20)
    y = x + rng.normal(0.005, 0.01, 20)
    ours = signed_rank_test(x, y, rope=0.005, random_state=seed)
    theirs = baycomp.two_on_multiple(x, y, rope=0.005, random_state=seed)
    for p, q in zip((ours.p_left, ours.p_rope, ours.p_right), theirs, strict=True):
        se = np.sqrt(2 * max(q * (1 - q), 1e-4) / 50000)
        assert abs(p - q) <= 4 * se + 1e-12


def test_signed_rank_is_reproducible_and_samples_are_probabilities():
    rng = np.random.default_rng(0)
    d = rng.normal(0.0, 0.01, 12)
    one = signed_rank_test(d, rope=0.005, n_samples=3000, random_state=5)
    two = signed_rank_test(d, rope=0.005, n_samples=3000, random_state=5)
    np.testing.assert_array_equal(one.samples, two.samples)
    assert one.samples.shape == (3000, 3)
    np.testing.assert_allclose(one.samples.sum(axis=1), 1.0)
    assert (one.samples >= -1e-12).all()
    assert one.p_left + one.p_rope + one.p_right == pytest.approx(1.0)


def test_winner_probabilities():
    samples = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.1, 0.2, 0.7]]
    assert posterior_winner_probabilities(samples) == (0.25, 0.25, 0.5)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: correlated_ttest([0.1]), "at least 2"),
        (lambda: correlated_ttest([0.1, 0.2], [0.1]), "same shape"),
        (lambda: correlated_ttest([0.1, np.nan]), "NaN"),
        (lambda: correlated_ttest([0.1, 0.2], rope=-0.1), "rope.*>= 0"),
        (lambda: correlated_ttest([0.1, 0.2], rho=1.0), "rho"),
        (lambda: correlated_ttest([[0.1, 0.2]]), "1-D"),
        (lambda: signed_rank_test([0.1]), "at least 2"),
        (lambda: signed_rank_test([0.1, 0.2], prior_strength=0), "prior_strength"),
        (lambda: signed_rank_test([0.1, 0.2], n_samples=0), "n_samples"),
        (lambda: posterior_winner_probabilities(np.ones((3, 2))), "n_samples, 3"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
