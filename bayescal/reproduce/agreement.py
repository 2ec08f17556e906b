"""Descriptive agreement figures between a paper's table and ours (not a verdict).

These figures describe how our table follows the paper's (notebooks print them);
whether a reproduction agrees with the paper is decided only by
:mod:`bayescal.reproduce.verdict`, from the paper's numbers and their uncertainty.

A table is long: one line per (row, method) with the paper's value and ours,
in the paper's units. A *row* is one line of the paper's table in which methods
compete (e.g. Phelps et al. (2024): one calibration size, base rate, base model and metric).

* **best matched** — rows where our best method is among the paper's best
  (methods tied at the paper's printed precision all count as best, on both
  sides: with a ``paper_text`` column, ours are rounded to the decimals the
  paper printed before the best are picked);
* **pairs in order** — over every row and every pair of methods the paper
  tells apart (unequal printed values), the share that we order the same way
  (a tie of ours counts as out of order);
* **ratio** — ours / paper per value, where the paper's value is not zero:
  median, minimum, maximum and mean.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np

__all__ = ["Agreement", "agreement", "comparison_table"]


@dataclass(frozen=True)
class Agreement:
    """Agreement figures of one metric (see the module docstring)."""

    rows: int
    best_matched: int
    pairs: int
    pairs_in_order: int
    ratio_median: float
    ratio_min: float
    ratio_max: float
    n_ratios: int
    ratio_mean: float = float("nan")

    @property
    def best_share(self) -> float:
        """Share of rows whose best method matches the paper's."""
        return self.best_matched / self.rows if self.rows else float("nan")

    @property
    def pairs_share(self) -> float:
        """Share of the paper's ordered method pairs that we order the same way."""
        return self.pairs_in_order / self.pairs if self.pairs else float("nan")

    def as_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-ready), with the two shares."""
        return {**asdict(self), "best_share": self.best_share, "pairs_share": self.pairs_share}


def agreement(table: Any, *, row: list[str], lower_is_better: bool = True,
              target: float | None = None) -> Agreement:
    """Agreement figures of a long table of paper and own values.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``row`` (the keys of a row), ``method``, ``paper`` and ``ours``
        (floats, the paper's units), and optionally ``paper_text`` (the paper's
        value as printed: its decimals round ours for the best-method test).
        NaN in ``ours`` (a failed cell) counts as not matched and out of order.
    row : list of str
        The columns that identify a row of the paper's table.
    lower_is_better : bool, default=True
        Direction of the metric.
    target : float, optional
        The metric's ideal value (e.g. a regression slope of 1): methods are
        then ranked by their distance to it, lower is better, and
        ``lower_is_better`` is ignored. The ratios stay those of the values.

    Returns
    -------
    Agreement

    Raises
    ------
    ValueError
        If a column is missing or a (row, method) appears twice.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"r": [0, 0, 0], "method": ["a", "b", "c"],
    ...                   "paper": [1.0, 2.0, 4.0], "ours": [1.1, 1.9, 4.4]})
    >>> a = agreement(t, row=["r"])
    >>> a.best_matched, a.pairs_in_order, a.pairs, round(a.ratio_median, 3)
    (1, 3, 3, 1.1)
    >>> agreement(t, row=["r"], target=2.0).best_matched  # b is nearest 2 on both sides
    1
    """
    missing = [c for c in [*row, "method", "paper", "ours"] if c not in table.columns]
    if missing:
        raise ValueError(f"`table` lacks the column(s) {missing}; it needs {row} and "
                         "'method', 'paper', 'ours'.")
    if table.duplicated([*row, "method"]).any():
        dup = table[table.duplicated([*row, "method"], keep=False)].head(4)
        raise ValueError(f"`table` holds a (row, method) twice, e.g.:\n{dup}")
    sign = 1.0 if lower_is_better else -1.0
    rows = matched = pairs = in_order = 0
    def rank(values: Any) -> Any:
        return np.abs(values - target) if target is not None else sign * values

    for _, g in table.groupby(row, sort=False):
        paper = rank(g["paper"].to_numpy(float))
        ours = rank(g["ours"].to_numpy(float))
        rows += 1
        best_paper = set(np.flatnonzero(paper == paper.min()))
        shown = ours
        if "paper_text" in g:
            shown = rank(np.array([round(v, _decimals(str(t))) for v, t in
                                   zip(g["ours"].to_numpy(float), g["paper_text"], strict=True)]))
        if not np.isnan(shown).any() and best_paper & set(np.flatnonzero(shown == shown.min())):
            matched += 1
        for i, j in combinations(range(len(paper)), 2):
            if paper[i] == paper[j]:
                continue
            pairs += 1
            in_order += bool(np.sign(ours[i] - ours[j]) == np.sign(paper[i] - paper[j]))
    nonzero = table["paper"].to_numpy(float) != 0
    ratios = table["ours"].to_numpy(float)[nonzero] / table["paper"].to_numpy(float)[nonzero]
    ratios = ratios[np.isfinite(ratios)]
    stats = ((np.median(ratios), ratios.min(), ratios.max(), ratios.mean()) if ratios.size
             else (np.nan,) * 4)
    return Agreement(rows=rows, best_matched=matched, pairs=pairs, pairs_in_order=in_order,
                     ratio_median=float(stats[0]), ratio_min=float(stats[1]),
                     ratio_max=float(stats[2]), n_ratios=int(ratios.size),
                     ratio_mean=float(stats[3]))


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def comparison_table(table: Any, *, row: list[str]) -> str:
    """Plain-text side-by-side table "paper | bayescal", ours at the paper's precision.

    ``table`` is as for :func:`agreement`, with a ``paper_text`` column (the
    paper's value as printed) that sets the decimals of each of ours.
    """
    width = max(len(str(m)) for m in table["method"])
    lines = []
    for key, g in table.groupby(row, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        lines.append("  ".join(f"{k}" for k in key))
        lines.append(f"  {'method':<{width}}  {'paper':>12} | {'bayescal':<12}")
        for _, r in g.iterrows():
            d = _decimals(r["paper_text"])
            ours = "failed" if np.isnan(r["ours"]) else f"{r['ours']:.{d}f}"
            lines.append(f"  {r['method']:<{width}}  {r['paper_text']:>12} | {ours:<12}")
    return "\n".join(lines)
