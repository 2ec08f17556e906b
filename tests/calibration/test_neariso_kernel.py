"""The near-isotonic path kernel equals a plain-Python modified PAV, event by event.

The oracle below is written independently of the numba kernel: Python's
``heapq`` with lazy deletion (version-stamped entries), ordered by ``(time,
leftmost starting group of the pair)``, i.e. simultaneous collisions fuse left
to right, as the kernel's indexed heap does. Same arithmetic in the same
order, so the path (node numbering, events, penalties) must agree exactly;
only the likelihood bound, a sum of logarithms, is compared to rounding (numba's
``log`` and ``math.log`` may differ in the last bit).
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import xlogy

from bayescal.calibration import ENIRCalibrator
from bayescal.calibration.enir import (
    NearIsotonicPath,
    ensemble_fit,
    ensemble_weights,
    near_isotonic_path,
)


def _entropy(p, w):
    q = w - p
    return (p * math.log(p / w) if p > 0 else 0.0) + (q * math.log(q / w) if q > 0 else 0.0)


def _collision(lam, mg, sg, mh, sh, tol):
    gap = (mh + sh * lam) - (mg + sg * lam)
    if abs(gap) <= tol:
        return lam
    closing = sg - sh
    if closing == 0.0:
        return math.inf
    dt = gap / closing
    return math.inf if dt < 0.0 else lam + dt


def _reference_path(y, w, ties="left"):
    """Modified PAV with a lazy ``heapq``; returns the kernel's ten arrays.

    ``ties`` orders simultaneous collisions: ``"left"`` (the kernel's order)
    or ``"right"`` (right to left; the path's models must not depend on it).
    """
    sign = 1 if ties == "left" else -1
    y, w = [float(v) for v in y], [float(v) for v in w]
    groups = []  # [start, stop, weight, positive]
    i = 0
    while i < len(y):
        j, gw, gp = i + 1, w[i], w[i] * y[i]
        while j < len(y) and y[j] == y[i]:
            gw += w[j]
            gp += w[j] * y[j]
            j += 1
        groups.append([i, j, gw, gp])
        i = j
    n_start = len(groups)
    tol = 1e-10 * (max(y) - min(y) + 1e-300)
    start = [g[0] for g in groups]
    stop = [g[1] for g in groups]
    weight = [g[2] for g in groups]
    positive = [g[3] for g in groups]
    mean = [p / gw for gw, p in zip(weight, positive, strict=True)]
    left = [1.0 if k > 0 and mean[k - 1] > mean[k] else 0.0 for k in range(n_start)]
    right = [1.0 if k + 1 < n_start and mean[k] > mean[k + 1] else 0.0 for k in range(n_start)]
    slope = [(left[k] - right[k]) / weight[k] for k in range(n_start)]
    birth, parent = [0] * n_start, [-1] * n_start
    death = [None] * n_start
    # live groups by slot (the leftmost starting group they cover)
    node = list(range(n_start))
    nxt = [k + 1 if k + 1 < n_start else -1 for k in range(n_start)]
    prv = [k - 1 for k in range(n_start)]
    version = [0] * n_start
    upper = sum(_entropy(positive[k], weight[k]) for k in range(n_start))
    lambdas, uppers = [0.0], [upper]
    heap = []
    for k in range(n_start - 1):
        t = _collision(0.0, mean[k], slope[k], mean[k + 1], slope[k + 1], tol)
        if t < math.inf:
            heap.append((t, sign * k, 0))
    heapq.heapify(heap)
    lam = 0.0
    while heap:
        t, g, v = heapq.heappop(heap)
        g *= sign
        if v != version[g]:
            continue
        h = nxt[g]
        lam = max(lam, t)
        a, b = prv[g], nxt[h]
        ng, nh = node[g], node[h]
        q = len(start)
        event = len(lambdas)
        wq, pq = weight[ng] + weight[nh], positive[ng] + positive[nh]
        sq = (left[ng] - right[nh]) / wq
        upper += (
            _entropy(pq, wq)
            - _entropy(positive[ng], weight[ng])
            - _entropy(positive[nh], weight[nh])
        )
        start.append(start[ng])
        stop.append(stop[nh])
        weight.append(wq)
        positive.append(pq)
        mean.append(pq / wq)
        slope.append(sq)
        left.append(left[ng])
        right.append(right[nh])
        birth.append(event)
        parent.append(-1)
        death.append(None)
        death[ng] = death[nh] = event
        parent[ng] = parent[nh] = q
        lambdas.append(lam)
        uppers.append(upper)
        node[g] = q
        version[g] += 1
        version[h] += 1
        nxt[g] = b
        if b >= 0:
            prv[b] = g
            t2 = _collision(lam, mean[q], sq, mean[node[b]], slope[node[b]], tol)
            if t2 < math.inf:
                heapq.heappush(heap, (max(t2, lam), sign * g, version[g]))
        if a >= 0:
            version[a] += 1
            na = node[a]
            t2 = _collision(lam, mean[na], slope[na], mean[q], sq, tol)
            if t2 < math.inf:
                heapq.heappush(heap, (max(t2, lam), sign * a, version[a]))
    n_events = len(lambdas) - 1
    death = [n_events + 1 if d is None else d for d in death]
    return (start, stop, weight, positive, slope, birth, death, parent, lambdas, uppers)


_FIELDS = (
    "start",
    "stop",
    "weight",
    "positive",
    "slope",
    "birth",
    "death",
    "parent",
    "event_lambda",
    "upper_loglik",
)


def _assert_path_equals_reference(y, w):
    path = near_isotonic_path(y, w)
    ref = _reference_path(y, w)
    for field, expected in zip(_FIELDS[:-1], ref[:-1], strict=True):
        np.testing.assert_array_equal(getattr(path, field), np.asarray(expected), err_msg=field)
    np.testing.assert_allclose(path.upper_loglik, ref[-1], rtol=1e-12, atol=1e-12)


def _adversarial():
    rng = np.random.default_rng(11)
    yield [0.0], [1.0]
    yield [1.0, 0.0], [1.0, 1.0]
    yield [0.0, 1.0], [2.0, 0.5]
    yield [0.5] * 7, [1.0] * 7  # constant: one group, no event
    yield np.linspace(0, 1, 30), np.ones(30)  # already isotonic: every pair separates
    yield np.linspace(1, 0, 30), np.ones(30)  # decreasing: everything fuses
    yield np.tile([0.0, 1.0], 40), np.ones(80)  # alternating: massive ties in time
    yield np.tile([1.0, 0.0], 40), np.ones(80)
    yield np.tile([1.0, 1.0, 0.0, 0.0, 0.0, 1.0], 20), np.ones(120)
    yield rng.integers(0, 2, 500).astype(float), np.ones(500)
    yield rng.integers(0, 2, 500).astype(float), rng.integers(1, 4, 500).astype(float)
    yield rng.uniform(size=300), rng.uniform(0.1, 3.0, size=300)


@pytest.mark.parametrize("case", range(12))
def test_kernel_path_equals_reference_on_adversarial_inputs(case):
    y, w = list(_adversarial())[case]
    _assert_path_equals_reference(np.asarray(y, dtype=float), np.asarray(w, dtype=float))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=60),
    st.lists(st.integers(1, 3), min_size=60, max_size=60),
)
def test_kernel_path_equals_reference_on_integer_data(values, reps):
    y = np.asarray(values, dtype=float) / 3.0
    _assert_path_equals_reference(y, np.asarray(reps[: y.size], dtype=float))


def test_calibrator_on_alternating_labels_equals_reference_path_ensemble():
    # 0/1 labels on distinct scores: the ENIR case, with ~1/3 of the pairs
    # colliding at the first penalties at once
    rng = np.random.default_rng(12)
    s = rng.uniform(size=4000)
    y = (rng.uniform(size=4000) < s).astype(float)
    order = np.argsort(s)
    _assert_path_equals_reference(y[order], np.ones(4000))
    cal = ENIRCalibrator().fit(s, y)
    assert np.all(np.diff(cal.thresholds_) > 0)


@pytest.mark.parametrize("weights", ["unit", "integer", "real"])
def test_ensemble_does_not_depend_on_the_order_of_simultaneous_fusions(weights):
    # the previous kernel popped equal collision times in heap order; fusing
    # them right to left instead must give the same models and the same map
    rng = np.random.default_rng(13)
    y = (rng.uniform(size=3000) < np.linspace(0.1, 0.9, 3000)).astype(float)
    w = {
        "unit": np.ones(3000),
        "integer": rng.integers(1, 4, 3000).astype(float),
        "real": rng.uniform(0.2, 2.0, 3000),
    }[weights]
    path = near_isotonic_path(y, w)
    other = NearIsotonicPath(
        *(np.asarray(a) for a in _reference_path(y, w, ties="right")), n_values=y.size
    )
    assert path.n_events == other.n_events
    np.testing.assert_array_equal(np.sort(path.event_lambda), np.sort(other.event_lambda))
    penalty = np.log(w.sum())
    models, crit, mw = ensemble_weights(path, penalty)
    models_o, crit_o, mw_o = ensemble_weights(other, penalty)
    np.testing.assert_array_equal(path.event_lambda[models], other.event_lambda[models_o])
    np.testing.assert_allclose(crit, crit_o, rtol=1e-12)
    np.testing.assert_allclose(mw, mw_o, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(
        ensemble_fit(path, models, mw), ensemble_fit(other, models_o, mw_o), rtol=0, atol=1e-13
    )


def test_model_logliks_equal_dense_likelihoods_in_any_batch():
    from bayescal.calibration.enir import _ModelLogliks

    rng = np.random.default_rng(14)
    y = (rng.uniform(size=400) < np.linspace(0.2, 0.8, 400)).astype(float)
    w = rng.integers(1, 3, 400).astype(float)
    path = near_isotonic_path(y, w)
    logliks = _ModelLogliks(path)
    every = np.arange(path.n_events + 1)
    dense = []
    for k in every:
        f = path.fitted(path.event_lambda[k])
        dense.append(np.sum(w * (xlogy(y, f) + xlogy(1 - y, 1 - f))))
    np.testing.assert_allclose(logliks(every), dense, rtol=1e-12)
    some = np.sort(rng.choice(every, size=every.size // 3, replace=False))
    np.testing.assert_array_equal(logliks(some), logliks(every)[some])
