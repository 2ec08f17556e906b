"""Does bayescal agree with the paper? Checks fixed from the paper alone, and a verdict.

Agreement is judged only against the paper's numbers and the uncertainty they
imply; nothing here is derived from our own output (guarding our own numbers
against change is a regression test, kept in ``tests/``).

**The paper's uncertainty.** Each metric of a reproduction states, in its
``reproduction.toml``, the standard error ``se`` of a value the paper printed,
from the paper's own sizes or reported spreads, and why (``reason``)::

    [metrics.MSE.uncertainty]
    kind = "bounded"      # a mean of n per-row terms in [0, bound]
    bound = 2
    n = { mushroom = 8124, biodeg = 1055 }   # or one number
    by = "dataset"                            # the column such a table is keyed by
    reason = "10-fold CV predicts every row once: n = the set's rows"

=============  ================================================================
``kind``       ``se`` of a printed value ``v`` (in the paper's units)
=============  ================================================================
``binomial``   ``scale * sqrt(q (1 - q) / n)``, ``q = v / scale`` (a rate)
``bounded``    ``scale * sqrt(bound * q / n)``: a mean of ``n`` terms in
               ``[0, bound]`` with mean ``q`` has variance at most ``bound q``
``relative``   ``fraction * |v|`` (a spread the paper reports, as a share)
``absolute``   ``se`` (a spread the paper reports, in its units)
``reported``   the line's own ``se`` column of ``paper.csv`` (a spread the paper
               prints beside each value, e.g. "0.0406 ± 0.0052")
=============  ================================================================

**Tolerance of a cell.** Both the paper's figure and ours carry sampling error of
about that size, so a faithful reproduction differs from the paper by about
``sqrt(2) se``: a cell *agrees* when ``|ours - paper| <= Z sqrt(2) se`` with
``Z = 2`` (95 % of a faithful reproduction's cells), or when ours rounds to the
printed value (half a unit of the last printed digit), whichever is larger.

**Checks.** Per block (a table of the paper) and metric:

* *values* -- at least :data:`MIN_SHARE` of the cells agree. A faithful
  reproduction misses about 5 % of its cells by chance; 90 % leaves room for that.
* *order* -- of the pairs of methods (in one row) that the paper itself tells
  apart beyond its uncertainty (their ranked values differ by more than
  ``Z sqrt(se_i^2 + se_j^2)``), at least :data:`MIN_SHARE` are in the paper's
  order in ours. Absent when the paper separates no pair.
* a metric of *claims* (``claims = true``: statements the paper makes in words)
  has one check per statement: it holds when our measured figure meets the line's
  ``holds_if`` (``"<= 1.05"``, ``">= 0.9"``, ``"== 1"``).

The paper's own numbers fed in as ours pass every check (a difference of 0 is
within every tolerance, every order is kept), so no check can reject a perfect
match. **Verdict**: ``reproduced`` when every check holds, ``not reproduced``
when none does, else ``partly reproduced (k of m checks)``.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

__all__ = ["MIN_SHARE", "UNCERTAINTY_KINDS", "Z", "Check", "Verdict", "claim_holds",
           "judge", "paper_as_ours", "standard_error", "tolerances", "validate_uncertainty"]

#: Standard errors a cell may differ by (times sqrt(2): both sides are estimates).
Z = 2.0
#: Share of cells (pairs) that must agree (be in order) for a check to hold.
MIN_SHARE = 0.9
#: How a metric's standard error follows from the paper (see the module docstring).
UNCERTAINTY_KINDS = {"binomial": ("n",), "bounded": ("n", "bound"), "relative": ("fraction",),
                     "absolute": ("se",), "reported": ()}
_HOLDS_IF = re.compile(r"^\s*(<=|>=|==|<|>)\s*(-?[0-9.]+(?:e-?[0-9]+)?)\s*$")


@dataclass(frozen=True)
class Check:
    """One agreement check: what it tests, whether it holds, and what was measured."""

    name: str
    holds: bool
    measured: str
    criterion: str
    failing: tuple[str, ...] = ()
    table: str = ""


@dataclass(frozen=True)
class Verdict:
    """Every check of a reproduction, and the verdict they give."""

    checks: tuple[Check, ...] = field(default_factory=tuple)

    @property
    def held(self) -> int:
        """Number of checks that hold."""
        return sum(c.holds for c in self.checks)

    @property
    def label(self) -> str:
        """``reproduced``, ``partly reproduced (k of m checks)`` or ``not reproduced``."""
        m = len(self.checks)
        if m and self.held == m:
            return "reproduced"
        if self.held == 0:
            return "not reproduced"
        return f"partly reproduced ({self.held} of {m} checks)"

    @property
    def reproduced(self) -> bool:
        """True when every check holds."""
        return self.label == "reproduced"

    def per_table(self) -> dict[str, str]:
        """The verdict of each table (block) of the paper, in order of appearance."""
        tables = dict.fromkeys(c.table for c in self.checks)
        return {t: Verdict(tuple(c for c in self.checks if c.table == t)).label
                for t in tables}

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the verdict, per table, counts, every check and the failing ones."""
        return {"verdict": self.label, "per_table": self.per_table(),
                "checks_held": self.held, "checks": len(self.checks),
                "failing_checks": [c.name for c in self.checks if not c.holds],
                "all_checks": [asdict(c) for c in self.checks]}


def validate_uncertainty(spec: Any, where: str) -> None:
    """Raise ValueError naming ``where`` if an ``uncertainty`` table is incomplete."""
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: must be a table with `kind` and `reason`")
    kind = spec.get("kind")
    if kind not in UNCERTAINTY_KINDS:
        raise ValueError(f"{where}.kind: {kind!r} is not one of {sorted(UNCERTAINTY_KINDS)}")
    for key in (*UNCERTAINTY_KINDS[kind], "reason"):
        if key not in spec:
            raise ValueError(f"{where}.{key}: missing (kind {kind!r} needs "
                             f"{[*UNCERTAINTY_KINDS[kind], 'reason']})")
    keyed = [k for k in ("n", "se", "fraction", "bound") if isinstance(spec.get(k), dict)]
    if keyed and _by(spec) is None:
        raise ValueError(f"{where}.by: missing: name the column that keys the table(s) "
                         f"{keyed}")


def standard_error(spec: dict[str, Any], value: float, line: dict[str, Any] | None = None
                   ) -> float:
    """The standard error of a printed ``value`` under ``spec`` (module docstring).

    Examples
    --------
    >>> round(standard_error({"kind": "binomial", "n": 100, "scale": 100}, 90.0), 3)
    3.0
    >>> standard_error({"kind": "relative", "fraction": 0.1}, -2.0)
    0.2
    """
    kind = spec["kind"]

    def param(name: str) -> float:
        v = spec[name]
        if isinstance(v, dict):
            key = (line or {}).get(_by(spec))
            if key not in v:
                raise ValueError(f"uncertainty: no {name} for {_by(spec)} {key!r}; known: "
                                 f"{sorted(v)}")
            v = v[key]
        return float(v)

    if kind == "relative":
        return param("fraction") * abs(value)
    if kind == "absolute":
        return param("se")
    if kind == "reported":
        text = str((line or {}).get("se") or "").strip()
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"uncertainty 'reported': the paper.csv line lacks its spread in "
                             f"column `se` (got {text!r})") from None
    n = param("n")
    scale = float(spec.get("scale", 1.0))
    q = min(max(value / scale, 0.0), 1.0 if kind == "binomial" else math.inf)
    if kind == "binomial":
        return scale * math.sqrt(q * (1 - q) / n)
    return scale * math.sqrt(param("bound") * q / n)


def _by(spec: dict[str, Any]) -> str | None:
    return spec.get("by", spec.get("n_by"))


def _half_unit(text: str) -> float:
    text = str(text).strip()
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0 ** (-decimals)


def tolerances(table: Any, spec: dict[str, Any]) -> Any:
    """Per line of ``table`` (columns ``paper``, ``paper_text``): the tolerance of ours."""
    out = []
    for line in table.to_dict("records"):
        se = standard_error(spec, float(line["paper"]), line)
        out.append(max(Z * math.sqrt(2.0) * se, _half_unit(line.get("paper_text", ""))))
    return np.asarray(out, dtype=float)


def claim_holds(holds_if: str, measured: float) -> bool:
    """Whether ``measured`` meets a claim's ``holds_if`` (``"<= 1.05"``); NaN never does.

    Examples
    --------
    >>> claim_holds("<= 1.05", 1.0), claim_holds("== 1", 0.0)
    (True, False)
    """
    m = _HOLDS_IF.match(str(holds_if))
    if m is None:
        raise ValueError(f"holds_if {holds_if!r}: expected an operator (<=, >=, ==, <, >) and "
                         "a number, e.g. '<= 1.05'")
    if not math.isfinite(measured):
        return False
    op, bound = m.group(1), float(m.group(2))
    return {"<=": measured <= bound, ">=": measured >= bound, "==": measured == bound,
            "<": measured < bound, ">": measured > bound}[op]


def paper_as_ours(holds_if: str) -> float:
    """A measured figure at which a claim holds exactly as stated (for must-show tests)."""
    m = _HOLDS_IF.match(str(holds_if))
    if m is None:
        raise ValueError(f"holds_if {holds_if!r} does not parse")
    bound = float(m.group(2))
    return {"<": bound - 1e-9, ">": bound + 1e-9}.get(m.group(1), bound)


def _label(line: dict[str, Any], keys: list[str], labels: dict[str, str]) -> str:
    return " / ".join(labels.get(str(line[k]), str(line[k])) for k in keys)


def judge(table: Any, *, metrics: dict[str, dict[str, Any]], row: list[str],
          rankings: dict[str, dict[str, Any]], block_names: dict[str, str] | None = None,
          labels: dict[str, str] | None = None) -> tuple[Verdict, Any]:
    """Every check of a comparison table, and the table with each cell's tolerance.

    Parameters
    ----------
    table : pandas.DataFrame
        One line per (row, method, metric): the ``row`` columns, ``method``,
        ``metric``, ``paper`` (float; NaN for a claim), ``paper_text``, ``ours``
        (NaN: a cell that failed), and for claims ``statement`` and ``holds_if``.
    metrics : dict
        ``[metrics]`` of the reproduction: per metric its ``uncertainty`` or
        ``claims = true``.
    row : list of str
        The columns naming a row of the paper's table (``block`` first).
    rankings : dict
        Per metric ``lower_is_better`` and ``target`` (see
        :meth:`~bayescal.reproduce.registry.Reproduction.ranking`).
    block_names, labels : dict, optional
        Plain-language names of blocks and of row/method ids, for the check names.

    Returns
    -------
    (Verdict, pandas.DataFrame)
        The verdict and ``table`` with ``tolerance`` and ``agrees`` columns
        (for a claim: ``agrees`` is whether it holds).
    """
    block_names, labels = block_names or {}, labels or {}
    table = table.reset_index(drop=True)  # a copy, with unique row labels
    table["tolerance"] = np.nan
    table["agrees"] = False
    keys = [c for c in row if c != "block"]
    checks: list[Check] = []
    for (block, metric), g in table.groupby(["block", "metric"], sort=False):
        where = f"{block_names.get(block, block)}, {metric}"
        spec = metrics[metric]
        if spec.get("claims"):
            for i, line in g.iterrows():
                holds = claim_holds(line["holds_if"], float(line["ours"]))
                table.loc[i, "agrees"] = holds
                detail = line.get("detail")
                shown = f"{float(line['ours']):.4g}" if math.isfinite(line["ours"]) else "failed"
                measured = (detail if isinstance(detail, str) and detail
                            else f"{shown} (holds if {line['holds_if']})")
                what = _label(line, keys, labels) if keys else ""
                checks.append(Check(name=f"{where}{', ' + what if what else ''}: "
                                         f"\"{line['statement']}\"", holds=holds,
                                    measured=measured, criterion=f"holds if {line['holds_if']}",
                                    table=block_names.get(block, block)))
            continue
        unc = spec["uncertainty"]
        tol = tolerances(g, unc)
        paper, ours = g["paper"].to_numpy(float), g["ours"].to_numpy(float)
        agrees = np.abs(ours - paper) <= tol  # NaN (failed) never agrees
        table.loc[g.index, "tolerance"] = tol
        table.loc[g.index, "agrees"] = agrees
        records = g.to_dict("records")
        failing = tuple(_label(r, [*keys, "method"], labels) for r, a in
                        zip(records, agrees, strict=True) if not a)
        share = agrees.mean() if agrees.size else math.nan
        checks.append(Check(
            name=f"{where}: values", holds=bool(agrees.size and share >= MIN_SHARE),
            measured=f"{int(agrees.sum())} of {agrees.size} values within tolerance "
                     f"({share:.1%})",
            criterion=f">= {MIN_SHARE:.0%} of values within {Z:g} x sqrt(2) x se of the paper's "
                      f"({unc['reason']})", failing=failing, table=block_names.get(block, block)))
        order = _order_check(g, unc, rankings[metric], keys, labels, where,
                             block_names.get(block, block))
        if order is not None:
            checks.append(order)
    return Verdict(tuple(checks)), table


def _order_check(g: Any, unc: dict[str, Any], ranking: dict[str, Any], keys: list[str],
                 labels: dict[str, str], where: str, table: str = "") -> Check | None:
    target = ranking.get("target")
    sign = 1.0 if ranking.get("lower_is_better", True) else -1.0

    def rank(v: np.ndarray) -> np.ndarray:
        return np.abs(v - target) if target is not None else sign * v

    pairs = in_order = 0
    failing = []
    groups = g.groupby(keys, sort=False) if keys else [((), g)]
    for _key, sub in groups:
        recs = sub.to_dict("records")
        se = np.array([standard_error(unc, float(r["paper"]), r) for r in recs])
        p, o = rank(sub["paper"].to_numpy(float)), rank(sub["ours"].to_numpy(float))
        for i, j in combinations(range(len(recs)), 2):
            if abs(p[i] - p[j]) <= Z * math.hypot(se[i], se[j]):
                continue
            pairs += 1
            if np.sign(o[i] - o[j]) == np.sign(p[i] - p[j]):
                in_order += 1
            else:
                first, second = (i, j) if p[i] < p[j] else (j, i)
                failing.append(f"{_label(recs[first], [*keys, 'method'], labels)} before "
                               f"{labels.get(str(recs[second]['method']), recs[second]['method'])}")
    if not pairs:
        return None
    share = in_order / pairs
    return Check(name=f"{where}: order", holds=share >= MIN_SHARE,
                 measured=f"{in_order} of {pairs} pairs in the paper's order ({share:.1%})",
                 criterion=f">= {MIN_SHARE:.0%} of the pairs the paper separates beyond "
                           f"{Z:g} x se in the same order", failing=tuple(failing), table=table)
