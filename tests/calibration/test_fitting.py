"""Tests of the lean random-forest fit: the forest scikit-learn's fit makes, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from bayescal.calibration import _fitting
from bayescal.calibration._fitting import fit_estimator


def _same_tree(a, b):
    sa, sb = a.tree_.__getstate__(), b.tree_.__getstate__()
    assert sa.keys() == sb.keys()
    for key in sa:
        np.testing.assert_array_equal(sa[key], sb[key], err_msg=key)
    assert vars(a).keys() == vars(b).keys()
    for key, value in vars(a).items():
        if key != "tree_":
            np.testing.assert_array_equal(value, vars(b)[key], err_msg=key)
            assert type(value) is type(vars(b)[key]), key


def _same_forest(fast, slow, X):
    assert vars(fast).keys() == vars(slow).keys()
    for key, value in vars(fast).items():
        if key == "estimators_":
            assert len(value) == len(slow.estimators_)
            for a, b in zip(value, slow.estimators_, strict=True):
                _same_tree(a, b)
        elif key in ("estimator_", "estimator"):
            assert value.get_params() == vars(slow)[key].get_params()
        elif isinstance(value, np.random.RandomState):  # consumed alike
            for a, b in zip(value.get_state(), vars(slow)[key].get_state(), strict=True):
                np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_array_equal(value, vars(slow)[key], err_msg=key)
    np.testing.assert_array_equal(fast.predict_proba(X), slow.predict_proba(X))


@pytest.mark.parametrize("params", [
    {},
    {"oob_score": True},
    {"max_depth": 3, "min_samples_leaf": 3, "criterion": "entropy"},
    {"max_features": 0.5, "min_samples_split": 5, "max_samples": 0.7},
    {"max_features": None, "min_impurity_decrease": 0.01, "criterion": "log_loss"},
    {"max_features": "log2", "oob_score": True, "max_samples": 40},
    {"max_features": 2},
])
def test_forest_fit_is_scikit_learns_bit_for_bit(params):
    X, y = make_classification(n_samples=90, n_features=6, random_state=1)
    labels = np.array(["no", "yes"])[y]  # string labels: classes_ and encoding
    slow = RandomForestClassifier(n_estimators=25, random_state=3, **params).fit(X, labels)
    fast = fit_estimator(RandomForestClassifier(n_estimators=25, random_state=3, **params),
                         X, labels)
    _same_forest(fast, slow, X)


def test_forest_fit_multiclass_and_random_state_object():
    X, y = load_iris(return_X_y=True)
    slow = RandomForestClassifier(n_estimators=20, oob_score=True,
                                  random_state=np.random.RandomState(5)).fit(X, y)
    fast = fit_estimator(RandomForestClassifier(
        n_estimators=20, oob_score=True, random_state=np.random.RandomState(5)), X, y)
    _same_forest(fast, slow, X)


def test_lean_path_is_taken_only_for_a_plain_forest(monkeypatch):
    calls = []
    lean = _fitting._fit_forest
    monkeypatch.setattr(_fitting, "_fit_forest", lambda *a: calls.append(1) or lean(*a))
    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    fit_estimator(RandomForestClassifier(n_estimators=3, random_state=0), X, y)
    assert calls == [1]
    assert _fitting._plain_forest(RandomForestClassifier())
    for params in ({"class_weight": "balanced"}, {"warm_start": True}, {"bootstrap": False},
                   {"max_leaf_nodes": 5}, {"ccp_alpha": 0.01},
                   {"estimator": DecisionTreeClassifier(splitter="random")}):
        forest = RandomForestClassifier()
        forest.set_params(**params) if "estimator" not in params else setattr(
            forest, "estimator", params["estimator"])
        assert not _fitting._plain_forest(forest), params


def test_missing_private_pieces_fall_back_to_the_forests_own_fit(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "sklearn.tree._classes", None)  # import fails
    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    forest = RandomForestClassifier(n_estimators=3, random_state=0)
    assert _fitting._fit_forest(forest, X, y) is None
    fitted = fit_estimator(forest, X, y)
    slow = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(fitted.predict_proba(X), slow.predict_proba(X))


@pytest.mark.parametrize("case", ["nan", "class_weight", "sample_weight", "subclass"])
def test_other_cases_fall_back_to_the_forests_own_fit(case):
    X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    kwargs, fit_params, cls = {}, {}, RandomForestClassifier
    if case == "nan":
        X = X.copy()
        X[::7, 1] = np.nan
    elif case == "class_weight":
        kwargs = {"class_weight": "balanced"}
    elif case == "sample_weight":
        fit_params = {"sample_weight": np.linspace(0.5, 1.5, 60)}
    else:
        cls = type("Forest", (RandomForestClassifier,), {})
    slow = cls(n_estimators=10, random_state=2, **kwargs).fit(X, y, **fit_params)
    fast = fit_estimator(cls(n_estimators=10, random_state=2, **kwargs), X, y, **fit_params)
    np.testing.assert_array_equal(fast.predict_proba(X), slow.predict_proba(X))


def test_other_estimators_and_bad_parameters():
    X, y = make_classification(n_samples=40, n_features=4, random_state=0)
    nb = fit_estimator(GaussianNB(), X, y)
    np.testing.assert_array_equal(nb.predict_proba(X), GaussianNB().fit(X, y).predict_proba(X))
    with pytest.raises(ValueError, match="n_estimators"):
        fit_estimator(RandomForestClassifier(n_estimators=0), X, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        fit_estimator(RandomForestClassifier(n_estimators=2), X, np.linspace(0, 1, 40))


FOREST_SPEC = """
[study]
name = "lean_forest"
seed = 11

[protocol]
kind = "kfold"
n_splits = 3

[datasets.blobs]
generator = "sklearn.datasets.make_classification"
params = { n_samples = 120, n_features = 5 }

[classifiers.rf]
class = "sklearn.ensemble.RandomForestClassifier"
params = { n_estimators = 15, oob_score = true }

[scenarios.raw]
kind = "raw"

[scenarios.split]
kind = "split"
calibrator = { class = "bayescal.calibration.IsotonicCalibrator" }

[scenarios.full]
kind = "full"
calibrator = { class = "bayescal.calibration.IsotonicCalibrator" }

[scenarios.dg]
kind = "dg"
calibrator = { class = "bayescal.calibration.IsotonicCalibrator" }
params = { n_generated = 300 }

[scenarios.dgg]
kind = "dgg"
calibrator = { class = "bayescal.calibration.IsotonicCalibrator" }
params = { n_generated = 300, group_size = 20 }

[scenarios.oob]
kind = "oob"
calibrator = { class = "bayescal.calibration.IsotonicCalibrator" }

[metrics]
names = ["brier", "log_loss"]
"""


def test_study_results_are_those_of_scikit_learns_fits(tmp_path, monkeypatch):
    # every scenario of a forest study (raw, split, full, DG/DGG rounds, OOB) with the
    # lean forest fit against the same study with scikit-learn's own fit throughout
    from bayescal.study import parse_spec, run

    spec = parse_spec(FOREST_SPEC)
    lean = run(spec, tmp_path / "lean", n_jobs=1, progress=False)
    monkeypatch.setattr(_fitting, "_fit_forest", lambda *args: None)
    plain = run(spec, tmp_path / "plain", n_jobs=1, progress=False)
    assert lean.attrs["errors"] == plain.attrs["errors"] == "{}"
    for name in ("brier", "log_loss"):
        got = lean["metrics"][name].values
        assert np.isfinite(got).all()
        np.testing.assert_array_equal(got, plain["metrics"][name].values)
