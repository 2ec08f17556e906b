"""Tests of DirichletCalibrator: beta-calibration and dirichletcal oracles, gradient, invariants, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import check_grad, minimize
from scipy.special import log_softmax, softmax

from bayescal.calibration import BetaCalibrator, DirichletCalibrator
from bayescal.calibration.dirichlet import (
    DIRICHLET_REG_GRID,
    dirichlet_logits,
    dirichlet_objective,
    identity_parameters,
)


def _multiclass(n=300, k=3, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.full(k, 0.8), size=n)
    z = np.log(q) * np.linspace(0.6, 1.6, k) + np.linspace(-0.3, 0.3, k)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = (rng.uniform(size=(n, 1)) > np.cumsum(p, axis=1)).sum(axis=1)
    return q, y


def _reference_objective(theta, log_q, y, k, matrix, penalty, lam, mu):
    """The objective written independently: the paper's K x K weights and K intercepts
    when penalised (Kull et al. 2019, Eq. 6 without its constants), the last row of
    [W, b] fixed to zero when not."""
    rows = k if lam > 0 or mu > 0 else k - 1
    if matrix == "full":
        W = np.zeros((k, k))
        W[:rows] = theta[: rows * k].reshape(rows, k)
    else:
        W = np.diag(theta[:k])
    b = np.zeros(k)
    b[:rows] = theta[-rows:]
    logp = log_softmax(log_q @ W.T + b, axis=1)
    nll = -np.mean(logp[np.arange(len(y)), y])
    if matrix == "full":
        off = W * (1 - np.eye(k)) if penalty == "odir" else W
        reg = lam * np.sum(off**2)
    else:
        reg = lam * np.sum(theta[:k] ** 2) if penalty == "l2" else 0.0
    return nll + reg + mu * np.sum(b**2)


@pytest.mark.parametrize("matrix", ["full", "diagonal"])
@pytest.mark.parametrize(("penalty", "lam", "mu"), [("odir", 0.0, 0.0), ("odir", 0.01, 0.02),
                                                   ("l2", 0.01, 0.005)])
def test_matches_direct_scipy_optimisation_of_the_objective(matrix, penalty, lam, mu):
    q, y = _multiclass(n=150, k=3)
    k = 3
    cal = DirichletCalibrator(matrix=matrix, penalty=penalty, reg_lambda=lam, reg_mu=mu).fit(q, y)
    ref = minimize(
        _reference_objective,
        identity_parameters(k, matrix, reference_row=lam == mu == 0),
        args=(np.log(q), y, k, matrix, penalty, lam, mu),
        method="Powell",
        options={"xtol": 1e-10, "ftol": 1e-14, "maxiter": 200000, "maxfev": 200000},
    )
    ours = _reference_objective(cal.theta_, np.log(q), y, k, matrix, penalty, lam, mu)
    assert ours <= ref.fun + 1e-9  # at least as good as the derivative-free optimum
    np.testing.assert_allclose(
        cal.predict_proba(q),
        softmax(dirichlet_logits(np.log(q), ref.x, matrix), axis=1),
        atol=1e-4,
    )


@pytest.mark.parametrize("matrix", ["full", "diagonal"])
@pytest.mark.parametrize("penalty", ["odir", "l2"])
def test_analytic_gradient(matrix, penalty):
    q, y = _multiclass(n=80, k=4, seed=3)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=80)
    theta = identity_parameters(4, matrix) + np.random.default_rng(2).normal(
        scale=0.3, size=identity_parameters(4, matrix).shape
    )
    args = (np.log(q), y, w, matrix, penalty, 0.03, 0.07)
    err = check_grad(
        lambda t: dirichlet_objective(t, *args)[0], lambda t: dirichlet_objective(t, *args)[1], theta
    )
    assert err < 1e-6


def test_binary_full_map_equals_beta_calibration():
    rng = np.random.default_rng(4)
    s = rng.uniform(0.01, 0.99, size=3000)
    eta = 1.5 * np.log(s) - 0.6 * np.log1p(-s) + 0.3
    y = (rng.uniform(size=s.size) < 1 / (1 + np.exp(-eta))).astype(int)
    beta = BetaCalibrator().fit(s, y)
    assert beta.a_ > 0 and beta.b_ > 0  # the constraint is inactive: same family
    for scores in (s, np.column_stack([1 - s, s])):
        dirichlet = DirichletCalibrator(reg_lambda=0.0, reg_mu=0.0).fit(scores, y)
        grid = np.linspace(0.005, 0.995, 199)
        np.testing.assert_allclose(
            dirichlet.predict_proba(grid), beta.predict_proba(grid), atol=1e-9
        )
    # W ln q + b for class 0 vs 1 is (-b) ln(1 - s) ... : a = -W[0, 1], b = W[0, 0]
    np.testing.assert_allclose(-dirichlet.coef_[0, 1], beta.a_, rtol=1e-6)
    np.testing.assert_allclose(dirichlet.coef_[0, 0], beta.b_, rtol=1e-6)


def test_identity_map_is_a_fixed_point_of_perfectly_calibrated_data():
    q, _ = _multiclass(n=20000, k=3, seed=5)
    rng = np.random.default_rng(6)
    y = (rng.uniform(size=(q.shape[0], 1)) > np.cumsum(q, axis=1)).sum(axis=1)
    cal = DirichletCalibrator().fit(q, y)
    np.testing.assert_allclose(cal.coef_, np.vstack([np.eye(3)[:2] - np.eye(3)[2], [0, 0, 0]]),
                               atol=0.1)
    assert np.abs(cal.predict_proba(q) - q).mean() < 0.01


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), k=st.integers(2, 5))
def test_invariants(seed, k):
    q, y = _multiclass(n=150, k=k, seed=seed)
    if np.unique(y).size < 2:
        y[:2] = [0, 1]
    cal = DirichletCalibrator(reg_lambda=1e-3, reg_mu=1e-3).fit(q, y)
    p = cal.predict_proba(q)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.all((p >= 0) & (p <= 1))
    # at a fixed penalty (the "cv" default's folds differ between weights and repeats)
    # integer weights equal repeated rows; logits equal their probabilities
    w = np.random.default_rng(seed).integers(0, 3, size=q.shape[0])
    w[:2] = 1
    y[:2] = [0, 1]
    fixed = dict(reg_lambda=1e-3, reg_mu=1e-3)
    a = DirichletCalibrator(**fixed).fit(q, y, sample_weight=w).predict_proba(q)
    b = DirichletCalibrator(**fixed).fit(np.repeat(q, w, axis=0), np.repeat(y, w)).predict_proba(q)
    np.testing.assert_allclose(a, b, atol=1e-5)
    z = np.log(q) + np.random.default_rng(1).normal(size=(q.shape[0], 1))  # shift per row
    c = DirichletCalibrator(input="decision", **fixed).fit(z, y, sample_weight=w).predict_proba(z)
    np.testing.assert_allclose(a, c, atol=1e-5)


def test_clip_counts_and_strict_default():
    q, y = _multiclass(n=100, k=3, seed=9)
    q[0] = [1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="exactly 0.*clip=1e-12"):
        DirichletCalibrator(clip=None).fit(q, y)
    cal = DirichletCalibrator().fit(q, y)  # the default clip floors at 1e-12
    assert cal.n_clipped_ == 2
    assert np.isfinite(cal.predict_proba(q)).all()


@pytest.mark.parametrize(
    ("fit_scores", "y", "kwargs", "match"),
    [
        ([[0.2, 0.8], [0.6, 0.4]], [1, 1], {}, "single class"),
        ([[0.2, 0.8], [np.nan, 0.4]], [0, 1], {}, "NaN"),
        ([[0.2, 0.7], [0.6, 0.4]], [0, 1], {}, "sum to 1"),
        ([[0.2, 0.8], [0.6, 0.4]], [0, 2], {}, "0..1"),
        ([[0.2, 0.8], [0.6, 0.4]], [0, 1, 1], {}, "inconsistent numbers of samples"),
        ([[0.2, 0.8], [0.6, 0.4]], [0, 1], {"matrix": "banded"}, "matrix"),
        ([[0.2, 0.8], [0.6, 0.4]], [0, 1], {"reg_lambda": -1.0}, "reg_lambda"),
        ([[0.2, 0.8], [0.6, 0.4]], [0, 1], {"clip": 0.7}, "clip"),
        ([[0.2, 0.8], [0.6, 0.4]], [0, 1], {"input": "odds"}, "input"),
        ([[0.2, 0.8], [0.6, 0.4]], [0, 1], {"input": "logit"}, "input"),
        ([[1.0, np.inf], [0.6, 0.4]], [0, 1], {"input": "decision"}, "inf"),
        ([[2.0, -1.0], [0.6, 0.4]], [0, 1], {}, "input='decision'"),
    ],
)
def test_bad_input_table(fit_scores, y, kwargs, match):
    with pytest.raises(ValueError, match=match):
        DirichletCalibrator(**kwargs).fit(fit_scores, y)


@pytest.mark.parametrize("input_", ["score", "decision"])
def test_class_count_mismatch_between_fit_and_predict(input_):
    q, y = _multiclass(n=100, k=3, seed=2)
    X = q if input_ == "score" else np.log(q)
    cal = DirichletCalibrator(input=input_).fit(X, y)
    four = np.full((2, 4), 0.25)
    match = "4 columns but 3 classes" if input_ == "score" else "X has 4 features, but .* 3"
    with pytest.raises(ValueError, match=match):
        cal.predict_proba(four if input_ == "score" else np.log(four))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kwargs", "peer_kwargs"),
    [
        ({"reg_lambda": 0.0, "reg_mu": 0.0}, {}),
        ({"matrix": "diagonal", "reg_lambda": 0.0, "reg_mu": 0.0}, {"diagonal": True}),
        # penalised: the paper's parametrisation, dirichletcal's ref_row=False
        ({"reg_lambda": 1e-2, "reg_mu": 1e-2},
         {"reg_lambda": 1e-2, "reg_mu": 1e-2, "ref_row": False}),
        ({"penalty": "l2", "reg_lambda": 1e-2, "reg_mu": 1e-2},
         {"reg_lambda": 1e-2, "ref_row": False}),
    ],
)
def test_matches_dirichletcal(kwargs, peer_kwargs):
    from dirichletcal.calib.diagdirichlet import DiagonalDirichletCalibrator
    from dirichletcal.calib.fulldirichlet import FullDirichletCalibrator

    q, y = _multiclass(n=200, k=3, seed=11)
    peer_cls = DiagonalDirichletCalibrator if peer_kwargs.pop("diagonal", False) else (
        FullDirichletCalibrator
    )
    peer = peer_cls(optimizer="newton", **peer_kwargs).fit(q, y)
    ours = DirichletCalibrator(**kwargs).fit(q, y)
    np.testing.assert_allclose(ours.predict_proba(q), np.asarray(peer.predict_proba(q)), atol=1e-6)


# ---- issue 27: the penalty of the paper, whatever the order of the classes -------------


@pytest.mark.parametrize("matrix", ["full", "diagonal"])
@pytest.mark.parametrize(("penalty", "lam"), [("odir", 0.01), ("odir", 1.0), ("l2", 0.01)])
def test_penalised_fit_does_not_depend_on_the_order_of_the_classes(matrix, penalty, lam):
    """Relabelling the classes relabels the calibrated probabilities. The old fit
    penalised the parameters with the last row subtracted (dirichletcal's ref_row):
    ODIR at lambda = mu = 1 moved probabilities by 0.36 when the classes were rotated."""
    q, y = _multiclass(n=300, k=3, seed=7)
    order = np.array([2, 0, 1])  # new class j is old class order[j]
    kwargs = dict(matrix=matrix, penalty=penalty, reg_lambda=lam, reg_mu=lam)
    p = DirichletCalibrator(**kwargs).fit(q, y).predict_proba(q)
    p_relabelled = DirichletCalibrator(**kwargs).fit(q[:, order], np.argsort(order)[y])
    np.testing.assert_allclose(p_relabelled.predict_proba(q[:, order]), p[:, order], atol=1e-6)


def test_strong_odir_is_vector_scaling_as_in_the_paper():
    """ODIR penalises the off-diagonal weights and the intercepts: as both grow the map
    tends to vector scaling on the log-probabilities (a diagonal W, the identity map
    among them), not to a map that ignores the last class (the reference-row penalty)."""
    q, y = _multiclass(n=400, k=3, seed=8)
    full = DirichletCalibrator(reg_lambda=1e4, reg_mu=1e4).fit(q, y)
    diagonal = DirichletCalibrator(matrix="diagonal", reg_lambda=0.0, reg_mu=1e4).fit(q, y)
    np.testing.assert_allclose(full.predict_proba(q), diagonal.predict_proba(q), atol=1e-3)
    # the last class's log-probability still enters: its weight is that of vector scaling
    w_last = -full.coef_[0, -1]  # coef_ is W minus its last row: -a_K in the last column
    np.testing.assert_allclose(w_last, diagonal.coef_[-1, -1], rtol=1e-3)
    assert w_last > 0.5


# ---- issue 27: the default tunes the penalty on small calibration sets ------------------


def _iris_random_forest_folds():
    """The peer sweep's iris cells: random-forest probabilities, 3 folds (calibration
    scores out-of-fold with 2 inner folds, test scores from the forest on the training
    part)."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline

    from bayescal.datasets import load_dataset
    from tests.calibration._saturated_scores import DATA_DIR

    if not (DATA_DIR / "iris.tsv.gz").is_file():
        pytest.skip("the shared data folder (BAYESCAL_DATA) has no iris.tsv.gz")
    data = load_dataset("iris.tsv.gz", DATA_DIR)
    X, y = data.X, data.y

    def forest():
        return make_pipeline(SimpleImputer(strategy="median"),
                             RandomForestClassifier(n_estimators=10, max_depth=6, random_state=0))

    for train, test in StratifiedKFold(3, shuffle=True, random_state=0).split(X, y):
        q_cal = cross_val_predict(forest(), X[train], y[train], cv=2, method="predict_proba")
        yield q_cal, y[train], forest().fit(X[train], y[train]).predict_proba(X[test]), y[test]


def test_default_penalty_is_chosen_by_cross_validation_on_a_separable_small_set():
    """Issue 27: on iris random-forest probabilities (100 calibration rows, most classes'
    probabilities exactly 0) the unpenalised map has no finite optimum; the old default
    (unpenalised) gave a setosa row of scores (0.9, 0.1, 0) probability 9e-14 of setosa
    and a pooled Brier score 0.014 above scikit-learn's multinomial regression. The
    default now tunes the ODIR penalty by cross-validation, as Kull et al. (2019) do."""
    brier = {"default": [], "unpenalised": []}
    for q_cal, y_cal, q_test, y_test in _iris_random_forest_folds():
        onehot = np.eye(3)[y_test]
        default = DirichletCalibrator().fit(q_cal, y_cal)
        assert default.cv_log_loss_.shape == (7,)
        assert default.cv_log_loss_[list(DIRICHLET_REG_GRID).index(default.reg_lambda_)] == (
            default.cv_log_loss_.min())
        unpenalised = DirichletCalibrator(reg_lambda=0.0, reg_mu=0.0).fit(q_cal, y_cal)
        for name, cal in (("default", default), ("unpenalised", unpenalised)):
            brier[name].append(np.sum((cal.predict_proba(q_test) - onehot) ** 2, axis=1))
    pooled = {name: np.concatenate(v).mean() for name, v in brier.items()}
    assert pooled["default"] < pooled["unpenalised"] - 0.015
