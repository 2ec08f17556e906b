"""Sharing one classifier fit among the calibration scenarios of a fold.

Which scenarios can share a fit
-------------------------------
In a fold, every scenario's *final* classifier is the base classifier fitted
on the whole training part — except ``split``:

========= ================================== =================================
scenario  final classifier                   extra fits for calibration data
========= ================================== =================================
raw       fit on all training data           none
full      fit on all training data           none (reuses the training data)
internal  fit on all training data (e.g.     none (the estimator calibrates
          SVC's own Platt scaling)           itself)
oob       fit on all training data           none (out-of-bag scores)
cv        refit on all training data         k fits on the CV training parts
dg / dgg  refit on all training data         many fits on bootstrap samples
split     fit on the training part left      —
          after holding out calibration data
========= ================================== =================================

So with a deterministic classifier (its ``random_state`` fixed per fold by
the runner) the fit on all training data is the same in every scenario but
``split``. :class:`SharedFitClassifier` exploits this without changing the
calibrated-classifier meta-estimator: it wraps the classifier and, when asked
to fit on exactly the fold's training data with exactly the same parameters,
returns the fit already made (a :class:`FitCache` hit). Fits on other data —
``split``'s reduced set, the CV parts, DG/DGG's bootstrap samples — pass
through uncached (they are not shared and would only take memory). A scenario
that changes the classifier's parameters (``classifier_params``, e.g.
``probability = true`` for SVC's internal Platt) gets a fit of its own.

The cache lives for one task (dataset, classifier, repeat, fold) in one
process; it is never pickled into a store.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

__all__ = ["FitCache", "SharedFitClassifier"]


def _data_key(X: Any, y: Any) -> str:
    h = hashlib.blake2b(digest_size=16)
    for a in (X, y):
        arr = np.ascontiguousarray(np.asarray(a))
        h.update(str((arr.shape, arr.dtype.str)).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def _params_key(estimator: Any) -> str:
    import joblib

    return joblib.hash(clone(estimator))


class FitCache:
    """Fits of one classifier on one fold's training data, keyed by parameters.

    Parameters
    ----------
    X, y : array-like
        The fold's training data: only fits on exactly these are cached.

    Attributes
    ----------
    n_fits : int
        Fits actually made on the training data (cache misses).
    n_hits : int
        Fits answered from the cache.
    borrowed_seconds : float
        Seconds of the original fits behind the hits since the last
        :meth:`reset_borrowed` — added to a scenario's ``fit_seconds`` so that
        it reports the cost of the scenario as if run alone.

    Notes
    -----
    ``copy.deepcopy`` (used by :func:`sklearn.base.clone` on parameters)
    returns the cache itself, so clones of a :class:`SharedFitClassifier`
    share it.
    """

    def __init__(self, X: Any, y: Any) -> None:
        self._data = _data_key(X, y)
        self._fits: dict[str, tuple[Any, float]] = {}
        self.n_fits = 0
        self.n_hits = 0
        self.borrowed_seconds = 0.0

    def __deepcopy__(self, memo: dict[int, Any]) -> FitCache:
        return self

    def __reduce__(self) -> Any:
        raise TypeError("a FitCache is process-local and is never pickled")

    def reset_borrowed(self) -> None:
        """Start counting borrowed seconds afresh (before a scenario's fit)."""
        self.borrowed_seconds = 0.0

    def fit(self, estimator: Any, X: Any, y: Any, **fit_params: Any) -> Any:
        """A fitted clone of ``estimator`` on ``(X, y)``, shared when possible."""
        shareable = not fit_params and _data_key(X, y) == self._data
        key = _params_key(estimator) if shareable else None
        if key is not None and key in self._fits:
            fitted, seconds = self._fits[key]
            self.n_hits += 1
            self.borrowed_seconds += seconds
            return fitted
        start = time.perf_counter()
        fitted = clone(estimator).fit(X, y, **fit_params)
        if key is not None:
            self._fits[key] = (fitted, time.perf_counter() - start)
            self.n_fits += 1
        return fitted


def _inner_has(name: str) -> Any:
    def check(self: SharedFitClassifier) -> bool:
        target = self.__dict__.get("estimator_")
        return hasattr(self.estimator if target is None else target, name)

    return check


class SharedFitClassifier(ClassifierMixin, BaseEstimator):
    """A classifier whose fits on the fold's training data come from a cache.

    Parameters
    ----------
    estimator : classifier
        The classifier (unfitted); cloned before fitting.
    cache : FitCache
        The task's cache (shared by every clone of this wrapper).

    Attributes
    ----------
    estimator_ : classifier
        The fitted classifier (possibly shared with other scenarios: never
        modify it).
    classes_ : ndarray

    Notes
    -----
    Prediction methods exist exactly when the wrapped classifier has them
    (``available_if``), and fitted attributes of the wrapped classifier
    (``oob_decision_function_``, ``diagnostics_``, ...) are readable on the
    wrapper, so a meta-estimator treats it as the classifier itself.
    """

    def __init__(self, estimator: Any = None, cache: FitCache | None = None) -> None:
        self.estimator = estimator
        self.cache = cache

    def fit(self, X: Any, y: Any, **fit_params: Any) -> SharedFitClassifier:
        """Fit (or fetch the shared fit of) the wrapped classifier."""
        if self.cache is None:
            self.estimator_ = clone(self.estimator).fit(X, y, **fit_params)
        else:
            self.estimator_ = self.cache.fit(self.estimator, X, y, **fit_params)
        self.classes_ = self.estimator_.classes_
        return self

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of the wrapped classifier."""
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)

    @available_if(_inner_has("decision_function"))
    def decision_function(self, X: Any) -> np.ndarray:
        """Decision function of the wrapped classifier."""
        check_is_fitted(self)
        return self.estimator_.decision_function(X)

    def predict(self, X: Any) -> np.ndarray:
        """Class predictions of the wrapped classifier."""
        check_is_fitted(self)
        return self.estimator_.predict(X)

    def __getattr__(self, name: str) -> Any:
        # Only fitted attributes (trailing underscore) are forwarded.
        if name.endswith("_") and not name.startswith("__") and "estimator_" in self.__dict__:
            return getattr(self.__dict__["estimator_"], name)
        raise AttributeError(name)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            inner = self.estimator.__sklearn_tags__()
            tags.input_tags = inner.input_tags
        return tags
