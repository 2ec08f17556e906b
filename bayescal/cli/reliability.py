"""``bayescal reliability``: the reliability diagram and metrics of a cross-validated classifier."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from bayescal.assessment.out_of_fold import CLASSIFIERS, DEFAULT_CLASSIFIER
from bayescal.cli._options import data_dir_option

__all__ = ["LOG_LOSS_EPS", "probability_columns_warning", "reliability_command"]

#: ``log_loss`` in the metrics table clips true-class probabilities below this
#: value (naive Bayes often outputs exact zeros); the table records it.
LOG_LOSS_EPS = 1e-15


def _safe_file_stem(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")
    return stem or "dataset"


def _metrics_row(y: Any, proba: Any, kind: str, n_bins: int, strategy: str) -> dict[str, float]:
    from bayescal import metrics

    return {
        "accuracy": metrics.accuracy(y, proba),
        "brier": metrics.brier_score(y, proba),
        "log_loss": metrics.log_loss(y, proba, eps=LOG_LOSS_EPS),
        "ece": metrics.expected_calibration_error(y, proba, n_bins, strategy, kind),
        "mce": metrics.maximum_calibration_error(y, proba, n_bins, strategy, kind),
    }


def probability_columns_warning(X, feature_names: list[str], source: str) -> str | None:
    """The warning for a dataset whose feature columns all look like probabilities.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Features (NaN allowed: missing values are ignored).
    feature_names : list of str
    source : str
        The dataset's name, for the message.

    Returns
    -------
    str or None
        A one-line warning when every feature lies in [0, 1] (someone's
        predicted probabilities, most likely), else None.
    """
    import numpy as np

    arr = np.asarray(X, dtype=float)
    finite = arr[np.isfinite(arr)]
    if arr.ndim != 2 or arr.shape[1] == 0 or finite.size == 0:
        return None
    if finite.min() < 0.0 or finite.max() > 1.0:
        return None
    columns = " ".join(feature_names[:4])
    return (f"warning: every feature column of {source} lies in [0, 1]; `bayescal reliability` "
            "fits a classifier on them as features. If they are predicted probabilities, "
            f"assess them as they are: bayescal assess FILE --proba {columns} --label target")


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
@data_dir_option
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

    from bayescal.assessment.out_of_fold import cross_validated_proba
    from bayescal.datasets import load_dataset
    from bayescal.metrics import reliability_curve
    from bayescal.report import plot_reliability_diagram

    try:
        ds = load_dataset(dataset, data_dir, label=label, positive=positive)
    except (ValueError, TypeError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    if (warning := probability_columns_warning(ds.X, ds.feature_names, ds.name)) is not None:
        click.echo(warning, err=True)
    try:
        proba = cross_validated_proba(ds.X, ds.y, ds.class_names, classifier, folds, seed)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
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
