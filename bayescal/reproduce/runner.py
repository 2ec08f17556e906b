"""Run a reproduction and compare it with its paper (what ``bayescal reproduce`` does).

:func:`run_reproduction` runs the reproduction's specs through
:func:`bayescal.study.run` (one store per block under ``DIR``, resumed if
present), reads the cubes back with :func:`bayescal.cube.open_results`, prints
"paper | bayescal" per cell in the paper's units with the tolerance the paper's
uncertainty allows (disagreeing cells flagged), the checks of
:mod:`bayescal.reproduce.verdict` and the verdict (``reproduced``, ``partly
reproduced (k of m checks)``, ``not reproduced``), and writes
``agreement.json``, ``comparison.csv`` and the figures to ``DIR``. A block that
names a Python function (``python:module:function``, see
:mod:`bayescal.reproduce.registry`) is run by calling it, in its own folder
``DIR/block_NAME``. :func:`list_lines` is the ``--list`` table. The command
itself is :mod:`bayescal.cli.reproduce`.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from pathlib import Path
from typing import Any

from bayescal.reproduce.registry import (
    FUNCTION_PREFIX,
    Reproduction,
    resolve_function,
)

__all__ = ["compare_with_paper", "format_comparison", "format_verdict", "judge_table",
           "list_lines", "paper_table", "run_reproduction",
           "verdict_section"]


def _seconds(s: float | None) -> str:
    if s is None:
        return "not measured"
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min"


def cube_values(rep: Reproduction, block: str, tree: Any) -> Any:
    """Our value of every (dataset, classifier, scenario) cell of a block's cube.

    The cube metric averaged over folds (and repeats), times the metric's
    ``scale``; one line per cell and metric (columns ``method``, ``metric``,
    ``ours``, ``block`` and the cube's cell coordinates).
    """
    import pandas as pd

    ds = tree["/metrics"].ds
    reduce = [d for d in ("repeat", "fold") if d in ds.dims]
    frames = []
    for label, m in rep.metrics.items():
        if "cube" not in m:
            continue
        values = (ds[m["cube"]].mean(reduce) * float(m.get("scale", 1.0))).to_series()
        frame = values.rename("ours").reset_index().rename(columns={"scenario": "method"})
        frame["block"], frame["metric"] = block, label
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def function_values(rep: Reproduction, block: str, frame: Any) -> Any:
    """A function block's table, checked, with ``block`` set and ``scale`` applied."""
    need = [c for c in rep.row if c != "block"] + ["method", "metric", "ours"]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise ValueError(f"reproduction {rep.id!r}, block {block!r}: the function's table "
                         f"lacks the column(s) {missing}; it needs {need}")
    unknown = sorted(set(frame["metric"]) - set(rep.metrics))
    if unknown:
        raise ValueError(f"reproduction {rep.id!r}, block {block!r}: metric(s) {unknown} "
                         f"not in reproduction.toml [metrics] {list(rep.metrics)}")
    frame = frame.copy()
    frame["block"] = block
    scale = frame["metric"].map(lambda label: float(rep.metrics[label].get("scale", 1.0)))
    frame["ours"] = frame["ours"].astype(float) * scale
    return frame


def paper_table(rep: Reproduction, blocks: Any = None) -> Any:
    """The paper's lines of ``blocks`` (default: the full size's) as a comparison table.

    Columns: those of ``paper.csv`` with ``value`` renamed ``paper_text``, and
    ``paper`` (float; NaN for a claim). Add ``ours`` to judge it (what
    :func:`compare_with_paper` does with our numbers; the must-show tests with the
    paper's own).
    """
    import pandas as pd

    blocks = list(rep.runs["full"]) if blocks is None else list(blocks)
    table = pd.DataFrame(rep.paper)
    table = table[table["block"].isin(blocks)].rename(columns={"value": "paper_text"})
    table["paper"] = pd.to_numeric(table["paper_text"].replace("", float("nan")))
    return table.reset_index(drop=True)


def compare_with_paper(rep: Reproduction, cubes: dict[str, Any],
                       tables: dict[str, Any] | None = None) -> Any:
    """Long table of the paper's values beside ours (paper's units), blocks that ran.

    ``cubes`` maps a study block's name to its result cube
    (``xarray.DataTree``), see :func:`cube_values`; ``tables`` a function
    block's name to the table it returned, see :func:`function_values`. A
    claim's line keeps its ``statement`` and ``holds_if``, and ``detail`` where
    the function gave one; its ``paper`` is NaN (the paper printed no number).
    """
    import pandas as pd

    tables = tables or {}
    paper = paper_table(rep, [*cubes, *tables])
    ours = [cube_values(rep, block, tree) for block, tree in cubes.items()]
    ours += [function_values(rep, block, frame) for block, frame in tables.items()]
    ours_df = pd.concat(ours, ignore_index=True)
    keys = [c for c in rep.row if c in ours_df.columns and c != "block"]
    extra = [c for c in ("detail",) if c in ours_df.columns]
    ours_df = ours_df[["block", *keys, "method", "metric", "ours", *extra]]
    table = paper.merge(ours_df, on=["block", *keys, "method", "metric"], how="left")
    table["ours"] = table["ours"].astype(float)
    return table


def judge_table(rep: Reproduction, table: Any) -> tuple[Any, Any]:
    """The :class:`~bayescal.reproduce.verdict.Verdict` of a comparison table, and the
    table with each cell's ``tolerance`` and ``agrees`` (see :func:`compare_with_paper`)."""
    from bayescal.reproduce.verdict import judge

    return judge(table, metrics=rep.metrics, row=list(rep.row),
                 rankings={m: rep.ranking(m) for m in rep.metrics if not
                           rep.metrics[m].get("claims")},
                 block_names={b: rep.block_label(b) for b in table["block"].unique()},
                 labels=rep.labels or {})


def _fmt(value: float, text: str) -> str:
    if not math.isfinite(value):
        return "failed"
    d = len(text.split(".")[1]) if "." in text else 0
    return f"{value:.{d}f}"


def format_comparison(rep: Reproduction, judged: Any, *, max_lines: int = 40) -> list[str]:
    """Readable "paper | bayescal" lines per block and metric, disagreeing cells flagged.

    A metric with more than ``max_lines`` cells shows only its disagreeing ones, at
    most ``max_lines // 2`` (all are in ``comparison.csv``). Claims are shown as the quoted statement with
    holds / does not hold and the measured figure.
    """
    lines: list[str] = []
    keys = [c for c in rep.row if c != "block"]
    for (block, metric), g in judged.groupby(["block", "metric"], sort=False):
        m = rep.metrics[metric]
        units = f" ({m['units']})" if m.get("units") else ""
        lines.append(f"\n{rep.block_label(block)} -- {metric}{units}")
        if m.get("claims"):
            for _, r in g.iterrows():
                verdict = "holds" if r["agrees"] else "does NOT hold"
                ours = f"{r['ours']:.4g}" if math.isfinite(r["ours"]) else "failed"
                lines.append(f"  \"{r['statement']}\"")
                detail = r.get("detail")
                shown = detail if isinstance(detail, str) and detail else f"measured {ours}"
                lines.append(f"      {verdict}: {shown} (holds if {r['holds_if']})")
            continue
        rows = [[*(rep.label(r[k]) for k in keys), rep.label(r["method"]), r["paper_text"],
                 _fmt(r["ours"], r["paper_text"]), f"±{r['tolerance']:.3g}",
                 "" if r["agrees"] else "<< differs"] for _, r in g.iterrows()]
        hidden = 0
        if len(rows) > max_lines:  # the disagreeing cells only, at most max_lines // 2
            kept = [row for row in rows if row[-1]][: max_lines // 2]
            hidden, rows = len(rows) - len(kept), kept
        head = [*keys, "method", "paper", "bayescal", "tolerance", ""]
        widths = [max(len(str(x)) for x in col) for col in zip(head, *rows, strict=True)]
        for i, row in enumerate([head, *rows]):
            cells = [str(x).ljust(w) if j < len(keys) + 1 else str(x).rjust(w)
                     for j, (x, w) in enumerate(zip(row, widths, strict=True))]
            lines.append("  " + "  ".join(cells[:-1]) + ("  " + cells[-1] if row[-1] else ""))
            if i == 0:
                lines.append("  " + "-" * (sum(widths[:-1]) + 2 * (len(widths) - 2)))
        if hidden:
            differing = int((~g["agrees"].astype(bool)).sum())
            lines.append(f"  ({differing} of {len(g)} cells differ; {hidden} cells not shown: "
                         "every cell is in comparison.csv)")
    return lines


def format_verdict(rep: Reproduction, verdict: Any, size: str) -> list[str]:
    """The checks (holds / does not hold, measured, criterion) and the verdict line."""
    lines = [f"\nAgreement with the paper ({size} size): each check fixed from the paper's "
             "numbers and their uncertainty"]
    for c in verdict.checks:
        mark = "holds        " if c.holds else "does NOT hold"
        lines.append(f"  {mark}  {c.name}: {c.measured}")
        if not c.holds and c.failing:
            shown = "; ".join(c.failing[:6]) + (f"; ... {len(c.failing) - 6} more"
                                                 if len(c.failing) > 6 else "")
            lines.append(f"                 disagreeing: {shown}")
    per_table = verdict.per_table()
    if len(per_table) > 1:
        for table, label in per_table.items():
            lines.append(f"  {table}: {label}")
    lines.append(f"\nVerdict: {verdict.label}")
    return lines


def verdict_section(lines: list[str]) -> list[str]:
    """The checks and the verdict of a run's printed ``lines`` (what the notebooks show)."""
    start = next((i for i, x in enumerate(lines) if x.startswith("\nAgreement with the paper")),
                 0)
    return lines[start:]


def run_reproduction(rep: Reproduction, out: Path, *, full: bool = False,
                     n_jobs: int | None = None, echo: Any = print,
                     keep_cubes: bool | None = None) -> dict[str, Any]:
    """Run a reproduction's specs, compare with the paper and write the outputs.

    ``keep_cubes`` keeps the study blocks' result stores (``out/cube_BLOCK``,
    which a later run resumes); by default only at full size: a quick run keeps
    its comparison, verdict and figures, and is small (Phelps et al.'s (2024) quick cube
    with its 100 000 test rows' predictions is some 260 MB).

    Returns the record written to ``out/agreement.json``: the verdict, every
    check (holds or not, measured, criterion, the disagreeing cells), the
    sizes and run times.
    """
    from bayescal.cube import open_results
    from bayescal.study import run

    size = "full" if full else "quick"
    out.mkdir(parents=True, exist_ok=True)
    echo(f"{rep.citation}\n{rep.tables}" + (f"; {rep.figures}" if rep.figures else "")
         + f" -- {rep.title}")
    echo(f"size: {size} ({(rep.sizes or {}).get(size, 'sizes in reproduction.toml')})")
    cubes, tables, seconds, made = {}, {}, {}, []
    for block, spec in rep.runs[size].items():
        start = time.perf_counter()
        if isinstance(spec, str) and spec.startswith(FUNCTION_PREFIX):
            folder = out / f"block_{block}"
            folder.mkdir(exist_ok=True)
            tables[block] = resolve_function(spec)(folder, n_jobs=n_jobs)
            made += [p.relative_to(out) for p in sorted(folder.glob("*.png"))]
        else:
            store = out / f"cube_{block}"
            run(spec, store, resume=True, n_jobs=n_jobs, progress=False)
            cubes[block] = open_results(store)
        seconds[block] = time.perf_counter() - start
    table = compare_with_paper(rep, cubes, tables)
    verdict, judged = judge_table(rep, table)
    judged.to_csv(out / "comparison.csv", index=False)
    for line in format_comparison(rep, judged):
        echo(line)
    for line in format_verdict(rep, verdict, size):
        echo(line)
    written = [out / p for p in made] + _figures(rep, cubes, out)
    if not (full if keep_cubes is None else keep_cubes):
        for block in cubes:
            shutil.rmtree(out / f"cube_{block}", ignore_errors=True)
    record = {"id": rep.id, "paper": rep.citation, "tables": rep.tables, "size": size,
              "sizes": (rep.sizes or {}).get(size, ""), "seconds": seconds,
              **verdict.as_dict(), "figures": [str(p.relative_to(out)) for p in written]}
    (out / "agreement.json").write_text(json.dumps(record, indent=2))
    return record


def _figures(rep: Reproduction, cubes: dict[str, Any], out: Path) -> list[Path]:
    """Estimates against the true probabilities, one panel per method (Phelps et al. (2024) Figs. 3-5)."""
    import numpy as np
    from matplotlib.figure import Figure

    written = []
    for fig_spec in rep.figure_specs:
        if not cubes:
            break
        block = fig_spec["block"] if fig_spec["block"] in cubes else next(iter(cubes))
        pred = cubes[block][f"/predictions/{fig_spec['dataset']}"].ds
        test = np.flatnonzero(pred["fold"].to_numpy() >= 0)
        rng = np.random.default_rng(0)
        rows = np.sort(rng.choice(test, size=min(5000, test.size), replace=False))
        p_true = pred["p_true"].to_numpy()[rows]
        methods = list(pred["scenario"].to_numpy())
        fig = Figure(figsize=(3 * len(methods), 3.2))
        axes = fig.subplots(1, len(methods), sharex=True, sharey=True)
        for ax, method in zip(np.atleast_1d(axes), methods, strict=True):
            est = pred["proba"].sel(classifier=fig_spec["classifier"], scenario=method,
                                    **{"class": pred["class"].to_numpy()[-1]}).to_numpy()[rows]
            ax.scatter(p_true, est, s=2, alpha=0.4)
            top = max(p_true.max(), np.nanmax(est))
            ax.plot([0, top], [0, top], color="red", lw=0.8)
            ax.set_title(method)
            ax.set_xlabel("true probability")
        np.atleast_1d(axes)[0].set_ylabel("estimate")
        shown = "" if block == fig_spec["block"] else f" (block {block}; the paper's is " \
                                                          f"{fig_spec['block']})"
        fig.suptitle(f"{fig_spec['name']}: {fig_spec['caption']}{shown}", fontsize=9)
        fig.tight_layout()
        path = out / f"{fig_spec['name']}.png"
        fig.savefig(path, dpi=90)
        written.append(path)
    return written


def list_lines(reps: list[Reproduction]) -> list[str]:
    """``--list``: per reproduction its id, whether it reads the data directory, the
    measured run times, then the paper (author, year, title) and its tables."""
    width = max(len(r.id) for r in reps)
    out = [f"{'id':<{width}}  {'data directory':<16}  {'quick':>8}  {'full':>8}"]
    for r in reps:
        data = "needed" if r.needs_data else "not needed"
        out.append(f"{r.id:<{width}}  {data:<16}  {_seconds(r.quick_seconds):>8}  "
                   f"{_seconds(r.full_seconds):>8}")
        what = r.tables + (f"; {r.figures}" if r.figures else "")
        out.append(f"    {r.citation}")
        out.append(f"    {what}: {r.title}")
    return out
