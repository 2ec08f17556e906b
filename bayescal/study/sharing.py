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

Fits on other data are not kept, but their *predictions* are: a fit on the
same rows with the same parameters as an earlier one of the task, asked to
predict the same rows, is answered from the earlier predictions without
fitting (a :class:`FitCache` replay). This shares whole Monte-Carlo loops:
DG and DGG scenarios of a fold draw the same bootstrap samples (the runner
gives them one seed, :func:`bayescal.study.cells.build_model`), so DGG
replays DG's fits and only groups their predictions, and two wrappers with
the same cross-validation share its fits. Only predictions are kept (a few
floats per predicted row), never the fitted models.

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

from bayescal.calibration._fitting import fit_estimator

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
    n_replays : int
        Fits on other data answered from an identical earlier fit's
        recorded predictions (not fitted).
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
        self._outputs: dict[str, dict[tuple[str, str], np.ndarray]] = {}
        self._classes: dict[str, np.ndarray] = {}
        self.n_fits = 0
        self.n_hits = 0
        self.n_replays = 0
        self.borrowed_seconds = 0.0

    def __deepcopy__(self, memo: dict[int, Any]) -> FitCache:
        return self

    def __reduce__(self) -> Any:
        raise TypeError("a FitCache is process-local and is never pickled")

    def holds_fold(self, X: Any, y: Any) -> bool:
        """Whether ``(X, y)`` is the fold's training data."""
        return _data_key(X, y) == self._data

    def reset_borrowed(self) -> None:
        """Start counting borrowed seconds afresh (before a scenario's fit)."""
        self.borrowed_seconds = 0.0

    def other_key(self, estimator: Any, X: Any, y: Any, fit_params: dict[str, Any]
                  ) -> str | None:
        """The replay key of a fit on data other than the fold's (None: not replayable)."""
        if fit_params:
            return None
        return _params_key(estimator) + _data_key(X, y)

    def replayable(self, key: str | None) -> bool:
        """Whether a fit with this key was made (and its classes recorded) before."""
        return key is not None and key in self._classes

    def record_fit(self, key: str | None, classes: np.ndarray) -> None:
        """Record that the fit ``key`` was made and learnt ``classes``."""
        if key is not None:
            self._classes[key] = np.asarray(classes)
            self._outputs.setdefault(key, {})

    def classes(self, key: str) -> np.ndarray:
        """The classes of the recorded fit ``key``."""
        self.n_replays += 1
        return self._classes[key]

    def output(self, key: str | None, method: str, X: Any) -> np.ndarray | None:
        """The recorded ``method(X)`` of the fit ``key``, or None."""
        if key is None or key not in self._outputs:
            return None
        return self._outputs[key].get((method, _data_key(X, ())))

    def record_output(self, key: str | None, method: str, X: Any, out: np.ndarray) -> None:
        """Keep ``method(X)`` of the fit ``key`` for later replays."""
        if key is not None and key in self._outputs:
            self._outputs[key][(method, _data_key(X, ()))] = np.array(out, copy=True)

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
        fitted = fit_estimator(clone(estimator), X, y, **fit_params)
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
        """Fit (or fetch the shared fit, or replay an earlier fit of) the classifier."""
        for name in ("estimator_", "_pending", "_replay_key"):
            self.__dict__.pop(name, None)
        cache = self.cache
        if cache is None:
            self.estimator_ = fit_estimator(clone(self.estimator), X, y, **fit_params)
        elif not fit_params and cache.holds_fold(X, y):
            self.estimator_ = cache.fit(self.estimator, X, y)
        else:
            key = cache.other_key(self.estimator, X, y, fit_params)
            self._replay_key = key
            if cache.replayable(key):  # answered from recorded predictions; fitted if need be
                self._pending = (X, y, fit_params)
                self.classes_ = cache.classes(key)
                return self
            self.estimator_ = fit_estimator(clone(self.estimator), X, y, **fit_params)
            cache.record_fit(key, self.estimator_.classes_)
        self.classes_ = self.estimator_.classes_
        return self

    def _fitted(self) -> Any:
        """The fitted classifier (made now if the fit was a replay)."""
        pending = self.__dict__.pop("_pending", None)
        if pending is not None:
            X, y, fit_params = pending
            self.estimator_ = fit_estimator(clone(self.estimator), X, y, **fit_params)
        return self.estimator_

    def _output(self, method: str, X: Any) -> np.ndarray:
        check_is_fitted(self)
        key = self.__dict__.get("_replay_key")
        out = None if self.cache is None else self.cache.output(key, method, X)
        if out is None:
            out = getattr(self._fitted(), method)(X)
            if self.cache is not None:
                self.cache.record_output(key, method, X, out)
        return out

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of the wrapped classifier."""
        return self._output("predict_proba", X)

    @available_if(_inner_has("decision_function"))
    def decision_function(self, X: Any) -> np.ndarray:
        """Decision function of the wrapped classifier."""
        return self._output("decision_function", X)

    def predict(self, X: Any) -> np.ndarray:
        """Class predictions of the wrapped classifier."""
        return self._output("predict", X)

    def __getattr__(self, name: str) -> Any:
        # Only fitted attributes (trailing underscore) are forwarded; a replayed
        # fit is made for real the first time one is asked for.
        if name.endswith("_") and not name.startswith("__"):
            if "_pending" in self.__dict__:
                self._fitted()
                return getattr(self, name)
            if "estimator_" in self.__dict__:
                return getattr(self.__dict__["estimator_"], name)
        raise AttributeError(name)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            inner = self.estimator.__sklearn_tags__()
            tags.input_tags = inner.input_tags
        return tags
