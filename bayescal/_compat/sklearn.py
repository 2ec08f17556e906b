"""scikit-learn's private tree builders, behind one adapter.

``fit_plain_forest`` grows a plain :class:`~sklearn.ensemble.RandomForestClassifier`
with scikit-learn's private Cython tree builders (``sklearn.tree._tree``,
``sklearn.tree._classes``, ``sklearn.ensemble._forest``) and the bookkeeping
done once per forest (:mod:`bayescal.calibration._fitting` says why); the
fitted forest equals ``forest.fit(X, y)`` bit for bit. Any failure of that
path (a moved name, a changed signature or attribute) returns None, and the
caller fits the forest with its own ``fit``: slower, the same trees.

``scikit-learn`` is bounded above in ``pyproject.toml``; a newer release is
admitted after ``tests/test_compat.py`` passes on it.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

__all__ = ["fit_plain_forest", "plain_forest"]

_MAX_INT = np.iinfo(np.int32).max


def fit_plain_forest(forest: Any, X: Any, y: Any) -> Any | None:
    """``forest`` fitted on ``(X, y)`` by the private tree builders, or None.

    None when the forest is not plain (:func:`plain_forest`), the data are
    sparse, multi-output or have missing values, or the private path fails in
    any way; the caller then runs ``forest.fit(X, y)``.
    """
    try:
        return _fit_forest_private(forest, X, y)
    except Exception:  # any change of scikit-learn's internals: the public fit
        return None


def plain_forest(forest: Any) -> bool:
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


def _fit_forest_private(forest: Any, X: Any, y: Any) -> Any | None:
    """The forest fitted as ``forest.fit(X, y)`` fits it, or None when not plain."""
    from scipy.sparse import issparse
    from sklearn.ensemble._forest import _generate_sample_indices, _get_n_samples_bootstrap
    from sklearn.tree import DecisionTreeClassifier
    from sklearn.tree._classes import CRITERIA_CLF, DENSE_SPLITTERS
    from sklearn.tree._tree import DepthFirstTreeBuilder, Tree
    from sklearn.utils import check_random_state
    from sklearn.utils.validation import validate_data

    forest._validate_params()
    if not plain_forest(forest) or issparse(X) or issparse(y):
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


# Not used: ``sklearn.base._fit_context`` (validation at the start of ``fit``) adds
# a stack frame to every fit, so each warning raised inside ``fit`` with a
# ``stacklevel`` (PosteriorDiagnosticsWarning, ConvergenceWarning, ...) was
# attributed to sklearn/base.py instead of the caller's line. bayescal's fits
# call ``validate_params(self)`` (``bayescal._compat.param_validation``) first instead.
