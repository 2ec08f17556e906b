"""The ``bayescal assess`` command: a calibration assessment of predictions in a file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

__all__ = ["assess_command"]


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


@click.command("assess")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--proba", "proba", multiple=True, required=True, metavar="COL[,COL...]",
              help="Probability column of a model (repeat or list several to compare models); "
                   "comma-separated columns, one per class, for a multi-class model.")
@click.option("--label", required=True, metavar="COL", help="The outcome column.")
@click.option("--positive", default=None, metavar="LABEL",
              help="The label value that is the event (binary; default 1/True).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Write assessment.json, assessment.csv and assessment.html here.")
@click.option("--level", type=float, default=0.9, show_default=True,
              help="Level of every interval.")
@click.option("--bootstrap", "n_bootstrap", type=int, default=200, show_default=True,
              help="Bootstrap resamples.")
@click.option("--no-bayes", is_flag=True, help="Skip the Bayesian calibration curve.")
@click.option("--inference", type=click.Choice(["laplace", "nuts", "advi"]), default="laplace",
              show_default=True, help="Posterior computation of the Bayesian maps.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.argument("more_proba", nargs=-1, required=False, metavar="")
def assess_command(file: Path, proba: tuple[str, ...], label: str, positive: str | None,
                   out_dir: Path | None, level: float, n_bootstrap: int, no_bayes: bool,
                   inference: str, seed: int, more_proba: tuple[str, ...]) -> None:
    """Assess the calibration of predicted probabilities in FILE (CSV/TSV/Parquet, .gz too).

    Several --proba columns are several models compared on the same rows
    (`--proba p_nb p_gb` or `--proba p_nb --proba p_gb`). Prints a summary; with
    --out writes assessment.json (every statistic with estimate and interval),
    assessment.csv and a self-contained assessment.html. Bad input: one line on
    stderr, exit status 2, nothing written.
    """
    import warnings

    from bayescal.assessment.predictions_file import PredictionsFileError, read_predictions
    from bayescal.assessment.result import assess
    from bayescal.inference.diagnostics import PosteriorDiagnosticsWarning

    columns = [*proba, *more_proba]
    try:
        y, models = read_predictions(file, columns, label, positive)
    except PredictionsFileError as exc:
        _fail(str(exc))
    results, notes = [], []
    for model in models:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                results.append(assess(y, model.p, name=model.name, level=level,
                                      bayesian=not no_bayes, inference=inference,
                                      n_bootstrap=n_bootstrap, random_state=seed))
        except ValueError as exc:
            _fail(f"model {model.name!r}: {str(exc).splitlines()[0]}")
        notes.append([str(w.message).splitlines()[0] for w in caught
                      if not issubclass(w.category, (DeprecationWarning, FutureWarning))])
        if any(issubclass(w.category, PosteriorDiagnosticsWarning) for w in caught):
            notes[-1].append(
                "the Bayesian curve's posterior failed its check (above): its band and "
                "intervals are not those of the posterior; rerun with `--inference nuts` "
                "(MCMC, slower, checked too) or read the frequentist statistics only")
    for a, model_notes in zip(results, notes, strict=True):
        click.echo(a.summary())
        for note in dict.fromkeys(model_notes):
            click.echo(f"  note: {note}")
        click.echo("")
    if out_dir is None:
        return
    import pandas as pd

    from bayescal.assessment.page import write_page

    out_dir.mkdir(parents=True, exist_ok=True)
    payload = {"file": str(file), "label": label, "positive": positive,
               "models": [a.to_dict() for a in results]}
    (out_dir / "assessment.json").write_text(json.dumps(payload, indent=1), encoding="utf-8")
    pd.concat([a.to_frame() for a in results]).to_csv(out_dir / "assessment.csv", index=False)
    write_page(out_dir / "assessment.html", results, title=f"Calibration assessment: {file.name}",
               source=f"Predictions from {file.name}, label column {label!r}.")
    for name in ("assessment.json", "assessment.csv", "assessment.html"):
        click.echo(f"wrote {out_dir / name}")
