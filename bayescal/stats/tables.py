"""Paper-style summary tables of a result cube.

One row per dataset, one column per (classifier, scenario); each cell is the
mean of a metric over the folds, the best cell of each row in bold and the cells
significantly different from a baseline underlined — the layout of the tables in
Alasalmi (2020, Tables 6 and 7). Rendered as a pandas
DataFrame, Markdown, LaTeX or HTML; every name that comes from a spec or a data
file is escaped for the output format.
"""

from __future__ import annotations

import html
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from bayescal.stats.compare import TESTS, _metric_array, compare
from bayescal.validation import check_choice, check_fraction, check_positive_int

__all__ = ["summary_table"]

FORMATS = ("dataframe", "markdown", "latex", "html")

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _escape_latex(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(ch, ch) for ch in " ".join(text.splitlines()))


def _escape_markdown(text: str) -> str:
    out = " ".join(text.splitlines()).replace("\\", "\\\\")
    for ch in "|*_`<>[]":
        out = out.replace(ch, "\\" + ch)
    return out


def _label(key: Any) -> str:
    parts = key if isinstance(key, tuple) else (key,)
    return " / ".join(str(p) for p in parts)


def summary_table(
    metrics: Any,
    metric: str,
    *,
    baseline: Any = None,
    test: str = "cv_ttest",
    alpha: float = 0.05,
    lower_is_better: bool = True,
    format: str = "dataframe",
    dim: Hashable = "scenario",
    row_dim: Hashable = "dataset",
    fold_dim: Hashable = "fold",
    repeat_dim: Hashable = "repeat",
    digits: int = 3,
    drop_empty: bool = False,
    **test_kwargs: Any,
) -> pd.DataFrame | str:
    """Mean of a metric over folds, best per row in bold, significant cells underlined.

    Parameters
    ----------
    metrics : xarray.Dataset or xarray.DataTree
        The cube's ``/metrics`` group (dims like ``dataset × classifier ×
        scenario × fold``, and ``repeat``).
    metric : str
        The variable tabulated, e.g. ``"log_loss"``.
    baseline : hashable, optional
        Entry of ``dim`` the other entries are tested against (within each
        dataset and classifier). ``None``: no test, nothing underlined.
    test : str, default="cv_ttest"
        A test of :func:`bayescal.stats.compare`.
    alpha : float, default=0.05
        Cells with ``p_value < alpha`` are underlined.
    lower_is_better : bool, default=True
        Whether the best cell of a row is its minimum (losses) or maximum.
    format : {"dataframe", "markdown", "latex", "html"}, default="dataframe"
        The output. ``"dataframe"`` returns the means with ``attrs``
        ``best`` and ``significant`` (boolean DataFrames), ``p_value``, and the
        settings; the others return a string.
    dim : hashable, default="scenario"
        The dimension along which entries are compared with ``baseline``.
    row_dim : hashable, default="dataset"
        The dimension of the rows; the other non-fold dimensions form the
        columns (a column MultiIndex, e.g. classifier × scenario).
    fold_dim, repeat_dim : hashable
        Fold and repetition dimensions, averaged over.
    digits : int, default=3
        Decimals shown; cells equal to the best after rounding are all bold.
    drop_empty : bool, default=False
        Leave out columns with no value in any row (in a finished study:
        scenarios that do not apply to a classifier, such as a reference
        probe's calibrated scenarios); ``False`` shows them as "–".
    **test_kwargs
        Passed to the test (``test_train_ratio``).

    Returns
    -------
    pandas.DataFrame or str

    Raises
    ------
    ValueError
        If a dimension or name is not in the cube, or an option is invalid.

    Notes
    -----
    A cell is the mean over all folds (and repeats); a cell with any missing
    fold is NaN and shown as "–", and takes part in neither the best-of-row
    choice nor the tests. HTML output escapes every name (they come from user
    specs and data files); Markdown and LaTeX escape their special characters.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> rng = np.random.default_rng(1)
    >>> loss = rng.normal(0.3, 0.01, size=(2, 1, 2, 10))
    >>> loss[:, :, 1] -= 0.05
    >>> cube = xr.Dataset(
    ...     {"log_loss": (("dataset", "classifier", "scenario", "fold"), loss)},
    ...     coords={"dataset": ["adult", "iris"], "classifier": ["nb"],
    ...             "scenario": ["raw", "dgg"]})
    >>> print(summary_table(cube, "log_loss", baseline="raw", format="markdown"))
    ... # doctest: +NORMALIZE_WHITESPACE
    | dataset | nb / raw | nb / dgg |
    | --- | --- | --- |
    | adult | 0.302 | <u>**0.249**</u> |
    | iris | 0.297 | <u>**0.252**</u> |
    <BLANKLINE>
    Mean log\\_loss over folds; **bold**: best per row (lower is better); <u>underlined</u>: significantly different from raw (cv\\_ttest, alpha = 0.05).
    """
    check_choice(format, "format", FORMATS)
    check_choice(lower_is_better, "lower_is_better", (True, False))
    check_choice(drop_empty, "drop_empty", (True, False))
    alpha = check_fraction(alpha, "alpha")
    digits = check_positive_int(digits, "digits", minimum=0)
    if baseline is not None and test not in TESTS:
        raise ValueError(f"`test` must be one of {list(TESTS)!r}; got {test!r}.")
    da = _metric_array(metrics, metric)
    if row_dim not in da.dims:
        raise ValueError(f"`row_dim` {row_dim!r} is not a dimension of {metric!r}: {da.dims}.")
    if fold_dim not in da.dims:
        raise ValueError(f"`fold_dim` {fold_dim!r} is not a dimension of {metric!r}: {da.dims}.")
    averaged = [d for d in (repeat_dim, fold_dim) if d in da.dims]
    means = da.mean(dim=averaged, skipna=False)
    column_dims = [d for d in means.dims if d != row_dim]
    if not column_dims:
        raise ValueError(f"{metric!r} has no dimension besides {row_dim!r} to form columns.")
    means = means.transpose(row_dim, *column_dims)

    p_values = None
    if baseline is not None:
        result = compare(
            metrics,
            metric,
            baseline=baseline,
            dim=dim,
            test=test,
            fold_dim=fold_dim,
            repeat_dim=repeat_dim,
            **test_kwargs,
        )
        p_values = result.p_value.transpose(row_dim, *column_dims)

    values = means.values.reshape(means.shape[0], -1)
    columns = pd.MultiIndex.from_product(
        [means[d].values.tolist() for d in column_dims], names=[str(d) for d in column_dims]
    )
    if len(column_dims) == 1:
        columns = columns.get_level_values(0)
    # Columns with no value in any row (a scenario that does not apply to a
    # classifier, e.g. a reference probe's calibrated scenarios) are dropped.
    keep = ~np.isnan(values).all(axis=0) if drop_empty else np.ones(values.shape[1], dtype=bool)
    values, columns = values[:, keep], columns[keep]
    index = pd.Index(means[row_dim].values.tolist(), name=str(row_dim))
    table = pd.DataFrame(values, index=index, columns=columns)

    rounded = np.round(values, digits)
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(rounded)
        masked = np.where(finite, rounded, np.inf if lower_is_better else -np.inf)
        best_value = masked.min(axis=1) if lower_is_better else masked.max(axis=1)
        best = finite & (rounded == best_value[:, None])
    if p_values is not None:
        p = p_values.values.reshape(means.shape[0], -1)[:, keep]
        significant = np.nan_to_num(p, nan=1.0) < alpha
    else:
        p = np.full(values.shape, np.nan)
        significant = np.zeros(values.shape, dtype=bool)

    table.attrs.update(
        best=pd.DataFrame(best, index=index, columns=columns),
        significant=pd.DataFrame(significant, index=index, columns=columns),
        p_value=pd.DataFrame(p, index=index, columns=columns),
        metric=str(metric),
        baseline=None if baseline is None else str(baseline),
        test=test if baseline is not None else None,
        alpha=alpha,
        lower_is_better=lower_is_better,
    )
    if format == "dataframe":
        return table
    direction = "lower" if lower_is_better else "higher"

    def note(esc, bold, underline) -> str:
        text = f"Mean {esc(str(metric))} over folds; {bold('bold')}: best per row ({direction} is better)"
        if baseline is not None:
            text += (
                f"; {underline('underlined')}: significantly different from "
                f"{esc(str(baseline))} ({esc(test)}, alpha = {alpha:g})"
            )
        return text + "."

    renderer = {"markdown": _markdown, "latex": _latex, "html": _html}[format]
    return renderer(table, best, significant, digits, note)


def _cells(
    table: pd.DataFrame, best: np.ndarray, significant: np.ndarray, digits: int, bold, underline
) -> list[list[str]]:
    rows = []
    for i in range(table.shape[0]):
        row = []
        for j in range(table.shape[1]):
            v = table.iat[i, j]
            text = "–" if not np.isfinite(v) else f"{v:.{digits}f}"
            if best[i, j]:
                text = bold(text)
            if significant[i, j]:
                text = underline(text)
            row.append(text)
        rows.append(row)
    return rows


def _markdown(table, best, significant, digits, note) -> str:
    esc = _escape_markdown
    header = [esc(str(table.index.name))] + [esc(_label(c)) for c in table.columns]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(["---"] * len(header)) + " |"]
    cells = _cells(table, best, significant, digits, lambda t: f"**{t}**", lambda t: f"<u>{t}</u>")
    for name, row in zip(table.index, cells, strict=True):
        lines.append("| " + " | ".join([esc(str(name)), *row]) + " |")
    text = note(esc, lambda t: f"**{t}**", lambda t: f"<u>{t}</u>")
    return "\n".join(lines) + "\n\n" + text


def _latex(table, best, significant, digits, note) -> str:
    esc = _escape_latex
    n = table.shape[1]
    lines = [
        "% " + note(esc, str, str),
        "\\begin{tabular}{l" + "r" * n + "}",
        "\\hline",
    ]
    if isinstance(table.columns, pd.MultiIndex):
        for level in range(table.columns.nlevels):
            labels = [esc(str(c[level])) for c in table.columns]
            name = esc(str(table.index.name)) if level == table.columns.nlevels - 1 else ""
            lines.append(" & ".join([name, *labels]) + " \\\\")
    else:
        labels = [esc(str(c)) for c in table.columns]
        lines.append(" & ".join([esc(str(table.index.name)), *labels]) + " \\\\")
    lines.append("\\hline")
    cells = _cells(
        table, best, significant, digits, lambda t: f"\\textbf{{{t}}}", lambda t: f"\\underline{{{t}}}"
    )
    for name, row in zip(table.index, cells, strict=True):
        row = [r.replace("–", "--") for r in row]
        lines.append(" & ".join([esc(str(name)), *row]) + " \\\\")
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines)


def _html(table, best, significant, digits, note) -> str:
    esc = html.escape
    lines = ["<table>", f"<caption>{note(esc, str, str)}</caption>", "<thead>"]
    if isinstance(table.columns, pd.MultiIndex):
        for level in range(table.columns.nlevels):
            name = esc(str(table.index.name)) if level == table.columns.nlevels - 1 else ""
            labels = "".join(f"<th>{esc(str(c[level]))}</th>" for c in table.columns)
            lines.append(f"<tr><th>{name}</th>{labels}</tr>")
    else:
        labels = "".join(f"<th>{esc(str(c))}</th>" for c in table.columns)
        lines.append(f"<tr><th>{esc(str(table.index.name))}</th>{labels}</tr>")
    lines += ["</thead>", "<tbody>"]
    cells = _cells(table, best, significant, digits, lambda t: f"<b>{t}</b>", lambda t: f"<u>{t}</u>")
    for name, row in zip(table.index, cells, strict=True):
        tds = "".join(f"<td>{c}</td>" for c in row)
        lines.append(f"<tr><th>{esc(str(name))}</th>{tds}</tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)
