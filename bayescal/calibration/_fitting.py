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

from numbers import Integral
from typing import Any

import numpy as np

__all__ = ["fit_estimator"]

_MAX_INT = np.iinfo(np.int32).max


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
        by :func:`_fit_forest`, otherwise by ``estimator.fit``.
    """
    from sklearn.ensemble import RandomForestClassifier

    if type(estimator) is RandomForestClassifier and not fit_params:
        fitted = _fit_forest(estimator, X, y)
        if fitted is not None:
            return fitted
    return estimator.fit(X, y, **fit_params)


def _plain_forest(forest: Any) -> bool:
    """Whether ``forest``'s parameters are those :func:`_fit_forest` reproduces."""
    from sklearn.tree import DecisionTreeClassifier

    template = forest.estimator
    return (forest.bootstrap and not forest.warm_start and forest.class_weight is None
            and forest.max_leaf_nodes is None and forest.monotonic_cst is None
            and forest.ccp_alpha == 0.0 and forest.min_weight_fraction_leaf == 0.0
            and isinstance(forest.min_samples_leaf, Integral)
            and isinstance(forest.min_samples_split, Integral)
            and type(template) is DecisionTreeClassifier
            and template.get_params() == DecisionTreeClassifier().get_params())


def _max_features(value: Any, n_features: int) -> int:
    """``max_features`` resolved as :class:`~sklearn.tree.DecisionTreeClassifier` does."""
    if value == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if value == "log2":
        return max(1, int(np.log2(n_features)))
    if value is None:
        return n_features
    if isinstance(value, Integral):
        return int(value)
    return max(1, int(value * n_features)) if value > 0.0 else 0


def _fit_forest(forest: Any, X: Any, y: Any) -> Any | None:
    """The forest fitted as ``forest.fit(X, y)`` fits it, or None when not plain."""
    from scipy.sparse import issparse
    from sklearn.tree import DecisionTreeClassifier
    from sklearn.utils import check_random_state

    try:  # scikit-learn's private tree-building pieces; gone or moved: ordinary fit
        from sklearn.ensemble._forest import (
            _generate_sample_indices,
            _get_n_samples_bootstrap,
        )
        from sklearn.tree._classes import CRITERIA_CLF, DENSE_SPLITTERS
        from sklearn.tree._tree import DepthFirstTreeBuilder, Tree
    except ImportError:
        return None
    from sklearn.utils.validation import validate_data

    forest._validate_params()
    if not _plain_forest(forest) or issparse(X) or issparse(y):
        return None
    y_arr = np.asarray(y)
    if y_arr.ndim != 1:
        return None
    X32, y_arr = validate_data(forest, X, y_arr, multi_output=True, dtype=np.float32,
                               ensure_all_finite=False)
    if not np.isfinite(X32).all():  # missing values: the forest's own handling
        return None
    n, d = X32.shape
    y2 = np.reshape(y_arr, (-1, 1))
    forest._n_samples, forest.n_outputs_ = y2.shape
    y2, _ = forest._validate_y_class_weight(y2, None)  # classes_ / n_classes_ lists
    y2 = np.ascontiguousarray(y2, dtype=np.float64)
    forest._sample_weight = None
    n_boot = _get_n_samples_bootstrap(n, forest.max_samples, None)
    forest._n_samples_bootstrap = n_boot
    forest._validate_estimator()

    n_classes = np.asarray(forest.n_classes_, dtype=np.intp)
    tree_classes = np.unique(y2[:, 0])
    max_features = _max_features(forest.max_features, d)
    leaf = int(forest.min_samples_leaf)
    split = max(int(forest.min_samples_split), 2 * leaf)
    depth = _MAX_INT if forest.max_depth is None else forest.max_depth
    params = {p: getattr(forest, p) for p in forest.estimator_params if p != "random_state"}
    random_state = check_random_state(forest.random_state)
    trees = []
    for _ in range(forest.n_estimators):
        seed = random_state.randint(_MAX_INT)  # as _set_random_states draws it
        tree = DecisionTreeClassifier(**params, random_state=seed)
        counts = np.bincount(_generate_sample_indices(seed, n, n_boot, None), minlength=n)
        weights = counts.astype(np.float64)
        criterion = CRITERIA_CLF[forest.criterion](1, n_classes)
        splitter = DENSE_SPLITTERS["best"](criterion, max_features, leaf, 0.0,
                                           check_random_state(seed), None)
        tree.n_features_in_, tree.n_outputs_ = d, 1
        tree.classes_, tree.n_classes_ = tree_classes.copy(), n_classes[0]
        tree.max_features_ = max_features
        tree.tree_ = Tree(d, n_classes, 1)
        DepthFirstTreeBuilder(splitter, split, leaf, 0.0, depth,
                              forest.min_impurity_decrease).build(tree.tree_, X32, y2,
                                                                  weights, None)
        trees.append(tree)
    forest.estimators_ = trees
    if forest.oob_score:
        scoring = forest.oob_score if callable(forest.oob_score) else None
        forest._set_oob_score_and_attributes(X32, y2, scoring_function=scoring)
    if forest.n_outputs_ == 1:
        forest.n_classes_ = forest.n_classes_[0]
        forest.classes_ = forest.classes_[0]
    return forest
