"""The HTML report of a study: one self-contained static page.

:func:`build_report` turns a result cube (see :mod:`bayescal.cube`) into
one HTML file that needs nothing else to be viewed: figures are inline SVG
(vector text no smaller than 9 pt; dense point clouds rasterised inside the
SVG, see :mod:`bayescal.report.figure_output`), the style sheet is inline,
there is no script, and a Content-Security-Policy forbids loading anything
else, so the page never touches the network. Every string that comes from a
spec or a data file (study, dataset, classifier, scenario and class names,
the spec text, error messages) is escaped with :func:`html.escape`.

The first screen answers "which calibration should I use here, and how sure
are we?" (:mod:`bayescal.report.recommendation`): under the title and the
study's description, a warning box (failed posterior diagnostics, cells that
raised, an unfinished run) when there is anything to warn about, then per
classifier and dataset the best scenario, its gain over the baseline and how
sure that gain is, the across-dataset view with Demšar's caution below 5
data sets, and the best cell of every metric behind a click. Every other
section is folded (``<details>``, opened by a click or a link of the
contents): result tables per metric in the spec's order; comparisons across
datasets; the fold spread of the spec's metrics; reliability and CORP
diagrams (a row per classifier, a panel per scenario that applies to it);
calibration maps; predicted against true probability where the data have
one; per-instance uncertainty, one figure per Bayesian cell behind its own
click; the posterior diagnostics worded by the check each fit records (the
per-fold table behind a click); and the study's metadata and spec. A section
with nothing to show is left out.
"""

from __future__ import annotations

import html
import json
import os
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from bayescal.report._embed import figure_data_uri  # noqa: F401  (public here before)
from bayescal.report._embed import img_tag as _img
from bayescal.report.comparison import metrics_dataset, plot_metric_comparison
from bayescal.report.corp import CORP_SECTION_NOTE, corp_grid_figure
from bayescal.report.cube_figures import (
    CubePredictions,
    calibration_map_figure,
    instance_uncertainty_figure,
    mpl_text,
    reliability_grid_figure,
    true_vs_predicted_figure,
)
from bayescal.report.diagnostics import (
    diagnostics_table,
    plot_rank_histogram,
    plot_trace,
    threshold_words,
    with_samplers,
    worst_fit,
)
from bayescal.report.posterior_figures import failed_posterior_section
from bayescal.report.recommendation import recommendation_section
from bayescal.report.summary import (
    positive_class_words,
    summary_section,
    tables_section,
    tabulated_metrics,
)
from bayescal.validation import check_positive_int

__all__ = ["build_report", "figure_data_uri"]


_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "base-uri 'none'; form-action 'none'"
)

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1500px;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 2px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.88em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; } caption { caption-side: bottom; text-align: left;
       font-size: 0.9em; color: #444; padding-top: 0.3em; }
.scroll { overflow-x: auto; } .note { color: #444; font-size: 0.92em; max-width: 60em; }
.warning { background: #fff3cd; border: 3px solid #d9534f; padding: 0.6em 1em;
           margin: 1em 0; } .warning h2 { border: none; margin-top: 0.2em; color: #a94442; }
.ok { background: #e8f5e9; border: 1px solid #4caf50; padding: 0.4em 1em; }
img, svg.figure { max-width: 100%; height: auto; display: block; margin: 0.5em 0; }
svg.figure { overflow: visible; }
details.section { border-top: 2px solid #ccc; margin-top: 0.6em; }
details.section > summary { cursor: pointer; padding: 0.2em 0; }
details.section > summary h2 { display: inline; border: none; font-size: 1.3em; }
details.section > summary .hint { color: #666; font-size: 0.9em; margin-left: 0.6em; }
details.detail > summary { cursor: pointer; color: #1a4f8a; margin: 0.4em 0; }
.pair { display: flex; flex-wrap: wrap; gap: 0 2em; align-items: center; }
.table-cards { display: flex; flex-wrap: wrap; gap: 0 2em; align-items: flex-start; }
.table-card .note { max-width: 26em; } .table-card h3 { margin-bottom: 0.2em; }
section#summary h2 { margin-top: 0.8em; }
.lead { max-width: 70em; } .answer { font-size: 1.15em; max-width: 60em; } .caution { background: #fff8e1; border-left: 4px solid #f0ad4e;
       padding: 0.3em 0.8em; max-width: 70em; }
table.verdicts td, table.verdicts thead th { text-align: left; vertical-align: top; }
table.verdicts td { min-width: 14em; }
table.verdicts small { color: #444; }
.level.clear { color: #1b5e20; } .level.likely { color: #8a6d00; }
.level.unclear { color: #666; } .level.baseline { color: #37474f; }
td.verdict.clear { background: #e8f5e9; } td.verdict.likely { background: #fffde7; }
td.verdict.unclear, td.verdict.baseline { background: #f7f7f7; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
tr.failed td, tr.failed th { background: #fdecea; }
td.unconverged { background: #fdecea; color: #a94442; }
"""


def _open(results: Any) -> Any:
    import xarray as xr

    if isinstance(results, xr.DataTree):
        return results
    if isinstance(results, (str, os.PathLike)):
        from bayescal.cube import open_results

        return open_results(results)
    raise TypeError(
        "`results` must be a result cube (xarray.DataTree) or the path of a store; "
        f"got {type(results).__name__}."
    )


def _output_path(path: Any) -> Path:
    path = Path(path)
    if path.suffix.lower() in (".html", ".htm"):
        path.parent.mkdir(parents=True, exist_ok=True)
        return path
    path.mkdir(parents=True, exist_ok=True)
    return path / "report.html"


def _duration(started: str, finished: str) -> str:
    try:
        seconds = (
            datetime.fromisoformat(finished) - datetime.fromisoformat(started)
        ).total_seconds()
    except (TypeError, ValueError):
        return "unknown (the run has not finished)" if not finished else "unknown"
    minutes, sec = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min {sec} s" if hours else f"{minutes} min {sec} s"


def _study_section(tree: Any) -> str:
    esc = html.escape
    attrs = tree.attrs
    try:
        versions = json.loads(attrs.get("versions", "{}") or "{}")
    except json.JSONDecodeError:
        versions = {"(unreadable)": str(attrs.get("versions"))}
    rows = [
        ("study", attrs.get("study", "")),
        ("seed", attrs.get("seed", "")),
        ("spec hash", attrs.get("spec_hash", "")),
        ("started", attrs.get("started", "")),
        ("finished", attrs.get("finished", "") or "not finished"),
        ("time taken", _duration(attrs.get("started", ""), attrs.get("finished", ""))),
        ("cells done", f"{attrs.get('cells_done', '?')} / {attrs.get('cells_total', '?')}"),
    ]
    table = "".join(
        f"<tr><th>{esc(k)}</th><td style='text-align:left'>{esc(str(v))}</td></tr>"
        for k, v in rows
    )
    vtable = "".join(
        f"<tr><th>{esc(str(k))}</th><td style='text-align:left'>{esc(str(v))}</td></tr>"
        for k, v in sorted(versions.items())
    )
    return (
        "<section id='study'><h2>Study</h2><div class='table-cards'>"
        f"<div class='table-card'><h3>Run</h3><table>{table}</table></div>"
        f"<div class='table-card'><h3>Package versions</h3><table>{vtable}</table></div></div>"
        "<details open><summary>Specification (TOML)</summary>"
        f"<pre>{esc(str(attrs.get('spec', '')))}</pre></details></section>"
    )


def _warnings(tree: Any, diag: Any) -> str:
    esc = html.escape
    items = []
    if not diag.empty and diag["failed"].any():
        bad = diag[diag["failed"]]
        cells = "".join(
            f"<li>{esc(_cell_label(row))}: {esc(row['failures'])}</li>"
            for _, row in bad.head(25).iterrows()
        )
        more = f"<li>… and {len(bad) - 25} more (see Diagnostics)</li>" if len(bad) > 25 else ""
        groups = _diagnostic_groups(bad)
        checks = []
        if len(groups["sampled"]):
            checks.append(f"sampled fits: {threshold_words()}")
        if len(groups["importance"]):
            checks.append(f"approximate fits: Pareto k̂ > {_pareto_limit():g}")
        if len(groups["unchecked"]):
            checks.append("other fits: the verdict recorded when the cell ran")
        items.append(
            f"<p><b>{len(bad)} of {len(diag)} Bayesian fits failed their "
            f"convergence diagnostics</b> ({esc('; '.join(checks))}); their probabilities "
            "and intervals are not trustworthy, and they are never marked best (! in the "
            f"tables):</p><ul>{cells}{more}</ul>"
        )
    try:
        errors = json.loads(tree.attrs.get("errors", "{}") or "{}")
    except json.JSONDecodeError:
        errors = {"(unreadable)": str(tree.attrs.get("errors"))}
    if errors:
        lines = "".join(
            f"<li>{esc(str(k))}: <code>{esc(str(v))}</code></li>"
            for k, v in list(errors.items())[:25]
        )
        items.append(
            f"<p><b>{len(errors)} cells raised an error</b> and are missing from "
            f"the tables:</p><ul>{lines}</ul>"
        )
    done, total = tree.attrs.get("cells_done"), tree.attrs.get("cells_total")
    if done is not None and total is not None and int(done) < int(total):
        items.append(
            f"<p><b>The study is unfinished:</b> {int(done)} of {int(total)} cells "
            "are done; missing cells are shown as –.</p>"
        )
    if not items:
        return ""
    return (
        "<div class='warning' id='warnings' role='alert'><h2>⚠ Warnings</h2>"
        + "".join(items)
        + "</div>"
    )


def _cell_label(row: Any) -> str:
    parts = [str(row["dataset"]), str(row["classifier"]), str(row["scenario"])]
    if "repeat" in row.index:
        parts.append(f"repeat {row['repeat']}")
    parts.append(f"fold {row['fold']}")
    return " / ".join(parts)


def _comparison_figure(ds: Any, dataset: str, metrics: list[str]) -> Any:
    """Box plots of every metric that has a finished cell on ``dataset`` (None: none has)."""
    from matplotlib.figure import Figure

    from bayescal.report.comparison import fold_values

    drawn = [m for m in metrics if fold_values(ds, m, dataset=dataset)]
    if not drawn:
        return None
    n_boxes = max(len(fold_values(ds, m, dataset=dataset)) for m in drawn)
    panel_w = max(4.0, 0.3 * n_boxes + 1.0)
    n_cols = max(1, min(len(drawn), int(13.0 // panel_w)))
    n_rows = -(-len(drawn) // n_cols)
    width = n_cols * panel_w
    label_h = 1.35 if n_boxes > 3 else 0.45  # rotated tick labels
    axes_h, title_h = 2.2, 0.35
    height = n_rows * (axes_h + label_h + title_h)
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(
        left=0.8 / panel_w / n_cols,
        right=1 - 0.1 / width,
        bottom=label_h / height,
        top=1 - title_h / height,
        hspace=(label_h + title_h) / axes_h,
        wspace=0.9 / (panel_w - 0.9),
    )
    axes = np.asarray(fig.subplots(n_rows, n_cols, squeeze=False)).ravel()
    for ax in axes[len(drawn) :]:
        fig.delaxes(ax)
    for ax, metric in zip(axes, drawn, strict=False):
        plot_metric_comparison(ds, metric, dataset=dataset, ax=ax)
        ax.set_title(mpl_text(f"{dataset}: {metric} per fold"), fontsize=10)
        ax.tick_params(labelsize=9)
        ax.yaxis.label.set_fontsize(9)
    return fig


def _diagnostic_groups(diag: Any) -> dict[str, Any]:
    """Rows of the diagnostics table by the check their fit records.

    ``sampled``: a Markov chain (finite R-hat or ESS); ``importance``: an
    approximate posterior checked by Pareto-smoothed importance sampling
    (finite ``pareto_k``); ``unchecked``: neither (an approximation or exact
    computation that records no convergence check).
    """
    sampled = diag[["rhat_max", "ess_bulk_min"]].notna().any(axis=1)
    khat = diag["pareto_k"].notna() if "pareto_k" in diag else sampled & False
    return {
        "sampled": diag[sampled],
        "importance": diag[~sampled & khat],
        "unchecked": diag[~sampled & ~khat],
    }


def _pareto_limit() -> float:
    """The Pareto k̂ above which an approximate posterior fails (0.7 where not defined)."""
    from bayescal.inference.posterior import DiagnosticThresholds

    return float(getattr(DiagnosticThresholds(), "pareto_k_max", 0.7))


def _diagnostic_verdicts(diag: Any) -> str:
    """One line per kind of check: what was checked and how many fits pass."""
    esc = html.escape
    k_max = _pareto_limit()
    out = []
    for kind, rows in _diagnostic_groups(diag).items():
        n = len(rows)
        if n == 0:
            continue
        failed = int(rows["failed"].sum())
        fits = f"{n} fit{'s' if n != 1 else ''}"
        if kind == "sampled":
            what = (f"{fits} sampled by Markov chain Monte Carlo, checked by R-hat, effective "
                    f"sample size and divergences ({esc(threshold_words())} fails)")
        elif kind == "importance":
            what = (f"{fits} with an approximate posterior (Laplace, ADVI or EP), checked "
                    "against the exact log density by Pareto-smoothed importance sampling "
                    f"(Pareto k̂ > {k_max:g} fails)")
        else:
            what = (f"{fits} with a posterior that is not sampled (Laplace, EP or ADVI "
                    "approximations, exact Bayesian binning) and records no convergence "
                    "check: no R-hat or ESS (nothing was sampled) and no Pareto k̂, so their "
                    "accuracy is not verified here")
        if failed:
            out.append(f"<p class='note'>{what}: <b>{failed} of {n} fail</b> (red rows).</p>")
        elif kind == "unchecked":
            out.append(f"<p class='caution'>{what}.</p>")
        else:
            out.append(f"<p class='ok'>{what}: all {n} pass.</p>")
    return "".join(out)


def _diagnostics_section(diag: Any, posteriors: dict[str, Any] | None, dpi: int) -> str:
    esc = html.escape
    if diag.empty:
        return (
            "<section id='diagnostics'><h2>Posterior diagnostics</h2><p class='note'>No "
            "cell of this study has a posterior (no R-hat, ESS, Pareto k̂ or divergences "
            "recorded).</p></section>"
        )
    keys = [c for c in diag.columns if c not in ("failed", "failures")]
    checks = [c for c in keys if diag[c].dtype.kind == "f"]
    shown = [c for c in keys if c not in checks or diag[c].notna().any()]
    cols = [*shown, "failures"]
    head = "".join(f"<th>{esc(str(c))}</th>" for c in cols)
    body = []
    for _, row in diag.iterrows():
        cells = []
        for c in cols:
            v = row[c]
            if isinstance(v, float):
                digits = ".3f" if c == "rhat_max" else (".2f" if c == "pareto_k" else ".0f")
                text = "–" if not np.isfinite(v) else format(v, digits)
            else:
                text = str(v)
            cells.append(f"<td>{esc(text)}</td>")
        cls = " class='failed'" if row["failed"] else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    hidden = [c for c in checks if c not in shown]
    out = [
        "<section id='diagnostics'><h2>Posterior diagnostics</h2>",
        _diagnostic_verdicts(diag),
        "<details class='detail'><summary>Per-fold table of the "
        f"{len(diag)} Bayesian cells</summary>"
        "<p class='note'>One row per Bayesian cell: the sampler or approximation that "
        "computed its posterior where the cube records it, rank-normalised split R-hat (max over "
        "parameters), bulk and tail effective sample sizes (min over parameters), divergent "
        "transitions, and the Pareto k̂ of an importance-sampling check where recorded. – "
        "marks a check that does not apply to the fit"
        + (f"; columns with no value in this study are left out ({esc(', '.join(hidden))})"
           if hidden else "")
        + ".</p>"
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>"
        f"{''.join(body)}</tbody></table></div></details>",
    ]
    worst = worst_fit(diag)
    if worst is None:
        out.append("<p class='note'>No fit has a diagnostic value to rank, so no worst fit is "
                   "singled out.</p></section>")
        return "".join(out)
    label = _cell_label(worst)
    idata = (posteriors or {}).get(label)
    if idata is not None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6.5, 3.6))
        fig.subplots_adjust(bottom=0.15, right=0.7)
        ax = fig.subplots()
        plot_rank_histogram(idata, ax=ax)
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9)
        out.append(f"<h3>Worst fit: {esc(label)}</h3>")
        out.append(_img(fig, f"rank histogram of {label}", dpi))
        try:
            trace = plot_trace(idata)
        except (ValueError, KeyError, TypeError) as exc:  # ArviZ could not lay it out
            out.append(f"<p class='note'>No ArviZ trace plot: {esc(str(exc))}</p>")
        else:
            out.append(_img(trace, f"trace plot of {label}", dpi))
    else:
        out.append(
            f"<p class='note'>Worst fit: <b>{esc(label)}</b>. The result store keeps "
            "no posterior draws, so its trace and rank plots are not drawn here; pass "
            "its <code>idata_</code> as <code>posteriors={label: idata}</code> to "
            "<code>build_report</code>, or plot it with "
            "<code>bayescal.report.plot_trace</code> / "
            "<code>plot_rank_histogram</code>.</p>"
        )
    out.append("</section>")
    return "".join(out)


def build_report(
    results: Any,
    path: str | os.PathLike[str],
    *,
    metrics: list[str] | None = None,
    progress: bool = True,
    posteriors: dict[str, Any] | None = None,
    n_bins: int = 10,
    n_instances: int = 40,
    dpi: int = 150,
) -> Path:
    """Write the self-contained HTML report of a study.

    Parameters
    ----------
    results : xarray.DataTree or path
        A result cube (:func:`bayescal.cube.open_results`) or the path of
        its store.
    path : path
        The HTML file to write (``.html``), or a directory (created) in which
        ``report.html`` is written.
    metrics : list of str, optional
        Metrics tabulated and compared; default the spec's metrics in its
        order, then the cube's other scored metrics (not timings or
        diagnostics).
    progress : bool, default=True
        Show a tqdm progress bar (one step per section or figure) on stderr.
    posteriors : dict of str to xarray.DataTree, optional
        Posteriors (``idata_``) of Bayesian cells, keyed like
        ``"dataset / classifier / scenario / fold 3"``; the worst fit's trace
        and rank plots are drawn when its posterior is given (the store
        keeps no draws).
    n_bins : int, default=10
        Bins of the reliability diagrams.
    n_instances : int, default=40
        Instances drawn in each per-instance uncertainty plot.
    dpi : int, default=150
        Resolution of the rasterised parts of the figures (dense point
        clouds, long marker lines); text, axes and lines are vector.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    TypeError
        If ``results`` is not a cube or a path.
    ValueError
        If a metric is not in the cube or the store is not a study store.

    Notes
    -----
    The page loads nothing: figures are inline SVG (their rasterised parts
    ``data:`` URIs) and a Content-Security-Policy (``default-src 'none';
    img-src data:``) blocks any other resource. Reliability diagrams are drawn with
    :func:`bayescal.report.plot_reliability_diagram` (Wilson intervals) on
    every test-fold prediction of the first repetition.

    Examples
    --------
    >>> from bayescal.study import run  # doctest: +SKIP
    >>> tree = run("models/quickstart.toml", "store")  # doctest: +SKIP
    >>> build_report(tree, "report-output")  # doctest: +SKIP
    PosixPath('report-output/report.html')
    """
    from tqdm.auto import tqdm

    esc = html.escape
    tree = _open(results)
    n_bins = check_positive_int(n_bins, "n_bins")
    n_instances = check_positive_int(n_instances, "n_instances")
    dpi = check_positive_int(dpi, "dpi", minimum=10)
    ds = metrics_dataset(tree)
    available = tabulated_metrics(tree)
    if metrics is None:
        metrics = available
    else:
        unknown = [m for m in metrics if m not in ds or ds[m].dtype.kind != "f"]
        if unknown:
            raise ValueError(f"`metrics` {unknown!r} not in the cube; choose from {available!r}.")
        metrics = list(metrics)
    target = _output_path(path)
    datasets = [str(d) for d in ds["dataset"].values]
    diag = with_samplers(diagnostics_table(ds), tree)
    preds = {d: CubePredictions.from_cube(tree, d) for d in datasets}
    raw_index = {d: _raw_scenario(tree, p) for d, p in preds.items()}
    interval_cells = {
        d: [
            (c, s)
            for c in range(len(p.classifiers))
            for s in range(len(p.scenarios))
            if p.binary and p.has_interval(c, s)
        ]
        for d, p in preds.items()
    }

    steps = 1 + len(metrics) + 5 * len(datasets) + sum(len(v) for v in interval_cells.values()) + 1
    bar = tqdm(total=steps, desc="report", unit="part", disable=not progress)
    parts: list[str] = []

    def step(text: str) -> None:
        parts.append(text)
        bar.update(1)

    study = str(tree.attrs.get("study", "study"))
    parts.append(recommendation_section(tree, metrics[0]))
    parts.append(
        "<details class='detail'><summary>Best cell of every metric</summary>"
        + summary_section(tree, metrics).replace("<h2>Summary</h2>", "", 1)
        .replace("<section id='summary'>", "<div id='best-cells'>", 1)
        .replace("</section>", "</div>")
        + "</details>"
    )
    tables = tables_section(tree, metrics)
    bar.update(len(metrics))
    study_html = _study_section(tree)
    bar.update(1)
    from bayescal.report.method_comparison import comparison_section

    comparison = comparison_section(tree, "brier" if "brier" in metrics else metrics[0], dpi=dpi)

    sections: dict[str, list[str]] = {
        "spread": [],
        "reliability": [],
        "corp": [],
        "maps": [],
        "truth": [],
        "instances": [],
    }

    def add(key: str, dataset: str, fig: Any, alt: str) -> None:
        if fig is not None:
            sections[key].append(f"<h3>{esc(dataset)}</h3>" + _img(fig, alt, dpi))
        bar.update(1)

    spread_metrics = _spread_metrics(tree, metrics)
    for d in datasets:
        p = preds[d]
        add("spread", d, _comparison_figure(ds, d, spread_metrics),
            f"metric spread over folds for {d}")
        has_cells = any(p.cell(c, s) is not None for c in range(len(p.classifiers))
                        for s in range(len(p.scenarios)))
        add("reliability", d, reliability_grid_figure(p, n_bins=n_bins) if has_cells else None,
            f"reliability diagrams of {d}")
        add("corp", d, corp_grid_figure(p) if has_cells else None,
            f"CORP reliability diagrams of {d}")
        maps = (
            calibration_map_figure(p, raw=raw_index[d], probe=_probe_index(tree, p))
            if p.binary and raw_index[d] is not None
            else None
        )
        add("maps", d, maps, f"calibration maps of {d}")
        add("truth", d,
            true_vs_predicted_figure(p) if p.binary and p.p_true is not None and has_cells
            else None, f"predicted against true probability on {d}")
        for c, s in interval_cells[d]:
            name = f"{d} / {p.classifiers[c]} / {p.scenarios[s]}"
            sections["instances"].append(
                f"<details class='detail'><summary>{esc(name)}</summary>"
                + _img(
                    instance_uncertainty_figure(p, c, s, n_instances=n_instances),
                    f"per-instance uncertainty of {name}",
                    dpi,
                )
                + "</details>"
            )
            bar.update(1)

    notes = {
        "spread": "The spec's metrics per classifier / scenario: the box spans the quartiles of "
        "the per-fold values, the line is their median and each point is one fold (the result "
        "tables give the other metrics). A metric with no value on a data set is left out.",
        "reliability": f"Rows are classifiers, each with the scenarios that apply to it. Each "
        f"point is one of {n_bins} equal-width bins of the test-fold predictions: mean "
        "predicted probability against the observed rate, with its 95% Wilson interval; a "
        "calibrated model's points straddle the dashed diagonal. Binary data show the positive "
        "class (named in the title), multi-class data the top label.",
        "corp": CORP_SECTION_NOTE,
        "maps": "Each calibration scenario's probability plotted against the raw classifier's "
        "score of the same test instance: for a scenario that calibrates the same fitted "
        "classifier this is its calibration map. Shaded bands are credible intervals where the "
        "cube stores them; black crosses are the reference probe's probability of the same "
        "instances when the spec names one (metrics.probe). Binary datasets with a raw "
        "scenario only.",
        "truth": "Synthetic data with known true probabilities (as in the simulation of Phelps, "
        "Lizotte and Woolford, 'Using Platt's scaling for calibration after undersampling', "
        "Figs. 3–5): each point is a test instance; a "
        "perfect estimator lies on the diagonal. Each panel's title gives its RMSE to the true "
        "probability.",
        "instances": f"For cells that give credible intervals (Bayesian probes), {n_instances} "
        "random test instances sorted by the posterior mean, with the interval as error bar, "
        "and the probabilities every other classifier / scenario gives the same instances as "
        "short marks: marks far outside the interval disagree with the probe. One figure per "
        "cell; click a cell to open it.",
    }
    diagnostics = _diagnostics_section(diag, posteriors, dpi)
    bar.update(1)
    failed_posteriors = failed_posterior_section(tree, lambda fig, alt: _img(fig, alt, dpi))
    bar.close()

    folded = [
        ("tables", "Result tables", tables, f"{len(metrics)} metrics"),
        ("comparison", "Comparison across datasets", comparison, ""),
    ]
    for key, title in _FIGURE_SECTIONS:
        if sections[key]:
            count = len(sections[key])
            hint = f"{count} {'figure' if count == 1 else 'figures'}"
            body = f"<p class='note'>{notes[key]}</p>" + "".join(sections[key])
            folded.append((key, title, f"<section id='{key}'><h2>{title}</h2>{body}</section>",
                           hint))
    folded.append(("diagnostics", "Posterior diagnostics", diagnostics, ""))
    if failed_posteriors:
        folded.append(("posterior-plots", "Posteriors that failed their diagnostics",
                       failed_posteriors, ""))
    folded.append(("study", "Study and specification", study_html, ""))

    page = (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{_CSP}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>bayescal report: {esc(study)}</title><style>{_CSS}</style></head><body>"
        f"<h1>bayescal report: {esc(study)}</h1>"
        + _subtitle(tree)
        + _warnings(tree, diag)
        + "".join(parts)
        + _contents([(a, t) for a, t, _, _ in folded])
        + "".join(_fold(body, anchor, title, hint) for anchor, title, body, hint in folded)
        + "</body></html>\n"
    )
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, target)
    return target


_FIGURE_SECTIONS = (
    ("spread", "Spread over folds"),
    ("reliability", "Reliability diagrams"),
    ("corp", "CORP reliability diagrams"),
    ("maps", "Calibration maps"),
    ("truth", "Predicted against true probability"),
    ("instances", "Per-instance uncertainty"),
)


def _spread_metrics(tree: Any, metrics: list[str]) -> list[str]:
    """Metrics of the fold-spread figures: the spec's own (the tables have the rest)."""
    from bayescal.cube import cube_layout

    try:
        named = list(cube_layout(tree).metric_names)
    except ValueError:
        named = []
    chosen = [m for m in metrics if m in named]
    return chosen or metrics[:4]


def _subtitle(tree: Any) -> str:
    """One line under the title: description, data sets, cells, protocol."""
    from bayescal.cube import cube_layout

    esc = html.escape
    try:
        layout = cube_layout(tree)
    except ValueError:
        return ""
    words = [f"{len(layout.datasets)} data sets", f"{len(layout.classifiers)} classifiers",
             f"{len(layout.scenarios)} scenarios",
             f"{layout.folds} folds" + (f" × {layout.repeats} repeats"
                                        if layout.repeats > 1 else ""),
             f"{tree.attrs.get('cells_done', '?')} cells"]
    import tomllib

    try:
        spec = tomllib.loads(str(tree.attrs.get("spec", "")))
        description = str(spec.get("study", {}).get("description", ""))
    except (tomllib.TOMLDecodeError, AttributeError):
        description = ""
    positive = positive_class_words(tree)
    return ("<p class='note'>" + (esc(description) + "<br>" if description else "")
            + esc(", ".join(words)) + "."
            + (f"<br>{esc(positive[0].upper() + positive[1:])}." if positive else "")
            + "</p>")


def _fold(section: str, anchor: str, title: str, hint: str) -> str:
    """A report section folded behind a click: ``<details>`` whose summary is the heading.

    ``section`` is the ``<section id=anchor><h2>...</h2>...</section>`` a
    section builder returns; its own heading is replaced by ``title``.
    """
    head = re.match(rf"<section id='{re.escape(anchor)}'><h2>.*?</h2>", section)
    if head is not None and section.endswith("</section>"):
        section = section[head.end() : -len("</section>")]
    extra = f"<span class='hint'>{html.escape(hint)}</span>" if hint else ""
    return (f"<details class='section' id='{anchor}'><summary><h2>{html.escape(title)}</h2>"
            f"{extra}</summary>{section}</details>")


def _contents(links: list[tuple[str, str]]) -> str:
    items = [("summary", "Which calibration to use"), *links]
    return ("<nav><p><b>Sections</b> (folded; click to open): "
            + " · ".join(f"<a href='#{a}'>{html.escape(t)}</a>" for a, t in items)
            + "</p></nav>")


def _probe_index(tree: Any, preds: CubePredictions) -> int | None:
    """Index of the spec's reference probe (``metrics.probe``) among the classifiers."""
    from bayescal.cube import cube_layout

    try:
        layout = cube_layout(tree)
    except ValueError:
        return None
    if layout.probe is None:
        return None
    probe = layout.classifiers[layout.probe]
    return preds.classifiers.index(probe) if probe in preds.classifiers else None


def _raw_scenario(tree: Any, preds: CubePredictions) -> int | None:
    """Index of the uncalibrated scenario (kind ``raw``), or None."""
    ds = tree["metrics"].to_dataset()
    if "scenario_kind" in ds.coords:
        kinds = [str(k) for k in ds["scenario_kind"].values]
        for i, k in enumerate(kinds):
            if k == "raw":
                return preds.scenarios.index(str(ds["scenario"].values[i]))
    return preds.scenarios.index("raw") if "raw" in preds.scenarios else None
