"""Tests of the one-vs-rest, all-pairs and multi-label reductions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from bayescal.calibration import (
    HistogramBinningCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
)
from bayescal.calibration.base import BinaryCalibrator
from bayescal.calibration.coupling import (
    couple_hastie1998,
    couple_kernlab_minpair,
    couple_wu2004,
)
from bayescal.calibration.generation import group_binary_problems
from bayescal.calibration.reductions import (
    AllPairsCalibrator,
    BinaryProblem,
    MultiLabelCalibrator,
    OneVsRestCalibrator,
)


class IdentityCalibrator(BinaryCalibrator):
    """Returns the score unchanged (a calibrator that trusts the classifier)."""

    def _fit(self, scores, targets, weights):
        self.fitted_ = True

    def _predict_positive(self, scores):
        return scores


class ShrinkCalibrator(BinaryCalibrator):
    """p = (s + alpha * weighted mean target) / (1 + alpha): data-dependent, closed form.

    Symmetric under relabelling (s -> 1 - s, t -> 1 - t gives 1 - p), so the
    reductions' relabelling invariance can be tested exactly.
    """

    def __init__(self, *, alpha=1.0):
        self.alpha = alpha

    def _fit(self, scores, targets, weights):
        self.base_rate_ = float(np.average(targets, weights=weights))

    def _predict_positive(self, scores):
        return (scores + self.alpha * self.base_rate_) / (1 + self.alpha)


class LogitLinearCalibrator(BinaryCalibrator):
    """sigmoid(a * logit(s) + b) by weighted maximum likelihood (scipy)."""

    def _fit(self, scores, targets, weights):
        z = np.log(np.clip(scores, 1e-12, 1)) - np.log(np.clip(1 - scores, 1e-12, 1))

        def nll(theta):
            eta = theta[0] * z + theta[1]
            return np.sum(weights * (np.logaddexp(0, eta) - targets * eta))

        self.coef_ = minimize(nll, np.array([1.0, 0.0]), method="BFGS").x

    def _predict_positive(self, scores):
        z = np.log(np.clip(scores, 1e-12, 1)) - np.log(np.clip(1 - scores, 1e-12, 1))
        return 1 / (1 + np.exp(-(self.coef_[0] * z + self.coef_[1])))


class ZeroCalibrator(BinaryCalibrator):
    def _fit(self, scores, targets, weights):
        self.fitted_ = True

    def _predict_positive(self, scores):
        return np.zeros_like(scores)


def make_data(n=150, k=3, seed=0, sharpen=2.0):
    """Over-confident multi-class probabilities with labels drawn from a true p."""
    rng = np.random.default_rng(seed)
    p_true = rng.dirichlet(np.ones(k), size=n)
    y = np.array([rng.choice(k, p=p) for p in p_true])
    P = p_true**sharpen
    P /= P.sum(axis=1, keepdims=True)
    return P, y


# --- one-vs-rest -------------------------------------------------------------


def test_one_vs_rest_equals_hand_computation():
    P, y = make_data()
    cal = OneVsRestCalibrator(LogitLinearCalibrator()).fit(P, y)
    Q = np.column_stack(
        [LogitLinearCalibrator().fit(P[:, k], (y == k).astype(float)).predict_proba(P[:, k])[:, 1]
         for k in range(3)]
    )
    np.testing.assert_allclose(cal.predict_proba(P), Q / Q.sum(1, keepdims=True), atol=1e-12)
    assert cal.problem_keys_ == [(0,), (1,), (2,)]
    np.testing.assert_array_equal(cal.classes_, [0, 1, 2])
    np.testing.assert_array_equal(cal.predict(P), np.argmax(cal.predict_proba(P), axis=1))


def test_one_vs_rest_identity_returns_input():
    P, y = make_data()
    out = OneVsRestCalibrator(IdentityCalibrator()).fit(P, y).predict_proba(P)
    np.testing.assert_allclose(out, P, atol=1e-12)


def test_one_vs_rest_all_zero_falls_back_to_uniform():
    P, y = make_data(k=4)
    out = OneVsRestCalibrator(ZeroCalibrator()).fit(P, y).predict_proba(P)
    np.testing.assert_array_equal(out, np.full_like(P, 0.25))


def test_calibration_improves_log_loss_of_overconfident_scores():
    P, y = make_data(n=600, sharpen=3.0, seed=1)
    P_test, y_test = make_data(n=600, sharpen=3.0, seed=2)

    def log_loss(Q, labels):
        return -np.mean(np.log(np.clip(Q[np.arange(len(labels)), labels], 1e-15, 1)))

    raw = log_loss(P_test, y_test)
    for cal in (
        OneVsRestCalibrator(LogitLinearCalibrator()),
        AllPairsCalibrator(LogitLinearCalibrator(), coupling="wu2004"),
        AllPairsCalibrator(LogitLinearCalibrator(), coupling="hastie1998"),
    ):
        assert log_loss(cal.fit(P, y).predict_proba(P_test), y_test) < raw - 0.05


# --- all pairs ---------------------------------------------------------------


@pytest.mark.parametrize("coupling", ["wu2004", "hastie1998"])
def test_all_pairs_identity_on_consistent_scores_returns_input(coupling):
    # s_ij = p_i / (p_i + p_j) is a consistent pairwise matrix: coupling returns P
    # (no pair probability below the 1e-7 floor here, so nothing is clipped).
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.full(4, 3.0), size=100)
    y = np.arange(100) % 4
    out = AllPairsCalibrator(IdentityCalibrator(), coupling=coupling).fit(P, y).predict_proba(P)
    np.testing.assert_allclose(out, P, atol=1e-7)


@pytest.mark.parametrize(("coupling", "couple"), [("wu2004", couple_wu2004), ("hastie1998", None)])
def test_all_pairs_equals_hand_computation(coupling, couple):
    P, y = make_data(n=120, k=3, seed=4)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(y))
    cal = AllPairsCalibrator(LogitLinearCalibrator(), coupling=coupling).fit(P, y, sample_weight=w)
    R = np.zeros((len(y), 3, 3))
    n_ij = np.zeros((3, 3))
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        m = (y == i) | (y == j)
        s = P[m, i] / (P[m, i] + P[m, j])
        g = LogitLinearCalibrator().fit(s, (y[m] == i).astype(float), sample_weight=w[m])
        r = g.predict_proba(P[:, i] / (P[:, i] + P[:, j]))[:, 1]
        R[:, i, j], R[:, j, i] = r, 1 - r
        n_ij[i, j] = n_ij[j, i] = w[m].sum()
    np.testing.assert_allclose(cal.pair_weights_, n_ij)
    expected = couple(R) if couple else couple_hastie1998(R, pair_weights=n_ij)
    np.testing.assert_allclose(cal.predict_proba(P), expected, atol=1e-9)


def test_all_pairs_kernlab_minpair_couples_the_same_pairwise_probabilities():
    # Four classes: the pairwise maps are those of "wu2004"; only the coupling differs.
    P, y = make_data(n=200, k=4, seed=5)
    wu = AllPairsCalibrator(LogitLinearCalibrator()).fit(P, y)
    kern = AllPairsCalibrator(LogitLinearCalibrator(), coupling="kernlab_minpair").fit(P, y)
    Q = np.clip(wu._binary_probabilities(P), 1e-7, 1 - 1e-7)
    R = np.zeros((len(y), 4, 4))
    for col, (i, j) in enumerate(wu.problem_keys_):
        R[:, i, j], R[:, j, i] = Q[:, col], 1 - Q[:, col]
    out = kern.predict_proba(P)
    np.testing.assert_allclose(out, couple_kernlab_minpair(R), atol=1e-12)
    np.testing.assert_allclose(wu.predict_proba(P), couple_wu2004(R), atol=1e-12)
    assert np.abs(out - wu.predict_proba(P)).max() > 1e-3


def test_all_pairs_zero_pair_mass_scores_half():
    P = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.2, 0.3, 0.5], [0.6, 0.2, 0.2]] * 5)
    y = np.array([0, 1, 2, 0] * 5)
    problems = AllPairsCalibrator(IdentityCalibrator()).binary_problems(P, y)
    pair_12 = problems[2]
    assert pair_12.key == (1, 2)
    # Row 0 (class 0) is not in pair (1, 2); the pair's rows are the class-1 and class-2 rows.
    np.testing.assert_array_equal(pair_12.index, np.flatnonzero(y > 0))
    cal = AllPairsCalibrator(IdentityCalibrator()).fit(P, y)
    assert cal._problem_scores(P, (1, 2))[0] == 0.5
    out = cal.predict_proba(P)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-12)


# --- binary problems interface (DGG) ------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: OneVsRestCalibrator(ShrinkCalibrator()),
        lambda: AllPairsCalibrator(ShrinkCalibrator()),
        lambda: AllPairsCalibrator(ShrinkCalibrator(), coupling="hastie1998"),
    ],
)
def test_fit_is_fit_binary_problems_of_binary_problems(make):
    P, y = make_data(k=4, seed=5)
    direct = make().fit(P, y)
    reduction = make()
    problems = reduction.binary_problems(P, y)
    assert all(isinstance(p, BinaryProblem) for p in problems)
    assert [p.key for p in problems] == direct.problem_keys_
    reduction.fit_binary_problems(problems, n_outputs=4)
    np.testing.assert_array_equal(reduction.predict_proba(P), direct.predict_proba(P))


def test_fit_binary_problems_accepts_fractional_targets():
    # What DGG produces: per problem, groups sorted by score with averaged labels.
    P, y = make_data(n=400, k=3, seed=6)
    reduction = OneVsRestCalibrator(LogitLinearCalibrator())
    grouped = []
    for problem in reduction.binary_problems(P, y):
        order = np.argsort(problem.scores)
        groups = np.array_split(order, 20)
        scores = np.array([problem.scores[g].mean() for g in groups])
        targets = np.array([problem.targets[g].mean() for g in groups])
        assert np.any((targets > 0) & (targets < 1))
        grouped.append(problem._replace(scores=scores, targets=targets, sample_weight=np.ones(20),
                                        index=np.arange(20)))
    out = reduction.fit_binary_problems(grouped, n_outputs=3).predict_proba(P)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-12)


def test_fit_binary_problems_rejects_wrong_keys():
    P, y = make_data()
    reduction = AllPairsCalibrator(ShrinkCalibrator())
    problems = reduction.binary_problems(P, y)
    with pytest.raises(ValueError, match="binary problems"):
        reduction.fit_binary_problems(problems[::-1], n_outputs=3)
    with pytest.raises(ValueError, match="binary problems"):
        reduction.fit_binary_problems(problems, n_outputs=4)
    with pytest.raises(TypeError, match="n_outputs"):
        reduction.fit_binary_problems(problems, n_outputs=3.0)


# --- weights, cloning, sklearn conventions -----------------------------------


@pytest.mark.parametrize("make", [OneVsRestCalibrator, AllPairsCalibrator])
def test_integer_weights_equal_duplication(make):
    P, y = make_data(n=60, seed=7)
    w = np.random.default_rng(1).integers(1, 4, size=len(y))
    weighted = make(ShrinkCalibrator(alpha=0.5)).fit(P, y, sample_weight=w).predict_proba(P)
    rep = np.repeat(np.arange(len(y)), w)
    duplicated = make(ShrinkCalibrator(alpha=0.5)).fit(P[rep], y[rep]).predict_proba(P)
    np.testing.assert_allclose(weighted, duplicated, atol=1e-12)


def test_calibrator_is_cloned_not_fitted_in_place():
    P, y = make_data()
    base = ShrinkCalibrator()
    cal = OneVsRestCalibrator(base).fit(P, y)
    assert not hasattr(base, "base_rate_")
    assert len({id(c) for c in cal.calibrators_}) == 3
    params = clone(AllPairsCalibrator(base, coupling="hastie1998")).get_params()
    assert params["coupling"] == "hastie1998" and isinstance(params["calibrator"], ShrinkCalibrator)


# --- invariants (hypothesis) --------------------------------------------------

REDUCTIONS = [
    lambda: OneVsRestCalibrator(ShrinkCalibrator(alpha=0.7)),
    lambda: AllPairsCalibrator(ShrinkCalibrator(alpha=0.7), coupling="wu2004"),
    lambda: AllPairsCalibrator(ShrinkCalibrator(alpha=0.7), coupling="hastie1998"),
]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    k=st.integers(2, 5),
    which=st.integers(0, len(REDUCTIONS) - 1),
    data=st.data(),
)
def test_rows_sum_to_one_and_relabelling_permutes_output(seed, k, which, data):
    rng = np.random.default_rng(seed)
    n = 10 * k
    P = rng.dirichlet(np.full(k, 0.7), size=n)
    y = np.concatenate([np.arange(k), rng.integers(0, k, size=n - k)])
    perm = np.array(data.draw(st.permutations(range(k))))
    out = REDUCTIONS[which]().fit(P, y).predict_proba(P)
    assert out.shape == (n, k) and np.all(out >= 0)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-9)
    # New class c' = perm[c]: column perm[c] of the relabelled input is old column c.
    P_new = np.empty_like(P)
    P_new[:, perm] = P
    out_new = REDUCTIONS[which]().fit(P_new, perm[y]).predict_proba(P_new)
    np.testing.assert_allclose(out_new[:, perm], out, atol=1e-8)


# --- multi-label ---------------------------------------------------------------


def make_multilabel(n=200, n_labels=4, seed=0):
    rng = np.random.default_rng(seed)
    p_true = rng.uniform(size=(n, n_labels))
    Y = (rng.uniform(size=(n, n_labels)) < p_true).astype(int)
    S = p_true**2  # miscalibrated scores
    return S, Y


def test_multilabel_equals_per_label_calibration():
    S, Y = make_multilabel()
    cal = MultiLabelCalibrator(LogitLinearCalibrator()).fit(S, Y)
    out = cal.predict_proba(S)
    assert out.shape == S.shape
    for col in range(S.shape[1]):
        direct = LogitLinearCalibrator().fit(S[:, col], Y[:, col]).predict_proba(S[:, col])[:, 1]
        np.testing.assert_allclose(out[:, col], direct, atol=1e-12)
    # Rows are independent label probabilities, not a distribution.
    assert np.abs(out.sum(axis=1) - 1).max() > 0.1
    np.testing.assert_array_equal(cal.predict(S), (out > 0.5).astype(int))


def test_multilabel_permuting_labels_permutes_output():
    S, Y = make_multilabel(seed=3)
    perm = np.array([2, 0, 3, 1])
    a = MultiLabelCalibrator(ShrinkCalibrator()).fit(S, Y).predict_proba(S)
    b = MultiLabelCalibrator(ShrinkCalibrator()).fit(S[:, perm], Y[:, perm]).predict_proba(S[:, perm])
    np.testing.assert_allclose(b, a[:, perm], atol=1e-12)


def test_multilabel_constant_label_names_the_problem():
    S, Y = make_multilabel()
    Y[:, 2] = 0
    with pytest.raises(ValueError, match=r"binary problem \(2,\).*single class"):
        MultiLabelCalibrator(ShrinkCalibrator()).fit(S, Y)


# --- bad input -----------------------------------------------------------------

P_OK, Y_OK = make_data(n=30)


@pytest.mark.parametrize(
    ("estimator", "P", "y", "error", "match"),
    [
        (OneVsRestCalibrator(ShrinkCalibrator()), P_OK * 2, Y_OK, ValueError, "`P`"),
        (OneVsRestCalibrator(ShrinkCalibrator()), P_OK, Y_OK[:-1], ValueError, "inconsistent"),
        (OneVsRestCalibrator(ShrinkCalibrator()), P_OK, np.where(Y_OK == 2, 0, Y_OK), ValueError,
         r"no sample of class\(es\) \[2\]"),
        (OneVsRestCalibrator(ShrinkCalibrator()), P_OK, Y_OK + 1, ValueError, "out of range"),
        (OneVsRestCalibrator(ShrinkCalibrator()), P_OK, Y_OK.astype(str), TypeError, "`y`"),
        (OneVsRestCalibrator(object()), P_OK, Y_OK, TypeError, "'calibrator' parameter"),
        (AllPairsCalibrator(ShrinkCalibrator(), coupling="ht"), P_OK, Y_OK, ValueError, "'coupling' parameter"),
        (AllPairsCalibrator(ShrinkCalibrator()), np.where(P_OK > 0.5, np.nan, P_OK), Y_OK,
         ValueError, "NaN"),
        (MultiLabelCalibrator(ShrinkCalibrator()), P_OK, np.ones((30, 2)), ValueError, "label columns"),
        (MultiLabelCalibrator(ShrinkCalibrator()), P_OK, np.full((30, 3), 0.5), ValueError, "0/1"),
        (MultiLabelCalibrator(ShrinkCalibrator()), P_OK + 1, np.ones((30, 3)), ValueError, "<= 1"),
    ],
)
def test_bad_input(estimator, P, y, error, match):
    with pytest.raises(error, match=match):
        estimator.fit(P, y)


@pytest.mark.parametrize("make", [OneVsRestCalibrator, AllPairsCalibrator, MultiLabelCalibrator])
def test_predict_checks(make):
    with pytest.raises(NotFittedError):
        make(ShrinkCalibrator()).predict_proba(P_OK)
    y = Y_OK if make is not MultiLabelCalibrator else (P_OK > 0.3).astype(int)
    cal = make(ShrinkCalibrator()).fit(P_OK, y)
    with pytest.raises(ValueError, match="columns|classes"):
        cal.predict_proba(np.full((4, 4), 0.25))


# --- with the library's binary calibrators -------------------------------------

LIBRARY_CALIBRATORS = [
    PlattCalibrator(),
    PlattCalibrator(input="logit", target_smoothing=False),
    IsotonicCalibrator(),
    HistogramBinningCalibrator(n_bins=5),
]


@pytest.mark.parametrize("calibrator", LIBRARY_CALIBRATORS, ids=repr)
def test_one_vs_rest_with_library_calibrators_equals_hand_computation(calibrator):
    P, y = make_data(n=200, k=3, seed=8)
    out = OneVsRestCalibrator(calibrator).fit(P, y).predict_proba(P)
    Q = np.column_stack(
        [clone(calibrator).fit(P[:, k], (y == k).astype(int)).predict_proba(P[:, k])[:, 1]
         for k in range(3)]
    )
    total = Q.sum(axis=1, keepdims=True)
    expected = np.divide(Q, total, out=np.full_like(Q, 1 / 3), where=total > 0)
    np.testing.assert_allclose(out, expected, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    k=st.integers(3, 4),
    which=st.integers(0, len(LIBRARY_CALIBRATORS) - 1),
    coupling=st.sampled_from(["wu2004", "hastie1998"]),
)
def test_library_calibrators_rows_sum_to_one(seed, k, which, coupling):
    P, y = make_data(n=25 * k, k=k, seed=seed)
    y[:k] = np.arange(k)
    for reduction in (
        OneVsRestCalibrator(LIBRARY_CALIBRATORS[which]),
        AllPairsCalibrator(LIBRARY_CALIBRATORS[which], coupling=coupling),
    ):
        out = reduction.fit(P, y).predict_proba(P)
        assert np.all(np.isfinite(out)) and np.all(out >= 0)
        np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-9)


@pytest.mark.parametrize("coupling", ["wu2004", "hastie1998"])
def test_all_pairs_relabelling_with_platt(coupling):
    # Platt is symmetric under s -> 1 - s, t -> 1 - t up to its optimiser's tolerance.
    P, y = make_data(n=240, k=4, seed=9)
    perm = np.array([2, 3, 1, 0])
    P_new = np.empty_like(P)
    P_new[:, perm] = P
    cal = PlattCalibrator(target_smoothing=False)
    out = AllPairsCalibrator(cal, coupling=coupling).fit(P, y).predict_proba(P)
    out_new = AllPairsCalibrator(cal, coupling=coupling).fit(P_new, perm[y]).predict_proba(P_new)
    np.testing.assert_allclose(out_new[:, perm], out, atol=1e-6)


@pytest.mark.parametrize("make", [OneVsRestCalibrator, AllPairsCalibrator])
def test_dgg_grouping_through_generation_module(make):
    P, y = make_data(n=900, k=3, seed=10, sharpen=3.0)
    reduction = make(IsotonicCalibrator())
    problems = group_binary_problems(reduction, P, y, group_size=30)
    assert [p.key for p in problems] == reduction._problem_keys(3)
    assert any(np.any((p.targets > 0) & (p.targets < 1)) for p in problems)
    out = reduction.fit_binary_problems(problems, n_outputs=3).predict_proba(P)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-9)
