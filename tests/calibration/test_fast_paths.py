"""The numba fast paths of isotonic, ENIR and histogram binning equal their references.

Kernels are forced on at small n (``kernel=True``) and compared with the
NumPy/SciPy reference paths, ``np.argsort``-based pooling, ``np.interp``,
``np.searchsorted`` bin indices and scikit-learn. No timing here.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.isotonic import IsotonicRegression

from bayescal._kernels.isotonic import KERNEL_MIN_SCORES, pool_tied_scores, pooled_isotonic_fit
from bayescal._kernels.sorting import sort_and_pool
from bayescal.calibration import (
    ENIRCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
)
from bayescal.calibration._interp import interp, interp_proba
from bayescal.calibration.histogram import KERNEL_MIN_SCORES as HISTOGRAM_KERNEL_MIN
from bayescal.calibration.histogram import histogram_bin_proba, histogram_bin_sums
from bayescal.metrics.binning import assign_bins, assign_bins_compact, bin_edges


def _reference_pool(s, t, w):
    keep = w > 0
    s, t, w = s[keep], t[keep], w[keep]
    order = np.argsort(s, kind="stable")
    ss = s[order]
    starts = np.flatnonzero(np.concatenate([[True], ss[1:] != ss[:-1]]))
    return (
        ss[starts],
        np.add.reduceat(w[order], starts),
        np.add.reduceat((w * t)[order], starts),
    )


def _scores(kind, n, rng):
    if kind == "uniform":
        return rng.uniform(size=n)
    if kind == "ties":
        return np.round(rng.uniform(size=n), 2)
    if kind == "signed":  # decision values with ties, -0.0 and +0.0
        s = np.round(rng.normal(size=n), 1)
        s[:3] = -0.0
        s[3:6] = 0.0
        return s
    # a cluster within 1e-12 relative: long runs of equal truncated keys
    return 1.0 + rng.uniform(size=n) * 1e-12


@pytest.mark.parametrize("kind", ["uniform", "ties", "signed", "cluster"])
@pytest.mark.parametrize("targets", ["binary", "fractional", "weighted"])
def test_sort_and_pool_matches_argsort_pooling(kind, targets):
    rng = np.random.default_rng(3)
    n = 3000
    s = _scores(kind, n, rng)
    t = (rng.uniform(size=n) < 0.4).astype(float)
    w = np.ones(n)
    if targets == "fractional":
        t = rng.uniform(size=n)
    if targets == "weighted":
        w = rng.uniform(0.0, 2.0, size=n)
        w[:50] = 0.0
    unit = targets != "weighted"
    x, w_sum, t_sum = sort_and_pool(s, t, w, unit)
    rx, rw, rt = _reference_pool(s, t, w)
    np.testing.assert_array_equal(x, rx)
    np.testing.assert_allclose(w_sum, rw, rtol=1e-13)
    np.testing.assert_allclose(t_sum, rt, rtol=1e-12, atol=1e-12)
    if unit and targets == "binary":  # integer counts: exact
        np.testing.assert_array_equal(w_sum, rw)
        np.testing.assert_array_equal(t_sum, rt)


@pytest.mark.parametrize("kind", ["uniform", "ties", "signed"])
@pytest.mark.parametrize("targets", ["binary", "fractional", "weighted"])
@pytest.mark.parametrize("increasing", [True, False])
def test_isotonic_kernel_matches_reference_path(kind, targets, increasing):
    rng = np.random.default_rng(7)
    n = 2000
    s = _scores(kind, n, rng)
    t = (rng.uniform(size=n) < 1 / (1 + np.exp(-3 * s))).astype(float)
    w = np.ones(n)
    if targets == "fractional":
        t = np.clip(t * 0.7 + rng.uniform(size=n) * 0.3, 0, 1)
    if targets == "weighted":
        w = rng.uniform(0.0, 2.0, size=n)
        w[:20] = 0.0
    fast = pooled_isotonic_fit(s, t, w, increasing=increasing, kernel=True)
    ref = pooled_isotonic_fit(s, t, w, increasing=increasing, kernel=False)
    grid = np.linspace(s.min() - 0.1, s.max() + 0.1, 997)
    np.testing.assert_allclose(np.interp(grid, *fast), np.interp(grid, *ref), rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.interp(s, *fast), np.interp(s, *ref), rtol=0, atol=1e-12)


def test_isotonic_calibrator_on_kernel_path_matches_sklearn():
    rng = np.random.default_rng(11)
    n = KERNEL_MIN_SCORES + 1000  # the calibrator takes the kernel path by itself
    s = rng.beta(2.0, 3.0, size=n)
    y = (rng.uniform(size=n) < s**1.5).astype(int)
    p = IsotonicCalibrator().fit(s, y).predict_proba(s)[:, 1]
    ref = IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(s)
    np.testing.assert_allclose(p, ref, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.integers(2, 40), elements=st.floats(-5, 5), unique=True),
    st.integers(0, 2**32 - 1),
)
def test_table_interp_is_bitwise_np_interp(knots, seed):
    rng = np.random.default_rng(seed)
    xp = np.sort(knots)
    fp = rng.uniform(size=xp.shape[0])
    x = np.concatenate([xp, rng.uniform(-6, 6, size=500), np.nextafter(xp, np.inf)])
    np.testing.assert_array_equal(interp(x, xp, fp, kernel=True), np.interp(x, xp, fp))
    p = np.interp(x, xp, fp)
    np.testing.assert_array_equal(
        interp_proba(x, xp, fp, kernel=True), np.column_stack([1.0 - p, p])
    )


def test_table_interp_with_clustered_knots():
    rng = np.random.default_rng(2)
    xp = np.sort(np.concatenate([rng.uniform(size=20), 0.5 + rng.uniform(size=3000) * 1e-9]))
    xp = np.unique(xp)
    fp = np.sort(rng.uniform(size=xp.shape[0]))
    x = np.concatenate([rng.uniform(-0.1, 1.1, size=5000), 0.5 + rng.uniform(size=5000) * 1e-9])
    np.testing.assert_array_equal(interp(x, xp, fp, kernel=True), np.interp(x, xp, fp))


@pytest.mark.parametrize("input_kind", ["score", "decision"])
@pytest.mark.parametrize("targets", ["binary", "fractional", "weighted"])
@pytest.mark.parametrize("n_bins", [1, 7, 10, 50])
def test_histogram_kernel_equals_searchsorted_path(input_kind, targets, n_bins):
    rng = np.random.default_rng(n_bins)
    n = 4000
    if input_kind == "score":
        edges = bin_edges(np.zeros(1), n_bins, "uniform")
        # scores on every edge, one ulp either side, and the ends 0 and 1
        on_edges = np.concatenate([edges, np.nextafter(edges, 2), np.nextafter(edges, -1)])
        s = np.clip(np.concatenate([rng.uniform(size=n), on_edges]), 0.0, 1.0)
    else:
        s = rng.normal(size=n) * 3.0
        edges = bin_edges(s, n_bins, "uniform", span=(s.min(), s.max()))
        s = np.concatenate([s, edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
    m = s.shape[0]
    t = (rng.uniform(size=m) < 0.3).astype(float)
    w = np.ones(m)
    if targets == "fractional":
        t = rng.uniform(size=m)
    if targets == "weighted":
        w = rng.uniform(0.0, 2.0, size=m)
    unit = targets != "weighted"
    np.testing.assert_array_equal(
        assign_bins(s, edges), assign_bins_compact(s, edges)
    )  # the reference index the kernel must reproduce
    fast = histogram_bin_sums(s, t, w, edges, unit=unit, uniform=True, kernel=True)
    ref = histogram_bin_sums(s, t, w, edges, unit=unit, uniform=True, kernel=False)
    for a, b in zip(fast, ref, strict=True):
        np.testing.assert_array_equal(a, b)
    values = rng.uniform(size=n_bins)
    queries = np.concatenate([s, [s.min() - 1.0, s.max() + 1.0]])
    np.testing.assert_array_equal(
        histogram_bin_proba(queries, edges, values, uniform=True, kernel=True),
        histogram_bin_proba(queries, edges, values, uniform=True, kernel=False),
    )


def test_histogram_calibrator_kernel_path_equals_numpy_path():
    rng = np.random.default_rng(4)
    n = HISTOGRAM_KERNEL_MIN + 500  # large enough for the kernel path
    s = rng.beta(2.0, 3.0, size=n)
    y = (rng.uniform(size=n) < s).astype(int)
    cal = HistogramBinningCalibrator(n_bins=15).fit(s, y)
    edges = cal.bin_edges_
    idx = assign_bins(s, edges)
    count = np.bincount(idx, minlength=15).astype(float)
    pos = np.bincount(idx, weights=y.astype(float), minlength=15)
    np.testing.assert_array_equal(cal.bin_weights_, count)
    np.testing.assert_array_equal(cal.bin_values_, pos / count)
    p = cal.predict_proba(s)
    np.testing.assert_array_equal(p[:, 1], (pos / count)[idx])
    np.testing.assert_array_equal(p[:, 0], 1.0 - (pos / count)[idx])


def test_enir_kernel_pooling_and_interp_equal_reference_path(monkeypatch):
    from bayescal.calibration import enir

    rng = np.random.default_rng(8)
    n = KERNEL_MIN_SCORES + 2000  # pooling and predictions take the kernels
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s**2).astype(int)
    fast = ENIRCalibrator().fit(s, y)
    p_fast = fast.predict_proba(s)

    def reference_pool(scores, targets, weights):
        return pool_tied_scores(scores, targets, weights, kernel=False)

    monkeypatch.setattr(enir, "pool_tied_scores", reference_pool)
    monkeypatch.setattr(enir, "interp", lambda x, xp, fp: np.interp(x, xp, fp))
    monkeypatch.setattr(
        enir, "interp_proba", lambda x, xp, fp: interp_proba(x, xp, fp, kernel=False)
    )
    ref = ENIRCalibrator().fit(s, y)
    np.testing.assert_array_equal(fast.thresholds_, ref.thresholds_)
    np.testing.assert_array_equal(fast.fitted_values_, ref.fitted_values_)
    np.testing.assert_array_equal(fast.lambdas_, ref.lambdas_)
    np.testing.assert_array_equal(p_fast, ref.predict_proba(s))


def _histogram_state(cal):
    return (cal.bin_edges_, cal.bin_weights_, cal.bin_values_, cal.empty_bins_, cal.classes_)


@pytest.mark.parametrize("labels", ["int64", "float01", "fractional"])
@pytest.mark.parametrize("scores", ["beta", "half", "edges"])
@pytest.mark.parametrize("empty_bin", ["interpolate", "prior", 0.25])
def test_histogram_unit_weight_fit_equals_full_path(labels, scores, empty_bin):
    # fit(s, y) takes the reductions-only route; fit(s, y, ones) the full
    # checks, unit-weight detection and copies: the same bins, values, output
    rng = np.random.default_rng(5)
    n = HISTOGRAM_KERNEL_MIN + 17
    s = {
        "beta": rng.beta(2.0, 3.0, size=n),
        "half": 0.5 * rng.uniform(size=n),  # bins above 0.5 are empty
        "edges": rng.choice(np.concatenate([np.linspace(0, 1, 14), [0.0, 1.0]]), size=n),
    }[scores]
    t = (rng.uniform(size=n) < s).astype(np.int64)
    if labels == "float01":
        t = t.astype(np.float64)
    if labels == "fractional":
        t = rng.uniform(size=n)
    params = {"n_bins": 13, "empty_bin": empty_bin}
    fast = HistogramBinningCalibrator(**params).fit(s, t)
    full = HistogramBinningCalibrator(**params).fit(s, t, sample_weight=np.ones(n))
    for a, b in zip(_histogram_state(fast), _histogram_state(full), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(fast.predict_proba(s), full.predict_proba(s))
    assert fast.n_features_in_ == full.n_features_in_ == 1
    s_before = s.copy()
    fast.fit(s, t).predict_proba(s)
    np.testing.assert_array_equal(s, s_before)  # scores are read, never written


def _bad_histogram_inputs():
    rng = np.random.default_rng(6)
    n = HISTOGRAM_KERNEL_MIN + 3
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s).astype(np.int64)

    def put(a, i, v):
        a = a.copy()
        a[i] = v
        return a

    return [
        (put(s, 7, np.nan), y),
        (put(s, 7, np.inf), y),
        (put(s, 7, 1.5), y),
        (put(s, 7, -0.25), y),
        (s, put(y, 3, 2)),
        (s, put(y, 3, -1)),
        (s, put(y.astype(float), 3, np.nan)),
        (s, put(y.astype(float), 3, 1.25)),
        (s, np.zeros(n, np.int64)),
        (s, np.ones(n)),
        (s, y[:-1]),
    ]


@pytest.mark.parametrize("case", range(11))
def test_histogram_bad_large_input_gets_the_full_paths_message(case):
    s, y = _bad_histogram_inputs()[case]
    with pytest.raises(ValueError) as full:
        HistogramBinningCalibrator().fit(s, y, sample_weight=np.ones(y.shape[0]))
    with pytest.raises(ValueError) as fast:
        HistogramBinningCalibrator().fit(s, y)
    assert str(fast.value) == str(full.value)
    assert any(name in str(fast.value) for name in ("`scores`", "`y`", "inconsistent"))


def test_histogram_negative_zero_scores_take_the_full_checks_and_fit():
    rng = np.random.default_rng(7)
    n = HISTOGRAM_KERNEL_MIN + 3
    s = rng.uniform(size=n)
    s[:5] = -0.0  # a valid 0 that the one-reduction accept leaves to the full checks
    y = (rng.uniform(size=n) < s).astype(np.int64)
    cal = HistogramBinningCalibrator().fit(s, y)
    ref = HistogramBinningCalibrator().fit(s, y, sample_weight=np.ones(n))
    np.testing.assert_array_equal(cal.bin_values_, ref.bin_values_)
    np.testing.assert_array_equal(cal.predict_proba(s), ref.predict_proba(s))


@pytest.mark.parametrize("make", [IsotonicCalibrator, HistogramBinningCalibrator, ENIRCalibrator])
@pytest.mark.parametrize("n", [300, KERNEL_MIN_SCORES + 11])
def test_calibrators_checking_scores_without_a_copy_neither_write_nor_keep_them(make, n):
    rng = np.random.default_rng(9)
    s = rng.uniform(size=n)
    s[::7] = np.round(s[::7], 2)  # ties
    y = (rng.uniform(size=n) < s).astype(np.int64)
    before = s.copy()
    cal = make().fit(s, y)
    p = cal.predict_proba(s)
    np.testing.assert_array_equal(s, before)
    for value in [*vars(cal).values(), p]:
        for array in value if isinstance(value, tuple) else (value,):
            assert not (isinstance(array, np.ndarray) and np.shares_memory(array, s))


@pytest.mark.parametrize("make", [IsotonicCalibrator, HistogramBinningCalibrator, ENIRCalibrator])
def test_strided_scores_checked_without_a_copy_give_the_contiguous_answer(make):
    # a float64 view now reaches the kernels as it is (no contiguous copy)
    rng = np.random.default_rng(10)
    n = 2 * KERNEL_MIN_SCORES + 6
    s = rng.uniform(size=n)[::2]
    y = (rng.uniform(size=n) < 0.5).astype(np.int64)[::2]
    q = rng.uniform(size=n)[::2]
    strided = make().fit(s, y).predict_proba(q)
    np.testing.assert_array_equal(strided, make().fit(s.copy(), y.copy()).predict_proba(q.copy()))
