"""Tests of Venn-ABERS predictors: brute-force and venn-abers package oracles, invariants, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification
from sklearn.naive_bayes import GaussianNB

from bayescal._kernels.isotonic import pooled_isotonic_fit
from bayescal.calibration import VennAbersCalibrator, VennAbersClassifier
from bayescal.calibration.venn_abers import merge_venn_abers, venn_abers_pairs, venn_abers_tables

_ERRSTATE = np.geterr()
from venn_abers.venn_abers import VennAbers, VennAbersCV  # noqa: E402

np.seterr(**_ERRSTATE)  # the package sets np.seterr(divide="ignore", invalid="ignore") on import


def _peer(call):
    """Run a venn-abers package call without its divide-by-zero warnings leaking."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return call()


def _brute_force(s, y, test, w=None):
    """Refit isotonic regression with the test object added, labelled 0 and 1."""
    w = np.ones_like(s) if w is None else w
    out = np.empty((len(test), 2))
    for i, t in enumerate(test):
        for lab in (0, 1):
            x, v = pooled_isotonic_fit(np.append(s, t), np.append(y, lab), np.append(w, 1.0))
            out[i, lab] = np.interp(t, x, v)
    return out


def _data(n, seed, decimals=None):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.03, 0.97, size=n)
    if decimals is not None:
        s = np.round(s, decimals)
    y = (rng.uniform(size=n) < s).astype(float)
    y[:2] = [0, 1]
    return s, y


@pytest.mark.parametrize("decimals", [None, 1, 2])
@pytest.mark.parametrize("seed", range(6))
def test_pairs_equal_brute_force_isotonic_refits(decimals, seed):
    s, y = _data(30, seed, decimals)
    test = np.concatenate([s, np.linspace(-0.1, 1.1, 25)])
    p0, p1 = venn_abers_pairs(venn_abers_tables(s, y), test)
    ref = _brute_force(s, y, test)
    np.testing.assert_allclose(p0, ref[:, 0], atol=1e-12)
    np.testing.assert_allclose(p1, ref[:, 1], atol=1e-12)


def test_weighted_pairs_equal_brute_force():
    s, y = _data(25, 7, decimals=1)
    w = np.random.default_rng(8).uniform(0.2, 3.0, size=s.size)
    test = np.linspace(0, 1, 31)
    p0, p1 = venn_abers_pairs(venn_abers_tables(s, y, w), test)
    ref = _brute_force(s, y, test, w)
    np.testing.assert_allclose(np.column_stack([p0, p1]), ref, atol=1e-12)


@pytest.mark.parametrize("decimals", [None, 2])
@pytest.mark.parametrize("n", [50, 2000])
def test_matches_venn_abers_package(decimals, n):
    s, y = _data(n, n, decimals)
    test = np.concatenate([s[:100], np.linspace(0.0, 1.0, 301)])
    ours = VennAbersCalibrator().fit(s, y)
    peer = _peer(lambda: VennAbers().fit(np.column_stack([1 - s, s]), y))
    p_peer, pair_peer = _peer(lambda: peer.predict_proba(np.column_stack([1 - test, test])))
    interval = ours.predict_interval(test)
    np.testing.assert_allclose(interval[:, 1, :], pair_peer, atol=1e-6)
    np.testing.assert_allclose(ours.predict_proba(test), p_peer, atol=1e-6)


@pytest.mark.parametrize("method", ["cross", "inductive"])
@pytest.mark.parametrize("loss", ["log", "brier"])
def test_classifier_matches_venn_abers_cv(method, loss):
    X, y = make_classification(n_samples=500, random_state=3)
    ours = VennAbersClassifier(
        estimator=GaussianNB(), method=method, n_splits=4, cal_size=0.25, loss=loss
    ).fit(X, y)
    peer = VennAbersCV(
        GaussianNB(), inductive=method == "inductive", n_splits=4, cal_size=0.25, shuffle=False
    )
    _peer(lambda: peer.fit(X, y))
    expected = _peer(lambda: peer.predict_proba(X[:150], loss=loss))
    np.testing.assert_allclose(ours.predict_proba(X[:150]), expected, atol=1e-6)


def test_hand_worked_example():
    # calibration labels by score: 0 1 0 1 (scores 0.1 0.4 0.6 0.9). Test at 0.5:
    # label 0 -> 0 [1 0 0] 1, the middle pooled to 1/3; label 1 -> 0 [1 1 0] 1 -> 2/3.
    # Test at 0.0 labelled 1 -> [1 0] [1 0] 1 -> 1/2; at 1.0 labelled 0 -> 0 [1 0] [1 0] -> 1/2.
    tables = venn_abers_tables(np.array([0.1, 0.4, 0.6, 0.9]), np.array([0.0, 1.0, 0.0, 1.0]))
    p0, p1 = venn_abers_pairs(tables, np.array([0.5, 0.0, 1.0]))
    np.testing.assert_allclose(p0, [1 / 3, 0.0, 1 / 2])
    np.testing.assert_allclose(p1, [2 / 3, 1 / 2, 1.0])
    np.testing.assert_allclose(merge_venn_abers(p0[:1], p1[:1]), [0.5])


def test_merge_rules():
    p0 = np.array([[0.2, 0.3], [0.0, 0.1]])
    p1 = np.array([[0.4, 0.6], [0.5, 0.5]])
    g1 = np.sqrt(p1.prod(axis=1))
    g0 = np.sqrt((1 - p0).prod(axis=1))
    np.testing.assert_allclose(merge_venn_abers(p0, p1), g1 / (g0 + g1))
    brier = p1.mean(1) + 0.5 * (p0**2).mean(1) - 0.5 * (p1**2).mean(1)
    np.testing.assert_allclose(merge_venn_abers(p0, p1, loss="brier"), brier)
    # one pair: the IVAP rule
    np.testing.assert_allclose(merge_venn_abers(p0[:, 0], p1[:, 0]), p1[:, 0] / (1 - p0[:, 0] + p1[:, 0]))


@settings(max_examples=60, deadline=None)
@given(
    labels=st.lists(st.integers(0, 1), min_size=2, max_size=40),
    seed=st.integers(0, 2**16),
)
def test_invariants_pairs_ordered_and_monotone(labels, seed):
    y = np.array(labels, float)
    y[:2] = [0, 1]
    s = np.round(np.random.default_rng(seed).uniform(size=y.size), 1)
    va = VennAbersCalibrator().fit(s, y)
    grid = np.linspace(0.0, 1.0, 61)
    iv = va.predict_interval(grid)[:, 1, :]
    p = va.predict_proba(grid)[:, 1]
    assert np.all(iv[:, 0] <= iv[:, 1] + 1e-12)
    assert np.all((iv[:, 0] - 1e-12 <= p) & (p <= iv[:, 1] + 1e-12))
    # both ends are isotonic regressions: non-decreasing in the test score
    assert np.all(np.diff(iv, axis=0) >= -1e-12)
    # rank-based: a monotone transform of the scores changes nothing
    logit = VennAbersCalibrator(input="decision").fit(np.log(s + 1) * 3 - 1, y)
    np.testing.assert_allclose(logit.predict_interval(np.log(grid + 1) * 3 - 1)[:, 1, :], iv)


def test_predict_interval_shape_and_classes():
    s, y = _data(200, 1)
    iv = VennAbersCalibrator().fit(s, y).predict_interval([0.2, 0.7])
    assert iv.shape == (2, 2, 2)
    np.testing.assert_allclose(iv[:, 0, :], 1 - iv[:, 1, ::-1])


@pytest.mark.parametrize(("name", "value"), [("prob", 0.5), ("prob", 0.99), ("kind", "eti")])
def test_predict_interval_refuses_a_mass_it_cannot_honour(name, value):
    # issue 27: prob=0.5 and prob=0.99 used to give the same pair, silently
    from bayescal.contracts import has_credible_interval

    s, y = _data(200, 1)
    X, labels = make_classification(n_samples=120, random_state=0)
    for model, data in ((VennAbersCalibrator().fit(s, y), [0.2, 0.7]),
                        (VennAbersClassifier(estimator=GaussianNB(), n_splits=2).fit(X, labels),
                         X[:3])):
        with pytest.raises(ValueError, match=rf"`{name}`=.*no nominal coverage"):
            model.predict_interval(data, **{name: value})
        assert not has_credible_interval(model)


def test_classifier_interval_brackets_probability_and_string_labels():
    X, y = make_classification(n_samples=300, random_state=1)
    labels = np.array(["no", "yes"])[y]
    cvap = VennAbersClassifier(estimator=GaussianNB(), n_splits=3).fit(X, labels)
    p = cvap.predict_proba(X[:50])[:, 1]
    iv = cvap.predict_interval(X[:50])[:, 1, :]
    assert np.all((iv[:, 0] <= p + 1e-12) & (p <= iv[:, 1] + 1e-12))
    assert set(cvap.predict(X[:50])) <= {"no", "yes"}
    assert len(cvap.estimators_) == 3


@pytest.mark.parametrize(
    ("scores", "y", "kwargs", "error", "match"),
    [
        ([0.1, 0.2, 0.3], [1, 1, 1], {}, ValueError, "single class"),
        ([0.1, np.nan, 0.3], [0, 1, 1], {}, ValueError, "NaN"),
        ([0.1, 1.5, 0.3], [0, 1, 1], {}, ValueError, "<= 1"),
        ([0.1, 0.2], [0, 1, 1], {}, ValueError, "inconsistent numbers of samples"),
        ([0.1, 0.2, 0.3], [0, 1, 2], {}, ValueError, "<= 1"),
        ([0.1, 0.2, 0.3], [0, 1, 1], {"input": "probit"}, ValueError, "input"),
    ],
)
def test_bad_input_calibrator(scores, y, kwargs, error, match):
    with pytest.raises(error, match=match):
        VennAbersCalibrator(**kwargs).fit(scores, y)


@pytest.mark.parametrize(
    ("kwargs", "y", "match"),
    [
        ({}, "one", "single class"),
        ({}, "three", "3 classes but Venn-ABERS predictors are binary"),
        ({"n_splits": 1}, "two", "n_splits"),
        ({"method": "jackknife"}, "two", "method"),
        ({"cal_size": 1.5}, "two", "cal_size"),
        ({"loss": "hinge"}, "two", "loss"),
        ({"n_splits": 40}, "two", "single class"),
    ],
)
def test_bad_input_classifier(kwargs, y, match):
    X, y2 = make_classification(n_samples=60, random_state=0)
    targets = {"one": np.zeros(60), "two": y2, "three": np.arange(60) % 3}[y]
    if y == "two" and "n_splits" in kwargs and kwargs["n_splits"] == 40:
        targets = np.r_[np.ones(3), np.zeros(57)]
    with pytest.raises(ValueError, match=match):
        VennAbersClassifier(estimator=GaussianNB(), **kwargs).fit(X, targets)
