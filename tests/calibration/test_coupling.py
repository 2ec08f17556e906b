"""Tests of pairwise coupling (Hastie & Tibshirani 1998; Wu, Lin & Weng 2004)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from bayescal.calibration.coupling import (
    check_pairwise_matrix,
    couple_hastie1998,
    couple_kernlab_minpair,
    couple_wu2004,
    pairwise_coupling,
)

METHODS = [couple_hastie1998, couple_wu2004]


def consistent_matrix(p: np.ndarray) -> np.ndarray:
    """r_ij = p_i / (p_i + p_j) with a zero diagonal."""
    p = np.asarray(p, dtype=float)
    R = p[..., :, None] / (p[..., :, None] + p[..., None, :])
    k = p.shape[-1]
    R[..., np.arange(k), np.arange(k)] = 0.0
    return R


# An inconsistent 3-class pairwise matrix, worked by hand: the three pairwise
# statements "0 beats 1 (0.9)", "1 beats 2 (0.8)", "2 beats 0 (0.7)" are cyclic,
# so no p reproduces them.
R_CYCLIC = np.array(
    [
        [0.0, 0.9, 0.3],
        [0.1, 0.0, 0.8],
        [0.7, 0.2, 0.0],
    ]
)


def test_hand_worked_consistent_example():
    # p = (0.5, 0.3, 0.2): r_01 = 0.5/0.8 = 0.625, r_02 = 0.5/0.7, r_12 = 0.3/0.5 = 0.6.
    R = np.array(
        [
            [0.0, 0.625, 5 / 7],
            [0.375, 0.0, 0.6],
            [2 / 7, 0.4, 0.0],
        ]
    )
    for method in METHODS:
        np.testing.assert_allclose(method(R), [0.5, 0.3, 0.2], atol=1e-10)


@pytest.mark.parametrize("method", METHODS)
def test_two_classes_returns_the_pairwise_probability(method):
    np.testing.assert_allclose(method([[0.0, 0.73], [0.27, 0.0]]), [0.73, 0.27], atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=2, max_value=6).flatmap(
        lambda k: st.lists(
            st.lists(st.floats(0.01, 1.0), min_size=k, max_size=k), min_size=1, max_size=5
        )
    )
)
def test_consistent_matrix_returns_p_exactly(rows):
    p = np.asarray(rows)
    p = p / p.sum(axis=1, keepdims=True)
    R = consistent_matrix(p)
    for method in METHODS:
        out = method(R)
        assert out.shape == p.shape
        np.testing.assert_allclose(out, p, atol=1e-9)


def _hastie_objective(p, R, W):
    mu = p[:, None] / (p[:, None] + p[None, :])
    iu = np.triu_indices(len(p), 1)
    r, m, w = R[iu], mu[iu], W[iu]
    return np.sum(w * (r * np.log(r / m) + (1 - r) * np.log((1 - r) / (1 - m))))


def _simplex_minimum(objective, k):
    """Minimise over the simplex with scipy (softmax parametrisation)."""

    def f(z):
        p = np.exp(z - z.max())
        return objective(p / p.sum())

    res = minimize(f, np.zeros(k), method="BFGS", options={"gtol": 1e-12, "maxiter": 10_000})
    p = np.exp(res.x - res.x.max())
    return p / p.sum()


def test_hastie_inconsistent_matches_scipy_minimum_of_weighted_kl():
    W = np.array([[0.0, 30.0, 10.0], [30.0, 0.0, 20.0], [10.0, 20.0, 0.0]])
    expected = _simplex_minimum(lambda p: _hastie_objective(p, R_CYCLIC, W), 3)
    got = couple_hastie1998(R_CYCLIC, pair_weights=W)
    np.testing.assert_allclose(got, expected, atol=1e-6)
    # Fixed-point condition of the algorithm: sum_j n_ij r_ij = sum_j n_ij mu_ij.
    mu = got[:, None] / (got[:, None] + got[None, :])
    np.fill_diagonal(mu, 0.0)
    np.testing.assert_allclose((W * R_CYCLIC).sum(1), (W * mu).sum(1), atol=1e-8)
    # Unweighted gives a different answer here (the weights matter).
    assert np.abs(couple_hastie1998(R_CYCLIC) - got).max() > 1e-3


def test_wu_inconsistent_matches_scipy_qp_solution():
    def objective(p):
        Rt = R_CYCLIC.T
        diff = Rt * p[:, None] - R_CYCLIC * p[None, :]  # r_ji p_i - r_ij p_j
        np.fill_diagonal(diff, 0.0)
        return 0.5 * np.sum(diff**2)

    res = minimize(
        objective,
        np.full(3, 1 / 3),
        method="SLSQP",
        bounds=[(0, 1)] * 3,
        constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1}],
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    got = couple_wu2004(R_CYCLIC)
    np.testing.assert_allclose(got, res.x, atol=1e-6)
    assert objective(got) <= objective(res.x) + 1e-12


def test_random_inconsistent_batch_matches_per_sample():
    rng = np.random.default_rng(3)
    U = rng.uniform(0.05, 0.95, size=(7, 4, 4))
    R = np.triu(U, 1)
    R = R + np.swapaxes(np.triu(1 - U, 1), 1, 2)
    for method in METHODS:
        batch = method(R)
        np.testing.assert_allclose(batch.sum(axis=1), 1.0, atol=1e-12)
        for m in range(R.shape[0]):
            np.testing.assert_allclose(batch[m], method(R[m]), atol=1e-9)


def test_hastie_class_never_preferred_gets_zero():
    R = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.6], [1.0, 0.4, 0.0]])
    p = couple_hastie1998(R)
    assert p[0] == 0.0
    np.testing.assert_allclose(p, [0.0, 0.6, 0.4], atol=1e-9)


def test_wu_degenerate_zero_one_matrix_is_finite():
    R = np.array([[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    p = couple_wu2004(R)
    assert np.all(np.isfinite(p)) and abs(p.sum() - 1) < 1e-12 and np.all(p >= 0)


def test_dispatcher():
    R = consistent_matrix(np.array([0.2, 0.8]))
    np.testing.assert_allclose(pairwise_coupling(R, "hastie1998"), [0.2, 0.8], atol=1e-10)
    np.testing.assert_allclose(pairwise_coupling(R), [0.2, 0.8], atol=1e-12)


@pytest.mark.parametrize(
    ("R", "kwargs", "error", "match"),
    [
        (np.zeros(3), {}, ValueError, r"shape \(K, K\)"),
        (np.zeros((2, 3)), {}, ValueError, r"shape \(K, K\)"),
        (np.zeros((1, 1)), {}, ValueError, "at least 2 classes"),
        ([[0.0, np.nan], [0.5, 0.0]], {}, ValueError, "NaN"),
        ([[0.0, 1.2], [-0.2, 0.0]], {}, ValueError, r"\[0, 1\]"),
        ([[0.0, 0.7], [0.7, 0.0]], {}, ValueError, r"R\[i, j\] \+ R\[j, i\] = 1"),
        ([[0.0, 0.7], [0.3, 0.0]], {"method": "lsq"}, ValueError, "`method`"),
        ([[0.0, 0.7], [0.3, 0.0]], {"method": "hastie1998", "max_iter": 0}, ValueError, "max_iter"),
        ([[0.0, 0.7], [0.3, 0.0]], {"method": "hastie1998", "tol": -1.0}, ValueError, "tol"),
        (
            [[0.0, 0.7], [0.3, 0.0]],
            {"method": "hastie1998", "pair_weights": [[0, 1], [2, 0]]},
            ValueError,
            "symmetric",
        ),
        (
            [[0.0, 0.7], [0.3, 0.0]],
            {"method": "hastie1998", "pair_weights": [[0, -1], [-1, 0]]},
            ValueError,
            "non-negative",
        ),
        (
            [[0.0, 0.7], [0.3, 0.0]],
            {"method": "hastie1998", "pair_weights": np.ones(3)},
            ValueError,
            "pair_weights",
        ),
    ],
)
def test_bad_input(R, kwargs, error, match):
    with pytest.raises(error, match=match):
        pairwise_coupling(R, **kwargs)


def test_check_pairwise_matrix_ignores_diagonal_and_does_not_mutate():
    R = np.array([[5.0, 0.6], [0.4, -3.0]])
    out, single = check_pairwise_matrix(R)
    assert single and out.shape == (1, 2, 2) and out[0, 0, 0] == 0.0
    assert R[0, 0] == 5.0


def test_hastie_warns_when_not_converged():
    from sklearn.exceptions import ConvergenceWarning

    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        couple_hastie1998(R_CYCLIC, max_iter=2)


# An extreme matrix (one class dominates) on which the plain iteration needs
# about 1500 sweeps; the Newton finish must reach the same minimiser.
R_EXTREME = np.array(
    [
        [0.0, 0.00689093, 0.73136944],
        [0.99310907, 0.0, 0.99643596],
        [0.26863056, 0.00356404, 0.0],
    ]
)
W_EXTREME = np.array([[0.0, 80.0, 75.0], [80.0, 0.0, 85.0], [75.0, 85.0, 0.0]])


def test_hastie_newton_finish_equals_plain_iteration_and_scipy():
    plain = couple_hastie1998(R_EXTREME, pair_weights=W_EXTREME, newton_after=None, tol=1e-13)
    fast = couple_hastie1998(R_EXTREME, pair_weights=W_EXTREME)
    np.testing.assert_allclose(fast, plain, atol=1e-9)
    expected = _simplex_minimum(lambda p: _hastie_objective(p, R_EXTREME, W_EXTREME), 3)
    np.testing.assert_allclose(fast, expected, atol=1e-6)
    assert _hastie_objective(fast, R_EXTREME, W_EXTREME) <= _hastie_objective(
        expected, R_EXTREME, W_EXTREME
    ) + 1e-12


def test_hastie_clipped_extremes_converge_without_warning():
    # Isotonic calibrators output pairwise probabilities at the 1e-7 floor.
    lo, hi = 1e-7, 1 - 1e-7
    R = np.array([[0.0, hi, hi, lo], [lo, 0.0, 0.5, lo], [lo, 0.5, 0.0, hi], [hi, hi, lo, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = couple_hastie1998(np.stack([R, R.T]))
    assert np.all(np.isfinite(p)) and np.allclose(p.sum(1), 1)
    expected = _simplex_minimum(lambda q: _hastie_objective(q, R, np.ones((4, 4))), 4)
    assert _hastie_objective(p[0], R, np.ones((4, 4))) <= _hastie_objective(
        expected, R, np.ones((4, 4))
    ) + 1e-9


# --- kernlab::couple(coupler = "minpair") emulation ---------------------------------


def _pairwise_from_lexicographic(probin: list[float], k: int) -> np.ndarray:
    R = np.zeros((k, k))
    rows, cols = np.triu_indices(k, 1)  # lexicographic pair order
    R[rows, cols] = probin
    R[cols, rows] = 1.0 - np.asarray(probin)
    return R


@pytest.mark.parametrize("k", [2, 3])
def test_kernlab_minpair_is_wu2004_up_to_three_classes(k):
    # R's column-major upper.tri order equals the lexicographic order for K <= 3.
    rng = np.random.default_rng(k)
    for _ in range(20):
        R = _pairwise_from_lexicographic(rng.uniform(0.02, 0.98, k * (k - 1) // 2), k)
        np.testing.assert_allclose(couple_kernlab_minpair(R), couple_wu2004(R), atol=1e-12)
    np.testing.assert_allclose(
        couple_kernlab_minpair(consistent_matrix(np.array([0.5, 0.3, 0.2]))), [0.5, 0.3, 0.2],
        atol=1e-12)


def test_kernlab_minpair_four_classes_matches_the_r_matrices_written_out():
    # probin = (r12, r13, r14, r23, r24, r34) in lexicographic order (1-based names).
    probin = [0.9, 0.8, 0.7, 0.6, 0.55, 0.3]
    # kernlab's probim as R builds it: upper.tri filled column-major with probin
    # ((1,2), (1,3), (2,3), (1,4), (2,4), (3,4) <- 0.9, 0.8, 0.7, 0.6, 0.55, 0.3),
    # lower.tri column-major with 1 - probin ((2,1), (3,1), (4,1), (3,2), (4,2), (4,3)).
    probim = np.array([
        [0.0, 0.9, 0.8, 0.6],
        [0.1, 0.0, 0.7, 0.55],
        [0.2, 0.4, 0.0, 0.3],
        [0.3, 0.45, 0.7, 0.0],
    ])
    # Q: diag = colSums(probim^2); off-diagonal -probin * (1 - probin) in the same orders.
    Q = np.array([
        [0.14, -0.09, -0.16, -0.24],
        [-0.09, 1.1725, -0.21, -0.2475],
        [-0.16, -0.24, 1.62, -0.21],
        [-0.21, -0.2475, -0.21, 0.7525],
    ])
    np.testing.assert_allclose(np.diag(Q), (probim**2).sum(axis=0))
    A = np.block([[Q, np.ones((4, 1))], [np.ones((1, 4)), np.zeros((1, 1))]])
    expected = np.linalg.solve(A, [0, 0, 0, 0, 1.0])[:4]
    expected = expected / expected.sum()
    assert np.all(expected >= 0)  # no cut at zero needed for this example
    R = _pairwise_from_lexicographic(probin, 4)
    np.testing.assert_allclose(couple_kernlab_minpair(R), expected, atol=1e-12)
    np.testing.assert_allclose(pairwise_coupling(R, "kernlab_minpair"), expected, atol=1e-12)
    # ... which is not Wu, Lin & Weng's method 2 any more.
    assert np.abs(couple_wu2004(R) - expected).max() > 0.01


def test_kernlab_minpair_does_not_recover_a_consistent_four_class_p():
    p = np.array([0.4, 0.3, 0.2, 0.1])
    got = couple_kernlab_minpair(consistent_matrix(p))
    assert np.abs(got - p).max() > 0.01
    np.testing.assert_allclose(couple_wu2004(consistent_matrix(p)), p, atol=1e-12)


@pytest.mark.parametrize("k", [4, 6, 10])
def test_kernlab_minpair_rows_are_probability_vectors(k):
    rng = np.random.default_rng(k)
    R = np.zeros((200, k, k))
    iu = np.triu_indices(k, 1)
    r = rng.choice([1e-7, 0.5, 1 - 1e-7], size=(200, iu[0].size))
    r[:100] = rng.uniform(size=(100, iu[0].size))
    R[:, iu[0], iu[1]] = r
    R[:, iu[1], iu[0]] = 1 - r
    P = couple_kernlab_minpair(R)
    assert P.shape == (200, k) and np.all(np.isfinite(P)) and np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)


def test_kernlab_minpair_bad_input():
    with pytest.raises(ValueError, match=r"R\[i, j\] \+ R\[j, i\] = 1"):
        couple_kernlab_minpair([[0.0, 0.7, 0.2], [0.7, 0.0, 0.5], [0.8, 0.5, 0.0]])
    with pytest.raises(ValueError, match="NaN"):
        couple_kernlab_minpair([[0.0, np.nan], [0.5, 0.0]])
