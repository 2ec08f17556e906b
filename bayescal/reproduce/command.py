"""``bayescal reproduce``: list the reproductions, or run one and compare it with its paper.

``bayescal reproduce --list`` prints every reproduction (id, source file,
tables and figures, measured quick and full run times).
``bayescal reproduce ID [--full] [--out DIR]`` runs the reproduction's specs
through :func:`bayescal.study.run` (one store per block under ``DIR``, resumed
if present), reads the cubes back with :func:`bayescal.cube.open_results`,
prints "paper | bayescal" per cell in the paper's units and scale, the
agreement figures per metric against the thresholds, and writes
``agreement.json``, ``comparison.csv`` and the figures to ``DIR``. A block
that names a Python function (``python:module:function``, see
:mod:`bayescal.reproduce.registry`) is run by calling it, in its own folder
``DIR/block_NAME``. The exit status is 1 when a threshold is not met.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click

from bayescal.reproduce.agreement import agreement, comparison_table
from bayescal.reproduce.registry import (
    FUNCTION_PREFIX,
    Reproduction,
    list_reproductions,
    load_reproduction,
    resolve_function,
)

__all__ = ["check_thresholds", "compare_with_paper", "reproduce_command", "run_reproduction"]


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


def compare_with_paper(rep: Reproduction, cubes: dict[str, Any],
                       tables: dict[str, Any] | None = None) -> Any:
    """Long table of the paper's values beside ours (paper's units), blocks that ran.

    ``cubes`` maps a study block's name to its result cube
    (``xarray.DataTree``), see :func:`cube_values`; ``tables`` a function
    block's name to the table it returned, see :func:`function_values`.
    """
    import pandas as pd

    tables = tables or {}
    ran = [*cubes, *tables]
    paper = pd.DataFrame(rep.paper)
    paper = paper[paper["block"].isin(ran)]
    ours = [cube_values(rep, block, tree) for block, tree in cubes.items()]
    ours += [function_values(rep, block, frame) for block, frame in tables.items()]
    ours_df = pd.concat(ours, ignore_index=True)
    keys = [c for c in rep.row if c in ours_df.columns and c != "block"]
    ours_df = ours_df[["block", *keys, "method", "metric", "ours"]]
    table = paper.merge(ours_df, on=["block", *keys, "method", "metric"], how="left")
    table = table.rename(columns={"value": "paper_text"})
    table["paper"] = table["paper_text"].astype(float)
    return table


def check_thresholds(figures: dict[str, dict[str, Any]], thresholds: dict[str, Any]
                     ) -> list[str]:
    """The thresholds not met, one line each (empty: all met)."""
    failed = []
    for label, t in thresholds.items():
        f = figures.get(label)
        if f is None:
            continue
        if "best_share" in t and not f["best_share"] >= t["best_share"]:
            failed.append(f"{label}: best method matched in {f['best_share']:.0%} of rows "
                          f"< {t['best_share']:.0%}")
        if "pairs_share" in t and not f["pairs_share"] >= t["pairs_share"]:
            failed.append(f"{label}: pairs in order {f['pairs_share']:.1%} < "
                          f"{t['pairs_share']:.1%}")
        for key, what in (("ratio_median", "median"), ("ratio_mean", "mean")):
            if key in t:
                lo, hi = t[key]
                if not lo <= f[key] <= hi:
                    failed.append(f"{label}: {what} ratio {f[key]:.3f} outside [{lo}, {hi}]")
    return failed


def run_reproduction(rep: Reproduction, out: Path, *, full: bool = False,
                     n_jobs: int | None = None, echo: Any = print) -> dict[str, Any]:
    """Run a reproduction's specs, compare with the paper and write the outputs.

    Returns the agreement record written to ``out/agreement.json``.
    """
    from bayescal.cube import open_results
    from bayescal.study import run

    size = "full" if full else "quick"
    out.mkdir(parents=True, exist_ok=True)
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
    table.to_csv(out / "comparison.csv", index=False)
    row = [c for c in rep.row]
    figures: dict[str, dict[str, Any]] = {}
    for label, m in rep.metrics.items():
        sub = table[table["metric"] == label]
        echo(f"\n{label} ({m.get('units', '')}) -- paper | bayescal ({size} size)")
        echo(comparison_table(sub, row=row))
        figures[label] = agreement(sub, row=row, **rep.ranking(label)).as_dict()
    thresholds = rep.thresholds.get(size, {})
    failed = check_thresholds(figures, thresholds)
    echo(f"\nAgreement ({rep.id}, {size} size, blocks {[*cubes, *tables]}):")
    echo(f"  {'metric':<8} {'best':>9} {'pairs in order':>18} {'ratio median [min, max]':>28}")
    for label, f in figures.items():
        echo(f"  {label:<8} {f['best_matched']:>3}/{f['rows']:<5} "
             f"{f['pairs_in_order']:>7}/{f['pairs']:<4} ({f['pairs_share']:.1%})  "
             f"{f['ratio_median']:>8.3f} [{f['ratio_min']:.3f}, {f['ratio_max']:.3f}]"
             f"  mean {f['ratio_mean']:.3f}")
    echo("  thresholds: " + ("all met" if not failed else "NOT met: " + "; ".join(failed)))
    written = [out / p for p in made] + _figures(rep, cubes, out)
    record = {"id": rep.id, "size": size, "source": rep.source, "tables": rep.tables,
              "seconds": seconds, "agreement": figures, "thresholds": thresholds,
              "failed": failed, "figures": [str(p.relative_to(out)) for p in written]}
    (out / "agreement.json").write_text(json.dumps(record, indent=2))
    return record


def _figures(rep: Reproduction, cubes: dict[str, Any], out: Path) -> list[Path]:
    """Estimates against the true probabilities, one panel per method (seed 004 Figs. 3-5)."""
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


@click.command("reproduce")
@click.argument("reproduction_id", required=False)
@click.option("--list", "list_", is_flag=True, help="List every reproduction and exit.")
@click.option("--full", is_flag=True, help="Run the paper's full size (default: quick size).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder (default: ./reproduce-ID); an existing one is resumed.")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of reproductions (default: the repository's models/reproductions).")
@click.option("--n-jobs", type=int, default=None, help="Worker processes (default: every core).")
def reproduce_command(reproduction_id: str | None, list_: bool, full: bool, out: Path | None,
                      root: Path | None, n_jobs: int | None) -> None:
    """Regenerate a published table and print it beside the paper's numbers."""
    try:
        if list_ or reproduction_id is None:
            reps = list_reproductions(root)
            click.echo(f"{'id':<22} {'source':<28} {'tables / figures':<40} "
                       f"{'quick':>8} {'full':>8}")
            for r in reps:
                what = r.tables + (f"; {r.figures}" if r.figures else "")
                click.echo(f"{r.id:<22} {r.source:<28} {what:<40} "
                           f"{_seconds(r.quick_seconds):>8} {_seconds(r.full_seconds):>8}")
            if reproduction_id is None and not list_:
                click.echo("\nRun one with `bayescal reproduce ID [--full] [--out DIR]`.")
            return
        rep = load_reproduction(reproduction_id, root=root)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    record = run_reproduction(rep, out or Path(f"reproduce-{rep.id}"), full=full,
                              n_jobs=n_jobs, echo=click.echo)
    if record["failed"]:
        raise SystemExit(1)
