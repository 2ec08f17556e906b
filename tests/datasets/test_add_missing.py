"""Tests of bayescal.datasets.add_missing: rates, mechanisms, no mutation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bayescal.datasets import add_missing, load_dataset


@pytest.fixture(scope="module")
def gaussian() -> np.ndarray:
    return np.random.default_rng(0).normal(size=(4000, 4))


@pytest.mark.parametrize("mechanism", ["mcar", "mar", "mnar"])
@pytest.mark.parametrize("rate", [0.05, 0.3, 0.5])
def test_realised_rate_and_copy(gaussian, mechanism, rate):
    original = gaussian.copy()
    out = add_missing(gaussian, rate, mechanism, random_state=1)
    np.testing.assert_array_equal(gaussian, original)  # input untouched
    assert out is not gaussian and out.dtype == np.float64
    holes = np.isnan(out)
    columns = np.arange(1, 4) if mechanism == "mar" else np.arange(4)
    realised = holes[:, columns].mean()
    assert abs(realised - rate) <= 1 / holes.shape[0]  # exact up to rounding
    # the values that were kept are unchanged
    np.testing.assert_array_equal(out[~holes], gaussian[~holes])
    if mechanism == "mar":
        assert not holes[:, 0].any()  # the driver column stays complete
    if mechanism != "mcar":
        np.testing.assert_array_equal(holes[:, columns].sum(axis=0), round(rate * holes.shape[0]))


def test_mcar_is_uniform_over_cells():
    X = np.random.default_rng(2).normal(size=(3000, 5))
    out = add_missing(X, 0.4, "mcar", random_state=3)
    holes = np.isnan(out)
    # every column loses about 40 % (binomial-like spread), independent of the values
    assert np.all(np.abs(holes.mean(axis=0) - 0.4) < 0.04)
    for j in range(5):
        removed, kept = X[holes[:, j], j], X[~holes[:, j], j]
        se = np.sqrt(removed.var() / removed.size + kept.var() / kept.size)
        assert abs(removed.mean() - kept.mean()) < 4 * se
    # missingness of a column does not depend on another column's value
    big = X[:, 0] > 0
    assert abs(holes[big, 1].mean() - holes[~big, 1].mean()) < 0.05


def test_mar_depends_on_observed_driver(gaussian):
    out = add_missing(gaussian, 0.3, "mar", random_state=4)
    holes = np.isnan(out)
    driver = gaussian[:, 0]
    high = driver > np.median(driver)
    for j in (1, 2, 3):
        assert holes[high, j].mean() > holes[~high, j].mean() + 0.2
        # the removed values themselves are not selected by their own value
        removed, kept = gaussian[holes[:, j], j], gaussian[~holes[:, j], j]
        se = np.sqrt(removed.var() / removed.size + kept.var() / kept.size)
        assert abs(removed.mean() - kept.mean()) < 4 * se


def test_mar_round_robin_drivers():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4000, 4))
    out = add_missing(X, 0.3, "mar", random_state=6, columns=[2, 3])
    holes = np.isnan(out)
    assert not holes[:, :2].any()
    # column 2 is driven by column 0, column 3 by column 1
    assert holes[X[:, 0] > 0, 2].mean() > holes[X[:, 0] <= 0, 2].mean() + 0.2
    assert holes[X[:, 1] > 0, 3].mean() > holes[X[:, 1] <= 0, 3].mean() + 0.2
    assert abs(holes[X[:, 0] > 0, 3].mean() - holes[X[:, 0] <= 0, 3].mean()) < 0.06


def test_mnar_removes_large_values(gaussian):
    out = add_missing(gaussian, 0.3, "mnar", random_state=7)
    holes = np.isnan(out)
    for j in range(4):
        removed, kept = gaussian[holes[:, j], j], gaussian[~holes[:, j], j]
        assert removed.mean() > kept.mean() + 0.5
    # the observed mean is biased downwards (the point of MNAR)
    assert (np.nanmean(out, axis=0) < gaussian.mean(axis=0) - 0.2).all()


def test_strength_zero_removes_dependence(gaussian):
    out = add_missing(gaussian, 0.3, "mnar", random_state=8, strength=0.0)
    holes = np.isnan(out)
    removed, kept = gaussian[holes[:, 0], 0], gaussian[~holes[:, 0], 0]
    se = np.sqrt(removed.var() / removed.size + kept.var() / kept.size)
    assert abs(removed.mean() - kept.mean()) < 4 * se


def test_existing_nan_kept_and_not_counted():
    X = np.random.default_rng(9).normal(size=(1000, 3))
    X[:100, 0] = np.nan
    out = add_missing(X, 0.2, "mcar", random_state=0)
    assert np.isnan(out[:100, 0]).all()
    new = np.isnan(out) & ~np.isnan(X)
    assert new.sum() == round(0.2 * (3000 - 100))
    for mechanism in ("mar", "mnar"):
        out = add_missing(X, 0.2, mechanism, random_state=0, columns=[0, 1])
        new = np.isnan(out) & ~np.isnan(X)
        assert new[:, 0].sum() == round(0.2 * 900) and new[:, 1].sum() == 200


def test_reproducible_and_rate_zero(gaussian):
    a = add_missing(gaussian, 0.25, "mnar", random_state=3)
    b = add_missing(gaussian, 0.25, "mnar", random_state=3)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    c = add_missing(gaussian, 0.25, "mnar", random_state=4)
    assert not np.array_equal(np.isnan(a), np.isnan(c))
    zero = add_missing(gaussian, 0.0, "mcar", random_state=0)
    np.testing.assert_array_equal(zero, gaussian)
    assert zero is not gaussian


def test_on_iris_half_missing():
    ds = load_dataset("iris")
    out = add_missing(ds.X, 0.5, random_state=0)
    assert np.isnan(out).sum() == 300  # seed 000 §3.2 setting: 50 % MCAR
    assert not np.isnan(out).all(axis=0).any()


@settings(max_examples=40, deadline=None)
@given(
    X=arrays(
        np.float64, st.tuples(st.integers(2, 25), st.integers(2, 5)), elements=st.floats(-100, 100)
    ),
    rate=st.floats(0.0, 0.95),
    mechanism=st.sampled_from(["mcar", "mar", "mnar"]),
    seed=st.integers(0, 2**16),
)
def test_property_exact_count_and_only_nan_added(X, rate, mechanism, seed):
    original = X.copy()
    out = add_missing(X, rate, mechanism, random_state=seed)
    np.testing.assert_array_equal(X, original)
    holes = np.isnan(out)
    np.testing.assert_array_equal(out[~holes], X[~holes])
    n, d = X.shape
    if mechanism == "mcar":
        assert holes.sum() == round(rate * n * d)
    else:
        cols = range(1, d) if mechanism == "mar" else range(d)
        assert all(holes[:, j].sum() == round(rate * n) for j in cols)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"X": np.ones(5), "rate": 0.1}, ValueError, r"`X` must be 2-D"),
        ({"X": [[1.0, np.inf]], "rate": 0.1}, ValueError, r"`X` contains inf"),
        ({"X": np.ones((0, 2)), "rate": 0.1}, ValueError, r"`X` is empty"),
        ({"X": [["a", "b"]], "rate": 0.1}, TypeError, r"`X` must hold numbers"),
        ({"rate": 1.0}, ValueError, r"`rate` must lie in \[0, 1\)"),
        ({"rate": -0.1}, ValueError, r"`rate` must lie in"),
        ({"rate": "half"}, TypeError, r"`rate` must be a real number"),
        ({"mechanism": "random"}, ValueError, r"`mechanism` must be one of"),
        ({"columns": [0, 9]}, ValueError, r"`columns` must hold indices in 0..2"),
        ({"columns": [1, 1]}, ValueError, r"`columns` has repeated"),
        ({"columns": []}, ValueError, r"`columns` is empty"),
        ({"columns": 1}, TypeError, r"`columns` must be a sequence"),
        ({"columns": [0.5]}, TypeError, r"`columns` must hold integer"),
        (
            {"mechanism": "mar", "columns": [0, 1, 2]},
            ValueError,
            r"`mechanism`='mar' needs a complete driver",
        ),
        (
            {"X": np.ones((5, 1)), "mechanism": "mar"},
            ValueError,
            r"`mechanism`='mar' needs at least 2 columns",
        ),
        (
            {"strength": -1.0, "mechanism": "mnar"},
            ValueError,
            r"`strength` must be finite and >= 0",
        ),
        ({"strength": "big"}, TypeError, r"`strength` must be a real"),
        ({"random_state": "seed"}, TypeError, r"`random_state`"),
    ],
)
def test_bad_input(kwargs, exc, match):
    args = {"X": np.ones((5, 3)), "rate": 0.2}
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        add_missing(**args)
