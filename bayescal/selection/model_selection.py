"""Model selection by boundary uncertainty, beside hold-out and k-fold CV.

Ha et al. (2021) §6: every candidate classifier status is
trained once on the whole training set and scored by its boundary uncertainty
(higher is better); the hold-out and cross-validation estimates of the error
of the same candidates are computed beside it, so the three criteria can be
compared on one table.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import (
    ParameterGrid,
    StratifiedKFold,
    cross_val_score,
    train_test_split,
)
from tqdm.auto import tqdm

from bayescal.selection.boundary import BoundaryUncertaintyEstimator
from bayescal.validation import check_fraction, check_matrix, check_positive_int

__all__ = ["select_by_boundary_uncertainty"]


def select_by_boundary_uncertainty(
    estimator: Any,
    param_grid: Any,
    X: Any,
    y: Any,
    *,
    cv: int = 10,
    holdout: float = 0.25,
    n_neighbors: int = 40,
    n_prototypes: Any = "aic",
    perturb: bool = True,
    random_state: Any = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Score every candidate by boundary uncertainty, hold-out and k-fold CV.

    Parameters
    ----------
    estimator : classifier
        Template; each candidate is ``clone(estimator).set_params(**params)``.
    param_grid : dict or list of dicts
        As for scikit-learn's ``ParameterGrid``.
    X : array-like of shape (N, d)
    y : array-like of shape (N,)
    cv : int, default=10
        Folds of the stratified k-fold CV error estimate (0 skips it).
    holdout : float, default=0.25
        Validation share of the hold-out estimate (the paper's 75/25 split).
    n_neighbors, n_prototypes, perturb
        See :class:`~bayescal.selection.BoundaryUncertaintyEstimator`.
    random_state : int or None
        Seeds the perturbation, the prototypes and the splits.
    progress : bool, default=False
        Show a progress bar over candidates.

    Returns
    -------
    pandas.DataFrame
        One row per candidate: its parameters (one column each),
        ``boundary_uncertainty``, ``train_error``, ``holdout_error``,
        ``cv_error``, ``bu_seconds`` and ``cv_seconds`` (time of the boundary
        uncertainty score and of the CV estimate), and boolean columns
        ``selected_by_boundary_uncertainty``, ``selected_by_holdout``,
        ``selected_by_cv`` (first candidate on ties).

    Raises
    ------
    ValueError
        If the grid is empty or a parameter is not one of the estimator's.
    """
    X = check_matrix(X, "X")
    y = np.asarray(y)
    holdout = check_fraction(holdout, "holdout")
    if cv:
        check_positive_int(cv, "cv", minimum=2)
    try:
        grid = list(ParameterGrid(param_grid))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"`param_grid` is not a valid parameter grid: {exc}") from exc
    if not grid:
        raise ValueError("`param_grid` defines no candidate.")
    valid = set(estimator.get_params())
    for params in grid:
        unknown = set(params) - valid
        if unknown:
            raise ValueError(
                f"`param_grid` names {sorted(unknown)}, which {type(estimator).__name__} "
                f"does not take; valid parameters: {sorted(valid)}."
            )
    scorer = BoundaryUncertaintyEstimator(
        n_neighbors=n_neighbors,
        n_prototypes=n_prototypes,
        perturb=perturb,
        random_state=random_state,
    ).fit(X, y)
    X_fit, X_val, y_fit, y_val = train_test_split(
        X, y, test_size=holdout, stratify=y, random_state=random_state
    )
    rows = []
    for params in tqdm(grid, disable=not progress, desc="candidates"):
        model = clone(estimator).set_params(**params)
        start = time.perf_counter()
        model.fit(X, y)
        bu = scorer.score(model)
        bu_seconds = time.perf_counter() - start
        train_error = float(np.mean(model.predict(X) != y))
        held = clone(model).fit(X_fit, y_fit)
        holdout_error = float(np.mean(held.predict(X_val) != y_val))
        start = time.perf_counter()
        if cv:
            folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
            cv_error = float(1.0 - cross_val_score(clone(model), X, y, cv=folds).mean())
        else:
            cv_error = float("nan")
        rows.append(
            {
                **params,
                "boundary_uncertainty": bu,
                "train_error": train_error,
                "holdout_error": holdout_error,
                "cv_error": cv_error,
                "bu_seconds": bu_seconds,
                "cv_seconds": time.perf_counter() - start,
            }
        )
    table = pd.DataFrame(rows)
    for column, best in (
        ("boundary_uncertainty", table["boundary_uncertainty"].idxmax()),
        ("holdout", table["holdout_error"].idxmin()),
        ("cv", table["cv_error"].idxmin() if cv else None),
    ):
        flag = np.zeros(len(table), dtype=bool)
        if best is not None:
            flag[best] = True
        table[f"selected_by_{column}"] = flag
    return table
