"""Sigg (2022) lecture notes' worked examples: entropy, information gain, pessimistic error."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bayescal.reproduce.decision_trees import (
    AT_WORK,
    entropy,
    information_gain,
    pessimistic_error,
    worked_examples,
)


def _column(j):
    return np.array(AT_WORK, dtype=object)[:, j]


def test_entropy_closed_form_and_base():
    labels = _column(5)
    p = 16 / 30  # 16 'Work' of 30
    assert entropy(labels) == pytest.approx(-p * math.log2(p) - (1 - p) * math.log2(1 - p))
    assert entropy(labels, base=math.e) == pytest.approx(entropy(labels) * math.log(2))
    assert entropy(["x"] * 5) == 0.0
    with pytest.raises(ValueError, match="`labels` is empty"):
        entropy([])


def test_information_gain_of_the_lectures_table():
    labels = _column(5)
    # the lecture's WiFi and Acc gains, from its own 30 rows
    assert round(information_gain(_column(1), labels), 3) == 0.129
    assert round(information_gain(_column(2), labels), 3) == 0.241
    # invariant: a feature equal to the label gains the whole entropy; a constant none
    assert information_gain(labels, labels) == pytest.approx(entropy(labels))
    assert information_gain(np.zeros(30), labels) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="same length"):
        information_gain(_column(1)[:5], labels)


def test_pessimistic_error_is_the_upper_wilson_limit():
    z, q, n = 0.69, 2 / 6, 6
    closed = (q + z * z / (2 * n) + z * math.sqrt(q / n - q * q / n + z * z / (4 * n * n))) \
        / (1 + z * z / n)
    assert pessimistic_error(2, 6) == pytest.approx(closed)
    assert round(pessimistic_error(1, 2), 2) == 0.72
    assert pessimistic_error(2, 6) > 2 / 6  # pessimistic: above the observed rate


def test_worked_examples_table_has_every_printed_value():
    table = worked_examples(None)
    assert {"example", "quantity", "method", "metric", "ours"} <= set(table.columns)
    assert len(table) == 20  # 19 printed values and the pruning claim's figure
    assert table.loc[table["quantity"] == "prune", "ours"].iloc[0] < 0  # prune
