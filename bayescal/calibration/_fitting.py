"""Fitting a classifier, with a leaner loop for scikit-learn's random forest.

DG/DGG (:mod:`bayescal.calibration.generation`) refit the classifier dozens of
times per training set, and the thesis' classifier is a 500-tree
:class:`~sklearn.ensemble.RandomForestClassifier`. On a few hundred rows most
of such a fit is scikit-learn's per-tree bookkeeping rather than tree growing:
each tree is a :func:`~sklearn.base.clone` of the template tree with its
parameters set one by one, and each tree's ``_fit`` re-checks the targets
(``type_of_target``), the random state and the sample weights, identical for
every tree of the forest.

:func:`fit_estimator` grows the same trees with that bookkeeping done once per
forest: the same per-tree seeds drawn in the same order from the forest's
``random_state``, the same bootstrap counts as sample weights, the same
criterion, splitter and depth-first builder of :mod:`sklearn.tree` with the
parameters resolved as :class:`~sklearn.tree.DecisionTreeClassifier` resolves
them, and the forest's own target encoding and out-of-bag scoring. The fitted
forest is the one ``forest.fit(X, y)`` returns, bit for bit (trees, fitted
attributes, predictions; tested against scikit-learn's fit). Anything outside
the plain case -- a subclass, sample or class weights, missing values, sparse
or multi-output data, ``warm_start``, leaf-count limits, monotonic
constraints, pruning, a non-default template tree -- goes through the
estimator's own ``fit``, as does every other estimator.
"""

from __future__ import annotations

from typing import Any

from bayescal._compat.sklearn import fit_plain_forest as _fit_forest
from bayescal._compat.sklearn import plain_forest as _plain_forest  # noqa: F401  (tests)

__all__ = ["fit_estimator"]

# ``_fit_forest`` and ``_plain_forest``: scikit-learn's private tree builders
# behind bayescal's adapter (:mod:`bayescal._compat.sklearn`); any failure there
# returns None and the forest is fitted by its own ``fit``.


def fit_estimator(estimator: Any, X: Any, y: Any, **fit_params: Any) -> Any:
    """Fit ``estimator`` on ``(X, y)`` in place; return it.

    Parameters
    ----------
    estimator : scikit-learn estimator
        Unfitted (a clone); fitted in place.
    X, y : array-like
        Training data.
    **fit_params
        Passed to ``estimator.fit`` (a plain forest fit has none).

    Returns
    -------
    estimator
        Fitted; for a plain :class:`~sklearn.ensemble.RandomForestClassifier`
        by :func:`bayescal._compat.sklearn.fit_plain_forest`, otherwise (or
        when that private path fails in any way) by ``estimator.fit``.
    """
    from sklearn.ensemble import RandomForestClassifier

    if type(estimator) is RandomForestClassifier and not fit_params:
        fitted = _fit_forest(estimator, X, y)
        if fitted is not None:
            return fitted
    return estimator.fit(X, y, **fit_params)
