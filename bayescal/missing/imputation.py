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
import math
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import HasMethods, Interval, StrOptions, validate_params
from bayescal.missing.rubin import total_uncertainty
from bayescal.validation import check_classification_data, check_features

__all__ = ["MonteCarloErrorWarning", "MultipleImputationClassifier", "monte_carlo_error"]

#: Imputations of the pilot run that ``n_imputations="auto"`` sizes ``m`` from.
PILOT_IMPUTATIONS = 10


class MonteCarloErrorWarning(UserWarning):
    """A pooled probability's Monte-Carlo standard error exceeds ``mc_tolerance``."""


def monte_carlo_error(layers: np.ndarray) -> np.ndarray:
    """Monte-Carlo standard error of the pooled (mean) probabilities.

    Parameters
    ----------
    layers : ndarray of shape (m, n, K)
        Class probabilities under each of ``m >= 2`` imputations.

    Returns
    -------
    ndarray of shape (n, K)
        ``sqrt(B / m)`` with ``B`` the between-imputation sample variance
        (``ddof=1``) of each probability: the standard deviation of the pooled
        mean over repeated runs with fresh imputation draws.
    """
    m = layers.shape[0]
    return np.sqrt(np.var(layers, axis=0, ddof=1) / m)


def _imputations_needed(spread: float, tolerance: float) -> int:
    """Smallest ``m`` with ``spread / sqrt(m) <= tolerance``."""
    return max(2, math.ceil((spread / tolerance) ** 2))


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
    n_imputations : int or "auto", default=10
        ``m``, the number of imputations (at least 2). ``"auto"`` sizes ``m``
        from a pilot of 10 imputations so that the Monte-Carlo standard error
        of every pooled probability stays below ``mc_tolerance`` (see Notes),
        at most ``max_imputations``.
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
    mc_tolerance : float, default=0.02
        The largest accepted Monte-Carlo standard error of a pooled
        probability (:func:`monte_carlo_error`). ``predict_proba`` warns
        (:class:`MonteCarloErrorWarning`) when a row exceeds it and says how
        many imputations would do; ``n_imputations="auto"`` chooses ``m`` to
        meet it.
    max_imputations : int, default=200
        The most imputations ``n_imputations="auto"`` may choose (it warns
        when even these leave the error above ``mc_tolerance``).

    Attributes
    ----------
    classes_ : ndarray
        Class labels.
    n_imputations_ : int
        ``m`` as used (chosen by the pilot when ``n_imputations="auto"``).
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
    calls of ``predict_proba`` on the same rows give the same draws. Within
    one call every row gets its own draws: two identical incomplete rows get
    different imputations, and their pooled probabilities differ by
    Monte-Carlo error, whose standard error ``sqrt(B / m)``
    (:func:`monte_carlo_error`, ``B`` the between-imputation variance of the
    probability) ``predict_proba_with_error`` reports. It shrinks as
    ``1 / sqrt(m)``; ``predict_proba`` warns when it exceeds
    ``mc_tolerance``, and ``n_imputations="auto"`` picks
    ``m = ceil((s / mc_tolerance)^2)`` from the largest between-imputation
    standard deviation ``s`` of a pilot of 10 imputations over the training
    rows. A test row with more missing values than any training row can need
    more; ``predict_proba`` then warns.

    With ``training="stacked"`` a row without missing values gets the same
    prediction under every imputation (one classifier), so its between
    variance is zero. With ``training="per_imputation"`` each of the ``m``
    classifiers was trained on a different imputed training set, so even a
    complete row's predictions differ between imputations: its ``B`` measures
    how much the classifier depends on the imputed training values, and is
    not zero.

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
        "n_imputations": [Interval(Integral, 2, None, closed="left"), StrOptions({"auto"})],
        "imputer": [HasMethods(["fit", "transform"]), None],
        "training": [StrOptions({"stacked", "per_imputation"})],
        "random_state": ["random_state"],
        "mc_tolerance": [Interval(Real, 0, 0.5, closed="right")],
        "max_imputations": [Interval(Integral, 2, None, closed="left")],
    }

    def __init__(
        self,
        estimator: Any,
        *,
        n_imputations: int = 10,
        imputer: Any = None,
        training: str = "stacked",
        random_state: Any = None,
        mc_tolerance: float = 0.02,
        max_imputations: int = 200,
    ) -> None:
        self.estimator = estimator
        self.n_imputations = n_imputations
        self.imputer = imputer
        self.training = training
        self.random_state = random_state
        self.mc_tolerance = mc_tolerance
        self.max_imputations = max_imputations

    def _seeds(self, n_imputations: int) -> list[int]:
        """Seeds of imputers ``0 .. n_imputations - 1`` and, last, of the classifier.

        Imputer ``l``'s seed does not depend on ``n_imputations``, so a pilot's
        imputations are the first of the final ones.
        """
        from sklearn.utils import check_random_state

        base = check_random_state(self.random_state).randint(0, 2**31 - 1)
        # the children SeedSequence(base).spawn(...) makes, child l keyed (l,)
        children = [
            np.random.SeedSequence(int(base), spawn_key=(index,)) for index in range(n_imputations)
        ]
        classifier = np.random.SeedSequence(int(base), spawn_key=(n_imputations,))
        return [int(c.generate_state(1)[0]) for c in [*children, classifier]]

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
        validate_params(self)
        X, classes, codes = check_classification_data(self, X, y, allow_nan=True)
        all_missing = np.isnan(X).all(axis=0)
        if all_missing.any():
            raise ValueError(
                f"`X` has no observed value in column(s) {np.flatnonzero(all_missing).tolist()}; "
                "drop them first: nothing can be imputed from them."
            )
        self.classes_ = classes
        template = self.imputer if self.imputer is not None else _default_imputer()
        self.imputers_, imputed = [], []
        if self.n_imputations == "auto":
            m = self._pilot(template, X, codes, imputed)
        else:
            m = int(self.n_imputations)
        seeds = self._seeds(m)
        self._add_imputations(template, X, seeds[len(self.imputers_) : m], imputed)
        self.n_imputations_ = m
        self.estimators_ = self._train_on_imputed(imputed, codes, seeds)
        return self

    def _add_imputations(
        self, template: Any, X: np.ndarray, seeds: list[int], imputed: list[np.ndarray]
    ) -> None:
        for seed in seeds:
            imp = clone(template)
            if "random_state" in imp.get_params():
                imp.set_params(random_state=seed)
            imputed.append(imp.fit_transform(X))
            self.imputers_.append(imp)

    def _pilot(
        self, template: Any, X: np.ndarray, codes: np.ndarray, imputed: list[np.ndarray]
    ) -> int:
        """``m`` for ``n_imputations="auto"`` from a pilot of :data:`PILOT_IMPUTATIONS`."""
        seeds = self._seeds(PILOT_IMPUTATIONS)
        self._add_imputations(template, X, seeds[:-1], imputed)
        estimators = self._train_on_imputed(imputed, codes, seeds)
        layers = self._predict_on_imputed(estimators, imputed)
        spread = float(np.sqrt(np.var(layers, axis=0, ddof=1).max()))
        needed = _imputations_needed(spread, self.mc_tolerance)
        if needed > self.max_imputations:
            warnings.warn(
                f"n_imputations='auto': a Monte-Carlo standard error of at most "
                f"mc_tolerance={self.mc_tolerance} needs about {needed} imputations (the pilot's "
                f"largest between-imputation standard deviation is {spread:.3g}), more than "
                f"max_imputations={self.max_imputations}; using {self.max_imputations}. Raise "
                "max_imputations or mc_tolerance.",
                MonteCarloErrorWarning,
                stacklevel=3,
            )
        return int(min(max(needed, PILOT_IMPUTATIONS), self.max_imputations))

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
        """Pooled (mean) class probabilities over the ``m`` imputations.

        Warns (:class:`MonteCarloErrorWarning`) when the Monte-Carlo standard
        error of a pooled probability exceeds ``mc_tolerance``; the errors
        themselves come from :meth:`predict_proba_with_error`.
        """
        return self.predict_proba_with_error(X)[0]

    def predict_proba_with_error(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Pooled class probabilities and their Monte-Carlo standard errors.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Features with NaN where missing.

        Returns
        -------
        proba : ndarray of shape (n, K)
            Mean over the ``m`` imputations.
        mc_error : ndarray of shape (n, K)
            ``sqrt(B / m)`` (:func:`monte_carlo_error`): rows that are the
            same, imputed afresh, get pooled probabilities within a few of
            these of each other.
        """
        layers = self.predict_proba_per_imputation(X)
        mc_error = monte_carlo_error(layers)
        worst = mc_error.max(axis=1)
        over = worst > self.mc_tolerance
        if over.any():
            m = layers.shape[0]
            needed = _imputations_needed(float(worst.max()) * math.sqrt(m), self.mc_tolerance)
            warnings.warn(
                f"{int(over.sum())} of {len(worst)} pooled predictions have a Monte-Carlo "
                f"standard error above mc_tolerance={self.mc_tolerance} (largest "
                f"{float(worst.max()):.3g} with m={m} imputations): identical rows may get "
                f"pooled probabilities that differ by that much. About {needed} imputations "
                "would meet the tolerance; use n_imputations='auto' or a larger n_imputations.",
                MonteCarloErrorWarning,
                stacklevel=2,
            )
        return layers.mean(axis=0), mc_error

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
