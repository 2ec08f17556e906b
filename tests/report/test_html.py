"""The HTML report: content, order, escaping, self-containment, the command."""

from __future__ import annotations

import base64
import re

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from bayescal.cli.report import report_command  # noqa: E402
from bayescal.report import build_report  # noqa: E402
from tests.report.cube_factory import make_cube  # noqa: E402

SVG = re.compile(r'<svg role="img" aria-label="([^"]*)".*?</svg>', re.S)


def _alts(page: str) -> list[str]:
    return [m.group(1) for m in SVG.finditer(page)]


def _small(**kw):
    args = dict(
        datasets=("d",),
        classifiers=("nb", "blr"),
        scenarios=("raw", "cal"),
        folds=3,
        n_samples=120,
    )
    args.update(kw)
    return make_cube(**args)


def _build(cube, path, **kw):
    """A quick build (one metric, low resolution) for tests that check structure."""
    return build_report(
        cube, path, **{"progress": False, "metrics": ["brier"], "dpi": 30, **kw}
    ).read_text()


def _section_start(page: str) -> int:
    return page.index("<section")


def test_failed_diagnostics_warn_at_the_top_of_the_page(tmp_path):
    page = _build(_small(failed_diagnostics=True), tmp_path / "r.html")
    box = page.index("<div class='warning' id='warnings'")
    assert box < _section_start(page)  # before the study, tables and figures
    assert page.index("<body>") < box < page.index("<details class='section' id='study'>")
    warning = page[box : page.index("</div>", box)]
    assert "1 of 3 Bayesian fits failed" in warning
    assert "d / blr / raw / fold 0: max R-hat 1.200 &gt; 1.01; 3 divergent transitions" in warning
    # the diagnostics table marks the same row
    diag = page[page.index("<details class='section' id='diagnostics'>") :]
    assert diag.count("<tr class='failed'>") == 1
    assert "Worst fit: <b>d / blr / raw / fold 0</b>" in diag
    # the warning states the estimators' own thresholds (ESS per chain)
    assert "bulk or tail ESS &lt; 100 per chain" in warning
    # the result tables flag the unconverged cell and never mark it best
    tables = page[page.index("<details class='section' id='tables'>") :
                  page.index("<details class='section' id='comparison'>")]
    flagged = re.findall(r"<td class='unconverged'[^>]*>(.*?)</td>", tables)
    assert flagged and all("!" in cell and "<b>" not in cell for cell in flagged)


def test_no_warning_box_when_everything_passed(tmp_path):
    page = _build(_small(), tmp_path / "r.html")
    assert "id='warnings'" not in page
    assert "3 fits sampled by Markov chain Monte Carlo" in page and "all 3 pass" in page


def test_unfinished_and_failed_cells_are_warned_about(tmp_path):
    cube = _small(bayesian=())
    cube.attrs.update(
        cells_done=5, cells_total=12, errors='{"d/nb/cal/r0/f1": "RuntimeError: <boom>"}'
    )
    page = _build(cube, tmp_path / "r.html")
    box = page[page.index("id='warnings'") : _section_start(page)]
    assert "5 of 12 cells" in box
    assert "RuntimeError: &lt;boom&gt;" in box and "<boom>" not in page


def test_page_content_is_complete_and_self_contained(tmp_path):
    cube = _small(datasets=("d", "e"))
    path = build_report(cube, tmp_path / "out", progress=False, dpi=30)
    assert path == tmp_path / "out" / "report.html"
    page = path.read_text()
    # study metadata
    for text in (
        "<th>seed</th><td style='text-align:left'>7</td>",
        "3 min 25 s",
        "<th>numpy</th>",
        "Specification (TOML)",
    ):
        assert text in page
    # a table per metric in the spec's order; the marks are explained once
    order = [page.index(f"<h3 id='table-{m}'>") for m in
             ("brier", "log_loss", "ece", "accuracy", "rmse_true", "mae_true")]
    assert order == sorted(order)
    for metric in ("brier", "log_loss", "ece", "accuracy", "rmse_true", "mae_true"):
        start = page.index(f"<h3 id='table-{metric}'>")
        block = page[start : page.index("</table>", start)]
        assert "<table class='results'>" in block and "differs from raw (p &lt; 0.05)" in block
    assert page.count("differs significantly from the <i>raw</i> scenario") == 1
    assert page.count("the paired cv ttest") == 1
    assert "fit_seconds</h3>" not in page  # timings are not tabulated
    # the summary at the top: per dataset and metric, best scenario and margin over raw
    best = page[page.index("<div id='best-cells'>") : page.index("</details>",
                                                                  page.index("best-cells"))]
    assert best.count("<tr><th>") == 1 + 2 * 6 and "margin over raw" in best
    # figures: per dataset spread, reliability, CORP, maps, truth; per Bayesian cell instances
    alts = _alts(page)
    for d in ("d", "e"):
        for what in (
            "metric spread over folds for",
            "reliability diagrams of",
            "CORP reliability diagrams of",
            "calibration maps of",
            "predicted against true probability on",
        ):
            assert f"{what} {d}" in alts
        assert f"per-instance uncertainty of {d} / blr / raw" in alts
    # comparison across datasets: a CD diagram and a signed-rank simplex per classifier
    for clf in ("nb", "blr"):
        assert f"friedman comparison of {clf}" in alts
        assert f"signed-rank comparison of {clf}" in alts
    assert len(alts) == 16 and "<img " not in page  # every figure is inline SVG
    assert "Brier = MCB − DSC + UNC" in page
    for uri in re.findall(r'xlink:href="(data:[^"]*)"', page):  # rasterised parts: PNG
        assert uri.startswith("data:image/png;base64,")
        assert base64.b64decode(uri.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    # nothing is loaded from elsewhere, and the policy forbids it
    assert not re.search(r"(src|href)=['\"](?!data:|#)", page)
    assert len(set(re.findall(r' id="([^"]*)"', page))) == len(re.findall(r' id="([^"]*)"', page))
    assert "http://" not in page and "https://" not in page
    assert "default-src 'none'; img-src data:" in page
    assert "<script" not in page


def test_every_string_from_the_spec_or_data_is_escaped(tmp_path):
    cube = make_cube(
        datasets=("<i>d</i>",),
        classifiers=("a&b", "<blr>"),
        scenarios=("raw", '"cal"'),
        bayesian=("<blr>",),
        folds=2,
        n_samples=60,
    )
    page = _build(cube, tmp_path / "r.html")
    assert "synthetic &lt;cube&gt; &amp; &#x27;friends&#x27;" in page  # study name
    assert "name = &quot;synthetic &lt;cube&gt;" in page  # spec text
    for raw in ("<i>d</i>", "<blr>", "a&b", "<cube>"):
        assert raw not in page
    assert "&lt;i&gt;d&lt;/i&gt;" in page and "a&amp;b" in page


def test_multiclass_cube_of_a_real_study_and_the_command(tmp_path):
    from bayescal.study import run
    from tests.study.conftest import TINY_SPEC

    spec = tmp_path / "tiny.toml"
    spec.write_text(TINY_SPEC)
    run(spec, tmp_path / "store", n_jobs=1, progress=False)
    result = CliRunner().invoke(
        report_command,
        [str(tmp_path / "store"), "--out", str(tmp_path / "rep"), "-q", "-m", "brier"],
    )
    assert result.exit_code == 0, result.output
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "wrote" in result.output
    assert "<h3 id='table-brier'>" in page and "<h3 id='table-log_loss'>" not in page
    assert "reliability diagrams of iris" in page  # 3 classes: top-label diagrams
    assert "calibration maps of iris" not in page  # maps are drawn for binary data only
    assert "CORP reliability diagrams of iris" not in page  # CORP: binary data only
    assert "No cell of this study has a posterior" in page


def test_command_reports_a_bad_store(tmp_path):
    result = CliRunner().invoke(report_command, [str(tmp_path)])
    assert result.exit_code != 0
    assert "not a bayescal study store" in result.output


def test_progress_bar_and_worst_posterior_plots(tmp_path, capsys):
    rng = np.random.default_rng(0)
    post = xr.Dataset({"beta": (("chain", "draw"), rng.normal(size=(2, 100)))})
    idata = xr.DataTree.from_dict({"posterior": post})
    page = _build(
        _small(failed_diagnostics=True),
        tmp_path / "r.html",
        progress=True,
        posteriors={"d / blr / raw / fold 0": idata},
    )
    err = capsys.readouterr().err
    assert "report" in err and "100%" in err
    alts = _alts(page)
    assert "rank histogram of d / blr / raw / fold 0" in alts
    assert "trace plot of d / blr / raw / fold 0" in alts


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"metrics": ["nope"]}, ValueError, r"`metrics` \['nope'\] not in the cube"),
        ({"metrics": ["done"]}, ValueError, "not in the cube"),
        ({"n_bins": 0}, ValueError, "n_bins"),
        ({"dpi": 5}, ValueError, "dpi"),
    ],
)
def test_bad_arguments(tmp_path, kwargs, error, match):
    with pytest.raises(error, match=match):
        build_report(_small(), tmp_path / "r.html", progress=False, **kwargs)


def test_bad_results(tmp_path):
    with pytest.raises(TypeError, match="result cube"):
        build_report(42, tmp_path / "r.html")
    with pytest.raises(ValueError, match="not a bayescal study store"):
        build_report(str(tmp_path), tmp_path / "r.html")


def test_a_cube_with_repeats_reports_the_first_repetition(tmp_path):
    cube = _small(folds=2)
    m = cube["metrics"].to_dataset()
    per_fold = [v for v in m.data_vars if "fold" in m[v].dims]
    repeated = m.drop_vars(per_fold)
    for v in per_fold:
        repeated[v] = xr.concat([m[v], m[v]], dim="repeat").transpose(
            "dataset", "classifier", "scenario", "repeat", "fold"
        )
    pred = cube["predictions"]["d"].to_dataset()
    for v in ("proba", "fold", "interval"):
        pred[v] = xr.concat([pred[v], pred[v]], dim="repeat")
    tree = xr.DataTree.from_dict(
        {
            "/": cube.to_dataset(),
            "/metrics": repeated.assign_coords(repeat=[0, 1]),
            "/predictions/d": pred.assign_coords(repeat=[0, 1]),
        }
    )
    tree["metrics"]["rhat_max"][0, 1, 0, 1, 0] = 1.3
    tree["metrics"]["converged"][0, 1, 0, 1, 0] = False
    page = _build(tree, tmp_path / "r.html")
    assert "d / blr / raw / repeat 1 / fold 0: max R-hat 1.300" in page
    assert page.count("<svg role=\"img\"") == 6  # spread, reliability, CORP, map, truth, blr intervals


@pytest.mark.slow
def test_quickstart_report_is_small_and_its_figure_text_readable(quickstart_report):
    page = quickstart_report.read_text(encoding="utf-8")
    assert quickstart_report.stat().st_size < 1_000_000
    figures = SVG.findall(page)
    assert len(figures) >= 15 and "<img " not in page
    # every figure text at least 9 pt (the SVG's user unit is the point), no figure wider
    # than a 1400 px window (so none is scaled down below its natural size there)
    sizes = [float(v) for v in re.findall(r"font-size: ([\d.]+)px", page)]
    assert sizes and min(sizes) >= 9.0
    widths = [float(w) for w in re.findall(r'<svg role="img"[^>]* width="([\d.]+)pt"', page)]
    assert len(widths) == len(figures) and max(widths) * 4 / 3 <= 1360
    # every section but the first screen is folded
    assert page.count("<details class='section'") >= 8
    assert not re.search(r"<details open[^>]*class='section'", page)


def _diagnostics(page: str) -> str:
    return page[page.index("<details class='section' id='diagnostics'>"):]


def test_laplace_fits_are_not_said_to_pass_r_hat_or_ess(tmp_path):
    # Laplace-like fits: no R-hat, no ESS, zero divergences (all "-" but divergences)
    diag = _diagnostics(_build(_small(sampled=False), tmp_path / "r.html"))
    assert "3 fits with a posterior that is not sampled" in diag
    assert "no R-hat or ESS" in diag and "accuracy is not verified" in diag
    assert "pass" not in diag.split("Per-fold table")[0]  # no claim of passing anything
    assert "No fit has a diagnostic value to rank, so no worst fit is singled out" in diag
    assert "Worst fit" not in diag
    # the per-fold table is behind a click and leaves out the columns that are all "-"
    table = diag[diag.index("<details class='detail'>"):]
    assert "<th>rhat_max</th>" not in table and "<th>divergences</th>" in table


def test_importance_sampling_checks_are_worded_as_such(tmp_path):
    cube = _small(sampled=False)
    m = cube["metrics"]
    khat = xr.full_like(m["divergences"], np.nan)
    khat.loc[{"classifier": "blr", "scenario": "raw"}] = [0.2, 0.9, 0.4]
    m["pareto_k"] = khat
    m["converged"].loc[{"classifier": "blr", "scenario": "raw", "fold": 1}] = False
    diag = _diagnostics(_build(cube, tmp_path / "r.html"))
    assert ("3 fits with an approximate posterior (Laplace, ADVI or EP), checked against the "
            "exact log density by Pareto-smoothed importance sampling") in diag
    assert "<b>1 of 3 fail</b>" in diag and "R-hat" not in diag.split("Per-fold table")[0]
    page = _build(cube, tmp_path / "r2.html")
    warning = page[page.index("id='warnings'"):page.index("</div>", page.index("id='warnings'"))]
    assert "approximate fits: Pareto k̂ &gt; 0.7" in warning and "R-hat" not in warning
    assert "<th>pareto_k</th>" in diag and "<td>0.90</td>" in diag
    assert "Worst fit: <b>d / blr / raw / fold 1</b>" in diag  # the failed one, largest k


def test_a_metric_without_values_on_a_dataset_draws_no_empty_panel(tmp_path):
    # real data: no true probabilities, so rmse_true / mae_true are NaN on "e"
    cube = _small(datasets=("d", "e"), truth=("d",))
    page = _build(cube, tmp_path / "r.html", metrics=["brier", "rmse_true"])
    figure_text = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", page))
    assert "no finished cell" not in figure_text and "not applicable" not in figure_text
    assert "predicted against true probability on e" not in _alts(page)
    from bayescal.report.html import _comparison_figure

    ds = cube["metrics"].to_dataset()
    for dataset, titles in (("d", ["d: brier per fold", "d: rmse_true per fold"]),
                            ("e", ["e: brier per fold"])):
        fig = _comparison_figure(ds, dataset, ["brier", "rmse_true"])
        assert [ax.get_title() for ax in fig.axes] == titles
    assert _comparison_figure(ds, "e", ["rmse_true"]) is None
