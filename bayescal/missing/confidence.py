"""Calibration of the total uncertainty into a probability of being right.

Alasalmi (2020) §3.2, Fig. 7 (Publication II): Monte-Carlo
cross-validation collects pairs (total uncertainty ``T``, correct?) on held-out
rows, rows with similar uncertainty are grouped, and a support-vector
regression from the group's mean uncertainty to its classification rate gives
``f(T) = CR``, the probability that the predicted class is right.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.svm import SVR
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from bayescal._compat.param_validation import HasMethods, Interval, validate_params
from bayescal.missing.imputation import MultipleImputationClassifier
from bayescal.missing.rubin import total_uncertainty
from bayescal.validation import check_classification_data, check_features

__all__ = ["ConfidenceMap", "grouped_means"]


def grouped_means(keys: np.ndarray, values: np.ndarray, group_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Sort by ``keys`` and average ``keys`` and ``values`` in consecutive groups.

    The last group takes the remainder when ``len(keys)`` is not a multiple of
    ``group_size`` (it is never dropped).

    Returns
    -------
    key_means, value_means : ndarray
    """
    order = np.argsort(keys, kind="stable")
    k, v = keys[order], values[order]
    n_groups = max(len(k) // group_size, 1)
    bounds = np.linspace(0, len(k), n_groups + 1).round().astype(int)
    sizes = np.diff(bounds)
    return np.add.reduceat(k, bounds[:-1]) / sizes, np.add.reduceat(v, bounds[:-1]) / sizes


class ConfidenceMap(BaseEstimator):
    """Probability that a multiple-imputation classifier's prediction is right.

    Parameters
    ----------
    estimator : classifier
        Base classifier (e.g. ``GaussianNB()``), wrapped in a
        :class:`MultipleImputationClassifier`.
    n_imputations : int, default=10
        ``m`` imputations per fit.
    n_repeats : int, default=50
        Monte-Carlo cross-validation rounds. Each round trains on a bootstrap
        sample and collects (T, correct) on the rows left out of it.
    group_size : int, default=10
        Held-out rows of one round are sorted by ``T`` and averaged in groups of
        this size (uncertainty and 0/1 correctness), giving one regression
        point per group.
    svr : regressor, optional
        The regression from uncertainty to classification rate. Default
        ``SVR(kernel="rbf", C=1.0, epsilon=0.02)``.
    imputer : transformer, optional
        Passed to :class:`MultipleImputationClassifier`.
    reuse_imputations : bool, default=True
        Impute all rows ``m`` times once (imputation models fitted on the
        features of all rows, never on labels) and let every Monte-Carlo round
        train and predict on its rows of those imputed sets. ``False`` refits
        the imputers inside every round (the held-out rows' features then
        never inform the imputation model), ``n_repeats`` times slower.
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    classifier_ : MultipleImputationClassifier
        Fitted on all the data; used for new rows.
    regression_ : regressor
        The fitted ``f(T) = CR``.
    uncertainty_groups_, rate_groups_ : ndarray
        The grouped training pairs of the regression.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of ``X`` when fit was given a DataFrame (only then).

    Notes
    -----
    The regression's output is limited to [0, 1] when predicting (a
    regression can overshoot a probability's range; the limit is the
    documented last step of ``predict_confidence``).

    References
    ----------
    Alasalmi, Koskimäki, Suutala & Röning (2016), Instance level classification
    confidence estimation, DCAI, Springer (Publication II of Alasalmi 2020).
    """

    def __init__(
        self,
        estimator: Any,
        *,
        n_imputations: int = 10,
        n_repeats: int = 50,
        group_size: int = 10,
        svr: Any = None,
        imputer: Any = None,
        reuse_imputations: bool = True,
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.n_imputations = n_imputations
        self.n_repeats = n_repeats
        self.group_size = group_size
        self.svr = svr
        self.imputer = imputer
        self.reuse_imputations = reuse_imputations
        self.random_state = random_state

    _parameter_constraints: dict = {
        **{
            name: MultipleImputationClassifier._parameter_constraints[name]
            for name in ("estimator", "n_imputations", "imputer", "random_state")
        },
        "n_repeats": [Interval(Integral, 1, None, closed="left")],
        "group_size": [Interval(Integral, 1, None, closed="left")],
        "svr": [HasMethods(["fit", "predict"]), None],
        "reuse_imputations": ["boolean"],
    }

    def _classifier(self, seed: int) -> MultipleImputationClassifier:
        return MultipleImputationClassifier(
            self.estimator,
            n_imputations=self.n_imputations,
            imputer=self.imputer,
            random_state=seed,
        )

    def fit(self, X: Any, y: Any) -> ConfidenceMap:
        """Collect (uncertainty, correct) pairs by MCCV and fit the regression."""
        validate_params(self)
        X, _, codes = check_classification_data(
            self, X, y, allow_nan=True, min_samples=2 * self.group_size
        )
        y = np.asarray(y)
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        self.classifier_ = self._classifier(rng.randint(0, 2**31 - 1)).fit(X, y)
        self.classes_ = self.classifier_.classes_
        imputed = self.classifier_.impute(X) if self.reuse_imputations else None
        keys, rates = [], []
        for _ in range(self.n_repeats):
            boot = rng.randint(0, n, n)
            held_out = np.setdiff1d(np.arange(n), boot)
            if held_out.size == 0 or np.unique(codes[boot]).size < 2:
                continue
            seed = rng.randint(0, 2**31 - 1)
            if imputed is not None:
                clf = self.classifier_
                seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(len(imputed) + 1)]
                estimators = clf._train_on_imputed([Xl[boot] for Xl in imputed], codes[boot], seeds)
                proba = clf._predict_on_imputed(estimators, [Xl[held_out] for Xl in imputed])
            else:
                clf = self._classifier(seed).fit(X[boot], y[boot])
                proba = clf.predict_proba_per_imputation(X[held_out])
            result = total_uncertainty(proba)
            correct = (result["prediction"] == codes[held_out]).astype(float)
            k, r = grouped_means(result["total"], correct, self.group_size)
            keys.append(k)
            rates.append(r)
        if not keys:
            raise ValueError(
                "no Monte-Carlo round produced held-out rows with two training classes; "
                "increase `n_repeats` or check `y`."
            )
        self.uncertainty_groups_ = np.concatenate(keys)
        self.rate_groups_ = np.concatenate(rates)
        reg = clone(self.svr) if self.svr is not None else SVR(kernel="rbf", C=1.0, epsilon=0.02)
        self.regression_ = reg.fit(self.uncertainty_groups_[:, None], self.rate_groups_)
        return self

    def confidence_from_uncertainty(self, uncertainty: Any) -> np.ndarray:
        """Apply the fitted ``f(T) = CR`` to given uncertainties (limited to [0, 1])."""
        check_is_fitted(self, "regression_")
        t = np.asarray(uncertainty, dtype=float).reshape(-1, 1)
        return np.clip(self.regression_.predict(t), 0.0, 1.0)

    def predict(self, X: Any) -> np.ndarray:
        """Majority-vote class of the multiple-imputation classifier."""
        check_is_fitted(self, "classifier_")
        return self.classifier_.predict(check_features(self, X, reset=False, allow_nan=True))

    def predict_confidence(self, X: Any) -> np.ndarray:
        """Probability that the predicted class of each row is right."""
        check_is_fitted(self, "classifier_")
        X = check_features(self, X, reset=False, allow_nan=True)
        return self.confidence_from_uncertainty(self.classifier_.predict_uncertainty(X))
