"""scikit-learn's estimator checks for every public estimator outside the calibration maps.

Every public estimator (:func:`bayescal._discovery.all_estimators`) runs
through ``parametrize_with_checks`` here, with the fast settings of
:func:`bayescal._discovery.fast_instance` (Laplace and EP posteriors, few
draws), except the calibration maps of ``bayescal.calibration`` (``fit(scores,
y)``: ``tests/calibration/test_estimator_checks.py``) and the classes of
:data:`NOT_RUN_HERE`, each with its reason. Each expected failure is listed with its reason in
:data:`EXPECTED_FAILED_CHECKS`; only inherent reasons belong there. The
checks run with ``xfail_strict=True``: an expected failure that passes fails
the test, so a fixed entry is noticed and removed.

Binary calibrators (binning, calibration maps) declare 1-D input in their
tags, so scikit-learn runs only ``check_estimator_cloneable`` on them; their
conventions on 1-D scores are checked in
``tests/calibration/test_estimator_checks.py``.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks

from bayescal._discovery import all_estimators, fast_instance
from bayescal.inference.posterior import PosteriorPredictiveMixin
from bayescal.missing import MultipleImputationClassifier
from bayescal.probes import BayesianGPClassifier, BayesianLogisticRegression

FAST_MAP = {"inference": "laplace", "draws": 20, "chains": 1, "random_state": 0}

#: Estimators whose scikit-learn checks do not run here, with the reason. Every
#: other public estimator (:func:`bayescal._discovery.all_estimators`) runs them; all
#: of them meet bayescal's own contracts in ``tests/test_all_estimators.py``.
NOT_RUN_HERE: dict[str, str] = {
    "BayesianDirichletCalibrator": "slow (72 s of checks on one core) and shares "
    "DirichletCalibrator's conventions (one column per class, codes 0..K-1), whose checks "
    "run in tests/calibration/test_estimator_checks.py",
    "CalibratedClassifier": "binary: the checks' 3- and 4-class data need a reduction as "
    "`calibrator` (tested in tests/calibration/test_calibrated_classifier.py)",
    "VennAbersClassifier": "binary Venn-ABERS predictors; the checks' multi-class data "
    "are rejected with a remedy (tests/calibration/test_venn_abers.py)",
    "HypotheticalBaseModel": "inherent: X must hold the 10 covariates of the undersampling "
    "simulation (Phelps et al.); the checks draw 1-5 features",
    "HotDeckImputer": "gaps: transform does not check n_features_in_, fit lets inf through "
    "(tests/missing/test_hotdeck.py); to be fixed in bayescal.missing",
    "HierarchicalComparison": "not a predictor: fit(a, b) takes score differences",
}


def _checked_here(cls: type) -> bool:
    in_calibration_checks = (
        cls.__module__.startswith("bayescal.calibration.")
        and list(inspect.signature(cls.fit).parameters)[1] == "scores"
    )
    return cls.__name__ not in NOT_RUN_HERE and not in_calibration_checks


def _slow(cls: type) -> bool:
    """Probes whose every fit optimises a posterior of features (seconds per check)."""
    first = list(inspect.signature(cls.fit).parameters)[1]
    return issubclass(cls, PosteriorPredictiveMixin) and first == "X"


def estimators() -> list:
    """One fast instance of every estimator checked here (found, not listed)."""
    return [fast_instance(cls) for _, cls in all_estimators() if _checked_here(cls)
            and not _slow(cls)]


def slow_estimators() -> list:
    """The probes whose every fit optimises a posterior (seconds per check on one core)."""
    return [fast_instance(cls) for _, cls in all_estimators() if _checked_here(cls)
            and _slow(cls)]


def test_not_run_here_names_existing_estimators():
    names = {name for name, _ in all_estimators()}
    assert set(NOT_RUN_HERE) <= names


_PROBABILITY_INPUT = (
    "inherent: X must be a matrix of class probabilities (rows in [0, 1], one column per "
    "class or label); scikit-learn's check data are unbounded real features"
)
_REDUCTION_CHECKS = (
    "check_all_zero_sample_weights_error check_classifier_data_not_an_array "
    "check_classifiers_classes check_classifiers_one_label "
    "check_classifiers_one_label_sample_weights check_classifiers_regression_target "
    "check_classifiers_train check_dict_unchanged "
    "check_dont_overwrite_parameters check_dtype_object "
    "check_estimators_dtypes "
    "check_estimators_fit_returns_self "
    "check_estimators_nan_inf check_estimators_overwrite_params check_estimators_pickle "
    "check_f_contiguous_array_estimator check_fit2d_1sample "
    "check_fit2d_predict1d check_fit_check_is_fitted check_fit_idempotent "
    "check_fit_score_takes_y check_methods_sample_order_invariance "
    "check_methods_subset_invariance check_n_features_in check_n_features_in_after_fitting "
    "check_pipeline_consistency check_positive_only_tag_during_fit "
    "check_readonly_memmap_input check_requires_y_none "
    "check_sample_weight_equivalence_on_dense_data check_sample_weights_list "
    "check_sample_weights_not_an_array check_sample_weights_not_overwritten "
    "check_sample_weights_pandas_series check_sample_weights_shape check_supervised_y_2d"
).split()
_MISSING_VALUES = (
    "inherent: NaN marks a missing value, which these estimators exist to impute (inf is "
    "still rejected)"
)
_Y_2D = (
    "inherent: y of shape (n, 1) is rejected (ValueError naming `y`), not raveled with a "
    "DataConversionWarning: nothing is reshaped silently"
)

#: Expected failures of scikit-learn's checks, by class name, with the reason. Only
#: inherent reasons belong here; the checks run with ``xfail_strict=True``, so an entry
#: whose check passes fails the test and must be removed.
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    **{
        name: dict.fromkeys(_REDUCTION_CHECKS, _PROBABILITY_INPUT)
        for name in ("OneVsRestCalibrator", "AllPairsCalibrator")
    },
    # One column of values in [0, 3]: a single class column fails OvR/AllPairs with the
    # check's "1 feature(s)" phrase, but is a valid single label for MultiLabel.
    "MultiLabelCalibrator": dict.fromkeys(
        [*_REDUCTION_CHECKS, "check_fit2d_1feature", "check_classifier_multioutput"],
        _PROBABILITY_INPUT,
    ),
    "MultipleImputationClassifier": {
        "check_estimators_nan_inf": _MISSING_VALUES,
        "check_supervised_y_2d": _Y_2D,
    },
    "ConfidenceMap": {"check_estimators_nan_inf": _MISSING_VALUES},
    **{
        name: {"check_supervised_y_2d": _Y_2D}
        for name in ("BayesianLogisticRegression", "BayesianGPClassifier")
    },
    "BoundaryUncertaintyEstimator": {
        "check_fit_score_takes_y": "inherent: score(estimator) scores a fitted classifier "
        "against the fitted data set; it takes no X, y",
        "check_pipeline_consistency": "inherent: score(estimator) takes a classifier, so a "
        "pipeline's score(X, y) cannot be compared with it",
        "check_n_features_in_after_fitting": "inherent: the check calls score(X, y) with "
        "too few features; score takes a fitted classifier, not X (fit records "
        "n_features_in_)",
    },
}


def _expected_failed_checks(estimator) -> dict[str, str]:
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


def _run(estimator, check) -> None:
    with warnings.catch_warnings():
        # sklearn's random data carry no signal: posteriors and EP may warn. Not under test.
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


@parametrize_with_checks(
    estimators(), expected_failed_checks=_expected_failed_checks, xfail_strict=True
)
def test_sklearn_estimator_checks(estimator, check):
    _run(estimator, check)


@pytest.mark.slow
@parametrize_with_checks(
    slow_estimators(), expected_failed_checks=_expected_failed_checks, xfail_strict=True
)
def test_sklearn_estimator_checks_of_posterior_classifiers(estimator, check):
    _run(estimator, check)


def test_multiple_imputation_classifier_is_not_fitted_before_fit():
    clf = MultipleImputationClassifier(GaussianNB(), n_imputations=2)
    for method in ("predict", "predict_proba", "predict_uncertainty", "impute"):
        with pytest.raises(NotFittedError):
            getattr(clf, method)(np.zeros((2, 2)))


@pytest.mark.parametrize(
    "estimator",
    [
        BayesianLogisticRegression(**FAST_MAP),
        BayesianGPClassifier(draws=10, chains=1, random_state=0),
        MultipleImputationClassifier(GaussianNB(), n_imputations=2, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_classifiers_accept_string_labels(estimator):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    codes = (X[:, 0] + 0.3 * rng.normal(size=40) > 0).astype(int)
    labels = np.array(["no", "yes"])[codes]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fitted = estimator.fit(X, labels)
    np.testing.assert_array_equal(fitted.classes_, ["no", "yes"])
    assert set(fitted.predict(X)) <= {"no", "yes"}
    assert np.mean(fitted.predict(X) == labels) > 0.7


@pytest.mark.slow
@pytest.mark.parametrize(
    "estimator",
    [
        BayesianLogisticRegression(draws=20, tune=20, chains=1, random_state=0),
        BayesianGPClassifier(inference="sparse", n_inducing=5, draws=10, chains=1, random_state=0),
    ],
    ids=lambda e: f"{type(e).__name__}-{e.get_params()['inference']}",
)
def test_fitted_posteriors_pickle_with_equal_predictions(estimator):
    """NUTS (nutpie's compile cache) and sparse EP, beyond the Laplace/EP fits above."""
    import pickle

    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=30) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fitted = estimator.fit(X, y)
    restored = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(restored.predict_proba(X), fitted.predict_proba(X))
    np.testing.assert_array_equal(restored.predict_interval(X), fitted.predict_interval(X))
    np.testing.assert_array_equal(restored.predict(X), fitted.predict(X))
