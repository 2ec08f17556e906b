"""Tests of probe_distance against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayescal.metrics.probe import ProbeDistance, probe_distance


def test_hand_values_binary_1d():
    d = probe_distance([0.2, 0.7, 0.5], [0.25, 0.5, 0.5], [[0.1, 0.4], [0.4, 0.6], [0.5, 0.5]])
    # squared differences 0.0025, 0.04, 0 -> mean 0.0141667
    assert isinstance(d, ProbeDistance)
    assert d.rmse == pytest.approx(np.sqrt((0.0025 + 0.04) / 3))
    assert d.inside == pytest.approx(2 / 3)  # 0.7 lies above 0.6; 0.5 on closed bounds
    assert d.n_samples == 3


def test_hand_values_multiclass():
    proba = [[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]
    probe = [[0.1, 0.4, 0.5], [0.6, 0.2, 0.2]]
    interval = [
        [[0.0, 0.3], [0.3, 0.5], [0.4, 0.45]],
        [[0.5, 0.7], [0.25, 0.3], [0.1, 0.3]],
    ]
    d = probe_distance(proba, probe, interval)
    assert d.rmse == pytest.approx(np.sqrt(0.02 / 6))
    assert d.inside == pytest.approx(4 / 6)


def test_binary_two_column_equals_one_column():
    p = np.array([0.1, 0.8, 0.4])
    q = np.array([0.2, 0.6, 0.4])
    lo_hi = np.array([[0.05, 0.3], [0.5, 0.7], [0.3, 0.5]])
    one = probe_distance(p, q, lo_hi)
    interval2 = np.stack([1 - lo_hi[:, ::-1], lo_hi], axis=1)
    two = probe_distance(np.column_stack([1 - p, p]), np.column_stack([1 - q, q]), interval2)
    assert one.rmse == pytest.approx(two.rmse)
    assert one.inside == pytest.approx(two.inside)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20))
def test_probe_itself_is_at_distance_zero_and_inside(values):
    q = np.array(values)
    d = probe_distance(q, q, np.column_stack([q, q]))
    assert d.rmse == pytest.approx(0.0, abs=1e-12)
    assert d.inside == 1.0


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (([0.2, np.nan], [0.2, 0.3], [[0, 1], [0, 1]]), "proba"),
        (([0.2, 1.3], [0.2, 0.3], [[0, 1], [0, 1]]), "proba"),
        (([0.2, 0.3], [0.2, 0.3, 0.4], [[0, 1], [0, 1]]), "probe_proba"),
        (([0.2, 0.3], [0.2, 0.3], [[0, 1]]), "probe_interval"),
        (([0.2, 0.3], [0.2, 0.3], [[0.5, 0.1], [0, 1]]), "lower bounds above"),
        (([0.2, 0.3], [0.2, 0.3], [[0, 1.5], [0, 1]]), "probe_interval"),
        (([0.2, 0.3], [0.2, 0.3], [[0, np.inf], [0, 1]]), "probe_interval"),
    ],
)
def test_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        probe_distance(*args)
