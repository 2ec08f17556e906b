"""Click commands ``run`` and ``show`` of the ``bayescal`` command line.

They are registered on the main group in :mod:`bayescal.cli` with
``main.add_command(run_command)`` and ``main.add_command(show_command)``, and
are also reachable as ``python -m bayescal.study run|show``.

``bayescal run`` with no spec runs the bundled quick-start study
(``bayescal/study/specs/quickstart.toml``: scikit-learn's breast-cancer set
and the seed thesis' synthetic set; naive Bayes, random forest, logistic
regression; raw, Platt on CV scores, isotonic on a split and on the full
training set, ENIR on DGG data; 5-fold CV) into
``./bayescal-results/quickstart``.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

import click

__all__ = ["QUICKSTART", "main", "run_command", "show_command", "summary_frame"]

#: The bundled quick-start spec.
QUICKSTART = files("bayescal.study") / "specs" / "quickstart.toml"


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


def _spec_tests(tree: Any) -> tuple[Any, str, dict[str, float]]:
    """Baseline, first significance test and its arguments from the cube's spec."""
    import tomllib

    try:
        raw = tomllib.loads(tree.attrs.get("spec", ""))
    except tomllib.TOMLDecodeError:
        return None, "cv_ttest", {}
    tests = raw.get("tests", {})
    from bayescal.study.spec import SIGNIFICANCE_TESTS

    # the per-cell tests only; across-dataset comparisons have their own section
    test = ([t for t in tests.get("names", []) if t in SIGNIFICANCE_TESTS] or ["cv_ttest"])[0]
    kwargs: dict[str, float] = {}
    if test == "corrected_resampled_ttest":
        # Nadeau & Bengio's correction needs n_test / n_train of the protocol
        protocol = raw.get("protocol", {})
        kind = protocol.get("kind", "kfold")
        if kind in ("kfold", "repeated_kfold"):
            kwargs["test_train_ratio"] = 1.0 / (protocol.get("n_splits", 10) - 1)
        elif kind == "cv5x2":
            kwargs["test_train_ratio"] = 1.0
        else:
            frac = protocol.get("test_fraction", 0.3)
            kwargs["test_train_ratio"] = frac / (1.0 - frac)
    return tests.get("baseline"), test, kwargs


def _table(tree: Any, metric: str) -> str:
    """The terminal table: ``bayescal.stats.summary_table`` (Markdown, best per row in
    bold, significantly different from the spec's baseline underlined) where it
    applies, else the plain fold means."""
    from bayescal import stats

    frame = summary_frame(tree, metric)  # also validates `metric`
    plain = frame.to_string(float_format=lambda v: f"{v:.4f}")
    if not hasattr(stats, "summary_table"):
        return plain
    baseline, test, kwargs = _spec_tests(tree)
    try:
        return stats.summary_table(
            tree["metrics"].to_dataset().where(tree["metrics"]["done"]), metric,
            baseline=baseline, test=test, format="markdown",
            lower_is_better=metric not in ("accuracy", "probe_coverage", "dsc"),
            drop_empty=bool(tree.attrs.get("finished", False)), **kwargs)
    except ValueError as exc:
        return f"{plain}\n(no significance marks: {exc})"


def _default_metric(tree: Any) -> str:
    import tomllib

    try:
        names = tomllib.loads(tree.attrs.get("spec", "")).get("metrics", {}).get("names")
    except tomllib.TOMLDecodeError:
        names = None
    return names[0] if names else "brier"


@click.command("run")
@click.argument("spec", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--store", type=click.Path(file_okay=False), default=None,
              help="Result store directory [default: ./bayescal-results/<study name>].")
@click.option("--resume", is_flag=True, help="Continue an interrupted run in STORE.")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Run on Dask: a scheduler address, or 'local' for a LocalCluster "
                   "on 127.0.0.1.")
@click.option("--jobs", "-j", type=int, default=None,
              help="Local worker processes [default: all cores].")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Directory of dataset files [default: study.data_dir or $BAYESCAL_DATA].")
@click.option("--allow-module", multiple=True, metavar="PKG",
              help="Also allow estimators from this package (repeatable).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def run_command(spec: str | None, store: str | None, resume: bool, scheduler: str | None,
                jobs: int | None, data_dir: str | None, allow_module: tuple[str, ...],
                quiet: bool) -> None:
    """Run the study SPEC (a TOML file; default: the bundled quick-start)."""
    from bayescal.study.runner import run
    from bayescal.study.spec import SpecError, load_spec

    try:
        parsed = load_spec(spec if spec is not None else Path(str(QUICKSTART)),
                           data_dir=data_dir, allow_modules=allow_module)
    except SpecError as exc:
        raise click.ClickException(str(exc)) from None
    target = Path(store) if store else Path("bayescal-results") / parsed.name
    try:
        tree = run(parsed, target, resume=resume, scheduler=scheduler, n_jobs=jobs,
                   progress=not quiet)
    except (FileExistsError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    metric = parsed.metrics.names[0]
    click.echo(f"study {parsed.name!r}: {tree.attrs['cells_done']} cells in {target}")
    click.echo(f"mean {metric} over folds:")
    click.echo(_table(tree, metric))


@click.command("show")
@click.argument("store", type=click.Path(exists=True, file_okay=False))
@click.option("--metric", "-m", default=None,
              help="Metric to tabulate [default: the spec's first metric].")
def show_command(store: str, metric: str | None) -> None:
    """Print the result table of the study in STORE."""
    from bayescal.study.cube import open_results

    try:
        tree = open_results(store)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    metric = metric or _default_metric(tree)
    done, total = tree.attrs["cells_done"], tree.attrs["cells_total"]
    status = "complete" if tree.attrs.get("finished") else "partial"
    click.echo(f"study {tree.attrs['study']!r} ({status}: {done}/{total} cells); "
               f"mean {metric} over folds:")
    click.echo(_table(tree, metric))


@click.group()
def main() -> None:
    """bayescal studies (``python -m bayescal.study``)."""


main.add_command(run_command)
main.add_command(show_command)
