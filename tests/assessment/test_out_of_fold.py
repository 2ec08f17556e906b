"""Tests of the out-of-fold probabilities of the named classifiers (bayescal.assessment.out_of_fold)."""

from __future__ import annotations

import numpy as np
import pytest

from bayescal.assessment.out_of_fold import CLASSIFIERS, cross_validated_proba, make_classifier


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_every_named_classifier_is_a_fresh_pipeline_that_imputes():
    X, y = _data()
    X[::7, 1] = np.nan  # imputed inside the pipeline
    for name in CLASSIFIERS:
        first, second = make_classifier(name, 0), make_classifier(name, 0)
        assert first is not second and type(first[0]).__name__ == "SimpleImputer"
        if name != "random_forest":  # the forest's 200 trees are slow; its seed is checked
            assert first.fit(X, y).predict_proba(X).shape == (len(y), 2)
    forest = make_classifier("random_forest", 3)[-1]
    assert forest.random_state == 3 and forest.n_estimators == 200


def test_out_of_fold_probabilities_keep_a_column_for_an_absent_class():
    X, y = _data()
    proba = cross_validated_proba(X, y, ["a", "b", "c"], "naive_bayes", 3, 0)
    assert proba.shape == (len(y), 3)
    np.testing.assert_array_equal(proba[:, 2], 0.0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # out of fold: the same seed gives the same split and the same numbers
    np.testing.assert_array_equal(proba, cross_validated_proba(X, y, ["a", "b", "c"],
                                                               "naive_bayes", 3, 0))


@pytest.mark.parametrize("y, folds, match", [
    (np.zeros(60, int), 3, "single class"),
    (np.r_[np.zeros(58, int), 1, 1], 3, r"class 'b' \(code 1\) has only 2 sample"),
])
def test_out_of_fold_bad_input(y, folds, match):
    X, _ = _data()
    with pytest.raises(ValueError, match=match):
        cross_validated_proba(X, y, ["a", "b"], "naive_bayes", folds, 0)


def test_unknown_classifier_name_is_refused():
    with pytest.raises(ValueError, match=r"`name` must be one of .*'naive_bayes'.*got 'svm'"):
        make_classifier("svm", 0)
