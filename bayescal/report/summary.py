"""The report's summary and result tables: metrics in the spec's order, each explained once.

:func:`tabulated_metrics` orders the metrics as the spec lists them (from the
layout stored in the cube, :func:`bayescal.cube.cube_layout`), then the other
ranked metrics of the cube. :func:`best_scenarios` finds, per dataset and
metric, the best cell (classifier / scenario) and its margin over the same
classifier's uncalibrated (``raw``) scenario; :func:`summary_section` shows it
at the top of the report. :func:`tables_section` explains the marks once and
then gives one long-layout table per metric (:mod:`bayescal.report.tables`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["BestCell", "best_scenarios", "positive_class_words", "positive_classes",
           "summary_section", "tables_section", "tabulated_metrics"]


@dataclass(frozen=True)
class BestCell:
    """The best cell of one dataset and metric.

    Attributes
    ----------
    dataset, metric, classifier, scenario : str
    value : float
        Mean over folds.
    raw : float
        The same classifier's raw scenario (NaN when it has none).
    margin : float
        How much better than raw (positive: better, in the metric's units).
    """

    dataset: str
    metric: str
    classifier: str
    scenario: str
    value: float
    raw: float
    margin: float


def positive_classes(tree: Any) -> dict[str, tuple[str, str]]:
    """``(negative, positive)`` class names of every two-class dataset of a cube.

    Read from the ``class`` coordinate of ``/predictions/<dataset>`` (code 0,
    then code 1: the class of every binary metric and diagram).
    """
    out = {}
    predictions = tree["predictions"] if "predictions" in tree.children else None
    if predictions is None:
        return out
    for name in predictions.children:
        node = predictions[name]
        if "class" in node.coords and node.sizes.get("class") == 2:
            names = [str(c) for c in node["class"].values]
            out[str(name)] = (names[0], names[1])
    return out


def positive_class_words(tree: Any) -> str:
    """One line naming the positive class of each two-class dataset ("" when none)."""
    found = positive_classes(tree)
    if not found:
        return ""
    return ("positive class (code 1) of each two-class data set: "
            + "; ".join(f"{d} {pos!r} (vs {neg!r})" for d, (neg, pos) in found.items())
            + " (a spec chooses it with positive = \"...\")")


def tabulated_metrics(tree: Any) -> list[str]:
    """Ranked metrics of the cube: the spec's first, in its order, then the others."""
    from bayescal.cube import METRICS, cube_layout
    from bayescal.report.comparison import metrics_dataset

    ds = metrics_dataset(tree)
    present = [str(v) for v in ds.data_vars if ds[v].dtype.kind == "f"]
    try:
        order = list(cube_layout(tree).metric_names)
    except ValueError:
        order = []
    scored = [m for m in present
              if m not in METRICS or METRICS[m].needs in ("labels", "truth", "probe")]
    return [m for m in order if m in scored] + [m for m in scored if m not in order]


def _raw_index(ds: Any) -> int | None:
    if "scenario_kind" in ds.coords:
        kinds = [str(k) for k in ds["scenario_kind"].values]
        if "raw" in kinds:
            return kinds.index("raw")
    names = [str(s) for s in ds["scenario"].values]
    return names.index("raw") if "raw" in names else None


def best_scenarios(tree: Any, metrics: list[str]) -> list[BestCell]:
    """Per dataset and metric: the best converged cell and its margin over raw.

    Cells whose posterior failed its diagnostics, metrics without a direction
    and datasets with no finished cell are left out.
    """
    from bayescal.report.comparison import metrics_dataset
    from bayescal.report.tables import study_table

    ds = metrics_dataset(tree)
    raw = _raw_index(ds)
    raw_name = None if raw is None else str(ds["scenario"].values[raw])
    out = []
    for metric in metrics:
        table = study_table(tree, metric)
        if table.direction is None:
            continue
        sign = 1.0 if table.direction == "lower" else -1.0
        for j, dataset in enumerate(table.datasets):
            rows = np.flatnonzero(table.best[:, j])
            if rows.size == 0:
                continue
            i = int(rows[0])
            clf, scen = table.rows[i]
            value = float(table.mean[i, j])
            base = next((float(table.mean[k, j]) for k, (c, s) in enumerate(table.rows)
                         if c == clf and s == raw_name), float("nan"))
            out.append(BestCell(dataset, metric, clf, scen, value, base,
                                sign * (base - value)))
    return out


def summary_section(tree: Any, metrics: list[str]) -> str:
    """HTML: the best scenario per dataset and metric, and its margin over raw."""
    esc = html.escape
    cells = best_scenarios(tree, metrics)
    if not cells:
        return ("<section id='summary'><h2>Summary</h2><p class='note'>No finished cell to "
                "summarise yet.</p></section>")
    rows = []
    for b in cells:
        margin = ("–" if not np.isfinite(b.margin) else
                  ("raw itself" if b.scenario == "raw" or b.margin == 0 else f"{b.margin:+.4f}"))
        raw = "–" if not np.isfinite(b.raw) else f"{b.raw:.4f}"
        rows.append(f"<tr><th>{esc(b.dataset)}</th><td>{esc(b.metric)}</td>"
                    f"<td>{esc(b.classifier)} / {esc(b.scenario)}</td><td>{b.value:.4f}</td>"
                    f"<td>{raw}</td><td>{esc(margin)}</td></tr>")
    return (
        "<section id='summary'><h2>Summary</h2>"
        "<p class='note'>For each dataset and metric, the best classifier / scenario (mean over "
        "folds, among cells whose posterior passed its diagnostics), the same classifier's "
        "uncalibrated <i>raw</i> value and the margin of the best over raw (positive: better "
        "than raw, in the metric's units).</p>"
        "<div class='scroll'><table><thead><tr><th>dataset</th><th>metric</th>"
        "<th>best</th><th>value</th><th>raw</th><th>margin over raw</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def tables_section(tree: Any, metrics: list[str]) -> str:
    """HTML: the marks explained once, then one table per metric with its description."""
    from bayescal.cube.schema import METRICS
    from bayescal.report.tables import format_table, study_table

    esc = html.escape
    tables = [study_table(tree, m) for m in metrics]
    tested = next((t for t in tables if t.test is not None), None)
    if tested is not None:
        test_words = (
            f"<b>+</b> marks a cell that differs significantly from the "
            f"<i>{esc(str(tested.baseline))}</i> scenario of the same classifier and dataset: "
            f"the paired {esc(tested.test.replace('_', ' '))} on the per-fold values gives "
            "p &lt; 0.05 (a cell without + is not shown to differ — not shown to be equal). ")
    else:
        note = next((t.note for t in tables if t.note), "the spec names none")
        test_words = f"No significance test was run ({esc(note)}), so no cell is marked +. "
    parts = [
        "<section id='tables'><h2>Result tables</h2><p class='note'>Rows are classifier / "
        "scenario, columns datasets; each cell is the mean of the metric over the folds. "
        "<b>*</b> (bold) marks the best cell of each dataset in the metric's direction. "
        + test_words +
        "<b>!</b> (red) marks a cell where a posterior failed its convergence diagnostics: "
        "it is never marked best. – marks a cell that did not run.</p><div class='table-cards'>"
    ]
    for table in tables:
        info = METRICS.get(table.metric)
        words = "" if info is None else info.description + (
            "" if info.direction is None else f" ({info.direction} is better)")
        parts.append(f"<div class='table-card'><h3 id='table-{esc(table.metric)}'>"
                     f"{esc(table.metric)}</h3><p class='note'>{esc(words)}</p>"
                     f"<div class='scroll'>{format_table(table, 'html')}</div></div>")
    parts.append("</div></section>")
    return "".join(parts)
