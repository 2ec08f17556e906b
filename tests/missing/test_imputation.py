"""Tests of the multiple-imputation classifier and the confidence map."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.impute import IterativeImputer, SimpleImputer
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.naive_bayes import GaussianNB

from bayescal.datasets import add_missing, load_dataset
from bayescal.missing import ConfidenceMap, MultipleImputationClassifier, grouped_means

# Fewer chained-equation rounds than the default keep the suite fast; the
# default imputer is exercised by the reproducibility test.
FAST_IMPUTER = IterativeImputer(sample_posterior=True, max_iter=3)


@pytest.fixture(scope="module")
def iris_missing():
    data = load_dataset("iris")
    return add_missing(data.X, 0.5, mechanism="mcar", random_state=0), data.y


def test_predictions_are_reproducible_and_pooled(iris_missing):
    X, y = iris_missing
    clf = MultipleImputationClassifier(GaussianNB(), n_imputations=4, random_state=1).fit(X, y)
    layers = clf.predict_proba_per_imputation(X)
    assert layers.shape == (4, len(y), 3)
    np.testing.assert_allclose(clf.predict_proba(X), layers.mean(axis=0))
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    again = MultipleImputationClassifier(GaussianNB(), n_imputations=4, random_state=1).fit(X, y)
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    np.testing.assert_array_equal(clf.predict_proba(X), clf.predict_proba(X))


def test_complete_rows_have_no_between_variance(iris_missing):
    X, y = iris_missing
    clf = MultipleImputationClassifier(
        GaussianNB(), n_imputations=5, imputer=FAST_IMPUTER, random_state=0
    ).fit(X, y)
    complete = ~np.isnan(X).any(axis=1)
    layers = clf.predict_proba_per_imputation(X[complete])
    np.testing.assert_allclose(layers, np.broadcast_to(layers[0], layers.shape))


@pytest.mark.parametrize("training", ["stacked", "per_imputation"])
def test_classification_rate_falls_as_uncertainty_rises(training):
    """Seed 000 Fig. 6: with 50 % MCAR, rows with larger T are classified worse."""
    data = load_dataset("wine")
    X = add_missing(data.X, 0.5, mechanism="mcar", random_state=3)
    rates_low, rates_high = [], []
    splitter = StratifiedShuffleSplit(n_splits=3, test_size=0.5, random_state=0)
    for train, test in splitter.split(X, data.y):
        clf = MultipleImputationClassifier(
            GaussianNB(), n_imputations=5, imputer=FAST_IMPUTER, training=training, random_state=0
        ).fit(X[train], data.y[train])
        T = clf.predict_uncertainty(X[test])
        correct = clf.predict(X[test]) == data.y[test]
        low, high = T <= np.quantile(T, 1 / 3), T >= np.quantile(T, 2 / 3)
        rates_low.append(correct[low].mean())
        rates_high.append(correct[high].mean())
    assert np.mean(rates_low) > np.mean(rates_high) + 0.1


def test_single_imputation_is_overconfident(iris_missing):
    """Single imputation gives lower uncertainty than multiple imputation on the same rows."""
    X, y = iris_missing
    incomplete = np.isnan(X).any(axis=1)
    multi = MultipleImputationClassifier(
        GaussianNB(), n_imputations=10, imputer=FAST_IMPUTER, random_state=0
    ).fit(X, y)
    single = MultipleImputationClassifier(
        GaussianNB(), n_imputations=10, imputer=SimpleImputer(), random_state=0
    ).fit(X, y)
    t_multi = multi.predict_uncertainty(X[incomplete])
    t_single = single.predict_uncertainty(X[incomplete])
    assert t_single.mean() < t_multi.mean()
    # deterministic imputation: every layer is the same, so B = 0 everywhere
    layers = single.predict_proba_per_imputation(X[incomplete])
    np.testing.assert_allclose(layers, np.broadcast_to(layers[0], layers.shape))


def test_grouped_means_keeps_every_row():
    keys = np.array([0.5, 0.1, 0.3, 0.2, 0.4])
    values = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    k, v = grouped_means(keys, values, 2)
    np.testing.assert_allclose(k, [0.15, 0.4])  # groups [0.1, 0.2] and [0.3, 0.4, 0.5]
    np.testing.assert_allclose(v, [0.0, 1.0])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["iris", "wine"])
def test_confidence_map_predicts_classification_rate(name):
    """Publication II, Table 2: true vs predicted classification rate is near the diagonal."""
    data = load_dataset(name)
    X = add_missing(data.X, 0.5, mechanism="mcar", random_state=11)
    predicted, correct = [], []
    splitter = StratifiedShuffleSplit(n_splits=5, test_size=0.3, random_state=1)
    for i, (train, test) in enumerate(splitter.split(X, data.y)):
        cmap = ConfidenceMap(
            GaussianNB(), n_imputations=5, n_repeats=30, group_size=10, imputer=FAST_IMPUTER,
            random_state=i,
        ).fit(X[train], data.y[train])
        predicted.append(cmap.predict_confidence(X[test]))
        correct.append(cmap.predict(X[test]) == data.y[test])
    pred_groups, rate_groups = grouped_means(
        np.concatenate(predicted), np.concatenate(correct).astype(float), 25
    )
    slope, intercept = np.polyfit(pred_groups, rate_groups, 1)
    assert abs(slope - 1) < 0.2, (slope, intercept)
    assert abs(intercept) < 0.15, (slope, intercept)


@pytest.mark.parametrize(
    ("kwargs", "fit_args", "error", "match"),
    [
        ({"n_imputations": 1}, None, ValueError,
         "'n_imputations' parameter of MultipleImputationClassifier must be an int in the range "
         r"\[2, inf\) or a str among \{'auto'\}\. Got 1 instead"),
        ({"mc_tolerance": 0.0}, None, ValueError, r"'mc_tolerance' parameter.*\(0\.0, 0\.5\]"),
        ({"max_imputations": 1}, None, ValueError, "'max_imputations' parameter"),
        ({"imputer": "mice"}, None, TypeError, "'imputer' parameter"),
        ({"random_state": "seed"}, None, ValueError, "'random_state' parameter"),
        ({"training": "bagged"}, None, ValueError, "'training' parameter.*Got 'bagged' instead"),
        ({}, "all_missing_column", ValueError, r"no observed value in column\(s\) \[1\]"),
        ({}, "inf", ValueError, "`X` contains inf"),
        ({}, "one_class", ValueError, "single class"),
    ],
)
def test_bad_input(kwargs, fit_args, error, match):
    X = np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 1.0], [4.0, 0.5]])
    y = np.array([0, 0, 1, 1])
    if fit_args == "all_missing_column":
        X[:, 1] = np.nan
    elif fit_args == "inf":
        X[0, 0] = np.inf
    elif fit_args == "one_class":
        y = np.zeros(4, int)
    with pytest.raises(error, match=match):
        MultipleImputationClassifier(GaussianNB(), **kwargs).fit(X, y)


def test_estimator_without_predict_proba_is_refused():
    from sklearn.svm import LinearSVC

    with pytest.raises(TypeError, match="predict_proba"):
        MultipleImputationClassifier(LinearSVC()).fit(np.eye(4), [0, 1, 0, 1])


def test_confidence_map_reuse_and_refit_agree_in_kind():
    """Both ways of running the Monte-Carlo rounds give a decreasing f(T) = CR."""
    data = load_dataset("iris")
    X = add_missing(data.X, 0.5, mechanism="mcar", random_state=5)
    for reuse in (True, False):
        cmap = ConfidenceMap(
            GaussianNB(), n_imputations=3, n_repeats=4, group_size=10, imputer=FAST_IMPUTER,
            reuse_imputations=reuse, random_state=0,
        ).fit(X, data.y)
        conf = cmap.confidence_from_uncertainty([0.05, 0.6])
        assert conf[0] > conf[1]
        assert np.all((conf >= 0) & (conf <= 1))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_repeats": 0}, ValueError, "'n_repeats' parameter of ConfidenceMap.*Got 0 instead"),
        ({"group_size": 1.5}, TypeError, "'group_size' parameter"),
        ({"svr": "rbf"}, TypeError, "'svr' parameter of ConfidenceMap must be .*'fit'"),
        ({"reuse_imputations": "yes"}, ValueError, "'reuse_imputations' parameter"),
        ({"n_imputations": 1}, ValueError, "'n_imputations' parameter of ConfidenceMap"),
    ],
)
def test_confidence_map_bad_parameters(kwargs, error, match):
    X = np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 1.0], [4.0, 0.5]] * 10)
    y = np.array([0, 0, 1, 1] * 10)
    with pytest.raises(error, match=match):
        ConfidenceMap(GaussianNB(), **kwargs).fit(X, y)


# -- Monte-Carlo error of the pooled probabilities (issue 27) -----------------


def test_monte_carlo_error_is_the_standard_error_of_the_mean():
    from bayescal.missing import monte_carlo_error

    layers = np.array([[[0.2, 0.8]], [[0.4, 0.6]], [[0.9, 0.1]]])  # m = 3, one row
    var = np.var([0.2, 0.4, 0.9], ddof=1)
    np.testing.assert_allclose(monte_carlo_error(layers), [[np.sqrt(var / 3)] * 2])


def test_identical_rows_agree_within_the_reported_monte_carlo_error(iris_missing):
    from bayescal.missing import MonteCarloErrorWarning

    X, y = iris_missing
    clf = MultipleImputationClassifier(
        GaussianNB(), n_imputations=6, imputer=FAST_IMPUTER, random_state=0
    ).fit(X, y)
    copies = np.tile([[np.nan, 3.0, np.nan, np.nan]], (30, 1))  # 30 identical incomplete rows
    with pytest.warns(MonteCarloErrorWarning, match=r"About \d+ imputations"):
        proba, error = clf.predict_proba_with_error(np.vstack([X, copies]))
    proba, error = proba[len(y):], error[len(y):]
    assert np.ptp(proba, axis=0).max() > 0.05  # the draws differ row by row ...
    # ... and the reported error is the spread of the pooled value over rows
    spread = proba.std(axis=0, ddof=1)
    reported = np.sqrt(np.mean(error**2, axis=0))
    assert np.all((spread > 0.5 * reported) & (spread < 2.0 * reported))
    assert np.all(np.abs(proba - proba.mean(axis=0)) <= 4.5 * reported)


def test_no_warning_when_the_error_is_within_tolerance(iris_missing, recwarn):
    X, y = iris_missing
    clf = MultipleImputationClassifier(
        GaussianNB(), n_imputations=3, imputer=FAST_IMPUTER, random_state=0
    ).fit(X, y)
    complete = X[~np.isnan(X).any(axis=1)]
    proba, error = clf.predict_proba_with_error(complete)  # stacked: B = 0 on complete rows
    assert error.max() < 1e-12
    assert not [w for w in recwarn.list if "Monte-Carlo" in str(w.message)]


def test_auto_chooses_enough_imputations_for_the_tolerance(iris_missing):
    X, y = iris_missing
    fitted = {}
    for tolerance in (0.12, 0.06):
        clf = MultipleImputationClassifier(
            GaussianNB(), n_imputations="auto", imputer=FAST_IMPUTER, mc_tolerance=tolerance,
            random_state=0,
        ).fit(X, y)
        assert len(clf.imputers_) == clf.n_imputations_ >= 10
        _, error = clf.predict_proba_with_error(X)  # fresh draws of the training rows
        assert error.max() <= 1.3 * tolerance
        fitted[tolerance] = clf.n_imputations_
    # m grows as 1 / tolerance^2: half the tolerance, four times the imputations
    assert 3.0 <= fitted[0.06] / fitted[0.12] <= 5.0


def test_auto_warns_when_max_imputations_is_too_few(iris_missing):
    from bayescal.missing import MonteCarloErrorWarning

    X, y = iris_missing
    with pytest.warns(MonteCarloErrorWarning, match="max_imputations=12"):
        clf = MultipleImputationClassifier(
            GaussianNB(), n_imputations="auto", imputer=FAST_IMPUTER, mc_tolerance=0.001,
            max_imputations=12, random_state=0,
        ).fit(X, y)
    assert clf.n_imputations_ == 12


def test_regression_guard_integer_m_keeps_its_seeds():
    # imputer l and the classifier get the children of SeedSequence(base).spawn(m + 1)
    clf = MultipleImputationClassifier(GaussianNB(), n_imputations=4, random_state=3)
    base = np.random.RandomState(3).randint(0, 2**31 - 1)
    spawned = np.random.SeedSequence(int(base)).spawn(5)
    assert clf._seeds(4) == [int(c.generate_state(1)[0]) for c in spawned]


def test_per_imputation_complete_rows_do_vary(iris_missing):
    """The Notes: B > 0 on complete rows with per_imputation (m classifiers)."""
    X, y = iris_missing
    clf = MultipleImputationClassifier(
        GaussianNB(), n_imputations=4, imputer=FAST_IMPUTER, training="per_imputation",
        random_state=0,
    ).fit(X, y)
    complete = ~np.isnan(X).any(axis=1)
    layers = clf.predict_proba_per_imputation(X[complete])
    assert np.var(layers, axis=0, ddof=1).max() > 1e-4
