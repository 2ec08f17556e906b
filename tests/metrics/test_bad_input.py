"""Every (y, proba) metric rejects bad input with a ValueError naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.metrics import (
    accuracy,
    brier_score,
    expected_calibration_error,
    log_loss,
    maximum_calibration_error,
    reliability_curve,
)

METRICS = [
    brier_score,
    log_loss,
    accuracy,
    expected_calibration_error,
    maximum_calibration_error,
    reliability_curve,
]

GOOD_P = [[0.8, 0.2], [0.3, 0.7], [0.5, 0.5]]

BAD = [
    ([0, 1, 0], [[0.8, 0.2], [np.nan, 0.7], [0.5, 0.5]], ValueError, "`proba` contains NaN"),
    (
        [0, 1, 0],
        [[0.8, 0.2], [np.inf, 0.7], [0.5, 0.5]],
        ValueError,
        "`proba` contains NaN or inf",
    ),
    ([0, 1, 0], [1.2, 0.5, 0.1], ValueError, "`proba` must be <= 1"),
    ([0, 1, 0], [-0.1, 0.5, 0.1], ValueError, "`proba` must be >= 0"),
    ([0, 1, 0], [[0.8, 0.3], [0.3, 0.7], [0.5, 0.5]], ValueError, "rows of `proba` must sum to 1"),
    ([0, 2, 0], GOOD_P, ValueError, "`y` must hold class codes 0..1"),
    ([0, -1, 0], GOOD_P, ValueError, "`y` must hold class codes 0..K-1"),
    ([0, 1], GOOD_P, ValueError, "inconsistent numbers of samples"),
    ([0, 0.5, 1], GOOD_P, ValueError, "`y` must hold whole-number"),
    ([0, np.nan, 1], GOOD_P, ValueError, "`y` contains NaN"),
    ([], np.zeros((0, 2)), ValueError, "is empty"),
    ([[0, 1, 0]], GOOD_P, ValueError, "`y` must be 1-D"),
    (["a", "b", "a"], GOOD_P, TypeError, "`y` must hold integer class codes"),
]


@pytest.mark.parametrize("metric", METRICS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("y", "proba", "error", "match"), BAD)
def test_bad_input_table(metric, y, proba, error, match):
    with pytest.raises(error, match=match):
        metric(y, proba)


@pytest.mark.parametrize("metric", [brier_score, log_loss, accuracy], ids=lambda f: f.__name__)
def test_bad_sample_weight(metric):
    with pytest.raises(ValueError, match="`sample_weight`"):
        metric([0, 1, 0], GOOD_P, sample_weight=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="`sample_weight` has 2 entries"):
        metric([0, 1, 0], GOOD_P, sample_weight=[1.0, 1.0])


def test_input_is_not_modified():
    P = np.array(GOOD_P)
    y = np.array([0, 1, 0])
    before = P.copy(), y.copy()
    for metric in METRICS:
        metric(y, P)
    np.testing.assert_array_equal(P, before[0])
    np.testing.assert_array_equal(y, before[1])
