"""The ``bayescal recalibrate`` command: fit a calibration map on one file, apply it to another."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from bayescal.assessment.map_store import BAYESIAN_METHODS, METHODS

__all__ = ["recalibrate_command"]


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def _write_table(frame, path: Path) -> None:
    name = path.name.lower()
    stem = name[:-3] if name.endswith(".gz") else name
    if stem.endswith(".parquet"):
        frame.to_parquet(path, index=False)
    elif stem.endswith((".tsv", ".tab", ".txt")):
        frame.to_csv(path, sep="\t", index=False, compression="infer")
    else:
        frame.to_csv(path, index=False, compression="infer")


def _scores(calibrator, p):
    """What the calibrator takes: ``(n, 2)`` for temperature scaling, else the column."""
    import numpy as np

    if type(calibrator).__name__ == "TemperatureScaling":
        return np.column_stack([1.0 - p, p])
    return p


@click.command("recalibrate")
@click.option("--fit", "fit_file", type=click.Path(path_type=Path), default=None,
              help="Calibration file: predictions and outcomes the map is fitted to.")
@click.option("--apply", "apply_file", type=click.Path(path_type=Path), required=True,
              help="File whose predictions are recalibrated.")
@click.option("--proba", required=True, metavar="COL", help="Probability column (both files).")
@click.option("--label", default=None, metavar="COL", help="Outcome column of the --fit file.")
@click.option("--positive", default=None, metavar="LABEL", help="Event label (default 1/True).")
@click.option("--method", type=click.Choice(list(METHODS)), default="bayes-spline",
              show_default=True, help="Calibration map.")
@click.option("--out", "out_file", type=click.Path(path_type=Path), required=True,
              help="Output table (.csv/.tsv/.parquet, optionally .gz).")
@click.option("--save", "save_model", type=click.Path(path_type=Path), default=None,
              help="Save the fitted map as MODEL.json + MODEL.npz.")
@click.option("--load", "load_model", type=click.Path(path_type=Path), default=None,
              help="Use a map saved with --save instead of fitting one.")
@click.option("--level", type=float, default=0.9, show_default=True,
              help="Credible level of the per-row interval (Bayesian methods).")
def recalibrate_command(fit_file: Path | None, apply_file: Path, proba: str, label: str | None,
                        positive: str | None, method: str, out_file: Path,
                        save_model: Path | None, load_model: Path | None, level: float) -> None:
    """Fit a calibration map to --fit and write --apply's rows with recalibrated probabilities.

    Adds PROBA_recalibrated and, for Bayesian maps (bayes-platt, bayes-spline),
    PROBA_lower and PROBA_upper (the credible interval at --level). Saved maps
    are data (parameters in JSON, arrays in .npz; never pickle).
    """
    import numpy as np

    from bayescal.assessment.map_store import load_map, make_map, save_map
    from bayescal.assessment.predictions_file import (
        PredictionsFileError,
        _probability_column,
        read_predictions,
        read_table,
    )

    if (fit_file is None) == (load_model is None):
        _fail("give exactly one of --fit CAL_FILE (with --label) and --load MODEL.")
    if not 0.0 < level < 1.0:
        _fail(f"--level must lie in (0, 1); got {level}.")
    try:
        if load_model is not None:
            calibrator, method = load_map(load_model)
        else:
            if label is None:
                _fail("--fit needs --label COL (the outcome column of the calibration file).")
            y, models = read_predictions(fit_file, [proba], label, positive)
            calibrator = make_map(method)
            calibrator.fit(_scores(calibrator, models[0].p), y)
        frame = read_table(apply_file)
        p = _probability_column(frame, proba, apply_file)
    except (PredictionsFileError, ValueError, TypeError) as exc:
        _fail(str(exc).splitlines()[0])
    out = frame.copy()
    out[f"{proba}_recalibrated"] = calibrator.predict_proba(_scores(calibrator, p))[:, 1]
    if method in BAYESIAN_METHODS:
        interval = np.asarray(calibrator.predict_interval(p, prob=level))  # (n, 2, 2)
        out[f"{proba}_lower"] = interval[:, 1, 0]
        out[f"{proba}_upper"] = interval[:, 1, 1]
    out_file.parent.mkdir(parents=True, exist_ok=True)
    _write_table(out, out_file)
    click.echo(f"{method}: recalibrated {len(out)} rows of {apply_file.name}; wrote {out_file}")
    if save_model is not None:
        for path in save_map(calibrator, method, save_model):
            click.echo(f"saved {path}")
