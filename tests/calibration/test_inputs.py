"""The one ``input`` vocabulary: decision values (issue 11, defect 3).

Before issue 11 every binary calibrator rejected SVC decision values with
"`scores` must be >= 0.0". Calibrators whose method only uses the order of the
scores must give the same map on decision values as on any increasing
transform of them into [0, 1]; the logistic-family ones regress on the value.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC

from bayescal._discovery import all_estimators, fast_instance
from bayescal.calibration import (
    BetaCalibrator,
    ENIRCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    TemperatureScaling,
    VennAbersCalibrator,
)
from bayescal.calibration.base import BinaryCalibrator
from bayescal.contracts import accepted_inputs
from bayescal.probes import ABBCalibrator, BBQCalibrator, SBBCalibrator


def _svc_decisions(seed=0, n=300):
    X, y = make_classification(n_samples=n, n_features=5, random_state=seed)
    d = SVC().fit(X[: n // 2], y[: n // 2]).decision_function(X[n // 2 :])
    return d, y[n // 2 :]


#: Every public binary calibrator that reads decision values (found, not listed).
DECISION_CALIBRATORS = [
    fast_instance(cls).set_params(input="decision")
    for _, cls in all_estimators()
    if issubclass(cls, BinaryCalibrator) and "decision" in accepted_inputs(cls)
]

#: Maps that use only the order of the scores (a property of the method).
ORDER_BASED = (IsotonicCalibrator, ENIRCalibrator, VennAbersCalibrator, BBQCalibrator,
               SBBCalibrator, ABBCalibrator)


@pytest.mark.parametrize("cal", DECISION_CALIBRATORS, ids=lambda c: type(c).__name__)
def test_svc_decision_values_are_calibrated(cal):
    d, y = _svc_decisions()
    assert d.min() < 0 < d.max()
    proba = cal.fit(d, y).predict_proba(d)
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)
    assert np.corrcoef(proba[:, 1], y)[0, 1] > 0.5


@pytest.mark.parametrize(
    "cal",
    [c for c in DECISION_CALIBRATORS if isinstance(c, ORDER_BASED)],
    ids=lambda c: type(c).__name__,
)
def test_order_based_maps_equal_on_an_increasing_transform(cal):
    d, y = _svc_decisions(1)
    on_decision = cal.fit(d, y).predict_proba(d)
    as_score = cal.set_params(input="score").fit(expit(d), y).predict_proba(expit(d))
    np.testing.assert_allclose(on_decision, as_score, atol=1e-12)


def test_platt_on_decision_values_equals_logistic_regression_on_them():
    d, y = _svc_decisions(2)
    ours = PlattCalibrator(input="decision", target_smoothing=False).fit(d, y)
    ref = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(d[:, None], y)
    np.testing.assert_allclose(ours.predict_proba(d), ref.predict_proba(d[:, None]), atol=1e-6)


def test_histogram_bins_decision_values_over_the_observed_range():
    d, y = _svc_decisions(3)
    cal = HistogramBinningCalibrator(input="decision", n_bins=4).fit(d, y)
    np.testing.assert_allclose(cal.bin_edges_[[0, -1]], [d.min(), d.max()])
    beyond = cal.predict_proba([d.min() - 5, d.max() + 5])[:, 1]
    np.testing.assert_allclose(beyond, cal.bin_values_[[0, -1]])


def test_binary_temperature_on_decision_values_is_platt_without_intercept():
    d, y = _svc_decisions(4)
    ts = TemperatureScaling(input="decision").fit(d, y)
    ref = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(2 * d[:, None], y)
    np.testing.assert_allclose(1 / ts.temperature_, ref.coef_[0, 0], rtol=1e-5)


@pytest.mark.parametrize(
    ("cal", "match"),
    [
        (BetaCalibrator(), "Beta calibration needs probabilities.*input='decision'"),
        (PlattCalibrator(), "input='decision'"),
        (IsotonicCalibrator(), "input='decision'"),
        (HistogramBinningCalibrator(input="decision", empty_bin="center"), "empty_bin"),
    ],
    ids=lambda c: type(c).__name__ if not isinstance(c, str) else "",
)
def test_decision_values_without_decision_input_name_the_remedy(cal, match):
    d, y = _svc_decisions(5)
    with pytest.raises(ValueError, match=match):
        cal.fit(d, y)


@pytest.mark.parametrize(
    ("cal", "match"),
    [
        (IsotonicCalibrator(input="logit"), "input"),
        (PlattCalibrator(input="logits"), "input"),
        (TemperatureScaling(input="probabilities"), "input"),
    ],
    ids=repr,
)
def test_unknown_or_unsupported_input_is_rejected(cal, match):
    with pytest.raises(ValueError, match=match):
        cal.fit(np.array([0.1, 0.4, 0.6, 0.9]), np.array([0, 1, 0, 1]))
