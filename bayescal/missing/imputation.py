"""Classification of incomplete data by multiple imputation.

Alasalmi (2020) §2.2.3 and §3.2 (Publication I): the
missing feature values are imputed ``m`` times with draws from the imputation
model's predictive distribution, the classifier is trained on the imputed data
(``stacked``: one classifier on the ``m`` stacked training sets, Belanche,
Kobayashi & Aluja 2014; ``per_imputation``: one classifier per imputed set),
and every test row is imputed and predicted ``m`` times. The ``m`` predictions
give the majority vote, the pooled probability and the total uncertainty ``T``
(Rubin's rules with a 0/1-loss between variance).
"""

from __future__ import annotations

import copy
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from bayescal.missing.rubin import total_uncertainty
from bayescal.validation import check_classification_data, check_features

__all__ = ["MultipleImputationClassifier"]


def _default_imputer() -> Any:
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401
    from sklearn.impute import IterativeImputer

    return IterativeImputer(sample_posterior=True, max_iter=10)


class MultipleImputationClassifier(ClassifierMixin, BaseEstimator):
    """Classifier for incomplete data by multiple imputation.

    Parameters
    ----------
    estimator : classifier
        Any scikit-learn classifier with ``predict_proba``; cloned per fit.
    n_imputations : int, default=10
        ``m``, the number of imputations (at least 2).
    imputer : transformer, optional
        An imputer that draws from its predictive distribution and takes a
        ``random_state`` parameter. Default: scikit-learn's
        ``IterativeImputer(sample_posterior=True)`` (Bayesian ridge chained
        equations). A deterministic imputer (e.g. ``SimpleImputer``) gives
        ``m`` identical imputations and so ``B = 0``: single imputation.
    training : {"stacked", "per_imputation"}, default="stacked"
        ``stacked`` trains one classifier on the ``m`` stacked imputed
        training sets (Belanche et al. 2014, found more effective there);
        ``per_imputation`` trains ``m`` classifiers and predicts the ``l``-th
        test imputation with the ``l``-th classifier.
    random_state : int, RandomState or None, default=None
        Seeds the ``m`` imputers (imputer ``l`` gets seed ``l`` of a
        ``SeedSequence`` spawned from it) and the classifier where it takes a
        ``random_state``.

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    imputers_ : list
        The ``m`` fitted imputers.
    estimators_ : list
        One classifier (``stacked``) or ``m`` classifiers.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of ``X`` when fit was given a DataFrame (only then).

    Notes
    -----
    Test rows are imputed with a copy of each fitted imputer, so repeated
    calls of ``predict_proba`` on the same rows give the same draws. Rows
    without missing values get the same prediction under every imputation, so
    their between variance is zero.

    References
    ----------
    Belanche, Kobayashi & Aluja (2014), Handling missing values in kernel
    methods with application to microbiology data, Neurocomputing 141.
    Alasalmi, Koskimäki, Suutala & Röning (2015), Classification uncertainty
    of multiple imputed data, IEEE SSCI.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from bayescal.datasets import load_dataset, add_missing
    >>> data = load_dataset("iris")
    >>> X = add_missing(data.X, 0.3, random_state=0)
    >>> clf = MultipleImputationClassifier(GaussianNB(), n_imputations=3, random_state=0)
    >>> T = clf.fit(X, data.y).predict_uncertainty(X)
    >>> bool(((T >= 0) & (T <= 1)).all())
    True
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"])],
        "n_imputations": [Interval(Integral, 2, None, closed="left")],
        "imputer": [HasMethods(["fit", "transform"]), None],
        "training": [StrOptions({"stacked", "per_imputation"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator: Any,
        *,
        n_imputations: int = 10,
        imputer: Any = None,
        training: str = "stacked",
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.n_imputations = n_imputations
        self.imputer = imputer
        self.training = training
        self.random_state = random_state

    def _seeds(self) -> list[int]:
        from sklearn.utils import check_random_state

        base = check_random_state(self.random_state).randint(0, 2**31 - 1)
        children = np.random.SeedSequence(int(base)).spawn(self.n_imputations + 1)
        return [int(c.generate_state(1)[0]) for c in children]

    def __sklearn_tags__(self):  # noqa: D105
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN marks a missing value, which it imputes
        return tags

    def fit(self, X: Any, y: Any) -> MultipleImputationClassifier:
        """Impute the training data ``m`` times and train the classifier(s).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Features; NaN marks a missing value.
        y : array-like of shape (n,)
            Class labels.

        Returns
        -------
        self
        """
        self._validate_params()
        X, classes, codes = check_classification_data(self, X, y, allow_nan=True)
        all_missing = np.isnan(X).all(axis=0)
        if all_missing.any():
            raise ValueError(
                f"`X` has no observed value in column(s) {np.flatnonzero(all_missing).tolist()}; "
                "drop them first: nothing can be imputed from them."
            )
        self.classes_ = classes
        seeds = self._seeds()
        template = self.imputer if self.imputer is not None else _default_imputer()
        self.imputers_, imputed = [], []
        for seed in seeds[:-1]:
            imp = clone(template)
            if "random_state" in imp.get_params():
                imp.set_params(random_state=seed)
            imputed.append(imp.fit_transform(X))
            self.imputers_.append(imp)
        self.estimators_ = self._train_on_imputed(imputed, codes, seeds)
        return self

    def impute(self, X: Any) -> list[np.ndarray]:
        """The ``m`` imputed copies of ``X`` made by the fitted imputers.

        Each call uses a copy of each imputer, so the same rows get the same
        draws every time.
        """
        check_is_fitted(self, "imputers_")
        X = check_features(self, X, reset=False, allow_nan=True)
        return [copy.deepcopy(imputer).transform(X) for imputer in self.imputers_]

    def _train_on_imputed(self, imputed: list[np.ndarray], codes: np.ndarray, seeds: list[int]) -> list:
        """Train the classifier(s) on ``m`` imputed training sets (``seeds``: m + 1)."""
        if self.training == "stacked":
            est = self._seeded_clone(seeds[-1])
            est.fit(np.vstack(imputed), np.tile(codes, len(imputed)))
            return [est]
        return [
            self._seeded_clone(s).fit(Xl, codes) for s, Xl in zip(seeds[:-1], imputed, strict=True)
        ]

    def _predict_on_imputed(self, estimators: list, imputed: list[np.ndarray]) -> np.ndarray:
        """``(m, n, K)`` probabilities of ``estimators`` on ``m`` imputed test sets."""
        layers = []
        for index, X_imp in enumerate(imputed):
            est = estimators[0 if self.training == "stacked" else index]
            proba = np.zeros((X_imp.shape[0], self._n_classes()))
            proba[:, est.classes_] = est.predict_proba(X_imp)
            layers.append(proba)
        return np.stack(layers)

    def _seeded_clone(self, seed: int) -> Any:
        est = clone(self.estimator)
        if "random_state" in est.get_params():
            est.set_params(random_state=seed)
        return est

    def _n_classes(self) -> int:
        return len(self.classes_)

    def predict_proba_per_imputation(self, X: Any) -> np.ndarray:
        """Class probabilities under each of the ``m`` test imputations.

        Returns
        -------
        ndarray of shape (m, n, K)
        """
        check_is_fitted(self, "estimators_")
        return self._predict_on_imputed(self.estimators_, self.impute(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Pooled (mean) class probabilities over the ``m`` imputations."""
        return self.predict_proba_per_imputation(X).mean(axis=0)

    def predict(self, X: Any) -> np.ndarray:
        """Majority vote of the ``m`` predictions (ties: larger pooled probability)."""
        result = total_uncertainty(self.predict_proba_per_imputation(X))
        return self.classes_[result["prediction"]]

    def predict_uncertainty(self, X: Any, *, scaled: bool = True) -> np.ndarray:
        """Total uncertainty ``T = Ū + (1 + 1/m) B`` of each prediction.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Features with NaN where missing.
        scaled : bool, default=True
            Return ``T`` scaled from ``[0, (2m+1)/m]`` to ``[0, 1]``.

        Returns
        -------
        ndarray of shape (n,)
        """
        return total_uncertainty(self.predict_proba_per_imputation(X), scaled=scaled)["total"]
