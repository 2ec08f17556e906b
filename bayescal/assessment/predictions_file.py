"""Reading someone else's predictions: a table file with probability and label columns.

CSV, TSV (``.tsv``/``.tab``/``.txt``: tab-separated) and Parquet, each optionally
gzipped (``.gz``). Every problem is one :class:`PredictionsFileError` whose
message is a single line naming the column, the count and the first bad row
(rows counted from 1, the header not counted), so that the command line can
print it and exit with status 2 before writing anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bayescal.assessment._inputs import MIN_SAMPLES

__all__ = ["ModelPredictions", "PredictionsFileError", "read_predictions", "read_table"]

#: Tolerance on a multi-class row's sum.
ROW_SUM_TOLERANCE = 1e-6


class PredictionsFileError(ValueError):
    """A predictions file or its columns cannot be assessed (one-line message)."""


@dataclass(frozen=True)
class ModelPredictions:
    """One model's predictions read from a file.

    Attributes
    ----------
    name : str
        The model's name (its column, or the columns joined by ``+``).
    columns : tuple of str
        Probability columns (one for binary, K for multi-class).
    p : ndarray of shape (n,) or (n, K)
        Probabilities.
    """

    name: str
    columns: tuple[str, ...]
    p: np.ndarray


def read_table(path: Path) -> Any:
    """Read a CSV/TSV/Parquet (optionally ``.gz``) file into a pandas DataFrame."""
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise PredictionsFileError(f"file not found: {path}")
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    kind = suffixes[-1] if suffixes else ""
    try:
        if kind == ".parquet":
            if path.suffix.lower() == ".gz":
                import gzip
                import io

                with gzip.open(path, "rb") as fh:
                    return pd.read_parquet(io.BytesIO(fh.read()))
            return pd.read_parquet(path)
        if kind in (".tsv", ".tab", ".txt"):
            return pd.read_csv(path, sep="\t", compression="infer")
        if kind == ".csv":
            return pd.read_csv(path, compression="infer")
    except (OSError, ValueError, ImportError) as exc:
        raise PredictionsFileError(f"cannot read {path}: {str(exc).splitlines()[0]}") from exc
    raise PredictionsFileError(
        f"{path}: unknown file type {''.join(path.suffixes)!r}; use .csv, .tsv or .parquet "
        "(optionally .gz)."
    )


def _column(frame: Any, name: str, path: Path) -> Any:
    if name not in frame.columns:
        present = ", ".join(str(c) for c in frame.columns)
        raise PredictionsFileError(
            f"column {name!r} not found in {path.name}; columns present: {present}")
    return frame[name]


def _probability_column(frame: Any, name: str, path: Path) -> np.ndarray:
    import pandas as pd

    values = pd.to_numeric(_column(frame, name, path), errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values < 0.0) | (values > 1.0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raw = frame[name].iloc[first]
        raise PredictionsFileError(
            f"column {name!r}: {int(bad.sum())} values are NaN, not numbers or outside [0, 1] "
            f"(first at row {first + 1}: {raw!r}); probabilities must lie in [0, 1].")
    return values


def _labels(frame: Any, label: str, path: Path) -> Any:
    col = _column(frame, label, path)
    missing = col.isna().to_numpy()
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise PredictionsFileError(
            f"label column {label!r}: {int(missing.sum())} missing values "
            f"(first at row {first + 1}).")
    return col


def _binary_outcome(col: Any, label: str, positive: str | None) -> np.ndarray:
    values = col.astype(str).to_numpy()
    classes = sorted(set(values))
    if positive is not None:
        if positive not in classes:
            raise PredictionsFileError(
                f"--positive {positive!r} is not a value of label column {label!r} "
                f"(values: {', '.join(classes[:10])}).")
        return (values == positive).astype(np.int64)
    if len(classes) > 2:
        raise PredictionsFileError(
            f"label column {label!r} has {len(classes)} classes but each model has one "
            "probability column; pass one --proba set per model with a column per class "
            "(COL1,COL2,...) or name the event with --positive LABEL.")
    for pos in ("1", "1.0", "True", "true", "yes"):
        if pos in classes:
            return (values == pos).astype(np.int64)
    raise PredictionsFileError(
        f"label column {label!r} has values {classes}; say which is the event with "
        "--positive LABEL.")


def read_predictions(path: Path, proba: list[str], label: str, positive: str | None = None
                     ) -> tuple[np.ndarray, list[ModelPredictions]]:
    """Read outcomes and one or more models' probabilities from a file.

    Parameters
    ----------
    path : Path
        The file (see the module docstring).
    proba : list of str
        One entry per model: a column name (binary: probability of the event)
        or comma-separated column names, one per class in the sorted order of
        the label's values (numeric order for a numeric label; multi-class). With one entry of several columns
        separated by spaces on the command line, each is a binary model.
    label : str
        The outcome column.
    positive : str, optional
        The label value that is the event (binary); by default ``1``/``True``.

    Returns
    -------
    y : ndarray of shape (n,)
        0/1 outcomes, or class codes ``0 .. K-1`` in the sorted order of the labels.
    models : list of ModelPredictions

    Raises
    ------
    PredictionsFileError
        With a one-line message (see the module docstring).
    """
    path = Path(path)
    frame = read_table(path)
    if frame.shape[0] < MIN_SAMPLES:
        raise PredictionsFileError(
            f"{path.name} has {frame.shape[0]} rows; an assessment needs at least {MIN_SAMPLES}.")
    col = _labels(frame, label, path)
    models: list[ModelPredictions] = []
    sets = [tuple(c for c in entry.split(",") if c) for entry in proba]
    multi = [s for s in sets if len(s) > 1]
    if multi:
        if len(multi) != len(sets):
            raise PredictionsFileError(
                "mix of binary (one column) and multi-class (COL1,COL2,...) --proba entries; "
                "give every model the same number of columns.")
        import pandas as pd

        # Classes in their natural order: numerically for a numeric label column.
        order = (sorted(set(col.tolist())) if pd.api.types.is_numeric_dtype(col)
                 else sorted(set(col.astype(str).tolist())))
        classes = [str(c) for c in order]
        values = col.astype(str).to_numpy()
        k = len(sets[0])
        if any(len(s) != k for s in sets):
            raise PredictionsFileError("every multi-class --proba set needs the same columns "
                                       "count (one per class).")
        if len(classes) > k:
            raise PredictionsFileError(
                f"label column {label!r} has {len(classes)} classes but --proba gives {k} "
                "columns; give one probability column per class.")
        if len(classes) < k:
            raise PredictionsFileError(
                f"label column {label!r} has {len(classes)} classes ({', '.join(classes)}) but "
                f"--proba gives {k} columns; columns are matched to the sorted label values, "
                "so every class needs at least one row.")
        code = {c: i for i, c in enumerate(classes)}
        y = np.array([code[v] for v in values], dtype=np.int64)
        for cols in sets:
            P = np.column_stack([_probability_column(frame, c, path) for c in cols])
            dev = np.abs(P.sum(axis=1) - 1.0)
            if (dev > ROW_SUM_TOLERANCE).any():
                first = int(np.flatnonzero(dev > ROW_SUM_TOLERANCE)[0])
                raise PredictionsFileError(
                    f"columns {','.join(cols)}: {int((dev > ROW_SUM_TOLERANCE).sum())} rows do "
                    f"not sum to 1 (first at row {first + 1}: sum {P[first].sum():.6g}).")
            models.append(ModelPredictions("+".join(cols), cols, P))
        return y, models
    y = _binary_outcome(col, label, positive)
    if y.min() == y.max():
        raise PredictionsFileError(f"label column {label!r} has one class only; the "
                                   "assessment needs both outcomes.")
    for (name,) in sets:
        models.append(ModelPredictions(name, (name,), _probability_column(frame, name, path)))
    return y, models
