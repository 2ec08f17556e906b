"""Tests of DG/DGG calibration-data generation."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_iris, make_classification
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from bayescal.calibration import (
    CalibratedClassifier,
    IsotonicCalibrator,
    OneVsRestCalibrator,
    generation,
)
from bayescal.calibration.generation import (
    generate_calibration_data,
    group_binary_problems,
    group_by_score,
)


class RowProbe(ClassifierMixin, BaseEstimator):
    """Test double: X[:, 0] is the row number.

    ``predict_proba`` returns ``(row + 0.5) / n_rows`` for rows it was not
    trained on and exactly 1.0 for rows it was trained on, so the generated
    scores tell which row was predicted and whether it was held out.
    """

    def __init__(self, n_rows=100):
        self.n_rows = n_rows

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.train_rows_ = set(np.asarray(X)[:, 0].astype(int).tolist())
        return self

    def predict_proba(self, X):
        rows = np.asarray(X)[:, 0].astype(int)
        seen = np.array([r in self.train_rows_ for r in rows])
        p = np.where(seen, 1.0, (rows + 0.5) / self.n_rows)
        return np.column_stack([1 - p, p])


def _row_data(n=100, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.arange(n), rng.normal(size=n)])
    y = rng.integers(0, 2, size=n)
    y[:2] = [0, 1]
    return X, y


def test_group_by_score_hand_example():
    # sorted: (0.1,0) (0.2,0) | (0.4,1) (0.8,0) | (0.9,1) -- last group holds the remainder
    s, t = group_by_score([0.9, 0.1, 0.4, 0.2, 0.8], [1, 0, 1, 0, 0], group_size=2)
    np.testing.assert_allclose(s, [0.15, 0.6, 0.9])
    np.testing.assert_allclose(t, [0.0, 0.5, 1.0])
    s, t = group_by_score([0.3, 0.1, 0.2, 0.4], [1, 1, 0, 0], group_size=4)
    np.testing.assert_allclose(s, [0.25])
    np.testing.assert_allclose(t, [0.5])


def test_dg_predicts_only_held_out_rows_with_their_labels():
    X, y = _row_data()
    s, t = generate_calibration_data(RowProbe(), X, y, n_samples=700, random_state=1)
    assert s.shape == (700,) and t.shape == (700,) and t.dtype == np.int64
    assert np.all(s < 1.0), "a training row was used as calibration data"
    rows = np.floor(s * 100).astype(int)
    np.testing.assert_array_equal(t, y[rows])
    # out-of-bootstrap rounds hold out about 36.8% of the rows each
    assert 0.25 < np.unique(rows).size / 100 <= 1.0


def test_dg_with_test_fraction_holds_out_that_share():
    X, y = _row_data()
    s, t = generate_calibration_data(
        RowProbe(), X, y, n_samples=250, test_fraction=0.25, random_state=2
    )
    assert np.all(s < 1.0)
    rows = np.floor(s * 100).astype(int)
    # rounds of exactly 25 held-out rows, each round without repeats
    for r in range(10):
        assert np.unique(rows[25 * r : 25 * (r + 1)]).size == 25
    np.testing.assert_array_equal(t, y[rows])


def test_dgg_is_dg_grouped_and_deterministic():
    X, y = make_classification(n_samples=150, random_state=0)
    dg = generate_calibration_data(GaussianNB(), X, y, n_samples=1000, random_state=3)
    dgg = generate_calibration_data(
        GaussianNB(), X, y, method="dgg", n_samples=1000, group_size=100, random_state=3
    )
    assert dgg[0].shape == (10,) and dgg[1].shape == (10,)
    expected = group_by_score(dg[0], dg[1], 100)
    np.testing.assert_allclose(dgg[0], expected[0])
    np.testing.assert_allclose(dgg[1], expected[1])
    # fractional labels in [0, 1], scores increasing
    assert np.all(np.diff(dgg[0]) >= 0) and np.all((dgg[1] >= 0) & (dgg[1] <= 1))
    again = generate_calibration_data(GaussianNB(), X, y, n_samples=1000, random_state=3)
    np.testing.assert_array_equal(dg[0], again[0])
    other = generate_calibration_data(GaussianNB(), X, y, n_samples=1000, random_state=4)
    assert not np.array_equal(dg[0], other[0])


def test_estimator_random_state_is_seeded_for_determinism():
    X, y = make_classification(n_samples=80, random_state=1)
    tree = DecisionTreeClassifier(max_features=1)  # random_state=None: seeded per round
    a = generate_calibration_data(tree, X, y, n_samples=300, random_state=5)
    b = generate_calibration_data(tree, X, y, n_samples=300, random_state=5)
    np.testing.assert_array_equal(a[0], b[0])


class _SeedRecorder(GaussianNB):
    """Gaussian NB with a ``random_state`` it only records (one entry per fit)."""

    seen: list = []

    def __init__(self, *, random_state=None):
        super().__init__()
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        _SeedRecorder.seen.append(self.random_state)
        return super().fit(X, y, sample_weight=sample_weight)


def _seeds_of(estimator, X, y, **kwargs):
    _SeedRecorder.seen = []
    data = generate_calibration_data(estimator, X, y, n_samples=300, **kwargs)
    return data, list(_SeedRecorder.seen)


def test_unseeded_inner_estimators_are_seeded_per_round():
    # an unseeded forest inside a Pipeline: the same random_state gives the same data
    X, y = make_classification(n_samples=80, random_state=1)
    pipe = Pipeline([("scale", StandardScaler()),
                     ("rf", RandomForestClassifier(n_estimators=5, max_features=1))])
    a = generate_calibration_data(pipe, X, y, n_samples=300, random_state=5)
    b = generate_calibration_data(pipe, X, y, n_samples=300, random_state=5)
    np.testing.assert_array_equal(a[0], b[0])
    assert pipe.get_params()["rf__random_state"] is None  # the caller's is untouched
    # every round its own seed, the same ones for the same random_state (and for DGG,
    # which a study replays from DG's fits)
    nested = Pipeline([("scale", StandardScaler()), ("nb", _SeedRecorder())])
    _, seeds = _seeds_of(nested, X, y, random_state=5)
    assert len(seeds) >= 300 / 40 and all(isinstance(s, int) for s in seeds)
    assert len(set(seeds)) == len(seeds)
    assert _seeds_of(nested, X, y, random_state=5)[1] == seeds
    assert _seeds_of(nested, X, y, method="dgg", group_size=20, random_state=5)[1] == seeds
    assert _seeds_of(nested, X, y, random_state=6)[1] != seeds
    # a seed the caller set is kept
    fixed = Pipeline([("scale", StandardScaler()), ("nb", _SeedRecorder(random_state=3))])
    assert set(_seeds_of(fixed, X, y, random_state=5)[1]) == {3}


def test_inner_seeds_leave_the_splits_and_top_level_seeds_as_they_were():
    # the inner seeds come from a stream of their own: a classifier whose inner
    # random_state is None draws the same splits (and top-level seeds) as one whose
    # inner random_state is set, so seeded runs of deterministic inner estimators
    # keep their numbers
    X, y = make_classification(n_samples=80, random_state=1)
    unset = Pipeline([("scale", StandardScaler()), ("nb", _SeedRecorder())])
    fixed = Pipeline([("scale", StandardScaler()), ("nb", _SeedRecorder(random_state=0))])
    for state, extra in ((lambda: 5, {}), (lambda: np.random.default_rng(5), {}),
                         (lambda: 5, {"test_fraction": 0.3})):
        a, _ = _seeds_of(unset, X, y, random_state=state(), **extra)
        b, _ = _seeds_of(fixed, X, y, random_state=state(), **extra)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    bag = BaggingClassifier(_SeedRecorder(), n_estimators=3)  # top level and inner unset
    bag_fixed = BaggingClassifier(_SeedRecorder(random_state=0), n_estimators=3)
    a = generate_calibration_data(bag, X, y, n_samples=300, random_state=5)
    b = generate_calibration_data(bag_fixed, X, y, n_samples=300, random_state=5)
    np.testing.assert_array_equal(a[0], b[0])


def test_calibrated_classifier_dg_calibration_is_reproducible_with_inner_forest():
    X, y = make_classification(n_samples=80, random_state=1)
    pipe = Pipeline([("scale", StandardScaler()),
                     ("rf", RandomForestClassifier(n_estimators=5, max_features=1))])
    grid = np.linspace(0, 1, 41)
    maps = []
    for _ in range(2):
        model = CalibratedClassifier(estimator=pipe, calibrator=IsotonicCalibrator(),
                                     scenario="dgg", n_generated=300, group_size=20,
                                     random_state=0).fit(X, y)
        maps.append(model.calibrator_.predict_proba(grid))
    # the calibration map comes from the generated data only (the final forest is the
    # caller's, unseeded, as in scikit-learn's CalibratedClassifierCV)
    np.testing.assert_array_equal(maps[0], maps[1])


def test_multiclass_returns_probabilities_and_codes():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    P, codes = generate_calibration_data(
        GaussianNB(), X, labels, method="dgg", n_samples=400, random_state=0
    )
    assert P.shape == (400, 3) and codes.shape == (400,)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert set(np.unique(codes)) <= {0, 1, 2}
    # the column of the true class is mostly the largest (columns follow np.unique(y))
    assert np.mean(np.argmax(P, axis=1) == codes) > 0.85


def test_group_binary_problems_groups_each_one_vs_rest_problem():
    X, y = load_iris(return_X_y=True)
    P, codes = generate_calibration_data(GaussianNB(), X, y, n_samples=300, random_state=0)
    ovr = OneVsRestCalibrator(IsotonicCalibrator())
    problems = group_binary_problems(ovr, P, codes, group_size=50)
    assert [p.key for p in problems] == [(0,), (1,), (2,)]
    for k, problem in enumerate(problems):
        s, t = group_by_score(P[:, k], (codes == k).astype(float), 50)
        np.testing.assert_allclose(problem.scores, s)
        np.testing.assert_allclose(problem.targets, t)
        np.testing.assert_array_equal(problem.sample_weight, np.ones(6))
    fitted = ovr.fit_binary_problems(problems, n_outputs=3)
    np.testing.assert_allclose(fitted.predict_proba(P).sum(axis=1), 1.0)
    with pytest.raises(TypeError, match="reduction"):
        group_binary_problems(IsotonicCalibrator(), P, codes)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "dggg"}, ValueError, "method"),
        ({"n_samples": 0}, ValueError, "n_samples"),
        ({"group_size": 0}, ValueError, "group_size"),
        ({"group_size": 2.5}, TypeError, "group_size"),
        ({"test_fraction": 1.5}, ValueError, "test_fraction"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    X, y = make_classification(n_samples=40, random_state=0)
    with pytest.raises(error, match=match):
        generate_calibration_data(GaussianNB(), X, y, **kwargs)


def test_bad_data():
    X, y = make_classification(n_samples=40, random_state=0)
    with pytest.raises(TypeError, match="predict_proba"):
        generate_calibration_data(object(), X, y)
    with pytest.raises(ValueError, match="single class"):
        generate_calibration_data(GaussianNB(), X, np.zeros(40))
    with pytest.raises(ValueError, match="inconsistent"):
        generate_calibration_data(GaussianNB(), X, y[:30])
    with pytest.raises(ValueError, match="1-D"):
        generate_calibration_data(GaussianNB(), X, y.reshape(-1, 1))
    with pytest.raises(ValueError, match="X"):
        generate_calibration_data(GaussianNB(), X[:, 0], y)
    with pytest.raises(ValueError, match="targets"):
        group_by_score([0.1, 0.2], [0.5, 1.5])


def test_bootstrap_without_every_class_raises(monkeypatch):
    monkeypatch.setattr(generation, "MAX_REDRAWS", 0)
    X, y = make_classification(n_samples=40, random_state=0)
    with pytest.raises(ValueError, match="bootstrap"):
        generate_calibration_data(GaussianNB(), X, y)


class _RecordingForest(RandomForestClassifier):
    """A random forest that records the ``oob_score`` each fit ran with."""

    seen: list = []

    def fit(self, X, y, sample_weight=None):
        _RecordingForest.seen.append(self.oob_score)
        return super().fit(X, y, sample_weight=sample_weight)


@pytest.mark.parametrize("nested", [False, True])
def test_rounds_skip_out_of_bag_scoring_with_identical_data(monkeypatch, nested):
    # oob_score only adds out-of-bag scores after the trees are grown: the rounds
    # switch it off, and the generated data are bit for bit those of the rounds
    # that computed it (UNUSED_IN_ROUNDS emptied: the behaviour before)
    X, y = make_classification(n_samples=60, n_features=4, random_state=2)
    forest = _RecordingForest(n_estimators=15, oob_score=True, random_state=7)
    est = Pipeline([("scale", StandardScaler()), ("rf", forest)]) if nested else forest
    _RecordingForest.seen = []
    fast = generate_calibration_data(est, X, y, method="dg", n_samples=400, random_state=3)
    assert _RecordingForest.seen and not any(_RecordingForest.seen)
    assert forest.oob_score is True  # the caller's estimator is untouched
    monkeypatch.setattr(generation, "UNUSED_IN_ROUNDS", ())
    _RecordingForest.seen = []
    before = generate_calibration_data(est, X, y, method="dg", n_samples=400, random_state=3)
    assert all(_RecordingForest.seen)
    np.testing.assert_array_equal(fast[0], before[0])
    np.testing.assert_array_equal(fast[1], before[1])
    # unseeded forest (random_state=None: each round seeded from the generator; nested
    # in the Pipeline, from its own stream)
    forest.set_params(random_state=None)
    monkeypatch.setattr(generation, "UNUSED_IN_ROUNDS", ("oob_score",))
    a = generate_calibration_data(est, X, y, method="dgg", n_samples=400, group_size=20,
                                  random_state=4)
    monkeypatch.setattr(generation, "UNUSED_IN_ROUNDS", ())
    b = generate_calibration_data(est, X, y, method="dgg", n_samples=400, group_size=20,
                                  random_state=4)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
