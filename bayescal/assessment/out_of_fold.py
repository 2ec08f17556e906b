"""Out-of-fold predicted probabilities of a named scikit-learn classifier.

The classifiers of ``bayescal reliability`` (:data:`CLASSIFIERS`), each after
a median imputer fitted inside the pipeline, and their probabilities from
stratified k-fold cross-validation (:func:`cross_validated_proba`); the
bundled example predictions (:mod:`bayescal.assessment.example`) are made the
same way. scikit-learn is imported inside the functions.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CLASSIFIERS", "DEFAULT_CLASSIFIER", "cross_validated_proba", "make_classifier"]

#: Classifiers ``bayescal reliability`` can fit, by name. Each is preceded by a
#: median imputer (missing values are imputed inside the pipeline, per fold).
CLASSIFIERS = {
    "naive_bayes": "Gaussian naive Bayes (sklearn GaussianNB)",
    "random_forest": "random forest, 200 trees (sklearn RandomForestClassifier)",
    "logistic_regression": "standardised L2 logistic regression (sklearn LogisticRegression)",
}

#: Default classifier: Gaussian naive Bayes, a classic source of over-confident
#: probabilities and fast on every bundled dataset.
DEFAULT_CLASSIFIER = "naive_bayes"


def make_classifier(name: str, seed: int) -> Any:
    """A fresh scikit-learn pipeline: median imputation, then the named classifier.

    Parameters
    ----------
    name : str
        A key of :data:`CLASSIFIERS`.
    seed : int
        Seed of the random forest.

    Returns
    -------
    sklearn.pipeline.Pipeline
        Unfitted.

    Raises
    ------
    ValueError
        If ``name`` is not a key of :data:`CLASSIFIERS`.
    """
    if name not in CLASSIFIERS:
        raise ValueError(f"`name` must be one of {sorted(CLASSIFIERS)!r}; got {name!r}.")
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline

    imputer = SimpleImputer(strategy="median", keep_empty_features=True)
    if name == "naive_bayes":
        from sklearn.naive_bayes import GaussianNB

        return make_pipeline(imputer, GaussianNB())
    if name == "random_forest":
        from sklearn.ensemble import RandomForestClassifier

        return make_pipeline(
            imputer, RandomForestClassifier(n_estimators=200, random_state=seed, n_jobs=1)
        )
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(imputer, StandardScaler(), LogisticRegression(max_iter=2000))


def cross_validated_proba(
    X: Any, y: Any, class_names: list[str], classifier: str, folds: int, seed: int
) -> Any:
    """Out-of-fold class probabilities, one column per class code ``0 .. K-1``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Features (NaN: missing, imputed with the training fold's median).
    y : ndarray of shape (n,)
        Class codes ``0 .. K-1``.
    class_names : list of str
        The K class names (for messages; a class absent from ``y`` keeps
        probability 0).
    classifier : str
        A key of :data:`CLASSIFIERS`.
    folds : int
        Stratified cross-validation folds.
    seed : int
        Seed of the fold split and of the classifier.

    Returns
    -------
    ndarray of shape (n, K)

    Raises
    ------
    ValueError
        If ``y`` has a single class, or a class has fewer rows than ``folds``.
    """
    import numpy as np
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    from bayescal.threads import limit_blas_threads

    present, counts = np.unique(y, return_counts=True)
    if present.size < 2:
        raise ValueError("the dataset has a single class; nothing to calibrate.")
    if counts.min() < folds:
        rare = int(present[np.argmin(counts)])
        raise ValueError(
            f"class {class_names[rare]!r} (code {rare}) has only {counts.min()} sample(s) but "
            f"stratified {folds}-fold cross-validation needs at least {folds} per class; "
            "lower --folds or merge rare classes."
        )
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    with limit_blas_threads(1):
        proba_present = cross_val_predict(
            make_classifier(classifier, seed), X, y, cv=cv, method="predict_proba"
        )
    proba = np.zeros((y.shape[0], len(class_names)))
    proba[:, present] = proba_present  # classes absent from the data keep probability 0
    return proba
