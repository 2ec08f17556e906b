"""Tests of bayescal.report.tables and bayescal.report.summary: the long layout, marks, formats."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from bayescal.report.summary import best_scenarios, tabulated_metrics
from bayescal.report.tables import FORMATS, format_table, study_table

from .cube_factory import make_cube


@pytest.fixture(scope="module")
def cube():
    return make_cube(datasets=("alpha", "b|e_ta"), classifiers=("nb", "blr"),
                     scenarios=("raw", "platt", "iso_tonic"), folds=5, n_samples=200,
                     failed_diagnostics=True, seed=3)


def test_means_best_and_unconverged_follow_the_cube(cube):
    table = study_table(cube, "brier")
    m = cube["metrics"].to_dataset()
    assert table.rows[0] == ("nb", "raw") and len(table.rows) == 6
    mean = m["brier"].mean("fold").transpose("classifier", "scenario", "dataset").values
    np.testing.assert_allclose(table.mean, mean.reshape(6, 2))
    # blr / raw failed its diagnostics on fold 0: flagged, never best
    flagged = table.rows.index(("blr", "raw"))
    assert table.unconverged[flagged].all() and table.unconverged.sum() == 2
    assert not table.best[flagged].any()
    ok = np.where(table.unconverged, np.nan, table.mean)
    assert (table.best == np.isclose(ok, np.nanmin(ok, axis=0), rtol=0, atol=1e-12)).all()
    acc = study_table(cube, "accuracy")
    ok = np.where(acc.unconverged, np.nan, acc.mean)
    assert (acc.best == np.isclose(ok, np.nanmax(ok, axis=0), rtol=0, atol=1e-12)).all()
    assert table.test == "cv_ttest" and table.baseline == "raw"
    assert not table.significant[[i for i, (_, s) in enumerate(table.rows) if s == "raw"]].any()


def test_text_is_plain_and_fits_100_columns(cube):
    text = format_table(study_table(cube, "log_loss"))
    lines = text.splitlines()
    assert max(map(len, lines)) <= 100
    assert not any(t in text for t in ("\\_", "<b>", "<u>", "**", "| ", "---|"))
    assert lines[1].split() == ["classifier", "scenario", "alpha", "b|e_ta"] or \
        lines[1].split()[:3] == ["classifier", "scenario", "alpha"]
    assert "iso_tonic" in text and "*" in text and "!" in text
    assert lines[-1] == ("means over folds; * best (lower is better); + differs from raw "
                         "(p < 0.05); ! unconverged; - not run")


def test_many_datasets_are_split_into_tables_that_fit(cube):
    wide = make_cube(datasets=tuple(f"dataset_number_{i}" for i in range(9)), folds=3,
                     n_samples=60, seed=1)
    text = format_table(study_table(wide, "brier"))
    assert max(map(len, text.splitlines())) <= 100
    assert text.count("classifier  scenario") >= 2
    assert all(f"dataset_number_{i}" in text for i in range(9))


def test_export_formats_escape_names(cube):
    table = study_table(cube, "brier")
    md = format_table(table, "md")
    assert "b\\|e\\_ta" in md and "iso\\_tonic" in md
    latex = format_table(table, "latex")
    assert "b|e\\_ta" in latex and "\\textbf{" in latex and "\\begin{tabular}{llrr}" in latex
    page = format_table(table, "html")
    assert "<td class='unconverged'" in page and "<b>" in page
    rows = list(csv.DictReader(io.StringIO(format_table(table, "csv"))))
    assert len(rows) == 6 * 2 and {r["unconverged"] for r in rows} == {"True", "False"}
    first = rows[0]
    assert (first["classifier"], first["scenario"], first["dataset"]) == ("nb", "raw", "alpha")
    assert float(first["mean"]) == pytest.approx(table.mean[0, 0])
    assert set(FORMATS) == {"text", "md", "latex", "html", "csv"}


def test_best_scenario_and_margin_over_raw(cube):
    assert tabulated_metrics(cube)[:4] == ["brier", "log_loss", "ece", "accuracy"]
    cells = best_scenarios(cube, ["brier", "accuracy"])
    assert len(cells) == 4
    for b in cells:
        table = study_table(cube, b.metric)
        j = table.datasets.index(b.dataset)
        i = table.rows.index((b.classifier, b.scenario))
        assert table.best[i, j] and b.value == table.mean[i, j]
        raw = table.mean[table.rows.index((b.classifier, "raw")), j]
        sign = 1 if b.metric == "brier" else -1
        assert b.margin == pytest.approx(sign * (raw - b.value)) and b.margin >= 0


@pytest.mark.parametrize(("call", "err", "match"), [
    (lambda c: study_table(c, "nonsense"), ValueError, "no metric 'nonsense' in the cube"),
    (lambda c: study_table(c, "done"), ValueError, "no metric 'done'"),
    (lambda c: format_table(study_table(c, "brier"), "rtf"), ValueError, "`format` must be one"),
])
def test_bad_input(cube, call, err, match):
    with pytest.raises(err, match=match):
        call(cube)


def test_all_nan_metric_has_no_best_and_no_warning(cube):
    import warnings

    empty = cube.copy()
    metrics = empty["metrics"].to_dataset()
    metrics["brier"] = metrics["brier"] * np.nan
    empty["metrics"] = metrics
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = study_table(empty, "brier")
        text = format_table(table)
    assert not table.best.any() and "*" not in text.splitlines()[3]
