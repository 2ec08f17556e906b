"""scikit-learn conventions for every calibrator of ``bayescal.calibration``.

Two parts:

1. ``parametrize_with_checks`` over :data:`ESTIMATORS`, with each expected
   failure listed in :data:`EXPECTED_FAILED_CHECKS` and its reason.
   scikit-learn runs only ``check_estimator_cloneable`` on estimators whose
   tags declare 1-D input (``BinaryCalibrator``: scores, not a feature matrix)
   and skips the rest with a ``SkipTestWarning``.
2. So the same conventions are checked here on 1-D scores for every binary
   calibrator in :data:`BINARY_CALIBRATORS`: params stored untouched,
   ``fit`` returns ``self``, ``NotFittedError`` before fit, pickling, idempotent
   fit, no mutation of (read-only) input, unit weights equal no weights,
   integer weights equal repeated rows, an ``(n, 2)`` probability array equals
   its second column, rows summing to one.

The calibrators are found by :func:`bayescal._discovery.all_estimators`: a
new calibrator is checked once exported. :data:`VARIANTS` adds instances of
further code paths.
"""

from __future__ import annotations

import inspect
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from bayescal._discovery import all_estimators, fast_instance
from bayescal.calibration import (
    BetaCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    LogisticGAMCalibrator,
    PlattCalibrator,
)
from bayescal.contracts import accepted_inputs

#: The calibration maps of ``bayescal.calibration``: every public estimator defined
#: there whose ``fit`` takes ``scores`` (found, not listed).
_MAPS = [
    cls
    for _, cls in all_estimators()
    if cls.__module__.startswith("bayescal.calibration.")
    and list(inspect.signature(cls.fit).parameters)[1] == "scores"
]


def _instance(cls: type):
    """The fast instance; multi-class maps read scikit-learn's unbounded data as logits."""
    est = fast_instance(cls)
    one_d = est.__sklearn_tags__().input_tags.one_d_array
    if not one_d and "decision" in accepted_inputs(est):
        est.set_params(input="decision")
    return est


#: Further instances, one per distinct code path beyond the defaults.
VARIANTS = [
    PlattCalibrator(input="logit", target_smoothing=False, clip=1e-12),
    LogisticGAMCalibrator(input="logit", criterion="ubre", clip=1e-12),
    LogisticGAMCalibrator(criterion="reml-average"),
    IsotonicCalibrator(interpolation="step"),
    HistogramBinningCalibrator(n_bins=5, strategy="quantile"),
    BetaCalibrator(parameters="am", clip=1e-12),
]

#: Every calibration map, for scikit-learn's own checks.
ESTIMATORS = [_instance(cls) for cls in _MAPS] + VARIANTS

#: Binary calibrators (1-D scores in [0, 1]).
BINARY_CALIBRATORS = [
    est for est in ESTIMATORS if est.__sklearn_tags__().input_tags.one_d_array
]

_TEMPERATURE_LABELS = (
    "TemperatureScaling's classes are the columns of X (one logit per class), so y must "
    "hold codes 0..K-1 with K = X.shape[1]; this check draws more classes than columns"
)

_MULTICLASS_SHARED = (
    "shared with TemperatureScaling: one column per class, integer codes 0..K-1, "
    "bayescal's messages"
)

#: Expected failures of scikit-learn's checks, by class name, with the reason.
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "TemperatureScaling": {
        "check_estimators_overwrite_params": _TEMPERATURE_LABELS,
        "check_estimators_fit_returns_self": _TEMPERATURE_LABELS,
        "check_readonly_memmap_input": _TEMPERATURE_LABELS,
        "check_sample_weights_pandas_series": _TEMPERATURE_LABELS,
        "check_sample_weights_not_an_array": _TEMPERATURE_LABELS,
        "check_sample_weights_shape": _TEMPERATURE_LABELS,
        "check_sample_weights_not_overwritten": _TEMPERATURE_LABELS,
        "check_classifier_data_not_an_array": _TEMPERATURE_LABELS,
        "check_classifiers_train": _TEMPERATURE_LABELS,
        "check_classifiers_classes": "labels must be integer codes 0..K-1, not strings",
        "check_dtype_object": "labels must be integer codes 0..K-1, not objects",
        "check_supervised_y_2d": "y of shape (n, 1) is rejected (ValueError), not raveled "
        "with a DataConversionWarning: nothing is reshaped silently",
        "check_fit2d_predict1d": "a 1-D X is read as binary decision values d (logits "
        "(-d, d), as scikit-learn's temperature method does), so predicting on it succeeds",
    },
}
EXPECTED_FAILED_CHECKS["DirichletCalibrator"] = {
    **{name: f"{_MULTICLASS_SHARED}: {why}"
       for name, why in EXPECTED_FAILED_CHECKS["TemperatureScaling"].items()},
    "check_sample_weight_equivalence_on_dense_data": "the check's random data (no signal, "
    "near-separable) has no finite maximum-likelihood Dirichlet map, so L-BFGS stops at "
    "tolerance-dependent points (4e-4 apart); weights equal repeated rows on data with a "
    "finite optimum in test_dirichlet.py::test_invariants",
}


def _expected_failed_checks(estimator) -> dict[str, str]:
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        # sklearn's random X and y carry no signal: TemperatureScaling warns
        # that the optimum is at infinite temperature. Not under test here.
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


# --------------------------------------------------------------------------- #
# The same conventions on 1-D scores
# --------------------------------------------------------------------------- #


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.01, 0.99, size=n)
    y = (rng.uniform(size=n) < s).astype(np.int64)
    return s, y


def _ids(est):
    return repr(est)


@pytest.mark.parametrize("estimator", BINARY_CALIBRATORS, ids=_ids)
def test_init_stores_params_and_clone_round_trips(estimator):
    params = estimator.get_params()
    assert vars(estimator) == params  # __init__ only stores its arguments
    twin = clone(estimator)
    assert twin.get_params() == params
    assert twin.set_params(**params) is twin


@pytest.mark.parametrize("estimator", BINARY_CALIBRATORS, ids=_ids)
def test_fit_returns_self_and_sets_only_trailing_underscore_attributes(estimator):
    est = clone(estimator)
    with pytest.raises(NotFittedError):
        est.predict_proba([0.5])
    with pytest.raises(NotFittedError):
        est.predict([0.5])
    s, y = _data()
    assert est.fit(s, y) is est
    new = set(vars(est)) - set(est.get_params())
    assert new and all(name.endswith("_") for name in new)
    assert est.n_features_in_ == 1
    np.testing.assert_array_equal(est.classes_, [0, 1])


@pytest.mark.parametrize("estimator", BINARY_CALIBRATORS, ids=_ids)
def test_probabilities_predict_and_two_column_input(estimator):
    s, y = _data()
    est = clone(estimator).fit(s, y)
    grid = np.linspace(0.01, 0.99, 99)
    proba = est.predict_proba(grid)
    assert proba.shape == (99, 2)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.predict(grid), (proba[:, 1] > 0.5).astype(int))
    two = np.column_stack([1 - grid, grid])
    np.testing.assert_allclose(est.predict_proba(two), proba)
    refit = clone(estimator).fit(np.column_stack([1 - s, s]), y)
    np.testing.assert_allclose(refit.predict_proba(grid), proba, atol=1e-12)


@pytest.mark.parametrize("estimator", BINARY_CALIBRATORS, ids=_ids)
def test_pickle_idempotent_fit_and_readonly_input(estimator):
    s, y = _data()
    s.setflags(write=False)
    y.setflags(write=False)
    s_copy, y_copy = s.copy(), y.copy()
    est = clone(estimator).fit(s, y)
    first = est.predict_proba(s)
    np.testing.assert_array_equal(s, s_copy)
    np.testing.assert_array_equal(y, y_copy)
    np.testing.assert_array_equal(est.fit(s, y).predict_proba(s), first)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict_proba(s), first)


@pytest.mark.parametrize("estimator", BINARY_CALIBRATORS, ids=_ids)
def test_sample_weight_conventions(estimator):
    s, y = _data(200, seed=1)
    grid = np.linspace(0.01, 0.99, 99)
    plain = clone(estimator).fit(s, y).predict_proba(grid)
    ones = clone(estimator).fit(s, y, sample_weight=np.ones(s.size)).predict_proba(grid)
    np.testing.assert_allclose(ones, plain, atol=1e-9)
    # Quantile bin edges are unweighted quantiles of the positively weighted
    # scores (documented): there, only 0/1 weights equal dropping rows.
    high = 2 if getattr(estimator, "strategy", None) == "quantile" else 4
    w = np.random.default_rng(2).integers(0, high, size=s.size)
    weighted = clone(estimator).fit(s, y, sample_weight=w).predict_proba(grid)
    repeated = clone(estimator).fit(np.repeat(s, w), np.repeat(y, w)).predict_proba(grid)
    np.testing.assert_allclose(weighted, repeated, atol=1e-6)


@pytest.mark.parametrize("estimator", BINARY_CALIBRATORS, ids=_ids)
def test_lists_and_pandas_are_accepted(estimator):
    s, y = _data(100, seed=3)
    a = clone(estimator).fit(list(s), list(y)).predict_proba(list(s))
    b = clone(estimator).fit(pd.Series(s), pd.Series(y)).predict_proba(pd.Series(s))
    np.testing.assert_allclose(a, b)
