"""Tests of bayescal.study.sharing: one classifier fit shared among scenarios."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from bayescal.study import parse_spec, run
from bayescal.study.sharing import FitCache, SharedFitClassifier


@pytest.fixture
def data():
    X, y = make_classification(n_samples=150, n_features=5, random_state=0)
    return X, y


def test_cache_shares_only_fits_on_the_fold_training_data(data):
    X, y = data
    cache = FitCache(X, y)
    a = cache.fit(GaussianNB(), X, y)
    b = cache.fit(GaussianNB(), X.copy(), y.copy())
    assert a is b and (cache.n_fits, cache.n_hits) == (1, 1)
    assert cache.borrowed_seconds > 0
    c = cache.fit(GaussianNB(var_smoothing=1e-3), X, y)  # other parameters: own fit
    assert c is not a and cache.n_fits == 2
    d = cache.fit(GaussianNB(), X[:100], y[:100])  # other data: passes through, uncached
    e = cache.fit(GaussianNB(), X[:100], y[:100])
    assert d is not e and cache.n_fits == 2 and cache.n_hits == 1
    cache.reset_borrowed()
    assert cache.borrowed_seconds == 0.0


def test_cache_is_shared_by_clones_and_never_pickled(data):
    X, y = data
    cache = FitCache(X, y)
    wrapper = SharedFitClassifier(estimator=GaussianNB(), cache=cache)
    assert clone(wrapper).cache is cache
    with pytest.raises(TypeError, match="never pickled"):
        pickle.dumps(cache)


def test_wrapper_predicts_like_the_classifier(data):
    X, y = data
    cache = FitCache(X, y)
    wrapped = SharedFitClassifier(estimator=LogisticRegression(), cache=cache).fit(X, y)
    plain = LogisticRegression().fit(X, y)
    np.testing.assert_array_equal(wrapped.predict_proba(X), plain.predict_proba(X))
    np.testing.assert_array_equal(wrapped.decision_function(X), plain.decision_function(X))
    np.testing.assert_array_equal(wrapped.predict(X), plain.predict(X))
    np.testing.assert_array_equal(wrapped.classes_, plain.classes_)
    assert not hasattr(SharedFitClassifier(estimator=GaussianNB(), cache=cache),
                       "decision_function")
    assert hasattr(SharedFitClassifier(estimator=LogisticRegression()), "decision_function")


def test_fitted_attributes_are_forwarded(data):
    X, y = data
    rf = RandomForestClassifier(n_estimators=60, oob_score=True, random_state=0)
    wrapped = SharedFitClassifier(estimator=rf, cache=FitCache(X, y)).fit(X, y)
    np.testing.assert_array_equal(wrapped.oob_decision_function_,
                                  clone(rf).fit(X, y).oob_decision_function_)
    with pytest.raises(AttributeError):
        wrapped.no_such_attribute_  # noqa: B018


def test_meta_estimator_refit_reuses_the_shared_fit(data):
    X, y = data
    cache = FitCache(X, y)
    base = SharedFitClassifier(estimator=GaussianNB(), cache=cache).fit(X, y)
    shared = CalibratedClassifierCV(SharedFitClassifier(estimator=GaussianNB(), cache=cache),
                                    method="sigmoid", cv=3, ensemble=False).fit(X, y)
    alone = CalibratedClassifierCV(GaussianNB(), method="sigmoid", cv=3,
                                   ensemble=False).fit(X, y)
    np.testing.assert_array_equal(shared.predict_proba(X), alone.predict_proba(X))
    # the final refit on all training data was the cached base fit; the CV fits were not
    assert shared.calibrated_classifiers_[0].estimator.estimator_ is base.estimator_
    assert (cache.n_fits, cache.n_hits) == (1, 1)


SHARING_SPEC = """
[study]
name = "sharing"
seed = 3

[protocol]
kind = "kfold"
n_splits = 3

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = { n_samples = 90, n_features = 4 }

[classifiers.nb]
class = "study_test_estimators.CountingNaiveBayes"

[scenarios.raw]
kind = "raw"

[scenarios.sigmoid]
kind = "wrapper"
wrapper = { class = "sklearn.calibration.CalibratedClassifierCV", params = { method = "sigmoid", cv = 2, ensemble = false } }

[scenarios.isotonic]
kind = "wrapper"
wrapper = { class = "sklearn.calibration.CalibratedClassifierCV", params = { method = "isotonic", cv = 2, ensemble = false } }
"""


def test_runner_fits_the_base_classifier_once_per_fold(tmp_path, test_estimators_on_path):
    import study_test_estimators as ste

    spec = parse_spec(SHARING_SPEC, allow_modules=[test_estimators_on_path])
    before = ste.CountingNaiveBayes.fits
    tree = run(spec, tmp_path / "store", n_jobs=1, progress=False)
    # per fold: 1 shared fit (raw + both refits) + 2 CV fits, which the second wrapper
    # (same CV splits) replays; unshared it would be 7
    assert ste.CountingNaiveBayes.fits - before == 3 * 3
    fit_s = tree["metrics"]["fit_seconds"].sel(dataset="blobs", classifier="nb")
    # a scenario that borrowed the shared fit is charged for it
    assert bool((fit_s.sel(scenario="sigmoid") >= fit_s.sel(scenario="raw") * 0.5).all())


def test_calibrated_classifier_scenarios_share_the_fit(tmp_path, test_estimators_on_path):
    import study_test_estimators as ste

    text = SHARING_SPEC[:SHARING_SPEC.index("[scenarios.sigmoid]")] + """
[scenarios.full]
kind = "full"
calibrator = { class = "bayescal.calibration.IsotonicCalibrator" }

[scenarios.cv]
kind = "cv"
calibrator = { class = "bayescal.calibration.PlattCalibrator" }
params = { cv = 2 }

[scenarios.split]
kind = "split"
calibrator = { class = "bayescal.calibration.IsotonicCalibrator" }
"""
    before = ste.CountingNaiveBayes.fits
    tree = run(parse_spec(text, allow_modules=[test_estimators_on_path]), tmp_path / "store", n_jobs=1, progress=False)
    assert tree.attrs["errors"] == "{}"
    # per fold: raw/full/cv's refit share 1 fit, cv adds 2, split fits its own: 4 (not 6)
    assert ste.CountingNaiveBayes.fits - before == 3 * 4


def test_dgg_replays_dg_fits_with_the_same_answers(data, test_estimators_on_path):
    import study_test_estimators as ste

    from bayescal.calibration.generation import generate_calibration_data

    X, y = data
    cache = FitCache(X, y)
    shared = SharedFitClassifier(estimator=ste.CountingNaiveBayes(), cache=cache)
    before = ste.CountingNaiveBayes.fits
    dg = generate_calibration_data(shared, X, y, method="dg", n_samples=600, random_state=3)
    rounds = ste.CountingNaiveBayes.fits - before
    assert rounds >= 600 / 150 and cache.n_replays == 0
    dgg = generate_calibration_data(shared, X, y, method="dgg", n_samples=600, random_state=3)
    assert ste.CountingNaiveBayes.fits - before == rounds  # DGG fitted nothing
    assert cache.n_replays == rounds
    # oracle: the same calls on the bare classifier, no cache
    plain = ste.CountingNaiveBayes()
    for got, method in ((dg, "dg"), (dgg, "dgg")):
        want = generate_calibration_data(plain, X, y, method=method, n_samples=600,
                                         random_state=3)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    # another seed draws other samples: no replay
    generate_calibration_data(shared, X, y, method="dgg", n_samples=600, random_state=4)
    assert cache.n_replays == rounds


def test_replayed_fit_is_made_when_a_fitted_attribute_is_asked_for(data):
    X, y = data
    cache = FitCache(X, y)
    first = SharedFitClassifier(estimator=GaussianNB(), cache=cache).fit(X[:90], y[:90])
    p = first.predict_proba(X[90:])
    again = SharedFitClassifier(estimator=GaussianNB(), cache=cache).fit(X[:90], y[:90])
    assert cache.n_replays == 1 and "estimator_" not in again.__dict__
    np.testing.assert_array_equal(again.predict_proba(X[90:]), p)  # replayed
    assert "estimator_" not in again.__dict__
    # rows never predicted before: the fit is made for real, same answer as a plain fit
    plain = GaussianNB().fit(X[:90], y[:90])
    np.testing.assert_array_equal(again.predict_proba(X[:10]), plain.predict_proba(X[:10]))
    np.testing.assert_array_equal(again.theta_, plain.theta_)
    np.testing.assert_array_equal(again.classes_, plain.classes_)
