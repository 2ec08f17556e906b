"""Claims a text makes about a bar chart, written as checks and evaluated on our bars.

Where a paper prints no numbers for a figure (Alasalmi (2020) Figs. 12-13), the
reproduction compares the *statements* its text makes about the figure: "the
uncalibrated naive Bayes was the worst performer", "using the full training
data set ... better than part of it". Each statement is transcribed as a
*check* on the figure's bars, a one-line expression::

    lt A B            every bar of A is below every bar of B   (max A < min B)
    gt A B            every bar of A is above every bar of B   (min A > max B)
    near A B TOL      every pair of bars a in A, b in B has |a - b| <= TOL * max(|a|, |b|)
    worst A           the single bar A is above every other bar of the chart
    count_lt A B N    on exactly N data sets the bar A is below the bar B

``A`` and ``B`` are comma-separated *terms* ``classifier.label``: a bar of the
chart (``nb.Raw``, ``rf.CS``), or ``classifier.best``, the lowest bar of that
classifier. Bars are averages over data sets (lower is better); ``count_lt``
reads the per-data-set values the bars average. A bar that is NaN (a failed
cell) makes the check undecided, which counts as *not holding*.

Examples
--------
>>> import pandas as pd
>>> bars = pd.Series({("nb", "Raw"): 1.2, ("nb", "DG"): 0.5, ("svm", "Raw"): 0.4})
>>> evaluate_check("worst nb.Raw", bars).holds
True
>>> evaluate_check("near nb.DG svm.best 0.1", bars).holds
False
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CHECK_OPERATORS", "Claim", "ClaimResult", "ParsedCheck", "evaluate_check",
           "load_claims", "parse_check"]

#: Operator -> number of arguments after it (terms, terms, [number]).
CHECK_OPERATORS = {"lt": 2, "gt": 2, "near": 3, "worst": 1, "count_lt": 3}


@dataclass(frozen=True)
class Claim:
    """One statement of the text: its id, the chart it is about, the check and the source."""

    id: str
    metric: str
    check: str
    source: str


@dataclass(frozen=True)
class ClaimResult:
    """Whether a check holds on our bars, and the values it compared (``detail``)."""

    holds: bool
    detail: str


@dataclass(frozen=True)
class ParsedCheck:
    """A parsed check: operator, the two lists of ``(classifier, label)`` terms, number."""

    op: str
    left: tuple[tuple[str, str], ...]
    right: tuple[tuple[str, str], ...]
    number: float | None


def _terms(text: str, check: str) -> tuple[tuple[str, str], ...]:
    out = []
    for term in text.split(","):
        clf, dot, label = term.strip().partition(".")
        if not dot or not clf or not label:
            raise ValueError(f"check {check!r}: term {term!r} is not 'classifier.label' "
                             "(e.g. 'nb.Raw', 'rf.CS' or 'svm.best')")
        out.append((clf, label))
    return tuple(out)


def parse_check(check: str) -> ParsedCheck:
    """Parse a check (see the module docstring).

    Returns
    -------
    ParsedCheck

    Raises
    ------
    TypeError
        If ``check`` is not a string.
    ValueError
        If the operator is unknown, the number of arguments is wrong, a term is
        not ``classifier.label``, or a number is not a non-negative number
        (``count_lt``: an integer).
    """
    if not isinstance(check, str):
        raise TypeError(f"`check` must be a string like 'lt nb.DG nb.Raw', got "
                        f"{type(check).__name__} {check!r}")
    words = check.split()
    if not words or words[0] not in CHECK_OPERATORS:
        raise ValueError(f"check {check!r}: the operator must be one of "
                         f"{sorted(CHECK_OPERATORS)}, got {words[0] if words else ''!r}")
    op, args = words[0], words[1:]
    if len(args) != CHECK_OPERATORS[op]:
        raise ValueError(f"check {check!r}: {op!r} takes {CHECK_OPERATORS[op]} argument(s), "
                         f"got {len(args)}")
    left = _terms(args[0], check)
    right = _terms(args[1], check) if len(args) > 1 else ()
    number = None
    if len(args) == 3:
        try:
            number = float(args[2])
        except ValueError:
            number = math.nan
        if not number >= 0 or (op == "count_lt" and not number.is_integer()):
            want = "a non-negative integer" if op == "count_lt" else "a non-negative number"
            raise ValueError(f"check {check!r}: the last argument must be {want}, "
                             f"got {args[2]!r}")
    if op in ("worst", "count_lt") and (len(left) != 1 or len(right) > 1):
        raise ValueError(f"check {check!r}: {op!r} compares single bars, not lists")
    if op == "count_lt" and any(label == "best" for _, label in left + right):
        raise ValueError(f"check {check!r}: 'count_lt' reads one scenario per data set; "
                         "'best' is not a scenario")
    return ParsedCheck(op, left, right, number)


def _bar(bars: Any, term: tuple[str, str], check: str) -> float:
    clf, label = term
    if label == "best":
        own = [float(v) for (c, _), v in bars.items() if c == clf]
        if not own:
            raise ValueError(f"check {check!r}: no bar of classifier {clf!r}; classifiers: "
                             f"{sorted({c for c, _ in bars.index})}")
        return math.nan if any(math.isnan(v) for v in own) else min(own)
    if (clf, label) not in bars.index:
        raise ValueError(f"check {check!r}: no bar {clf}.{label}; bars: "
                         f"{['.'.join(k) for k in bars.index]}")
    return float(bars[(clf, label)])


def _fmt(terms: tuple[tuple[str, str], ...], values: list[float]) -> str:
    return ", ".join(f"{c}.{label} {v:.4g}" for (c, label), v in zip(terms, values, strict=True))


def evaluate_check(check: str, bars: Any, per_dataset: Any = None) -> ClaimResult:
    """Evaluate a check on a chart's bars.

    Parameters
    ----------
    check : str
        The check (see the module docstring).
    bars : pandas.Series
        Bar heights indexed by ``(classifier, label)``; lower is better. NaN
        marks a bar whose cells failed.
    per_dataset : pandas.Series, optional
        The values the bars average, indexed by ``(dataset, classifier,
        label)``; needed by ``count_lt`` only.

    Returns
    -------
    ClaimResult
        ``holds`` (False when a bar it needs is NaN) and ``detail``, the
        compared values.

    Raises
    ------
    ValueError
        If the check does not parse, names a bar the chart lacks, or is a
        ``count_lt`` without ``per_dataset``.
    """
    p = parse_check(check)
    if p.op == "count_lt":
        if per_dataset is None:
            raise ValueError(f"check {check!r}: 'count_lt' needs the per-data-set values "
                             "(per_dataset=)")
        (a,), (b,) = p.left, p.right
        below, undecided, n = 0, 0, 0
        for name in sorted({d for d, _, _ in per_dataset.index}):
            va = _bar(per_dataset.xs(name, level=0), a, check)
            vb = _bar(per_dataset.xs(name, level=0), b, check)
            n += 1
            if math.isnan(va) or math.isnan(vb):
                undecided += 1
            else:
                below += va < vb
        holds = undecided == 0 and below == int(p.number)
        detail = (f"{a[0]}.{a[1]} < {b[0]}.{b[1]} on {below} of {n} data sets "
                  f"(claimed {int(p.number)})" + (f"; {undecided} undecided (NaN)"
                                                 if undecided else ""))
        return ClaimResult(bool(holds), detail)
    left = [_bar(bars, t, check) for t in p.left]
    if p.op == "worst":
        others = [(k, float(v)) for k, v in bars.items() if k != p.left[0]]
        values = left + [v for _, v in others]
        worst = max((v for _, v in others), default=math.nan)
        holds = not any(math.isnan(v) for v in values) and left[0] > worst
        top = max(others, key=lambda kv: kv[1], default=(("", ""), math.nan))
        detail = (f"{_fmt(p.left, left)} against the highest other bar "
                  f"{top[0][0]}.{top[0][1]} {top[1]:.4g}")
        return ClaimResult(bool(holds), detail)
    right = [_bar(bars, t, check) for t in p.right]
    if any(math.isnan(v) for v in left + right):
        return ClaimResult(False, f"undecided (NaN): {_fmt(p.left, left)} | "
                                  f"{_fmt(p.right, right)}")
    if p.op == "lt":
        holds, sign = max(left) < min(right), "<"
    elif p.op == "gt":
        holds, sign = min(left) > max(right), ">"
    else:
        gaps = [abs(a - b) / max(abs(a), abs(b)) if max(abs(a), abs(b)) > 0 else 0.0
                for a in left for b in right]
        holds = max(gaps) <= p.number
        sign = f"within {p.number:.0%} (largest gap {max(gaps):.1%}) of"
    return ClaimResult(bool(holds), f"{_fmt(p.left, left)} {sign} {_fmt(p.right, right)}")


def load_claims(path: str | Path, *, metrics: tuple[str, ...] | None = None) -> list[Claim]:
    """The claims of a ``paper.csv`` with a ``check`` column (one per line).

    Columns used: ``claim`` (the id), ``metric`` (the chart), ``check`` and
    ``source``. Each check is parsed here, so a mistyped one fails before a run.

    Raises
    ------
    ValueError
        If the file lacks a column, a check does not parse (the message names
        the line), a metric is not one of ``metrics``, or a (claim, metric)
        appears twice.
    """
    path = Path(path)
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    need = ["claim", "metric", "check", "source"]
    if not rows or any(c not in rows[0] for c in need):
        raise ValueError(f"{path}: needs the columns {need} and at least one line")
    out, seen = [], set()
    for i, row in enumerate(rows, start=2):
        if metrics is not None and row["metric"] not in metrics:
            raise ValueError(f"{path}: line {i}: metric {row['metric']!r} is not one of "
                             f"{list(metrics)}")
        if (row["claim"], row["metric"]) in seen:
            raise ValueError(f"{path}: line {i}: claim {row['claim']!r} appears twice for "
                             f"metric {row['metric']!r}")
        seen.add((row["claim"], row["metric"]))
        try:
            parse_check(row["check"])
        except ValueError as exc:
            raise ValueError(f"{path}: line {i}: {exc}") from None
        out.append(Claim(row["claim"], row["metric"], row["check"], row["source"]))
    return out
