"""``bayescal run`` and ``bayescal show``: run a study spec into a result cube, print its table.

``bayescal run`` with no spec runs the bundled quick-start study
(:data:`bayescal.study.bundled.QUICKSTART`: scikit-learn's breast-cancer set
and the seed thesis' synthetic set; naive Bayes, random forest, logistic
regression; raw, Platt on CV scores, isotonic on a split and on the full
training set, ENIR on DGG data; 5-fold CV) into
``./bayescal-results/quickstart``.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

import click
import numpy as np

__all__ = ["run_command", "show_command", "summary_frame"]


def summary_frame(tree: Any, metric: str) -> Any:
    """Mean of ``metric`` over folds (and repeats): rows dataset x classifier.

    Parameters
    ----------
    tree : xarray.DataTree
        A result cube.
    metric : str
        A variable of ``/metrics``.

    Returns
    -------
    pandas.DataFrame
        Index (dataset, classifier), one column per scenario; NaN where a
        scenario does not apply or no cell is done.

    Raises
    ------
    click.BadParameter
        If ``metric`` is not in the cube.
    """
    metrics = tree["metrics"].to_dataset()
    if metric not in metrics.data_vars or metrics[metric].dtype == bool:
        names = [str(v) for v in metrics.data_vars if metrics[v].dtype != bool]
        raise click.BadParameter(f"no metric {metric!r} in the cube; choose one of {names}",
                                 param_hint="--metric")
    da = metrics[metric].where(metrics["done"])
    mean = da.mean([d for d in ("repeat", "fold") if d in da.dims])
    frame = mean.to_dataframe(name=metric)[metric].unstack("scenario")
    return frame[list(metrics["scenario"].values)]


def _counts(tree: Any) -> dict[str, int]:
    """Cells done / failed / not applicable / unconverged / to do."""
    ds = tree["metrics"].to_dataset()
    done, failed = ds["done"].values, ds["failed"].values
    converged = ds["converged"].values if "converged" in ds else np.ones_like(done)
    app = ds["applicable"].transpose("classifier", "scenario").values
    per_cell = int(np.prod([n for d, n in ds["done"].sizes.items()
                            if d not in ("classifier", "scenario")]))
    total_applicable = int(app.sum()) * per_cell
    return {
        "done": int((done & ~failed).sum()), "failed": int((done & failed).sum()),
        "not applicable": int((~app).sum()) * per_cell,
        "unconverged": int((done & ~failed & ~converged).sum()),
        "to do": total_applicable - int(done.sum()),
    }


def _status_line(tree: Any) -> str:
    c = _counts(tree)
    state = "complete" if tree.attrs.get("finished") else "partial"
    return (f"study {tree.attrs['study']!r} ({state}): {c['done']} done, {c['failed']} failed, "
            f"{c['unconverged']} unconverged, {c['not applicable']} not applicable, "
            f"{c['to do']} to do")


def _failure_report(tree: Any, store: Path) -> list[str]:
    """How many cells failed, the first error of each kind, where the tracebacks are."""
    errors = json.loads(tree.attrs.get("errors", "{}") or "{}")
    if not errors:
        return []
    first: dict[str, tuple[str, str]] = {}
    for cell, message in errors.items():
        kind = message.split(":", 1)[0].strip() or "error"
        first.setdefault(kind, (cell, message))
    total = tree.attrs.get("cells_total", "?")
    lines = [f"{len(errors)} of {total} cells failed:"]
    lines += [f"  {kind} (first in {cell}): {message}" for kind, (cell, message) in first.items()]
    lines.append(f"  tracebacks: {store / 'tracebacks'}")
    return lines


def _default_metric(tree: Any) -> str:
    from bayescal.cube import cube_layout

    try:
        names = cube_layout(tree).metric_names
    except ValueError:
        names = ()
    return names[0] if names else "brier"


def _print_table(tree: Any, metric: str, fmt: str) -> None:
    from bayescal.report.tables import format_table, study_table

    try:
        table = study_table(tree, metric)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--metric") from None
    text = format_table(table, fmt)
    click.echo(text, nl=not text.endswith("\n"))  # no blank last line in a CSV file
    from bayescal.report.summary import positive_class_words

    positive = positive_class_words(tree)
    if positive:  # which class the binary metrics score, never left implicit
        import textwrap

        click.echo(textwrap.fill(positive[0].upper() + positive[1:] + ".", width=100),
                   err=fmt != "text")


_FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "md", "latex", "html", "csv"]),
                       default="text", show_default=True,
                       help="Table format (text for the terminal; the others for export).")


@click.command("run")
@click.argument("spec", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--store", type=click.Path(file_okay=False), default=None,
              help="Result store directory [default: ./bayescal-results/<study name>].")
@click.option("--resume", is_flag=True, help="Continue an interrupted run in STORE.")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Run on Dask: a scheduler address, or 'local' for a LocalCluster "
                   "on 127.0.0.1.")
@click.option("--jobs", "-j", type=int, default=None,
              help="Local workers, this process included (-j 2: this process and one "
                   "worker process) [default: one per core; 1 for a small study].")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Directory of dataset files [default: study.data_dir or $BAYESCAL_DATA].")
@click.option("--allow-module", multiple=True, metavar="NAME",
              help="Also allow classes and functions from this package (repeatable); "
                   "only this flag widens the allow-list, never the spec.")
@click.option("--max-cells", type=click.IntRange(min=1), default=None, metavar="N",
              help="Refuse a study of more than N cells [default: 100000].")
@click.option("--metric", "-m", default=None,
              help="Metric to tabulate [default: the spec's first metric].")
@_FORMAT
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def run_command(spec: str | None, store: str | None, resume: bool, scheduler: str | None,
                jobs: int | None, data_dir: str | None, allow_module: tuple[str, ...],
                max_cells: int | None, metric: str | None, fmt: str, quiet: bool) -> None:
    """Run the study SPEC (a TOML file; default: the bundled quick-start).

    Every key of the spec format, with its type, default and an example: the
    "Study spec format" page of the documentation (docs/study_spec.md).

    Exit status: 0 when every applicable cell succeeded; 1 when cells failed
    (how many, the first error of each kind and where the tracebacks are is
    printed) or the run could not start; 75 when another process is writing
    the store; 130 / 143 when interrupted by SIGINT / SIGTERM.
    """
    from bayescal.study.workers import prestarted, processes_for

    try:
        # the worker processes start first: their imports run beside this process's
        with prestarted(processes_for(jobs, scheduler)):
            _run(spec, store, resume, scheduler, jobs, data_dir, allow_module, max_cells,
                 metric, fmt, quiet)
    except SystemExit as exc:
        if exc.code in (130, 143):
            _exit_interrupted(exc.code)
        raise


def _exit_interrupted(code: int) -> None:
    """Exit an interrupted run (SIGINT, SIGTERM) with ``code``.

    The workers are already stopped and every finished cell is on disk. The
    calling process's local worker thread (``-j N``) may still be inside a
    task's native code, which stops only after the task; the interpreter's
    shutdown would then tear down modules under it, which can crash the
    process (seen as a SIGSEGV after Ctrl-C). So, with that thread still
    busy after a short wait, the process flushes its output and ends at once
    with ``os._exit`` (the killed workers hold nothing to release); otherwise
    it exits normally.
    """
    import os
    import threading

    busy = [t for t in threading.enumerate() if t.name == "bayescal-local-worker"]
    for thread in busy:
        thread.join(timeout=0.5)
    if not any(t.is_alive() for t in busy):
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _run(spec: str | None, store: str | None, resume: bool, scheduler: str | None,
         jobs: int | None, data_dir: str | None, allow_module: tuple[str, ...],
         max_cells: int | None, metric: str | None, fmt: str, quiet: bool) -> None:
    """The body of :func:`run_command` (after its worker processes have started)."""
    import warnings

    from bayescal.cube import StoreBusyError
    from bayescal.study.bundled import QUICKSTART
    from bayescal.study.executors import WorkerProcessError
    from bayescal.study.runner import StudyCellWarning, run
    from bayescal.study.spec import DEFAULT_MAX_CELLS, SpecError, load_spec

    try:
        parsed = load_spec(spec if spec is not None else Path(str(QUICKSTART)),
                           data_dir=data_dir, allow_modules=allow_module,
                           max_cells=max_cells or DEFAULT_MAX_CELLS)
    except SpecError as exc:
        raise click.ClickException(str(exc)) from None
    target = Path(store) if store else Path("bayescal-results") / parsed.name
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StudyCellWarning)  # reported below instead
            tree = run(parsed, target, resume=resume, scheduler=scheduler, n_jobs=jobs,
                       progress=not quiet, log=lambda line: click.echo(line, err=True))
    except StoreBusyError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(75)
    except KeyboardInterrupt:
        click.echo(f"interrupted; continue with: bayescal run ... --store {target} --resume",
                   err=True)
        sys.exit(130)
    except (FileExistsError, ValueError, ConnectionError, OSError, WorkerProcessError) as exc:
        raise click.ClickException(" ".join(str(exc).split())) from None
    # with an export format stdout holds the table alone (``> t.csv``); status on stderr
    click.echo(f"{_status_line(tree)}; store {target}", err=fmt != "text")
    _print_table(tree, metric or parsed.metrics.names[0], fmt)
    failures = _failure_report(tree, target)
    if failures:
        click.echo("\n".join(failures), err=True)
        sys.exit(1)


@click.command("show")
@click.argument("store", type=click.Path(exists=True, file_okay=False))
@click.option("--metric", "-m", default=None,
              help="Metric to tabulate [default: the spec's first metric].")
@_FORMAT
def show_command(store: str, metric: str | None, fmt: str) -> None:
    """Print the cell counts and the result table of the study in STORE.

    With --format csv, md, latex or html only the table goes to stdout (so
    ``bayescal show STORE --format csv > table.csv`` is a clean file); the
    cell counts and any failures go to stderr.
    """
    from bayescal.cube import open_results

    try:
        tree = open_results(store)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(_status_line(tree), err=fmt != "text")
    _print_table(tree, metric or _default_metric(tree), fmt)
    failures = _failure_report(tree, Path(store))
    if failures:
        click.echo("\n".join(failures), err=True)
