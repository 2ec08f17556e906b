"""Random hot-deck imputation: each missing cell drawn from its column's observed values.

A proper multiple-imputation draw for categorical features under MCAR (Alasalmi 2020 §2.2.2): the observed values of a column are an
unbiased sample of its marginal distribution when values are missing
completely at random, so a draw from them keeps the imputed value a valid
category (unlike a regression imputer on label codes) and, drawn afresh in
each of the ``m`` imputations, carries the uncertainty of the missing value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import validate_params
from bayescal.validation import check_matrix

__all__ = ["HotDeckImputer"]


class HotDeckImputer(TransformerMixin, BaseEstimator):
    """Fill every missing cell with a random draw from its column's observed values.

    Parameters
    ----------
    random_state : int, RandomState or None, default=None
        Seeds the draws. :meth:`transform` draws from a generator created at
        :meth:`fit`, so successive calls give new draws; a
        :class:`~bayescal.missing.MultipleImputationClassifier` transforms
        with a copy of the fitted imputer, so the same rows get the same draws.

    Attributes
    ----------
    observed_ : list of ndarray
        The observed (non-NaN) values of each column seen in :meth:`fit`.
    n_features_in_ : int

    Notes
    -----
    Cell ``(i, j)`` missing gets :math:`x_{ij} \\sim \\mathrm{Uniform}\\{x_{kj}:
    x_{kj} \\text{ observed}\\}`, independently of the other cells (random
    hot-deck imputation, van Buuren 2012 §3.4). Under MCAR the draws follow the
    column's marginal distribution; dependences between features are not
    used, so it suits categorical features where a regression imputer would
    invent codes between categories.

    References
    ----------
    van Buuren (2012), *Flexible Imputation of Missing Data*, CRC Press.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [np.nan, 2.0], [2.0, np.nan]])
    >>> filled = HotDeckImputer(random_state=0).fit_transform(X)
    >>> bool(filled[1, 0] in (0.0, 2.0) and filled[2, 1] in (1.0, 2.0))
    True
    """

    _parameter_constraints: dict = {"random_state": ["random_state"]}

    def __init__(self, *, random_state: Any = None) -> None:
        self.random_state = random_state

    def fit(self, X: Any, y: Any = None) -> HotDeckImputer:
        """Store the observed values of each column.

        Raises
        ------
        ValueError
            If a column has no observed value (nothing to draw from).
        """
        validate_params(self)
        X = check_matrix(X, "X", allow_nan=True)
        empty = np.isnan(X).all(axis=0)
        if empty.any():
            raise ValueError(
                f"`X` has no observed value in column(s) {np.flatnonzero(empty).tolist()}; "
                "a hot-deck draw needs at least one: drop those columns first."
            )
        self.observed_ = [col[~np.isnan(col)] for col in X.T]
        self.n_features_in_ = X.shape[1]
        self.rng_ = check_random_state(self.random_state)
        return self

    def transform(self, X: Any) -> np.ndarray:
        """A copy of ``X`` with every NaN replaced by a draw from its column."""
        check_is_fitted(self, "observed_")
        X = check_matrix(X, "X", allow_nan=True)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"`X` has {X.shape[1]} features but the imputer was fitted with "
                f"{self.n_features_in_}."
            )
        filled = X.copy()
        for j, pool in enumerate(self.observed_):
            rows = np.flatnonzero(np.isnan(X[:, j]))
            if rows.size:
                filled[rows, j] = pool[self.rng_.randint(0, pool.size, rows.size)]
        return filled
