"""Datasets of a study: resolution at spec time, preparation at run time.

A spec dataset is either a ``source`` read by
:func:`bayescal.datasets.load_dataset` (a scikit-learn bundled set, a file
stem in the data directory, or a path) or a ``generator`` function named by
dotted path, one of the registry of :mod:`bayescal.study.generators`
(``bayescal.datasets.make_thesis_synthetic``,
``sklearn.datasets.make_classification``, ...), returning ``(X, y)`` or
``(X, y, p_true)``. Preparation then applies, in this order:
``drop_features``, ``classes`` (keep those labels), ``positive`` (binarise:
those labels -> 1; one label of a two-class dataset keeps both class names,
the positive one second), ``dropna`` and ``max_samples`` (a stratified
subsample drawn with the study seed). A file's label column is ``target``
unless the spec's ``label`` names another. Labels in a spec are matched with the dataset's
``class_names`` as text, or as numbers when both parse as numbers
(``15`` matches ``"15"`` and ``"15.0"``).
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PreparedData", "check_dataset_source", "prepare_dataset"]


@dataclass(frozen=True)
class PreparedData:
    """A dataset ready for the runner.

    Attributes
    ----------
    X : ndarray (n, d) float64
    y : ndarray (n,) int64, codes ``0 .. K-1``
    p_true : ndarray (n,) or None
        True ``P(y = 1 | x)`` where known (synthetic binary data).
    class_names, feature_names : tuple of str
    """

    X: np.ndarray
    y: np.ndarray
    p_true: np.ndarray | None
    class_names: tuple[str, ...]
    feature_names: tuple[str, ...]

    @property
    def n_classes(self) -> int:
        """Number of classes."""
        return len(self.class_names)


def check_dataset_source(source: str, data_dir: str | os.PathLike[str] | None) -> None:
    """Check cheaply (without reading it) that ``source`` names a dataset.

    Uses :func:`bayescal.datasets.locate_dataset` (the resolution rule of
    :func:`bayescal.datasets.load_dataset`).

    Raises
    ------
    ValueError
        If ``source`` is neither a scikit-learn bundled set, an existing file,
        nor a file stem in the data directory (argument, else ``BAYESCAL_DATA``).
    """
    from bayescal.datasets import locate_dataset

    try:
        locate_dataset(source, data_dir)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"unknown dataset {source!r}: {exc}") from None


def _codes_of(labels: tuple[Any, ...], class_names: tuple[str, ...], what: str) -> list[int]:
    from bayescal.datasets.loaders import _same_label  # the loader's own label rule

    codes = []
    for lab in labels:
        hits = [k for k, name in enumerate(class_names) if _same_label(lab, name)]
        if not hits:
            raise ValueError(f"{what}: label {lab!r} is not a class of the dataset; "
                             f"classes: {list(class_names)}")
        codes.extend(hits)
    return codes


def _load(spec: Any, data_dir: str | None, allowed: tuple[str, ...],
          random_state: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None,
                                      tuple[str, ...], tuple[str, ...]]:
    if spec.source is not None:
        from bayescal.datasets import load_dataset

        label = getattr(spec, "label", None)
        ds = load_dataset(spec.source, data_dir=data_dir,
                          **({"label": label} if label is not None else {}))
        return (np.asarray(ds.X, dtype=float), np.asarray(ds.y, dtype=np.int64), None,
                tuple(ds.class_names), tuple(ds.feature_names))
    from bayescal.study.generators import resolve_generator

    func = resolve_generator(spec.generator, allowed)  # the registry, never any callable
    kwargs = dict(spec.params)
    try:
        accepts_seed = "random_state" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        accepts_seed = False
    if accepts_seed and "random_state" not in kwargs:
        kwargs["random_state"] = random_state
    out = func(**kwargs)
    if not isinstance(out, tuple) or len(out) not in (2, 3):
        raise ValueError(f"generator {spec.generator} returned {type(out).__name__}; "
                         "expected (X, y) or (X, y, p_true)")
    X, y = np.asarray(out[0], dtype=float), np.asarray(out[1])
    p_true = None if len(out) == 2 or out[2] is None else np.asarray(out[2], dtype=float)
    values, codes = np.unique(y, return_inverse=True)
    names = tuple(str(v) for v in values)
    return X, codes.astype(np.int64), p_true, names, tuple(f"x{j}" for j in range(X.shape[1]))


def prepare_dataset(spec: Any, *, data_dir: str | None, allowed: tuple[str, ...],
                    random_state: int) -> PreparedData:
    """Load and prepare one spec dataset (see the module docstring).

    Parameters
    ----------
    spec : DatasetSpec
    data_dir : str or None
        Data directory for ``source`` datasets.
    allowed : tuple of str
        Allowed packages for the generator.
    random_state : int
        Seed of the generator (when it takes ``random_state`` and the spec
        gives none) and of the ``max_samples`` subsample.

    Returns
    -------
    PreparedData

    Raises
    ------
    ValueError
        On a label or feature not in the dataset, a preparation that leaves
        fewer than two classes, or a bad generator output.
    """
    X, y, p_true, class_names, feature_names = _load(spec, data_dir, allowed, random_state)
    where = f"dataset {spec.name!r}"
    if spec.drop_features:
        missing = [f for f in spec.drop_features if f not in feature_names]
        if missing:
            raise ValueError(f"{where}: drop_features {missing} not among {list(feature_names)}")
        keep_cols = [j for j, f in enumerate(feature_names) if f not in spec.drop_features]
        X = X[:, keep_cols]
        feature_names = tuple(feature_names[j] for j in keep_cols)
    rows = np.ones(len(y), dtype=bool)
    if spec.classes is not None:
        kept = sorted(set(_codes_of(spec.classes, class_names, f"{where}: classes")))
        rows &= np.isin(y, kept)
    if spec.dropna:
        rows &= ~np.isnan(X).any(axis=1)
    X, y = X[rows], y[rows]
    p_true = None if p_true is None else p_true[rows]
    if spec.positive is not None:
        pos = sorted(set(_codes_of(spec.positive, class_names, f"{where}: positive")))
        pos_names = [class_names[k] for k in pos]
        others = [class_names[k] for k in np.unique(y) if k not in pos]
        y = np.isin(y, pos).astype(np.int64)
        if len(pos_names) == 1 and len(others) == 1:  # two classes: keep their names
            class_names = (others[0], pos_names[0])
        else:
            class_names = ("not " + "|".join(pos_names), "|".join(pos_names))
    else:
        present = np.unique(y)
        remap = np.full(len(class_names), -1, dtype=np.int64)
        remap[present] = np.arange(len(present))
        y = remap[y]
        class_names = tuple(class_names[k] for k in present)
    if spec.max_samples is not None and spec.max_samples < len(y):
        from sklearn.model_selection import train_test_split

        idx, _ = train_test_split(np.arange(len(y)), train_size=spec.max_samples,
                                  stratify=y, random_state=random_state)
        idx = np.sort(idx)
        X, y = X[idx], y[idx]
        p_true = None if p_true is None else p_true[idx]
    if len(np.unique(y)) < 2:
        raise ValueError(f"{where}: the preparation leaves fewer than two classes")
    return PreparedData(X=np.ascontiguousarray(X), y=y, p_true=p_true,
                        class_names=class_names, feature_names=feature_names)
