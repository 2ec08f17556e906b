"""Loaders for real datasets: scikit-learn's bundled sets and CSV/TSV files.

One entry point, :func:`load_dataset`, returns a :class:`Dataset` whatever the
source; :func:`list_datasets` tabulates what is available. Files live in a *data
directory*: the ``data_dir`` argument, else the ``BAYESCAL_DATA`` environment
variable.

File format
-----------
One header row; one label column, named ``target`` unless ``label=`` names
another; every other column is a feature. ``.csv`` files are comma-separated, ``.tsv`` files tab-separated, and
either may be gzip-compressed (``.csv.gz``, ``.tsv.gz``). Missing values are
empty fields (plus any strings given in ``na_values``). pandas does the reading.

Encoding rules
--------------
Features
    Numeric columns are read as ``float64``. A column that holds any text is
    *categorical*: its distinct strings are sorted (Python string order) and
    replaced by their ordinal codes ``0 .. C-1``; the category list is kept in
    :attr:`Dataset.categories`. A missing cell stays ``NaN`` in either kind of
    column. A column that mixes numbers and text (``"3"``, ``"?"``) is encoded as
    categorical with a :class:`DataFileWarning`, because the text is usually a
    missing-value marker that should be passed in ``na_values``.
Target
    A numeric target with whole-number values or a text target is encoded to the
    codes ``0 .. K-1`` in sorted order of the distinct values (numeric order for
    numbers, string order for text); :attr:`Dataset.class_names` holds the
    original values as text, in code order. For two classes code 1 is the
    *positive* class: by default the later in that order (``"yes"`` over
    ``"no"``, ``1`` over ``0``), or the class named by ``positive=``. A target
    with missing values, or a numeric target with fractional values (a
    regression target) without ``binary=``, is an error.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a file is read, to keep the import light
    import pandas as pd

__all__ = [
    "DATA_DIR_ENV",
    "SKLEARN_DATASETS",
    "DataFileWarning",
    "Dataset",
    "list_datasets",
    "load_dataset",
    "locate_dataset",
]

#: Environment variable naming the default data directory.
DATA_DIR_ENV = "BAYESCAL_DATA"

#: Names of the scikit-learn bundled sets, mapped to their loader functions.
SKLEARN_DATASETS: dict[str, str] = {
    "iris": "load_iris",
    "wine": "load_wine",
    "breast_cancer": "load_breast_cancer",
    "digits": "load_digits",
}

#: File suffixes searched, in this order, when a dataset is named by its stem.
FILE_SUFFIXES: tuple[str, ...] = (".csv.gz", ".tsv.gz", ".csv", ".tsv")

TARGET_COLUMN = "target"

BinarySpec = Callable[[np.ndarray], Any] | str | Real | None


class DataFileWarning(UserWarning):
    """A data file was read with a caveat (mixed column, skipped file)."""


@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A classification dataset: features, integer labels and their names.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
        Features; ``NaN`` marks a missing value.
    y : ndarray of shape (n_samples,), int64
        Class codes ``0 .. n_classes-1``.
    feature_names : list of str
        One name per column of ``X``.
    class_names : list of str
        The original label of each class, as text, in code order.
    name : str
        Short name of the dataset (the file stem or the scikit-learn name).
    source : str
        ``"sklearn"`` or the path of the file read.
    categories : dict of str to list of str, default={}
        For each categorical feature, its categories in code order.

    Raises
    ------
    ValueError
        If the parts are inconsistent (shapes, codes out of range).

    Notes
    -----
    :func:`load_dataset` builds a fresh object with fresh arrays on every call, so
    modifying ``X`` or ``y`` in place never affects another caller.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    class_names: list[str]
    name: str
    source: str
    categories: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.X.ndim != 2:
            raise ValueError(f"`X` must be 2-D; got shape {self.X.shape}.")
        if self.y.shape != (self.X.shape[0],):
            raise ValueError(
                f"`y` must have shape ({self.X.shape[0]},) to match `X`; got {self.y.shape}."
            )
        if len(self.feature_names) != self.X.shape[1]:
            raise ValueError(
                f"`feature_names` has {len(self.feature_names)} names but `X` has "
                f"{self.X.shape[1]} columns."
            )
        if self.y.size and (self.y.min() < 0 or self.y.max() >= len(self.class_names)):
            raise ValueError(
                f"`y` must hold codes 0..{len(self.class_names) - 1} for the "
                f"{len(self.class_names)} `class_names`; got range "
                f"{self.y.min()}..{self.y.max()}."
            )
        unknown = set(self.categories) - set(self.feature_names)
        if unknown:
            raise ValueError(f"`categories` names unknown features: {sorted(unknown)}.")

    @property
    def n_samples(self) -> int:
        """Number of rows of ``X``."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of columns of ``X``."""
        return int(self.X.shape[1])

    @property
    def n_classes(self) -> int:
        """Number of classes (length of ``class_names``)."""
        return len(self.class_names)

    @property
    def n_missing(self) -> int:
        """Number of missing (``NaN``) cells of ``X``."""
        return int(np.isnan(self.X).sum())

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, n_samples={self.n_samples}, "
            f"n_features={self.n_features}, n_classes={self.n_classes}, "
            f"n_missing={self.n_missing}, source={self.source!r})"
        )


# --------------------------------------------------------------------------- #
# Locating files
# --------------------------------------------------------------------------- #


def _resolve_data_dir(data_dir: str | os.PathLike[str] | None) -> Path | None:
    """The data directory: the argument, else ``$BAYESCAL_DATA``, else None."""
    if data_dir is not None:
        if not isinstance(data_dir, str | os.PathLike):
            raise TypeError(
                f"`data_dir` must be a path (str or os.PathLike); got {type(data_dir).__name__}."
            )
        path = Path(data_dir)
        if not path.is_dir():
            raise ValueError(f"`data_dir` {str(path)!r} is not an existing directory.")
        return path
    env = os.environ.get(DATA_DIR_ENV)
    if not env:
        return None
    path = Path(env)
    if not path.is_dir():
        raise ValueError(
            f"the environment variable {DATA_DIR_ENV}={env!r} is not an existing directory; "
            f"fix or unset it, or pass data_dir=."
        )
    return path


def _file_suffix(path: Path) -> str | None:
    """The supported suffix ``path`` ends with, or None."""
    lower = path.name.lower()
    for suffix in FILE_SUFFIXES:
        if lower.endswith(suffix):
            return suffix
    return None


def _separator(path: Path) -> str:
    """Tab for ``.tsv`` / ``.tsv.gz`` files, comma otherwise."""
    return "\t" if (_file_suffix(path) or "").startswith(".tsv") else ","


def _data_files(data_dir: Path) -> dict[str, list[Path]]:
    """Supported files of ``data_dir`` grouped by stem (file name less suffix)."""
    stems: dict[str, list[Path]] = {}
    for path in sorted(data_dir.iterdir()):
        suffix = _file_suffix(path)
        if suffix is None or not path.is_file():
            continue
        stems.setdefault(path.name[: -len(suffix)], []).append(path)
    return stems


def _looks_like_path(name: str) -> bool:
    return os.sep in name or "/" in name or _file_suffix(Path(name)) is not None


def _find_file(name: str, data_dir: Path | None) -> Path:
    """Resolve a file name, path or stem to an existing data file."""
    if _looks_like_path(name):
        path = Path(name).expanduser()
        if path.is_file():
            return _checked_suffix(path)
        if data_dir is not None and not path.is_absolute() and (data_dir / path).is_file():
            return _checked_suffix(data_dir / path)
        where = f" (nor in the data directory {str(data_dir)!r})" if data_dir else ""
        raise ValueError(f"`name`: no file {name!r} was found{where}.")
    if data_dir is None:
        raise ValueError(
            f"`name` {name!r} is not a bundled scikit-learn set ({', '.join(SKLEARN_DATASETS)}) "
            f"and no data directory is set: pass data_dir= or set {DATA_DIR_ENV}, "
            "or pass the path of a CSV/TSV file."
        )
    files = _data_files(data_dir)
    matches = files.get(name, [])
    if len(matches) > 1:
        raise ValueError(
            f"`name` {name!r} is ambiguous in {str(data_dir)!r}: "
            f"{[p.name for p in matches]}; pass the file name instead."
        )
    if not matches:
        available = sorted(files)
        raise ValueError(
            f"`name`: no dataset {name!r} in {str(data_dir)!r} (looked for "
            f"{', '.join(name + s for s in FILE_SUFFIXES)}); available: {available}."
        )
    return matches[0]


def _checked_suffix(path: Path) -> Path:
    if _file_suffix(path) is None:
        raise ValueError(
            f"`name`: file {str(path)!r} is not a supported data file; expected one of "
            f"{', '.join(FILE_SUFFIXES)}."
        )
    return path


# --------------------------------------------------------------------------- #
# Reading and encoding
# --------------------------------------------------------------------------- #


def _read_table(
    path: Path, na_values: list[str], usecols: list[str] | None = None
) -> pd.DataFrame:
    """Read a CSV/TSV(.gz) file with empty fields (and ``na_values``) as missing."""
    import pandas as pd

    sep = _separator(path)
    try:
        return pd.read_csv(
            path,
            sep=sep,
            keep_default_na=False,
            na_values=["", *na_values],
            usecols=usecols,
        )
    except pd.errors.EmptyDataError as exc:
        raise ValueError(f"data file {str(path)!r} is empty (no header row).") from exc
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, EOFError) as exc:
        raise ValueError(f"data file {str(path)!r} could not be read: {exc}") from exc


def _read_header(path: Path) -> list[str]:
    """The column names of a data file, from its first line only (no pandas)."""
    import csv
    import gzip

    sep = _separator(path)
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle, delimiter=sep), None)
    except (OSError, EOFError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"data file {str(path)!r} could not be read: {exc}") from exc
    if not header:
        raise ValueError(f"data file {str(path)!r} is empty (no header row).")
    return header


def _check_target_present(columns: list[str], path: Path, label: str = TARGET_COLUMN) -> None:
    if label not in columns:
        remedy = (f"the label column must be named {TARGET_COLUMN!r}, or name it with "
                  "label= (spec: label = \"...\"; CLI: --label)" if label == TARGET_COLUMN
                  else "check the label= name")
        raise ValueError(
            f"data file {str(path)!r} has no {label!r} column; {remedy}. "
            f"Columns present: {columns}."
        )


def _encode_feature(column: pd.Series, where: str) -> tuple[np.ndarray, list[str] | None]:
    """Encode one feature column; returns (float values, categories or None)."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(column) or pd.api.types.is_numeric_dtype(column):
        return column.to_numpy(dtype=np.float64, na_value=np.nan), None
    missing = column.isna().to_numpy()
    text = column.astype(object).where(~column.isna(), None)
    observed = text[~missing].map(str)
    categories = sorted(observed.unique().tolist())
    numeric = pd.to_numeric(observed, errors="coerce")
    if numeric.notna().any():
        odd = sorted(observed[numeric.isna()].unique().tolist())
        warnings.warn(
            f"column {column.name!r} of {where} mixes numbers and text (text values "
            f"{odd[:5]}); it was encoded as categorical in string order. If the text marks "
            f"missing values, pass na_values={odd[:5]!r}.",
            DataFileWarning,
            stacklevel=4,
        )
    codes = np.full(column.shape[0], np.nan)
    codes[~missing] = np.searchsorted(np.array(categories, dtype=object), observed.to_numpy())
    return codes, categories


def _encode_target(
    target: pd.Series | np.ndarray, where: str, binary: BinarySpec = None,
    label: str = TARGET_COLUMN,
) -> tuple[np.ndarray, list[str]]:
    """Encode target values to codes 0..K-1 (or 0/1 with ``binary``)."""
    import pandas as pd

    raw = pd.Series(target)
    missing = raw.isna().to_numpy()
    if missing.any():
        rows = np.flatnonzero(missing)[:5].tolist()
        raise ValueError(
            f"the {label!r} column of {where} has {int(missing.sum())} missing "
            f"values (first rows {rows}); every row needs a label. Remove those rows from "
            "the file first."
        )
    numeric = pd.api.types.is_numeric_dtype(raw) and not pd.api.types.is_bool_dtype(raw)
    values = raw.to_numpy() if numeric else raw.astype(object).map(str).to_numpy()
    if binary is not None:
        return _binarize(values, numeric, binary, where)
    if numeric:
        if not np.all(np.isfinite(values.astype(np.float64))):
            raise ValueError(f"the {label!r} column of {where} contains inf.")
        if values.dtype.kind == "f" and np.any(values != np.round(values)):
            frac = values[values != np.round(values)][:3].tolist()
            raise ValueError(
                f"the {label!r} column of {where} holds fractional numbers "
                f"(e.g. {frac}); it looks like a regression target, not class labels. "
                "Pass binary=callable (e.g. lambda t: t > 0.5) to threshold it."
            )
    classes, codes = np.unique(values, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"the {label!r} column of {where} holds a single class "
            f"({classes[0]!r}); at least two are needed."
        )
    return codes.astype(np.int64).ravel(), [str(c) for c in classes]


def _binarize(
    values: np.ndarray, numeric: bool, binary: BinarySpec, where: str
) -> tuple[np.ndarray, list[str]]:
    """Turn raw target ``values`` into 0/1 labels as ``binary`` says."""
    if callable(binary):
        try:
            mask = np.asarray(binary(values.copy()))
        except Exception as exc:
            raise ValueError(
                f"`binary` raised {type(exc).__name__} on the target of {where}: {exc}"
            ) from exc
        if mask.shape != values.shape or mask.dtype.kind not in "bi":
            raise ValueError(
                f"`binary` must return one boolean per row (shape {values.shape}); got an "
                f"array of shape {mask.shape} and dtype {mask.dtype}."
            )
        if mask.dtype.kind == "i" and not np.isin(mask, (0, 1)).all():
            raise ValueError("`binary` must return booleans or 0/1 integers.")
        y = mask.astype(np.int64)
        names = ["negative", "positive"]
    else:
        # load_dataset has checked that binary is a str or a (non-bool) number
        if numeric != isinstance(binary, Real):
            kind = "numeric" if numeric else "text"
            raise ValueError(
                f"`binary`={binary!r} cannot match the {kind} target of {where}; "
                f"classes present: {sorted(set(values.tolist()))[:20]}."
            )
        y = (values == binary).astype(np.int64)
        label = str(values[y.astype(bool)][0]) if y.any() else str(binary)
        names = [f"not {label}", label]
    counts = np.bincount(y, minlength=2)
    if counts.min() == 0:
        present = sorted(set(values.tolist()))[:20]
        raise ValueError(
            f"`binary`={binary!r} puts every row of {where} in one class "
            f"({counts[0]} negative, {counts[1]} positive); target values present: {present}."
        )
    return y, names


# --------------------------------------------------------------------------- #
# Sources
# --------------------------------------------------------------------------- #


def _load_sklearn(name: str, binary: BinarySpec) -> Dataset:
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, SKLEARN_DATASETS[name])()
    X = np.asarray(bunch.data, dtype=np.float64)
    target_names = [str(t) for t in bunch.target_names]
    codes = np.asarray(bunch.target, dtype=np.int64)
    if binary is not None:
        raw = np.array(target_names, dtype=object)[codes]
        y, class_names = _binarize(raw, False, binary, f"the scikit-learn set {name!r}")
    else:
        y, class_names = codes, target_names
    return Dataset(
        X=X,
        y=y,
        feature_names=[str(f) for f in bunch.feature_names],
        class_names=class_names,
        name=name,
        source="sklearn",
    )


def _load_file(path: Path, binary: BinarySpec, na_values: list[str],
               label: str = TARGET_COLUMN) -> Dataset:
    frame = _read_table(path, na_values)
    columns = [str(c) for c in frame.columns]
    frame.columns = columns
    _check_target_present(columns, path, label)
    where = f"data file {str(path)!r}"
    if frame.shape[0] == 0:
        raise ValueError(f"{where} has a header but no data rows.")
    feature_names = [c for c in columns if c != label]
    if not feature_names:
        raise ValueError(f"{where} has only the {label!r} column and no features.")
    y, class_names = _encode_target(frame[label], where, binary, label)
    X = np.empty((frame.shape[0], len(feature_names)), dtype=np.float64)
    categories: dict[str, list[str]] = {}
    for j, col in enumerate(feature_names):
        X[:, j], cats = _encode_feature(frame[col], where)
        if cats is not None:
            categories[col] = cats
    suffix = _file_suffix(path) or ""
    return Dataset(
        X=X,
        y=y,
        feature_names=feature_names,
        class_names=class_names,
        name=path.name[: -len(suffix)] if suffix else path.name,
        source=str(path),
        categories=categories,
    )


def load_dataset(
    name: str | os.PathLike[str],
    data_dir: str | os.PathLike[str] | None = None,
    *,
    binary: BinarySpec = None,
    dropna: bool = False,
    na_values: list[str] | tuple[str, ...] | None = None,
    label: str = TARGET_COLUMN,
    positive: str | Real | None = None,
) -> Dataset:
    """Load a classification dataset by name or path.

    Parameters
    ----------
    name : str or os.PathLike
        One of the scikit-learn bundled sets (``"iris"``, ``"wine"``,
        ``"breast_cancer"``, ``"digits"``); or the stem of a file in the data
        directory (``"mammographic_mass"`` finds ``mammographic_mass.csv.gz``,
        ``.tsv.gz``, ``.csv`` or ``.tsv``); or a file name or path (an existing
        path wins; a relative name is also looked up in the data directory). A
        data file whose stem equals a bundled name is loaded by its file name
        (``"iris.tsv.gz"``).
    data_dir : str or os.PathLike, optional
        Directory of data files. Default: the ``BAYESCAL_DATA`` environment
        variable, if set.
    binary : callable, str, number or None, default=None
        Make the task binary. A callable receives the raw target values (a NumPy
        array: numbers as read, or text; for scikit-learn sets the class names)
        and returns one boolean per row, True for the positive class (code 1);
        class names become ``["negative", "positive"]``. Any other value names one
        class (compared with the raw values, numbers with numbers and text with
        text): that class becomes code 1 and all others code 0 (one-vs-rest);
        class names become ``["not <label>", "<label>"]``. Example: the usual
        binary heart-disease task is ``binary=lambda t: t > 0``.
    dropna : bool, default=False
        Drop rows with any missing feature value. Missing values are otherwise
        kept as ``NaN``.
    na_values : list of str, optional
        Extra strings (besides the empty field) that mark a missing value in a
        file, e.g. ``["?"]``.
    label : str, default="target"
        Name of the label column of a data file (scikit-learn sets have their
        own labels: only the default is accepted for them).
    positive : str or number, optional
        For a two-class target, the class that becomes code 1 (the positive
        class of every binary metric and diagram), matched with the class
        names as text (``1`` matches ``"1"``); the class names keep their
        values, positive last. Default: the later class in sorted order. For
        more classes use ``binary=`` (one-vs-rest).

    Returns
    -------
    Dataset
        ``X`` (float64, NaN where missing), ``y`` (int64 codes), names and source.

    Raises
    ------
    TypeError
        If ``name``, ``data_dir`` or ``binary`` has the wrong type.
    ValueError
        If the dataset cannot be found or is ambiguous; if the file has no
        ``target`` column (the message lists the columns present), no rows, no
        features, or cannot be parsed; if the target has missing values, a single
        class, or fractional numbers without ``binary``; if ``binary`` leaves one
        class empty; if ``dropna`` leaves no rows; if ``positive`` is not one of
        two classes, or is given with ``binary``; if ``label`` is not the
        default for a scikit-learn set.

    Notes
    -----
    Encoding (see the module docstring): numeric features stay as read;
    text features become ordinal codes in sorted order of their distinct strings
    (kept in ``Dataset.categories``), missing stays NaN; the target is encoded to
    ``0 .. K-1`` in sorted order of its distinct values (numeric order for
    numbers). scikit-learn sets keep scikit-learn's own codes and names (for
    ``breast_cancer`` code 0 is ``malignant``).

    Examples
    --------
    >>> from bayescal.datasets import load_dataset
    >>> ds = load_dataset("iris")
    >>> ds.X.shape, ds.n_classes, ds.class_names
    ((150, 4), 3, ['setosa', 'versicolor', 'virginica'])
    >>> load_dataset("breast_cancer", binary="malignant").class_names
    ['not malignant', 'malignant']
    >>> load_dataset("breast_cancer", positive="malignant").class_names
    ['benign', 'malignant']
    """
    if not isinstance(dropna, bool):
        raise TypeError(f"`dropna` must be True or False; got {dropna!r}.")
    if na_values is None:
        extra: list[str] = []
    elif isinstance(na_values, str) or not all(isinstance(v, str) for v in na_values):
        raise TypeError(f"`na_values` must be a list of strings; got {na_values!r}.")
    else:
        extra = list(na_values)
    if (
        binary is not None
        and not callable(binary)
        and (isinstance(binary, bool) or not isinstance(binary, str | Real))
    ):
        raise TypeError(
            f"`binary` must be a callable, a class label (str or number) or None; "
            f"got {binary!r} of type {type(binary).__name__}."
        )
    if not isinstance(label, str) or not label:
        raise TypeError(f"`label` must be a non-empty column name (str); got {label!r}.")
    if positive is not None:
        if isinstance(positive, bool) or not isinstance(positive, str | Real):
            raise TypeError(f"`positive` must be a class label (str or number) or None; got "
                            f"{positive!r} of type {type(positive).__name__}.")
        if binary is not None:
            raise ValueError("give either `binary` (one-vs-rest, any number of classes) or "
                             "`positive` (which of two classes is positive), not both.")
    source = locate_dataset(name, data_dir)
    if source == "sklearn":
        if label != TARGET_COLUMN:
            raise ValueError(f"`label`={label!r} applies to data files; the scikit-learn set "
                             f"{os.fspath(name)!r} has its own labels.")
        dataset = _load_sklearn(os.fspath(name), binary)
    else:
        dataset = _load_file(Path(source), binary, extra, label)
    if positive is not None:
        dataset = _with_positive(dataset, positive)
    if dropna:
        dataset = _drop_incomplete_rows(dataset)
    return dataset


def _with_positive(dataset: Dataset, positive: str | Real) -> Dataset:
    """The dataset with class ``positive`` as code 1 (two classes only)."""
    names = dataset.class_names
    if len(names) != 2:
        raise ValueError(
            f"`positive`={positive!r} names the positive class of a two-class target, but "
            f"{dataset.name!r} has {len(names)} classes {names[:20]}; use binary={positive!r} "
            "for one class against the rest.")
    hits = [k for k, n in enumerate(names) if _same_label(positive, n)]
    if not hits:
        raise ValueError(f"`positive`={positive!r} is not a class of {dataset.name!r}; "
                         f"classes: {names}.")
    if hits[0] == 1:
        return dataset
    return Dataset(X=dataset.X, y=1 - dataset.y, feature_names=dataset.feature_names,
                   class_names=[names[1], names[0]], name=dataset.name, source=dataset.source,
                   categories=dataset.categories)


def _same_label(wanted: Any, name: str) -> bool:
    """Whether a label given by a person (text or number) names class ``name``."""
    if str(wanted) == name:
        return True
    try:
        return float(wanted) == float(name)
    except (TypeError, ValueError):
        return False


def locate_dataset(
    name: str | os.PathLike[str], data_dir: str | os.PathLike[str] | None = None
) -> str:
    """Resolve a dataset name without reading it.

    Parameters
    ----------
    name : str or os.PathLike
        As for :func:`load_dataset`.
    data_dir : str or os.PathLike, optional
        As for :func:`load_dataset` (default: ``BAYESCAL_DATA``).

    Returns
    -------
    str
        ``"sklearn"`` for a bundled set, else the path of the file that
        :func:`load_dataset` would read (it becomes :attr:`Dataset.source`).

    Raises
    ------
    TypeError, ValueError
        As :func:`load_dataset` does when the name cannot be resolved.

    Examples
    --------
    >>> locate_dataset("wine")
    'sklearn'
    """
    if not isinstance(name, str | os.PathLike):
        raise TypeError(f"`name` must be a str or os.PathLike; got {type(name).__name__}.")
    text = os.fspath(name)
    if not text:
        raise ValueError("`name` is empty; expected a dataset name or a file path.")
    directory = _resolve_data_dir(data_dir)
    if isinstance(name, str) and text in SKLEARN_DATASETS:
        return "sklearn"
    return str(_find_file(text, directory))


def _drop_incomplete_rows(dataset: Dataset) -> Dataset:
    keep = ~np.isnan(dataset.X).any(axis=1)
    if not keep.any():
        raise ValueError(
            f"`dropna`=True removed every row of {dataset.name!r}: each row has a missing value."
        )
    y = dataset.y[keep]
    if np.unique(y).size < 2:
        raise ValueError(f"`dropna`=True left a single class in {dataset.name!r}.")
    return Dataset(
        X=dataset.X[keep],
        y=y,
        feature_names=dataset.feature_names,
        class_names=dataset.class_names,
        name=dataset.name,
        source=dataset.source,
        categories=dataset.categories,
    )


# --------------------------------------------------------------------------- #
# Listing
# --------------------------------------------------------------------------- #


@cache
def _sklearn_summary(name: str) -> tuple[int, int, int]:
    ds = _load_sklearn(name, None)
    return ds.n_samples, ds.n_features, ds.n_classes


def _file_summary(path: Path) -> tuple[int, int, int]:
    """Samples, features and classes of a file, reading only its target column."""
    columns = _read_header(path)
    _check_target_present(columns, path)
    target = _read_table(path, [], usecols=[TARGET_COLUMN])[TARGET_COLUMN]
    where = f"data file {str(path)!r}"
    if target.shape[0] == 0:
        raise ValueError(f"{where} has a header but no data rows.")
    if len(columns) < 2:
        raise ValueError(f"{where} has only the {TARGET_COLUMN!r} column and no features.")
    _, class_names = _encode_target(target, where)
    return int(target.shape[0]), len(columns) - 1, len(class_names)


def list_datasets(data_dir: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Tabulate the available datasets.

    Parameters
    ----------
    data_dir : str or os.PathLike, optional
        Directory of data files. Default: the ``BAYESCAL_DATA`` environment
        variable; when neither is set only the scikit-learn sets are listed.

    Returns
    -------
    pandas.DataFrame
        One row per dataset with columns ``name`` (what to pass to
        :func:`load_dataset`), ``samples``, ``features``, ``classes`` and
        ``source`` (``"sklearn"`` or the file path): first the scikit-learn sets,
        then the files of the data directory in name order. A file is listed by
        its stem, or by its file name when the stem is a bundled name or is
        shared by several files.

    Raises
    ------
    ValueError
        If ``data_dir`` (or ``BAYESCAL_DATA``) is not an existing directory.

    Warns
    -----
    DataFileWarning
        For each file that cannot be loaded (it is left out of the table).

    Notes
    -----
    Only the first line and the ``target`` column of each file are parsed
    (``benchmarks/datasets_listing.py`` compares this with loading every set).

    Examples
    --------
    >>> from bayescal.datasets import list_datasets
    >>> list_datasets().query("name == 'wine'")[["samples", "features", "classes"]].values.tolist()
    [[178, 13, 3]]
    """
    import pandas as pd

    directory = _resolve_data_dir(data_dir)
    rows = []
    for name in SKLEARN_DATASETS:
        n, d, k = _sklearn_summary(name)
        rows.append((name, n, d, k, "sklearn"))
    if directory is not None:
        for stem, paths in _data_files(directory).items():
            for path in paths:
                label = path.name if (len(paths) > 1 or stem in SKLEARN_DATASETS) else stem
                try:
                    n, d, k = _file_summary(path)
                except ValueError as exc:
                    warnings.warn(f"skipped {path.name}: {exc}", DataFileWarning, stacklevel=2)
                    continue
                rows.append((label, n, d, k, str(path)))
    table = pd.DataFrame(rows, columns=["name", "samples", "features", "classes", "source"])
    return table.astype({"samples": np.int64, "features": np.int64, "classes": np.int64})
