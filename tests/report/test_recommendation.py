"""The report's first screen: the best scenario per dataset and classifier, and how sure."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.report.recommendation import (
    Recommendation,
    certainty,
    recommendation_section,
    recommendations,
)
from tests.report.cube_factory import make_cube


def _cube(**kw):
    args = dict(datasets=("a", "b"), classifiers=("nb", "blr"), scenarios=("raw", "platt"),
                folds=5, n_samples=150, applicable={"platt": ("nb",)})
    args.update(kw)
    return make_cube(**args)


def test_best_scenario_gain_folds_and_p_value_are_those_of_the_cube():
    from bayescal.stats import compare

    cube = _cube()
    recs = recommendations(cube, "brier")
    assert [(r.classifier, r.dataset) for r in recs] == [("nb", "a"), ("nb", "b")]  # blr: raw only
    m = cube["metrics"].to_dataset()
    p = compare(m, "brier", baseline="raw", dim="scenario", test="cv_ttest").p_value
    for r in recs:
        folds = m["brier"].sel(dataset=r.dataset, classifier="nb")
        means = folds.mean("fold")
        best = str(means["scenario"].values[int(np.argmin(means.values))])
        assert r.scenario == best and r.baseline == "raw" and r.test == (
            None if best == "raw" else "cv_ttest")
        assert r.value == pytest.approx(float(means.sel(scenario=best)))
        assert r.gain == pytest.approx(float(means.sel(scenario="raw") - means.sel(scenario=best)))
        raw, chosen = folds.sel(scenario="raw").values, folds.sel(scenario=best).values
        assert r.folds_better == int(np.sum(raw - chosen > 0)) and r.n_folds == 5
        if best != "raw":
            assert r.p_value == pytest.approx(float(p.sel(dataset=r.dataset, classifier="nb",
                                                          scenario=best)))


def test_a_consistent_gain_is_clear_and_the_headline_says_so():
    cube = _cube()
    brier = cube["metrics"]["brier"]
    rng = np.random.default_rng(0)
    raw = brier.sel(dataset="a", classifier="nb", scenario="raw").values
    brier.loc[{"dataset": "a", "classifier": "nb", "scenario": "platt"}] = (
        raw - 0.03 + rng.normal(0, 0.002, raw.size))
    rec = next(r for r in recommendations(cube, "brier") if r.dataset == "a")
    assert rec.scenario == "platt" and rec.folds_better == 5 and rec.p_value < 0.01
    assert certainty(rec)[0] == "clear"
    page = recommendation_section(cube, "brier")
    assert "Clear gains over the baseline</b>: nb → <b>platt</b> on a" in page
    assert "Caution: only 2 data sets" in page  # Demšar 2006, below 5 data sets
    # the best cell overall is the table's, a classifier with one scenario (blr) included
    from bayescal.report.tables import study_table

    table = study_table(cube, "brier")
    for j, d in enumerate(table.datasets):
        clf, scen = table.rows[int(np.flatnonzero(table.best[:, j])[0])]
        assert f"on <b>{d}</b>: <b>{clf} / {scen}</b>" in page


def test_higher_is_better_metrics_pick_the_largest_mean():
    cube = _cube()
    for r in recommendations(cube, "accuracy"):
        means = cube["metrics"]["accuracy"].sel(dataset=r.dataset, classifier="nb").mean("fold")
        assert r.value == pytest.approx(float(means.max()))
        assert r.gain == pytest.approx(r.value - r.baseline_value)


def test_unconverged_cells_are_never_recommended():
    cube = _cube(applicable=None, scenarios=("raw", "platt", "iso"))
    m = cube["metrics"]
    # blr / platt is by far the best on every dataset, but its posterior failed
    m["brier"].loc[{"classifier": "blr", "scenario": "platt"}] = 0.0
    m["converged"].loc[{"classifier": "blr", "scenario": "platt"}] = False
    recs = [r for r in recommendations(cube, "brier") if r.classifier == "blr"]
    assert len(recs) == 2 and all(r.scenario != "platt" for r in recs)


@pytest.mark.parametrize(("fields", "level", "words"), [
    (dict(scenario="raw"), "baseline", "no scenario beats raw"),
    (dict(folds_better=5, p_value=0.001), "clear", "better in 5 of 5 folds; p = 0.001"),
    (dict(folds_better=4, p_value=0.02), "likely", "better in 4 of 5 folds; p = 0.02"),
    (dict(folds_better=4, p_value=0.3), "unclear", "not shown to differ from raw"),
    (dict(folds_better=5, p_value=np.nan, test=None), "likely", "no per-fold test"),
    (dict(folds_better=3, p_value=np.nan, test=None), "unclear", "better in 3 of 5 folds"),
    (dict(baseline=None), "unclear", "no baseline"),
])
def test_certainty_levels(fields, level, words):
    base = dict(dataset="d", classifier="c", metric="brier", scenario="platt", value=0.1,
                baseline="raw", baseline_value=0.12, gain=0.02, folds_better=5, n_folds=5,
                p_value=0.01, test="cv_ttest")
    found = certainty(Recommendation(**{**base, **fields}))
    assert found[0] == level and words in found[1]


def test_a_metric_without_direction_is_refused():
    with pytest.raises(ValueError, match="has no direction"):
        recommendations(_cube(), "fit_seconds")
