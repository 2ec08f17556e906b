"""The ``bayescal`` command.

``main`` is a click group; each command is a plain ``click.Command`` registered
with ``main.add_command(...)``, so commands defined in other modules (the study
runner's ``run``, ``show``, ``report``) are added the same way. Heavy modules
(scikit-learn, matplotlib, pandas, the datasets) are imported inside the
commands, so ``bayescal --help`` and ``bayescal --version`` start fast.

Commands
--------
datasets     table of available datasets (name, samples, features, classes, source)
reliability  cross-validated reliability diagram and metrics table of one dataset
run          run a study spec (default: the bundled quick-start) into a result cube
show         print the result table of a study store
report       write the self-contained HTML report of a study store
compare      compare a study's scenarios across its datasets (Friedman-Nemenyi, Bayesian)
assess       calibration assessment of predicted probabilities in a file
recalibrate  fit a calibration map to predictions in a file and apply it to another
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from bayescal import __version__

__all__ = ["CLASSIFIERS", "main"]

#: Classifiers the ``reliability`` command can fit, by name. Each is preceded by a
#: median imputer (missing values are imputed inside the pipeline, per fold).
CLASSIFIERS = {
    "naive_bayes": "Gaussian naive Bayes (sklearn GaussianNB)",
    "random_forest": "random forest, 200 trees (sklearn RandomForestClassifier)",
    "logistic_regression": "standardised L2 logistic regression (sklearn LogisticRegression)",
}

#: Default classifier: Gaussian naive Bayes, a classic source of over-confident
#: probabilities and fast on every bundled dataset.
DEFAULT_CLASSIFIER = "naive_bayes"

#: ``log_loss`` in the metrics table clips true-class probabilities below this
#: value (naive Bayes often outputs exact zeros); the table records it.
LOG_LOSS_EPS = 1e-15

_data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, dir_okay=True, path_type=Path),
    default=None,
    help="Directory of CSV/TSV(.gz) data files (default: $BAYESCAL_DATA).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "--version", prog_name="bayescal", message="%(prog)s %(version)s"
)
def main() -> None:
    """bayescal: probability calibration with Bayesian reference probes."""


@click.command("datasets")
@_data_dir_option
def datasets_command(data_dir: Path | None) -> None:
    """List the available datasets: name, samples, features, classes, source."""
    from bayescal.datasets import list_datasets

    try:
        table = list_datasets(data_dir)
    except (ValueError, TypeError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(table.to_string(index=False))


def _make_classifier(name: str, seed: int) -> Any:
    """A fresh scikit-learn pipeline: median imputation, then the named classifier."""
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline

    imputer = SimpleImputer(strategy="median", keep_empty_features=True)
    if name == "naive_bayes":
        from sklearn.naive_bayes import GaussianNB

        return make_pipeline(imputer, GaussianNB())
    if name == "random_forest":
        from sklearn.ensemble import RandomForestClassifier

        return make_pipeline(
            imputer, RandomForestClassifier(n_estimators=200, random_state=seed, n_jobs=1)
        )
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(imputer, StandardScaler(), LogisticRegression(max_iter=2000))


def _safe_file_stem(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")
    return stem or "dataset"


def _cross_validated_proba(
    X: Any, y: Any, class_names: list[str], classifier: str, folds: int, seed: int
) -> Any:
    """Out-of-fold class probabilities, one column per class code ``0 .. K-1``."""
    import numpy as np
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    from bayescal.threads import limit_blas_threads

    present, counts = np.unique(y, return_counts=True)
    if present.size < 2:
        raise click.ClickException("the dataset has a single class; nothing to calibrate.")
    if counts.min() < folds:
        rare = int(present[np.argmin(counts)])
        raise click.ClickException(
            f"class {class_names[rare]!r} (code {rare}) has only {counts.min()} sample(s) but "
            f"stratified {folds}-fold cross-validation needs at least {folds} per class; "
            "lower --folds or merge rare classes."
        )
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    with limit_blas_threads(1):
        proba_present = cross_val_predict(
            _make_classifier(classifier, seed), X, y, cv=cv, method="predict_proba"
        )
    proba = np.zeros((y.shape[0], len(class_names)))
    proba[:, present] = proba_present  # classes absent from the data keep probability 0
    return proba


def _metrics_row(y: Any, proba: Any, kind: str, n_bins: int, strategy: str) -> dict[str, float]:
    from bayescal import metrics

    return {
        "accuracy": metrics.accuracy(y, proba),
        "brier": metrics.brier_score(y, proba),
        "log_loss": metrics.log_loss(y, proba, eps=LOG_LOSS_EPS),
        "ece": metrics.expected_calibration_error(y, proba, n_bins, strategy, kind),
        "mce": metrics.maximum_calibration_error(y, proba, n_bins, strategy, kind),
    }


@click.command("reliability")
@click.argument("dataset", metavar="DATASET_OR_CSV")
@click.option(
    "--classifier",
    type=click.Choice(sorted(CLASSIFIERS)),
    default=DEFAULT_CLASSIFIER,
    show_default=True,
    help="Classifier fitted in cross-validation (after median imputation).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, dir_okay=True, path_type=Path),
    default=Path("reliability-output"),
    show_default=True,
    help="Directory for the PNG diagram and the CSV tables (created if missing).",
)
@_data_dir_option
@click.option(
    "--label",
    default="target",
    show_default=True,
    help="Name of the label column of a CSV/TSV file.",
)
@click.option(
    "--positive",
    default=None,
    help="The positive class of a two-class target (code 1: the class of the diagram and "
    "of every binary metric) [default: the later class in sorted order].",
)
@click.option(
    "--folds",
    type=click.IntRange(min=2),
    default=5,
    show_default=True,
    help="Number of stratified cross-validation folds.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Seed of the fold split and of the classifier.",
)
@click.option(
    "--n-bins",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Number of bins of the diagram, ECE and MCE.",
)
@click.option(
    "--strategy",
    type=click.Choice(["uniform", "quantile"]),
    default="uniform",
    show_default=True,
    help="Equal-width or equal-count bins.",
)
def reliability_command(
    dataset: str,
    classifier: str,
    out_dir: Path,
    data_dir: Path | None,
    label: str,
    positive: str | None,
    folds: int,
    seed: int,
    n_bins: int,
    strategy: str,
) -> None:
    """Reliability diagram and metrics of a cross-validated classifier.

    DATASET_OR_CSV is a bundled dataset name (see `bayescal datasets`), the stem
    of a file in the data directory, or a path to a CSV/TSV(.gz) file with a
    label column (`target`, or the one named by --label). For two classes the
    positive class is the later in sorted order ("yes" over "no", 1 over 0)
    unless --positive names it; the output states which it is. Out-of-fold probabilities come from
    cross_val_predict(method="predict_proba"); missing feature values are imputed
    with the median inside the pipeline (fitted on each training fold only).
    Binary data get the positive-class diagram; multi-class data the top-label
    diagram. Writes reliability_<name>.png, metrics_<name>.csv (printed too) and
    reliability_<name>.csv (the per-bin curve) to --out.
    """
    import pandas as pd

    from bayescal.datasets import load_dataset
    from bayescal.metrics import reliability_curve
    from bayescal.report import plot_reliability_diagram

    try:
        ds = load_dataset(dataset, data_dir, label=label, positive=positive)
    except (ValueError, TypeError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    from bayescal.assessment.command import probability_columns_warning

    if (warning := probability_columns_warning(ds.X, ds.feature_names, ds.name)) is not None:
        click.echo(warning, err=True)
    proba = _cross_validated_proba(ds.X, ds.y, ds.class_names, classifier, folds, seed)
    kind = "binary" if ds.n_classes == 2 else "top_label"

    row = {
        "dataset": ds.name,
        "classifier": classifier,
        "n_samples": ds.n_samples,
        "n_classes": ds.n_classes,
        "positive_class": ds.class_names[1] if ds.n_classes == 2 else "",
        "n_missing": ds.n_missing,
        "folds": folds,
        "seed": seed,
        "kind": kind,
        "n_bins": n_bins,
        "strategy": strategy,
        **_metrics_row(ds.y, proba, kind, n_bins, strategy),
        "log_loss_eps": LOG_LOSS_EPS,
    }
    table = pd.DataFrame([row])
    curve = reliability_curve(ds.y, proba, n_bins, strategy, kind=kind)

    out_dir.mkdir(parents=True, exist_ok=True)
    stem = _safe_file_stem(ds.name)
    png = out_dir / f"reliability_{stem}.png"
    metrics_csv = out_dir / f"metrics_{stem}.csv"
    curve_csv = out_dir / f"reliability_{stem}.csv"

    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 7.0))
    fig.subplots_adjust(bottom=0.32, top=0.9)
    ax = fig.add_subplot()
    plot_reliability_diagram(
        ds.y, proba, n_bins=n_bins, strategy=strategy, kind=kind, ax=ax, label=classifier
    )
    event = f"positive class {ds.class_names[1]!r}" if kind == "binary" else "top-label"
    ax.set_title(
        f"{ds.name}: {classifier}, {folds}-fold CV\n{event}, 95% Wilson intervals",
        fontsize="medium",
    )
    fig.savefig(png, dpi=120)
    table.to_csv(metrics_csv, index=False)
    curve.to_frame().to_csv(curve_csv, index=False)

    click.echo(table.drop(columns=["log_loss_eps", "positive_class"])
               .to_string(index=False, float_format="%.4f"))
    if kind == "binary":
        how = "chosen with --positive" if positive is not None else (
            "the later in sorted order; choose with --positive")
        click.echo(f"positive class: {ds.class_names[1]!r} (against {ds.class_names[0]!r}; "
                   f"{how}).")
    if ds.n_missing:
        click.echo(
            f"{ds.n_missing} missing feature values were imputed with the training-fold median."
        )
    click.echo(f"log_loss clips true-class probabilities below {LOG_LOSS_EPS:g}.")
    for path in (png, metrics_csv, curve_csv):
        click.echo(f"wrote {path}")


main.add_command(datasets_command)
main.add_command(reliability_command)

# Commands owned by other subpackages (their modules import only click at load).
from bayescal.report.commands import report_command  # noqa: E402
from bayescal.report.compare_command import compare_command  # noqa: E402
from bayescal.study.commands import run_command, show_command  # noqa: E402

main.add_command(run_command)
main.add_command(show_command)
main.add_command(report_command)
main.add_command(compare_command)

from bayescal.reproduce.command import reproduce_command  # noqa: E402

main.add_command(reproduce_command)

from bayescal.assessment.command import assess_command, recalibrate_command  # noqa: E402

main.add_command(assess_command)
main.add_command(recalibrate_command)


def entry() -> None:
    """The ``bayescal`` console script: :func:`main`, then a quick exit.

    Once the command has finished (its files written and closed), every
    object is frozen for the garbage collector (:func:`gc.freeze`), so that the
    interpreter's last collection at exit does not traverse all that the
    command imported and built: at the end of ``bayescal run`` of the
    quick-start, exit took 0.65 s before and 0.08 s after. Objects are still
    released by reference counting, and ``atexit`` handlers still run. In a
    process that goes on (tests calling :func:`main` through click's runner)
    nothing is frozen.
    """
    import gc

    try:
        main()
    finally:
        gc.freeze()


if __name__ == "__main__":  # pragma: no cover
    entry()
