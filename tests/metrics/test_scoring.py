"""Scoring rules against scikit-learn and closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

from bayescal.metrics import accuracy, brier_class_mean, brier_score, brier_sum, log_loss


def _random_problem(seed: int, n: int = 200, k: int = 4):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)  # every class present for scikit-learn's label inference
    return y, P


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [2, 3, 5])
def test_brier_forms_equal_sklearn(seed, k):
    y, P = _random_problem(seed, k=k)
    # brier: scikit-learn's default convention; brier_sum: its unscaled form
    assert brier_score(y, P) == pytest.approx(brier_score_loss(y, P), rel=1e-12)
    unscaled = brier_score_loss(y, P, scale_by_half=False)
    assert brier_sum(y, P) == pytest.approx(unscaled, rel=1e-12)
    assert brier_class_mean(y, P) == pytest.approx(unscaled / k, rel=1e-12)


def test_binary_brier_forms_against_the_one_column_score():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=100)
    y = rng.integers(0, 2, size=100)
    one_column = np.mean((p - y) ** 2)
    assert brier_score(y, p) == pytest.approx(one_column)
    assert brier_score(y, p) == pytest.approx(brier_score_loss(y, p))
    assert brier_sum(y, p) == pytest.approx(2 * one_column)
    assert brier_class_mean(y, p) == pytest.approx(one_column)
    assert 0.0 <= brier_score(y, p) <= 1.0


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [2, 3, 6])
def test_log_loss_equals_sklearn(seed, k):
    y, P = _random_problem(seed, k=k)
    assert log_loss(y, P) == pytest.approx(sk_log_loss(y, P), rel=1e-12)


def test_weighted_scores_equal_sklearn():
    y, P = _random_problem(7, k=3)
    w = np.random.default_rng(7).uniform(0.1, 2.0, size=y.shape[0])
    assert log_loss(y, P, sample_weight=w) == pytest.approx(sk_log_loss(y, P, sample_weight=w))
    assert brier_score(y, P, sample_weight=w) == pytest.approx(
        brier_score_loss(y, P, sample_weight=w)
    )
    assert brier_sum(y, P, sample_weight=w) == pytest.approx(
        brier_score_loss(y, P, sample_weight=w, scale_by_half=False)
    )


def test_log_loss_zero_probability_is_inf_with_warning_or_clipped():
    y = [0, 1]
    P = [[1.0, 0.0], [1.0, 0.0]]  # second sample gives 0 to its true class
    with pytest.warns(RuntimeWarning, match="1 sample"):
        assert log_loss(y, P) == np.inf
    assert log_loss(y, P, eps=1e-15) == pytest.approx(-np.log(1e-15) / 2)
    # eps only acts on probabilities below it
    assert log_loss([0], [[0.5, 0.5]], eps=1e-3) == pytest.approx(np.log(2))


@pytest.mark.parametrize("eps", [0.0, -1e-3, 0.5, 1.0])
def test_log_loss_bad_eps(eps):
    with pytest.raises(ValueError, match="`eps`"):
        log_loss([0], [[0.5, 0.5]], eps=eps)


def test_log_loss_eps_type():
    with pytest.raises(TypeError, match="`eps`"):
        log_loss([0], [[0.5, 0.5]], eps="small")


def test_hand_computed_values():
    y = [0, 1, 2]
    P = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]
    expected_brier = (
        (0.3**2 + 0.2**2 + 0.1**2) + (0.1**2 + 0.2**2 + 0.1**2) + (0.3**2 + 0.3**2 + 0.6**2)
    ) / 3
    assert brier_score(y, P) == pytest.approx(expected_brier)
    assert brier_sum(y, P) == pytest.approx(expected_brier)
    assert brier_class_mean(y, P) == pytest.approx(expected_brier / 3)
    assert log_loss(y, P) == pytest.approx(-(np.log(0.7) + np.log(0.8) + np.log(0.4)) / 3)
    assert accuracy(y, P) == pytest.approx(1.0)
    assert accuracy([1, 1, 1], P) == pytest.approx(1 / 3)


def test_accuracy_tie_goes_to_lowest_class():
    assert accuracy([0, 1], [0.5, 0.5]) == 0.5


probas = st.integers(min_value=2, max_value=5).flatmap(
    lambda k: st.tuples(
        st.just(k),
        st.lists(
            st.lists(st.floats(0.0, 1.0), min_size=k, max_size=k).filter(lambda r: sum(r) > 1e-3),
            min_size=1,
            max_size=30,
        ),
        st.integers(0, 2**32 - 1),
    )
)


@settings(max_examples=60, deadline=None)
@given(probas)
def test_bounds_and_order_invariance(data):
    k, rows, seed = data
    P = np.asarray(rows)
    P = P / P.sum(axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=P.shape[0])
    b = brier_score(y, P)
    acc = accuracy(y, P)
    ll = log_loss(y, P, eps=1e-12)
    assert 0.0 <= b <= 2.0 + 1e-12
    assert 0.0 <= acc <= 1.0
    assert 0.0 <= ll <= -np.log(1e-12) + 1e-9
    perm = rng.permutation(P.shape[0])
    assert brier_score(y[perm], P[perm]) == pytest.approx(b)
    assert accuracy(y[perm], P[perm]) == pytest.approx(acc)
    assert log_loss(y[perm], P[perm], eps=1e-12) == pytest.approx(ll)


def test_proper_scoring_rule_minimised_by_truth():
    # Expected score under the true distribution is smallest at the truth.
    rng = np.random.default_rng(11)
    p_true = np.array([0.6, 0.3, 0.1])
    y = rng.choice(3, size=20000, p=p_true)
    truth = np.tile(p_true, (y.size, 1))
    other = np.tile([0.5, 0.3, 0.2], (y.size, 1))
    assert brier_score(y, truth) < brier_score(y, other)
    assert log_loss(y, truth) < log_loss(y, other)
