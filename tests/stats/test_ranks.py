"""Ranks of methods across datasets: scipy's average ranks, direction, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import rankdata

from bayescal.stats.ranks import check_score_matrix, mean_ranks, rank_methods


def test_ties_are_averaged_and_lower_is_best():
    ranks = rank_methods([[0.1, 0.2, 0.1, 0.4]])
    np.testing.assert_array_equal(ranks, [[1.5, 3.0, 1.5, 4.0]])


def test_direction_reverses_ranks():
    scores = np.array([[0.9, 0.8, 0.7], [0.6, 0.9, 0.8]])
    up = rank_methods(scores, lower_is_better=False)
    down = rank_methods(scores, lower_is_better=True)
    np.testing.assert_array_equal(up, 4 - down)
    np.testing.assert_array_equal(mean_ranks(scores, lower_is_better=False), up.mean(axis=0))


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(2, 7)),
              elements=st.sampled_from([0.1, 0.2, 0.3, 0.4])))
def test_rows_sum_to_triangular_number_and_match_scipy(scores):
    ranks = rank_methods(scores)
    k = scores.shape[1]
    np.testing.assert_allclose(ranks.sum(axis=1), k * (k + 1) / 2)
    np.testing.assert_array_equal(ranks, rankdata(scores, axis=1))


@pytest.mark.parametrize(
    ("scores", "kwargs", "error", "match"),
    [
        ([[0.1, 0.2]], {}, ValueError, "1 dataset.*at least 2"),
        ([[0.1], [0.2]], {}, ValueError, "1 method.*at least 2"),
        ([[0.1, np.nan], [0.2, 0.3]], {}, ValueError, "NaN or inf.*index \\(0, 1\\)"),
        ([0.1, 0.2], {}, ValueError, "must be 2-D"),
        ([["a", "b"], ["c", "d"]], {}, TypeError, "must hold numbers"),
    ],
)
def test_check_score_matrix_rejects(scores, kwargs, error, match):
    with pytest.raises(error, match=match):
        check_score_matrix(scores, **kwargs)


def test_rank_methods_rejects_non_bool_direction():
    with pytest.raises(TypeError, match="lower_is_better"):
        rank_methods([[0.1, 0.2]], lower_is_better="yes")
