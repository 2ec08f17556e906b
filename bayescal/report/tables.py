"""Result tables of a study cube for people: terminal text, Markdown, LaTeX, HTML, CSV.

The *long layout* has one row per classifier x scenario and one column per
dataset, so a study with many scenarios stays narrow; each cell is the mean of
a metric over the folds (and repeats). Marks are plain symbols, explained in
one line under the table:

``*``  best of its dataset column (the metric registry's direction; cells whose
       posterior failed its diagnostics are never best);
``+``  significantly different from the spec's baseline scenario of the same
       classifier and dataset (the spec's first test, alpha = 0.05);
``!``  at least one fold's posterior failed its diagnostics (``converged`` is
       false): the value is not trustworthy.

Terminal text is plain (no Markdown escapes, no HTML tags) and split into
several tables when the datasets do not fit in :data:`WIDTH` columns. The
table settings (baseline, test, metric order) come from the layout stored in
the cube (:func:`bayescal.cube.cube_layout`), never from the spec text.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["FORMATS", "WIDTH", "StudyTable", "baseline_p_values", "format_table", "study_table"]

#: Output formats of :func:`format_table`.
FORMATS = ("text", "md", "latex", "html", "csv")
#: Width of terminal text tables.
WIDTH = 100
MARK_BEST, MARK_SIGNIFICANT, MARK_UNCONVERGED = "*", "+", "!"


@dataclass
class StudyTable:
    """Means of one metric in the long layout, with their marks.

    Attributes
    ----------
    metric : str
    rows : list of (classifier, scenario)
    datasets : list of str
    mean : ndarray (n_rows, n_datasets)
        NaN where the scenario does not apply or a fold is missing.
    best, significant, unconverged : ndarray of bool, same shape
    direction : {"lower", "higher"} or None
    baseline, test : str or None
        The significance test behind ``significant`` (None: none ran).
    note : str
        Why no test ran, when none did.
    """

    metric: str
    rows: list[tuple[str, str]]
    datasets: list[str]
    mean: np.ndarray
    best: np.ndarray
    significant: np.ndarray
    unconverged: np.ndarray
    direction: str | None
    baseline: str | None
    test: str | None
    note: str = ""

    def legend(self, width: int = WIDTH) -> str:
        """One line (at most ``width`` characters where the names allow) explaining the marks."""
        parts = ["means over folds"]
        if self.direction is not None:
            parts.append(f"{MARK_BEST} best ({self.direction} is better)")
        if self.test is not None:
            parts.append(f"{MARK_SIGNIFICANT} differs from {self.baseline} (p < 0.05)")
        parts += [f"{MARK_UNCONVERGED} unconverged", "- not run"]
        text = "; ".join(parts)
        return text if len(text) <= width else "; ".join(parts[1:])

    def title(self) -> str:
        """The metric, its description and the test behind the marks."""
        from bayescal.cube.schema import METRICS

        info = METRICS.get(self.metric)
        text = self.metric + (f": {info.description}" if info is not None else "")
        if self.test is not None:
            text += f" [test: {self.test}]"
        elif self.note:
            text += f" [no significance test: {self.note}]"
        return text


def _layout(tree: Any) -> Any:
    from bayescal.cube import cube_layout

    try:
        return cube_layout(tree)
    except ValueError:
        return None


def study_table(tree: Any, metric: str, *, alpha: float = 0.05) -> StudyTable:
    """Means, best cells, significance and convergence flags of ``metric``.

    Parameters
    ----------
    tree : xarray.DataTree
        A result cube.
    metric : str
        A float variable of ``/metrics``.
    alpha : float, default=0.05
        Significance level of the marks.

    Returns
    -------
    StudyTable

    Raises
    ------
    ValueError
        If ``metric`` is not a float variable of the cube.
    """
    from bayescal.cube.schema import METRICS
    from bayescal.report.comparison import metrics_dataset

    ds = metrics_dataset(tree)
    floats = [str(v) for v in ds.data_vars if ds[v].dtype.kind == "f"]
    if metric not in floats:
        raise ValueError(f"no metric {metric!r} in the cube; choose one of {floats}")
    done = ds["done"] if "done" in ds else None
    da = ds[metric] if done is None else ds[metric].where(done)
    folds = [d for d in ("repeat", "fold") if d in da.dims]
    with np.errstate(all="ignore"):
        mean = da.mean(folds, skipna=False).transpose("classifier", "scenario", "dataset")
    if "converged" in ds:
        bad = ~ds["converged"] if done is None else done & ~ds["converged"]
        unconverged = bad.any(folds).transpose("classifier", "scenario", "dataset").values
    else:
        unconverged = np.zeros(mean.shape, dtype=bool)
    if "applicable" in ds:
        keep = ds["applicable"].transpose("classifier", "scenario").values
    else:
        keep = np.ones(mean.shape[:2], dtype=bool)
    info = METRICS.get(metric)
    direction = info.direction if info is not None else "lower"
    classifiers = [str(c) for c in ds["classifier"].values]
    scenarios = [str(s) for s in ds["scenario"].values]
    rows = [(c, s) for i, c in enumerate(classifiers) for j, s in enumerate(scenarios)
            if keep[i, j]]
    index = [(i, j) for i in range(len(classifiers)) for j in range(len(scenarios))
             if keep[i, j]]
    values = np.array([mean.values[i, j] for i, j in index]).reshape(len(rows), -1)
    flags = np.array([unconverged[i, j] for i, j in index], dtype=bool).reshape(len(rows), -1)
    best = _best(values, flags, direction)
    significant, baseline, test, note = _significance(tree, ds, metric, alpha, index)
    return StudyTable(metric, rows, [str(d) for d in ds["dataset"].values], values, best,
                      significant, flags, direction, baseline, test, note)


def _best(values: np.ndarray, unconverged: np.ndarray, direction: str | None) -> np.ndarray:
    best = np.zeros(values.shape, dtype=bool)
    if direction is None or values.size == 0:
        return best
    candidates = np.where(np.isfinite(values) & ~unconverged, values, np.nan)
    for j in range(values.shape[1]):
        col = candidates[:, j]
        if np.isnan(col).all():
            continue
        target = np.nanmin(col) if direction == "lower" else np.nanmax(col)
        best[:, j] = np.isclose(col, target, rtol=0, atol=1e-12) & np.isfinite(col)
    return best


def _significance(tree: Any, ds: Any, metric: str, alpha: float,
                  index: list[tuple[int, int]]) -> tuple[np.ndarray, str | None, str | None, str]:
    shape = (len(index), ds.sizes["dataset"])
    p, baseline, test, note = baseline_p_values(tree, metric, ds)
    if p is None:
        return np.zeros(shape, dtype=bool), None, None, note
    sig = np.array([np.nan_to_num(p[i, j], nan=1.0) < alpha for i, j in index], dtype=bool)
    return sig.reshape(shape), baseline, test, ""


def baseline_p_values(
    tree: Any, metric: str, ds: Any = None
) -> tuple[np.ndarray | None, str | None, str | None, str]:
    """P-values of the spec's per-fold test of every scenario against its baseline.

    Parameters
    ----------
    tree : xarray.DataTree
        The result cube.
    metric : str
    ds : xarray.Dataset, optional
        Its ``/metrics`` (read when omitted).

    Returns
    -------
    p : ndarray (classifier, scenario, dataset) or None
        None when no test ran.
    baseline, test : str or None
    note : str
        Why no test ran, when none did.
    """
    from bayescal.report.comparison import metrics_dataset

    ds = metrics_dataset(tree) if ds is None else ds
    layout = _layout(tree)
    if layout is None or layout.baseline is None:
        return None, None, None, "the spec names none"
    if layout.baseline not in ds["scenario"].values.tolist():
        return None, None, None, f"baseline {layout.baseline!r} not in the cube"
    from bayescal.stats import compare
    from bayescal.stats.compare import TESTS

    per_fold = [t for t in layout.tests if t in TESTS]  # across-dataset tests have their own
    if not per_fold:
        return None, None, None, "the spec names no per-fold test"
    test = per_fold[0]
    kwargs: dict[str, float] = {}
    if test == "corrected_resampled_ttest" and layout.test_train_ratio is not None:
        kwargs["test_train_ratio"] = layout.test_train_ratio
    masked = ds.where(ds["done"]) if "done" in ds else ds
    try:
        result = compare(masked, metric, baseline=layout.baseline, dim="scenario", test=test,
                         **kwargs)
    except ValueError as exc:
        return None, None, None, " ".join(str(exc).split())[:120]
    p = result.p_value.transpose("classifier", "scenario", "dataset").values
    return p, layout.baseline, test, ""


def _cell(v: float, marks: str, digits: int) -> str:
    return ("-" if not np.isfinite(v) else f"{v:.{digits}f}") + marks


def _marks(t: StudyTable, i: int, j: int) -> str:
    return ((MARK_BEST if t.best[i, j] else "") + (MARK_SIGNIFICANT if t.significant[i, j]
                                                   else "")
            + (MARK_UNCONVERGED if t.unconverged[i, j] else ""))


def format_table(table: StudyTable, format: str = "text", *, digits: int = 4,
                 width: int = WIDTH) -> str:
    """Render a :class:`StudyTable`.

    Parameters
    ----------
    table : StudyTable
    format : {"text", "md", "latex", "html", "csv"}, default="text"
        ``text``: plain columns fitting ``width`` (split into several tables
        when needed); ``md``/``latex``/``html``: with names escaped for the
        format; ``csv``: one tidy row per (classifier, scenario, dataset) with
        the mean and boolean mark columns.
    digits : int, default=4
    width : int, default=100

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``format`` is unknown.
    """
    if format not in FORMATS:
        raise ValueError(f"`format` must be one of {FORMATS}; got {format!r}.")
    return {"text": _text, "md": _markdown, "latex": _latex, "html": _html,
            "csv": _csv}[format](table, digits, width)


def _text(t: StudyTable, digits: int, width: int) -> str:
    head = ("classifier", "scenario")
    c_w = max([len(head[0]), *(len(c) for c, _ in t.rows)])
    s_w = max([len(head[1]), *(len(s) for _, s in t.rows)])
    cells = [[_cell(t.mean[i, j], _marks(t, i, j), digits) for j in range(len(t.datasets))]
             for i in range(len(t.rows))]
    col_w = [max([len(d), *(len(cells[i][j]) for i in range(len(t.rows)))])
             for j, d in enumerate(t.datasets)]
    chunks: list[list[int]] = [[]]
    used = c_w + s_w + 2
    for j, w in enumerate(col_w):
        if chunks[-1] and used + 2 + w > width:
            chunks.append([])
            used = c_w + s_w + 2
        chunks[-1].append(j)
        used += 2 + w
    out = []
    for cols in chunks:
        line = f"{head[0]:<{c_w}}  {head[1]:<{s_w}}" + "".join(
            f"  {t.datasets[j]:>{col_w[j]}}" for j in cols)
        lines = [line, "-" * len(line)]
        for i, (c, s) in enumerate(t.rows):
            lines.append(f"{c:<{c_w}}  {s:<{s_w}}" + "".join(
                f"  {cells[i][j]:>{col_w[j]}}" for j in cols))
        out.append("\n".join(lines))
    return t.title() + "\n" + "\n\n".join(out) + "\n" + t.legend()


def _escape_md(text: str) -> str:
    out = " ".join(str(text).splitlines()).replace("\\", "\\\\")
    for ch in "|*_`<>[]":
        out = out.replace(ch, "\\" + ch)
    return out


def _markdown(t: StudyTable, digits: int, width: int) -> str:
    e = _escape_md
    lines = ["| classifier | scenario | " + " | ".join(e(d) for d in t.datasets) + " |",
             "| --- | --- | " + " | ".join("---:" for _ in t.datasets) + " |"]
    for i, (c, s) in enumerate(t.rows):
        cells = [e(_cell(t.mean[i, j], _marks(t, i, j), digits)) for j in range(len(t.datasets))]
        lines.append(f"| {e(c)} | {e(s)} | " + " | ".join(cells) + " |")
    return e(t.title()) + "\n\n" + "\n".join(lines) + "\n\n" + e(t.legend())


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}"}


def _escape_latex(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in " ".join(str(text).splitlines()))


def _latex(t: StudyTable, digits: int, width: int) -> str:
    e = _escape_latex
    lines = ["% " + e(t.title()), "% " + e(t.legend()), "\\begin{tabular}{ll" + "r" * len(t.datasets) + "}",
             "\\hline", " & ".join(["classifier", "scenario", *map(e, t.datasets)]) + " \\\\",
             "\\hline"]
    for i, (c, s) in enumerate(t.rows):
        cells = []
        for j in range(len(t.datasets)):
            v = t.mean[i, j]
            text = "--" if not np.isfinite(v) else f"{v:.{digits}f}"
            if t.best[i, j]:
                text = f"\\textbf{{{text}}}"
            marks = _marks(t, i, j).replace(MARK_BEST, "")
            cells.append(text + (f"$^{{{marks}}}$" if marks else ""))
        lines.append(" & ".join([e(c), e(s), *cells]) + " \\\\")
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines)


def _html(t: StudyTable, digits: int, width: int) -> str:
    e = html.escape
    head = "".join(f"<th>{e(d)}</th>" for d in t.datasets)
    lines = ["<table class='results'>", f"<caption>{e(t.legend())}{e('; ' + t.note) if t.note else ''}</caption>",
             f"<thead><tr><th>classifier</th><th>scenario</th>{head}</tr></thead><tbody>"]
    for i, (c, s) in enumerate(t.rows):
        tds = []
        for j in range(len(t.datasets)):
            text = e(_cell(t.mean[i, j], _marks(t, i, j), digits))
            if t.best[i, j]:
                text = f"<b>{text}</b>"
            cls = " class='unconverged' title='posterior failed its diagnostics'" \
                if t.unconverged[i, j] else ""
            tds.append(f"<td{cls}>{text}</td>")
        lines.append(f"<tr><th>{e(c)}</th><th>{e(s)}</th>{''.join(tds)}</tr>")
    lines.append("</tbody></table>")
    return "\n".join(lines)


def _csv(t: StudyTable, digits: int, width: int) -> str:
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["metric", "classifier", "scenario", "dataset", "mean", "best",
                     "significant", "unconverged"])
    for i, (c, s) in enumerate(t.rows):
        for j, d in enumerate(t.datasets):
            v = t.mean[i, j]
            writer.writerow([t.metric, c, s, d, repr(float(v)) if np.isfinite(v) else "",
                             bool(t.best[i, j]), bool(t.significant[i, j]),
                             bool(t.unconverged[i, j])])
    return buffer.getvalue()
