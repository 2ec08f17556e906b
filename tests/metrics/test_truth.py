"""RMSE and MAE against known true probabilities."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import mean_absolute_error, mean_squared_error

from bayescal.metrics import mae_true, rmse_true


def test_binary_equals_positive_class_errors():
    rng = np.random.default_rng(0)
    t = rng.uniform(size=100)
    p = rng.uniform(size=100)
    assert rmse_true(t, p) == pytest.approx(np.sqrt(mean_squared_error(t, p)))
    assert mae_true(t, p) == pytest.approx(mean_absolute_error(t, p))
    two = np.column_stack([1 - t, t]), np.column_stack([1 - p, p])
    assert rmse_true(*two) == pytest.approx(rmse_true(t, p))


def test_multiclass_and_weights():
    rng = np.random.default_rng(1)
    T = rng.dirichlet([1, 1, 1], size=40)
    P = rng.dirichlet([1, 1, 1], size=40)
    w = rng.uniform(0.5, 2, size=40)
    assert rmse_true(T, P) == pytest.approx(np.sqrt(np.mean((P - T) ** 2)))
    assert mae_true(T, P, sample_weight=w) == pytest.approx(
        np.average(np.abs(P - T).mean(axis=1), weights=w)
    )
    assert rmse_true(T, T) == 0.0


def test_shape_mismatch():
    with pytest.raises(ValueError, match="`p_true` has shape"):
        rmse_true([0.2, 0.3], [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match="`p_true`"):
        mae_true([0.2, 1.3], [0.2, 0.3])
