"""Tests of bayescal.cube.schema: the metric registry."""

from __future__ import annotations

import pytest

from bayescal.cube import DIAGNOSTICS, METRICS, TIMINGS, MetricInfo, lower_is_better, metric_info
from bayescal.cube.schema import metric_names, variable_description
from bayescal.study.scoring import LABEL_METRICS
from bayescal.study.scoring import METRICS as SPEC_METRICS


def test_registry_directions_and_clipping():
    assert lower_is_better("brier") and lower_is_better("log_loss") and lower_is_better("ece")
    assert not lower_is_better("accuracy") and not lower_is_better("probe_coverage")
    assert metric_info("log_loss").clip == 1e-15
    assert metric_info("brier").clip is None
    assert {METRICS[t].direction for t in TIMINGS} == {None}
    assert set(DIAGNOSTICS) >= {"rhat_max", "ess_bulk_min", "divergences"}


def test_the_study_scorer_asks_the_registry():
    assert LABEL_METRICS == metric_names("labels")
    assert set(SPEC_METRICS) == {m.name for m in METRICS.values()
                                 if m.needs in ("labels", "truth", "probe")}
    assert "higher is better" in variable_description("accuracy")
    assert variable_description("converged").startswith("the cell's posterior passed")


@pytest.mark.parametrize(("call", "match"), [
    (lambda: metric_info("nonsense"), "unknown metric 'nonsense'; registered metrics"),
    (lambda: lower_is_better("fit_seconds"), "is not ranked"),
    (lambda: metric_names("guess"), "`needs` must be among"),
    (lambda: MetricInfo("x", "d", "sideways", "u"), "`direction` of metric 'x'"),
    (lambda: MetricInfo("x", "d", "lower", "u", needs="vibes"), "`needs` of metric 'x'"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
