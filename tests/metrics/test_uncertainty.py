"""Thesis Eq. 9 uncertainty."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayescal.metrics import uncertainty


def test_closed_form_values():
    P = np.array([[1.0, 0.0, 0.0, 0.0], [0.25] * 4, [0.7, 0.1, 0.1, 0.1]])
    # 1 - (0.7 - 0.25) / 0.75 = 0.4
    np.testing.assert_allclose(uncertainty(P), [0.0, 1.0, 0.4])


def test_binary_form():
    p = np.linspace(0, 1, 11)
    np.testing.assert_allclose(uncertainty(p), 2 * (1 - np.maximum(p, 1 - p)))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(1, 20), st.integers(0, 2**32 - 1))
def test_bounds_and_row_wise(k, n, seed):
    P = np.random.default_rng(seed).dirichlet(np.ones(k), size=n)
    u = uncertainty(P)
    assert u.shape == (n,)
    assert np.all((u >= 0) & (u <= 1))
    # permuting the classes does not change the uncertainty
    np.testing.assert_allclose(uncertainty(P[:, ::-1]), u)


def test_bad_input():
    with pytest.raises(ValueError, match="rows of `proba` must sum to 1"):
        uncertainty([[0.5, 0.6]])
