"""Publication II Table 2: how well a confidence map predicts the classification rate.

Alasalmi (2020) §3.2, Fig. 7 and Table 2 (Alasalmi et al.
2016, Publication II of the thesis): naive Bayes on multiply imputed data
(Rubin's rules give each prediction a total uncertainty ``T``), a support-vector
regression ``f(T) = CR`` trained by Monte-Carlo cross-validation
(:class:`bayescal.missing.ConfidenceMap`), and, on held-out rows, the predicted
classification rate against the true one. Table 2 prints a linear model of
predicted against true rate fitted to the grouped test rows: its intercept
(ideal 0), slope (ideal 1), R^2 and residual standard error sigma,
for Mushroom with 25/50/75 % and Iris and Wine with 50 % of the feature values
missing completely at random (MCAR).

The paper does not give its test protocol, imputation model or grouping; ours
(see :func:`confidence_map_table`): repeated stratified K-fold (every row tested
once per repeat), MCAR cells removed once per data set with
:func:`bayescal.datasets.add_missing`, Gaussian naive Bayes with chained-equation
imputation (scikit-learn's ``IterativeImputer(sample_posterior=True)``) on the
continuous Iris and Wine, categorical naive Bayes with random hot-deck draws
(:class:`bayescal.missing.HotDeckImputer`) on the categorical Mushroom, and
test rows sorted by predicted rate and averaged in equal-count groups (the
grouping :func:`bayescal.missing.grouped_means` of the map's own training), and
the line *true = intercept + slope x predicted*: the groups are formed on the
predicted rate, so the binomial noise of a group's true rate is in the
response, where least squares leaves the slope unbiased (the other direction
attenuates it, strongly on the small Iris and Wine; notebook 08 shows both).
Registered as the function blocks of ``models/reproductions/pub2_table2``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CONFIGS", "FULL", "QUICK", "Settings", "confidence_map_table", "regression_line",
           "table2_full", "table2_quick"]

#: Table 2's rows: (method label, dataset, share of cells missing, feature kind).
CONFIGS: tuple[tuple[str, str, float, str], ...] = (
    ("mushroom_mcar25", "mushroom", 0.25, "categorical"),
    ("mushroom_mcar50", "mushroom", 0.50, "categorical"),
    ("mushroom_mcar75", "mushroom", 0.75, "categorical"),
    ("iris_mcar50", "iris", 0.50, "continuous"),
    ("wine_mcar50", "wine", 0.50, "continuous"),
)
_KINDS = ("categorical", "continuous")


@dataclass(frozen=True)
class Settings:
    """Sizes of one run of :func:`confidence_map_table`.

    Attributes
    ----------
    n_imputations : int
        ``m`` of the multiple imputation.
    n_repeats : int
        Monte-Carlo cross-validation rounds of each confidence map.
    group_size : int
        Rows per group of the map's training pairs (uncertainty, correct).
    imputer_max_iter : int
        Rounds of the chained-equation imputer (Iris, Wine).
    cv_repeats, n_folds : int
        Repeated stratified K-fold of the test protocol.
    n_groups : int
        Regression points per data set: the pooled test rows, sorted by
        predicted rate, averaged in this many equal-count groups.
    max_rows : int or None
        A larger data set is cut to this many rows (stratified draw) before
        anything else; ``None`` keeps every row (the paper's sizes).
    seed : int
        Seeds the missing cells, the splits and the maps.
    """

    n_imputations: int
    n_repeats: int
    group_size: int
    imputer_max_iter: int
    cv_repeats: int
    n_folds: int
    n_groups: int
    max_rows: int | None = None
    seed: int = 2016


#: The CI size: m = 5, 8 Monte-Carlo rounds, one 2-fold pass, 8 groups, Mushroom
#: cut to 2000 rows.
QUICK = Settings(n_imputations=5, n_repeats=8, group_size=10, imputer_max_iter=2,
                 cv_repeats=1, n_folds=2, n_groups=8, max_rows=2000)
#: The full size: every row, m = 10, 30 Monte-Carlo rounds, two 3-fold passes, 20 groups.
FULL = Settings(n_imputations=10, n_repeats=30, group_size=10, imputer_max_iter=5,
                cv_repeats=2, n_folds=3, n_groups=20)


def regression_line(x: Any, y: Any) -> dict[str, float]:
    """Least-squares line *y = intercept + slope x*, its R^2 and sigma.

    Parameters
    ----------
    x, y : array-like of shape (k,)
        One value per group (``k >= 3``): for Table 2, ``x`` the groups' mean
        predicted classification rates and ``y`` their true rates.

    Returns
    -------
    dict
        ``intercept``, ``slope``, ``R2`` (squared Pearson correlation) and
        ``sigma``, the residual standard error
        :math:`\\sqrt{\\sum_i r_i^2 / (k - 2)}`.

    Raises
    ------
    ValueError
        If fewer than three points are given, the lengths differ, or every
        ``x`` is equal (no line through a vertical cloud).

    Examples
    --------
    >>> line = regression_line([0.5, 0.7, 0.9], [0.52, 0.70, 0.88])
    >>> round(line["slope"], 3), round(line["intercept"], 3), round(line["R2"], 4)
    (0.9, 0.07, 1.0)
    """
    from scipy.stats import linregress

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"`x` {x.shape} and `y` {y.shape} must be 1-D of the same length "
                         "(one value per group).")
    if x.size < 3:
        raise ValueError(f"a regression line with sigma needs at least 3 groups; got {x.size}. "
                         "Use more test rows or more groups.")
    if np.ptp(x) == 0:
        raise ValueError(f"every `x` is the same ({x[0]}); the line is undefined. "
                         "Use smaller groups.")
    fit = linregress(x, y)
    residuals = y - (fit.intercept + fit.slope * x)
    return {"intercept": float(fit.intercept), "slope": float(fit.slope),
            "R2": float(fit.rvalue**2),
            "sigma": float(np.sqrt(np.sum(residuals**2) / (x.size - 2)))}


def _model(dataset: Any, kind: str, settings: Settings, seed: int) -> Any:
    """The confidence map of Publication II for one data set (naive Bayes matched to it)."""
    from sklearn.naive_bayes import CategoricalNB, GaussianNB

    from bayescal.missing import ConfidenceMap, HotDeckImputer

    if kind == "categorical":
        # every attribute is a category code: category-aware naive Bayes (as the
        # thesis) and imputed values drawn from the observed codes
        n_categories = (np.nanmax(dataset.X, axis=0) + 1).astype(int)
        estimator: Any = CategoricalNB(min_categories=n_categories)
        imputer: Any = HotDeckImputer()
    else:
        from sklearn.experimental import enable_iterative_imputer  # noqa: F401
        from sklearn.impute import IterativeImputer

        estimator = GaussianNB()
        imputer = IterativeImputer(sample_posterior=True, max_iter=settings.imputer_max_iter)
    return ConfidenceMap(estimator, n_imputations=settings.n_imputations,
                         n_repeats=settings.n_repeats, group_size=settings.group_size,
                         imputer=imputer, random_state=seed)


def _fold(X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, dataset: Any,
          kind: str, settings: Settings, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Predicted rate and correctness of the test rows of one fold."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        # the chained-equation imputer stops after max_iter rounds by design
        warnings.simplefilter("ignore", ConvergenceWarning)
        cmap = _model(dataset, kind, settings, seed).fit(X[train], y[train])
        return cmap.predict_confidence(X[test]), cmap.predict(X[test]) == y[test]


def confidence_map_table(settings: Settings, *, n_jobs: int | None = None,
                         data_dir: str | Path | None = None,
                         configs: tuple[tuple[str, str, float, str], ...] = CONFIGS
                         ) -> tuple[Any, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Table 2's regression statistics of every configuration.

    Parameters
    ----------
    settings : Settings
        :data:`QUICK`, :data:`FULL` or your own.
    n_jobs : int, optional
        Folds run in parallel (joblib).
    data_dir : path, optional
        Folder of the data files (default ``$BAYESCAL_DATA``, else a
        ``shared/data`` folder beside the checkout or its parent).
    configs : tuple of (label, dataset, missing share, kind)
        Default :data:`CONFIGS`, the paper's five rows; ``kind`` is
        ``"categorical"`` (categorical naive Bayes, hot-deck draws) or
        ``"continuous"`` (Gaussian naive Bayes, chained equations).

    Raises
    ------
    ValueError
        If a configuration's kind is unknown or its share is not in [0, 1).

    Returns
    -------
    table : pandas.DataFrame
        Columns ``classifier`` (``naive_bayes``), ``method`` (the
        configuration's label), ``metric`` (``intercept``, ``slope``, ``R2``,
        ``sigma``) and ``ours``.
    groups : dict
        Per label, the groups' (mean predicted rate, true rate).

    Notes
    -----
    For each configuration: a share of the feature cells is removed MCAR once;
    ``cv_repeats`` passes of stratified ``n_folds``-fold cross-validation fit a
    :class:`~bayescal.missing.ConfidenceMap` on the training folds and predict
    the classification rate of each test row; the pooled test rows are sorted
    by predicted rate and averaged in ``n_groups`` equal-count groups, and
    :func:`regression_line` fits *true = intercept + slope x predicted*.
    """
    import pandas as pd
    from joblib import Parallel, delayed
    from sklearn.model_selection import RepeatedStratifiedKFold, train_test_split

    from bayescal.datasets import add_missing, load_dataset
    from bayescal.missing import grouped_means

    tasks, data = [], {}
    for index, (label, name, share, kind) in enumerate(configs):
        if kind not in _KINDS:
            raise ValueError(f"configuration {label!r}: kind {kind!r} is not one of {_KINDS}.")
        dataset = load_dataset(name, data_dir=_data_dir(data_dir))
        if settings.max_rows is not None and dataset.y.size > settings.max_rows:
            keep, _ = train_test_split(np.arange(dataset.y.size), train_size=settings.max_rows,
                                       stratify=dataset.y, random_state=settings.seed)
            dataset = replace(dataset, X=dataset.X[np.sort(keep)], y=dataset.y[np.sort(keep)])
        X = add_missing(dataset.X, share, "mcar", random_state=settings.seed + index)
        data[label] = (X, dataset, kind)
        splitter = RepeatedStratifiedKFold(n_splits=settings.n_folds,
                                           n_repeats=settings.cv_repeats,
                                           random_state=settings.seed + index)
        for k, (train, test) in enumerate(splitter.split(X, dataset.y)):
            tasks.append((label, train, test, settings.seed + 1000 * index + k))
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fold)(data[label][0], data[label][1].y, train, test, data[label][1],
                       data[label][2], settings, seed) for label, train, test, seed in tasks)
    rows, groups = [], {}
    for label, *_ in configs:
        mine = [r for (lab, *_), r in zip(tasks, results, strict=True) if lab == label]
        predicted = np.concatenate([p for p, _ in mine])
        correct = np.concatenate([c for _, c in mine]).astype(float)
        size = max(predicted.size // settings.n_groups, 1)
        mean_predicted, true_rate = grouped_means(predicted, correct, size)
        groups[label] = (mean_predicted, true_rate)
        for metric, value in regression_line(mean_predicted, true_rate).items():
            rows.append({"classifier": "naive_bayes", "method": label, "metric": metric,
                         "ours": value})
    return pd.DataFrame(rows), groups


def _data_dir(data_dir: str | Path | None) -> str | Path | None:
    """``data_dir``, else ``$BAYESCAL_DATA``, else a ``shared/data`` beside the checkout."""
    import os

    from bayescal.reproduce.data_dir import shared_data_dir

    if data_dir is not None or os.environ.get("BAYESCAL_DATA"):
        return data_dir
    return shared_data_dir()  # None: load_dataset then says how to point at the data


def plot_groups(groups: dict[str, tuple[np.ndarray, np.ndarray]], path: Path) -> Path:
    """Fig. 8's panels: true against predicted classification rate, with the fitted line."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3.0 * len(groups), 3.2))
    axes = np.atleast_1d(fig.subplots(1, len(groups), sharex=True, sharey=True))
    for ax, (label, (predicted, true_rate)) in zip(axes, groups.items(), strict=True):
        line = regression_line(predicted, true_rate)
        ax.plot(predicted, true_rate, "o", ms=3)
        grid = np.array([0.0, 1.0])
        ax.plot(grid, line["intercept"] + line["slope"] * grid, "-", lw=1)
        ax.plot(grid, grid, ":", color="grey", lw=0.8)
        ax.set(title=label, xlabel="predicted rate", xlim=(0, 1.02), ylim=(0, 1.02))
    axes[0].set_ylabel("true rate")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    return path


def _block(out: Path, settings: Settings, n_jobs: int | None) -> Any:
    import pandas as pd

    table, groups = confidence_map_table(settings, n_jobs=n_jobs)
    plot_groups(groups, Path(out) / "fig8.png")
    pd.concat([pd.DataFrame({"method": label, "predicted": p, "true_rate": t})
               for label, (p, t) in groups.items()]).to_csv(Path(out) / "groups.csv",
                                                            index=False)
    return table


def table2_quick(out: Path, n_jobs: int | None = None) -> Any:
    """Function block of ``pub2_table2``, quick size (:data:`QUICK`).

    Writes ``fig8.png`` and the regression points, ``groups.csv``.
    """
    return _block(out, QUICK, n_jobs)


def table2_full(out: Path, n_jobs: int | None = None) -> Any:
    """Function block of ``pub2_table2``, full size (:data:`FULL`); writes ``fig8.png``."""
    return _block(out, FULL, n_jobs)
