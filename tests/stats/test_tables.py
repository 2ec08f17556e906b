"""summary_table(): paper-style tables of a cube."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from bayescal.stats import compare, summary_table


def cube(datasets=("adult", "iris", "wine"), seed=0):
    rng = np.random.default_rng(seed)
    loss = rng.normal(0.30, 0.01, size=(len(datasets), 2, 3, 10))
    loss[:, :, 2] -= 0.05  # dgg clearly better than raw
    loss[:, :, 1] += 0.001  # split about the same as raw
    return xr.Dataset(
        {"log_loss": (("dataset", "classifier", "scenario", "fold"), loss)},
        coords={"dataset": list(datasets), "classifier": ["nb", "rf"],
                "scenario": ["raw", "split", "dgg"]},
    )


def test_dataframe_means_best_and_significance():
    c = cube()
    table = summary_table(c, "log_loss", baseline="raw")
    assert isinstance(table, pd.DataFrame)
    assert list(table.index) == ["adult", "iris", "wine"]
    assert table.columns.names == ["classifier", "scenario"]
    expected = c.log_loss.mean("fold").values.reshape(3, 6)
    np.testing.assert_allclose(table.values, expected)
    best = table.attrs["best"].values
    shown = np.round(expected, 3)  # ties are judged on the displayed digits
    np.testing.assert_array_equal(best, shown == shown.min(axis=1, keepdims=True))
    p = compare(c, "log_loss", baseline="raw").p_value.values.reshape(3, 6)
    np.testing.assert_array_equal(table.attrs["significant"].values, np.nan_to_num(p, nan=1) < 0.05)
    assert table.attrs["significant"][("nb", "dgg")].all()
    assert not table.attrs["significant"][("rf", "raw")].any()


def test_higher_is_better_picks_maximum_and_no_baseline_underlines_nothing():
    c = cube()
    table = summary_table(c, "log_loss", lower_is_better=False)
    means = np.round(c.log_loss.mean("fold").values.reshape(3, 6), 3)
    np.testing.assert_array_equal(
        table.attrs["best"].values, means == means.max(axis=1, keepdims=True)
    )
    assert not table.attrs["significant"].values.any()
    assert "<u>" not in summary_table(c, "log_loss", format="markdown").split("\n\n")[0]


def test_ties_after_rounding_are_all_bold_and_nan_cells_shown_as_dash():
    c = cube(datasets=("a",))
    c.log_loss[0, 0, 2] = 0.25
    c.log_loss[0, 1, 2] = 0.25 + 1e-6
    c.log_loss[0, 0, 0, 3] = np.nan
    md = summary_table(c, "log_loss", baseline="raw", format="markdown")
    row = md.splitlines()[2]
    assert row.count("**0.250**") == 2
    assert "| – |" in row
    table = summary_table(c, "log_loss", baseline="raw")
    assert not table.attrs["best"][("nb", "raw")].iloc[0]


def test_markdown_latex_html_markup():
    c = cube()
    md = summary_table(c, "log_loss", baseline="raw", format="markdown")
    lines = md.splitlines()
    assert lines[0] == "| dataset | nb / raw | nb / split | nb / dgg | rf / raw | rf / split | rf / dgg |"
    assert "<u>**" in lines[2]
    tex = summary_table(c, "log_loss", baseline="raw", format="latex")
    assert "\\begin{tabular}{lrrrrrr}" in tex and "\\underline{\\textbf{" in tex
    assert tex.rstrip().endswith("\\end{tabular}")
    page = summary_table(c, "log_loss", baseline="raw", format="html")
    assert page.startswith("<table>") and "<u><b>" in page


def test_names_from_specs_are_escaped():
    evil = "<script>alert('x')</script>"
    c = cube(datasets=(evil, "a_b & c%", "p|q"))
    page = summary_table(c, "log_loss", baseline="raw", format="html")
    assert "<script>" not in page and "&lt;script&gt;" in page
    tex = summary_table(c, "log_loss", baseline="raw", format="latex")
    assert "a\\_b \\& c\\%" in tex
    md = summary_table(c, "log_loss", baseline="raw", format="markdown")
    assert "p\\|q" in md and "<script>" not in md


def test_5x2_design_with_repeat_dim():
    rng = np.random.default_rng(3)
    loss = rng.normal(0.3, 0.01, size=(2, 2, 5, 2))
    c = xr.Dataset(
        {"brier": (("dataset", "scenario", "repeat", "fold"), loss)},
        coords={"dataset": ["x", "y"], "scenario": ["raw", "dgg"]},
    )
    table = summary_table(c, "brier", baseline="raw", test="combined_ftest_5x2cv")
    np.testing.assert_allclose(table.values, loss.mean(axis=(2, 3)))
    assert list(table.columns) == ["raw", "dgg"]


CUBE = cube()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"format": "pdf"}, ValueError, "`format`"),
        ({"alpha": 1.5}, ValueError, "`alpha`"),
        ({"digits": -1}, ValueError, "`digits`"),
        ({"lower_is_better": "yes"}, ValueError, "`lower_is_better`"),
        ({"row_dim": "model"}, ValueError, "`row_dim`"),
        ({"fold_dim": "split"}, ValueError, "`fold_dim`"),
        ({"baseline": "raw", "test": "anova"}, ValueError, "`test`"),
        ({"baseline": "none"}, ValueError, "`baseline`"),
        ({"metric": "ece"}, ValueError, "'ece' is not a variable"),
    ],
)
def test_bad_input(kwargs, error, match):
    args = {"metric": "log_loss"} | kwargs
    with pytest.raises(error, match=match):
        summary_table(CUBE, args.pop("metric"), **args)


def test_columns_without_any_value_are_dropped():
    import xarray as xr

    rng = np.random.default_rng(0)
    loss = rng.normal(0.3, 0.01, size=(2, 2, 2, 5))
    loss[:, 1, 1] = np.nan  # scenario "cal" does not apply to classifier "probe"
    cube = xr.Dataset(
        {"log_loss": (("dataset", "classifier", "scenario", "fold"), loss)},
        coords={"dataset": ["a", "b"], "classifier": ["nb", "probe"], "scenario": ["raw", "cal"]},
    )
    table = summary_table(cube, "log_loss", baseline="raw", drop_empty=True)
    assert list(table.columns) == [("nb", "raw"), ("nb", "cal"), ("probe", "raw")]
    assert table.attrs["p_value"].shape == (2, 3)
    assert np.isfinite(table.attrs["p_value"][("nb", "cal")]).all()
    kept = summary_table(cube, "log_loss", baseline="raw")
    assert kept.shape == (2, 4) and kept[("probe", "cal")].isna().all()
