"""The reproductions under ``models/reproductions/``, one folder each.

A folder holds::

    reproduction.toml   # what is reproduced, its sizes, metric units and uncertainty
    paper.csv           # the paper's numbers (one value a line, citing its source)
    quick.toml, ...     # the study specs of each size and block

``reproduction.toml``::

    [reproduction]
    title = "..."
    paper = "Phelps & Woolford (2021), Platt's scaling after undersampling ..."
    source = "..."                             # the source text's file name (provenance; not shown)
    tables = "Section 3, Tables 1-4"
    data_sets = ["mushroom"]                   # real data sets it reads (data dir)
    figures = "Figs. 3-5"
    row = ["block", "dataset", "classifier"]  # columns of paper.csv naming a row
    quick_seconds = 150                        # measured run times (loaded machine)
    full_seconds = 1500

    [sizes]                                    # the sizes each run uses, in words
    quick = "20 000 calibration rows, 100 000 test rows"
    full = "..."

    [blocks]                                   # plain-language names of blocks
    cal1e5 = "Tables 1-2 (10^5 calibration rows)"

    [labels]                                   # plain-language names of other ids
    cal1e5 = "Tables 1-2: 10^5 calibration rows"
    ps = "Platt scaling"

    [runs.quick]                               # block -> spec, per size
    cal1e5 = "quick.toml"
    [runs.full]
    cal1e5 = "full_1e5.toml"

    [metrics.RMSE]                             # the paper's metric name
    cube = "rmse_true"                         # a cube metric (bayescal.cube.schema)
    scale = 1e4                                # paper value = cube value x scale
    [metrics.RMSE.uncertainty]                 # the paper's standard error (verdict.py)
    kind = "relative"
    fraction = 0.05
    reason = "..."

    [[figures]]
    name = "fig3"
    block = "cal1e6"
    dataset = "rate_0022"
    classifier = "perfect"
    caption = "..."

``paper.csv`` columns: the ``row`` columns, ``method`` (a scenario name of the
specs), ``metric`` (a key of ``[metrics]``), ``value`` (as printed) and
``source`` (section and table). A metric of claims (``claims = true``: what the
paper states in words) has, instead of a number, the quoted ``statement`` and
``holds_if`` (``"<= 1.05"``: when our measured figure bears the statement out)
on each line, ``value`` left empty.

A block that is not a study (a regression table, a multi-label experiment, a
figure's curve) names a Python function instead of a spec::

    [runs.quick]
    mcar = "python:bayescal.reproduce.tables.confidence_maps:table2_quick"

    [metrics.slope]
    target = 1.0        # not a cube metric: rank by |value - 1| (or
                        # direction = "lower" | "higher")

The function is called as ``fn(out, n_jobs=...)`` with ``out`` a folder of its
own (figures it writes there as ``*.png`` are collected) and returns a
:class:`pandas.DataFrame` with the ``row`` columns other than ``block``,
``method``, ``metric`` (a key of ``[metrics]``) and ``ours`` (before
``scale``). A metric then needs no ``cube`` key, but a ``direction`` or a
``target`` that says which value is best.
"""

from __future__ import annotations

import csv
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bayescal.cube.schema import metric_info
from bayescal.reproduce.verdict import claim_holds, validate_uncertainty

__all__ = ["DEFAULT_ROOT", "FUNCTION_PREFIX", "Reproduction", "list_reproductions",
           "load_reproduction", "resolve_function"]

#: The reproductions shipped with the repository.
DEFAULT_ROOT = Path(__file__).resolve().parents[2] / "models" / "reproductions"

_SIZES = ("quick", "full")
_DIRECTIONS = ("lower", "higher")

#: Prefix of a block that names a Python function (``python:module:function``).
FUNCTION_PREFIX = "python:"


@dataclass(frozen=True)
class Reproduction:
    """One reproduction, loaded and checked (see the module docstring)."""

    id: str
    folder: Path
    title: str
    source: str
    tables: str
    figures: str
    row: tuple[str, ...]
    runs: dict[str, dict[str, Path | str]]
    metrics: dict[str, dict[str, Any]]
    paper: list[dict[str, str]]
    figure_specs: tuple[dict[str, Any], ...] = ()
    quick_seconds: float | None = None
    full_seconds: float | None = None
    citation: str = ""
    needs_data: bool = False
    datasets: tuple[str, ...] = ()
    sizes: dict[str, str] | None = None
    labels: dict[str, str] | None = None
    blocks: dict[str, str] | None = None

    def label(self, key: Any) -> str:
        """The plain-language name of an id (a data set, method), else the id."""
        return (self.labels or {}).get(str(key), str(key))

    def block_label(self, block: Any) -> str:
        """The plain-language name of a block (``[blocks]``, else ``[labels]``)."""
        return (self.blocks or {}).get(str(block), self.label(block))

    def ranking(self, label: str) -> dict[str, Any]:
        """How the metric ``label`` ranks methods: ``lower_is_better`` and ``target``.

        A ``target`` metric ranks by the distance to it (lower is better).
        """
        from bayescal.cube.schema import lower_is_better

        m = self.metrics[label]
        if "target" in m:
            return {"lower_is_better": True, "target": float(m["target"])}
        if "direction" in m:
            return {"lower_is_better": m["direction"] == "lower", "target": None}
        return {"lower_is_better": lower_is_better(m["cube"]), "target": None}


def resolve_function(value: str) -> Any:
    """The callable a ``python:module:function`` block names.

    Raises
    ------
    ValueError
        If the module cannot be imported or has no such function.
    """
    import importlib

    target = value.removeprefix(FUNCTION_PREFIX)
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ValueError(f"block {value!r}: expected 'python:package.module:function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"block {value!r}: cannot import {module_name!r} ({exc})") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ValueError(f"block {value!r}: {module_name!r} has no function {attr!r}")
    return fn


def _fail(path: Path, key: str, reason: str) -> ValueError:
    return ValueError(f"{path}: {key}: {reason}")


def load_reproduction(name: str, *, root: str | Path | None = None) -> Reproduction:
    """Load and check the reproduction ``name`` (a folder of ``root``).

    Parameters
    ----------
    name : str
        The reproduction's id (its folder name).
    root : path, optional
        Folder of reproductions (default: the repository's
        ``models/reproductions``).

    Raises
    ------
    ValueError
        If the folder is missing (the message lists those present) or a file
        is wrong (the message names the file and key).
    """
    base = Path(root) if root is not None else DEFAULT_ROOT
    folder = base / name
    meta_path = folder / "reproduction.toml"
    if not meta_path.is_file():
        raise ValueError(f"unknown reproduction {name!r} in {base}; known: {_ids(base)}. "
                         "Run `bayescal reproduce --list`.")
    meta = tomllib.loads(meta_path.read_text())
    head = meta.get("reproduction", {})
    for key in ("title", "paper", "source", "tables", "row"):
        if key not in head:
            raise _fail(meta_path, f"reproduction.{key}", "missing")
    if "block" not in head["row"]:
        raise _fail(meta_path, "reproduction.row", f"must name the 'block' column (the runs' "
                    f"keys); got {head['row']!r}")
    runs: dict[str, dict[str, Path]] = {}
    for size in _SIZES:
        blocks = meta.get("runs", {}).get(size)
        if not blocks:
            raise _fail(meta_path, f"runs.{size}", "missing: name a spec per block")
        runs[size] = {}
        for block, spec in blocks.items():
            if spec.startswith(FUNCTION_PREFIX):
                try:
                    resolve_function(spec)
                except ValueError as exc:
                    raise _fail(meta_path, f"runs.{size}.{block}", str(exc)) from None
                runs[size][block] = spec
                continue
            if not (folder / spec).is_file():
                raise _fail(meta_path, f"runs.{size}.{block}", f"no spec file {spec!r}")
            runs[size][block] = folder / spec
    metrics = meta.get("metrics", {})
    for label, m in metrics.items():
        if "direction" in m and m["direction"] not in _DIRECTIONS:
            raise _fail(meta_path, f"metrics.{label}.direction",
                        f"{m['direction']!r} is not one of {_DIRECTIONS}")
        if "cube" in m:
            metric_info(m["cube"])  # a registered cube metric (ValueError otherwise)
        elif "direction" not in m and "target" not in m and not m.get("claims"):
            raise _fail(meta_path, f"metrics.{label}",
                        "name a `cube` metric, or a `direction` or `target` (function blocks)")
        if not m.get("claims"):
            try:
                validate_uncertainty(m.get("uncertainty"), f"metrics.{label}.uncertainty")
            except ValueError as exc:
                raise ValueError(f"{meta_path}: {exc} (the paper's standard error, "
                                 "see bayescal.reproduce.verdict)") from None
    paper = _read_paper(folder / "paper.csv", tuple(head["row"]), metrics)
    blocks = {line["block"] for line in paper}
    for size, by_block in runs.items():
        for block in by_block:
            if block not in blocks:
                raise _fail(meta_path, f"runs.{size}.{block}",
                            f"no line of paper.csv has this block; its blocks: {sorted(blocks)}")
    return Reproduction(
        id=name, folder=folder, title=head["title"], source=head["source"],
        tables=head["tables"], figures=head.get("figures", ""), row=tuple(head["row"]),
        runs=runs, metrics=metrics, paper=paper,
        figure_specs=tuple(meta.get("figures", ())),
        quick_seconds=head.get("quick_seconds"), full_seconds=head.get("full_seconds"),
        citation=head["paper"], needs_data=bool(head.get("data_sets")),
        datasets=tuple(head.get("data_sets", ())),
        sizes=dict(meta.get("sizes", {})), labels={str(k): str(v) for k, v in
                                                  meta.get("labels", {}).items()},
        blocks={str(k): str(v) for k, v in meta.get("blocks", {}).items()})


def _read_paper(path: Path, row: tuple[str, ...], metrics: dict[str, Any]) -> list[dict[str, str]]:
    if not path.is_file():
        raise _fail(path, "<file>", "missing: the paper's numbers")
    with path.open(newline="") as f:
        lines = list(csv.DictReader(f))
    need = [*row, "method", "metric", "value", "source"]
    if not lines or any(c not in lines[0] for c in need):
        raise _fail(path, "<header>", f"needs the columns {need}")
    for i, line in enumerate(lines, start=2):
        if line["metric"] not in metrics:
            raise _fail(path, f"line {i}", f"metric {line['metric']!r} not in reproduction.toml "
                        f"[metrics] {list(metrics)}")
        if not line["source"].strip():
            raise _fail(path, f"line {i}", "cites no source")
        if metrics[line["metric"]].get("claims"):
            if (line.get("value") or "").strip():
                raise _fail(path, f"line {i}", "a claim carries no number: leave `value` empty "
                            "and quote the paper's words in `statement`")
            if not (line.get("statement") or "").strip():
                raise _fail(path, f"line {i}", "a claim needs the paper's words in `statement`")
            try:
                claim_holds(line.get("holds_if") or "", 0.0)
            except ValueError as exc:
                raise _fail(path, f"line {i}", str(exc)) from None
            continue
        try:
            float(line["value"])
        except ValueError:
            raise _fail(path, f"line {i}", f"value {line['value']!r} is not a number") from None
    return lines


def _ids(root: Path) -> list[str]:
    return [p.parent.name for p in sorted(root.glob("*/reproduction.toml"))]


def list_reproductions(root: str | Path | None = None) -> list[Reproduction]:
    """Every reproduction of ``root`` (default: the repository's), loaded and checked."""
    base = Path(root) if root is not None else DEFAULT_ROOT
    if not base.is_dir():
        raise ValueError(f"no reproductions folder {base}; pass root= (--root) the "
                         "repository's models/reproductions.")
    return [load_reproduction(i, root=base) for i in _ids(base)]
