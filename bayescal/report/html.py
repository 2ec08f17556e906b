"""The HTML report of a study: one self-contained static page.

:func:`build_report` turns a result cube (see :mod:`bayescal.cube`) into
one HTML file that needs nothing else to be viewed: figures are PNG images
embedded as base64 ``data:`` URIs, the style sheet is inline, there is no
script, and a Content-Security-Policy forbids loading anything else, so the
page never touches the network. Every string that comes from a spec or a data
file (study, dataset, classifier, scenario and class names, the spec text,
error messages) is escaped with :func:`html.escape`.

The page holds, in order: a warning box (failed posterior diagnostics, cells
that raised, an unfinished run) when there is anything to warn about; a
summary (per dataset and metric, the best scenario and its margin over raw);
the study's description, seed, times and package versions with the spec text;
result tables per metric in the spec's order, the marks explained once; the
fold spread of every metric; reliability diagrams (rows classifiers, columns
scenarios); calibration maps; predicted against true probability where the
data have one; per-instance uncertainty where the cube stores credible
intervals; and the posterior diagnostics of every Bayesian cell.
"""

from __future__ import annotations

import html
import json
import os
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
    worst_fit,
)
from bayescal.report.posterior_figures import failed_posterior_section
from bayescal.report.summary import summary_section, tables_section, tabulated_metrics
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
img { max-width: 100%; height: auto; display: block; margin: 0.5em 0; }
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
        "<section id='study'><h2>Study</h2>"
        f"<table>{table}</table>"
        f"<h3>Package versions</h3><table>{vtable}</table>"
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
        items.append(
            f"<p><b>{len(bad)} of {len(diag)} Bayesian fits failed their "
            f"convergence diagnostics</b> ({esc(threshold_words())}); their probabilities "
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
    from matplotlib.figure import Figure

    n_boxes = (
        int(np.count_nonzero(ds["applicable"].values))
        if "applicable" in ds
        else (ds.sizes["classifier"] * ds.sizes["scenario"])
    )
    n_cols = 1 if n_boxes > 12 else min(len(metrics), 3)
    n_rows = -(-len(metrics) // n_cols)
    width = n_cols * max(4.5, 0.42 * n_boxes + 1.5)
    fig = Figure(figsize=(width, 3.4 * n_rows))
    fig.subplots_adjust(
        left=0.9 / width,
        right=0.99,
        bottom=1.0 / (3.4 * n_rows),
        top=1 - 0.35 / (3.4 * n_rows),
        hspace=0.9,
        wspace=0.3,
    )
    axes = np.asarray(fig.subplots(n_rows, n_cols, squeeze=False)).ravel()
    for ax in axes[len(metrics) :]:
        ax.set_axis_off()
    for ax, metric in zip(axes, metrics, strict=False):
        try:
            plot_metric_comparison(ds, metric, dataset=dataset, ax=ax)
        except ValueError:
            ax.set_axis_off()
            ax.text(0.5, 0.5, f"no finished cell of {metric}", ha="center", transform=ax.transAxes)
            continue
        ax.set_title(mpl_text(f"{dataset}: {metric} per fold"), fontsize="medium")
        ax.tick_params(axis="x", labelsize="x-small")
    return fig


def _diagnostics_section(diag: Any, posteriors: dict[str, Any] | None, dpi: int) -> str:
    esc = html.escape
    if diag.empty:
        return (
            "<section id='diagnostics'><h2>Posterior diagnostics</h2><p class='note'>No "
            "cell of this study has a posterior (no R-hat, ESS or divergences recorded)."
            "</p></section>"
        )
    cols = [c for c in diag.columns if c not in ("failed",)]
    head = "".join(f"<th>{esc(str(c))}</th>" for c in cols)
    body = []
    for _, row in diag.iterrows():
        cells = []
        for c in cols:
            v = row[c]
            if isinstance(v, float):
                text = (
                    "–" if not np.isfinite(v) else (f"{v:.0f}" if c != "rhat_max" else f"{v:.3f}")
                )
            else:
                text = str(v)
            cells.append(f"<td>{esc(text)}</td>")
        cls = " class='failed'" if row["failed"] else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    n_failed = int(diag["failed"].sum())
    verdict = (
        f"<p class='ok'>All {len(diag)} Bayesian fits pass their diagnostics (none has "
        f"{esc(threshold_words())}).</p>"
        if n_failed == 0
        else f"<p class='note'><b>{n_failed}</b> of {len(diag)} fits fail (red rows).</p>"
    )
    out = [
        "<section id='diagnostics'><h2>Posterior diagnostics</h2>",
        verdict,
        "<p class='note'>One row per Bayesian cell, from ArviZ: rank-normalised split R-hat "
        "(max over parameters), bulk effective sample size (min over parameters) and the "
        "number of divergent transitions. Fits that are not sampled (EP, Laplace, exact "
        "Bayesian binning) record no R-hat or ESS (–).</p>",
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>"
        f"{''.join(body)}</tbody></table></div>",
    ]
    worst = worst_fit(diag)
    label = _cell_label(worst)
    idata = (posteriors or {}).get(label)
    if idata is not None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6.5, 3.6))
        fig.subplots_adjust(bottom=0.15)
        plot_rank_histogram(idata, ax=fig.subplots())
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
    dpi: int = 80,
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
    dpi : int, default=80
        Resolution of the embedded PNG figures.

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
    The page loads nothing: images are ``data:`` URIs and a
    Content-Security-Policy (``default-src 'none'; img-src data:``) blocks any
    other resource. Reliability diagrams are drawn with
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
    diag = diagnostics_table(ds)
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
    parts.append(summary_section(tree, metrics))
    step(_study_section(tree))
    parts.append(tables_section(tree, metrics))
    bar.update(len(metrics))
    from bayescal.report.method_comparison import comparison_section

    parts.append(comparison_section(tree, "brier" if "brier" in metrics else metrics[0], dpi=dpi))

    sections: dict[str, list[str]] = {
        "spread": [],
        "reliability": [],
        "corp": [],
        "maps": [],
        "truth": [],
        "instances": [],
    }
    for d in datasets:
        p = preds[d]
        sections["spread"].append(
            f"<h3>{esc(d)}</h3>"
            + _img(_comparison_figure(ds, d, metrics), f"metric spread over folds for {d}", dpi)
        )
        bar.update(1)
        sections["reliability"].append(
            f"<h3>{esc(d)}</h3>"
            + _img(reliability_grid_figure(p, n_bins=n_bins), f"reliability diagrams of {d}", dpi)
        )
        bar.update(1)
        corp = corp_grid_figure(p)
        if corp is not None:
            sections["corp"].append(
                f"<h3>{esc(d)}</h3>" + _img(corp, f"CORP reliability diagrams of {d}", dpi)
            )
        bar.update(1)
        maps = (
            calibration_map_figure(p, raw=raw_index[d], probe=_probe_index(tree, p))
            if p.binary and raw_index[d] is not None
            else None
        )
        if maps is not None:
            sections["maps"].append(
                f"<h3>{esc(d)}</h3>" + _img(maps, f"calibration maps of {d}", dpi)
            )
        bar.update(1)
        if p.binary and p.p_true is not None:
            sections["truth"].append(
                f"<h3>{esc(d)}</h3>"
                + _img(
                    true_vs_predicted_figure(p), f"predicted against true probability on {d}", dpi
                )
            )
        bar.update(1)
        for c, s in interval_cells[d]:
            name = f"{d} / {p.classifiers[c]} / {p.scenarios[s]}"
            sections["instances"].append(
                f"<h3>{esc(name)}</h3>"
                + _img(
                    instance_uncertainty_figure(p, c, s, n_instances=n_instances),
                    f"per-instance uncertainty of {name}",
                    dpi,
                )
            )
            bar.update(1)

    parts.append(
        _figure_section(
            "spread",
            "Spread over folds",
            "Every metric per classifier / scenario: the box spans the quartiles of the per-fold "
            "values, the line is their median and each point is one fold.",
            sections["spread"],
        )
    )
    parts.append(
        _figure_section(
            "reliability",
            "Reliability diagrams",
            f"Rows are classifiers, columns scenarios, so the scenarios of one classifier compare "
            f"side by side. Each point is one of {n_bins} equal-width bins of the test-fold "
            "predictions: mean predicted probability against the observed rate, with its 95% "
            "Wilson interval; a calibrated model's points straddle the dashed diagonal. Binary "
            "data show the positive class, multi-class data the top label.",
            sections["reliability"],
        )
    )
    parts.append(
        _figure_section("corp", "CORP reliability diagrams", CORP_SECTION_NOTE, sections["corp"])
    )
    parts.append(
        _figure_section(
            "maps",
            "Calibration maps",
            "Each calibration scenario's probability plotted against the raw classifier's score of "
            "the same test instance: for a scenario that calibrates the same fitted classifier "
            "this is its calibration map. Shaded bands are credible intervals where the cube "
            "stores them; black crosses are the reference probe's probability of the same "
            "instances when the spec names one (metrics.probe). Binary datasets with a raw "
            "scenario only.",
            sections["maps"],
        )
    )
    parts.append(
        _figure_section(
            "truth",
            "Predicted against true probability",
            "Synthetic data with known true probabilities (as in seed 004, Figs. 3–5): each point "
            "is a test instance; a perfect estimator lies on the diagonal. The legend gives the "
            "RMSE to the true probability.",
            sections["truth"],
        )
    )
    parts.append(
        _figure_section(
            "instances",
            "Per-instance uncertainty",
            f"For cells that give credible intervals (Bayesian probes), {n_instances} random test "
            "instances sorted by the posterior mean, with the interval as error bar, and the "
            "probabilities every other classifier / scenario gives the same instances as "
            "short marks: marks far outside the interval disagree with the probe.",
            sections["instances"],
        )
    )
    step(_diagnostics_section(diag, posteriors, dpi))
    parts.append(failed_posterior_section(tree, lambda fig, alt: _img(fig, alt, dpi)))
    bar.close()

    page = (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{_CSP}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>bayescal report: {esc(study)}</title><style>{_CSS}</style></head><body>"
        f"<h1>bayescal report: {esc(study)}</h1>"
        + _warnings(tree, diag)
        + _contents()
        + "".join(parts)
        + "</body></html>\n"
    )
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, target)
    return target


def _contents() -> str:
    links = [
        ("summary", "Summary"),
        ("tables", "Result tables"),
        ("study", "Study"),
        ("comparison", "Comparison across datasets"),
        ("spread", "Spread over folds"),
        ("reliability", "Reliability diagrams"),
        ("corp", "CORP reliability diagrams"),
        ("maps", "Calibration maps"),
        ("truth", "Predicted against true probability"),
        ("instances", "Per-instance uncertainty"),
        ("diagnostics", "Posterior diagnostics"),
    ]
    return "<nav><p>" + " · ".join(f"<a href='#{a}'>{t}</a>" for a, t in links) + "</p></nav>"


def _figure_section(anchor: str, title: str, text: str, figures: list[str]) -> str:
    body = "".join(figures) if figures else "<p class='note'>Nothing to show for this study.</p>"
    return f"<section id='{anchor}'><h2>{title}</h2><p class='note'>{text}</p>{body}</section>"


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
