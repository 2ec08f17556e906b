"""Publication II Table 2's function block: regression statistics of a confidence map."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.reproduce.confidence_maps import Settings, confidence_map_table, regression_line


def test_regression_line_matches_closed_form():
    # oracle: ordinary least squares by the normal equations, R^2 = 1 - SSres/SStot
    rng = np.random.default_rng(0)
    x = rng.uniform(0.4, 1.0, 30)
    y = 0.05 + 0.93 * x + rng.normal(0, 0.02, 30)
    A = np.column_stack([np.ones_like(x), x])
    (b0, b1), *_ = np.linalg.lstsq(A, y, rcond=None)
    res = y - A @ [b0, b1]
    line = regression_line(x, y)
    assert line["intercept"] == pytest.approx(b0) and line["slope"] == pytest.approx(b1)
    assert line["R2"] == pytest.approx(1 - res @ res / np.sum((y - y.mean()) ** 2))
    assert line["sigma"] == pytest.approx(np.sqrt(res @ res / (30 - 2)))


def test_perfect_prediction_is_the_ideal_line():
    x = np.linspace(0.5, 1.0, 6)
    line = regression_line(x, x)
    assert line["intercept"] == pytest.approx(0, abs=1e-12) and line["slope"] == pytest.approx(1)
    assert line["R2"] == pytest.approx(1) and line["sigma"] == pytest.approx(0, abs=1e-12)


@pytest.mark.parametrize(("x", "y", "match"), [
    ([0.5, 0.6], [0.5, 0.6], "at least 3 groups; got 2"),
    ([0.5, 0.6, 0.7], [0.5, 0.6], "same length"),
    ([0.8, 0.8, 0.8], [0.7, 0.8, 0.9], "every `x` is the same"),
])
def test_regression_line_bad_input(x, y, match):
    with pytest.raises(ValueError, match=match):
        regression_line(x, y)


TINY = Settings(n_imputations=2, n_repeats=3, group_size=5, imputer_max_iter=1, cv_repeats=1,
                n_folds=2, n_groups=5, max_rows=None)


def test_table_on_iris_has_one_line_per_metric():
    table, groups = confidence_map_table(
        TINY, configs=(("iris_mcar30", "iris", 0.3, "continuous"),))
    assert sorted(table["metric"]) == ["R2", "intercept", "sigma", "slope"]
    assert set(table["method"]) == {"iris_mcar30"} and set(table["classifier"]) == {"naive_bayes"}
    predicted, true_rate = groups["iris_mcar30"]
    assert true_rate.size == 5 and ((predicted >= 0) & (predicted <= 1)).all()
    # predicted rates follow the true ones: a positive slope
    assert table.set_index("metric").loc["slope", "ours"] > 0


def test_bad_kind_is_named():
    with pytest.raises(ValueError, match="kind 'ordinal' is not one of"):
        confidence_map_table(TINY, configs=(("x", "iris", 0.3, "ordinal"),))
