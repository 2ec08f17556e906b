"""Tests of bayescal.cube.schema: the metric registry."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.cube import DIAGNOSTICS, METRICS, TIMINGS, MetricInfo, lower_is_better, metric_info
from bayescal.cube.schema import metric_names, variable_description
from bayescal.cube.scoring import label_metrics


def test_registry_directions_and_clipping():
    assert lower_is_better("brier") and lower_is_better("log_loss") and lower_is_better("ece")
    assert not lower_is_better("accuracy") and not lower_is_better("probe_coverage")
    assert metric_info("log_loss").clip == 1e-15
    assert metric_info("brier").clip is None
    assert {METRICS[t].direction for t in TIMINGS} == {None}
    assert set(DIAGNOSTICS) >= {"rhat_max", "ess_bulk_min", "divergences"}


def test_the_study_scorer_asks_the_registry():
    assert set(metric_names()) == {m.name for m in METRICS.values()
                                   if m.needs in ("labels", "truth", "probe")}
    assert "higher is better" in variable_description("accuracy")
    assert variable_description("converged").startswith("the cell's posterior passed")


@pytest.mark.parametrize(("call", "match"), [
    (lambda: metric_info("nonsense"), "unknown metric 'nonsense'; registered metrics"),
    (lambda: lower_is_better("fit_seconds"), "is not ranked"),
    (lambda: metric_names("guess"), "`needs` must be among"),
    (lambda: MetricInfo("x", "d", "sideways", "u"), "`direction` of metric 'x'"),
    (lambda: MetricInfo("x", "d", "lower", "u", needs="vibes"), "`needs` of metric 'x'"),
    (lambda: MetricInfo("x", "d", "lower", "u"), "must name the function that computes it"),
    (lambda: MetricInfo("x", "d", None, "s", needs="timing", compute=len), "is measured"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_each_scored_metric_owns_its_function():
    """Name and function are one entry: computed metrics have one, measured ones none."""
    for info in METRICS.values():
        assert (info.compute is not None) == (info.needs in ("labels", "truth", "probe")), info


def test_a_new_registry_entry_is_scored_without_other_edits(monkeypatch):
    y = np.array([0, 1, 1, 0])
    P = np.array([[0.8, 0.2], [0.3, 0.7], [0.4, 0.6], [0.5, 0.5]])
    entry = MetricInfo("worst_gap", "largest |y - p|", "lower", "probability",
                       compute=lambda y, proba, n_bins, clip: np.abs(y - proba[:, 1]).max())
    monkeypatch.setitem(METRICS, "worst_gap", entry)
    assert label_metrics(y, P, ("worst_gap", "brier"), 10) == pytest.approx(
        {"worst_gap": 0.5, "brier": np.mean((y - P[:, 1]) ** 2)})
